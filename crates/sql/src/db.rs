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

//!
//! Implementation notes:
//! - SQLite's statement timeout is a `sqlite3_progress_handler` (through `rusqlite::ffi`, since
//!   rusqlite's `hooks` feature is not enabled) that checks a deadline every 1000 VM steps; the
//!   interrupt it causes maps to [`SqlError::Timeout`]. The "one statement only" check prepares
//!   the text with `sqlite3_prepare_v2` and refuses any tail that holds more than whitespace,
//!   comments or semicolons (rusqlite's `prepare` alone silently ignores such a tail). Statements
//!   that would write (`stmt.readonly()` false) or that return no columns (PRAGMA assignments,
//!   ATTACH, BEGIN, ...) are refused before they run.
//! - PostgreSQL lives in `db/postgres.rs`, built with the `postgres` cargo feature (on by
//!   default). Without it [`open`] refuses a PostgreSQL URL with [`SqlError::PostgresNotBuilt`].

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, ffi};
use serde_json::Value;

use super::{ColumnInfo, ColumnKind, DbSchema, Dialect, ExecLimits, ForeignKey, QueryResult, SqlError, SqlUrl, TableInfo, redact_url};

#[cfg(feature = "postgres")]
mod postgres;

/// A live, read-only connection to one database.
pub trait SqlDatabase {
    /// The engine behind the connection.
    fn dialect(&self) -> Dialect;
    /// The database as shown to users (redacted URL).
    fn describe(&self) -> String;
    /// Tables, columns, keys and row counts, with up to `sample_values` distinct values per
    /// low-cardinality text column.
    fn introspect(&mut self, sample_values: usize) -> Result<DbSchema, SqlError>;
    /// The engine's plan for `sql` as text (EXPLAIN), without reading data.
    fn explain(&mut self, sql: &str) -> Result<String, SqlError>;
    /// Run one read-only statement under `limits`: at most `row_cap` rows (more marks the
    /// result truncated), cancelled after `timeout_ms`.
    fn query(&mut self, sql: &str, limits: ExecLimits) -> Result<QueryResult, SqlError>;
}

/// Connect to `url` read-only.
pub fn open(url: &SqlUrl, limits: ExecLimits) -> Result<Box<dyn SqlDatabase>, SqlError> {
    match url.dialect {
        Dialect::Sqlite => Ok(Box::new(SqliteDb::open(url, limits)?)),
        #[cfg(feature = "postgres")]
        Dialect::Postgres => Ok(Box::new(postgres::PostgresDb::open(url, limits)?)),
        #[cfg(not(feature = "postgres"))]
        Dialect::Postgres => Err(SqlError::PostgresNotBuilt { target: redacted(url) }),
    }
}

/// The URL as shown to users: no inline password, no `password=` parameter, and no trace of
/// the password in any other part.
fn redacted(url: &SqlUrl) -> String {
    url.scrub(&redact_url(&url.to_string()))
}

/// Text columns with at most this many distinct values have all of them in the value index.
pub const VALUE_INDEX_MAX: usize = 1000;

/// The query for a column's value index: its distinct values, one more than kept (so that a
/// longer list is told apart); integer columns keep three (a 0/1 flag has two).
pub(crate) fn value_index_sql(qt: &str, qc: &str, integer: bool, postgres: bool) -> String {
    let cast = if postgres { format!("{qc}::text") } else { format!("CAST({qc} AS TEXT)") };
    let limit = if integer { 3 } else { VALUE_INDEX_MAX + 1 };
    format!("SELECT DISTINCT {cast} FROM {qt} WHERE {qc} IS NOT NULL LIMIT {limit}")
}

/// Keep a value index: all values when they are few enough, else the first few (enough to
/// tell what kind of text the column holds).
pub(crate) fn keep_values(col: &mut ColumnInfo, mut values: Vec<String>, integer: bool) {
    let max = if integer { 2 } else { VALUE_INDEX_MAX };
    col.values_complete = values.len() <= max;
    if !col.values_complete {
        values.truncate(if integer { 0 } else { 5 });
    }
    col.values = values;
}

