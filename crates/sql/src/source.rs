//! The SQL database as a routed [`Source`]: it describes itself from its schema (tables,
//! columns, sampled values, the semantic file's synonyms), answers through the agent, resumes a
//! clarifying question from its checkpoint, pages a statement one page further and runs a
//! pasted statement. Every statement passes the validator with the schema (read-only, known
//! tables and columns, LIMIT capped) before it reaches the database.

mod view;

use std::path::PathBuf;

use serde_json::Value;

use qa_converse::{Artifact, ArtifactKind, PendingClarification};
use qa_core::trace::{Route, Status, TraceRecord};
use qa_llm::{Generation, LlmRun, LlmSettings};
use qa_route::source::{Ask, Source, SourceAnswer, page_trace};
use qa_route::{ErrorCode, RouteError, SourceProfile, Target};

use crate::agent::{AgentOptions, Outcome};
use crate::answer::{SqlAnswer, SqlQuestion};
use crate::db::SqlDatabase;
use crate::schema::SemanticSchema;
use crate::{DbSchema, ExecLimits, QueryResult, SqlError, SqlUrl, validate};

pub use view::{SqlView, SHOWN_ROWS};

/// When the SQL path may use the LLM (`sql_generation`).
#[derive(Debug, Clone)]
pub struct SqlLlm {
    /// The LLM settings.
    pub settings: LlmSettings,
    /// `sql_generation`.
    pub generation: Generation,
}

/// An open database, described for the router.
pub struct SqlSource {
    db: Box<dyn SqlDatabase>,
    url: SqlUrl,
    schema: DbSchema,
    profile: SourceProfile,
    options: AgentOptions,
    data_dir: PathBuf,
    llm: SqlLlm,
}

impl SqlSource {
    /// Open `url` read-only, read its schema with sampled values and describe it. A semantic
    /// file that cannot be read is left out; the reason is returned with the source.
    pub fn open(url: SqlUrl, options: AgentOptions, data_dir: PathBuf, llm: SqlLlm) -> Result<(SqlSource, Option<String>), SqlError> {
        let mut db = crate::db::open(&url, options.limits).map_err(|e| scrubbed(&url, e))?;
        let schema = db.introspect(options.sample_values).map_err(|e| scrubbed(&url, e))?;
        let (semantic, note) = match options.semantic_schema.as_deref().map(SemanticSchema::load) {
            Some(Ok(s)) => (Some(s), None),
            Some(Err(e)) => (None, Some(format!("semantic schema ignored: {e}"))),
            None => (None, None),
        };
        let profile = crate::route::route_profile(&schema, semantic.as_ref(), &url.to_string());
        Ok((SqlSource { db, url, schema, profile, options, data_dir, llm }, note))
    }

    /// The database's URL (shown without credentials by its `Display`).
    pub fn url(&self) -> &SqlUrl {
        &self.url
    }

    /// The database's failure as the router's error, without the URL's password.
    fn database_error(&self, e: &SqlError) -> RouteError {
        RouteError::database(self.url.scrub(&e.to_string()), "`qa doctor` checks the database")
    }

    fn limits(&self) -> ExecLimits {
        self.options.limits
    }

    /// Run the agent on `question` (a resumed checkpoint with the reply when given).
    fn run(&mut self, question: &str, options: AgentOptions, resume: Option<(crate::checkpoint::Checkpoint, String)>, ask: &Ask<'_>) -> Result<SqlAnswer, RouteError> {
        let mut opened = qa_llm::open_for(&self.llm.settings, &[("sql_generation", self.llm.generation)]);
        let skip = opened.skip.clone();
        // The closure lets the trait object's lifetime shorten (a bare `LlmRun::new` does not).
        #[allow(clippy::redundant_closure)]
        let mut llm_run = opened.llm.as_deref_mut().map(|l| LlmRun::new(l));
        ask.progress.start("querying the database", 0);
        let q = SqlQuestion { question, url: &self.url, options, resume, schema: Some(self.schema.clone()), data_dir: &self.data_dir, llm_skip: skip.as_deref() };
        let answered = crate::answer::answer(self.db.as_mut(), llm_run.as_mut(), q);
        ask.progress.finish();
        answered.map_err(|e| self.database_error(&e))
    }

