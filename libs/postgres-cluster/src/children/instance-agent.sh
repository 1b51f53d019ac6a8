#!/bin/sh
# Steward's PostgreSQL instance agent: libs/postgres-cluster/src/children/instance-script.ts says
# what it does. The pods set none of STEWARD_INSTRUCTION_FILE, STEWARD_RUN_DIR,
# STEWARD_TERMINATION_LOG, STEWARD_POLL_SECONDS, STEWARD_API_URL and STEWARD_TOKEN_DIR: they exist
# for its tests. STEWARD_LEASE (the Lease's name) and STEWARD_NAMESPACE turn self-fencing on.
conf=/etc/steward/config
instruction_file="${STEWARD_INSTRUCTION_FILE:-/etc/steward/pod/instruction}"
run="${STEWARD_RUN_DIR:-/tmp/steward}"
termination_log="${STEWARD_TERMINATION_LOG:-/dev/termination-log}"
poll_seconds="${STEWARD_POLL_SECONDS:-1}"
passfile="$run/pgpass"
pg_pid=
running=
# Self-fencing (docs/design/fencing.md): the API server, the pod's own projected token, the Lease.
token_dir="${STEWARD_TOKEN_DIR:-/var/run/secrets/steward}"
api_host="$KUBERNETES_SERVICE_HOST"
case "$api_host" in *:*) api_host="[$api_host]" ;; esac
api_url="${STEWARD_API_URL:-https://$api_host:${KUBERNETES_SERVICE_PORT:-443}}"
lease_url=
[ -n "$STEWARD_LEASE" ] && lease_url="$api_url/apis/coordination.k8s.io/v1/namespaces/$STEWARD_NAMESPACE/leases/$STEWARD_LEASE"
# The watchdog stops PostgreSQL this long before the Lease's bound runs out (its own poll, the
# signal, the backends ending; the controller's clock starts after the renewal reached it).
fence_margin_ms=1500
deadline_file="$run/fence-deadline"
fenced_file="$run/fenced"
pid_file="$run/postmaster.pid"
answered=
watchdog_pid=
# No renewal yet: a server found out of recovery before one succeeds is stopped at once.
lease_deadline=0

log() { echo "steward-instance: $*" >&2; }
fail() {
  log "$*"
  printf '%s\n' "$*" >"$termination_log" 2>/dev/null
  [ -z "$watchdog_pid" ] || kill "$watchdog_pid" 2>/dev/null
  exit 1
}

[ -n "$PGDATA" ] || fail "PGDATA is not set"
[ -n "$POD_NAME" ] || fail "POD_NAME is not set"
mkdir -p "$run" || fail "cannot create $run"
umask 077
[ -n "$POSTGRES_PASSWORD" ] || fail "POSTGRES_PASSWORD is empty: refusing to start without the superuser password"
# Standbys stream, clone and rewind as the replication role; a pod whose template predates its
# Secret (STEWARD_REPLICATION_PASSWORD unset) falls back to the superuser until it is rolled.
replication_user=steward_replication
[ -n "$STEWARD_REPLICATION_PASSWORD" ] || replication_user=postgres
pgpass_line() { printf '*:*:*:%s:%s\n' "$1" "$(printf '%s' "$2" | sed 's/[\\:]/\\&/g')"; }
{
  pgpass_line postgres "$POSTGRES_PASSWORD"
  [ -z "$STEWARD_REPLICATION_PASSWORD" ] || pgpass_line steward_replication "$STEWARD_REPLICATION_PASSWORD"
} >"$passfile" || fail "cannot write $passfile"
unset STEWARD_REPLICATION_PASSWORD
export PGPASSFILE="$passfile"
pwfile="$run/initdb-password"
printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
unset POSTGRES_PASSWORD
umask 027

