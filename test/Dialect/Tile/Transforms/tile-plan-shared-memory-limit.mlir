// RUN: not gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{max-bytes=1024}))' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory))'
// XFAIL: *
//
// Known bug (lib/Dialect/Tile/Transforms/PlanSharedMemory.cpp:122): the
// max-bytes error streams the pass option `maxBytes` (a Pass::Option<int64_t>)
// straight into the diagnostic, which picks the `char` overload, so the limit
// prints as one byte (232448 and 1024 both as a NUL, 65 as "A") instead of
// the number. Fix: `<< static_cast<int64_t>(maxBytes)`. Remove the XFAIL
// once fixed; tile-plan-shared-memory.mlir checks the rest of the message.

// ERR: error: shared memory plan needs 2048 bytes, more than the 1024 a block may use
func.func @over_small_limit() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<32x32xf16, shared>
  return
}

// -----

// expected-error @below {{shared memory plan needs 262144 bytes, more than the 232448 a block may use}}
func.func @over_default_limit() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<512x256xf16, shared>
  return
}
