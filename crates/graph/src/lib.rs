//! Graph store seam and graph evidence. `GraphStore` is implemented by the embedded store
//! (graphdblite, Cypher on SQLite) and by Neo4j (neo4rs over Bolt); evidence is gathered with the
//! same read-only Cypher on either, and generated Cypher is judged by [`cypher`] first.

pub mod cypher;
pub mod delta;
mod embedded;
pub mod evidence;
pub mod kg;
pub mod load;
#[cfg(feature = "neo4j")]
mod neo4j;
pub mod generate;
pub mod store;
pub mod walk;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use qa_core::error::Result;
use crate::kg::GraphDocument;

pub use embedded::EmbeddedGraph;
#[cfg(feature = "neo4j")]
pub use neo4j::Neo4jGraph;
pub use store::Neo4jOptions;
pub use qa_core::evidence::{Subgraph, SubgraphEdge, SubgraphNode};

/// One result row: column name → JSON value. Nodes become `{"id", "labels", "properties"}`,
/// relationships `{"source", "type", "target", "properties"}`, paths `{"nodes", "edges"}`.
pub type Row = BTreeMap<String, serde_json::Value>;

/// Rows of a read, and whether the row cap cut them short.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadRows {
    /// The rows, at most the cap.
    pub rows: Vec<Row>,
    /// The query had more rows than the cap; `rows` holds the first `cap`.
    pub truncated: bool,
}

impl ReadRows {
    /// Keep at most `cap` rows of `rows`, noting a cut.
    pub fn capped(mut rows: Vec<Row>, cap: usize) -> ReadRows {
        let truncated = rows.len() > cap;
        rows.truncate(cap);
        ReadRows { rows, truncated }
    }
}

/// What an ingest did to the store.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestStats {
    /// Nodes created.
    pub nodes: usize,
    /// Relationships created.
    pub relationships: usize,
    /// Properties set on nodes that already existed (merge).
    pub properties_set: usize,
    /// Relationships whose source or target node is in none of the documents.
    pub skipped_relationships: usize,
    /// Nodes created, per label.
    pub by_label: BTreeMap<String, usize>,
    /// Relationships created, per type.
    pub by_type: BTreeMap<String, usize>,
}

/// What a store holds: the vocabulary generated Cypher is checked against.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GraphSchema {
    /// Node labels.
    pub labels: Vec<String>,
    /// Relationship types.
    pub relationship_types: Vec<String>,
    /// Property keys of nodes and relationships.
    pub property_keys: Vec<String>,
}

/// A node found by the full-text entity index (`entityIndex` on Neo4j, the embedded store's word
/// index): its name is `coalesce(node.id, node.text, node.name)`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EntityHit {
    /// `coalesce(node.id, node.text, node.name)`.
    pub name: String,
    /// The node's labels.
    pub labels: Vec<String>,
    /// The index's relevance score (higher is better; scales differ between stores).
    pub score: f64,
}

/// Node counts per label and relationship counts per type (`qa graph stats`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GraphCounts {
    /// All nodes.
    pub nodes: u64,
    /// All relationships.
    pub relationships: u64,
    /// Nodes per label.
    pub by_label: BTreeMap<String, u64>,
    /// Relationships per type.
    pub by_type: BTreeMap<String, u64>,
}

/// A graph database qa reads evidence from and loads knowledge graphs into: the embedded store
/// or Neo4j. Reads are read-only and capped; writes happen only through [`GraphStore::ingest`].
pub trait GraphStore {
    /// Short name for traces and `qa doctor` ("embedded", "neo4j").
    fn backend(&self) -> &'static str;
    /// Load graph documents: nodes merged by id, relationships by (source, type, target); creates
    /// the id uniqueness constraints/indexes and the entity full-text index if missing.
    /// Idempotent: loading the same documents twice changes nothing.
    fn ingest(&mut self, docs: &[GraphDocument]) -> Result<IngestStats>;
    /// Run a query in a read-only transaction with the store's timeout (or work limit). At most
    /// the row cap of rows come back; more is a truncation the result says, never an error.
    fn read(&mut self, cypher: &str, params: &serde_json::Map<String, serde_json::Value>) -> Result<ReadRows>;
    /// Labels, relationship types and property keys in the store.
    fn schema(&mut self) -> Result<GraphSchema>;
    /// Full-text search of entity names (concepts, documents, images), best first. The query is
    /// plain text: the store escapes its own query syntax.
    fn search_entities(&mut self, text: &str, limit: usize) -> Result<Vec<EntityHit>>;
    /// Counts per label and relationship type.
    fn counts(&mut self) -> Result<GraphCounts>;
    /// Procedures (lower-case, dotted) that validated read queries may call on this store, on top
    /// of the common read-only allow-list.
    fn extra_procedures(&self) -> &'static [&'static str] {
        &[]
    }
}

