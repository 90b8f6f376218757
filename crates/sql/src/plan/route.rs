//! Routing: would `qa "question"` go to the SQL path? The schema terms the question mentions
//! and a score (a table or value counts 2, a column 1), exact phrases only.

use serde::{Deserialize, Serialize};

use super::super::schema::{SchemaContext, Term};
use super::matching::{match_terms, MatchOptions};
use super::question::Question;

/// Why `qa "question"` would go to the SQL path: the schema terms the question mentions and a
/// score (a table or value counts 2, a column 1). Routed when the score reaches
/// [`ROUTE_THRESHOLD`] — a first, explainable heuristic (schema-term overlap).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteDecision {
    /// The summed weights of the matched terms.
    pub score: f64,
    /// Each match, as `"phrase" → what it names (source)`.
    pub matched: Vec<String>,
    /// The score reaches [`ROUTE_THRESHOLD`].
    pub to_sql: bool,
}

/// Lowest score that routes a question to SQL (e.g. a table and a column of it: 2 + 1).
pub const ROUTE_THRESHOLD: f64 = 3.0;

/// Score `question` against the schema terms of `ctx`.
pub(crate) fn route_score(ctx: &SchemaContext, question: &str) -> RouteDecision {
    let q = Question::new(question);
    let mut score = 0.0;
    let mut matched = Vec::new();
    for m in match_terms(ctx, &q, MatchOptions { loose: false }) {
        let (t, source) = &m.terms[0];
        let (weight, what) = match t {
            Term::Table { table } => (2.0, format!("table {table}")),
            Term::Value { table, column, values } => (2.0, format!("value {table}.{column} = '{}'", values.join("'|'"))),
            Term::Column { table, column } => (1.0, format!("column {table}.{column}")),
        };
        score += weight;
        matched.push(format!("\"{}\" → {what} ({source})", m.phrase));
    }
    RouteDecision { score, to_sql: score >= ROUTE_THRESHOLD, matched }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tests::audit_context;

    #[test]
    fn routes_by_schema_term_overlap() {
        let ctx = audit_context();
        let d = route_score(&ctx, "How many critical findings per department?");
        assert!(d.to_sql, "{d:?}");
        assert!(d.matched.iter().any(|m| m.contains("table findings")), "{d:?}");
        let d = route_score(&ctx, "How does deep sleep relate to battery life?");
        assert!(!d.to_sql, "{d:?}");
        assert_eq!(d.score, 0.0);
        // One column word alone is not enough.
        assert!(!route_score(&ctx, "What is the region of the sensor?").to_sql);
    }
}
