// RUN: gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-assign-layouts,tile-pipeline,tile-tma-store,canonicalize,tile-plan-shared-memory,tile-insert-barriers,tile-warp-specialize,arith-expand),tile-outline-kernels,convert-tile-to-nvvm)' | FileCheck %s

// A tile.producer_task through the whole lowering: the producer warpgroup
// (after setmaxnreg.dec) runs the task inline, its threads numbered from
// 256 (tid.x - 256 wherever a pattern distributes work over threads: the
// copy into its tile, its mma.sync gemm, its stores into the hand-off slot),
// its barriers the named barrier 2 over 128 threads, each after a
// fence.proxy.async (the consumers' wgmma reads the slot); its one-thread
// arrival is task thread 0. The consumers (setmaxnreg.inc) wait on the
// slot's full barrier and multiply with wgmma. No tile op is left.

// CHECK-LABEL: llvm.func @k
// CHECK:         nvvm.setmaxregister  decrease 72
// The ring's TMA step: block thread 256 (raw tid.x).
// CHECK:         %[[TP:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    llvm.icmp "eq" %[[TP]], %{{.*}} : i32
// CHECK:         nvvm.mbarrier.arrive.expect_tx.shared
// The task.
// CHECK:         %[[T0:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[B0:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    llvm.sub %[[T0]], %[[B0]] overflow<nuw> : i32
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    %[[ID:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK:         llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:         nvvm.mbarrier.try_wait.parity.shared
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[T1:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[B1:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[R1:.*]] = llvm.sub %[[T1]], %[[B1]] overflow<nuw> : i32
// CHECK-NEXT:    llvm.icmp "eq" %[[R1]], %[[Z]] : i32
// CHECK:         nvvm.mbarrier.arrive.shared
// CHECK:         nvvm.setmaxregister  increase 216
// CHECK:         nvvm.mbarrier.try_wait.parity.shared
// CHECK:         nvvm.wgmma.mma_async
// CHECK-NOT:     tile.
// CHECK:         llvm.return

func.func @k(%pa: !tile.ptr<f16> {tile.name = "A"}, %px: !tile.ptr<f16> {tile.name = "X"},
             %pc: !tile.ptr<f32> {tile.name = "C"},
             %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %X = tile.view %px[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  // The hand-off ring: two 64x64 slots the task fills, full/empty barriers.
  %ring = tile.alloc : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %empty = tile.alloc : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 256} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<128x64xf32, fragment>, f32
  %nk = arith.ceildivsi %k, %c64 : index
  tile.for %i = %c0 to %nk step %c1 stages 2 {
    %kk = arith.muli %i, %c64 : index
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
    %slot = arith.remsi %i, %c2 : index
    %gen = arith.divsi %i, %c2 : index
    %genp = arith.addi %gen, %c1 : index
    // The producer warpgroup forms slot i: X X^T over its four warps (mma.sync).
    tile.producer_task warps 4 engine "mma.sync" {
      %sX = tile.alloc : !tile.buffer<64x64xf16, shared>
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment>
      tile.copy %X[%c0, %kk] to %sX : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
      tile.fill %g, %zero : !tile.buffer<64x64xf32, fragment>, f32
      tile.gemm %sX, %sX, %g {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
      tile.mbarrier_wait %empty[%slot], %genp : !tile.buffer<2xi64, shared>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %gen : !tile.buffer<2xi64, shared>
    %src = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %src, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment>
    tile.mbarrier_arrive %empty[%slot] : !tile.buffer<2xi64, shared>
  }
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<128x64xf32, fragment> to !tile.buffer<?x64xf32, global>
  return
}
