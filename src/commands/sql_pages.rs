//! SQL statements a conversation runs without the agent: "show me more" (the last statement one
//! page further) and a statement pasted into the message. Both go through the validator with
//! the schema (read-only, known tables and columns, LIMIT capped) before anything reaches the
//! database, and both leave the page in the session for the next "show me more".

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::commands::sql::{append_trace, limits, open_db, parse_url, terminal_width};
use crate::config::Settings;
use crate::conversation::{Conversation, TurnOutcome, page_trace, sql_artifact};
use qa_core::trace::{Route, Status};
use qa_sql::{QueryResult, present, validate};

/// "Show me more" after a SQL answer: the same statement one page further (`LIMIT size OFFSET
/// next`), validated like any statement and run read-only.
pub fn next_page(settings: &Settings, quiet: bool, message: &str, conv: &Conversation, artifact: &qa_converse::Artifact, json_out: bool) -> Result<TurnOutcome> {
    let Some(offset) = artifact.next_offset() else {
        let note = format!("That was the last page: rows {}–{} of {}.", artifact.offset + 1, artifact.offset + artifact.page_size, artifact.total.unwrap_or(0));
        if json_out {
            let mut v = json!({"status": "answered", "columns": [], "rows": [], "page": {"offset": artifact.offset, "size": artifact.page_size, "next_offset": null}, "note": note});
            merge(&mut v, Some(conv), true);
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            println!("{note}");
        }
        return Ok(TurnOutcome { exit: ExitCode::SUCCESS, route: Route::Sql, status: Status::Answered, artifact: Some(artifact.clone()), summary: "no more rows".into(), trace_id: String::new(), clarification: None });
    };
    let url = parse_url(settings, None).context("`show me more` on a SQL result needs the database (--db or QA_SQL_URL)")?;
    let mut db = open_db(&url, settings)?;
    let schema = db.introspect(0).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    let statement = artifact.query.as_str().unwrap_or_default();
    let paged = validate::paged(statement, url.dialect, offset as u64, artifact.page_size as u64)
        .ok_or_else(|| anyhow::anyhow!("the earlier statement cannot be paged: {statement}"))?;
    let verdict = validate::validate(&paged, url.dialect, Some(&schema), settings.sql_row_cap);
    let Some(sql) = verdict.sql.clone().filter(|_| verdict.ok) else {
        let reasons: Vec<String> = verdict.reasons.iter().map(|r| r.message.clone()).collect();
        anyhow::bail!("the next page was refused by the validator: {}", reasons.join("; "));
    };
    let result = db.query(&sql, limits(settings)).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    let page = Page { statement, sql: &sql, offset, size: artifact.page_size, more: result.rows.len() == artifact.page_size, label: "of the earlier result" };
    show(settings, quiet, message, Some(conv), &page, &result, json_out, &url.to_string(), true)
}

/// A SQL statement pasted into the message: checked by the validator against the schema and run
/// read-only, its first page shown. A refused statement is reported with the reasons and never
/// reaches the database (exit 1).
pub fn run_pasted(settings: &Settings, quiet: bool, message: &str, statement: &str, conv: Option<&Conversation>, json_out: bool) -> Result<TurnOutcome> {
    let url = parse_url(settings, None).context("a pasted SQL statement runs on the database: set --db or QA_SQL_URL")?;
    let mut db = open_db(&url, settings)?;
    let schema = db.introspect(0).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    let verdict = validate::validate(statement, url.dialect, Some(&schema), settings.sql_row_cap);
    let Some(sql) = verdict.sql.clone().filter(|_| verdict.ok) else {
        let reasons: Vec<String> = verdict.reasons.iter().map(|r| r.message.clone()).collect();
        return refuse(settings, quiet, message, statement, &reasons, conv, json_out);
    };
    let result = db.query(&sql, limits(settings)).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    // The statement's own LIMIT (kept when within the row cap) is all the user asked for; a
    // LIMIT the validator added or lowered may have rows after it.
    let capped = !verdict.changes.is_empty();
    let page = Page { statement, sql: &sql, offset: 0, size: settings.sql_row_cap, more: capped && result.rows.len() >= settings.sql_row_cap, label: "of the pasted statement" };
    show(settings, quiet, message, conv, &page, &result, json_out, &url.to_string(), false)
}

