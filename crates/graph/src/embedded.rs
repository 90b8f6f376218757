//! Embedded graph store on graphdblite (a single SQLite file, Cypher, read-only transactions).
//! Bulk loading goes through its native node/edge API: Cypher `UNWIND ... MERGE` is far slower in it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use graphdblite::{Config, Database, NodeId, Value};

use super::{EntityHit, GraphCounts, GraphSchema, GraphStore, IngestStats, ReadRows};
use qa_core::error::{QaError, Result};
use crate::delta::GraphDelta;
use crate::kg::GraphDocument;

/// The embedded store's entity index: word (unicode61) full-text indexes searched with
/// `fts.search`, the counterpart of Neo4j's `entityIndex`.
const ENTITY_INDEX: &[(&str, &[&str])] =
    &[("Concept", &["id"]), ("Document", &["heading_path", "source_file"]), ("Image", &["alt", "source_path"])];

/// Node counts per label and edge counts per type, from the store's own statistics.
/// `query` runs Cypher in whichever transaction the caller holds.
/// A label or relationship type with at most this many members is scanned for its property keys;
/// larger ones are sampled (`EmbeddedGraph::schema`).
const SCHEMA_SCAN_LIMIT: u64 = 5_000;
/// Nodes looked up by id to sample the keys of large labels and types.
const SCHEMA_SAMPLE_NODES: u64 = 400;

fn counts_in(query: impl Fn(&str) -> graphdblite::Result<Vec<graphdblite::Record>>) -> Result<(BTreeMap<String, u64>, BTreeMap<String, u64>)> {
    let (mut labels, mut types) = (BTreeMap::new(), BTreeMap::new());
    for r in query("CALL db.counts() YIELD kind, name, count RETURN kind, name, count").map_err(gerr)? {
        let (Some(Value::String(kind)), Some(Value::String(name)), Some(Value::I64(n))) = (r.get("kind"), r.get("name"), r.get("count")) else {
            continue;
        };
        if *n <= 0 {
            continue;
        }
        match kind.as_str() {
            "label" => labels.insert(name.clone(), *n as u64),
            _ => types.insert(name.clone(), *n as u64),
        };
    }
    Ok((labels, types))
}

/// Property keys of the store's labels and relationship types (the store keeps no key
/// catalogue): those with at most `scan_limit` members are scanned, the others sampled.
fn property_keys(
    query: impl Fn(&str) -> graphdblite::Result<Vec<graphdblite::Record>>,
    labels: &BTreeMap<String, u64>,
    types: &BTreeMap<String, u64>,
    scan_limit: u64,
) -> Result<std::collections::BTreeSet<String>> {
    let mut keys = std::collections::BTreeSet::new();
    // Property keys from a sample of each label and type (the store keeps no key catalogue).
    // graphdblite materializes a whole MATCH before its LIMIT applies: on 60,000 documents
    // a scan of one edge type took 20 s and 3.7 GB before failing. So a label or type with
    // few members is scanned, and the others are sampled through point lookups of node ids
    // spread over the store (each lookup and its outgoing edges cost microseconds).
    // graphdblite takes no backtick-quoted names, so only plain identifiers are scanned.
    let plain = |s: &&String| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    for label in labels.iter().filter(|(_, n)| **n <= scan_limit).map(|(l, _)| l).filter(plain) {
        let q = format!("MATCH (n:{label}) RETURN keys(n) AS ks LIMIT 200");
        keys.extend(query(&q).map_err(gerr)?.iter().flat_map(|r| string_list(r.get("ks"))));
    }
    for ty in types.iter().filter(|(_, n)| **n <= scan_limit).map(|(t, _)| t).filter(plain) {
        let q = format!("MATCH ()-[r:{ty}]->() RETURN keys(r) AS ks LIMIT 200");
        keys.extend(query(&q).map_err(gerr)?.iter().flat_map(|r| string_list(r.get("ks"))));
    }
    if labels.values().chain(types.values()).any(|n| *n > scan_limit) {
        let nodes: u64 = labels.values().sum();
        let step = (nodes / SCHEMA_SAMPLE_NODES).max(1);
        let ids: Vec<String> = (0..SCHEMA_SAMPLE_NODES).map(|i| (1 + i * step).to_string()).collect();
        let ids = ids.join(", ");
        let q = format!("UNWIND [{ids}] AS i MATCH (n) WHERE id(n) = i RETURN keys(n) AS ks");
        keys.extend(query(&q).map_err(gerr)?.iter().flat_map(|r| string_list(r.get("ks"))));
        let q = format!("UNWIND [{ids}] AS i MATCH (n) WHERE id(n) = i WITH n MATCH (n)-[r]->() RETURN keys(r) AS ks");
        keys.extend(query(&q).map_err(gerr)?.iter().flat_map(|r| string_list(r.get("ks"))));
    }
    Ok(keys)
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::List(items)) => items.iter().filter_map(|x| if let Value::String(s) = x { Some(s.clone()) } else { None }).collect(),
        _ => Vec::new(),
    }
}

