//! The ES answer object (`qa es --json`; the ES route of `qa ask --json` carries the same fields
//! at its top level), as in the design guide's data contracts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use qa_core::evidence::TokenUsage;
/// How a run ended: the one status of every route (`needs_clarification` exits with code 3).
pub use qa_core::trace::Status;

/// The kind of a failed run, so callers classify it without reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EsFailure {
    /// The guard refused the query; nothing was sent.
    Refused,
    /// The server answered 429 (after the retries).
    RateLimited,
    /// The engine or server failed.
    Engine,
}

impl EsFailure {
    /// The kind of `e`.
    pub fn of(e: &crate::EsError) -> EsFailure {
        match e {
            crate::EsError::Refused(_) => EsFailure::Refused,
            crate::EsError::Http { status: 429, .. } => EsFailure::RateLimited,
            _ => EsFailure::Engine,
        }
    }
}

/// What the question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Matching documents (hits).
    Search,
    /// Buckets or metrics (per X, most, average, …).
    Aggregation,
    /// How many documents match.
    Count,
}

/// Why the run stopped to ask: the user term, what it could mean, and the choices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ambiguity {
    /// The user's term (or the field family, e.g. "date") that is ambiguous or unmatched.
    pub field: String,
    /// The question put to the user.
    pub message: String,
    /// The choices (field paths or values), best first; empty when there is nothing to offer.
    pub alternatives: Vec<String>,
}

/// The page of hits returned, for "show more".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// Index of the first hit of this page in the whole result.
    pub offset: usize,
    /// Hits per page.
    pub size: usize,
    /// Offset of the next page; `None` when this is the last one.
    pub next_offset: Option<usize>,
    /// The next page's cursor: the sort values of this page's last hit, for `search_after`
    /// (present when the hits were sorted with a tie-breaker, i.e. near or past the result
    /// window). Passing it back with `next_offset` fetches the next page in one request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_after: Option<Vec<Value>>,
}

/// Latency per node and LLM tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EsMetrics {
    /// Milliseconds per node (`reiterate`, `mapping_lookup`, `generate`, `validate`, `execute`).
    pub latency_ms: BTreeMap<String, f64>,
    /// The whole run, in milliseconds.
    pub total_ms: f64,
    /// LLM tokens, when an LLM was used.
    pub tokens: Option<TokenUsage>,
    /// The LLM's model id, when an LLM was used.
    pub model: Option<String>,
}

/// The answer of the ES path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EsAnswer {
    /// How the run ended.
    pub status: Status,
    /// The question restated as an actionable goal.
    pub main_goal: String,
    /// The request body that ran (or would run, when clarification is needed).
    pub es_query: Option<Value>,
    /// What the question asks for.
    pub intent: Intent,
    /// The query in plain language (always present).
    pub query_summary: String,
    /// Whether the run stopped to ask.
    pub needs_clarification: bool,
    /// What was ambiguous, when it stopped.
    pub ambiguity: Option<Ambiguity>,
    /// Matching documents in the whole index (not just this page).
    pub total: Option<u64>,
    /// This page's hits (`_source` objects).
    pub hits: Vec<Value>,
    /// Aggregations in Elasticsearch's response format.
    pub aggregations: Option<Value>,
    /// This page.
    pub page: Option<Page>,
    /// Latency per node, tokens.
    pub metrics: EsMetrics,
    /// The trace id of the run.
    pub trace_id: String,
    /// Notes for the user: the guess made under force-execute, LLM fallbacks, caps applied.
    #[serde(default)]
    pub notes: Vec<String>,
    /// What went wrong (status `error`).
    #[serde(default)]
    pub error: Option<String>,
    /// What kind of failure `error` is (refused by the guard, rate limited, the engine's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<EsFailure>,
    /// What each word of the question became in the query, and the words not used (the
    /// deterministic plan's reading; absent for pasted queries and pages of earlier ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<qa_question::Coverage>,
}
