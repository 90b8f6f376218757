//! Ties at the cut of a top-N answer: "which airline has the most flights?" answered with one
//! row when twelve airlines have exactly as many flights is a confident answer the data does
//! not support. The probe reruns the statement a little past its `LIMIT` with its first sort
//! key as a column, so the caller can keep every row that ties with the last one shown.

use sqlparser::ast::{Expr, Ident, LimitClause, OrderByKind, SelectItem, SetExpr, Statement, Value, ValueWithSpan};

use super::{limit, on_big_stack, parse_one, MAX_SQL_BYTES};
use crate::Dialect;

/// Top-N lists longer than this are lists, not "the most …": their cut is not checked.
const MAX_TOP_N: u64 = 10;
/// How many rows past the cut the probe reads.
const PAST_THE_CUT: u64 = 100;

/// A rerun of a top-N statement that shows where its sort key ties.
#[derive(Debug, Clone, PartialEq)]
pub struct TieProbe {
    /// The statement, `LIMIT n + PAST_THE_CUT`, the sort key added as the last column when it
    /// is not a column already. The caller validates it like any statement.
    pub sql: String,
    /// The statement's own `LIMIT`.
    pub n: usize,
    /// The result column holding the sort key; `None`: the probe's last column (added).
    pub key_column: Option<usize>,
    /// The sort key as written, for the note.
    pub key: String,
    /// The probe's `LIMIT`.
    pub limit: usize,
}

/// The probe of a statement whose outer query is one `SELECT … ORDER BY … LIMIT n` (n ≤ 10, no
/// OFFSET); None for anything else.
pub fn tie_probe(sql: &str, dialect: Dialect) -> Option<TieProbe> {
    if sql.len() > MAX_SQL_BYTES {
        return None;
    }
    on_big_stack(|| {
        let Some(Statement::Query(mut q)) = parse_one(sql, dialect) else { return None };
        if q.fetch.is_some() || q.with.is_some() {
            return None;
        }
        let n = match &q.limit_clause {
            Some(LimitClause::LimitOffset { limit: Some(l), offset: None, limit_by }) if limit_by.is_empty() => limit::literal_u64(l)?,
            _ => return None,
        };
        if n == 0 || n > MAX_TOP_N {
            return None;
        }
        let key = match q.order_by.as_ref().map(|o| &o.kind) {
            Some(OrderByKind::Expressions(es)) => es.first()?.expr.clone(),
            _ => return None,
        };
        let SetExpr::Select(select) = q.body.as_mut() else { return None };
        let key_column = key_column(&select.projection, &key);
        if key_column.is_none() {
            // Under DISTINCT another column would change which rows are distinct.
            if select.distinct.is_some() || matches!(key, Expr::Value(_)) {
                return None;
            }
            select.projection.push(SelectItem::ExprWithAlias { expr: key.clone(), alias: Ident::new("qa_tie_key") });
        }
        let probe_limit = n + PAST_THE_CUT;
        q.limit_clause = Some(LimitClause::LimitOffset { limit: Some(limit::number(probe_limit)), offset: None, limit_by: Vec::new() });
        Some(TieProbe { sql: Statement::Query(q).to_string(), n: n as usize, key_column, key: key.to_string(), limit: probe_limit as usize })
    })
    .flatten()
}

/// The projection's column that is the sort key: the same expression, its alias, or its
/// position (`ORDER BY 2`). None when the key is not selected, or a wildcard hides the columns.
fn key_column(projection: &[SelectItem], key: &Expr) -> Option<usize> {
    if let Expr::Value(ValueWithSpan { value: Value::Number(s, _), .. }) = key {
        let i: usize = s.parse().ok()?;
        return (i >= 1 && i <= projection.len()).then(|| i - 1);
    }
    for (i, item) in projection.iter().enumerate() {
        match item {
            SelectItem::UnnamedExpr(e) if same(e, key) => return Some(i),
            SelectItem::ExprWithAlias { expr, alias } => {
                let by_alias = matches!(key, Expr::Identifier(id) if id.value.eq_ignore_ascii_case(&alias.value));
                if by_alias || same(expr, key) {
                    return Some(i);
                }
            }
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => return None,
            _ => {}
        }
    }
    None
}

/// Two expressions written alike (case of keywords and quoting aside).
fn same(a: &Expr, b: &Expr) -> bool {
    a.to_string().eq_ignore_ascii_case(&b.to_string())
}

/// The rows of a probe's result to show: the first `n`, and every row past them whose sort key
/// equals the n-th one's. Returns how many rows to keep (`n` or more).
pub fn rows_to_keep(keys: &[serde_json::Value], n: usize) -> usize {
    if keys.len() <= n || n == 0 {
        return keys.len().min(n);
    }
    let cut = &keys[n - 1];
    n + keys[n..].iter().take_while(|k| *k == cut && !k.is_null()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_top_n_statement_gets_a_probe_with_its_sort_key() {
        let p = tie_probe("SELECT a.name, COUNT(*) AS n FROM a GROUP BY a.name ORDER BY COUNT(*) DESC LIMIT 1", Dialect::Sqlite).unwrap();
        assert_eq!((p.n, p.key_column, p.limit), (1, Some(1), 101));
        assert!(p.sql.ends_with("LIMIT 101"), "{}", p.sql);
        let p = tie_probe("SELECT name, COUNT(*) AS n FROM a GROUP BY name ORDER BY n DESC LIMIT 3", Dialect::Sqlite).unwrap();
        assert_eq!(p.key_column, Some(1));
        let p = tie_probe("SELECT name FROM a ORDER BY CAST(hp AS REAL) DESC LIMIT 1", Dialect::Sqlite).unwrap();
        assert_eq!(p.key_column, None);
        assert!(p.sql.contains("CAST(hp AS REAL) AS qa_tie_key"), "{}", p.sql);
        let p = tie_probe("SELECT name, hp FROM a ORDER BY 2 DESC LIMIT 1", Dialect::Postgres).unwrap();
        assert_eq!(p.key_column, Some(1));
    }

    #[test]
    fn other_statements_get_none() {
        for sql in [
            "SELECT name FROM a ORDER BY hp DESC LIMIT 50",
            "SELECT name FROM a LIMIT 1",
            "SELECT name FROM a ORDER BY hp DESC LIMIT 1 OFFSET 2",
            "SELECT DISTINCT name FROM a ORDER BY hp DESC LIMIT 1",
            "SELECT name FROM a UNION SELECT name FROM b ORDER BY 1 LIMIT 1",
            "DELETE FROM a",
        ] {
            assert_eq!(tie_probe(sql, Dialect::Sqlite), None, "{sql}");
        }
    }

    #[test]
    fn rows_that_tie_with_the_last_shown_are_kept() {
        assert_eq!(rows_to_keep(&[json!(5), json!(5), json!(5), json!(3)], 1), 3);
        assert_eq!(rows_to_keep(&[json!(5), json!(4), json!(4)], 1), 1);
        assert_eq!(rows_to_keep(&[json!(5), json!(4), json!(4), json!(2)], 2), 3);
        assert_eq!(rows_to_keep(&[json!(5)], 3), 1);
        assert_eq!(rows_to_keep(&[json!(null), json!(null)], 1), 1);
    }
}
