#!/usr/bin/env bash
# README command 1: set up, build, compile every kernel in kernels/ to PTX and
# a launch manifest per kernel (build/kernels/), and, where a GPU is present,
# check them on it with gdn-run (the GPU test suite, test/GPU); without one,
# check their arithmetic on the CPU emulator instead (test/Emulator: the
# kernels as written, JIT-compiled, against the same fp64 references;
# docs/gdn-run.md, "Without a GPU").
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh
bash .ci/build.sh gdn-opt gdn-run gdn-kernels gdn_runtime gdn-example gdn-cuemu gdn-kernels-cpu
echo "== compiled kernels (build/kernels; embedded with their sm_90a cubins in build/lib/libgdn_runtime.so):"
ls -1 build/kernels/*.ptx build/kernels/*.manifest
if build/bin/gdn-run --probe >/dev/null 2>&1; then
  echo "== GPU found: checking the kernels"
  python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v build/test/GPU
else
  echo "== no CUDA device here: kernels compiled; checking their arithmetic on the CPU emulator (GPU checks skipped)"
  python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v build/test/Emulator
fi
