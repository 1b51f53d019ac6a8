#!/usr/bin/env bash
# `npm start`: installs what is missing (npm dependencies, the Go-built control plane), then runs the
# local platform in the foreground until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/ensure-node-deps.sh
bash tools/control-plane/build.sh
exec node --import tsx tools/scripts/start-platform.ts
