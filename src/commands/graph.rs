//! `qa graph ...`: load KG JSONL into the configured graph store, show its counts and schema, and
//! judge a Cypher query the way generated queries are judged.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::json;

use crate::cli::{GraphArgs, GraphCommand};
use crate::config::{GraphBackend, Settings};
use qa_graph::cypher::{self, Policy};
use qa_graph::IngestStats;

pub fn run(settings: &Settings, args: &GraphArgs) -> Result<ExitCode> {
    match &args.command {
        GraphCommand::Ingest { files, json } => ingest(settings, files, *json),
        GraphCommand::Stats { json } => stats(settings, *json),
        GraphCommand::Concepts { top, examples, files, json } => concepts(settings, *top, *examples, files, *json),
        GraphCommand::Schema { json } => schema(settings, *json),
        GraphCommand::Check { cypher, json, no_schema } => check(settings, cypher, *json, *no_schema),
    }
}

#[derive(Debug, Serialize)]
struct IngestReport {
    backend: String,
    target: String,
    files: Vec<String>,
    documents: usize,
    malformed_lines: usize,
    stats: IngestStats,
    ms: f64,
}

fn ingest(settings: &Settings, files: &[PathBuf], json_out: bool) -> Result<ExitCode> {
    let t = Instant::now();
    let backend = settings.effective_graph_store().to_string();
    let files = kg_files(settings, files)?;
    let (docs, skipped) = read_kg(&files)?;
    let malformed: usize = skipped.iter().map(|(_, n)| n).sum();
    let spinner = crate::app::spinner(json_out, &format!("loading {} graph documents into the {backend} store", docs.len()));
    let config = settings.graph_store_config();
    let loaded = if config.backend == GraphBackend::Neo4j {
        qa_graph::load::load_documents(&config, None, &docs)?
    } else {
        let (cd, gen_dir) = settings.live_generation()?;
        let _lock = cd.lock()?;
        qa_graph::load::load_documents(&config, Some(&gen_dir), &docs)?
    };
    let (target, stats) = (loaded.target, loaded.stats);
    spinner.finish_and_clear();
    let report = IngestReport {
        backend,
        target,
        files: files.iter().map(|f| f.display().to_string()).collect(),
        documents: docs.len(),
        malformed_lines: malformed,
        stats,
        ms: t.elapsed().as_secs_f64() * 1000.0,
    };
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let s = &report.stats;
        println!("Loaded {} graph documents from {} file(s) into the {} store ({})", report.documents, report.files.len(), report.backend, report.target);
        println!("  created:  {} nodes, {} relationships", s.nodes, s.relationships);
        println!("  merged:   {} properties set on existing nodes", s.properties_set);
        if s.skipped_relationships > 0 {
            println!("  skipped:  {} relationships whose endpoints are in no document", s.skipped_relationships);
        }
        if report.malformed_lines > 0 {
            println!("  skipped:  {} malformed lines", report.malformed_lines);
        }
        println!("  time:     {:.0} ms", report.ms);
    }
    Ok(ExitCode::SUCCESS)
}

/// The KG files given, or the selected corpus's own.
fn kg_files(settings: &Settings, files: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if !files.is_empty() {
        return Ok(files.to_vec());
    }
    let (cd, _) = settings.live_generation().context("no KG file given and no indexed corpus to take it from")?;
    Ok(vec![settings.chunk_dir().join(format!("{}_kg.jsonl", cd.name))])
}

/// The documents of KG files, with a warning for each file that had malformed lines.
fn read_kg(files: &[PathBuf]) -> Result<(Vec<qa_graph::kg::GraphDocument>, qa_graph::kg::SkippedLines)> {
    let (docs, skipped) = qa_graph::kg::read_kg_files(files)?;
    for (f, bad) in &skipped {
        eprintln!("warning: {}: {bad} malformed line(s) skipped", f.display());
    }
    Ok((docs, skipped))
}

