//! `qa es`: answer a question over a search index (an embedded index built by `qa es index`, or a
//! remote Elasticsearch/OpenSearch server), check a query body, show a mapping, list the
//! embedded indexes.

mod eval;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::config::{redact_es_url, EsTarget, Settings};
use qa_settings::flag;
use qa_es::embedded::EmbeddedIndex;
use qa_es::guard;
use qa_es::source::EsSource;
use qa_es::{EsError, Mapping, SearchEngine};
use qa_route::source::Presentation;

pub const ES_EXAMPLES: &str = "\
Examples:
  qa es index samples/es/shipments.jsonl --name shipments     build an embedded index (JSONL, JSON array or CSV)
  qa es \"delayed shipments to Port Quenby\" --index shipments
  qa es \"shipments per carrier in 2025\" --index shipments --json
  qa es \"delayed shipments\" --index shipments --offset 20      the next page
  qa es \"delayed shipments\" --index shipments --offset 10020 --search-after '[1.0,10019]'
                                                              a page past the window, by its cursor
  qa es --resume 3f2a9c --answer 1                            answer a clarifying question
  qa es check '{\"query\":{\"match_all\":{}}}' --index shipments   would this body run?
  qa es check 'POST /shipments/_delete_by_query {}' --index shipments
  qa es mapping --index shipments                             fields, kinds and sampled values
  qa es list                                                  the embedded indexes
  qa es \"open orders per region\" --es https://search.example:9200/orders

The index: --index NAME (embedded, under <data_dir>/es_indexes/) or --es http(s)://host:port/INDEX
(Elasticsearch 8/9, OpenSearch 2), else QA_ES / `es` in qa.toml. Remote credentials come from the
environment or .env only: QA_ES_API_KEY, or QA_ES_USERNAME + QA_ES_PASSWORD; a custom CA with
--ca-cert / QA_ES_CA_CERT. Every body (generated, pasted or resumed) is checked first: known fields,
read-only clauses, capped sizes and buckets, a timeout; only _search, _count and _mapping are called.
Exit codes: 0 answered, 1 error or refused, 2 usage, 3 a clarifying question was asked (resume with --resume).";

