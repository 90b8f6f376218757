//! Interpret & plan: read the question against the schema (the shared question reader,
//! [`qa_question`]: analysis and linking) and build a query plan — the table rows come from,
//! joins along foreign keys, conditions (values, flags, numbers, dates, related rows, averages),
//! aggregates, grouping, ranking, ordering, projection.
//!
//! Deterministic, explainable and schema-driven only: every rule reads names, types, keys,
//! stored values and the semantic file — nothing here knows a particular database. Every content
//! word of the question ends up used by the plan (with what it became) or listed as not used
//! ([`qa_question::Ledger`]); the plan's confidence comes from that coverage and from the guesses
//! it had to make. When a phrase could mean several things (a value found in two tables, no
//! table named at all) the plan carries a clarifying question with numbered options; an answer
//! resolves it on resume.
//!
//! Modules: `source` (the schema as the reader sees it, value lookups), `ir` (the query form and
//! its SQL), `read` (the reader's state and helpers), `entity` (what rows are asked about and
//! shown), `conditions` (flags, numbers, dates, related rows), `values` (stored values and
//! which column a value said belongs to), `kin` (rows that refer to rows of their own table), `totals` (an amount compared "in total" over related rows), `ratio` (a percentage of rows as two counts), `shape` (aggregates,
//! grouping, ranking), `order` (ordering), `finish` (joins, coverage, the outcome), `route` (routing
//! score), `sql_coverage` (how much of the question an SQL text covers, for LLM candidates).

mod audit;
mod conditions;
mod dating;
mod events;
mod entity;
mod finish;
mod settle;
mod groups;
mod money;
mod kin;
pub(crate) mod ir;
mod order;
mod paths;
mod ratio;
mod read;
mod roles;
mod shape;
mod totals;
mod values;
mod which;
pub(crate) mod source;
pub(crate) mod sql_coverage;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_quotes;
#[cfg(test)]
mod tests_tools;
#[cfg(test)]
mod tests_moorings;
#[cfg(test)]
mod tests_kin;
#[cfg(test)]
mod tests_rescue;
#[cfg(test)]
mod tests_guards;
#[cfg(test)]
mod tests_workshop;
#[cfg(test)]
mod tests_tours;
#[cfg(test)]
mod tests_orchards;

use serde::{Deserialize, Serialize};

pub(crate) use ir::Query as Plan;
pub(crate) use qa_question::Coverage;

use super::schema::{SchemaContext, Term};

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
    /// From coverage and the guesses made (see [`qa_question::Coverage::confidence`]).
    pub(crate) confidence: f64,
    pub(crate) coverage: Coverage,
    pub(crate) fixes: Vec<String>,
    pub(crate) ambiguity: Option<Ambiguity>,
    pub(crate) clarifying_question: Option<String>,
}

/// Ambiguity at or above this stops the run with a clarifying question.
pub(crate) const AMBIGUITY_THRESHOLD: f64 = 0.5;

/// A plan whose confidence is below this is not run without `--force` or a "run it anyway"
/// answer: the agent asks instead. With the unused-word weight of 3, one unused content word
/// keeps any question of fewer than 12 used words below it.
pub(crate) const CONFIDENCE_THRESHOLD: f64 = 0.8;

/// Plan the question. `clarifications` are earlier answers (on resume); `lookup` asks the
/// database about literals the value index lacks. Relative dates are relative to the local date.
pub(crate) fn plan(ctx: &SchemaContext, question: &str, clarifications: &[Clarification], lookup: Option<&mut dyn qa_question::ValueLookup>) -> PlanOutcome {
    plan_on(ctx, question, clarifications, chrono::Local::now().date_naive(), lookup)
}

/// [`plan`] with "today" fixed.
pub(crate) fn plan_on(ctx: &SchemaContext, question: &str, clarifications: &[Clarification], today: chrono::NaiveDate, lookup: Option<&mut dyn qa_question::ValueLookup>) -> PlanOutcome {
    let tokens = qa_question::tokens::tokenize(question);
    if let Some((whole, part)) = qa_question::cues::ratio_counts(question, &tokens)
        && let Some(o) = ratio::percent_of(ctx, (&whole, &part), clarifications, today)
    {
        return o;
    }
    plan_one(ctx, question, clarifications, today, lookup)
}

/// [`plan_on`] for one query.
fn plan_one(ctx: &SchemaContext, question: &str, clarifications: &[Clarification], today: chrono::NaiveDate, lookup: Option<&mut dyn qa_question::ValueLookup>) -> PlanOutcome {
    let ctx = &ctx.for_question(question);
    let schema = source::source_schema(ctx);
    let mut r = read::Reader::new(ctx, &schema, question, clarifications, today, lookup);
    if let Err(outcome) = r.entities() {
        return *outcome;
    }
    r.conditions();
    r.shape();
    r.finish()
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
    let amb = Ambiguity { phrase: COVERAGE_PHRASE.into(), options: vec![Choice { label, term: Term::Table { table: plan.table.clone() } }], score: 1.0 - confidence, kind: AmbiguityKind::Coverage };
    let head = format!(
        "Part of the question is not used by the query I can build (confidence {confidence:.2}): not used: {unused}.\n\
         Answer 1 to run it anyway, or answer with more detail (names from `qa sql schema`)."
    );
    let q = clarifying_text(&amb, &head);
    (amb, q)
}

/// "Which suppliers have never delivered late?" answered by a statement of several conditions
/// that no row meets: "none" is a confident answer that one misread condition also gives, so
/// the user is asked first. Answer 1 (or "yes") accepts the empty answer.
pub(crate) fn empty_result_question(plan: &Plan, sql: &str) -> (Ambiguity, String) {
    let label = "accept that no row matches".to_string();
    let amb = Ambiguity { phrase: COVERAGE_PHRASE.into(), options: vec![Choice { label, term: Term::Table { table: plan.table.clone() } }], score: 0.5, kind: AmbiguityKind::Coverage };
    let n = plan.filters.len() + plan.having.len();
    let head = format!(
        "No row matches all {n} conditions I read, and one misread condition would give the same empty answer:\n  {sql}\n\
         Answer 1 to accept that none match, or answer with more detail (names from `qa sql schema`)."
    );
    let q = clarifying_text(&amb, &head);
    (amb, q)
}

/// Resolve an answer to a clarifying question: an option number ("2"), an option's words
/// ("findings", "the audit status"), else None (the answer is then added to the question).
/// For a coverage question, "yes", "run", "go ahead", "anyway" pick the option too.
pub(crate) fn resolve_answer(amb: &Ambiguity, answer: &str) -> Option<Term> {
    if amb.kind == AmbiguityKind::Coverage && answer.trim().trim_end_matches('.').parse::<usize>().is_err() {
        let yes = qa_core::text::words(answer).iter().any(|w| ["yes", "y", "run", "ok", "okay", "proceed", "anyway", "go", "force"].contains(&w.as_str()));
        return yes.then(|| amb.options.first().map(|o| o.term.clone())).flatten();
    }
    let labels: Vec<&str> = amb.options.iter().map(|o| o.label.as_str()).collect();
    qa_question::choice::pick(answer, &labels).map(|i| amb.options[i].term.clone())
}

/// Normalised phrase equality for clarifications.
fn same_phrase(a: &str, b: &str) -> bool {
    qa_core::text::normalized_words(a) == qa_core::text::normalized_words(b)
}
