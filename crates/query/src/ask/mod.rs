//! `qa ask`: load a corpus's live index generation once, then answer questions — dense
//! retrieval and graph evidence fused by the extractive synthesizer — and trace every run.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use serde_json::json;

use crate::answer::Answer;

use qa_core::chunk::Chunk;
use qa_graph::store::StoreConfig;
use qa_llm::LlmSettings;
use qa_index::corpus::ImageRef;
use qa_embed::Embedder;
use qa_core::error::{QaError, Result};
use qa_graph::evidence::ConceptIndex;
use qa_graph::{GraphSchema, GraphStore};
use qa_graph::kg::ConceptInfo;
use qa_index::index_store::{self, CorpusDir, Manifest};
use qa_llm::{Llm, LlmChoice};
use qa_graph::walk::{self, EntityGraph};
use qa_graph::kg::link::{AliasIndex, AliasSource};
use qa_index::lexical::{self, LexicalIndex};
use qa_index::store::{GenerationInfo, LocalStore, Opened, RetrievalStore};
use crate::retrieve::remote::WithFallback;
use crate::retrieve::lanes::{LaneWeights, Lanes, SelectOptions};
use crate::retrieve::{self, Retrieval};
use qa_core::trace::TraceRecord;
use qa_index::vector::{self, ExactIndex, HnswIndex, VectorIndex, VectorIndexKind};

mod question;
mod record;

/// What an [`Engine`] needs from the settings; the CLI fills it.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Where index generations live (`<data_dir>/vector_store_outputs`).
    pub vector_dir: PathBuf,
    /// Where chunk files live (`<data_dir>/chunking_outputs`), for evidence from other corpora.
    pub chunk_dir: PathBuf,
    /// The corpus to query (`None`: the only one, or the most recently indexed).
    pub corpus: Option<String>,
    /// HNSW search breadth.
    pub hnsw_ef_search: usize,
    /// The dense index that answers: the HNSW graph, or an exact scan of every vector.
    pub vector_index: VectorIndexKind,
    /// The graph store to open.
    pub graph: StoreConfig,
    /// The LLM to attach ([`Engine::attach_llm`]).
    pub llm: LlmSettings,
    /// `top_k` when the user set it; `None` lets the engine choose k for each question.
    pub fixed_k: Option<usize>,
    /// Let the LLM plan sub-questions.
    pub llm_subqueries: bool,
    /// May the LLM write Cypher?
    pub cypher_generation: qa_llm::Generation,
    /// May the LLM's reading of the passages decide whether they answer the question?
    pub llm_answerability: qa_llm::Generation,
    /// Below this best similarity the answer says nothing relevant was found.
    pub relevance_threshold: f32,
    /// Below this evidence score (similarity and focus share, [`crate::answer::focus`]) the
    /// answer says the documents do not answer the question.
    pub evidence_threshold: f32,
    /// A remote store for the dense and lexical lanes (`--store`); `None`: the local files.
    pub store: Option<qa_index::store::StoreOpener>,
    /// Prompt budget of the LLM writer, in model tokens.
    pub llm_prompt_tokens: usize,
    /// Most tokens of an LLM answer.
    pub llm_max_tokens: usize,
    /// Support an LLM sentence needs to be kept.
    pub grounding_threshold: f64,
    /// Share of an LLM answer that must be supported, else the extractive answer is shown.
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

