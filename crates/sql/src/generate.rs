//! Generate k-best SQL candidates: the deterministic generator renders the plan in the
//! dialect; the LLM (when there is one) writes up to k more from the schema context, the plan
//! and few-shot examples. Candidates are ranked by AST quality (see [`rank`]).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::plan::ir::{Cond, Lit};
use super::plan::{sql_coverage::sql_coverage, Coverage, Plan};
use super::schema::SchemaContext;
use super::validate::{self, Verdict};
use super::Dialect;
use qa_llm::{ChatMessage, ChatRequest, OutputFormat, Prompt, PromptError};

/// Longest SQL accepted from an LLM.
pub const MAX_SQL_CHARS: usize = 4000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub sql: String,
    /// `plan` (deterministic) or `llm#N`.
    pub source: String,
    /// Rank score from the AST-quality check (higher is better).
    pub score: f64,
    pub valid: bool,
    pub reasons: Vec<String>,
    /// How much of the question the statement covers (the plan's coverage accounting).
    #[serde(default)]
    pub confidence: f64,
    /// Words of the question the statement does not use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_used: Vec<String>,
}

pub use super::plan::ir::{ident, literal};
use super::plan::ir::number;

/// Render the plan as SQL in the dialect (the deterministic generator), capped at `row_cap` rows.
pub fn render(ctx: &SchemaContext, plan: &Plan, dialect: Dialect, row_cap: usize) -> String {
    super::plan::ir::render_query(ctx, plan, dialect, Some(row_cap))
}

/// Examples over a schema that is not the user's, so the model learns the shape, not answers.
pub fn few_shots(dialect: Dialect) -> Vec<(String, String)> {
    let month = match dialect {
        Dialect::Sqlite => "strftime('%Y-%m', orders.ordered_on)",
        Dialect::Postgres => "to_char(orders.ordered_on, 'YYYY-MM')",
    };
    vec![
        (
            "How many cancelled orders did each customer region have?".into(),
            "SELECT customers.region AS region, COUNT(*) AS order_count FROM orders JOIN customers ON orders.customer_id = customers.id WHERE orders.status = 'Cancelled' GROUP BY customers.region ORDER BY order_count DESC LIMIT 50".into(),
        ),
        (
            "Total order value per month in 2024".into(),
            format!("SELECT {month} AS month, SUM(orders.total) AS total_value FROM orders WHERE orders.ordered_on >= '2024-01-01' AND orders.ordered_on < '2025-01-01' GROUP BY {month} ORDER BY 1 LIMIT 50"),
        ),
    ]
}

fn sql_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"sql": {"type": "string", "maxLength": MAX_SQL_CHARS}},
        "required": ["sql"],
        "additionalProperties": false
    })
}

/// The prompt asking the LLM for one SQL candidate: the schema context, few-shot examples over
/// another database, the plan's statement as a draft (when there is one) and the question. The
/// reply is JSON `{"sql": "..."}`; [`Prompt::parse`] takes the statement out of it.
pub(crate) struct SqlPrompt<'a> {
    /// The schema the statement must use, rendered for the model.
    pub(crate) ctx: &'a SchemaContext,
    /// The user's question, as asked.
    pub(crate) question: &'a str,
    /// The deterministic candidate, offered as a draft to fix.
    pub(crate) plan_hint: Option<&'a str>,
    /// The engine to write for (names it, and picks the examples' date functions).
    pub(crate) dialect: Dialect,
    /// Largest LIMIT the statement may have.
    pub(crate) row_cap: usize,
    /// Candidate number, 0-based: the first is greedy, later ones are sampled with some
    /// temperature so the k answers differ.
    pub(crate) n: usize,
}

/// SQL text taken from a model's reply: trimmed, without a trailing `;`, not empty and at most
/// [`MAX_SQL_CHARS`] characters. Not validated yet: it goes through ranking and validation like
/// any candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GeneratedSql(pub(crate) String);

