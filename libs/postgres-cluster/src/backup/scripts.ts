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
 * the superuser's password from its Secret in PGPASSWORD) into scratch space — tar, gzip, the WAL
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
