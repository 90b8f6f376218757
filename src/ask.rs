//! `qa ask`: load a corpus's live index generation once, then answer questions — dense
//! retrieval and graph evidence fused by the extractive synthesizer — and trace every run.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use serde_json::json;

use crate::answer::{self, Answer, Candidate, SynthesisInput};
use crate::chunk::{self, Chunk};
use crate::config::Settings;
use crate::corpus::ImageRef;
use crate::embed::Embedder;
use crate::error::{QaError, Result};
use crate::graph::evidence::{self, ConceptIndex, GraphEvidence};
use crate::graph::{EmbeddedGraph, GraphStore};
use crate::kg::ConceptInfo;
use crate::layout::{self, CorpusDir, Manifest};
use crate::retrieve::{self, RetrievedChunk};
use crate::trace::{self, Internal, Latency, Models, TraceChunk, TraceGraph, TraceRecord};
use crate::vector::{self, HnswIndex, VectorIndex};

/// Which corpus to query: the configured one, the only one, or the most recently indexed.
pub fn resolve_corpus(settings: &Settings) -> Result<CorpusDir> {
    let vdir = settings.vector_dir();
    if let Some(name) = &settings.corpus {
        return Ok(CorpusDir::new(&vdir, name));
    }
    let mut all = layout::list_corpora(&vdir);
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
    pub settings: Settings,
    pub corpus: String,
    pub manifest: Manifest,
    embedder: Box<dyn Embedder>,
    chunks: Vec<Chunk>,
    index: HnswIndex,
    graph: Option<EmbeddedGraph>,
    graph_error: Option<String>,
    concepts: ConceptIndex,
    images: BTreeMap<String, ImageRef>,
    by_id: HashMap<String, usize>,
    /// Chunk files other than ours, loaded on demand to resolve foreign `source_id`s.
    foreign: HashMap<String, Vec<Chunk>>,
    pub load_ms: f64,
}

/// The result of one question.
#[derive(Debug, Serialize)]
pub struct AskResult {
    pub question: String,
    pub corpus: String,
    pub answer: Answer,
    pub trace: TraceRecord,
}

