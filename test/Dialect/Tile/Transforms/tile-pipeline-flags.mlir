// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-pipeline))' | FileCheck %s

// A tile.flag_wait in a pipelined loop goes with the copies it guards: for
// the iteration they load, before them (chunk c's flag is index c / 64
// here, recomputed for that iteration), and it leaves the body.

// TMA ring: the producer thread waits for the flag, then for the stage,
// then announces the bytes and loads; the steady-state body keeps no wait.

// CHECK-LABEL: func.func @tma_ring
// CHECK-SAME:    (%[[PA:[^:]*]]: !tile.ptr<f16> {tile.name = "A"}, %[[PF:[^:]*]]: !tile.ptr<i32>
// CHECK:       %[[FULL:.*]] = tile.alloc : !tile.buffer<2xi64, shared>
// CHECK-NEXT:  %[[EMPTY:.*]] = tile.alloc : !tile.buffer<2xi64, shared>
// CHECK:       %[[F:.*]] = tile.view %[[PF]]
// Prologue, iteration 0.
// CHECK:       %[[IV0:.*]] = arith.addi
// CHECK:       scf.if
// CHECK:         %[[I0:.*]] = arith.divsi %[[IV0]], %[[C64:.*]] : index
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.flag_wait %[[F]][%[[I0]]], %[[E:[^ ]*]] {timeout_ms = 500 : i64} : !tile.buffer<?xi32, global>
// CHECK-NEXT:      tile.mbarrier_wait %[[EMPTY]]
// CHECK-NEXT:      tile.mbarrier_arrive %[[FULL]]
// CHECK-NEXT:      tile.tma_load
// CHECK-NEXT:    }
// Steady state: the body, then the step one iteration ahead.
// CHECK:       scf.for %[[IV:.*]] =
// CHECK-NOT:     tile.flag_wait
// CHECK:         tile.gemm
// CHECK:         %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK:         scf.if
// CHECK:           %[[I1:.*]] = arith.divsi %[[NEXT]], %[[C64]] : index
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.flag_wait %[[F]][%[[I1]]], %[[E]] {timeout_ms = 500 : i64} : !tile.buffer<?xi32, global>
// CHECK-NEXT:        tile.mbarrier_wait %[[EMPTY]]
// CHECK:       return
func.func @tma_ring(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                    %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    %chunk = arith.divsi %kk, %c64 : index
    tile.flag_wait %F[%chunk], %epoch {timeout_ms = 500} : !tile.buffer<?xi32, global>
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  }
  return
}

// -----

// cp.async: every thread waits for the iteration's flag before issuing its
// copies (prologue and steady state); the body keeps no wait.

// CHECK-LABEL: func.func @cp_async
// CHECK:       scf.if
// CHECK-NEXT:    tile.flag_wait %[[F:.*]][%[[IV0:.*]]], %{{.*}} : !tile.buffer<?xi32, global>
// CHECK-NEXT:    tile.slice
// CHECK-NEXT:    tile.async_copy %{{.*}}[%[[IV0]], %{{.*}}]
// CHECK:       tile.async_commit
// CHECK:       scf.for %[[IV:.*]] =
// CHECK:         tile.async_wait
// CHECK:         %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK:         scf.if
// CHECK-NEXT:      tile.flag_wait %[[F]][%[[NEXT]]], %{{.*}} : !tile.buffer<?xi32, global>
// CHECK-NEXT:      tile.slice
// CHECK-NEXT:      tile.async_copy %{{.*}}[%[[NEXT]], %{{.*}}]
// CHECK:         tile.async_commit
// CHECK-NOT:     tile.flag_wait
// CHECK:       return
func.func @cp_async(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                    %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %kk = %c0 to %k step %c64 stages 3 {
    tile.flag_wait %F[%kk], %epoch : !tile.buffer<?xi32, global>
    tile.copy %A[%kk, %c0] to %sA : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// Without pipelining (one stage) the wait stays where it was written.

// CHECK-LABEL: func.func @one_stage
// CHECK:       scf.for %[[IV:.*]] =
// CHECK-NEXT:    tile.flag_wait %{{.*}}[%[[IV]]], %{{.*}} : !tile.buffer<?xi32, global>
// CHECK-NEXT:    tile.copy
func.func @one_stage(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                     %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %kk = %c0 to %k step %c64 stages 1 {
    tile.flag_wait %F[%kk], %epoch : !tile.buffer<?xi32, global>
    tile.copy %A[%kk, %c0] to %sA : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// A flag index that is read inside the loop cannot be recomputed for the
// iteration issued ahead.

func.func @not_recomputable(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                            %pm: !tile.ptr<i32> {tile.name = "map"},
                            %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %Map = tile.view %pm[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    %m = tile.load %Map[%kk] : !tile.buffer<?xi32, global>
    %mi = arith.index_cast %m : i32 to index
    // expected-error @below {{'tile.flag_wait' op in a pipelined loop is issued with the copies, 1 iteration(s) ahead: its operands must be computable from the induction variable and values defined outside the loop}}
    tile.flag_wait %F[%mi], %epoch : !tile.buffer<?xi32, global>
    tile.copy %A[%kk, %c0] to %sA : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// A wait nested in the body's control flow would run after the loads it
// guards, which the pipeline issues ahead: refused.

func.func @nested(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                  %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"}, %on: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    scf.if %on {
      // expected-error @below {{'tile.flag_wait' op in a pipelined loop must be at the top level of its body: tile-pipeline issues such a wait with the iteration's copies, ahead of the body; nested in the body it would run after them}}
      tile.flag_wait %F[%kk], %epoch : !tile.buffer<?xi32, global>
    }
    tile.copy %A[%kk, %c0] to %sA : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// A deferred grid wait in a pipelined loop: the loads issued ahead of the
// body would run before it (it is not a per-iteration gate): refused.

func.func @grid_wait_in_loop(%pa: !tile.ptr<f16> {tile.name = "A"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid_dependency = "deferred"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    // expected-error @below {{'tile.grid_wait' op in a pipelined loop would run after the loads tile-pipeline issues ahead of the body: wait before the loop}}
    tile.grid_wait
    tile.copy %A[%kk, %c0] to %sA : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}
