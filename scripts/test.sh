#!/usr/bin/env bash
# The whole test suite, from a fresh clone: fetch the models the tests run, start a throwaway
# PostgreSQL cluster loaded with the SQL sample database (installed from Debian packages when
# missing; stopped on exit), then unit, integration and CLI tests (real model, real HNSW index,
# real embedded graph database, real SQLite and PostgreSQL).
#
# With QA_TEST_PG_URL (and QA_TEST_PG_PASSWORD) already set, that server is used instead and no
# cluster is started.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup-models.sh
if [ -z "${QA_TEST_PG_URL:-}" ]; then
  trap 'scripts/pg-test-cluster.sh stop || echo "test.sh: could not stop the PostgreSQL test cluster" >&2' EXIT
  if ! pg_env="$(scripts/pg-test-cluster.sh start)"; then
    echo "test.sh: the PostgreSQL test cluster could not start (see above); the SQL tests need it" >&2
    exit 1
  fi
  eval "$pg_env"
  export QA_TEST_PG_URL QA_TEST_PG_PASSWORD
  before="$(scripts/pg-test-cluster.sh checksum)"
fi
# Compile the tests first (reusing the release build of scripts/demo.sh), then lint in the
# background while they run: clippy works in its own target folder (its own lock), so its
# type-checking of the workspace overlaps the tests' waits instead of following them. Lints are
# checked only on a whole-suite run: extra arguments mean the caller is running a subset.
set +e
cargo test --release --locked --workspace --no-run "$@"
rc=$?
clippy_pid=""
if [ "$rc" -eq 0 ] && [ "$#" -eq 0 ]; then
  if cargo clippy --version >/dev/null 2>&1; then
    clippy_dir="${CARGO_TARGET_DIR:-target}/clippy"
    mkdir -p "$clippy_dir"
    CARGO_TARGET_DIR="$clippy_dir" \
      cargo clippy --release --locked --workspace --all-targets --quiet -- -D warnings > "$clippy_dir/clippy.log" 2>&1 &
    clippy_pid=$!
  else
    echo "test.sh: cargo clippy is not installed; lints not checked (rustup component add clippy)" >&2
  fi
fi
if [ "$rc" -eq 0 ]; then
  cargo test --release --locked --workspace "$@"
  rc=$?
fi
if [ -n "$clippy_pid" ]; then
  if wait "$clippy_pid"; then
    echo "test.sh: clippy clean (warnings denied)"
  else
    cat "$clippy_dir/clippy.log" >&2
    echo "test.sh: clippy found problems (above)" >&2
    [ "$rc" -eq 0 ] && rc=1
  fi
fi
set -e
# The whole suite, hostile statements included, must leave the PostgreSQL data as it found it.
if [ -n "${before:-}" ]; then
  after="$(scripts/pg-test-cluster.sh checksum)"
  if [ "$before" != "$after" ]; then
    echo "test.sh: the PostgreSQL test database changed during the test run ($before -> $after)" >&2
    exit 1
  fi
  echo "test.sh: PostgreSQL test data unchanged after the suite (md5 $after)"
fi
exit "$rc"
