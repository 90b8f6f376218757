//! `qa_sql::db` against real engines: SQLite files built from samples/sql/audit.sql, and the
//! throwaway PostgreSQL cluster `scripts/test.sh` starts (`QA_TEST_PG_URL`; the Postgres half of
//! each test is skipped, with a note, when it is unset). Built without the `postgres` feature, the
//! Postgres tests are not compiled and one test checks the refusal instead.
//!
//! The safety tests call `db.query` directly, bypassing the validator, to prove the
//! connection-level defences on their own: read-only opening / READ ONLY transactions, the
//! single-statement rule, and statement timeouts.

use crate::common;

use std::time::{Duration, Instant};

use common::sql_fixture::{SAMPLE_TABLES, sqlite_checksum, sqlite_sample};
#[cfg(feature = "postgres")]
use common::sql_fixture::{percent_encode, pg_checksum, pg_sample, pg_sql_url};
use qa_sql::db::{self, SqlDatabase};
use qa_sql::{DbSchema, Dialect, ExecLimits, SqlError, SqlUrl};
use serde_json::{Value, json};

fn limits(row_cap: usize, timeout_ms: u64) -> ExecLimits {
    ExecLimits { row_cap, timeout_ms }
}

fn open_sqlite(dir: &std::path::Path) -> (std::path::PathBuf, Box<dyn SqlDatabase>) {
    let path = sqlite_sample(dir);
    let url = SqlUrl::parse(&format!("sqlite://{}", path.display())).unwrap();
    let db = db::open(&url, ExecLimits::default()).expect("open the SQLite sample");
    (path, db)
}

#[cfg(feature = "postgres")]
fn open_pg() -> Option<(String, String, Box<dyn SqlDatabase>)> {
    let (url, password) = pg_sample()?;
    let db = db::open(&pg_sql_url(&url, &password), ExecLimits::default()).expect("open the PostgreSQL sample");
    Some((url, password, db))
}

/// Both engines: SQLite always, PostgreSQL when the test cluster is there.
fn engines(dir: &std::path::Path) -> Vec<Box<dyn SqlDatabase>> {
    #[cfg_attr(not(feature = "postgres"), allow(unused_mut))] // nothing more is pushed without it
    let mut v = vec![open_sqlite(dir).1];
    #[cfg(feature = "postgres")]
    if let Some((_, _, pg)) = open_pg() {
        v.push(pg);
    }
    v
}

fn check_schema(schema: &DbSchema, dialect: Dialect) {
    let names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, SAMPLE_TABLES, "{dialect:?}");
    assert_eq!(schema.dialect, Some(dialect));
    for t in &schema.tables {
        assert_eq!(t.primary_key, vec!["id".to_string()], "{dialect:?} {}", t.name);
    }
    let counts: Vec<Option<u64>> = schema.tables.iter().map(|t| t.row_count).collect();
    assert_eq!(counts, vec![Some(40), Some(400), Some(6), Some(3000)], "{dialect:?}");

    let findings = schema.table("findings").unwrap();
    let cols: Vec<&str> = findings.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        cols,
        ["id", "audit_id", "category", "severity", "status", "reported_on", "due_on", "closed_on", "estimated_cost", "summary"],
        "{dialect:?}: declaration order"
    );
    assert_eq!(findings.column("estimated_cost").unwrap().data_type, "numeric(10,2)");
    assert_eq!(findings.column("reported_on").unwrap().data_type, "date");
    assert!(findings.column("closed_on").unwrap().nullable);
    assert!(!findings.column("severity").unwrap().nullable);
    assert!(!findings.column("id").unwrap().nullable);
    assert_eq!(findings.foreign_keys.len(), 1);
    assert_eq!(findings.foreign_keys[0].columns, ["audit_id"]);
    assert_eq!(findings.foreign_keys[0].ref_table, "audits");
    assert_eq!(findings.foreign_keys[0].ref_columns, ["id"]);

    let mut audit_fks: Vec<(String, String)> =
        schema.table("audits").unwrap().foreign_keys.iter().map(|f| (f.columns.join(","), format!("{}.{}", f.ref_table, f.ref_columns.join(",")))).collect();
    audit_fks.sort();
    assert_eq!(
        audit_fks,
        [("department_id".to_string(), "departments.id".to_string()), ("lead_auditor_id".to_string(), "auditors.id".to_string())],
        "{dialect:?}"
    );
    assert_eq!(schema.table("auditors").unwrap().foreign_keys[0].ref_table, "departments");
    assert!(schema.table("departments").unwrap().foreign_keys.is_empty());

    // Samples: low-cardinality text columns only, most frequent first, capped.
    let severity = findings.column("severity").unwrap();
    assert_eq!(severity.samples, ["Low", "Medium", "High"], "{dialect:?}: 3 of 4, by frequency");
    assert_eq!(severity.distinct, Some(4));
    let status = findings.column("status").unwrap();
    assert_eq!(status.samples, ["Closed", "Open", "Risk Accepted"], "{dialect:?}");
    assert_eq!(status.distinct, Some(3));
    assert_eq!(findings.column("category").unwrap().distinct, Some(7));
    let summary = findings.column("summary").unwrap();
    assert!(summary.samples.is_empty() && summary.distinct.is_none(), "{dialect:?}: summary has many values: {summary:?}");
    assert!(findings.column("reported_on").unwrap().samples.is_empty(), "dates are not sampled");
    assert!(findings.column("estimated_cost").unwrap().samples.is_empty(), "numbers are not sampled");
    let audits = schema.table("audits").unwrap();
    assert_eq!(audits.column("status").unwrap().distinct, Some(3));
    assert!(audits.column("title").unwrap().samples.is_empty());
    assert_eq!(schema.table("departments").unwrap().column("region").unwrap().distinct, Some(4));
}

