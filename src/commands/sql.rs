//! `qa sql`: answer a question over a SQL database, check a statement, show the schema context;
//! and the SQL route of `qa "question"`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;

use crate::config::Settings;
use qa_settings::flag;
use qa_route::Source;
use qa_route::source::{Ask, Presentation};
use qa_sql::checkpoint;
use qa_sql::source::SqlSource;
use qa_sql::db::{self, SqlDatabase};
use qa_sql::schema::{SchemaContext, SemanticSchema};
use qa_sql::{eval, validate, Dialect, ExecLimits, SqlUrl};


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
    flag!(settings, sql_url, f.db.clone());
    flag!(settings, sql_row_cap, f.row_cap);
    flag!(settings, sql_timeout_ms, f.timeout_ms);
    flag!(settings, sql_semantic_schema, f.semantic.clone());
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
    flag!(settings, sql_k, args.k);
    flag!(settings, sql_max_loops, args.max_loops);
    settings.validate()?;
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
                flag!(settings, sql_url, Some(cp.database.clone()));
                settings.validate()?;
            }
            (cp.question.clone(), Some((id.clone(), answer.clone())))
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
    let (mut source, note) = SqlSource::open(url, settings.sql_agent_options(), settings.data_dir.clone(), settings.sql_llm())?;
    if let Some(n) = note {
        eprintln!("warning: {n}");
    }
    let spinner = crate::progress::Spinner::new(quiet || args.json);
    let ask = Ask { question: &question, query_type: qa_route::QueryType::Simple, force: args.force, in_session: false, progress: &spinner };
    let answered = match resume {
        Some((id, reply)) => source.resume(&id, &reply, &ask),
        None => source.answer(&ask),
    };
    let answer = answered.map_err(crate::routed::route_failure)?;
    crate::routed::append_trace(settings, &answer.trace);
    if let Some(path) = args.viz.as_deref() {
        write_viz(path, &answer, quiet || args.json)?;
    }
    let p = Presentation { trace: args.trace, quiet: quiet || args.json, width: crate::routed::terminal_width(), in_session: false, trace_file: settings.trace_file() };
    qa_route::source::present(&answer, args.json, None, &p, &mut std::io::stdout().lock(), &mut std::io::stderr().lock())?;
    Ok(ExitCode::from(answer.exit_code()))
}

/// `--viz FILE`: the Vega-Lite spec of an aggregate answer, written atomically.
fn write_viz(path: &std::path::Path, answer: &qa_route::SourceAnswer, quiet: bool) -> Result<()> {
    match answer.view.json().get("viz_spec").filter(|v| !v.is_null()) {
        Some(spec) => {
            let tmp = path.with_extension("json.tmp");
            std::fs::write(&tmp, serde_json::to_string_pretty(spec)?).with_context(|| format!("writing {}", tmp.display()))?;
            std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
            if !quiet {
                eprintln!("Vega-Lite spec written to {}", path.display());
            }
        }
        None if answer.status == qa_core::trace::Status::Answered => eprintln!("warning: no chart: the result is not an aggregate over categories or time (--viz not written)"),
        None => {}
    }
    Ok(())
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

fn eval(settings: &Settings, quiet: bool, dialect: Option<&str>, file: &std::path::Path, json_out: bool, verbose: bool) -> Result<ExitCode> {
    let questions = eval::load(file)?;
    let url = parse_url(settings, dialect)?;
    let mut db = open_db(&url, settings)?;
    let options = settings.sql_agent_options();
    let schema = db.introspect(options.sample_values).map_err(|e| anyhow::anyhow!("{}", url.scrub(&e.to_string())))?;
    let opened = qa_llm::open_for(&settings.llm_settings(), &[("sql_generation", settings.sql_generation)]);
    let (mut llm, llm_skip) = (opened.llm, opened.skip);
    let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(questions.len() as u64) };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()));
    let (summary, records) = eval::run_set(db.as_mut(), &mut llm, &options, schema, &url, &questions, &|id| {
        bar.set_message(id.to_string());
        bar.inc(1);
    });
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
