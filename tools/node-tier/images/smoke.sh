#!/usr/bin/env bash
# Smoke check of a built image root filesystem, run by build.sh before packing (not part of any
# cache key: it checks, it does not shape). Needs root. Runs the image the way a pod with
# readOnlyRootFilesystem would: ROOT bind-mounted read-only, tmpfs only at /tmp, /dev/shm, /data
# (owned UID:GID) and, for postgres, /run/postgresql; everything as UID:GID, inside fresh mount,
# PID, network (loopback only), IPC and UTS namespaces, so no mount, process or listening socket
# outlives it and nothing on the host is reachable.
#
#   smoke.sh ROOT KIND UID GID ARGV_JSON [K=V...]
#     KIND       redis | valkey | postgres | node
#     ARGV_JSON  the image's entrypoint + cmd, a JSON array (what the server is started with)
#     K=V        the image's environment
#   Expected versions come from the environment: SMOKE_VERSION (the server's, or node's) and, for
#   node, SMOKE_NPM_VERSION.
#
# redis/valkey: started with ARGV (+ --appendonly yes), answers PING, SET/GET over TCP, reports SMOKE_VERSION, shuts
#   down cleanly having written its append-only file to /data.
# postgres: ARGV (the entrypoint) runs initdb into $PGDATA and starts postgres; it answers over the
#   socket in /run/postgresql and over TCP, reports SMOKE_VERSION, has no JIT; stops cleanly;
#   rclone (configured from the environment only) copies a file and gzip round-trips it.
# node: node and npm report their pinned versions, node is an LTS release, npx runs, the CA bundle
#   is there, the unprivileged user resolves.
# For the servers, every binary and library they ship must resolve its shared libraries (ldd).
set -euo pipefail

