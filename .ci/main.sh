#!/usr/bin/env bash
# README command 1: set up, build, compile every kernel in kernels/ to PTX and
# a launch manifest per kernel (build/kernels/), and, where a GPU is present,
# check them on it with gdn-run (the GPU test suite, test/GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh
bash .ci/build.sh gdn-opt gdn-run gdn-kernels gdn_runtime gdn-example
echo "== compiled kernels (build/kernels; embedded with their sm_90a cubins in build/lib/libgdn_runtime.so):"
ls -1 build/kernels/*.ptx build/kernels/*.manifest
if build/bin/gdn-run --probe >/dev/null 2>&1; then
  echo "== GPU found: checking the kernels"
  python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v build/test/GPU
else
  echo "== no CUDA device here: kernels compiled, GPU checks skipped"
fi
