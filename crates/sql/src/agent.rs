//! The SQL agent: a small state machine over [`AgentState`].
//!
//! ```text
//! schema ─► plan ─┬─► (ambiguous) clarify: checkpoint, ask, stop
//!                 └─► generate ─► validate ⇄ diagnose (≤ max_loops) ─► execute ─► present
//! ```
//! Every stage returns an update merged by the state contract ([`super::state`]). Nothing
//! reaches the database without passing [`execute_checked`], which validates the text again
//! (one read-only statement over known tables, LIMIT ≤ row cap) immediately before running
//! it: the probes go through it too, so the invariant "no SQL runs unless validated" holds
//! for every statement, not just the final one.

use std::collections::{BTreeMap, VecDeque};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::db::SqlDatabase;
use super::generate::{self, Candidate, GeneratedSql, SqlPrompt};
use super::plan::{self, Ambiguity, Clarification, Coverage, Plan, PlanOutcome, CONFIDENCE_THRESHOLD};
use super::schema::{SchemaContext, SemanticSchema};
use super::state::{update, AgentState, StateError};
use super::validate::{self, LiteralFilter, ReasonKind};
use super::{Dialect, ExecLimits, QueryResult, SqlError};
use qa_llm::{LlmRun, Prompt};

/// Compared values checked for existence per candidate.
const MAX_VALUE_CHECKS: usize = 6;

/// How the agent runs: candidates, loop bound, limits and schema inputs. Saved in a checkpoint,
/// so a resumed run uses the same options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentOptions {
    /// LLM candidates to ask for (the deterministic candidate comes on top).
    pub k: usize,
    /// Validate/diagnose iterations before giving up.
    pub max_loops: u64,
    /// Row cap and statement timeout for every statement, probes included.
    pub limits: ExecLimits,
    /// The semantic schema file (see [`SemanticSchema`]), if any.
    pub semantic_schema: Option<PathBuf>,
    /// Distinct sample values kept per low-cardinality text column.
    pub sample_values: usize,
    /// Ask the LLM for candidates (when one is attached).
    pub use_llm: bool,
    /// Run a plan whose confidence is below the threshold (with a warning) instead of asking.
    #[serde(default)]
    pub force: bool,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions { k: 3, max_loops: 4, limits: ExecLimits::default(), semantic_schema: None, sample_values: 8, use_llm: true, force: false }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// A validated statement ran; its rows are in [`RunResult::result`].
    Answered,
    /// Stopped with a question for the user; resume with the answer.
    NeedsClarification {
        /// The clarifying question, with numbered options when there are some.
        question: String,
    },
    /// No answer.
    Failed {
        /// Why, for the user.
        error: String,
        /// What the user could try instead.
        suggestions: Vec<String>,
    },
}

/// Timings of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Metrics {
    /// Milliseconds per stage (summed when a stage runs more than once).
    pub latency_ms: BTreeMap<String, f64>,
    /// Milliseconds for the whole run.
    pub total_ms: f64,
}

/// What [`Agent::run`] returns.
pub struct RunResult {
    /// The final state (every stage's keys; see [`super::state`]).
    pub state: AgentState,
    /// How the run ended.
    pub outcome: Outcome,
    /// The rows, when the run answered.
    pub result: Option<QueryResult>,
    /// Every statement sent to the database, in order (probes included), after validation.
    pub(crate) executed: Vec<String>,
    /// Run timings.
    pub metrics: Metrics,
}

impl Outcome {
    /// The route-independent status of the outcome.
    pub fn status(&self) -> qa_core::trace::Status {
        match self {
            Outcome::Answered => qa_core::trace::Status::Answered,
            Outcome::NeedsClarification { .. } => qa_core::trace::Status::NeedsClarification,
            Outcome::Failed { .. } => qa_core::trace::Status::Error,
        }
    }
}

/// Typed reads of the final state, so callers never look keys up by name.
impl RunResult {
    /// The statement that ran (or would have run), as the validator passed it.
    pub fn sql(&self) -> Option<&str> {
        self.state.str("sql")
    }

    /// The statement, only when the validator accepted it.
    pub fn validated_sql(&self) -> Option<&str> {
        self.sql().filter(|_| self.state.bool("validation_ok"))
    }

    /// The validator refused the last statement.
    pub fn refused_by_validator(&self) -> bool {
        self.state.get("validation_ok") == Some(&Value::Bool(false))
    }

    /// Warnings for the user (a best guess run, a tie, a dropped filter).
    pub fn warnings(&self) -> Vec<&str> {
        self.state.list("warnings").iter().filter_map(Value::as_str).collect()
    }

