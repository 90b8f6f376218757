//! Graph store seam and graph evidence. `GraphStore` is implemented by the embedded store
//! (graphdblite, Cypher on SQLite) now and by Neo4j later; evidence is gathered with the same
//! read-only Cypher on either.

pub mod cypher;
mod embedded;
pub mod evidence;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::kg::GraphDocument;

pub use embedded::EmbeddedGraph;

/// One result row: column name → JSON value. Nodes become `{"id", "labels", "properties"}`,
/// relationships `{"source", "type", "target", "properties"}`, paths `{"nodes", "edges"}`.
pub type Row = BTreeMap<String, serde_json::Value>;

#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestStats {
    pub nodes: usize,
    pub relationships: usize,
    pub by_label: BTreeMap<String, usize>,
    pub by_type: BTreeMap<String, usize>,
}

pub trait GraphStore {
    /// Short name for traces and `qa doctor` ("embedded", "neo4j").
    fn backend(&self) -> &'static str;
    /// Load graph documents: nodes merged by id, relationships by (source, type, target).
    fn ingest(&mut self, docs: &[GraphDocument]) -> Result<IngestStats>;
    /// Run a query in a read-only transaction with the store's row cap and work limit.
    fn read(&mut self, cypher: &str, params: &serde_json::Map<String, serde_json::Value>) -> Result<Vec<Row>>;
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SubgraphNode {
    pub id: String,
    pub labels: Vec<String>,
    pub properties: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SubgraphEdge {
    pub source: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub target: String,
    pub properties: BTreeMap<String, serde_json::Value>,
}

/// The nodes and edges that graph evidence actually returned.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Subgraph {
    pub nodes: Vec<SubgraphNode>,
    pub edges: Vec<SubgraphEdge>,
}

impl Subgraph {
    pub fn add_node(&mut self, id: &str, label: &str, properties: BTreeMap<String, serde_json::Value>) {
        if !self.nodes.iter().any(|n| n.id == id) {
            self.nodes.push(SubgraphNode { id: id.into(), labels: vec![label.into()], properties });
        }
    }
    pub fn add_edge(&mut self, source: &str, rel_type: &str, target: &str, properties: BTreeMap<String, serde_json::Value>) {
        if !self.edges.iter().any(|e| e.source == source && e.target == target && e.rel_type == rel_type) {
            self.edges.push(SubgraphEdge { source: source.into(), rel_type: rel_type.into(), target: target.into(), properties });
        }
    }
}
