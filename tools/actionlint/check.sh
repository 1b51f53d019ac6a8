#!/usr/bin/env bash
# actionlint over the GitHub Actions workflows in the folders given (default: .github/workflows of
# this checkout): syntax, expressions and their types, `needs`, `permissions` scopes, action inputs
# of popular actions, job outputs, and every `run:` script through ShellCheck (the one
# tools/shellcheck/requirements.txt pins). Part of the lint stage `npm test` runs, and of ci.yml.
# Fails on any finding; fails when actionlint or ShellCheck is not built/installed, naming the
# command that does it (npm test runs both before lint): it never skips. It never builds either:
# it uses $STEWARD_ACTIONLINT_BIN / $STEWARD_SHELLCHECK_BIN, else the cached entries.
#
# Usage: check.sh [folder...]
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
(($#)) || set -- "$repo/.github/workflows"

bin="${STEWARD_ACTIONLINT_BIN:-}"
if [[ -z "$bin" ]]; then
  found="$(bash "$here/build.sh" --cached-only)" || exit 1
  bin="${found#STEWARD_ACTIONLINT_BIN=}"
fi
[[ -x "$bin" ]] || { echo "actionlint: STEWARD_ACTIONLINT_BIN=$bin is not an executable file" >&2; exit 1; }
shellcheck="${STEWARD_SHELLCHECK_BIN:-}"
if [[ -z "$shellcheck" ]]; then
  found="$(bash "$here/../shellcheck/install.sh" --cached-only)" || exit 1
  shellcheck="${found#STEWARD_SHELLCHECK_BIN=}"
fi
[[ -x "$shellcheck" ]] || { echo "actionlint: STEWARD_SHELLCHECK_BIN=$shellcheck is not an executable file" >&2; exit 1; }

files=()
for dir in "$@"; do
  [[ -d "$dir" ]] || { echo "actionlint: $dir is not a folder" >&2; exit 1; }
  mapfile -t -O "${#files[@]}" files < <(find "$dir" -maxdepth 1 -type f \( -name '*.yml' -o -name '*.yaml' \) | sort)
done
if ((${#files[@]} == 0)); then
  echo "actionlint: no workflows (*.yml, *.yaml) in $*" >&2
  exit 1
fi
version="$("$bin" -version | head -n 1)"
# -pyflakes= : no Python in our workflows' run: steps, and no pyflakes to pin.
if ! "$bin" -no-color -shellcheck "$shellcheck" -pyflakes= "${files[@]}"; then
  echo "actionlint: findings above (actionlint $version); fix them, or see https://github.com/rhysd/actionlint/blob/$version/docs/usage.md#ignore-some-errors for ignoring one with a reason" >&2
  exit 1
fi
echo "actionlint: ${#files[@]} workflow(s) clean (actionlint $version, ShellCheck $("$shellcheck" --version | sed -n 's/^version: //p'))"
