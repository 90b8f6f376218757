//! `qa traces ...`: offline analysis of the query traces (`logs/query_traces.jsonl`): stats,
//! list, show, export, an HTML report and a diff of two runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use crate::config::Settings;
use qa_traces::stats::Collector;
use qa_traces::{scan, truncate, Filter, TraceLite};

pub const TRACES_EXAMPLES: &str = "\
Examples:
  qa traces stats                                 counts, latency percentiles, failure rates
  qa traces stats --since 2026-01-01 --route graph --json
  qa traces list --slow 2000 --limit 20           the 20 most recent traces slower than 2 s
  qa traces list --failed                         errors, refused Cypher, failed LLM calls
  qa traces show 3f9a                             one trace with its evidence (unique id prefix)
  qa traces export --format csv --out traces.csv
  qa traces report --out report.html             self-contained HTML with inline SVG charts
  qa traces diff before.jsonl after.jsonl         same questions, two runs: latency, chunks, answers

Traces are read from logs/query_traces.jsonl under the data dir (--file for another file), one
line at a time: malformed or truncated lines are skipped and counted, records written by older
versions load with defaults for missing fields. Dates are YYYY-MM-DD (UTC; --until includes that
whole day) or RFC 3339. Percentiles are exact, nearest-rank: the value at rank ceil(p/100 * n)
of the sorted latencies of the filtered traces.";

#[derive(Debug, Args, Clone)]
#[command(after_help = TRACES_EXAMPLES)]
pub struct TracesArgs {
    #[command(subcommand)]
    pub command: TracesCommand,
}

