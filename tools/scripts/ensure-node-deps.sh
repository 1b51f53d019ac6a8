#!/usr/bin/env bash
# Installs the workspace's npm dependencies from package-lock.json when they are missing or stale.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "steward: installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi
