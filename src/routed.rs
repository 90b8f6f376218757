//! `qa "question"` through the router, as the CLI sees it: the sources opened from the settings,
//! `--route` / `--type` checked, the answer of whichever source (`qa_route::routed`) printed the
//! same way for every source, its trace appended and the session turn recorded.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::{Map, Value};

use crate::cli::AskFlags;
use crate::config::Settings;
use qa_settings::sources::{Sources, open_one};
use qa_converse::reiterate::PastedKind;
use qa_converse::{Conversation, TurnOutcome};
use qa_route::routed::{AnswerOptions, Routing};
use qa_route::source::{Presentation, SourceAnswer};
use qa_route::{QueryType, RouteError, Target};

/// A route's error for the user: the message and what to do.
pub fn route_failure(e: RouteError) -> anyhow::Error {
    if e.suggestion.is_empty() {
        return anyhow::anyhow!("{}", e.message);
    }
    anyhow::anyhow!("{}\n  hint: {}", e.message, e.suggestion)
}

/// Decide where and how `question` is answered; `--route` and `--type` override the rules.
pub fn decide(sources: &Sources, question: &str, flags: &AskFlags) -> Result<Routing> {
    let target = flags.route.map(Target::from);
    if let Some(t) = target
        && t != Target::Documents
        && !sources.list.iter().any(|s| s.target() == t)
    {
        // Configured but not opened: say why, not "not configured".
        let prefix = if t == Target::Sql { "SQL source not used: " } else { "Elasticsearch index not used: " };
        if let Some(why) = sources.warnings.iter().find_map(|w| w.strip_prefix(prefix)) {
            anyhow::bail!("--route {}: the source could not be opened: {why}", t.as_str());
        }
        anyhow::bail!("--route {}: that source is not configured ({})", t.as_str(), if t == Target::Sql { "set --db or QA_SQL_URL" } else { "set --es or QA_ES" });
    }
    Ok(Routing::decide(question, &sources.profiles(), target, flags.query_type.map(QueryType::from)))
}

/// How answers are drawn for these flags.
pub fn presentation(settings: &Settings, flags: &AskFlags, quiet: bool, in_session: bool) -> Presentation {
    Presentation { trace: flags.trace, quiet: quiet || flags.json, width: terminal_width(), in_session, trace_file: settings.trace_file() }
}

/// Columns of the terminal (100 when unknown).
pub fn terminal_width() -> usize {
    let (_, cols) = console::Term::stdout().size();
    if cols == 0 { 100 } else { cols as usize }
}

/// Append `trace` to the trace file (a failure is a warning: the answer stands).
pub fn append_trace(settings: &Settings, trace: &qa_core::trace::TraceRecord) {
    if let Ok(json) = serde_json::to_string(trace) {
        tracing::info!(target: "qa::trace", "QUERY_TRACE_JSON {json}");
    }
    if let Err(e) = qa_core::trace::append(&settings.trace_file(), trace) {
        tracing::warn!("could not append the trace: {e}");
    }
}

/// One turn's end, for every route: the session's block in the trace, the trace appended, the
/// answer printed (unless `drawn` printed it already), the turn recorded. The exit code.
pub struct Finish<'a> {
    pub settings: &'a Settings,
    pub flags: &'a AskFlags,
    pub quiet: bool,
    pub message: &'a str,
    pub conv: Option<&'a Conversation>,
}

impl Finish<'_> {
    pub fn show(&self, mut answer: SourceAnswer, mut extra: Map<String, Value>, summary: Option<String>, drawn: bool) -> Result<ExitCode> {
        if let Some(c) = self.conv {
            answer.trace.conversation = Some(c.trace_block());
            answer.trace.user_question = self.message.to_string();
            for (k, v) in c.json_fields() {
                extra.entry(k).or_insert(v);
            }
        }
        append_trace(self.settings, &answer.trace);
        if !drawn {
            let p = presentation(self.settings, self.flags, self.quiet, self.conv.is_some());
            qa_route::source::present(&answer, self.flags.json, Some(&Value::Object(extra)), &p, &mut std::io::stdout().lock(), &mut std::io::stderr().lock())?;
        }
        if let Some(c) = self.conv {
            let outcome = TurnOutcome {
                route: answer.route(),
                status: answer.status,
                artifact: answer.artifact.clone(),
                summary: summary.unwrap_or_else(|| answer.summary.clone()),
                trace_id: answer.trace.trace_id.clone(),
                clarification: answer.clarification.clone(),
            };
            c.record(self.message, &outcome).with_context(|| format!("recording the turn in session {}", c.name))?;
        }
        Ok(ExitCode::from(answer.exit_code()))
    }
}

