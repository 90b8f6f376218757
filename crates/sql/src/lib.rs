//! The SQL path: answer a question over a relational database (SQLite or PostgreSQL).
//!
//! Pipeline (each stage a module; the agent in [`agent`] runs them as a state machine whose
//! state contract is in [`state`]):
//! schema context ([`schema`]) → interpret & plan ([`plan`]) → k-best generation (`generate`)
//! → validate & diagnose ([`validate`], probes in [`agent`]) → safe execute ([`db`]) → present
//! ([`present`]). A clarification interrupt saves a [`checkpoint`] and resumes from it.
//!
//! Safety does not rest on the database alone: every statement is parsed with sqlparser for
//! its dialect, must be exactly one read-only query over known tables and columns with a LIMIT
//! no larger than the row cap, and then runs on a read-only connection (SQLite opened
//! read-only with `query_only`; PostgreSQL in a `READ ONLY` transaction with a
//! `statement_timeout`, through the extended query protocol, which refuses multi-statement text).

pub mod agent;
pub mod answer;
pub mod checkpoint;
pub mod db;
pub mod eval;
pub(crate) mod generate;
pub mod plan;
pub mod present;
pub mod route;
pub mod schema;
pub mod source;
pub mod state;
pub mod validate;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use qa_core::secret::scrub_secret;
use qa_core::secret::REDACTED;

/// Which SQL engine (and so which sqlparser dialect, quoting and functions) a URL points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// SQLite (a database file).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The lower-case name (`sqlite`, `postgres`), as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
        }
    }

    /// A dialect by name, case-insensitive: `sqlite`/`sqlite3`, `postgres`/`postgresql`/`pg`.
    pub fn parse(name: &str) -> Option<Dialect> {
        match name.trim().to_ascii_lowercase().as_str() {
            "sqlite" | "sqlite3" => Some(Dialect::Sqlite),
            "postgres" | "postgresql" | "pg" => Some(Dialect::Postgres),
            _ => None,
        }
    }
}

/// A database location. The password (inline in a postgres URL, or from `QA_SQL_PASSWORD` /
/// `PGPASSWORD`) is kept apart and never printed: `Display`/`Debug` show the redacted form.
#[derive(Clone, PartialEq, Eq)]
pub struct SqlUrl {
    /// The engine the URL points at.
    pub dialect: Dialect,
    /// SQLite: the database file. Postgres: the URL without its password (for display only).
    pub target: String,
    /// Postgres: the connection settings as tokio-postgres parsed them from the URL
    /// (percent-decoded), with [`SqlUrl::password`] in place of any inline password.
    #[cfg(feature = "postgres")]
    pg: Option<tokio_postgres::Config>,
    password: Option<String>,
    /// Every form of the password that could show up in text: as decoded, and as written in
    /// the URL (percent-encoded).
    secrets: Vec<String>,
}

/// The environment variables a PostgreSQL password may come from, in order.
const PASSWORD_VARS: [&str; 2] = ["QA_SQL_PASSWORD", "PGPASSWORD"];

impl SqlUrl {
    /// `sqlite://path.db`, `sqlite:path.db`, a bare `*.db`/`*.sqlite` path, or
    /// `postgres://user[:password]@host[:port]/db[?params]` (`postgresql://` too).
    pub fn parse(url: &str) -> Result<SqlUrl, SqlError> {
        let url = url.trim();
        let lower = url.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("sqlite://").map(|_| &url[9..]).or_else(|| lower.strip_prefix("sqlite:").map(|_| &url[7..])) {
            if rest.is_empty() {
                return Err(SqlError::Url("sqlite URL without a file: use sqlite://path/to/file.db".into()));
            }
            return Ok(SqlUrl::sqlite(rest));
        }
        for scheme in ["postgres://", "postgresql://"] {
            if lower.starts_with(scheme) {
                return SqlUrl::postgres(url, scheme);
            }
        }
        if lower.contains("://") {
            return Err(SqlError::Url(format!(
                "unsupported database URL scheme in '{}': use sqlite://file.db or postgres://user@host/db",
                redact_url(url)
            )));
        }
        // A plain path is a SQLite file.
        Ok(SqlUrl::sqlite(url))
    }

