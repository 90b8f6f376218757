//! Routing: would `qa "question"` go to the SQL path? The schema terms the question names and a
//! score (a table or value counts 2, a column 1), by whole names and stored values only.

use serde::{Deserialize, Serialize};

use qa_question::link::{cover, How, Target};
use qa_question::{analyse, Linker};

use super::super::schema::SchemaContext;

/// Why `qa "question"` would go to the SQL path: the schema terms the question mentions and a
/// score (a table or value counts 2, a column 1). Routed when the score reaches
/// [`ROUTE_THRESHOLD`] — a first, explainable heuristic (schema-term overlap).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteDecision {
    /// The summed weights of the matched terms.
    pub score: f64,
    /// Each match, as `"phrase" → what it names (how)`.
    pub matched: Vec<String>,
    /// The score reaches [`ROUTE_THRESHOLD`].
    pub to_sql: bool,
}

/// Lowest score that routes a question to SQL (e.g. a table and a column of it: 2 + 1).
pub const ROUTE_THRESHOLD: f64 = 3.0;

/// Score `question` against the schema of `ctx`: whole names, synonyms and stored values only
/// (no partial names, spellings or word families: routing must not guess).
pub(crate) fn route_score(ctx: &SchemaContext, question: &str) -> RouteDecision {
    let schema = super::source::source_schema(ctx);
    let a = analyse(question, chrono::Local::now().date_naive());
    let links: Vec<_> = Linker::new(&schema).link(&a, None).into_iter().filter(|l| matches!(l.how, How::Name | How::Synonym | How::Value | How::Alias | How::FieldValue | How::Core)).collect();
    let mut score = 0.0;
    let mut matched = Vec::new();
    for m in cover(&links, a.tokens.len()) {
        let l = m.best();
        let (weight, what) = match &l.target {
            Target::Collection { collection } => (2.0, format!("table {collection}")),
            Target::Value { .. } => (2.0, format!("value {}", l.target.label())),
            Target::Field { .. } => (1.0, format!("column {}", l.target.label())),
        };
        score += weight;
        matched.push(format!("\"{}\" → {what} ({:?})", l.words.join(" "), l.how).to_lowercase());
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
