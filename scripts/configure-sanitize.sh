#!/usr/bin/env bash
# Configures build/sanitize: the native core, its GoogleTest suite and the libFuzzer targets with
# AddressSanitizer and UndefinedBehaviorSanitizer, compiled once by clang (scripts/test.sh and
# scripts/fuzz.sh share it). A build directory configured with another compiler or other flags is
# made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
# Line tables are all that the sanitizers' reports need (file:line in every frame); full debug info
# doubles the objects' size and makes the compile and the links slower.
# A unity build (16 sources a translation unit): the build is made once and thrown away with the
# clone, so it compiles the headers' templates once for 16 files instead of once a file (about a
# quarter less CPU). Every source must therefore compile beside any other: each test file keeps its
# helpers in a namespace named after the file, and the core's file-local names are distinct.
flags="-O2 -gline-tables-only -DNDEBUG"
if [ -f build/sanitize/CMakeCache.txt ] && { ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build/sanitize/CMakeCache.txt \
    || ! grep -qxF "CMAKE_CXX_FLAGS_RELWITHDEBINFO:STRING=$flags" build/sanitize/CMakeCache.txt \
    || ! grep -qx "CMAKE_UNITY_BUILD:[A-Z]*=ON" build/sanitize/CMakeCache.txt; }; then
  rm -rf build/sanitize
fi
if [ ! -f build/sanitize/CMakeCache.txt ]; then
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" -DSUBLINEAR_SANITIZE=ON \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
fi
