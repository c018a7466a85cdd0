#!/bin/sh
# Entry point of the PostgreSQL image that scripts/container-base.sh makes from Debian packages
# for the tests of compose.yaml (no container registry: the official postgres image cannot be
# pulled there). It reads the subset of the official image's variables compose.yaml uses:
# POSTGRES_USER (default postgres), POSTGRES_DB (default the user), POSTGRES_PASSWORD or
# POSTGRES_PASSWORD_FILE. Runs as the user postgres.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
# The socket in the home of postgres: /run is a fresh tmpfs in a container, so the package's
# /var/run/postgresql is not there.
export PGHOST=/var/lib/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then password="$(cat "$POSTGRES_PASSWORD_FILE")"; else password="${POSTGRES_PASSWORD:-}"; fi
  if [ -z "$password" ]; then
    echo "postgres: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$password" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=$PGHOST" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "postgres: initialised $PGDATA (user $user, database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories="$PGHOST"