/// A corpus's live index generation, loaded once, answering questions ([`Engine::ask`]).
pub struct Engine {
    /// The settings it was opened with.
    pub settings: EngineSettings,
    /// The corpus name.
    pub corpus: String,
    /// The generation's manifest.
    pub manifest: Manifest,
    embedder: Box<dyn Embedder>,
    chunks: Vec<Chunk>,
    index: Box<dyn VectorIndex>,
    graph: Option<Box<dyn GraphStore>>,
    graph_error: Option<String>,
    /// The store's schema, read once per engine (run) on first use.
    graph_schema: Option<Result<GraphSchema>>,
    concepts: ConceptIndex,
    /// Names and aliases of the concepts, to find the question's entities.
    aliases: AliasIndex,
    lexical: LexicalIndex,
    /// A remote store for the dense and lexical lanes (`EngineSettings::store`); the local
    /// files answer when it is absent or fails.
    store: Option<Box<dyn RetrievalStore>>,
    /// Why the configured remote store is not used, for every answer's notes.
    store_note: Option<String>,
    entity_graph: EntityGraph,
    /// The chunks' vectors, row-major (the graph lane's relevance bias).
    vectors: Vec<f32>,
    /// Document titles by source file.
    titles: BTreeMap<String, String>,
    images: BTreeMap<String, ImageRef>,
    by_id: HashMap<String, usize>,
    /// Chunk files other than ours, loaded on demand to resolve foreign `source_id`s.
    foreign: HashMap<String, Vec<Chunk>>,
    /// Milliseconds [`Engine::open`] took.
    pub load_ms: f64,
    /// The corpus's word statistics, counted on the first question.
    term_stats: std::sync::OnceLock<crate::answer::focus::TermStats>,
    /// Words embedded alone (the focus check's reading by meaning), each once per engine.
    word_vectors: std::sync::Mutex<HashMap<String, Vec<f32>>>,
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
    /// The question as asked.
    pub question: String,
    /// The corpus that answered.
    pub corpus: String,
    /// The answer with its evidence.
    pub answer: Answer,
    /// The trace record (the caller appends it).
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
        let chunks = qa_core::chunk::read_chunks(&gen_dir.join(qa_index::index_store::CHUNKS_FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
        if chunks.len() != manifest.chunk_count {
            return Err(corrupt(format!("chunks.jsonl has {} chunks, the manifest says {}", chunks.len(), manifest.chunk_count), &root));
        }
        let concepts: Vec<ConceptInfo> = read_json(&gen_dir.join("concepts.json")).map_err(|e| corrupt(e.to_string(), &root))?;
        let (concept_vectors, _) = vector::read_vectors(&gen_dir.join("concept_vectors.f32")).map_err(|e| corrupt(e.to_string(), &root))?;
        let images: BTreeMap<String, ImageRef> = read_json(&gen_dir.join("images.json")).map_err(|e| corrupt(e.to_string(), &root))?;
        let titles: BTreeMap<String, String> = read_json(&gen_dir.join(crate::build::DOCUMENTS_FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
        let lexical = LexicalIndex::open(&gen_dir.join(lexical::DIR)).map_err(|e| corrupt(e.to_string(), &root))?;
        if lexical.len() != chunks.len() {
            return Err(corrupt(format!("the lexical index has {} chunks for {}", lexical.len(), chunks.len()), &root));
        }
        let entity_graph = EntityGraph::load(&gen_dir.join(walk::FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
        if entity_graph.chunk_count() != chunks.len() || entity_graph.entity_count() != concepts.len() {
            return Err(corrupt("the entity graph does not match the chunks and concepts".into(), &root));
        }
        let (chunk_vectors, dim) = vector::read_vectors(&gen_dir.join(qa_index::index_store::VECTORS_FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
        if chunk_vectors.len() != chunks.len() || dim != manifest.dimension {
            return Err(corrupt("vectors.f32 does not match the chunks".into(), &root));
        }
        let index: Box<dyn VectorIndex> = match settings.vector_index {
            VectorIndexKind::Hnsw => {
                let index = HnswIndex::load(&gen_dir, settings.hnsw_ef_search).map_err(|e| corrupt(format!("HNSW index: {e}"), &root))?;
                if index.len() != chunks.len() {
                    return Err(corrupt(format!("HNSW index has {} points for {} chunks", index.len(), chunks.len()), &root));
                }
                Box::new(index)
            }
            // Exact search keeps its own rows (the flat copy below serves the graph lane).
            VectorIndexKind::Exact => Box::new(ExactIndex { vectors: chunk_vectors.clone() }),
        };
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
        // The remote store: a configuration to fix fails here; a server that cannot be reached
        // degrades every answer to the local files, with a note.
        let (store, store_note) = match &settings.store {
            None => (None, None),
            Some(opener) => match (opener.open)(&GenerationInfo { chunks: &chunks, model: &manifest.model_id, dimension: manifest.dimension, corpus: &cd.name })? {
                Opened::Ready(s) => (Some(s), None),
                Opened::Unavailable(why) => {
                    tracing::warn!("retrieval store unavailable: {why}");
                    (None, Some(format!("{} could not be reached ({why}); the dense and lexical lanes searched the local index instead", opener.target)))
                }
            },
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
            store,
            store_note,
            entity_graph,
            vectors,
            titles,
            images,
            by_id,
            foreign: HashMap::new(),
            load_ms: t.elapsed().as_secs_f64() * 1000.0,
            term_stats: std::sync::OnceLock::new(),
            word_vectors: std::sync::Mutex::new(HashMap::new()),
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

    /// The embedding model.
    pub fn embedder(&self) -> &dyn Embedder {
        self.embedder.as_ref()
    }
    /// The corpus's chunks, in index row order.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }
    /// The dense index (HNSW or exact, per the `vector_index` setting).
    pub fn index(&self) -> &dyn VectorIndex {
        self.index.as_ref()
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

    fn lanes<'a>(&'a self, store: &'a dyn RetrievalStore) -> Lanes<'a> {
        Lanes {
            store,
            vectors: &self.vectors,
            dim: self.manifest.dimension,
            chunks: &self.chunks,
            graph: Some(&self.entity_graph),
            concepts: &self.concepts,
            aliases: Some(&self.aliases),
            weights: LaneWeights::default(),
        }
    }

    fn search(&self, question: &str, subs: &[String], vecs: &[Vec<f32>]) -> Result<Retrieval> {
        let opts = SelectOptions { fixed_k: self.settings.fixed_k };
        let local = LocalStore { vectors: self.index.as_ref(), lexical: Some(&self.lexical) };
        match &self.store {
            None => {
                let mut r = self.lanes(&local).retrieve(question, subs, vecs, opts)?;
                r.store_note = self.store_note.clone();
                Ok(r)
            }
            Some(remote) => {
                let store = WithFallback::new(remote.as_ref(), local, &self.vectors, self.manifest.dimension);
                let mut r = self.lanes(&store).retrieve(question, subs, vecs, opts)?;
                r.store_note = store.failure();
                Ok(r)
            }
        }
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
            "fusion": r.fusion,
            "store": r.store,
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

/// A JSON file of the generation that cannot be read, for [`QaError::IndexCorrupt`]'s reason.
#[derive(Debug, thiserror::Error)]
enum ReadJsonError {
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("{}: {cause}", path.display())]
    Parse { path: PathBuf, cause: serde_json::Error },
}

fn read_json<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> std::result::Result<T, ReadJsonError> {
    let text = std::fs::read_to_string(path).map_err(|cause| ReadJsonError::Io { path: path.to_path_buf(), cause })?;
    serde_json::from_str(&text).map_err(|cause| ReadJsonError::Parse { path: path.to_path_buf(), cause })
}
