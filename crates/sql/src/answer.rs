//! One question through the SQL agent, end to end: run it (or resume it after a clarifying
//! answer), keep or drop its checkpoint, and build its trace record. The CLI opens the database
//! and the LLM, draws the spinner and appends the trace.

use std::path::Path;

use serde_json::Value;

use qa_core::trace::{LlmInternal, Route, SqlInternal, SqlMetrics, Status, TraceRecord};
use qa_llm::LlmRun;

use crate::agent::{Agent, AgentOptions, Outcome, Resume, RunResult};
use crate::checkpoint::{self, Checkpoint};
use crate::db::SqlDatabase;
use crate::state::AgentState;
use crate::{DbSchema, SqlError, SqlUrl};

/// One question for [`answer`].
pub struct SqlQuestion<'a> {
    /// The question, as asked (on a resumed run: the checkpoint's question).
    pub question: &'a str,
    /// The database, for the trace and the checkpoint (its password is scrubbed from both).
    pub url: &'a SqlUrl,
    /// How the agent runs.
    pub options: AgentOptions,
    /// A checkpoint and the user's answer to its clarifying question.
    pub resume: Option<(Checkpoint, String)>,
    /// The schema, when the caller has already read it (the router has).
    pub schema: Option<DbSchema>,
    /// Where clarification checkpoints are kept.
    pub data_dir: &'a Path,
    /// Why no LLM is attached, for the trace.
    pub llm_skip: Option<&'a str>,
}

/// A finished (or interrupted) run and its trace record.
pub struct SqlAnswer {
    /// The agent's result.
    pub run: RunResult,
    /// The run's trace record, for the caller to append to the trace file.
    pub trace: TraceRecord,
    /// The checkpoint id when the run stopped to ask a clarifying question.
    pub checkpoint: Option<String>,
    /// The database, as shown (password redacted).
    pub database: String,
}

/// Run the agent on `q` over `db`. A run that asks a clarifying question saves a checkpoint; a
/// resumed run that no longer asks removes its checkpoint.
pub fn answer(db: &mut dyn SqlDatabase, mut llm: Option<&mut LlmRun>, q: SqlQuestion) -> Result<SqlAnswer, SqlError> {
    let resume_id = q.resume.as_ref().map(|(cp, _)| cp.id.clone());
    let mut agent = Agent::new(db, llm.as_deref_mut(), q.options.clone());
    if let Some(schema) = q.schema {
        agent = agent.with_schema(schema);
    }
    let run = agent.run(q.question, q.resume.map(|(cp, answer)| Resume { state: cp.state, answer }));
    let trace = build_trace(q.question, &run, llm.as_deref(), q.llm_skip, q.url);
    let mut cp_id = None;
    if let Outcome::NeedsClarification { .. } = &run.outcome {
        let cp = Checkpoint {
            id: trace.trace_id.clone(),
            created: trace.timestamp.clone(),
            question: q.question.to_string(),
            database: q.url.to_string(),
            options: q.options,
            state: run.state.clone(),
        };
        checkpoint::save(q.data_dir, &cp)?;
        cp_id = Some(cp.id);
    }
    if let Some(id) = resume_id
        && !matches!(run.outcome, Outcome::NeedsClarification { .. })
    {
        checkpoint::remove(q.data_dir, &id);
    }
    Ok(SqlAnswer { run, trace, checkpoint: cp_id, database: q.url.to_string() })
}

fn build_trace(question: &str, run: &RunResult, llm: Option<&LlmRun>, llm_skip: Option<&str>, url: &SqlUrl) -> TraceRecord {
    let mut t = TraceRecord {
        trace_id: qa_core::trace::new_trace_id(question),
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        user_question: question.to_string(),
        route: Route::Sql,
        status: Some(match &run.outcome {
            Outcome::Answered => Status::Answered,
            Outcome::NeedsClarification { .. } => Status::NeedsClarification,
            Outcome::Failed { .. } => Status::Error,
        }),
        ..Default::default()
    };
    t.final_answer = match (&run.outcome, &run.result) {
        (Outcome::Answered, Some(r)) => format!("{} row{}{} from: {}", r.rows.len(), if r.rows.len() == 1 { "" } else { "s" }, if r.truncated { " (row cap reached)" } else { "" }, run.state.str("sql").unwrap_or_default()),
        (Outcome::NeedsClarification { question }, _) => question.clone(),
        (Outcome::Failed { error, .. }, _) => format!("no answer: {error}"),
        _ => String::new(),
    };
    if let Outcome::Failed { error, .. } = &run.outcome {
        t.error = Some(url.scrub(error));
    }
    t.latency_ms.total = run.metrics.total_ms;
    t.latency_ms.llm_calls = llm.map(|l| l.latency_ms()).unwrap_or(0.0);
    t.models.llm = llm.map(|l| l.llm().model_id());
    t.token_usage = llm.map(|l| l.usage()).filter(|u| u.total > 0);
    t.internal.llm = Some(match llm {
        Some(l) => LlmInternal {
            provider: Some(l.llm().provider().to_string()),
            model: Some(l.llm().model_id()),
            calls: serde_json::to_value(&l.calls).unwrap_or_default(),
            ..Default::default()
        },
        None => LlmInternal { provider: None, skipped: llm_skip.map(str::to_string), ..Default::default() },
    });
    let state_json = serde_json::to_value(&run.state.values).unwrap_or(Value::Null);
    t.internal.sql = Some(SqlInternal {
        database: url.to_string(),
        outcome: serde_json::to_value(&run.outcome).unwrap_or_default(),
        contract: AgentState::contract_json(),
        steps: serde_json::to_value(&run.state.steps).unwrap_or_default(),
        state: scrub_value(state_json, url),
        executed: serde_json::to_value(&run.executed).unwrap_or_default(),
        metrics: SqlMetrics {
            latency_ms: run.metrics.latency_ms.clone(),
            total_ms: run.metrics.total_ms,
            tokens: t.token_usage,
            model: t.models.llm.clone(),
        },
        other: Default::default(),
    });
    t
}

/// The password never reaches a trace, even inside an error string.
fn scrub_value(v: Value, url: &SqlUrl) -> Value {
    match v {
        Value::String(s) => Value::String(url.scrub(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| scrub_value(x, url)).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k, scrub_value(x, url))).collect()),
        other => other,
    }
}

