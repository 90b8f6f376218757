//! Loading knowledge-graph documents into the configured store — Neo4j (idempotent MERGEs) or
//! the embedded database of an index generation — for `qa index` and `qa graph ingest` alike.

use std::path::Path;

use qa_core::error::{IoContext, QaError, Result};

use crate::kg::GraphDocument;
use crate::store::{GraphBackend, StoreConfig};
use crate::store::connect_neo4j;
use crate::{EmbeddedGraph, GraphStore, IngestStats};

/// Where documents were loaded and what the store did with them.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The Neo4j URI or the embedded database file.
    pub target: String,
    /// What the store did with the documents.
    pub stats: IngestStats,
}

/// Load `docs` into the store `config` selects. The embedded store needs the index generation
/// (`gen_dir`) whose database it updates; the caller holds the corpus lock.
pub fn load_documents(config: &StoreConfig, gen_dir: Option<&Path>, docs: &[GraphDocument]) -> Result<Loaded> {
    match config.backend {
        GraphBackend::Neo4j => {
            let opts = config.neo4j_options()?;
            let mut g = connect_neo4j(&opts)?;
            Ok(Loaded { target: opts.uri.clone(), stats: g.ingest(docs)? })
        }
        GraphBackend::Embedded => {
            let gen_dir = gen_dir.ok_or_else(|| QaError::Config("the embedded graph store needs an indexed corpus to load into".into()))?;
            let stats = ingest_embedded(gen_dir, docs, config.row_cap)?;
            Ok(Loaded { target: gen_dir.join("graph.db").display().to_string(), stats })
        }
    }
}

/// Marks a generation whose embedded store `qa graph ingest` added to: its store no longer
/// holds only the generation's own KG, so the next `qa index` loads a new store from that KG
/// instead of updating this one.
pub const EXTERNAL_INGEST_MARKER: &str = "graph.external";

/// Ingest into a copy of the generation's database, then swap it in: an interrupted ingest leaves
/// the previous graph intact, and readers keep the file they opened.
pub fn ingest_embedded(gen_dir: &Path, docs: &[GraphDocument], row_cap: usize) -> Result<IngestStats> {
    let live = gen_dir.join("graph.db");
    let work = gen_dir.join("graph.ingest.db");
    let compact = gen_dir.join("graph.ingest.compact.db");
    for p in [&work, &compact] {
        remove_with_journals(p);
    }
    std::fs::copy(&live, &work).ctx("copying the graph database", &live)?;
    let stats = {
        let mut g = EmbeddedGraph::open(&work, row_cap)?;
        let stats = g.ingest(docs)?;
        g.snapshot_to(&compact)?;
        stats
    };
    let marker = gen_dir.join(EXTERNAL_INGEST_MARKER);
    std::fs::write(&marker, b"qa graph ingest added documents to graph.db\n").ctx("writing", &marker)?;
    std::fs::rename(&compact, &live).ctx("replacing the graph database", &live)?;
    remove_with_journals(&work);
    Ok(stats)
}

/// Remove a SQLite-backed file and its WAL and shared-memory companions, if present.
pub fn remove_with_journals(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}