    /// The question's words no part of the statement used.
    pub fn unmapped(&self) -> Vec<&str> {
        self.state.get("coverage").and_then(|c| c["unmapped"].as_array()).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
    }

    /// The Vega-Lite spec of an aggregate over categories or time.
    pub fn viz_spec(&self) -> Option<&Value> {
        self.state.get("viz_spec")
    }
}

/// Where a resumed run starts from.
pub struct Resume {
    /// The state saved in the checkpoint.
    pub state: AgentState,
    /// The user's answer to the clarifying question.
    pub answer: String,
}

/// The SQL agent over one database, with an optional LLM for candidates. One agent runs one
/// question ([`Agent::run`] consumes it).
pub struct Agent<'a, 'l> {
    db: &'a mut dyn SqlDatabase,
    llm: Option<&'a mut LlmRun<'l>>,
    opts: AgentOptions,
    state: AgentState,
    executed: Vec<String>,
    metrics: Metrics,
    /// A schema the caller already read (the router), so it is not introspected twice.
    preloaded_schema: Option<super::DbSchema>,
}

/// Most value look-ups (one capped query each) a question may cost the database.
const LOOKUP_BUDGET: usize = 60;

/// A stage's result: its value for the next stage, or the run's outcome (stop here).
type Step<T> = Result<ControlFlow<Outcome, T>, RunError>;

/// The value of a stage that continues; a stage that stops returns its outcome from the caller.
macro_rules! proceed {
    ($step:expr) => {
        match $step? {
            ControlFlow::Continue(value) => value,
            ControlFlow::Break(outcome) => return Ok(outcome),
        }
    };
}

/// What the plan stage hands on to generation.
struct Planned {
    /// The question with the answers that name no option appended (they are more of it).
    question: String,
    plan: Option<Plan>,
    coverage: Coverage,
    confidence: f64,
    /// The plan is usable, but its confidence is below [`CONFIDENCE_THRESHOLD`].
    low: bool,
    /// Run even below the threshold: `force`, or the user chose to proceed.
    forced: bool,
}

/// The validate loop's bookkeeping across candidates.
#[derive(Default)]
struct Attempts {
    /// Candidates still to try, `(source, sql)`, in order.
    queue: VecDeque<(String, String)>,
    /// Every statement tried so far: none is tried twice.
    tried: Vec<String>,
    /// Hints for the user, from the value checks.
    suggestions: Vec<String>,
    /// Why the last rejected candidate failed the validator or EXPLAIN.
    last_reasons: Vec<String>,
}

/// What the existence check of a compared text value found.
enum ValueCheck {
    /// The value exists (or its count could not be taken).
    Present,
    /// Only in another letter case.
    Casing,
    /// Not at all.
    Missing,
}

