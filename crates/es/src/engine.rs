//! The engine seam: the embedded index ([`crate::embedded`]) and a remote Elasticsearch or
//! OpenSearch server ([`crate::remote`]) answer the same checked requests in Elasticsearch's
//! response format.
//!
//! A request reaches an engine only as a [`CheckedRequest`], which only the guard
//! ([`crate::guard`]) can build: generated, pasted and resumed queries all pass through it.

use serde_json::Value;

use crate::{EsError, Mapping};

/// The read endpoints a request may use. Nothing else is ever called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    /// `POST /<index>/_search`: hits and aggregations.
    Search,
    /// `POST /<index>/_count`: the number of matching documents.
    Count,
}

impl Endpoint {
    /// The path segment (`_search`, `_count`).
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::Search => "_search",
            Endpoint::Count => "_count",
        }
    }
}

/// Caps applied to every request by the guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EsLimits {
    /// Largest `size` (hits per page) a request may ask for.
    pub row_cap: usize,
    /// Largest `from + size`; deeper pages use `search_after` (Elasticsearch's
    /// `index.max_result_window` is 10,000).
    pub max_window: usize,
    /// Largest `size` of a terms aggregation, and of the buckets a histogram may produce.
    pub max_buckets: usize,
    /// Request timeout, sent as the body's `timeout` and enforced by the client.
    pub timeout_ms: u64,
}

impl Default for EsLimits {
    fn default() -> Self {
        EsLimits { row_cap: 200, max_window: 10_000, max_buckets: 1_000, timeout_ms: 5_000 }
    }
}

/// A request the guard accepted: an endpoint and a body that names only known fields, uses only
/// allowed clauses and respects the caps. Constructed only by [`crate::guard`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CheckedRequest {
    endpoint: Endpoint,
    body: Value,
}

impl CheckedRequest {
    /// Only the guard may vouch for a body.
    pub(crate) fn new(endpoint: Endpoint, body: Value) -> Self {
        CheckedRequest { endpoint, body }
    }

    /// The endpoint to call.
    pub fn endpoint(&self) -> Endpoint {
        self.endpoint
    }

    /// The body to send (with the guard's caps and `timeout` applied).
    pub fn body(&self) -> &Value {
        &self.body
    }
}

/// An index that answers checked requests.
pub trait SearchEngine {
    /// The index name.
    fn index(&self) -> &str;
    /// Where the index lives, for messages and traces: `embedded:<folder>` or the server URL
    /// without credentials.
    fn target(&self) -> String;
    /// The index mapping.
    fn mapping(&self) -> Result<Mapping, EsError>;
    /// Run a checked request; the response is in Elasticsearch's format (`hits.total.value`,
    /// `hits.hits[]._source`, `aggregations`, or `{"count": n}` for `_count`).
    fn run(&self, request: &CheckedRequest) -> Result<Value, EsError>;
}
