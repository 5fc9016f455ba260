// RUN: gdn-opt %s -split-input-file --tile-outline-kernels --convert-tile-to-nvvm | FileCheck %s

// An LLVM loop annotation on an scf.for reaches the branch that closes
// that loop (its latch), where LLVM reads it (here: no loop-invariant code
// motion, so the per-thread addresses of the body stay in the body). The
// inner loop has none, and its latch gets none.

// CHECK-DAG:   #[[$LICM:[a-z_0-9]+]] = #llvm.loop_licm<disable = true>
// CHECK-DAG:   #[[$ANN:[a-z_0-9]+]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-LABEL: llvm.func @outer_annotated
// CHECK:         llvm.br ^[[OUTER:bb[0-9]+]](
// CHECK:       ^[[OUTER]](
// CHECK:         llvm.cond_br
// CHECK:         llvm.br ^[[INNER:bb[0-9]+]](
// CHECK:       ^[[INNER]](
// CHECK:         llvm.cond_br
// CHECK:         llvm.br ^[[INNER]](%{{.*}} : i64){{$}}
// CHECK:         llvm.br ^[[OUTER]](%{{.*}} : i64) {loop_annotation = #[[$ANN]]}
// CHECK-NOT:     loop_annotation
// CHECK:         llvm.return
func.func @outer_annotated(%pa: !tile.ptr<f32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %A = tile.view %pa[%n, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %f = tile.alloc : !tile.buffer<16x16xf32, fragment, #tile.blocked<vector = 1>>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      tile.copy %A[%i, %j] to %f : !tile.buffer<?x?xf32, global> to !tile.buffer<16x16xf32, fragment, #tile.blocked<vector = 1>>
      tile.copy %f to %A[%j, %i] : !tile.buffer<16x16xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?x?xf32, global>
    }
  } {loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
  return
}

// -----

// The inner loop annotated, with loop-carried values: its latch (the
// back edge to its own header, not the outer one's) takes it.

// CHECK-LABEL: llvm.func @inner_annotated
// CHECK:         llvm.br ^[[OUTER:bb[0-9]+]](
// CHECK:       ^[[OUTER]](
// CHECK:         llvm.br ^[[INNER:bb[0-9]+]](
// CHECK:       ^[[INNER]](
// CHECK:         llvm.br ^[[INNER]](%{{.*}}, %{{.*}} : i64, f32) {loop_annotation = #{{.*}}}
// CHECK:         llvm.br ^[[OUTER]](%{{.*}} : i64){{$}}
func.func @inner_annotated(%pa: !tile.ptr<f32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %A = tile.view %pa[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %f = tile.alloc : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>
  scf.for %i = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = tile.load %A[%j] : !tile.buffer<?xf32, global>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    } {loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
    tile.fill %f, %s : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>, f32
    tile.copy %f to %A[%i] : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xf32, global>
  }
  return
}
