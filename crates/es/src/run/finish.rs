//! The ends of a run: execution with paging, the answer and trace of an answered or failed run,
//! a clarification with its checkpoint, and a pasted query.

use std::path::Path;

use serde_json::{Value, json};

use qa_core::trace::Status;

use super::{EsOptions, EsRun, Nodes, base_trace, metrics, page_of};
use crate::checkpoint::{self, Checkpoint};
use crate::plan::Choices;
use crate::reiterate::Reiteration;
use crate::answer::EsFailure;
use crate::{Ambiguity, CheckedRequest, EsAnswer, EsError, Intent, Mapping, SearchEngine};

/// What an execution returned.
pub(super) struct Executed {
    total: u64,
    hits: Vec<Value>,
    pub(super) aggregations: Option<Value>,
    page: Option<crate::Page>,
    /// The body that ran (for a page: with its `from`, or its sort and `search_after`).
    body: Value,
}

/// How a search's page is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Paging {
    /// As the body says (a pasted query runs as given).
    AsIs,
    /// At the options' offset (and cursor): `from`/`size`, or `search_after` past the window.
    Offset,
}

/// Run `req`; a search's page beyond the window is reached with `search_after` on a
/// tie-breaker sort ([`super::page`]).
pub(super) fn execute(engine: &dyn SearchEngine, mapping: &Mapping, req: &CheckedRequest, intent: Intent, paging: Paging, o: &EsOptions, nodes: &mut Nodes) -> Result<Executed, EsError> {
    let body = req.body();
    let size = body["size"].as_u64().unwrap_or(o.page_size as u64) as usize;
    let searching = intent == Intent::Search && size > 0;
    let (resp, page, ran) = if searching && paging == Paging::Offset {
        let at = super::page::PageAt { offset: o.offset, size, after: o.after.as_deref() };
        let p = super::page::fetch(engine, mapping, &o.limits, body, &at, nodes)?;
        (p.response, Some(p.page), p.body)
    } else {
        let resp = nodes.run(engine, req)?;
        let returned = resp["hits"]["hits"].as_array().map_or(0, Vec::len);
        let page = searching.then(|| page_of(body["from"].as_u64().unwrap_or(0) as usize, size, returned, super::page::total_of(&resp)));
        (resp, page, body.clone())
    };
    let total = super::page::total_of(&resp);
    let hits: Vec<Value> = resp["hits"]["hits"].as_array().map(|h| h.iter().map(|x| x["_source"].clone()).collect()).unwrap_or_default();
    let aggregations = resp.get("aggregations").cloned().filter(|a| !a.is_null());
    nodes.record("execute", json!({"total": total, "hits": hits.len(), "page": page}));
    Ok(Executed { total, hits, aggregations, page, body: ran })
}

/// The answer and trace of a run that executed (or failed with `Err(reasons)`).
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    engine: &dyn SearchEngine,
    question: &str,
    r: &Reiteration,
    es_query: Option<Value>,
    intent: Intent,
    summary: String,
    executed: Result<Executed, (EsFailure, Vec<String>)>,
    notes: &[String],
    o: &EsOptions,
    nodes: Nodes,
    trace_id: String,
) -> EsRun {
    let _ = o;
    let m = metrics(&nodes);
    let es_query = match &executed {
        Ok(x) => Some(x.body.clone()),
        Err(_) => es_query,
    };
    let (status, total, hits, aggregations, page, error, failure) = match executed {
        Ok(x) => (Status::Answered, Some(x.total), x.hits, x.aggregations, x.page, None, None),
        Err((kind, reasons)) => (Status::Error, None, vec![], None, None, Some(reasons.join("; ")), Some(kind)),
    };
    let final_answer = match (&error, total) {
        (Some(e), _) => format!("no answer: {e}"),
        (None, Some(t)) => format!("{t} matching document{}: {summary}", if t == 1 { "" } else { "s" }),
        _ => summary.clone(),
    };
    let outcome = json!({"status": if error.is_some() { "error" } else { "answered" }, "error": error, "total": total});
    let trace = base_trace(engine, question, &trace_id, if error.is_some() { Status::Error } else { Status::Answered }, &nodes, outcome, final_answer);
    let answer = EsAnswer {
        status,
        main_goal: r.main_goal.clone(),
        es_query,
        intent,
        query_summary: summary,
        needs_clarification: false,
        ambiguity: None,
        total,
        hits,
        aggregations,
        page,
        metrics: super::answer_metrics(&m),
        trace_id,
        notes: notes.to_vec(),
        error,
        failure,
        coverage: None,
    };
    EsRun { answer, trace, checkpoint: None }
}