impl SqlPrompt<'_> {
    fn engine(&self) -> &'static str {
        match self.dialect {
            Dialect::Sqlite => "SQLite",
            Dialect::Postgres => "PostgreSQL",
        }
    }
}

impl Prompt for SqlPrompt<'_> {
    type Reply = GeneratedSql;

    fn request(&self) -> ChatRequest {
        let engine = self.engine();
        let mut user = format!("Database schema ({engine}):\n{}\n", self.ctx.render());
        user.push_str("Examples (another database):\n");
        for (q, s) in few_shots(self.dialect) {
            user.push_str(&format!("Q: {q}\n{{\"sql\": \"{}\"}}\n", s.replace('"', "\\\"")));
        }
        if let Some(hint) = self.plan_hint {
            user.push_str(&format!("\nA draft plan for this question (fix it if it is wrong):\n{hint}\n"));
        }
        user.push_str(&format!(
            "\nWrite one {engine} SELECT statement that answers the question. Use only the tables and columns above, \
             join along the REFERENCES keys, compare text with the exact values listed, and end with LIMIT {row_cap} or less. \
             Reply as {{\"sql\": \"...\"}}.\n\nQuestion: {question}",
            row_cap = self.row_cap,
            question = self.question,
        ));
        ChatRequest {
            messages: vec![
                ChatMessage::system(format!("You translate questions into read-only {engine} SQL. Reply with JSON only.")),
                ChatMessage::user(user),
            ],
            max_tokens: 220,
            format: OutputFormat::Json { name: "sql_query".into(), schema: sql_schema(), prefix: "{\"sql\": \"".into() },
            stop: vec![],
            temperature: if self.n == 0 { 0.0 } else { 0.7 },
            purpose: "sql",
        }
    }

    fn parse(&self, reply: &str) -> Result<GeneratedSql, PromptError> {
        Ok(GeneratedSql(extract_sql(reply)?))
    }
}

/// Why a model's reply yields no SQL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExtractError {
    /// Nothing but blanks (and semicolons) where the statement should be.
    #[error("the reply holds no SQL")]
    Empty,
    /// Over [`MAX_SQL_CHARS`] characters.
    #[error("the SQL is longer than {} characters", MAX_SQL_CHARS)]
    TooLong,
}

impl From<ExtractError> for PromptError {
    fn from(e: ExtractError) -> Self {
        PromptError(e.to_string())
    }
}

/// The SQL in a model's reply: the `sql` field of a JSON object, else a fenced or bare statement.
fn extract_sql(text: &str) -> Result<String, ExtractError> {
    let sql = qa_llm::reply_field_or_code(text, "sql", "sql");
    let sql = sql.trim().trim_end_matches(';').trim().to_string();
    if sql.is_empty() {
        return Err(ExtractError::Empty);
    }
    if sql.chars().count() > MAX_SQL_CHARS {
        return Err(ExtractError::TooLong);
    }
    Ok(sql)
}

