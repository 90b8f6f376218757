//! The text report of `qa sql eval` and `qa es eval`: counts per grade, overall, per difficulty
//! and per class, then the questions answered wrongly (all that are not right with `--details`).

use std::io::Write;

use qa_core::tabular_eval::{Counts, Grade, Summary};

/// One graded question, as both reports list it.
pub struct Listed<'a> {
    pub id: &'a str,
    pub question: &'a str,
    pub grade: Grade,
    /// The query that ran (SQL text or the ES body).
    pub query: Option<String>,
    pub detail: Option<&'a str>,
}

pub fn print(out: &mut impl Write, head: &str, summary: &Summary, listed: &[Listed<'_>], verbose: bool) -> std::io::Result<()> {
    writeln!(out, "{head}")?;
    writeln!(out, "{:<16} {:>5} {:>14} {:>14} {:>14} {:>14}", "", "n", "right", "wrong", "asked", "errored")?;
    let line = |name: &str, c: &Counts| {
        let f = |n: usize| format!("{n} ({:.1}%)", c.pct(n));
        format!("{name:<16} {:>5} {:>14} {:>14} {:>14} {:>14}", c.total, f(c.right), f(c.wrong), f(c.asked), f(c.errored))
    };
    writeln!(out, "{}", line("all", &summary.overall))?;
    for (d, c) in summary.by_difficulty.iter().filter(|_| summary.by_difficulty.len() > 1 || !summary.by_difficulty.contains_key("unrated")) {
        writeln!(out, "{}", line(d, c))?;
    }
    for (d, c) in &summary.by_class {
        writeln!(out, "{}", line(&format!("class {d}"), c))?;
    }
    let shown: Vec<&Listed> = listed.iter().filter(|r| r.grade == Grade::Wrong || (verbose && r.grade != Grade::Right)).collect();
    if !shown.is_empty() {
        writeln!(out, "\n{}:", if verbose { "Not right" } else { "Wrong but answered (--details lists the asked and errored too)" })?;
    }
    for r in shown {
        writeln!(out, "  [{:?}] {} {}", r.grade, r.id, r.question)?;
        if let Some(q) = &r.query {
            writeln!(out, "      query: {q}")?;
        }
        if let Some(d) = r.detail {
            writeln!(out, "      why: {}", d.replace('\n', "\n           "))?;
        }
    }
    Ok(())
}
