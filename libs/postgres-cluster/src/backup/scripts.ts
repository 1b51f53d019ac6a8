/**
 * The shell programs of backups, shipped in the cluster's ConfigMap (the images have dash,
 * coreutils, gzip, rclone and PostgreSQL's client programs; nothing else to rely on). rclone's
 * `backup:` remote is configured from the environment (layout.ts `rcloneEnv`); they write below
 * `backup:$STEWARD_BACKUP_PATH/<system id>/` (layout.ts). A failing step exits non-zero with one
 * line saying why: PostgreSQL logs it and retries (archive), or the Job fails with it as its pod's
 * termination message (backup), which the controller reports.
 */

/**
 * `archive_command` (`/bin/sh archive.sh %p %f`, run by the primary's archiver in PGDATA): the
 * segment gzip'ed into the archive. A segment already there with the same content is success (a
 * retry after a lost acknowledgement); with other content it is refused, never overwritten — the
 * archive keeps what it had and PostgreSQL keeps the segment and retries.
 */
export const ArchiveScript = String.raw`#!/bin/sh
path="$1"
file="$2"
log() { echo "steward-archive: $*" >&2; }
[ -n "$path" ] && [ -n "$file" ] || { log "usage: archive.sh <path> <file>"; exit 1; }
sysid="$(pg_controldata "$PGDATA" 2>/dev/null | sed -n 's/^Database system identifier:[[:space:]]*//p')"
[ -n "$sysid" ] || { log "cannot read the system identifier of $PGDATA"; exit 1; }
dest="backup:$STEWARD_BACKUP_PATH/$sysid/wal/$file.gz"
staging=/data/.steward-archive
mkdir -p "$staging" || { log "cannot create $staging"; exit 1; }
tmp="$staging/$file.gz"
# Listing fails only when the bucket cannot be read (a missing key lists nothing, or exits 3):
# then nothing is uploaded, so that a segment there is never overwritten unseen.
existing="$(rclone lsf "$dest" 2>"$staging/rclone.err")"
status=$?
if [ "$status" != 0 ] && [ "$status" != 3 ]; then
  log "cannot look for $file in the archive (rclone exit $status): $(tail -n 1 "$staging/rclone.err")"
  exit 1
fi
if [ -n "$existing" ]; then
  if rclone cat "$dest" 2>/dev/null | gzip -dc 2>/dev/null | cmp -s - "$path"; then
    log "$file is in the archive already"
    exit 0
  fi
  log "$file is in the archive with other content: refusing to overwrite it"
  exit 1
fi
gzip -c -1 "$path" >"$tmp" || { rm -f "$tmp"; log "cannot compress $file"; exit 1; }
if ! rclone copyto "$tmp" "$dest" 2>"$staging/rclone.err"; then
  rm -f "$tmp"
  log "uploading $file to $dest failed: $(tail -n 1 "$staging/rclone.err")"
  exit 1
fi
rm -f "$tmp"
`;

/**
 * A base backup Job's program: pg_basebackup from the primary (PGHOST, its pod IP;
 * as the replication role, PGUSER, its password from its Secret in PGPASSWORD) into scratch space — tar, gzip, the WAL
 * it needs inside (self-contained), a SHA-256 manifest — then base.tar.gz and backup_manifest
 * uploaded, and backup.json last: a backup without it is incomplete and never listed.
 */
