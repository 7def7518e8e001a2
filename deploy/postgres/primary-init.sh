#!/bin/sh
# Run once by the official image's entrypoint when it creates the primary's cluster
# (/docker-entrypoint-initdb.d): a role for streaming replication, and the pg_hba.conf line
# that lets it connect for replication from the compose network, with its password.
set -eu

psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  --set replication_password="$REPLICATION_PASSWORD" <<'SQL'
create role replicator with replication login password :'replication_password';
SQL

echo 'host replication replicator all scram-sha-256' >> "$PGDATA/pg_hba.conf"
