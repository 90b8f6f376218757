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

use std::collections::{BTreeSet, HashSet};
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use sqlparser::ast::{
    BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, GroupByExpr,
    Ident, JoinConstraint, LimitClause, ObjectName, ObjectNamePart, OrderBy, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Statement, TableAlias, TableFactor, TableWithJoins, Value, ValueWithSpan,
    Visit, VisitMut, Visitor, VisitorMut,
};
use sqlparser::dialect::{Dialect as SqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

use super::{DbSchema, Dialect};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

fn parse(sql: &str, dialect: Dialect) -> Result<Vec<Statement>, String> {
    let d = sql_dialect(dialect);
    Parser::new(d.as_ref()).try_with_sql(sql).and_then(|mut p| p.parse_statements()).map_err(|e| short(&e.to_string()))
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
        Err(message) => {
            v.reasons.insert(0, Reason::new(ReasonKind::Parse, message));
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

// ---------------------------------------------------------------------------------------------
// Token scan

struct TokenScan {
    /// Non-empty statements between `;`.
    statements: usize,
    reasons: Vec<Reason>,
    limit_all: bool,
}

fn scan_tokens(sql: &str, dialect: Dialect, schema: Option<&DbSchema>) -> Result<TokenScan, Reason> {
    let d = sql_dialect(dialect);
    // Raw (unescaped = false) contents, so non-ASCII characters can be counted exactly.
    let tokens = Tokenizer::new(d.as_ref(), sql)
        .with_unescape(false)
        .tokenize()
        .map_err(|e| Reason::new(ReasonKind::Parse, short(&e.to_string())))?;
    let significant: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_) | Token::EOF)).collect();
    if significant.len() > MAX_TOKENS {
        return Err(Reason::new(
            ReasonKind::Parse,
            format!("statement too complex: {} tokens (at most {MAX_TOKENS})", significant.len()),
        ));
    }
    let mut scan = TokenScan { statements: 0, reasons: Vec::new(), limit_all: false };
    let mut in_statement = false;
    for t in &significant {
        if matches!(t, Token::SemiColon) {
            in_statement = false;
        } else if !in_statement {
            in_statement = true;
            scan.statements += 1;
        }
    }

    let names: HashSet<String> = schema
        .map(|s| {
            s.tables
                .iter()
                .flat_map(|t| {
                    std::iter::once(t.name.to_ascii_lowercase())
                        .chain(t.columns.iter().map(|c| c.name.to_ascii_lowercase()))
                })
                .collect()
        })
        .unwrap_or_default();

    let mut flagged: BTreeSet<String> = BTreeSet::new();
    for (i, t) in significant.iter().enumerate() {
        let Token::Word(w) = t else { continue };
        if w.quote_style.is_some() {
            continue;
        }
        let upper = w.value.to_ascii_uppercase();
        let prev = i.checked_sub(1).and_then(|j| significant.get(j));
        let next = significant.get(i + 1);
        if upper == "LIMIT"
            && matches!(next, Some(Token::Word(n)) if n.quote_style.is_none() && n.value.eq_ignore_ascii_case("ALL"))
        {
            scan.limit_all = true;
        }
        let hard = HARD_WORDS.contains(&upper.as_str()) || (upper == "REPLACE" && !matches!(next, Some(Token::LParen)));
        let soft = SOFT_WORDS.contains(&upper.as_str())
            && !matches!(prev, Some(Token::Period))
            && !matches!(next, Some(Token::Period))
            && !names.contains(&w.value.to_ascii_lowercase());
        if hard || soft {
            flagged.insert(upper);
        }
    }
    if !flagged.is_empty() {
        let words: Vec<String> = flagged.into_iter().collect();
        scan.reasons.push(Reason::new(
            ReasonKind::Forbidden,
            format!(
                "write/admin keyword{} {} outside a string",
                if words.len() > 1 { "s" } else { "" },
                words.join(", ")
            ),
        ));
    }

    // Comments: never executed, but a `;` or a statement keyword in one is an attempt to hide SQL.
    for t in &tokens {
        let comment = match t {
            Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => comment,
            Token::Whitespace(Whitespace::MultiLineComment(comment)) => comment,
            _ => continue,
        };
        if comment.contains(';') {
            scan.reasons.push(Reason::new(ReasonKind::Forbidden, "a comment contains ';' (hidden statement?)"));
            continue;
        }
        let hit = comment
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .find(|w| COMMENT_WORDS.iter().any(|k| k.eq_ignore_ascii_case(w)));
        if let Some(word) = hit {
            scan.reasons.push(Reason::new(
                ReasonKind::Forbidden,
                format!("a comment contains the keyword {} (hidden statement?)", word.to_ascii_uppercase()),
            ));
        }
    }

    // Non-ASCII outside literals, quoted identifiers and comments. The tokenizer folds any
    // Unicode whitespace into a plain space, so count: every non-ASCII character of the text
    // must be accounted for by an allowed token.
    let total = sql.chars().filter(|c| !c.is_ascii()).count();
    let mut allowed = 0usize;
    let mut stray: BTreeSet<char> = BTreeSet::new();
    for t in &tokens {
        let inside_allowed = match t {
            Token::Word(w) if w.quote_style.is_some() => Some(w.value.as_str()),
            Token::Word(_) => None,
            Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => Some(comment.as_str()),
            Token::Whitespace(Whitespace::MultiLineComment(comment)) => Some(comment.as_str()),
            Token::SingleQuotedString(s)
            | Token::DoubleQuotedString(s)
            | Token::TripleSingleQuotedString(s)
            | Token::TripleDoubleQuotedString(s)
            | Token::SingleQuotedByteStringLiteral(s)
            | Token::DoubleQuotedByteStringLiteral(s)
            | Token::TripleSingleQuotedByteStringLiteral(s)
            | Token::TripleDoubleQuotedByteStringLiteral(s)
            | Token::SingleQuotedRawStringLiteral(s)
            | Token::DoubleQuotedRawStringLiteral(s)
            | Token::TripleSingleQuotedRawStringLiteral(s)
            | Token::TripleDoubleQuotedRawStringLiteral(s)
            | Token::NationalStringLiteral(s)
            | Token::EscapedStringLiteral(s)
            | Token::UnicodeStringLiteral(s)
            | Token::HexStringLiteral(s) => Some(s.as_str()),
            Token::DollarQuotedString(s) => Some(s.value.as_str()),
            _ => None,
        };
        match inside_allowed {
            Some(s) => allowed += s.chars().filter(|c| !c.is_ascii()).count(),
            None => stray.extend(t.to_string().chars().filter(|c| !c.is_ascii())),
        }
    }
    if total > allowed || !stray.is_empty() {
        let shown: Vec<String> = stray.iter().take(4).map(|c| format!("U+{:04X}", *c as u32)).collect();
        let what = if shown.is_empty() { "invisible or Unicode whitespace".to_string() } else { shown.join(", ") };
        scan.reasons.push(Reason::new(
            ReasonKind::Forbidden,
            format!(
                "non-ASCII character outside string literals ({what}): \
                 look-alike letters and invisible characters are not allowed"
            ),
        ));
    }
    Ok(scan)
}

// ---------------------------------------------------------------------------------------------
// Forbidden constructs anywhere in the tree

#[derive(Default)]
struct Guard {
    reasons: Vec<Reason>,
}

impl Guard {
    fn forbid(&mut self, message: String) {
        self.reasons.push(Reason::new(ReasonKind::Forbidden, message));
    }
}

impl Visitor for Guard {
    type Break = ();

