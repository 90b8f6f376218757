//! Validation of generated (or user-given) SQL before anything reaches a database.
//!
//! CONTRACT (implemented by the validator helper) — see `validate`.

use serde::{Deserialize, Serialize};

use super::{DbSchema, Dialect};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    /// sqlparser could not parse it for the dialect.
    Parse,
    Empty,
    /// More than one statement.
    MultipleStatements,
    /// Not a SELECT / WITH ... SELECT (INSERT, UPDATE, DDL, PRAGMA, SET, COPY, ...).
    NotQuery,
    /// A write or admin keyword/construct anywhere: data-modifying CTE, SELECT INTO, FOR UPDATE,
    /// a forbidden function (pg_sleep, pg_read_file, lo_import, dblink, set_config, nextval,
    /// load_extension, ...).
    Forbidden,
    UnknownTable,
    UnknownColumn,
    /// LIMIT that is not a plain non-negative integer literal, OFFSET too large, etc.
    Limit,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    pub kind: ReasonKind,
    pub message: String,
}

/// A comparison of a column with a string literal found in the query (for value-existence
/// probes and the case-insensitive fix).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiteralFilter {
    /// The table the column belongs to, resolved through aliases when possible.
    pub table: Option<String>,
    pub column: String,
    pub value: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Verdict {
    pub ok: bool,
    pub reasons: Vec<Reason>,
    /// Non-fatal notes (e.g. `SELECT *`, LIMIT lowered).
    pub warnings: Vec<String>,
    /// The statement that would run: the parsed query re-printed with LIMIT injected or lowered
    /// to at most the row cap. None when refused.
    pub sql: Option<String>,
    /// Tables referenced (base tables, not CTE names), lower-case, sorted, deduplicated.
    pub tables: Vec<String>,
    /// Columns referenced as `table.column` when resolved, else `column`.
    pub columns: Vec<String>,
    /// What the LIMIT handling changed, e.g. "LIMIT 200 added", "LIMIT 5000 lowered to 200".
    pub changes: Vec<String>,
}

/// Judge one statement. `schema` None skips the table/column checks.
pub fn validate(sql: &str, dialect: Dialect, schema: Option<&DbSchema>, row_cap: usize) -> Verdict {
    let _ = (sql, dialect, schema, row_cap);
    Verdict::default()
}

/// String-literal comparisons (`col = 'x'`, `col IN ('x','y')`, `col LIKE 'x'`) in a validated query.
pub fn literal_filters(sql: &str, dialect: Dialect) -> Vec<LiteralFilter> {
    let _ = (sql, dialect);
    Vec::new()
}

/// The query with every `col = 'literal'` / `col IN (...)` comparison made case-insensitive:
/// Postgres `col ILIKE 'literal'` (with LIKE wildcards in the literal escaped), SQLite
/// `col = 'literal' COLLATE NOCASE`. None when there is nothing to change or it does not parse.
pub fn case_insensitive(sql: &str, dialect: Dialect) -> Option<String> {
    let _ = (sql, dialect);
    None
}

/// `SELECT COUNT(*) FROM (<query without its outer LIMIT/ORDER BY>) AS qa_probe`, a cheap
/// probe of how many rows the query would return. None when it does not parse.
pub fn count_probe(sql: &str, dialect: Dialect) -> Option<String> {
    let _ = (sql, dialect);
    None
}
