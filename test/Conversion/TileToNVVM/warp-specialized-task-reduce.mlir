// RUN: gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-assign-layouts,tile-pipeline,canonicalize,tile-plan-shared-memory,tile-insert-barriers,tile-warp-specialize,arith-expand),tile-outline-kernels,convert-tile-to-nvvm)' | FileCheck %s

// A tile.reduce across warps in a tile.producer_task: its barriers are the
// producer warpgroup's named barrier (bar.sync 2, 128), not the consumers'
// (warp-specialized-reduce.mlir checks theirs) nor the block's.

// CHECK-LABEL: llvm.func @k
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:         %[[ID:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK:         nvvm.setmaxregister  increase 256
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return

func.func @k(%pa: !tile.ptr<f16> {tile.name = "A"}, %pc: !tile.ptr<f32> {tile.name = "C"},
             %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %row = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %kk = %c0 to %k step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %A[%c0, %kk] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    tile.producer_task warps 4 {
      %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
      %r = tile.alloc : !tile.buffer<64xf32, fragment>
      tile.fill %f, %zero : !tile.buffer<64x64xf32, fragment>, f32
      tile.reduce add %f, %r {dim = 0} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
      tile.copy %r to %C[%kk] : !tile.buffer<64xf32, fragment> to !tile.buffer<?xf32, global>
    }
  }
  tile.reduce add %acc, %row {dim = 1} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.copy %row to %C[%c0] : !tile.buffer<64xf32, fragment> to !tile.buffer<?xf32, global>
  return
}
