//! Session files under `<data_dir>/sessions/`: `<name>.jsonl` (one [`Turn`] per line) and a
//! `<name>.lock` beside it.
//!
//! Appending takes an exclusive lock on the lock file, reads the session, numbers the new turn
//! after the last one and replaces the file atomically (temporary sibling, sync, rename): a
//! second `qa` process on the same session waits instead of losing or duplicating a turn, and a
//! reader (which takes no lock) sees either the old or the new file, never half a line.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::turn::{NewTurn, Turn};

/// What can go wrong with sessions.
#[derive(Debug, thiserror::Error)]
pub enum ConverseError {
    /// A session name that cannot be a file name.
    #[error("invalid session name {0:?}: use 1–64 letters, digits, '-', '_' or '.', not starting with '.'")]
    InvalidName(String),
    /// No session of that name.
    #[error("no session named {name:?}{}", known_hint(.known))]
    NotFound {
        /// The name asked for.
        name: String,
        /// The sessions that exist.
        known: Vec<String>,
    },
    /// A file operation failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

fn known_hint(known: &[String]) -> String {
    if known.is_empty() {
        " (there are no sessions yet: `qa ask \"…\" --session NAME` or `qa chat` starts one)".to_string()
    } else {
        format!(" (sessions: {}; `qa session list` shows them)", known.join(", "))
    }
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ConverseError + 'a {
    move |source| ConverseError::Io { action, path: path.to_path_buf(), source }
}

/// A line of a session file that could not be read; it is skipped, not fatal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: usize,
    /// Why it was skipped.
    pub reason: String,
}

/// A session as read: its readable turns and the lines skipped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionLog {
    /// The session name.
    pub name: String,
    /// Readable turns, in file order.
    pub turns: Vec<Turn>,
    /// Unreadable lines (warnings for the user).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedLine>,
}

impl SessionLog {
    /// The last `n` turns, oldest first.
    pub fn recent(&self, n: usize) -> &[Turn] {
        &self.turns[self.turns.len().saturating_sub(n)..]
    }

    /// The most recent turn that ran a pageable query ("show me more" continues it).
    pub fn last_artifact(&self) -> Option<&Turn> {
        self.turns.iter().rev().find(|t| t.artifact.is_some())
    }

    /// The clarifying question of the last turn, if it ended with one (an answer to it is
    /// expected now).
    pub fn pending_clarification(&self) -> Option<&Turn> {
        self.turns.last().filter(|t| t.clarification.is_some())
    }
}

/// One line of `qa session list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    /// The session name.
    pub name: String,
    /// Readable turns.
    pub turns: usize,
    /// Timestamp of the last turn.
    pub last_timestamp: Option<String>,
    /// The last turn's message.
    pub last_question: Option<String>,
}

