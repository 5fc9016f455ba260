// RUN: gdn-opt %s -split-input-file -verify-diagnostics --convert-tile-to-nvvm

// Kernels are lowered in the gpu.module of tile-outline-kernels only.

// expected-error @below {{'func.func' op is a tile kernel outside a gpu.module; run tile-outline-kernels first}}
func.func @k() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  return
}

// -----

// Only a single row on one lane group goes without a scratch.
module attributes {gpu.container_module} {
gpu.module @kernels {
func.func @reduce_rows_no_scratch() attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %src = tile.alloc : !tile.buffer<2x64xf32, fragment, #tile.blocked<vector = 4>>
  %dst = tile.alloc : !tile.buffer<2xf32, fragment, #tile.blocked<vector = 1>>
  // expected-error @below {{has no scratch buffer; run tile-assign-layouts first}}
  // expected-error @below {{failed to legalize operation 'tile.reduce'}}
  tile.reduce max %src, %dst {dim = 1 : i64} : !tile.buffer<2x64xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<2xf32, fragment, #tile.blocked<vector = 1>>
  return
}
}
}

// -----

// A producer task is lowered only once tile-warp-specialize placed it (its
// thread base numbers its threads).
module attributes {gpu.container_module} {
gpu.module @kernels {
func.func @unplaced_task() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  // expected-error @below {{has no thread base; run tile-warp-specialize first}}
  tile.producer_task warps 4 {
  }
  return
}
}
}

// -----

// mma.sync multiplies whole tiles: b_block_lower (whose upper blocks may
// hold anything) needs the wgmma engine.
module attributes {gpu.container_module} {
gpu.module @kernels {
func.func @mma_sync_block_lower() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  // expected-error @below {{b_block_lower needs the wgmma engine}}
  // expected-error @below {{failed to legalize operation 'tile.gemm'}}
  tile.gemm %a, %b, %c {transpose_b, b_block_lower = 32 : i64} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  return
}
}
}

// -----

// A kernel launched beside its predecessor without waiting for it
// (tile.grid_dependency = "flags") must wait for that one's data through a
// ready flag.
module attributes {gpu.container_module} {
gpu.module @kernels {
// expected-error @below {{tile.grid_dependency = "flags" launches the kernel before its predecessor completes, but it has no tile.flag_wait to wait for that one's data}}
// expected-error @below {{failed to legalize operation 'func.func'}}
func.func @flags_without_wait() attributes {tile.kernel, tile.grid_dependency = "flags", tile.num_warps = 4 : i64, tile.shared_memory_bytes = 0 : i64} {
  return
}
}
}

// -----

// "wait_and_flags" waits for its predecessor's grid and for an earlier
// kernel's data through ready flags: without a flag wait it is refused too.
module attributes {gpu.container_module} {
gpu.module @kernels {
// expected-error @below {{tile.grid_dependency = "wait_and_flags" reads an earlier kernel's data through ready flags, but it has no tile.flag_wait}}
// expected-error @below {{failed to legalize operation 'func.func'}}
func.func @both_without_wait() attributes {tile.kernel, tile.grid_dependency = "wait_and_flags", tile.num_warps = 4 : i64, tile.shared_memory_bytes = 0 : i64} {
  return
}
}
}

// -----

// "deferred" lets the successor launch at entry and waits only at its
// tile.grid_wait ops: a kernel without one would never wait.
module attributes {gpu.container_module} {
gpu.module @kernels {
// expected-error @below {{tile.grid_dependency = "deferred" lets the kernel's successor launch before it waits, but it has no tile.grid_wait: it would never wait for its predecessor}}
// expected-error @below {{failed to legalize operation 'func.func'}}
func.func @deferred_without_wait() attributes {tile.kernel, tile.grid_dependency = "deferred", tile.num_warps = 4 : i64, tile.shared_memory_bytes = 0 : i64} {
  return
}
}
}

// -----

// tile.grid_wait only where the kernel may wait for its predecessor: not
// in one launched without programmatic dependence, and not with "flags"
// (launched beside a predecessor it must not wait for).
module attributes {gpu.container_module} {
gpu.module @kernels {
// expected-error @below {{failed to legalize operation 'func.func'}}
func.func @wait_flags(%pf: !tile.ptr<i32>, %epoch: i32) attributes {tile.kernel, tile.grid_dependency = "flags", tile.num_warps = 4 : i64, tile.shared_memory_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.view %pf[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.flag_wait %f[%c0], %epoch : !tile.buffer<?xi32, global>
  // expected-error @below {{'tile.grid_wait' op needs a kernel launched as a programmatic dependent that may wait for its predecessor (tile.grid_dependency unit, "wait_and_flags" or "deferred"), not tile.grid_dependency = "flags"}}
  tile.grid_wait
  return
}
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
// expected-error @below {{failed to legalize operation 'func.func'}}
func.func @wait_no_dependency() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 0 : i64} {
  // expected-error @below {{'tile.grid_wait' op needs a kernel launched as a programmatic dependent that may wait for its predecessor (tile.grid_dependency unit, "wait_and_flags" or "deferred"), not one without tile.grid_dependency}}
  tile.grid_wait
  return
}
}
}