instruction() { cat "$instruction_file" 2>/dev/null || true; }
verb_of() {
  # shellcheck disable=SC2086 # split into words on purpose
  set -- $1
  if [ -n "$1" ]; then printf '%s' "$1"; else printf wait; fi
}
host_of() {
  # shellcheck disable=SC2086 # split into words on purpose
  set -- $1
  printf '%s' "$2"
}
# alive: the postmaster started last runs (neither gone nor a zombie not yet reaped)
alive() {
  [ -n "$pg_pid" ] && kill -0 "$pg_pid" 2>/dev/null || return 1
  [ "$(sed 's/.*) //' "/proc/$pg_pid/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]
}
conninfo() { printf "host=%s port=5432 user=%s dbname=postgres passfile=%s application_name=%s connect_timeout=5" "$1" "$replication_user" "$passfile" "$POD_NAME"; }

# set_conninfo <host>: PGDATA/postgresql.auto.conf names <host> as primary_conninfo (the server is stopped).
set_conninfo() {
  auto="$PGDATA/postgresql.auto.conf"
  touch "$auto"
  grep -v '^[[:space:]]*primary_conninfo[[:space:]]*=' "$auto" >"$auto.tmp" || true
  printf "primary_conninfo = '%s'\n" "$(conninfo "$1")" >>"$auto.tmp"
  mv "$auto.tmp" "$auto"
}
clear_conninfo() {
  auto="$PGDATA/postgresql.auto.conf"
  [ -f "$auto" ] || return 0
  grep -v '^[[:space:]]*primary_conninfo[[:space:]]*=' "$auto" >"$auto.tmp" || true
  mv "$auto.tmp" "$auto"
}

check_config() {
  if ! postgres -D "$PGDATA" -c config_file="$conf/postgresql.conf" -C server_version_num >/dev/null 2>"$run/check.log"; then
    fail "PostgreSQL refuses the configuration: $(grep -v '^[[:space:]]*$' "$run/check.log" | tail -n 2 | tr '\n' ' ')"
  fi
}

# start_recovering: PostgreSQL replays the source's archive (PGDATA has recovery.signal).
start_recovering() {
  check_config
  set -- -c "restore_command=/bin/sh $conf/restore-wal.sh %f %p" -c recovery_target_action=promote
  if [ -n "$STEWARD_RESTORE_TARGET_TIME" ]; then
    set -- "$@" -c "recovery_target_time=$STEWARD_RESTORE_TARGET_TIME"
  fi
  target="$STEWARD_RESTORE_TARGET_TIME"
  [ -n "$target" ] || target="the end of the archive"
  log "starting PostgreSQL to recover backup $STEWARD_RESTORE_BACKUP up to $target"
  postgres -D "$PGDATA" -c config_file="$conf/postgresql.conf" "$@" &
  pg_pid=$!
  printf '%s\n' "$pg_pid" >"$pid_file"
  rm -f "$fenced_file"
  running=recovering
  answered=
}

