//! `qa sql`: answer a question over a SQL database, check a statement, show the schema context;
//! and the SQL route of `qa "question"`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::config::Settings;
use qa_llm::LlmRun;
use qa_sql::agent::{Agent, AgentOptions, Outcome};
use qa_sql::answer::{SqlAnswer, SqlQuestion};
use qa_sql::checkpoint::{self, Checkpoint};
use qa_sql::db::{self, SqlDatabase};
use qa_sql::schema::{SchemaContext, SemanticSchema};
use qa_sql::{eval, present, validate, Dialect, ExecLimits, QueryResult, SqlUrl};

/// Rows a terminal answer shows; the rest are counted (and all of them are in `--json`).
const SHOWN_ROWS: usize = 100;

/// Exit code when the run stopped to ask a clarifying question.
pub const EXIT_NEEDS_CLARIFICATION: u8 = 3;

pub const SQL_EXAMPLES: &str = "\
Examples:
  scripts/sample-db.sh                                        build samples/sql/audit.db (SQLite)
  qa sql \"How many critical findings per department?\" --db sqlite://samples/sql/audit.db
  qa sql \"average cost of urgent issues by category\" --db samples/sql/audit.db --semantic samples/sql/audit_semantic.toml
  qa sql \"findings per month in 2025\" --db postgres://me@localhost/audit --viz chart.json
  qa sql --resume 3f2a9c --answer \"findings\"                  answer a clarifying question
  qa sql check \"DELETE FROM findings\" --db samples/sql/audit.db   why a statement would be refused
  qa sql schema --db samples/sql/audit.db                     the schema context the planner uses

Every statement is parsed for its dialect and must be one read-only SELECT over known tables and
columns; LIMIT is added or lowered to the row cap. It then runs on a read-only connection (SQLite
opened read-only; PostgreSQL in a READ ONLY transaction with statement_timeout, one statement
through the extended protocol). Postgres password: inline in the URL, QA_SQL_PASSWORD or PGPASSWORD.
Exit codes: 0 answered, 1 error, 2 usage, 3 a clarifying question was asked (resume with --resume).";

