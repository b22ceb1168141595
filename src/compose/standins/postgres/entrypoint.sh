#!/bin/bash
# The official postgres image's entrypoint, reduced to what this lab uses: a first start runs initdb
# with POSTGRES_USER as the superuser (password POSTGRES_PASSWORD) and creates POSTGRES_DB, over the
# socket only (a health check on 127.0.0.1 cannot pass meanwhile); then `postgres [flags…]` runs as
# the postgres user, listening on every address, with password logins from anywhere.
set -euo pipefail

as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# `postgres -c …` or bare flags: the server; anything else is run as given.
if [ "${1:-}" = postgres ]; then shift; elif [ $# -gt 0 ] && [ "${1:0:1}" != - ]; then exec "$@"; fi

: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
  echo 'docker-entrypoint.sh: POSTGRES_PASSWORD is not set (the official image refuses to start without it too)' >&2
  exit 1
fi

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 --no-instructions >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  as_postgres pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=/var/run/postgresql" start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    as_postgres psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$POSTGRES_USER" -d postgres -q \
      -c "CREATE DATABASE \"${POSTGRES_DB//\"/\"\"}\""
  fi
  as_postgres pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
fi

exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" \
  -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql "$@"
