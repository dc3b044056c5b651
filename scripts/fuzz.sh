#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a fixed time:
#   scripts/fuzz.sh [seconds per target]   (npm test uses a short time; `npm run fuzz` a longer one)
# Prints one line per target, "fuzz <name>: passed|failed", in name order, and exits non-zero if any
# failed. A libFuzzer process uses one core: FUZZ_JOBS targets (default: the machine's cores) run at
# once, each still for its full time, so the step takes ceil(targets / jobs) x seconds.
# The corpus of each target lives in tests/fuzz/corpus/<name> (kept small: only what libFuzzer
# adds there during short runs is discarded; commit a few seeds by hand when they matter).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
jobs=${FUZZ_JOBS:-$(nproc)}
# The sanitized build (clang, ASan + UBSan) that `npm test` also runs the GoogleTest suite from.
bash scripts/configure-sanitize.sh || { echo "fuzz build: failed"; exit 1; }
mkdir -p build/fuzz
cmake --build build/sanitize -j "$(nproc)" --target fuzz_targets >build/fuzz/build.log 2>&1 || { tail -30 build/fuzz/build.log; echo "fuzz build: failed"; exit 1; }

fuzz_one() {  # fuzz_one <target>: writes build/fuzz/<name>.status (0 = passed)
  local target=$1 name work
  name=$(basename "$target")
  work=build/fuzz/corpus/$name
  mkdir -p "$work"
  [ -d "tests/fuzz/corpus/$name" ] && cp -n tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null
  "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 -artifact_prefix="build/fuzz/$name-" "$work" >"build/fuzz/$name.log" 2>&1
  echo $? >"build/fuzz/$name.status"
}

targets=()
for target in build/sanitize/fuzz_*; do
  [ -x "$target" ] && targets+=("$target")
done
running=0
for target in "${targets[@]}"; do
  rm -f "build/fuzz/$(basename "$target").status"
  fuzz_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
for target in "${targets[@]}"; do
  name=$(basename "$target")
  if [ "$(cat "build/fuzz/$name.status" 2>/dev/null)" = 0 ]; then
    echo "fuzz $name: passed"
  else
    echo "fuzz $name: failed"
    tail -40 "build/fuzz/$name.log"
    status=1
  fi
done
exit $status