fn concepts(settings: &Settings, top: usize, examples: bool, files: &[PathBuf], json_out: bool) -> Result<ExitCode> {
    let files = kg_files(settings, files)?;
    let (docs, _) = read_kg(&files)?;
    let (example_names, concepts): (Vec<_>, Vec<_>) = qa_graph::kg::concept_links(&docs).into_iter().partition(|c| c.example);
    let all = if examples { &example_names } else { &concepts };
    let shown = &all[..all.len().min(top)];
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"concepts": concepts.len(), "example_names": example_names.len(), "top": shown}))?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    if examples {
        writeln!(out, "{} example names (identifiers the corpus's listings invent); the {} most linked:", all.len(), shown.len())?;
    } else {
        let aside = if example_names.is_empty() { String::new() } else { format!(" ({} example name{} set aside: --examples)", example_names.len(), if example_names.len() == 1 { "" } else { "s" }) };
        writeln!(out, "{} concepts{aside}; the {} most linked (links = mentions + related):", all.len(), shown.len())?;
    }
    writeln!(out, "  {:>6} {:>8} {:>7}  {:<8} concept", "links", "mentions", "related", "kind")?;
    for c in shown {
        writeln!(out, "  {:>6} {:>8} {:>7}  {:<8} {}", c.links(), c.mentions, c.related, c.kind, c.name)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn stats(settings: &Settings, json_out: bool) -> Result<ExitCode> {
    let mut g = settings.open_graph_store()?;
    let counts = g.counts()?;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"backend": g.backend(), "counts": counts}))?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} store: {} nodes, {} relationships", g.backend(), counts.nodes, counts.relationships)?;
    writeln!(out, "\nNodes by label:")?;
    for (label, n) in &counts.by_label {
        writeln!(out, "  {label:<24} {n:>9}")?;
    }
    writeln!(out, "\nRelationships by type:")?;
    for (ty, n) in &counts.by_type {
        writeln!(out, "  {ty:<24} {n:>9}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn schema(settings: &Settings, json_out: bool) -> Result<ExitCode> {
    let mut g = settings.open_graph_store()?;
    let s = g.schema()?;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"backend": g.backend(), "schema": s}))?);
    } else {
        println!("{} store", g.backend());
        println!("  labels:             {}", s.labels.join(", "));
        println!("  relationship types: {}", s.relationship_types.join(", "));
        println!("  property keys:      {}", s.property_keys.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

/// `qa graph check`: exit 0 when the query would run (as given or sanitized), 1 when refused.
fn check(settings: &Settings, query: &str, json_out: bool, no_schema: bool) -> Result<ExitCode> {
    // The schema of the configured store; without one, only the structural rules apply.
    let (schema, procedures, note) = if no_schema {
        (None, Vec::new(), Some("schema not checked (--no-schema)".to_string()))
    } else {
        match settings.open_graph_store().and_then(|mut g| Ok((g.schema()?, g.extra_procedures()))) {
            Ok((s, p)) => (Some(qa_graph::generate::to_cypher_schema(&s)), p.iter().map(|x| x.to_string()).collect(), None),
            Err(e) => (None, Vec::new(), Some(format!("schema not checked: the graph store is unavailable ({e:#})"))),
        }
    };
    let policy = Policy { row_cap: settings.graph_row_cap as u64, extra_procedures: procedures };
    let report = cypher::check(query, schema.as_ref(), &policy);
    let code = if report.accepted { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"report": report, "note": note}))?);
        return Ok(code);
    }
    let mut out = std::io::stdout().lock();
    if let Some(n) = &note {
        writeln!(out, "note: {n}")?;
    }
    let v = &report.validation;
    if report.accepted {
        writeln!(out, "accepted")?;
    } else {
        writeln!(out, "rejected")?;
    }
    for r in &v.reasons {
        let how = if r.kind.fixable() { "fixable" } else { "refused" };
        writeln!(out, "  - {} ({how})", r.message)?;
    }
    for w in &v.warnings {
        writeln!(out, "  warning: {w}")?;
    }
    if let Some(s) = &report.sanitized {
        writeln!(out, "sanitized:")?;
        for c in &s.changes {
            writeln!(out, "  - {c}")?;
        }
        if let Some(rv) = &report.revalidation {
            for r in &rv.reasons {
                writeln!(out, "  - after sanitizing: {}", r.message)?;
            }
        }
    }
    if let Some(q) = &report.cypher_to_run {
        writeln!(out, "query to run:\n{q}")?;
    }
    Ok(code)
}
