//! Evidence records shared by the graph stage that finds them, the answer that cites them and the
//! trace that keeps them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A concept of the knowledge graph that a question mentions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Grounded {
    /// The concept's id (its normalized name).
    pub id: String,
    /// The concept's name as written in the corpus.
    pub name: String,
    /// How well the question names it (the best over all methods): above 1 for an exact match,
    /// below 1 for the entity index and embedding similarity.
    pub score: f32,
    /// "exact" (question n-gram = concept id), "entity_index" (the store's full-text entity index)
    /// or "embedding".
    pub method: String,
}

/// A node of the evidence subgraph.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SubgraphNode {
    /// The node's id in the graph store (concept id, chunk id, image id).
    pub id: String,
    /// Graph labels (`Concept`, `Document`, `Image`).
    pub labels: Vec<String>,
    /// Properties worth showing (e.g. `name`).
    pub properties: BTreeMap<String, serde_json::Value>,
}

/// A directed relationship of the evidence subgraph.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SubgraphEdge {
    /// Id of the start node.
    pub source: String,
    /// Relationship type (`MENTIONS`, `RELATED_TO`, `HAS_IMAGE`, …); `type` in JSON.
    #[serde(rename = "type")]
    pub rel_type: String,
    /// Id of the end node.
    pub target: String,
    /// Properties worth showing (e.g. `weight`).
    pub properties: BTreeMap<String, serde_json::Value>,
}

/// The nodes and edges that graph evidence actually returned.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Subgraph {
    /// Nodes, each id once, in the order they were found.
    pub nodes: Vec<SubgraphNode>,
    /// Edges, each (source, type, target) once, in the order they were found.
    pub edges: Vec<SubgraphEdge>,
}

impl Subgraph {
    /// Add a node with one label, unless a node with this id is already there.
    pub fn add_node(&mut self, id: &str, label: &str, properties: BTreeMap<String, serde_json::Value>) {
        if !self.nodes.iter().any(|n| n.id == id) {
            self.nodes.push(SubgraphNode { id: id.into(), labels: vec![label.into()], properties });
        }
    }
    /// Add an edge, unless one with the same source, type and target is already there.
    pub fn add_edge(&mut self, source: &str, rel_type: &str, target: &str, properties: BTreeMap<String, serde_json::Value>) {
        if !self.edges.iter().any(|e| e.source == source && e.target == target && e.rel_type == rel_type) {
            self.edges.push(SubgraphEdge { source: source.into(), rel_type: rel_type.into(), target: target.into(), properties });
        }
    }
}

/// Tokens an LLM call consumed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenUsage {
    /// Tokens of the prompt (input).
    pub prompt: u64,
    /// Tokens generated (output).
    pub completion: u64,
    /// All tokens: the provider's figure when it reports one, else `prompt + completion`.
    pub total: u64,
}

impl TokenUsage {
    /// Usage of one call; `total` is the sum.
    pub fn new(prompt: u64, completion: u64) -> Self {
        TokenUsage { prompt, completion, total: prompt + completion }
    }
    /// Add another call's usage, field by field.
    pub fn add(&mut self, other: TokenUsage) {
        self.prompt += other.prompt;
        self.completion += other.completion;
        self.total += other.total;
    }
}