    fn pre_visit_statement(&mut self, stmt: &Statement) -> ControlFlow<()> {
        // The walk starts at the query, so any statement here is nested in it.
        self.forbid(format!("{} inside the query (data-modifying CTE or subquery)", statement_kind(stmt)));
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if !q.locks.is_empty() {
            self.forbid("locking clause FOR UPDATE/SHARE takes row locks".to_string());
        }
        if q.for_clause.is_some() || q.settings.is_some() || q.format_clause.is_some() || !q.pipe_operators.is_empty() {
            self.forbid("unsupported query clause (FOR XML/JSON, SETTINGS, FORMAT or pipe operators)".to_string());
        }
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                if matches!(
                    *cte.query.body,
                    SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
                ) {
                    self.forbid(format!("data-modifying CTE {}", cte.alias.name.value));
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<()> {
        if s.into.is_some() {
            self.forbid("SELECT … INTO creates a table".to_string());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, name: &ObjectName) -> ControlFlow<()> {
        if let Some(why) = catalog_refusal(&name_parts(name)) {
            self.forbid(why);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
        let name = match tf {
            TableFactor::Table { name, args: Some(_), .. } => Some(name),
            TableFactor::Function { name, .. } => Some(name),
            _ => None,
        };
        if let Some(why) = name.and_then(|n| function_refusal(&name_parts(n))) {
            self.forbid(why);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e
            && let Some(why) = function_refusal(&name_parts(&f.name))
        {
            self.forbid(why);
        }
        ControlFlow::Continue(())
    }
}

/// Lower-cased parts of a dotted name.
fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => i.value.to_lowercase(),
            other => other.to_string().to_lowercase(),
        })
        .collect()
}

/// Why a function name is refused (see the module doc), or None.
fn function_refusal(parts: &[String]) -> Option<String> {
    let (base, qualifier) = parts.split_last()?;
    let full = parts.join(".");
    if !qualifier.is_empty() && qualifier != ["pg_catalog"] {
        return Some(format!("schema-qualified function {full}: only pg_catalog functions may be qualified"));
    }
    let denied_prefix = DENY_FUNCTION_PREFIXES.iter().any(|p| base.starts_with(p))
        && !ALLOWED_PREFIXED_FUNCTIONS.contains(&base.as_str());
    if denied_prefix || DENY_FUNCTIONS.contains(&base.as_str()) {
        return Some(format!("function {full} is not allowed (server, file, session or sequence side effects)"));
    }
    None
}

/// Why a table name is refused as a system catalog, or None.
fn catalog_refusal(parts: &[String]) -> Option<String> {
    let (base, qualifier) = parts.split_last()?;
    let system_schema = qualifier.iter().any(|q| {
        matches!(q.as_str(), "pg_catalog" | "information_schema" | "pg_toast" | "pg_temp")
            || q.starts_with("pg_temp")
            || q.starts_with("pg_toast")
    });
    let system_table = base.starts_with("pg_")
        || base.starts_with("sqlite_")
        || base.starts_with("pragma_")
        || base == "information_schema"
        || matches!(base.as_str(), "fsdir" | "zipfile" | "dbstat");
    (system_schema || system_table).then(|| format!("system catalog {} is not allowed", parts.join(".")))
}

// ---------------------------------------------------------------------------------------------
// Scopes: tables, columns, literal filters

/// Output columns of a relation, lower-case. `open`: there may be more (unknown) columns, so
/// any name is accepted.
#[derive(Debug, Clone, Default)]
struct Columns {
    names: Vec<String>,
    open: bool,
}

impl Columns {
    fn open() -> Columns {
        Columns { names: Vec::new(), open: true }
    }

    fn knows(&self, col: &str) -> bool {
        self.names.iter().any(|n| n == col)
    }

    fn has(&self, col: &str) -> bool {
        self.open || self.knows(col)
    }

    /// Rename the first columns as a `AS t(a, b)` alias list does (an open source stays open:
    /// it may have more columns than the list names).
    fn renamed(mut self, alias: Option<&TableAlias>) -> Columns {
        if let Some(a) = alias
            && !a.columns.is_empty()
        {
            let new: Vec<String> = a.columns.iter().map(|c| c.name.value.to_lowercase()).collect();
            if self.names.len() <= new.len() {
                self.names = new;
            } else {
                self.names.splice(..new.len(), new);
            }
        }
        self
    }
}

#[derive(Debug, Clone)]
struct Rel {
    /// The name the query uses for it: alias, else table (or CTE/function) name; "" when none.
    name: String,
    /// The base table behind it, for `table.column` reporting.
    table: Option<String>,
    cols: Columns,
}

struct Scope<'p> {
    rels: Vec<Rel>,
    /// Select-list aliases (usable in ORDER BY/GROUP BY/HAVING, and WHERE on SQLite).
    aliases: Vec<String>,
    parent: Option<&'p Scope<'p>>,
}

impl<'p> Scope<'p> {
    fn new(parent: Option<&'p Scope<'p>>) -> Scope<'p> {
        Scope { rels: Vec::new(), aliases: Vec::new(), parent }
    }

    /// This scope, then its parents.
    fn chain(&self) -> impl Iterator<Item = &Scope<'p>> {
        std::iter::successors(Some(self), |s| s.parent)
    }
}

struct Analyzer<'s> {
    schema: Option<&'s DbSchema>,
    dialect: Dialect,
    /// CTEs in view, innermost last.
    ctes: Vec<(String, Columns)>,
    reasons: Vec<Reason>,
    warnings: Vec<String>,
    tables: BTreeSet<String>,
    columns: BTreeSet<String>,
    filters: Vec<LiteralFilter>,
}

