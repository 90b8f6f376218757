//! Subquery planning: which queries are searched for a question. A [`SubqueryPlanner`] is the
//! seam; [`DeterministicPlanner`] splits the question by rule ([`subqueries`]), [`LlmPlanner`]
//! adds the LLM's subqueries ([`SubqueryPrompt`]) and falls back to the deterministic plan when
//! the LLM fails or answers badly.

use serde::Serialize;

use qa_llm::{LlmRun, Prompt};

use super::decompose::{subqueries, SubqueryPrompt};

/// Where the searched subqueries came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct SubqueryPlan {
    /// The queries to search, the question itself first.
    pub queries: Vec<String>,
    /// `llm` (LLM subqueries added to the question and its deterministic split) or `deterministic`.
    pub source: String,
    /// Why the LLM's subqueries were not used, when they were asked for.
    pub fallback_reason: Option<String>,
    /// LLM subqueries dropped because they drifted from the question.
    pub dropped: Vec<String>,
}

impl SubqueryPlan {
    /// The deterministic split of `question`, with why the LLM's subqueries were not used.
    fn deterministic(question: &str, fallback_reason: Option<String>) -> SubqueryPlan {
        SubqueryPlan { queries: subqueries(question), source: "deterministic".into(), fallback_reason, dropped: vec![] }
    }
}

/// An LLM subquery must be at least this similar (cosine) to the question to be searched.
pub(crate) const MIN_SUBQUERY_SIMILARITY: f32 = 0.4;
/// The question plus at most this many subqueries are searched.
const MAX_SUBQUERIES: usize = 5;

/// Decides the queries searched for a question.
pub(crate) trait SubqueryPlanner {
    /// The plan for `question`: its queries start with the question itself (graph grounding uses
    /// its vector).
    fn plan(&mut self, question: &str) -> SubqueryPlan;
}

/// The question and its rule-based split ([`subqueries`]); no LLM.
pub(crate) struct DeterministicPlanner;

impl SubqueryPlanner for DeterministicPlanner {
    fn plan(&mut self, question: &str) -> SubqueryPlan {
        SubqueryPlan::deterministic(question, None)
    }
}

/// The question first, then the LLM's subqueries, then the deterministic split; the
/// deterministic plan alone (with the reason) when the LLM fails or its reply does not parse.
/// The call is recorded in `run` with its outcome.
pub(crate) struct LlmPlanner<'r, 'l> {
    /// The question's LLM run.
    pub run: &'r mut LlmRun<'l>,
}

impl SubqueryPlanner for LlmPlanner<'_, '_> {
    fn plan(&mut self, question: &str) -> SubqueryPlan {
        let deterministic = subqueries(question);
        let prompt = SubqueryPrompt { question };
        let response = match self.run.call(&prompt.request()) {
            Ok(r) => r,
            Err(e) => return SubqueryPlan::deterministic(question, Some(format!("LLM call failed: {e}"))),
        };
        match prompt.parse(&response.text) {
            Ok(extra) => {
                self.run.set_outcome("used");
                let mut queries = vec![deterministic[0].clone()];
                for q in extra.into_iter().chain(deterministic.into_iter().skip(1)) {
                    if !queries.iter().any(|o| o.eq_ignore_ascii_case(&q)) {
                        queries.push(q);
                    }
                }
                queries.truncate(MAX_SUBQUERIES);
                SubqueryPlan { queries, source: "llm".into(), fallback_reason: None, dropped: vec![] }
            }
            Err(e) => {
                self.run.set_outcome(format!("invalid: {e}"));
                SubqueryPlan::deterministic(question, Some(format!("invalid LLM subqueries: {e}")))
            }
        }
    }
}

/// The plan of [`LlmPlanner`] when `llm` is given, else of [`DeterministicPlanner`].
pub(crate) fn plan_subqueries(question: &str, llm: Option<&mut LlmRun>) -> SubqueryPlan {
    match llm {
        Some(run) => LlmPlanner { run }.plan(question),
        None => DeterministicPlanner.plan(question),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_llm::scripted::ScriptedLlm;
    use qa_llm::prompt::render;

    const QUESTION: &str = "What is an MQTT broker and how does deep sleep work?";

    #[test]
    fn deterministic_plan_is_the_split() {
        let plan = plan_subqueries(QUESTION, None);
        assert_eq!(plan.queries, subqueries(QUESTION));
        assert_eq!((plan.source.as_str(), plan.fallback_reason), ("deterministic", None));
    }

    #[test]
    fn llm_subqueries_come_after_the_question_and_before_the_split() {
        let mut llm = ScriptedLlm::replies(vec![Some(r#"{"subqueries": ["MQTT broker role", "what is an mqtt broker?"]}"#)]);
        let mut run = LlmRun::new(&mut llm);
        let plan = plan_subqueries(QUESTION, Some(&mut run));
        assert_eq!(plan.source, "llm");
        assert_eq!(plan.queries, [QUESTION, "MQTT broker role", "what is an mqtt broker?", "How does deep sleep work?"]);
        assert_eq!(run.calls[0].outcome, "used");
        drop(run);
        assert_eq!(render(&llm.requests.lock().unwrap()[0]), render(&SubqueryPrompt { question: QUESTION }.request()));
    }

    #[test]
    fn a_failed_or_invalid_reply_falls_back_to_the_split() {
        let mut llm = ScriptedLlm::replies(vec![Some("not json")]);
        let mut run = LlmRun::new(&mut llm);
        let plan = LlmPlanner { run: &mut run }.plan(QUESTION);
        assert_eq!((plan.source.as_str(), plan.queries.clone()), ("deterministic", subqueries(QUESTION)));
        assert!(plan.fallback_reason.unwrap().starts_with("invalid LLM subqueries: not JSON"));
        assert!(run.calls[0].outcome.starts_with("invalid: not JSON"));

        let mut llm = ScriptedLlm::replies(vec![None]);
        let mut run = LlmRun::new(&mut llm);
        let plan = plan_subqueries(QUESTION, Some(&mut run));
        assert_eq!(plan.source, "deterministic");
        assert!(plan.fallback_reason.unwrap().starts_with("LLM call failed: "));
    }
}
