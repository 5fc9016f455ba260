// RUN: gdn-opt %s --gdn-lower-to-cpu | FileCheck %s
// RUN: gdn-opt %s --gdn-lower-to-cpu=poison=0 | FileCheck %s --check-prefix=NOPOISON
// RUN: gdn-opt %s --gdn-lower-to-cpu=flag-hooks=0 | FileCheck %s --check-prefix=NOHOOKS

// gdn-lower-to-cpu: symbol-dce drops the private function no kernel calls
// (convert-tile-to-loops converts every function, and this one could not
// be: a phase op only the GPU passes create), then the kernel becomes
// loops over memrefs with its buffers NaN-filled (not with poison=0), and
// a flag wait loops on the emulator's hook @__tile_flag_stalled (not with
// flag-hooks=0: the plain in-order check).

// CHECK-NOT: @unused
// CHECK: func.func private @__tile_flag_stalled() -> i1
// CHECK-LABEL: func.func @k(
// CHECK-SAME: memref<?xf32>
// CHECK-SAME: attributes {gdn.cpu_kernel}
// CHECK: memref.alloca() : memref<16x16xf32>
// CHECK: arith.constant 0x7FC00000 : f32
// CHECK-NOT: tile.
// NOPOISON-LABEL: func.func @k(
// NOPOISON-NOT: 0x7FC00000
func.func private @unused(%l: !tile.buffer<32x32xf32, shared>, %t: !tile.buffer<32x32xf32, shared>) {
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

func.func @k(%p: !tile.ptr<f32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %X = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?x16xf32, global>
  %f = tile.alloc : !tile.buffer<16x16xf32, fragment>
  tile.copy %X[%c0, %c0] to %f {masked} : !tile.buffer<?x16xf32, global> to !tile.buffer<16x16xf32, fragment>
  tile.copy %f to %X[%c0, %c0] {masked} : !tile.buffer<16x16xf32, fragment> to !tile.buffer<?x16xf32, global>
  return
}


// CHECK-LABEL: func.func @w(
// CHECK: func.call @__tile_flag_stalled() : () -> i1
// NOHOOKS-NOT: __tile_flag_stalled
// NOHOOKS: flag not released by an earlier block
func.func @w(%p: !tile.ptr<i32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %F = tile.view %p[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.flag_wait %F[%c0], %one : !tile.buffer<?xi32, global>
  return
}
