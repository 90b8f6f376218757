//! `qa sql eval`: score the SQL path on a question set with known results. The file format,
//! the grades and the row comparison are shared with `qa es eval` ([`qa_core::tabular_eval`]).

pub use qa_core::tabular_eval::{compare, grade, load, Counts, EvalFileError, EvalQuestion, Expected, Grade, Mismatch, Outcome, Summary};

/// One graded question of `qa sql eval`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GradedQuestion {
    /// The question's id in the file.
    pub id: String,
    /// Its difficulty, when the file names one.
    pub difficulty: Option<String>,
    /// Its class, when the file names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The question.
    pub question: String,
    /// Right, wrong, asked or errored.
    pub grade: Grade,
    /// The validated statement that ran.
    pub sql: Option<String>,
    /// The plan's confidence.
    pub plan_confidence: Option<f64>,
    /// The question's words no part of the statement used.
    pub not_used: Vec<String>,
    /// Why it is not right.
    pub detail: Option<String>,
    /// Milliseconds of the run.
    pub ms: f64,
}

/// Every question of a set through the agent on `db` (its `schema` read once), graded.
/// `progress` hears each question's id.
pub fn run_set(
    db: &mut dyn crate::db::SqlDatabase,
    llm: &mut Option<Box<dyn qa_llm::Llm>>,
    options: &crate::agent::AgentOptions,
    schema: crate::DbSchema,
    url: &crate::SqlUrl,
    questions: &[EvalQuestion],
    progress: &dyn Fn(&str),
) -> (Summary, Vec<GradedQuestion>) {
    use crate::agent::{Agent, Outcome as Run};
    let mut summary = Summary::default();
    let mut records = Vec::new();
    for q in questions {
        progress(&q.id);
        // The closure lets the trait object's lifetime shorten (a bare `LlmRun::new` does not).
        #[allow(clippy::redundant_closure)]
        let mut llm_run = llm.as_deref_mut().map(|l| qa_llm::LlmRun::new(l));
        let run = Agent::new(db, llm_run.as_mut(), options.clone()).with_schema(schema.clone()).run(&q.question, None);
        let scrubbed;
        let outcome = match (&run.outcome, &run.result) {
            (Run::Answered, Some(r)) => Outcome::Rows { columns: &r.columns, rows: &r.rows, truncated: r.truncated },
            (Run::NeedsClarification { question }, _) => Outcome::Asked(question),
            (Run::Failed { error, .. }, _) => {
                scrubbed = url.scrub(error);
                Outcome::Failed(&scrubbed)
            }
            (Run::Answered, None) => Outcome::Failed("answered without rows"),
        };
        let (grade, detail) = grade(q, outcome);
        summary.add(q, grade);
        records.push(GradedQuestion {
            id: q.id.clone(),
            difficulty: q.difficulty.clone(),
            class: q.class.clone(),
            question: q.question.clone(),
            grade,
            sql: run.validated_sql().map(str::to_string),
            plan_confidence: run.state.get("plan_confidence").and_then(serde_json::Value::as_f64),
            not_used: run.unmapped().into_iter().map(str::to_string).collect(),
            detail,
            ms: run.metrics.total_ms,
        });
    }
    (summary, records)
}
