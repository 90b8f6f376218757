//! qa-sql's own tests, in one binary: the validator against the hostile and benign corpora and
//! property tests, the agent's invariants (nothing unvalidated runs), and the read-only
//! SQLite/PostgreSQL connections. The CLI's SQL tests stay in the root package's `tests/it`.
//!
//! The PostgreSQL halves (cargo feature `postgres`) use the server of `scripts/test.sh`
//! (`QA_TEST_PG_URL`, `QA_TEST_PG_PASSWORD`).

mod common;

mod sql_db;
mod sql_invariants;
mod sql_validator;
