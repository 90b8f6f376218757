//! Generate k-best SQL candidates: the deterministic generator renders the plan in the
//! dialect; the LLM (when there is one) writes up to k more from the schema context, the plan
//! and few-shot examples. Candidates are ranked by AST quality (see [`rank`]).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::plan::{AggFunc, ColRef, Filter, GroupKey, Plan, TimeUnit};
use super::schema::{singular, SchemaContext};
use super::validate::{self, Verdict};
use super::Dialect;
use crate::llm::{ChatMessage, ChatRequest, OutputFormat};

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
}

/// A name as an identifier: bare when it is a plain lower-case word, else double-quoted.
pub fn ident(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain { name.to_string() } else { format!("\"{}\"", name.replace('"', "\"\"")) }
}

pub fn literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

fn col(c: &ColRef) -> String {
    format!("{}.{}", ident(&c.table), ident(&c.column))
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

fn time_expr(c: &ColRef, unit: TimeUnit, dialect: Dialect) -> String {
    match (dialect, unit) {
        (Dialect::Sqlite, TimeUnit::Month) => format!("strftime('%Y-%m', {})", col(c)),
        (Dialect::Sqlite, TimeUnit::Year) => format!("strftime('%Y', {})", col(c)),
        (Dialect::Postgres, TimeUnit::Month) => format!("to_char({}, 'YYYY-MM')", col(c)),
        (Dialect::Postgres, TimeUnit::Year) => format!("to_char({}, 'YYYY')", col(c)),
    }
}

fn group_alias(ctx: &SchemaContext, g: &GroupKey) -> String {
    match g {
        GroupKey::Time { unit: TimeUnit::Month, .. } => "month".into(),
        GroupKey::Time { unit: TimeUnit::Year, .. } => "year".into(),
        GroupKey::Column { col } => {
            if ctx.label_column(&col.table).is_some_and(|l| l.eq_ignore_ascii_case(&col.column)) && ["name", "title", "full_name", "label"].contains(&col.column.as_str()) {
                singular(&col.table)
            } else {
                col.column.clone()
            }
        }
    }
}

/// Render the plan as SQL in the dialect (the deterministic generator).
pub fn render(ctx: &SchemaContext, plan: &Plan, dialect: Dialect, row_cap: usize) -> String {
    let mut select: Vec<String> = Vec::new();
    let mut group_exprs: Vec<String> = Vec::new();
    for g in &plan.group_by {
        let expr = match g {
            GroupKey::Column { col: c } => col(c),
            GroupKey::Time { col: c, unit } => time_expr(c, *unit, dialect),
        };
        select.push(format!("{expr} AS {}", ident(&group_alias(ctx, g))));
        group_exprs.push(expr);
    }
    let mut agg_alias = None;
    if let Some(a) = &plan.aggregate {
        let (expr, alias) = match (&a.func, &a.column) {
            (AggFunc::Count, None) => ("COUNT(*)".to_string(), format!("{}_count", singular(&plan.table))),
            (AggFunc::Avg, Some(c)) => (format!("ROUND(AVG({}), 2)", col(c)), format!("avg_{}", c.column)),
            (AggFunc::Sum, Some(c)) => (format!("SUM({})", col(c)), format!("total_{}", c.column)),
            (f, Some(c)) => (format!("{}({})", f.sql(), col(c)), format!("{}_{}", f.sql().to_ascii_lowercase(), c.column)),
            (f, None) => (format!("{}(*)", f.sql()), f.sql().to_ascii_lowercase()),
        };
        select.push(format!("{expr} AS {}", ident(&alias)));
        agg_alias = Some(alias);
    }
    for c in &plan.select {
        select.push(col(c));
    }
    if select.is_empty() {
        select.push(format!("{}.*", ident(&plan.table)));
    }
    let mut sql = format!("SELECT {} FROM {}", select.join(", "), ident(&plan.table));
    for j in &plan.joins {
        sql.push_str(&format!(
            " JOIN {} ON {}.{} = {}.{}",
            ident(&j.to_table),
            ident(&j.from_table),
            ident(&j.from_column),
            ident(&j.to_table),
            ident(&j.to_column)
        ));
    }
    let mut wheres = Vec::new();
    for f in &plan.filters {
        wheres.push(match f {
            Filter::In { col: c, values, .. } if values.len() == 1 => format!("{} = {}", col(c), literal(&values[0])),
            Filter::In { col: c, values, .. } => format!("{} IN ({})", col(c), values.iter().map(|v| literal(v)).collect::<Vec<_>>().join(", ")),
            Filter::Year { col: c, year } => format!("{} >= '{year:04}-01-01' AND {} < '{:04}-01-01'", col(c), col(c), year + 1),
            Filter::Compare { col: c, op, value } => format!("{} {op} {}", col(c), number(*value)),
        });
    }
    if !wheres.is_empty() {
        sql.push_str(&format!(" WHERE {}", wheres.join(" AND ")));
    }
    if !group_exprs.is_empty() && plan.aggregate.is_some() {
        sql.push_str(&format!(" GROUP BY {}", group_exprs.join(", ")));
    }
    match (&plan.order_by, &agg_alias) {
        // The group key breaks ties, so every engine returns the same order.
        (Some((None, desc)), Some(alias)) => {
            sql.push_str(&format!(" ORDER BY {} {}", ident(alias), if *desc { "DESC" } else { "ASC" }));
            if !group_exprs.is_empty() {
                sql.push_str(", 1");
            }
        }
        (Some((Some(c), desc)), _) => sql.push_str(&format!(" ORDER BY {} {}", col(c), if *desc { "DESC" } else { "ASC" })),
        _ if !group_exprs.is_empty() => sql.push_str(" ORDER BY 1"),
        _ if plan.aggregate.is_none() => {
            if let Some(pk) = ctx.table(&plan.table).and_then(|t| t.primary_key.first()) {
                sql.push_str(&format!(" ORDER BY {}.{}", ident(&plan.table), ident(pk)));
            }
        }
        _ => {}
    }
    sql.push_str(&format!(" LIMIT {}", plan.limit.unwrap_or(row_cap).min(row_cap)));
    sql
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

/// The prompt for candidate `n` (0-based): later candidates are sampled with some temperature
/// so the k answers differ.
pub fn request(ctx: &SchemaContext, question: &str, plan_hint: Option<&str>, dialect: Dialect, row_cap: usize, n: usize) -> ChatRequest {
    let engine = match dialect {
        Dialect::Sqlite => "SQLite",
        Dialect::Postgres => "PostgreSQL",
    };
    let mut user = format!("Database schema ({engine}):\n{}\n", ctx.render());
    user.push_str("Examples (another database):\n");
    for (q, s) in few_shots(dialect) {
        user.push_str(&format!("Q: {q}\n{{\"sql\": \"{}\"}}\n", s.replace('"', "\\\"")));
    }
    if let Some(hint) = plan_hint {
        user.push_str(&format!("\nA draft plan for this question (fix it if it is wrong):\n{hint}\n"));
    }
    user.push_str(&format!(
        "\nWrite one {engine} SELECT statement that answers the question. Use only the tables and columns above, \
         join along the REFERENCES keys, compare text with the exact values listed, and end with LIMIT {row_cap} or less. \
         Reply as {{\"sql\": \"...\"}}.\n\nQuestion: {question}"
    ));
    ChatRequest {
        messages: vec![
            ChatMessage::system(format!("You translate questions into read-only {engine} SQL. Reply with JSON only.")),
            ChatMessage::user(user),
        ],
        max_tokens: 220,
        format: OutputFormat::Json { name: "sql_query".into(), schema: sql_schema(), prefix: "{\"sql\": \"".into() },
        stop: vec![],
        temperature: if n == 0 { 0.0 } else { 0.7 },
        purpose: "sql",
    }
}

/// The SQL in a model's reply: the `sql` field of a JSON object, else a fenced or bare statement.
pub fn extract_sql(text: &str) -> Result<String, String> {
    let sql = crate::llm::reply_field_or_code(text, "sql", "sql");
    let sql = sql.trim().trim_end_matches(';').trim().to_string();
    if sql.is_empty() {
        return Err("the reply holds no SQL".into());
    }
    if sql.chars().count() > MAX_SQL_CHARS {
        return Err(format!("the SQL is longer than {MAX_SQL_CHARS} characters"));
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
        let mut want: Vec<String> = vec![p.table.to_ascii_lowercase()];
        want.extend(p.joins.iter().map(|j| j.to_table.to_ascii_lowercase()));
        let have = &verdict.tables;
        s += want.iter().filter(|t| have.contains(t)).count() as f64;
        s -= have.iter().filter(|t| !want.contains(t)).count() as f64 * 0.5;
        let upper = sql.to_ascii_lowercase();
        for f in &p.filters {
            match f {
                Filter::In { col, values, .. } => {
                    if upper.contains(&col.column.to_ascii_lowercase()) {
                        s += 0.5;
                    }
                    if values.iter().any(|v| sql.contains(&literal(v))) {
                        s += 1.0;
                    }
                }
                Filter::Year { year, .. } => {
                    if sql.contains(&year.to_string()) {
                        s += 0.5;
                    }
                }
                Filter::Compare { value, .. } => {
                    if sql.contains(&number(*value)) {
                        s += 0.5;
                    }
                }
            }
        }
        if p.aggregate.is_some() == (upper.contains("count(") || upper.contains("avg(") || upper.contains("sum(") || upper.contains("min(") || upper.contains("max(")) {
            s += 1.0;
        }
    }
    s - sql.len() as f64 / 10_000.0
}

/// Validate and score every candidate; best first (stable for equal scores, so the earlier
/// candidate wins ties).
pub fn rank(candidates: Vec<(String, String)>, ctx: &SchemaContext, plan: Option<&Plan>, question: &str, dialect: Dialect, row_cap: usize) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = candidates
        .into_iter()
        .map(|(source, sql)| {
            let v = validate::validate(&sql, dialect, Some(&ctx.db), row_cap);
            let score = score(&v, plan, &sql, question, dialect);
            Candidate { sql, source, score, valid: v.ok, reasons: v.reasons.iter().map(|r| r.message.clone()).collect() }
        })
        .collect();
    out.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::plan::plan;
    use crate::sql::schema::tests::audit_context;

    fn sql_for(q: &str, d: Dialect) -> String {
        let ctx = audit_context();
        let p = plan(&ctx, q, &[]).plan.unwrap();
        render(&ctx, &p, d, 200)
    }

    #[test]
    fn renders_group_count_with_joins() {
        let s = sql_for("How many open findings per department?", Dialect::Sqlite);
        assert_eq!(
            s,
            "SELECT departments.name AS department, COUNT(*) AS finding_count FROM findings \
             JOIN audits ON findings.audit_id = audits.id JOIN departments ON audits.department_id = departments.id \
             WHERE findings.status = 'Open' GROUP BY departments.name ORDER BY finding_count DESC, 1 LIMIT 200"
        );
    }

    #[test]
    fn renders_time_buckets_per_dialect() {
        let s = sql_for("Number of findings per month in 2025", Dialect::Postgres);
        assert!(s.starts_with("SELECT to_char(findings.reported_on, 'YYYY-MM') AS month, COUNT(*) AS finding_count FROM findings"), "{s}");
        assert!(s.contains("findings.reported_on >= '2025-01-01' AND findings.reported_on < '2026-01-01'"), "{s}");
        assert!(s.ends_with("GROUP BY to_char(findings.reported_on, 'YYYY-MM') ORDER BY 1 LIMIT 200"), "{s}");
        let s = sql_for("Number of findings per month in 2025", Dialect::Sqlite);
        assert!(s.starts_with("SELECT strftime('%Y-%m', findings.reported_on) AS month"), "{s}");
    }

    #[test]
    fn renders_top_one_and_literals_escaped() {
        let s = sql_for("Which department has the most critical findings?", Dialect::Sqlite);
        assert!(s.ends_with("ORDER BY finding_count DESC, 1 LIMIT 1"), "{s}");
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
        let r = request(&ctx, "How many urgent issues?", Some("count findings where severity = 'Critical'"), Dialect::Postgres, 200, 1);
        let user = &r.messages[1].content;
        assert!(user.contains("TABLE findings"));
        assert!(user.contains("\"urgent\" means findings.severity IN ('Critical')"));
        assert!(user.contains("to_char(orders.ordered_on"));
        assert!(user.contains("A draft plan"));
        assert!(user.contains("LIMIT 200"));
        assert!(r.temperature > 0.0);
    }
}