    /// The typed answer of an agent run.
    pub fn reply(&self, a: SqlAnswer) -> SourceAnswer {
        let run = &a.run;
        let rows = run.result.as_ref().map(records_of).unwrap_or_default();
        let (summary, clarification) = match &run.outcome {
            Outcome::Answered => (a.trace.final_answer.clone(), None),
            Outcome::NeedsClarification { question } => (
                question.lines().next().unwrap_or_default().to_string(),
                a.checkpoint.clone().map(|id| PendingClarification { checkpoint: id, message: question.clone(), alternatives: numbered_choices(question) }),
            ),
            Outcome::Failed { error, .. } => (error.clone(), None),
        };
        let row_cap = self.limits().row_cap;
        let artifact = match (&run.outcome, &run.result, run.sql()) {
            // A full page (the statement's LIMIT is the row cap) may have rows after it.
            (Outcome::Answered, Some(r), Some(sql)) => Some(sql_artifact(sql, 0, r.rows.len(), r.truncated || r.rows.len() >= row_cap, &self.url.to_string())),
            _ => None,
        };
        let error = match &run.outcome {
            Outcome::Failed { error, suggestions } => Some(RouteError {
                code: if run.refused_by_validator() { ErrorCode::ValidationError } else { ErrorCode::DatabaseError },
                message: error.clone(),
                suggestion: suggestions.first().cloned().unwrap_or_else(|| "see `qa sql schema` for the tables and columns".into()),
            }),
            _ => None,
        };
        let pagination = (rows.len() > qa_route::page::PAGE_SIZE).then(|| qa_route::paginate(rows.len() as u64, 0, qa_route::page::PAGE_SIZE));
        SourceAnswer {
            target: Target::Sql,
            status: run.outcome.status(),
            records: rows,
            artifact,
            summary: qa_core::text::truncate(&summary, 160),
            clarification,
            error,
            pagination,
            trace: a.trace.clone(),
            view: Box::new(SqlView::Answer { answer: Box::new(a), row_cap }),
        }
    }

    /// Validate `statement` against the schema and run it read-only; a refusal is an answer
    /// with the reasons, and nothing reaches the database.
    fn run_statement(&mut self, statement: &str) -> Result<Statement, RouteError> {
        let verdict = validate::validate(statement, self.url.dialect, Some(&self.schema), self.limits().row_cap);
        let Some(sql) = verdict.sql.clone().filter(|_| verdict.ok) else {
            return Ok(Statement::Refused(verdict.reasons.iter().map(|r| r.message.clone()).collect()));
        };
        let result = self.db.query(&sql, self.limits()).map_err(|e| self.database_error(&e))?;
        Ok(Statement::Ran { sql, result, capped: !verdict.changes.is_empty() })
    }
}

/// `e` without the URL's password (the drivers' messages should not hold it; this makes sure).
fn scrubbed(url: &SqlUrl, e: SqlError) -> SqlError {
    match e {
        SqlError::Connect { target, reason } => SqlError::Connect { target: url.scrub(&target), reason: url.scrub(&reason) },
        SqlError::Query { reason, transient } => SqlError::Query { reason: url.scrub(&reason), transient },
        other => other,
    }
}

impl Source for SqlSource {
    fn target(&self) -> Target {
        Target::Sql
    }

    fn profile(&self) -> &SourceProfile {
        &self.profile
    }

    fn answer(&mut self, ask: &Ask<'_>) -> Result<SourceAnswer, RouteError> {
        let options = AgentOptions { force: ask.force, ..self.options.clone() };
        let a = self.run(ask.question, options, None, ask)?;
        Ok(self.reply(a))
    }

    fn resume(&mut self, checkpoint: &str, reply: &str, ask: &Ask<'_>) -> Result<SourceAnswer, RouteError> {
        let cp = crate::checkpoint::load(&self.data_dir, checkpoint).map_err(|e| RouteError { code: ErrorCode::ValidationError, message: e.to_string(), suggestion: "ask the question again".into() })?;
        let options = AgentOptions { limits: self.limits(), force: ask.force || cp.options.force, ..cp.options.clone() };
        let question = cp.question.clone();
        let a = self.run(&question, options, Some((cp, reply.to_string())), ask)?;
        Ok(self.reply(a))
    }

    fn page(&mut self, artifact: &Artifact, message: &str) -> Result<SourceAnswer, RouteError> {
        let Some(offset) = artifact.next_offset() else {
            let note = format!("That was the last page: rows {}–{} of {}.", artifact.offset + 1, artifact.offset + artifact.page_size, artifact.total.unwrap_or(0));
            let json = serde_json::json!({"status": "answered", "columns": [], "rows": [], "page": {"offset": artifact.offset, "size": artifact.page_size, "next_offset": null}, "note": note});
            let trace = page_trace(message, Route::Sql, note.clone(), None);
            return Ok(page_answer(artifact.clone(), "no more rows".into(), trace, Box::new(qa_route::source::NoteView { note, json })));
        };
        let statement = artifact.query.as_str().unwrap_or_default().to_string();
        let paged = validate::paged(&statement, self.url.dialect, offset as u64, artifact.page_size as u64)
            .ok_or_else(|| RouteError { code: ErrorCode::ValidationError, message: format!("the earlier statement cannot be paged: {statement}"), suggestion: "ask the question again".into() })?;
        match self.run_statement(&paged)? {
            Statement::Ran { sql, result, .. } => {
                let more = result.rows.len() == artifact.page_size;
                let page = Page { statement, sql, offset, size: artifact.page_size, more, label: "of the earlier result", prior: true };
                Ok(self.show(message, page, result))
            }
            Statement::Refused(reasons) => Err(RouteError { code: ErrorCode::ValidationError, message: format!("the next page was refused by the validator: {}", reasons.join("; ")), suggestion: "ask the question again".into() }),
        }
    }

