// RUN: gdn-opt %s --inline --symbol-dce --canonicalize --split-input-file | FileCheck %s

// Tile ops (including region ops) inline into a kernel; the constant flag
// then folds the branch away (how the GDN forward kernels share one body).

func.func private @body(%acc: !tile.buffer<64x16xf32, fragment>,
                        %src: !tile.buffer<64x16xf16, shared>, %scale: f32,
                        %with_copy: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.for %i = %c0 to %c2 step %c1 stages 1 {
    tile.map ins(%acc : !tile.buffer<64x16xf32, fragment>) outs(%acc : !tile.buffer<64x16xf32, fragment>) {
    ^bb0(%x: f32):
      %r = arith.mulf %x, %scale : f32
      tile.yield %r : f32
    }
  }
  scf.if %with_copy {
    tile.copy %acc to %src : !tile.buffer<64x16xf32, fragment> to !tile.buffer<64x16xf16, shared>
  }
  return
}

// CHECK-NOT: func.func private @body
// CHECK-LABEL: func.func @kernel
// CHECK-NOT: func.call
// The copy's destination buffer is dead with the copy.
// CHECK-NOT: shared
// CHECK: tile.for
// CHECK: tile.map
// CHECK: arith.mulf
// CHECK-NOT: scf.if
// CHECK-NOT: tile.copy
// CHECK: return
func.func @kernel() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %acc = tile.alloc : !tile.buffer<64x16xf32, fragment>
  %src = tile.alloc : !tile.buffer<64x16xf16, shared>
  %two = arith.constant 2.0 : f32
  %false = arith.constant false
  func.call @body(%acc, %src, %two, %false) : (!tile.buffer<64x16xf32, fragment>, !tile.buffer<64x16xf16, shared>, f32, i1) -> ()
  return
}

// -----

// Nothing is inlined into the per-element body of a tile.map.

func.func private @twice(%x: f32) -> f32 {
  %r = arith.addf %x, %x : f32
  return %r : f32
}

// CHECK-LABEL: func.func @map_body
// CHECK: tile.map
// CHECK: func.call @twice
func.func @map_body() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %acc = tile.alloc : !tile.buffer<64x16xf32, fragment>
  tile.map ins(%acc : !tile.buffer<64x16xf32, fragment>) outs(%acc : !tile.buffer<64x16xf32, fragment>) {
  ^bb0(%x: f32):
    %r = func.call @twice(%x) : (f32) -> f32
    tile.yield %r : f32
  }
  return
}
