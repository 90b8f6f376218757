//! Deterministic graph evidence: ground the question's terms to concepts, then run fixed
//! read-only Cypher — direct edges between the top two concepts, co-mention through documents,
//! shortest path (≤ 4 hops), the top concept's neighbourhood, images depicting grounded concepts
//! or captioned with the question's words, and the documents behind it all (resolved to chunks).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{GraphStore, Row, Subgraph};
use crate::embed::dot;
use crate::kg::{normalize_concept, ConceptInfo};

/// Concept names with their embeddings, loaded from the index generation.
pub struct ConceptIndex {
    pub concepts: Vec<ConceptInfo>,
    pub vectors: Vec<Vec<f32>>,
    by_id: HashMap<String, usize>,
}

impl ConceptIndex {
    pub fn new(concepts: Vec<ConceptInfo>, vectors: Vec<Vec<f32>>) -> ConceptIndex {
        let by_id = concepts.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        ConceptIndex { concepts, vectors, by_id }
    }
    pub fn get(&self, id: &str) -> Option<&ConceptInfo> {
        self.by_id.get(id).map(|&i| &self.concepts[i])
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Grounded {
    pub id: String,
    pub name: String,
    pub score: f32,
    /// "exact" (question n-gram = concept id), "text_index" (store full-text match) or "embedding".
    pub method: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GraphFact {
    /// "direct_edge", "co_mention", "shortest_path", "neighbourhood".
    pub kind: String,
    pub text: String,
    /// Chunks that support the fact (from edge evidence or mentioning documents).
    pub chunk_ids: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImageHit {
    pub id: String,
    pub source_path: String,
    pub caption: String,
    /// Why it was selected: "depicts:<concept>" or "caption".
    pub via: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QueryRecord {
    pub name: String,
    pub cypher: String,
    pub params: serde_json::Value,
    pub rows: usize,
    #[serde(default)]
    pub ms: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GraphEvidence {
    pub grounded: Vec<Grounded>,
    pub facts: Vec<GraphFact>,
    pub images: Vec<ImageHit>,
    /// `Document.source_id` values (`<chunk_file>::<chunk_id>`) behind the evidence, best first.
    pub source_ids: Vec<String>,
    pub subgraph: Subgraph,
    /// Deterministic strategies that returned rows.
    pub strategies: Vec<String>,
    pub queries: Vec<QueryRecord>,
    pub errors: Vec<String>,
}

/// Words that carry the question's form, not its subject.
const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "how", "why", "when", "where", "does", "do", "did", "is", "are", "was", "were", "the",
    "a", "an", "of", "to", "in", "on", "for", "and", "or", "with", "between", "relate", "relates", "related", "relation",
    "relationship", "connect", "connected", "connection", "explain", "describe", "tell", "me", "show", "give", "find",
    "about", "there", "any", "can", "could", "should", "would", "i", "my", "it", "its", "this", "that", "these", "those",
    "be", "by", "from", "use", "used", "affect", "affects", "influence", "impact", "much", "many", "some", "your", "we",
    "our", "you", "they", "them", "as", "at", "if", "into", "than", "then", "so", "not", "no", "yes", "have", "has",
];

const IMAGE_WORDS: &[&str] =
    &["image", "images", "picture", "pictures", "diagram", "diagrams", "figure", "figures", "photo", "photos", "chart", "schematic", "screenshot", "drawing", "illustration", "layout"];

pub fn content_words(question: &str) -> Vec<String> {
    question
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| w.len() >= 2 && !QUESTION_WORDS.contains(&w.as_str()))
        .collect()
}

pub fn asks_for_image(question: &str) -> bool {
    let q = question.to_lowercase();
    q.split(|c: char| !c.is_alphanumeric()).any(|w| IMAGE_WORDS.contains(&w))
}

fn s(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

struct Runner<'a> {
    store: &'a mut dyn GraphStore,
    ev: GraphEvidence,
}

impl Runner<'_> {
    fn run(&mut self, name: &str, cypher: &str, params: serde_json::Value) -> Vec<Row> {
        let map = params.as_object().cloned().unwrap_or_default();
        let t = std::time::Instant::now();
        let result = self.store.read(cypher, &map);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(rows) => {
                self.ev.queries.push(QueryRecord { name: name.into(), cypher: cypher.into(), params, rows: rows.len(), ms });
                rows
            }
            Err(e) => {
                self.ev.errors.push(format!("{name}: {e}"));
                self.ev.queries.push(QueryRecord { name: name.into(), cypher: cypher.into(), params, rows: 0, ms });
                Vec::new()
            }
        }
    }
    fn strategy(&mut self, s: &str) {
        if !self.ev.strategies.iter().any(|x| x == s) {
            self.ev.strategies.push(s.into());
        }
    }
    fn source(&mut self, sid: String) {
        if !sid.is_empty() && !self.ev.source_ids.contains(&sid) {
            self.ev.source_ids.push(sid);
        }
    }
}

fn chunk_of(source_id: &str) -> String {
    source_id.rsplit_once("::").map(|(_, c)| c.to_string()).unwrap_or_else(|| source_id.to_string())
}

/// Ground the question to concepts: exact n-gram matches, the store's text index, and embedding
/// similarity of concept names to the question.
pub fn ground(
    store: &mut dyn GraphStore,
    question: &str,
    q_vec: &[f32],
    concepts: &ConceptIndex,
    errors: &mut Vec<String>,
    queries: &mut Vec<QueryRecord>,
) -> Vec<Grounded> {
    let mut best: BTreeMap<String, Grounded> = BTreeMap::new();
    let mut offer = |id: &str, name: &str, score: f32, method: &str| {
        let e = best.entry(id.to_string()).or_insert_with(|| Grounded { id: id.into(), name: name.into(), score: 0.0, method: method.into() });
        if score > e.score {
            e.score = score;
            e.method = method.into();
        }
    };
    let words: Vec<String> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == ':' || c == '.'))
        .map(|w| w.trim_matches(['.', ':', '-']).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    for n in (1..=4).rev() {
        for w in words.windows(n) {
            if n == 1 && QUESTION_WORDS.contains(&w[0].as_str()) {
                continue;
            }
            let id = normalize_concept(&w.join(" "));
            if let Some(c) = concepts.get(&id) {
                offer(&c.id, &c.name, 1.0 + 0.05 * n as f32, "exact");
            }
        }
    }
    for w in content_words(question).into_iter().filter(|w| w.len() >= 3).take(8) {
        // `toLower(prop) CONTAINS toLower($q)` is the idiom the store's case-insensitive trigram index
        // accelerates.
        const CYPHER: &str = "MATCH (c:Concept) WHERE toLower(c.name) CONTAINS toLower($w) RETURN c.id AS id, c.name AS name LIMIT 25";
        let params = json!({"w": w});
        let t = std::time::Instant::now();
        let rows = store.read(CYPHER, &params.as_object().cloned().unwrap_or_default());
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        queries.push(QueryRecord {
            name: "grounding_text_index".into(),
            cypher: CYPHER.into(),
            params,
            rows: rows.as_ref().map(|r| r.len()).unwrap_or(0),
            ms,
        });
        match rows {
            Ok(rows) => {
                for r in rows {
                    let id = s(&r["id"]);
                    let name = s(&r["name"]);
                    let coverage = w.len() as f32 / name.len().max(1) as f32;
                    offer(&id, &name, 0.5 + 0.4 * coverage.min(1.0), "text_index");
                }
            }
            Err(e) => errors.push(format!("grounding text index: {e}")),
        }
    }
    if !q_vec.is_empty() {
        for (i, v) in concepts.vectors.iter().enumerate() {
            let sim = dot(q_vec, v);
            if sim >= 0.5 {
                let c = &concepts.concepts[i];
                offer(&c.id, &c.name, sim, "embedding");
            }
        }
    }
    let mut out: Vec<Grounded> = best.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    // Drop a concept that is a word-span of a better exact match ("sleep" under "deep sleep").
    let exact: Vec<String> = out.iter().filter(|g| g.method == "exact").map(|g| g.id.clone()).collect();
    out.retain(|g| !exact.iter().any(|e| e != &g.id && e.split(' ').count() > g.id.split(' ').count() && format!(" {e} ").contains(&format!(" {} ", g.id))));
    out.truncate(6);
    out
}

/// Gather all deterministic evidence for a question.
pub fn gather(store: &mut dyn GraphStore, question: &str, q_vec: &[f32], concepts: &ConceptIndex) -> GraphEvidence {
    let mut errors = Vec::new();
    let mut queries = Vec::new();
    let grounded = ground(store, question, q_vec, concepts, &mut errors, &mut queries);
    let mut r = Runner { store, ev: GraphEvidence { grounded: grounded.clone(), errors, queries, ..Default::default() } };
    let name_of = |id: &str| concepts.get(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string());
    for g in grounded.iter().take(3) {
        r.ev.subgraph.add_node(&g.id, "Concept", BTreeMap::from([("name".into(), json!(g.name))]));
    }

    // Relational evidence only between two confidently grounded concepts: a path between two
    // loose text matches is noise, not evidence.
    let strong = |g: &Grounded| g.method == "exact" || g.score >= 0.75;
    // The partner of the top concept: the next strong concept that is not a variant of it
    // ("dew point" vs "water-based dew point" is one topic, not a relation).
    let contains_words = |long: &str, short: &str| format!(" {long} ").contains(&format!(" {short} "));
    let partner = grounded.iter().skip(1).find(|g| {
        strong(g) && !contains_words(&g.id, &grounded[0].id) && !contains_words(&grounded[0].id, &g.id)
    });
    if let (Some(first), Some(second)) = (grounded.first().filter(|g| strong(g)), partner) {
        let (a, b) = (first.id.clone(), second.id.clone());
        let p = json!({"a": a, "b": b});
        let direct = r.run(
            "direct_edge",
            "MATCH (a:Concept {id: $a})-[r]-(b:Concept {id: $b}) RETURN type(r) AS type, r.weight AS weight, r.evidence AS evidence, startNode(r).id AS source LIMIT 5",
            p.clone(),
        );
        for row in &direct {
            let ty = s(&row["type"]);
            let chunk_ids: Vec<String> = row["evidence"].as_array().map(|a| a.iter().map(s).collect()).unwrap_or_default();
            let weight = row["weight"].as_i64().unwrap_or(0);
            r.ev.facts.push(GraphFact {
                kind: "direct_edge".into(),
                // Co-occurrence edges count chunks; typed edges (LLM extraction) count statements.
                text: if ty == "RELATED_TO" {
                    format!("{} —{ty}→ {} (co-occur in {weight} chunks)", name_of(&a), name_of(&b))
                } else {
                    let (from, to) = if s(&row["source"]) == b { (&b, &a) } else { (&a, &b) };
                    format!("{} —{ty}→ {} (stated in {weight} chunk(s))", name_of(from), name_of(to))
                },
                chunk_ids: chunk_ids.clone(),
            });
            let (src, dst) = if s(&row["source"]) == b { (&b, &a) } else { (&a, &b) };
            r.ev.subgraph.add_edge(src, &ty, dst, BTreeMap::from([("weight".into(), json!(weight))]));
            r.strategy("direct_edge");
        }
        let co = r.run(
            "co_mention",
            "MATCH (a:Concept {id: $a})<-[:MENTIONS]-(d:Document)-[:MENTIONS]->(b:Concept {id: $b}) RETURN d.source_id AS source_id, d.source_file AS source_file LIMIT 10",
            p.clone(),
        );
        if !co.is_empty() {
            let ids: Vec<String> = co.iter().map(|row| s(&row["source_id"])).collect();
            let chunk_ids: Vec<String> = ids.iter().map(|sid| chunk_of(sid)).collect();
            r.ev.facts.push(GraphFact {
                kind: "co_mention".into(),
                text: format!("{} and {} are mentioned together in {} chunk(s): {}", name_of(&a), name_of(&b), co.len(), chunk_ids.join(", ")),
                chunk_ids: chunk_ids.clone(),
            });
            for sid in &ids {
                r.ev.subgraph.add_node(sid, "Document", BTreeMap::new());
                r.ev.subgraph.add_edge(sid, "MENTIONS", &a, BTreeMap::new());
                r.ev.subgraph.add_edge(sid, "MENTIONS", &b, BTreeMap::new());
            }
            for sid in ids {
                r.source(sid);
            }
            r.strategy("co_mention");
        }
        if direct.is_empty() && co.is_empty() {
            // A chain of related concepts says more than a hop through a document hub; any
            // relationship type is the fallback.
            let mut path = r.run(
                "shortest_path",
                "MATCH p = shortestPath((a:Concept {id: $a})-[:RELATED_TO*..4]-(b:Concept {id: $b})) RETURN p",
                p.clone(),
            );
            if path.is_empty() {
                path = r.run("shortest_path_any", "MATCH p = shortestPath((a:Concept {id: $a})-[*..4]-(b:Concept {id: $b})) RETURN p", p);
            }
            if let Some(row) = path.first() {
                let path_nodes: Vec<&serde_json::Value> = row["p"]["nodes"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
                let is_doc = |n: &serde_json::Value| n["labels"].as_array().is_some_and(|l| l.iter().any(|x| x == "Document"));
                let nodes: Vec<String> = path_nodes.iter().map(|n| s(&n["id"])).collect();
                let names: Vec<String> = path_nodes
                    .iter()
                    .map(|n| if is_doc(n) { format!("[{}]", chunk_of(&s(&n["id"]))) } else { name_of(&s(&n["id"])) })
                    .collect();
                let chunk_ids: Vec<String> = path_nodes.iter().filter(|n| is_doc(n)).map(|n| chunk_of(&s(&n["id"]))).collect();
                for n in row["p"]["nodes"].as_array().into_iter().flatten() {
                    let label = n["labels"].get(0).map(s).unwrap_or_default();
                    r.ev.subgraph.add_node(&s(&n["id"]), &label, BTreeMap::new());
                }
                for e in row["p"]["edges"].as_array().into_iter().flatten() {
                    r.ev.subgraph.add_edge(&s(&e["source"]), &s(&e["type"]), &s(&e["target"]), BTreeMap::new());
                }
                for n in path_nodes.iter().filter(|n| is_doc(n)) {
                    r.source(s(&n["id"]));
                }
                let _ = &nodes;
                r.ev.facts.push(GraphFact { kind: "shortest_path".into(), text: format!("path: {}", names.join(" — ")), chunk_ids });
                r.strategy("shortest_path");
            }
        }
    }

    if let Some(top) = grounded.first().map(|g| g.id.clone()) {
        let neigh = r.run(
            "neighbourhood",
            "MATCH (a:Concept {id: $a})-[r:RELATED_TO]-(n:Concept) RETURN n.id AS id, n.name AS name, r.weight AS weight ORDER BY r.weight DESC, n.id LIMIT 8",
            json!({"a": top}),
        );
        if !neigh.is_empty() {
            let list: Vec<String> = neigh.iter().map(|row| format!("{} ({})", s(&row["name"]), row["weight"].as_i64().unwrap_or(0))).collect();
            r.ev.facts.push(GraphFact {
                kind: "neighbourhood".into(),
                text: format!("{} is most often discussed with: {}", name_of(&top), list.join(", ")),
                chunk_ids: vec![],
            });
            for row in &neigh {
                let id = s(&row["id"]);
                r.ev.subgraph.add_node(&id, "Concept", BTreeMap::from([("name".into(), row["name"].clone())]));
                r.ev.subgraph.add_edge(&top, "RELATED_TO", &id, BTreeMap::from([("weight".into(), row["weight"].clone())]));
            }
            r.strategy("neighbourhood");
        }
        let docs = r.run(
            "mentioning_documents",
            // Anchored on the concept: graphdblite plans patterns from their first node.
            "MATCH (c:Concept {id: $a})<-[m:MENTIONS]-(d:Document) RETURN d.source_id AS source_id, m.count AS count ORDER BY m.count DESC, d.source_id LIMIT 3",
            json!({"a": top}),
        );
        for row in docs {
            r.source(s(&row["source_id"]));
        }
    }

    // Images: depicting a grounded concept, or captioned with the question's words.
    let ids: Vec<String> = grounded.iter().take(3).map(|g| g.id.clone()).collect();
    if !ids.is_empty() {
        let rows = r.run(
            "images_depicting",
            "MATCH (i:Image)-[:DEPICTS]->(c:Concept) WHERE c.id IN $ids RETURN i.id AS id, i.source_path AS source_path, i.caption AS caption, i.alt AS alt, c.id AS concept LIMIT 20",
            json!({"ids": ids}),
        );
        // An image depicting the top concept counts; one depicting only a lesser concept needs
        // the question to ask for a picture.
        let wants_image = asks_for_image(question);
        for row in rows {
            let concept = s(&row["concept"]);
            if concept != ids[0] && !wants_image {
                continue;
            }
            push_image(&mut r, &row, format!("depicts:{concept}"));
            r.ev.subgraph.add_edge(&s(&row["id"]), "DEPICTS", &concept, BTreeMap::new());
        }
    }
    let words: Vec<String> = content_words(question).into_iter().filter(|w| w.len() >= 3 && !IMAGE_WORDS.contains(&w.as_str())).collect();
    if asks_for_image(question) && !words.is_empty() {
        let mut score: BTreeMap<String, (usize, Row)> = BTreeMap::new();
        for w in words.iter().take(6) {
            let rows = r.run(
                "images_by_caption",
                "MATCH (i:Image) WHERE toLower(i.caption) CONTAINS $w OR toLower(i.alt) CONTAINS $w RETURN i.id AS id, i.source_path AS source_path, i.caption AS caption, i.alt AS alt LIMIT 20",
                json!({"w": w}),
            );
            for row in rows {
                let e = score.entry(s(&row["id"])).or_insert((0, row));
                e.0 += 1;
            }
        }
        let need = words.len().min(2).max(1);
        let mut hits: Vec<(usize, Row)> = score.into_values().filter(|(n, _)| *n >= need).collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0));
        for (_, row) in hits.into_iter().take(3) {
            push_image(&mut r, &row, "caption".into());
        }
    }
    if !r.ev.images.is_empty() {
        r.strategy("images");
        let img_ids: Vec<String> = r.ev.images.iter().map(|i| i.id.clone()).collect();
        let rows = r.run(
            "image_documents",
            "MATCH (d:Document)-[:HAS_IMAGE]->(i:Image) WHERE i.id IN $ids RETURN d.source_id AS source_id, i.id AS image LIMIT 10",
            json!({"ids": img_ids}),
        );
        for row in rows {
            let sid = s(&row["source_id"]);
            r.ev.subgraph.add_node(&sid, "Document", BTreeMap::new());
            r.ev.subgraph.add_edge(&sid, "HAS_IMAGE", &s(&row["image"]), BTreeMap::new());
            r.source(sid);
        }
    }
    r.ev
}

fn push_image(r: &mut Runner, row: &Row, via: String) {
    let id = s(&row["id"]);
    if r.ev.images.iter().any(|i| i.id == id) {
        return;
    }
    let caption = Some(s(&row["caption"])).filter(|c| !c.is_empty()).unwrap_or_else(|| s(&row["alt"]));
    r.ev.subgraph.add_node(&id, "Image", BTreeMap::from([("source_path".into(), row["source_path"].clone())]));
    r.ev.images.push(ImageHit { id, source_path: s(&row["source_path"]), caption, via });
}