/// Text columns with more distinct values than this get no samples.
pub const MAX_SAMPLED_DISTINCT: usize = 20;

/// `"name"` with embedded double quotes doubled: an identifier both engines accept.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Keep the samples of a `value, count` list sorted most frequent first: `None` when the column
/// has more than [`MAX_SAMPLED_DISTINCT`] distinct values.
fn samples_from(values: Vec<String>, keep: usize) -> Option<(Vec<String>, u64)> {
    if values.len() > MAX_SAMPLED_DISTINCT {
        return None;
    }
    let distinct = values.len() as u64;
    Some((values.into_iter().take(keep).collect(), distinct))
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

// ------------------------------------------------------------------------------------------
// SQLite

/// The deadline the progress handler checks: nanoseconds after `base`, 0 = none.
struct Deadline {
    base: Instant,
    at_ns: AtomicU64,
}

impl Deadline {
    fn arm(&self, timeout_ms: u64) {
        let at = self.base.elapsed() + Duration::from_millis(timeout_ms.max(1));
        self.at_ns.store((at.as_nanos() as u64).max(1), Ordering::SeqCst);
    }
    fn disarm(&self) {
        self.at_ns.store(0, Ordering::SeqCst);
    }
    fn passed(&self) -> bool {
        let at = self.at_ns.load(Ordering::SeqCst);
        at != 0 && self.base.elapsed().as_nanos() as u64 >= at
    }
}

extern "C" fn progress_callback(data: *mut c_void) -> c_int {
    // SAFETY: `data` is the `Deadline` boxed in `SqliteDb`, which unregisters this handler
    // before the box is freed.
    let deadline = unsafe { &*(data as *const Deadline) };
    c_int::from(deadline.passed())
}

/// A SQLite database file opened read-only.
struct SqliteDb {
    // Field order matters: the connection (which holds the progress handler) is dropped
    // before the deadline it points at.
    conn: Connection,
    deadline: Box<Deadline>,
    url: SqlUrl,
    limits: ExecLimits,
}

impl Drop for SqliteDb {
    fn drop(&mut self) {
        // SAFETY: the handle is valid while `conn` lives; a NULL callback unregisters.
        unsafe { ffi::sqlite3_progress_handler(self.conn.handle(), 0, None, std::ptr::null_mut()) };
    }
}

fn sqlite_connect_err(url: &SqlUrl, reason: impl Into<String>) -> SqlError {
    SqlError::Connect { target: url.to_string(), reason: reason.into() }
}

impl SqliteDb {
    pub fn open(url: &SqlUrl, limits: ExecLimits) -> Result<SqliteDb, SqlError> {
        let path = url.target.as_str();
        if !path.starts_with("file:") && path != ":memory:" {
            match std::fs::metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(sqlite_connect_err(url, format!("the file {path} does not exist (a SQLite database is opened read-only and never created)")));
                }
                Err(e) => return Err(sqlite_connect_err(url, e.to_string())),
                Ok(m) if m.is_dir() => return Err(sqlite_connect_err(url, format!("{path} is a directory, not a SQLite database file"))),
                Ok(_) => {}
            }
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| sqlite_connect_err(url, e.to_string()))?;
        conn.busy_timeout(Duration::from_millis(limits.timeout_ms.clamp(50, 5000)))
            .and_then(|_| conn.execute_batch("PRAGMA query_only = ON"))
            .map_err(|e| sqlite_connect_err(url, e.to_string()))?;
        // Reading the schema is the first real read: a file that is not a database fails here.
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))
            .map_err(|e| sqlite_connect_err(url, format!("not a readable SQLite database: {e}")))?;
        let deadline = Box::new(Deadline { base: Instant::now(), at_ns: AtomicU64::new(0) });
        // SAFETY: the handle is valid; the callback's data outlives the registration (see Drop).
        unsafe {
            ffi::sqlite3_progress_handler(conn.handle(), 1000, Some(progress_callback), &*deadline as *const Deadline as *mut c_void);
        }
        Ok(SqliteDb { conn, deadline, url: url.clone(), limits })
    }

    /// Refuse text holding more than one statement (anything but whitespace, comments and
    /// semicolons after the first statement).
    fn check_single(&self, sql: &str) -> Result<(), SqlError> {
        match sqlite_extra_statement(&self.conn, sql) {
            Some(extra) => Err(SqlError::Refused(format!("only one statement may run, but the text goes on after the first one: '{}'", shorten(extra.trim(), 80)))),
            None => Ok(()),
        }
    }

    fn err(&self, e: rusqlite::Error, timeout_ms: u64) -> SqlError {
        sqlite_error(e, timeout_ms)
    }

    /// Run a fixed internal query under the connection's timeout, with rows mapped by `f`.
    fn internal<T>(&self, sql: &str, param: Option<&str>, f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>) -> Result<Vec<T>, SqlError> {
        let timeout = self.limits.timeout_ms;
        self.deadline.arm(timeout);
        let result = (|| {
            let mut stmt = self.conn.prepare(sql)?;
            match param {
                Some(p) => stmt.query_map([p], f)?.collect::<rusqlite::Result<Vec<T>>>(),
                None => stmt.query_map([], f)?.collect::<rusqlite::Result<Vec<T>>>(),
            }
        })();
        self.deadline.disarm();
        result.map_err(|e| self.err(e, timeout))
    }
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}...", s.chars().take(n).collect::<String>()) }
}