/// Plain text → an FTS5 query: every word quoted (so no FTS5 syntax can be injected) and OR-ed.
pub(crate) fn fts5_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(16)
        .map(|w| format!("\"{}\"", w.to_lowercase()))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

/// The embedded graph store: one graphdblite database file (`graph.db` in an index generation).
pub struct EmbeddedGraph {
    db: Database,
    path: std::path::PathBuf,
    /// Rows a read returns (the rest are cut, and the cut is reported).
    row_cap: usize,
}

fn gerr(e: impl std::fmt::Display) -> QaError {
    QaError::Graph(e.to_string())
}

impl EmbeddedGraph {
    /// Open (or create) the database file with a row cap and a traversal-work budget (the
    /// embedded store has no wall-clock timeout; the work budget bounds every query instead).
    /// graphdblite's own row limit fails a query whose *intermediate* results exceed it (a
    /// `LIMIT 5` query over a large pattern), so the database runs without it and [`read`]
    /// applies the cap to the final rows.
    pub fn open(path: &Path, row_cap: usize) -> Result<EmbeddedGraph> {
        let config = Config {
            max_result_rows: 0,
            max_traversal_work: 2_000_000,
            mmap_size: 64 << 20,
            ..Config::default()
        };
        let db = Database::open_with_config(path, config).map_err(|e| QaError::Graph(format!("{}: {e}", path.display())))?;
        Ok(EmbeddedGraph { db, path: path.to_path_buf(), row_cap })
    }

