#!/usr/bin/env bash
# Builds what changed: `build.sh wasm` (the npm package in dist/), `build.sh wasm-toys` (the test
# build with the toy types, in build/dist-toys/: never part of the package), `build.sh native` (core,
# tests, native CLI), `build.sh native-cli` (core and native CLI only: what Vitest's wasm-against-native
# checks run), `build.sh all` (wasm and native; the default). CMake and make rebuild only what is out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
# Debian's emcc runs its helper scripts with the machine's Node, which must see Debian's modules.
export NODE_PATH=/usr/share/nodejs

configure_wasm() {
  if [ ! -f build/wasm/CMakeCache.txt ]; then
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
}

# The package's JavaScript (and its version) beside a build's module, where a file differs.
copy_javascript() {  # copy_javascript <folder> <patterns...>
  local folder=$1 file
  shift
  mkdir -p "$folder"
  for file in "$@"; do
    cmp -s "$file" "$folder/$(basename "$file")" || cp "$file" "$folder/"
  done
  local version_file
  version_file="export const version = '$(node -p "require('./package.json').version")';"
  [ "$(cat "$folder/version.js" 2>/dev/null)" = "$version_file" ] || echo "$version_file" > "$folder/version.js"
}

build_wasm() {
  configure_wasm
  cmake --build build/wasm -j "$jobs"
  mkdir -p dist
  # The threaded build's patch runs after each link (CMakeLists.txt); run again here, it writes the
  # sources module when an older link left none (idempotent).
  node scripts/patch-threads-build.mjs dist/sublinear_bandits_wasm_threads.js
  copy_javascript dist web/src/*.js web/src/*.cjs web/src/*.d.ts web/src/*.d.cts
}

# The single-thread module with the toys (tests/toys) registered at its start, and the package's
# JavaScript, in build/dist-toys/ (CMakeLists.txt: sublinear_bandits_wasm_toys): what the toy run of
# the generic suites loads (SB_TOYS=1, vitest.toys.config.js). It links the core and the bindings
# the package's single-thread module is made of (built here if they are not yet).
build_wasm_toys() {
  configure_wasm
  cmake --build build/wasm -j "$jobs" --target sublinear_bandits_wasm_toys
  copy_javascript build/dist-toys web/src/*.js
}

build_native() {  # build_native [target]
  if [ ! -f build/native/CMakeCache.txt ]; then
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build build/native -j "$jobs" ${1:+--target "$1"}
}

case "$what" in
  wasm) build_wasm ;;
  wasm-toys) build_wasm_toys ;;
  native) build_native ;;
  native-cli) build_native sublinear-native ;;
  all) build_native; build_wasm ;;
  *) echo "usage: build.sh [wasm|wasm-toys|native|native-cli|all]"; exit 2 ;;
esac