/// The text of the first statement after the first one in `sql`, if any; `None` when the rest
/// is only whitespace, comments and semicolons (or the first statement itself does not
/// prepare, which `prepare` then reports).
fn sqlite_extra_statement(conn: &Connection, sql: &str) -> Option<String> {
    if let Some(nul) = sql.find('\0') {
        return Some(sql[nul..].replace('\0', "\\0"));
    }
    let bytes = sql.as_bytes();
    // SAFETY: valid handle; statements prepared here are finalized before returning.
    let db = unsafe { conn.handle() };
    let mut offset = 0usize;
    let mut first = true;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        let mut stmt: *mut ffi::sqlite3_stmt = std::ptr::null_mut();
        let mut tail: *const c_char = std::ptr::null();
        let rc = unsafe { ffi::sqlite3_prepare_v2(db, rest.as_ptr() as *const c_char, rest.len().min(i32::MAX as usize) as c_int, &mut stmt, &mut tail) };
        if !stmt.is_null() {
            unsafe { ffi::sqlite3_finalize(stmt) };
        }
        let consumed = if tail.is_null() { rest.len() } else { (tail as usize).saturating_sub(rest.as_ptr() as usize).min(rest.len()) };
        if first {
            if rc != ffi::SQLITE_OK {
                return None;
            }
            first = false;
        } else if rc != ffi::SQLITE_OK || !stmt.is_null() {
            return Some(String::from_utf8_lossy(rest).into_owned());
        }
        if consumed == 0 {
            break;
        }
        offset += consumed;
    }
    None
}

fn sqlite_error(e: rusqlite::Error, timeout_ms: u64) -> SqlError {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::OperationInterrupted) => SqlError::Timeout { ms: timeout_ms },
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => SqlError::Query { reason: e.to_string(), transient: true },
        _ => match e {
            rusqlite::Error::MultipleStatement => SqlError::Refused("only one statement may run".into()),
            e => SqlError::Query { reason: e.to_string(), transient: false },
        },
    }
}

fn sqlite_value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map(Value::Number).unwrap_or_else(|| Value::String(f.to_string())),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::String(format!("<blob {} bytes>", b.len())),
    }
}

impl SqlDatabase for SqliteDb {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn describe(&self) -> String {
        self.url.to_string()
    }