impl Engine {
    /// Open the live generation of the resolved corpus. `load_embedder` is called after the index
    /// is found, so a missing index is reported before a missing model.
    pub fn open(settings: &Settings, load_embedder: impl FnOnce() -> Result<Box<dyn Embedder>>) -> Result<Engine> {
        let t = Instant::now();
        let cd = resolve_corpus(settings)?;
        let gen_dir = cd.current().ok_or_else(|| QaError::IndexMissing { corpus: cd.name.clone(), dir: settings.vector_dir() })?;
        let corrupt = |reason: String, root: &str| QaError::IndexCorrupt { dir: gen_dir.clone(), reason, corpus_root: root.to_string() };
        // The corpus root for the rebuild hint, even when verification fails.
        let hint_root = std::fs::read_to_string(gen_dir.join(layout::MANIFEST))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("corpus_root").and_then(|r| r.as_str()).map(String::from))
            .unwrap_or_else(|| "<FOLDER>".into());
        let manifest = layout::verify_generation(&gen_dir, false).map_err(|r| corrupt(r, &hint_root))?;
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
        let chunks = chunk::read_chunks(&gen_dir.join("chunks.jsonl")).map_err(|e| corrupt(e.to_string(), &root))?;
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
        // A graph store that cannot be opened degrades answers to dense retrieval only.
        let (graph, graph_error) = match EmbeddedGraph::open(&gen_dir.join("graph.db"), 1000) {
            Ok(g) => (Some(g), None),
            Err(e) => (None, Some(format!("graph store unavailable, answering from retrieved text only: {e}"))),
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
            concepts: ConceptIndex::new(concepts, concept_vectors),
            images,
            by_id,
            foreign: HashMap::new(),
            load_ms: t.elapsed().as_secs_f64() * 1000.0,
        })
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

    /// Dense retrieval only (used by benchmarks): embed subqueries and search.
    pub fn retrieve(&self, question: &str) -> Result<(Vec<String>, Vec<Vec<f32>>, Vec<RetrievedChunk>)> {
        let subs = retrieve::subqueries(question);
        let refs: Vec<&str> = subs.iter().map(String::as_str).collect();
        let vecs = self.embedder.embed(&refs)?;
        let hits = retrieve::retrieve(&self.index, &self.chunks, &vecs, self.settings.top_k);
        Ok((subs, vecs, hits))
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
        let path: PathBuf = self.settings.chunk_dir().join(file);
        let list = self.foreign.entry(file.to_string()).or_insert_with(|| chunk::read_chunks(&path).unwrap_or_default());
        list.iter().find(|c| c.id == id).cloned()
    }

    pub fn ask(&mut self, question: &str) -> Result<AskResult> {
        let t_total = Instant::now();
        let trace_id = trace::new_trace_id(question);
        let timestamp = chrono::Utc::now().to_rfc3339();

        let t = Instant::now();
        let (subs, vecs, hits) = self.retrieve(question)?;
        let rag_ms = t.elapsed().as_secs_f64() * 1000.0;

        let t = Instant::now();
        let mut notes: Vec<String> = Vec::new();
        let ev: GraphEvidence = match self.graph.as_mut() {
            Some(g) => evidence::gather(g as &mut dyn GraphStore, question, &vecs[0], &self.concepts),
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
        let best = hits.first().map(|h| h.score).unwrap_or(0.0);
        let mut candidates: Vec<Candidate> = hits.iter().map(|h| Candidate { chunk: &self.chunks[h.row], score: h.score, from_graph: false }).collect();
        for c in &graph_chunks {
            if !candidates.iter().any(|x| x.chunk.id == c.id) {
                candidates.push(Candidate { chunk: c, score: (best * 0.8).min(0.5), from_graph: true });
            }
        }
        let q_vec = &vecs[0];
        let embedder = self.embedder.as_ref();
        let similarity = |texts: &[&str]| -> Option<Vec<f32>> {
            let v = embedder.embed(texts).ok()?;
            Some(v.iter().map(|s| crate::embed::dot(q_vec, s)).collect())
        };
        let answer = answer::synthesize(SynthesisInput {
            question,
            candidates,
            graph: &ev,
            best_score: best,
            relevance_threshold: self.settings.relevance_threshold,
            max_sentences: 4,
            images: &self.images,
            similarity: Some(&similarity),
        });
        let synthesis_ms = t.elapsed().as_secs_f64() * 1000.0;

        let retrieved_chunks: Vec<TraceChunk> = hits
            .iter()
            .map(|h| {
                let c = &self.chunks[h.row];
                TraceChunk {
                    chunk_id: c.id.clone(),
                    source_file: c.source_file.clone(),
                    score: h.score,
                    metadata: serde_json::to_value(&c.metadata).unwrap_or_default(),
                    text: c.content.clone(),
                }
            })
            .collect();
        let mut final_answer = answer.text.clone();
        if !notes.is_empty() {
            final_answer.push_str(&format!("\n\nNote: {}", notes.join(" ")));
        }
        let record = TraceRecord {
            trace_id,
            timestamp,
            user_question: question.to_string(),
            route: "documents".into(),
            rewritten_or_decomposed_queries: subs.clone(),
            retrieved_chunks,
            retrieved_graph_subgraph: ev.subgraph.clone(),
            graph: TraceGraph {
                grounded_entities: ev.grounded.clone(),
                generated_cypher: None,
                validation: None,
                sanitized_cypher: None,
                fallback_used: ev.strategies.clone(),
            },
            final_answer: final_answer.clone(),
            token_usage: None,
            latency_ms: Latency { rag: rag_ms, graph: graph_ms, synthesis: synthesis_ms, total: t_total.elapsed().as_secs_f64() * 1000.0 },
            models: Models { embedding: self.embedder.model_id().to_string(), llm: None },
            error: if notes.is_empty() { None } else { Some(notes.join(" ")) },
            internal: Internal {
                rag: json!({
                    "corpus": self.corpus,
                    "top_k": self.settings.top_k,
                    "hits": hits.iter().map(|h| json!({"chunk_id": h.chunk_id, "score": h.score, "subquery": h.subquery})).collect::<Vec<_>>(),
                    "best_score": best,
                    "relevance_threshold": self.settings.relevance_threshold,
                    "found": answer.found,
                }),
                graph: json!({
                    "backend": self.graph.as_ref().map(|g| g.backend()),
                    "queries": ev.queries,
                    "facts": ev.facts,
                    "images": ev.images,
                    "resolved_chunks": graph_chunks.iter().map(|c| json!({"chunk_id": c.id, "source_file": c.source_file})).collect::<Vec<_>>(),
                    "errors": ev.errors,
                }),
            },
        };
        let mut answer = answer;
        answer.text = final_answer;
        Ok(AskResult { question: question.to_string(), corpus: self.corpus.clone(), answer, trace: record })
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> std::result::Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
