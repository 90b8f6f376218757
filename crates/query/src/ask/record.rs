//! The trace record of a document question, built from what each stage produced.

use std::time::Instant;

use qa_core::chunk::Chunk;
use qa_core::trace::{ChunkRef, GraphInternal, Internal, Latency, LlmInternal, Models, RagHit, RagInternal, Route, Status, TraceChunk, TraceGraph, TraceRecord};
use qa_graph::evidence::GraphEvidence;
use qa_llm::LlmRun;

use super::question::{plan_json, LlmAbsence};
use super::{validation_json, Engine};
use crate::answer::writer::Written;
use crate::retrieve::{Retrieval, SubqueryPlan};

/// What the stages of one question produced, for its trace.
pub(super) struct TraceParts<'a, 'l> {
    pub(super) trace_id: String,
    pub(super) timestamp: String,
    pub(super) question: &'a str,
    pub(super) subs: &'a [String],
    pub(super) plan: &'a SubqueryPlan,
    pub(super) retrieval: &'a Retrieval,
    pub(super) evidence: &'a GraphEvidence,
    pub(super) graph_chunks: &'a [Chunk],
    pub(super) written: &'a Written,
    /// Notes the user sees that also count as the trace's `error`.
    pub(super) notes: &'a [String],
    /// Notes of the grounding guard (a withheld answer): shown, not errors.
    pub(super) guard_notes: &'a [String],
    pub(super) llm_error: Option<String>,
    pub(super) run: Option<&'a LlmRun<'l>>,
    pub(super) absence: &'a LlmAbsence,
    /// Stage latencies; `total` and `llm_calls` are filled here.
    pub(super) latency: Latency,
    pub(super) started: Instant,
}

/// The answer text with the notes appended (a row cap that cut a graph result is said, not
/// counted as an error).
fn final_answer(p: &TraceParts) -> String {
    let mut text = p.written.answer.text.clone();
    let all_notes: Vec<&String> = p.notes.iter().chain(p.guard_notes).chain(&p.evidence.notes).collect();
    if !all_notes.is_empty() {
        text.push_str(&format!("\n\nNote: {}", all_notes.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(" ")));
    }
    text
}

/// `internal.llm`: the attached LLM's calls, or why none took part.
fn llm_internal(p: &TraceParts) -> Option<LlmInternal> {
    match p.run {
        Some(r) => Some(LlmInternal {
            provider: Some(r.llm().provider().to_string()),
            model: Some(r.llm().model_id()),
            subqueries: plan_json(p.plan),
            calls: serde_json::to_value(&r.calls).unwrap_or_default(),
            prompt: serde_json::to_value(&p.written.prompt).unwrap_or_default(),
            synthesizer: Some(p.written.answer.synthesizer.clone()),
            ..Default::default()
        }),
        None => match (&p.absence.off, &p.absence.failed) {
            (_, Some(reason)) => Some(LlmInternal { provider: Some("failed".into()), reason: Some(reason.clone()), ..Default::default() }),
            (Some(reason), None) => Some(LlmInternal { provider: Some("none".into()), reason: Some(reason.clone()), ..Default::default() }),
            (None, None) => None,
        },
    }
}

fn rag_internal(engine: &Engine, p: &TraceParts) -> RagInternal {
    let hits = &p.retrieval.selected;
    let best_score = hits.iter().map(|h| h.similarity).fold(0.0f32, f32::max);
    RagInternal {
        corpus: engine.corpus.clone(),
        k: p.retrieval.k,
        k_reason: p.retrieval.k_reason.clone(),
        hits: hits
            .iter()
            .map(|h| RagHit { chunk_id: h.chunk_id.clone(), score: h.score, similarity: h.similarity, subquery: h.subquery, lanes: serde_json::to_value(&h.lanes).unwrap_or_default() })
            .collect(),
        lanes: engine.lanes_trace(p.retrieval),
        best_score,
        relevance_threshold: engine.settings.relevance_threshold,
        found: p.written.answer.found,
        focus: p.written.answer.focus.as_ref().map_or(serde_json::Value::Null, |f| {
            let three = |x: f32| (f64::from(x) * 1000.0).round() / 1000.0;
            serde_json::json!({ "evidence": three(crate::answer::evidence_score(best_score, f)), "threshold": three(engine.settings.evidence_threshold), "check": f })
        }),
        other: Default::default(),
    }
}

