#!/usr/bin/env bash
# `npm run affected -- -t lint typecheck test build`: nx affected against the best base this clone
# has — origin/main when there is a remote, HEAD~1 otherwise — and every project when the clone has
# a single commit (nothing to compare with).
set -euo pipefail
cd "$(dirname "$0")/../.."
if git rev-parse --verify -q origin/main >/dev/null && [[ "$(git rev-parse HEAD)" != "$(git rev-parse origin/main)" ]]; then
  base=origin/main
elif git rev-parse --verify -q HEAD~1 >/dev/null; then
  base=HEAD~1
else
  echo "steward: single-commit clone, nothing to compare with: running every project"
  exec npx nx run-many "$@"
fi
exec npx nx affected --base="$base" --head=HEAD "$@"
