//! `qa session list | show NAME | clear NAME`: the conversations recorded by `qa chat` and
//! `qa ask --session NAME` (one JSONL file per session under `<data_dir>/sessions/`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::json;

use crate::config::Settings;
use qa_converse::{SessionStore, Turn};

pub const SESSION_EXAMPLES: &str = "\
Examples:
  qa ask \"List the delayed orders\" --session triage      start or continue the session `triage`
  qa ask \"show me more\" --session triage                 the next page of the last result
  qa session list                                         every session, its turns, its last message
  qa session show triage --json                           the turns as JSON
  qa session clear triage                                 delete the session

Sessions live in <data_dir>/sessions/<name>.jsonl, one turn per line. QA_SESSION sets the default
session of `qa ask`. A line that cannot be read is skipped with a warning.";

#[derive(Debug, Args, Clone)]
#[command(after_help = SESSION_EXAMPLES)]
pub struct SessionArgs {
    #[command(subcommand)]
    pub command: SessionCommand,
}

#[derive(Debug, Subcommand, Clone)]
pub enum SessionCommand {
    /// Every session with its number of turns and its last message.
    List {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The turns of one session: message, goal, route, status, the query that ran.
    Show {
        /// The session name.
        name: String,
        /// Print `{"name", "turns": [...]}` as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete a session.
    Clear {
        /// The session name.
        name: String,
    },
}

pub fn run(settings: &Settings, args: &SessionArgs) -> Result<ExitCode> {
    let store = SessionStore::new(&settings.data_dir);
    let mut out = std::io::stdout().lock();
    match &args.command {
        SessionCommand::List { json } => {
            let sessions = store.list()?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &json!({ "sessions": sessions }))?;
                writeln!(out)?;
            } else if sessions.is_empty() {
                writeln!(out, "no sessions in {} (start one with `qa ask \"…\" --session NAME` or `qa chat`)", store.dir().display())?;
            } else {
                for s in &sessions {
                    let last = s.last_question.as_deref().map(|q| qa_core::text::truncate(q, 60)).unwrap_or_default();
                    writeln!(out, "{:<20} {:>4} turns  {}  {last}", s.name, s.turns, s.last_timestamp.as_deref().unwrap_or(""))?;
                }
            }
        }
        SessionCommand::Show { name, json } => {
            let log = store.load(name)?;
            for skipped in &log.skipped {
                eprintln!("warning: session {name}: line {} skipped: {}", skipped.line, skipped.reason);
            }
            if *json {
                serde_json::to_writer_pretty(&mut out, &json!({ "name": log.name, "turns": log.turns }))?;
                writeln!(out)?;
            } else {
                for t in &log.turns {
                    print_turn(&mut out, t)?;
                }
            }
        }
        SessionCommand::Clear { name } => {
            store.clear(name)?;
            writeln!(out, "session {name} cleared")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The turns of `name` as `qa session show` prints them (for `/history` in `qa chat`).
pub fn print_turns(settings: &Settings, name: &str) -> Result<()> {
    let store = SessionStore::new(&settings.data_dir);
    let mut out = std::io::stdout().lock();
    match store.load(name) {
        Ok(log) => {
            for t in &log.turns {
                print_turn(&mut out, t)?;
            }
            Ok(())
        }
        Err(_) => Ok(writeln!(out, "no turns yet in session {name}")?),
    }
}

fn print_turn(out: &mut impl Write, t: &Turn) -> Result<()> {
    Ok(write!(out, "{}", t.describe())?)
}