/// One page of a statement's result.
struct Page<'a> {
    /// The statement as the user or the agent wrote it (what later pages re-page).
    statement: &'a str,
    /// What ran.
    sql: &'a str,
    offset: usize,
    size: usize,
    /// Rows may follow this page.
    more: bool,
    /// "of the earlier result", for the summary line.
    label: &'a str,
}

/// Print a page (table or `--json`), append its trace and return what the session keeps.
#[allow(clippy::too_many_arguments)]
fn show(settings: &Settings, quiet: bool, message: &str, conv: Option<&Conversation>, page: &Page, result: &QueryResult, json_out: bool, target: &str, prior: bool) -> Result<TurnOutcome> {
    let rows = result.rows.len();
    let summary = if rows == 0 { format!("no rows {}", page.label) } else { format!("rows {}–{} {}", page.offset + 1, page.offset + rows, page.label) };
    let mut trace = page_trace(message, Route::Sql, format!("{summary}: {}", page.sql), conv.map(Conversation::trace_block));
    trace.latency_ms.total = result.elapsed_ms;
    append_trace(settings, &trace);
    let next = page.more.then_some(page.offset + rows);
    if json_out {
        let mut v = json!({
            "status": "answered", "sql": page.sql, "columns": result.columns, "rows": result.rows,
            "page": {"offset": page.offset, "size": page.size, "next_offset": next}, "trace_id": trace.trace_id,
        });
        merge(&mut v, conv, prior);
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("{}", present::render_table(result, terminal_width()));
        println!("{summary}{}", if page.more { " (say \"show me more\" for the next page)" } else { " (the last page)" });
        println!("\nSQL: {}", page.sql);
    }
    if !quiet && !json_out {
        eprintln!("\n[sql · {} · trace {}]", if prior { "page" } else { "pasted statement" }, trace.trace_id);
    }
    // `total` stays unknown while pages are full; a short page is the end.
    let mut artifact = sql_artifact(page.statement, page.offset, page.size, page.more, target);
    if !page.more {
        artifact.total = Some((page.offset + rows) as u64);
    }
    Ok(TurnOutcome { exit: ExitCode::SUCCESS, route: Route::Sql, status: Status::Answered, artifact: Some(artifact), summary, trace_id: trace.trace_id, clarification: None })
}

/// A refused pasted statement: the reasons on stderr (or in the JSON), a trace, exit 1.
fn refuse(settings: &Settings, quiet: bool, message: &str, statement: &str, reasons: &[String], conv: Option<&Conversation>, json_out: bool) -> Result<TurnOutcome> {
    let error = format!("the pasted SQL statement was refused: {}", reasons.join("; "));
    let mut trace = page_trace(message, Route::Sql, String::new(), conv.map(Conversation::trace_block));
    trace.status = Some(Status::Error);
    trace.error = Some(error.clone());
    append_trace(settings, &trace);
    if json_out {
        let mut v = json!({"status": "error", "error": error, "reasons": reasons, "user_query_text": statement, "trace_id": trace.trace_id});
        merge(&mut v, conv, false);
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        eprintln!("refused: the pasted SQL statement did not run");
        for r in reasons {
            eprintln!("  - {r}");
        }
        if !quiet {
            eprintln!("`qa sql check 'SQL'` explains a verdict; nothing was sent to the database");
        }
    }
    Ok(TurnOutcome { exit: ExitCode::FAILURE, route: Route::Sql, status: Status::Error, artifact: None, summary: error, trace_id: trace.trace_id, clarification: None })
}

/// The session's keys merged into a JSON answer.
fn merge(v: &mut Value, conv: Option<&Conversation>, prior: bool) {
    if let (Some(c), Value::Object(obj)) = (conv, v) {
        obj.extend(c.json_fields());
        if prior {
            obj.insert("references_prior_results".into(), Value::Bool(true));
        }
    }
}