    fn run_pasted(&mut self, statement: &str, message: &str) -> Result<SourceAnswer, RouteError> {
        match self.run_statement(statement)? {
            Statement::Ran { sql, result, capped } => {
                // The statement's own LIMIT (kept when within the row cap) is all the user asked
                // for; a LIMIT the validator added or lowered may have rows after it.
                let cap = self.limits().row_cap;
                let more = capped && result.rows.len() >= cap;
                let page = Page { statement: statement.to_string(), sql, offset: 0, size: cap, more, label: "of the pasted statement", prior: false };
                Ok(self.show(message, page, result))
            }
            Statement::Refused(reasons) => {
                let error = format!("the pasted SQL statement was refused: {}", reasons.join("; "));
                let mut trace = page_trace(message, Route::Sql, String::new(), None);
                trace.status = Some(Status::Error);
                trace.error = Some(error.clone());
                let json = serde_json::json!({"status": "error", "error": error, "reasons": reasons, "user_query_text": statement, "trace_id": trace.trace_id});
                Ok(SourceAnswer {
                    target: Target::Sql,
                    status: Status::Error,
                    records: Vec::new(),
                    artifact: None,
                    summary: qa_core::text::truncate(&error, 160),
                    clarification: None,
                    error: Some(RouteError { code: ErrorCode::ValidationError, message: error, suggestion: "`qa sql check 'SQL'` explains a verdict".into() }),
                    pagination: None,
                    trace,
                    view: Box::new(SqlView::Refused { reasons, json }),
                })
            }
        }
    }
}

/// A statement after the validator: run (the statement that ran, its rows, whether the
/// validator added or lowered its LIMIT), or refused with the reasons.
enum Statement {
    Ran { sql: String, result: QueryResult, capped: bool },
    Refused(Vec<String>),
}

/// One page of a statement's result.
struct Page {
    /// The statement as the user or the agent wrote it (what later pages re-page).
    statement: String,
    /// What ran.
    sql: String,
    offset: usize,
    size: usize,
    /// Rows may follow this page.
    more: bool,
    /// "of the earlier result", for the summary line.
    label: &'static str,
    /// A page of an earlier result (not a pasted statement).
    prior: bool,
}

impl SqlSource {
    /// A page as an answer; the session keeps it for the next "show me more".
    fn show(&self, message: &str, page: Page, result: QueryResult) -> SourceAnswer {
        let rows = result.rows.len();
        let summary = if rows == 0 { format!("no rows {}", page.label) } else { format!("rows {}–{} {}", page.offset + 1, page.offset + rows, page.label) };
        let mut trace = page_trace(message, Route::Sql, format!("{summary}: {}", page.sql), None);
        trace.latency_ms.total = result.elapsed_ms;
        // `total` stays unknown while pages are full; a short page is the end.
        let mut artifact = sql_artifact(&page.statement, page.offset, page.size, page.more, &self.url.to_string());
        if !page.more {
            artifact.total = Some((page.offset + rows) as u64);
        }
        let next = page.more.then_some(page.offset + rows);
        let json = serde_json::json!({
            "status": "answered", "sql": page.sql, "columns": result.columns, "rows": result.rows,
            "page": {"offset": page.offset, "size": page.size, "next_offset": next}, "trace_id": trace.trace_id,
        });
        let view = SqlView::Page { result, sql: page.sql, summary: summary.clone(), more: page.more, prior: page.prior, trace_id: trace.trace_id.clone(), json };
        let mut answer = page_answer(artifact, summary, trace, Box::new(view));
        answer.records = Vec::new();
        answer
    }
}

fn page_answer(artifact: Artifact, summary: String, trace: TraceRecord, view: Box<dyn qa_route::AnswerView>) -> SourceAnswer {
    SourceAnswer { target: Target::Sql, status: Status::Answered, records: Vec::new(), artifact: Some(artifact), summary, clarification: None, error: None, pagination: None, trace, view }
}

/// Rows of a SQL result as JSON records (column → value).
fn records_of(result: &QueryResult) -> Vec<Value> {
    result.rows.iter().map(|row| Value::Object(result.columns.iter().cloned().zip(row.iter().cloned()).collect())).collect()
}

/// The numbered choices of a clarifying question (`  1. …` lines).
pub fn numbered_choices(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let (n, rest) = l.split_once(". ")?;
            n.parse::<usize>().ok().map(|_| rest.trim().to_string())
        })
        .collect()
}

/// The SQL artifact of an answered run: the statement that ran and the page it returned.
pub fn sql_artifact(sql: &str, offset: usize, rows: usize, truncated: bool, target: &str) -> Artifact {
    Artifact {
        kind: ArtifactKind::Sql,
        query: Value::String(sql.to_string()),
        offset,
        page_size: rows.max(1),
        // A page cut by the row cap has more rows after it; an uncut one is the end.
        total: (!truncated).then_some((offset + rows) as u64),
        target: target.to_string(),
        search_after: None,
    }
}
