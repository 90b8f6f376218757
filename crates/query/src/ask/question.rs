//! One question through the document pipeline: plan sub-questions, retrieve (three lanes and
//! fusion), gather graph evidence, write the answer, and record the trace.

use std::time::Instant;

use qa_core::chunk::Chunk;
use qa_core::error::Result;
use qa_core::trace;
use qa_graph::cypher::Policy;
use qa_graph::evidence::{self, CypherGeneration, GraphEvidence, GraphFact};
use qa_llm::LlmRun;

use super::record::{self, TraceParts};
use super::{AskResult, Engine, LlmState};
use crate::answer::writer::{AnswerWriter, ExtractiveWriter, LlmWriter, LlmWriterLimits, Written};
use crate::answer::{Candidate, SynthesisInput};
use crate::retrieve::{self, Retrieval, SubqueryPlan};

/// Why no LLM takes part in a question: not configured (`off`), or failed to load (`failed`).
pub(super) struct LlmAbsence {
    pub(super) off: Option<String>,
    pub(super) failed: Option<String>,
}

impl LlmAbsence {
    fn of(state: &LlmState) -> LlmAbsence {
        match state {
            LlmState::Off { reason } => LlmAbsence { off: Some(reason.clone()), failed: None },
            LlmState::Failed { reason } => LlmAbsence { off: None, failed: Some(reason.clone()) },
            LlmState::Ready(_) => LlmAbsence { off: None, failed: None },
        }
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

impl Engine {
    /// Answer `question` from the loaded corpus: the answer, its evidence and its trace record
    /// (which the caller appends to the trace file).
    pub fn ask(&mut self, question: &str) -> Result<AskResult> {
        // Take the LLM out of `self` for the question so the engine's other parts stay borrowable.
        let mut llm_state = std::mem::replace(&mut self.llm, LlmState::Off { reason: String::new() });
        let result = self.ask_with(question, &mut llm_state);
        self.llm = llm_state;
        result
    }

    fn ask_with(&mut self, question: &str, llm_state: &mut LlmState) -> Result<AskResult> {
        let t_total = Instant::now();
        let trace_id = trace::new_trace_id(question);
        let timestamp = chrono::Utc::now().to_rfc3339();
        let absence = LlmAbsence::of(llm_state);
        let mut run = match llm_state {
            LlmState::Ready(l) => Some(LlmRun::new(l.as_mut())),
            _ => None,
        };

        let t = Instant::now();
        let mut plan = match run.as_mut() {
            Some(r) if self.settings.llm_subqueries => retrieve::plan_subqueries(question, Some(r)),
            _ => retrieve::plan_subqueries(question, None),
        };
        let (subs, vecs) = self.embed_plan(&mut plan)?;
        let retrieval = self.search(question, &subs, &vecs)?;
        let rag_ms = ms_since(t);

        let t = Instant::now();
        let mut notes: Vec<String> = Vec::new();
        notes.extend(retrieval.store_note.clone());
        let mut ev = self.graph_evidence(question, &vecs[0], run.as_mut(), &absence, &mut notes);
        // The second hop of a two-hop question, stated with the two passages it rests on.
        let bridge_facts: Vec<GraphFact> = retrieval.bridges.iter().map(|b| bridge_fact(b, &self.chunks)).collect();
        ev.facts.splice(0..0, bridge_facts);
        let graph_chunks: Vec<Chunk> = ev.source_ids.iter().filter_map(|sid| self.resolve_source(sid)).collect();
        let graph_ms = ms_since(t);

        let t = Instant::now();
        let written = self.write_answer(question, &retrieval, &ev, &graph_chunks, &vecs[0], run.as_mut());
        let mut guard_notes = Vec::new();
        let mut llm_error = written.error.clone();
        // A withheld answer is the guard doing its job, not an error; an LLM failure is.
        match &written.error {
            Some(_) => notes.extend(written.note.clone()),
            None => guard_notes.extend(written.note.clone()),
        }
        if run.is_none()
            && let Some(reason) = &absence.failed
        {
            notes.push(format!("LLM unavailable: {reason}; showing the extractive answer."));
            llm_error = Some(format!("LLM unavailable: {reason}"));
        }
        if let Some(read) = written.answer.focus.as_ref().filter(|_| written.answer.found).and_then(crate::answer::focus::read_by_meaning) {
            notes.push(read);
        }
        let synthesis_ms = ms_since(t);

        let parts = TraceParts {
            trace_id,
            timestamp,
            question,
            subs: &subs,
            plan: &plan,
            retrieval: &retrieval,
            evidence: &ev,
            graph_chunks: &graph_chunks,
            written: &written,
            notes: &notes,
            guard_notes: &guard_notes,
            llm_error,
            run: run.as_ref(),
            absence: &absence,
            latency: trace::Latency { rag: rag_ms, graph: graph_ms, synthesis: synthesis_ms, total: 0.0, llm_calls: 0.0 },
            started: t_total,
        };
        let record = record::trace_record(self, parts);
        let mut answer = written.answer;
        answer.text = record.final_answer.clone();
        Ok(AskResult { question: question.to_string(), corpus: self.corpus.clone(), answer, trace: record, retrieval })
    }

    /// Graph evidence for the question. The LLM writes a Cypher query when one is attached and
    /// generation is allowed; the store's schema (read once) is what the query is checked
    /// against. Without a store, the note says why.
    fn graph_evidence(&mut self, question: &str, q_vec: &[f32], run: Option<&mut LlmRun>, absence: &LlmAbsence, notes: &mut Vec<String>) -> GraphEvidence {
        let skip_reason = match &run {
            None => Some(match (&absence.off, &absence.failed) {
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
            self.graph_schema = Some(g.schema());
        }
        let skip_reason = match (&skip_reason, &self.graph_schema) {
            (None, Some(Err(e))) => Some(format!("the graph schema could not be read: {e}")),
            _ => skip_reason,
        };
        let policy = Policy {
            row_cap: self.settings.graph.row_cap as u64,
            extra_procedures: self.graph.as_ref().map(|g| g.extra_procedures().iter().map(|p| p.to_string()).collect()).unwrap_or_default(),
        };
        let ev = match self.graph.as_mut() {
            Some(g) => {
                let generation = match (skip_reason.is_none(), run, &self.graph_schema) {
                    (true, Some(r), Some(Ok(schema))) => Some(CypherGeneration { llm: r, schema, policy }),
                    _ => None,
                };
                evidence::gather_with(g.as_mut(), question, q_vec, &self.concepts, generation, skip_reason)
            }
            None => {
                notes.extend(self.graph_error.clone());
                GraphEvidence::default()
            }
        };
        if !ev.errors.is_empty() {
            notes.push(format!("some graph queries failed: {}", ev.errors.join("; ")));
        }
        ev
    }

    /// The selected passages and the graph's passages as candidates, written into an answer by
    /// the LLM writer when an LLM is attached, else by the extractive writer.
    fn write_answer(&self, question: &str, retrieval: &Retrieval, ev: &GraphEvidence, graph_chunks: &[Chunk], q_vec: &[f32], run: Option<&mut LlmRun>) -> Written {
        let hits = &retrieval.selected;
        let best = hits.iter().map(|h| h.similarity).fold(0.0f32, f32::max);
        let mut candidates: Vec<Candidate> =
            hits.iter().enumerate().map(|(rank, h)| Candidate { chunk: &self.chunks[h.row], score: h.similarity, from_graph: false, rank }).collect();
        for c in graph_chunks {
            if !candidates.iter().any(|x| x.chunk.id == c.id) {
                candidates.push(Candidate { chunk: c, score: (best * 0.8).min(0.5), from_graph: true, rank: hits.len() });
            }
        }
        let embedder = self.embedder.as_ref();
        let similarity = |texts: &[&str]| -> Option<Vec<f32>> {
            let v = embedder.embed(texts).ok()?;
            Some(v.iter().map(|s| qa_embed::dot(q_vec, s)).collect())
        };
        let embed_texts = |texts: &[&str]| -> Option<Vec<Vec<f32>>> { embedder.embed(texts).ok() };
        let stats = self.term_stats.get_or_init(|| crate::answer::focus::TermStats::build(&self.chunks));
        let evidence: Vec<&str> = candidates.iter().map(|c| c.chunk.content.as_str()).collect();
        let focus = crate::answer::focus::coverage(question, stats, &evidence);
        let mut input = SynthesisInput {
            question,
            candidates,
            focus: Some(focus),
            evidence_threshold: self.settings.evidence_threshold,
            graph: ev,
            best_score: best,
            relevance_threshold: self.settings.relevance_threshold,
            // A question of several parts gets room for each part's sentences.
            max_sentences: if retrieval.subqueries.len() > 1 { MULTI_PART_SENTENCES } else { SIMPLE_SENTENCES },
            images: &self.images,
            bridge_terms: &retrieval.bridge_terms,
            similarity: Some(&similarity),
            parts: retrieval.subqueries.get(1..).unwrap_or(&[]),
        };
        // Before saying the documents do not answer, read the words the passages lack by their
        // meaning: the asker's words are often not the corpus's. Only then, as it embeds words —
        // and not when the value asked for is missing: no reading of words supplies it.
        if input.focus.as_ref().is_some_and(|f| input.unanswered(f) && f.value_missing.is_none()) {
            let meaning = ModelWords { embedder, cache: &self.word_vectors };
            input.focus = Some(crate::answer::focus::coverage_with(question, stats, &evidence, Some(&meaning)));
        }
        match run {
            Some(r) => {
                let limits = LlmWriterLimits {
                    prompt_budget: self.settings.llm_prompt_tokens,
                    max_tokens: self.settings.llm_max_tokens,
                    grounding_threshold: self.settings.grounding_threshold as f32,
                    grounding_min_supported: self.settings.grounding_min_supported as f32,
                    llm_answerability: self.settings.llm_answerability.refusal("llm_answerability", r.llm().provider() == "local").is_none(),
                };
                LlmWriter::new(r, limits, &embed_texts).write(input)
            }
            None => ExtractiveWriter.write(input),
        }
    }
}

/// Words and their vectors from the embedding model, each word embedded once per engine.
struct ModelWords<'a> {
    embedder: &'a dyn qa_embed::Embedder,
    cache: &'a std::sync::Mutex<std::collections::HashMap<String, Vec<f32>>>,
}

impl crate::answer::focus::WordMeaning for ModelWords<'_> {
    fn is_common_word(&self, word: &str) -> bool {
        self.embedder.token_counter().is_vocabulary_word(word)
    }

    fn vectors(&self, words: &[&str]) -> Option<Vec<Vec<f32>>> {
        let mut cache = self.cache.lock().ok()?;
        let new: Vec<&str> = words.iter().copied().filter(|w| !cache.contains_key(*w)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        if !new.is_empty() {
            for (w, v) in new.iter().zip(self.embedder.embed(&new).ok()?) {
                cache.insert(w.to_string(), v);
            }
        }
        words.iter().map(|w| cache.get(*w).cloned()).collect()
    }
}

/// The plan's queries for the trace.
pub(super) fn plan_json(plan: &SubqueryPlan) -> serde_json::Value {
    serde_json::to_value(plan).unwrap_or_default()
}

/// Sentences of an extractive answer to a one-part question.
const SIMPLE_SENTENCES: usize = 4;
/// Sentences of an extractive answer to a question of several parts.
const MULTI_PART_SENTENCES: usize = 6;

/// A bridge as a graph fact: the entity, the passage that names it (with the sentence that does)
/// and the passage of its own document.
fn bridge_fact(b: &retrieve::Bridge, chunks: &[Chunk]) -> GraphFact {
    let from = chunks.iter().find(|c| c.id == b.from_chunk);
    let to_file = chunks.iter().find(|c| c.id == b.to_chunk).map(|c| c.source_file.as_str()).unwrap_or_default();
    let needle = b.entity.to_lowercase();
    let naming = from.and_then(|c| {
        qa_core::text::split_sentences(&c.content).into_iter().map(|(s, e)| c.content[s..e].trim()).find(|s| s.to_lowercase().contains(&needle) && s.len() <= 300)
    });
    let quoted = naming.map(|s| format!(" (\"{s}\")")).unwrap_or_default();
    GraphFact {
        kind: "bridge".into(),
        text: format!("\"{}\" links the two passages: {} names it{quoted}, and {to_file} is its own document.", b.entity, from.map(|c| c.source_file.as_str()).unwrap_or_default()),
        chunk_ids: vec![b.from_chunk.clone(), b.to_chunk.clone()],
        subjects: vec![],
    }
}
