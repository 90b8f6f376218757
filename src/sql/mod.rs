//! The SQL path: answer a question over a relational database (SQLite or PostgreSQL).
//!
//! Pipeline (each stage a module; the agent in [`agent`] runs them as a state machine whose
//! state contract is in [`state`]):
//! schema context ([`schema`]) → interpret & plan ([`plan`]) → k-best generation ([`generate`])
//! → validate & diagnose ([`validate`], probes in [`agent`]) → safe execute ([`db`]) → present
//! ([`present`]). A clarification interrupt saves a [`checkpoint`] and resumes from it.
//!
//! Safety does not rest on the database alone: every statement is parsed with sqlparser for
//! its dialect, must be exactly one read-only query over known tables and columns with a LIMIT
//! no larger than the row cap, and then runs on a read-only connection (SQLite opened
//! read-only with `query_only`; PostgreSQL in a `READ ONLY` transaction with a
//! `statement_timeout`, through the extended query protocol, which refuses multi-statement text).

pub mod agent;
pub mod checkpoint;
pub mod db;
pub mod eval;
pub mod generate;
pub mod plan;
pub mod present;
pub mod render;
pub mod schema;
pub mod state;
pub mod validate;

use serde::{Deserialize, Serialize};

/// Which SQL engine (and so which sqlparser dialect, quoting and functions) a URL points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
        }
    }

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
    pub dialect: Dialect,
    /// SQLite: the database file. Postgres: the URL without its password.
    pub target: String,
    password: Option<String>,
}

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
            return Ok(SqlUrl { dialect: Dialect::Sqlite, target: rest.to_string(), password: None });
        }
        for scheme in ["postgres://", "postgresql://"] {
            if lower.starts_with(scheme) {
                let rest = &url[scheme.len()..];
                let (auth, host) = match rest.rfind('@') {
                    Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
                    None => (None, rest),
                };
                if host.is_empty() || host.starts_with('/') {
                    return Err(SqlError::Url(format!("{scheme} URL without a host: use {scheme}user@host:port/database")));
                }
                let (user, password) = match auth {
                    Some(a) => match a.split_once(':') {
                        Some((u, p)) => (Some(u), Some(p.to_string())),
                        None => (Some(a), None),
                    },
                    None => (None, None),
                };
                let target = match user {
                    Some(u) => format!("postgres://{u}@{host}"),
                    None => format!("postgres://{host}"),
                };
                let password = password.filter(|p| !p.is_empty()).or_else(|| {
                    ["QA_SQL_PASSWORD", "PGPASSWORD"].iter().find_map(|v| std::env::var(v).ok().filter(|p| !p.is_empty()))
                });
                return Ok(SqlUrl { dialect: Dialect::Postgres, target, password });
            }
        }
        if lower.contains("://") {
            return Err(SqlError::Url(format!(
                "unsupported database URL scheme in '{}': use sqlite://file.db or postgres://user@host/db",
                redact_url(url)
            )));
        }
        // A plain path is a SQLite file.
        Ok(SqlUrl { dialect: Dialect::Sqlite, target: url.to_string(), password: None })
    }

    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Hide `secret` (e.g. a password echoed back by a driver) in any text shown to users.
    pub fn scrub(&self, text: &str) -> String {
        match &self.password {
            Some(p) if p.len() >= 3 => text.replace(p.as_str(), "***"),
            _ => text.to_string(),
        }
    }
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

/// `scheme://user:password@host` → `scheme://user:***@host`, for messages about URLs we could
/// not parse.
pub fn redact_url(url: &str) -> String {
    if let Some(scheme_end) = url.find("://") {
        let rest = &url[scheme_end + 3..];
        if let Some(at) = rest.rfind('@')
            && let Some(colon) = rest[..at].find(':')
        {
            return format!("{}{}:***{}", &url[..scheme_end + 3], &rest[..colon], &rest[at..]);
        }
    }
    url.to_string()
}

/// What `introspect` reports about a database: the tables the validator checks against and the
/// planner maps words onto.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DbSchema {
    pub dialect: Option<Dialect>,
    pub tables: Vec<TableInfo>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TableInfo {
    pub name: String,
    pub columns: Vec<ColumnInfo>,
    pub primary_key: Vec<String>,
    pub foreign_keys: Vec<ForeignKey>,
    /// Exact row count when cheap to get (SQLite: COUNT(*); Postgres: COUNT(*) too, under the
    /// statement timeout), else None.
    pub row_count: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColumnInfo {
    pub name: String,
    /// The declared type as the engine reports it, lower-case (`integer`, `text`, `date`,
    /// `numeric(10,2)`, `character varying`, ...).
    pub data_type: String,
    pub nullable: bool,
    /// A few distinct values, for low-cardinality text columns only (empty otherwise).
    pub samples: Vec<String>,
    /// Distinct values counted while sampling (None when not sampled).
    pub distinct: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForeignKey {
    pub columns: Vec<String>,
    pub ref_table: String,
    pub ref_columns: Vec<String>,
}

/// Broad column kinds the planner and presenter reason with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnKind {
    Integer,
    Number,
    Text,
    Date,
    Boolean,
    Other,
}

impl ColumnInfo {
    pub fn kind(&self) -> ColumnKind {
        let t = self.data_type.to_ascii_lowercase();
        if t.contains("int") || t == "serial" || t == "bigserial" {
            ColumnKind::Integer
        } else if t.contains("numeric") || t.contains("decimal") || t.contains("real") || t.contains("double") || t.contains("float") || t == "money" {
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
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
    /// True when the row cap cut the result short.
    pub truncated: bool,
    pub elapsed_ms: f64,
}

/// Limits every statement runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecLimits {
    pub row_cap: usize,
    pub timeout_ms: u64,
}

impl Default for ExecLimits {
    fn default() -> Self {
        ExecLimits { row_cap: 200, timeout_ms: 5000 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    #[error("bad database URL: {0}")]
    Url(String),
    #[error("cannot open the database {target}: {reason}")]
    Connect { target: String, reason: String },
    #[error("query failed: {reason}")]
    Query { reason: String, transient: bool },
    #[error("query cancelled after {ms} ms (statement timeout)")]
    Timeout { ms: u64 },
    #[error("query refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Other(String),
}

impl SqlError {
    /// Worth one more try: a dropped connection, a serialization failure, a deadlock.
    pub fn is_transient(&self) -> bool {
        matches!(self, SqlError::Query { transient: true, .. })
    }
}
