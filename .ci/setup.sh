#!/usr/bin/env bash
# Installs what gdn needs on a fresh Debian 12 machine (root or sudo):
# LLVM/MLIR 19.1.7, lit (ships with LLVM 19), FileCheck, GoogleTest, CMake,
# Ninja, python3 with venv and pip (for `pip install .` of the package gdn). The CUDA toolkit is expected at /usr/local/cuda (ptxas, cuda.h).
set -euo pipefail
pkgs=(libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools libgtest-dev cmake ninja-build python3 python3-venv python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "gdn setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/ptxas ] || [ ! -f /usr/local/cuda/include/cuda.h ]; then
  echo "gdn setup: warning: no CUDA toolkit at /usr/local/cuda (ptxas tests are skipped, gdn-run needs cuda.h)" >&2
fi