/// Score a candidate by AST quality: it must validate (parse for the dialect, one read-only
/// query, known tables and columns); then it gains for using the plan's tables and filter
/// columns and the values the question named, and loses a little for length (simpler wins ties).
pub fn score(verdict: &Verdict, plan: Option<&Plan>, sql: &str, question: &str, dialect: Dialect) -> f64 {
    if !verdict.ok {
        return -100.0 + -(verdict.reasons.len() as f64);
    }
    let mut s = 10.0;
    // Literals the question itself contains are grounded (the plan may not know the value).
    let q = question.to_lowercase();
    for f in validate::literal_filters(sql, dialect) {
        let v = f.value.to_lowercase();
        if v.chars().count() > 1 && q.contains(&v) {
            s += 1.0;
        }
    }
    if let Some(p) = plan {
        let want: Vec<String> = p.tables().iter().map(|t| t.to_ascii_lowercase()).collect();
        let have = &verdict.tables;
        s += want.iter().filter(|t| have.contains(t)).count() as f64;
        s -= have.iter().filter(|t| !want.contains(t)).count() as f64 * 0.5;
        let lower = sql.to_ascii_lowercase();
        for f in &p.filters {
            if f.col().is_some_and(|c| lower.contains(&c.column.to_ascii_lowercase())) {
                s += 0.5;
            }
            match f {
                Cond::In { values, .. } if values.iter().any(|v| match v {
                    Lit::Text(t) => sql.contains(&literal(t)),
                    Lit::Num(n) => sql.contains(&number(*n)),
                    Lit::Bool(_) => false,
                }) =>
                {
                    s += 1.0;
                }
                Cond::Cmp { value: Lit::Num(n), .. } if sql.contains(&number(*n)) => s += 0.5,
                _ => {}
            }
        }
        if p.aggregates() == (lower.contains("count(") || lower.contains("avg(") || lower.contains("sum(") || lower.contains("min(") || lower.contains("max(")) {
            s += 1.0;
        }
    }
    s - sql.len() as f64 / 10_000.0
}