export const BackupScript = String.raw`#!/bin/sh
id="$STEWARD_BACKUP_ID"
work=/scratch/backup
log() { echo "steward-backup: $*" >&2; }
fail() {
  log "$*"
  printf '%s\n' "$*" >/dev/termination-log 2>/dev/null
  exit 1
}
# Milliseconds: a restore to a target time picks a backup by when it was consistent.
now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
last_lines() { grep -v '^[[:space:]]*$' "$1" | tail -n 2 | tr '\n' ' '; }
[ -n "$id" ] || fail "STEWARD_BACKUP_ID is not set"
[ -n "$STEWARD_BACKUP_PATH" ] || fail "STEWARD_BACKUP_PATH is not set"
export PGCONNECT_TIMEOUT=10
rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"
q() { psql -X -A -t -q -d postgres -c "$1" 2>"$work/psql.err"; }
started="$(now)"
sysid="$(q 'select system_identifier from pg_control_system()')" ||
  fail "cannot reach the primary at $PGHOST: $(last_lines "$work/psql.err")"
version="$(q "select current_setting('server_version_num')")" ||
  fail "cannot read the server version: $(last_lines "$work/psql.err")"
[ "$(q 'select pg_is_in_recovery()')" = f ] || fail "$PGHOST is in recovery, not the primary"
log "backing up database system $sysid (server $version) from $PGHOST as $id"
pg_basebackup -d dbname=postgres -D "$work/base" -F tar -z -X fetch -c fast \
  --manifest-checksums=SHA256 -l "steward $id" -v --no-password 2>"$work/basebackup.log"
status=$?
cat "$work/basebackup.log" >&2
[ "$status" = 0 ] || fail "pg_basebackup failed: $(last_lines "$work/basebackup.log")"
completed="$(now)"
point='.*write-ahead log start point: \([0-9A-F]*/[0-9A-F]*\) on timeline \([0-9]*\).*'
start_lsn="$(sed -n "s|$point|\1|p" "$work/basebackup.log")"
timeline="$(sed -n "s|$point|\2|p" "$work/basebackup.log")"
stop_lsn="$(sed -n 's|.*write-ahead log end point: \([0-9A-F]*/[0-9A-F]*\).*|\1|p' "$work/basebackup.log")"
[ -n "$start_lsn" ] && [ -n "$timeline" ] && [ -n "$stop_lsn" ] ||
  fail "pg_basebackup did not report where its WAL starts and ends"
size="$(stat -c %s "$work/base/base.tar.gz")" || fail "pg_basebackup wrote no base.tar.gz"
dest="backup:$STEWARD_BACKUP_PATH/$sysid/base/$id"
upload() {
  rclone copyto "$1" "$2" 2>"$work/rclone.err" ||
    fail "uploading $(basename "$1") to $2 failed: $(last_lines "$work/rclone.err")"
}
for f in base.tar.gz backup_manifest; do upload "$work/base/$f" "$dest/$f"; done
printf '{"id":"%s","startedAt":"%s","completedAt":"%s","sizeBytes":%s,"startLsn":"%s","stopLsn":"%s","timeline":%s,"systemIdentifier":"%s","serverVersion":%s}\n' \
  "$id" "$started" "$completed" "$size" "$start_lsn" "$stop_lsn" "$timeline" "$sysid" "$version" >"$work/backup.json"
upload "$work/backup.json" "$dest/backup.json"
log "backup $id complete: $size bytes, WAL $start_lsn to $stop_lsn on timeline $timeline"
rm -rf "$work"
`;

/**
 * `restore_command` of an instance bootstrapped from a backup (`/bin/sh restore-wal.sh %f %p`):
 * the segment (or history file) from the source's archive (`source:$STEWARD_RESTORE_PATH/wal/`),
 * un-gzip'ed into place. Not in the archive (rclone copies nothing, or exits 3 or 4) is exit 1, which PostgreSQL
 * reads as the end of the archive; any other failure — the bucket unreachable — is exit 255,
 * which stops the recovery (the agent restarts and tries again) instead of ending it early and
 * silently restoring less than asked.
 */
export const RestoreWalScript = String.raw`#!/bin/sh
file="$1"
path="$2"
log() { echo "steward-restore: $*" >&2; }
[ -n "$file" ] && [ -n "$path" ] || { log "usage: restore-wal.sh <file> <path>"; exit 255; }
src="source:$STEWARD_RESTORE_PATH/wal/$file.gz"
staging=/data/.steward-restore
mkdir -p "$staging" || { log "cannot create $staging"; exit 255; }
tmp="$staging/$file.gz"
rclone copyto "$src" "$tmp" 2>"$staging/rclone.err"
status=$?
case "$status" in
  0)
    # rclone copies nothing, successfully, from a key that does not exist.
    [ -f "$tmp" ] || exit 1
    ;;
  3 | 4)
    rm -f "$tmp"
    exit 1
    ;;
  *)
    rm -f "$tmp"
    log "cannot fetch $file from $src (rclone exit $status): $(tail -n 1 "$staging/rclone.err")"
    exit 255
    ;;
esac
if ! gzip -dc "$tmp" >"$path.steward-tmp"; then
  rm -f "$tmp" "$path.steward-tmp"
  log "$file in the archive is not a gzip file"
  exit 255
fi
mv "$path.steward-tmp" "$path" && rm -f "$tmp"
`;

