// RUN: not gdn-opt %s --gdn-lower-to-ptx="chip=sm_70" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM70
// RUN: not gdn-opt %s --gdn-lower-to-ptx="chip=sm_100a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not gdn-opt %s --gdn-lower-to-ptx="chip=banana" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BANANA
// RUN: not gdn-opt %s --gdn-lower-to-ptx="features=+ptx60" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX60
// RUN: not gdn-opt %s --gdn-lower-to-ptx="opt-level=9" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not gdn-opt %s --gdn-lower-to-ptx="index-bitwidth=16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=IDX
// RUN: not gdn-opt %s --gdn-lower-to-ptx="kernel-suffix=/x" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUFFIX
// RUN: not gdn-opt %s --gdn-lower-to-ptx="tril-overlap=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: not gdn-opt %s -split-input-file --gdn-lower-to-ptx="output-dir=%t/out" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMES
// RUN: not ls %t/x.ptx %t/out/x.ptx

// Unsupported chips aborted inside LLVM ("Cannot select"); they are rejected
// before anything is compiled, with the supported list.
// SM70:   error: gdn-lower-to-ptx: unsupported chip 'sm_70'; supported: sm_90a
// SM100:  error: gdn-lower-to-ptx: unsupported chip 'sm_100a'; supported: sm_90a
// BANANA: error: gdn-lower-to-ptx: unsupported chip 'banana'; supported: sm_90a
// PTX60:  error: gdn-lower-to-ptx: unsupported features '+ptx60'; supported: +ptx80, +ptx81, +ptx82, +ptx83, +ptx84, +ptx85
// OPT:    error: gdn-lower-to-ptx: opt-level must be 0 to 3, got 9
// IDX:    error: gdn-lower-to-ptx: index-bitwidth must be 32 or 64, got 16
// SUFFIX: error: gdn-lower-to-ptx: kernel-suffix '/x' is not made of [A-Za-z0-9_$]
// OVERLAP: error: gdn-lower-to-ptx: tril-overlap must be 0, 1 or 2, got 3

// The module's name names the .ptx file: "../x" wrote it outside output-dir.
// NAMES: error: module name '../x' is not a PTX identifier ([A-Za-z_$][A-Za-z0-9_$]*)
module @"../x" {
  func.func @k() attributes {tile.kernel, tile.num_warps = 1 : i64} {
    return
  }
}

// -----

// Kernels of a nested module were silently not compiled (exit 0).
// NAMES: error: tile kernel in a nested module would not be compiled; define kernels in the top-level module
module @outer {
  module @inner {
    func.func @k() attributes {tile.kernel, tile.num_warps = 1 : i64} {
      return
    }
  }
}