#[derive(Debug, Args, Clone)]
#[command(args_conflicts_with_subcommands = true, after_help = SQL_EXAMPLES)]
pub struct SqlArgs {
    #[command(subcommand)]
    pub command: Option<SqlCommand>,
    /// The question.
    #[arg(value_name = "QUESTION")]
    pub question: Vec<String>,
    #[command(flatten)]
    pub db: DbFlags,
    /// LLM candidates to generate (the plan's deterministic candidate is added) [env: QA_SQL_K] [default: 3]
    #[arg(long, value_name = "N")]
    pub k: Option<usize>,
    /// Validate/repair iterations before giving up [env: QA_SQL_MAX_LOOPS] [default: 4]
    #[arg(long, value_name = "N")]
    pub max_loops: Option<u64>,
    /// Write a Vega-Lite spec of the result here (aggregates over categories or time).
    #[arg(long, value_name = "FILE")]
    pub viz: Option<PathBuf>,
    /// Resume a run that asked a clarifying question (the id it printed).
    #[arg(long, value_name = "ID", requires = "answer")]
    pub resume: Option<String>,
    /// The answer to the clarifying question (an option number or words).
    #[arg(long, value_name = "TEXT", requires = "resume")]
    pub answer: Option<String>,
    /// Print rows, columns, SQL, plan and metadata as JSON.
    #[arg(long)]
    pub json: bool,
    /// Answer even when the plan covers too little of the question (below the confidence
    /// threshold), with a warning, instead of asking a clarifying question.
    #[arg(long)]
    pub force: bool,
    /// Also print the trace record.
    #[arg(long)]
    pub trace: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct DbFlags {
    /// Database: sqlite://file.db (or a file path) or postgres://user@host:port/db [env: QA_SQL_URL]
    #[arg(long, value_name = "URL", global = true)]
    pub db: Option<String>,
    /// SQL dialect; inferred from the URL, and must agree with it.
    #[arg(long, value_name = "DIALECT", value_parser = ["sqlite", "postgres"], global = true)]
    pub dialect: Option<String>,
    /// Most rows a statement may return [env: QA_SQL_ROW_CAP] [default: 200]
    #[arg(long, value_name = "N", global = true)]
    pub row_cap: Option<usize>,
    /// Statement timeout in milliseconds [env: QA_SQL_TIMEOUT_MS] [default: 5000]
    #[arg(long, value_name = "MS", global = true)]
    pub timeout_ms: Option<u64>,
    /// Semantic schema (TOML: descriptions, synonyms, value aliases) [env: QA_SQL_SEMANTIC_SCHEMA]
    #[arg(long = "semantic", value_name = "FILE", global = true)]
    pub semantic: Option<PathBuf>,
}

#[derive(Debug, Subcommand, Clone)]
pub enum SqlCommand {
    /// Judge a SQL statement as generated ones are judged: one read-only SELECT, no write/admin
    /// keyword anywhere, known tables and columns (with --db), LIMIT at most the row cap.
    /// Exit code 0 when accepted, 1 when rejected.
    Check {
        #[arg(value_name = "SQL")]
        sql: String,
        #[arg(long)]
        json: bool,
    },
    /// Show the schema context: tables, columns, keys, sample values, semantic annotations.
    Schema {
        #[arg(long)]
        json: bool,
    },
    /// Score the SQL path on a question set with known results (JSON Lines: {"id", "question",
    /// "expected": {"columns", "rows"}, "order_matters", "difficulty"}): right, wrong but
    /// answered, asked (a clarifying question) and errored, overall and per difficulty.
    /// Extra result columns are allowed; numbers compare at 2 decimals. Exit code 0.
    Eval {
        #[arg(value_name = "QUESTIONS.jsonl")]
        file: PathBuf,
        /// Print the summary and every question's outcome as JSON.
        #[arg(long)]
        json: bool,
        /// Also list the asked and errored questions (the wrong ones are always listed).
        #[arg(long)]
        details: bool,
    },
}

fn apply_flags(settings: &mut Settings, f: &DbFlags) -> Result<()> {
    if let Some(u) = &f.db {
        settings.set_flag("sql_url", u)?;
    }
    if let Some(n) = f.row_cap {
        settings.set_flag("sql_row_cap", n)?;
    }
    if let Some(n) = f.timeout_ms {
        settings.set_flag("sql_timeout_ms", n)?;
    }
    if let Some(p) = &f.semantic {
        settings.set_flag("sql_semantic_schema", p.display())?;
    }
    Ok(())
}

pub(crate) fn parse_url(settings: &Settings, dialect: Option<&str>) -> Result<SqlUrl> {
    let Some(raw) = settings.sql_url.as_deref() else {
        bail!("no database: pass --db sqlite://file.db or --db postgres://user@host/db, or set QA_SQL_URL (try scripts/sample-db.sh for a sample)");
    };
    let url = SqlUrl::parse(raw)?;
    if let Some(d) = dialect
        && Dialect::parse(d) != Some(url.dialect)
    {
        bail!("--dialect {d} does not match the database URL {url} ({})", url.dialect.as_str());
    }
    Ok(url)
}

pub(crate) fn limits(settings: &Settings) -> ExecLimits {
    ExecLimits { row_cap: settings.sql_row_cap, timeout_ms: settings.sql_timeout_ms }
}

pub(crate) fn open_db(url: &SqlUrl, settings: &Settings) -> Result<Box<dyn SqlDatabase>> {
    db::open(url, limits(settings)).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))
}