#[test]
fn introspection_finds_tables_keys_and_samples() {
    let dir = tempfile::tempdir().unwrap();
    for mut db in engines(dir.path()) {
        let schema = db.introspect(3).unwrap();
        check_schema(&schema, db.dialect());
    }
}

#[test]
fn query_returns_typed_values() {
    let dir = tempfile::tempdir().unwrap();
    for mut db in engines(dir.path()) {
        let d = db.dialect();
        let r = db
            .query(
                "SELECT id, audit_id, severity, reported_on, closed_on, estimated_cost FROM findings \
                 WHERE status = 'Open' ORDER BY id LIMIT 3",
                limits(10, 5000),
            )
            .unwrap();
        assert_eq!(r.columns, ["id", "audit_id", "severity", "reported_on", "closed_on", "estimated_cost"], "{d:?}");
        assert_eq!(r.rows.len(), 3);
        assert!(!r.truncated);
        for row in &r.rows {
            assert!(row[0].is_i64() && row[1].is_i64(), "{d:?}: integers are numbers: {row:?}");
            assert!(row[2].is_string());
            let date = row[3].as_str().unwrap_or_else(|| panic!("{d:?}: dates are strings: {row:?}"));
            assert!(date.len() == 10 && date.starts_with("202") && date.as_bytes()[4] == b'-', "{d:?}: {date}");
            assert_eq!(row[4], Value::Null, "{d:?}: open findings have no closed_on");
            let cost = row[5].as_f64().unwrap_or_else(|| panic!("{d:?}: NUMERIC is a number: {row:?}"));
            assert!((500.0..=250000.0).contains(&cost));
        }

        // The same rows in both engines: a known aggregate.
        let r = db.query("SELECT severity, COUNT(*) AS n, SUM(estimated_cost) AS total FROM findings GROUP BY severity ORDER BY n DESC", limits(10, 5000)).unwrap();
        let sev: Vec<(&str, i64)> = r.rows.iter().map(|row| (row[0].as_str().unwrap(), row[1].as_i64().unwrap())).collect();
        assert_eq!(sev, [("Low", 1369), ("Medium", 1059), ("High", 427), ("Critical", 145)], "{d:?}");
        assert!(r.rows.iter().all(|row| row[2].as_f64().is_some_and(|t| t > 0.0)), "{d:?}: SUM(numeric) is a number: {:?}", r.rows);

        let r = db.query("SELECT 1 = 1 AS yes, NULL AS empty, 2.5 AS half, 'x' AS s", limits(10, 5000)).unwrap();
        let row = &r.rows[0];
        match d {
            Dialect::Postgres => assert_eq!(row[0], json!(true)),
            Dialect::Sqlite => assert_eq!(row[0], json!(1), "SQLite has no booleans"),
        }
        assert_eq!(row[1], Value::Null);
        assert_eq!(row[2], json!(2.5));
        assert_eq!(row[3], json!("x"));
    }
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_specific_types_decode() {
    let Some((_, _, mut db)) = open_pg() else { return };
    let r = db
        .query(
            "SELECT DATE '2024-02-29' AS d, TIMESTAMP '2024-02-29 13:45:00' AS ts, \
             TIMESTAMPTZ '2024-02-29 13:45:00+00' AS tstz, '{\"a\": [1, 2]}'::jsonb AS j, \
             12345678901::bigint AS big, 0.1::float8 AS f, 'bp'::char(4) AS bp, \
             ARRAY[1, 2, NULL] AS arr, interval '1 day' AS iv, 12.50::numeric(10,2) AS n, \
             (-0.0042)::numeric AS small, 'NaN'::numeric AS nan",
            limits(10, 5000),
        )
        .unwrap();
    let row = &r.rows[0];
    assert_eq!(row[0], json!("2024-02-29"));
    assert_eq!(row[1], json!("2024-02-29T13:45:00"));
    assert_eq!(row[2], json!("2024-02-29T13:45:00Z"));
    assert_eq!(row[3], json!({"a": [1, 2]}));
    assert_eq!(row[4], json!(12345678901i64));
    assert_eq!(row[5], json!(0.1));
    assert_eq!(row[6], json!("bp  "));
    assert_eq!(row[7], json!([1, 2, null]));
    assert_eq!(row[8], json!("<interval>"));
    assert_eq!(row[9], json!(12.5));
    assert_eq!(row[10], json!(-0.0042));
    assert_eq!(row[11], json!("NaN"));
}

#[test]
fn row_cap_truncates() {
    let dir = tempfile::tempdir().unwrap();
    for mut db in engines(dir.path()) {
        let d = db.dialect();
        let r = db.query("SELECT id FROM findings ORDER BY id", limits(25, 5000)).unwrap();
        assert_eq!(r.rows.len(), 25, "{d:?}");
        assert!(r.truncated, "{d:?}");
        assert_eq!(r.rows[24][0], json!(25));
        let r = db.query("SELECT id FROM departments ORDER BY id", limits(6, 5000)).unwrap();
        assert_eq!(r.rows.len(), 6, "{d:?}");
        assert!(!r.truncated, "{d:?}: exactly row_cap rows is not truncated");
        let r = db.query("SELECT id FROM departments WHERE id > 100", limits(6, 5000)).unwrap();
        assert!(r.rows.is_empty() && !r.truncated && r.columns == ["id"], "{d:?}: {r:?}");
    }
}

#[test]
fn sqlite_long_query_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut db) = open_sqlite(dir.path());
    let start = Instant::now();
    let err = db
        .query("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000) SELECT count(*) FROM c", limits(10, 200))
        .unwrap_err();
    assert!(matches!(err, SqlError::Timeout { ms: 200 }), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "interrupted promptly: {:?}", start.elapsed());
    // The connection is still usable and the deadline no longer applies.
    let r = db.query("SELECT count(*) FROM findings", limits(10, 5000)).unwrap();
    assert_eq!(r.rows[0][0], json!(3000));
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_long_query_times_out() {
    let Some((_, _, mut db)) = open_pg() else { return };
    let start = Instant::now();
    let err = db.query("SELECT pg_sleep(5)", limits(10, 300)).unwrap_err();
    assert!(matches!(err, SqlError::Timeout { ms: 300 }), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "cancelled by statement_timeout: {:?}", start.elapsed());
    let r = db.query("SELECT count(*) FROM findings", limits(10, 5000)).unwrap();
    assert_eq!(r.rows[0][0], json!(3000));
}