    /// Apply `delta` (computed from the documents this store was loaded from and the new ones)
    /// in one write transaction: the store then holds what a full load of the new documents
    /// would. Nodes are found by `id` through the store's index on it; a node the delta names
    /// but the store lacks is an error (the caller loads anew).
    pub fn apply_delta(&mut self, delta: &GraphDelta) -> Result<()> {
        let tx = self.db.write_tx().map_err(gerr)?;
        for label in delta.labels.values().chain(delta.create_nodes.iter().map(|n| &n.1)).collect::<std::collections::BTreeSet<_>>() {
            // An index that exists already is fine.
            let _ = tx.create_index(label, "id");
        }
        let mut created: HashMap<&str, NodeId> = HashMap::new();
        let find = |created: &HashMap<&str, NodeId>, id: &str| -> Result<NodeId> {
            if let Some(n) = created.get(id) {
                return Ok(*n);
            }
            let label = delta.labels.get(id).ok_or_else(|| QaError::Graph(format!("the graph delta names {id:?} without its label")))?;
            let found = tx.index_lookup(label, "id", &Value::String(id.to_string())).map_err(gerr)?;
            found.first().copied().ok_or_else(|| QaError::Graph(format!("the previous graph store has no {label} node {id:?}")))
        };
        for (s, ty, t) in &delta.remove_edges {
            tx.delete_edge(find(&created, s)?, find(&created, t)?, ty).map_err(gerr)?;
        }
        for (id, _) in &delta.remove_nodes {
            tx.delete_node(find(&created, id)?).map_err(gerr)?;
        }
        for (id, label, props) in &delta.create_nodes {
            let mut p: graphdblite::Properties = props.iter().map(|(k, v)| (k.clone(), to_value(v))).collect();
            p.insert("id".into(), Value::String(id.clone()));
            created.insert(id.as_str(), tx.create_node(label, p).map_err(gerr)?);
        }
        for (id, changes) in &delta.update_nodes {
            let n = find(&created, id)?;
            for (key, value) in changes {
                match value {
                    Some(v) => tx.set_node_property(n, key, to_value(v)),
                    None => tx.remove_node_property(n, key),
                }
                .map_err(gerr)?;
            }
        }
        for rel in &delta.create_edges {
            let props: graphdblite::Properties = rel.metadata.iter().filter(|m| !m.value.is_null()).map(|m| (m.key.clone(), to_value(&m.value))).collect();
            tx.create_edge(find(&created, &rel.source)?, find(&created, &rel.target)?, &rel.rel_type, props).map_err(gerr)?;
        }
        tx.commit().map_err(gerr)
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
        // What the store already holds, so ingesting into a non-empty store merges rather than
        // duplicates: nodes by `id` (any label), edges by (source, type, target).
        let (labels, types) = counts_in(|q| tx.query(q))?;
        let mut ids: HashMap<String, graphdblite::Node> = HashMap::new();
        for label in labels.keys().map(String::as_str).chain(docs.iter().flat_map(|d| std::iter::once(&d.source).chain(&d.nodes)).map(|n| n.node_type.as_str())).collect::<std::collections::BTreeSet<_>>() {
            for n in tx.find_nodes_by_label(label).map_err(gerr)? {
                if let Some(Value::String(id)) = n.properties.get("id") {
                    ids.insert(id.clone(), n);
                }
            }
        }
        let mut edges_seen: std::collections::HashSet<(NodeId, NodeId, String)> = std::collections::HashSet::new();
        for n in ids.values() {
            for rel in types.keys() {
                for dst in tx.get_neighbors(n.id, rel, graphdblite::Direction::Outgoing).map_err(gerr)? {
                    edges_seen.insert((n.id, dst, rel.clone()));
                }
            }
        }
        let mut node_ids: HashMap<String, NodeId> = ids.iter().map(|(k, n)| (k.clone(), n.id)).collect();
        for doc in docs {
            for node in std::iter::once(&doc.source).chain(doc.nodes.iter()) {
                let mut props: graphdblite::Properties = HashMap::new();
                props.insert("id".into(), Value::String(node.id.clone()));
                for m in &node.metadata {
                    props.insert(m.key.clone(), to_value(&m.value));
                }
                if let Some(existing) = ids.get_mut(&node.id) {
                    // Merge: set the properties that are new or changed.
                    for (k, v) in props {
                        if existing.properties.get(&k) != Some(&v) {
                            tx.set_node_property(existing.id, &k, v.clone()).map_err(gerr)?;
                            existing.properties.insert(k, v);
                            stats.properties_set += 1;
                        }
                    }
                    continue;
                }
                let nid = tx.create_node(&node.node_type, props.clone()).map_err(gerr)?;
                node_ids.insert(node.id.clone(), nid);
                ids.insert(node.id.clone(), graphdblite::Node { id: nid, labels: vec![node.node_type.clone()], properties: props });
                stats.nodes += 1;
                *stats.by_label.entry(node.node_type.clone()).or_default() += 1;
            }
            for rel in &doc.relationships {
                let (Some(&s), Some(&t)) = (node_ids.get(&rel.source), node_ids.get(&rel.target)) else {
                    stats.skipped_relationships += 1;
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
        // Trigram indexes accelerate `toLower(x) CONTAINS $w`; word indexes are the entity index
        // (`fts.search`), one per label because a (label, property) pair takes one kind of index.
        let _ = tx.create_fulltext_index_ci("Concept", "name");
        let _ = tx.create_fulltext_index_ci("Image", "caption");
        for (label, props) in ENTITY_INDEX {
            let props: Vec<String> = props.iter().map(|p| p.to_string()).collect();
            let _ = tx.create_fulltext_index_word_multi(label, &props);
        }
        tx.commit().map_err(gerr)?;
        Ok(stats)
    }

    fn read(&mut self, cypher: &str, params: &serde_json::Map<String, serde_json::Value>) -> Result<ReadRows> {
        let params: HashMap<String, Value> = params.iter().map(|(k, v)| (k.clone(), to_value(v))).collect();
        let tx = self.db.read_tx().map_err(gerr)?;
        let records = tx.query_with_params(cypher, Some(&params)).map_err(gerr)?;
        tx.commit().map_err(gerr)?;
        let names = HashMap::new();
        let truncated = records.len() > self.row_cap;
        let rows = records.iter().take(self.row_cap).map(|r| r.iter().map(|(k, v)| (k.clone(), to_json(v, &names))).collect()).collect();
        Ok(ReadRows { rows, truncated })
    }

    fn schema(&mut self) -> Result<GraphSchema> {
        // graphdblite applies the row cap to intermediate results too (a scan of all MENTIONS
        // edges exceeds it before LIMIT applies), so the fixed sampling queries below run on a
        // second, read-only-used handle without the cap.
        let config = Config { max_result_rows: 0, max_traversal_work: 20_000_000, ..Config::default() };
        let mut db = Database::open_with_config(&self.path, config).map_err(gerr)?;
        let tx = db.read_tx().map_err(gerr)?;
        let (labels, types) = counts_in(|q| tx.query(q))?;
        let keys = property_keys(|q| tx.query(q), &labels, &types, SCHEMA_SCAN_LIMIT)?;
        tx.commit().map_err(gerr)?;
        Ok(GraphSchema {
            labels: labels.into_keys().collect(),
            relationship_types: types.into_keys().collect(),
            property_keys: keys.into_iter().collect(),
        })
    }

    fn search_entities(&mut self, text: &str, limit: usize) -> Result<Vec<EntityHit>> {
        let Some(query) = fts5_query(text) else { return Ok(Vec::new()) };
        let tx = self.db.read_tx().map_err(gerr)?;
        let mut hits = Vec::new();
        let mut missing = 0;
        for (label, props) in ENTITY_INDEX {
            for prop in *props {
                let params: HashMap<String, Value> = HashMap::from([
                    ("label".to_string(), Value::String(label.to_string())),
                    ("prop".to_string(), Value::String(prop.to_string())),
                    ("q".to_string(), Value::String(query.clone())),
                ]);
                let rows = tx.query_with_params(
                    "CALL fts.search($label, $prop, $q) YIELD node, score RETURN coalesce(node.id, node.text, node.name) AS name, labels(node) AS labels, score ORDER BY score DESC LIMIT 50",
                    Some(&params),
                );
                let rows = match rows {
                    Ok(rows) => rows,
                    // A store built by an older qa has no word index; re-ingesting adds it.
                    Err(graphdblite::GraphError::IndexNotFound { .. }) => {
                        missing += 1;
                        continue;
                    }
                    Err(e) => return Err(gerr(e)),
                };
                for r in rows {
                    let Some(Value::String(name)) = r.get("name") else { continue };
                    let labels = match r.get("labels") {
                        Some(Value::List(l)) => l.iter().filter_map(|v| if let Value::String(s) = v { Some(s.clone()) } else { None }).collect(),
                        _ => vec![label.to_string()],
                    };
                    let score = match r.get("score") {
                        Some(Value::F64(f)) => *f,
                        Some(Value::I64(i)) => *i as f64,
                        _ => 0.0,
                    };
                    hits.push(EntityHit { name: name.clone(), labels, score });
                }
            }
        }
        tx.commit().map_err(gerr)?;
        if missing == ENTITY_INDEX.iter().map(|(_, p)| p.len()).sum::<usize>() {
            return Err(QaError::Graph(
                "the entity full-text index is missing (this index was built by an older qa): run `qa graph ingest` to add it".into(),
            ));
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
        let mut seen = std::collections::HashSet::new();
        hits.retain(|h| seen.insert(h.name.clone()));
        hits.truncate(limit);
        Ok(hits)
    }

    fn counts(&mut self) -> Result<GraphCounts> {
        let tx = self.db.read_tx().map_err(gerr)?;
        let (labels, types) = counts_in(|q| tx.query(q))?;
        tx.commit().map_err(gerr)?;
        Ok(GraphCounts { nodes: labels.values().sum(), relationships: types.values().sum(), by_label: labels, by_type: types })
    }

    fn extra_procedures(&self) -> &'static [&'static str] {
        &["fts.search", "db.counts", "db.indexes"]
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
            .unwrap()
            .rows;
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["doc"], "f::a_0");
        let path = g.read("MATCH p = shortestPath((a:Concept {id: $a})-[*..4]-(b:Concept {id: $b})) RETURN p", &p).unwrap().rows;
        assert_eq!(path[0]["p"]["edges"][0]["type"], "RELATED_TO");
        assert!(g.read("CREATE (:Concept {id: 'x'})", &p).is_err(), "writes must fail in a read transaction");
        assert_eq!(g.read("MATCH (c:Concept) RETURN count(c) AS n", &p).unwrap().rows[0]["n"], 2);
    }

    /// Everything the store holds, by the documents' ids: nodes with labels and properties,
    /// edges with properties, and the entity index's answer to one search.
    fn dump(g: &mut EmbeddedGraph) -> (Vec<String>, Vec<String>, Vec<String>) {
        let none = serde_json::Map::new();
        let mut nodes: Vec<String> = g.read("MATCH (n) RETURN labels(n) AS l, properties(n) AS p", &none).unwrap().rows.iter().map(|r| format!("{:?} {:?}", r["l"], r["p"])).collect();
        let mut edges: Vec<String> = g
            .read("MATCH (a)-[r]->(b) RETURN a.id AS s, type(r) AS t, b.id AS d, properties(r) AS p", &none)
            .unwrap()
            .rows
            .iter()
            .map(|r| format!("{} {} {} {:?}", r["s"], r["t"], r["d"], r["p"]))
            .collect();
        nodes.sort();
        edges.sort();
        let hits = g.search_entities("deep sleep radio", 10).unwrap().into_iter().map(|h| h.name).collect();
        (nodes, edges, hits)
    }

    #[test]
    fn a_delta_applied_to_the_old_store_gives_what_a_fresh_load_gives() {
        let m = |k: &str, v: serde_json::Value| Meta { key: k.into(), value: v };
        let concept = |id: &str, df: i64| KgNode { id: id.into(), node_type: "Concept".into(), metadata: vec![m("name", id.into()), m("df", df.into())] };
        let mention = |d: &str, c: &str, n: i64| KgRel { source: d.into(), target: c.into(), rel_type: "MENTIONS".into(), metadata: vec![m("count", n.into())] };
        let old = vec![
            GraphDocument {
                source: node("f::a_0", "Document"),
                nodes: vec![concept("deep sleep", 2), concept("battery life", 1)],
                relationships: vec![mention("f::a_0", "deep sleep", 1), mention("f::a_0", "battery life", 2), rel("battery life", "deep sleep", "RELATED_TO")],
            },
            GraphDocument { source: node("f::b_0", "Document"), nodes: vec![concept("deep sleep", 2)], relationships: vec![mention("f::b_0", "deep sleep", 3)] },
        ];
        // Document b edited: battery life leaves the corpus, a radio concept and a new
        // document come, deep sleep's document frequency and b's mention count change.
        let new = vec![
            GraphDocument { source: node("f::a_0", "Document"), nodes: vec![concept("deep sleep", 3)], relationships: vec![mention("f::a_0", "deep sleep", 1)] },
            GraphDocument {
                source: node("f::b_0", "Document"),
                nodes: vec![concept("deep sleep", 3), concept("radio", 1)],
                relationships: vec![mention("f::b_0", "deep sleep", 4), mention("f::b_0", "radio", 1), rel("radio", "deep sleep", "RELATED_TO")],
            },
            GraphDocument { source: node("f::c_0", "Document"), nodes: vec![concept("deep sleep", 3)], relationships: vec![mention("f::c_0", "deep sleep", 1)] },
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut patched = EmbeddedGraph::open(&dir.path().join("patched.db"), 100).unwrap();
        patched.ingest(&old).unwrap();
        let delta = crate::delta::delta(&old, &new).unwrap();
        assert!(delta.operations() > 0);
        patched.apply_delta(&delta).unwrap();
        let mut fresh = EmbeddedGraph::open(&dir.path().join("fresh.db"), 100).unwrap();
        let loaded = fresh.ingest(&new).unwrap();
        let want = dump(&mut fresh);
        assert_eq!(dump(&mut patched), want);
        assert!(want.1.iter().any(|e| e.contains("radio")) && !want.0.iter().any(|n| n.contains("battery")));
        assert_eq!((delta.totals.nodes, delta.totals.relationships), (loaded.nodes, loaded.relationships));
        assert_eq!(delta.totals.by_label, loaded.by_label);
        // A store that does not hold the old documents is refused, not patched blindly.
        let mut other = EmbeddedGraph::open(&dir.path().join("other.db"), 100).unwrap();
        other.ingest(&new[2..]).unwrap();
        assert!(other.apply_delta(&delta).is_err());
    }

    #[test]
    fn the_row_cap_truncates_and_says_so_never_fails() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = EmbeddedGraph::open(&dir.path().join("g.db"), 10).unwrap();
        let concepts: Vec<KgNode> = (0..40).map(|i| node(&format!("c{i}"), "Concept")).collect();
        let rels: Vec<KgRel> = (0..40).map(|i| rel("f::a_0", &format!("c{i}"), "MENTIONS")).collect();
        g.ingest(&[GraphDocument { source: node("f::a_0", "Document"), nodes: concepts, relationships: rels }]).unwrap();
        let none = serde_json::Map::new();
        let all = g.read("MATCH (c:Concept) RETURN c.id AS id", &none).unwrap();
        assert_eq!(all.rows.len(), 10);
        assert!(all.truncated, "40 rows under a cap of 10 are a truncation");
        // Intermediate results larger than the cap do not fail a small final result.
        let few = g.read("MATCH (d:Document)-[:MENTIONS]->(c:Concept) RETURN c.id AS id ORDER BY id LIMIT 3", &none).unwrap();
        assert_eq!((few.rows.len(), few.truncated), (3, false));
        let counted = g.read("MATCH (d:Document)-[:MENTIONS]->(c:Concept) RETURN count(c) AS n", &none).unwrap();
        assert_eq!(counted.rows[0]["n"], 40);
    }

    #[test]
    fn schema_counts_entity_search_and_merge() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = EmbeddedGraph::open(&dir.path().join("g.db"), 100).unwrap();
        let mut doc = GraphDocument {
            source: node("f::a_0", "Document"),
            nodes: vec![node("deep sleep", "Concept"), node("battery life", "Concept")],
            relationships: vec![rel("battery life", "deep sleep", "EXTENDS"), rel("f::a_0", "ghost", "MENTIONS")],
        };
        let s1 = g.ingest(std::slice::from_ref(&doc)).unwrap();
        assert_eq!((s1.nodes, s1.relationships, s1.skipped_relationships), (3, 1, 1));
        // Typed relations are deduplicated on re-ingest too; changed properties are merged.
        doc.nodes[0].metadata.push(Meta { key: "kind".into(), value: "phrase".into() });
        let s2 = g.ingest(std::slice::from_ref(&doc)).unwrap();
        assert_eq!((s2.nodes, s2.relationships, s2.properties_set), (0, 0, 1));
        let s3 = g.ingest(std::slice::from_ref(&doc)).unwrap();
        assert_eq!((s3.nodes, s3.relationships, s3.properties_set), (0, 0, 0));

        let schema = g.schema().unwrap();
        // Sampling by node ids (for labels and types too large to scan) finds the same keys.
        let mut db = Database::open_with_config(dir.path().join("g.db"), Config { max_result_rows: 0, ..Config::default() }).unwrap();
        let tx = db.read_tx().unwrap();
        let (labels, types) = counts_in(|q| tx.query(q)).unwrap();
        let sampled = property_keys(|q| tx.query(q), &labels, &types, 0).unwrap();
        assert_eq!(sampled.into_iter().collect::<Vec<_>>(), schema.property_keys);
        drop(tx);
        assert_eq!(schema.labels, vec!["Concept", "Document"]);
        assert_eq!(schema.relationship_types, vec!["EXTENDS"]);
        assert!(schema.property_keys.contains(&"kind".to_string()) && schema.property_keys.contains(&"id".to_string()));
        let counts = g.counts().unwrap();
        assert_eq!((counts.nodes, counts.relationships), (3, 1));
        assert_eq!(counts.by_label["Concept"], 2);

        let hits = g.search_entities("How does SLEEP work?", 5).unwrap();
        assert_eq!(hits[0].name, "deep sleep");
        assert_eq!(hits[0].labels, vec!["Concept"]);
        // FTS5 syntax in the text is data, not query syntax.
        assert!(g.search_entities("sleep\" OR NEAR(* \"", 5).unwrap().iter().any(|h| h.name == "deep sleep"));
        assert!(g.search_entities("?!", 5).unwrap().is_empty());
    }

    #[test]
    fn a_store_without_the_entity_index_says_how_to_add_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.db");
        {
            // What an older qa wrote: nodes, no word indexes.
            let mut db = Database::open(&path).unwrap();
            let tx = db.write_tx().unwrap();
            tx.create_node("Concept", HashMap::from([("id".to_string(), Value::String("deep sleep".into()))])).unwrap();
            tx.commit().unwrap();
        }
        let mut g = EmbeddedGraph::open(&path, 100).unwrap();
        let err = g.search_entities("sleep", 5).unwrap_err().to_string();
        assert!(err.contains("qa graph ingest"), "{err}");
        g.ingest(&[]).unwrap();
        assert_eq!(g.search_entities("sleep", 5).unwrap()[0].name, "deep sleep");
    }
}
