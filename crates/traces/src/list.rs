//! `qa traces list`: one line per trace.

use serde::Serialize;

use crate::{TraceLite, truncate};

/// One trace as the list shows it.
#[derive(Debug, Serialize)]
pub struct ListRow {
    /// When it was written.
    pub timestamp: String,
    /// Its id.
    pub trace_id: String,
    /// The route that answered.
    pub route: String,
    /// How it ended (snake case; blank when not recorded).
    pub status: &'static str,
    /// Wall time of the whole question.
    pub total_ms: f64,
    /// Chunks retrieved.
    pub chunks: usize,
    /// Graph nodes in the evidence.
    pub graph_nodes: usize,
    /// Something failed (an error, a refused query, a failed LLM call).
    pub failed: bool,
    /// The question as asked.
    pub question: String,
}

impl ListRow {
    /// The row of a trace.
    pub fn of(t: &TraceLite) -> ListRow {
        ListRow {
            timestamp: t.timestamp.clone(),
            trace_id: t.trace_id.clone(),
            route: t.route.to_string(),
            status: t.status().map_or("", |s| s.as_str()),
            total_ms: t.latency_ms.total,
            chunks: t.chunks(),
            graph_nodes: t.graph_nodes(),
            failed: t.failed(),
            question: t.user_question.clone(),
        }
    }

    /// The row as one line of at most `width` columns (the question is cut to fit, at least 20).
    pub fn line(&self, width: usize) -> String {
        let time = self.timestamp.get(..19).unwrap_or(&self.timestamp).replace('T', " ");
        let head = format!("{time:<19}  {:<16}  {:<9} {:<8} {:>9.1} ms {:>3} ch {:>3} nd  ", self.trace_id, self.route, short_status(self.status), self.total_ms, self.chunks, self.graph_nodes);
        let room = width.saturating_sub(head.chars().count()).max(20);
        format!("{head}{}", truncate(&self.question, room))
    }
}

/// The status in the list's column: `answered`, `clarify`, `error` (or blank).
fn short_status(s: &str) -> &str {
    if s == "needs_clarification" { "clarify" } else { s }
}