#[test]
fn sqlite_refuses_writes_at_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut db) = open_sqlite(dir.path());
    let before = sqlite_checksum(&path);
    let hostile = [
        "DELETE FROM findings",
        "UPDATE findings SET status = 'Closed' WHERE id = 1",
        "INSERT INTO departments (id, name, region) VALUES (99, 'X', 'North')",
        "DROP TABLE findings",
        "CREATE TABLE evil (x)",
        "SELECT 1; DELETE FROM findings",
        "SELECT 1; COMMIT; DELETE FROM findings",
        "PRAGMA query_only = OFF",
        "ATTACH DATABASE 'evil.db' AS evil",
        "BEGIN IMMEDIATE",
        "VACUUM",
        "REINDEX",
        "WITH x AS (SELECT 1) DELETE FROM findings",
        "SELECT 1\0; DELETE FROM findings",
    ];
    for sql in hostile {
        let err = db.query(sql, limits(10, 2000)).unwrap_err();
        assert!(!err.is_transient(), "{sql}: {err}");
        let msg = err.to_string();
        if sql == "DELETE FROM findings" {
            assert!(msg.contains("read-only"), "{sql}: {msg}");
        }
        if sql.starts_with("SELECT 1;") {
            assert!(msg.contains("only one statement"), "{sql}: {msg}");
        }
    }
    let r = db.query("SELECT count(*) FROM findings", limits(10, 2000)).unwrap();
    assert_eq!(r.rows[0][0], json!(3000));
    assert!(!dir.path().join("evil.db").exists());
    drop(db);
    assert_eq!(sqlite_checksum(&path), before, "the database file is unchanged");
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_refuses_writes_at_the_connection() {
    let Some((url, password, mut db)) = open_pg() else { return };
    let before = pg_checksum(&url, &password);
    // A statement without result columns is refused before it runs...
    let err = db.query("UPDATE findings SET status = 'Closed'", limits(10, 5000)).unwrap_err();
    assert!(matches!(err, SqlError::Refused(_)), "{err:?}");
    // ...and one with columns runs, but inside the READ ONLY transaction, which refuses it.
    let err = db.query("UPDATE findings SET status = 'Closed' RETURNING id", limits(10, 5000)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("read-only transaction"), "{msg}");
    let err = db.query("WITH d AS (DELETE FROM findings RETURNING id) SELECT count(*) FROM d", limits(10, 5000)).unwrap_err();
    assert!(err.to_string().contains("read-only transaction"), "{err}");
    // The classic escape from a read-only transaction: end it and open a writable one. The
    // extended query protocol refuses more than one statement, so none of it runs.
    let escape = "COMMIT; BEGIN READ WRITE; UPDATE findings SET status = 'Closed' WHERE id = 1; COMMIT";
    let err = db.query(escape, limits(10, 5000)).unwrap_err();
    assert!(err.to_string().contains("multiple commands"), "{err}");
    for sql in [
        "DELETE FROM findings",
        "CREATE TABLE evil (x int)",
        "DROP TABLE findings",
        "SELECT 1; DELETE FROM findings",
        "SET default_transaction_read_only = off",
        "COMMIT",
        "SELECT set_config('default_transaction_read_only', 'off', false), nextval('nope')",
        "INSERT INTO departments (id, name, region) VALUES (99, 'X', 'North') RETURNING id",
    ] {
        assert!(db.query(sql, limits(10, 5000)).is_err(), "{sql} must fail");
    }
    // Nothing leaked out of the rolled-back transactions, and the connection still works.
    let r = db.query("SELECT count(*) FROM findings WHERE status = 'Closed'", limits(10, 5000)).unwrap();
    assert_eq!(r.rows[0][0], json!(2241));
    assert_eq!(pg_checksum(&url, &password), before, "the database is unchanged");
}

