//! The Elasticsearch index as a routed [`Source`]: it describes itself from its mapping and a
//! sample of its values, answers through the ES run (plan, guard, execute), resumes its
//! clarifying questions from their checkpoints, pages its results and runs pasted bodies
//! through the guard.

use std::io::{self, Write};

use serde_json::Value;

use qa_converse::{Artifact, ArtifactKind, PendingClarification};
use qa_core::trace::Status;
use qa_llm::{Generation, LlmRun, LlmSettings};
use qa_route::source::{AnswerView, Ask, Presentation, Source, SourceAnswer};
use qa_route::{ErrorCode, RouteError, SourceProfile, Target};

use crate::answer::EsFailure;
use crate::connect::EsConnection;
use crate::present::{self, Continuation};
use crate::run::{EsOptions, EsQuestion, EsRun};
use crate::{EsAnswer, EsError, SearchEngine};

/// When the ES path may use the LLM.
#[derive(Debug, Clone)]
pub struct EsLlm {
    /// The LLM settings.
    pub settings: LlmSettings,
    /// `es_generation`: query candidates.
    pub generation: Generation,
    /// `reiterate`: restating the question.
    pub reiterate: Generation,
}

impl EsLlm {
    /// Open the LLM for the uses the settings allow.
    pub fn open(&self) -> qa_llm::LlmFor {
        qa_llm::open_for(&self.settings, &[("es_generation", self.generation), ("reiterate", self.reiterate)])
    }
}

/// An open index, described for the router.
pub struct EsSource {
    engine: Box<dyn SearchEngine>,
    connection: EsConnection,
    profile: SourceProfile,
    options: EsOptions,
    llm: EsLlm,
}

impl EsSource {
    /// Open the index, sample its fields (one guarded `size: 0` search) and describe it.
    /// `options` are the run's settings (limits, page size, semantic file); the per-question
    /// fields are set per call.
    pub fn open(connection: EsConnection, options: EsOptions, llm: EsLlm) -> Result<EsSource, EsError> {
        let mut source = EsSource::connect(connection, options, llm)?;
        let mapping = source.engine.mapping()?;
        let (meta, _) = crate::lookup::sample(source.engine.as_ref(), &mapping, &source.options.limits, 50)?;
        let semantic = match &source.options.semantic {
            Some(p) => crate::semantic::Semantic::load(p)?,
            None => crate::semantic::Semantic::default(),
        };
        source.profile = crate::profile::route_profile(&mapping, &meta, &semantic, &source.engine.target());
        Ok(source)
    }

    /// Open the index without describing it (no request is sent): for a command or a pasted
    /// query that needs no routing.
    pub fn connect(connection: EsConnection, options: EsOptions, llm: EsLlm) -> Result<EsSource, EsError> {
        let engine = connection.open()?;
        let profile = SourceProfile::new(Target::Es, engine.target());
        Ok(EsSource { engine, connection, profile, options, llm })
    }

    /// The connection (for hints and scrubbing).
    pub fn connection(&self) -> &EsConnection {
        &self.connection
    }

    /// Run `question` from result `offset` (after the cursor `after`, when given).
    pub fn run_question(&self, question: &str, offset: usize, after: Option<Vec<Value>>, force: bool) -> Result<EsRun, EsError> {
        let data_dir = self.connection.data_dir.clone();
        self.run_with_llm(force, false, |llm, mut options, skip| {
            options.offset = offset;
            options.after = after;
            crate::run::answer(self.engine.as_ref(), llm, EsQuestion { question, options, data_dir: &data_dir, llm_skip: skip })
        })
    }

    /// Resume clarification `checkpoint` with `reply`.
    pub fn resume_run(&self, checkpoint: &str, reply: &str, force: bool, in_session: bool) -> Result<EsRun, EsError> {
        let data_dir = self.connection.data_dir.clone();
        self.run_with_llm(force, in_session, |llm, mut options, _| {
            // A session restated the message already, with its history.
            options.reiterate_llm = false;
            crate::run::resume(self.engine.as_ref(), llm, &data_dir, checkpoint, reply, options)
        })
    }

    /// The engine, for commands that run requests of their own.
    pub fn engine(&self) -> &dyn SearchEngine {
        self.engine.as_ref()
    }

    /// The run's error as the router's typed error, credentials scrubbed.
    pub fn route_error(&self, e: &EsError) -> RouteError {
        let code = code_of(EsFailure::of(e));
        let hints = self.connection.hints(e);
        RouteError { code, message: self.connection.scrub(&e.to_string()), suggestion: if hints.is_empty() { suggestion(code).into() } else { hints.join("; ") } }
    }

    fn run_with_llm(&self, force: bool, in_session: bool, f: impl FnOnce(Option<&mut LlmRun>, EsOptions, Option<&str>) -> Result<EsRun, EsError>) -> Result<EsRun, EsError> {
        let mut opened = self.llm.open();
        let options = EsOptions { use_llm: opened.may(0), reiterate_llm: opened.may(1) && !in_session, force, offset: 0, ..self.options.clone() };
        let skip = opened.skip.clone();
        // The closure lets the trait object's lifetime shorten (a bare `LlmRun::new` does not).
        #[allow(clippy::redundant_closure)]
        let mut llm_run = opened.llm.as_deref_mut().map(|l| LlmRun::new(l));
        f(llm_run.as_mut(), options, skip.as_deref())
    }

    /// The typed answer of a run.
    pub fn reply(&self, run: EsRun) -> SourceAnswer {
        let a = &run.answer;
        let target = self.engine.target();
        let checkpoint = run.checkpoint.as_ref().and_then(|p| p.file_stem()).map(|s| s.to_string_lossy().into_owned());
        let artifact = match (&a.es_query, &a.page) {
            (Some(q), Some(p)) if a.status == Status::Answered => {
                let mut query = q.clone();
                if let Value::Object(o) = &mut query {
                    for k in ["from", "size", "timeout", "track_total_hits"] {
                        o.remove(k);
                    }
                }
                Some(Artifact { kind: ArtifactKind::EsQuery, query, offset: p.offset, page_size: p.size, total: a.total, target: target.clone(), search_after: p.search_after.clone() })
            }
            _ => None,
        };
        let clarification = a.ambiguity.as_ref().filter(|_| a.needs_clarification).and_then(|amb| {
            Some(PendingClarification { checkpoint: checkpoint.clone()?, message: amb.message.clone(), alternatives: amb.alternatives.clone() })
        });
        let summary = match (&a.error, a.total) {
            (Some(e), _) => self.connection.scrub(e),
            (None, Some(t)) => format!("{t} matching: {}", a.query_summary),
            _ => a.query_summary.clone(),
        };
        let error = a.error.as_ref().map(|message| {
            let code = code_of(a.failure.unwrap_or(EsFailure::Engine));
            RouteError { code, message: self.connection.scrub(message), suggestion: suggestion(code).into() }
        });
        let pagination = match (a.total, &a.page) {
            (Some(total), Some(page)) => Some(qa_route::paginate(total, page.offset, page.size)),
            _ => None,
        };
        let status = if present::is_clarification(a) { Status::NeedsClarification } else { a.status };
        SourceAnswer {
            target: Target::Es,
            status,
            records: a.hits.clone(),
            artifact,
            summary: qa_core::text::truncate(&summary, 160),
            clarification,
            error,
            pagination,
            trace: run.trace.clone(),
            view: Box::new(EsView { error_text: a.error.as_deref().map(|e| self.connection.scrub(e)), answer: run.answer, target, checkpoint }),
        }
    }

    /// The answer to `e`: an error the caller reports.
    fn failed(&self, e: EsError) -> RouteError {
        self.route_error(&e)
    }
}

/// The router's error code of a failure kind.
fn code_of(failure: EsFailure) -> ErrorCode {
    match failure {
        EsFailure::Refused => ErrorCode::ValidationError,
        EsFailure::RateLimited => ErrorCode::RateLimitError,
        EsFailure::Engine => ErrorCode::DatabaseError,
    }
}

fn suggestion(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::ValidationError => "`qa es check 'BODY'` shows why a query is refused",
        ErrorCode::RateLimitError => "the server is rate limiting: retry later or raise es_retries",
        _ => "`qa doctor` checks the index",
    }
}

impl Source for EsSource {
    fn target(&self) -> Target {
        Target::Es
    }

    fn profile(&self) -> &SourceProfile {
        &self.profile
    }

