//! The SQL sample database (samples/sql/audit.sql) in both engines, and checksums that prove a
//! test left it unchanged.
//!
//! SQLite: [`sqlite_sample`] builds a fresh file per test. PostgreSQL: `scripts/test.sh` starts a
//! throwaway cluster (`scripts/pg-test-cluster.sh`) and exports `QA_TEST_PG_URL` (without the
//! password) and `QA_TEST_PG_PASSWORD`; [`pg_sample`] reads them, and tests skip the Postgres
//! half when they are unset.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The tables of the sample database.
pub const SAMPLE_TABLES: [&str; 4] = ["auditors", "audits", "departments", "findings"];

pub fn sample_sql_path() -> PathBuf {
    super::repo().join("samples/sql/audit.sql")
}

pub fn sample_sql() -> String {
    let p = sample_sql_path();
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e} (run scripts/gen-sample-sql.py)", p.display()))
}

/// A fresh SQLite file `dir/audit.db` built from samples/sql/audit.sql (a read-write connection
/// for the setup only; closed before this returns).
pub fn sqlite_sample(dir: &Path) -> PathBuf {
    let path = dir.join("audit.db");
    let _ = std::fs::remove_file(&path);
    let conn = rusqlite::Connection::open(&path).expect("create the SQLite sample");
    conn.execute_batch(&sample_sql()).expect("load samples/sql/audit.sql into SQLite");
    conn.close().map_err(|(_, e)| e).expect("close the SQLite sample");
    path
}

/// `(url without password, password)` of the test cluster, or None (with a note on stderr) when
/// `QA_TEST_PG_URL` is not set. Only in builds with PostgreSQL support: the tests that use it are
/// compiled out without the `postgres` feature rather than skipped.
#[cfg(feature = "postgres")]
pub fn pg_sample() -> Option<(String, String)> {
    match std::env::var("QA_TEST_PG_URL") {
        Ok(url) if !url.trim().is_empty() => Some((url, std::env::var("QA_TEST_PG_PASSWORD").unwrap_or_default())),
        _ => {
            eprintln!("sql: postgres tests skipped: QA_TEST_PG_URL not set (scripts/test.sh sets it)");
            None
        }
    }
}

/// The `SqlUrl` of the test cluster, password included.
pub fn pg_sql_url(url: &str, password: &str) -> qa_sql::SqlUrl {
    let with_password = match url.split_once("://").and_then(|(scheme, rest)| rest.split_once('@').map(|(user, host)| (scheme, user, host))) {
        Some((scheme, user, host)) if !password.is_empty() => format!("{scheme}://{user}:{}@{host}", percent_encode(password, false)),
        _ => url.to_string(),
    };
    qa_sql::SqlUrl::parse(&with_password).expect("QA_TEST_PG_URL parses")
}

/// `text` percent-encoded for the userinfo part of a URL: everything but unreserved characters
/// when `all` is false, every byte when `all` is true.
pub fn percent_encode(text: &str, all: bool) -> String {
    text.bytes()
        .map(|b| if !all && (b.is_ascii_alphanumeric() || b"-._~".contains(&b)) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// sha256 of the file's bytes.
pub fn sqlite_checksum(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let digest = Sha256::digest(&bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A digest of the whole sample database on the server: the list of relations in `public`, and
/// for every sample table its row count and the md5 of all its rows in id order. Uses a fresh
/// read-write admin connection (it only reads).
pub fn pg_checksum(url: &str, password: &str) -> String {
    let mut config: tokio_postgres::Config = url.parse().expect("QA_TEST_PG_URL parses");
    config.password(password);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let (client, conn) = config.connect(tokio_postgres::NoTls).await.expect("connect to the test cluster");
        let task = tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut parts = Vec::new();
        let rels = client
            .query_one("SELECT coalesce(string_agg(relname::text, ',' ORDER BY relname), '') FROM pg_class WHERE relnamespace = 'public'::regnamespace", &[])
            .await
            .expect("list relations");
        parts.push(rels.get::<_, String>(0));
        for table in SAMPLE_TABLES {
            let sql = format!("SELECT count(*)::text || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t.id)), '') FROM {table} t");
            let row = client.query_one(sql.as_str(), &[]).await.unwrap_or_else(|e| panic!("checksum of {table}: {e}"));
            parts.push(format!("{table}={}", row.get::<_, String>(0)));
        }
        drop(client);
        let _ = task.await;
        parts.join(";")
    })
}

/// Checksum of the database behind a `--db` URL: the file's sha256 for SQLite, the tables'
/// contents for PostgreSQL.
pub fn checksum(url: &str, password: Option<&str>) -> String {
    match url.strip_prefix("sqlite://") {
        Some(path) => sqlite_checksum(Path::new(path)),
        None => pg_checksum(url, password.unwrap_or_default()),
    }
}

/// A fresh SQLite file `dir/library.db` built from samples/sql/library.sql (the second sample,
/// the planner's dev set; scripts/gen-sample-library.py).
pub fn sqlite_library(dir: &Path) -> PathBuf {
    let path = dir.join("library.db");
    let _ = std::fs::remove_file(&path);
    let sql = std::fs::read_to_string(super::repo().join("samples/sql/library.sql")).expect("samples/sql/library.sql (run scripts/gen-sample-library.py)");
    let conn = rusqlite::Connection::open(&path).expect("create the SQLite library sample");
    conn.execute_batch(&sql).expect("load samples/sql/library.sql into SQLite");
    conn.close().map_err(|(_, e)| e).expect("close the SQLite library sample");
    path
}

#[cfg(feature = "postgres")]
/// The library sample on the test cluster: the database `qa_library_test`, dropped and loaded
/// again once per test process (a read-write admin connection, for the setup only). Returns
/// the URL without the password, or None when `QA_TEST_PG_URL` is not set.
pub fn pg_library() -> Option<String> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        let (url, password) = pg_sample()?;
        let base = url.rsplit_once('/').map(|(b, _)| b.to_string()).expect("QA_TEST_PG_URL has a database");
        let sql = std::fs::read_to_string(super::repo().join("samples/sql/library.sql")).expect("samples/sql/library.sql");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            for (db, stmts) in [("postgres", "DROP DATABASE IF EXISTS qa_library_test; CREATE DATABASE qa_library_test;"), ("qa_library_test", "")] {
                let mut config: tokio_postgres::Config = format!("{base}/{db}").parse().expect("URL parses");
                config.password(&password);
                let (client, conn) = config.connect(tokio_postgres::NoTls).await.expect("connect to the test cluster");
                let task = tokio::spawn(async move {
                    let _ = conn.await;
                });
                if stmts.is_empty() {
                    client.batch_execute(&format!("BEGIN; {sql} COMMIT;")).await.expect("load samples/sql/library.sql");
                } else {
                    for s in stmts.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                        client.batch_execute(s).await.expect("create qa_library_test");
                    }
                }
                drop(client);
                let _ = task.await;
            }
        });
        Some(format!("{base}/qa_library_test"))
    })
    .clone()
}
