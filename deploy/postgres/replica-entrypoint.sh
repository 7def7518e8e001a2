#!/bin/sh
# The streaming replica's entrypoint: on its first start (an empty data directory), a base
# backup of the primary with `pg_basebackup -R`, which also writes the standby's connection
# to the primary (primary_conninfo) and standby.signal; then the official image's own
# entrypoint, which finds a cluster there and starts it as a hot standby.
set -eu

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  chown postgres:postgres "$PGDATA"
  chmod 0700 "$PGDATA"
  # The primary is healthy before this starts (depends_on), but may still be finishing its
  # first start: retry until it takes the backup.
  until su-exec postgres pg_basebackup --host="$PRIMARY_HOST" --username=replicator \
    --pgdata="$PGDATA" --write-recovery-conf --wal-method=stream --checkpoint=fast; do
    echo 'waiting for the primary to take a base backup' >&2
    rm -rf "${PGDATA:?}"/*
    sleep 2
  done
fi

exec docker-entrypoint.sh "$@"
