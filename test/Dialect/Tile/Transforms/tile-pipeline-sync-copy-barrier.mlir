// RUN: gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-pipeline))' | FileCheck %s
// XFAIL: *
//
// Known bug (Pipeline.cpp, PipelinePass::pipeline, the clone loop of the
// pipelined body): when a loop has at least one multi-buffered copy, the
// copies that are NOT multi-buffered (here: the offset comes from a non-pure
// call) are cloned as synchronous global->shared copies with no tile.barrier
// between them and the ops that read the buffer, so other threads' parts of
// the tile may not have been written yet. The one-stage path inserts that
// barrier; the pipelined path must too. Remove the XFAIL once fixed.

func.func private @next_row() -> index

// CHECK-LABEL: func.func @mixed_copies
// CHECK-DAG:  %[[S3:.*]] = tile.alloc : !tile.buffer<3x64x64xf16, shared>
// CHECK-DAG:  %[[SB:.*]] = tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.async_wait {pending = 1 : i64}
// CHECK-NEXT:   tile.barrier
// CHECK:        tile.async_commit
// CHECK:        %[[SA:.*]] = tile.slice %[[S3]]
// CHECK:        %[[ROW:.*]] = func.call @next_row()
// CHECK-NEXT:   tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %[[SB]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.gemm %[[SA]], %[[SB]]
func.func @mixed_copies(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    tile.copy %A[%c0, %k] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    %row = func.call @next_row() : () -> index
    tile.copy %A[%row, %k] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}