if [[ "${STEWARD_SMOKE_INNER:-}" != 1 ]]; then
  [[ $# -ge 5 ]] || { echo "usage: smoke.sh ROOT KIND UID GID ARGV_JSON [K=V...]" >&2; exit 2; }
  exec env STEWARD_SMOKE_INNER=1 timeout --kill-after=10 180 \
    unshare --mount --pid --net --ipc --uts --fork --kill-child --propagation private -- \
    bash "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" "$@"
fi

root="$1" kind="$2" uid="$3" gid="$4" argv_json="$5"; shift 5
image_env=("$@")
mapfile -d '' argv < <(python3 -c 'import json, sys; [sys.stdout.write(a + "\0") for a in json.loads(sys.argv[1])]' "$argv_json")

fail() { echo "smoke: FAILED: $*" >&2; [[ -s "${work:-}/server.log" ]] && sed 's/^/  server: /' "$work/server.log" >&2; exit 1; }
ok() { echo "smoke: ok: $*"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/steward-smoke.XXXXXX")"
mnt="$work/root"
mkdir "$mnt"
# The mounts live in this process's private mount namespace and the processes in its PID namespace
# (this shell is its init): both vanish with it. Cleaning up here just lets the scratch directory
# be removed, and never through a mount that is still there.
cleanup() {
  kill -KILL -1 2>/dev/null || true
  wait 2>/dev/null || true
  umount -R "$mnt" 2>/dev/null || umount -R -l "$mnt" 2>/dev/null || true
  if mountpoint -q "$mnt"; then
    echo "smoke: $mnt is still mounted; left $work in place" >&2
  else
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT

mount --bind "$root" "$mnt"
mount -o remount,bind,ro "$mnt"
mount -t tmpfs -o mode=0755,size=1m tmpfs "$mnt/dev"
for node in null zero full random urandom; do
  : >"$mnt/dev/$node"
  mount --bind "/dev/$node" "$mnt/dev/$node"
done
ln -s /proc/self/fd "$mnt/dev/fd"
mkdir "$mnt/dev/shm"
mount -t tmpfs -o mode=1777 tmpfs "$mnt/dev/shm"
mount -t proc proc "$mnt/proc"
mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
case "$kind" in
  redis | valkey | postgres) mount -t tmpfs -o "mode=0750,uid=$uid,gid=$gid" tmpfs "$mnt/data" ;;
esac
if [[ "$kind" == postgres ]]; then
  mount -t tmpfs -o "mode=2775,uid=$uid,gid=$gid" tmpfs "$mnt/run/postgresql"
fi
ip link set lo up

# as_user CMD...: runs CMD in the image as UID:GID with the image's environment.
as_user() { env -i HOME=/tmp "${image_env[@]}" chroot --userspec="$uid:$gid" --groups="$gid" "$mnt" "$@"; }

# expect <what> <expected output> <command...>: the command succeeds and prints exactly that.
expect() {
  local what="$1" want="$2" got; shift 2
  got="$("$@" 2>&1)" || fail "$what: exit status $?: $got"
  [[ "$got" == "$want" ]] || fail "$what: got '$got', expected '$want'"
}

# stopped <what>: the server exits within 20 s, with status 0.
stopped() {
  local tries=100 status=0
  while kill -0 "$server" 2>/dev/null; do
    ((--tries > 0)) || fail "$1 did not exit within 20 s of being asked to"
    sleep 0.2
  done
  wait "$server" || status=$?
  ((status == 0)) || fail "$1 exited with status $status"
}

nonempty_dir() { [[ -n "$(ls -A "$1")" ]]; }

# start_server ARGV...: as_user in the background; $server is the server's own pid (env, chroot and
# the server exec one another), so signals reach it.
start_server() {
  env -i HOME=/tmp "${image_env[@]}" chroot --userspec="$uid:$gid" --groups="$gid" "$mnt" "$@" \
    >"$work/server.log" 2>&1 &
  server=$!
}

check_libraries() {
  local missing
  # shellcheck disable=SC2016 # expanded by the image's shell
  missing="$(chroot "$mnt" /bin/sh -c 'for f in "$@"; do [ -f "$f" ] && ldd "$f" 2>/dev/null | sed -n "s|^|$f: |; /not found/p"; done; true' sh "$@")"
  [[ -z "$missing" ]] || fail "unresolved shared libraries:"$'\n'"$missing"
  ok "shared libraries of $# files resolve"
}

wait_until() {
  local what="$1" tries="$2"; shift 2
  until "$@" >/dev/null 2>&1; do
    ((--tries > 0)) || fail "timed out waiting for $what"
    kill -0 "$server" 2>/dev/null || fail "the server exited while waiting for $what"
    sleep 0.2
  done
}

smoke_redis() {
  local cli="$1-cli" got pid
  mapfile -t files < <(cd "$mnt" && find usr/bin -name "$1-*" -printf '/%p\n')
  (( ${#files[@]} >= 2 )) || fail "found only ${#files[@]} $1 binaries in /usr/bin"
  check_libraries "${files[@]}"
  # as a pod would run it with args added: the append-only file (written at start) shows /data works
  start_server "${argv[@]}" --appendonly yes
  wait_until "$1 to answer PING" 100 as_user "$cli" -h 127.0.0.1 ping
  expect SET OK as_user "$cli" -h 127.0.0.1 set smoke ok
  expect GET ok as_user "$cli" -h 127.0.0.1 get smoke
  got="$(as_user "$cli" -h 127.0.0.1 info server | tr -d '\r' | sed -n "s/^$1_version://p")"
  [[ "$got" == "$SMOKE_VERSION" ]] || fail "$1_version is '$got', expected $SMOKE_VERSION"
  pid="$(as_user "$cli" -h 127.0.0.1 info server | tr -d '\r' | sed -n 's/^process_id://p')"
  ok "$1 $got answers over TCP, running as uid:gid $(stat -c %u:%g "$mnt/proc/$pid")"
  wait_until "the append-only file in /data" 100 nonempty_dir "$mnt/data"
  as_user "$cli" -h 127.0.0.1 shutdown >/dev/null 2>&1 || true
  stopped "$1"
  ok "$1 shut down cleanly; /data holds: $(find "$mnt/data" -mindepth 1 -maxdepth 1 -printf '%f ')"
}

smoke_postgres() {
  local got bindir
  bindir="$(cd "$mnt" && echo usr/lib/postgresql/*/bin)"
  mapfile -t files < <(cd "$mnt" && find "$bindir" "${bindir%/bin}/lib" -type f \( -perm -u+x -o -name '*.so' \) -printf '/%p\n')
  (( ${#files[@]} > 10 )) || fail "found only ${#files[@]} binaries and libraries in /${bindir%/bin}"
  check_libraries "${files[@]}"
  start_server "${argv[@]}"
  wait_until "postgres to accept connections on its socket" 300 as_user pg_isready -q -h /run/postgresql
  got="$(as_user psql -h /run/postgresql -U postgres -d postgres -XAtc "select split_part(current_setting('server_version'), ' ', 1) || ' jit=' || pg_jit_available() || ' ' || current_setting('data_directory')")" ||
    fail "psql over the socket: $got"
  [[ "$got" == "$SMOKE_VERSION jit=false "* ]] || fail "postgres reports '$got', expected $SMOKE_VERSION without JIT"
  ok "postgres $got, running as uid:gid $(stat -c %u:%g "$mnt/proc/$(head -n1 "$mnt$(sed -n 's/^PGDATA=//p' <<<"$(printf '%s\n' "${image_env[@]}")")/postmaster.pid")")"
  expect "psql over TCP" 1 as_user psql -h 127.0.0.1 -U postgres -d postgres -XAtc 'select 1'
  ok "postgres answers over TCP (pg_hba allows hosts)"
  kill -INT "$server"
  stopped postgres
  grep -q 'database system is shut down' "$work/server.log" || fail "postgres did not log a clean shutdown"
  ok "postgres shut down cleanly"
  # The backup tools: rclone configured from the environment alone (no config file: the root is
  # read-only), through a remote, and gzip for WAL segments.
  as_user sh -c 'printf steward >/tmp/rclone-in' || fail "cannot write /tmp"
  got="$(as_user env RCLONE_CONFIG=/tmp/no-rclone.conf RCLONE_CONFIG_SMOKE_TYPE=local \
    sh -c 'rclone copyto /tmp/rclone-in smoke:/tmp/rclone-out && rclone cat smoke:/tmp/rclone-out | gzip -c | gzip -dc' 2>"$work/rclone.err")" ||
    fail "rclone through an environment-configured remote: $got $(cat "$work/rclone.err")"
  [[ "$got" == steward ]] || fail "rclone copied '$got', expected steward"
  [[ -s "$mnt/etc/ssl/certs/ca-certificates.crt" ]] || fail "no CA bundle for rclone's HTTPS"
  ok "rclone $(as_user rclone version 2>/dev/null | head -n1 | cut -d' ' -f2) copies through a remote configured from the environment; gzip; CA bundle"
  # The instance agent's fence: curl reads its options (the bearer header) from stdin, writes the
  # body to a file and prints the status code; a file:// URL stands in for the API server.
  as_user sh -c 'printf "{\"spec\":{\"leaseDurationSeconds\":10}}" >/tmp/lease-in' || fail "cannot write /tmp"
  got="$(printf 'header = "Authorization: Bearer x"\n' | as_user curl -sS -K - --max-time 1 -o /tmp/lease-out -w '%{http_code}' file:///tmp/lease-in 2>"$work/curl.err")" ||
    fail "curl with options from stdin: $got $(cat "$work/curl.err")"
  as_user grep -q leaseDurationSeconds /tmp/lease-out || fail "curl did not write the body"
  as_user sh -c 'date +%s%3N | grep -qE "^[0-9]{13}$"' || fail "date +%s%3N is not milliseconds"
  as_user sh -c 'timeout 1 sleep 0.2' || fail "timeout and fractional sleep"
  ok "curl $(as_user curl --version 2>/dev/null | head -n1 | cut -d' ' -f2) reads options from stdin and writes the body; date in ms; timeout; sleep 0.2"
}

smoke_node() {
  local got
  got="$(as_user node -p 'process.version + " " + process.release.lts')"
  [[ "$got" == "v$SMOKE_VERSION "* && "$got" != *undefined ]] || fail "node reports '$got', expected v$SMOKE_VERSION, an LTS release"
  ok "node $got"
  expect "npm --version" "$SMOKE_NPM_VERSION" as_user npm --version
  expect "npx --version" "$SMOKE_NPM_VERSION" as_user npx --version
  ok "npm and npx $SMOKE_NPM_VERSION"
  got="$(as_user node -p 'require("node:os").userInfo().username + " " + require("node:fs").statSync("/etc/ssl/certs/ca-certificates.crt").size')" ||
    fail "node: user or CA bundle: $got"
  ok "user and CA bundle: $got"
}

case "$kind" in
  redis | valkey) smoke_redis "$kind" ;;
  postgres) smoke_postgres ;;
  node) smoke_node ;;
  *) fail "unknown kind $kind" ;;
esac
