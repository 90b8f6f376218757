//! The one seam every answering source sits behind: the indexed documents (qa-query), a SQL
//! database (qa-sql) and an Elasticsearch index (qa-es). The router, hybrid and complex answers,
//! session turns ("show me more", a reply to a clarifying question) and pasted queries run over
//! `dyn Source`; nothing above this trait knows which engine answered.

use std::io::{self, Write};
use std::path::PathBuf;

use serde_json::Value;

use qa_converse::{Artifact, PendingClarification};
use qa_core::progress::Progress;
use qa_core::trace::{Route, Status, TraceConversation, TraceRecord};

use crate::classify::QueryType;
use crate::profile::SourceProfile;
use crate::score::Target;
use crate::{ErrorCode, RouteError};

/// Exit code of a run that stopped to ask a clarifying question.
pub const EXIT_NEEDS_CLARIFICATION: u8 = 3;

/// A routed question as a source receives it.
pub struct Ask<'a> {
    /// What the source runs: the question, or the retrieval part of an analytic one.
    pub question: &'a str,
    /// How the router reads it.
    pub query_type: QueryType,
    /// Run the best plan instead of asking a clarifying question.
    pub force: bool,
    /// A session already restated the message (the source must not restate it again).
    pub in_session: bool,
    /// Where long work reports itself (the CLI draws a spinner; a library caller may not).
    pub progress: &'a dyn Progress,
}

/// A source the router can send questions to.
pub trait Source {
    /// Which kind of source this is.
    fn target(&self) -> Target;
    /// How the source describes itself to the router (names, fields, sampled values).
    fn profile(&self) -> &SourceProfile;
    /// Answer a routed question.
    fn answer(&mut self, ask: &Ask<'_>) -> Result<SourceAnswer, RouteError>;
    /// Resume the run that asked the clarifying question `checkpoint` with the user's `reply`.
    fn resume(&mut self, checkpoint: &str, reply: &str, ask: &Ask<'_>) -> Result<SourceAnswer, RouteError> {
        let _ = (checkpoint, reply, ask);
        Err(unsupported(self.target(), "has no clarifying questions to resume"))
    }
    /// The page after `artifact` (an earlier answer of this source), for "show me more".
    fn page(&mut self, artifact: &Artifact, message: &str) -> Result<SourceAnswer, RouteError> {
        let _ = (artifact, message);
        Err(unsupported(self.target(), "has no pages"))
    }
    /// Run a query the user pasted (a SQL statement, an ES body), checked by the source's
    /// validator first; a refused query is an answer with [`Status::Error`], never sent.
    fn run_pasted(&mut self, query: &str, message: &str) -> Result<SourceAnswer, RouteError> {
        let _ = (query, message);
        Err(unsupported(self.target(), "runs no pasted queries"))
    }
}

fn unsupported(target: Target, what: &str) -> RouteError {
    RouteError { code: ErrorCode::ValidationError, message: format!("the {} source {what}", target.as_str()), suggestion: "ask a question instead".into() }
}

/// One typed answer, whatever the source.
pub struct SourceAnswer {
    /// The source that answered.
    pub target: Target,
    /// How it ended.
    pub status: Status,
    /// The records the answer rests on (rows or hits as JSON objects; passages for documents),
    /// which complex and hybrid answers analyse.
    pub records: Vec<Value>,
    /// The query that ran and its page, for "show me more".
    pub artifact: Option<Artifact>,
    /// One line for the session's history.
    pub summary: String,
    /// The clarifying question the run ended with, to be answered by the next turn.
    pub clarification: Option<PendingClarification>,
    /// What went wrong, typed (the answer may still carry data).
    pub error: Option<RouteError>,
    /// The page of a direct answer with more rows or hits than a page.
    pub pagination: Option<crate::page::Pagination>,
    /// The run's trace (the caller adds routing and session blocks, then appends it).
    pub trace: TraceRecord,
    /// How the answer is drawn.
    pub view: Box<dyn AnswerView>,
}

impl SourceAnswer {
    /// The process exit code of the answer: 0 answered (or declined), 3 a clarifying question,
    /// 1 an error.
    pub fn exit_code(&self) -> u8 {
        match self.status {
            Status::Answered | Status::Refused => 0,
            Status::NeedsClarification => EXIT_NEEDS_CLARIFICATION,
            Status::Error => 1,
        }
    }

    /// The trace's route.
    pub fn route(&self) -> Route {
        match self.target {
            Target::Documents => Route::Documents,
            Target::Sql => Route::Sql,
            Target::Es => Route::Es,
        }
    }
}

/// How an answer is shown: every source's answer is drawn through this, by the same caller.
pub struct Presentation {
    /// Print the trace after a text answer (done by [`present`], with the routing and session
    /// blocks the caller added).
    pub trace: bool,
    /// No footer or notes on stderr.
    pub quiet: bool,
    /// Terminal columns.
    pub width: usize,
    /// The answer is a session turn (a clarifying question is answered by the next message,
    /// not by a `--resume` flag).
    pub in_session: bool,
    /// Where the trace was appended (named in the footer).
    pub trace_file: PathBuf,
}

/// Draws one answer: for a terminal (stdout the answer, stderr the notes and footer) or as JSON.
pub trait AnswerView {
    /// The answer as the JSON object `--json` prints (the caller adds its own keys).
    fn json(&self) -> Value;
    /// The answer for a terminal.
    fn write_text(&self, p: &Presentation, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()>;
    /// The statement or query that ran, shown under an analysis ("SQL: …").
    fn query_line(&self) -> Option<String> {
        None
    }
}

/// Print `answer` as `--json` (with `extra` keys merged at the top level) or as text.
pub fn present(answer: &SourceAnswer, json: bool, extra: Option<&Value>, p: &Presentation, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
    if json {
        let mut v = answer.view.json();
        if let (Value::Object(obj), Some(Value::Object(extra))) = (&mut v, extra) {
            obj.extend(extra.iter().map(|(k, x)| (k.clone(), x.clone())));
        }
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)
    } else {
        answer.view.write_text(p, out, err)?;
        if p.trace {
            write_trace(&answer.trace, out)?;
        }
        Ok(())
    }
}

/// The trace as the `--trace` flag prints it after a text answer.
pub fn write_trace(trace: &TraceRecord, out: &mut dyn Write) -> io::Result<()> {
    let text = serde_json::to_string_pretty(trace).map_err(io::Error::other)?;
    writeln!(out, "\n=== Query Trace (JSON) ===\n{text}")
}

/// An answer that is one line of text (the end of a result reached, nothing ran).
pub struct NoteView {
    /// The line.
    pub note: String,
    /// Its `--json` object.
    pub json: Value,
}

impl AnswerView for NoteView {
    fn json(&self) -> Value {
        self.json.clone()
    }

    fn write_text(&self, _p: &Presentation, out: &mut dyn Write, _err: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.note)
    }
}

/// A minimal trace of a turn that ran no pipeline (a page of an earlier result, a refused
/// pasted query).
pub fn page_trace(message: &str, route: Route, answer: String, conversation: Option<TraceConversation>) -> TraceRecord {
    TraceRecord {
        trace_id: qa_core::trace::new_trace_id(message),
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        user_question: message.to_string(),
        route,
        status: Some(Status::Answered),
        final_answer: answer,
        conversation,
        ..Default::default()
    }
}
