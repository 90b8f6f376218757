//! `qa route "question"`: the smart router's decision without running anything — target,
//! query type, confidence, extracted filters, whether an LLM is needed, the reasons and every
//! configured source's score.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::config::Settings;
use qa_settings::sources::Sources;
use qa_route::RouteDecision;
use qa_route::routed::Routing;

pub const ROUTE_EXAMPLES: &str = "\
Examples:
  qa route \"How many open findings per department?\" --db samples/sql/audit.db
  qa route \"Why are so many findings still open?\" --json
  qa route \"Show the overdue items and explain what they have in common\"

Sources: the indexed documents (the latest corpus, or --corpus / QA_CORPUS), a SQL database
(--db / QA_SQL_URL) and an Elasticsearch index (--es / QA_ES), each scored by how well the question
maps onto it: table, index and field names, sampled values and the semantic files' aliases, and the
documents' entity names. A structured source needs a score of 3 (a name or value plus a field) to
take a question from the documents. Query types: simple (a direct query), complex (an analysis),
hybrid (records, then their analysis); below confidence 0.6 the type is complex.";

#[derive(Debug, Args, Clone)]
#[command(after_help = ROUTE_EXAMPLES)]
pub struct RouteArgs {
    /// The question to route.
    #[arg(value_name = "QUESTION", required = true)]
    pub question: Vec<String>,
    #[command(flatten)]
    pub sources: crate::cli::SourceFlags,
    /// Print the decision as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Route `question` over the configured sources.
pub fn decide(settings: &Settings, question: &str) -> (RouteDecision, Vec<String>) {
    let sources = Sources::open(settings);
    (Routing::decide(question, &sources.profiles(), None, None).decision, sources.warnings)
}

pub fn run(settings: &mut Settings, args: &RouteArgs) -> Result<ExitCode> {
    args.sources.apply(settings);
    settings.validate()?;
    if let Some(note) = settings.discover_sources() {
        eprintln!("note: {note}");
    }
    let question = args.question.join(" ");
    let (d, warnings) = decide(settings, &question);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &d)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    write!(out, "{}", d.explain())?;
    Ok(ExitCode::SUCCESS)
}

/// `qa sources`: what the router sees — each source, why it is there (the setting and where its
/// value came from, or the index found in the data folder) — and what could not be opened.
pub fn sources(settings: &mut Settings, args: &SourcesArgs) -> Result<ExitCode> {
    args.sources.apply(settings);
    settings.validate()?;
    let mut notes: Vec<String> = settings.discover_sources().into_iter().collect();
    let from = |key: &str| match settings.origin(key) {
        crate::config::Origin::Discovered => "found in the data folder".to_string(),
        o => format!("{key} from {}", o.source(key)),
    };
    let found = Sources::open(settings);
    notes.extend(found.warnings.iter().filter(|w| !w.starts_with("SQL source not used")).cloned());
    if let Some(why) = &found.sql_error {
        notes.push(format!("the SQL source ({}) could not be opened: {why}", from("sql_url")));
    }
    let why = |target: qa_route::Target| -> String {
        match target {
            qa_route::Target::Documents => format!("indexed in {}", settings.data_dir.display()),
            qa_route::Target::Sql => from("sql_url"),
            qa_route::Target::Es => from("es"),
        }
    };
    let rows: Vec<serde_json::Value> = found
        .profiles()
        .into_iter()
        .map(|p| serde_json::json!({"target": p.target, "name": p.name, "collections": p.collections, "fields": p.fields.len(), "why": why(p.target)}))
        .collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &serde_json::json!({"sources": rows, "notes": notes}))?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        writeln!(out, "No source: index documents (qa index DIR), or name a database (--db / QA_SQL_URL) or a search index (--es / QA_ES).")?;
    }
    for r in &rows {
        let target = r["target"].as_str().unwrap_or("");
        writeln!(out, "{target:<10} {}  ({} fields; {})", r["name"].as_str().unwrap_or(""), r["fields"], r["why"].as_str().unwrap_or(""))?;
    }
    for n in &notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `qa sources`.
#[derive(Debug, clap::Args)]
pub struct SourcesArgs {
    #[command(flatten)]
    pub sources: crate::cli::SourceFlags,
    /// Print the sources as JSON.
    #[arg(long)]
    pub json: bool,
}
