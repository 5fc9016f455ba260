// RUN: gdn-opt %s -split-input-file -verify-diagnostics --convert-tile-to-nvvm

// Kernels are lowered in the gpu.module of tile-outline-kernels only.

// expected-error @below {{'func.func' op is a tile kernel outside a gpu.module; run tile-outline-kernels first}}
func.func @k() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  return
}
