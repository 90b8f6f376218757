//! `qa ask --session NAME` (and `qa chat`): the session's history read before the question is
//! routed — a follow-up rewritten with its subject, "show me more" paging the last result, a
//! reply to the last clarifying question resuming it — and the turn recorded after.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::config::Settings;
use qa_converse::follow_up::{self, Reading};
use qa_converse::reiterate::{self, ContextTurn, PastedKind, ReiteratedBy};
use qa_converse::{Artifact, ArtifactKind, NewTurn, PendingClarification, SessionLog, SessionStore, Turn};
use qa_core::trace::{Route, Status, TraceConversation, TraceRecord};

/// An open session and how the new message reads against it.
pub struct Conversation {
    store: SessionStore,
    pub name: String,
    pub log: SessionLog,
    pub reading: Reading,
    /// The question to answer (the message, or its rewrite).
    pub goal: String,
    pub reasoning: String,
    pub force: bool,
    /// A query pasted into the message.
    pub pasted: Option<(PastedKind, String)>,
    /// Who restated the message (rules, or the LLM with the history).
    pub by: ReiteratedBy,
    /// Why the LLM's restatement was not used, when it was asked.
    pub llm_error: Option<String>,
    /// The LLM call of the restatement, for the trace.
    pub llm_call: Option<Value>,
}

/// What one route did, for the session.
pub struct TurnOutcome {
    pub exit: ExitCode,
    pub route: Route,
    pub status: Status,
    pub artifact: Option<Artifact>,
    pub summary: String,
    pub trace_id: String,
    pub clarification: Option<PendingClarification>,
}

impl Conversation {
    /// Open `name` (created on the first turn) and read `message` against its history: the
    /// rules first (a pasted query, "show me more", a reply to a clarifying question, a
    /// rewrite); then, for a question of its own, the LLM (per `reiterate`) with the last turns.
    pub fn open(settings: &Settings, name: &str, message: &str) -> Result<Conversation> {
        SessionStore::validate_name(name)?;
        let store = SessionStore::new(&settings.data_dir);
        let log = store.load_or_new(name)?;
        for s in &log.skipped {
            eprintln!("warning: session {name}: line {} skipped: {}", s.line, s.reason);
        }
        let rules = reiterate::rules(message);
        let pasted = rules.user_query_text.clone().zip(rules.pasted_kind).map(|(text, kind)| (kind, text));
        // A pasted query is run as it is, whatever the history.
        let reading = if pasted.is_some() { Reading::Standalone } else { follow_up::read(message, &log.turns) };
        let (goal, reasoning) = match &reading {
            Reading::Rewritten { goal, reason, .. } => (goal.clone(), reason.clone()),
            Reading::NextPage => (message.to_string(), "asks for the next page of the last result".to_string()),
            Reading::ClarificationReply { reply, force } => {
                (message.to_string(), format!("answers the clarifying question of turn {}: {reply:?}{}", log.turns.len(), if *force { " (run the best guess)" } else { "" }))
            }
            Reading::Standalone if pasted.is_some() => (message.to_string(), rules.reasoning.clone()),
            Reading::Standalone => (message.to_string(), "a new question".to_string()),
        };
        let mut conv = Conversation {
            store,
            name: name.to_string(),
            log,
            reading,
            goal,
            reasoning,
            force: rules.force_execute,
            pasted,
            by: ReiteratedBy::Rules,
            llm_error: None,
            llm_call: None,
        };
        if conv.pasted.is_none() && matches!(conv.reading, Reading::Standalone | Reading::Rewritten { .. }) {
            conv.restate_with_llm(settings, message, rules);
        }
        Ok(conv)
    }

