// RUN: gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-assign-layouts,tile-pipeline,tile-tma-store,canonicalize,tile-plan-shared-memory,tile-insert-barriers,tile-warp-specialize,arith-expand),tile-outline-kernels,convert-tile-to-nvvm)' | FileCheck %s

// Two tile.producer_task groups through the whole lowering
// (warp-specialized-task.mlir has one): 8 consumer + 8 producer warps (512
// threads, maxntid 512, setmaxnreg 64 / 192). Each task's body is entered
// only by its own warpgroup (tid.x - thread_base < 128, unsigned), its
// threads numbered from 256 or 384, its barriers the named barriers 2 or 3;
// the ring's TMA step is issued by thread 256 for stage 0 and thread 384
// for stage 1 (tma_issue = "round_robin").

// CHECK-LABEL: llvm.func @k
// CHECK-SAME:    nvvm.maxntid = array<i32: 512, 1, 1>
// The producers are tid.x >= 256.
// CHECK:         llvm.icmp "uge" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.cond_br
// CHECK-NEXT:  ^bb{{.*}}:
// CHECK-NEXT:    nvvm.setmaxregister  decrease 64
// The ring's prologue (stage 0) and its step in the loop, each cloned for
// both warpgroups: block threads 256 and 384 (raw tid.x).
// CHECK:         llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    llvm.icmp "eq"
// CHECK:         nvvm.mbarrier.arrive.expect_tx.shared
// CHECK:         llvm.mlir.constant(384 : i32) : i32
// CHECK-NEXT:    nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    llvm.icmp "eq"
// CHECK:         nvvm.mbarrier.arrive.expect_tx.shared
// Group 0's task: its warpgroup's guard, then its body (threads numbered
// from 256) on named barrier 2.
// CHECK:         %[[T0:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[B0:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[R0:.*]] = llvm.sub %[[T0]], %[[B0]] : i32
// CHECK-NEXT:    %[[N0:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    %[[IN0:.*]] = llvm.icmp "ult" %[[R0]], %[[N0]] : i32
// CHECK-NEXT:    llvm.cond_br %[[IN0]], ^[[BODY0:bb[0-9]+]], ^
// CHECK-NEXT:  ^[[BODY0]]:
// CHECK:         nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    llvm.sub %{{.*}}, %{{.*}} overflow<nuw> : i32
// CHECK:         %[[ID0:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID0]]
// (Its one-thread arrival on the full barrier: task thread 0.)
// CHECK:         llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.cond_br
// CHECK-NEXT:  ^bb{{.*}}:
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    nvvm.mbarrier.arrive.shared
// Group 1's task, from 384, on named barrier 3.
// CHECK:         %[[T1:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[B1:.*]] = llvm.mlir.constant(384 : i32) : i32
// CHECK-NEXT:    %[[R1:.*]] = llvm.sub %[[T1]], %[[B1]] : i32
// CHECK-NEXT:    %[[N1:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    %[[IN1:.*]] = llvm.icmp "ult" %[[R1]], %[[N1]] : i32
// CHECK-NEXT:    llvm.cond_br %[[IN1]], ^[[BODY1:bb[0-9]+]], ^
// CHECK-NEXT:  ^[[BODY1]]:
// CHECK:         nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    llvm.mlir.constant(384 : i32) : i32
// CHECK-NEXT:    llvm.sub %{{.*}}, %{{.*}} overflow<nuw> : i32
// CHECK:         %[[ID1:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID1]]
// CHECK:         nvvm.setmaxregister  increase 192
// CHECK:         nvvm.wgmma.mma_async
// CHECK-NOT:     tile.
// CHECK:         llvm.return

func.func @k(%pa: !tile.ptr<f16> {tile.name = "A"}, %px: !tile.ptr<f16> {tile.name = "X"},
             %pc: !tile.ptr<f32> {tile.name = "C"},
             %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 64 : i64, consumer_registers = 192 : i64,
                                        tma_issue = "round_robin"}} {
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
    // Producer warpgroup i mod 2 forms slot i: X X^T over its four warps
    // (mma.sync), the two warpgroups on alternate iterations.
    %even = arith.cmpi eq, %slot, %c0 : index
    scf.if %even {
      tile.producer_task warps 4 group 0 engine "mma.sync" {
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
    } else {
      tile.producer_task warps 4 group 1 engine "mma.sync" {
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
    }
    tile.mbarrier_wait %full[%slot], %gen : !tile.buffer<2xi64, shared>
    %src = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %src, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment>
    tile.mbarrier_arrive %empty[%slot] : !tile.buffer<2xi64, shared>
  }
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<128x64xf32, fragment> to !tile.buffer<?x64xf32, global>
  return
}
