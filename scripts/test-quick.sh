#!/usr/bin/env bash
# `npm run test:quick`: the edit-test loop in a few minutes. Builds what changed, then runs at once
# the native GoogleTest suite without the default-options battery, and the Node suites of tests/js
# without the slowest files (memory soaks, the 3.9 GiB heap, real data, threads, the tsc matrix).
# `npm test` runs everything, the sanitizers, the fuzzers, the packed tarball in every host and the
# demo in Chromium.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1
bash scripts/build.sh all || exit 1
status=0
# The C++ suite beside Vitest, whose Node files keep a core busy only part of the time.
ctest --test-dir build/native --output-on-failure -j "$(nproc)" -LE battery >build/ctest-quick.log 2>&1 &
ctest_pid=$!
npx vitest run tests/js \
  --exclude tests/js/bounded-memory.test.js --exclude tests/js/large-heap.test.js \
  --exclude tests/js/real-data.test.js --exclude tests/js/threads.test.js \
  --exclude tests/js/types.test.js || status=1
wait "$ctest_pid" || status=1
tail -3 build/ctest-quick.log
grep -q " 0 tests failed out of" build/ctest-quick.log || { status=1; grep -E "Failed|\*\*\*" build/ctest-quick.log | head -40; }
exit $status