pub fn run(settings: &mut Settings, quiet: bool, args: &SqlArgs) -> Result<ExitCode> {
    apply_flags(settings, &args.db)?;
    if let Some(k) = args.k {
        settings.set_flag("sql_k", k)?;
    }
    if let Some(n) = args.max_loops {
        settings.set_flag("sql_max_loops", n)?;
    }
    match &args.command {
        Some(SqlCommand::Check { sql, json }) => return check(settings, args.db.dialect.as_deref(), sql, *json),
        Some(SqlCommand::Schema { json }) => return schema(settings, args.db.dialect.as_deref(), *json),
        Some(SqlCommand::Eval { file, json, details }) => return eval(settings, quiet, args.db.dialect.as_deref(), file, *json, *details),
        None => {}
    }
    let (question, resume) = match (&args.resume, &args.answer) {
        (Some(id), Some(answer)) => {
            let cp = checkpoint::load(&settings.data_dir, id)?;
            if settings.sql_url.is_none() {
                settings.set_flag("sql_url", &cp.database)?;
            }
            (cp.question.clone(), Some((cp, answer.clone())))
        }
        _ => {
            let q = args.question.join(" ");
            if q.trim().is_empty() {
                eprintln!("error: the question is empty: ask something, e.g. qa sql \"How many findings are open?\" --db samples/sql/audit.db\n\nFor more information, try 'qa sql --help'.");
                return Ok(ExitCode::from(crate::app::EXIT_USAGE));
            }
            (q, None)
        }
    };
    let url = parse_url(settings, args.db.dialect.as_deref())?;
    let out = answer_with(settings, quiet, &url, &question, resume, None, args.force)?;
    append_trace(settings, &out.trace);
    print_outcome(settings, &out, args.json, args.trace, args.viz.as_deref(), quiet)
}

fn agent_options(settings: &Settings) -> AgentOptions {
    AgentOptions {
        k: settings.sql_k,
        max_loops: settings.sql_max_loops,
        limits: limits(settings),
        semantic_schema: settings.sql_semantic_schema.clone(),
        sample_values: qa_sql::db::MAX_SAMPLED_DISTINCT,
        use_llm: true,
        force: false,
    }
}

/// The LLM for SQL candidates: per `sql_generation` (auto = remote endpoints only).
fn open_llm(settings: &Settings) -> (Option<Box<dyn qa_llm::Llm>>, Option<String>) {
    let opened = crate::llm_use::open_llm_for(settings, &[("sql_generation", settings.sql_generation)]);
    (opened.llm, opened.skip)
}

/// Run the agent (the caller appends the trace: [`append_trace`]). `opened` is a connection
/// and its schema the router already has; `force` runs a low-confidence plan (with a warning)
/// instead of asking.
pub fn answer_with(
    settings: &Settings,
    quiet: bool,
    url: &SqlUrl,
    question: &str,
    resume: Option<(Checkpoint, String)>,
    opened: Option<(Box<dyn SqlDatabase>, qa_sql::DbSchema)>,
    force: bool,
) -> Result<SqlAnswer> {
    let (mut db, schema) = match opened {
        Some((db, schema)) => (db, Some(schema)),
        None => (open_db(url, settings)?, None),
    };
    let (mut llm, llm_skip) = open_llm(settings);
    // The closure lets the trait object's lifetime shorten (a bare `LlmRun::new` does not).
    #[allow(clippy::redundant_closure)]
    let mut llm_run = llm.as_deref_mut().map(|l| LlmRun::new(l));
    let options = match &resume {
        Some((cp, _)) => AgentOptions { limits: limits(settings), force: force || cp.options.force, ..cp.options.clone() },
        None => AgentOptions { force, ..agent_options(settings) },
    };
    let spinner = crate::app::spinner(quiet, "querying the database");
    let answered = qa_sql::answer::answer(
        db.as_mut(),
        llm_run.as_mut(),
        SqlQuestion { question, url, options, resume, schema, data_dir: &settings.data_dir, llm_skip: llm_skip.as_deref() },
    );
    spinner.finish_and_clear();
    Ok(answered?)
}

/// Append `trace` to the trace file (a failure is a warning: the answer stands).
pub fn append_trace(settings: &Settings, trace: &qa_core::trace::TraceRecord) {
    if let Err(e) = qa_core::trace::append(&settings.trace_file(), trace) {
        tracing::warn!("could not append the trace: {e}");
    }
}

pub(crate) fn terminal_width() -> usize {
    let (_, cols) = console::Term::stdout().size();
    if cols == 0 { 100 } else { cols as usize }
}

pub fn print_outcome(settings: &Settings, a: &SqlAnswer, json_out: bool, trace: bool, viz: Option<&std::path::Path>, quiet: bool) -> Result<ExitCode> {
    print_outcome_with(settings, a, json_out, trace, viz, quiet, None)
}

/// [`print_outcome`], with `extra` keys (the router's `routing`, `metadata`, `analysis`) added
/// to the JSON object.
pub fn print_outcome_with(settings: &Settings, a: &SqlAnswer, json_out: bool, trace: bool, viz: Option<&std::path::Path>, quiet: bool, extra: Option<&Value>) -> Result<ExitCode> {
    let run = &a.run;
    let mut out = std::io::stdout().lock();
    let viz_spec = run.state.get("viz_spec").cloned();
    if let Some(path) = viz {
        match &viz_spec {
            Some(spec) => {
                let tmp = path.with_extension("json.tmp");
                std::fs::write(&tmp, serde_json::to_string_pretty(spec)?).with_context(|| format!("writing {}", tmp.display()))?;
                std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
                if !quiet && !json_out {
                    eprintln!("Vega-Lite spec written to {}", path.display());
                }
            }
            None if matches!(run.outcome, Outcome::Answered) => eprintln!("warning: no chart: the result is not an aggregate over categories or time (--viz not written)"),
            None => {}
        }
    }
    if json_out {
        let (columns, rows, truncated) = match &run.result {
            Some(r) => (json!(r.columns), json!(r.rows), r.truncated),
            None => (json!([]), json!([]), false),
        };
        let (status, error, suggestions, clarifying) = match &run.outcome {
            Outcome::Answered => ("answered", None, vec![], None),
            Outcome::NeedsClarification { question } => ("needs_clarification", None, vec![], Some(question.clone())),
            Outcome::Failed { error, suggestions } => ("failed", Some(error.clone()), suggestions.clone(), None),
        };
        let v = json!({
            "status": status,
            "question": a.trace.user_question,
            "database": a.database,
            "dialect": run.state.get("dialect"),
            "sql": run.state.str("sql").filter(|_| run.state.bool("validation_ok")),
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
            "viz_spec": viz_spec,
            "clarifying_question": clarifying,
            "checkpoint": a.checkpoint,
            "error": error,
            "suggestions": suggestions,
            "trace_id": a.trace.trace_id,
            "metrics": a.trace.internal.sql.as_ref().map(|s| &s.metrics),
        });
        let mut v = v;
        if let (Some(Value::Object(extra)), Value::Object(obj)) = (extra, &mut v) {
            obj.extend(extra.iter().map(|(k, x)| (k.clone(), x.clone())));
        }
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
    } else {
        match (&run.outcome, &run.result) {
            (Outcome::Answered, Some(r)) => {
                let width = terminal_width();
                // A terminal shows the first rows only; --json carries every fetched row.
                let shown = if r.rows.len() > SHOWN_ROWS { QueryResult { rows: r.rows[..SHOWN_ROWS].to_vec(), ..r.clone() } } else { r.clone() };
                writeln!(out, "{}", present::render_table(&shown, width))?;
                if shown.rows.len() < r.rows.len() {
                    writeln!(out, "… {} more rows not shown (all of them with --json)", r.rows.len() - shown.rows.len())?;
                }
                writeln!(
                    out,
                    "{} row{}{}",
                    r.rows.len(),
                    if r.rows.len() == 1 { "" } else { "s" },
                    if r.truncated { format!(" (stopped at the row cap of {})", settings.sql_row_cap) } else { String::new() }
                )?;
                if let Some(chart) = viz_spec.as_ref().and_then(|_| present::bar_chart(r, width.min(100))) {
                    writeln!(out, "\n{chart}")?;
                }
                writeln!(out, "\nSQL: {}", run.state.str("sql").unwrap_or_default())?;
                let unused: Vec<&str> = run.state.get("coverage").and_then(|c| c["unmapped"].as_array()).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                if !unused.is_empty() {
                    writeln!(out, "not used: {}", unused.join(", "))?;
                }
                for w in run.state.list("warnings").iter().filter_map(Value::as_str) {
                    eprintln!("warning: {w}");
                }
            }
            (Outcome::NeedsClarification { question }, _) => {
                writeln!(out, "{question}")?;
                match (&a.checkpoint, extra.is_some_and(|e| e.get("session").is_some())) {
                    (Some(_), true) => writeln!(out, "\nReply with a number or the choice's words, or \"just run it\" for the first choice.")?,
                    (Some(id), false) => writeln!(out, "\nAnswer with: qa sql --resume {id} --answer \"<number or words>\"")?,
                    (None, _) => {}
                }
            }
            (Outcome::Failed { error, suggestions }, _) => {
                eprintln!("error: {error}");
                for s in suggestions {
                    eprintln!("  hint: {s}");
                }
            }
            _ => {}
        }
        if trace {
            writeln!(out, "\n=== Query Trace (JSON) ===\n{}", serde_json::to_string_pretty(&a.trace)?)?;
        }
    }
    if !quiet && !json_out {
        eprintln!("\n[sql · {} · {:.0} ms · trace {} → {}]", a.database, a.trace.latency_ms.total, a.trace.trace_id, settings.trace_file().display());
    }
    Ok(match run.outcome {
        Outcome::Answered => ExitCode::SUCCESS,
        Outcome::NeedsClarification { .. } => ExitCode::from(EXIT_NEEDS_CLARIFICATION),
        Outcome::Failed { .. } => ExitCode::FAILURE,
    })
}

