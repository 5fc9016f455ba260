// RUN: not gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{max-bytes=1024}))' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory))'

// ERR: error: shared memory plan needs 2048 bytes, more than the 1024 a block may use
func.func @over_small_limit() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<32x32xf16, shared>
  return
}

// -----

// expected-error @below {{shared memory plan needs 262144 bytes, more than the 232448 a block may use}}
func.func @over_default_limit() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<256x256xf16, shared>
  %b = tile.alloc : !tile.buffer<256x256xf16, shared>
  %x = tile.load %a[%c0, %c0] : !tile.buffer<256x256xf16, shared>
  %y = tile.load %b[%c0, %c0] : !tile.buffer<256x256xf16, shared>
  return
}