    fn introspect(&mut self, sample_values: usize) -> Result<DbSchema, SqlError> {
        let names = self.internal(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
            None,
            |r| r.get::<_, String>(0),
        )?;
        let mut tables = Vec::new();
        for name in names {
            // (name, declared type, notnull, pk position)
            let cols = self.internal(
                "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid",
                Some(&name),
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?.unwrap_or_default(), r.get::<_, i64>(2)?, r.get::<_, i64>(3)?)),
            )?;
            let mut pk: Vec<(i64, String)> = cols.iter().filter(|c| c.3 > 0).map(|c| (c.3, c.0.clone())).collect();
            pk.sort();
            let primary_key: Vec<String> = pk.into_iter().map(|(_, n)| n).collect();
            let mut columns: Vec<ColumnInfo> = cols
                .into_iter()
                .map(|(n, t, notnull, pkpos)| ColumnInfo {
                    name: n,
                    data_type: t.to_ascii_lowercase(),
                    nullable: notnull == 0 && pkpos == 0,
                    samples: Vec::new(),
                    distinct: None,
                    values: Vec::new(),
                    values_complete: false,
                })
                .collect();
            // (id, seq, table, from, to)
            let fks = self.internal(
                "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
                Some(&name),
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?, r.get::<_, Option<String>>(4)?)),
            )?;
            let mut foreign_keys: Vec<ForeignKey> = Vec::new();
            let mut last_id = None;
            for (id, ref_table, from, to) in fks {
                if last_id != Some(id) {
                    foreign_keys.push(ForeignKey { columns: Vec::new(), ref_table: ref_table.clone(), ref_columns: Vec::new() });
                    last_id = Some(id);
                }
                let fk = foreign_keys.last_mut().expect("pushed above");
                fk.columns.push(from);
                fk.ref_columns.push(to.unwrap_or_default());
            }
            // `REFERENCES t` without columns means t's primary key.
            for fk in &mut foreign_keys {
                if fk.ref_columns.iter().any(|c| c.is_empty()) {
                    let pk = self.internal("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk", Some(&fk.ref_table), |r| r.get::<_, String>(0))?;
                    if pk.len() == fk.columns.len() {
                        fk.ref_columns = pk;
                    }
                }
            }
            let qt = quote_ident(&name);
            let row_count = match self.internal(&format!("SELECT count(*) FROM {qt}"), None, |r| r.get::<_, i64>(0)) {
                Ok(v) => v.first().map(|n| *n as u64),
                Err(SqlError::Timeout { .. }) => None,
                Err(e) => return Err(e),
            };
            for col in columns.iter_mut().filter(|c| c.kind() == ColumnKind::Text) {
                let qc = quote_ident(&col.name);
                let sql = format!(
                    "SELECT CAST({qc} AS TEXT), count(*) FROM {qt} WHERE {qc} IS NOT NULL GROUP BY {qc} ORDER BY 2 DESC, 1 LIMIT {}",
                    MAX_SAMPLED_DISTINCT + 1
                );
                match self.internal(&sql, None, |r| r.get::<_, String>(0)) {
                    Ok(values) => {
                        if let Some((samples, distinct)) = samples_from(values, sample_values) {
                            col.samples = samples;
                            col.distinct = Some(distinct);
                        }
                    }
                    Err(SqlError::Timeout { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            for col in columns.iter_mut().filter(|c| matches!(c.kind(), ColumnKind::Text | ColumnKind::Other | ColumnKind::Integer | ColumnKind::Boolean | ColumnKind::Date)) {
                let integer = matches!(col.kind(), ColumnKind::Integer | ColumnKind::Boolean);
                match self.internal(&value_index_sql(&qt, &quote_ident(&col.name), integer, false), None, |r| r.get::<_, String>(0)) {
                    Ok(values) => keep_values(col, values, integer),
                    Err(SqlError::Timeout { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            tables.push(TableInfo { name, columns, primary_key, foreign_keys, row_count });
        }
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(DbSchema { dialect: Some(Dialect::Sqlite), tables })
    }

    fn explain(&mut self, sql: &str) -> Result<String, SqlError> {
        self.check_single(sql)?;
        // (id, parent, detail)
        let rows = self.internal(&format!("EXPLAIN QUERY PLAN {sql}"), None, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(3)?)))?;
        let mut depth: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
        let mut lines = Vec::new();
        for (id, parent, detail) in rows {
            let d = if parent == 0 { 0 } else { depth.get(&parent).map_or(0, |d| d + 1) };
            depth.insert(id, d);
            lines.push(format!("{}{}", "  ".repeat(d), detail));
        }
        Ok(lines.join("\n"))
    }

    fn query(&mut self, sql: &str, limits: ExecLimits) -> Result<QueryResult, SqlError> {
        let start = Instant::now();
        self.check_single(sql)?;
        self.conn.execute_batch("PRAGMA query_only = ON").map_err(|e| sqlite_error(e, limits.timeout_ms))?;
        let mut stmt = self.conn.prepare(sql).map_err(|e| sqlite_error(e, limits.timeout_ms))?;
        if !stmt.readonly() {
            return Err(SqlError::Refused("the statement would write to the database; only read-only queries run".into()));
        }
        if stmt.column_count() == 0 {
            return Err(SqlError::Refused("the statement returns no columns; only queries run".into()));
        }
        let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
        let width = columns.len();
        let mut rows_out = Vec::new();
        let mut truncated = false;
        self.deadline.arm(limits.timeout_ms);
        let result = (|| {
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                if rows_out.len() >= limits.row_cap {
                    truncated = true;
                    break;
                }
                let mut values = Vec::with_capacity(width);
                for i in 0..width {
                    values.push(sqlite_value(row.get_ref(i)?));
                }
                rows_out.push(values);
            }
            Ok::<(), rusqlite::Error>(())
        })();
        self.deadline.disarm();
        result.map_err(|e| sqlite_error(e, limits.timeout_ms))?;
        Ok(QueryResult { columns, rows: rows_out, truncated, elapsed_ms: ms(start) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacted_always_scrubs_the_password() {
        for raw in ["postgres://u:s3cr3t-pw@host/db", "postgres://u:s3cr3t%2Dpw@host/db", "postgres://u@host/db?password=s3cr3t-pw"] {
            let url = SqlUrl::parse(raw).unwrap();
            let shown = redacted(&url);
            assert!(!shown.contains("s3cr3t"), "{raw} -> {shown}");
            assert!(shown.starts_with("postgres://u@host/db"), "{shown}");
        }
        let url = SqlUrl::parse("sqlite://audit.db").unwrap();
        assert_eq!(redacted(&url), "sqlite://audit.db");
    }

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn postgres_url_without_the_feature_says_how_to_get_it() {
        let url = SqlUrl::parse("postgres://u:s3cr3t-pw@host/db").expect("the URL still parses");
        let err = open(&url, ExecLimits::default()).err().expect("no PostgreSQL in this build");
        assert!(matches!(err, SqlError::PostgresNotBuilt { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("--features postgres") && msg.contains("postgres://u@host/db") && !msg.contains("s3cr3t"), "{msg}");
    }

    #[test]
    fn quotes_identifiers() {
        assert_eq!(quote_ident("findings"), "\"findings\"");
        assert_eq!(quote_ident("we\"ird"), "\"we\"\"ird\"");
    }

    #[test]
    fn sqlite_tail_check_allows_comments_but_not_statements() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        assert_eq!(sqlite_extra_statement(&conn, "SELECT 1"), None);
        assert_eq!(sqlite_extra_statement(&conn, "SELECT 1;"), None);
        assert_eq!(sqlite_extra_statement(&conn, "SELECT 1; -- done\n /* c */ ;;  "), None);
        assert_eq!(sqlite_extra_statement(&conn, "SELECT x FROM t"), None);
        assert!(sqlite_extra_statement(&conn, "SELECT 1; DELETE FROM t").unwrap().contains("DELETE"));
        assert!(sqlite_extra_statement(&conn, "SELECT 1; garbage here").is_some());
        assert!(sqlite_extra_statement(&conn, "SELECT 1\0; DELETE FROM t").is_some());
        // A first statement that does not prepare is left to `prepare` to report.
        assert_eq!(sqlite_extra_statement(&conn, "SELEC 1; DELETE FROM t"), None);
    }

    #[test]
    fn samples_only_for_low_cardinality() {
        let few: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(samples_from(few, 2), Some((vec!["a".to_string(), "b".to_string()], 3)));
        let many: Vec<String> = (0..21).map(|i| i.to_string()).collect();
        assert_eq!(samples_from(many, 5), None);
    }
}
