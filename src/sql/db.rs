//! Database connections behind one trait: SQLite (rusqlite, opened read-only) and PostgreSQL
//! (tokio-postgres, read-only transactions, extended query protocol only).
//!
//! CONTRACT (implemented by the DB helper):
//! - `open(url, limits)` connects. SQLite: `SQLITE_OPEN_READ_ONLY | SQLITE_OPEN_URI` flags
//!   (file must exist: the error says so), `PRAGMA query_only = ON`, a busy timeout, and a
//!   progress handler that interrupts a statement after `limits.timeout_ms`. Postgres: connect
//!   with the URL's target + password (never in any error text: pass through `url.scrub`),
//!   connect timeout = timeout_ms, `application_name=qa`.
//! - `introspect(sample_values)`: tables (user tables only: not sqlite_* / pg_catalog /
//!   information_schema), columns with declared types, nullability, primary keys, foreign keys,
//!   row counts, and for text columns with <= 20 distinct values up to `sample_values` distinct
//!   samples (most frequent first). Sorted by table name; columns in declaration order.
//! - `explain(sql)`: `EXPLAIN QUERY PLAN` (SQLite) / `EXPLAIN` (Postgres) of an already
//!   validated statement; the plan text, one line per row.
//! - `query(sql, limits)`: runs exactly one already-validated statement and returns at most
//!   `row_cap` rows (stop reading after row_cap; `truncated` when more existed). Postgres:
//!   `BEGIN READ ONLY` / `SET LOCAL statement_timeout` / the statement through `Client::query`
//!   (prepared = extended protocol: one statement only) / `ROLLBACK`; never `batch_execute` or
//!   `simple_query` on validated text. SQLite: `prepare` must consume the whole text (a tail
//!   after the first statement is an error), and `stmt.readonly()` must be true.
//! - Errors: timeouts map to `SqlError::Timeout`; connection drops / serialization failures /
//!   deadlocks to `SqlError::Query { transient: true }`; everything else transient: false.
//! - Values: integers → JSON numbers, floats/numeric → JSON numbers when finite (numeric via
//!   its text form parsed as f64), text → strings, dates/timestamps → ISO strings,
//!   booleans → bools, NULL → null, anything else → its text form.

use super::{DbSchema, Dialect, ExecLimits, QueryResult, SqlError, SqlUrl};

/// A live, read-only connection to one database.
pub trait SqlDatabase {
    fn dialect(&self) -> Dialect;
    /// The database as shown to users (redacted URL).
    fn describe(&self) -> String;
    fn introspect(&mut self, sample_values: usize) -> Result<DbSchema, SqlError>;
    fn explain(&mut self, sql: &str) -> Result<String, SqlError>;
    fn query(&mut self, sql: &str, limits: ExecLimits) -> Result<QueryResult, SqlError>;
}

/// Connect to `url` read-only.
pub fn open(url: &SqlUrl, limits: ExecLimits) -> Result<Box<dyn SqlDatabase>, SqlError> {
    let _ = (url, limits);
    Err(SqlError::Other("not implemented yet".into()))
}