    fn sqlite(path: &str) -> SqlUrl {
        SqlUrl {
            dialect: Dialect::Sqlite,
            target: path.to_string(),
            #[cfg(feature = "postgres")]
            pg: None,
            password: None,
            secrets: Vec::new(),
        }
    }

    /// A PostgreSQL URL, parsed (and percent-decoded) by tokio-postgres. An inline password
    /// wins; without one, `QA_SQL_PASSWORD` or `PGPASSWORD` supplies it. Built without the
    /// `postgres` feature, the URL is only checked for a host and kept for display (and for
    /// [`db::open`] to name in its refusal).
    fn postgres(url: &str, scheme: &str) -> Result<SqlUrl, SqlError> {
        let rest = &url[scheme.len()..];
        let host = rest.rfind('@').map_or(rest, |at| &rest[at + 1..]);
        if host.is_empty() || host.starts_with('/') {
            return Err(SqlError::Url(format!("{scheme} URL without a host: use {scheme}user@host:port/database")));
        }
        let raw_password = userinfo_password(url).filter(|p| !p.is_empty());
        let mut secrets: Vec<String> = raw_password.iter().map(|p| p.to_string()).collect();
        // tokio-postgres wants the scheme in lower case; the rest it parses and percent-decodes.
        #[cfg(feature = "postgres")]
        let mut config: tokio_postgres::Config = format!("postgres://{rest}").parse().map_err(|e: tokio_postgres::Error| {
            let reason = scrub_all(&secrets, &e.to_string());
            SqlError::Url(format!("{}: {reason}", redact_url(url)))
        })?;
        #[cfg(feature = "postgres")]
        let inline = config.get_password().map(|p| String::from_utf8_lossy(p).into_owned()).filter(|p| !p.is_empty());
        // No driver, so nothing connects with it: kept as written, only to be scrubbed from text.
        #[cfg(not(feature = "postgres"))]
        let inline = raw_password.map(String::from);
        let password = inline.or_else(|| PASSWORD_VARS.iter().find_map(|v| std::env::var(v).ok().filter(|p| !p.is_empty())));
        if let Some(p) = &password {
            #[cfg(feature = "postgres")]
            config.password(p.as_str());
            secrets.push(p.clone());
        }
        // Longest first, so a decoded password inside its encoded form is not half replaced.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let shown = redact_url(url);
        let target = format!("postgres://{}", strip_userinfo_password(&shown[scheme.len()..]));
        Ok(SqlUrl {
            dialect: Dialect::Postgres,
            target,
            #[cfg(feature = "postgres")]
            pg: Some(config),
            password,
            secrets,
        })
    }

    /// The password to connect with (inline, else from the environment), if any.
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Postgres: the settings to connect with (password included). None for SQLite.
    #[cfg(feature = "postgres")]
    pub(crate) fn pg_config(&self) -> Option<&tokio_postgres::Config> {
        self.pg.as_ref()
    }

    /// Hide the password (e.g. echoed back by a driver) in any text shown to users.
    pub fn scrub(&self, text: &str) -> String {
        scrub_all(&self.secrets, text)
    }
}

/// `text` with every secret of at least 3 characters replaced by `<redacted>`.
fn scrub_all(secrets: &[String], text: &str) -> String {
    secrets.iter().fold(text.to_string(), |t, p| scrub_secret(&t, Some(p)))
}

impl std::fmt::Display for SqlUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.dialect {
            Dialect::Sqlite => write!(f, "sqlite://{}", self.target),
            Dialect::Postgres => f.write_str(&self.target),
        }
    }
}

impl std::fmt::Debug for SqlUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SqlUrl({self})")
    }
}

/// The userinfo part (`user[:password]`) of `scheme://user[:password]@host...`, if any.
fn userinfo(url: &str) -> Option<(usize, &str)> {
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let at = rest.rfind('@')?;
    Some((start, &rest[..at]))
}

/// The password as written in `scheme://user:password@host` (still percent-encoded).
fn userinfo_password(url: &str) -> Option<&str> {
    userinfo(url).and_then(|(_, auth)| auth.split_once(':')).map(|(_, p)| p)
}

