//! Knowledge-graph extraction by an LLM (`qa index --extract llm`): per chunk, entities with a type
//! and a description and typed relations between them, as JSON that is schema-checked and
//! grounded in the chunk (an entity must be named in the chunk's text). A failed answer gets one
//! repair request; after that the chunk keeps only the deterministic extraction. Results are cached
//! by chunk content hash and model, so re-indexing only asks about changed chunks.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::{
    contains_words, document_id, meta, normalize_concept, normalize_words, ConceptInfo, DeterministicExtractor, Extraction, KgCorpus, KgExtractor,
    KgNode, KgRel, KnowledgeGraph, TermKind,
};
use qa_core::chunk::Chunk;
use qa_core::progress::Progress;
use qa_llm::{ChatMessage, ChatRequest, LlmRun, OutputFormat, Prompt, PromptError};

const MAX_ENTITIES: usize = 12;
const MAX_RELATIONS: usize = 16;
/// Relationship types the deterministic graph owns; the LLM may not write them.
const RESERVED_TYPES: &[&str] = &["MENTIONS", "HAS_IMAGE", "DEPICTS"];

/// An entity the LLM named in a chunk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entity {
    /// As written in the chunk (at most 80 characters).
    pub name: String,
    /// A label-like type name (`HardwareComponent`; `Entity` when none was given).
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The LLM's description (at most 300 characters).
    pub description: String,
}

/// A typed relation between two entities of the same chunk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Relation {
    /// Concept id of the source entity.
    pub source: String,
    /// Concept id of the target entity.
    pub target: String,
    /// Upper snake case (`CONNECTS_TO`), never a type the deterministic graph owns.
    #[serde(rename = "type")]
    pub rel_type: String,
}

/// A validated extraction for one chunk.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ChunkExtraction {
    /// Entities named in the chunk, one per concept id.
    pub entities: Vec<Entity>,
    /// Relations between those entities.
    pub relations: Vec<Relation>,
    /// Items dropped by validation (not named in the chunk, unknown endpoints, bad types).
    pub dropped: usize,
}

/// The JSON schema of an extraction reply.
fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "entities": {"type": "array", "maxItems": MAX_ENTITIES, "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "description": {"type": "string"}},
                "required": ["name", "type", "description"], "additionalProperties": false}},
            "relations": {"type": "array", "maxItems": MAX_RELATIONS, "items": {
                "type": "object",
                "properties": {"source": {"type": "string"}, "target": {"type": "string"}, "type": {"type": "string"}},
                "required": ["source", "target", "type"], "additionalProperties": false}}
        },
        "required": ["entities", "relations"],
        "additionalProperties": false
    })
}

/// The KG-extraction prompt for one chunk: entities named in the passage and typed relations
/// between them, as JSON; the reply is [`validate`]d against the chunk.
#[derive(Debug, Clone, Copy)]
pub struct KgExtractionPrompt<'a> {
    /// The passage to extract from.
    pub chunk: &'a Chunk,
}

impl Prompt for KgExtractionPrompt<'_> {
    type Reply = ChunkExtraction;

    fn request(&self) -> ChatRequest {
        ChatRequest {
            messages: vec![
                ChatMessage::system(
                    "You extract a knowledge graph from a passage. Entities are the specific things the passage is about \
                     (components, concepts, tools, quantities), named exactly as in the passage. Relations connect two of \
                     those entities with a short verb-like type such as USES, PART_OF, MEASURES, CONNECTS_TO. Reply with JSON only.",
                ),
                ChatMessage::user(format!(
                    "Passage:\n{}\n\nReply as {{\"entities\": [{{\"name\": \"...\", \"type\": \"...\", \"description\": \"...\"}}], \
                     \"relations\": [{{\"source\": \"...\", \"target\": \"...\", \"type\": \"...\"}}]}}",
                    self.chunk.content.trim()
                )),
            ],
            max_tokens: 384,
            format: OutputFormat::Json { name: "knowledge_graph".into(), schema: schema(), prefix: "{\"entities\": [".into() },
            stop: vec![],
            temperature: 0.0,
            purpose: "extraction",
        }
    }

    fn parse(&self, reply: &str) -> Result<ChunkExtraction, PromptError> {
        Ok(validate(reply, self.chunk)?)
    }
}

