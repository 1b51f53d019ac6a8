# Sourced by tools/node-tier/images/build.sh and build-app.sh: messages, per-entry locks, steps that
# log to a file and report progress, Debian packages on the host, and Debian's archives read through
# an apt state of our own (never the host's sources or lists).
#
# The caller sets: print_env (true|false), cache (the cache root) and images (the images cache dir).
# shellcheck shell=bash disable=SC2154

say() { if $print_env; then echo "$*" >&2; else echo "$*"; fi; }

fail() { say "images: $*"; exit 1; }

short() { printf '%s' "${1:0:12}"; }

sha256_text() { sha256sum | cut -d' ' -f1; }

# lock_entry <name>: takes the lock of image <name> on fd 9, waiting (with a message) for a
# concurrent build of it. unlock_entry releases it.
lock_entry() {
  mkdir -p "$images/.locks"
  exec 9>"$images/.locks/$1.lock"
  if ! flock -n 9; then
    say "images: waiting for a concurrent build of $1 to finish"
    flock 9
  fi
}
unlock_entry() { exec 9>&-; }

# begin_entry <label> <log>: starts the clock and the log of one image build.
begin_entry() {
  entry_label="$1"
  log="$2"
  entry_start=$SECONDS
  mkdir -p "$(dirname "$log")"
  : >"$log"
  say "images: building $entry_label (log: $log)"
}

# discard_on_failure: the scratch directory of the build under way ("" when none). It is removed
# when the script exits without having moved it into place (a failed step, any other error, an
# interrupt), unless STEWARD_IMAGES_KEEP_FAILED=1 (to look into a failed build).
discard_on_failure=""
discard_scratch() {
  [[ -n "$discard_on_failure" && -e "$discard_on_failure" ]] || return 0
  if [[ "${STEWARD_IMAGES_KEEP_FAILED:-}" == 1 ]]; then
    say "images: kept the failed build's files in $discard_on_failure (STEWARD_IMAGES_KEEP_FAILED=1)"
  else
    rm -rf --one-file-system "$discard_on_failure"
  fi
}
trap discard_scratch EXIT

# new_scratch <entry dir>: a fresh scratch directory for the entry in $tmp, registered for
# discard_scratch. Scratch directories an earlier run left (killed before its EXIT trap ran) go
# first: the caller holds the entry's lock, so no live run owns them.
new_scratch() {
  local name stale
  name="$(basename "$1")"
  for stale in "$images/.tmp-$name".*; do
    if [[ -e "$stale" ]]; then rm -rf --one-file-system "$stale"; fi
  done
  tmp="$images/.tmp-$name.$$"
  mkdir -p "$tmp"
  discard_on_failure="$tmp"
}

# step <name> <command...>: runs the command with its output appended to $log, saying
# "still building <label>... Ns" every 30 s. On failure: the log's tail, then an exit naming the
# step and the log.
step() {
  local name="$1"; shift
  local began=$SECONDS
  printf '=== %s: %s\n' "$name" "$*" >>"$log"
  "$@" >>"$log" 2>&1 </dev/null &
  local pid=$! next_report=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.5
    if (( SECONDS >= next_report )); then
      say "images: still building $entry_label... $((SECONDS - entry_start))s ($name)"
      next_report=$((SECONDS + 30))
    fi
  done
  if ! wait "$pid"; then
    tail -n 25 "$log" >&2 || true
    fail "building $entry_label failed at step '$name' after $((SECONDS - began))s; full log: $log"
  fi
  printf '=== %s: done in %ss\n' "$name" "$((SECONDS - began))" >>"$log"
}