/// Where to read and which traces to keep.
#[derive(Debug, Args, Clone, Default)]
pub struct TraceFilterArgs {
    /// Trace file [default: logs/query_traces.jsonl under the data dir]
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Only traces at or after this time (YYYY-MM-DD = midnight UTC, or RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only traces up to this time (YYYY-MM-DD includes the whole day, or RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Only traces with this route (e.g. documents, sql, es).
    #[arg(long, value_name = "ROUTE")]
    pub route: Option<String>,
}

#[derive(Debug, Subcommand, Clone)]
pub enum TracesCommand {
    /// Number of traces, route mix, latency p50/p95/p99/max per stage (exact, nearest-rank),
    /// token usage, rates of empty evidence, fallbacks, Cypher validation failures, LLM errors
    /// and clarification requests, and the 5 slowest questions.
    ///
    /// Rates are shares of the filtered traces. LLM errors: the error mentions the LLM or
    /// internal.llm.provider is "failed". Clarification requests: traces whose status is
    /// "needs_clarification", on any route (older SQL records: the agent's outcome). Token means
    /// divide by the traces that recorded token usage.
    Stats {
        #[command(flatten)]
        filter: TraceFilterArgs,
        /// Print the statistics as JSON.
        #[arg(long)]
        json: bool,
    },
    /// One line per trace: time, id, route, total ms, chunks, graph nodes, question.
    List {
        #[command(flatten)]
        filter: TraceFilterArgs,
        /// Only traces whose total latency is at least MS milliseconds.
        #[arg(long, value_name = "MS")]
        slow: Option<f64>,
        /// Only traces with an error, a refused generated Cypher query or a failed LLM.
        #[arg(long)]
        failed: bool,
        /// Only the last N matching traces (the most recent, in file order).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Print the rows as a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// One trace in full with its evidence: chunks (source, score), graph nodes and edges,
    /// generated and sanitized Cypher with the validation verdict, fallbacks, the answer.
    /// Exit code 1 when the id prefix matches no trace or several.
    Show {
        /// Trace id or a unique prefix of it.
        #[arg(value_name = "ID")]
        id: String,
        /// Trace file [default: logs/query_traces.jsonl under the data dir]
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// Print the trace record as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Flat rows, one per trace: id, timestamp, route, question, latencies, token counts, chunks,
    /// graph nodes, fallbacks (joined by ';'), cypher_ok, error.
    Export {
        #[command(flatten)]
        filter: TraceFilterArgs,
        /// csv (RFC 4180 quoting, header row) or jsonl.
        #[arg(long, value_name = "FORMAT", value_parser = ["csv", "jsonl"])]
        format: String,
        /// Write to FILE instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Write one self-contained HTML file (no scripts, no external assets): the stats tables,
    /// latency histograms per stage, stage breakdown of the last 200 queries, route mix, and the
    /// fallback rate per day (per hour when the traces span less than two days).
    Report {
        #[command(flatten)]
        filter: TraceFilterArgs,
        /// The HTML file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Compare two runs of the same questions, matched by question text: total latency ratio
    /// B/A, Jaccard overlap of retrieved chunk ids, whether the answer changed; then a summary
    /// (median ratio, mean Jaccard, answers changed, questions only in A or only in B).
    Diff {
        /// The first run's trace file.
        #[arg(value_name = "A")]
        a: PathBuf,
        /// The second run's trace file.
        #[arg(value_name = "B")]
        b: PathBuf,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(settings: &Settings, args: &TracesArgs) -> Result<ExitCode> {
    match &args.command {
        TracesCommand::Stats { filter, json } => stats(settings, filter, *json),
        TracesCommand::List { filter, slow, failed, limit, json } => list(settings, filter, *slow, *failed, *limit, *json),
        TracesCommand::Show { id, file, json } => show(&trace_file(settings, file.as_deref()), id, *json),
        TracesCommand::Export { filter, format, out } => export(settings, filter, format, out.as_deref()),
        TracesCommand::Report { filter, out } => report(settings, filter, out),
        TracesCommand::Diff { a, b, json } => diff(a, b, *json),
    }
}

fn trace_file(settings: &Settings, file: Option<&Path>) -> PathBuf {
    file.map(Path::to_path_buf).unwrap_or_else(|| settings.trace_file())
}

fn filter_of(f: &TraceFilterArgs) -> Result<Filter> {
    Ok(Filter::new(f.since.as_deref(), f.until.as_deref(), f.route.as_deref())?)
}

fn describe(f: &TraceFilterArgs) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &f.since {
        parts.push(format!("since {s}"));
    }
    if let Some(s) = &f.until {
        parts.push(format!("until {s}"));
    }
    if let Some(s) = &f.route {
        parts.push(format!("route {s}"));
    }
    parts.join(", ")
}

fn collect(settings: &Settings, f: &TraceFilterArgs) -> Result<qa_traces::stats::Aggregates> {
    let path = trace_file(settings, f.file.as_deref());
    let filter = filter_of(f)?;
    let mut c = Collector::default();
    let counts = scan(&path, &filter, |t| c.add(t))?;
    c.defaulted_lines = counts.defaulted;
    Ok(c.finish(path.display().to_string(), counts.malformed))
}

fn stats(settings: &Settings, f: &TraceFilterArgs, json: bool) -> Result<ExitCode> {
    let s = collect(settings, f)?.stats;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &s)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", qa_traces::stats::render_text(&s))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn list(settings: &Settings, f: &TraceFilterArgs, slow: Option<f64>, failed: bool, limit: Option<usize>, json: bool) -> Result<ExitCode> {
    let path = trace_file(settings, f.file.as_deref());
    let filter = filter_of(f)?;
    let width: usize = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(120);
    let keep = |t: &TraceLite| slow.is_none_or(|ms| t.latency_ms.total >= ms) && (!failed || t.failed());
    let style = qa_traces::list::Style { json, width, limit };
    let counts = qa_traces::list::write(&path, &filter, &keep, &style, &mut std::io::stdout().lock()).context("writing the list")?;
    if counts.malformed > 0 {
        eprintln!("note: {} malformed line(s) skipped", counts.malformed);
    }
    Ok(ExitCode::SUCCESS)
}

fn show(path: &Path, id: &str, json: bool) -> Result<ExitCode> {
    let id = id.trim();
    if id.is_empty() {
        bail!("the trace id is empty");
    }
    let r = match qa_traces::show::find(path, id)? {
        qa_traces::show::Found::One(r) => r,
        qa_traces::show::Found::None => bail!("no trace with an id starting with '{id}' in {}", path.display()),
        qa_traces::show::Found::Many { first, more } => {
            let mut msg = format!("'{id}' matches {} traces; give more of the id:", first.len() + more);
            for r in &first {
                msg.push_str(&format!("\n  {}  {}  {}", r.trace_id, r.timestamp, truncate(&r.user_question, 70)));
            }
            if more > 0 {
                msg.push_str(&format!("\n  … and {more} more"));
            }
            bail!(msg);
        }
    };
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &r)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", qa_traces::show::render(&r))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn export(settings: &Settings, f: &TraceFilterArgs, format: &str, out_path: Option<&Path>) -> Result<ExitCode> {
    let path = trace_file(settings, f.file.as_deref());
    let filter = filter_of(f)?;
    let mut sink: Box<dyn Write> = match out_path {
        Some(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?)),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let counts = qa_traces::export::write(&path, &filter, format == "csv", &mut sink).context("writing the export")?;
    if let Some(p) = out_path {
        eprintln!("wrote {} row(s) to {} ({} malformed line(s) skipped)", counts.matched, p.display(), counts.malformed);
    }
    Ok(ExitCode::SUCCESS)
}

fn report(settings: &Settings, f: &TraceFilterArgs, out: &Path) -> Result<ExitCode> {
    let agg = collect(settings, f)?;
    let html = qa_traces::report::render(&agg.stats, &agg.latencies, &agg.recent, &agg.hourly, &describe(f));
    let s = agg.stats;
    std::fs::write(out, html).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {} ({} trace(s))", out.display(), s.traces);
    Ok(ExitCode::SUCCESS)
}

fn diff(a: &Path, b: &Path, json: bool) -> Result<ExitCode> {
    let d = qa_traces::diff::diff(a, b, &Filter::default())?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &d)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", qa_traces::diff::render_text(&d))?;
    }
    Ok(ExitCode::SUCCESS)
}