/// Answer `question` on the source `routing` chose, print it and record the turn.
pub fn answer(f: &Finish<'_>, question: &str, sources: &mut Sources, routing: &Routing) -> Result<ExitCode> {
    let target = routing.decision.target;
    let Some(source) = sources.get(target) else {
        if target == Target::Documents {
            // The documents were not opened: say why (a missing index names the command).
            return Err(sources.documents_error.take().map(anyhow::Error::from).unwrap_or_else(|| anyhow::anyhow!("the documents are not indexed: run `qa index DIR`")));
        }
        anyhow::bail!("the {} source is not open", target.as_str());
    };
    let spinner = crate::progress::Spinner::new(f.quiet || f.flags.json);
    let llm = f.settings.llm_settings();
    let options = AnswerOptions { force: f.conv.is_some_and(|c| c.force), in_session: f.conv.is_some(), llm: &llm, progress: &spinner };
    let routed = qa_route::routed::answer(source, routing, question, &options).map_err(route_failure)?;
    if let Some(part) = &routed.retrieval_part
        && !f.quiet
        && !f.flags.json
    {
        eprintln!("[records for the analysis: \"{part}\"]");
    }
    let extra = match routed.json_keys(routing) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let (answer, analysed) = (routed.answer, routed.analysed);
    match analysed {
        // Complex: the analysis is the answer; the records it rests on are cited, not listed.
        Some(x) if routing.decision.query_type == QueryType::Complex && !f.flags.json => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "=== Analysis ({}) ===\n{}", if x.by_llm { "LLM" } else { "deterministic" }, x.text)?;
            if let Some(q) = answer.view.query_line() {
                writeln!(out, "\n{q}")?;
            }
            if !f.quiet {
                let unit = if target == Target::Es { "hits" } else { "rows" };
                eprintln!("\n[{} · complex · {} of {} {unit} analysed · trace {}]", target.as_str(), x.selection.records.len(), answer.records.len(), answer.trace.trace_id);
            }
            let summary = qa_core::text::truncate(x.text.lines().next().unwrap_or_default(), 120);
            f.show(answer, extra, Some(summary), true)
        }
        Some(x) => {
            let code = f.show(answer, extra, None, false)?;
            if !f.flags.json {
                println!("\n=== Analysis ({}) ===\n{}", if x.by_llm { "LLM" } else { "deterministic" }, x.text);
            }
            Ok(code)
        }
        None => f.show(answer, extra, None, false),
    }
}

/// Run the query pasted into `message` (found by the session's reading, or by the reiterate
/// rules without a session) on its engine's route, checked by that source's validator; `None`
/// when there is none. `--route` may only agree.
pub fn run_if_pasted(f: &Finish<'_>) -> Result<Option<ExitCode>> {
    let pasted = match f.conv {
        Some(c) => c.pasted.clone(),
        None => {
            let r = qa_converse::reiterate::rules(f.message);
            r.user_query_text.zip(r.pasted_kind).map(|(text, kind)| (kind, text))
        }
    };
    let Some((kind, text)) = pasted else { return Ok(None) };
    let target = match kind {
        PastedKind::Sql => Target::Sql,
        PastedKind::Es => Target::Es,
    };
    if let Some(r) = f.flags.route
        && Target::from(r) != target
    {
        anyhow::bail!("the message holds a pasted {} query, which runs on the {} route, not on --route {}", kind.label(), target.as_str(), Target::from(r).as_str());
    }
    if !f.quiet && !f.flags.json {
        eprintln!("[pasted {} query: it is checked, then run as it is]", kind.label());
    }
    let Some(mut source) = open_one(f.settings, target).map_err(route_failure)? else {
        anyhow::bail!(match kind {
            PastedKind::Sql => "a pasted SQL statement runs on the database: set --db or QA_SQL_URL",
            PastedKind::Es => "a pasted Elasticsearch query runs on an index: set --es or QA_ES",
        });
    };
    let started = std::time::Instant::now();
    let mut answer = source.run_pasted(&text, f.message).map_err(route_failure)?;
    // No routing ran: nothing but the pasted query's check and run reached the source.
    let routing = Routing::fixed(target, format!("a pasted {} query", kind.label()));
    answer.trace.routing = Some(routing.trace_block());
    let mut extra = Map::new();
    extra.insert("routing".into(), serde_json::to_value(&routing.decision)?);
    extra.insert("metadata".into(), serde_json::to_value(routing.metadata(started, answer.records.len(), None, answer.error.clone()))?);
    f.show(answer, extra, None, false).map(Some)
}

/// Messages that continue an earlier turn: "show me more" and the reply to a clarifying
/// question. `None` when the message is a question of its own.
pub fn continue_earlier(f: &Finish<'_>, conv: &Conversation) -> Result<Option<ExitCode>> {
    let spinner = crate::progress::Spinner::new(f.quiet || f.flags.json);
    let mut open = |t: Target| open_one(f.settings, t);
    let Some(c) = qa_route::session::continue_earlier(conv, f.message, &mut open, &spinner).map_err(route_failure)? else { return Ok(None) };
    if !f.quiet && !f.flags.json {
        eprintln!("[{}]", conv.reasoning);
        if let Some(g) = &c.best_guess {
            eprintln!("[best guess: {g}]");
        }
    }
    let mut extra = Map::new();
    if c.prior {
        extra.insert("references_prior_results".into(), Value::Bool(true));
    }
    if let Some(g) = &c.best_guess {
        extra.insert("best_guess".into(), Value::String(g.clone()));
    }
    f.show(c.answer, extra, None, false).map(Some)
}