#[test]
fn explain_gives_a_plan() {
    let dir = tempfile::tempdir().unwrap();
    for mut db in engines(dir.path()) {
        let plan = db.explain("SELECT f.id FROM findings f JOIN audits a ON a.id = f.audit_id WHERE a.status = 'Open' LIMIT 5").unwrap();
        assert!(!plan.trim().is_empty(), "{:?}", db.dialect());
        match db.dialect() {
            Dialect::Sqlite => assert!(plan.contains("SCAN") || plan.contains("SEARCH"), "{plan}"),
            Dialect::Postgres => assert!(plan.contains("Limit"), "{plan}"),
        }
        assert!(db.explain("SELECT 1; DELETE FROM findings").is_err());
    }
}

#[test]
fn missing_sqlite_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.db");
    let url = SqlUrl::parse(&format!("sqlite://{}", missing.display())).unwrap();
    let err = db::open(&url, ExecLimits::default()).err().expect("a missing file does not open");
    assert!(matches!(err, SqlError::Connect { .. }), "{err:?}");
    let msg = err.to_string();
    eprintln!("sqlite missing file: {msg}");
    assert!(msg.contains("does not exist") && msg.contains("nope.db"), "{msg}");
    assert!(!missing.exists(), "opening never creates the file");

    let not_db = dir.path().join("notes.db");
    std::fs::write(&not_db, "this is not a database, just some text that is long enough").unwrap();
    let err = db::open(&SqlUrl::parse(&format!("sqlite://{}", not_db.display())).unwrap(), ExecLimits::default()).err().unwrap();
    assert!(err.to_string().contains("not a readable SQLite database"), "{err}");
}