/// `user:password@host...` → `user@host...` (the input has no scheme).
fn strip_userinfo_password(rest: &str) -> String {
    match rest.rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _)) => format!("{user}{}", &rest[at..]),
            None => rest.to_string(),
        },
        None => rest.to_string(),
    }
}

/// `scheme://user:password@host` → `scheme://user:<redacted>@host`, and a `password=` query or
/// key-value parameter → `password=<redacted>`: for any URL shown to users.
pub fn redact_url(url: &str) -> String {
    let mut out = match userinfo(url) {
        Some((start, auth)) => match auth.split_once(':') {
            Some((user, _)) => format!("{}{user}:{REDACTED}{}", &url[..start], &url[start + auth.len()..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    };
    let mut from = 0;
    while let Some(pos) = out[from..].to_ascii_lowercase().find("password=").map(|p| p + from) {
        let value_start = pos + "password=".len();
        let boundary = pos == 0 || matches!(out.as_bytes()[pos - 1], b'?' | b'&' | b' ' | b'\t');
        let value_end = out[value_start..].find(['&', ' ', '#']).map_or(out.len(), |e| e + value_start);
        if boundary && value_end > value_start {
            out.replace_range(value_start..value_end, REDACTED);
            from = value_start + REDACTED.len();
        } else {
            from = value_start;
        }
    }
    out
}

/// What `introspect` reports about a database: the tables the validator checks against and the
/// planner maps words onto.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DbSchema {
    /// The engine that reported it (None when built by hand).
    pub dialect: Option<Dialect>,
    /// Every user table, by name.
    pub tables: Vec<TableInfo>,
}

/// One table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TableInfo {
    /// The table's name as the database spells it.
    pub name: String,
    /// In declaration order.
    pub columns: Vec<ColumnInfo>,
    /// Primary-key column names, in key order (empty when there is none).
    pub primary_key: Vec<String>,
    /// Foreign keys declared on this table.
    pub foreign_keys: Vec<ForeignKey>,
    /// Exact row count when cheap to get (SQLite: COUNT(*); Postgres: COUNT(*) too, under the
    /// statement timeout), else None.
    pub row_count: Option<u64>,
}

/// One column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColumnInfo {
    /// The column's name as the database spells it.
    pub name: String,
    /// The declared type as the engine reports it, lower-case (`integer`, `text`, `date`,
    /// `numeric(10,2)`, `character varying`, ...).
    pub data_type: String,
    /// NULL is allowed (no NOT NULL constraint).
    pub nullable: bool,
    /// A few distinct values, for low-cardinality text columns only (empty otherwise).
    pub samples: Vec<String>,
    /// Distinct values counted while sampling (None when not sampled).
    pub distinct: Option<u64>,
    /// Distinct values for linking a question's words to stored values: every value of a text
    /// column with at most [`db::VALUE_INDEX_MAX`] of them (`values_complete`), else a few; the
    /// values of an integer column with at most two (a 0/1 flag). Not serialised: traces keep
    /// the samples only.
    #[serde(skip)]
    pub values: Vec<String>,
    /// `values` holds every distinct value.
    #[serde(skip)]
    pub values_complete: bool,
}

/// A foreign key: `columns` of the declaring table reference `ref_columns` of `ref_table`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForeignKey {
    /// The referencing columns, in key order.
    pub columns: Vec<String>,
    /// The referenced table.
    pub ref_table: String,
    /// The referenced columns, paired with `columns` by position.
    pub ref_columns: Vec<String>,
}

/// Broad column kinds the planner and presenter reason with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ColumnKind {
    Integer,
    Number,
    Text,
    Date,
    Boolean,
    Other,
}

impl ColumnInfo {
    /// The broad kind of the declared type.
    pub(crate) fn kind(&self) -> ColumnKind {
        let t = self.data_type.to_ascii_lowercase();
        if t.contains("int") || t == "serial" || t == "bigserial" {
            ColumnKind::Integer
        } else if t.contains("numeric") || t.contains("decimal") || t.contains("real") || t.contains("double") || t.contains("float") || t == "money" || t.starts_with("number") {
            ColumnKind::Number
        } else if t.contains("date") || t.contains("time") {
            ColumnKind::Date
        } else if t.contains("bool") {
            ColumnKind::Boolean
        } else if t.contains("char") || t.contains("text") || t.contains("clob") || t.is_empty() || t.contains("enum") {
            ColumnKind::Text
        } else {
            ColumnKind::Other
        }
    }
}

