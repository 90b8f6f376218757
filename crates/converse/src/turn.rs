//! One turn of a session, as written to its JSONL file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use qa_core::trace::{Route, Status};

/// What kind of query a turn ran, so "show me more" knows how to page it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    /// An Elasticsearch request body (`query` is the JSON body).
    EsQuery,
    /// A SQL statement (`query` is the statement as a string).
    Sql,
}

/// The key artifact of a turn: the query that ran and the page it returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    /// ES body or SQL statement.
    #[serde(rename = "type")]
    pub kind: ArtifactKind,
    /// The query as it ran (ES: the JSON body without `from`; SQL: the statement).
    pub query: Value,
    /// Offset of the first row or hit of the page shown.
    pub offset: usize,
    /// Rows or hits per page.
    pub page_size: usize,
    /// Matching rows or hits in the whole result, when known.
    pub total: Option<u64>,
    /// The index or database it ran on (no credentials).
    pub target: String,
    /// ES only: the cursor of the page after this one (the sort values of its last hit), kept
    /// so "show me more" past the 10,000-hit window fetches it in one request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_after: Option<Vec<Value>>,
}

impl Artifact {
    /// The offset of the page after this one, or `None` when this page reached the end.
    pub fn next_offset(&self) -> Option<usize> {
        let next = self.offset + self.page_size;
        match self.total {
            Some(total) if next as u64 >= total => None,
            _ => Some(next),
        }
    }
}

/// A clarifying question a turn ended with, so the next turn can answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingClarification {
    /// The checkpoint to resume (the route's checkpoint id).
    pub checkpoint: String,
    /// The question put to the user.
    pub message: String,
    /// The numbered choices offered.
    pub alternatives: Vec<String>,
}

/// A turn as stored: the design guide's session line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// 1-based position in the session.
    pub turn: u32,
    /// When it was recorded (RFC 3339, UTC).
    pub timestamp: String,
    /// The message as typed.
    pub question: String,
    /// The goal the message was turned into (the message itself when nothing was rewritten).
    pub main_goal: String,
    /// Why the goal reads as it does (rules applied, or the LLM's reasoning).
    pub reasoning: String,
    /// A pasted ES body or SQL statement, if the message contained one.
    pub user_query_text: Option<String>,
    /// The message refers to earlier results ("show me more", "the same but for 2024").
    pub references_prior_results: bool,
    /// The user asked to run without clarifying questions.
    pub force_execute: bool,
    /// The route that answered.
    pub route: Route,
    /// How the turn ended.
    pub status: Status,
    /// The query that ran and its page, on the SQL and ES routes.
    pub artifact: Option<Artifact>,
    /// A short summary of the answer (first line, row count, …).
    pub answer_summary: String,
    /// The trace of the run.
    pub trace_id: String,
    /// The clarifying question the turn ended with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clarification: Option<PendingClarification>,
}

/// A turn before the store numbers and stamps it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTurn {
    /// See [`Turn::question`].
    pub question: String,
    /// See [`Turn::main_goal`].
    pub main_goal: String,
    /// See [`Turn::reasoning`].
    pub reasoning: String,
    /// See [`Turn::user_query_text`].
    pub user_query_text: Option<String>,
    /// See [`Turn::references_prior_results`].
    pub references_prior_results: bool,
    /// See [`Turn::force_execute`].
    pub force_execute: bool,
    /// See [`Turn::route`].
    pub route: Route,
    /// See [`Turn::status`].
    pub status: Status,
    /// See [`Turn::artifact`].
    pub artifact: Option<Artifact>,
    /// See [`Turn::answer_summary`].
    pub answer_summary: String,
    /// See [`Turn::trace_id`].
    pub trace_id: String,
    /// See [`Turn::clarification`].
    pub clarification: Option<PendingClarification>,
}

impl NewTurn {
    /// The stored turn with its number and timestamp.
    pub(crate) fn numbered(self, turn: u32, timestamp: String) -> Turn {
        Turn {
            turn,
            timestamp,
            question: self.question,
            main_goal: self.main_goal,
            reasoning: self.reasoning,
            user_query_text: self.user_query_text,
            references_prior_results: self.references_prior_results,
            force_execute: self.force_execute,
            route: self.route,
            status: self.status,
            artifact: self.artifact,
            answer_summary: self.answer_summary,
            trace_id: self.trace_id,
            clarification: self.clarification,
        }
    }
}

impl Turn {
    /// The turn as `qa session show` lists it: number, time, route and status, the message, its
    /// goal when rewritten, what ran, the clarifying question, the answer's first line.
    pub fn describe(&self) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        let _ = writeln!(o, "#{} {} [{} · {}] {}", self.turn, self.timestamp, self.route, self.status.as_str(), self.question);
        if self.main_goal != self.question {
            let _ = writeln!(o, "    goal: {}", self.main_goal);
        }
        if let Some(a) = &self.artifact {
            let total = a.total.map(|n| format!(" of {n}")).unwrap_or_default();
            let query = match &a.query {
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            let _ = writeln!(o, "    ran on {}: rows {}–{}{total}: {}", a.target, a.offset + 1, a.offset + a.page_size, qa_core::text::truncate(&query, 100));
        }
        if let Some(c) = &self.clarification {
            let _ = writeln!(o, "    asked: {} ({})", c.message, c.alternatives.join(" | "));
        }
        if !self.answer_summary.is_empty() {
            let _ = writeln!(o, "    → {}", qa_core::text::truncate(&self.answer_summary, 100));
        }
        o
    }
}
