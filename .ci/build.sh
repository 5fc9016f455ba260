#!/usr/bin/env bash
# Configures and builds gdn in ./build (Release, libMLIR.so, Ninja).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${GDN_JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
ninja -C build -j"$jobs" "$@"
