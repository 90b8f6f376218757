//! Opening the configured graph store: the embedded database of an index generation, or Neo4j.

use std::path::Path;
use std::time::Duration;

use qa_core::error::{QaError, Result};
use qa_core::secret::Secret;

use super::{EmbeddedGraph, GraphStore, Neo4jGraph, Neo4jOptions};

// `setting_enum!` takes no docs for the variants (they are the setting's values, `embedded` and
// `neo4j`) and, before qa-core documents them, none for its `ALL` and `as_str`.
#[allow(missing_docs)]
mod backend {
    qa_core::setting_enum! {
        /// The graph store a run uses (`graph_store` resolved).
        GraphBackend { Embedded => "embedded", Neo4j => "neo4j" }
    }
}
pub use backend::GraphBackend;

/// Which store to open and how; the CLI fills it from its settings.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// The store to open.
    pub backend: GraphBackend,
    /// Most rows one read returns (the rest is cut and reported as truncated).
    pub row_cap: usize,
    /// Neo4j's limit for connecting and for each query, in seconds.
    pub timeout_secs: f64,
    /// The Neo4j server (`bolt://host:7687`, …); required for the Neo4j store.
    pub neo4j_uri: Option<String>,
    /// Neo4j user.
    pub neo4j_username: String,
    /// Neo4j password, if any.
    pub neo4j_password: Option<Secret>,
    /// Neo4j database; `None` is the server's default.
    pub neo4j_database: Option<String>,
}

impl StoreConfig {
    /// Neo4j connection options; an error when no URI is configured.
    pub fn neo4j_options(&self) -> Result<Neo4jOptions> {
        let uri = self.neo4j_uri.clone().ok_or_else(|| {
            QaError::Config("the Neo4j graph store needs a URI: set QA_NEO4J_URI (e.g. bolt://localhost:7687) or neo4j_uri in qa.toml".into())
        })?;
        Ok(Neo4jOptions {
            uri,
            username: self.neo4j_username.clone(),
            password: self.neo4j_password.clone(),
            database: self.neo4j_database.clone(),
            timeout: Duration::from_secs_f64(self.timeout_secs),
            row_cap: self.row_cap,
        })
    }
}

/// Open the configured store. The embedded store lives in an index generation (`gen_dir`);
/// Neo4j is shared by all corpora.
pub fn open_store(config: &StoreConfig, gen_dir: &Path) -> Result<Box<dyn GraphStore>> {
    match config.backend {
        GraphBackend::Neo4j => Ok(Box::new(Neo4jGraph::connect(&config.neo4j_options()?)?)),
        GraphBackend::Embedded => Ok(Box::new(EmbeddedGraph::open(&gen_dir.join("graph.db"), config.row_cap)?)),
    }
}