/// The extraction request for `chunk` ([`KgExtractionPrompt`]).
pub fn request(chunk: &Chunk) -> ChatRequest {
    KgExtractionPrompt { chunk }.request()
}

/// `uses`, `part of`, `Connects-To` → `USES`, `PART_OF`, `CONNECTS_TO`; `None` when nothing valid
/// is left or the type is reserved.
pub fn normalize_rel_type(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in raw.trim().chars() {
        if c.is_ascii_alphanumeric() {
            // camelCase boundaries become underscores: connectsTo → CONNECTS_TO.
            if c.is_ascii_uppercase() && prev_lower {
                out.push('_');
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
            prev_lower = false;
        }
    }
    let out = out.trim_matches('_').to_string();
    let valid = out.len() <= 40 && out.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    (valid && !RESERVED_TYPES.contains(&out.as_str())).then_some(out)
}

/// Why a reply is not an extraction at all (as opposed to items dropped from it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidExtraction {
    /// The reply does not parse as JSON (the parser's message).
    #[error("not valid JSON: {0}")]
    NotJson(String),
    /// The reply is JSON but not an object.
    #[error("the answer is not a JSON object")]
    NotAnObject,
    /// The object has a key besides `entities` and `relations`.
    #[error("unexpected key \"{0}\"")]
    UnexpectedKey(String),
    /// `entities` is missing or not a list.
    #[error("\"entities\" must be a list")]
    EntitiesNotAList,
    /// `relations` is not a list.
    #[error("\"relations\" must be a list")]
    RelationsNotAList,
    /// An entity lacks a string `name` or `type`.
    #[error("each entity needs string \"name\" and \"type\"")]
    BadEntity,
    /// A relation lacks a string `source`, `target` or `type`.
    #[error("each relation needs string \"source\", \"target\" and \"type\"")]
    BadRelation,
}

impl From<InvalidExtraction> for PromptError {
    fn from(e: InvalidExtraction) -> Self {
        PromptError(e.to_string())
    }
}

/// Check the model's JSON against the schema and the chunk. Structural errors fail the whole
/// answer (and trigger the repair request); individual items that are not grounded are dropped.
pub fn validate(text: &str, chunk: &Chunk) -> Result<ChunkExtraction, InvalidExtraction> {
    let v: serde_json::Value = serde_json::from_str(text.trim()).map_err(|e| InvalidExtraction::NotJson(e.to_string()))?;
    let obj = v.as_object().ok_or(InvalidExtraction::NotAnObject)?;
    if let Some(extra) = obj.keys().find(|k| *k != "entities" && *k != "relations") {
        return Err(InvalidExtraction::UnexpectedKey(extra.clone()));
    }
    let entities = obj.get("entities").and_then(|e| e.as_array()).ok_or(InvalidExtraction::EntitiesNotAList)?;
    let relations = match obj.get("relations") {
        Some(r) => r.as_array().ok_or(InvalidExtraction::RelationsNotAList)?.clone(),
        None => Vec::new(),
    };
    let chunk_words = normalize_words(&chunk.content);
    let mut out = ChunkExtraction::default();
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for e in entities.iter().take(MAX_ENTITIES) {
        let field = |k: &str| e.get(k).and_then(|x| x.as_str()).map(str::trim);
        let (Some(name), Some(ty)) = (field("name"), field("type")) else {
            return Err(InvalidExtraction::BadEntity);
        };
        let description = field("description").unwrap_or("");
        let id = normalize_concept(name);
        let named_in_chunk = contains_words(&chunk_words, &normalize_words(name));
        if id.is_empty() || name.chars().count() > 80 || !named_in_chunk || ids.contains(&id) {
            out.dropped += 1;
            continue;
        }
        ids.insert(id);
        out.entities.push(Entity {
            name: name.to_string(),
            entity_type: entity_type(ty),
            description: description.chars().take(300).collect(),
        });
    }
    for r in relations.iter().take(MAX_RELATIONS) {
        let field = |k: &str| r.get(k).and_then(|x| x.as_str()).map(str::trim);
        let (Some(source), Some(target), Some(ty)) = (field("source"), field("target"), field("type")) else {
            return Err(InvalidExtraction::BadRelation);
        };
        let (s, t) = (normalize_concept(source), normalize_concept(target));
        match normalize_rel_type(ty) {
            Some(rel_type) if ids.contains(&s) && ids.contains(&t) && s != t => {
                out.relations.push(Relation { source: s, target: t, rel_type });
            }
            _ => out.dropped += 1,
        }
    }
    Ok(out)
}