fn graph_internal(engine: &Engine, p: &TraceParts) -> GraphInternal {
    let ev = p.evidence;
    GraphInternal {
        backend: engine.graph.as_ref().map(|g| g.backend().to_string()),
        entities: serde_json::to_value(&ev.entities).unwrap_or_default(),
        cypher: serde_json::to_value(&ev.cypher).unwrap_or_default(),
        raw_rows: serde_json::to_value(&ev.raw_rows).unwrap_or_default(),
        queries: serde_json::to_value(&ev.queries).unwrap_or_default(),
        facts: serde_json::to_value(&ev.facts).unwrap_or_default(),
        images: serde_json::to_value(&ev.images).unwrap_or_default(),
        resolved_chunks: p.graph_chunks.iter().map(|c| ChunkRef { chunk_id: c.id.clone(), source_file: c.source_file.clone() }).collect(),
        errors: ev.errors.clone(),
        other: Default::default(),
    }
}

/// The trace record of the question.
pub(super) fn trace_record(engine: &Engine, p: TraceParts) -> TraceRecord {
    let ev = p.evidence;
    let retrieved_chunks: Vec<TraceChunk> = p
        .retrieval
        .selected
        .iter()
        .map(|h| {
            let c = &engine.chunks[h.row];
            TraceChunk {
                chunk_id: c.id.clone(),
                source_file: c.source_file.clone(),
                score: h.similarity,
                metadata: serde_json::to_value(&c.metadata).unwrap_or_default(),
                text: c.content.clone(),
            }
        })
        .collect();
    let error = match (&p.llm_error, p.notes.is_empty()) {
        (Some(e), _) => Some(e.clone()),
        (None, false) => Some(p.notes.join(" ")),
        (None, true) => None,
    };
    let latency = Latency {
        total: p.started.elapsed().as_secs_f64() * 1000.0,
        llm_calls: p.run.map(|r| r.latency_ms()).unwrap_or(0.0),
        ..p.latency.clone()
    };
    TraceRecord {
        trace_id: p.trace_id.clone(),
        timestamp: p.timestamp.clone(),
        user_question: p.question.to_string(),
        route: Route::Documents,
        // Nothing relevant was retrieved: the answer says so instead of answering.
        status: Some(if p.written.answer.found { Status::Answered } else { Status::Refused }),
        rewritten_or_decomposed_queries: p.subs.to_vec(),
        retrieved_chunks,
        retrieved_graph_subgraph: ev.subgraph.clone(),
        graph: TraceGraph {
            grounded_entities: ev.grounded.clone(),
            generated_cypher: ev.cypher.generated.clone(),
            validation: ev.cypher.report.as_ref().map(validation_json),
            sanitized_cypher: ev.cypher.report.as_ref().and_then(|r| r.sanitized.as_ref()).map(|s| s.cypher.clone()),
            fallback_used: ev.strategies.clone(),
        },
        final_answer: final_answer(&p),
        token_usage: p.run.and_then(|r| (!r.calls.is_empty()).then(|| r.usage())),
        latency_ms: latency,
        models: Models { embedding: engine.embedder.model_id().to_string(), llm: p.run.map(|r| r.llm().model_id()) },
        error,
        answer_grounding: p.written.grounding.as_ref().map(|g| serde_json::to_value(g).unwrap_or_default()),
        internal: Internal { rag: Some(rag_internal(engine, &p)), graph: Some(graph_internal(engine, &p)), llm: llm_internal(&p), sql: None, es: None },
        routing: None,
        conversation: None,
    }
}