impl<'s> Analyzer<'s> {
    fn new(schema: Option<&'s DbSchema>, dialect: Dialect) -> Analyzer<'s> {
        Analyzer {
            schema,
            dialect,
            ctes: Vec::new(),
            reasons: Vec::new(),
            warnings: Vec::new(),
            tables: BTreeSet::new(),
            columns: BTreeSet::new(),
            filters: Vec::new(),
        }
    }

    fn warn(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    fn cte(&self, name: &str) -> Option<&Columns> {
        self.ctes.iter().rev().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// Walk a query; returns its output columns.
    fn walk_query(&mut self, q: &Query, parent: Option<&Scope>) -> Columns {
        let mark = self.ctes.len();
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.to_lowercase();
                if with.recursive {
                    // Visible to itself; its columns are known only from the alias list.
                    let own = if cte.alias.columns.is_empty() {
                        Columns::open()
                    } else {
                        Columns::default().renamed(Some(&cte.alias))
                    };
                    self.ctes.push((name.clone(), own));
                }
                let out = self.walk_query(&cte.query, parent).renamed(Some(&cte.alias));
                if with.recursive {
                    self.ctes.pop();
                }
                self.ctes.push((name, out));
            }
        }
        let out = self.walk_set_expr(&q.body, parent, q.order_by.as_ref());
        // LIMIT/OFFSET/FETCH expressions: only their subqueries matter.
        let bare = Scope::new(parent);
        if let Some(limit) = &q.limit_clause {
            self.resolve(limit, &bare);
        }
        if let Some(fetch) = &q.fetch {
            self.resolve(fetch, &bare);
        }
        self.ctes.truncate(mark);
        out
    }

    fn walk_set_expr(&mut self, body: &SetExpr, parent: Option<&Scope>, order_by: Option<&OrderBy>) -> Columns {
        let out = match body {
            SetExpr::Select(s) => return self.walk_select(s, parent, order_by),
            SetExpr::Query(q) => self.walk_query(q, parent),
            SetExpr::SetOperation { left, right, .. } => {
                let out = self.walk_set_expr(left, parent, None);
                self.walk_set_expr(right, parent, None);
                out
            }
            SetExpr::Values(values) => {
                self.resolve(values, &Scope::new(parent));
                Columns::open()
            }
            // DML in a query is refused by the guard; TABLE t is not parsed for these dialects.
            _ => Columns::open(),
        };
        // ORDER BY of a set operation or parenthesized query: names of its output columns.
        if let Some(ob) = order_by {
            let scope = Scope {
                rels: vec![Rel { name: String::new(), table: None, cols: out.clone() }],
                aliases: Vec::new(),
                parent,
            };
            self.resolve(ob, &scope);
        }
        out
    }

    fn walk_select(&mut self, s: &Select, parent: Option<&Scope>, order_by: Option<&OrderBy>) -> Columns {
        let mut scope = Scope::new(parent);
        for twj in &s.from {
            self.add_from(twj, &mut scope);
        }
        scope.aliases = s.projection.iter().filter_map(|item| self.output_name(item)).collect();

        let mut out = Columns::default();
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    self.resolve(e, &scope);
                    match e {
                        Expr::Identifier(i) => out.names.push(i.value.to_lowercase()),
                        Expr::CompoundIdentifier(parts) => match parts.last() {
                            Some(i) => out.names.push(i.value.to_lowercase()),
                            None => out.open = true,
                        },
                        // Engines name other expressions differently (`count` vs `count(*)`).
                        _ => {
                            out.open = true;
                            out.names.extend(self.output_name(item));
                        }
                    }
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    self.resolve(expr, &scope);
                    out.names.push(alias.value.to_lowercase());
                }
                SelectItem::ExprWithAliases { expr, aliases } => {
                    self.resolve(expr, &scope);
                    out.names.extend(aliases.iter().map(|a| a.value.to_lowercase()));
                }
                SelectItem::Wildcard(_) => {
                    self.warn("SELECT * returns every column: name the columns the question needs".to_string());
                    for rel in &scope.rels {
                        out.names.extend(rel.cols.names.iter().cloned());
                        out.open |= rel.cols.open;
                    }
                    if scope.rels.is_empty() {
                        out.open = true;
                    }
                }
                SelectItem::QualifiedWildcard(kind, _) => match kind {
                    SelectItemQualifiedWildcardKind::ObjectName(name) => {
                        let parts = name_parts(name);
                        let qual = parts.last().cloned().unwrap_or_default();
                        match scope.chain().flat_map(|s| s.rels.iter()).find(|r| r.name == qual) {
                            Some(rel) => {
                                out.names.extend(rel.cols.names.iter().cloned());
                                out.open |= rel.cols.open;
                            }
                            None => {
                                out.open = true;
                                if self.schema.is_some() {
                                    self.unknown_qualifier(&qual, &format!("{qual}.*"), &scope);
                                }
                            }
                        }
                    }
                    SelectItemQualifiedWildcardKind::Expr(e) => {
                        self.resolve(e, &scope);
                        out.open = true;
                    }
                },
            }
        }

        if let Some(distinct) = &s.distinct {
            self.resolve(distinct, &scope);
        }
        if let Some(top) = &s.top {
            self.resolve(top, &scope);
        }
        if let Some(e) = &s.prewhere {
            self.resolve(e, &scope);
        }
        if let Some(e) = &s.selection {
            self.resolve(e, &scope);
        }
        match &s.group_by {
            GroupByExpr::Expressions(exprs, _) => {
                for e in exprs {
                    self.resolve(e, &scope);
                }
            }
            GroupByExpr::All(_) => {}
        }
        for e in s.cluster_by.iter().chain(&s.distribute_by) {
            self.resolve(e, &scope);
        }
        for e in &s.sort_by {
            self.resolve(e, &scope);
        }
        if let Some(e) = &s.having {
            self.resolve(e, &scope);
        }
        for w in &s.named_window {
            self.resolve(w, &scope);
        }
        if let Some(e) = &s.qualify {
            self.resolve(e, &scope);
        }
        for c in &s.connect_by {
            self.resolve(c, &scope);
        }
        for lv in &s.lateral_views {
            self.resolve(lv, &scope);
        }
        if let Some(ob) = order_by {
            self.resolve(ob, &scope);
        }
        out
    }

    /// The name a select item can be referred to by in ORDER BY/GROUP BY/HAVING: its alias, or
    /// on Postgres the name of an unaliased function call (`count(*)` is column `count`).
    fn output_name(&self, item: &SelectItem) -> Option<String> {
        match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_lowercase()),
            SelectItem::UnnamedExpr(Expr::Function(f)) if self.dialect == Dialect::Postgres => {
                name_parts(&f.name).pop()
            }
            _ => None,
        }
    }

    fn add_from(&mut self, twj: &TableWithJoins, scope: &mut Scope) {
        self.add_factor(&twj.relation, scope);
        for join in &twj.joins {
            self.add_factor(&join.relation, scope);
            use sqlparser::ast::JoinOperator as J;
            let constraint = match &join.join_operator {
                J::Join(c)
                | J::Inner(c)
                | J::Left(c)
                | J::LeftOuter(c)
                | J::Right(c)
                | J::RightOuter(c)
                | J::FullOuter(c)
                | J::CrossJoin(c)
                | J::Semi(c)
                | J::LeftSemi(c)
                | J::RightSemi(c)
                | J::Anti(c)
                | J::LeftAnti(c)
                | J::RightAnti(c)
                | J::StraightJoin(c) => Some(c),
                J::AsOf { match_condition, constraint } => {
                    self.resolve(match_condition, scope);
                    Some(constraint)
                }
                _ => None,
            };
            match constraint {
                Some(JoinConstraint::On(e)) => self.resolve(e, scope),
                Some(JoinConstraint::Using(names)) => {
                    for n in names {
                        let parts = name_parts(n);
                        if let Some(col) = parts.last() {
                            self.resolve_column(None, col, None, scope);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn add_factor(&mut self, tf: &TableFactor, scope: &mut Scope) {
        let alias_name = |alias: &Option<TableAlias>| alias.as_ref().map(|a| a.name.value.to_lowercase());
        match tf {
            TableFactor::Table { name, alias, args: None, .. } => {
                let parts = name_parts(name);
                let Some((base, qualifier)) = parts.split_last() else { return };
                let rel_name = alias_name(alias).unwrap_or_else(|| base.clone());
                if qualifier.is_empty()
                    && let Some(cols) = self.cte(base)
                {
                    let cols = cols.clone().renamed(alias.as_ref());
                    scope.rels.push(Rel { name: rel_name, table: None, cols });
                    return;
                }
                let default_schema =
                    matches!(qualifier, [] | [_]) && qualifier.iter().all(|q| q == "public" || q == "main");
                self.tables.insert(base.clone());
                let cols = match self.schema {
                    None => Columns::open(),
                    Some(_) if !default_schema => {
                        self.reasons.push(Reason::new(
                            ReasonKind::UnknownTable,
                            format!("table {}: only tables of the default schema are known", parts.join(".")),
                        ));
                        Columns::open()
                    }
                    Some(schema) => match schema.table(base) {
                        Some(t) => {
                            Columns { names: t.columns.iter().map(|c| c.name.to_lowercase()).collect(), open: false }
                        }
                        None => {
                            let names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
                            self.reasons.push(Reason::new(
                                ReasonKind::UnknownTable,
                                format!("unknown table {base}{}", suggestion(base, &names)),
                            ));
                            // Open, so its columns do not pile up more reasons.
                            Columns::open()
                        }
                    },
                };
                scope.rels.push(Rel { name: rel_name, table: Some(base.clone()), cols: cols.renamed(alias.as_ref()) });
            }
            TableFactor::Table { name, alias, args: Some(args), .. } => {
                self.resolve(args, scope);
                let fname = name_parts(name).last().cloned().unwrap_or_default();
                let cols = Columns::open().renamed(alias.as_ref());
                scope.rels.push(Rel { name: alias_name(alias).unwrap_or(fname), table: None, cols });
            }
            TableFactor::Derived { subquery, alias, .. } => {
                // The enclosing FROM items are in view (LATERAL); harmless otherwise.
                let out = self.walk_query(subquery, Some(&*scope)).renamed(alias.as_ref());
                scope.rels.push(Rel { name: alias_name(alias).unwrap_or_default(), table: None, cols: out });
            }
            TableFactor::Function { name, args, alias, .. } => {
                for a in args {
                    self.resolve(a, scope);
                }
                let fname = name_parts(name).last().cloned().unwrap_or_default();
                let cols = Columns::open().renamed(alias.as_ref());
                scope.rels.push(Rel { name: alias_name(alias).unwrap_or(fname), table: None, cols });
            }
            TableFactor::TableFunction { expr, alias } => {
                self.resolve(expr, scope);
                scope.rels.push(Rel {
                    name: alias_name(alias).unwrap_or_default(),
                    table: None,
                    cols: Columns::open(),
                });
            }
            TableFactor::UNNEST { alias, array_exprs, .. } => {
                for e in array_exprs {
                    self.resolve(e, scope);
                }
                scope.rels.push(Rel {
                    name: alias_name(alias).unwrap_or_default(),
                    table: None,
                    cols: Columns::open(),
                });
            }
            TableFactor::NestedJoin { table_with_joins, .. } => self.add_from(table_with_joins, scope),
            other => {
                // Dialect extensions these engines do not have; accept any column of them.
                self.resolve(other, scope);
                scope.rels.push(Rel { name: String::new(), table: None, cols: Columns::open() });
            }
        }
    }

    /// Resolve the column references of `node` (not descending into subqueries, which are
    /// walked as queries of their own with `scope` as parent).
    fn resolve<T: Visit>(&mut self, node: &T, scope: &Scope) {
        let mut r = Resolver { an: self, scope, depth: 0, skip: HashSet::new() };
        let _ = Visit::visit(node, &mut r);
    }

    /// Note a column of a base table (`table.column`), or a bare `column` whose table cannot be
    /// told (no schema, several candidate tables). Columns of CTEs and derived tables are not
    /// database columns and are not listed.
    fn record(&mut self, table: Option<&str>, col: &str) {
        self.columns.insert(match table {
            Some(t) => format!("{t}.{col}"),
            None => col.to_string(),
        });
    }

    /// Check a column reference, `qual.col` or bare `col`, and note it.
    fn resolve_column(&mut self, qual: Option<&str>, col: &str, quote: Option<char>, scope: &Scope) {
        let checking = self.schema.is_some();
        let Some(q) = qual else { return self.resolve_bare(col, quote, scope) };
        match scope.chain().find_map(|s| s.rels.iter().find(|r| r.name == q)) {
            Some(rel) if rel.cols.has(col) || (rel.table.is_some() && implicit_column(self.dialect, col)) => {
                if let Some(t) = rel.table.clone() {
                    self.record(Some(&t), col);
                }
            }
            Some(rel) => {
                if checking {
                    let names: Vec<&str> = rel.cols.names.iter().map(String::as_str).collect();
                    let owner = rel.table.as_deref().unwrap_or(q);
                    let message =
                        format!("unknown column {q}.{col}: {owner} has no column {col}{}", suggestion(col, &names));
                    self.reasons.push(Reason::new(ReasonKind::UnknownColumn, message));
                }
            }
            None => {
                // `q` may be a composite-typed column (`(addr).city` style), then it is fine.
                let is_column = scope.chain().any(|s| s.rels.iter().any(|r| r.cols.knows(q)));
                if checking && !is_column {
                    self.unknown_qualifier(q, &format!("{q}.{col}"), scope);
                }
            }
        }
    }

    fn resolve_bare(&mut self, col: &str, quote: Option<char>, scope: &Scope) {
        let checking = self.schema.is_some();
        // Innermost scope first, as SQL resolves names.
        for s in scope.chain() {
            if let Some(rel) = s.rels.iter().find(|r| r.cols.knows(col)) {
                if let Some(t) = rel.table.clone() {
                    self.record(Some(&t), col);
                }
                return;
            }
            // A select-list alias, or a whole-row reference to a FROM item (`WHERE t IS NULL`).
            if s.aliases.iter().any(|a| a == col) || s.rels.iter().any(|r| r.name == col) {
                return;
            }
            let open: Vec<&Rel> = s.rels.iter().filter(|r| r.cols.open).collect();
            let implicit = implicit_column(self.dialect, col) && s.rels.iter().any(|r| r.table.is_some());
            if !open.is_empty() || implicit {
                // It may belong to a relation whose columns are unknown: accept; name the table
                // when there is only one candidate.
                let bases: Vec<&str> =
                    s.rels.iter().filter(|r| r.cols.open || implicit).filter_map(|r| r.table.as_deref()).collect();
                match bases.as_slice() {
                    [t] if s.rels.len() == 1 => {
                        let t = t.to_string();
                        self.record(Some(&t), col);
                    }
                    [] => {}
                    _ => self.record(None, col),
                }
                return;
            }
        }
        if !checking {
            self.record(None, col);
            return;
        }
        if NILADIC.contains(&col) {
            return;
        }
        if self.dialect == Dialect::Sqlite && quote == Some('"') {
            self.warn(format!(
                "\"{col}\" is not a column: SQLite reads it as the string '{col}'; use single quotes for strings"
            ));
            return;
        }
        let mut names: Vec<&str> = Vec::new();
        let mut tables: Vec<&str> = Vec::new();
        for s in scope.chain() {
            for r in &s.rels {
                names.extend(r.cols.names.iter().map(String::as_str));
                tables.extend(r.table.as_deref());
            }
            names.extend(s.aliases.iter().map(String::as_str));
        }
        let context = if tables.is_empty() { String::new() } else { format!(" in {}", tables.join(", ")) };
        let message = format!("unknown column {col}{context}{}", suggestion(col, &names));
        self.reasons.push(Reason::new(ReasonKind::UnknownColumn, message));
    }

    fn unknown_qualifier(&mut self, q: &str, what: &str, scope: &Scope) {
        let names: Vec<&str> =
            scope.chain().flat_map(|s| s.rels.iter()).map(|r| r.name.as_str()).filter(|n| !n.is_empty()).collect();
        self.reasons.push(Reason::new(
            ReasonKind::UnknownColumn,
            format!("{what}: no table or alias named {q} in the FROM clause{}", suggestion(q, &names)),
        ));
    }

    /// Record `col = 'x'`, `col IN ('x', …)`, `col LIKE 'x'` comparisons.
    fn note_filter(&mut self, e: &Expr, scope: &Scope) {
        let push = |an: &mut Analyzer, col: &Expr, value: &str| {
            if let Some((qual, name)) = column_ref(col) {
                let table = an.table_of(qual.as_deref(), &name, scope);
                an.filters.push(LiteralFilter { table, column: name, value: value.to_string() });
            }
        };
        match e {
            Expr::BinaryOp { left, op: BinaryOperator::Eq | BinaryOperator::NotEq, right } => {
                if let Some(v) = string_literal(right) {
                    push(self, left, v);
                } else if let Some(v) = string_literal(left) {
                    push(self, right, v);
                }
            }
            Expr::InList { expr, list, .. } => {
                for item in list {
                    if let Some(v) = string_literal(item) {
                        push(self, expr, v);
                    }
                }
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                if let Some(v) = string_literal(pattern) {
                    push(self, expr, v);
                }
            }
            _ => {}
        }
    }

    /// The base table of a column reference, without recording or reporting anything.
    fn table_of(&self, qual: Option<&str>, col: &str, scope: &Scope) -> Option<String> {
        match qual {
            Some(q) => scope.chain().find_map(|s| s.rels.iter().find(|r| r.name == q)).and_then(|r| r.table.clone()),
            None => {
                for s in scope.chain() {
                    if let Some(r) = s.rels.iter().find(|r| r.cols.knows(col)) {
                        return r.table.clone();
                    }
                    if !s.rels.is_empty() {
                        let bases: Vec<&Rel> = s.rels.iter().filter(|r| r.cols.open).collect();
                        return if s.rels.len() == 1 && bases.len() == 1 { bases[0].table.clone() } else { None };
                    }
                }
                None
            }
        }
    }
}

/// Columns every table has without declaring them.
fn implicit_column(dialect: Dialect, col: &str) -> bool {
    match dialect {
        Dialect::Sqlite => matches!(col, "rowid" | "oid" | "_rowid_"),
        Dialect::Postgres => matches!(col, "ctid" | "xmin" | "xmax" | "cmin" | "cmax" | "tableoid"),
    }
}

/// `(qualifier, column)` of a plain column reference, lower-case.
fn column_ref(e: &Expr) -> Option<(Option<String>, String)> {
    match e {
        Expr::Identifier(i) => Some((None, i.value.to_lowercase())),
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            let n = parts.len();
            Some((Some(parts[n - 2].value.to_lowercase()), parts[n - 1].value.to_lowercase()))
        }
        Expr::Nested(inner) => column_ref(inner),
        _ => None,
    }
}

fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(ValueWithSpan { value, .. }) => match value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) | Value::NationalStringLiteral(s) => Some(s),
            Value::DollarQuotedString(d) => Some(&d.value),
            _ => None,
        },
        Expr::Nested(inner) => string_literal(inner),
        _ => None,
    }
}

