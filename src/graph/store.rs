//! Opening the configured graph store: the embedded database of an index generation, or Neo4j.

use std::path::Path;
use std::time::Duration;

use super::{EmbeddedGraph, GraphStore, Neo4jGraph, Neo4jOptions};
use crate::config::{GraphBackend, Settings};
use crate::error::{QaError, Result};

/// Neo4j connection options from the settings.
pub fn neo4j_options(settings: &Settings) -> Result<Neo4jOptions> {
    let uri = settings.neo4j_uri.clone().ok_or_else(|| {
        QaError::Config("the Neo4j graph store needs a URI: set QA_NEO4J_URI (e.g. bolt://localhost:7687) or neo4j_uri in qa.toml".into())
    })?;
    Ok(Neo4jOptions {
        uri,
        username: settings.neo4j_username.clone(),
        password: settings.neo4j_password.clone(),
        database: settings.neo4j_database.clone(),
        timeout: Duration::from_secs_f64(settings.graph_timeout_secs),
        row_cap: settings.graph_row_cap,
    })
}

/// Open the configured store. The embedded store lives in an index generation (`gen_dir`);
/// Neo4j is shared by all corpora.
pub fn open_store(settings: &Settings, gen_dir: &Path) -> Result<Box<dyn GraphStore>> {
    match settings.effective_graph_store() {
        GraphBackend::Neo4j => Ok(Box::new(Neo4jGraph::connect(&neo4j_options(settings)?)?)),
        GraphBackend::Embedded => Ok(Box::new(EmbeddedGraph::open(&gen_dir.join("graph.db"), settings.graph_row_cap)?)),
    }
}
