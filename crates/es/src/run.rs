//! The ES path end to end: reiterate → mapping lookup → plan (or the pasted query) →
//! clarification or guard → paged execution, with per-node latency, the answer object and the
//! trace (`route = "es"`, `internal.es`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use crate::answer::EsFailure;
use qa_core::trace::{EsInternal, LlmInternal, Route, SqlMetrics, Status, TraceRecord};
use qa_llm::LlmRun;

use crate::checkpoint;
use crate::generate::GenerateInput;
use crate::plan::Choices;
use crate::reiterate::{Reiteration, refine, rules};
use crate::semantic::Semantic;
use crate::{CheckedRequest, EsAnswer, EsError, EsLimits, Intent, Page, SearchEngine};

/// How a run behaves.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EsOptions {
    /// Caps of every request.
    pub limits: EsLimits,
    /// Hits per page.
    pub page_size: usize,
    /// First hit of the page.
    pub offset: usize,
    /// LLM candidates to ask for (when an LLM is attached).
    pub k: usize,
    /// Ask the LLM for candidates.
    pub use_llm: bool,
    /// Run the best guess instead of asking.
    pub force: bool,
    /// The semantic file.
    pub semantic: Option<PathBuf>,
    /// "Now" for relative dates (default: the clock).
    pub now: Option<chrono::DateTime<chrono::Utc>>,
    /// Top values sampled per field.
    pub sample_values: usize,
    /// The cursor of the page at `offset` (the previous page's `page.search_after`): fetches a
    /// page past the result window in one request instead of walking to it.
    #[serde(default)]
    pub after: Option<Vec<Value>>,
    /// Repairs of a refused LLM candidate (each sends the guard's reasons back).
    #[serde(default = "default_max_repairs")]
    pub max_repairs: usize,
    /// Let the LLM (when one is attached) restate the question in the reiterate node.
    #[serde(default)]
    pub reiterate_llm: bool,
}

fn default_max_repairs() -> usize {
    1
}

impl Default for EsOptions {
    fn default() -> Self {
        EsOptions {
            limits: EsLimits::default(),
            page_size: 20,
            offset: 0,
            k: 3,
            use_llm: true,
            force: false,
            semantic: None,
            now: None,
            sample_values: 50,
            after: None,
            max_repairs: default_max_repairs(),
            reiterate_llm: false,
        }
    }
}

/// A question for the ES path.
pub struct EsQuestion<'a> {
    /// As asked.
    pub question: &'a str,
    /// Options.
    pub options: EsOptions,
    /// Where checkpoints go.
    pub data_dir: &'a Path,
    /// Why no LLM is attached, for the trace.
    pub llm_skip: Option<&'a str>,
}

/// A finished run.
#[derive(Debug)]
pub struct EsRun {
    /// The answer object.
    pub answer: EsAnswer,
    /// The trace record (the caller appends it).
    pub trace: TraceRecord,
    /// The checkpoint saved when the run asks a question.
    pub checkpoint: Option<PathBuf>,
}

/// Per-node record of a run.
struct Nodes {
    started: Instant,
    latency: BTreeMap<String, f64>,
    state: serde_json::Map<String, Value>,
    executed: Vec<Value>,
}

impl Nodes {
    fn new() -> Self {
        Nodes { started: Instant::now(), latency: BTreeMap::new(), state: serde_json::Map::new(), executed: Vec::new() }
    }

    fn time<T>(&mut self, node: &str, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        *self.latency.entry(node.to_string()).or_default() += t.elapsed().as_secs_f64() * 1000.0;
        out
    }

    fn record(&mut self, node: &str, v: Value) {
        self.state.insert(node.to_string(), v);
    }

    fn run(&mut self, engine: &dyn SearchEngine, req: &CheckedRequest) -> Result<Value, EsError> {
        self.executed.push(json!({"endpoint": req.endpoint(), "body": req.body()}));
        self.time("execute", || engine.run(req))
    }
}

/// Answer `q` on `engine`; with `llm`, ES query candidates are also asked of it (k-best,
/// checked, ranked, repaired: [`crate::generate`]).
pub fn answer(engine: &dyn SearchEngine, mut llm: Option<&mut LlmRun>, q: EsQuestion) -> Result<EsRun, EsError> {
    let mut out = run(engine, llm.as_deref_mut(), q.question, &q.options, q.data_dir, &Choices::new(), q.llm_skip)?;
    attach_llm(&mut out, llm.as_deref(), q.llm_skip);
    Ok(out)
}

/// Continue the run saved as checkpoint `id` with the user's `reply` to its question.
pub fn resume(engine: &dyn SearchEngine, mut llm: Option<&mut LlmRun>, data_dir: &Path, id: &str, reply: &str, options: EsOptions) -> Result<EsRun, EsError> {
    let cp = checkpoint::load(data_dir, id)?;
    let Some(choice) = checkpoint::pick(reply, &cp.ambiguity.alternatives) else {
        return Err(EsError::Checkpoint(format!("\"{reply}\" matches none of: {} (answer with a number or a name)", cp.ambiguity.alternatives.join(", "))));
    };
    let mut choices = cp.choices.clone();
    choices.insert(cp.ambiguity.field.clone(), choice);
    let options = EsOptions { offset: cp.offset, ..options };
    let mut out = run(engine, llm.as_deref_mut(), &cp.question, &options, data_dir, &choices, None)?;
    attach_llm(&mut out, llm.as_deref(), None);
    checkpoint::remove(data_dir, &cp.id);
    Ok(out)
}

/// The LLM's part of the trace and the answer's metrics: provider, model, every call, tokens; or
/// why there was no LLM.
fn attach_llm(out: &mut EsRun, llm: Option<&LlmRun>, skip: Option<&str>) {
    let t = &mut out.trace;
    t.latency_ms.llm_calls = llm.map_or(0.0, LlmRun::latency_ms);
    t.models.llm = llm.map(|l| l.llm().model_id());
    t.token_usage = llm.map(LlmRun::usage).filter(|u| u.total > 0);
    t.internal.llm = Some(match llm {
        Some(l) => LlmInternal { provider: Some(l.llm().provider().to_string()), model: Some(l.llm().model_id()), calls: serde_json::to_value(&l.calls).unwrap_or_default(), ..Default::default() },
        None => LlmInternal { provider: None, skipped: skip.map(str::to_string), ..Default::default() },
    });
    if let Some(es) = &mut t.internal.es {
        es.metrics.tokens = t.token_usage;
        es.metrics.model.clone_from(&t.models.llm);
    }
    out.answer.metrics.tokens = t.token_usage;
    out.answer.metrics.model.clone_from(&t.models.llm);
}

/// The reiterate node: the rules, refined by the LLM when one is attached and allowed
/// (`reiterate_llm`); what the LLM did (used, or why the rules stand) is in the node's state.
fn reiterate_node(llm: Option<&mut LlmRun>, question: &str, o: &EsOptions) -> crate::reiterate::Refined {
    let by_rules = rules(question);
    match llm.filter(|_| o.reiterate_llm) {
        Some(llm) => refine(llm, question, &[], by_rules),
        None => crate::reiterate::Refined { reiteration: by_rules, llm_error: None },
    }
}

