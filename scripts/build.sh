#!/usr/bin/env bash
# Builds what changed: `build.sh wasm` (the npm package in dist/), `build.sh native` (core, tests,
# native CLI), `build.sh native-cli` (core and native CLI only: what Vitest's wasm-against-native
# checks run), `build.sh all` (both; the default). CMake and make rebuild only what is out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
# Debian's emcc runs its helper scripts with the machine's Node, which must see Debian's modules.
export NODE_PATH=/usr/share/nodejs

build_wasm() {
  if [ ! -f build/wasm/CMakeCache.txt ]; then
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build build/wasm -j "$jobs"
  mkdir -p dist
  # The threaded build's patch runs after each link (CMakeLists.txt); run again here, it writes the
  # sources module when an older link left none (idempotent).
  node scripts/patch-threads-build.mjs dist/sublinear_bandits_wasm_threads.js
  for file in web/src/*.js web/src/*.cjs web/src/*.d.ts web/src/*.d.cts; do
    cmp -s "$file" "dist/$(basename "$file")" || cp "$file" dist/
  done
  local version_file
  version_file="export const version = '$(node -p "require('./package.json').version")';"
  [ "$(cat dist/version.js 2>/dev/null)" = "$version_file" ] || echo "$version_file" > dist/version.js
}

build_native() {  # build_native [target]
  if [ ! -f build/native/CMakeCache.txt ]; then
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build build/native -j "$jobs" ${1:+--target "$1"}
}

case "$what" in
  wasm) build_wasm ;;
  native) build_native ;;
  native-cli) build_native sublinear-native ;;
  all) build_native; build_wasm ;;
  *) echo "usage: build.sh [wasm|native|native-cli|all]"; exit 2 ;;
esac
