//! Interpret & plan: map a question onto the schema context and build a query plan — the
//! subject table, joins along foreign keys, filters, an aggregation, grouping, ordering.
//!
//! Deterministic and explainable, and schema-driven only: every rule reads table and column
//! names, types, keys, sampled values and the semantic file — nothing here knows a particular
//! database. Every token of the question ends up either mapped (to a table, column, value,
//! operator, aggregate, ordering, limit, date …) or listed as unmapped (`question`); the
//! plan's confidence is derived from that coverage and from ambiguity. When a phrase could
//! mean several things (a value found in two tables' columns, or no table at all), the plan is
//! not OK and carries a clarifying question with numbered options; an answer resolves it on
//! resume.
//!
//! Modules: `question` (tokens, coverage ledger), `matching` (lexicon matching),
//! `signals` (aggregate, ranking and grouping words), `interpret` (subject, values, yes/no and
//! optional columns), `conditions` (numbers, dates,
//! related-row counts), `shape` (aggregate, grouping, ranking, projection), `fix` (join paths,
//! plan fixes), `route` (routing score), `sql_coverage` (how much of the question an SQL
//! text covers, for LLM candidates).

mod conditions;
mod fix;
mod interpret;
pub(crate) mod matching;
mod measure;
pub(crate) mod question;
mod route;
mod shape;
mod signals;
pub(crate) mod sql_coverage;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

#[cfg(test)]
use fix::fix_plan;
pub(crate) use fix::multiplies;
pub(crate) use question::Coverage;
pub(crate) use route::route_score;
pub use route::{RouteDecision, ROUTE_THRESHOLD};

use super::schema::{normalise, singular, words, JoinStep, SchemaContext, Term};
#[cfg(test)]
use matching::term_table;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct ColRef {
    pub(crate) table: String,
    pub(crate) column: String,
}

impl ColRef {
    pub(crate) fn new(table: &str, column: &str) -> ColRef {
        ColRef { table: table.into(), column: column.into() }
    }
}

impl std::fmt::Display for ColRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.table, self.column)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Filter {
    /// `col IN (values)` (one value: `col = value`); `NOT IN` / `<>` when negated.
    In {
        col: ColRef,
        values: Vec<String>,
        phrase: String,
        #[serde(default, skip_serializing_if = "is_false")]
        negated: bool,
    },
    /// The date column falls in a calendar year.
    Year { col: ColRef, year: i32 },
    /// `col op number`.
    Compare { col: ColRef, op: String, value: f64 },
    /// A yes/no column is true (or false).
    Bool { col: ColRef, value: bool },
    /// An optional column is (not) set: `IS NULL` / `IS NOT NULL`.
    Null { col: ColRef, is_null: bool },
    /// `from <= col < to` on ISO dates (either bound may be open).
    DateRange { col: ColRef, from: Option<String>, to: Option<String> },
    /// The month of a date, whatever the year (1–12).
    MonthOf { col: ColRef, month: u32 },
    /// The number of rows reached from each subject row along `path` (the first step leaves
    /// the subject) compares to `value`: "more than 5 orders", "no orders" (= 0).
    Related { path: Vec<JoinStep>, op: String, value: f64 },
}