/// Stop with a question: save the checkpoint, answer `needs_clarification`.
#[allow(clippy::too_many_arguments)]
pub(super) fn clarify(
    engine: &dyn SearchEngine,
    question: &str,
    r: &Reiteration,
    amb: Ambiguity,
    choices: &Choices,
    o: &EsOptions,
    data_dir: &Path,
    mut nodes: Nodes,
    trace_id: String,
    intent: Intent,
) -> Result<EsRun, EsError> {
    nodes.record("clarify", serde_json::to_value(&amb)?);
    let cp = Checkpoint {
        id: trace_id.clone(),
        created: chrono::Utc::now().to_rfc3339(),
        question: question.to_string(),
        // What `--es` takes to reopen it: the index name of an embedded index, else the URL.
        target: match engine.target() {
            t if t.starts_with("embedded:") => engine.index().to_string(),
            t => t,
        },
        choices: choices.clone(),
        ambiguity: amb.clone(),
        offset: o.offset,
    };
    let path = checkpoint::save(data_dir, &cp)?;
    let m = metrics(&nodes);
    let outcome = json!({"status": "needs_clarification", "ambiguity": amb, "checkpoint": trace_id});
    let trace = base_trace(engine, question, &trace_id, Status::NeedsClarification, &nodes, outcome, amb.message.clone());
    let summary = format!("nothing ran: {}", amb.message);
    let answer = EsAnswer {
        status: Status::NeedsClarification,
        main_goal: r.main_goal.clone(),
        es_query: None,
        intent,
        query_summary: summary,
        needs_clarification: true,
        ambiguity: Some(amb),
        total: None,
        hits: vec![],
        aggregations: None,
        page: None,
        metrics: super::answer_metrics(&m),
        trace_id,
        notes: vec![],
        error: None,
        failure: None,
        coverage: None,
    };
    Ok(EsRun { answer, trace, checkpoint: Some(path) })
}

/// A pasted query: the guard decides; refused means nothing is sent.
#[allow(clippy::too_many_arguments)]
pub(super) fn pasted_run(engine: &dyn SearchEngine, question: &str, r: &Reiteration, pasted: &str, mapping: &Mapping, o: &EsOptions, mut nodes: Nodes, trace_id: String) -> Result<EsRun, EsError> {
    let verdict = nodes.time("validate", || crate::guard::check_pasted(pasted, mapping, &o.limits));
    nodes.record("guard", serde_json::to_value(&verdict)?);
    let summary = "the pasted query, as given".to_string();
    let Some(req) = verdict.request() else {
        let mut reasons = verdict.reasons.clone();
        reasons.insert(0, "the pasted query was refused; nothing was sent".to_string());
        return Ok(finish(engine, question, r, verdict.body.clone(), Intent::Search, summary, Err((EsFailure::Refused, reasons)), &[], o, nodes, trace_id));
    };
    let intent = if req.body().get("aggs").or(req.body().get("aggregations")).is_some() { Intent::Aggregation } else { Intent::Search };
    let executed = execute(engine, mapping, &req, intent, Paging::AsIs, o, &mut nodes);
    let notes: Vec<String> = verdict.changes.iter().map(|c| format!("guard: {c}")).collect();
    Ok(finish(engine, question, r, Some(req.body().clone()), intent, summary, executed.map_err(|e| (EsFailure::of(&e), vec![e.to_string()])), &notes, o, nodes, trace_id))
}
