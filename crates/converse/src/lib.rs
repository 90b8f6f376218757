//! Conversations: a session is a named, append-only record of turns in the data folder
//! (`<data_dir>/sessions/<name>.jsonl`, one turn per line), shared by `qa chat` and
//! `qa ask --session`.
//!
//! [`store`] keeps the files (turn numbers assigned under a lock, each turn written atomically,
//! unreadable lines skipped with a warning); [`turn`] is the line's contract (the design guide's
//! session file); [`follow_up`] reads a new message against the history: "show me more",
//! references to earlier results, and follow-up questions rewritten with the earlier turn's
//! subject. [`reiterate`] is the node itself (F01): rules, and the LLM's structured restatement
//! with the last turns as context; `qa es` uses it too.

pub mod conversation;
pub mod follow_up;
pub mod reiterate;
pub mod store;
pub mod turn;

pub use conversation::{Conversation, Restating, TurnOutcome};
pub use store::{ConverseError, SessionLog, SessionStore, SessionSummary, SkippedLine};
pub use turn::{Artifact, ArtifactKind, NewTurn, PendingClarification, Turn};
