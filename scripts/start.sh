#!/usr/bin/env bash
# `npm start`: installs what is missing, builds the wasm package, and serves the demo on
# http://localhost:5173/ with Vite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh wasm
echo "Serving the demo at http://localhost:5173/"
exec npx vite --config web/demo/vite.config.js
