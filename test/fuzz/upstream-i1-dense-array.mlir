// XFAIL: *
// RUN: not gdn-opt %s 2>&1 | FileCheck %s

// Found by the fuzzer (gdn_fuzz.py --seed 1 --iter 4956, from
// test/Dialect/Tile/invalid.mlir): an upstream bug of MLIR 19. A
// DenseArrayAttr of i1 written with integer literals (here a mutated
// operandSegmentSizes) is parsed into storage of the wrong size (the
// parser's assertion that every element is a whole number of bytes is
// compiled out in release builds), and the diagnostic that prints it reads
// past the storage: a segfault in printDenseArrayAttr, also with plain
// mlir-opt-19 (reported upstream as llvm/circt#9374). gdn cannot patch
// Debian's libMLIR, so this test is an expected failure (lit reports an
// unexpected pass once gdn-opt reports it as an error instead of
// crashing). The fuzzer lists such crashes as known upstream ones.

// CHECK: error:
func.func @segment_sizes_as_i1() {
  "tile.map"() <{operandSegmentSizes = array<i1: 0, 0>}> ({
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}