# need_host_package <package> <command or /absolute/path>: installs the Debian package when the
# command (or file) is missing; runs apt-get update first only when apt has no candidate for it.
need_host_package() {
  local pkg="$1" what="$2" candidate
  host_has "$what" && return
  command -v apt-get >/dev/null || fail "$what is missing and this is not a Debian host (need the $pkg package)"
  [[ $(id -u) == 0 ]] || fail "$what is missing; as root: apt-get install -y --no-install-recommends $pkg"
  # one install at a time among our runs (and apt waits for any other dpkg user)
  mkdir -p "$images/.locks"
  exec 8>"$images/.locks/host-apt.lock"
  flock 8
  if ! host_has "$what"; then
    say "images: installing $pkg (for $what) from Debian"
    candidate="$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')"
    local out="${log:-/dev/stderr}"
    if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
      apt-get -o DPkg::Lock::Timeout=300 update -q >>"$out" 2>&1 || fail "apt-get update failed (needed to install $pkg; log: $out)"
    fi
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "$pkg" >>"$out" 2>&1 ||
      fail "apt-get install $pkg failed (log: $out)"
  fi
  exec 8>&-
  host_has "$what" || fail "$pkg is installed but $what is still missing"
}

host_has() { if [[ "$1" == /* ]]; then [[ -e "$1" ]]; else command -v "$1" >/dev/null; fi; }

debian_mirror="${STEWARD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
debian_security_mirror="${STEWARD_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
debian_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# debian_sources <suite>: the sources.list lines of a suite: main, -updates and -security.
debian_sources() {
  printf 'deb [signed-by=%s] %s %s main\n' \
    "$debian_keyring" "$debian_mirror" "$1" \
    "$debian_keyring" "$debian_mirror" "$1-updates" \
    "$debian_keyring" "$debian_security_mirror" "$1-security"
}

# debian_apt <suite> <apt-get|apt-cache> <args...>: apt on the suite's own state under
# $images/.apt/<suite> (its own apt.conf through APT_CONFIG: lists, cache, sources, an empty dpkg
# status), so it sees exactly what the archives serve, whatever the host configured or installed.
debian_apt() {
  local suite="$1" tool="$2"; shift 2
  APT_CONFIG="$images/.apt/$suite/apt.conf" "$tool" -q "$@"
}

# debian_update <suite>: refreshes the suite's package lists (serialised on a lock per suite).
debian_update() {
  local suite="$1" d="$images/.apt/$1"
  need_host_package debian-archive-keyring "$debian_keyring"
  mkdir -p "$d/etc/sources.list.d" "$d/etc/preferences.d" "$d/etc/apt.conf.d" "$d/etc/trusted.gpg.d" \
    "$d/state" "$d/lists/partial" "$d/cache/archives/partial"
  : >"$d/status"
  debian_sources "$suite" >"$d/etc/sources.list"
  cat >"$d/apt.conf" <<EOF
Dir::Etc "$d/etc";
Dir::State "$d/state";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d/cache";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
Acquire::Retries "3";
APT::Sandbox::User "root";
EOF
  (
    flock 8
    debian_apt "$suite" apt-get update
  ) 8>"$d/.lock"
}

# check_pins <suite> <where> <package=version...>: fails, naming the package, the pin and the
# versions served now, when a pinned version is not served by the suite's archives.
check_pins() {
  local suite="$1" where="$2"; shift 2
  local pin pkg want madison served
  for pin in "$@"; do
    pkg="${pin%%=*}" want="${pin#*=}"
    madison="$(debian_apt "$suite" apt-cache madison "$pkg" 2>/dev/null)" || true
    if ! awk -F'|' '{gsub(/ /, "", $2); print $2}' <<<"$madison" | grep -qxF -- "$want"; then
      served="$(awk -F'|' 'NF > 2 {gsub(/ /, "", $2); split($3, a, " "); printf "%s%s (%s)", (n++ ? ", " : ""), $2, a[2]}' <<<"$madison")"
      fail "$pkg $want (pinned in $where) is not served by Debian $suite, $suite-updates or $suite-security; served now: ${served:-nothing}. Update the pin."
    fi
  done
}

# upstream_version <debian version>: 5:7.0.15-1~deb12u10 -> 7.0.15, 8.1.1+dfsg1-3 -> 8.1.1
upstream_version() {
  local v="${1#*:}"
  v="${v%-*}"
  v="${v%%+*}"
  printf '%s' "${v%%~*}"
}
