//! Embedded graph store on graphdblite (a single SQLite file, Cypher, read-only transactions).
//! Bulk loading goes through its native node/edge API: Cypher `UNWIND ... MERGE` is far slower in it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use graphdblite::{Config, Database, NodeId, Value};

use super::{GraphStore, IngestStats, Row};
use crate::error::{QaError, Result};
use crate::kg::GraphDocument;

pub struct EmbeddedGraph {
    db: Database,
}

fn gerr(e: impl std::fmt::Display) -> QaError {
    QaError::Graph(e.to_string())
}

impl EmbeddedGraph {
    /// Open (or create) the database file with a row cap and a traversal-work budget (the
    /// embedded store has no wall-clock timeout; the work budget bounds every query instead).
    pub fn open(path: &Path, row_cap: usize) -> Result<EmbeddedGraph> {
        let config = Config {
            max_result_rows: row_cap,
            max_traversal_work: 2_000_000,
            mmap_size: 64 << 20,
            ..Config::default()
        };
        let db = Database::open_with_config(path, config).map_err(|e| QaError::Graph(format!("{}: {e}", path.display())))?;
        Ok(EmbeddedGraph { db })
    }

    /// Write a compact, self-contained copy of the database to `path` (which must not exist).
    pub fn snapshot_to(&mut self, path: &Path) -> Result<()> {
        self.db.snapshot_to(path).map_err(|e| QaError::Graph(format!("{}: {e}", path.display())))
    }
}

fn to_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => n.as_i64().map(Value::I64).unwrap_or_else(|| Value::F64(n.as_f64().unwrap_or(0.0))),
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::List(a.iter().map(to_value).collect()),
        serde_json::Value::Object(o) => Value::Map(o.iter().map(|(k, v)| (k.clone(), to_value(v))).collect()),
    }
}

fn props_json(props: &graphdblite::Properties) -> BTreeMap<String, serde_json::Value> {
    props.iter().map(|(k, v)| (k.clone(), to_json(v, &HashMap::new()))).collect()
}

fn node_key(n: &graphdblite::Node) -> String {
    match n.properties.get("id") {
        Some(Value::String(s)) => s.clone(),
        _ => format!("#{}", n.id.0),
    }
}

/// Convert a result value to JSON; `names` maps internal node ids to our string ids (for paths).
fn to_json(v: &Value, names: &HashMap<u64, String>) -> serde_json::Value {
    use serde_json::json;
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => json!(b),
        Value::I64(i) => json!(i),
        Value::F64(f) => json!(f),
        Value::String(s) => json!(s),
        Value::List(l) => serde_json::Value::Array(l.iter().map(|x| to_json(x, names)).collect()),
        Value::Map(m) => serde_json::Value::Object(m.iter().map(|(k, x)| (k.clone(), to_json(x, names))).collect()),
        Value::Node(n) => json!({"id": node_key(n), "labels": n.labels, "properties": props_json(&n.properties)}),
        Value::Edge(e) => json!({
            "source": names.get(&e.src.0).cloned().unwrap_or_else(|| format!("#{}", e.src.0)),
            "type": e.label,
            "target": names.get(&e.dst.0).cloned().unwrap_or_else(|| format!("#{}", e.dst.0)),
            "properties": props_json(&e.properties),
        }),
        Value::Path(p) => {
            let names: HashMap<u64, String> = p.nodes.iter().map(|n| (n.id.0, node_key(n))).collect();
            json!({
                "nodes": p.nodes.iter().map(|n| to_json(&Value::Node(n.clone()), &names)).collect::<Vec<_>>(),
                "edges": p.edges.iter().map(|e| to_json(&Value::Edge(e.clone()), &names)).collect::<Vec<_>>(),
            })
        }
        other => json!(format!("{other:?}")),
    }
}