impl DbSchema {
    /// Case-insensitive table lookup.
    pub fn table(&self, name: &str) -> Option<&TableInfo> {
        self.tables.iter().find(|t| t.name.eq_ignore_ascii_case(name))
    }
}

impl TableInfo {
    /// Case-insensitive column lookup.
    pub fn column(&self, name: &str) -> Option<&ColumnInfo> {
        self.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name))
    }
}

/// Rows a query returned. Values are JSON (numbers, strings, null, booleans); dates and
/// decimals come back as strings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueryResult {
    /// Column names, in result order.
    pub columns: Vec<String>,
    /// One value per column in each row.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// True when the row cap cut the result short.
    pub truncated: bool,
    /// Time the statement took, in milliseconds.
    pub elapsed_ms: f64,
}

/// Limits every statement runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecLimits {
    /// Most rows a statement returns (and largest LIMIT it may have).
    pub row_cap: usize,
    /// Statement timeout, in milliseconds.
    pub timeout_ms: u64,
}

impl Default for ExecLimits {
    fn default() -> Self {
        ExecLimits { row_cap: 200, timeout_ms: 5000 }
    }
}

/// What went wrong on the SQL path. Messages never hold a password.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// The database URL does not parse (the reason names the problem).
    #[error("bad database URL: {0}")]
    Url(String),
    /// The database could not be opened or connected to.
    #[error("cannot open the database {target}: {reason}")]
    Connect {
        /// The database, as shown (redacted).
        target: String,
        /// The engine's or driver's reason.
        reason: String,
    },
    /// The engine rejected or failed a statement.
    #[error("query failed: {reason}")]
    Query {
        /// The engine's message.
        reason: String,
        /// Worth one more try (see [`SqlError::is_transient`]).
        transient: bool,
    },
    /// The statement ran past the timeout and was cancelled.
    #[error("query cancelled after {ms} ms (statement timeout)")]
    Timeout {
        /// The timeout, in milliseconds.
        ms: u64,
    },
    /// The statement was not run: it failed validation, or the engine found it is not exactly
    /// one read-only query.
    #[error("query refused: {0}")]
    Refused(String),
    /// A PostgreSQL URL in a build without the `postgres` cargo feature.
    #[error(
        "cannot open the database {target}: this qa was built without PostgreSQL support \
         (rebuild with the default cargo features, or `cargo build --release --features postgres`)"
    )]
    PostgresNotBuilt {
        /// The database, as shown (redacted).
        target: String,
    },
    /// The PostgreSQL connection's tokio runtime could not be started.
    #[error("cannot start the PostgreSQL runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// A file (checkpoint, question file, semantic schema) could not be read or written.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done: `cannot read`, `cannot write`, `cannot create`, ….
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The semantic schema file does not parse (JSON or TOML).
    #[error("{}: {reason}", path.display())]
    SemanticSchema {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        reason: String,
    },
    /// A checkpoint id that cannot be one (ids are hex).
    #[error("'{0}' is not a checkpoint id (ids are hex, as printed by `qa sql`)")]
    CheckpointId(String),
    /// No checkpoint has the given id (or id prefix).
    #[error("no checkpoint '{id}' in {} (they are written when `qa sql` asks a clarifying question)", dir.display())]
    CheckpointMissing {
        /// The id or prefix asked for.
        id: String,
        /// The checkpoint folder.
        dir: PathBuf,
    },
    /// More than one checkpoint starts with the given prefix.
    #[error("checkpoint id '{id}' is ambiguous ({matches} match); give more characters")]
    CheckpointAmbiguous {
        /// The prefix asked for.
        id: String,
        /// How many checkpoints it matches.
        matches: usize,
    },
    /// A checkpoint file that does not parse.
    #[error("{} is not a valid checkpoint: {source}", path.display())]
    BadCheckpoint {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A checkpoint could not be serialized.
    #[error("cannot serialize the checkpoint: {0}")]
    SaveCheckpoint(#[source] serde_json::Error),
}

impl SqlError {
    /// Worth one more try: a dropped connection, a serialization failure, a deadlock.
    pub fn is_transient(&self) -> bool {
        matches!(self, SqlError::Query { transient: true, .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "postgres")]
    #[test]
    fn percent_encoded_password_is_decoded_by_tokio_postgres() {
        let url = SqlUrl::parse("postgres://u:p%40ss@host:5432/db").unwrap();
        assert_eq!(url.dialect, Dialect::Postgres);
        assert_eq!(url.password(), Some("p@ss"));
        let config = url.pg_config().expect("a postgres URL has a config");
        assert_eq!(config.get_password(), Some(&b"p@ss"[..]));
        assert_eq!(config.get_user(), Some("u"));
        assert_eq!(config.get_hosts(), &[tokio_postgres::config::Host::Tcp("host".into())]);
        assert_eq!(config.get_ports(), &[5432]);
        assert_eq!(config.get_dbname(), Some("db"));
    }

    #[test]
    fn display_and_debug_hide_the_password() {
        for raw in ["postgres://u:p%40ss@host:5432/db", "postgresql://u:s3cr3t-pw@host/db?sslmode=disable"] {
            let url = SqlUrl::parse(raw).unwrap();
            #[cfg(feature = "postgres")]
            let config = format!("{:?}", url.pg_config());
            #[cfg(not(feature = "postgres"))]
            let config = String::new();
            for shown in [url.to_string(), format!("{url:?}"), config] {
                assert!(!shown.contains("p%40ss") && !shown.contains("p@ss") && !shown.contains("s3cr3t"), "{shown}");
            }
            assert!(url.to_string().starts_with("postgres://u@host"), "{url}");
        }
        let url = SqlUrl::parse("postgres://u@host/db?password=s3cr3t-pw&sslmode=disable").unwrap();
        // Reading the password out of the parameters is tokio-postgres's parsing.
        #[cfg(feature = "postgres")]
        assert_eq!(url.password(), Some("s3cr3t-pw"));
        assert_eq!(url.to_string(), "postgres://u@host/db?password=<redacted>&sslmode=disable");
        assert!(!format!("{url:?}").contains("s3cr3t"));
    }

    // The decoded form exists only where tokio-postgres decodes the URL (and could echo it).
    #[cfg(feature = "postgres")]
    #[test]
    fn scrub_hides_decoded_and_encoded_password() {
        let url = SqlUrl::parse("postgres://u:p%40ssword@host/db").unwrap();
        assert_eq!(url.scrub("auth p@ssword and p%40ssword failed"), "auth <redacted> and <redacted> failed");
    }

    // The port is checked by tokio-postgres's parser, which a build without `postgres` lacks.
    #[cfg(feature = "postgres")]
    #[test]
    fn bad_postgres_url_error_hides_the_password() {
        let err = SqlUrl::parse("postgres://u:s3cr3t-pw@host:notaport/db").unwrap_err();
        let msg = format!("{err} {err:?}");
        assert!(matches!(err, SqlError::Url(_)), "{msg}");
        assert!(!msg.contains("s3cr3t"), "{msg}");
    }

    #[test]
    fn redact_url_always_hides_passwords() {
        assert_eq!(redact_url("postgres://u:pw@host/db"), "postgres://u:<redacted>@host/db");
        assert_eq!(redact_url("mysql://u:pw@host/db"), "mysql://u:<redacted>@host/db");
        assert_eq!(redact_url("postgres://u@host/db?password=pw"), "postgres://u@host/db?password=<redacted>");
        assert_eq!(redact_url("postgres://u@host/db?a=1&PASSWORD=pw&b=2"), "postgres://u@host/db?a=1&PASSWORD=<redacted>&b=2");
        assert_eq!(redact_url("postgres://u@host/db"), "postgres://u@host/db");
        assert_eq!(redact_url("sqlite://file.db"), "sqlite://file.db");
    }
}
