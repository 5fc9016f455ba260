// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline))' | FileCheck %s

// Three stages: both copied buffers become 3-stage buffers; the prologue
// issues iterations 0 and 1 (each guarded by iter < tripCount, each its own
// commit group); every iteration waits for its own group (pending = 1),
// synchronizes, issues iteration i + 2 into stage (i + 2) mod 3, commits and
// runs the gemm on stage i mod 3. After the loop: wait for everything, then
// a barrier.

// CHECK-LABEL: func.func @three_stages
// CHECK:      %[[LB:.*]] = arith.constant 0 : index
// CHECK:      %[[STEP:.*]] = arith.constant 64 : index
// CHECK:      %[[UB:.*]] = arith.index_cast
// CHECK:      %[[A:.*]] = tile.view
// CHECK:      %[[B:.*]] = tile.view
// CHECK-NOT:  tile.alloc : !tile.buffer<128x64xf16, shared>
// CHECK:      %[[A3:.*]] = tile.alloc : !tile.buffer<3x128x64xf16, shared>
// CHECK-NEXT: %[[B3:.*]] = tile.alloc : !tile.buffer<3x64x128xf16, shared>
// CHECK-NEXT: %[[ACC:.*]] = tile.alloc : !tile.buffer<128x128xf32, fragment>
// CHECK:      %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]] : index
// CHECK-NEXT: %[[TRIP:.*]] = arith.ceildivsi %[[SPAN]], %[[STEP]] : index
//
// Prologue, iteration 0 into stage 0.
// CHECK-NEXT: %[[IT0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OFF0:.*]] = arith.muli %[[IT0]], %[[STEP]] : index
// CHECK-NEXT: %[[IV0:.*]] = arith.addi %[[LB]], %[[OFF0]] : index
// CHECK-NEXT: %[[ST0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[G0:.*]] = arith.cmpi slt, %[[IT0]], %[[TRIP]] : index
// CHECK-NEXT: scf.if %[[G0]] {
// CHECK-NEXT:   %[[SA0:.*]] = tile.slice %[[A3]][%[[ST0]]] : !tile.buffer<3x128x64xf16, shared> -> !tile.buffer<128x64xf16, shared>
// CHECK-NEXT:   tile.async_copy %[[A]][%{{.*}}, %[[IV0]]] to %[[SA0]] : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
// CHECK-NEXT:   %[[SB0:.*]] = tile.slice %[[B3]][%[[ST0]]]
// CHECK-NEXT:   tile.async_copy %[[B]][%[[IV0]], %{{.*}}] to %[[SB0]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_commit
//
// Prologue, iteration 1 into stage 1.
// CHECK-NEXT: %[[IT1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[OFF1:.*]] = arith.muli %[[IT1]], %[[STEP]] : index
// CHECK-NEXT: %[[IV1:.*]] = arith.addi %[[LB]], %[[OFF1]] : index
// CHECK-NEXT: %[[ST1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[G1:.*]] = arith.cmpi slt, %[[IT1]], %[[TRIP]] : index
// CHECK-NEXT: scf.if %[[G1]] {
// CHECK-NEXT:   %[[SA1:.*]] = tile.slice %[[A3]][%[[ST1]]]
// CHECK-NEXT:   tile.async_copy %[[A]][%{{.*}}, %[[IV1]]] to %[[SA1]]
// CHECK-NEXT:   %[[SB1:.*]] = tile.slice %[[B3]][%[[ST1]]]
// CHECK-NEXT:   tile.async_copy %[[B]][%[[IV1]], %{{.*}}] to %[[SB1]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_commit
// CHECK-NOT:  tile.async_commit
//
// The steady state.
// CHECK-NEXT: scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] {
// CHECK-NEXT:   %[[REL:.*]] = arith.subi %[[IV]], %[[LB]] : index
// CHECK-NEXT:   %[[I:.*]] = arith.divsi %[[REL]], %[[STEP]] : index
// CHECK-NEXT:   tile.async_wait {pending = 1 : i64}
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[I]], %[[C2]] : index
// CHECK-NEXT:   %[[AHEAD:.*]] = arith.muli %[[C2]], %[[STEP]] : index
// CHECK-NEXT:   %[[NIV:.*]] = arith.addi %[[IV]], %[[AHEAD]] : index
// CHECK-NEXT:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[NST:.*]] = arith.remsi %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:   %[[G:.*]] = arith.cmpi slt, %[[NEXT]], %[[TRIP]] : index
// CHECK-NEXT:   scf.if %[[G]] {
// CHECK-NEXT:     %[[NSA:.*]] = tile.slice %[[A3]][%[[NST]]]
// CHECK-NEXT:     tile.async_copy %[[A]][%{{.*}}, %[[NIV]]] to %[[NSA]]
// CHECK-NEXT:     %[[NSB:.*]] = tile.slice %[[B3]][%[[NST]]]
// CHECK-NEXT:     tile.async_copy %[[B]][%[[NIV]], %{{.*}}] to %[[NSB]]
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.async_commit
// CHECK-NEXT:   %[[CUR:.*]] = arith.remsi %[[I]], %[[C3]] : index
// CHECK-NEXT:   %[[CA:.*]] = tile.slice %[[A3]][%[[CUR]]] : !tile.buffer<3x128x64xf16, shared> -> !tile.buffer<128x64xf16, shared>
// CHECK-NEXT:   %[[CB:.*]] = tile.slice %[[B3]][%[[CUR]]] : !tile.buffer<3x64x128xf16, shared> -> !tile.buffer<64x128xf16, shared>
// CHECK-NEXT:   tile.gemm %[[CA]], %[[CB]], %[[ACC]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: return
// CHECK-NOT:  tile.for
// CHECK-NOT:  tile.copy
func.func @three_stages(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %B = tile.view %pb[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %bx = tile.program_id x
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    tile.copy %A[%bx, %k] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
    tile.copy %B[%k, %bx] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x128xf16, shared>
    tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
  }
  return
}

