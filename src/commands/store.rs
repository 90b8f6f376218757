//! `qa store …`: the documents' remote store against the local index (`check`), copied to
//! another server (`migrate`).

use std::process::ExitCode;

use anyhow::Result;

use qa_settings::Settings;

use crate::cli::GlobalArgs;

/// `qa store`.
#[derive(Debug, clap::Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

/// The subcommands of `qa store`.
#[derive(Debug, clap::Subcommand)]
pub enum StoreCommand {
    /// Compare the store (`--store`) with the local index: chunks it lacks, orphans, stale
    /// copies, the model it holds. Exit code 1 when anything needs a sync.
    Check {
        /// Corpus [default: the latest indexed]
        #[arg(long, value_name = "NAME")]
        corpus: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy the store (`--store`) to another server or index, vectors included (nothing is
    /// re-embedded); the target ends with exactly the source's documents.
    Migrate {
        /// The target index: `http(s)://host:port/INDEX` (OpenSearch or Elasticsearch).
        #[arg(long, value_name = "URL")]
        to: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `qa store …`.
pub fn run(settings: &Settings, global: &GlobalArgs, args: &StoreArgs) -> Result<ExitCode> {
    if settings.store.is_none() {
        anyhow::bail!("no store is configured\n  fix: pass --store http(s)://host:port/INDEX, or set QA_STORE or `store` in qa.toml");
    }
    match &args.command {
        StoreCommand::Check { corpus, json } => {
            let (corpus, report) = settings.check_store(corpus.as_deref())?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                report.write_text(&corpus, &mut std::io::stdout().lock())?;
            }
            Ok(if report.clean() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        StoreCommand::Migrate { to, json } => {
            let report = settings.migrate_store(to, &crate::progress::Bars::new(!global.quiet && !json))?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                let created = if report.created { "; index created" } else { "" };
                println!("qa store migrate: {} documents copied to {} ({} orphans deleted, {} requests, {:.0} ms){created}", report.sent, report.store, report.deleted, report.requests, report.ms);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
