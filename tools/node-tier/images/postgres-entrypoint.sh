#!/bin/sh
# The postgres images' entrypoint (/usr/local/bin/steward-postgres-entrypoint), run as the image's
# postgres user (or any non-root uid that owns $PGDATA's parent). On first start, when $PGDATA
# holds no cluster, runs initdb (superuser "postgres", UTF-8, $POSTGRES_INITDB_ARGS added) and
# lets every host connect: with POSTGRES_PASSWORD set as that superuser's password and
# scram-sha-256; without it with trust (test clusters only). Then execs postgres with the
# arguments given (the image's Cmd: listen on all addresses, sockets in /run/postgresql).
# Writes only to $PGDATA, /tmp (the password file, removed at once) and the socket directory.
set -eu
: "${PGDATA:?PGDATA must be set}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    method=scram-sha-256
    # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of flags
    initdb --username=postgres --pwfile="$pwfile" --auth-local=trust --auth-host="$method" \
      --encoding=UTF8 ${POSTGRES_INITDB_ARGS:-} || { rm -f "$pwfile"; exit 1; }
    rm -f "$pwfile"
  else
    method=trust
    # shellcheck disable=SC2086
    initdb --username=postgres --auth=trust --encoding=UTF8 ${POSTGRES_INITDB_ARGS:-}
  fi
  printf 'host all all all %s\n' "$method" >>"$PGDATA/pg_hba.conf"
fi
exec postgres "$@"