    /// The LLM's restatement with the last turns as context, when `reiterate` allows an LLM;
    /// on failure the rules' reading stands and the failure is kept for the trace.
    fn restate_with_llm(&mut self, settings: &Settings, message: &str, rules: reiterate::Reiteration) {
        let mut opened = crate::llm_use::open_llm_for(settings, &[("reiterate", settings.reiterate)]);
        let Some(llm) = opened.llm.as_deref_mut().filter(|_| opened.allowed[0]) else { return };
        let history: Vec<ContextTurn> = self.log.turns.iter().rev().take(reiterate::prompt::HISTORY_TURNS).rev().map(context_turn).collect();
        let base = reiterate::Reiteration {
            main_goal: self.goal.clone(),
            reasoning: self.reasoning.clone(),
            references_prior_results: self.references_prior(),
            ..rules
        };
        let mut run = qa_llm::LlmRun::new(llm);
        let refined = reiterate::refine(&mut run, message, &history, base);
        self.llm_call = run.calls.last().and_then(|c| serde_json::to_value(c).ok());
        self.llm_error = refined.llm_error;
        let r = refined.reiteration;
        if r.by == ReiteratedBy::Llm {
            self.by = ReiteratedBy::Llm;
            self.goal = r.main_goal;
            self.reasoning = r.reasoning;
            self.force |= r.force_execute;
            if r.references_prior_results && matches!(self.reading, Reading::Standalone) {
                self.reading = Reading::Rewritten { goal: self.goal.clone(), reason: self.reasoning.clone(), prior_results: true };
            }
            self.pasted = r.user_query_text.zip(r.pasted_kind).map(|(text, kind)| (kind, text));
        }
    }

    /// The turn number this message will get (the store assigns it; a concurrent append by
    /// another process may make the recorded one larger).
    pub fn next_turn(&self) -> u32 {
        self.log.turns.iter().map(|t| t.turn).max().unwrap_or(0) + 1
    }

    /// Whether the message refers to earlier results.
    pub fn references_prior(&self) -> bool {
        matches!(self.reading, Reading::NextPage | Reading::Rewritten { prior_results: true, .. })
    }

    /// The trace's conversation block.
    pub fn trace_block(&self) -> TraceConversation {
        TraceConversation {
            session: self.name.clone(),
            turn: self.next_turn(),
            main_goal: self.goal.clone(),
            reasoning: self.reasoning.clone(),
            references_prior_results: self.references_prior(),
            force_execute: self.force,
            user_query_text: self.pasted.as_ref().map(|(_, t)| t.clone()),
            reiterated_by: Some(self.by_name().to_string()),
            llm_error: self.llm_error.clone(),
            llm_call: self.llm_call.clone(),
        }
    }

    /// `rules` or `llm`.
    pub fn by_name(&self) -> &'static str {
        match self.by {
            ReiteratedBy::Rules => "rules",
            ReiteratedBy::Llm => "llm",
        }
    }

    /// The keys `qa ask --json` gains in a session.
    pub fn json_fields(&self) -> serde_json::Map<String, Value> {
        let mut m = serde_json::Map::new();
        m.insert("session".into(), Value::String(self.name.clone()));
        m.insert("turn".into(), Value::from(self.next_turn()));
        m.insert("main_goal".into(), Value::String(self.goal.clone()));
        m.insert("references_prior_results".into(), Value::Bool(self.references_prior()));
        m.insert("force_execute".into(), Value::Bool(self.force));
        m.insert("user_query_text".into(), self.pasted.as_ref().map_or(Value::Null, |(_, t)| Value::String(t.clone())));
        m.insert("reiterated_by".into(), Value::String(self.by_name().into()));
        if let Some(e) = &self.llm_error {
            m.insert("reiterate_llm_error".into(), Value::String(e.clone()));
        }
        m
    }

    /// The most recent turn with a pageable result.
    pub fn last_artifact(&self) -> Option<&Turn> {
        self.log.last_artifact()
    }

    /// Record the turn.
    pub fn record(&self, message: &str, outcome: &TurnOutcome) -> Result<Turn> {
        let turn = NewTurn {
            question: message.to_string(),
            main_goal: self.goal.clone(),
            reasoning: self.reasoning.clone(),
            user_query_text: self.pasted.as_ref().map(|(_, t)| t.clone()),
            references_prior_results: self.references_prior(),
            force_execute: self.force,
            route: outcome.route.clone(),
            status: outcome.status,
            artifact: outcome.artifact.clone(),
            answer_summary: outcome.summary.clone(),
            trace_id: outcome.trace_id.clone(),
            clarification: outcome.clarification.clone(),
        };
        self.store.append(&self.name, turn).with_context(|| format!("recording the turn in session {}", self.name))
    }
}