// -----

// Two stages: one prologue group, each iteration waits for all copies
// (pending = 0) and issues iteration i + 1 into stage (i + 1) mod 2. The
// swizzle layout, the copy's thread mapping and `masked` carry over.

// CHECK-LABEL: func.func @two_stages
// CHECK:      %[[S2:.*]] = tile.alloc : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
// CHECK:      scf.if
// CHECK:        tile.async_copy {{.*}} {layout = #tile.blocked<vector = 8>, masked}
// CHECK:      tile.async_commit
// CHECK-NOT:  tile.async_commit
// CHECK:      scf.for %[[IV:.*]] =
// CHECK:        %[[I:.*]] = arith.divsi
// CHECK-NEXT:   tile.async_wait {pending = 0 : i64}
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK:        %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[NST:.*]] = arith.remsi %[[NEXT]], %[[C2]] : index
// CHECK:        scf.if
// CHECK-NEXT:     %[[NS:.*]] = tile.slice %[[S2]][%[[NST]]]
// CHECK-NEXT:     tile.async_copy {{.*}} to %[[NS]] {layout = #tile.blocked<vector = 8>, masked}
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.async_commit
// CHECK-NEXT:   %[[CUR:.*]] = arith.remsi %[[I]], %[[C2]] : index
// CHECK-NEXT:   %[[S:.*]] = tile.slice %[[S2]][%[[CUR]]]
// CHECK-NEXT:   tile.gemm %[[S]], %[[S]], %{{.*}} {transpose_b}
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i64}
// CHECK-NEXT: tile.barrier
func.func @two_stages(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.for %k = %c0 to %m step %c64 stages 2 {
    tile.copy %A[%c0, %k] to %s {masked, layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  }
  return
}

// -----

// Offsets computed in the body by pure ops are recomputed for the iteration
// that is issued (here k + 64, from that iteration's induction value).

// CHECK-LABEL: func.func @recomputed_offsets
// CHECK:      %[[C64:.*]] = arith.constant 64 : index
// CHECK:      %[[IV0:.*]] = arith.addi
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK-NEXT:   %[[K0:.*]] = arith.addi %[[IV0]], %[[C64]] : index
// CHECK-NEXT:   tile.slice
// CHECK-NEXT:   tile.async_copy %{{.*}}[%{{.*}}, %[[K0]]]
// CHECK:      scf.for %[[IV:.*]] =
// CHECK:        %[[NIV:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK:        scf.if
// CHECK-NEXT:     %[[KN:.*]] = arith.addi %[[NIV]], %[[C64]] : index
// CHECK-NEXT:     tile.slice
// CHECK-NEXT:     tile.async_copy %{{.*}}[%{{.*}}, %[[KN]]]
func.func @recomputed_offsets(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    %k1 = arith.addi %k, %c64 : index
    tile.copy %A[%c0, %k1] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// One stage: the loop runs as written, with a barrier after the copies
// (before the first op that reads them) and one at the end of the body.

// CHECK-LABEL: func.func @one_stage
// CHECK-DAG:  %[[SA:.*]] = tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK-DAG:  %[[SB:.*]] = tile.alloc : !tile.buffer<64x32xf16, shared>
// CHECK:      scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:   tile.copy %{{.*}}[%{{.*}}, %[[IV]]] to %[[SA]]
// CHECK-NEXT:   tile.copy %{{.*}}[%[[IV]], %{{.*}}] to %[[SB]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.gemm %[[SA]], %[[SB]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NOT:  tile.async
func.func @one_stage(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x32xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x32xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 1 {
    tile.copy %A[%c0, %k] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %A[%k, %c0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x32xf16, shared>
    tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x32xf16, shared>, !tile.buffer<64x32xf32, fragment>
  }
  return
}

// -----

// A copy whose offset comes from a non-pure op of the body cannot be issued
// ahead: with no other copy to pipeline, the loop runs as written.

func.func private @next_row() -> index

// CHECK-LABEL: func.func @impure_offset
// CHECK:      %[[S:.*]] = tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK-NOT:  tile.async_copy
// CHECK:      scf.for
// CHECK-NEXT:   %[[ROW:.*]] = func.call @next_row() : () -> index
// CHECK-NEXT:   tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %[[S]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.gemm %[[S]], %[[S]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT: }
// CHECK-NOT:  tile.async
func.func @impure_offset(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    %row = func.call @next_row() : () -> index
    tile.copy %A[%row, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// A buffer that another op of the loop also writes (here a fragment store)
// is not multi-buffered.

// CHECK-LABEL: func.func @second_writer
// CHECK:      %[[S:.*]] = tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK-NOT:  tile.async_copy
// CHECK:      scf.for
// CHECK-NEXT:   tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[S]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.gemm %[[S]], %[[S]]
// CHECK-NEXT:   tile.copy %{{.*}} to %[[S]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT: }
// CHECK-NOT:  tile.async
func.func @second_writer(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    tile.copy %A[%c0, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    tile.copy %acc to %s : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
  }
  return
}

// -----

// A buffer that is also used after the loop keeps its single copy.

// CHECK-LABEL: func.func @used_after_loop
// CHECK:      %[[S:.*]] = tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK-NOT:  tile.async_copy
// CHECK:      scf.for
// CHECK-NEXT:   tile.copy %{{.*}} to %[[S]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.gemm %[[S]], %[[S]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %[[S]] to
func.func @used_after_loop(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %f = tile.alloc : !tile.buffer<64x64xf16, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    tile.copy %A[%c0, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  tile.copy %s to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf16, fragment>
  return
}

// -----

// Nested loops: the inner loop is pipelined first and stays inside the outer
// (one-stage) loop.

// CHECK-LABEL: func.func @nested
// CHECK:      %[[S3:.*]] = tile.alloc : !tile.buffer<3x64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.async_commit
// CHECK:        tile.async_commit
// CHECK:        scf.for
// CHECK:          tile.async_wait {pending = 1 : i64}
// CHECK:          tile.gemm{{.*}}
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.async_wait {pending = 0 : i64}
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT: }
func.func @nested(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %j = %c0 to %c2 step %c1 stages 1 {
    tile.for %k = %c0 to %m step %c64 stages 3 {
      tile.copy %A[%j, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
      tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    }
  }
  return
}

// -----

// A tile.for's `loop_annotation` (here: LLVM's LICM off) goes to the scf.for
// that runs the steady state, whether the loop is pipelined or run as
// written; nothing else takes it.

// CHECK:       #[[$LICM:[a-z_0-9]+]] = #llvm.loop_licm<disable = true>
// CHECK-NEXT:  #[[$ANN:[a-z_0-9]+]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-LABEL: func.func @annotated_two_stages
// CHECK:       tile.async_commit
// CHECK:       scf.for
// CHECK:         tile.gemm
// CHECK-NEXT:  } {loop_annotation = #[[$ANN]]}
// CHECK-NOT:   loop_annotation
// CHECK:       return
func.func @annotated_two_stages(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 2 {
    tile.copy %A[%c0, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  } {loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
  return
}

// -----

// CHECK:       #[[$LICM:[a-z_0-9]+]] = #llvm.loop_licm<disable = true>
// CHECK-NEXT:  #[[$ANN:[a-z_0-9]+]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-LABEL: func.func @annotated_one_stage
// CHECK:       scf.for
// CHECK:         tile.gemm
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:  } {loop_annotation = #[[$ANN]]}
// CHECK-NEXT:  return
func.func @annotated_one_stage(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 1 {
    tile.copy %A[%c0, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  } {loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
  return
}
