#!/usr/bin/env bash
# `npm test`: installs what is missing, builds what changed, and runs every suite:
#   1. GoogleTest through ctest on the native build of the core,
#   2. the same GoogleTest suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#   3. libFuzzer targets for a few seconds each (scripts/fuzz.sh),
#   4. Vitest: the API against the built wasm in Node, the packed tarball, the demo in Chromium.
# Ends with one line `N passed, M failed` summing all suites (also written to build/test-summary.txt).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1
bash scripts/build.sh all || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
tally() {  # tally <passed> <failed> <suite name>
  passed=$((passed + $1))
  failed=$((failed + $2))
  echo "== $3: $1 passed, $2 failed"
}

# ctest's closing line reads "NN% tests passed, F tests failed out of T".
run_ctest() {  # run_ctest <build dir> <suite name>
  local log="$1/ctest.log"
  ctest --test-dir "$1" --output-on-failure -j "$(nproc)" 2>&1 | tee "$log"
  local summary total bad
  summary=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1)
  if [ -z "$summary" ]; then tally 0 1 "$2 (no ctest summary)"; return; fi
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary")
  bad=$(sed -E 's/.*tests passed, ([0-9]+) tests? failed.*/\1/' <<<"$summary")
  tally $((total - bad)) "$bad" "$2"
}

run_ctest build/native "GoogleTest (native)"

# One sanitized build (clang) for the suite and the fuzz targets (scripts/fuzz.sh builds nothing more).
if bash scripts/configure-sanitize.sh && cmake --build build/sanitize -j "$(nproc)" --target core_tests fuzz_targets >build/sanitize.log 2>&1; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 run_ctest build/sanitize "GoogleTest (ASan+UBSan)"
else
  tail -30 build/sanitize.log
  tally 0 1 "GoogleTest (ASan+UBSan) build"
fi

# libFuzzer targets (tests/fuzz), a short fixed time each; one test per target.
while read -r line; do
  echo "$line"
  case "$line" in
    "fuzz "*": passed") tally 1 0 "${line%:*}" >/dev/null ;;
    "fuzz "*": failed") tally 0 1 "${line%:*}" >/dev/null ;;
  esac
done < <(bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}" 2>&1)

rm -f build/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=build/vitest.json
if [ -f build/vitest.json ]; then
  # A file that fails to load has no failed tests of its own: it counts as one failure.
  read -r vp vf < <(node -e "const r = require('./build/vitest.json');
    const brokenFiles = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
    console.log(r.numPassedTests, r.numFailedTests + brokenFiles)")
  tally "$vp" "$vf" "Vitest (Node, package, Chromium)"
else
  tally 0 1 "Vitest (no report)"
fi

echo "$passed passed, $failed failed" | tee build/test-summary.txt
[ "$failed" = 0 ]
