//! `qa ask`: load a corpus's live index generation once, then answer questions — dense
//! retrieval and graph evidence fused by the extractive synthesizer — and trace every run.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use serde_json::json;

use crate::answer::llm::LlmSynthesis;
use crate::answer::{self, Answer, Candidate, SynthesisInput};

use qa_core::chunk::Chunk;
use qa_graph::store::StoreConfig;
use qa_llm::LlmSettings;
use qa_index::corpus::ImageRef;
use qa_embed::Embedder;
use qa_core::error::{QaError, Result};
use qa_graph::cypher::Policy;
use qa_graph::evidence::{self, ConceptIndex, CypherGeneration, GraphEvidence};
use qa_graph::{GraphSchema, GraphStore};
use qa_graph::kg::ConceptInfo;
use qa_index::index_store::{self, CorpusDir, Manifest};
use qa_llm::{Llm, LlmChoice, LlmRun};
use qa_graph::walk::{self, EntityGraph};
use qa_graph::kg::link::{AliasIndex, AliasSource};
use qa_index::lexical::{self, LexicalIndex};
use crate::retrieve::lanes::{LaneWeights, Lanes, SelectOptions};
use crate::retrieve::{self, Retrieval};
use qa_core::trace::{self, ChunkRef, GraphInternal, Internal, Latency, LlmInternal, Models, RagHit, RagInternal, Route, Status, TraceChunk, TraceGraph, TraceRecord};
use qa_index::vector::{self, HnswIndex, VectorIndex};

/// What an [`Engine`] needs from the settings; the CLI fills it.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Where index generations live (`<data_dir>/vector_store_outputs`).
    pub vector_dir: PathBuf,
    /// Where chunk files live (`<data_dir>/chunking_outputs`), for evidence from other corpora.
    pub chunk_dir: PathBuf,
    /// The corpus to query (`None`: the only one, or the most recently indexed).
    pub corpus: Option<String>,
    pub hnsw_ef_search: usize,
    pub graph: StoreConfig,
    pub llm: LlmSettings,
    /// `top_k` when the user set it; `None` lets the engine choose k for each question.
    pub fixed_k: Option<usize>,
    /// Let the LLM plan sub-questions.
    pub llm_subqueries: bool,
    /// May the LLM write Cypher?
    pub cypher_generation: qa_llm::Generation,
    pub relevance_threshold: f32,
    pub llm_prompt_tokens: usize,
    pub llm_max_tokens: usize,
    pub grounding_threshold: f64,
    pub grounding_min_supported: f64,
}

/// Which corpus to query: `corpus` when given, else the only one, or the most recently indexed.
pub fn resolve_corpus(vector_dir: &std::path::Path, corpus: Option<&str>) -> Result<CorpusDir> {
    let vdir = vector_dir.to_path_buf();
    if let Some(name) = corpus {
        return Ok(CorpusDir::new(&vdir, name));
    }
    let mut all = index_store::list_corpora(&vdir);
    if all.is_empty() {
        return Err(QaError::IndexMissing { corpus: "(none)".into(), dir: vdir });
    }
    all.sort_by(|a, b| {
        let ta = a.1.as_ref().map(|m| m.created_at.clone()).unwrap_or_default();
        let tb = b.1.as_ref().map(|m| m.created_at.clone()).unwrap_or_default();
        tb.cmp(&ta)
    });
    Ok(all.remove(0).0)
}

pub struct Engine {
    pub settings: EngineSettings,
    pub corpus: String,
    pub manifest: Manifest,
    embedder: Box<dyn Embedder>,
    chunks: Vec<Chunk>,
    index: HnswIndex,
    graph: Option<Box<dyn GraphStore>>,
    graph_error: Option<String>,
    /// The store's schema, read once per engine (run) on first use.
    graph_schema: Option<std::result::Result<GraphSchema, String>>,
    concepts: ConceptIndex,
    /// Names and aliases of the concepts, to find the question's entities.
    aliases: AliasIndex,
    lexical: LexicalIndex,
    entity_graph: EntityGraph,
    /// The chunks' vectors, row-major (the graph lane's relevance bias).
    vectors: Vec<f32>,
    /// Document titles by source file.
    titles: BTreeMap<String, String>,
    images: BTreeMap<String, ImageRef>,
    by_id: HashMap<String, usize>,
    /// Chunk files other than ours, loaded on demand to resolve foreign `source_id`s.
    foreign: HashMap<String, Vec<Chunk>>,
    pub load_ms: f64,
    llm: LlmState,
}

