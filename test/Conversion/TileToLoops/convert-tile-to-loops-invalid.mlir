// RUN: gdn-opt %s -split-input-file -verify-diagnostics --convert-tile-to-loops=flag-hooks=true

// Ops that only the GPU passes create have no CPU lowering.
func.func @gemm_wait() {
  // expected-error @below {{'tile.gemm_wait' op is not supported by convert-tile-to-loops (only the GPU passes create it; convert kernels as written)}}
  tile.gemm_wait {pending = 0}
  return
}

// -----

func.func @inverse_phase(%l: !tile.buffer<32x32xf32, shared>, %t: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op is not supported by convert-tile-to-loops}}
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

// Tensor maps (tile-pipeline's TMA parameters) exist only after the GPU passes.
// expected-error @below {{'func.func' op takes a tensor map, which convert-tile-to-loops does not lower (only the GPU passes create them)}}
func.func @tma(%m: !tile.tensormap<64x64xf16, swizzle = 128>) {
  return
}

// -----

// An arrive that announces TMA bytes waits for a TMA load, which does not
// exist before the GPU passes.
func.func @expect_tx(%b: !tile.buffer<2xi64, shared>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.mbarrier_arrive' op with expect_tx waits for TMA bytes, which convert-tile-to-loops does not lower}}
  tile.mbarrier_arrive %b[%c0] {expect_tx = 1024} : !tile.buffer<2xi64, shared>
  return
}

// -----

// A symbol named like a flag hook that is not its declaration.
// expected-error @+1 {{is named like a flag hook of convert-tile-to-loops but is not its declaration}}
func.func private @__tile_flag_stalled() -> i32

func.func @k(%p: !tile.ptr<i32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %F = tile.view %p[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.flag_wait %F[%c0], %one : !tile.buffer<?xi32, global>
  return
}
