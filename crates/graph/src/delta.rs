//! What changed between two versions of a knowledge graph, as the store operations that turn a
//! store loaded from the old version into the store a full load of the new version would give.
//!
//! Loading a large graph into the embedded store costs time quadratic in a hub's degree (the
//! store rewrites a node's adjacency list per edge), while a one-file edit of a corpus changes a
//! few dozen nodes and edges: `qa index` applies this delta to a copy of the previous store
//! instead of loading everything again.
//!
//! The delta reproduces the full load's semantics exactly: documents are read in order; a node
//! is created by its first occurrence (its label fixed then) and later occurrences set the
//! properties they carry; an edge is keyed by (source, type, target), its first occurrence's
//! properties kept; an edge whose source or target was not seen by then is skipped. A `null`
//! property is no property.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::kg::{GraphDocument, KgRel, Meta};
use crate::IngestStats;

/// A node's properties besides `id`, by key.
pub type Props = BTreeMap<String, serde_json::Value>;

/// Property changes of one node: `Some` sets the key, `None` removes it.
pub type PropChanges = Vec<(String, Option<serde_json::Value>)>;

/// An edge's key: (source id, type, target id).
pub type EdgeKey = (String, String, String);

/// The store operations from the old graph to the new one.
#[derive(Debug, Default, Clone)]
pub struct GraphDelta {
    /// Edges to delete whose nodes both stay.
    pub remove_edges: Vec<EdgeKey>,
    /// Nodes to delete (with their edges), as (id, label).
    pub remove_nodes: Vec<(String, String)>,
    /// Nodes to create: (id, label, properties).
    pub create_nodes: Vec<(String, String, Props)>,
    /// Properties to change on nodes that stay: `Some` sets, `None` removes.
    pub update_nodes: Vec<(String, PropChanges)>,
    /// Edges to create (new ones, and ones whose properties changed, which are also removed).
    pub create_edges: Vec<KgRel>,
    /// The label of every node the operations name.
    pub labels: HashMap<String, String>,
    /// What a full load of the new graph into an empty store would report.
    pub totals: IngestStats,
}

impl GraphDelta {
    /// Store operations the delta takes.
    pub fn operations(&self) -> usize {
        self.remove_edges.len() + self.remove_nodes.len() + self.create_nodes.len() + self.update_nodes.len() + self.create_edges.len()
    }
}

/// How an edge of the new graph compares with the old one.
#[derive(Clone, Copy, PartialEq)]
enum Seen {
    NotInOld,
    Same,
    Changed,
}

struct NewEdge<'n> {
    rel: &'n KgRel,
    seen: Seen,
}

/// A node as the full load leaves it: its first label and its merged properties.
struct NodeState<K, V> {
    label: K,
    props: BTreeMap<K, V>,
}

/// Builds a [`GraphDelta`]: the new documents first (borrowed), then the old ones streamed in
/// their order (a large old graph is never held whole).
pub struct DeltaBuilder<'n> {
    new_nodes: HashMap<&'n str, NodeState<&'n str, &'n serde_json::Value>>,
    /// By [`edge_hash`] (a lookup with the old graph's owned strings cannot borrow them for
    /// the new graph's lifetime); a bucket's edges are told apart by their strings.
    new_edges: HashMap<u64, Vec<NewEdge<'n>>>,
    old_nodes: HashMap<String, NodeState<String, serde_json::Value>>,
    /// A node's metadata names `id`, which the full load would let override the node's id:
    /// rare enough to leave to the full load.
    names_id: bool,
    /// Old edges the new graph lacks (first occurrences only).
    gone_edges: HashSet<EdgeKey>,
    totals: IngestStats,
}

fn edge_hash(source: &str, rel_type: &str, target: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (source, rel_type, target).hash(&mut h);
    h.finish()
}

impl NewEdge<'_> {
    fn is(&self, source: &str, rel_type: &str, target: &str) -> bool {
        self.rel.source == source && self.rel.rel_type == rel_type && self.rel.target == target
    }
}