struct Resolver<'a, 's, 'p> {
    an: &'a mut Analyzer<'s>,
    scope: &'a Scope<'p>,
    /// Query nesting below the node being resolved: identifiers count only at depth 0.
    depth: usize,
    /// Addresses of expressions that are not column references (names of named arguments).
    skip: HashSet<usize>,
}

impl Visitor for Resolver<'_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if self.depth == 0 {
            self.an.walk_query(q, Some(self.scope));
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth = self.depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.depth > 0 || self.skip.contains(&(e as *const Expr as usize)) {
            return ControlFlow::Continue(());
        }
        match e {
            Expr::Identifier(i) => {
                self.an.resolve_column(None, &i.value.to_lowercase(), i.quote_style, self.scope);
            }
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let n = parts.len();
                let qual = parts[n - 2].value.to_lowercase();
                let col = parts[n - 1].value.to_lowercase();
                let schema_ok =
                    parts[..n - 2].iter().all(|p| matches!(p.value.to_lowercase().as_str(), "public" | "main"));
                if schema_ok {
                    self.an.resolve_column(Some(&qual), &col, parts[n - 1].quote_style, self.scope);
                }
                // db.schema.table.col and the like: not ours to judge.
            }
            Expr::Function(f) => {
                if let FunctionArguments::List(list) = &f.args {
                    for arg in &list.args {
                        if let FunctionArg::ExprNamed { name, .. } = arg {
                            self.skip.insert(name as *const Expr as usize);
                        }
                    }
                }
            }
            _ => self.an.note_filter(e, self.scope),
        }
        ControlFlow::Continue(())
    }
}

