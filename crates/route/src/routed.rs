//! A routed answer over any [`Source`]: the decision (with the user's overrides), the source's
//! answer to the question or to its retrieval part, and for complex and hybrid questions the
//! analysis of the records (the LLM's when one is configured and answers, else the
//! deterministic one), with the metadata every routed answer carries.

use std::time::Instant;

use serde_json::{Value, json};

use qa_core::progress::Progress;
use qa_core::trace::TraceRouting;
use qa_llm::LlmSettings;

use crate::analysis::{Analysis, Selection, analyse, select_records};
use crate::classify::{QueryType, retrieval_part};
use crate::metadata::AnswerMetadata;
use crate::profile::SourceProfile;
use crate::prompt::AnalysisPrompt;
use qa_llm::prompt::Prompt;
use crate::score::{RouteDecision, Target};
use crate::source::{Ask, Source, SourceAnswer};
use crate::{ErrorCode, RouteError};

/// The router's decision for a question, and whether the user overrode it.
#[derive(Debug, Clone)]
pub struct Routing {
    /// Target, query type, confidence, filters and reasons.
    pub decision: RouteDecision,
    /// `--route` or `--type` changed the rules' choice.
    pub overridden: bool,
}

impl Routing {
    /// Decide where and how `question` is answered over `profiles`; `target` and `query_type`
    /// (the user's overrides, already checked against the configured sources) win over the rules.
    pub fn decide(question: &str, profiles: &[&SourceProfile], target: Option<Target>, query_type: Option<QueryType>) -> Routing {
        let owned: Vec<SourceProfile> = profiles.iter().map(|p| (*p).clone()).collect();
        let today = chrono::Utc::now().date_naive();
        let mut decision = crate::score::decide(question, &owned, today);
        let mut overridden = false;
        if let Some(t) = target {
            decision.reasons.push(format!("--route {} overrides {}", t.as_str(), decision.target.as_str()));
            decision.target = t;
            overridden = true;
        }
        if let Some(qt) = query_type {
            decision.reasons.push(format!("--type {} overrides {}", qt.as_str(), decision.query_type.as_str()));
            decision.query_type = qt;
            decision.requires_llm = qt != QueryType::Simple;
            overridden = true;
        }
        Routing { decision, overridden }
    }

    /// A fixed route that ran no rules (a pasted query goes where its language runs).
    pub fn fixed(target: Target, reason: String) -> Routing {
        let decision = RouteDecision {
            target,
            query_type: QueryType::Simple,
            confidence: 1.0,
            extracted_filters: Default::default(),
            requires_llm: false,
            reasons: vec![reason],
            scores: Default::default(),
        };
        Routing { decision, overridden: false }
    }

    /// The routing block of a trace.
    pub fn trace_block(&self) -> TraceRouting {
        TraceRouting {
            target: self.decision.target.as_str().to_string(),
            query_type: self.decision.query_type.as_str().to_string(),
            confidence: self.decision.confidence,
            overridden: self.overridden,
            reasons: self.decision.reasons.clone(),
            extracted_filters: serde_json::to_value(&self.decision.extracted_filters).unwrap_or(Value::Null),
        }
    }

    /// The one-line note of where a question went.
    pub fn announce(&self) -> String {
        let d = &self.decision;
        format!("[route: {} · {} ({:.2}){}]", d.target.as_str(), d.query_type.as_str(), d.confidence, if self.overridden { " · overridden" } else { "" })
    }

    /// The metadata of an answer that took `started` until now.
    pub fn metadata(&self, started: Instant, records: usize, tokens: Option<u64>, error: Option<RouteError>) -> AnswerMetadata {
        AnswerMetadata {
            query_type: self.decision.query_type,
            target: self.decision.target,
            execution_time_ms: started.elapsed().as_secs_f64() * 1000.0,
            records_analyzed: records,
            tokens_used: tokens,
            confidence: self.decision.confidence,
            extracted_filters: self.decision.extracted_filters.clone(),
            reasons: self.decision.reasons.clone(),
            pagination: None,
            error,
        }
    }
}

/// The analysis of a complex or hybrid answer.
pub struct Analysed {
    /// The records analysed (the question's filters applied, capped).
    pub selection: Selection,
    /// The deterministic summary of the records.
    pub analysis: Analysis,
    /// The text shown: the LLM's analysis, or the deterministic one.
    pub text: String,
    /// The LLM wrote `text`.
    pub by_llm: bool,
    /// LLM tokens used.
    pub tokens: Option<u64>,
    /// The LLM's failure (the deterministic analysis is given instead).
    pub error: Option<RouteError>,
}

