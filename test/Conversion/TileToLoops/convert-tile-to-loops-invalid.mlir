// RUN: gdn-opt %s -split-input-file -verify-diagnostics --convert-tile-to-loops

// Ops that only the GPU passes create have no CPU lowering.
func.func @mbarrier(%b: !tile.buffer<2xi64, shared>) {
  // expected-error @below {{'tile.mbarrier_init' op is not supported by convert-tile-to-loops (only the GPU passes create it; convert kernels as written)}}
  tile.mbarrier_init %b {count = 1} : !tile.buffer<2xi64, shared>
  return
}

// -----

// A producer task runs beside the rest of its block: no sequential meaning.
func.func @task() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  // expected-error @below {{'tile.producer_task' op is not supported by convert-tile-to-loops (it runs concurrently with the rest of its block)}}
  tile.producer_task warps 4 {
    tile.barrier
  }
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
