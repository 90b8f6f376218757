//! `qa ask --session NAME` (and `qa chat`): the session's history read before the question is
//! routed — a follow-up rewritten with its subject, "show me more" paging the last result, a
//! reply to the last clarifying question resuming it — and the turn recorded after.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::config::Settings;
use qa_converse::follow_up::{self, Reading};
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
    /// Open `name` (created on the first turn) and read `message` against its history.
    pub fn open(settings: &Settings, name: &str, message: &str) -> Result<Conversation> {
        SessionStore::validate_name(name)?;
        let store = SessionStore::new(&settings.data_dir);
        let log = store.load_or_new(name)?;
        for s in &log.skipped {
            eprintln!("warning: session {name}: line {} skipped: {}", s.line, s.reason);
        }
        let reading = follow_up::read(message, &log.turns);
        let force = follow_up::is_force(message);
        let (goal, reasoning) = match &reading {
            Reading::Rewritten { goal, reason, .. } => (goal.clone(), reason.clone()),
            Reading::NextPage => (message.to_string(), "asks for the next page of the last result".to_string()),
            Reading::ClarificationReply { reply, force } => {
                (message.to_string(), format!("answers the clarifying question of turn {}: {reply:?}{}", log.turns.len(), if *force { " (run the best guess)" } else { "" }))
            }
            Reading::Standalone => (message.to_string(), "a new question".to_string()),
        };
        Ok(Conversation { store, name: name.to_string(), log, reading, goal, reasoning, force })
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
            user_query_text: None,
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
        m.insert("user_query_text".into(), Value::Null);
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
            user_query_text: None,
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
    }
}

/// A minimal trace of a turn that ran no pipeline (a page of an earlier result).
pub fn page_trace(message: &str, route: Route, answer: String, conversation: TraceConversation) -> TraceRecord {
    TraceRecord {
        trace_id: qa_core::trace::new_trace_id(message),
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        user_question: message.to_string(),
        route,
        status: Some(Status::Answered),
        final_answer: answer,
        conversation: Some(conversation),
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
                ArtifactKind::Sql => crate::commands::sql::next_page(settings, quiet, message, conv, artifact, flags.json).map(Some),
                ArtifactKind::EsQuery => es_next_page(settings, quiet, message, conv, artifact, flags).map(Some),
            }
        }
        Reading::ClarificationReply { reply, force } => {
            let Some(last) = conv.log.turns.last() else { return Ok(None) };
            let Some(pending) = &last.clarification else { return Ok(None) };
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
    let options = qa_es::run::EsOptions { offset, page_size: artifact.page_size, ..crate::commands::es::options(settings, offset, false) };
    let mut run = qa_es::run::run_query(engine.as_ref(), message, &artifact.query, &options)?;
    run.trace.conversation = Some(conv.trace_block());
    crate::commands::sql::append_trace(settings, &run.trace);
    let extra = Value::Object(conv.json_fields().into_iter().map(|(k, v)| if k == "references_prior_results" { (k, Value::Bool(true)) } else { (k, v) }).collect());
    let exit = crate::commands::es::print_es(settings, engine.as_ref(), &run, flags.json, flags.trace, quiet, Some(&extra))?;
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