/// Validate and score every candidate; best first (stable for equal scores, so the earlier
/// candidate wins ties). With the plan's coverage, each candidate is also judged by how much of
/// the question it covers (the plan's own candidate by the plan's confidence): a point of score
/// per tenth of confidence.
pub fn rank(
    candidates: Vec<(String, String)>,
    ctx: &SchemaContext,
    plan: Option<&Plan>,
    question: &str,
    dialect: Dialect,
    row_cap: usize,
    coverage: Option<(&Coverage, f64)>,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = candidates
        .into_iter()
        .map(|(source, sql)| {
            let v = validate::validate(&sql, dialect, Some(&ctx.db), row_cap);
            let mut score = score(&v, plan, &sql, question, dialect);
            let (confidence, not_used) = match coverage {
                Some((c, conf)) if source == "plan" => (conf, c.unmapped.clone()),
                Some((c, _)) => {
                    let (cov, conf) = sql_coverage(c, &sql, dialect);
                    (conf, cov.unmapped)
                }
                None => (1.0, Vec::new()),
            };
            if v.ok {
                score += confidence * 10.0;
            }
            Candidate { sql, source, score, valid: v.ok, reasons: v.reasons.iter().map(|r| r.message.clone()).collect(), confidence, not_used }
        })
        .collect();
    out.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan;
    use crate::schema::tests::audit_context;

    fn sql_for(q: &str, d: Dialect) -> String {
        let ctx = audit_context();
        let p = plan(&ctx, q, &[], None).plan.unwrap();
        render(&ctx, &p, d, 200)
    }

    #[test]
    fn renders_group_count_with_joins() {
        let s = sql_for("How many open findings per department?", Dialect::Sqlite);
        assert_eq!(
            s,
            "SELECT departments.\"name\", COUNT(*) AS finding_count FROM findings \
             JOIN audits ON findings.audit_id = audits.id JOIN departments ON audits.department_id = departments.id \
             WHERE findings.status = 'Open' GROUP BY departments.\"name\", departments.id ORDER BY COUNT(*) DESC, departments.\"name\" ASC, departments.id ASC LIMIT 200"
        );
    }

    #[test]
    fn renders_time_buckets_per_dialect() {
        let s = sql_for("Number of findings per month in 2025", Dialect::Postgres);
        assert!(s.starts_with("SELECT to_char(findings.reported_on, 'YYYY-MM') AS \"month\", COUNT(*) AS finding_count FROM findings"), "{s}");
        assert!(s.ends_with("ORDER BY to_char(findings.reported_on, 'YYYY-MM') ASC LIMIT 200"), "months read in time order: {s}");
        assert!(s.contains("findings.reported_on >= '2025-01-01' AND findings.reported_on < '2026-01-01'"), "{s}");
        assert!(s.contains("GROUP BY to_char(findings.reported_on, 'YYYY-MM')"), "{s}");
        let s = sql_for("Number of findings per month in 2025", Dialect::Sqlite);
        assert!(s.starts_with("SELECT strftime('%Y-%m', findings.reported_on) AS \"month\""), "{s}");
    }

    #[test]
    fn renders_top_one_and_literals_escaped() {
        let s = sql_for("Which department has the most critical findings?", Dialect::Sqlite);
        assert!(s.ends_with("ORDER BY COUNT(*) DESC LIMIT 1"), "{s}");
        assert_eq!(literal("O'Brien"), "'O''Brien'");
        assert_eq!(ident("Order Items"), "\"Order Items\"");
        assert_eq!(ident("findings"), "findings");
    }

    #[test]
    fn extracts_sql_from_json_fences_or_text() {
        assert_eq!(extract_sql("{\"sql\": \"SELECT 1;\"}").unwrap(), "SELECT 1");
        assert_eq!(extract_sql("Here:\n```sql\nSELECT 2\n```").unwrap(), "SELECT 2");
        assert_eq!(extract_sql("SELECT 3").unwrap(), "SELECT 3");
        assert!(extract_sql("  ").is_err());
    }

    #[test]
    fn prompt_carries_schema_plan_and_examples() {
        let ctx = audit_context();
        let prompt = SqlPrompt { ctx: &ctx, question: "How many urgent issues?", plan_hint: Some("count findings where severity = 'Critical'"), dialect: Dialect::Postgres, row_cap: 200, n: 1 };
        let r = prompt.request();
        let user = &r.messages[1].content;
        assert!(user.contains("TABLE findings"));
        assert!(user.contains("\"urgent\" means findings.severity IN ('Critical')"));
        assert!(user.contains("to_char(orders.ordered_on"));
        assert!(user.contains("A draft plan"));
        assert!(user.contains("LIMIT 200"));
        assert!(r.temperature > 0.0);
    }

    #[test]
    fn prompt_parses_the_reply_into_sql() {
        let ctx = audit_context();
        let prompt = SqlPrompt { ctx: &ctx, question: "How many findings?", plan_hint: None, dialect: Dialect::Sqlite, row_cap: 50, n: 0 };
        assert_eq!(prompt.parse("{\"sql\": \"SELECT COUNT(*) FROM findings;\"}"), Ok(GeneratedSql("SELECT COUNT(*) FROM findings".into())));
        assert_eq!(prompt.parse(" ; ").unwrap_err().to_string(), "the reply holds no SQL");
        let long = format!("SELECT {} FROM findings", "1 + ".repeat(MAX_SQL_CHARS));
        assert_eq!(prompt.parse(&long).unwrap_err().to_string(), format!("the SQL is longer than {MAX_SQL_CHARS} characters"));
        assert_eq!(prompt.request().temperature, 0.0);
        assert_eq!(prompt.reply_schema(), Some(sql_schema()));
    }

    #[test]
    fn sql_prompt_snapshot() {
        let ctx = audit_context();
        // A fixed draft, so the snapshot changes only with the prompt and the schema rendering.
        let hint = "SELECT departments.name AS department, COUNT(*) AS finding_count FROM findings JOIN audits ON findings.audit_id = audits.id \
                    JOIN departments ON audits.department_id = departments.id WHERE findings.severity = 'Critical' GROUP BY departments.name \
                    ORDER BY finding_count DESC, 1 LIMIT 200";
        let prompt = SqlPrompt { ctx: &ctx, question: "How many urgent issues per department?", plan_hint: Some(hint), dialect: Dialect::Postgres, row_cap: 200, n: 0 };
        qa_llm::prompt::assert_snapshot(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/sql_generate.txt")), &qa_llm::prompt::render(&prompt.request()));
    }
}
