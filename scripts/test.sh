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
# Lints run inside the test build instead of in a second one: .cargo/config.toml makes
# scripts/rustc-lint-tests.sh cargo's wrapper for the workspace's crates, which compiles their
# test targets with clippy-driver and warnings denied, while the libraries, the binary and every
# dependency reuse the release build of scripts/demo.sh. A separate `cargo clippy` would
# type-check every dependency again and rerun their build scripts (the SQLite C build among them):
# about 7 CPU-minutes on the 2-core machine.
set +e
linted=""
if clippy-driver --version >/dev/null 2>&1; then
  linted=1
else
  echo "test.sh: clippy is not installed; lints not checked (rustup component add clippy)" >&2
fi
cargo test --release --locked --workspace --no-run "$@"
rc=$?
if [ "$rc" -eq 0 ] && [ -n "$linted" ]; then
  echo "test.sh: clippy clean (warnings denied)"
elif [ -n "$linted" ]; then
  echo "test.sh: the build or clippy failed (above)" >&2
fi
if [ "$rc" -eq 0 ]; then
  cargo test --release --locked --workspace "$@"
  rc=$?
fi
# An installed qa from an empty folder, with a temporary HOME (reuses the release build).
if [ "$rc" -eq 0 ] && [ "$#" -eq 0 ]; then
  scripts/install-check.sh
  rc=$?
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