#[cfg(feature = "postgres")]
#[test]
fn wrong_postgres_password_errors_without_leaking_it() {
    let Some((url, _)) = pg_sample() else { return };
    let secret = "Sup3r-Secret-Wrong-Pw";
    let err = db::open(&pg_sql_url(&url, secret), ExecLimits::default()).err().expect("a wrong password does not connect");
    let msg = err.to_string();
    eprintln!("pg wrong password: {msg}");
    assert!(matches!(err, SqlError::Connect { .. }), "{err:?}");
    assert!(msg.contains("password authentication failed"), "{msg}");
    assert!(!msg.contains(secret) && !format!("{err:?}").contains(secret), "{msg}");
}

#[cfg(feature = "postgres")]
#[test]
fn percent_encoded_postgres_password_connects() {
    let Some((url, password)) = pg_sample() else { return };
    if password.is_empty() {
        return;
    }
    // Every byte of the password written as %XX: only a decoding parser gets it right.
    let (scheme, rest) = url.split_once("://").expect("QA_TEST_PG_URL has a scheme");
    let (user, host) = rest.split_once('@').expect("QA_TEST_PG_URL names a user");
    let encoded = format!("{scheme}://{user}:{}@{host}", percent_encode(&password, true));
    let sql_url = SqlUrl::parse(&encoded).unwrap();
    assert_eq!(sql_url.password(), Some(password.as_str()));
    assert!(!sql_url.to_string().contains(&percent_encode(&password, true)), "{sql_url}");
    let mut db = db::open(&sql_url, ExecLimits::default()).unwrap_or_else(|e| panic!("connects with the decoded password: {e}"));
    let r = db.query("SELECT 1 AS one LIMIT 1", limits(10, 5000)).unwrap();
    assert_eq!(r.rows, vec![vec![json!(1)]]);
}

#[cfg(feature = "postgres")]
#[test]
fn closed_postgres_port_errors_quickly() {
    // A port nobody listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = SqlUrl::parse(&format!("postgres://qa_admin:pw-not-shown@127.0.0.1:{port}/qa_audit")).unwrap();
    let start = Instant::now();
    let err = db::open(&url, limits(10, 2000)).err().expect("nothing listens there");
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    let msg = err.to_string();
    eprintln!("pg closed port: {msg}");
    assert!(matches!(err, SqlError::Connect { .. }), "{err:?}");
    assert!(msg.contains(&port.to_string()) || msg.contains("127.0.0.1"), "names the target: {msg}");
    assert!(!msg.contains("pw-not-shown"), "{msg}");
}

#[cfg(not(feature = "postgres"))]
#[test]
fn a_postgres_url_needs_the_postgres_feature() {
    let url = SqlUrl::parse("postgres://qa_admin:pw-not-shown@127.0.0.1:5432/qa_audit").expect("the URL parses without the driver");
    assert_eq!(url.dialect, Dialect::Postgres);
    let err = db::open(&url, ExecLimits::default()).err().expect("no PostgreSQL in this build");
    let msg = err.to_string();
    assert!(matches!(err, SqlError::PostgresNotBuilt { .. }), "{err:?}");
    assert!(msg.contains("--features postgres") && msg.contains("127.0.0.1") && !msg.contains("pw-not-shown"), "{msg}");
}