impl Filter {
    /// The column the filter tests (None for related-row counts).
    pub(crate) fn col(&self) -> Option<&ColRef> {
        match self {
            Filter::In { col, .. }
            | Filter::Year { col, .. }
            | Filter::Compare { col, .. }
            | Filter::Bool { col, .. }
            | Filter::Null { col, .. }
            | Filter::DateRange { col, .. }
            | Filter::MonthOf { col, .. } => Some(col),
            Filter::Related { .. } => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AggFunc {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// `COUNT(DISTINCT column)`.
    CountDistinct,
}

impl AggFunc {
    pub(crate) fn sql(self) -> &'static str {
        match self {
            AggFunc::Count | AggFunc::CountDistinct => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Aggregate {
    pub(crate) func: AggFunc,
    /// None: `COUNT(*)`.
    pub(crate) column: Option<ColRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TimeUnit {
    Year,
    Month,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum GroupKey {
    Column { col: ColRef },
    Time { col: ColRef, unit: TimeUnit },
}

impl GroupKey {
    pub(crate) fn col(&self) -> &ColRef {
        match self {
            GroupKey::Column { col } | GroupKey::Time { col, .. } => col,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// The subject: the table rows are counted or listed from (`FROM`).
    pub(crate) table: String,
    pub(crate) joins: Vec<JoinStep>,
    /// Columns listed when there is no aggregate.
    pub(crate) select: Vec<ColRef>,
    pub(crate) filters: Vec<Filter>,
    pub(crate) aggregate: Option<Aggregate>,
    pub(crate) group_by: Vec<GroupKey>,
    /// Order by the aggregate (when there is one) or this column; `desc`.
    pub(crate) order_by: Option<(Option<ColRef>, bool)>,
    /// From "top 5" / "which ... most" (1); the row cap applies anyway.
    pub(crate) limit: Option<usize>,
}

impl Plan {
    /// Every table the plan reads: the subject, the joined tables and those of related counts.
    pub(crate) fn tables(&self) -> Vec<String> {
        let mut out = vec![self.table.clone()];
        let related = self.filters.iter().filter_map(|f| if let Filter::Related { path, .. } = f { Some(path) } else { None }).flatten();
        for t in self.joins.iter().chain(related).map(|j| j.to_table.clone()) {
            if !out.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                out.push(t);
            }
        }
        out
    }
}

/// One way to read an ambiguous phrase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Choice {
    pub(crate) label: String,
    pub(crate) term: Term,
}

/// What a clarifying question is about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AmbiguityKind {
    /// A phrase has several readings (or no table is named): pick one.
    #[default]
    Reading,
    /// Part of the question was not understood: run without it, or rephrase.
    Coverage,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Ambiguity {
    pub(crate) phrase: String,
    pub(crate) options: Vec<Choice>,
    /// 0..1: how unsure the plan is without an answer (1 = no basis to choose).
    pub(crate) score: f64,
    #[serde(default)]
    pub(crate) kind: AmbiguityKind,
}

/// A user's answer to a clarifying question: the phrase and the chosen reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Clarification {
    pub(crate) phrase: String,
    pub(crate) answer: String,
    pub(crate) choice: Option<Term>,
}

/// The phrase of a coverage clarification: an answer that picks its option means "run the plan
/// although part of the question was not used".
pub(crate) const COVERAGE_PHRASE: &str = "<not used>";

impl Clarification {
    /// The user chose to run a low-coverage plan anyway.
    pub(crate) fn proceeds(&self) -> bool {
        self.phrase == COVERAGE_PHRASE && self.choice.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PlanOutcome {
    pub(crate) intent: serde_json::Value,
    pub(crate) plan: Option<Plan>,
    /// From coverage and ambiguity (see [`question::Coverage::confidence`]).
    pub(crate) confidence: f64,
    pub(crate) coverage: Coverage,
    pub(crate) fixes: Vec<String>,
    pub(crate) ambiguity: Option<Ambiguity>,
    pub(crate) clarifying_question: Option<String>,
}

/// Ambiguity at or above this stops the run with a clarifying question.
pub(crate) const AMBIGUITY_THRESHOLD: f64 = 0.5;

/// A plan whose confidence is below this is not run without `--force` or a "run it anyway"
/// answer: the agent asks instead. With the unmapped-word weight of 3, one unmapped content
/// word keeps any question of fewer than 12 mapped words below it.
pub(crate) const CONFIDENCE_THRESHOLD: f64 = 0.8;

/// Plan the question. `clarifications` are earlier answers (on resume). Relative dates are
/// relative to the local date.
pub(crate) fn plan(ctx: &SchemaContext, question: &str, clarifications: &[Clarification]) -> PlanOutcome {
    plan_on(ctx, question, clarifications, chrono::Local::now().date_naive())
}

/// [`plan`] with "today" fixed.
pub(crate) fn plan_on(ctx: &SchemaContext, question: &str, clarifications: &[Clarification], today: chrono::NaiveDate) -> PlanOutcome {
    let question = measure::rewrite(ctx, question);
    let mut it = interpret::Interp::new(ctx, &question, clarifications, today);
    it.merge_qualifiers();
    it.signals();
    if let Err(outcome) = it.choose_subject() {
        return *outcome;
    }
    it.dates();
    it.comparisons();
    it.values();
    it.yes_no_and_optional();
    it.shape();
    it.finish()
}

fn matches_json(matches: &[matching::Match]) -> serde_json::Value {
    serde_json::Value::Array(
        matches
            .iter()
            .map(|m| serde_json::json!({"phrase": m.phrase, "terms": m.terms.iter().map(|(t, s)| serde_json::json!({"term": t, "source": s})).collect::<Vec<_>>()}))
            .collect(),
    )
}

fn clarifying_text(a: &Ambiguity, head: &str) -> String {
    let mut q = head.to_string();
    for (i, o) in a.options.iter().enumerate() {
        q.push_str(&format!("\n  {}. {}", i + 1, o.label));
    }
    q
}

/// The clarifying question for a plan that leaves part of the question unused: run it as
/// planned (option 1), or rephrase (any other answer is added to the question).
pub(crate) fn coverage_question(plan: &Plan, coverage: &Coverage, confidence: f64) -> (Ambiguity, String) {
    let unused = if coverage.unmapped.is_empty() {
        coverage.penalties.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>().join("; ")
    } else {
        coverage.unmapped.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")
    };
    let label = format!("run it without: {unused}");
    let amb = Ambiguity {
        phrase: COVERAGE_PHRASE.into(),
        options: vec![Choice { label, term: Term::Table { table: plan.table.clone() } }],
        score: 1.0 - confidence,
        kind: AmbiguityKind::Coverage,
    };
    let head = format!(
        "Part of the question is not used by the query I can build (confidence {confidence:.2}): not used: {unused}.\n\
         Answer 1 to run it anyway, or answer with more detail (names from `qa sql schema`)."
    );
    let q = clarifying_text(&amb, &head);
    (amb, q)
}

/// Resolve an answer to a clarifying question: an option number ("2"), an option's words
/// ("findings", "the audit status"), else None (the answer is then added to the question).
/// For a coverage question, "yes", "run", "go ahead", "anyway" pick the option too.
pub(crate) fn resolve_answer(amb: &Ambiguity, answer: &str) -> Option<Term> {
    let a = answer.trim();
    if let Ok(n) = a.trim_end_matches('.').parse::<usize>() {
        return amb.options.get(n.checked_sub(1)?).map(|o| o.term.clone());
    }
    if amb.kind == AmbiguityKind::Coverage {
        let yes = words(a).iter().any(|w| ["yes", "y", "run", "ok", "okay", "proceed", "anyway", "go", "force"].contains(&w.as_str()));
        return yes.then(|| amb.options.first().map(|o| o.term.clone())).flatten();
    }
    let aw: Vec<String> = words(a).iter().map(|w| singular(w)).collect();
    let mut best: Option<(usize, &Choice)> = None;
    for o in &amb.options {
        let ow: Vec<String> = words(&o.label.replace(['.', '_'], " ")).iter().map(|w| singular(w)).collect();
        let score = aw.iter().filter(|w| ow.contains(w)).count();
        if score > 0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, o));
        } else if best.is_some_and(|(s, _)| s == score) {
            // A tie is no answer.
            best = best.filter(|(s, _)| *s != score);
        }
    }
    best.map(|(_, o)| o.term.clone())
}

/// Normalised phrase equality for clarifications.
fn same_phrase(a: &str, b: &str) -> bool {
    normalise(a) == normalise(b)
}
