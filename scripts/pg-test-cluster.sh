#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test run, loaded with the SQL sample database.
#
#   scripts/pg-test-cluster.sh start    # prints `export QA_TEST_PG_URL=...` / `export QA_TEST_PG_PASSWORD=...`
#   scripts/pg-test-cluster.sh status   # exit 0 when running (prints the cluster's folder)
#   scripts/pg-test-cluster.sh stop     # stops it and deletes its folder
#
# `start` finds initdb/pg_ctl/psql (PATH, then /usr/lib/postgresql/*/bin) and installs the
# Debian `postgresql` package when they are missing. The cluster lives in a fresh temp folder
# (data, unix socket, log, and an `env` file with the export lines), listens on 127.0.0.1 only,
# on a free port, with a superuser `qa_admin` whose password is random, and holds the database
# `qa_audit` loaded from samples/sql/audit.sql. Its folder is remembered in
# target/pg-test-cluster.dir (or given by QA_TEST_PG_DIR). Running as root, the server runs as
# the `postgres` system user (created when missing). `start` on a running cluster prints its
# env again; `stop` without one does nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
state="$here/target/pg-test-cluster.dir"
sql="$here/samples/sql/audit.sql"
me="pg-test-cluster"

die() { echo "$me: $*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# Find a PostgreSQL server program: PATH first, then the newest /usr/lib/postgresql/*/bin.
find_bin() {
  local name="$1" dir
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  while IFS= read -r dir; do
    if [ -x "$dir/$name" ]; then echo "$dir/$name"; return 0; fi
  done < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r)
  return 1
}

install_postgres() {
  local sudo=()
  if ! is_root; then
    command -v sudo >/dev/null || die "PostgreSQL is not installed and sudo is not available to install it (apt-get install postgresql)"
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null || die "PostgreSQL (initdb, pg_ctl) is not installed and apt-get is not available to install it"
  echo "$me: installing PostgreSQL (apt-get install postgresql)..." >&2
  local log
  log="$(mktemp)"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >"$log" 2>&1; then
    if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update &&
           "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql; } >"$log" 2>&1; then
      tail -n 20 "$log" >&2
      rm -f "$log"
      die "could not install PostgreSQL with apt-get"
    fi
  fi
  rm -f "$log"
}

# Resolve INITDB, PG_CTL, PSQL (installing PostgreSQL when needed); the client comes from the
# server's folder when it is there, so versions match.
resolve_bins() {
  if ! INITDB="$(find_bin initdb)" || ! PG_CTL="$(find_bin pg_ctl)"; then
    install_postgres
    INITDB="$(find_bin initdb)" || die "initdb not found after installing PostgreSQL"
    PG_CTL="$(find_bin pg_ctl)" || die "pg_ctl not found after installing PostgreSQL"
  fi
  local bindir
  bindir="$(dirname "$(readlink -f "$INITDB")")"
  if [ -x "$bindir/psql" ]; then PSQL="$bindir/psql"
  elif command -v psql >/dev/null 2>&1; then PSQL="$(command -v psql)"
  else
    install_postgres
    PSQL="$(find_bin psql)" || die "psql not found after installing PostgreSQL"
  fi
  if [ -x "$bindir/pg_ctl" ]; then PG_CTL="$bindir/pg_ctl"; fi
}

# Run a server program as the cluster's owner: `postgres` when we are root.
as_owner() {
  if is_root; then
    if command -v runuser >/dev/null 2>&1; then
      runuser -u postgres -- "$@"
    else
      su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
    fi
  else
    "$@"
  fi
}

ensure_postgres_user() {
  is_root || return 0
  id postgres >/dev/null 2>&1 && return 0
  if command -v useradd >/dev/null 2>&1; then
    useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home --shell /bin/sh postgres
  else
    adduser --system --group --home /var/lib/postgresql --no-create-home --shell /bin/sh postgres >/dev/null
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

cluster_dir() {
  if [ -n "${QA_TEST_PG_DIR:-}" ]; then echo "$QA_TEST_PG_DIR"; return 0; fi
  [ -f "$state" ] && head -n 1 "$state"
}

running() { # running DIR -> 0 when a server runs from DIR/data
  local dir="$1" pg_ctl
  [ -n "$dir" ] && [ -f "$dir/data/PG_VERSION" ] && [ -f "$dir/env" ] || return 1
  pg_ctl="$(find_bin pg_ctl)" || return 1
  as_owner "$pg_ctl" status -D "$dir/data" >/dev/null 2>&1
}

cmd_status() {
  local dir
  dir="$(cluster_dir || true)"
  if running "$dir"; then echo "$dir"; return 0; fi
  echo "$me: not running" >&2
  return 1
}

cmd_stop() {
  local dir
  dir="$(cluster_dir || true)"
  [ -n "$dir" ] || return 0
  local pg_ctl
  if [ -f "$dir/data/PG_VERSION" ] && pg_ctl="$(find_bin pg_ctl)"; then
    if as_owner "$pg_ctl" status -D "$dir/data" >/dev/null 2>&1; then
      as_owner "$pg_ctl" stop -D "$dir/data" -m fast -w -t 60 >/dev/null || die "could not stop the cluster in $dir (see $dir/server.log)"
    fi
  fi
  case "$dir" in
    */qa-pg-test.*) rm -rf "$dir" ;;
    *) [ ! -e "$dir" ] || echo "$me: not deleting $dir (not a folder this script made)" >&2 ;;
  esac
  if [ -f "$state" ] && [ "$(head -n 1 "$state")" = "$dir" ]; then rm -f "$state"; fi
}