#[test]
fn sample_data_is_consistent_and_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let path = sqlite_sample(dir.path());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or_else(|e| panic!("{sql}: {e}"));
    for (sql, why) in [
        ("SELECT count(*) FROM findings WHERE (status = 'Closed') <> (closed_on IS NOT NULL)", "closed_on only when Closed"),
        ("SELECT count(*) FROM findings WHERE closed_on < reported_on OR due_on < reported_on", "dates in order"),
        ("SELECT count(*) FROM audits WHERE (status = 'Closed') <> (closed_on IS NOT NULL) OR closed_on < started_on", "audit dates"),
        (
            "SELECT count(*) FROM findings f JOIN audits a ON a.id = f.audit_id \
             WHERE f.reported_on < a.started_on OR f.reported_on > coalesce(a.closed_on, '2025-12-31') OR a.status = 'Planned'",
            "findings fall inside their audit",
        ),
        ("SELECT count(*) FROM audits a JOIN auditors u ON u.id = a.lead_auditor_id WHERE u.hired_on > a.started_on", "leads were hired first"),
        (
            "SELECT count(*) FROM (SELECT reported_on AS d FROM findings UNION ALL SELECT due_on FROM findings UNION ALL \
             SELECT closed_on FROM findings WHERE closed_on IS NOT NULL UNION ALL SELECT started_on FROM audits UNION ALL \
             SELECT hired_on FROM auditors) WHERE d NOT BETWEEN '2023-01-01' AND '2025-12-31' OR length(d) <> 10",
            "ISO dates in 2023..2025",
        ),
        ("SELECT count(*) FROM findings WHERE estimated_cost NOT BETWEEN 500 AND 250000", "costs in range"),
        ("PRAGMA foreign_key_check", "foreign keys hold"),
    ] {
        let n = if sql.starts_with("PRAGMA") { conn.prepare(sql).unwrap().query_map([], |_| Ok(())).unwrap().count() as i64 } else { count(sql) };
        assert_eq!(n, 0, "{why}: {sql}");
    }
    let critical = count("SELECT count(*) FROM findings WHERE severity = 'Critical'");
    assert!((90..=210).contains(&critical), "Critical ~5%: {critical}");
    assert_eq!(count("SELECT count(DISTINCT category) FROM findings"), 7);
    assert!(count("SELECT count(DISTINCT summary) FROM findings") > 500);

    // The committed file is what the generator writes.
    let python = std::process::Command::new("python3").arg("--version").output();
    if python.is_err() {
        eprintln!("sql: generator check skipped: python3 not found");
        return;
    }
    let out = dir.path().join("regen.sql");
    let status = std::process::Command::new("python3").arg(common::repo().join("scripts/gen-sample-sql.py")).arg(&out).status().unwrap();
    assert!(status.success());
    assert!(std::fs::read(&out).unwrap() == std::fs::read(common::sql_fixture::sample_sql_path()).unwrap(), "samples/sql/audit.sql is stale: run scripts/gen-sample-sql.py");
}

#[test]
fn error_messages_are_clear() {
    // Printed with --nocapture to review wording; asserts the essentials.
    let dir = tempfile::tempdir().unwrap();
    let (_, mut db) = open_sqlite(dir.path());
    let e = db.query("SELECT 1; DELETE FROM findings", limits(10, 1000)).unwrap_err();
    eprintln!("sqlite multi: {e}");
    assert!(matches!(e, SqlError::Refused(_)));
    let e = db.query("SELECT nope FROM findings", limits(10, 1000)).unwrap_err();
    eprintln!("sqlite bad column: {e}");
    assert!(e.to_string().contains("nope"));
    #[cfg(feature = "postgres")]
    if let Some((_, _, mut pg)) = open_pg() {
        let e = pg.query("SELECT nope FROM findings", limits(10, 1000)).unwrap_err();
        eprintln!("pg bad column: {e}");
        assert!(e.to_string().contains("nope") && e.to_string().contains("42703"));
        let e = pg.query("SELECT 1; SELECT 2", limits(10, 1000)).unwrap_err();
        eprintln!("pg multi: {e}");
        let (_, password) = pg_sample().unwrap();
        assert!(pg.describe().starts_with("postgres://qa_admin@127.0.0.1:") && !pg.describe().contains(&password), "{}", pg.describe());
    }
}
