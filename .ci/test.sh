#!/usr/bin/env bash
# README command 2: set up, build, and run every test: the lit suites
# (FileCheck tests of the dialect, passes, lowering and kernels; the
# runtime library's install test and the Python package's CPU tests), the
# GoogleTest binaries (through lit) and the GPU suite (UNSUPPORTED without a
# GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${GDN_SANITIZE:-0}" = 1 ]; then exec bash tools/sanitize-test.sh "$@"; fi  # ASan+UBSan build (tools/sanitize-test.sh)
bash .ci/setup.sh
bash .ci/build.sh gdn-opt gdn-run gdn-kernels GdnUnitTests gdn_runtime gdn_runtime_static gdn-example gdn-replay gdn-cuemu gdn-kernels-cpu coresidency-probe
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv build/test build/test/unit build/test/GPU "$@"