/// " (did you mean x?)" for the closest of `names` to `word`, or a short list of them.
fn suggestion(word: &str, names: &[&str]) -> String {
    let mut unique: Vec<&str> = names.iter().copied().filter(|n| !n.is_empty()).collect();
    unique.sort_unstable();
    unique.dedup();
    if unique.is_empty() {
        return String::new();
    }
    let lower = word.to_lowercase();
    let best = unique.iter().map(|n| (edit_distance(&lower, &n.to_lowercase()), *n)).min();
    match best {
        Some((d, name)) if d <= (word.chars().count() / 2).max(2) => format!(" (did you mean {name}?)"),
        _ => {
            let shown: Vec<&str> = unique.iter().copied().take(12).collect();
            let more = if unique.len() > shown.len() { ", …" } else { "" };
            format!(" (known: {}{more})", shown.join(", "))
        }
    }
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

// ---------------------------------------------------------------------------------------------
// LIMIT

/// A non-negative integer literal (parentheses allowed); digits beyond u64 saturate.
fn literal_u64(e: &Expr) -> Option<u64> {
    match e {
        Expr::Nested(inner) => literal_u64(inner),
        Expr::Value(ValueWithSpan { value: Value::Number(s, _), .. }) => {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(s.parse::<u64>().unwrap_or(u64::MAX))
        }
        _ => None,
    }
}

fn number(n: u64) -> Expr {
    Expr::Value(Value::Number(n.to_string(), false).into())
}

/// Enforce the row cap on the outermost query (see the module doc, rule 7).
fn cap_limit(q: &mut Query, dialect: Dialect, row_cap: usize, v: &mut Verdict) {
    let cap = u64::try_from(row_cap).unwrap_or(u64::MAX);
    let limit_reason = |v: &mut Verdict, m: String| v.reasons.push(Reason::new(ReasonKind::Limit, m));

    if let Some(fetch) = q.fetch.take() {
        if dialect == Dialect::Sqlite {
            return limit_reason(v, "FETCH FIRST is not SQLite syntax: use LIMIT n".to_string());
        }
        if fetch.percent || fetch.with_ties {
            return limit_reason(v, "FETCH … PERCENT / WITH TIES can exceed the row cap: use LIMIT n".to_string());
        }
        let n = match &fetch.quantity {
            None => 1,
            Some(e) => match literal_u64(e) {
                Some(n) => n,
                None => {
                    return limit_reason(v, format!("FETCH FIRST {e} ROWS: the row count must be an integer literal"));
                }
            },
        };
        let offset = match q.limit_clause.take() {
            None => None,
            Some(LimitClause::LimitOffset { limit: None, offset, limit_by }) if limit_by.is_empty() => offset,
            Some(other) => {
                q.limit_clause = Some(other);
                return limit_reason(v, "both LIMIT and FETCH FIRST: use LIMIT n alone".to_string());
            }
        };
        let m = n.min(cap);
        v.changes.push(if m < n {
            format!("FETCH FIRST {n} ROWS rewritten as LIMIT {m} (row cap)")
        } else {
            format!("FETCH FIRST {n} ROWS rewritten as LIMIT {m}")
        });
        q.limit_clause = Some(LimitClause::LimitOffset { limit: Some(number(m)), offset, limit_by: Vec::new() });
    }

    let check_offset = |v: &mut Verdict, e: &Expr| match literal_u64(e) {
        Some(n) if n <= MAX_OFFSET => {}
        Some(n) => v.reasons.push(Reason::new(ReasonKind::Limit, format!("OFFSET {n} is larger than {MAX_OFFSET}"))),
        None => v.reasons.push(Reason::new(ReasonKind::Limit, format!("OFFSET {e}: must be an integer literal"))),
    };
    let lower = |v: &mut Verdict, limit: &mut Expr| match literal_u64(limit) {
        Some(n) if n <= cap => {}
        Some(_) => {
            v.changes.push(format!("LIMIT {limit} lowered to {cap}"));
            *limit = number(cap);
        }
        None => v.reasons.push(Reason::new(
            ReasonKind::Limit,
            format!("LIMIT {limit}: must be a non-negative integer literal (at most {cap})"),
        )),
    };
    match &mut q.limit_clause {
        None => {
            v.changes.push(format!("LIMIT {cap} added"));
            q.limit_clause =
                Some(LimitClause::LimitOffset { limit: Some(number(cap)), offset: None, limit_by: Vec::new() });
        }
        Some(LimitClause::LimitOffset { limit, offset, limit_by }) => {
            if !limit_by.is_empty() {
                limit_reason(v, "LIMIT … BY is not supported".to_string());
            }
            if let Some(o) = offset {
                check_offset(v, &o.value);
            }
            match limit {
                Some(l) => lower(v, l),
                None => {
                    v.changes.push(format!("LIMIT {cap} added"));
                    *limit = Some(number(cap));
                }
            }
        }
        Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
            check_offset(v, offset);
            lower(v, limit);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Case-insensitive rewrite

struct CaseFix {
    dialect: Dialect,
    changed: usize,
}

/// A literal whose case matters (it has letters with upper/lower forms).
fn has_cased_letters(s: &str) -> bool {
    s.chars().any(|c| c.is_lowercase() || c.is_uppercase())
}

fn like_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn single_quoted(s: String) -> Expr {
    Expr::Value(Value::SingleQuotedString(s).into())
}

fn call(name: &str, arg: Expr) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))],
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

fn nocase(e: Expr) -> Expr {
    Expr::Collate { expr: Box::new(e), collation: ObjectName::from(vec![Ident::new("NOCASE")]) }
}

impl VisitorMut for CaseFix {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let replacement = match (&*e, self.dialect) {
            (Expr::BinaryOp { left, op: op @ (BinaryOperator::Eq | BinaryOperator::NotEq), right }, dialect) => {
                let (col, lit) = if column_ref(left).is_some() && string_literal(right).is_some() {
                    (left, right)
                } else if column_ref(right).is_some() && string_literal(left).is_some() {
                    (right, left)
                } else {
                    return ControlFlow::Continue(());
                };
                let value = string_literal(lit).unwrap_or_default();
                if !has_cased_letters(value) {
                    return ControlFlow::Continue(());
                }
                match dialect {
                    Dialect::Postgres => Expr::ILike {
                        negated: *op == BinaryOperator::NotEq,
                        any: false,
                        expr: col.clone(),
                        pattern: Box::new(single_quoted(like_escape(value))),
                        escape_char: None,
                    },
                    Dialect::Sqlite => Expr::BinaryOp {
                        left: col.clone(),
                        op: op.clone(),
                        right: Box::new(nocase(single_quoted(value.to_string()))),
                    },
                }
            }
            (Expr::InList { expr, list, negated }, dialect) => {
                if column_ref(expr).is_none()
                    || !list.iter().all(|x| string_literal(x).is_some())
                    || !list.iter().any(|x| string_literal(x).is_some_and(has_cased_letters))
                {
                    return ControlFlow::Continue(());
                }
                match dialect {
                    Dialect::Postgres => Expr::InList {
                        expr: Box::new(call("lower", (**expr).clone())),
                        list: list.iter().map(|x| call("lower", x.clone())).collect(),
                        negated: *negated,
                    },
                    Dialect::Sqlite => {
                        Expr::InList { expr: Box::new(nocase((**expr).clone())), list: list.clone(), negated: *negated }
                    }
                }
            }
            (Expr::Like { negated, any: false, expr, pattern, escape_char }, Dialect::Postgres) => {
                if column_ref(expr).is_none() || !string_literal(pattern).is_some_and(has_cased_letters) {
                    return ControlFlow::Continue(());
                }
                Expr::ILike {
                    negated: *negated,
                    any: false,
                    expr: expr.clone(),
                    pattern: pattern.clone(),
                    escape_char: escape_char.clone(),
                }
            }
            _ => return ControlFlow::Continue(()),
        };
        *e = replacement;
        self.changed += 1;
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::{ColumnInfo, TableInfo};

    fn table(name: &str, cols: &[&str]) -> TableInfo {
        TableInfo {
            name: name.to_string(),
            columns: cols
                .iter()
                .map(|c| ColumnInfo { name: c.to_string(), data_type: "text".into(), ..ColumnInfo::default() })
                .collect(),
            ..TableInfo::default()
        }
    }

