//! Graph evidence: ground the question to entities (exact n-grams, the store's entity full-text
//! index, embedding similarity); with an LLM, let it write one Cypher query from the schema, the
//! grounded entities, the allowed relationship types and hints, and run it only after
//! [`super::cypher::check`] accepts it (raw rows become evidence). When there is no such query or
//! it returns nothing, fixed read-only queries are the fallback: direct edges between the top two
//! concepts, co-mention through documents, shortest path (≤ 4 hops), the top concept's
//! neighbourhood. Images depicting grounded concepts or captioned with the question's words, and
//! the documents behind it all (resolved to chunks), are gathered either way.

pub use qa_core::evidence::Grounded;
use qa_core::text::query_terms;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::cypher::{self, Policy};
use super::generate::{self, CypherAttempt, CypherPrompt};
use super::{EntityHit, GraphSchema, GraphStore, Row, Subgraph};
use qa_core::error::QaError;
use qa_llm::{LlmRun, Prompt, PromptError};
use qa_embed::dot;
use crate::kg::{normalize_concept, ConceptInfo};

/// Concept names with their embeddings, loaded from the index generation.
pub struct ConceptIndex {
    /// The generation's concepts, in order (a concept's position is its entity-graph node).
    pub concepts: Vec<ConceptInfo>,
    /// Name embeddings of the concepts with `embedded` set, in concept order.
    pub(crate) vectors: Vec<Vec<f32>>,
    by_id: HashMap<String, usize>,
    /// For each row of `vectors`, the concept it embeds.
    vector_rows: Vec<usize>,
}

impl ConceptIndex {
    /// `vectors` holds one row per concept with `embedded` set, in concept order.
    pub fn new(concepts: Vec<ConceptInfo>, vectors: Vec<Vec<f32>>) -> ConceptIndex {
        let by_id = concepts.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        let vector_rows = concepts.iter().enumerate().filter(|(_, c)| c.embedded).map(|(i, _)| i).collect();
        ConceptIndex { concepts, vectors, by_id, vector_rows }
    }
    /// Position of a concept in `concepts` (also its node index in the entity graph).
    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }
    /// Concepts whose name embeds at least `min` close to `q` (cosine), best first.
    pub fn similar(&self, q: &[f32], min: f32) -> Vec<(usize, f32)> {
        let mut out: Vec<(usize, f32)> =
            self.vectors.iter().enumerate().filter_map(|(row, v)| Some((*self.vector_rows.get(row)?, dot(q, v)))).filter(|(_, s)| *s >= min).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
    /// The concept with this id.
    pub(crate) fn get(&self, id: &str) -> Option<&ConceptInfo> {
        self.by_id.get(id).map(|&i| &self.concepts[i])
    }
}

/// One piece of graph evidence, as text for the answer prompt.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GraphFact {
    /// "direct_edge", "co_mention", "shortest_path", "neighbourhood", or "raw_row" (a row of the
    /// generated Cypher query, rendered as text).
    pub kind: String,
    /// The fact as a sentence or a rendered row.
    pub text: String,
    /// Chunks that support the fact (from edge evidence or mentioning documents).
    pub chunk_ids: Vec<String>,
    /// The two concepts a relation fact is about (their names), so the answer can quote the
    /// sentence that relates them; empty for other facts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
}

/// An image found for the question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ImageHit {
    /// The Image node's id.
    pub id: String,
    /// Where a user can open the image (path or URL).
    pub source_path: String,
    /// Its caption, or its alt text when there is no caption.
    pub caption: String,
    /// Why it was selected: "depicts:<concept>" or "caption".
    pub via: String,
}

