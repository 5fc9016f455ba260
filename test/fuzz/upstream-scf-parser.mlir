// XFAIL: *
// RUN: not gdn-opt %s -split-input-file 2>&1 | FileCheck %s

// Found by the fuzzer (gdn_fuzz.py --seed 3 --iter 1108, from
// test/Dialect/Tile/Transforms/tile-insert-barriers.mlir): an upstream bug of
// MLIR 19. The scf.for, scf.if, scf.parallel and scf.forall parsers resolve
// their operands before parsing their regions; an operand named after a value
// defined inside the region is a forward-reference placeholder that the
// definition replaces and frees while the op under construction still holds
// it (a use-after-free, usually a segfault). Fixed upstream in LLVM 21
// (llvm-project PR #127778); tile.for, which had the same bug, parses its
// region first (test/Dialect/Tile/for-parse.mlir). gdn cannot patch
// Debian's libMLIR, so this test is an expected failure (lit reports an
// unexpected pass once gdn-opt reports these as errors instead of
// crashing). The fuzzer lists such crashes as known upstream ones.

// CHECK: error:
func.func @for_bound_defined_in_body(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %k step %c1 {
    %k = arith.subi %n, %i : index
  }
  return
}

// -----

// CHECK: error:
func.func @if_condition_defined_in_body() {
  scf.if %u {
    %u = arith.constant true
  }
  return
}

// -----

// CHECK: error:
func.func @parallel_bound_defined_in_body() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%u) step (%c1) {
    %u = arith.constant 1 : index
  }
  return
}

// -----

// CHECK: error:
func.func @forall_bound_defined_in_body() {
  scf.forall (%i) in (%u) {
    %u = arith.constant 1 : index
  }
  return
}