    fn schema() -> DbSchema {
        DbSchema {
            dialect: None,
            tables: vec![
                table("departments", &["id", "name", "region"]),
                table("audits", &["id", "title", "department_id", "status", "started_on"]),
                table("findings", &["id", "audit_id", "severity", "status", "estimated_cost", "reported_on"]),
            ],
        }
    }

    fn check(sql: &str, dialect: Dialect) -> Verdict {
        validate(sql, dialect, Some(&schema()), 100)
    }

    #[track_caller]
    fn refused(sql: &str, dialect: Dialect, kind: ReasonKind) -> Verdict {
        let v = check(sql, dialect);
        assert!(!v.ok && v.sql.is_none(), "accepted: {sql}\n{v:?}");
        assert!(v.has(kind), "{sql}: expected {kind:?}, got {:?}", v.reasons);
        v
    }

    #[track_caller]
    fn accepted(sql: &str, dialect: Dialect) -> Verdict {
        let v = check(sql, dialect);
        assert!(v.ok, "refused: {sql}\n{:?}", v.reasons);
        v
    }

    const BOTH: [Dialect; 2] = [Dialect::Sqlite, Dialect::Postgres];

    #[test]
    fn empty_and_parse_errors() {
        for d in BOTH {
            refused("", d, ReasonKind::Empty);
            refused("  \n\t ", d, ReasonKind::Empty);
            refused("-- nothing here\n/* at all */", d, ReasonKind::Empty);
            refused(";", d, ReasonKind::Empty);
            let v = refused("SELEC id FROM findings", d, ReasonKind::Parse);
            assert!(v.reasons[0].message.len() < 260, "{}", v.reasons[0].message);
            refused("SELECT 'unterminated FROM findings", d, ReasonKind::Parse);
        }
    }

    #[test]
    fn exactly_one_statement() {
        for d in BOTH {
            accepted("SELECT id FROM findings;", d);
            accepted("SELECT id FROM findings ; ;", d);
            refused("SELECT 1; SELECT 2", d, ReasonKind::MultipleStatements);
            refused("SELECT id FROM findings; DROP TABLE findings", d, ReasonKind::MultipleStatements);
        }
        refused(
            "COMMIT; BEGIN READ WRITE; UPDATE findings SET status = 'Closed'",
            Dialect::Postgres,
            ReasonKind::MultipleStatements,
        );
    }

    #[test]
    fn only_queries() {
        let cases = [
            ("INSERT INTO findings (id) VALUES (1)", "INSERT"),
            ("UPDATE findings SET status = 'Closed'", "UPDATE"),
            ("DELETE FROM findings", "DELETE"),
            ("DROP TABLE findings", "DROP"),
            ("CREATE TABLE x (a INT)", "CREATE TABLE"),
        ];
        for d in BOTH {
            for (sql, kind) in cases {
                let v = refused(sql, d, ReasonKind::NotQuery);
                assert!(v.reasons[0].message.starts_with(kind), "{sql}: {:?}", v.reasons);
            }
        }
        refused("EXPLAIN ANALYZE DELETE FROM findings", Dialect::Postgres, ReasonKind::NotQuery);
        refused("SET ROLE postgres", Dialect::Postgres, ReasonKind::NotQuery);
        refused("SHOW search_path", Dialect::Postgres, ReasonKind::NotQuery);
        refused("PRAGMA writable_schema = 1", Dialect::Sqlite, ReasonKind::NotQuery);
        refused("ATTACH DATABASE '/tmp/x.db' AS x", Dialect::Sqlite, ReasonKind::NotQuery);
        refused("VALUES (1), (2)", Dialect::Postgres, ReasonKind::NotQuery);
    }

    #[test]
    fn forbidden_constructs_in_the_tree() {
        let pg = Dialect::Postgres;
        refused("WITH d AS (DELETE FROM findings RETURNING *) SELECT * FROM d", pg, ReasonKind::Forbidden);
        refused(
            "WITH u AS (UPDATE findings SET status = 'x' RETURNING id) SELECT id FROM u",
            pg,
            ReasonKind::Forbidden,
        );
        refused("SELECT * INTO copy_of FROM findings", pg, ReasonKind::Forbidden);
        refused("SELECT id FROM findings FOR UPDATE", pg, ReasonKind::Forbidden);
        refused("SELECT id FROM findings FOR NO KEY UPDATE", pg, ReasonKind::Forbidden);
        refused("SELECT id FROM findings FOR SHARE", pg, ReasonKind::Forbidden);
        refused("SELECT id FROM (SELECT id FROM findings FOR SHARE) s", pg, ReasonKind::Forbidden);
        refused(
            "SELECT id FROM findings WHERE id IN (SELECT audit_id FROM findings FOR UPDATE)",
            pg,
            ReasonKind::Forbidden,
        );
        refused("SELECT id FROM findings UNION SELECT id FROM audits FOR UPDATE", pg, ReasonKind::Forbidden);
        refused("WITH x AS (SELECT id FROM findings) SELECT id INTO t2 FROM x", pg, ReasonKind::Forbidden);
    }

    #[test]
    fn functions_policy() {
        let pg = Dialect::Postgres;
        for f in [
            "pg_sleep(10)",
            "pg_catalog.pg_sleep(10)",
            "PG_SLEEP_FOR('5 minutes')",
            "pg_read_file('/etc/passwd')",
            "pg_ls_dir('.')",
            "pg_terminate_backend(1)",
            "pg_advisory_lock(1)",
            "set_config('default_transaction_read_only', 'off', false)",
            "nextval('findings_id_seq')",
            "lo_import('/etc/passwd')",
            "dblink('host=x', 'DELETE FROM t')",
            "query_to_xml('DELETE FROM t', true, true, '')",
            "public.my_fn(1)",
            "\"pg_sleep\"(1)",
        ] {
            refused(&format!("SELECT {f} FROM findings"), pg, ReasonKind::Forbidden);
        }
        refused("SELECT id FROM findings WHERE id IN (SELECT pg_sleep(1))", pg, ReasonKind::Forbidden);
        refused("SELECT * FROM pg_ls_dir('.') AS f(name)", pg, ReasonKind::Forbidden);
        for f in
            ["load_extension('x.so')", "readfile('/etc/passwd')", "writefile('/tmp/x', 'y')", "fts3_tokenizer('x')"]
        {
            refused(&format!("SELECT {f} FROM findings"), Dialect::Sqlite, ReasonKind::Forbidden);
        }
        refused("SELECT name FROM fsdir('/')", Dialect::Sqlite, ReasonKind::Forbidden);
        accepted("SELECT pg_typeof(id), current_setting('TimeZone'), upper(status) FROM findings", pg);
        accepted("SELECT replace(status, 'a', 'b'), coalesce(severity, 'x') FROM findings", Dialect::Sqlite);
    }

    #[test]
    fn catalogs_refused_even_without_schema() {
        for (sql, d) in [
            ("SELECT usename, passwd FROM pg_shadow", Dialect::Postgres),
            ("SELECT * FROM pg_catalog.pg_tables", Dialect::Postgres),
            ("SELECT table_name FROM information_schema.tables", Dialect::Postgres),
            ("SELECT sql FROM sqlite_master", Dialect::Sqlite),
            ("SELECT sql FROM main.sqlite_schema", Dialect::Sqlite),
            ("SELECT * FROM sqlite_temp_master", Dialect::Sqlite),
            ("SELECT * FROM pragma_table_info('findings')", Dialect::Sqlite),
        ] {
            let v = validate(sql, d, None, 100);
            assert!(!v.ok && v.has(ReasonKind::Forbidden), "{sql}: {v:?}");
        }
    }

    #[test]
    fn keyword_scan() {
        let lite = Dialect::Sqlite;
        // REPLACE as a statement, not the function.
        let v = validate("REPLACE INTO findings (id) VALUES (1)", lite, None, 100);
        assert!(!v.ok);
        // Soft words: refused bare, fine as dotted names or schema names.
        let mut s = schema();
        s.tables.push(table("machines", &["load", "set"]));
        let ok = validate("SELECT m.load, load FROM machines m", lite, Some(&s), 100);
        assert!(ok.ok, "{:?}", ok.reasons);
        let v = validate("SELECT load FROM machines", lite, None, 100);
        assert!(v.has(ReasonKind::Forbidden), "{v:?}");
        // Quoted identifiers and strings are not keywords.
        accepted("SELECT id AS \"update\" FROM findings WHERE status = 'delete me; drop table x'", lite);
        // Case tricks.
        refused("SELECT id FROM findings UNION SELECT 1 dElEtE", lite, ReasonKind::Forbidden);
    }