fn check(settings: &Settings, dialect: Option<&str>, sql: &str, json_out: bool) -> Result<ExitCode> {
    // With a database, the schema checks run too; without one, the dialect flag (default sqlite).
    let (dialect, schema) = if settings.sql_url.is_some() {
        let url = parse_url(settings, dialect)?;
        let mut db = open_db(&url, settings)?;
        let s = db.introspect(0).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
        (url.dialect, Some(s))
    } else {
        (dialect.and_then(Dialect::parse).unwrap_or(Dialect::Sqlite), None)
    };
    let v = validate::validate(sql, dialect, schema.as_ref(), settings.sql_row_cap);
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"dialect": dialect, "schema_checked": schema.is_some(), "verdict": v}))?);
    } else {
        println!("{} ({}{})", if v.ok { "accepted" } else { "rejected" }, dialect.as_str(), if schema.is_some() { ", schema checked" } else { ", no schema: pass --db to check tables and columns" });
        for r in &v.reasons {
            println!("  ✗ {:?}: {}", r.kind, r.message);
        }
        for w in &v.warnings {
            println!("  ! {w}");
        }
        for c in &v.changes {
            println!("  ~ {c}");
        }
        if let Some(s) = &v.sql {
            println!("would run: {s}");
        }
    }
    Ok(if v.ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn schema(settings: &Settings, dialect: Option<&str>, json_out: bool) -> Result<ExitCode> {
    let url = parse_url(settings, dialect)?;
    let mut db = open_db(&url, settings)?;
    let s = db.introspect(8).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    let semantic = match &settings.sql_semantic_schema {
        Some(p) => Some(SemanticSchema::load(p)?),
        None => None,
    };
    let ctx = SchemaContext::build(s, semantic);
    for w in &ctx.warnings {
        eprintln!("warning: {w}");
    }
    if json_out {
        println!("{}", serde_json::to_string_pretty(&json!({"database": url.to_string(), "schema": ctx.db, "semantic": ctx.semantic, "context": ctx.render()}))?);
    } else {
        print!("{}", ctx.render());
    }
    Ok(ExitCode::SUCCESS)
}

/// The router's verdict, with the open connection and the schema it read (reused by the run).
pub struct Routed {
    pub url: SqlUrl,
    pub decision: qa_sql::plan::RouteDecision,
    pub db: Box<dyn SqlDatabase>,
    pub schema: qa_sql::DbSchema,
}

/// `qa "question"` with a SQL source configured: decide by schema-term overlap whether the
/// question is about the database. Returns None (go to the documents) when no source is set or
/// the database cannot be read (with a warning: the documents may still answer).
/// Why the configured SQL source cannot be opened (None: it opens, or none is configured).
pub fn open_error(settings: &Settings) -> Option<String> {
    let raw = settings.sql_url.as_deref()?;
    match SqlUrl::parse(raw) {
        Err(e) => Some(e.to_string()),
        Ok(url) => open_db(&url, settings).err().map(|e| url.scrub(&e.to_string())),
    }
}

pub fn try_route(settings: &Settings, quiet: bool, question: &str) -> Option<Routed> {
    let raw = settings.sql_url.as_deref()?;
    let url = match SqlUrl::parse(raw) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("warning: QA_SQL_URL ignored: {e}");
            return None;
        }
    };
    let mut db = match open_db(&url, settings) {
        Ok(d) => d,
        Err(e) => {
            if !quiet {
                eprintln!("warning: SQL source not used: {e}");
            }
            return None;
        }
    };
    let semantic = settings.sql_semantic_schema.as_deref();
    let (decision, schema) = match qa_sql::route::route_question(db.as_mut(), semantic, agent_options(settings).sample_values, question) {
        Ok(routed) => routed,
        Err(e) => {
            if !quiet {
                eprintln!("warning: SQL source not used: {}", url.scrub(&e.to_string()));
            }
            return None;
        }
    };
    Some(Routed { url, decision, db, schema })
}

