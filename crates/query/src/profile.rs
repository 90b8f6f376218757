//! The indexed documents as the smart router sees them: the corpus's concept names (the entity
//! index built by `qa index`), read from the live generation without loading the vectors.

use qa_core::error::{QaError, Result};
use qa_graph::kg::ConceptInfo;
use qa_route::{SourceProfile, Target};

use crate::ask::{EngineSettings, resolve_corpus};

/// Concepts kept at most, most frequent first (the router matches question words against them).
const MAX_ENTITIES: usize = 20_000;

/// The documents' profile: the resolved corpus's name and its concept names (and their
/// aliases). Errors when no corpus is indexed.
pub fn documents_profile(settings: &EngineSettings) -> Result<SourceProfile> {
    let cd = resolve_corpus(&settings.vector_dir, settings.corpus.as_deref())?;
    let gen_dir = cd.current().ok_or_else(|| QaError::IndexMissing { corpus: cd.name.clone(), dir: settings.vector_dir.clone() })?;
    let path = gen_dir.join("concepts.json");
    let text = std::fs::read_to_string(&path).map_err(|e| QaError::io("reading", &path, e))?;
    let mut concepts: Vec<ConceptInfo> = serde_json::from_str(&text).map_err(|e| QaError::Data { path: path.clone(), reason: e.to_string() })?;
    concepts.sort_by(|a, b| b.df.cmp(&a.df).then(a.name.cmp(&b.name)));
    concepts.truncate(MAX_ENTITIES);
    let mut p = SourceProfile::new(Target::Documents, cd.name.clone());
    for c in concepts {
        p.entities.extend(c.aliases.into_iter().filter(|a| a.chars().count() > 2));
        p.entities.push(c.name);
    }
    Ok(p)
}