    fn answer(&mut self, ask: &Ask<'_>) -> Result<SourceAnswer, RouteError> {
        ask.progress.start("searching", 0);
        let data_dir = self.connection.data_dir.clone();
        let ran = self.run_with_llm(ask.force, ask.in_session, |llm, options, skip| {
            crate::run::answer(self.engine.as_ref(), llm, EsQuestion { question: ask.question, options, data_dir: &data_dir, llm_skip: skip })
        });
        ask.progress.finish();
        ran.map(|run| self.reply(run)).map_err(|e| self.failed(e))
    }

    fn resume(&mut self, checkpoint: &str, reply: &str, ask: &Ask<'_>) -> Result<SourceAnswer, RouteError> {
        self.resume_run(checkpoint, reply, ask.force, true).map(|run| self.reply(run)).map_err(|e| self.failed(e))
    }

    fn page(&mut self, artifact: &Artifact, message: &str) -> Result<SourceAnswer, RouteError> {
        let Some(offset) = artifact.next_offset() else {
            let note = format!("That was the last page: hits {}–{} of {}.", artifact.offset + 1, artifact.offset + artifact.page_size, artifact.total.unwrap_or(0));
            return Ok(last_page(artifact, message, note));
        };
        // The stored cursor fetches a page past the result window in one request.
        let options = EsOptions { offset, page_size: artifact.page_size, after: artifact.search_after.clone(), force: false, ..self.options.clone() };
        crate::run::run_query(self.engine.as_ref(), message, &artifact.query, &options).map(|run| self.reply(run)).map_err(|e| self.failed(e))
    }

    fn run_pasted(&mut self, _query: &str, message: &str) -> Result<SourceAnswer, RouteError> {
        // The run finds the pasted body in the message and sends it through the guard only.
        let data_dir = self.connection.data_dir.clone();
        let ran = self.run_with_llm(false, true, |llm, options, skip| {
            crate::run::answer(self.engine.as_ref(), llm, EsQuestion { question: message, options, data_dir: &data_dir, llm_skip: skip })
        });
        ran.map(|run| self.reply(run)).map_err(|e| self.failed(e))
    }
}

/// "Show me more" after the last page: nothing runs.
fn last_page(artifact: &Artifact, message: &str, note: String) -> SourceAnswer {
    let trace = qa_route::source::page_trace(message, qa_core::trace::Route::Es, note.clone(), None);
    SourceAnswer {
        target: Target::Es,
        status: Status::Answered,
        records: Vec::new(),
        artifact: Some(artifact.clone()),
        summary: "no more hits".into(),
        clarification: None,
        error: None,
        pagination: None,
        trace,
        view: Box::new(qa_route::source::NoteView { json: serde_json::json!({"status": "answered", "route": "es", "hits": [], "note": note}), note }),
    }
}

/// How an ES answer is drawn.
struct EsView {
    answer: EsAnswer,
    target: String,
    checkpoint: Option<String>,
    error_text: Option<String>,
}

impl AnswerView for EsView {
    fn json(&self) -> Value {
        present::answer_json(&self.answer, &self.target, self.checkpoint.as_deref())
    }

    fn write_text(&self, p: &Presentation, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
        let a = &self.answer;
        let how = if p.in_session { Continuation::Session } else { Continuation::Flags };
        if present::is_clarification(a) {
            present::write_clarification(out, a, self.checkpoint.as_deref(), how)?;
        } else if a.status == Status::Error {
            writeln!(err, "error: {}", self.error_text.as_deref().unwrap_or("the search failed"))?;
            for n in &a.notes {
                writeln!(err, "  hint: {n}")?;
            }
            if let Some(q) = &a.es_query {
                writeln!(err, "  query: {}", serde_json::to_string(q).unwrap_or_default())?;
            }
        } else {
            present::write_answer(out, a, p.width, how)?;
        }
        if !p.quiet {
            writeln!(err, "\n[es · {} · {:.0} ms · trace {} → {}]", self.target, a.metrics.total_ms, a.trace_id, p.trace_file.display())?;
        }
        Ok(())
    }

    fn query_line(&self) -> Option<String> {
        self.answer.es_query.as_ref().map(|q| format!("DSL: {}", serde_json::to_string(q).unwrap_or_default()))
    }
}
