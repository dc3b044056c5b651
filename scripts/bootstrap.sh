#!/usr/bin/env bash
# Installs what the project needs and is missing: Debian packages (as root; otherwise prints the
# apt command and stops) and node_modules (npm ci when absent or older than package-lock.json).
# Quiet and quick when nothing is missing. Called by `npm start`, `npm test` and `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make g++ clang libclang-rt-14-dev emscripten libeigen3-dev libhnswlib-dev nlohmann-json3-dev libgtest-dev chromium dataset-fashion-mnist zlib1g-dev redis-server)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "bootstrap: missing Debian packages. Run:"
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
    exit 1
  fi
fi

# npm ci when node_modules is missing or was installed from another package-lock.json.
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.bootstrap-lock-hash
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "bootstrap: npm ci"
  # npm 11 on these machines writes lockfiles without the other platforms' optional packages
  # (rollup's native binaries), and `npm ci` then calls the lock out of sync; `npm install` from the
  # same lock installs the same tree.
  npm ci --no-audit --no-fund --loglevel=error 2>/dev/null || npm install --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi
