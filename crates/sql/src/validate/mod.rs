//! Validation of generated (or user-given) SQL before anything reaches a database.
//!
//! [`validate`] judges one statement for a dialect and returns a [`Verdict`]: the reasons it is
//! refused, or the exact text that may run. That text is **re-printed from the parsed AST**
//! (sqlparser's `Display`) with the LIMIT injected or lowered, and it must parse back to the same
//! AST; so comments, odd whitespace and anything the parser skipped never reach the server, and
//! what was checked is what runs.
//!
//! # Rules, in the order they are checked
//! 1. **Size**: at most [`MAX_SQL_BYTES`] bytes and [`MAX_TOKENS`] tokens (`Parse`). The work
//!    runs on a thread with a large stack, so deep but legal trees (`1+1+…`, 5,000 nested
//!    parentheses) end in `Parse` ("recursion limit exceeded"), never in a stack overflow.
//! 2. **Tokens** (sqlparser's tokenizer for the dialect, so string literals, quoted identifiers
//!    and comments are told apart exactly as the parser does):
//!    - nothing but whitespace, comments and `;` → `Empty`;
//!    - a `;` between two non-empty statements → `MultipleStatements` (a trailing `;` is fine);
//!    - defence in depth, `Forbidden`: an unquoted word that is a write/admin keyword (INSERT,
//!      UPDATE, DELETE, MERGE, UPSERT, CREATE, DROP, ALTER, TRUNCATE, GRANT, REVOKE, COPY,
//!      ATTACH, DETACH, PRAGMA, VACUUM, REINDEX, COMMIT, ROLLBACK, SAVEPOINT, INTO, RETURNING,
//!      EXPLAIN, EXECUTE, PREPARE, DEALLOCATE, LISTEN, UNLISTEN, NOTIFY, REFRESH, CHECKPOINT,
//!      REASSIGN, IMPORT, DECLARE). `REPLACE` is flagged only when not followed by `(` (the
//!      `replace()` string function is harmless). Words that are also plausible column or table
//!      names (BEGIN, SET, RESET, DISCARD, CALL, DO, LOCK, LOAD, ANALYZE, RELEASE, TRANSACTION,
//!      ABORT, CLUSTER, COMMENT) are flagged too, unless they are part of a dotted name
//!      (`t.load`) or, with a schema, the name of one of its tables or columns. A quoted
//!      identifier (`"update"`) is never flagged: it cannot be a keyword.
//!    - `LIMIT ALL` → `Limit` (the parser drops it silently, so it is caught here);
//!    - **comments** are allowed (they never run: the output is re-printed without them), but a
//!      comment holding a `;` or a statement keyword (INSERT, UPDATE, DELETE, MERGE, UPSERT,
//!      CREATE, DROP, ALTER, TRUNCATE, GRANT, REVOKE, COPY, ATTACH, DETACH, PRAGMA, VACUUM,
//!      REINDEX, COMMIT, ROLLBACK, SAVEPOINT, EXECUTE) is `Forbidden`: it is a sign of an
//!      attempt to hide a second statement from some other tokenizer. English words that
//!      double as keywords in harmless ways (into, replace, explain) are not checked there.
//!    - a non-ASCII character outside string literals, quoted identifiers and comments
//!      (Cyrillic look-alikes, zero-width or non-breaking spaces) → `Forbidden`.
//! 3. **Parse** with sqlparser (`SQLiteDialect` / `PostgreSqlDialect`); failure → `Parse`.
//! 4. Exactly one statement, and it must be a query (`SELECT`, `WITH … SELECT`, set operations);
//!    anything else → `NotQuery`, naming the statement kind. A bare `VALUES` list is refused
//!    too (it reads nothing from the database); `VALUES` inside a query is fine.
//! 5. **Anywhere in the tree** (CTEs, subqueries, set operations, function arguments),
//!    `Forbidden`: a nested statement (data-modifying CTE `WITH x AS (DELETE … RETURNING *)`),
//!    `SELECT … INTO`, locking clauses (`FOR UPDATE/SHARE/…`), system catalogs (see below) and
//!    forbidden functions.
//! 6. **Schema** (only when a [`DbSchema`] is given): every base table must exist
//!    (`UnknownTable`, with a "did you mean"), every column reference must resolve in its scope
//!    (`UnknownColumn`, with a "did you mean"). Scopes follow SQL: FROM items and their aliases,
//!    CTEs and their output columns, derived tables, correlated outer queries, select-list
//!    aliases (accepted anywhere in their SELECT, as SQLite does; on Postgres an unaliased
//!    `count(*)` is also column `count`), implicit columns (SQLite `rowid`, Postgres `ctid`…),
//!    niladic functions (`CURRENT_DATE`) and named-argument names. When the columns of a
//!    relation cannot be known (table functions, `SELECT count(*)` without an alias in a CTE…)
//!    any column of it is accepted: the check only refuses what is certainly wrong. On SQLite an
//!    unresolved double-quoted name is only a warning (SQLite reads `"Open"` as a string then).
//! 7. **LIMIT** of the outermost query: must be a non-negative integer literal; missing → added
//!    as `LIMIT row_cap`; larger → lowered to `row_cap` (both recorded in `changes`);
//!    `LIMIT ALL`, `LIMIT $1`, `LIMIT (SELECT …)`, `LIMIT -1` → `Limit`. `OFFSET` must be a
//!    literal ≤ [`MAX_OFFSET`]. `FETCH FIRST n ROWS ONLY` (Postgres) is rewritten as `LIMIT n`
//!    (lowered like LIMIT); `FETCH … PERCENT` / `WITH TIES` (can exceed n rows) and FETCH on
//!    SQLite (not its syntax) → `Limit`. Inner queries keep their own LIMITs.
//!
//! # Functions and catalogs policy
//! Functions are checked by lower-cased name (quoted or not). Refused:
//! - any name starting with `pg_` except [`ALLOWED_PREFIXED_FUNCTIONS`] (this covers pg_sleep*,
//!   pg_read_file, pg_ls_dir, pg_terminate_backend, pg_advisory_lock*, pg_notify,
//!   pg_logical_*, pg_create_*, …, and any future admin function);
//! - prefixes `lo_` (large objects: lo_import/lo_export), `dblink`, `query_to_xml`,
//!   `cursor_to_xml`, `table_to_xml`, `schema_to_xml`, `database_to_xml` (they run SQL text
//!   that was never validated), `pragma_` (SQLite table-valued pragmas), `sqlite_` (except
//!   `sqlite_version`), `crosstab`;
//! - exact names: set_config, nextval, setval, currval, lastval, loread, lowrite, ts_stat,
//!   load_extension, readfile, writefile, edit, fts3_tokenizer, fsdir, zipfile, dbstat;
//! - a schema-qualified function other than `pg_catalog.<allowed>` (a function in another
//!   schema is user code we cannot judge).
//!
//! Everything else (aggregates, window, date, string, JSON functions, `current_setting`,
//! `generate_series`, …) is allowed: the connection is read-only and under a statement timeout,
//! which covers what a deny-list cannot (a slow but harmless query).
//!
//! Tables: `pg_*` names, anything in `pg_catalog`, `information_schema`, `pg_toast`, `pg_temp`,
//! and `sqlite_*` (sqlite_master, sqlite_schema, sqlite_temp_master, sqlite_sequence,
//! sqlite_dbpage, …), `pragma_*`, `fsdir`, `zipfile`, `dbstat` are `Forbidden` even without a
//! schema (a CTE that happens to use such a name is refused too). Qualifiers `public.` /
//! `main.` are stripped; with a schema, any other qualifier is `UnknownTable`.
//!
//! # Helpers for the diagnose loop
//! [`literal_filters`] lists `col = 'x'` / `col IN (…)` / `col LIKE 'x'` comparisons (for
//! value-existence probes), [`case_insensitive`] rewrites them to compare case-insensitively
//! (the fix for "zero rows because of casing"), and [`count_probe`] wraps a query in
//! `SELECT COUNT(*)`.

mod guard;
mod limit;
mod repair;
mod resolve;
mod scope;
mod ties;
mod tokens;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use sqlparser::ast::{SetExpr, Statement, Visit, VisitMut};
use sqlparser::dialect::{Dialect as SqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, Tokenizer};

use super::{DbSchema, Dialect};
use guard::Guard;
use limit::cap_limit;
use repair::CaseFix;
use scope::Analyzer;
use tokens::scan_tokens;
pub use ties::{rows_to_keep, tie_probe, TieProbe};

/// Why a statement is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    /// sqlparser could not parse it for the dialect.
    Parse,
    /// No statement at all (blank, comments or semicolons only).
    Empty,
    /// More than one statement.
    MultipleStatements,
    /// Not a SELECT / WITH ... SELECT (INSERT, UPDATE, DDL, PRAGMA, SET, COPY, ...).
    NotQuery,
    /// A write or admin keyword/construct anywhere: data-modifying CTE, SELECT INTO, FOR UPDATE,
    /// a forbidden function (pg_sleep, pg_read_file, lo_import, dblink, set_config, nextval,
    /// load_extension, ...).
    Forbidden,
    /// A base table the schema does not have, or one outside the default schema.
    UnknownTable,
    /// A column reference that resolves in no scope of the query.
    UnknownColumn,
    /// LIMIT that is not a plain non-negative integer literal, OFFSET too large, etc.
    Limit,
}

/// One reason a statement is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// Its class.
    pub kind: ReasonKind,
    /// For the user (names the offending table, column, keyword, ...).
    pub message: String,
}

impl Reason {
    fn new(kind: ReasonKind, message: impl Into<String>) -> Reason {
        Reason { kind, message: message.into() }
    }
}

/// A comparison of a column with a string literal found in the query (for value-existence
/// probes and the case-insensitive fix).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiteralFilter {
    /// The table the column belongs to, resolved through aliases when possible.
    pub table: Option<String>,
    /// The column's name, as written.
    pub column: String,
    /// The string compared with, unquoted.
    pub value: String,
}

/// The validator's judgement of one statement.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Verdict {
    /// Accepted: it may run (as [`Verdict::sql`]).
    pub ok: bool,
    /// Why it is refused (empty when accepted).
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

impl Verdict {
    /// True when some reason is of `kind`.
    pub fn has(&self, kind: ReasonKind) -> bool {
        self.reasons.iter().any(|r| r.kind == kind)
    }

    fn refused(kind: ReasonKind, message: impl Into<String>) -> Verdict {
        Verdict { reasons: vec![Reason::new(kind, message)], ..Verdict::default() }
    }
}

/// Longer statements are refused before tokenizing (no generated query comes close).
pub const MAX_SQL_BYTES: usize = 64 * 1024;
/// More tokens than this are refused before parsing (bounds the depth of operator chains).
pub const MAX_TOKENS: usize = 10_000;
/// The largest OFFSET accepted on the outermost query.
pub const MAX_OFFSET: u64 = 100_000;

/// Stack for the thread that parses and walks: the AST's derived visitors, `Drop` and
/// `PartialEq` recurse once per level of a left-deep operator chain (`a+a+a…`), which the
/// parser builds iteratively, so the depth is bounded only by [`MAX_TOKENS`] (about 5,000
/// levels). A debug build needs 16 MiB for the worst chains (test `deep_nesting_…`); 64 MiB
/// leaves a margin, and only touched pages are committed.
const STACK_BYTES: usize = 64 << 20;

/// Write/admin keywords refused anywhere as bare words (see the module doc).
#[rustfmt::skip]
const HARD_WORDS: &[&str] = &[
    "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "CREATE", "DROP", "ALTER", "TRUNCATE", "GRANT", "REVOKE",
    "COPY", "ATTACH", "DETACH", "PRAGMA", "VACUUM", "REINDEX", "COMMIT", "ROLLBACK", "SAVEPOINT", "INTO",
    "RETURNING", "EXPLAIN", "EXECUTE", "PREPARE", "DEALLOCATE", "LISTEN", "UNLISTEN", "NOTIFY", "REFRESH",
    "CHECKPOINT", "REASSIGN", "IMPORT", "DECLARE",
];
/// Keywords that are also plausible identifiers: refused unless dotted or a schema name.
#[rustfmt::skip]
const SOFT_WORDS: &[&str] = &[
    "BEGIN", "SET", "RESET", "DISCARD", "CALL", "DO", "LOCK", "LOAD", "ANALYZE", "ANALYSE", "RELEASE",
    "TRANSACTION", "ABORT", "CLUSTER", "COMMENT",
];
/// Words refused inside comments.
#[rustfmt::skip]
const COMMENT_WORDS: &[&str] = &[
    "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "CREATE", "DROP", "ALTER", "TRUNCATE", "GRANT", "REVOKE",
    "COPY", "ATTACH", "DETACH", "PRAGMA", "VACUUM", "REINDEX", "COMMIT", "ROLLBACK", "SAVEPOINT", "EXECUTE",
];
#[rustfmt::skip]
const DENY_FUNCTION_PREFIXES: &[&str] = &[
    "pg_", "lo_", "dblink", "query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml",
    "pragma_", "sqlite_", "crosstab",
];
/// Exceptions to the refused prefixes: functions that only inspect or format values.
pub const ALLOWED_PREFIXED_FUNCTIONS: &[&str] = &["pg_typeof", "pg_size_pretty", "sqlite_version"];
#[rustfmt::skip]
const DENY_FUNCTIONS: &[&str] = &[
    "set_config", "nextval", "setval", "currval", "lastval", "loread", "lowrite", "ts_stat", "load_extension",
    "readfile", "writefile", "edit", "fts3_tokenizer", "fsdir", "zipfile", "dbstat",
];
/// Niladic SQL functions that some dialects parse as plain identifiers.
#[rustfmt::skip]
const NILADIC: &[&str] = &[
    "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp", "current_user",
    "session_user", "user", "current_role", "current_catalog", "current_schema",
];

/// Judge one statement. `schema` None skips the table/column checks.
pub fn validate(sql: &str, dialect: Dialect, schema: Option<&DbSchema>, row_cap: usize) -> Verdict {
    if sql.len() > MAX_SQL_BYTES {
        return Verdict::refused(
            ReasonKind::Parse,
            format!("statement too long: {} bytes (at most {MAX_SQL_BYTES})", sql.len()),
        );
    }
    on_big_stack(|| validate_inner(sql, dialect, schema, row_cap)).unwrap_or_else(|| {
        Verdict::refused(ReasonKind::Parse, "the validator could not analyse this statement (internal error)")
    })
}

/// String-literal comparisons (`col = 'x'`, `col IN ('x','y')`, `col LIKE 'x'`) in a validated query.
pub fn literal_filters(sql: &str, dialect: Dialect) -> Vec<LiteralFilter> {
    if sql.len() > MAX_SQL_BYTES {
        return Vec::new();
    }
    on_big_stack(|| {
        let Some(Statement::Query(q)) = parse_one(sql, dialect) else { return Vec::new() };
        let mut an = Analyzer::new(None, dialect);
        an.walk_query(&q, None);
        an.filters
    })
    .unwrap_or_default()
}

/// The query with every `col = 'literal'` / `col IN (...)` comparison made case-insensitive:
/// Postgres `col ILIKE 'literal'` (with LIKE wildcards in the literal escaped), `col LIKE 'x'`
/// → `col ILIKE 'x'`, `lower(col) IN (lower('a'), …)`; SQLite `col = 'literal' COLLATE NOCASE`,
/// `col COLLATE NOCASE IN (…)`. Literals without letters (dates, numbers) are left alone.
/// None when there is nothing to change or it does not parse.
pub fn case_insensitive(sql: &str, dialect: Dialect) -> Option<String> {
    if sql.len() > MAX_SQL_BYTES {
        return None;
    }
    on_big_stack(|| {
        let mut stmt = parse_one(sql, dialect)?;
        if !matches!(stmt, Statement::Query(_)) {
            return None;
        }
        let mut fix = CaseFix { dialect, changed: 0 };
        let _ = VisitMut::visit(&mut stmt, &mut fix);
        (fix.changed > 0).then(|| stmt.to_string())
    })
    .flatten()
}

/// The query with its outermost `LIMIT size OFFSET offset` (a page of its result, for "show me
/// more"), or None when it does not parse or is not a query. The caller validates the page like
/// any statement.
pub fn paged(sql: &str, dialect: Dialect, offset: u64, size: u64) -> Option<String> {
    if sql.len() > MAX_SQL_BYTES {
        return None;
    }
    on_big_stack(|| {
        let Some(Statement::Query(mut q)) = parse_one(sql, dialect) else { return None };
        q.fetch = None;
        let offset = (offset > 0).then(|| sqlparser::ast::Offset { value: limit::number(offset), rows: sqlparser::ast::OffsetRows::None });
        q.limit_clause = Some(sqlparser::ast::LimitClause::LimitOffset { limit: Some(limit::number(size)), offset, limit_by: Vec::new() });
        Some(Statement::Query(q).to_string())
    })
    .flatten()
}

/// `SELECT COUNT(*) FROM (<query without its outer LIMIT/FETCH/ORDER BY>) AS qa_probe LIMIT 1`,
/// a cheap probe of how many rows the query would return (the `LIMIT 1` makes it pass
/// [`validate`] unchanged). None when it does not parse or is not a query.
pub fn count_probe(sql: &str, dialect: Dialect) -> Option<String> {
    if sql.len() > MAX_SQL_BYTES {
        return None;
    }
    on_big_stack(|| {
        let Some(Statement::Query(mut q)) = parse_one(sql, dialect) else { return None };
        q.order_by = None;
        q.limit_clause = None;
        q.fetch = None;
        Some(format!("SELECT COUNT(*) FROM ({q}) AS qa_probe LIMIT 1"))
    })
    .flatten()
}

/// Run `f` on a scoped thread with a [`STACK_BYTES`] stack; None if the thread cannot start or
/// `f` panics (a bug: callers turn it into a refusal, never a crash).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        let handle =
            std::thread::Builder::new().name("qa-sql-validate".into()).stack_size(STACK_BYTES).spawn_scoped(scope, f);
        handle.ok()?.join().ok()
    })
}

fn sql_dialect(dialect: Dialect) -> Box<dyn SqlDialect> {
    match dialect {
        Dialect::Sqlite => Box::new(SQLiteDialect {}),
        Dialect::Postgres => Box::new(PostgreSqlDialect {}),
    }
}

fn parse(sql: &str, dialect: Dialect) -> Result<Vec<Statement>, ParserError> {
    let d = sql_dialect(dialect);
    Parser::new(d.as_ref()).try_with_sql(sql).and_then(|mut p| p.parse_statements())
}

/// The single statement of `sql`, when it parses to exactly one and is not longer than
/// [`validate`] accepts (the token cap is what bounds the depth of the tree).
fn parse_one(sql: &str, dialect: Dialect) -> Option<Statement> {
    let d = sql_dialect(dialect);
    let tokens = Tokenizer::new(d.as_ref(), sql).tokenize().ok()?;
    if tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_) | Token::EOF)).count() > MAX_TOKENS {
        return None;
    }
    let mut stmts = parse(sql, dialect).ok()?;
    if stmts.len() == 1 { stmts.pop() } else { None }
}

/// A parser message without its "sql parser error: " prefix, at most 200 characters.
fn short(message: &str) -> String {
    let m = message.strip_prefix("sql parser error: ").unwrap_or(message);
    if m.chars().count() > 200 { format!("{}…", m.chars().take(200).collect::<String>()) } else { m.to_string() }
}

