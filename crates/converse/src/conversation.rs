//! A session turn in the making: the session's history read before the question is routed — a
//! follow-up rewritten with its subject, "show me more" paging the last result, a reply to the
//! last clarifying question resuming it — and the turn recorded after.

use std::path::Path;

use serde_json::Value;

use qa_core::trace::{Route, Status, TraceConversation};
use qa_llm::{Generation, LlmSettings};

use crate::follow_up::{self, Reading};
use crate::reiterate::{self, ContextTurn, PastedKind, ReiteratedBy};
use crate::{Artifact, ConverseError, NewTurn, PendingClarification, SessionLog, SessionStore, Turn};

/// An open session and how the new message reads against it.
pub struct Conversation {
    store: SessionStore,
    /// The session's name.
    pub name: String,
    /// Its turns so far.
    pub log: SessionLog,
    /// How the message reads against them.
    pub reading: Reading,
    /// The question to answer (the message, or its rewrite).
    pub goal: String,
    /// Why the goal reads as it does.
    pub reasoning: String,
    /// Run without clarifying questions.
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
#[derive(Debug, Clone)]
pub struct TurnOutcome {
    /// The route that answered.
    pub route: Route,
    /// How it ended.
    pub status: Status,
    /// The query that ran and its page.
    pub artifact: Option<Artifact>,
    /// One line for the history.
    pub summary: String,
    /// The answer's trace.
    pub trace_id: String,
    /// The clarifying question it ended with.
    pub clarification: Option<PendingClarification>,
}

/// Where the LLM that restates a message comes from, and whether it may be used.
pub struct Restating<'a> {
    /// The LLM settings.
    pub llm: &'a LlmSettings,
    /// The `reiterate` setting.
    pub reiterate: Generation,
}

impl Conversation {
    /// Open `name` (created on the first turn) and read `message` against its history: the
    /// rules first (a pasted query, "show me more", a reply to a clarifying question, a
    /// rewrite); then, for a question of its own, the LLM (per `reiterate`) with the last turns.
    /// Lines of the session file that could not be read are in `log.skipped`.
    pub fn open(data_dir: &Path, restating: &Restating<'_>, name: &str, message: &str) -> Result<Conversation, ConverseError> {
        SessionStore::validate_name(name)?;
        let store = SessionStore::new(data_dir);
        let log = store.load_or_new(name)?;
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
            conv.restate_with_llm(restating, message, rules);
        }
        Ok(conv)
    }

    /// The LLM's restatement with the last turns as context, when `reiterate` allows an LLM;
    /// on failure the rules' reading stands and the failure is kept for the trace.
    fn restate_with_llm(&mut self, restating: &Restating<'_>, message: &str, rules: reiterate::Reiteration) {
        let mut opened = qa_llm::open_for(restating.llm, &[("reiterate", restating.reiterate)]);
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
    pub fn record(&self, message: &str, outcome: &TurnOutcome) -> Result<Turn, ConverseError> {
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
        self.store.append(&self.name, turn)
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

