#!/usr/bin/env bash
# ASan + UBSan build of gdn in ./build-asan and the whole test suite on it
# (lit suites, unit tests, the fuzzer; the GPU suite is UNSUPPORTED without
# a GPU). Not run by CI (too slow for its time limit); run it by hand:
#
#   GDN_SANITIZE=1 bash .ci/test.sh          # or: bash tools/sanitize-test.sh
#
# Building gdn-kernels already compiles every kernel with the instrumented
# gdn-opt. Any sanitizer report aborts the process (halt_on_error), which
# fails the test that ran it. Debian's libMLIR/libLLVM are not instrumented:
# errors inside them are only caught where they touch our memory; their
# intentional leaks at exit are not reported (detect_leaks=0).
#
# Environment: GDN_JOBS (parallel jobs, default nproc), GDN_SANITIZE_DIR
# (build directory, default build-asan), GDN_FUZZ_TIME (fuzzer seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh
dir=${GDN_SANITIZE_DIR:-build-asan}
jobs=${GDN_JOBS:-$(nproc)}
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$dir/build.ninja" ]; then
  cmake -G Ninja -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    "${launcher[@]}" >/dev/null
fi
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in the
# inline code compiled into our (instrumented) objects, but the allocations
# libMLIR makes from the same slabs never unpoison them: without this, every
# MLIR attribute our code reads after libMLIR created it is a false
# use-after-poison.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1}
export GDN_SANITIZED=1 # lit feature asan (test/lit.cfg.py)
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The targets of .ci/test.sh (the install and Python package tests need the
# runtime libraries).
ninja -C "$dir" -j"$jobs" gdn-opt gdn-run gdn-kernels GdnUnitTests gdn_runtime \
  gdn_runtime_static gdn-example gdn-replay
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$dir/test" "$dir/test/unit" "$dir/test/GPU" "$@"
