//! The smart router: which source answers a question (the indexed documents, a SQL database or
//! an Elasticsearch index) and how (a direct `simple` query, a `complex` analysis, or a `hybrid`
//! of both), with a confidence, the filters the question states (validated against the target's
//! schema or mapping) and the reasons for every choice.
//!
//! Sources are described to the router as [`profile::SourceProfile`]s — collections, fields with
//! sampled values and aliases, entities — so the rules never depend on one database's or index's
//! names. The question is read by qa-question ([`reading`]: its dates, and the words that surely
//! name a source's collections, fields and values). [`classify`] gives the query type,
//! [`filters`] the extracted filters, [`score`] the target, and [`analysis`] the record selection and the deterministic analysis that answer
//! complex and hybrid questions without an LLM.

pub mod analysis;
pub mod classify;
pub mod filters;
pub mod intent;
pub mod metadata;
pub mod page;
pub mod profile;
pub mod prompt;
pub mod reading;
pub mod routed;
pub mod score;
pub mod session;
pub mod source;
#[cfg(test)]
mod properties;

use serde::{Deserialize, Serialize};

pub use classify::{QueryType, TypeDecision};
pub use filters::ExtractedFilters;
pub use intent::RouteIntent;
pub use metadata::AnswerMetadata;
pub use page::{Pagination, paginate};
pub use profile::{FieldProfile, FieldRole, SourceProfile};
pub use score::{RouteDecision, Scores, Target};
pub use source::{AnswerView, Ask, Presentation, Source, SourceAnswer};

/// Below this confidence the router answers as `complex` whatever the rules said (an analysis
/// of the records is the safe reading of an unclear question).
pub const MIN_CONFIDENCE: f64 = 0.6;

/// The design documents' error codes, carried by an answer's metadata with a message, a
/// suggestion and whatever data could still be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The question could not be classified (the rules failed; `complex` was used).
    ClassificationError,
    /// The SQL database or search engine failed.
    DatabaseError,
    /// The LLM failed; the data is given without the AI analysis.
    AiError,
    /// A query or a filter failed validation.
    ValidationError,
    /// A remote service refused for rate limiting.
    RateLimitError,
}

/// An error in an answer's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteError {
    /// Which kind.
    pub code: ErrorCode,
    /// What happened.
    pub message: String,
    /// What the user can do.
    pub suggestion: String,
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RouteError {}

impl RouteError {
    /// A failure of the database or engine itself.
    pub fn database(message: impl Into<String>, suggestion: impl Into<String>) -> RouteError {
        RouteError { code: ErrorCode::DatabaseError, message: message.into(), suggestion: suggestion.into() }
    }
}