fn validate_inner(sql: &str, dialect: Dialect, schema: Option<&DbSchema>, row_cap: usize) -> Verdict {
    let mut v = Verdict::default();
    let scan = match scan_tokens(sql, dialect, schema) {
        Ok(scan) => scan,
        Err(reason) => return Verdict { reasons: vec![reason], ..Verdict::default() },
    };
    if scan.statements == 0 {
        return Verdict::refused(ReasonKind::Empty, "no SQL statement (only whitespace or comments)");
    }
    if scan.statements > 1 {
        let mut out = Verdict::refused(
            ReasonKind::MultipleStatements,
            format!("{} statements separated by ';': exactly one query is allowed", scan.statements),
        );
        out.reasons.extend(scan.reasons);
        return out;
    }
    v.reasons.extend(scan.reasons);

    let mut stmts = match parse(sql, dialect) {
        Ok(s) => s,
        Err(e) => {
            v.reasons.insert(0, Reason::new(ReasonKind::Parse, short(&e.to_string())));
            return v;
        }
    };
    if stmts.len() != 1 {
        // The token count above should have caught this; the parser has the last word.
        let kind = if stmts.is_empty() { ReasonKind::Empty } else { ReasonKind::MultipleStatements };
        v.reasons.insert(0, Reason::new(kind, format!("{} statements: exactly one query is allowed", stmts.len())));
        return v;
    }
    let Some(mut stmt) = stmts.pop() else { return v };
    let Statement::Query(query) = &mut stmt else {
        v.reasons.insert(
            0,
            Reason::new(
                ReasonKind::NotQuery,
                format!("{} is not a query: only a single SELECT (or WITH … SELECT) may run", statement_kind(&stmt)),
            ),
        );
        return v;
    };
    if matches!(*query.body, SetExpr::Values(_)) {
        v.reasons.push(Reason::new(ReasonKind::NotQuery, "a bare VALUES list reads nothing from the database"));
    }

    // Forbidden constructs anywhere in the tree.
    let mut guard = Guard::default();
    let _ = Visit::visit(&**query, &mut guard);
    v.reasons.extend(guard.reasons);

    // Scopes: tables, columns and (with a schema) their existence.
    let mut an = Analyzer::new(schema, dialect);
    an.walk_query(query, None);
    v.reasons.extend(an.reasons);
    v.warnings.extend(an.warnings);
    v.tables = an.tables.into_iter().collect();
    v.columns = an.columns.into_iter().collect();

    cap_limit(query, dialect, row_cap, &mut v);
    if scan.limit_all {
        v.reasons.push(Reason::new(ReasonKind::Limit, "LIMIT ALL is not allowed: the row cap must apply"));
    }

    dedup_reasons(&mut v.reasons);
    if !v.reasons.is_empty() {
        return v;
    }
    let text = stmt.to_string();
    // What runs must be what was checked: the printed text has to parse back to this very tree.
    match parse(&text, dialect) {
        Ok(again) if again.len() == 1 && again[0] == stmt => {
            v.ok = true;
            v.sql = Some(text);
        }
        _ => v.reasons.push(Reason::new(
            ReasonKind::Parse,
            "the query does not survive printing and re-parsing unchanged; rewrite it more plainly",
        )),
    }
    v
}

fn dedup_reasons(reasons: &mut Vec<Reason>) {
    let mut seen = HashSet::new();
    reasons.retain(|r| seen.insert((r.kind, r.message.clone())));
}

/// "INSERT", "CREATE TABLE", "START TRANSACTION", … from the AST variant name.
fn statement_kind(stmt: &Statement) -> String {
    let debug = format!("{stmt:?}");
    let variant: String = debug.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push(' ');
        }
        out.push(c.to_ascii_uppercase());
    }
    if out.is_empty() { "this statement".to_string() } else { out }
}

#[cfg(test)]
mod tests;
