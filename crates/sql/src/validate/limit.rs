//! LIMIT capping of the outermost query (see the module doc, rule 7).

use sqlparser::ast::{Expr, LimitClause, Query, Value, ValueWithSpan};

use crate::Dialect;
use super::{MAX_OFFSET, Reason, ReasonKind, Verdict};

/// A non-negative integer literal (parentheses allowed); digits beyond u64 saturate.
pub(super) fn literal_u64(e: &Expr) -> Option<u64> {
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

pub(super) fn number(n: u64) -> Expr {
    Expr::Value(Value::Number(n.to_string(), false).into())
}

/// Enforce the row cap on the outermost query (see the module doc, rule 7).
pub(super) fn cap_limit(q: &mut Query, dialect: Dialect, row_cap: usize, v: &mut Verdict) {
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
