#!/usr/bin/env bash
# Which lines of cpp/ the sanitized suite would miss because of tests/cpp/native-only.txt: builds the
# GoogleTest suite with clang's source-based coverage (build/coverage), runs it without the native-only
# cases, then with them, and lists the lines of cpp/src and cpp/include that only the native-only cases
# reach. Not part of `npm test` (a third build of the core); run it after changing that list.
#   bash scripts/coverage.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/coverage}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS=-fprofile-instr-generate -fcoverage-mapping" "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate" >/dev/null
fi
cmake --build "$dir" -j "$(nproc)" --target core_tests >/dev/null
regex="^($(grep -vE '^\s*(#|$)' tests/cpp/native-only.txt | sed 's/\./\\./g' | paste -sd'|'))\$"
profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT
LLVM_PROFILE_FILE="$profiles/kept-%p.profraw" ctest --test-dir "$dir" -j "$(nproc)" -E "$regex" >"$profiles/kept.log" 2>&1 || true
LLVM_PROFILE_FILE="$profiles/only-%p.profraw" ctest --test-dir "$dir" -j "$(nproc)" -R "$regex" >"$profiles/only.log" 2>&1 || true
llvm-profdata merge -sparse "$profiles"/kept-*.profraw -o "$profiles/kept.profdata"
llvm-profdata merge -sparse "$profiles"/kept-*.profraw "$profiles"/only-*.profraw -o "$profiles/all.profdata"
# Per source line, the execution count: "path:line" for every line with a count above 0.
covered() {
  llvm-cov export -format=lcov -instr-profile="$1" "$dir/core_tests" -ignore-filename-regex='(tests|third_party|_deps|/usr)/' |
    awk -F'[:,]' '/^SF:/ { file = $2 } /^DA:/ && $3 > 0 { print file ":" $2 }' | sort -u
}
covered "$profiles/kept.profdata" >"$profiles/kept.lines"
covered "$profiles/all.profdata" >"$profiles/all.lines"
echo "lines covered: $(wc -l <"$profiles/kept.lines") without the native-only cases, $(wc -l <"$profiles/all.lines") with them"
only=$(comm -13 "$profiles/kept.lines" "$profiles/all.lines")
if [ -n "$only" ]; then
  echo "lines only the native-only cases reach:"
  echo "$only" | sed "s|^$PWD/||"
  exit 1
fi
echo "the native-only cases reach no line that the rest of the suite does not"