# restore_base: PGDATA from the base backup STEWARD_RESTORE_BACKUP, checked, set to recover.
restore_base() {
  [ -n "$STEWARD_RESTORE_PATH" ] && [ -n "$STEWARD_RESTORE_BACKUP" ] ||
    fail "told to restore, but no backup is named (STEWARD_RESTORE_PATH, STEWARD_RESTORE_BACKUP)"
  src="source:$STEWARD_RESTORE_PATH/base/$STEWARD_RESTORE_BACKUP"
  tmp="$PGDATA.restore"
  rm -rf "$tmp"
  { mkdir -p "$tmp" && chmod 700 "$tmp"; } || fail "cannot create $tmp"
  log "restoring base backup $STEWARD_RESTORE_BACKUP from $src"
  rclone cat "$src/base.tar.gz" 2>"$run/rclone.err" | tar -xzf - -C "$tmp" 2>"$run/tar.err" ||
    fail "cannot fetch and unpack $src/base.tar.gz: $(tail -n 1 "$run/rclone.err") $(tail -n 1 "$run/tar.err")"
  rclone copyto "$src/backup_manifest" "$tmp/backup_manifest" 2>"$run/rclone.err" ||
    fail "cannot fetch $src/backup_manifest: $(tail -n 1 "$run/rclone.err")"
  pg_verifybackup --no-parse-wal --quiet "$tmp" 2>"$run/verify.log" ||
    fail "backup $STEWARD_RESTORE_BACKUP does not match its manifest: $(tail -n 2 "$run/verify.log" | tr '
' ' ')"
  # The source's ALTER SYSTEM settings name its standbys: not this cluster's.
  auto="$tmp/postgresql.auto.conf"
  if [ -f "$auto" ]; then
    grep -v -e '^[[:space:]]*primary_conninfo[[:space:]]*=' -e '^[[:space:]]*synchronous_standby_names[[:space:]]*=' "$auto" >"$auto.tmp" || true
    mv "$auto.tmp" "$auto"
  fi
  rm -f "$tmp/standby.signal" "$tmp/postmaster.pid"
  touch "$tmp/recovery.signal" "$tmp/steward.restored"
  mv "$tmp" "$PGDATA" || fail "cannot move the restored backup into $PGDATA"
  log "backup $STEWARD_RESTORE_BACKUP verified and unpacked"
}

# finish_restore: once the restored instance is promoted, the superuser's password is this
# cluster's (over the socket: peer authentication needs none). Sent on stdin, never argv.
finish_restore() {
  [ -f "$PGDATA/steward.restored" ] || return 0
  [ "$(psql -h /run/postgresql -U postgres -d postgres -XAtc 'select pg_is_in_recovery()' 2>/dev/null)" = f ] || return 0
  printf "ALTER ROLE postgres PASSWORD '%s';
" "$(sed "s/'/''/g" "$pwfile")" |
    psql -h /run/postgresql -U postgres -d postgres -X -q -v ON_ERROR_STOP=1 >/dev/null 2>"$run/psql.err" || {
    log "cannot set the superuser's password yet: $(tail -n 1 "$run/psql.err")"
    return 0
  }
  rm -f "$PGDATA/steward.restored"
  log "restored from backup $STEWARD_RESTORE_BACKUP and promoted; the superuser's password is this cluster's"
}

now_ms() { date +%s%3N; }

# arm <deadline ms>: the watchdog stops PostgreSQL at that time unless renewed; disarm: never.
arm() {
  printf '%s\n' "$1" >"$deadline_file.tmp" && mv "$deadline_file.tmp" "$deadline_file"
}
disarm() { rm -f "$deadline_file"; }

# renew: the Lease renewed by a JSON patch that first tests the holder is this pod (compare and
# swap, no JSON to parse); on success the watchdog's deadline moves to the start of this attempt +
# the Lease's duration − the margin. 1: not renewed (the API server unreachable, the Lease gone,
# or — 2 — held by another pod: then the deadline is now).
renew() {
  [ -n "$lease_url" ] || return 0
  started="$(now_ms)"
  body="$(printf '[{"op":"test","path":"/spec/holderIdentity","value":"%s"},{"op":"add","path":"/spec/renewTime","value":"%s"}]' \
    "$POD_NAME" "$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)")"
  code="$(printf 'header = "Authorization: Bearer %s"\n' "$(cat "$token_dir/token" 2>/dev/null)" |
    curl -sS -K - --max-time 2 --connect-timeout 2 --cacert "$token_dir/ca.crt" -X PATCH \
      -H 'Content-Type: application/json-patch+json' --data "$body" -o "$run/lease.json" \
      -w '%{http_code}' "$lease_url" 2>"$run/curl.err")"
  case "$code" in
    200)
      duration="$(sed -n 's/.*"leaseDurationSeconds":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$run/lease.json")"
      [ -n "$duration" ] || duration=0
      lease_deadline=$((started + duration * 1000 - fence_margin_ms))
      [ -n "$renew_failing" ] && log "lease $STEWARD_LEASE renewed again"
      renew_failing=
      return 0
      ;;
    422 | 409)
      # The test failed: the Lease names another pod (a failover took it).
      lease_deadline=0
      [ "$renew_failing" = holder ] || log "lease $STEWARD_LEASE is held by another instance: this one is not the primary"
      renew_failing=holder
      return 2
      ;;
    *)
      [ -n "$renew_failing" ] || log "cannot renew lease $STEWARD_LEASE (HTTP ${code:-none}: $(tail -n 1 "$run/curl.err" 2>/dev/null))"
      renew_failing=yes
      return 1
      ;;
  esac
}

