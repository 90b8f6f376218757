//! `qa chat`: an interactive session. Each line is one turn of `qa ask --session NAME` (the same
//! code path: follow-ups, "show me more", pasted queries, replies to clarifying questions), with
//! line editing and a history file on a terminal, and one turn per line when stdin is a pipe.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::cli::{AskFlags, GlobalArgs};
use crate::config::Settings;

/// `qa chat`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Type a question and press Enter; Ctrl-D (or /exit) leaves, Ctrl-C clears the line.
Inside the chat: /help, /history (the session's turns), /exit.

Every turn is recorded in the session (--session, QA_SESSION, or a new chat-YYYYMMDD-HHMMSS) and can
be continued later with `qa ask --session NAME` or `qa chat --session NAME`.
With stdin not a terminal, each line is one turn (no prompt): printf 'q1\\nshow me more\\n' | qa chat --json")]
pub struct ChatArgs {
    #[command(flatten)]
    pub flags: AskFlags,
}

const HELP: &str = "Ask a question about the indexed documents, the database (--db / QA_SQL_URL) or the search index
(--es / QA_ES). Follow-ups read the earlier turns:
  show me more                 the next page of the last SQL or Elasticsearch result
  the same but for 2024        the last question with a change
  and what about its battery?  a follow-up on the last subject
  run this: SELECT …           a pasted SQL statement or Elasticsearch body, checked before it runs
  just run it                  answer the last clarifying question with the best guess
Commands: /history, /help, /exit (or Ctrl-D).";

/// Run the chat until end of input.
pub fn run(settings: &Settings, global: &GlobalArgs, args: &ChatArgs) -> Result<ExitCode> {
    let mut flags = args.flags.clone();
    let name = flags.session.clone().unwrap_or_else(|| chrono::Local::now().format("chat-%Y%m%d-%H%M%S").to_string());
    qa_converse::SessionStore::validate_name(&name)?;
    flags.session = Some(name.clone());
    let interactive = std::io::stdin().is_terminal();
    let mut failed = false;
    let mut turn = |line: &str| -> bool {
        match line.trim() {
            "" => true,
            "/exit" | "/quit" => false,
            "/help" => {
                println!("{HELP}");
                true
            }
            "/history" => {
                if let Err(e) = crate::commands::session::print_turns(settings, &name) {
                    eprintln!("error: {e:#}");
                }
                true
            }
            command if command.starts_with('/') && !command.contains(' ') => {
                eprintln!("unknown command {command}: /help, /history and /exit are the chat's commands");
                true
            }
            question => {
                let mut s = settings.clone();
                match crate::app::ask(&mut s, global, question, &flags) {
                    Ok(_) => {}
                    Err(e) => {
                        failed = true;
                        eprintln!("error: {}", qa_core::error::error_chain(e.as_ref()));
                    }
                }
                true
            }
        }
    };
    if interactive {
        interactive_loop(settings, &name, global.quiet, &mut turn)?;
    } else {
        for line in std::io::stdin().lock().lines() {
            let line = line.context("reading the chat input from stdin")?;
            if !turn(&line) {
                break;
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Prompt, line editing and history (kept in `<data_dir>/sessions/.chat_history`) on a terminal.
fn interactive_loop(settings: &Settings, name: &str, quiet: bool, turn: &mut dyn FnMut(&str) -> bool) -> Result<()> {
    use rustyline::error::ReadlineError;
    let mut editor = rustyline::DefaultEditor::new().context("starting the line editor")?;
    let history = settings.data_dir.join("sessions").join(".chat_history");
    if let Some(dir) = history.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    // A missing history file is the first chat, not an error.
    let _ = editor.load_history(&history);
    if !quiet {
        eprintln!("qa chat · session {name} · /help for what you can say · Ctrl-D to leave");
    }
    loop {
        match editor.readline("qa> ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                    if let Err(e) = editor.append_history(&history) {
                        tracing::warn!("could not save the chat history to {}: {e}", history.display());
                    }
                }
                if !turn(&line) {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("reading a line"),
        }
    }
    if !quiet {
        eprintln!("session {name} saved: `qa session show {name}`, or continue with `qa chat --session {name}`");
    }
    Ok(())
}
