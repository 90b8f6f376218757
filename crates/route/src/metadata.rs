//! The metadata every routed answer carries.

use serde::{Deserialize, Serialize};

use crate::classify::QueryType;
use crate::filters::ExtractedFilters;
use crate::page::Pagination;
use crate::score::Target;
use crate::RouteError;

/// Response metadata (the design documents' contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerMetadata {
    /// How the question was answered.
    pub query_type: QueryType,
    /// Which source answered.
    pub target: Target,
    /// Wall time of the whole answer.
    pub execution_time_ms: f64,
    /// Records the answer looked at (rows returned, or records given to the analysis).
    pub records_analyzed: usize,
    /// LLM tokens, for complex and hybrid answers (`None` when no LLM ran).
    pub tokens_used: Option<u64>,
    /// Confidence of the query type.
    pub confidence: f64,
    /// Filters found and validated.
    pub extracted_filters: ExtractedFilters,
    /// Why the router chose as it did, and what happened after.
    pub reasons: Vec<String>,
    /// The page, for direct answers with more rows than a page.
    pub pagination: Option<Pagination>,
    /// What went wrong, if anything (the answer may still carry data).
    pub error: Option<RouteError>,
}
