//! How a SQL answer is drawn: the agent's answer (table, chart, statement, words not used; the
//! clarifying question; the failure with hints), a page of a statement, a refused statement.

use std::io::{self, Write};

use serde_json::{Value, json};

use qa_route::source::{AnswerView, Presentation};

use crate::agent::Outcome;
use crate::answer::SqlAnswer;
use crate::{QueryResult, present};

/// Rows a terminal answer shows; the rest are counted (and all of them are in `--json`).
pub const SHOWN_ROWS: usize = 100;

/// A SQL answer to draw.
pub enum SqlView {
    /// The agent's answer.
    Answer {
        /// The run.
        answer: Box<SqlAnswer>,
        /// The row cap it ran under.
        row_cap: usize,
    },
    /// A page of a statement (the next page of an earlier result, or a pasted statement).
    Page {
        /// The rows.
        result: QueryResult,
        /// What ran.
        sql: String,
        /// "rows 21–40 of the earlier result".
        summary: String,
        /// Rows may follow.
        more: bool,
        /// A page of an earlier result (not a pasted statement).
        prior: bool,
        /// The page's trace.
        trace_id: String,
        /// The `--json` object.
        json: Value,
    },
    /// A pasted statement the validator refused.
    Refused {
        /// Why.
        reasons: Vec<String>,
        /// The `--json` object.
        json: Value,
    },
}

impl AnswerView for SqlView {
    fn json(&self) -> Value {
        match self {
            SqlView::Answer { answer, .. } => answer_json(answer),
            SqlView::Page { json, .. } | SqlView::Refused { json, .. } => json.clone(),
        }
    }

    fn write_text(&self, p: &Presentation, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
        match self {
            SqlView::Answer { answer, row_cap } => write_answer(answer, *row_cap, p, out, err),
            SqlView::Page { result, sql, summary, more, prior, trace_id, .. } => {
                writeln!(out, "{}", present::render_table(result, p.width))?;
                writeln!(out, "{summary}{}", if *more { " (say \"show me more\" for the next page)" } else { " (the last page)" })?;
                writeln!(out, "\nSQL: {sql}")?;
                if !p.quiet {
                    writeln!(err, "\n[sql · {} · trace {trace_id}]", if *prior { "page" } else { "pasted statement" })?;
                }
                Ok(())
            }
            SqlView::Refused { reasons, .. } => {
                writeln!(err, "refused: the pasted SQL statement did not run")?;
                for r in reasons {
                    writeln!(err, "  - {r}")?;
                }
                if !p.quiet {
                    writeln!(err, "`qa sql check 'SQL'` explains a verdict; nothing was sent to the database")?;
                }
                Ok(())
            }
        }
    }

    fn query_line(&self) -> Option<String> {
        match self {
            SqlView::Answer { answer, .. } => Some(format!("SQL: {}", answer.run.sql().unwrap_or_default())),
            SqlView::Page { sql, .. } => Some(format!("SQL: {sql}")),
            SqlView::Refused { .. } => None,
        }
    }
}

/// The `--json` object of an agent's answer.
pub fn answer_json(a: &SqlAnswer) -> Value {
    let run = &a.run;
    let (columns, rows, truncated) = match &run.result {
        Some(r) => (json!(r.columns), json!(r.rows), r.truncated),
        None => (json!([]), json!([]), false),
    };
    let (status, error, suggestions, clarifying) = match &run.outcome {
        Outcome::Answered => ("answered", None, vec![], None),
        Outcome::NeedsClarification { question } => ("needs_clarification", None, vec![], Some(question.clone())),
        Outcome::Failed { error, suggestions } => ("failed", Some(error.clone()), suggestions.clone(), None),
    };
    json!({
        "status": status,
        "question": a.trace.user_question,
        "database": a.database,
        "dialect": run.state.get("dialect"),
        "sql": run.validated_sql(),
        "columns": columns,
        "rows": rows,
        "row_count": run.result.as_ref().map(|r| r.rows.len()),
        "truncated": truncated,
        "plan": run.state.get("plan"),
        "plan_confidence": run.state.get("plan_confidence"),
        "coverage": run.state.get("coverage"),
        "warnings": run.state.list("warnings"),
        "explain": run.state.get("exec_preview"),
        "candidates": run.state.get("sql_candidates"),
        "viz_spec": run.viz_spec(),
        "clarifying_question": clarifying,
        "checkpoint": a.checkpoint,
        "error": error,
        "suggestions": suggestions,
        "trace_id": a.trace.trace_id,
        "metrics": a.trace.internal.sql.as_ref().map(|s| &s.metrics),
    })
}

fn write_answer(a: &SqlAnswer, row_cap: usize, p: &Presentation, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
    let run = &a.run;
    match (&run.outcome, &run.result) {
        (Outcome::Answered, Some(r)) => {
            // A terminal shows the first rows only; --json carries every fetched row.
            let shown = if r.rows.len() > SHOWN_ROWS { QueryResult { rows: r.rows[..SHOWN_ROWS].to_vec(), ..r.clone() } } else { r.clone() };
            writeln!(out, "{}", present::render_table(&shown, p.width))?;
            if shown.rows.len() < r.rows.len() {
                writeln!(out, "… {} more rows not shown (all of them with --json)", r.rows.len() - shown.rows.len())?;
            }
            let cap = if r.truncated { format!(" (stopped at the row cap of {row_cap})") } else { String::new() };
            writeln!(out, "{} row{}{cap}", r.rows.len(), if r.rows.len() == 1 { "" } else { "s" })?;
            if let Some(chart) = run.viz_spec().and_then(|_| present::bar_chart(r, p.width.min(100))) {
                writeln!(out, "\n{chart}")?;
            }
            writeln!(out, "\nSQL: {}", run.sql().unwrap_or_default())?;
            let unused = run.unmapped();
            if !unused.is_empty() {
                writeln!(out, "not used: {}", unused.join(", "))?;
            }
            for w in run.warnings() {
                writeln!(err, "warning: {w}")?;
            }
        }
        (Outcome::NeedsClarification { question }, _) => {
            writeln!(out, "{question}")?;
            match (&a.checkpoint, p.in_session) {
                (Some(_), true) => writeln!(out, "\nReply with a number or the choice's words, or \"just run it\" for the first choice.")?,
                (Some(id), false) => writeln!(out, "\nAnswer with: qa sql --resume {id} --answer \"<number or words>\"")?,
                (None, _) => {}
            }
        }
        (Outcome::Failed { error, suggestions }, _) => {
            writeln!(err, "error: {error}")?;
            for s in suggestions {
                writeln!(err, "  hint: {s}")?;
            }
        }
        _ => {}
    }
    if !p.quiet {
        writeln!(err, "\n[sql · {} · {:.0} ms · trace {} → {}]", a.database, a.trace.latency_ms.total, a.trace.trace_id, p.trace_file.display())?;
    }
    Ok(())
}
