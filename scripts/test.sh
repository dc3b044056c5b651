#!/usr/bin/env bash
# `npm test`: installs what is missing, builds what changed, and runs every suite:
#   1. GoogleTest through ctest on the native build of the core,
#   2. the same GoogleTest suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#   3. libFuzzer targets for a few seconds each (scripts/fuzz.sh),
#   4. Vitest: the API against the built wasm in Node, the packed tarball, the demo in Chromium; then
#      the generic suites again against the test build with the toy types (vitest.toys.config.js).
# Ends with one line `N passed, M failed` summing all suites (also written to build/test-summary.txt).
#
# Three lanes run at once, so that two cores stay busy to the end (Vitest waits on Chromium, npm and
# bundlers; a libFuzzer process and each link use one core):
#   wasm lane:      wasm build -> toy build -> (the native CLI built) -> Vitest -> Vitest (toys)
#                   (output here, as it runs)
#   native lane:    native CLI -> native build -> native ctest
#   sanitized lane: sanitized build -> ASan+UBSan ctest -> fuzz
# The two C++ lanes write to build/logs/ (summarised here at the end) at lower priorities: the native
# lane first, since Vitest waits for its CLI, and the sanitized lane last, which takes whatever CPU the
# others leave and then both cores once they are done. Vitest's timed tests see a machine as quiet
# as it can be.
# Each step's wall and CPU seconds go to build/test-times.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || { echo "0 passed, 1 failed"; exit 1; }
logs=build/logs
rm -rf "$logs" build/vitest.json build/vitest-toys.json
mkdir -p "$logs"
: >build/test-times.txt

# step <name> <command...>: runs the command; appends its wall and CPU (user + system, children
# included) seconds to build/test-times.txt. Returns the command's status.
step() {
  local name=$1 started
  shift
  started=$(date +%s.%N)
  (
    "$@"
    code=$?
    # `times` prints this shell's user and system time, then its children's: redirected, not piped
    # (a pipe would run it in a new process, whose children have used nothing).
    times >"$logs/$name.cpu"
    exit $code
  )
  local code=$? wall cpu
  wall=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  cpu=$(tail -1 "$logs/$name.cpu" | sed -E 's/([0-9]+)m([0-9.]+)s/\1 \2/g' | awk '{ printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 }')
  printf '%-28s %5s s wall %6s s cpu\n' "$name" "$wall" "$cpu" >>build/test-times.txt
  return $code
}

# result <passed> <failed> <suite name>: one line per suite, summed at the end.
result() { echo "$1 $2 $3" >>"$logs/results.txt"; }

# ctest's closing line reads "NN% tests passed, F tests failed out of T".
ctest_result() {  # ctest_result <log> <suite name>
  local summary total bad
  summary=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$1" | tail -1)
  if [ -z "$summary" ]; then result 0 1 "$2 (no ctest summary)"; return; fi
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary")
  bad=$(sed -E 's/.*tests passed, ([0-9]+) tests? failed.*/\1/' <<<"$summary")
  result $((total - bad)) "$bad" "$2"
}

# The names of tests/cpp/native-only.txt as one ctest regular expression.
native_only_regex() {
  echo "^($(grep -vE '^\s*(#|$)' tests/cpp/native-only.txt | sed 's/\./\\./g' | paste -sd'|'))\$"
}

native_lane() {
  # Vitest compares wasm with the native CLI (build/native/sublinear-native): it is built first, and
  # the wasm lane waits for this mark (made whether or not it built) before Vitest starts.
  step "native CLI build" bash scripts/build.sh native-cli >"$logs/native-cli-build.log" 2>&1
  touch "$logs/native-cli.done"
  if step "native build" bash scripts/build.sh native >"$logs/native-build.log" 2>&1; then
    step "native ctest" ctest --test-dir build/native --output-on-failure -j "$(nproc)" >"$logs/native-ctest.log" 2>&1
    ctest_result "$logs/native-ctest.log" "GoogleTest (native)"
  else
    result 0 1 "GoogleTest (native) build"
  fi
}

