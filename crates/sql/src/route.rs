//! The database as the router sees it: its [`SourceProfile`].

use qa_route::{FieldProfile, FieldRole, SourceProfile, Target};

use crate::schema::SemanticSchema;
use crate::{ColumnKind, DbSchema};

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