# in_recovery: t or f from the server over the socket, nothing when it does not answer within 2 s.
in_recovery() {
  timeout 2 psql -h /run/postgresql -U postgres -d postgres -XAtc 'select pg_is_in_recovery()' 2>/dev/null
}

# watchdog: a loop of its own (5 times a second) that stops PostgreSQL — a fast shutdown: backends
# ended, new connections refused — once the armed deadline has passed. It knows nothing else: the
# main loop arms and disarms it.
watchdog() {
  while :; do
    if [ -f "$deadline_file" ] && [ -f "$pid_file" ]; then
      deadline="$(cat "$deadline_file" 2>/dev/null)"
      pid="$(cat "$pid_file" 2>/dev/null)"
      if [ -n "$deadline" ] && [ -n "$pid" ] && [ "$(now_ms)" -gt "$deadline" ]; then
        : >"$fenced_file"
        rm -f "$deadline_file"
        log "fenced: no proof of the primary role (lease $STEWARD_LEASE) in time; stopping PostgreSQL (pid $pid)"
        kill -INT "$pid" 2>/dev/null
      fi
    fi
    sleep 0.2
  done
}

# fence_check: while PostgreSQL runs as a primary (told so, or out of recovery), the Lease is
# renewed whenever the server answers — or has not answered since it started (crash recovery) —
# and the watchdog armed with the deadline; a server that answered and then stops answering (hung)
# is not renewed for. A standby disarms it.
fence_check() {
  [ -n "$lease_url" ] && [ -n "$pg_pid" ] || return 0
  # Stopping already (the watchdog fired): nothing to renew or arm.
  [ ! -f "$fenced_file" ] || return 0
  rec="$(in_recovery)"
  [ "$rec" = f ] && answered=yes
  if [ "$rec" = f ] || [ "$running" = primary ]; then
    if [ "$rec" = f ] || [ -z "$answered" ]; then renew; fi
    arm "$lease_deadline"
  else
    disarm
  fi
}

# lease_held: before PostgreSQL starts as a primary, the Lease must name this pod and be renewed.
lease_held() {
  [ -n "$lease_url" ] || return 0
  if renew; then
    arm "$lease_deadline"
    return 0
  fi
  now_waiting="waiting for lease $STEWARD_LEASE before starting as primary"
  [ "$waiting" = "$now_waiting" ] || log "$now_waiting"
  waiting="$now_waiting"
  return 1
}

start_postgres() {
  check_config
  log "starting PostgreSQL as $1"
  postgres -D "$PGDATA" -c config_file="$conf/postgresql.conf" &
  pg_pid=$!
  printf '%s\n' "$pg_pid" >"$pid_file"
  rm -f "$fenced_file"
  running="$1"
  answered=
  waiting=
}

stop_postgres() {
  [ -n "$pg_pid" ] || return 0
  log "stopping PostgreSQL (fast shutdown)"
  disarm
  kill -INT "$pg_pid" 2>/dev/null
  wait "$pg_pid" 2>/dev/null
  rm -f "$pid_file"
  pg_pid=
  running=
}