/// One query run against the store while gathering evidence, for the trace.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QueryRecord {
    /// The step it served (`direct_edge`, `generated_cypher`, `grounding_entity_index`, …).
    pub name: String,
    /// The query text (for the entity index: which store's index).
    pub cypher: String,
    /// Its parameters, as a JSON object.
    pub params: serde_json::Value,
    /// Rows it returned (0 on error).
    pub rows: usize,
    /// Wall-clock time in milliseconds.
    #[serde(default)]
    pub ms: f64,
    /// More rows matched than the row cap lets through.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Everything the graph contributed to a question.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GraphEvidence {
    /// Concepts the question was grounded to, best first (at most six).
    pub grounded: Vec<Grounded>,
    /// Entity-index hits for the question (all labels), as the Cypher prompt saw them.
    pub entities: Vec<EntityHit>,
    /// Facts from the generated query's rows or from the deterministic strategies.
    pub facts: Vec<GraphFact>,
    /// Images depicting grounded concepts or captioned with the question's words.
    pub images: Vec<ImageHit>,
    /// `Document.source_id` values (`<chunk_file>::<chunk_id>`) behind the evidence, best first.
    pub source_ids: Vec<String>,
    /// The nodes and edges behind the facts and images.
    pub subgraph: Subgraph,
    /// Deterministic strategies that returned rows.
    pub strategies: Vec<String>,
    /// The LLM-generated query: hints, the query, the validator's report, rows.
    pub cypher: CypherAttempt,
    /// Rows of the generated query (capped), as returned.
    pub raw_rows: Vec<Row>,
    /// Every query run, in order.
    pub queries: Vec<QueryRecord>,
    /// Failed steps (`<step>: <error>`); the others still ran.
    pub errors: Vec<String>,
    /// Facts the user should know about the evidence (a row cap that cut a result).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Raw rows of a generated query kept as evidence (the rest are counted, not shown).
const MAX_RAW_ROWS: usize = 20;

/// How to get an LLM-written query, when one is wanted.
pub struct CypherGeneration<'r, 'l> {
    /// The LLM, whose calls are recorded for the trace.
    pub llm: &'r mut LlmRun<'l>,
    /// The store's schema: the prompt's vocabulary and the validator's.
    pub schema: &'r GraphSchema,
    /// Row cap and extra procedures the validator applies.
    pub policy: Policy,
}

/// Words that ask for a picture.
const IMAGE_WORDS: &[&str] =
    &["image", "images", "picture", "pictures", "diagram", "diagrams", "figure", "figures", "photo", "photos", "chart", "schematic", "screenshot", "drawing", "illustration", "layout"];

