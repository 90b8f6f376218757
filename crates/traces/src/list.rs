//! `qa traces list`: one line per trace.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::{Filter, ScanCounts, TraceLite, TracesError, scan, truncate};

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

/// How the list is written.
pub struct Style {
    /// A JSON array instead of lines.
    pub json: bool,
    /// Columns of a line.
    pub width: usize,
    /// Only the last N rows (`None`: every row, streamed as it is read).
    pub limit: Option<usize>,
}

/// Write the rows of the traces in `path` that pass `filter` and `keep` to `out`. Without a
/// limit rows stream straight out (a JSON array written element by element); with one, only
/// the last N rows are kept.
pub fn write(path: &Path, filter: &Filter, keep: &dyn Fn(&TraceLite) -> bool, style: &Style, out: &mut dyn Write) -> Result<ScanCounts, TracesError> {
    let write_err = |source: std::io::Error| TracesError::Write { what: "the list", source };
    let mut rows: std::collections::VecDeque<ListRow> = std::collections::VecDeque::new();
    let cap = style.limit.unwrap_or(usize::MAX);
    let line = |r: &ListRow| r.line(style.width);
    // Without --limit rows stream straight out (a JSON array written element by element);
    // with it, only the last N rows are kept.
    let streaming = style.limit.is_none();
    let mut io_err: Option<std::io::Error> = None;
    let mut first = true;
    if streaming && style.json {
        write!(out, "[").map_err(write_err)?;
    }
    let counts = scan(path, filter, |t| {
        if !keep(t) || cap == 0 || io_err.is_some() {
            return;
        }
        let row = ListRow::of(t);
        if !streaming {
            if rows.len() == cap {
                rows.pop_front();
            }
            rows.push_back(row);
            return;
        }
        let res = if style.json {
            let sep = if first { "\n  " } else { ",\n  " };
            write!(out, "{sep}").and_then(|_| serde_json::to_writer(&mut *out, &row).map_err(std::io::Error::other))
        } else {
            writeln!(out, "{}", line(&row))
        };
        first = false;
        if let Err(e) = res {
            io_err = Some(e);
        }
    })?;
    if let Some(e) = io_err {
        return Err(write_err(e));
    }
    if streaming {
        if style.json {
            writeln!(out, "{}]", if first { "" } else { "\n" }).map_err(write_err)?;
        }
    } else if style.json {
        serde_json::to_writer_pretty(&mut *out, &rows).map_err(|e| write_err(e.into()))?;
        writeln!(out).map_err(write_err)?;
    } else {
        for r in &rows {
            writeln!(out, "{}", line(r)).map_err(write_err)?;
        }
    }
    Ok(counts)
}