/// An earlier turn as the LLM sees it: the message, its goal, what ran (route and query) and
/// the answer's summary.
fn context_turn(t: &Turn) -> ContextTurn {
    let intent = match &t.artifact {
        Some(a) => {
            let query = match &a.query {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            format!("{} query: {}", t.route, qa_core::text::truncate(&query, 240))
        }
        None => t.route.to_string(),
    };
    ContextTurn { question: t.question.clone(), main_goal: t.main_goal.clone(), answer_summary: qa_core::text::truncate(&t.answer_summary, 200), intent }
}

/// The numbered choices of a clarifying question (`  1. …` lines).
pub fn numbered_choices(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let (n, rest) = l.split_once(". ")?;
            n.parse::<usize>().ok().map(|_| rest.trim().to_string())
        })
        .collect()
}

/// The SQL artifact of an answered run: the statement that ran and the page it returned.
pub fn sql_artifact(sql: &str, offset: usize, rows: usize, truncated: bool, target: &str) -> Artifact {
    Artifact {
        kind: ArtifactKind::Sql,
        query: Value::String(sql.to_string()),
        offset,
        page_size: rows.max(1),
        // A page cut by the row cap has more rows after it; an uncut one is the end.
        total: (!truncated).then_some((offset + rows) as u64),
        target: target.to_string(),
        search_after: None,
    }
}

/// A minimal trace of a turn that ran no pipeline (a page of an earlier result).
pub fn page_trace(message: &str, route: Route, answer: String, conversation: Option<TraceConversation>) -> TraceRecord {
    TraceRecord {
        trace_id: qa_core::trace::new_trace_id(message),
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        user_question: message.to_string(),
        route,
        status: Some(Status::Answered),
        final_answer: answer,
        conversation,
        ..Default::default()
    }
}

/// Messages that continue an earlier turn instead of asking anew: "show me more" (the next page
/// of the last result) and the reply to a clarifying question (its run resumed). None when the
/// message is a question of its own.
pub fn continue_earlier(settings: &Settings, quiet: bool, message: &str, conv: &Conversation, flags: &crate::cli::AskFlags) -> Result<Option<TurnOutcome>> {
    match &conv.reading {
        Reading::NextPage => {
            let Some(artifact) = conv.last_artifact().and_then(|t| t.artifact.as_ref()) else { return Ok(None) };
            if !quiet && !flags.json {
                eprintln!("[{}]", conv.reasoning);
            }
            match artifact.kind {
                ArtifactKind::Sql => crate::commands::sql_pages::next_page(settings, quiet, message, conv, artifact, flags.json).map(Some),
                ArtifactKind::EsQuery => es_next_page(settings, quiet, message, conv, artifact, flags).map(Some),
            }
        }
        Reading::ClarificationReply { reply, force } => {
            let Some(last) = conv.log.turns.last() else { return Ok(None) };
            let Some(pending) = &last.clarification else { return Ok(None) };
            if last.route == Route::Es {
                return es_clarification_reply(settings, quiet, message, conv, pending, reply, *force, flags).map(Some);
            }
            if last.route != Route::Sql {
                return Ok(None);
            }
            let cp = qa_sql::checkpoint::load(&settings.data_dir, &pending.checkpoint)?;
            if !quiet && !flags.json {
                eprintln!("[{}]", conv.reasoning);
            }
            let mut routing = crate::routed::decide(settings, &cp.question, flags)?;
            routing.decision.target = qa_route::Target::Sql;
            // "Just run it": the first (best-ranked) choice, named in the answer.
            let reply = match (*force, pending.alternatives.first()) {
                (true, Some(best)) => best.clone(),
                (true, None) => "1".to_string(),
                (false, _) => reply.clone(),
            };
            crate::routed::answer_sql(settings, quiet, &cp.question.clone(), routing, flags, Some(conv), Some((cp, reply, *force))).map(Some)
        }
        Reading::Standalone if follow_up::is_bare_next_page(message) => {
            anyhow::bail!("nothing to show more of: session {} has no earlier SQL or Elasticsearch result to page (ask a question first)", conv.name)
        }
        _ => Ok(None),
    }
}

