//! `qa "question"` through the smart router: the decision (with `--route` / `--type`
//! overrides), then the documents pipeline, or the SQL path answered directly (simple), as an
//! analysis of its records (complex), or both in two sections (hybrid).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use serde_json::{Value, json};

use crate::cli::AskFlags;
use crate::commands::route::{Sources, gather};
use crate::config::Settings;
use crate::conversation::{Conversation, TurnOutcome, numbered_choices, sql_artifact};
use qa_converse::PendingClarification;
use qa_converse::reiterate::PastedKind;
use qa_core::trace::{Route, Status};
use qa_core::trace::TraceRouting;
use qa_llm::prompt::Prompt;
use qa_route::analysis::{Analysis, Selection, analyse, select_records};
use qa_route::prompt::AnalysisPrompt;
use qa_route::{AnswerMetadata, ErrorCode, QueryType, RouteDecision, RouteError, Target};

/// The decision for `question` and the sources opened to make it.
pub struct Routing {
    pub decision: RouteDecision,
    pub overridden: bool,
    pub sources: Sources,
}

/// Decide where and how `question` is answered; `--route` and `--type` override the rules.
pub fn decide(settings: &Settings, question: &str, flags: &AskFlags) -> Result<Routing> {
    let sources = gather(settings, question);
    let today = chrono::Utc::now().date_naive();
    let mut decision = qa_route::score::decide(question, &sources.profiles, today);
    let mut overridden = false;
    if let Some(t) = flags.route {
        let target: Target = t.into();
        let configured = target == Target::Documents || sources.profiles.iter().any(|p| p.target == target);
        if !configured {
            anyhow::bail!("--route {}: that source is not configured ({})", target.as_str(), match target {
                Target::Sql => "set --db or QA_SQL_URL",
                Target::Es => "set --es or QA_ES",
                Target::Documents => "index a folder with `qa index PATH`",
            });
        }
        decision.reasons.push(format!("--route {} overrides {}", target.as_str(), decision.target.as_str()));
        decision.target = target;
        overridden = true;
    }
    if let Some(t) = flags.query_type {
        let qt: QueryType = t.into();
        decision.reasons.push(format!("--type {} overrides {}", qt.as_str(), decision.query_type.as_str()));
        decision.query_type = qt;
        decision.requires_llm = qt != QueryType::Simple;
        overridden = true;
    }
    Ok(Routing { decision, overridden, sources })
}

/// The routing block of a trace.
pub fn trace_routing(r: &Routing) -> TraceRouting {
    TraceRouting {
        target: r.decision.target.as_str().to_string(),
        query_type: r.decision.query_type.as_str().to_string(),
        confidence: r.decision.confidence,
        overridden: r.overridden,
        reasons: r.decision.reasons.clone(),
        extracted_filters: serde_json::to_value(&r.decision.extracted_filters).unwrap_or(Value::Null),
    }
}

/// The one-line stderr note of where a question went.
pub fn announce(r: &Routing) -> String {
    let d = &r.decision;
    format!("[route: {} · {} ({:.2}){}]", d.target.as_str(), d.query_type.as_str(), d.confidence, if r.overridden { " · overridden" } else { "" })
}

/// Metadata of an answer.
pub fn metadata(r: &Routing, started: Instant, records: usize, tokens: Option<u64>, error: Option<RouteError>) -> AnswerMetadata {
    AnswerMetadata {
        query_type: r.decision.query_type,
        target: r.decision.target,
        execution_time_ms: started.elapsed().as_secs_f64() * 1000.0,
        records_analyzed: records,
        tokens_used: tokens,
        confidence: r.decision.confidence,
        extracted_filters: r.decision.extracted_filters.clone(),
        reasons: r.decision.reasons.clone(),
        pagination: None,
        error,
    }
}

/// Rows of a SQL result as JSON records (column → value).
fn records_of(result: &qa_sql::QueryResult) -> Vec<Value> {
    result.rows.iter().map(|row| Value::Object(result.columns.iter().cloned().zip(row.iter().cloned()).collect())).collect()
}

/// The analysis of a complex or hybrid answer: the LLM's when one is configured and answers,
/// else the deterministic one ("AI analysis unavailable" when the LLM failed).
pub struct Analysed {
    pub selection: Selection,
    pub analysis: Analysis,
    pub text: String,
    pub by_llm: bool,
    pub tokens: Option<u64>,
    pub error: Option<RouteError>,
}

