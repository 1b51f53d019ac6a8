#!/usr/bin/env bash
# Installs moto (a real AWS API server, used by Steward's tests as the RDS API) from PyPI into a
# Python virtual environment cached outside the repository:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/moto-<version>/bin/moto_server
#
# <version> is moto's pin in requirements.txt. The entry is reused when its stamp (the hash of
# requirements.txt and the interpreter that built the venv) matches, so a warm run takes well under
# a second. A cold run takes tens of seconds and prints progress. A failed step names itself and
# its log file and exits non-zero. Concurrent runs (two suites at once) serialise on a lock.
#
# Usage: install.sh [--print-env]   (--print-env prints STEWARD_MOTO_SERVER_BIN=path for eval)
# The interpreter is ${STEWARD_PYTHON:-python3}.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
python="${STEWARD_PYTHON:-python3}"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true
backend=moto
# shellcheck source=../lib.sh
source "$here/../lib.sh"

requirements="$here/requirements.txt"
[[ -f "$requirements" ]] || fail "missing $requirements"
version="$(sed -n 's/^moto==\([^ ]*\).*/\1/p' "$requirements")"
[[ -n "$version" ]] || fail "requirements.txt pins no moto==<version>; regenerate it from requirements.in"
command -v "$python" >/dev/null || fail "$python is not installed (need Python >= 3.9 with the venv module)"

entry="moto-$version"
dest="$cache/$entry"
server="$dest/bin/moto_server"
interpreter="$("$python" -c 'import sys; print(sys.executable, sys.version.split()[0])')" ||
  fail "$python does not run"
stamp="$( { cat "$requirements"; echo "$interpreter"; } | sha256sum | cut -d' ' -f1)"

done_env() {
  if $print_env; then echo "STEWARD_MOTO_SERVER_BIN=$server"; fi
  exit 0
}

is_current() { [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" && -x "$server" ]]; }

begin_install "$entry"
discard_on_failure="$dest"

say "moto: installing moto $version into $dest (cold installs take about a minute; log: $log)"
# A venv records its own absolute path, so it is built in place; the stamp, written last, marks it
# complete, and a half-built one is removed and rebuilt.
rm -rf "$dest"
step "create venv with $interpreter" "$python" -m venv "$dest"
step "pip install -r requirements.txt" \
  "$dest/bin/python" -m pip install --no-input --disable-pip-version-check --require-hashes \
  --only-binary=:all: -r "$requirements"
step "check moto_server runs" "$server" --help
finish_install "installed moto $version in $((SECONDS - start))s -> $server"
