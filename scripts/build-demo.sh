#!/usr/bin/env bash
# `npm run build:demo`: the demo page as a static site in build/demo-site/, for any static host and
# any folder of it (every URL inside is relative), with the documentation in build/demo-site/docs/
# (scripts/build-docs.mjs: the guides and the API reference, linked from the page). The package is built first, incrementally: when
# dist/ is current nothing is recompiled. `--skip-wasm` uses dist/ as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--skip-wasm" ]; then
  bash scripts/bootstrap.sh
  bash scripts/build.sh wasm
fi
[ -f dist/index.js ] || { echo "dist/ has no package: run without --skip-wasm (or npm run build) first" >&2; exit 1; }
npx vite build --config web/demo/vite.config.js --logLevel warn
node scripts/build-docs.mjs --out build/demo-site/docs
echo "The static demo is in build/demo-site/ ($(du -sh build/demo-site | cut -f1)); serve that folder from any path."