sanitized_lane() {
  # One sanitized build (clang) for the suite and the fuzz targets (scripts/fuzz.sh builds nothing more).
  if bash scripts/configure-sanitize.sh && step "sanitized build" cmake --build build/sanitize -j "$(nproc)" --target core_tests fuzz_targets >"$logs/sanitize-build.log" 2>&1; then
    # The large and statistical cases of tests/cpp/native-only.txt ran in the native build (see there).
    local native_only name
    native_only=$(native_only_regex)
    ctest --test-dir build/sanitize -N >"$logs/sanitize-tests.txt" 2>&1
    for name in $(grep -vE '^\s*(#|$)' tests/cpp/native-only.txt); do
      grep -qF ": $name" "$logs/sanitize-tests.txt" || result 0 1 "tests/cpp/native-only.txt: $name is not a test"
    done
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      step "ASan+UBSan ctest" ctest --test-dir build/sanitize --output-on-failure -j "$(nproc)" -E "$native_only" >"$logs/sanitize-ctest.log" 2>&1
    ctest_result "$logs/sanitize-ctest.log" "GoogleTest (ASan+UBSan)"
  else
    result 0 1 "GoogleTest (ASan+UBSan) build"
  fi
  # libFuzzer targets (tests/fuzz), a short fixed time each; one test per target.
  step "fuzz" bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}" >"$logs/fuzz.log" 2>&1
  local fuzz_passed fuzz_failed
  fuzz_passed=$(grep -cE '^fuzz .*: passed$' "$logs/fuzz.log")
  fuzz_failed=$(grep -cE '^fuzz .*: failed$' "$logs/fuzz.log")
  [ $((fuzz_passed + fuzz_failed)) -gt 0 ] || fuzz_failed=1
  result "$fuzz_passed" "$fuzz_failed" "libFuzzer targets"
}

started=$(date +%s)
lane() {  # lane <niceness> <function>: runs the function in the background at that priority.
  nice -n "$1" bash -c "$(declare -f step result ctest_result native_only_regex "$2"); logs=$logs; $2" &
}
lane 10 native_lane
native_pid=$!
lane 19 sanitized_lane
sanitized_pid=$!

# vitest_result <report> <suite name>: a Vitest JSON report's counts. A file that fails to load has
# no failed tests of its own: it counts as one failure.
vitest_result() {
  if [ -f "$1" ]; then
    read -r vp vf < <(node -e "const r = require('./$1');
      const brokenFiles = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
      console.log(r.numPassedTests, r.numFailedTests + brokenFiles)")
    result "$vp" "$vf" "$2"
  else
    result 0 1 "$2 (no report)"
  fi
}

if step "wasm build" bash scripts/build.sh wasm; then
  # The toys' module links what the package's single-thread module is made of: its own files and a link.
  step "wasm toys build" bash scripts/build.sh wasm-toys
  toys_built=$?
  while [ ! -f "$logs/native-cli.done" ] && kill -0 "$native_pid" 2>/dev/null; do sleep 2; done
  step "vitest" npx vitest run --reporter=default --reporter=json --outputFile.json=build/vitest.json
  vitest_result build/vitest.json "Vitest (Node, package, Chromium)"
  # The generic suites again, looping over the toy index and the toy policy too (SB_TOYS=1).
  if [ "$toys_built" = 0 ]; then
    step "vitest (toys)" npx vitest run --config vitest.toys.config.js --reporter=default --reporter=json --outputFile.json=build/vitest-toys.json
    vitest_result build/vitest-toys.json "Vitest (generic suites, toy build)"
  else
    result 0 1 "Vitest (toy build)"
  fi
else
  result 0 1 "Vitest (wasm build)"
fi

echo "== waiting for the C++ lanes (build/logs/)"
wait "$native_pid" "$sanitized_pid"
# The C++ lanes' output: a summary of each step, and in full what failed.
for log in native-cli-build native-build sanitize-build; do
  grep -qE '(^|[^A-Za-z])error:|\*\*\* ' "$logs/$log.log" 2>/dev/null && tail -40 "$logs/$log.log"
done
for log in native-ctest sanitize-ctest; do
  [ -f "$logs/$log.log" ] || continue
  if grep -qE " 0 tests failed out of" "$logs/$log.log"; then
    grep -E "tests passed|Total Test time" "$logs/$log.log"
  else
    cat "$logs/$log.log"
  fi
done
cat "$logs/fuzz.log"

passed=0
failed=0
while read -r p f name; do
  echo "== $name: $p passed, $f failed"
  passed=$((passed + p))
  failed=$((failed + f))
done <"$logs/results.txt"
# The failed Vitest tests again, by name, next to the summary: a log read from its tail names them.
for report in build/vitest.json build/vitest-toys.json; do
  [ -f "$report" ] || continue
  node -e "const r = require('./$report');
    for (const file of r.testResults) {
      if (file.status === 'failed' && file.assertionResults.length === 0) console.log('== failed to load: ' + file.name + ': ' + String(file.message).split('\\n')[0]);
      for (const test of file.assertionResults.filter((a) => a.status === 'failed')) {
        console.log('== failed: ' + file.name + ' > ' + test.fullName);
        for (const message of test.failureMessages.slice(0, 1)) console.log('   ' + message.split('\\n').slice(0, 6).join('\\n   '));
      }
    }"
done
echo "== steps (wall and CPU seconds; $(nproc) cores, $(($(date +%s) - started)) s in all after bootstrap):"
cat build/test-times.txt
echo "$passed passed, $failed failed" | tee build/test-summary.txt
[ "$failed" = 0 ]