/// Why a run stopped without an outcome of its own (reported as `Outcome::Failed`).
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Sql(#[from] SqlError),
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl<'a, 'l> Agent<'a, 'l> {
    /// An agent over `db`, asking `llm` (when given and `opts.use_llm`) for candidates.
    pub fn new(db: &'a mut dyn SqlDatabase, llm: Option<&'a mut LlmRun<'l>>, opts: AgentOptions) -> Self {
        Agent { db, llm, opts, state: AgentState::default(), executed: Vec::new(), metrics: Metrics::default(), preloaded_schema: None }
    }

    /// Use `schema` (read from this database with `opts.sample_values` samples) instead of
    /// introspecting again.
    pub fn with_schema(mut self, schema: super::DbSchema) -> Self {
        self.preloaded_schema = Some(schema);
        self
    }

    fn apply(&mut self, stage: &str, upd: serde_json::Map<String, Value>, started: Instant) -> Result<(), StateError> {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        *self.metrics.latency_ms.entry(stage.to_string()).or_default() += ms;
        self.state.apply(stage, upd, ms)
    }

    /// Run the question (or resume a checkpointed run with the user's answer).
    pub fn run(mut self, question: &str, resume: Option<Resume>) -> RunResult {
        let t0 = Instant::now();
        let mut result = None;
        let outcome = match self.run_inner(question, resume, &mut result) {
            Ok(o) => o,
            Err(e) => Outcome::Failed { error: e.to_string(), suggestions: Vec::new() },
        };
        if let Outcome::Failed { error, .. } = &outcome {
            let _ = self.state.apply("any", update([("error", json!(error))]), 0.0);
        }
        self.metrics.total_ms = t0.elapsed().as_secs_f64() * 1000.0;
        RunResult { state: self.state, outcome, result, executed: self.executed, metrics: self.metrics }
    }

    fn run_inner(&mut self, question: &str, resume: Option<Resume>, result: &mut Option<QueryResult>) -> Result<Outcome, RunError> {
        self.record_input(question, resume)?;
        // 1. Schema context.
        let ctx = proceed!(self.schema_stage());
        // 2. Interpret & plan.
        let planned = proceed!(self.plan_stage(&ctx, question));
        // 3. Generate k-best.
        let candidates = proceed!(self.generate_stage(&ctx, question, &planned));
        // 4. Validate & diagnose.
        proceed!(self.validate_loop(&ctx, planned.plan.as_ref(), candidates));
        // 5. Safe execute.
        let res = proceed!(self.execute_stage(&ctx));
        // An empty list from a plan of several conditions: ask before answering "none".
        if !planned.forced
            && res.rows.is_empty()
            && let Some(p) = planned.plan.as_ref().filter(|p| !p.aggregates() && p.filters.len() + p.having.len() >= 2 && p.set_op.is_none())
        {
            let (amb, text) = plan::empty_result_question(p, self.state.str("sql").unwrap_or_default());
            self.apply("execute", update([("ambiguity", json!(amb)), ("clarifying_question", json!(text))]), Instant::now())?;
            return Ok(Outcome::NeedsClarification { question: text });
        }
        // 6. Present.
        let t = Instant::now();
        let viz = super::present::viz_spec(&res, question);
        self.apply("present", update([("viz_spec", json!(viz))]), t)?;
        *result = Some(res);
        Ok(Outcome::Answered)
    }

    /// Record the question, the engine and the clarifications: on a resumed run, the earlier
    /// answers and this one, resolved against the pending ambiguity.
    fn record_input(&mut self, question: &str, resume: Option<Resume>) -> Result<(), RunError> {
        let t = Instant::now();
        let dialect = self.db.dialect();
        let clarifications = match resume {
            Some(r) => {
                let amb: Option<Ambiguity> = r.state.typed("ambiguity");
                let mut all: Vec<Value> = r.state.list("clarifications").to_vec();
                let phrase = amb.as_ref().map(|a| a.phrase.clone()).unwrap_or_default();
                let choice = amb.as_ref().and_then(|a| plan::resolve_answer(a, &r.answer));
                let c = Clarification { phrase, answer: r.answer.clone(), choice };
                all.push(serde_json::to_value(&c)?);
                Value::Array(all)
            }
            None => json!([]),
        };
        self.apply("input", update([("question", json!(question)), ("dialect", json!(dialect)), ("database", json!(self.db.describe())), ("clarifications", clarifications)]), t)?;
        Ok(())
    }

    /// The schema context: the database's tables (introspected unless preloaded) with the
    /// semantic schema, if one is configured. Stops when there is no table to query.
    fn schema_stage(&mut self) -> Step<SchemaContext> {
        let t = Instant::now();
        let db_schema = match self.preloaded_schema.take() {
            Some(s) => s,
            None => self.db.introspect(self.opts.sample_values)?,
        };
        if db_schema.tables.is_empty() {
            return Ok(ControlFlow::Break(Outcome::Failed { error: format!("{} has no tables to query", self.db.describe()), suggestions: vec![] }));
        }
        let semantic = match &self.opts.semantic_schema {
            Some(p) => Some(SemanticSchema::load(p)?),
            None => None,
        };
        let ctx = SchemaContext::build(db_schema, semantic).with_database_name(&self.db.describe());
        for w in &ctx.warnings {
            tracing::warn!("{w}");
        }
        self.apply("schema", update([("db_schema", json!(ctx.db)), ("semantic_schema", json!(ctx.semantic)), ("schema_context", json!(ctx.render()))]), t)?;
        Ok(ControlFlow::Continue(ctx))
    }

    /// Interpret the question and plan a query. Stops with a clarifying question when the
    /// question is ambiguous, or when the plan's confidence is low and neither forcing nor an
    /// LLM may make up for it.
    fn plan_stage(&mut self, ctx: &SchemaContext, question: &str) -> Step<Planned> {
        let t = Instant::now();
        let clarifications: Vec<Clarification> = self.state.list("clarifications").iter().filter_map(|v| serde_json::from_value(v.clone()).ok()).collect();
        let mut q = question.to_string();
        for c in clarifications.iter().filter(|c| c.choice.is_none()) {
            // An answer that names no option is more of the question.
            q.push(' ');
            q.push_str(&c.answer);
        }
        let mut lookup = super::plan::source::DbLookup { db: &mut *self.db, ctx, limits: self.opts.limits, budget: LOOKUP_BUDGET };
        let PlanOutcome { intent, plan, confidence, coverage, fixes, ambiguity, clarifying_question } = plan::plan(ctx, &q, &clarifications, Some(&mut lookup));
        let plan_ok = plan.is_some() && ambiguity.is_none();
        let forced = self.opts.force || clarifications.iter().any(Clarification::proceeds);
        let low = plan_ok && confidence < CONFIDENCE_THRESHOLD;
        let llm_may_help = self.opts.use_llm && self.opts.k > 0 && self.llm.is_some();
        // Below the threshold, ask — unless forced, or an LLM may write a statement that covers
        // more of the question (judged after generation by the same accounting).
        let (ambiguity, clarifying_question) = match (&plan, low && !forced && !llm_may_help) {
            (Some(p), true) => {
                let (a, text) = plan::coverage_question(p, &coverage, confidence);
                (Some(a), Some(text))
            }
            _ => (ambiguity, clarifying_question),
        };
        let mut warnings: Vec<String> = Vec::new();
        if low && forced {
            let not_used = if coverage.unmapped.is_empty() { String::new() } else { format!("; not used: {}", coverage.unmapped.join(", ")) };
            warnings.push(format!("answered below the confidence threshold ({confidence:.2} < {CONFIDENCE_THRESHOLD}){not_used}"));
        }
        self.apply(
            "plan",
            update([
                ("intent_json", intent),
                ("plan", json!(plan)),
                ("plan_ok", json!(plan_ok)),
                ("plan_confidence", json!(confidence)),
                ("coverage", json!(coverage)),
                ("plan_fixes", json!(fixes)),
                ("ambiguity", json!(ambiguity)),
                ("clarifying_question", json!(clarifying_question)),
                ("warnings", json!(warnings)),
            ]),
            t,
        )?;
        if let (Some(q), Some(_)) = (&clarifying_question, &ambiguity) {
            return Ok(ControlFlow::Break(Outcome::NeedsClarification { question: q.clone() }));
        }
        Ok(ControlFlow::Continue(Planned { question: q, plan, coverage, confidence, low, forced }))
    }

    /// The candidates to validate, best first: the plan's statement and the LLM's, ranked.
    /// Candidates that cover too little of the question are dropped (unless forced); when none
    /// is left, stops with the question the plan would have asked.
    fn generate_stage(&mut self, ctx: &SchemaContext, question: &str, planned: &Planned) -> Step<Vec<Candidate>> {
        let t = Instant::now();
        let dialect = self.db.dialect();
        let Planned { plan, coverage, confidence, low, forced, .. } = planned;
        let mut raw: Vec<(String, String)> = Vec::new();
        let mut attempts = 0u64;
        if let Some(p) = plan {
            raw.push(("plan".into(), generate::render(ctx, p, dialect, self.opts.limits.row_cap)));
            attempts += 1;
        }
        let hint = raw.first().map(|(_, s)| s.clone());
        attempts += self.llm_candidates(ctx, question, hint.as_deref(), &mut raw);
        let candidates = generate::rank(raw, ctx, plan.as_ref(), &planned.question, dialect, self.opts.limits.row_cap, Some((coverage, *confidence)));
        if candidates.is_empty() {
            return Ok(ControlFlow::Break(Outcome::Failed {
                error: "no SQL could be written for this question".into(),
                suggestions: vec!["name a table or a value from the database (see `qa sql schema`)".into()],
            }));
        }
        let few: Vec<String> = generate::few_shots(dialect).into_iter().map(|(q, _)| q).collect();
        let mut upd = update([("few_shots", json!(few)), ("sql_candidates", json!(candidates)), ("sql", json!(candidates[0].sql)), ("gen_attempts", json!(attempts))]);
        // Candidates that cover too little of the question are not run (unless forced); when
        // none is left, ask as the plan would have.
        let candidates: Vec<Candidate> = if *forced { candidates } else { candidates.into_iter().filter(|c| !c.valid || c.confidence >= CONFIDENCE_THRESHOLD).collect() };
        let ask = match plan {
            Some(p) if *low && !*forced && !candidates.iter().any(|c| c.valid) => Some(plan::coverage_question(p, coverage, *confidence)),
            _ => None,
        };
        if let Some((a, text)) = &ask {
            upd.insert("ambiguity".into(), json!(a));
            upd.insert("clarifying_question".into(), json!(text));
        } else if let Some(best) = candidates.iter().find(|c| c.valid && c.source != "plan").filter(|_| candidates.first().is_some_and(|c| c.source != "plan")) {
            // The statement that will run is the LLM's: its coverage is the confidence.
            upd.insert("plan_confidence".into(), json!(best.confidence));
        }
        self.apply("generate", upd, t)?;
        if let Some((_, text)) = ask {
            return Ok(ControlFlow::Break(Outcome::NeedsClarification { question: text }));
        }
        Ok(ControlFlow::Continue(candidates))
    }

    /// Ask the LLM (when one is attached and allowed) for up to k candidates, adding each new
    /// statement to `raw` as `llm#N`; stops early once the LLM is down. Returns the number of
    /// requests made.
    fn llm_candidates(&mut self, ctx: &SchemaContext, question: &str, hint: Option<&str>, raw: &mut Vec<(String, String)>) -> u64 {
        let (dialect, row_cap) = (self.db.dialect(), self.opts.limits.row_cap);
        if !self.opts.use_llm {
            return 0;
        }
        let Some(llm) = self.llm.as_deref_mut() else { return 0 };
        let mut attempts = 0;
        for n in 0..self.opts.k {
            let prompt = SqlPrompt { ctx, question, plan_hint: hint, dialect, row_cap, n };
            attempts += 1;
            match llm.call(&prompt.request()) {
                Ok(resp) => match prompt.parse(&resp.text) {
                    Ok(GeneratedSql(sql)) => {
                        llm.set_outcome("candidate");
                        if !raw.iter().any(|(_, s)| s == &sql) {
                            raw.push((format!("llm#{}", n + 1), sql));
                        }
                    }
                    Err(e) => llm.set_outcome(format!("no sql: {e}")),
                },
                Err(e) => {
                    tracing::warn!("SQL generation by the LLM failed: {e}");
                    if llm.down.is_some() {
                        break;
                    }
                }
            }
        }
        attempts
    }

    /// Try candidates in rank order; repair what can be repaired (casing, join keys); stop at
    /// the first that validates and passes its probes, or after `max_loops` iterations.
    fn validate_loop(&mut self, ctx: &SchemaContext, plan: Option<&Plan>, candidates: Vec<Candidate>) -> Step<()> {
        let mut tries = Attempts { queue: candidates.into_iter().map(|c| (c.source, c.sql)).collect(), ..Attempts::default() };
        while let Some((source, sql)) = tries.queue.pop_front() {
            if self.state.count("loop_count") >= self.opts.max_loops {
                break;
            }
            if tries.tried.contains(&sql) {
                continue;
            }
            tries.tried.push(sql.clone());
            if self.check_candidate(ctx, plan, &source, &sql, &mut tries)? {
                return Ok(ControlFlow::Continue(()));
            }
        }
        self.give_up(ctx, plan, tries)
    }

    /// One iteration of the loop: validate `sql`, check its join keys, EXPLAIN it and probe its
    /// values. True when it passed (recorded as the statement to run); false when it was
    /// rejected (recorded with the reason, and a repaired statement queued when there is one).
    fn check_candidate(&mut self, ctx: &SchemaContext, plan: Option<&Plan>, source: &str, sql: &str, tries: &mut Attempts) -> Result<bool, RunError> {
        let t = Instant::now();
        let (dialect, cap) = (self.db.dialect(), self.opts.limits.row_cap);
        let verdict = validate::validate(sql, dialect, Some(&ctx.db), cap);
        let mut signals = Map::new();
        signals.insert("candidate".into(), json!(source));
        if !verdict.ok {
            tries.last_reasons = verdict.reasons.iter().map(|r| r.message.clone()).collect();
            for r in &verdict.reasons {
                if matches!(r.kind, ReasonKind::UnknownColumn | ReasonKind::UnknownTable) {
                    signals.insert("next_candidate".into(), json!(r.kind));
                }
            }
            let reasons: Vec<Value> = verdict.reasons.iter().map(|r| json!({"candidate": source, "kind": r.kind, "message": r.message})).collect();
            self.reject(Value::Array(reasons), signals, t)?;
            return Ok(false);
        }
        let checked = verdict.sql.clone().unwrap_or_else(|| sql.to_string());

        // Wrong join key: a join between two tables that have a foreign key, on other columns.
        let bad_joins = wrong_join_keys(ctx, &checked, dialect);
        if !bad_joins.is_empty() {
            signals.insert("wrong_join_key".into(), json!(bad_joins));
            if let Some(p) = plan.map(|p| generate::render(ctx, p, dialect, cap)).filter(|p| !tries.tried.contains(p)) {
                signals.insert("patched_plan".into(), json!(true));
                tries.queue.push_front(("plan(patched)".into(), p));
            }
            let message = format!("join not along a foreign key: {}", bad_joins.join("; "));
            self.reject(json!([{"candidate": source, "kind": "join", "message": message}]), signals, t)?;
            return Ok(false);
        }

        // EXPLAIN: the engine's own check (types, functions) before any data is read.
        if let Err(e) = self.db.explain(&checked) {
            signals.insert("explain_error".into(), json!(e.to_string()));
            tries.last_reasons = vec![e.to_string()];
            self.reject(json!([{"candidate": source, "kind": "explain", "message": e.to_string()}]), signals, t)?;
            return Ok(false);
        }

        if let Some(f) = self.probe(ctx, &checked, &mut signals, &mut tries.suggestions).filter(|f| !tries.tried.contains(f)) {
            tries.queue.push_front((format!("{source}+nocase"), f));
            let message = "no rows: a compared value differs only in letter case";
            self.reject(json!([{"candidate": source, "kind": "zero_rows", "message": message}]), signals, t)?;
            return Ok(false);
        }
        self.apply(
            "validate",
            update([
                ("validation_ok", json!(true)),
                ("sql", json!(checked)),
                ("val_signals", Value::Object(signals)),
                ("val_attempts", json!(1)),
                ("loop_count", json!(1)),
                ("suggestions", json!(tries.suggestions)),
            ]),
            t,
        )?;
        Ok(true)
    }

    /// Record a rejected candidate: why (`reasons`, a JSON list) and the loop's signals.
    fn reject(&mut self, reasons: Value, signals: Map<String, Value>, started: Instant) -> Result<(), StateError> {
        self.apply(
            "validate",
            update([("validation_ok", json!(false)), ("val_reasons", reasons), ("val_signals", Value::Object(signals)), ("val_attempts", json!(1)), ("loop_count", json!(1))]),
            started,
        )
    }

    /// Cheap probes of a valid statement: how many rows it would give, and whether each
    /// compared text value exists at all. Value checks run whatever the row count (an aggregate
    /// returns one row even when its filter matches nothing). Missing values add the column's
    /// sample values to `suggestions`. Returns the case-insensitive rewrite when a value exists
    /// only in another letter case.
    fn probe(&mut self, ctx: &SchemaContext, checked: &str, signals: &mut Map<String, Value>, suggestions: &mut Vec<String>) -> Option<String> {
        let dialect = self.db.dialect();
        if let Some(probe) = validate::count_probe(checked, dialect)
            && let Ok(r) = self.execute_checked(ctx, &probe)
        {
            signals.insert("probe_rows".into(), json!(first_int(&r).unwrap_or(-1)));
        }
        let filters = validate::literal_filters(checked, dialect);
        let mut missing = Vec::new();
        let mut casing = Vec::new();
        for f in filters.iter().take(MAX_VALUE_CHECKS) {
            let Some(table) = f.table.clone().or_else(|| ctx.db.tables.iter().find(|t| t.column(&f.column).is_some()).map(|t| t.name.clone())) else { continue };
            if ctx.db.table(&table).and_then(|t| t.column(&f.column)).is_none_or(|c| c.kind() != super::ColumnKind::Text) {
                continue;
            }
            match self.check_value(ctx, &table, f) {
                ValueCheck::Present => {}
                ValueCheck::Casing => casing.push(format!("{table}.{} = '{}'", f.column, f.value)),
                ValueCheck::Missing => {
                    let samples = ctx.db.table(&table).and_then(|t| t.column(&f.column)).map(|c| c.samples.clone()).unwrap_or_default();
                    missing.push(format!("'{}' is not a value of {table}.{}", f.value, f.column));
                    if !samples.is_empty() {
                        suggestions.push(format!("{table}.{} has the values {}", f.column, samples.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")));
                    }
                }
            }
        }
        if !filters.is_empty() {
            signals.insert("value_checks".into(), json!({"casing": casing, "missing": missing}));
        }
        if casing.is_empty() {
            return None;
        }
        let fixed = validate::case_insensitive(checked, dialect);
        signals.insert("case_insensitive_fix".into(), json!(fixed.is_some()));
        fixed
    }

    /// Does the value compared with `table`.`column` exist, exactly or in another letter case?
    fn check_value(&mut self, ctx: &SchemaContext, table: &str, f: &LiteralFilter) -> ValueCheck {
        let (table, column, value) = (generate::ident(table), generate::ident(&f.column), generate::literal(&f.value));
        let exact = format!("SELECT COUNT(*) FROM {table} WHERE {column} = {value}");
        let ci = format!("SELECT COUNT(*) FROM {table} WHERE lower({column}) = lower({value})");
        let mut count = |q: &str| self.execute_checked(ctx, q).ok().as_ref().and_then(first_int).unwrap_or(-1);
        if count(&exact) != 0 {
            ValueCheck::Present
        } else if count(&ci) > 0 {
            ValueCheck::Casing
        } else {
            ValueCheck::Missing
        }
    }

    /// No candidate passed: fail with the last reasons and suggestions (the plan's statement,
    /// and how to rephrase).
    fn give_up(&mut self, ctx: &SchemaContext, plan: Option<&Plan>, tries: Attempts) -> Step<()> {
        let loops = self.state.count("loop_count");
        let mut s = tries.suggestions;
        if let Some(p) = plan {
            s.push(format!("the plan was: {}", generate::render(ctx, p, self.db.dialect(), self.opts.limits.row_cap)));
        }
        s.push("rephrase with the table and column names from `qa sql schema`, or pass a semantic schema (--semantic) with synonyms".into());
        let last_reasons = tries.last_reasons;
        let why = if last_reasons.is_empty() { String::new() } else { format!(": {}", last_reasons.join("; ")) };
        let stop = if loops >= self.opts.max_loops { format!("no valid query after {loops} attempts (max_loops){why}") } else { format!("no candidate query passed validation{why}") };
        self.apply("validate", update([("suggestions", json!(s))]), Instant::now())?;
        Ok(ControlFlow::Break(Outcome::Failed { error: stop, suggestions: s }))
    }

    /// Run the validated statement (one retry on a transient error) and record a sample of
    /// its rows. Refuses, as the invariant's last line of defence, when nothing validated.
    fn execute_stage(&mut self, ctx: &SchemaContext) -> Step<QueryResult> {
        let t = Instant::now();
        if !self.state.bool("validation_ok") {
            // Unreachable by construction; kept as the invariant's last line of defence.
            return Ok(ControlFlow::Break(Outcome::Failed { error: "refusing to execute: the query was not validated".into(), suggestions: vec![] }));
        }
        let sql = self.state.str("sql").unwrap_or_default().to_string();
        let preview = self.db.explain(&sql)?;
        let res = match self.execute_checked(ctx, &sql) {
            Ok(r) => r,
            Err(e) if e.is_transient() => {
                tracing::warn!("transient database error, retrying once: {e}");
                self.execute_checked(ctx, &sql)?
            }
            Err(e) => return Err(e.into()),
        };
        let (res, tie_note) = self.check_ties(ctx, &sql, res);
        let sample: Vec<Value> = res.rows.iter().take(5).map(|r| Value::Array(r.clone())).collect();
        self.apply(
            "execute",
            update([
                ("exec_preview", json!(preview)),
                ("result_sample", Value::Array(sample)),
                ("exec_rows", json!(res.rows.len())),
                ("result_columns", json!(res.columns)),
                ("result_truncated", json!(res.truncated)),
                ("warnings", json!(tie_note.into_iter().collect::<Vec<_>>())),
            ]),
            t,
        )?;
        Ok(ControlFlow::Continue(res))
    }

    /// A top-N answer whose last row ties with rows past the cut says so and names them: one
    /// of several equal rows is not "the most". The rows stay the statement's own (the shape
    /// the question asked for); any failure of the probe leaves the answer as it was.
    fn check_ties(&mut self, ctx: &SchemaContext, sql: &str, res: QueryResult) -> (QueryResult, Option<String>) {
        let Some(probe) = validate::tie_probe(sql, self.db.dialect()) else { return (res, None) };
        if res.rows.len() < probe.n {
            return (res, None);
        }
        let Ok(wide) = self.execute_checked(ctx, &probe.sql) else { return (res, None) };
        let Some(k) = probe.key_column.or_else(|| wide.columns.len().checked_sub(1)) else { return (res, None) };
        let keys: Vec<Value> = wide.rows.iter().map(|r| r.get(k).cloned().unwrap_or(Value::Null)).collect();
        let keep = validate::rows_to_keep(&keys, probe.n);
        if keep <= probe.n {
            return (res, None);
        }
        // The rows past the cut that tie with the last one shown, by their first column.
        let others: Vec<String> = wide.rows[probe.n..keep].iter().map(|r| r.first().map(cell_text).unwrap_or_default()).collect();
        let named = others.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        let more = if others.len() > 5 { format!(" and {} more", others.len() - 5) } else { String::new() };
        // Every probed row ties: there may be more than were read.
        let at_least = if keep >= probe.limit { "at least " } else { "" };
        let place = if probe.n == 1 { "first place".to_string() } else { format!("place {}", probe.n) };
        let note = format!(
            "{at_least}{} for {place} on {} ({named}{more}): which one is shown is arbitrary; ask for the top {keep} to see them all",
            if others.len() == 1 { "1 other row ties".to_string() } else { format!("{} other rows tie", others.len()) },
            probe.key
        );
        (res, Some(note))
    }

    /// The only way SQL reaches the database: validate (read-only, one statement, known tables
    /// and columns, LIMIT ≤ cap), then run the validator's re-printed statement.
    fn execute_checked(&mut self, ctx: &SchemaContext, sql: &str) -> Result<QueryResult, SqlError> {
        let v = validate::validate(sql, self.db.dialect(), Some(&ctx.db), self.opts.limits.row_cap);
        let Some(checked) = v.sql.filter(|_| v.ok) else {
            return Err(SqlError::Refused(v.reasons.iter().map(|r| r.message.clone()).collect::<Vec<_>>().join("; ")));
        };
        self.executed.push(checked.clone());
        self.db.query(&checked, self.opts.limits)
    }
}

/// A cell as plain text (strings without their quotes).
fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The first cell of the first row as an integer (a `COUNT(*)` probe's answer).
fn first_int(r: &QueryResult) -> Option<i64> {
    r.rows.first().and_then(|row| row.first()).and_then(Value::as_i64)
}

/// Joins `a.x = b.y` between two tables that have a foreign key, on columns other than the key.
pub(crate) fn wrong_join_keys(ctx: &SchemaContext, sql: &str, dialect: Dialect) -> Vec<String> {
    use sqlparser::ast::{BinaryOperator, Expr, TableFactor, Visit, Visitor};
    let parsed = match dialect {
        Dialect::Sqlite => sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::SQLiteDialect {}, sql),
        Dialect::Postgres => sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, sql),
    };
    let Ok(stmts) = parsed else { return Vec::new() };
    #[derive(Default)]
    struct Scan {
        aliases: BTreeMap<String, String>,
        pairs: Vec<(String, String, String, String)>,
    }
    impl Visitor for Scan {
        type Break = ();
        fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
            if let TableFactor::Table { name, alias, .. } = tf
                && let Some(last) = name.0.last().and_then(|p| p.as_ident())
            {
                let table = last.value.to_ascii_lowercase();
                self.aliases.insert(table.clone(), table.clone());
                if let Some(a) = alias {
                    self.aliases.insert(a.name.value.to_ascii_lowercase(), table);
                }
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = e
                && let (Expr::CompoundIdentifier(l), Expr::CompoundIdentifier(r)) = (left.as_ref(), right.as_ref())
                && l.len() == 2
                && r.len() == 2
            {
                self.pairs.push((l[0].value.to_ascii_lowercase(), l[1].value.to_ascii_lowercase(), r[0].value.to_ascii_lowercase(), r[1].value.to_ascii_lowercase()));
            }
            ControlFlow::Continue(())
        }
    }
    let mut scan = Scan::default();
    let _ = stmts.visit(&mut scan);
    let mut out = Vec::new();
    for (qa, ca, qb, cb) in &scan.pairs {
        let (Some(ta), Some(tb)) = (scan.aliases.get(qa), scan.aliases.get(qb)) else { continue };
        if ta == tb {
            continue;
        }
        if let Some(fk) = ctx.fk_between(ta, tb) {
            let along = (fk.from_column.eq_ignore_ascii_case(ca) && fk.to_column.eq_ignore_ascii_case(cb))
                || ctx.fk_between(tb, ta).is_some_and(|r| r.from_column.eq_ignore_ascii_case(cb) && r.to_column.eq_ignore_ascii_case(ca));
            // Two foreign keys between the same tables (e.g. audits → auditors twice) are both fine.
            let any_fk = ctx.db.tables.iter().flat_map(|t| t.foreign_keys.iter().map(move |f| (t.name.to_ascii_lowercase(), f))).any(|(t, f)| {
                let c = f.columns.first().map(|s| s.to_ascii_lowercase()).unwrap_or_default();
                let rc = f.ref_columns.first().map(|s| s.to_ascii_lowercase()).unwrap_or_default();
                let rt = f.ref_table.to_ascii_lowercase();
                (t == *ta && rt == *tb && c == *ca && rc == *cb) || (t == *tb && rt == *ta && c == *cb && rc == *ca)
            });
            if !along && !any_fk {
                out.push(format!("{ta}.{ca} = {tb}.{cb} (the key is {}.{} = {}.{})", fk.from_table, fk.from_column, fk.to_table, fk.to_column));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tests::audit_context;

    #[test]
    fn join_on_the_wrong_key_is_flagged() {
        let ctx = audit_context();
        let bad = wrong_join_keys(&ctx, "SELECT COUNT(*) FROM findings f JOIN audits a ON f.id = a.id", Dialect::Sqlite);
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].contains("the key is findings.audit_id = audits.id"), "{bad:?}");
        assert!(wrong_join_keys(&ctx, "SELECT COUNT(*) FROM findings f JOIN audits a ON f.audit_id = a.id", Dialect::Sqlite).is_empty());
        assert!(wrong_join_keys(&ctx, "SELECT COUNT(*) FROM audits a JOIN findings f ON a.id = f.audit_id", Dialect::Postgres).is_empty());
    }
}