/// The LLM a question may use: none (configured, or nothing available), loaded, or failed to
/// load (answers then degrade to extractive with a note).
enum LlmState {
    Off { reason: String },
    Ready(Box<dyn Llm>),
    Failed { reason: String },
}

/// The result of one question.
#[derive(Debug, Serialize)]
pub struct AskResult {
    pub question: String,
    pub corpus: String,
    pub answer: Answer,
    pub trace: TraceRecord,
    /// Every lane's ranking and the fusion (in the trace as `internal.rag.lanes`).
    #[serde(skip)]
    pub retrieval: Retrieval,
}

impl Engine {
    /// Open the live generation of the resolved corpus. `load_embedder` is called after the index
    /// is found, so a missing index is reported before a missing model.
    pub fn open(settings: &EngineSettings, load_embedder: impl FnOnce() -> Result<Box<dyn Embedder>>) -> Result<Engine> {
        let t = Instant::now();
        let cd = resolve_corpus(&settings.vector_dir, settings.corpus.as_deref())?;
        let gen_dir = cd.current().ok_or_else(|| QaError::IndexMissing { corpus: cd.name.clone(), dir: settings.vector_dir.clone() })?;
        let corrupt = |reason: String, root: &str| QaError::IndexCorrupt { dir: gen_dir.clone(), reason, corpus_root: root.to_string() };
        // The corpus root for the rebuild hint, even when verification fails.
        let hint_root = std::fs::read_to_string(gen_dir.join(index_store::MANIFEST))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("corpus_root").and_then(|r| r.as_str()).map(String::from))
            .unwrap_or_else(|| "<FOLDER>".into());
        let manifest = index_store::verify_generation(&gen_dir, false).map_err(|r| corrupt(r.to_string(), &hint_root))?;
        let root = manifest.corpus_root.clone();
        let embedder = load_embedder()?;
        if embedder.model_id() != manifest.model_id || embedder.dimension() != manifest.dimension {
            return Err(QaError::IndexModelMismatch {
                dir: gen_dir.clone(),
                found: format!("{} ({} dimensions)", manifest.model_id, manifest.dimension),
                expected: format!("{} ({} dimensions)", embedder.model_id(), embedder.dimension()),
                corpus_root: root,
            });
        }
        let chunks = qa_core::chunk::read_chunks(&gen_dir.join("chunks.jsonl")).map_err(|e| corrupt(e.to_string(), &root))?;
        if chunks.len() != manifest.chunk_count {
            return Err(corrupt(format!("chunks.jsonl has {} chunks, the manifest says {}", chunks.len(), manifest.chunk_count), &root));
        }
        let index = HnswIndex::load(&gen_dir, settings.hnsw_ef_search).map_err(|e| corrupt(format!("HNSW index: {e}"), &root))?;
        if index.len() != chunks.len() {
            return Err(corrupt(format!("HNSW index has {} points for {} chunks", index.len(), chunks.len()), &root));
        }
        let concepts: Vec<ConceptInfo> = read_json(&gen_dir.join("concepts.json")).map_err(|e| corrupt(e, &root))?;
        let (concept_vectors, _) = vector::read_vectors(&gen_dir.join("concept_vectors.f32")).map_err(|e| corrupt(e.to_string(), &root))?;
        let images: BTreeMap<String, ImageRef> = read_json(&gen_dir.join("images.json")).map_err(|e| corrupt(e, &root))?;
        let titles: BTreeMap<String, String> = read_json(&gen_dir.join(crate::build::DOCUMENTS_FILE)).map_err(|e| corrupt(e, &root))?;
        let lexical = LexicalIndex::open(&gen_dir.join(lexical::DIR)).map_err(|e| corrupt(e.to_string(), &root))?;
        if lexical.len() != chunks.len() {
            return Err(corrupt(format!("the lexical index has {} chunks for {}", lexical.len(), chunks.len()), &root));
        }
        let entity_graph = EntityGraph::load(&gen_dir.join(walk::FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
        if entity_graph.chunk_count() != chunks.len() || entity_graph.entity_count() != concepts.len() {
            return Err(corrupt("the entity graph does not match the chunks and concepts".into(), &root));
        }
        let (chunk_vectors, dim) = vector::read_vectors(&gen_dir.join("vectors.f32")).map_err(|e| corrupt(e.to_string(), &root))?;
        if chunk_vectors.len() != chunks.len() || dim != manifest.dimension {
            return Err(corrupt("vectors.f32 does not match the chunks".into(), &root));
        }
        let vectors: Vec<f32> = chunk_vectors.into_iter().flatten().collect();
        let aliases = AliasIndex::build(concepts.iter().map(|c| AliasSource {
            id: &c.id,
            kind: c.kind,
            surfaces: std::iter::once(c.name.as_str()).chain(c.aliases.iter().map(String::as_str)).collect(),
        }));
        // A graph store that cannot be opened (or a Neo4j server that cannot be reached) degrades
        // answers to dense retrieval only.
        let (graph, graph_error) = match qa_graph::store::open_store(&settings.graph, &gen_dir) {
            Ok(g) => (Some(g), None),
            Err(e) => {
                tracing::warn!("graph store unavailable: {e}");
                (None, Some(format!("graph store unavailable, answering from retrieved text only: {e}")))
            }
        };
        let by_id = chunks.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        Ok(Engine {
            settings: settings.clone(),
            corpus: cd.name,
            manifest,
            embedder,
            chunks,
            index,
            graph,
            graph_error,
            graph_schema: None,
            concepts: ConceptIndex::new(concepts, concept_vectors),
            aliases,
            lexical,
            entity_graph,
            vectors,
            titles,
            images,
            by_id,
            foreign: HashMap::new(),
            load_ms: t.elapsed().as_secs_f64() * 1000.0,
            llm: LlmState::Off { reason: "not attached".into() },
        })
    }

    /// Resolve and load the configured LLM (see [`qa_llm::choose`]). A failure is kept and
    /// reported with each answer, which then falls back to extractive synthesis.
    pub fn attach_llm(&mut self) {
        self.llm = match qa_llm::choose(&self.settings.llm).and_then(|choice| {
            let reason = match &choice {
                LlmChoice::None { reason } => reason.clone(),
                _ => String::new(),
            };
            qa_llm::open(&self.settings.llm, &choice).map(|llm| (llm, reason))
        }) {
            Ok((Some(llm), _)) => LlmState::Ready(llm),
            Ok((None, reason)) => LlmState::Off { reason },
            Err(e) => LlmState::Failed { reason: e.to_string() },
        };
        if let LlmState::Failed { reason } = &self.llm {
            tracing::warn!("LLM unavailable: {reason}");
        }
    }

    /// `provider model` of the attached LLM, if one is ready.
    pub fn llm_label(&self) -> Option<String> {
        match &self.llm {
            LlmState::Ready(l) => Some(format!("{} ({})", l.model_id(), l.provider())),
            _ => None,
        }
    }

    pub fn embedder(&self) -> &dyn Embedder {
        self.embedder.as_ref()
    }
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }
    pub fn index(&self) -> &HnswIndex {
        &self.index
    }

