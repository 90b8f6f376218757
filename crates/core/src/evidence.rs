//! Evidence records shared by the graph stage that finds them, the answer that cites them and the
//! trace that keeps them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A concept of the knowledge graph that a question mentions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Grounded {
    pub id: String,
    pub name: String,
    pub score: f32,
    /// "exact" (question n-gram = concept id), "entity_index" (the store's full-text entity index)
    /// or "embedding".
    pub method: String,
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

/// Tokens an LLM call consumed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenUsage {
    pub prompt: u64,
    pub completion: u64,
    pub total: u64,
}

impl TokenUsage {
    pub fn new(prompt: u64, completion: u64) -> Self {
        TokenUsage { prompt, completion, total: prompt + completion }
    }
    pub fn add(&mut self, other: TokenUsage) {
        self.prompt += other.prompt;
        self.completion += other.completion;
        self.total += other.total;
    }
}
