//! The index as the smart router sees it: the index name, its fields with their role, the
//! sampled values of exact fields, and the semantic file's synonyms and value aliases.

use qa_route::{FieldProfile, FieldRole, SourceProfile, Target};

use crate::lookup::Metadata;
use crate::semantic::Semantic;
use crate::{FieldKind, Mapping};

/// The router's profile of an index (`name` is how the target is shown).
pub fn route_profile(mapping: &Mapping, meta: &Metadata, semantic: &Semantic, name: &str) -> SourceProfile {
    let mut p = SourceProfile::new(Target::Es, name);
    p.collections.push(mapping.index.clone());
    for f in &mapping.fields {
        let values: Vec<String> = f.exact_path().and_then(|x| meta.values.get(&x)).map(|v| v.iter().map(|(s, _)| s.clone()).collect()).unwrap_or_default();
        let role = match f.kind {
            FieldKind::Keyword if !values.is_empty() => FieldRole::Category,
            FieldKind::Keyword | FieldKind::Text => FieldRole::Text,
            FieldKind::Date => FieldRole::Date,
            FieldKind::Long | FieldKind::Double => FieldRole::Number,
            FieldKind::Boolean | FieldKind::Other => FieldRole::Other,
        };
        let sem = semantic.fields.get(&f.path);
        let aliases = semantic.value_aliases.iter().filter(|a| a.field == f.path).flat_map(|a| a.values.iter().map(|v| (a.phrase.clone(), v.clone()))).collect();
        p.fields.push(FieldProfile { name: f.path.clone(), role, values, aliases, synonyms: sem.map(|s| s.synonyms.clone()).unwrap_or_default() });
    }
    p
}