clone() {
  rm -rf "$PGDATA.clone"
  log "cloning from $1 with pg_basebackup"
  pg_basebackup -d "$(conninfo "$1")" -D "$PGDATA.clone" -X stream -c fast --no-password ||
    fail "pg_basebackup from $1 failed (see the log above)"
  mv "$PGDATA.clone" "$PGDATA" || fail "cannot move the clone into $PGDATA"
}

# pg_rewind first completes crash recovery of a primary that died (single-user postgres): with our
# postgresql.conf, so that wal_keep_size keeps the WAL back to the divergence point it then reads.
# salvage <host>: before pg_rewind makes this instance follow <host>, what it wrote after the two
# histories parted — its WAL from the divergence to its end, on the timeline <host> left — is kept:
# in the backup bucket with spec.backup (backup:$STEWARD_BACKUP_PATH/<system id>/salvage/<name>/),
# otherwise on this volume (<data>/salvage/<name>/), with manifest.json; <data>/salvage/latest.json
# is the newest manifest, which the controller reports (status.failover.salvage). Nothing to keep
# (pg_rewind finds no divergence): a manifest saying NotNeeded. When it cannot be kept, the agent
# stops here (nothing is rewound away): the controller shows the reason.
salvage() {
  source_host="$1"
  root="$(dirname "$PGDATA")/salvage"
  mkdir -p "$root" || fail "cannot create $root"
  now_iso="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  # A server that did not shut down cleanly (it crashed, or its node was lost) completes crash
  # recovery first, as pg_rewind itself would: its WAL end is then where recovery ended.
  case "$(pg_controldata "$PGDATA" 2>/dev/null | sed -n 's/^Database cluster state:[[:space:]]*//p')" in
    "shut down" | "shut down in recovery" | "") ;;
    *)
      log "completing crash recovery before saving what this instance wrote"
      postgres --single -F -D "$PGDATA" -c config_file="$conf/postgresql.conf" template1 </dev/null >/dev/null 2>"$run/single.log" ||
        fail "crash recovery before the salvage failed: $(tail -n 1 "$run/single.log")"
      ;;
  esac
  if ! dry="$(pg_rewind --dry-run --target-pgdata="$PGDATA" --source-server="$(conninfo "$1")" \
    --config-file="$conf/postgresql.conf" 2>&1)"; then
    # pg_rewind cannot compare the histories (e.g. the WAL it needs is gone): the rewind fails the
    # same way and the controller re-clones — which moves this data directory aside, not away.
    printf '{"phase":"Failed","savedAt":"%s","message":"pg_rewind could not compare the histories (%s): the data directory is kept as %s.old when the instance is re-cloned"}\n' \
      "$now_iso" "$(printf '%s' "$dry" | tail -n 1 | sed 's/["\\]//g')" "$PGDATA" >"$root/latest.json.tmp" &&
      mv "$root/latest.json.tmp" "$root/latest.json"
    return 0
  fi
  # shellcheck disable=SC2046 # two words on purpose
  set -- $(printf '%s\n' "$dry" | sed -n 's/.*servers diverged at WAL location \([0-9A-Fa-f]*\/[0-9A-Fa-f]*\) on timeline \([0-9][0-9]*\).*/\1 \2/p' | head -n 1)
  if [ -z "$1" ]; then
    printf '{"phase":"NotNeeded","savedAt":"%s","message":"no divergence from the new primary: nothing to keep"}\n' "$now_iso" >"$root/latest.json.tmp" &&
      mv "$root/latest.json.tmp" "$root/latest.json"
    return 0
  fi
  from="$1"
  tli="$2"
  # Its end: where pg_waldump stops reading valid records on that timeline.
  to="$(pg_waldump --path="$PGDATA/pg_wal" --timeline="$tli" --start="$from" 2>&1 >/dev/null |
    sed -n 's/.*invalid record length at \([0-9A-Fa-f]*\/[0-9A-Fa-f]*\).*/\1/p' | head -n 1)"
  [ -n "$to" ] || to="$(pg_waldump --path="$PGDATA/pg_wal" --timeline="$tli" --start="$from" 2>/dev/null |
    sed -n 's/.*lsn: \([0-9A-Fa-f]*\/[0-9A-Fa-f]*\),.*/\1/p' | tail -n 1)"
  [ -n "$to" ] || to="$from"
  lsn_bytes() { printf '%d' "$(( ($(printf '%d' "0x${1%%/*}") << 32) + $(printf '%d' "0x${1#*/}") ))"; }
  bytes=$(( $(lsn_bytes "$to") - $(lsn_bytes "$from") ))
  [ "$bytes" -ge 0 ] || bytes=0
  name="$(date -u +%Y%m%dT%H%M%SZ)-tl$tli"
  dir="$root/$name"
  mkdir -p "$dir" || fail "cannot create $dir"
  first="$(printf '%08X%08X%08X' "$tli" "$(printf '%d' "0x${from%%/*}")" "$(( $(printf '%d' "0x${from#*/}") >> 24 ))")"
  prefix="$(printf '%08X' "$tli")"
  for f in "$PGDATA"/pg_wal/"$prefix"????????????????; do
    [ -f "$f" ] || continue
    seg="$(basename "$f")"
    [ "$(printf '%s\n%s\n' "$first" "$seg" | sort | head -n 1)" = "$first" ] || continue
    cp "$f" "$dir/" || fail "cannot copy $seg into $dir"
  done
  location="$dir"
  sysid="$(pg_controldata "$PGDATA" 2>/dev/null | sed -n 's/^Database system identifier:[[:space:]]*//p')"
  if [ -n "$STEWARD_BACKUP_PATH" ]; then
    dest="backup:$STEWARD_BACKUP_PATH/$sysid/salvage/$name"
    rclone copy "$dir" "$dest" 2>"$run/rclone.err" ||
      fail "cannot save what this instance wrote beyond $source_host's history to $dest: $(tail -n 1 "$run/rclone.err")"
    location="s3://$STEWARD_BACKUP_PATH/$sysid/salvage/$name/"
  fi
  manifest="$(printf '{"phase":"Saved","from":"%s","to":"%s","timeline":%s,"bytes":%s,"location":"%s","savedAt":"%s","message":"WAL %s to %s of timeline %s, which the new primary lacks, kept before the rewind"}' \
    "$from" "$to" "$tli" "$bytes" "$location" "$now_iso" "$from" "$to" "$tli")"
  printf '%s\n' "$manifest" >"$dir/manifest.json"
  if [ -n "$STEWARD_BACKUP_PATH" ]; then
    rclone copyto "$dir/manifest.json" "$dest/manifest.json" 2>"$run/rclone.err" ||
      fail "cannot save the salvage manifest to $dest: $(tail -n 1 "$run/rclone.err")"
    rm -rf "$dir"
  fi
  printf '%s\n' "$manifest" >"$root/latest.json.tmp" && mv "$root/latest.json.tmp" "$root/latest.json"
  log "kept $bytes bytes of WAL ($from to $to, timeline $tli) this instance wrote beyond $source_host's history: $location"
}