/// One graded question of `qa sql eval`.
#[derive(Debug, Clone, serde::Serialize)]
struct EvalRecord {
    id: String,
    difficulty: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    class: Option<String>,
    question: String,
    grade: eval::Grade,
    sql: Option<String>,
    plan_confidence: Option<f64>,
    not_used: Vec<String>,
    detail: Option<String>,
    ms: f64,
}

fn eval(settings: &Settings, quiet: bool, dialect: Option<&str>, file: &std::path::Path, json_out: bool, verbose: bool) -> Result<ExitCode> {
    let questions = eval::load(file)?;
    let url = parse_url(settings, dialect)?;
    let mut db = open_db(&url, settings)?;
    let options = agent_options(settings);
    let schema = db.introspect(options.sample_values).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    let (mut llm, llm_skip) = open_llm(settings);
    let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(questions.len() as u64) };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()));
    let mut summary = eval::Summary::default();
    let mut records = Vec::new();
    for q in &questions {
        bar.set_message(q.id.clone());
        #[allow(clippy::redundant_closure)]
        let mut llm_run = llm.as_deref_mut().map(|l| LlmRun::new(l));
        let run = Agent::new(db.as_mut(), llm_run.as_mut(), options.clone()).with_schema(schema.clone()).run(&q.question, None);
        let scrubbed;
        let outcome = match (&run.outcome, &run.result) {
            (Outcome::Answered, Some(r)) => eval::Outcome::Rows { columns: &r.columns, rows: &r.rows, truncated: r.truncated },
            (Outcome::NeedsClarification { question }, _) => eval::Outcome::Asked(question),
            (Outcome::Failed { error, .. }, _) => {
                scrubbed = url.scrub(error);
                eval::Outcome::Failed(&scrubbed)
            }
            (Outcome::Answered, None) => eval::Outcome::Failed("answered without rows"),
        };
        let (grade, detail) = eval::grade(q, outcome);
        summary.add(q, grade);
        let not_used = run.state.get("coverage").and_then(|c| c["unmapped"].as_array()).map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default();
        records.push(EvalRecord {
            id: q.id.clone(),
            difficulty: q.difficulty.clone(),
            class: q.class.clone(),
            question: q.question.clone(),
            grade,
            sql: run.state.str("sql").filter(|_| run.state.bool("validation_ok")).map(str::to_string),
            plan_confidence: run.state.get("plan_confidence").and_then(Value::as_f64),
            not_used,
            detail,
            ms: run.metrics.total_ms,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let llm_name = llm.as_ref().map(|l| format!("{} {}", l.provider(), l.model_id())).unwrap_or_else(|| format!("none ({})", llm_skip.unwrap_or_default()));
    if json_out {
        let v = json!({
            "file": file.display().to_string(),
            "database": url.to_string(),
            "dialect": url.dialect,
            "semantic_schema": settings.sql_semantic_schema,
            "llm": llm_name,
            "summary": summary,
            "questions": records,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    let head = format!("qa sql eval: {} questions from {} on {} (llm: {llm_name})", questions.len(), file.display(), url);
    let listed: Vec<super::eval_report::Listed> = records
        .iter()
        .map(|r| super::eval_report::Listed { id: &r.id, question: &r.question, grade: r.grade, query: r.sql.clone(), detail: r.detail.as_deref() })
        .collect();
    super::eval_report::print(&mut std::io::stdout().lock(), &head, &summary, &listed, verbose)?;
    Ok(ExitCode::SUCCESS)
}