/**
 * A restore rehearsal Job's program (spec.backup.verify): the backup STEWARD_VERIFY_BACKUP of
 * `source:$STEWARD_RESTORE_PATH` fetched into the scratch volume (/data), checked against its
 * manifest with pg_verifybackup, recovered to its consistent point with restore-wal.sh
 * (recovery_target immediate) by a PostgreSQL that listens on no address — only on a socket in
 * the scratch volume — and takes no connection before it is promoted (hot_standby off: a copy
 * needs none of the primary's connection settings to recover), then pg_amcheck over every database (heap and B-tree indexes, amcheck
 * installed in the copy) and each `database|table|atLeast` line of STEWARD_VERIFY_ROW_COUNTS.
 * The outcome, one JSON object, is the termination message (success and failure alike) and the
 * last line of the log.
 */
export const VerifyScript = String.raw`#!/bin/sh
id="$STEWARD_VERIFY_BACKUP"
work=/data/verify
PGDATA="$work/pgdata"
export PGDATA
sock="$work/socket"
checks=
pg_pid=
log() { echo "steward-verify: $*" >&2; }
ms() { date -u +%s%3N; }
started="$(ms)"
json_escape() { printf '%s' "$1" | tr '\n\t' '  ' | sed 's/\\/\\\\/g; s/"/\\"/g'; }
# outcome <Passed|Failed> <message>
outcome() {
  [ -n "$pg_pid" ] && kill -INT "$pg_pid" 2>/dev/null && wait "$pg_pid" 2>/dev/null
  seconds="$(( ($(ms) - started) / 1000 ))"
  list=
  old_ifs="$IFS"
  IFS='
'
  for c in $checks; do list="$list$([ -n "$list" ] && printf ,)\"$(json_escape "$c")\""; done
  IFS="$old_ifs"
  result="$(printf '{"result":"%s","backupId":"%s","durationSeconds":%s,"recoveryPoint":"%s","checks":[%s],"message":"%s"}' \
    "$1" "$id" "$seconds" "$STEWARD_VERIFY_RECOVERY_POINT" "$list" "$(json_escape "$2")")"
  printf '%s\n' "$result" | cut -c1-4000 >/dev/termination-log 2>/dev/null
  printf '%s\n' "$result"
  rm -rf "$work"
  [ "$1" = Passed ]
  exit $?
}
fail() { log "$*"; outcome Failed "$*"; }
[ -n "$id" ] && [ -n "$STEWARD_RESTORE_PATH" ] || fail "STEWARD_VERIFY_BACKUP and STEWARD_RESTORE_PATH must be set"
rm -rf "$work"
mkdir -p "$PGDATA" "$sock" && chmod 700 "$PGDATA" || fail "cannot create $work"
src="source:$STEWARD_RESTORE_PATH/base/$id"
log "fetching backup $id from $src"
rclone cat "$src/base.tar.gz" 2>"$work/rclone.err" | tar -xzf - -C "$PGDATA" 2>"$work/tar.err" ||
  fail "backup $id cannot be fetched and unpacked: $(tail -n 1 "$work/tar.err") $(tail -n 1 "$work/rclone.err")"
rclone copyto "$src/backup_manifest" "$PGDATA/backup_manifest" 2>"$work/rclone.err" ||
  fail "the manifest of backup $id cannot be fetched: $(tail -n 1 "$work/rclone.err")"
pg_verifybackup --no-parse-wal --quiet "$PGDATA" 2>"$work/verify.log" ||
  fail "backup $id does not match its manifest: $(grep -v '^[[:space:]]*$' "$work/verify.log" | tail -n 2 | tr '\n' ' ')"
files="$(grep -c '"Path"' "$PGDATA/backup_manifest")"
checks="pg_verifybackup: $files files match the manifest (SHA-256)"
auto="$PGDATA/postgresql.auto.conf"
if [ -f "$auto" ]; then
  grep -v -e '^[[:space:]]*primary_conninfo[[:space:]]*=' -e '^[[:space:]]*synchronous_standby_names[[:space:]]*=' "$auto" >"$auto.tmp" || true
  mv "$auto.tmp" "$auto"
fi
rm -f "$PGDATA/standby.signal" "$PGDATA/postmaster.pid"
touch "$PGDATA/recovery.signal"
printf 'local all all trust\n' >"$work/hba.conf"
postgres -D "$PGDATA" -c listen_addresses= -c "unix_socket_directories=$sock" -c port=5432 \
  -c "hba_file=$work/hba.conf" -c archive_mode=off -c shared_buffers=32MB \
  -c hot_standby=off -c logging_collector=off \
  -c "restore_command=/bin/sh /etc/steward/config/restore-wal.sh %f %p" \
  -c recovery_target=immediate -c recovery_target_action=promote 2>"$work/postgres.log" &
pg_pid=$!
q() { psql -h "$sock" -U postgres -X -A -t -q -d "$1" -c "$2" 2>"$work/psql.err"; }
waited=0
until [ "$(q postgres 'select pg_is_in_recovery()')" = f ]; do
  if ! kill -0 "$pg_pid" 2>/dev/null; then
    pg_pid=
    fail "PostgreSQL could not recover backup $id: $(grep -E 'FATAL|PANIC|ERROR' "$work/postgres.log" | tail -n 2 | tr '\n' ' ')"
  fi
  waited=$((waited + 1))
  [ "$waited" -lt 1800 ] || fail "backup $id did not reach its consistent point within 30 minutes"
  sleep 1
done
checks="$checks
recovered to the consistent point and promoted"
pg_amcheck -h "$sock" -U postgres --all --install-missing --no-strict-names >"$work/amcheck.log" 2>&1 ||
  fail "pg_amcheck found corruption in backup $id: $(grep -v '^[[:space:]]*$' "$work/amcheck.log" | head -n 3 | tr '\n' ' ')"
databases="$(q postgres 'select count(*) from pg_database where datallowconn')"
checks="$checks
pg_amcheck: $databases databases, every table and B-tree index, no corruption"
old_ifs="$IFS"
IFS='
'
for line in $STEWARD_VERIFY_ROW_COUNTS; do
  IFS="$old_ifs"
  db="$(printf '%s' "$line" | cut -d'|' -f1)"
  table="$(printf '%s' "$line" | cut -d'|' -f2)"
  least="$(printf '%s' "$line" | cut -d'|' -f3)"
  count="$(q "$db" "select count(*) from $table")" ||
    fail "counting $db.$table failed: $(tail -n 1 "$work/psql.err")"
  [ "$count" -ge "$least" ] ||
    fail "$db.$table has $count rows in backup $id, fewer than the $least spec.backup.verify.rowCounts asks for"
  checks="$checks
$db.$table: $count rows (at least $least)"
  IFS='
'
done
IFS="$old_ifs"
log "backup $id restored and checked"
outcome Passed "backup $id restores: it matches its manifest, recovers, and passes every check"
`;