rewind() {
  salvage "$1"
  log "rewinding with pg_rewind against $1"
  pg_rewind --target-pgdata="$PGDATA" --source-server="$(conninfo "$1")" \
    --config-file="$conf/postgresql.conf" --progress ||
    fail "pg_rewind against $1 failed: the data directory is kept as it is; the controller re-clones this instance"
}

# carry_out <instruction>: starts PostgreSQL as the instruction says (it is not running).
carry_out() {
  verb="$(verb_of "$1")"
  host="$(host_of "$1")"
  case "$verb" in
    wait) return 0 ;;
    initdb)
      if [ ! -s "$PGDATA/PG_VERSION" ]; then
        rm -rf "$PGDATA"
        lease_held || return 0
        log "initialising a new cluster in $PGDATA"
        initdb --pgdata="$PGDATA" --username=postgres --pwfile="$pwfile" --auth-local=peer \
          --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 --data-checksums ||
          fail "initdb failed (see the log above)"
      fi
      rm -f "$PGDATA/standby.signal"
      clear_conninfo
      lease_held || return 0
      start_postgres primary
      ;;
    restore)
      lease_held || return 0
      [ -s "$PGDATA/PG_VERSION" ] || restore_base
      rm -f "$PGDATA/standby.signal"
      clear_conninfo
      if [ -f "$PGDATA/recovery.signal" ]; then start_recovering; else start_postgres primary; fi
      ;;
    primary)
      [ -s "$PGDATA/PG_VERSION" ] ||
        fail "told to run as primary but $PGDATA holds no cluster: this instance's data is gone, and a cluster is never initialised twice"
      rm -f "$PGDATA/standby.signal"
      clear_conninfo
      lease_held || return 0
      start_postgres primary
      ;;
    standby | rewind | reclone)
      [ -n "$host" ] || fail "instruction $verb names no primary to stream from"
      if [ "$verb" = reclone ] && [ -s "$PGDATA/PG_VERSION" ]; then
        rm -rf "$PGDATA.old"
        mv "$PGDATA" "$PGDATA.old" || fail "cannot move $PGDATA aside"
      fi
      if [ ! -s "$PGDATA/PG_VERSION" ]; then
        clone "$host"
      elif [ "$verb" = rewind ] || [ ! -f "$PGDATA/standby.signal" ]; then
        rewind "$host"
      fi
      touch "$PGDATA/standby.signal"
      set_conninfo "$host"
      start_postgres standby
      ;;
    *) fail "unknown instruction: $1" ;;
  esac
}