/// `sensor`, `hardware component` → `Sensor`, `HardwareComponent` (a label-like type name).
fn entity_type(raw: &str) -> String {
    let t: String = raw
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map(|f| f.to_uppercase().chain(cs.flat_map(char::to_lowercase)).collect::<String>()).unwrap_or_default()
        })
        .collect();
    if t.is_empty() { "Entity".into() } else { t.chars().take(40).collect() }
}

/// What `--extract llm` did, for the index summary.
#[derive(Debug, Default, Clone, Serialize)]
pub struct ExtractionReport {
    /// The LLM's model id.
    pub model: String,
    /// Chunks in the corpus.
    pub chunks: usize,
    /// Answers reused from the previous index (same chunk text, same model).
    pub cached: usize,
    /// Chunks whose first answer was valid.
    pub ok_first_try: usize,
    /// Chunks whose answer was valid after the repair request.
    pub repaired: usize,
    /// Chunks that kept only the deterministic extraction.
    pub failed: usize,
    /// Entities added to the graph (counted per chunk).
    pub entities: usize,
    /// Typed relationships added (one per source, type and target).
    pub relations: usize,
    /// Items validation dropped, over all chunks.
    pub dropped_items: usize,
    /// Prompt tokens of this run's calls.
    pub prompt_tokens: u64,
    /// Completion tokens of this run's calls.
    pub completion_tokens: u64,
    /// Time spent in LLM calls (milliseconds).
    pub llm_ms: f64,
    /// The first few failure reasons.
    pub failures: Vec<String>,
}

/// Extract one chunk: ask, validate, one repair request on failure.
fn extract_chunk(run: &mut LlmRun, chunk: &Chunk, report: &mut ExtractionReport) -> Option<ChunkExtraction> {
    let prompt = KgExtractionPrompt { chunk };
    let req = prompt.request();
    let first = run.call(&req);
    let reason = match first.as_ref().map(|r| prompt.parse(&r.text)) {
        Ok(Ok(x)) => {
            run.set_outcome("used");
            report.ok_first_try += 1;
            return Some(x);
        }
        Ok(Err(why)) => why,
        Err(call_error) => {
            note_failure(report, &chunk.id, &call_error.to_string());
            return None;
        }
    };
    run.set_outcome(format!("invalid: {reason}"));
    let mut repair = req.clone();
    if let Ok(bad) = &first {
        repair.messages.push(ChatMessage { role: qa_llm::Role::Assistant, content: bad.text.clone() });
    }
    repair.messages.push(ChatMessage::user(format!("That answer was not usable: {reason}. Reply again with only the JSON object, following the format exactly.")));
    match run.call(&repair).map(|r| prompt.parse(&r.text)) {
        Ok(Ok(x)) => {
            run.set_outcome("used after repair");
            report.repaired += 1;
            Some(x)
        }
        Ok(Err(why)) => {
            run.set_outcome(format!("invalid: {why}"));
            note_failure(report, &chunk.id, &format!("invalid after repair: {why}"));
            None
        }
        Err(e) => {
            note_failure(report, &chunk.id, &e.to_string());
            None
        }
    }
}

fn note_failure(report: &mut ExtractionReport, chunk_id: &str, reason: &str) {
    report.failed += 1;
    if report.failures.len() < 5 {
        report.failures.push(format!("{chunk_id}: {reason}"));
    }
}

/// Cached extractions: content sha256 → extraction, for one model.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ExtractionCache {
    /// The model the extractions came from; another model's cache is not reused.
    pub model: String,
    /// Extraction by chunk content sha256.
    pub by_hash: HashMap<String, ChunkExtraction>,
}

/// What the LLM pass of an extraction did, and the cache to keep for the next run.
#[derive(Debug)]
pub struct LlmExtraction {
    /// For the index summary.
    pub report: ExtractionReport,
    /// This run's extractions (cached or new), by chunk content hash.
    pub cache: ExtractionCache,
}

/// The deterministic graph plus, for every chunk, the LLM's entities and typed relations
/// ([`extract_into`]); progress is reported as the stage "llm graph", one unit per chunk.
pub struct LlmExtractor<'r, 'l> {
    /// The rules that make the graph the LLM adds to.
    pub base: DeterministicExtractor,
    /// The LLM calls, recorded for the trace.
    pub run: &'r mut LlmRun<'l>,
    /// Extractions of the previous index, reused where a chunk's text and the model are unchanged.
    pub previous: ExtractionCache,
}