impl GraphStore for EmbeddedGraph {
    fn backend(&self) -> &'static str {
        "embedded"
    }

    fn ingest(&mut self, docs: &[GraphDocument]) -> Result<IngestStats> {
        let mut stats = IngestStats::default();
        let tx = self.db.write_tx().map_err(gerr)?;
        // Existing ids (ingesting into a non-empty store merges rather than duplicates).
        let mut ids: HashMap<String, NodeId> = HashMap::new();
        for label in ["Document", "Concept", "Image"] {
            for n in tx.find_nodes_by_label(label).map_err(gerr)? {
                if let Some(Value::String(id)) = n.properties.get("id") {
                    ids.insert(id.clone(), n.id);
                }
            }
        }
        let mut edges_seen: std::collections::HashSet<(NodeId, NodeId, String)> = std::collections::HashSet::new();
        for label in ["Document", "Concept", "Image"] {
            for n in tx.find_nodes_by_label(label).map_err(gerr)? {
                for rel in ["MENTIONS", "RELATED_TO", "HAS_IMAGE", "DEPICTS"] {
                    for dst in tx.get_neighbors(n.id, rel, graphdblite::Direction::Outgoing).map_err(gerr)? {
                        edges_seen.insert((n.id, dst, rel.to_string()));
                    }
                }
            }
        }
        for doc in docs {
            for node in std::iter::once(&doc.source).chain(doc.nodes.iter()) {
                if ids.contains_key(&node.id) {
                    continue;
                }
                let mut props: graphdblite::Properties = HashMap::new();
                props.insert("id".into(), Value::String(node.id.clone()));
                for m in &node.metadata {
                    props.insert(m.key.clone(), to_value(&m.value));
                }
                let nid = tx.create_node(&node.node_type, props).map_err(gerr)?;
                ids.insert(node.id.clone(), nid);
                stats.nodes += 1;
                *stats.by_label.entry(node.node_type.clone()).or_default() += 1;
            }
            for rel in &doc.relationships {
                let (Some(&s), Some(&t)) = (ids.get(&rel.source), ids.get(&rel.target)) else {
                    tracing::warn!(source = %rel.source, target = %rel.target, "relationship to an unknown node skipped");
                    continue;
                };
                if !edges_seen.insert((s, t, rel.rel_type.clone())) {
                    continue;
                }
                let props: graphdblite::Properties = rel.metadata.iter().map(|m| (m.key.clone(), to_value(&m.value))).collect();
                tx.create_edge(s, t, &rel.rel_type, props).map_err(gerr)?;
                stats.relationships += 1;
                *stats.by_type.entry(rel.rel_type.clone()).or_default() += 1;
            }
        }
        for (label, prop) in [("Concept", "id"), ("Document", "id"), ("Document", "source_id"), ("Image", "id")] {
            // An index that already exists is fine (re-ingest).
            let _ = tx.create_index(label, prop);
        }
        let _ = tx.create_fulltext_index_ci("Concept", "name");
        let _ = tx.create_fulltext_index_ci("Image", "caption");
        tx.commit().map_err(gerr)?;
        Ok(stats)
    }

    fn read(&mut self, cypher: &str, params: &serde_json::Map<String, serde_json::Value>) -> Result<Vec<Row>> {
        let params: HashMap<String, Value> = params.iter().map(|(k, v)| (k.clone(), to_value(v))).collect();
        let tx = self.db.read_tx().map_err(gerr)?;
        let records = tx.query_with_params(cypher, Some(&params)).map_err(gerr)?;
        tx.commit().map_err(gerr)?;
        let names = HashMap::new();
        Ok(records
            .iter()
            .map(|r| r.iter().map(|(k, v)| (k.clone(), to_json(v, &names))).collect())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kg::{KgNode, KgRel, Meta};

    fn node(id: &str, t: &str) -> KgNode {
        KgNode { id: id.into(), node_type: t.into(), metadata: vec![Meta { key: "name".into(), value: id.into() }] }
    }
    fn rel(s: &str, t: &str, ty: &str) -> KgRel {
        KgRel { source: s.into(), target: t.into(), rel_type: ty.into(), metadata: vec![] }
    }

    #[test]
    fn ingest_is_idempotent_and_reads_are_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = EmbeddedGraph::open(&dir.path().join("g.db"), 100).unwrap();
        let docs = vec![GraphDocument {
            source: node("f::a_0", "Document"),
            nodes: vec![node("deep sleep", "Concept"), node("battery life", "Concept")],
            relationships: vec![
                rel("f::a_0", "deep sleep", "MENTIONS"),
                rel("f::a_0", "battery life", "MENTIONS"),
                rel("battery life", "deep sleep", "RELATED_TO"),
            ],
        }];
        let s1 = g.ingest(&docs).unwrap();
        assert_eq!((s1.nodes, s1.relationships), (3, 3));
        let s2 = g.ingest(&docs).unwrap();
        assert_eq!((s2.nodes, s2.relationships), (0, 0));
        let mut p = serde_json::Map::new();
        p.insert("a".into(), "deep sleep".into());
        p.insert("b".into(), "battery life".into());
        let rows = g
            .read("MATCH (a:Concept {id: $a})<-[:MENTIONS]-(d:Document)-[:MENTIONS]->(b:Concept {id: $b}) RETURN d.id AS doc", &p)
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["doc"], "f::a_0");
        let path = g.read("MATCH p = shortestPath((a:Concept {id: $a})-[*..4]-(b:Concept {id: $b})) RETURN p", &p).unwrap();
        assert_eq!(path[0]["p"]["edges"][0]["type"], "RELATED_TO");
        assert!(g.read("CREATE (:Concept {id: 'x'})", &p).is_err(), "writes must fail in a read transaction");
        assert_eq!(g.read("MATCH (c:Concept) RETURN count(c) AS n", &p).unwrap()[0]["n"], 2);
    }
}
