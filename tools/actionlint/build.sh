#!/usr/bin/env bash
# Builds actionlint (github.com/rhysd/actionlint, the version go.mod pins with its `tool` directive;
# go.sum pins every module it is built from) and caches it outside the repository, next to the
# control plane:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/actionlint-<hash>/bin/actionlint
#
# keyed by the hash of this module (go.mod and go.sum: stamp_of in tools/control-plane/go-build.sh).
# Cold: about 80 s on 2 cores with empty Go caches (7 s with the modules and build cache warm); warm: well under a
# second. A failed build names its log file. Concurrent runs serialise on a lock per entry.
# `npm test` runs it before the lint stage; check.sh only looks for it.
#
# Usage: build.sh [--print-env | --cached-only]
#   --print-env    prints STEWARD_ACTIONLINT_BIN=path for eval (building first when needed)
#   --cached-only  as --print-env, but never builds: exits 1 naming the command that builds it
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cp_dir="$here/../control-plane"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
print_env=false
cached_only=false
case "${1:-}" in
  --print-env) print_env=true ;;
  --cached-only) print_env=true cached_only=true ;;
  "") ;;
  *) echo "usage: build.sh [--print-env | --cached-only]" >&2; exit 2 ;;
esac
component=actionlint
# shellcheck source=../control-plane/go-build.sh
source "$cp_dir/go-build.sh"

version="$(awk '$1 == "github.com/rhysd/actionlint" { print $2 }' "$here/go.mod")"
[[ -n "$version" ]] || fail "tools/actionlint/go.mod does not require github.com/rhysd/actionlint"
grep -qx 'tool github.com/rhysd/actionlint/cmd/actionlint' "$here/go.mod" ||
  fail "tools/actionlint/go.mod has no 'tool github.com/rhysd/actionlint/cmd/actionlint' line"

entry="actionlint-$(stamp_of "$here" | cut -c1-16)"
bin="$cache/$entry/bin/actionlint"
if $cached_only; then
  if [[ -f "$cache/$entry/.stamp" && "$(cat "$cache/$entry/.stamp")" == "$(stamp_of "$here")" && -x "$bin" ]]; then
    echo "STEWARD_ACTIONLINT_BIN=$bin"
    exit 0
  fi
  fail "actionlint $version (tools/actionlint/go.mod) is not built in $cache/$entry: run 'bash tools/actionlint/build.sh' (npm test does)"
fi

command -v go >/dev/null || fail "Go is not installed (need Go >= 1.26)"
build_entry "actionlint $version" "$here" "$entry" \
  "-s -w -X github.com/rhysd/actionlint.version=$version" github.com/rhysd/actionlint/cmd/actionlint
[[ -x "$bin" ]] || fail "actionlint binary missing from $cache/$entry/bin"

if $print_env; then
  echo "STEWARD_ACTIONLINT_BIN=$bin"
fi