    #[test]
    fn comments_rule() {
        for d in BOTH {
            accepted("-- top findings by cost\nSELECT id /* the key */ FROM findings", d);
            refused("SELECT id FROM findings /* ; DROP TABLE findings */", d, ReasonKind::Forbidden);
            refused("SELECT id FROM findings -- then drop table findings", d, ReasonKind::Forbidden);
        }
        // The output never carries comments.
        let v = accepted("SELECT id -- note\nFROM findings", Dialect::Sqlite);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 100"));
    }

    #[test]
    fn non_ascii_outside_literals() {
        for d in BOTH {
            refused("SELECT id FROM findings WHERE status = 'Open' \u{200B}", d, ReasonKind::Forbidden);
            refused("SELECT\u{00A0}id FROM findings", d, ReasonKind::Forbidden);
            // Cyrillic "е" in DELETE.
            let v = check("D\u{0435}LETE FROM findings", d);
            assert!(!v.ok && v.has(ReasonKind::Forbidden), "{v:?}");
            accepted("SELECT id FROM findings WHERE status = 'Ouvert – résolu'", d);
            accepted("SELECT id AS \"état\" FROM findings -- café", d);
        }
        // An escape that produces a non-ASCII character must not hide a raw one outside.
        refused("SELECT E'\\u00e9' AS x,\u{00A0}id FROM findings", Dialect::Postgres, ReasonKind::Forbidden);
    }

    #[test]
    fn unknown_tables_and_columns() {
        for d in BOTH {
            let v = refused("SELECT id FROM finding", d, ReasonKind::UnknownTable);
            assert!(v.reasons[0].message.contains("did you mean findings"), "{:?}", v.reasons);
            let v = refused("SELECT severty FROM findings", d, ReasonKind::UnknownColumn);
            assert!(v.reasons[0].message.contains("did you mean severity"), "{:?}", v.reasons);
            let v = refused("SELECT f.severty FROM findings f", d, ReasonKind::UnknownColumn);
            assert!(v.reasons[0].message.contains("did you mean severity"), "{:?}", v.reasons);
            refused("SELECT a.title FROM findings f JOIN audits a ON a.id = f.audit_idx", d, ReasonKind::UnknownColumn);
            refused("SELECT x.id FROM findings f", d, ReasonKind::UnknownColumn);
            refused("SELECT id FROM findings WHERE id IN (SELECT nope FROM audits)", d, ReasonKind::UnknownColumn);
            refused(
                "SELECT id FROM findings WHERE EXISTS (SELECT 1 FROM audit a WHERE a.id = findings.audit_id)",
                d,
                ReasonKind::UnknownTable,
            );
            refused(
                "WITH c AS (SELECT audit_id AS a FROM findings) SELECT c.audit_id FROM c",
                d,
                ReasonKind::UnknownColumn,
            );
            // Without a schema nothing is checked.
            assert!(validate("SELECT nope FROM nowhere", d, None, 10).ok);
        }
        refused("SELECT id FROM other.findings", Dialect::Postgres, ReasonKind::UnknownTable);
        accepted("SELECT f.id FROM public.findings f", Dialect::Postgres);
        accepted("SELECT findings.id FROM main.findings", Dialect::Sqlite);
    }

    #[test]
    fn no_false_positives_on_common_shapes() {
        let pg = Dialect::Postgres;
        let lite = Dialect::Sqlite;
        for d in BOTH {
            accepted("SELECT COUNT(*), COUNT(DISTINCT severity) AS n FROM findings", d);
            accepted("SELECT severity, COUNT(*) AS n FROM findings GROUP BY severity HAVING n > 1 ORDER BY n DESC", d);
            accepted("SELECT status AS s FROM findings ORDER BY s", d);
            accepted("SELECT CASE WHEN severity = 'High' THEN 1 ELSE 0 END AS hi, TRUE, FALSE, NULL FROM findings", d);
            accepted("SELECT CAST(estimated_cost AS INTEGER), CURRENT_DATE, CURRENT_TIMESTAMP FROM findings", d);
            accepted(
                "WITH per AS (SELECT audit_id, COUNT(*) AS n FROM findings GROUP BY audit_id) \
                 SELECT a.title, per.n FROM per JOIN audits a ON a.id = per.audit_id",
                d,
            );
            accepted("SELECT t.x FROM (SELECT id AS x FROM findings) t", d);
            accepted("SELECT x FROM (SELECT id, severity FROM findings) AS t(x, y)", d);
            accepted(
                "SELECT id, ROW_NUMBER() OVER (PARTITION BY severity ORDER BY estimated_cost DESC) AS rn FROM findings",
                d,
            );
            accepted("SELECT id FROM findings f WHERE EXISTS (SELECT 1 FROM audits a WHERE a.id = f.audit_id)", d);
            accepted("SELECT status FROM findings UNION ALL SELECT status FROM audits ORDER BY status", d);
            accepted("SELECT a.*, d.name FROM audits a LEFT JOIN departments d ON d.id = a.department_id", d);
            accepted("SELECT id FROM findings JOIN audits USING (id)", d);
            accepted("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r", d);
            accepted("SELECT sub.cnt FROM (SELECT COUNT(*) AS cnt FROM findings) sub", d);
            accepted("SELECT c FROM (SELECT COUNT(*) FROM findings) AS t(c)", d);
        }
        accepted("SELECT EXTRACT(YEAR FROM reported_on) AS y, date_trunc('month', reported_on) FROM findings", pg);
        accepted("SELECT id FROM findings WHERE reported_on > CURRENT_DATE - INTERVAL '30 days'", pg);
        accepted("SELECT make_interval(days => 3), n FROM generate_series(1, 3) AS g(n)", pg);
        accepted("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY estimated_cost) FROM findings", pg);
        accepted("SELECT DISTINCT ON (severity) severity, id FROM findings ORDER BY severity, estimated_cost DESC", pg);
        accepted("SELECT severity, count(*) FROM findings GROUP BY severity ORDER BY count DESC", pg);
        refused(
            "SELECT severity, count(*) FROM findings GROUP BY severity ORDER BY count DESC",
            lite,
            ReasonKind::UnknownColumn,
        );
        accepted(
            "SELECT strftime('%Y', reported_on) AS y, date('now'), julianday(reported_on), rowid FROM findings",
            lite,
        );
        // SQLite double-quoted string: a warning, not a refusal.
        let v = accepted("SELECT id FROM findings WHERE status = \"Open\"", lite);
        assert!(v.warnings.iter().any(|w| w.contains("single quotes")), "{:?}", v.warnings);
        refused("SELECT id FROM findings WHERE status = \"Open\"", pg, ReasonKind::UnknownColumn);
    }

    #[test]
    fn tables_columns_and_warnings() {
        let v = accepted(
            "WITH per AS (SELECT audit_id FROM findings) SELECT a.title, f.severity, per.audit_id \
             FROM audits a JOIN findings f ON f.audit_id = a.id JOIN per ON per.audit_id = a.id",
            Dialect::Postgres,
        );
        assert_eq!(v.tables, vec!["audits", "findings"]);
        for c in ["audits.title", "findings.severity", "audits.id", "findings.audit_id"] {
            assert!(v.columns.contains(&c.to_string()), "{c} missing from {:?}", v.columns);
        }
        let v = accepted("SELECT * FROM findings", Dialect::Sqlite);
        assert!(v.warnings.iter().any(|w| w.contains("SELECT *")));
    }

