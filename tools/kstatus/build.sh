#!/usr/bin/env bash
# Builds tools/kstatus — kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status.Compute, at the version
# go.mod pins) over a JSON array of objects on stdin — and caches it outside the repository, next to
# the control plane:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/kstatus-<hash>/bin/kstatus
#
# keyed by the hash of the module (go.mod, go.sum, its .go sources: stamp_of in
# tools/control-plane/go-build.sh); libs/testing's kstatusBinary() computes the same hash to find it.
# Cold: about a minute on 2 cores (seconds when the Go build cache is warm); warm: well under a
# second. A failed build names its log file. Concurrent runs serialise on a lock per entry.
#
# Usage: build.sh [--print-env]   (--print-env prints STEWARD_KSTATUS_BIN=path for eval)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cp_dir="$here/../control-plane"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true
component=kstatus
# shellcheck source=../control-plane/go-build.sh
source "$cp_dir/go-build.sh"

command -v go >/dev/null || fail "Go is not installed (need Go >= 1.26)"
cli_utils="$(awk '$1 == "sigs.k8s.io/cli-utils" { print $2 }' "$here/go.mod")"
[[ -n "$cli_utils" ]] || fail "tools/kstatus/go.mod does not require sigs.k8s.io/cli-utils"

entry="kstatus-$(stamp_of "$here" | cut -c1-16)"
build_entry "kstatus (sigs.k8s.io/cli-utils ${cli_utils})" "$here" "$entry" "-s -w" .
[[ -x "$cache/$entry/bin/kstatus" ]] || fail "kstatus binary missing from $cache/$entry/bin"

if $print_env; then
  echo "STEWARD_KSTATUS_BIN=$cache/$entry/bin/kstatus"
fi