fn run(engine: &dyn SearchEngine, mut llm: Option<&mut LlmRun>, question: &str, o: &EsOptions, data_dir: &Path, choices: &Choices, llm_skip: Option<&str>) -> Result<EsRun, EsError> {
    let mut nodes = Nodes::new();
    let trace_id = qa_core::trace::new_trace_id(question);
    let r = nodes.time("reiterate", || reiterate_node(llm.as_deref_mut(), question, o));
    nodes.record("reiterate", serde_json::to_value(&r)?);
    let r = r.reiteration;
    let force = o.force || r.force_execute;
    let mapping = nodes.time("mapping", || engine.mapping())?;
    if let Some(pasted) = &r.user_query_text {
        return pasted_run(engine, question, &r, pasted, &mapping, o, nodes, trace_id);
    }
    let semantic = match &o.semantic {
        Some(p) => Semantic::load(p)?,
        None => Semantic::default(),
    };
    let (meta, sample_body) = nodes.time("mapping_lookup", || crate::lookup::sample(engine, &mapping, &o.limits, o.sample_values))?;
    nodes.executed.push(json!({"endpoint": "_search", "body": sample_body, "purpose": "sampling"}));
    let today = o.now.unwrap_or_else(chrono::Utc::now).date_naive();
    nodes.record("mapping_lookup", json!({"metadata_results": {"fields_sampled": meta.values.len(), "ranges": meta.ranges}}));
    let input = crate::plan::PlanInput { mapping: &mapping, meta: &meta, semantic: &semantic, choices, force, today, sample_size: o.sample_values, max_buckets: o.limits.max_buckets };
    let mut lookup = crate::lookup::IndexLookup { engine, mapping: &mapping, meta: &meta, limits: &o.limits, sample_size: o.sample_values, budget: 12, executed: Vec::new() };
    let planned = nodes.time("generate", || crate::plan::build(&r.main_goal, &input, Some(&mut lookup)));
    nodes.executed.append(&mut lookup.executed);
    let plan = match planned {
        Ok(p) => {
            nodes.record("mapping_lookup", json!({"analysis_result": p.reading, "metadata_results": {"fields_sampled": meta.values.len(), "ranges": meta.ranges}}));
            p.plan
        }
        Err((amb, reading, intent)) => {
            nodes.record("mapping_lookup", json!({"analysis_result": reading, "metadata_results": {"fields_sampled": meta.values.len(), "ranges": meta.ranges}}));
            return clarify(engine, question, &r, amb, choices, o, data_dir, nodes, trace_id, intent);
        }
    };
    let input = GenerateInput {
        question: &r.main_goal,
        mapping: &mapping,
        meta: &meta,
        sample_size: o.sample_values,
        plan: &plan,
        limits: &o.limits,
        page_size: o.page_size,
        k: o.k,
        max_repairs: o.max_repairs,
    };
    let generated = generate_step(&mut nodes, llm.filter(|_| o.use_llm), &input, llm_skip)?;
    let best = generated.best();
    // The plan's own words for its query; an LLM body is described from what it asks.
    let (intent, summary) = if best.source == "deterministic" { (plan.intent, plan.summary()) } else { (best.intent, crate::generate::rank::describe(&best.body)) };
    let mut notes = plan.notes.clone();
    notes.extend(generated.notes.iter().cloned());
    let Some(req) = generated.verdict.request() else {
        let reasons = generated.verdict.reasons.clone();
        return Ok(finish(engine, question, &r, Some(best.body.clone()), intent, summary, Err((EsFailure::Refused, reasons)), &notes, o, nodes, trace_id));
    };
    let mut executed = execute(engine, &mapping, &req, intent, Paging::Offset, o, &mut nodes);
    if let Ok(ex) = &executed
        && let Some(note) = ties::tie_note(engine, &mapping, &o.limits, req.body(), ex.aggregations.as_ref(), &mut nodes)
    {
        notes.push(note);
    }
    // People in two name fields: the ranking or the count is read off the returned pairs.
    if best.source == "deterministic"
        && let Ok(ex) = executed.as_mut()
        && let Some(aggs) = ex.aggregations.as_mut()
        && let Some(note) = plan.settle_pairs(aggs)
    {
        notes.push(note);
    }
    let mut out = finish(engine, question, &r, Some(req.body().clone()), intent, summary, executed.map_err(|e| (EsFailure::of(&e), vec![e.to_string()])), &notes, o, nodes, trace_id);
    out.answer.coverage = Some(plan.coverage.clone());
    // "The 5 deepest": the page is the whole answer.
    if plan.size.is_some() && best.source == "deterministic"
        && let Some(p) = out.answer.page.as_mut()
    {
        p.next_offset = None;
        p.search_after = None;
    }
    Ok(out)
}

