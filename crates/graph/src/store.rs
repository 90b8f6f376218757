//! Opening the configured graph store: the embedded database of an index generation, or Neo4j.

use std::path::Path;
use std::time::Duration;

use qa_core::error::{QaError, Result};
use qa_core::secret::Secret;

use std::fmt;

use super::{EmbeddedGraph, GraphStore};

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
        GraphBackend::Neo4j => connect_neo4j(&config.neo4j_options()?),
        GraphBackend::Embedded => Ok(Box::new(EmbeddedGraph::open(&gen_dir.join("graph.db"), config.row_cap)?)),
    }
}

/// How to reach a Neo4j server.
#[derive(Clone)]
pub struct Neo4jOptions {
    /// `bolt://host:7687`, `neo4j://host`, `bolt+s://…`, `neo4j+s://…`.
    pub uri: String,
    /// User to authenticate as.
    pub username: String,
    /// The user's password; `None` connects without one.
    pub password: Option<Secret>,
    /// Database name; `None` is the server's default database.
    pub database: Option<String>,
    /// Limit for connecting and for each query (also the server-side transaction timeout).
    pub timeout: Duration,
    /// Most rows `read` returns; the driver stops pulling there.
    pub row_cap: usize,
}

impl fmt::Debug for Neo4jOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Neo4jOptions")
            .field("uri", &redact_uri(&self.uri))
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| qa_core::secret::REDACTED))
            .field("database", &self.database)
            .field("timeout", &self.timeout)
            .field("row_cap", &self.row_cap)
            .finish()
    }
}

/// The URI without the password of any `user:password@` part.
pub(crate) fn redact_uri(uri: &str) -> String {
    let Some(scheme_end) = uri.find("://") else { return uri.to_string() };
    let rest = &uri[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else { return uri.to_string() };
    let user = rest[..at].split(':').next().unwrap_or("");
    format!("{}{}:{}{}", &uri[..scheme_end + 3], user, qa_core::secret::REDACTED, &rest[at..])
}

/// Connect to Neo4j (see `Neo4jGraph::connect`).
#[cfg(feature = "neo4j")]
pub fn connect_neo4j(opts: &Neo4jOptions) -> Result<Box<dyn GraphStore>> {
    Ok(Box::new(crate::Neo4jGraph::connect(opts)?))
}

/// Connect to Neo4j: this build has no Neo4j driver.
#[cfg(not(feature = "neo4j"))]
pub fn connect_neo4j(opts: &Neo4jOptions) -> Result<Box<dyn GraphStore>> {
    Err(QaError::Config(format!(
        "cannot reach the Neo4j store at {}: this qa was built without Neo4j support (rebuild with the default cargo features, or `--features neo4j`)",
        redact_uri(&opts.uri)
    )))
}
