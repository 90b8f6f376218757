//! The server's index against the generation: what is missing, orphaned or stale, and whether
//! the model matches.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::Result;
use crate::client::{DocumentStore, IndexState};
use crate::doc::doc_key;
use crate::sync::Generation;

/// Keys shown per list in a report (the counts are complete).
pub const SHOWN: usize = 20;

/// What `qa store check` found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    /// The store, without credentials.
    pub store: String,
    /// `missing`, `not-qa`, `model-mismatch`, `corpus-mismatch` or `ok`: the index itself.
    pub index: String,
    /// The index's model, when it is qa's.
    pub model: Option<String>,
    /// Chunks of the generation.
    pub chunks: usize,
    /// Documents on the server.
    pub stored: usize,
    /// Chunks of the generation the server lacks (chunk ids; the first [`SHOWN`]).
    pub missing: Vec<String>,
    /// How many.
    pub missing_count: usize,
    /// Server documents no chunk of the generation has (keys; the first [`SHOWN`]).
    pub orphaned: Vec<String>,
    /// How many.
    pub orphaned_count: usize,
    /// Server documents whose key matches a chunk but whose stored fields differ (chunk ids).
    pub stale: Vec<String>,
    /// How many.
    pub stale_count: usize,
}

impl CheckReport {
    /// Nothing to fix.
    pub fn clean(&self) -> bool {
        self.index == "ok" && self.missing_count == 0 && self.orphaned_count == 0 && self.stale_count == 0
    }

    /// The report as `qa store check` prints it, for the generation of `corpus`.
    pub fn write_text(&self, corpus: &str, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "qa store check: corpus '{corpus}' against {}", self.store)?;
        let model = self.model.as_deref().unwrap_or("?");
        let index = match self.index.as_str() {
            "ok" => format!("ok, {model}"),
            "missing" => "missing (fill it with `qa index <FOLDER> --store URL`)".into(),
            "not-qa" => "not created by qa: never written to".into(),
            other => format!("{other}: holds {model}"),
        };
        writeln!(out, "  index:    {index}")?;
        writeln!(out, "  chunks:   {} local, {} stored", self.chunks, self.stored)?;
        for (name, n, shown) in [("missing:", self.missing_count, &self.missing), ("orphaned:", self.orphaned_count, &self.orphaned), ("stale:", self.stale_count, &self.stale)] {
            if n > 0 {
                let more = if n > shown.len() { format!(" and {} more", n - shown.len()) } else { String::new() };
                writeln!(out, "  {name:<9} {n}: {}{more}", shown.join(", "))?;
            }
        }
        if self.clean() {
            writeln!(out, "  in sync")
        } else {
            writeln!(out, "  fix: `qa index <FOLDER> --store URL` sends what is missing and deletes the orphans")
        }
    }
}

/// Compare the server with `generation`.
pub fn check(store: &DocumentStore, generation: &Generation<'_>) -> Result<CheckReport> {
    let mut report = CheckReport { store: store.describe(), chunks: generation.chunks.len(), ..Default::default() };
    let meta = generation.meta();
    report.index = match store.state()? {
        IndexState::Missing => "missing".into(),
        IndexState::NotOurs => "not-qa".into(),
        IndexState::Ours(found) => {
            report.model = Some(found.describe());
            if !found.same_vectors(&meta) {
                "model-mismatch".into()
            } else if found.corpus != meta.corpus {
                report.model = Some(format!("{}, corpus '{}'", found.describe(), found.corpus));
                "corpus-mismatch".into()
            } else {
                "ok".into()
            }
        }
    };
    if report.index == "missing" || report.index == "not-qa" {
        report.missing_count = generation.chunks.len();
        report.missing = generation.chunks.iter().take(SHOWN).map(|c| c.id.clone()).collect();
        return Ok(report);
    }
    let docs = store.scan(&["doc_key", "chunk_id", "source_file", "content_sha256"])?;
    report.stored = docs.len();
    let stored: HashMap<&str, &Value> = docs.iter().filter_map(|d| Some((d.get("doc_key")?.as_str()?, d))).collect();
    let mut wanted: HashMap<String, usize> = HashMap::new();
    for (row, c) in generation.chunks.iter().enumerate() {
        let key = doc_key(c);
        match stored.get(key.as_str()) {
            None => report.missing.push(c.id.clone()),
            Some(d) => {
                let same = |field: &str, want: &str| d.get(field).and_then(Value::as_str) == Some(want);
                if !(same("chunk_id", &c.id) && same("source_file", &c.source_file) && same("content_sha256", &c.metadata.content_sha256)) {
                    report.stale.push(c.id.clone());
                }
            }
        }
        wanted.insert(key, row);
    }
    let mut orphaned: Vec<String> = stored.keys().filter(|k| !wanted.contains_key(**k)).map(|k| k.to_string()).collect();
    orphaned.sort();
    report.orphaned = orphaned;
    (report.missing_count, report.orphaned_count, report.stale_count) = (report.missing.len(), report.orphaned.len(), report.stale.len());
    report.missing.truncate(SHOWN);
    report.orphaned.truncate(SHOWN);
    report.stale.truncate(SHOWN);
    Ok(report)
}