/// The sessions of one data folder.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    /// The store of `data_dir` (its `sessions/` folder is created on the first append).
    pub fn new(data_dir: &Path) -> Self {
        SessionStore { dir: data_dir.join("sessions") }
    }

    /// The folder holding the session files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Check that `name` can be a session (and so a file) name.
    pub fn validate_name(name: &str) -> Result<(), ConverseError> {
        let ok = !name.is_empty()
            && name.len() <= 64
            && !name.starts_with('.')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if ok { Ok(()) } else { Err(ConverseError::InvalidName(name.to_string())) }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.jsonl"))
    }

    fn lock_file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.lock"))
    }

    /// Whether a session of that name exists.
    pub fn exists(&self, name: &str) -> bool {
        Self::validate_name(name).is_ok() && self.file(name).is_file()
    }

    /// Record a turn: numbered after the session's last turn and stamped now, under the
    /// session's lock. Creates the session when it does not exist.
    pub fn append(&self, name: &str, turn: NewTurn) -> Result<Turn, ConverseError> {
        Self::validate_name(name)?;
        std::fs::create_dir_all(&self.dir).map_err(io("cannot create", &self.dir))?;
        let lock_path = self.lock_file(name);
        let lock = OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(io("cannot open", &lock_path))?;
        lock.lock().map_err(io("cannot lock", &lock_path))?;
        let result = self.append_locked(name, turn);
        // Dropping the file releases the lock too; unlocking explicitly reports nothing useful.
        let _ = lock.unlock();
        result
    }

    fn append_locked(&self, name: &str, turn: NewTurn) -> Result<Turn, ConverseError> {
        let path = self.file(name);
        let mut bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io("cannot read", &path)(e)),
        };
        let (turns, _) = parse(&bytes);
        let number = turns.iter().map(|t| t.turn).max().unwrap_or(0) + 1;
        let turn = turn.numbered(number, chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        let line = serde_json::to_vec(&turn).map_err(|e| ConverseError::Io { action: "cannot encode a turn for", path: path.clone(), source: e.into() })?;
        bytes.extend_from_slice(&line);
        bytes.push(b'\n');
        qa_core::fsx::write_atomic(&path, &bytes).map_err(|e| ConverseError::Io { action: "cannot write", path: path.clone(), source: std::io::Error::other(e.to_string()) })?;
        Ok(turn)
    }

    /// Read a session; unreadable lines are skipped and listed. An unknown name is an error
    /// that lists the sessions there are.
    pub fn load(&self, name: &str) -> Result<SessionLog, ConverseError> {
        Self::validate_name(name)?;
        let path = self.file(name);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let (turns, skipped) = parse(&bytes);
                Ok(SessionLog { name: name.to_string(), turns, skipped })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(ConverseError::NotFound { name: name.to_string(), known: self.list()?.into_iter().map(|s| s.name).collect() })
            }
            Err(e) => Err(io("cannot read", &path)(e)),
        }
    }

    /// Read a session, or an empty one when it does not exist yet (a new conversation).
    pub fn load_or_new(&self, name: &str) -> Result<SessionLog, ConverseError> {
        match self.load(name) {
            Err(ConverseError::NotFound { .. }) => Ok(SessionLog { name: name.to_string(), turns: Vec::new(), skipped: Vec::new() }),
            other => other,
        }
    }

    /// Every session, sorted by name.
    pub fn list(&self) -> Result<Vec<SessionSummary>, ConverseError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io("cannot list", &self.dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io("cannot list", &self.dir))?;
            let path = entry.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".jsonl")) else { continue };
            if Self::validate_name(name).is_err() {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(io("cannot read", &path))?;
            let (turns, _) = parse(&bytes);
            let last = turns.last();
            out.push(SessionSummary {
                name: name.to_string(),
                turns: turns.len(),
                last_timestamp: last.map(|t| t.timestamp.clone()),
                last_question: last.map(|t| t.question.clone()),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Delete a session (under its lock, so no append is lost half-way). Returns whether it
    /// existed.
    pub fn clear(&self, name: &str) -> Result<bool, ConverseError> {
        Self::validate_name(name)?;
        let path = self.file(name);
        if !path.exists() {
            return Err(ConverseError::NotFound { name: name.to_string(), known: self.list()?.into_iter().map(|s| s.name).collect() });
        }
        let lock_path = self.lock_file(name);
        let lock = File::create(&lock_path).map_err(io("cannot open", &lock_path))?;
        lock.lock().map_err(io("cannot lock", &lock_path))?;
        let removed = std::fs::remove_file(&path).map_err(io("cannot remove", &path));
        let _ = lock.unlock();
        let _ = std::fs::remove_file(&lock_path);
        removed.map(|()| true)
    }
}

/// Turns of a session file; lines that are not a turn are skipped with the reason.
fn parse(bytes: &[u8]) -> (Vec<Turn>, Vec<SkippedLine>) {
    let mut turns = Vec::new();
    let mut skipped = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Turn>(line) {
            Ok(t) => turns.push(t),
            Err(e) => skipped.push(SkippedLine { line: i + 1, reason: e.to_string() }),
        }
    }
    (turns, skipped)
}

#[cfg(test)]
mod tests;