# needs_restart <running role> <new verb>
needs_restart() {
  case "$1:$2" in
    primary:primary | primary:initdb | primary:restore) return 1 ;;
    recovering:primary | recovering:restore) return 1 ;;
    primary:*) return 0 ;;
    standby:standby | standby:primary | standby:initdb) return 1 ;;
    *) return 0 ;;
  esac
}

disarm
rm -f "$pid_file"
if [ -n "$lease_url" ]; then
  command -v curl >/dev/null || fail "self-fencing needs curl, which this image lacks"
  log "self-fencing with lease $STEWARD_LEASE in namespace $STEWARD_NAMESPACE"
  watchdog &
  watchdog_pid=$!
fi
trap 'stop_postgres; [ -z "$watchdog_pid" ] || kill "$watchdog_pid" 2>/dev/null; exit 0' TERM INT
log "waiting for an instruction in $instruction_file"
last=
while :; do
  now="$(instruction)"
  if [ "$now" != "$last" ]; then
    if [ -n "$now" ]; then log "instruction: $now"; else log "instruction: none"; fi
  fi
  if [ -n "$pg_pid" ]; then
    if ! alive && [ -f "$fenced_file" ]; then
      # The watchdog stopped it: it stays stopped until this pod holds the Lease again (a blip, no
      # failover) or the controller tells it to follow the new primary.
      wait "$pg_pid" 2>/dev/null
      rm -f "$pid_file"
      log "PostgreSQL stopped by the fence (it was running as $running); waiting for the lease or an instruction"
      pg_pid=
      running=
    elif ! alive; then
      wait "$pg_pid"
      fail "PostgreSQL exited (status $?) while running as $running"
    fi
  fi
  if [ -n "$pg_pid" ]; then
    fence_check
    finish_restore
    if [ "$now" != "$last" ]; then
      if needs_restart "$running" "$(verb_of "$now")"; then
        stop_postgres
      elif [ "$(verb_of "$now")" = primary ]; then
        running=primary
      fi
    fi
  fi
  [ -n "$pg_pid" ] || carry_out "$now"
  last="$now"
  sleep "$poll_seconds" &
  wait $! 2>/dev/null
done