impl KgExtractor for LlmExtractor<'_, '_> {
    fn extract(&mut self, corpus: &KgCorpus, progress: &dyn Progress) -> Extraction {
        let mut graph = self.base.graph(corpus);
        progress.start("llm graph", corpus.chunks.len() as u64);
        let (report, cache) = extract_into(&mut graph, corpus.chunks, corpus.chunk_file, self.run, &self.previous, &|| progress.advance(1));
        progress.finish();
        Extraction { graph, llm: Some(LlmExtraction { report, cache }) }
    }
}

/// Run the LLM over every chunk (reusing `cache` where the text is unchanged) and add its
/// entities and typed relations to the deterministic graph. Returns the new cache.
pub fn extract_into(
    graph: &mut KnowledgeGraph,
    chunks: &[Chunk],
    chunk_file: &str,
    run: &mut LlmRun,
    cache: &ExtractionCache,
    progress: &dyn Fn(),
) -> (ExtractionReport, ExtractionCache) {
    let model = run.llm().model_id();
    let mut report = ExtractionReport { model: model.clone(), chunks: chunks.len(), ..Default::default() };
    let mut new_cache = ExtractionCache { model: model.clone(), by_hash: HashMap::new() };
    let same_model = cache.model == model;
    let mut per_chunk: Vec<Option<ChunkExtraction>> = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let hash = &chunk.metadata.content_sha256;
        let x = match cache.by_hash.get(hash).filter(|_| same_model) {
            Some(x) => {
                report.cached += 1;
                Some(x.clone())
            }
            None => extract_chunk(run, chunk, &mut report),
        };
        if let Some(x) = &x {
            new_cache.by_hash.insert(hash.clone(), x.clone());
        }
        per_chunk.push(x);
        progress();
    }
    let usage = run.usage();
    report.prompt_tokens = usage.prompt;
    report.completion_tokens = usage.completion;
    report.llm_ms = run.latency_ms();
    merge(graph, chunks, chunk_file, &per_chunk, &mut report);
    (report, new_cache)
}