/// Analyse `records` for `question`: the LLM's analysis when one is configured and answers,
/// else the deterministic one ("AI analysis unavailable" when the LLM failed).
pub fn analyse_records(llm: &LlmSettings, question: &str, records: &[Value], routing: &Routing) -> Analysed {
    let selection = select_records(records, question, &routing.decision.extracted_filters);
    let analysis = analyse(&selection.records);
    let deterministic = analysis.render();
    let opened = qa_llm::choose(llm).map_err(|e| e.to_string()).and_then(|c| qa_llm::open(llm, &c).map_err(|e| e.to_string()));
    let (text, by_llm, tokens, error) = match opened {
        Ok(Some(mut l)) if !selection.records.is_empty() => {
            let prompt = AnalysisPrompt { question, analysis: &analysis, records: &selection.records };
            match l.chat(&prompt.request()).map_err(|e| e.to_string()).and_then(|resp| prompt.parse(&resp.text).map(|t| (t, resp.usage.total)).map_err(|e| e.to_string())) {
                Ok((t, used)) => (t, true, Some(used), None),
                Err(e) => (
                    format!("AI analysis unavailable: {e}\n{deterministic}"),
                    false,
                    None,
                    Some(RouteError { code: ErrorCode::AiError, message: e, suggestion: "check the LLM settings with `qa doctor`; the data and its deterministic analysis are above".into() }),
                ),
            }
        }
        _ => (deterministic, false, None, None),
    };
    Analysed { selection, analysis, text, by_llm, tokens, error }
}

/// A routed question answered by one source.
pub struct Routed {
    /// The source's answer (its trace carries the routing block).
    pub answer: SourceAnswer,
    /// The analysis, for complex and hybrid questions with records.
    pub analysed: Option<Analysed>,
    /// The answer's metadata.
    pub metadata: AnswerMetadata,
    /// The part of the question the source ran, when it is not the whole question.
    pub retrieval_part: Option<String>,
}

impl Routed {
    /// The keys a routed answer adds to the source's `--json` object.
    pub fn json_keys(&self, routing: &Routing) -> Value {
        json!({
            "routing": routing.decision,
            "metadata": self.metadata,
            "analysis": self.analysed.as_ref().map(|x| json!({"text": x.text, "by_llm": x.by_llm, "records_cited": x.analysis.cited, "summary": x.analysis})),
        })
    }
}

/// What a routed answer may do besides asking the source.
pub struct AnswerOptions<'a> {
    /// Run the best plan instead of asking (the user said so).
    pub force: bool,
    /// The message is a session turn, already restated.
    pub in_session: bool,
    /// The LLM for the analysis of complex and hybrid answers.
    pub llm: &'a LlmSettings,
    /// Where long work reports itself.
    pub progress: &'a dyn Progress,
}

/// Answer `question` on `source` as `routing` decided. Complex and hybrid questions on a
/// structured source query only their retrieval part ("show the late orders" of "show the
/// late orders and explain why"), run the best plan rather than ask about the analytical words
/// the database cannot answer, and get the analysis of the records.
pub fn answer(source: &mut dyn Source, routing: &Routing, question: &str, o: &AnswerOptions<'_>) -> Result<Routed, RouteError> {
    let started = Instant::now();
    let analytic = routing.decision.query_type != QueryType::Simple && source.target() != Target::Documents;
    let part = if analytic { retrieval_part(question) } else { question.to_string() };
    let ask = Ask { question: &part, query_type: routing.decision.query_type, force: analytic || o.force, in_session: o.in_session, progress: o.progress };
    let mut answer = source.answer(&ask)?;
    answer.trace.user_question = question.to_string();
    answer.trace.routing = Some(routing.trace_block());
    let analysed = (analytic && !answer.records.is_empty()).then(|| analyse_records(o.llm, question, &answer.records, routing));
    let (records, tokens, error) = match &analysed {
        Some(x) => (x.selection.records.len(), x.tokens, x.error.clone()),
        None => (answer.records.len(), answer.trace.token_usage.as_ref().map(|u| u.total), answer.error.clone()),
    };
    let mut metadata = routing.metadata(started, records, tokens, error);
    metadata.pagination = answer.pagination;
    Ok(Routed { answer, analysed, metadata, retrieval_part: (part != question).then_some(part) })
}