    /// Document titles by source file.
    pub fn titles(&self) -> &BTreeMap<String, String> {
        &self.titles
    }

    /// Retrieval only (benchmarks, `qa eval`): the deterministic sub-questions through the three
    /// lanes and fusion, with the sub-questions' embeddings.
    pub fn retrieve(&self, question: &str) -> Result<(Retrieval, Vec<Vec<f32>>)> {
        let subs = retrieve::subqueries(question);
        let refs: Vec<&str> = subs.iter().map(String::as_str).collect();
        let vecs = self.embedder.embed(&refs)?;
        let r = self.search(question, &subs, &vecs)?;
        Ok((r, vecs))
    }

    fn lanes(&self) -> Lanes<'_> {
        Lanes {
            index: &self.index,
            vectors: &self.vectors,
            dim: self.manifest.dimension,
            chunks: &self.chunks,
            lexical: Some(&self.lexical),
            graph: Some(&self.entity_graph),
            concepts: &self.concepts,
            aliases: Some(&self.aliases),
            weights: LaneWeights::default(),
        }
    }

    fn search(&self, question: &str, subs: &[String], vecs: &[Vec<f32>]) -> Result<Retrieval> {
        let fixed_k = self.settings.fixed_k;
        self.lanes().retrieve(question, subs, vecs, SelectOptions { fixed_k })
    }

    /// Embed the planned subqueries, dropping LLM subqueries that drifted from the question (a
    /// small model's "BME280BluetoothBluetooth" would only pull unrelated chunks into the prompt).
    fn embed_plan(&self, plan: &mut retrieve::SubqueryPlan) -> Result<(Vec<String>, Vec<Vec<f32>>)> {
        let refs: Vec<&str> = plan.queries.iter().map(String::as_str).collect();
        let vecs = self.embedder.embed(&refs)?;
        if plan.source != "llm" {
            return Ok((plan.queries.clone(), vecs));
        }
        let (mut subs, mut kept): (Vec<String>, Vec<Vec<f32>>) = (Vec::new(), Vec::new());
        for (i, (q, v)) in plan.queries.iter().zip(vecs).enumerate() {
            let similarity = kept.first().map_or(1.0, |question: &Vec<f32>| qa_embed::dot(&v, question));
            if i == 0 || similarity >= retrieve::MIN_SUBQUERY_SIMILARITY {
                subs.push(q.clone());
                kept.push(v);
            } else {
                plan.dropped.push(format!("{q} (similarity {similarity:.2})"));
            }
        }
        plan.queries = subs.clone();
        Ok((subs, kept))
    }

    /// Find a chunk by `<chunk_file>::<chunk_id>`: ours by id, else in the named chunk file under
    /// chunking_outputs (the `derived_from_chunk_file` inference).
    fn resolve_source(&mut self, source_id: &str) -> Option<Chunk> {
        let (file, id) = source_id.rsplit_once("::").unwrap_or(("", source_id));
        if let Some(&i) = self.by_id.get(id) {
            return Some(self.chunks[i].clone());
        }
        if file.is_empty() || file.contains('/') || file.contains("..") {
            return None;
        }
        let path: PathBuf = self.settings.chunk_dir.join(file);
        let list = self.foreign.entry(file.to_string()).or_insert_with(|| qa_core::chunk::read_chunks(&path).unwrap_or_default());
        list.iter().find(|c| c.id == id).cloned()
    }

    pub fn ask(&mut self, question: &str) -> Result<AskResult> {
        let t_total = Instant::now();
        let trace_id = trace::new_trace_id(question);
        let timestamp = chrono::Utc::now().to_rfc3339();

        let t = Instant::now();
        // Take the LLM out of `self` for the question so the engine's other parts stay borrowable.
        let mut llm_state = std::mem::replace(&mut self.llm, LlmState::Off { reason: String::new() });
        let (off_reason, failed_reason) = match &llm_state {
            LlmState::Off { reason } => (Some(reason.clone()), None),
            LlmState::Failed { reason } => (None, Some(reason.clone())),
            LlmState::Ready(_) => (None, None),
        };
        let mut run = match &mut llm_state {
            LlmState::Ready(l) => Some(LlmRun::new(l.as_mut())),
            _ => None,
        };
        let plan = match run.as_mut() {
            Some(r) if self.settings.llm_subqueries => retrieve::plan_subqueries(question, Some(r)),
            _ => retrieve::plan_subqueries(question, None),
        };
        let mut plan = plan;
        let retrieved = self.embed_plan(&mut plan).and_then(|(subs, vecs)| self.search(question, &subs, &vecs).map(|r| (subs, vecs, r)));
        let (subs, vecs, retrieval) = match retrieved {
            Ok(v) => v,
            Err(e) => {
                drop(run);
                self.llm = llm_state;
                return Err(e);
            }
        };
        let rag_ms = t.elapsed().as_secs_f64() * 1000.0;

        let t = Instant::now();
        let mut notes: Vec<String> = Vec::new();
        // The LLM writes a Cypher query when one is attached and generation is on; the store's
        // schema (read once) is what the query is checked against.
        let skip_reason = match &run {
            None => Some(match (&off_reason, &failed_reason) {
                (_, Some(r)) => format!("LLM unavailable: {r}"),
                (Some(r), _) if !r.is_empty() => format!("no LLM: {r}"),
                _ => "no LLM".to_string(),
            }),
            Some(r) => self
                .settings
                .cypher_generation
                .refusal("cypher_generation", r.llm().provider() == "local")
                .or_else(|| r.down.clone().map(|d| format!("LLM unavailable: {d}"))),
        };
        if skip_reason.is_none()
            && self.graph_schema.is_none()
            && let Some(g) = self.graph.as_mut()
        {
            self.graph_schema = Some(g.schema().map_err(|e| e.to_string()));
        }
        let skip_reason = match (&skip_reason, &self.graph_schema) {
            (None, Some(Err(e))) => Some(format!("the graph schema could not be read: {e}")),
            _ => skip_reason,
        };
        let policy = Policy {
            row_cap: self.settings.graph.row_cap as u64,
            extra_procedures: self.graph.as_ref().map(|g| g.extra_procedures().iter().map(|p| p.to_string()).collect()).unwrap_or_default(),
        };
        let ev: GraphEvidence = match self.graph.as_mut() {
            Some(g) => {
                let generation = match (skip_reason.is_none(), run.as_mut(), &self.graph_schema) {
                    (true, Some(r), Some(Ok(schema))) => Some(CypherGeneration { llm: r, schema, policy }),
                    _ => None,
                };
                evidence::gather_with(g.as_mut(), question, &vecs[0], &self.concepts, generation, skip_reason)
            }
            None => {
                notes.extend(self.graph_error.clone());
                GraphEvidence::default()
            }
        };
        if !ev.errors.is_empty() {
            notes.push(format!("some graph queries failed: {}", ev.errors.join("; ")));
        }
        let graph_chunks: Vec<Chunk> = ev.source_ids.iter().filter_map(|sid| self.resolve_source(sid)).collect();
        let graph_ms = t.elapsed().as_secs_f64() * 1000.0;

        let t = Instant::now();
        let hits = &retrieval.selected;
        let best = hits.iter().map(|h| h.similarity).fold(0.0f32, f32::max);
        let mut candidates: Vec<Candidate> =
            hits.iter().enumerate().map(|(rank, h)| Candidate { chunk: &self.chunks[h.row], score: h.similarity, from_graph: false, rank }).collect();
        for c in &graph_chunks {
            if !candidates.iter().any(|x| x.chunk.id == c.id) {
                candidates.push(Candidate { chunk: c, score: (best * 0.8).min(0.5), from_graph: true, rank: hits.len() });
            }
        }
        let q_vec = &vecs[0];
        let embedder = self.embedder.as_ref();
        let similarity = |texts: &[&str]| -> Option<Vec<f32>> {
            let v = embedder.embed(texts).ok()?;
            Some(v.iter().map(|s| qa_embed::dot(q_vec, s)).collect())
        };
        let extractive = answer::synthesize(SynthesisInput {
            question,
            candidates: candidates.clone(),
            graph: &ev,
            best_score: best,
            relevance_threshold: self.settings.relevance_threshold,
            max_sentences: 4,
            images: &self.images,
            bridge_terms: &retrieval.bridge_terms,
            similarity: Some(&similarity),
        });
        let embed_texts = |texts: &[&str]| -> Option<Vec<Vec<f32>>> { embedder.embed(texts).ok() };
        let mut llm_error: Option<String> = None;
        let mut guard_notes: Vec<String> = Vec::new();
        let (answer, prompt_info, grounding) = match run.as_mut() {
            // Nothing relevant was retrieved: an LLM would only invent, so say so plainly.
            Some(_) if !extractive.found => (extractive, None, None),
            Some(r) => {
                let out = answer::llm::synthesize_with_llm(
                    r,
                    LlmSynthesis {
                        question,
                        candidates: &candidates,
                        graph: &ev,
                        extractive: &extractive,
                        images: &self.images,
                        prompt_budget: self.settings.llm_prompt_tokens,
                        max_tokens: self.settings.llm_max_tokens,
                        grounding_threshold: self.settings.grounding_threshold as f32,
                        grounding_min_supported: self.settings.grounding_min_supported as f32,
                        embed: &embed_texts,
                    },
                );
                // A withheld answer is the guard doing its job, not an error; an LLM failure is.
                match &out.error {
                    Some(_) => notes.extend(out.note),
                    None => guard_notes.extend(out.note),
                }
                llm_error = out.error;
                (out.answer, out.prompt, out.grounding)
            }
            None => {
                if let Some(reason) = &failed_reason {
                    notes.push(format!("LLM unavailable: {reason}; showing the extractive answer."));
                    llm_error = Some(format!("LLM unavailable: {reason}"));
                }
                (extractive, None, None)
            }
        };
        let synthesis_ms = t.elapsed().as_secs_f64() * 1000.0;

        let retrieved_chunks: Vec<TraceChunk> = hits
            .iter()
            .map(|h| {
                let c = &self.chunks[h.row];
                TraceChunk {
                    chunk_id: c.id.clone(),
                    source_file: c.source_file.clone(),
                    score: h.similarity,
                    metadata: serde_json::to_value(&c.metadata).unwrap_or_default(),
                    text: c.content.clone(),
                }
            })
            .collect();
        let mut final_answer = answer.text.clone();
        // A row cap that cut a graph result is said, not counted as an error.
        let all_notes: Vec<&String> = notes.iter().chain(&guard_notes).chain(&ev.notes).collect();
        if !all_notes.is_empty() {
            final_answer.push_str(&format!("\n\nNote: {}", all_notes.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(" ")));
        }
        let llm_model = run.as_ref().map(|r| r.llm().model_id());
        let (llm_usage, llm_ms, llm_internal) = match &run {
            Some(r) => (
                (!r.calls.is_empty()).then(|| r.usage()),
                r.latency_ms(),
                Some(LlmInternal {
                    provider: Some(r.llm().provider().to_string()),
                    model: Some(r.llm().model_id()),
                    subqueries: serde_json::to_value(&plan).unwrap_or_default(),
                    calls: serde_json::to_value(&r.calls).unwrap_or_default(),
                    prompt: serde_json::to_value(&prompt_info).unwrap_or_default(),
                    synthesizer: Some(answer.synthesizer.clone()),
                    ..Default::default()
                }),
            ),
            None => (
                None,
                0.0,
                match (&off_reason, &failed_reason) {
                    (_, Some(reason)) => Some(LlmInternal { provider: Some("failed".into()), reason: Some(reason.clone()), ..Default::default() }),
                    (Some(reason), None) => Some(LlmInternal { provider: Some("none".into()), reason: Some(reason.clone()), ..Default::default() }),
                    (None, None) => None,
                },
            ),
        };
        let error = match (llm_error, notes.is_empty()) {
            (Some(e), _) => Some(e),
            (None, false) => Some(notes.join(" ")),
            (None, true) => None,
        };
        let record = TraceRecord {
            trace_id,
            timestamp,
            user_question: question.to_string(),
            route: Route::Documents,
            // Nothing relevant was retrieved: the answer says so instead of answering.
            status: Some(if answer.found { Status::Answered } else { Status::Refused }),
            rewritten_or_decomposed_queries: subs.clone(),
            retrieved_chunks,
            retrieved_graph_subgraph: ev.subgraph.clone(),
            graph: TraceGraph {
                grounded_entities: ev.grounded.clone(),
                generated_cypher: ev.cypher.generated.clone(),
                validation: ev.cypher.report.as_ref().map(validation_json),
                sanitized_cypher: ev.cypher.report.as_ref().and_then(|r| r.sanitized.as_ref()).map(|s| s.cypher.clone()),
                fallback_used: ev.strategies.clone(),
            },
            final_answer: final_answer.clone(),
            token_usage: llm_usage,
            latency_ms: Latency { rag: rag_ms, graph: graph_ms, synthesis: synthesis_ms, total: t_total.elapsed().as_secs_f64() * 1000.0, llm_calls: llm_ms },
            models: Models { embedding: self.embedder.model_id().to_string(), llm: llm_model },
            error,
            answer_grounding: grounding.map(|g| serde_json::to_value(g).unwrap_or_default()),
            internal: Internal {
                rag: Some(RagInternal {
                    corpus: self.corpus.clone(),
                    k: retrieval.k,
                    k_reason: retrieval.k_reason.clone(),
                    hits: hits
                        .iter()
                        .map(|h| RagHit {
                            chunk_id: h.chunk_id.clone(),
                            score: h.score,
                            similarity: h.similarity,
                            subquery: h.subquery,
                            lanes: serde_json::to_value(&h.lanes).unwrap_or_default(),
                        })
                        .collect(),
                    lanes: self.lanes_trace(&retrieval),
                    best_score: best,
                    relevance_threshold: self.settings.relevance_threshold,
                    found: answer.found,
                    other: Default::default(),
                }),
                graph: Some(GraphInternal {
                    backend: self.graph.as_ref().map(|g| g.backend().to_string()),
                    entities: serde_json::to_value(&ev.entities).unwrap_or_default(),
                    cypher: serde_json::to_value(&ev.cypher).unwrap_or_default(),
                    raw_rows: serde_json::to_value(&ev.raw_rows).unwrap_or_default(),
                    queries: serde_json::to_value(&ev.queries).unwrap_or_default(),
                    facts: serde_json::to_value(&ev.facts).unwrap_or_default(),
                    images: serde_json::to_value(&ev.images).unwrap_or_default(),
                    resolved_chunks: graph_chunks.iter().map(|c| ChunkRef { chunk_id: c.id.clone(), source_file: c.source_file.clone() }).collect(),
                    errors: ev.errors.clone(),
                    other: Default::default(),
                }),
                llm: llm_internal,
                sql: None,
            },
        };
        drop(run);
        self.llm = llm_state;
        let mut answer = answer;
        answer.text = final_answer;
        Ok(AskResult { question: question.to_string(), corpus: self.corpus.clone(), answer, trace: record, retrieval })
    }
}