/**
 * A major upgrade's Job program (run in the new version's image: its pg_dump reads the old
 * server, as PostgreSQL advises): every role and its settings (pg_dumpall --globals-only, the
 * superuser's own CREATE ROLE left out: initdb made it) and then each database (pg_dump -Fc piped
 * into pg_restore --exit-on-error; `postgres` into the one initdb made, the others created from
 * their dump) from STEWARD_FROM_HOST, the old primary, which the controller has made read-only,
 * into STEWARD_TO_HOST, the new instance. Then the check: every table of every database has as
 * many rows in the new server as in the old. The outcome, one JSON object (result, databases,
 * tables, rows, durationSeconds, message), is the termination message and the log's last line.
 */
export const UpgradeScript = String.raw`#!/bin/sh
work=/scratch/upgrade
from="$STEWARD_FROM_HOST"
to="$STEWARD_TO_HOST"
log() { echo "steward-upgrade: $*" >&2; }
ms() { date -u +%s%3N; }
started="$(ms)"
databases=0
tables=0
rows=0
json_escape() { printf '%s' "$1" | tr '\n\t' '  ' | sed 's/\\/\\\\/g; s/"/\\"/g'; }
outcome() {
  seconds="$(( ($(ms) - started) / 1000 ))"
  result="$(printf '{"result":"%s","databases":%s,"tables":%s,"rows":%s,"durationSeconds":%s,"message":"%s"}' \
    "$1" "$databases" "$tables" "$rows" "$seconds" "$(json_escape "$2")")"
  printf '%s\n' "$result" | cut -c1-4000 >/dev/termination-log 2>/dev/null
  printf '%s\n' "$result"
  [ "$1" = Passed ]
  exit $?
}
fail() { log "$*"; outcome Failed "$*"; }
last_error() {
  { grep -E 'ERROR|FATAL|error' "$1" || grep -v '^[[:space:]]*$' "$1"; } | tail -n 2 | tr '\n' ' '
}
[ -n "$from" ] && [ -n "$to" ] || fail "STEWARD_FROM_HOST and STEWARD_TO_HOST must be set"
export PGCONNECT_TIMEOUT=10
rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"
q() { psql -X -A -t -q -h "$1" -d "$2" -c "$3" 2>"$work/psql.err"; }
old_version="$(q "$from" postgres "select current_setting('server_version')")" ||
  fail "cannot reach the old primary at $from: $(last_error "$work/psql.err")"
new_version="$(q "$to" postgres "select current_setting('server_version')")" ||
  fail "cannot reach the new instance at $to: $(last_error "$work/psql.err")"
log "from PostgreSQL $old_version at $from to $new_version at $to"
pg_dumpall -h "$from" --globals-only 2>"$work/dump.err" | grep -v '^CREATE ROLE postgres;$' >"$work/globals.sql"
[ -s "$work/globals.sql" ] || fail "pg_dumpall --globals-only failed: $(last_error "$work/dump.err")"
psql -X -q -h "$to" -d postgres -v ON_ERROR_STOP=1 -f "$work/globals.sql" >/dev/null 2>"$work/restore.err" ||
  fail "restoring the roles failed: $(last_error "$work/restore.err")"
list="$(q "$from" postgres "select datname from pg_database where datallowconn and datname <> 'template1' order by datname = 'postgres' desc, datname")" ||
  fail "cannot list the databases: $(last_error "$work/psql.err")"
for db in $list; do
  log "database $db"
  # Piped (no copy on disk); pg_dump's exit status through a file, pg_restore's as the pipe's.
  if [ "$db" = postgres ]; then
    { pg_dump -h "$from" -d "$db" -Fc 2>"$work/dump.err"; echo $? >"$work/dump.rc"; } |
      pg_restore -h "$to" -d postgres --exit-on-error 2>"$work/restore.err"
  else
    { pg_dump -h "$from" -d "$db" -Fc -C 2>"$work/dump.err"; echo $? >"$work/dump.rc"; } |
      pg_restore -h "$to" -d postgres -C --exit-on-error 2>"$work/restore.err"
  fi
  restored=$?
  # pg_restore first: when it stops at an error, pg_dump dies of the closed pipe and says nothing.
  [ "$restored" = 0 ] || fail "restoring database $db into PostgreSQL $new_version failed: $(last_error "$work/restore.err")"
  [ "$(cat "$work/dump.rc")" = 0 ] || fail "dumping database $db failed: $(last_error "$work/dump.err")"
  databases=$((databases + 1))
  names="$(q "$from" "$db" "select format('%I.%I', n.nspname, c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%' order by 1")" ||
    fail "cannot list the tables of $db: $(last_error "$work/psql.err")"
  old_ifs="$IFS"
  IFS='
'
  for t in $names; do
    IFS="$old_ifs"
    a="$(q "$from" "$db" "select count(*) from $t")" || fail "counting $db.$t on the old primary failed: $(last_error "$work/psql.err")"
    b="$(q "$to" "$db" "select count(*) from $t")" || fail "counting $db.$t on the new instance failed: $(last_error "$work/psql.err")"
    [ "$a" = "$b" ] || fail "$db.$t has $a rows in PostgreSQL $old_version and $b in $new_version"
    tables=$((tables + 1))
    rows=$((rows + a))
    IFS='
'
  done
  IFS="$old_ifs"
done
q "$to" postgres 'analyze' >/dev/null || log "analyze failed: $(last_error "$work/psql.err")"
outcome Passed "$databases databases restored into PostgreSQL $new_version; $tables tables, $rows rows, every row count equal"
`;
