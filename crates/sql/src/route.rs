//! Is a question about the database? The documents-or-SQL decision of `qa "question"`, made by
//! schema-term overlap (see [`crate::plan::route_score`]).

use std::path::Path;

use qa_route::{FieldProfile, FieldRole, SourceProfile, Target};

use crate::db::SqlDatabase;
use crate::plan::RouteDecision;
use crate::schema::{SchemaContext, SemanticSchema};
use crate::{ColumnKind, DbSchema, SqlError};

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

/// The database as the smart router sees it: tables (and their synonyms) as collections;
/// columns (merged across tables by name) with their role, sampled values, synonyms and the
/// semantic schema's value aliases. `name` is how the source is shown (the redacted URL).
pub fn route_profile(schema: &DbSchema, semantic: Option<&SemanticSchema>, name: &str) -> SourceProfile {
    let mut p = SourceProfile::new(Target::Sql, name);
    for t in &schema.tables {
        p.collections.push(t.name.clone());
        if let Some(st) = semantic.and_then(|s| s.tables.get(&t.name)) {
            p.collections.extend(st.synonyms.iter().cloned());
        }
        for c in &t.columns {
            let role = match c.kind() {
                ColumnKind::Text if !c.samples.is_empty() => FieldRole::Category,
                ColumnKind::Text => FieldRole::Text,
                ColumnKind::Date => FieldRole::Date,
                ColumnKind::Integer | ColumnKind::Number => FieldRole::Number,
                ColumnKind::Boolean | ColumnKind::Other => FieldRole::Other,
            };
            let synonyms: Vec<String> = semantic.and_then(|s| s.tables.get(&t.name)).and_then(|st| st.columns.get(&c.name)).map(|sc| sc.synonyms.clone()).unwrap_or_default();
            match p.fields.iter_mut().find(|f| f.name == c.name) {
                Some(f) => {
                    f.values.extend(c.samples.iter().filter(|v| !f.values.contains(v)).cloned().collect::<Vec<_>>());
                    f.synonyms.extend(synonyms);
                }
                None => p.fields.push(FieldProfile { name: c.name.clone(), role, values: c.samples.clone(), aliases: Vec::new(), synonyms }),
            }
        }
    }
    for a in semantic.map(|s| s.value_aliases.as_slice()).unwrap_or_default() {
        if let Some(f) = p.fields.iter_mut().find(|f| f.name == a.column) {
            f.aliases.extend(a.values.iter().map(|v| (a.phrase.clone(), v.clone())));
            // An alias makes the column a category even when its values were not sampled.
            if f.role == FieldRole::Text {
                f.role = FieldRole::Category;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tests::audit_context;

    #[test]
    fn the_profile_names_tables_columns_values_and_aliases() {
        let ctx = audit_context();
        let p = route_profile(&ctx.db, ctx.semantic.as_ref(), "audit.db");
        for t in &ctx.db.tables {
            assert!(p.collections.contains(&t.name), "{}", t.name);
        }
        let categories: Vec<&FieldProfile> = p.fields.iter().filter(|f| f.role == FieldRole::Category).collect();
        assert!(!categories.is_empty());
        for f in &p.fields {
            for (_, v) in &f.aliases {
                assert!(!v.is_empty());
            }
        }
        let with_alias = ctx.semantic.as_ref().map(|s| s.value_aliases.len()).unwrap_or(0);
        assert_eq!(p.fields.iter().map(|f| f.aliases.len()).sum::<usize>() > 0, with_alias > 0);
    }
}