impl Engine {
    /// `internal.rag.lanes`: each lane's ranking (chunk ids, ranks, scores; the top of it) and the
    /// graph lane's seeds, so a user can see why a passage was chosen.
    fn lanes_trace(&self, r: &Retrieval) -> serde_json::Value {
        let lane = |l: &retrieve::LaneRanking| {
            json!({
                "ms": l.ms,
                "skipped": l.skipped,
                "hits": l.hits.iter().take(20).map(|h| json!({"chunk_id": self.chunks.get(h.row).map(|c| c.id.as_str()), "rank": h.rank, "score": h.score})).collect::<Vec<_>>(),
            })
        };
        json!({
            "dense": lane(&r.dense),
            "lexical": lane(&r.lexical),
            "graph": lane(&r.graph),
            "walk": lane(&r.walk),
            "graph_seeds": r.seeds,
            "fused": r.fused.iter().take(20).map(|h| json!({"chunk_id": h.chunk_id, "score": h.score, "lanes": h.lanes})).collect::<Vec<_>>(),
        })
    }
}

/// `graph.validation` in the trace: the verdict, the reasons, what sanitizing changed and the
/// verdict after it.
fn validation_json(r: &qa_graph::cypher::CheckReport) -> serde_json::Value {
    json!({
        "ok": r.accepted,
        "reasons": r.validation.reasons,
        "warnings": r.validation.warnings,
        "sanitized_changes": r.sanitized.as_ref().map(|s| s.changes.clone()).unwrap_or_default(),
        "after_sanitization": r.revalidation.as_ref().map(|v| json!({"ok": v.ok, "reasons": v.reasons})),
    })
}

fn read_json<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> std::result::Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