/// Add entities (as Concept nodes with a type and description, mentioned by the chunk's Document)
/// and typed relations (with the chunk as evidence) to the graph's documents.
fn merge(graph: &mut KnowledgeGraph, chunks: &[Chunk], chunk_file: &str, per_chunk: &[Option<ChunkExtraction>], report: &mut ExtractionReport) {
    let doc_index: HashMap<String, usize> = graph.documents.iter().enumerate().map(|(i, d)| (d.source.id.clone(), i)).collect();
    let mut rel_evidence: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    let mut first_doc_of_rel: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for (chunk, x) in chunks.iter().zip(per_chunk) {
        let Some(x) = x else { continue };
        report.dropped_items += x.dropped;
        let Some(&di) = doc_index.get(&document_id(chunk_file, &chunk.id)) else { continue };
        for e in &x.entities {
            let id = normalize_concept(&e.name);
            let concept = graph.concepts.entry(id.clone()).or_insert_with(|| ConceptInfo {
                id: id.clone(),
                name: e.name.clone(),
                aliases: vec![],
                kind: TermKind::Entity,
                df: 0,
                embedded: false,
                example: false,
            });
            let doc = &mut graph.documents[di];
            if !doc.relationships.iter().any(|r| r.rel_type == "MENTIONS" && r.target == id) {
                concept.df += 1;
                doc.relationships.push(KgRel { source: doc.source.id.clone(), target: id.clone(), rel_type: "MENTIONS".into(), metadata: vec![meta("count", 1)] });
            }
            // The LLM's type and description ride on the concept node (first description wins).
            match doc.nodes.iter_mut().find(|n| n.id == id) {
                Some(n) => {
                    if !n.metadata.iter().any(|m| m.key == "entity_type") {
                        n.metadata.push(meta("entity_type", e.entity_type.clone()));
                        n.metadata.push(meta("description", e.description.clone()));
                    }
                }
                None => doc.nodes.push(KgNode {
                    id: id.clone(),
                    node_type: "Concept".into(),
                    metadata: vec![
                        meta("name", concept.name.clone()),
                        meta("aliases", Vec::<String>::new()),
                        meta("kind", TermKind::Entity.as_str()),
                        meta("entity_type", e.entity_type.clone()),
                        meta("description", e.description.clone()),
                        meta("extracted_by", "llm"),
                    ],
                }),
            }
            report.entities += 1;
        }
        for r in &x.relations {
            let key = (r.source.clone(), r.rel_type.clone(), r.target.clone());
            rel_evidence.entry(key.clone()).or_default().push(chunk.id.clone());
            first_doc_of_rel.entry(key).or_insert(di);
        }
    }
    // One edge per (source, type, target), written on the first chunk that states it.
    for (key, evidence) in rel_evidence {
        let di = first_doc_of_rel[&key];
        let (source, rel_type, target) = key;
        graph.documents[di].relationships.push(KgRel {
            source,
            target,
            rel_type,
            metadata: vec![meta("weight", evidence.len()), meta("evidence", evidence.iter().take(5).cloned().collect::<Vec<_>>()), meta("extracted_by", "llm")],
        });
        report.relations += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::chunk::ChunkMeta;

    fn chunk(text: &str) -> Chunk {
        Chunk {
            id: "bme_0".into(),
            source_file: "bme.md".into(),
            content: text.into(),
            metadata: ChunkMeta { heading_path: vec![], image_ids: vec![], char_start: 0, char_end: 0, token_count: 0, content_sha256: "h".into() },
        }
    }

    #[test]
    fn relation_types_become_upper_snake_case() {
        assert_eq!(normalize_rel_type("uses").as_deref(), Some("USES"));
        assert_eq!(normalize_rel_type("part of").as_deref(), Some("PART_OF"));
        assert_eq!(normalize_rel_type("connectsTo").as_deref(), Some("CONNECTS_TO"));
        assert_eq!(normalize_rel_type(" Is-Powered-By ").as_deref(), Some("IS_POWERED_BY"));
        assert_eq!(normalize_rel_type("mentions"), None);
        assert_eq!(normalize_rel_type("`; DROP`"), Some("DROP".into()));
        assert_eq!(normalize_rel_type("42"), None);
        assert_eq!(normalize_rel_type("ünïcode").as_deref(), Some("N_CODE"));
    }

    #[test]
    fn entities_must_be_named_in_the_chunk_and_relations_must_join_them() {
        let c = chunk("The BME280 sensor talks to the ESP32 over the I2C bus.");
        let x = validate(
            r#"{"entities": [
                {"name": "BME280", "type": "sensor", "description": "a sensor"},
                {"name": "ESP32", "type": "micro controller", "description": "the MCU"},
                {"name": "Raspberry Pi", "type": "computer", "description": "not in the text"}],
               "relations": [
                {"source": "BME280", "target": "esp32", "type": "connects to"},
                {"source": "BME280", "target": "Raspberry Pi", "type": "uses"},
                {"source": "BME280", "target": "ESP32", "type": "MENTIONS"}]}"#,
            &c,
        )
        .unwrap();
        assert_eq!(x.entities.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), vec!["BME280", "ESP32"]);
        assert_eq!(x.entities[1].entity_type, "MicroController");
        assert_eq!(x.relations, vec![Relation { source: "bme280".into(), target: "esp32".into(), rel_type: "CONNECTS_TO".into() }]);
        assert_eq!(x.dropped, 3);
    }

    #[test]
    fn kg_extraction_prompt_snapshot() {
        let c = chunk("  The BME280 sensor talks to the ESP32 over the I2C bus.\n");
        let prompt = KgExtractionPrompt { chunk: &c };
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/kg_extraction_prompt.txt");
        qa_llm::prompt::assert_snapshot(std::path::Path::new(path), &qa_llm::prompt::render(&prompt.request()));
        assert_eq!(prompt.reply_schema(), Some(schema()));
        assert_eq!(qa_llm::prompt::render(&request(&c)), qa_llm::prompt::render(&prompt.request()));
        let x = prompt.parse(r#"{"entities": [{"name": "ESP32", "type": "board", "description": "the MCU"}], "relations": []}"#).unwrap();
        assert_eq!(x.entities[0].entity_type, "Board");
        assert_eq!(prompt.parse("[]").unwrap_err().to_string(), "the answer is not a JSON object");
    }

    /// Answers every extraction request with the same entities and relation.
    struct Scripted {
        calls: usize,
    }

    impl qa_llm::Llm for Scripted {
        fn provider(&self) -> &'static str {
            "openai"
        }
        fn model_id(&self) -> String {
            "scripted".into()
        }
        fn context_length(&self) -> Option<usize> {
            None
        }
        fn count_tokens(&self, text: &str) -> usize {
            text.len() / 4
        }
        fn chat(&mut self, _request: &ChatRequest) -> Result<qa_llm::ChatResponse, qa_llm::LlmError> {
            self.calls += 1;
            Ok(qa_llm::ChatResponse {
                text: r#"{"entities": [{"name": "BME280", "type": "sensor", "description": "a sensor"}, {"name": "ESP32", "type": "board", "description": "the MCU"}],
                          "relations": [{"source": "BME280", "target": "ESP32", "type": "connects to"}]}"#
                    .into(),
                usage: qa_llm::TokenUsage::new(10, 5),
                finish_reason: qa_llm::FinishReason::Stop,
                latency_ms: 1.0,
                prompt_tokens_per_s: None,
                completion_tokens_per_s: None,
                attempts: 1,
            })
        }
    }

    /// Counts the units of work reported.
    #[derive(Default)]
    struct Count(std::sync::atomic::AtomicU64);

    impl Progress for Count {
        fn start(&self, _stage: &str, _total: u64) {}
        fn advance(&self, n: u64) {
            self.0.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
        fn finish(&self) {}
    }

    #[test]
    fn both_extractors_work_through_the_seam() {
        let chunks = vec![chunk("The BME280 sensor talks to the ESP32 over the I2C bus.")];
        let (images, doc_types, titles) = (BTreeMap::new(), HashMap::new(), HashMap::new());
        let corpus = KgCorpus { chunks: &chunks, images: &images, chunk_file: "c_chunks.jsonl", doc_types: &doc_types, titles: &titles };
        let base = DeterministicExtractor { params: crate::kg::ExtractParams { min_df: 1, min_related_weight: 1, max_per_chunk: 20 } };
        let mut rules: Box<dyn KgExtractor> = Box::new(base);
        let plain = rules.extract(&corpus, &qa_core::progress::Silent);
        assert!(plain.llm.is_none());
        assert_eq!(plain.graph.documents, base.graph(&corpus).documents);

        let mut llm = Scripted { calls: 0 };
        let mut run = LlmRun::new(&mut llm);
        let progress = Count::default();
        let mut with_llm: Box<dyn KgExtractor> = Box::new(LlmExtractor { base, run: &mut run, previous: ExtractionCache::default() });
        let extraction = with_llm.extract(&corpus, &progress);
        drop(with_llm);
        let llm_part = extraction.llm.expect("the LLM pass reports");
        assert_eq!((llm_part.report.ok_first_try, llm_part.report.entities, llm_part.report.relations), (1, 2, 1));
        assert_eq!(progress.0.load(std::sync::atomic::Ordering::Relaxed), 1);
        let rels = &extraction.graph.documents[0].relationships;
        assert!(rels.iter().any(|r| r.rel_type == "CONNECTS_TO" && r.source == "bme280" && r.target == "esp32"));
        assert!(extraction.graph.documents[0].nodes.iter().any(|n| n.id == "bme280" && n.metadata.iter().any(|m| m.key == "entity_type")));
        assert_eq!(llm_part.cache.by_hash.len(), 1);

        // The next run reuses the cache and asks nothing.
        let mut again = LlmExtractor { base, run: &mut run, previous: llm_part.cache };
        let second = again.extract(&corpus, &qa_core::progress::Silent);
        assert_eq!(second.llm.unwrap().report.cached, 1);
        assert_eq!(second.graph.documents, extraction.graph.documents);
        drop(run);
        assert_eq!(llm.calls, 1);
    }

    #[test]
    fn structural_errors_fail_the_answer() {
        let c = chunk("The BME280 sensor.");
        assert!(validate("{\"entities\": [", &c).is_err());
        assert!(validate(r#"{"entities": "BME280", "relations": []}"#, &c).is_err());
        assert!(validate(r#"{"entities": [{"name": "BME280"}], "relations": []}"#, &c).is_err());
        assert!(validate(r#"{"entities": [], "relations": [], "cypher": "MATCH (n) DETACH DELETE n"}"#, &c).is_err());
        assert!(validate(r#"{"entities": []}"#, &c).unwrap().entities.is_empty());
    }
}
