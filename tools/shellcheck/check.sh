#!/usr/bin/env bash
# ShellCheck over every *.sh under the folders given (node_modules aside), with the ShellCheck
# tools/shellcheck/requirements.txt pins: the second half of a lint target (libs/postgres-cluster's
# project.json). Fails on any finding, and fails when that ShellCheck is not installed, naming it
# and the command that installs it (npm test installs it before lint): it never skips.
# It never installs either: it uses $STEWARD_SHELLCHECK_BIN, else install.sh's cached entry.
#
# Usage: check.sh <folder>...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(($#)) || { echo "usage: check.sh <folder>..." >&2; exit 2; }

bin="${STEWARD_SHELLCHECK_BIN:-}"
if [[ -z "$bin" ]]; then
  found="$(bash "$here/install.sh" --cached-only)" || exit 1
  bin="${found#STEWARD_SHELLCHECK_BIN=}"
fi
[[ -x "$bin" ]] || { echo "shellcheck: STEWARD_SHELLCHECK_BIN=$bin is not an executable file" >&2; exit 1; }

mapfile -t files < <(find "$@" -name node_modules -prune -o -type f -name '*.sh' -print | sort)
if ((${#files[@]} == 0)); then
  echo "shellcheck: no *.sh files under $*"
  exit 0
fi
if ! "$bin" --external-sources "${files[@]}"; then
  echo "shellcheck: findings above ($($bin --version | sed -n 's/^version: //p')); fix them, or disable one with a # shellcheck disable=SC<code> comment that says why" >&2
  exit 1
fi
echo "shellcheck: ${#files[@]} file(s) clean (ShellCheck $("$bin" --version | sed -n 's/^version: //p'))"