/// Candidates for the plan (rendered at the first page: execution places the page), judged by
/// the guard and ranked; the `generate` and `guard` nodes record them. Validation time is
/// reported under `validate`, the rest (LLM calls included) under `generate`.
fn generate_step(nodes: &mut Nodes, llm: Option<&mut LlmRun>, input: &GenerateInput, llm_skip: Option<&str>) -> Result<crate::generate::Generated, EsError> {
    let (_, draft) = input.plan.render(0, input.page_size);
    let asked = llm.is_some();
    let calls_before = llm.as_ref().map_or(0, |l| l.calls.len());
    let mut calls = 0;
    let generated = nodes.time("generate", || {
        let mut llm = llm;
        let g = crate::generate::generate(llm.as_deref_mut(), input, &draft);
        calls = llm.map_or(0, |l| l.calls.len() - calls_before);
        g
    });
    let guard_ms = generated.guard_ms;
    if let Some(g) = nodes.latency.get_mut("generate") {
        *g = (*g - guard_ms).max(0.0);
    }
    *nodes.latency.entry("validate".into()).or_default() += guard_ms;
    let chosen = generated.candidates.iter().position(|c| c.chosen);
    let llm_state = if asked { json!({"calls": calls}) } else { json!({"skipped": llm_skip}) };
    nodes.record("generate", json!({"plan": input.plan, "candidates": generated.candidates, "chosen": chosen, "llm": llm_state}));
    nodes.record("guard", serde_json::to_value(&generated.verdict)?);
    Ok(generated)
}

mod finish;
pub mod page;
mod ties;
use finish::{Paging, clarify, execute, finish, pasted_run};

/// Re-run a stored request body (a session's artifact) at another page (`options.offset`, and
/// `options.after` when the caller kept the page's cursor): checked by the guard like any
/// query; pages past the result window are walked with `search_after`.
pub fn run_query(engine: &dyn SearchEngine, question: &str, body: &Value, options: &EsOptions) -> Result<EsRun, EsError> {
    let mut nodes = Nodes::new();
    let trace_id = qa_core::trace::new_trace_id(question);
    let mapping = engine.mapping()?;
    let mut body = body.clone();
    if let Some(o) = body.as_object_mut() {
        o.remove("from");
        o.remove("search_after");
    }
    let intent = if body.get("aggs").or(body.get("aggregations")).is_some() { Intent::Aggregation } else { Intent::Search };
    if intent == Intent::Search {
        body["size"] = json!(options.page_size);
    }
    let req = crate::guard::checked(&body, crate::Endpoint::Search, &mapping, &options.limits)?;
    let r = Reiteration { main_goal: question.to_string(), reasoning: "the next page of an earlier query".into(), ..rules("") };
    let executed = execute(engine, &mapping, &req, intent, Paging::Offset, options, &mut nodes);
    Ok(finish(engine, question, &r, Some(req.body().clone()), intent, "the next page of the earlier query".into(), executed.map_err(|e| (EsFailure::of(&e), vec![e.to_string()])), &[], options, nodes, trace_id))
}

fn answer_metrics(m: &SqlMetrics) -> crate::answer::EsMetrics {
    crate::answer::EsMetrics { latency_ms: m.latency_ms.clone(), total_ms: m.total_ms, tokens: m.tokens, model: m.model.clone() }
}

fn metrics(nodes: &Nodes) -> SqlMetrics {
    SqlMetrics { latency_ms: nodes.latency.clone(), total_ms: nodes.started.elapsed().as_secs_f64() * 1000.0, tokens: None, model: None }
}

fn base_trace(engine: &dyn SearchEngine, question: &str, trace_id: &str, status: Status, nodes: &Nodes, outcome: Value, final_answer: String) -> TraceRecord {
    let m = metrics(nodes);
    let mut t = TraceRecord {
        trace_id: trace_id.to_string(),
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        user_question: question.to_string(),
        route: Route::Es,
        status: Some(status),
        final_answer,
        ..Default::default()
    };
    t.latency_ms.total = m.total_ms;
    t.internal.es = Some(EsInternal {
        target: engine.target(),
        outcome,
        nodes: Value::Object(nodes.state.clone()),
        executed: Value::Array(nodes.executed.clone()),
        metrics: m,
        other: Default::default(),
    });
    t
}

/// An answer's page: where it starts, its size, where the next one starts.
fn page_of(offset: usize, size: usize, returned: usize, total: u64) -> Page {
    let next = offset + returned;
    Page { offset, size, next_offset: ((next as u64) < total && returned > 0).then_some(next), search_after: None }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rentals;
#[cfg(test)]
mod tests_couriers;
#[cfg(test)]
mod tests_stays;
#[cfg(test)]
mod tests_rides;
