// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-fold-zero-init))' | FileCheck %s

// The GDN step's pattern: each accumulator zeroed right before its product
// (another buffer's fill between them does not matter): both fills go, both
// gemms compute C = A x B.
// CHECK-LABEL: func.func @folded
// CHECK-NOT:   tile.fill
// CHECK:       tile.gemm %{{.*}}, %{{.*}}, %[[KS:.*]] {transpose_b, zero_init}
// CHECK-NOT:   tile.fill
// CHECK:       tile.gemm %{{.*}}, %{{.*}}, %[[O:.*]] {transpose_b, zero_init}
// CHECK-NEXT:  return
func.func @folded() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %zero = arith.constant 0.0 : f32
  %sk = tile.alloc : !tile.buffer<64x128xf16, shared>
  %s16 = tile.alloc : !tile.buffer<64x128xf16, fragment>
  %ks = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %o = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %ks, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.fill %o, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.gemm %s16, %sk, %ks {transpose_b} : !tile.buffer<64x128xf16, fragment>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.gemm %s16, %sk, %o {transpose_b} : !tile.buffer<64x128xf16, fragment>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

// Kept: a fill with a value other than +0.0 (-0.0 too: A x B may carry
// other zero signs than -0.0 + A x B), a read of the accumulator between
// fill and gemm, and a second product into an accumulator the first one
// wrote (it accumulates).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: tile.fill
// CHECK-NOT:   zero_init
// CHECK:       return
func.func @kept() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sa = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sb = tile.alloc : !tile.buffer<64x64xf16, shared>
  %one = arith.constant 1.0 : f32
  %nzero = arith.constant -0.0 : f32
  %zero = arith.constant 0.0 : f32
  %a = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %b = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %d = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %a, %one : !tile.buffer<64x64xf32, fragment>, f32
  tile.gemm %sa, %sb, %a : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.fill %b, %nzero : !tile.buffer<64x64xf32, fragment>, f32
  tile.gemm %sa, %sb, %b : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.fill %c, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.map ins(%c : !tile.buffer<64x64xf32, fragment>) outs(%d : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  tile.gemm %sa, %sb, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.gemm %sa, %sb, %a : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

// Only within one block: a fill outside an scf.if does not fold into a gemm
// inside it (the other branch would see the zeros), the fill inside does.
// CHECK-LABEL: func.func @blocks
// CHECK:       tile.fill %[[A:.*]], %{{.*}}
// CHECK:       scf.if
// CHECK-NEXT:    tile.gemm %{{.*}}, %{{.*}}, %[[A]] :
// CHECK-NEXT:    tile.gemm %{{.*}}, %{{.*}}, %[[B:.*]] {zero_init}
func.func @blocks(%p: i1) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sa = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sb = tile.alloc : !tile.buffer<64x64xf16, shared>
  %zero = arith.constant 0.0 : f32
  %a = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %b = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %a, %zero : !tile.buffer<64x64xf32, fragment>, f32
  scf.if %p {
    tile.gemm %sa, %sb, %a : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    tile.fill %b, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.gemm %sa, %sb, %b : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}
