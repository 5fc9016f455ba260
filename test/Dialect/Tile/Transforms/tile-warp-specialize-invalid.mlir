// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-warp-specialize))'

// expected-error @below {{tile.warp_specialize needs a loop that tile-pipeline put on a TMA ring (tile.copy_engine = "tma" and a tile.for with stages >= 2)}}
func.func @no_ring() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  tile.barrier
  return
}

// -----

// expected-error @below {{warp specialization needs whole consumer warpgroups: tile.num_warps = 6 is not a multiple of 4}}
func.func @odd_warps() attributes {tile.kernel, tile.num_warps = 6 : i64,
    tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  return
}

// -----

// expected-error @below {{warp specialization adds a warpgroup to the 32 warps; a block has at most 32}}
func.func @too_many() attributes {tile.kernel, tile.num_warps = 32 : i64,
    tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  return
}

// -----

// expected-error @below {{register budget of the warpgroups (40 x 128 + 240 x 256) exceeds the 65536 registers of an SM}}
func.func @budget() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 240 : i64}} {
  return
}