#[derive(Debug, Args, Clone)]
#[command(args_conflicts_with_subcommands = true, after_help = ES_EXAMPLES)]
pub struct EsArgs {
    #[command(subcommand)]
    pub command: Option<EsCommand>,
    /// The question.
    #[arg(value_name = "QUESTION")]
    pub question: Vec<String>,
    #[command(flatten)]
    pub target: TargetFlags,
    /// Hits per page [env: QA_ES_PAGE_SIZE] [default: 20]
    #[arg(long, value_name = "N")]
    pub page_size: Option<usize>,
    /// Index of the first hit to show (the "next: --offset N" of the previous page).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// The cursor a page printed for the next one (`--search-after '[…]'`, with its --offset):
    /// past the 10,000-hit window it fetches the page in one request instead of walking to it.
    #[arg(long, value_name = "JSON")]
    pub search_after: Option<String>,
    /// LLM query candidates to ask for (the plan's deterministic candidate is added) [env: QA_ES_K] [default: 3]
    #[arg(long, value_name = "N")]
    pub k: Option<usize>,
    /// Times a candidate the guard refused is sent back to the LLM with the reasons [env: QA_ES_MAX_REPAIRS] [default: 1]
    #[arg(long, value_name = "N")]
    pub max_repairs: Option<usize>,
    /// Run the best guess instead of asking a clarifying question (the answer says which guess).
    #[arg(long)]
    pub force: bool,
    /// Resume a run that asked a clarifying question (the id it printed).
    #[arg(long, value_name = "ID", requires = "answer")]
    pub resume: Option<String>,
    /// The answer to the clarifying question (an option number or words).
    #[arg(long, value_name = "TEXT", requires = "resume")]
    pub answer: Option<String>,
    /// Print the answer object as JSON (status, es_query, total, hits, aggregations, page, …).
    #[arg(long)]
    pub json: bool,
    /// Also print the trace record.
    #[arg(long)]
    pub trace: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct TargetFlags {
    /// Embedded index name (see `qa es list`) [env: QA_ES]
    #[arg(long, value_name = "NAME", global = true, conflicts_with = "es")]
    pub index: Option<String>,
    /// Remote index URL http(s)://host:port/INDEX, or an embedded index name [env: QA_ES]
    #[arg(long, value_name = "URL", global = true)]
    pub es: Option<String>,
    /// PEM CA certificate for a remote server's TLS [env: QA_ES_CA_CERT]
    #[arg(long, value_name = "FILE", global = true)]
    pub ca_cert: Option<PathBuf>,
    /// Most hits a request may return [env: QA_ES_ROW_CAP] [default: 200]
    #[arg(long, value_name = "N", global = true)]
    pub row_cap: Option<usize>,
    /// Request timeout in milliseconds [env: QA_ES_TIMEOUT_MS] [default: 5000]
    #[arg(long, value_name = "MS", global = true)]
    pub timeout_ms: Option<u64>,
    /// Semantic file (TOML: field descriptions, synonyms, value aliases) [env: QA_ES_SEMANTIC]
    #[arg(long = "semantic", value_name = "FILE", global = true)]
    pub semantic: Option<PathBuf>,
}

#[derive(Debug, Subcommand, Clone)]
pub enum EsCommand {
    /// Build an embedded index from records: JSON Lines, a JSON array or CSV (with a header).
    /// The mapping is inferred (keyword for low-cardinality strings, text with a keyword
    /// sub-field for prose, date for ISO-8601 values, numbers, booleans) unless --mapping gives
    /// one in Elasticsearch's shape. Rebuilding a name replaces the index atomically.
    Index {
        /// The records file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The index name.
        #[arg(long, value_name = "NAME")]
        name: String,
        /// A mapping file: {"mappings": {"properties": …}} or {"properties": …}.
        #[arg(long, value_name = "FILE")]
        mapping: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Judge a query body as generated ones are judged: known fields, read-only clauses, capped
    /// sizes and buckets, a timeout, a read endpoint. Accepts a bare JSON body or console text
    /// (`GET /idx/_search {…}`). Prints the verdict, the reasons, the changes and the body that
    /// would run. Exit code 0 when it would run, 1 when refused.
    Check {
        /// The body or console request.
        #[arg(value_name = "BODY")]
        body: String,
        /// Print the verdict as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the index's fields: path, kind, ES type and a few sampled values.
    Mapping {
        /// Print the fields as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Score the ES path on a question set with known results: the same JSON Lines as
    /// `qa sql eval` ({"id", "question", "expected": {"columns", "rows"}, "order_matters"}, or
    /// "must_ask": true for a question the index cannot answer). An answer becomes rows: a count
    /// is [total], an aggregation one row per bucket [key, doc_count, metrics…], a search one row
    /// per hit with all its fields. Prints right, wrong but answered, asked and errored,
    /// overall and per class. Exit code 0.
    Eval {
        #[arg(value_name = "QUESTIONS.jsonl")]
        file: PathBuf,
        /// Print the summary and every question's outcome as JSON.
        #[arg(long)]
        json: bool,
        /// List every question that is not right (not only the wrong ones).
        #[arg(long)]
        details: bool,
    },
    /// List the embedded indexes under the data folder.
    List {
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn apply_flags(settings: &mut Settings, f: &TargetFlags) -> Result<()> {
    flag!(settings, es, f.index.clone().or(f.es.clone()));
    flag!(settings, es_ca_cert, f.ca_cert.clone());
    flag!(settings, es_row_cap, f.row_cap);
    flag!(settings, es_timeout_ms, f.timeout_ms);
    flag!(settings, es_semantic, f.semantic.clone());
    Ok(())
}

pub fn run(settings: &mut Settings, quiet: bool, args: &EsArgs) -> Result<ExitCode> {
    apply_flags(settings, &args.target)?;
    flag!(settings, es_page_size, args.page_size);
    flag!(settings, es_k, args.k);
    flag!(settings, es_max_repairs, args.max_repairs);
    settings.validate()?;
    match &args.command {
        Some(EsCommand::Index { file, name, mapping, json }) => return index(settings, quiet, file, name, mapping.as_deref(), *json),
        Some(EsCommand::Check { body, json }) => return check(settings, body, *json),
        Some(EsCommand::Mapping { json }) => return mapping(settings, *json),
        Some(EsCommand::List { json }) => return list(settings, *json),
        Some(EsCommand::Eval { file, json, details }) => return eval::run(settings, quiet, file, *json, *details),
        None => {}
    }
    question(settings, quiet, args)
}

/// An error the user can act on: `error: …` and `hint: …` lines on stderr, exit code 1.
pub(crate) struct Failure {
    message: String,
    hints: Vec<String>,
}

impl Failure {
    fn new(message: impl Into<String>, hints: impl IntoIterator<Item = String>) -> Failure {
        Failure { message: message.into(), hints: hints.into_iter().collect() }
    }

    pub(crate) fn print(&self, json_out: bool) -> Result<ExitCode> {
        if json_out {
            println!("{}", serde_json::to_string_pretty(&json!({"status": "error", "route": "es", "error": self.message, "hints": self.hints}))?);
        } else {
            eprintln!("error: {}", self.message);
            for h in &self.hints {
                eprintln!("  hint: {h}");
            }
        }
        Ok(ExitCode::FAILURE)
    }
}

/// Hints for an engine error: how to create a missing index, what to check on a server.
fn failure_of(settings: &Settings, e: &EsError) -> Failure {
    match settings.es_connection() {
        Some(conn) => Failure::new(conn.scrub(&e.to_string()), conn.hints(e)),
        None => Failure::new(e.to_string(), []),
    }
}

/// No `es` setting: what to pass.
fn no_target() -> Failure {
    Failure::new(
        "no index: pass --index NAME (an embedded index) or --es http(s)://host:port/INDEX, or set QA_ES",
        ["the embedded indexes: qa es list; build one: qa es index FILE --name NAME".to_string()],
    )
}

/// Open the configured engine: the embedded index by name, or the remote server.
pub fn open_engine(settings: &Settings) -> Result<Box<dyn SearchEngine>, EsError> {
    match settings.es_connection() {
        Some(conn) => conn.open(),
        None => Err(EsError::NoIndex { name: String::new(), hint: "no index configured".into() }),
    }
}

/// [`open_engine`] and its mapping, or the failure to print.
pub(crate) fn open_with_mapping(settings: &Settings) -> Result<(Box<dyn SearchEngine>, Mapping), Failure> {
    if settings.es_target().is_none() {
        return Err(no_target());
    }
    let engine = open_engine(settings).map_err(|e| failure_of(settings, &e))?;
    let mapping = engine.mapping().map_err(|e| failure_of(settings, &e))?;
    Ok((engine, mapping))
}

fn index(settings: &Settings, quiet: bool, file: &Path, name: &str, mapping_file: Option<&Path>, json_out: bool) -> Result<ExitCode> {
    if !crate::config::valid_index_name(name) {
        return Failure::new(format!("--name {name:?}: use letters, digits, '-', '_' and '.', starting with a letter or digit (at most 100)"), []).print(json_out);
    }
    let t = Instant::now();
    let records = match qa_es::records::load_records(file) {
        Ok(r) => r,
        Err(e) => return Failure::new(e.to_string(), ["records: JSON Lines (one object a line), a JSON array of objects, or CSV with a header".to_string()]).print(json_out),
    };
    let (mapping, inferred) = match mapping_file {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            let v: Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", p.display()))?;
            (Mapping::from_es_json(name, &v)?, false)
        }
        None => (qa_es::infer::infer_mapping(name, &records), true),
    };
    let bars = crate::progress::Bars::new(!quiet && !json_out);
    let summary = match EmbeddedIndex::create_with_source(&settings.data_dir, name, &records, &mapping, Some(file), &bars) {
        Ok(s) => s,
        Err(e) => return failure_of(settings, &e).print(json_out),
    };
    let secs = t.elapsed().as_secs_f64();
    let rate = records.len() as f64 / secs.max(1e-9);
    if json_out {
        let v = json!({
            "index": name,
            "file": file.display().to_string(),
            "docs": summary.docs,
            "fields": summary.fields,
            "mapping_inferred": inferred,
            "mapping": mapping.to_es_json(),
            "summary": summary,
            "ms": secs * 1000.0,
            "docs_per_sec": rate,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("Indexed {} documents from {} into the embedded index '{name}' ({})", summary.docs, file.display(), summary.dir.display());
    println!("  fields:   {} ({})", mapping.fields.len(), if inferred { "mapping inferred; see qa es mapping" } else { "mapping from the file" });
    for f in &mapping.fields {
        let sub = f.keyword_subfield.as_ref().map(|s| format!(" (+ {}.{s})", f.path)).unwrap_or_default();
        println!("            {:<28} {}{sub}", f.path, f.es_type);
    }
    println!("  time:     {:.0} ms ({:.0} documents/s)", secs * 1000.0, rate);
    println!("\nAsk: qa es \"QUESTION\" --index {name}");
    Ok(ExitCode::SUCCESS)
}

fn check(settings: &Settings, body: &str, json_out: bool) -> Result<ExitCode> {
    let (_engine, mapping) = match open_with_mapping(settings) {
        Ok(x) => x,
        Err(f) => return f.print(json_out),
    };
    let v = guard::check_pasted(body, &mapping, &settings.es_limits());
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"target": target_label(settings), "verdict": v}))?);
    } else {
        println!("{} ({} on {})", if v.accepted { "accepted" } else { "refused" }, v.endpoint.path(), target_label(settings));
        for r in &v.reasons {
            println!("  ✗ {r}");
        }
        for c in &v.changes {
            println!("  ~ {c}");
        }
        if let Some(b) = &v.body {
            println!("would run: POST /{}/{} {}", mapping.index, v.endpoint.path(), serde_json::to_string(b)?);
        }
    }
    Ok(if v.accepted { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The target as shown: the embedded index name or the URL without credentials.
pub(crate) fn target_label(settings: &Settings) -> String {
    match settings.es_target() {
        Some(EsTarget::Embedded(name)) => format!("embedded index '{name}'"),
        Some(EsTarget::Remote(url)) => redact_es_url(&url),
        None => "no index".into(),
    }
}

fn mapping(settings: &Settings, json_out: bool) -> Result<ExitCode> {
    let (engine, mapping) = match open_with_mapping(settings) {
        Ok(x) => x,
        Err(f) => return f.print(json_out),
    };
    let view = qa_es::lookup::MappingView::read(engine.as_ref(), &mapping, &settings.es_limits());
    if json_out {
        println!("{}", serde_json::to_string_pretty(&view.json(&mapping, &engine.target()))?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} ({}): {} fields", mapping.index, target_label(settings), mapping.fields.len())?;
    for line in view.lines(&mapping) {
        writeln!(out, "  {line}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn list(settings: &Settings, json_out: bool) -> Result<ExitCode> {
    let indexes = EmbeddedIndex::list(&settings.data_dir)?;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"data_dir": settings.data_dir, "indexes": indexes}))?);
        return Ok(ExitCode::SUCCESS);
    }
    if indexes.is_empty() {
        println!("no embedded index in {} (build one: qa es index FILE --name NAME)", settings.data_dir.join("es_indexes").display());
        return Ok(ExitCode::SUCCESS);
    }
    let rows = indexes
        .iter()
        .map(|i| vec![json!(i.name), json!(i.docs), json!(i.fields), json!(i.created), json!(i.source)])
        .collect();
    let table = qa_sql::QueryResult { columns: ["name", "docs", "fields", "created", "source"].map(String::from).to_vec(), rows, truncated: false, elapsed_ms: 0.0 };
    println!("{}", qa_sql::present::render_table(&table, crate::routed::terminal_width()));
    Ok(ExitCode::SUCCESS)
}

fn question(settings: &mut Settings, quiet: bool, args: &EsArgs) -> Result<ExitCode> {
    let q = args.question.join(" ");
    if args.resume.is_none() && q.trim().is_empty() {
        eprintln!("error: the question is empty: ask something, e.g. qa es \"delayed shipments\" --index NAME\n\nFor more information, try 'qa es --help'.");
        return Ok(ExitCode::from(crate::app::EXIT_USAGE));
    }
    if let (Some(id), None) = (&args.resume, settings.es_target())
        && let Ok(cp) = qa_es::checkpoint::load(&settings.data_dir, id)
    {
        flag!(settings, es, Some(cp.target.clone()));
        settings.validate()?;
    }
    let Some(conn) = settings.es_connection() else { return no_target().print(args.json) };
    let after = match &args.search_after {
        Some(text) => match serde_json::from_str::<Vec<Value>>(text) {
            Ok(after) => Some(after),
            Err(e) => return Failure::new(format!("--search-after {text:?}: expected the JSON array a page printed ({e})"), []).print(args.json),
        },
        None => None,
    };
    let source = match EsSource::connect(conn, settings.es_options(), settings.es_llm()) {
        Ok(s) => s,
        Err(e) => return failure_of(settings, &e).print(args.json),
    };
    if let Err(e) = source.engine().mapping() {
        return failure_of(settings, &e).print(args.json);
    }
    let spinner = crate::app::spinner(quiet || args.json, "searching");
    let ran = match (&args.resume, &args.answer) {
        (Some(id), Some(reply)) => source.resume_run(id, reply, args.force, false),
        _ => source.run_question(&q, args.offset, after, args.force),
    };
    spinner.finish_and_clear();
    let answer = match ran {
        Ok(run) => source.reply(run),
        Err(e) => return failure_of(settings, &e).print(args.json),
    };
    crate::routed::append_trace(settings, &answer.trace);
    let p = Presentation { trace: args.trace, quiet: quiet || args.json, width: crate::routed::terminal_width(), in_session: false, trace_file: settings.trace_file() };
    qa_route::source::present(&answer, args.json, None, &p, &mut std::io::stdout().lock(), &mut std::io::stderr().lock())?;
    Ok(ExitCode::from(answer.exit_code()))
}
