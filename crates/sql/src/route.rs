//! Is a question about the database? The documents-or-SQL decision of `qa "question"`, made by
//! schema-term overlap (see [`crate::plan::route_score`]).

use std::path::Path;

use crate::db::SqlDatabase;
use crate::plan::RouteDecision;
use crate::schema::{SchemaContext, SemanticSchema};
use crate::{DbSchema, SqlError};

/// Read the schema of `db` (with up to `sample_values` distinct values per text column) and the
/// optional semantic schema, and score `question` against them. Returns the decision and the
/// schema, which the run that follows reuses. A semantic schema that cannot be read is ignored
/// (the decision then rests on the database's own names).
pub fn route_question(db: &mut dyn SqlDatabase, semantic: Option<&Path>, sample_values: usize, question: &str) -> Result<(RouteDecision, DbSchema), SqlError> {
    let schema = db.introspect(sample_values)?;
    let semantic = semantic.and_then(|p| SemanticSchema::load(p).ok());
    let ctx = SchemaContext::build(schema, semantic);
    let decision = crate::plan::route_score(&ctx, question);
    tracing::info!(score = decision.score, to_sql = decision.to_sql, matched = ?decision.matched, "route decision");
    Ok((decision, ctx.db))
}