pub fn analyse_records(settings: &Settings, question: &str, records: &[Value], r: &Routing) -> Analysed {
    let selection = select_records(records, question, &r.decision.extracted_filters);
    let analysis = analyse(&selection.records);
    let deterministic = analysis.render();
    let choice = qa_llm::choose(&settings.llm_settings());
    let llm = match &choice {
        Ok(c) => qa_llm::open(&settings.llm_settings(), c).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let (text, by_llm, tokens, error) = match llm {
        Ok(Some(mut l)) if !selection.records.is_empty() => {
            let prompt = AnalysisPrompt { question, analysis: &analysis, records: &selection.records };
            match l.chat(&prompt.request()).map_err(|e| e.to_string()).and_then(|resp| prompt.parse(&resp.text).map(|t| (t, resp.usage.total)).map_err(|e| e.to_string())) {
                Ok((t, used)) => (t, true, Some(used), None),
                Err(e) => (
                    format!("AI analysis unavailable: {e}\n{deterministic}"),
                    false,
                    None,
                    Some(RouteError { code: ErrorCode::AiError, message: e, suggestion: "check the LLM settings with `qa doctor`; the data and its deterministic analysis are above".into() }),
                ),
            }
        }
        _ => (deterministic, false, None, None),
    };
    Analysed { selection, analysis, text, by_llm, tokens, error }
}

/// A clarifying question of an earlier SQL turn being answered: its checkpoint, the reply and
/// whether to run the best guess.
pub type SqlResume = (qa_sql::checkpoint::Checkpoint, String, bool);

/// Answer on the SQL route per the query type; `conv` records the session's view in the trace.
pub fn answer_sql(settings: &Settings, quiet: bool, question: &str, mut r: Routing, flags: &AskFlags, conv: Option<&Conversation>, resume: Option<SqlResume>) -> Result<TurnOutcome> {
    let started = Instant::now();
    let Some(sql) = r.sources.sql.take() else { anyhow::bail!("the SQL source is not open") };
    let url = sql.url.clone();
    let opened = Some((sql.db, sql.schema));
    if let Some((cp, reply, force)) = resume {
        let mut a = crate::commands::sql::answer_with(settings, quiet, &url, &cp.question.clone(), Some((cp, reply.clone())), opened, force)?;
        a.trace.conversation = conv.map(Conversation::trace_block);
        crate::commands::sql::append_trace(settings, &a.trace);
        let mut extra = conv.map(Conversation::json_fields).unwrap_or_default();
        if force {
            if !quiet && !flags.json {
                eprintln!("[best guess: {reply}]");
            }
            extra.insert("best_guess".into(), Value::String(reply.clone()));
        }
        let extra = Value::Object(extra);
        let exit = crate::commands::sql::print_outcome_with(settings, &a, flags.json, flags.trace, None, quiet, Some(&extra))?;
        return Ok(sql_outcome(&a, exit, &url.to_string(), settings.sql_row_cap));
    }
    // Complex and hybrid questions query only their retrieval part ("show the late orders" of
    // "show the late orders and explain why"), and run the best plan rather than ask about the
    // analytical words the database cannot answer.
    let analytic = r.decision.query_type != QueryType::Simple;
    let sql_question = if analytic { qa_route::classify::retrieval_part(question) } else { question.to_string() };
    if analytic && !quiet && !flags.json && sql_question != question {
        eprintln!("[records for the analysis: \"{sql_question}\"]");
    }
    let mut a = crate::commands::sql::answer_with(settings, quiet, &url, &sql_question, None, opened, analytic || conv.is_some_and(|c| c.force))?;
    a.trace.user_question = question.to_string();
    a.trace.routing = Some(trace_routing(&r));
    a.trace.conversation = conv.map(Conversation::trace_block);
    let rows = a.run.result.as_ref().map(records_of).unwrap_or_default();
    let analysed = (r.decision.query_type != QueryType::Simple && !rows.is_empty()).then(|| analyse_records(settings, question, &rows, &r));
    if let Err(e) = qa_core::trace::append(&settings.trace_file(), &a.trace) {
        tracing::warn!("could not append the trace: {e}");
    }
    let (records, tokens, error) = match &analysed {
        Some(x) => (x.selection.records.len(), x.tokens, x.error.clone()),
        None => (rows.len(), None, sql_error(&a)),
    };
    let mut meta = metadata(&r, started, records, tokens, error);
    if rows.len() > qa_route::page::PAGE_SIZE {
        meta.pagination = Some(qa_route::paginate(rows.len() as u64, 0, qa_route::page::PAGE_SIZE));
    }
    let mut extra = json!({
        "routing": r.decision,
        "metadata": meta,
        "analysis": analysed.as_ref().map(|x| json!({"text": x.text, "by_llm": x.by_llm, "records_cited": x.analysis.cited, "summary": x.analysis})),
    });
    if let (Some(c), Value::Object(obj)) = (conv, &mut extra) {
        obj.extend(c.json_fields());
    }
    if let (QueryType::Complex, Some(x), false) = (r.decision.query_type, &analysed, flags.json) {
        // Complex: the analysis is the answer; the rows it rests on are cited, not listed.
        let mut out = std::io::stdout().lock();
        writeln!(out, "=== Analysis ({}) ===\n{}", if x.by_llm { "LLM" } else { "deterministic" }, x.text)?;
        writeln!(out, "\nSQL: {}", a.run.state.str("sql").unwrap_or_default())?;
        if !quiet {
            eprintln!("\n[sql · complex · {} of {} rows analysed · trace {}]", x.selection.records.len(), rows.len(), a.trace.trace_id);
        }
        let mut o = sql_outcome(&a, ExitCode::SUCCESS, &url.to_string(), settings.sql_row_cap);
        o.summary = qa_core::text::truncate(x.text.lines().next().unwrap_or_default(), 120);
        return Ok(o);
    }
    let code = crate::commands::sql::print_outcome_with(settings, &a, flags.json, flags.trace, None, quiet, Some(&extra))?;
    if let (Some(x), false) = (&analysed, flags.json) {
        println!("\n=== Analysis ({}) ===\n{}", if x.by_llm { "LLM" } else { "deterministic" }, x.text);
    }
    Ok(sql_outcome(&a, code, &url.to_string(), settings.sql_row_cap))
}

/// What a SQL run leaves in the session: its statement and page, or its clarifying question.
fn sql_outcome(a: &qa_sql::answer::SqlAnswer, exit: ExitCode, target: &str, row_cap: usize) -> TurnOutcome {
    use qa_sql::agent::Outcome;
    let run = &a.run;
    let (status, summary, clarification) = match &run.outcome {
        Outcome::Answered => (Status::Answered, a.trace.final_answer.clone(), None),
        Outcome::NeedsClarification { question } => (
            Status::NeedsClarification,
            question.lines().next().unwrap_or_default().to_string(),
            a.checkpoint.clone().map(|id| PendingClarification { checkpoint: id, message: question.clone(), alternatives: numbered_choices(question) }),
        ),
        Outcome::Failed { error, .. } => (Status::Error, error.clone(), None),
    };
    let artifact = match (&run.outcome, &run.result, run.state.str("sql")) {
        // A full page (the statement's LIMIT is the row cap) may have rows after it.
        (Outcome::Answered, Some(r), Some(sql)) => Some(sql_artifact(sql, 0, r.rows.len(), r.truncated || r.rows.len() >= row_cap, target)),
        _ => None,
    };
    TurnOutcome { exit, route: Route::Sql, status, artifact, summary: qa_core::text::truncate(&summary, 160), trace_id: a.trace.trace_id.clone(), clarification }
}

/// Answer on the ES route; complex and hybrid questions get the analysis of the hits.
pub fn answer_es(settings: &Settings, quiet: bool, question: &str, mut r: Routing, flags: &AskFlags, conv: Option<&Conversation>) -> Result<TurnOutcome> {
    let started = Instant::now();
    let Some(engine) = r.sources.es.take() else { anyhow::bail!("the Elasticsearch index is not open") };
    let analytic = r.decision.query_type != QueryType::Simple;
    let es_question = if analytic { qa_route::classify::retrieval_part(question) } else { question.to_string() };
    let mut opened = crate::commands::es::open_llm(settings);
    let force = analytic || conv.is_some_and(|c| c.force);
    let mut options = crate::commands::es::options_with(settings, 0, force, &opened);
    // A session restated the message already, with its history.
    options.reiterate_llm &= conv.is_none();
    let llm_skip = opened.skip.clone();
    #[allow(clippy::redundant_closure)]
    let mut llm_run = opened.llm.as_deref_mut().map(|l| qa_llm::LlmRun::new(l));
    let q = qa_es::run::EsQuestion { question: &es_question, options, data_dir: &settings.data_dir, llm_skip: llm_skip.as_deref() };
    let mut run = qa_es::run::answer(engine.as_ref(), llm_run.as_mut(), q)?;
    run.trace.user_question = question.to_string();
    run.trace.routing = Some(trace_routing(&r));
    run.trace.conversation = conv.map(Conversation::trace_block);
    crate::commands::sql::append_trace(settings, &run.trace);
    let analysed = (analytic && !run.answer.hits.is_empty()).then(|| analyse_records(settings, question, &run.answer.hits, &r));
    let (records, tokens, error) = match &analysed {
        Some(x) => (x.selection.records.len(), x.tokens, x.error.clone()),
        None => (run.answer.hits.len(), None, es_error(&run.answer)),
    };
    let mut meta = metadata(&r, started, records, tokens, error);
    if let (Some(total), Some(page)) = (run.answer.total, &run.answer.page) {
        meta.pagination = Some(qa_route::paginate(total, page.offset, page.size));
    }
    let mut extra = json!({
        "routing": r.decision,
        "metadata": meta,
        "analysis": analysed.as_ref().map(|x| json!({"text": x.text, "by_llm": x.by_llm, "records_cited": x.analysis.cited, "summary": x.analysis})),
    });
    if let (Some(c), Value::Object(obj)) = (conv, &mut extra) {
        obj.extend(c.json_fields());
    }
    let exit = crate::commands::es::print_es(settings, engine.as_ref(), &run, flags.json, flags.trace, quiet, Some(&extra))?;
    if let (Some(x), false) = (&analysed, flags.json) {
        println!("\n=== Analysis ({}) ===\n{}", if x.by_llm { "LLM" } else { "deterministic" }, x.text);
    }
    Ok(es_outcome(&run, exit, &engine.target()))
}

/// What an ES run leaves in the session: its query and page, or its clarifying question.
pub fn es_outcome(run: &qa_es::run::EsRun, exit: ExitCode, target: &str) -> TurnOutcome {
    let a = &run.answer;
    let status = match a.status {
        qa_es::EsStatus::Answered => Status::Answered,
        qa_es::EsStatus::NeedsClarification => Status::NeedsClarification,
        qa_es::EsStatus::Error => Status::Error,
    };
    let artifact = match (&a.es_query, &a.page) {
        (Some(q), Some(p)) if a.status == qa_es::EsStatus::Answered => {
            let mut query = q.clone();
            if let Value::Object(o) = &mut query {
                for k in ["from", "size", "timeout", "track_total_hits"] {
                    o.remove(k);
                }
            }
            Some(qa_converse::Artifact { kind: qa_converse::ArtifactKind::EsQuery, query, offset: p.offset, page_size: p.size, total: a.total, target: target.to_string(), search_after: p.search_after.clone() })
        }
        _ => None,
    };
    let clarification = a.ambiguity.as_ref().filter(|_| a.needs_clarification).and_then(|amb| {
        let id = run.checkpoint.as_ref()?.file_stem()?.to_string_lossy().into_owned();
        Some(PendingClarification { checkpoint: id, message: amb.message.clone(), alternatives: amb.alternatives.clone() })
    });
    let summary = match (&a.error, a.total) {
        (Some(e), _) => e.clone(),
        (None, Some(t)) => format!("{t} matching: {}", a.query_summary),
        _ => a.query_summary.clone(),
    };
    TurnOutcome { exit, route: Route::Es, status, artifact, summary: qa_core::text::truncate(&summary, 160), trace_id: a.trace_id.clone(), clarification }
}

/// Run the query pasted into `message` (found by the session's reading, or by the reiterate
/// rules without a session) and record the turn; `None` when there is none.
pub fn run_if_pasted(settings: &Settings, quiet: bool, message: &str, flags: &AskFlags, conv: Option<&Conversation>) -> Result<Option<ExitCode>> {
    let pasted = match conv {
        Some(c) => c.pasted.clone(),
        None => {
            let r = qa_converse::reiterate::rules(message);
            r.user_query_text.zip(r.pasted_kind).map(|(text, kind)| (kind, text))
        }
    };
    let Some((kind, text)) = pasted else { return Ok(None) };
    let outcome = answer_pasted(settings, quiet, message, kind, &text, flags, conv)?;
    if let Some(c) = conv {
        c.record(message, &outcome)?;
    }
    Ok(Some(outcome.exit))
}

/// A query pasted into the message, run on its engine's route: a SQL statement through the
/// validator, an Elasticsearch body or console request through the ES guard. `--route` may
/// only agree.
pub fn answer_pasted(settings: &Settings, quiet: bool, message: &str, kind: PastedKind, text: &str, flags: &AskFlags, conv: Option<&Conversation>) -> Result<TurnOutcome> {
    let target = match kind {
        PastedKind::Sql => Target::Sql,
        PastedKind::Es => Target::Es,
    };
    if let Some(r) = flags.route
        && Target::from(r) != target
    {
        anyhow::bail!("the message holds a pasted {} query, which runs on the {} route, not on --route {}", kind.label(), target.as_str(), Target::from(r).as_str());
    }
    if !quiet && !flags.json {
        eprintln!("[pasted {} query: it is checked, then run as it is]", kind.label());
    }
    match kind {
        PastedKind::Sql => crate::commands::sql_pages::run_pasted(settings, quiet, message, text, conv, flags.json),
        PastedKind::Es => {
            if settings.es_target().is_none() {
                anyhow::bail!("a pasted Elasticsearch query runs on an index: set --es or QA_ES");
            }
            // No routing: nothing but the pasted body's check and run reaches the index.
            let engine = crate::commands::es::open_engine(settings)?;
            let decision = RouteDecision {
                target: Target::Es,
                query_type: QueryType::Simple,
                confidence: 1.0,
                extracted_filters: Default::default(),
                requires_llm: false,
                reasons: vec![format!("a pasted {} query", kind.label())],
                scores: Default::default(),
            };
            let routing = Routing { decision, overridden: false, sources: Sources { profiles: Vec::new(), warnings: Vec::new(), sql: None, es: Some(engine) } };
            answer_es(settings, quiet, message, routing, flags, conv)
        }
    }
}

/// Answer on the SQL or ES route (recording the session turn); the routing back when the
/// documents answer.
pub fn answer_structured(settings: &Settings, quiet: bool, message: &str, question: &str, routing: Routing, flags: &AskFlags, conv: Option<&Conversation>) -> Result<Result<ExitCode, Routing>> {
    let outcome = match routing.decision.target {
        Target::Sql => answer_sql(settings, quiet, question, routing, flags, conv, None)?,
        Target::Es => answer_es(settings, quiet, question, routing, flags, conv)?,
        Target::Documents => return Ok(Err(routing)),
    };
    if let Some(c) = conv {
        c.record(message, &outcome)?;
    }
    Ok(Ok(outcome.exit))
}

/// The design documents' error code of a failed SQL run: the validator's refusal is a
/// validation error, anything else the database's.
fn sql_error(a: &qa_sql::answer::SqlAnswer) -> Option<RouteError> {
    let qa_sql::agent::Outcome::Failed { error, suggestions } = &a.run.outcome else { return None };
    let validation = a.run.state.get("validation_ok").is_some_and(|v| v == &Value::Bool(false));
    Some(RouteError {
        code: if validation { ErrorCode::ValidationError } else { ErrorCode::DatabaseError },
        message: error.clone(),
        suggestion: suggestions.first().cloned().unwrap_or_else(|| "see `qa sql schema` for the tables and columns".into()),
    })
}

/// The error code of a failed ES run: a refused query is a validation error, a 429 rate
/// limiting, anything else the engine's.
fn es_error(a: &qa_es::EsAnswer) -> Option<RouteError> {
    let message = a.error.clone()?;
    let code = if message.contains("refused") || message.contains("not allowed") {
        ErrorCode::ValidationError
    } else if message.contains("429") {
        ErrorCode::RateLimitError
    } else {
        ErrorCode::DatabaseError
    };
    let suggestion = match code {
        ErrorCode::ValidationError => "`qa es check 'BODY'` shows why a query is refused",
        ErrorCode::RateLimitError => "the server is rate limiting: retry later or raise es_retries",
        _ => "`qa doctor` checks the index",
    };
    Some(RouteError { code, message, suggestion: suggestion.into() })
}