fn props_of(metadata: &[Meta]) -> impl Iterator<Item = (&str, &serde_json::Value)> {
    metadata.iter().filter(|m| !m.value.is_null()).map(|m| (m.key.as_str(), &m.value))
}

impl<'n> DeltaBuilder<'n> {
    /// Start from the new graph's documents.
    pub fn new(new_docs: &'n [GraphDocument]) -> DeltaBuilder<'n> {
        let mut b = DeltaBuilder {
            new_nodes: HashMap::new(),
            new_edges: HashMap::new(),
            old_nodes: HashMap::new(),
            gone_edges: HashSet::new(),
            names_id: false,
            totals: IngestStats::default(),
        };
        for doc in new_docs {
            for node in std::iter::once(&doc.source).chain(&doc.nodes) {
                let state = b.new_nodes.entry(node.id.as_str()).or_insert_with(|| {
                    *b.totals.by_label.entry(node.node_type.clone()).or_default() += 1;
                    b.totals.nodes += 1;
                    NodeState { label: node.node_type.as_str(), props: BTreeMap::new() }
                });
                for m in &node.metadata {
                    b.names_id |= m.key == "id";
                    // A later occurrence's null removes the property, as the load's merge does.
                    if m.value.is_null() {
                        state.props.remove(m.key.as_str());
                    } else {
                        state.props.insert(m.key.as_str(), &m.value);
                    }
                }
            }
            for rel in &doc.relationships {
                if !b.new_nodes.contains_key(rel.source.as_str()) || !b.new_nodes.contains_key(rel.target.as_str()) {
                    b.totals.skipped_relationships += 1;
                    continue;
                }
                let bucket = b.new_edges.entry(edge_hash(&rel.source, &rel.rel_type, &rel.target)).or_default();
                if !bucket.iter().any(|e| e.is(&rel.source, &rel.rel_type, &rel.target)) {
                    *b.totals.by_type.entry(rel.rel_type.clone()).or_default() += 1;
                    b.totals.relationships += 1;
                    bucket.push(NewEdge { rel, seen: Seen::NotInOld });
                }
            }
        }
        b
    }

    /// The next document of the old graph, in the order it was loaded.
    pub fn add_old(&mut self, doc: GraphDocument) {
        let GraphDocument { source, nodes, relationships } = doc;
        for node in std::iter::once(source).chain(nodes) {
            let state = self.old_nodes.entry(node.id).or_insert_with(|| NodeState { label: node.node_type, props: BTreeMap::new() });
            for m in node.metadata {
                self.names_id |= m.key == "id";
                if m.value.is_null() {
                    state.props.remove(&m.key);
                } else {
                    state.props.insert(m.key, m.value);
                }
            }
        }
        for rel in relationships {
            if !self.old_nodes.contains_key(&rel.source) || !self.old_nodes.contains_key(&rel.target) {
                continue;
            }
            let bucket = self.new_edges.get_mut(&edge_hash(&rel.source, &rel.rel_type, &rel.target));
            match bucket.and_then(|b| b.iter_mut().find(|e| e.is(&rel.source, &rel.rel_type, &rel.target))) {
                Some(edge) if edge.seen == Seen::NotInOld => {
                    let same = props_of(&edge.rel.metadata).eq(props_of(&rel.metadata)) || {
                        let a: BTreeMap<_, _> = props_of(&edge.rel.metadata).collect();
                        let b: BTreeMap<_, _> = props_of(&rel.metadata).collect();
                        a == b
                    };
                    edge.seen = if same { Seen::Same } else { Seen::Changed };
                }
                // A repeated old edge: its first occurrence was compared.
                Some(_) => {}
                None => {
                    self.gone_edges.insert((rel.source, rel.rel_type, rel.target));
                }
            }
        }
    }

    /// The delta; `None` when a node changed its label (the store cannot relabel) or a node's
    /// metadata names `id`: load anew.
    pub fn finish(self) -> Option<GraphDelta> {
        if self.names_id {
            return None;
        }
        let mut d = GraphDelta { totals: self.totals, ..GraphDelta::default() };
        for (id, old) in &self.old_nodes {
            match self.new_nodes.get(id.as_str()) {
                None => {
                    d.remove_nodes.push((id.clone(), old.label.clone()));
                }
                Some(new) if new.label != old.label => return None,
                Some(new) => {
                    let mut changes: PropChanges = Vec::new();
                    for (k, v) in &new.props {
                        if old.props.get(*k) != Some(*v) {
                            changes.push((k.to_string(), Some((*v).clone())));
                        }
                    }
                    changes.extend(old.props.keys().filter(|k| !new.props.contains_key(k.as_str())).map(|k| (k.clone(), None)));
                    if !changes.is_empty() {
                        d.labels.insert(id.clone(), old.label.clone());
                        d.update_nodes.push((id.clone(), changes));
                    }
                }
            }
        }
        for (id, new) in &self.new_nodes {
            if !self.old_nodes.contains_key(*id) {
                let props = new.props.iter().map(|(k, v)| (k.to_string(), (*v).clone())).collect();
                d.create_nodes.push((id.to_string(), new.label.to_string(), props));
            }
        }
        let removed: HashSet<&str> = d.remove_nodes.iter().map(|(id, _)| id.as_str()).collect();
        d.remove_edges = self.gone_edges.into_iter().filter(|(s, _, t)| !removed.contains(s.as_str()) && !removed.contains(t.as_str())).collect();
        for edge in self.new_edges.values().flatten() {
            match edge.seen {
                Seen::Same => {}
                Seen::NotInOld => d.create_edges.push(edge.rel.clone()),
                Seen::Changed => {
                    let r = edge.rel;
                    d.remove_edges.push((r.source.clone(), r.rel_type.clone(), r.target.clone()));
                    d.create_edges.push(r.clone());
                }
            }
        }
        let named = d.remove_edges.iter().flat_map(|(s, _, t)| [s, t]).chain(d.create_edges.iter().flat_map(|r| [&r.source, &r.target]));
        let named: Vec<String> = named.filter(|id| !d.labels.contains_key(id.as_str())).cloned().collect();
        for id in named {
            let label = self.new_nodes.get(id.as_str()).map(|n| n.label.to_string()).or_else(|| self.old_nodes.get(&id).map(|n| n.label.clone()));
            if let Some(label) = label {
                d.labels.insert(id, label);
            }
        }
        d.labels.extend(d.remove_nodes.iter().cloned());
        // Deterministic order (the maps iterate in no order): the store assigns ids in creation
        // order, so two runs over the same change build the same file.
        d.remove_edges.sort();
        d.remove_nodes.sort();
        d.create_nodes.sort_by(|a, b| a.0.cmp(&b.0));
        d.update_nodes.sort_by(|a, b| a.0.cmp(&b.0));
        d.create_edges.sort_by(|a, b| (&a.source, &a.rel_type, &a.target).cmp(&(&b.source, &b.rel_type, &b.target)));
        Some(d)
    }
}

/// The delta between two graphs held in memory (tests and small graphs).
pub fn delta(old_docs: &[GraphDocument], new_docs: &[GraphDocument]) -> Option<GraphDelta> {
    let mut b = DeltaBuilder::new(new_docs);
    for doc in old_docs {
        b.add_old(doc.clone());
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kg::KgNode;

    fn node(id: &str, t: &str, df: i64) -> KgNode {
        KgNode { id: id.into(), node_type: t.into(), metadata: vec![Meta { key: "df".into(), value: df.into() }] }
    }
    fn rel(s: &str, t: &str, ty: &str, w: i64) -> KgRel {
        KgRel { source: s.into(), target: t.into(), rel_type: ty.into(), metadata: vec![Meta { key: "weight".into(), value: w.into() }] }
    }
    fn doc(id: &str, nodes: Vec<KgNode>, rels: Vec<KgRel>) -> GraphDocument {
        GraphDocument { source: node(id, "Document", 0), nodes, relationships: rels }
    }

    #[test]
    fn the_same_graph_needs_no_operation() {
        let docs = vec![doc("d1", vec![node("a", "Concept", 2)], vec![rel("d1", "a", "MENTIONS", 1)])];
        let d = delta(&docs, &docs).unwrap();
        assert_eq!(d.operations(), 0);
        assert_eq!((d.totals.nodes, d.totals.relationships), (2, 1));
    }

    #[test]
    fn an_edited_document_changes_only_what_it_touches() {
        let old = vec![
            doc("d1", vec![node("a", "Concept", 2), node("b", "Concept", 1)], vec![rel("d1", "a", "MENTIONS", 1), rel("d1", "b", "MENTIONS", 1), rel("a", "b", "RELATED_TO", 1)]),
            doc("d2", vec![node("a", "Concept", 2)], vec![rel("d2", "a", "MENTIONS", 3)]),
        ];
        let new = vec![
            doc("d1", vec![node("a", "Concept", 3), node("c", "Concept", 1)], vec![rel("d1", "a", "MENTIONS", 1), rel("d1", "c", "MENTIONS", 1)]),
            doc("d2", vec![node("a", "Concept", 3)], vec![rel("d2", "a", "MENTIONS", 4)]),
            doc("d3", vec![node("a", "Concept", 3)], vec![rel("d3", "a", "MENTIONS", 1), rel("d3", "ghost", "MENTIONS", 1)]),
        ];
        let d = delta(&old, &new).unwrap();
        // b goes, with its edges (deleted with the node, not one by one).
        assert_eq!(d.remove_nodes, vec![("b".to_string(), "Concept".to_string())]);
        // d2's MENTIONS changed its weight: removed and created again.
        assert_eq!(d.remove_edges, vec![("d2".to_string(), "MENTIONS".to_string(), "a".to_string())]);
        let created: Vec<(&str, &str)> = d.create_edges.iter().map(|r| (r.source.as_str(), r.target.as_str())).collect();
        assert_eq!(created, vec![("d1", "c"), ("d2", "a"), ("d3", "a")]);
        let nodes: Vec<&str> = d.create_nodes.iter().map(|n| n.0.as_str()).collect();
        assert_eq!(nodes, vec!["c", "d3"]);
        assert_eq!(d.update_nodes, vec![("a".to_string(), vec![("df".to_string(), Some(serde_json::json!(3)))])]);
        assert_eq!(d.labels["a"], "Concept");
        assert_eq!((d.totals.nodes, d.totals.relationships, d.totals.skipped_relationships), (5, 4, 1));
    }

    #[test]
    fn a_later_null_removes_a_property_as_the_load_merge_does() {
        let mut gone = node("a", "Concept", 1);
        gone.metadata = vec![Meta { key: "df".into(), value: serde_json::Value::Null }];
        let old = vec![doc("d1", vec![node("a", "Concept", 1)], vec![])];
        let new = vec![doc("d1", vec![node("a", "Concept", 1)], vec![]), doc("d2", vec![gone], vec![])];
        let d = delta(&old, &new).unwrap();
        assert!(d.update_nodes.contains(&("a".to_string(), vec![("df".to_string(), None)])), "{:?}", d.update_nodes);
        let mut named = node("b", "Concept", 1);
        named.metadata.push(Meta { key: "id".into(), value: "other".into() });
        assert!(delta(&old, &[doc("d1", vec![named], vec![])]).is_none());
    }

    #[test]
    fn a_relabelled_node_cannot_be_patched() {
        let old = vec![doc("d1", vec![node("a", "Concept", 1)], vec![])];
        let new = vec![doc("d1", vec![node("a", "Image", 1)], vec![])];
        assert!(delta(&old, &new).is_none());
    }

    #[test]
    fn first_occurrences_decide_as_the_full_load_does() {
        // An edge seen before its target node is skipped by the load, in both versions; a
        // repeated edge keeps its first properties.
        let old = vec![doc("d1", vec![], vec![rel("d1", "a", "MENTIONS", 1)]), doc("d2", vec![node("a", "Concept", 1)], vec![rel("d2", "a", "MENTIONS", 1), rel("d2", "a", "MENTIONS", 9)])];
        let d = delta(&old, &old).unwrap();
        assert_eq!(d.operations(), 0);
        assert_eq!(d.totals.skipped_relationships, 1);
    }
}
