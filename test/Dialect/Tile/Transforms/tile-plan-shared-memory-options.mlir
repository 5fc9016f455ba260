// RUN: not gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{alignment=0}))' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{alignment=48}))' 2>&1 | FileCheck %s --check-prefix=NPOT
// RUN: not gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{alignment=8}))' 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{alignment=-128}))' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{max-bytes=0}))' 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{alignment=16}))' | FileCheck %s --check-prefix=OK

// alignment=0 divided by zero; the options are checked first.
// ZERO:  error: tile-plan-shared-memory: alignment must be a power of two in [16, 232448], got 0
// NPOT:  error: tile-plan-shared-memory: alignment must be a power of two in [16, 232448], got 48
// SMALL: error: tile-plan-shared-memory: alignment must be a power of two in [16, 232448], got 8
// NEG:   error: tile-plan-shared-memory: alignment must be a power of two in [16, 232448], got -128
// MAX:   error: tile-plan-shared-memory: max-bytes must be positive, got 0
// OK:    tile.alloc {offset = 0 : i64}
// OK:    tile.alloc {offset = 16 : i64}
func.func @k() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<4xf32, shared>
  %b = tile.alloc : !tile.buffer<2xf32, shared>
  %x = tile.load %a[%c0] : !tile.buffer<4xf32, shared>
  %y = tile.load %b[%c0] : !tile.buffer<2xf32, shared>
  return
}