cleanup_failed_start() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -n "${NEW_DIR:-}" ]; then QA_TEST_PG_DIR="$NEW_DIR" cmd_stop || true; fi
}

cmd_start() {
  local dir
  dir="$(cluster_dir || true)"
  if running "$dir"; then grep '^export ' "$dir/env"; return 0; fi
  if [ -n "$dir" ]; then QA_TEST_PG_DIR="$dir" cmd_stop; fi   # stale state from an earlier run
  [ -f "$sql" ] || die "$sql is missing (run scripts/gen-sample-sql.py)"
  command -v python3 >/dev/null || die "python3 is required (to pick a free port)"
  resolve_bins
  ensure_postgres_user

  # Under /tmp (not $TMPDIR) so that the postgres user can reach it when we are root.
  local base=/tmp
  is_root || base="${TMPDIR:-/tmp}"
  dir="$(mktemp -d "$base/qa-pg-test.XXXXXX")"
  NEW_DIR="$dir"
  chmod 700 "$dir"
  if is_root; then chown postgres: "$dir"; fi
  mkdir -p "$(dirname "$state")"
  echo "$dir" >"$state"
  # Whatever fails from here on leaves nothing behind.
  trap cleanup_failed_start EXIT

  local password
  password="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "$password" >"$dir/pwfile"
  if is_root; then chown postgres: "$dir/pwfile"; fi
  chmod 600 "$dir/pwfile"
  if ! as_owner "$INITDB" -D "$dir/data" -U qa_admin --pwfile="$dir/pwfile" -E UTF8 --no-locale \
        --auth-local=trust --auth-host=scram-sha-256 --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    die "initdb failed"
  fi
  rm -f "$dir/pwfile"

  local port tries=0
  while :; do
    port="$(free_port)"
    cat >>"$dir/data/postgresql.conf" <<CONF

# qa test cluster
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 60
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
    if as_owner "$PG_CTL" start -D "$dir/data" -l "$dir/server.log" -w -t 60 >/dev/null 2>&1; then break; fi
    tries=$((tries + 1))
    if [ "$tries" -ge 3 ]; then
      tail -n 20 "$dir/server.log" >&2 || true
      die "the server did not start (log: $dir/server.log)"
    fi
  done

  local psql=("$PSQL" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U qa_admin)
  "${psql[@]}" -d postgres -c 'CREATE DATABASE qa_audit' >/dev/null || die "could not create the database qa_audit"
  "${psql[@]}" -d qa_audit --single-transaction -f "$sql" >/dev/null || die "could not load $sql"
  "${psql[@]}" -d qa_audit -c 'ANALYZE' >/dev/null || die "could not analyze qa_audit"

  cat >"$dir/env" <<ENV
export QA_TEST_PG_URL=postgres://qa_admin@127.0.0.1:$port/qa_audit
export QA_TEST_PG_PASSWORD=$password
export QA_TEST_PG_DIR=$dir
ENV
  chmod 600 "$dir/env"
  trap - EXIT
  grep '^export ' "$dir/env"
}

# checksum: one md5 over every row of every table of qa_audit, plus the table list, so the test
# run can prove that nothing it did changed the data (scripts/test.sh compares before/after).
cmd_checksum() {
  local dir port
  dir="$(cluster_dir || true)"
  running "$dir" || die "not running"
  resolve_bins
  port="$(sed -n 's/^export QA_TEST_PG_URL=.*:\([0-9]*\)\/.*/\1/p' "$dir/env")"
  "$PSQL" -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U qa_admin -d qa_audit -c "
    SELECT md5(string_agg(x, '|' ORDER BY x)) FROM (
      SELECT 'departments:' || t::text AS x FROM departments t
      UNION ALL SELECT 'auditors:' || t::text FROM auditors t
      UNION ALL SELECT 'audits:' || t::text FROM audits t
      UNION ALL SELECT 'findings:' || t::text FROM findings t
      UNION ALL SELECT 'tables:' || string_agg(schemaname || '.' || tablename, ',' ORDER BY tablename)
        FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
    ) rows"
}

case "${1:-}" in
  start) cmd_start ;;
  checksum) cmd_checksum ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  -h|--help) sed -n '2,16p' "$0" ;;
  *) echo "usage: $0 start|stop|status|checksum" >&2; exit 2 ;;
esac
