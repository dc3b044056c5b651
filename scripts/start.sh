#!/usr/bin/env bash
# `npm start`: installs what is missing, builds the wasm package, and serves the demo on
# http://localhost:5173/ with Vite, with the documentation site at /docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh wasm
# The documentation the page links to (docs/), served by the dev server from build/docs-site/.
node scripts/build-docs.mjs --out build/docs-site
echo "Serving the demo at http://localhost:5173/"
exec npx vite --config web/demo/vite.config.js
