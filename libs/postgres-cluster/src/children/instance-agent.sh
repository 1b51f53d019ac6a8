#!/bin/sh
# Steward's PostgreSQL instance agent: libs/postgres-cluster/src/children/instance-script.ts says
# what it does. The pods set none of STEWARD_INSTRUCTION_FILE, STEWARD_RUN_DIR,
# STEWARD_TERMINATION_LOG and STEWARD_POLL_SECONDS: they exist for its tests.
conf=/etc/steward/config
instruction_file="${STEWARD_INSTRUCTION_FILE:-/etc/steward/pod/instruction}"
run="${STEWARD_RUN_DIR:-/tmp/steward}"
termination_log="${STEWARD_TERMINATION_LOG:-/dev/termination-log}"
poll_seconds="${STEWARD_POLL_SECONDS:-1}"
passfile="$run/pgpass"
pg_pid=
running=

log() { echo "steward-instance: $*" >&2; }
fail() {
  log "$*"
  printf '%s\n' "$*" >"$termination_log" 2>/dev/null
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
  running=recovering
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

start_postgres() {
  check_config
  log "starting PostgreSQL as $1"
  postgres -D "$PGDATA" -c config_file="$conf/postgresql.conf" &
  pg_pid=$!
  running="$1"
}

stop_postgres() {
  [ -n "$pg_pid" ] || return 0
  log "stopping PostgreSQL (fast shutdown)"
  kill -INT "$pg_pid" 2>/dev/null
  wait "$pg_pid" 2>/dev/null
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
rewind() {
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
        log "initialising a new cluster in $PGDATA"
        initdb --pgdata="$PGDATA" --username=postgres --pwfile="$pwfile" --auth-local=peer \
          --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 --data-checksums ||
          fail "initdb failed (see the log above)"
      fi
      rm -f "$PGDATA/standby.signal"
      clear_conninfo
      start_postgres primary
      ;;
    restore)
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

trap 'stop_postgres; exit 0' TERM INT
log "waiting for an instruction in $instruction_file"
last=
while :; do
  now="$(instruction)"
  if [ "$now" != "$last" ]; then
    if [ -n "$now" ]; then log "instruction: $now"; else log "instruction: none"; fi
  fi
  if [ -n "$pg_pid" ]; then
    if ! alive; then
      wait "$pg_pid"
      fail "PostgreSQL exited (status $?) while running as $running"
    fi
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