/// Whether the question asks for a picture (image, diagram, figure, photo, …).
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
            Ok(read) => {
                if read.truncated {
                    self.ev.notes.push(format!("graph query {name} matched more than {} rows; the first {} were used", read.rows.len(), read.rows.len()));
                }
                self.ev.queries.push(QueryRecord { name: name.into(), cypher: cypher.into(), params, rows: read.rows.len(), ms, truncated: read.truncated });
                read.rows
            }
            Err(e) => {
                self.ev.errors.push(format!("{name}: {e}"));
                self.ev.queries.push(QueryRecord { name: name.into(), cypher: cypher.into(), params, rows: 0, ms, truncated: false });
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

/// Ground the question to concepts: exact n-gram matches, the store's entity index, and embedding
/// similarity of concept names to the question.
pub fn ground(
    store: &mut dyn GraphStore,
    question: &str,
    q_vec: &[f32],
    concepts: &ConceptIndex,
    entities: &mut Vec<EntityHit>,
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
            if n == 1 && qa_core::text::QUESTION_WORDS.contains(&w[0].as_str()) {
                continue;
            }
            let id = normalize_concept(&w.join(" "));
            if let Some(c) = concepts.get(&id) {
                offer(&c.id, &c.name, 1.0 + 0.05 * n as f32, "exact");
            }
        }
    }
    // The store's entity index (`entityIndex` on Neo4j, word index in the embedded store): a
    // concept scores by the share of its words the question contains.
    let text: String = query_terms(question).join(" ");
    let t = std::time::Instant::now();
    let hits = if text.is_empty() { Ok(Vec::new()) } else { store.search_entities(&text, 12) };
    queries.push(QueryRecord {
        name: "grounding_entity_index".into(),
        cypher: format!("entity index: {}", store.backend()),
        params: json!({"text": text}),
        rows: hits.as_ref().map(|h| h.len()).unwrap_or(0),
        ms: t.elapsed().as_secs_f64() * 1000.0,
        truncated: false,
    });
    let hits = hits.unwrap_or_else(|e| {
        errors.push(format!("grounding entity index: {e}"));
        Vec::new()
    });
    let question_words: std::collections::HashSet<String> = query_terms(question).into_iter().map(|w| normalize_concept(&w)).collect();
    for h in hits.iter().filter(|h| h.labels.iter().any(|l| l == "Concept")) {
        let Some(c) = concepts.get(&h.name) else { continue };
        let words: Vec<&str> = c.id.split(' ').collect();
        let matched = words.iter().filter(|w| question_words.contains(**w)).count();
        if matched > 0 {
            offer(&c.id, &c.name, 0.5 + 0.4 * matched as f32 / words.len() as f32, "entity_index");
        }
    }
    *entities = hits;
    if !q_vec.is_empty() {
        for (row, v) in concepts.vectors.iter().enumerate() {
            let sim = dot(q_vec, v);
            if sim >= 0.5 {
                let Some(&i) = concepts.vector_rows.get(row) else { continue };
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

/// Gather deterministic evidence only (no LLM-written query).
pub fn gather(store: &mut dyn GraphStore, question: &str, q_vec: &[f32], concepts: &ConceptIndex) -> GraphEvidence {
    gather_with(store, question, q_vec, concepts, None, Some("no LLM".into()))
}

/// Gather the graph evidence for a question. With `generation`, the LLM writes a query first;
/// the deterministic strategies run when it does not produce rows. `skip_reason` says why there
/// is no generation (for the trace).
pub fn gather_with(
    store: &mut dyn GraphStore,
    question: &str,
    q_vec: &[f32],
    concepts: &ConceptIndex,
    generation: Option<CypherGeneration>,
    skip_reason: Option<String>,
) -> GraphEvidence {
    let mut errors = Vec::new();
    let mut queries = Vec::new();
    let mut entities = Vec::new();
    let grounded = ground(store, question, q_vec, concepts, &mut entities, &mut errors, &mut queries);
    let mut r = Runner { store, ev: GraphEvidence { grounded: grounded.clone(), entities, errors, queries, ..Default::default() } };
    let name_of = |id: &str| concepts.get(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string());
    for g in grounded.iter().take(3) {
        r.ev.subgraph.add_node(&g.id, "Concept", BTreeMap::from([("name".into(), json!(g.name))]));
    }

    let pair = relational_pair(&grounded);
    // Direct edges between the pair: evidence in the fallback, and the hint for generation.
    let direct = match &pair {
        Some((a, b)) => r.run(
            "direct_edge",
            "MATCH (a:Concept {id: $a})-[r]-(b:Concept {id: $b}) RETURN type(r) AS type, r.weight AS weight, r.evidence AS evidence, startNode(r).id AS source LIMIT 5",
            json!({"a": a, "b": b}),
        ),
        None => Vec::new(),
    };

    let generated_rows = match generation {
        Some(g) if !grounded.is_empty() => {
            let hints: Vec<String> = match &pair {
                Some((a, b)) if direct.is_empty() => vec![generate::no_direct_edge_hint(a, b)],
                _ => Vec::new(),
            };
            generated_query(&mut r, question, g, hints)
        }
        Some(_) => {
            r.ev.cypher.skipped = Some("no entity of the question was found in the graph".into());
            Vec::new()
        }
        None => {
            r.ev.cypher.skipped = skip_reason;
            Vec::new()
        }
    };
    if generated_rows.is_empty() {
        fallbacks(&mut r, &grounded, pair, direct, &name_of);
    } else {
        raw_row_evidence(&mut r, &generated_rows);
    }

    mentioning_documents(&mut r, &grounded);
    image_evidence(&mut r, question, &grounded);
    r.ev
}

/// The pair relational evidence is sought between: the top concept and its partner, both
/// confidently grounded (a path between two loose text matches is noise, not evidence).
fn relational_pair(grounded: &[Grounded]) -> Option<(String, String)> {
    let strong = |g: &Grounded| g.method == "exact" || g.score >= 0.75;
    // The partner of the top concept: the next strong concept that is not a variant of it
    // ("dew point" vs "water-based dew point" is one topic, not a relation).
    let contains_words = |long: &str, short: &str| format!(" {long} ").contains(&format!(" {short} "));
    let partner = grounded.iter().skip(1).find(|g| {
        strong(g) && !contains_words(&g.id, &grounded[0].id) && !contains_words(&grounded[0].id, &g.id)
    });
    match (grounded.first().filter(|g| strong(g)), partner) {
        (Some(a), Some(b)) => Some((a.id.clone(), b.id.clone())),
        _ => None,
    }
}

/// The documents mentioning the top concept most often become sources.
fn mentioning_documents(r: &mut Runner, grounded: &[Grounded]) {
    let Some(top) = grounded.first().map(|g| g.id.clone()) else { return };
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

/// Images depicting a grounded concept, or captioned with the question's words, and the
/// documents that show them.
fn image_evidence(r: &mut Runner, question: &str, grounded: &[Grounded]) {
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
            push_image(r, &row, format!("depicts:{concept}"));
            r.ev.subgraph.add_edge(&s(&row["id"]), "DEPICTS", &concept, BTreeMap::new());
        }
    }
    let words: Vec<String> = query_terms(question).into_iter().filter(|w| w.len() >= 3 && !IMAGE_WORDS.contains(&w.as_str())).collect();
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
        let need = words.len().clamp(1, 2);
        let mut hits: Vec<(usize, Row)> = score.into_values().filter(|(n, _)| *n >= need).collect();
        hits.sort_by_key(|h| std::cmp::Reverse(h.0));
        for (_, row) in hits.into_iter().take(3) {
            push_image(r, &row, "caption".into());
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
}

/// Ask the LLM for a query, judge it, and run it if accepted. Failures of any step leave the
/// reason in `ev.cypher` and return no rows (the fallbacks then run).
fn generated_query(r: &mut Runner, question: &str, g: CypherGeneration, hints: Vec<String>) -> Vec<Row> {
    let t = std::time::Instant::now();
    // Grounded concepts first (they carry the exact ids), then other entity-index hits.
    let mut lines: Vec<String> = r.ev.grounded.iter().map(|c| format!("- {} (Concept)", c.id)).collect();
    for line in generate::entity_lines(&r.ev.entities) {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines.truncate(10);
    let prompt = CypherPrompt { question, schema: g.schema, entities: &lines, hints: &hints };
    let rows = run_generated(r, &prompt, g);
    r.ev.cypher.hints = hints;
    r.ev.cypher.entities = lines;
    r.ev.cypher.ms = t.elapsed().as_secs_f64() * 1000.0;
    match rows {
        Ok(rows) => {
            r.ev.cypher.rows = rows.len();
            rows
        }
        Err(e) => {
            r.ev.cypher.error = Some(e.to_string());
            Vec::new()
        }
    }
}

/// Why the generated query gave no rows to use.
#[derive(Debug, thiserror::Error)]
enum GenerationError {
    /// The LLM call failed.
    #[error("LLM call failed: {0}")]
    Call(#[from] qa_llm::LlmError),
    /// The reply holds no usable query.
    #[error("{0}")]
    Invalid(PromptError),
    /// The Cypher validator did not accept the query.
    #[error("rejected by the Cypher validator")]
    Rejected,
    /// The store failed to run the accepted query.
    #[error("the store could not run it: {0}")]
    Store(QaError),
}

/// Send the prompt, check the query and run it if accepted, recording each step in `ev.cypher`,
/// `ev.queries` and the LLM call's outcome.
fn run_generated(r: &mut Runner, prompt: &CypherPrompt, g: CypherGeneration) -> Result<Vec<Row>, GenerationError> {
    let response = g.llm.call(&prompt.request())?;
    let query = prompt.parse(&response.text).inspect_err(|e| g.llm.set_outcome(format!("invalid: {e}"))).map_err(GenerationError::Invalid)?;
    r.ev.cypher.generated = Some(query.clone());
    let report = cypher::check(&query, Some(&generate::to_cypher_schema(g.schema)), &g.policy);
    let accepted = report.cypher_to_run.clone().filter(|_| report.accepted);
    r.ev.cypher.report = Some(report);
    let Some(to_run) = accepted else {
        g.llm.set_outcome("rejected by the Cypher validator");
        return Err(GenerationError::Rejected);
    };
    r.ev.cypher.executed = Some(to_run.clone());
    let tq = std::time::Instant::now();
    let result = r.store.read(&to_run, &serde_json::Map::new());
    let ms = tq.elapsed().as_secs_f64() * 1000.0;
    let n = result.as_ref().map(|v| v.rows.len()).unwrap_or(0);
    let truncated = result.as_ref().is_ok_and(|v| v.truncated);
    if truncated {
        r.ev.notes.push(format!("the generated query matched more than {n} rows (the row cap); the first {n} were used"));
    }
    r.ev.queries.push(QueryRecord { name: "generated_cypher".into(), cypher: to_run, params: json!({}), rows: n, ms, truncated });
    match result.map(|v| v.rows) {
        Ok(rows) => {
            g.llm.set_outcome(if rows.is_empty() { "ran: no rows (fallbacks used)" } else { "used" });
            Ok(rows)
        }
        // A store may not run a valid read query (graphdblite lacks some syntax): fallbacks.
        Err(e) => {
            g.llm.set_outcome("failed in the store (fallbacks used)");
            Err(GenerationError::Store(e))
        }
    }
}

/// Rows of the generated query as evidence: each row rendered as a `raw_row` fact, the nodes,
/// edges and paths in them added to the subgraph, the documents in them resolved to chunks.
fn raw_row_evidence(r: &mut Runner, rows: &[Row]) {
    for row in rows.iter().take(MAX_RAW_ROWS) {
        let mut chunk_ids = Vec::new();
        let mut sources = Vec::new();
        for v in row.values() {
            collect_graph_values(v, &mut r.ev.subgraph, &mut sources);
        }
        for sid in sources {
            chunk_ids.push(chunk_of(&sid));
            r.source(sid);
        }
        chunk_ids.dedup();
        let text = row.iter().map(|(k, v)| format!("{k}: {}", render_value(v))).collect::<Vec<_>>().join("; ");
        r.ev.facts.push(GraphFact { kind: "raw_row".into(), text, chunk_ids, subjects: vec![] });
    }
    r.ev.raw_rows = rows.iter().take(MAX_RAW_ROWS).cloned().collect();
}

fn is_node(v: &serde_json::Value) -> bool {
    v.get("labels").is_some() && v.get("id").is_some()
}
fn is_edge(v: &serde_json::Value) -> bool {
    v.get("type").is_some() && v.get("source").is_some() && v.get("target").is_some()
}
fn is_path(v: &serde_json::Value) -> bool {
    v.get("nodes").is_some() && v.get("edges").is_some()
}
fn is_document_id(s: &str) -> bool {
    s.split_once("::").is_some_and(|(file, chunk)| file.ends_with(".jsonl") && !chunk.is_empty())
}

/// Nodes, edges and paths found in a returned value go into the subgraph; Document ids (nodes or
/// bare `<chunk_file>::<chunk_id>` strings) into `sources`.
fn collect_graph_values(v: &serde_json::Value, sub: &mut Subgraph, sources: &mut Vec<String>) {
    match v {
        _ if is_path(v) => {
            for n in v["nodes"].as_array().into_iter().flatten() {
                collect_graph_values(n, sub, sources);
            }
            for e in v["edges"].as_array().into_iter().flatten() {
                collect_graph_values(e, sub, sources);
            }
        }
        _ if is_node(v) => {
            let id = s(&v["id"]);
            let label = v["labels"].get(0).map(s).unwrap_or_default();
            let name = v["properties"].get("name").cloned();
            sub.add_node(&id, &label, name.map(|n| BTreeMap::from([("name".to_string(), n)])).unwrap_or_default());
            if label == "Document" || is_document_id(&id) {
                sources.push(id);
            }
        }
        _ if is_edge(v) => sub.add_edge(&s(&v["source"]), &s(&v["type"]), &s(&v["target"]), BTreeMap::new()),
        serde_json::Value::String(text) if is_document_id(text) => sources.push(text.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|x| collect_graph_values(x, sub, sources)),
        _ => {}
    }
}

/// A returned value as short text: nodes by name, edges as `a —TYPE→ b`, paths as chains.
fn render_value(v: &serde_json::Value) -> String {
    let node_name = |n: &serde_json::Value| n["properties"].get("name").map(s).filter(|x| !x.is_empty()).unwrap_or_else(|| s(&n["id"]));
    let text = match v {
        _ if is_path(v) => {
            let nodes: Vec<String> = v["nodes"].as_array().into_iter().flatten().map(node_name).collect();
            let edges: Vec<String> = v["edges"].as_array().into_iter().flatten().map(|e| s(&e["type"])).collect();
            let mut out = nodes.first().cloned().unwrap_or_default();
            for (i, n) in nodes.iter().enumerate().skip(1) {
                out.push_str(&format!(" —{}— {n}", edges.get(i - 1).cloned().unwrap_or_default()));
            }
            out
        }
        _ if is_node(v) => {
            let labels: Vec<String> = v["labels"].as_array().into_iter().flatten().map(s).collect();
            format!("{} ({})", node_name(v), labels.join(", "))
        }
        _ if is_edge(v) => format!("{} —{}→ {}", s(&v["source"]), s(&v["type"]), s(&v["target"])),
        serde_json::Value::Array(items) => {
            let shown: Vec<String> = items.iter().take(8).map(render_value).collect();
            let more = if items.len() > 8 { format!(", … {} more", items.len() - 8) } else { String::new() };
            format!("[{}{more}]", shown.join(", "))
        }
        serde_json::Value::Null => "null".into(),
        other => s(other),
    };
    if text.chars().count() > 300 { format!("{}…", text.chars().take(300).collect::<String>()) } else { text }
}

/// The deterministic strategies between the top pair of concepts and around the top concept.
fn fallbacks(r: &mut Runner, grounded: &[Grounded], pair: Option<(String, String)>, direct: Vec<Row>, name_of: &dyn Fn(&str) -> String) {
    if let Some((a, b)) = pair {
        let p = json!({"a": a, "b": b});
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
                subjects: vec![name_of(&a), name_of(&b)],
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
                subjects: vec![name_of(&a), name_of(&b)],
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
                r.ev.facts.push(GraphFact { kind: "shortest_path".into(), text: format!("path: {}", names.join(" — ")), chunk_ids, subjects: vec![] });
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
        // The neighbourhood goes into the subgraph (the trace shows what was explored), never into
        // the answer's facts: "X is most often discussed with …" is a degree statistic, not
        // evidence about the question.
        if !neigh.is_empty() {
            for row in &neigh {
                let id = s(&row["id"]);
                r.ev.subgraph.add_node(&id, "Concept", BTreeMap::from([("name".into(), row["name"].clone())]));
                r.ev.subgraph.add_edge(&top, "RELATED_TO", &id, BTreeMap::from([("weight".into(), row["weight"].clone())]));
            }
            r.strategy("neighbourhood");
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_rows_render_and_feed_subgraph_and_sources() {
        let doc = json!({"id": "s_chunks.jsonl::power_2", "labels": ["Document"], "properties": {}});
        let a = json!({"id": "deep sleep", "labels": ["Concept"], "properties": {"name": "deep sleep"}});
        let b = json!({"id": "battery life", "labels": ["Concept"], "properties": {"name": "battery life"}});
        let path = json!({"nodes": [a, doc, b], "edges": [
            {"source": "s_chunks.jsonl::power_2", "type": "MENTIONS", "target": "deep sleep", "properties": {}},
            {"source": "s_chunks.jsonl::power_2", "type": "MENTIONS", "target": "battery life", "properties": {}}
        ]});
        assert_eq!(render_value(&path), "deep sleep —MENTIONS— s_chunks.jsonl::power_2 —MENTIONS— battery life");
        assert_eq!(render_value(&a), "deep sleep (Concept)");
        assert_eq!(render_value(&json!(["x", 1, null])), "[x, 1, null]");
        assert_eq!(render_value(&json!("y".repeat(400))).chars().count(), 301);

        let mut store = crate::EmbeddedGraph::open(&tempfile::tempdir().unwrap().keep().join("g.db"), 10).unwrap();
        let mut r = Runner { store: &mut store, ev: GraphEvidence::default() };
        let rows: Vec<Row> = vec![
            Row::from([("p".to_string(), path)]),
            Row::from([("sid".to_string(), json!("s_chunks.jsonl::intro_0")), ("n".to_string(), json!(3))]),
        ];
        raw_row_evidence(&mut r, &rows);
        assert_eq!(r.ev.facts.len(), 2);
        assert!(r.ev.facts.iter().all(|f| f.kind == "raw_row"));
        assert_eq!(r.ev.facts[0].chunk_ids, vec!["power_2"]);
        assert_eq!(r.ev.facts[1].text, "n: 3; sid: s_chunks.jsonl::intro_0");
        assert_eq!(r.ev.source_ids, vec!["s_chunks.jsonl::power_2", "s_chunks.jsonl::intro_0"]);
        assert_eq!(r.ev.subgraph.nodes.len(), 3);
        assert_eq!(r.ev.subgraph.edges.len(), 2);
        assert_eq!(r.ev.raw_rows.len(), 2);
    }
}
