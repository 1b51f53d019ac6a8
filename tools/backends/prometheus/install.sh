#!/usr/bin/env bash
# Installs Prometheus and promtool (the Debian packages versions.env pins, from the suite it names)
# unpacked into a folder cached outside the repository — the machine's own apt sources and
# installed packages are left as they are: the suite is read through a private apt configuration
# in the cache.
#
#   ${STEWARD_CACHE:-~/.cache/steward}/prometheus-<version>-<hash>/root/usr/bin/{prometheus,promtool}
#   .../root/usr/share/prometheus/web   the web UI's assets (prometheus --web.local-assets)
#
# <hash> is of versions.env. Warm: well under a second; cold: about half a minute (a 15 MB package
# list and 33 MB of packages). A failed step names itself and its log; a pin Debian no longer serves
# is named with the versions it does serve. Concurrent runs serialise on a lock.
#
# Usage: install.sh [--print-env]   (--print-env prints STEWARD_PROMETHEUS_BIN, STEWARD_PROMTOOL_BIN
# and STEWARD_PROMETHEUS_ASSETS for eval)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true
backend=prometheus
# shellcheck source=../lib.sh
source "$here/../lib.sh"
# shellcheck source=versions.env
source "$here/versions.env"

version="$(tr ' ' '\n' <<<"$PROMETHEUS_PACKAGES" | sed -n 's/^prometheus=//p')"
[[ -n "$version" ]] || fail "versions.env pins no prometheus=<version>"
stamp="$(sha256sum "$here/versions.env" | cut -d' ' -f1)"
entry="prometheus-${version%%+*}-${stamp:0:12}"
dest="$cache/$entry"
root="$dest/root"

done_env() {
  if $print_env; then
    echo "STEWARD_PROMETHEUS_BIN=$root/usr/bin/prometheus"
    echo "STEWARD_PROMTOOL_BIN=$root/usr/bin/promtool"
    echo "STEWARD_PROMETHEUS_ASSETS=$root/usr/share/prometheus/web"
  fi
  exit 0
}

is_current() {
  [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" && -x "$root/usr/bin/prometheus" ]]
}

command -v apt-get >/dev/null || fail "apt-get is not on this machine (Prometheus comes from Debian's packages)"
begin_install "$entry"
discard_on_failure="$dest"
rm -rf "$dest" && mkdir -p "$dest/apt/lists/partial" "$dest/apt/cache/archives/partial" "$dest/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $PROMETHEUS_SUITE main" >"$dest/apt/sources.list"
apt_private=(
  -o "Dir::Etc::SourceList=$dest/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$dest/apt/lists" -o "Dir::Cache=$dest/apt/cache"
  -o Dir::State::status=/dev/null -o APT::Sandbox::User=root
)
say "prometheus: installing Prometheus $version from Debian $PROMETHEUS_SUITE into $dest (log: $log)"
step "read Debian $PROMETHEUS_SUITE's package list" apt-get "${apt_private[@]}" update
# shellcheck disable=SC2086 # the list is word-split on purpose
if ! (cd "$dest/debs" && apt-get "${apt_private[@]}" download $PROMETHEUS_PACKAGES) >>"$log" 2>&1; then
  for pkg in $PROMETHEUS_PACKAGES; do
    if ! apt-cache "${apt_private[@]}" show "$pkg" >/dev/null 2>&1; then
      say "prometheus: Debian $PROMETHEUS_SUITE does not serve $pkg (pinned in tools/backends/prometheus/versions.env); it serves: $(apt-cache "${apt_private[@]}" madison "${pkg%%=*}" 2>/dev/null | awk '{print $3}' | paste -sd' ')"
    fi
  done
  rm -rf "$dest"
  fail "step 'download the packages' failed; full log: $log"
fi
unpack() { for f in "$dest"/debs/*.deb; do dpkg-deb -x "$f" "$root"; done; }
step "unpack the packages" unpack
rm -rf "$dest/debs" "$dest/apt"
step "check prometheus runs" "$root/usr/bin/prometheus" --version
step "check promtool runs" "$root/usr/bin/promtool" --version
finish_install "installed Prometheus $version in $((SECONDS - start))s -> $root/usr/bin"