    #[test]
    fn limit_rules() {
        for d in BOTH {
            let v = accepted("SELECT id FROM findings", d);
            assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 100"));
            assert_eq!(v.changes, vec!["LIMIT 100 added"]);
            let v = accepted("SELECT id FROM findings LIMIT 5000", d);
            assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 100"));
            assert_eq!(v.changes, vec!["LIMIT 5000 lowered to 100"]);
            let v = accepted("SELECT id FROM findings LIMIT 99999999999999999999999", d);
            assert!(v.sql.unwrap().ends_with("LIMIT 100"));
            let v = accepted("SELECT id FROM findings LIMIT 7 OFFSET 20", d);
            assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 7 OFFSET 20"));
            assert!(v.changes.is_empty());
            refused("SELECT id FROM findings LIMIT (SELECT 1000)", d, ReasonKind::Limit);
            refused("SELECT id FROM findings LIMIT -1", d, ReasonKind::Limit);
            refused("SELECT id FROM findings LIMIT 10 OFFSET 100001", d, ReasonKind::Limit);
            refused("SELECT id FROM findings LIMIT 1.5", d, ReasonKind::Limit);
            // Inner LIMITs are the query's business; the outer one gets the cap.
            let v = accepted("SELECT id FROM (SELECT id FROM findings LIMIT 5000) t", d);
            assert!(v.sql.unwrap().ends_with(") AS t LIMIT 100") || v.changes == vec!["LIMIT 100 added"]);
        }
        let pg = Dialect::Postgres;
        refused("SELECT id FROM findings LIMIT ALL", pg, ReasonKind::Limit);
        refused("SELECT id FROM findings LIMIT $1", pg, ReasonKind::Limit);
        let v = accepted("SELECT id FROM findings ORDER BY id OFFSET 5 ROWS FETCH FIRST 500 ROWS ONLY", pg);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings ORDER BY id LIMIT 100 OFFSET 5 ROWS"));
        let v = accepted("SELECT id FROM findings FETCH FIRST 3 ROWS ONLY", pg);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 3"));
        refused("SELECT id FROM findings FETCH FIRST 10 ROWS WITH TIES", pg, ReasonKind::Limit);
        refused("SELECT id FROM findings FETCH FIRST 10 PERCENT ROWS ONLY", pg, ReasonKind::Limit);
        let v = accepted("SELECT id FROM findings LIMIT 20, 5000", Dialect::Sqlite);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 20, 100"));
        // Cap 0 still means a LIMIT.
        let v = validate("SELECT id FROM findings LIMIT 3", pg, Some(&schema()), 0);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 0"));
    }

    #[test]
    fn output_is_idempotent() {
        for d in BOTH {
            let v = accepted("select   f.id , 'it''s' as q from findings f where f.status='Open' order by 1", d);
            let sql = v.sql.clone().unwrap();
            let again = check(&sql, d);
            assert_eq!(again.sql.as_deref(), Some(sql.as_str()), "{:?}", again.reasons);
            assert!(again.changes.is_empty());
        }
        let v = accepted("SELECT id FROM findings WHERE status = E'it\\'s' OR status = $$a$$", Dialect::Postgres);
        let sql = v.sql.unwrap();
        assert_eq!(check(&sql, Dialect::Postgres).sql.as_deref(), Some(sql.as_str()));
    }

    #[test]
    fn deep_nesting_is_a_parse_error_not_a_crash() {
        for d in BOTH {
            let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
            refused(&sql, d, ReasonKind::Parse);
            let sql = format!("SELECT id FROM findings WHERE {}", vec!["id = 1"; 2000].join(" AND "));
            let v = check(&sql, d);
            assert!(v.ok, "{:?}", v.reasons);
            let sql = format!("SELECT 1{}", "+1".repeat(4900));
            assert!(validate(&sql, d, None, 10).ok);
            refused(&format!("SELECT 1{}", "+1".repeat(20_000)), d, ReasonKind::Parse);
            for chain in [" IS NULL", "::int", "+1", " || 'a'", "->'a'"] {
                let n = (MAX_TOKENS - 20) / (chain.split(' ').count().max(1) + 1);
                let sql = format!("SELECT id FROM findings WHERE id{} = 1 OR id = 2", chain.repeat(n));
                let v = check(&sql, d);
                assert!(
                    !v.reasons.iter().any(|r| r.message.contains("internal") || r.message.contains("too complex")),
                    "{chain}: {:?}",
                    v.reasons
                );
            }
            refused(&"x".repeat(MAX_SQL_BYTES + 1), d, ReasonKind::Parse);
            // The helpers have the same bounds.
            let long = format!("SELECT id FROM findings WHERE status = 'x' AND id = 1{}", "+1".repeat(30_000));
            assert!(literal_filters(&long, d).is_empty());
            assert_eq!(case_insensitive(&long, d), None);
            assert_eq!(count_probe(&long, d), None);
        }
    }

    #[test]
    fn literal_filters_resolve_aliases() {
        let sql = "SELECT f.id FROM findings f JOIN audits a ON a.id = f.audit_id \
                   WHERE f.severity = 'High' AND a.status IN ('Open', 'Planned') AND title LIKE 'Q1%' AND 'x' = f.status";
        let got = literal_filters(sql, Dialect::Postgres);
        let want = |t: Option<&str>, c: &str, v: &str| LiteralFilter {
            table: t.map(str::to_string),
            column: c.into(),
            value: v.into(),
        };
        assert_eq!(
            got,
            vec![
                want(Some("findings"), "severity", "High"),
                want(Some("audits"), "status", "Open"),
                want(Some("audits"), "status", "Planned"),
                want(None, "title", "Q1%"),
                want(Some("findings"), "status", "x"),
            ]
        );
        let got = literal_filters("SELECT id FROM findings WHERE status = 'Open'", Dialect::Sqlite);
        assert_eq!(got, vec![want(Some("findings"), "status", "Open")]);
        assert!(literal_filters("not sql", Dialect::Sqlite).is_empty());
    }

    #[test]
    fn case_insensitive_rewrites_and_revalidates() {
        let sql = "SELECT id FROM findings WHERE status = 'open' AND severity IN ('high', 'critical') \
                   AND reported_on = '2024-01-01' LIMIT 10";
        let pg = case_insensitive(sql, Dialect::Postgres).unwrap();
        assert_eq!(
            pg,
            "SELECT id FROM findings WHERE status ILIKE 'open' AND lower(severity) IN (lower('high'), lower('critical')) \
             AND reported_on = '2024-01-01' LIMIT 10"
        );
        let lite = case_insensitive(sql, Dialect::Sqlite).unwrap();
        assert_eq!(
            lite,
            "SELECT id FROM findings WHERE status = 'open' COLLATE NOCASE AND severity COLLATE NOCASE IN ('high', 'critical') \
             AND reported_on = '2024-01-01' LIMIT 10"
        );
        for (s, d) in [(pg, Dialect::Postgres), (lite, Dialect::Sqlite)] {
            let v = check(&s, d);
            assert!(v.ok, "{s}: {:?}", v.reasons);
            assert_eq!(v.sql.as_deref(), Some(s.as_str()));
        }
        // Wildcards in the literal are escaped for ILIKE.
        let s = case_insensitive("SELECT id FROM findings WHERE status <> '50%_off\\x'", Dialect::Postgres).unwrap();
        assert_eq!(s, "SELECT id FROM findings WHERE status NOT ILIKE '50\\%\\_off\\\\x'");
        let s = case_insensitive("SELECT id FROM findings WHERE status LIKE 'Op%'", Dialect::Postgres).unwrap();
        assert_eq!(s, "SELECT id FROM findings WHERE status ILIKE 'Op%'");
        assert_eq!(case_insensitive("SELECT id FROM findings WHERE id = 3", Dialect::Postgres), None);
        assert_eq!(case_insensitive("DELETE FROM findings WHERE status = 'x'", Dialect::Postgres), None);
        assert_eq!(case_insensitive("SELEC", Dialect::Sqlite), None);
    }

    #[test]
    fn count_probe_wraps_without_limit_and_order() {
        let p =
            count_probe("SELECT id FROM findings WHERE status = 'Open' ORDER BY id LIMIT 10", Dialect::Sqlite).unwrap();
        assert_eq!(p, "SELECT COUNT(*) FROM (SELECT id FROM findings WHERE status = 'Open') AS qa_probe LIMIT 1");
        let v = check(&p, Dialect::Sqlite);
        assert!(v.ok && v.changes.is_empty(), "{v:?}");
        let p = count_probe(
            "WITH x AS (SELECT id FROM findings) SELECT id FROM x FETCH FIRST 5 ROWS ONLY",
            Dialect::Postgres,
        )
        .unwrap();
        assert_eq!(
            p,
            "SELECT COUNT(*) FROM (WITH x AS (SELECT id FROM findings) SELECT id FROM x) AS qa_probe LIMIT 1"
        );
        assert!(check(&p, Dialect::Postgres).ok);
        assert_eq!(count_probe("DROP TABLE findings", Dialect::Sqlite), None);
        assert_eq!(count_probe("SELECT (", Dialect::Sqlite), None);
    }

    #[test]
    fn suggestions_and_distance() {
        assert_eq!(edit_distance("severty", "severity"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(suggestion("finding", &["audits", "findings"]), " (did you mean findings?)");
        assert_eq!(suggestion("zzzzzzzz", &["audits", "findings"]), " (known: audits, findings)");
    }
}