/// "Show me more" after an ES answer: the stored query at the next offset, checked by the guard
/// like any query.
fn es_next_page(settings: &Settings, quiet: bool, message: &str, conv: &Conversation, artifact: &Artifact, flags: &crate::cli::AskFlags) -> Result<TurnOutcome> {
    let Some(offset) = artifact.next_offset() else {
        println!("That was the last page: hits {}–{} of {}.", artifact.offset + 1, artifact.offset + artifact.page_size, artifact.total.unwrap_or(0));
        return Ok(TurnOutcome { exit: ExitCode::SUCCESS, route: Route::Es, status: Status::Answered, artifact: Some(artifact.clone()), summary: "no more hits".into(), trace_id: String::new(), clarification: None });
    };
    let engine = crate::commands::es::open_engine(settings).context("`show me more` on an Elasticsearch result needs the index (--es or QA_ES)")?;
    // The stored cursor fetches a page past the result window in one request.
    let options = qa_es::run::EsOptions { offset, page_size: artifact.page_size, after: artifact.search_after.clone(), ..crate::commands::es::options(settings, offset, false) };
    let mut run = qa_es::run::run_query(engine.as_ref(), message, &artifact.query, &options)?;
    run.trace.conversation = Some(conv.trace_block());
    crate::commands::sql::append_trace(settings, &run.trace);
    let extra = Value::Object(conv.json_fields().into_iter().map(|(k, v)| if k == "references_prior_results" { (k, Value::Bool(true)) } else { (k, v) }).collect());
    let exit = crate::commands::es::print_es(settings, engine.as_ref(), &run, flags.json, flags.trace, quiet, Some(&extra))?;
    Ok(crate::routed::es_outcome(&run, exit, &engine.target()))
}

/// The reply to an ES clarifying question: the run resumed from its checkpoint with the chosen
/// alternative, or with the first (best-ranked) one when the user said "just run it", the guess
/// named in the answer.
#[allow(clippy::too_many_arguments)]
fn es_clarification_reply(settings: &Settings, quiet: bool, message: &str, conv: &Conversation, pending: &PendingClarification, reply: &str, force: bool, flags: &crate::cli::AskFlags) -> Result<TurnOutcome> {
    let engine = crate::commands::es::open_engine(settings).context("answering the clarifying question needs the index it asked about (--es or QA_ES)")?;
    let reply = match (force, pending.alternatives.first()) {
        (true, Some(best)) => best.clone(),
        _ => reply.to_string(),
    };
    if !quiet && !flags.json {
        eprintln!("[{}]", conv.reasoning);
        if force {
            eprintln!("[best guess: {reply}]");
        }
    }
    let mut opened = crate::commands::es::open_llm(settings);
    let mut options = crate::commands::es::options_with(settings, 0, force, &opened);
    options.reiterate_llm = false;
    #[allow(clippy::redundant_closure)]
    let mut llm_run = opened.llm.as_deref_mut().map(|l| qa_llm::LlmRun::new(l));
    let mut run = qa_es::run::resume(engine.as_ref(), llm_run.as_mut(), &settings.data_dir, &pending.checkpoint, &reply, options)?;
    run.trace.user_question = message.to_string();
    run.trace.conversation = Some(conv.trace_block());
    crate::commands::sql::append_trace(settings, &run.trace);
    let mut extra = conv.json_fields();
    if force {
        extra.insert("best_guess".into(), Value::String(reply.clone()));
    }
    let exit = crate::commands::es::print_es(settings, engine.as_ref(), &run, flags.json, flags.trace, quiet, Some(&Value::Object(extra)))?;
    Ok(crate::routed::es_outcome(&run, exit, &engine.target()))
}

/// What a documents answer leaves in the session: its first line, no artifact.
pub fn documents_outcome(result: &qa_query::ask::AskResult) -> TurnOutcome {
    TurnOutcome {
        exit: ExitCode::SUCCESS,
        route: Route::Documents,
        status: result.trace.status.unwrap_or(Status::Answered),
        artifact: None,
        summary: qa_core::text::truncate(result.answer.text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default(), 160),
        trace_id: result.trace.trace_id.clone(),
        clarification: None,
    }
}
