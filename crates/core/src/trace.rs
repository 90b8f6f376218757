//! Query traces: the record contract, an append-only JSONL writer and a tolerant reader.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{IoContext, Result};
use crate::evidence::Grounded;
use crate::evidence::Subgraph;

/// A retrieved passage as the trace keeps it: enough to see what the answer was built from.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceChunk {
    /// The chunk's id in the index.
    #[serde(deserialize_with = "lenient::value")]
    pub chunk_id: String,
    /// The document it comes from, relative to the corpus root.
    #[serde(deserialize_with = "lenient::value")]
    pub source_file: String,
    /// Best cosine similarity to the question or a sub-question (0 when the dense lane did not
    /// rank it).
    #[serde(deserialize_with = "lenient::value")]
    pub score: f32,
    /// The chunk's metadata (`ChunkMeta`) as JSON.
    #[serde(deserialize_with = "lenient::value")]
    pub metadata: Value,
    /// The passage's full text.
    #[serde(deserialize_with = "lenient::value")]
    pub text: String,
}

/// What the knowledge graph contributed: grounded concepts, the Cypher query and its checks,
/// and the deterministic strategies that found evidence.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceGraph {
    /// Concepts of the graph that the question names.
    #[serde(deserialize_with = "lenient::value")]
    pub grounded_entities: Vec<Grounded>,
    /// LLM-generated Cypher (none without an LLM).
    #[serde(deserialize_with = "lenient::value")]
    pub generated_cypher: Option<String>,
    /// The validator's verdict on the generated Cypher (reasons, warnings, sanitizing changes).
    #[serde(deserialize_with = "lenient::value")]
    pub validation: Option<Value>,
    /// The generated Cypher after sanitizing, when sanitizing ran.
    #[serde(deserialize_with = "lenient::value")]
    pub sanitized_cypher: Option<String>,
    /// Deterministic strategies that produced evidence (all of them are fallbacks in the
    /// no-LLM path): direct_edge, co_mention, shortest_path, neighbourhood, images.
    #[serde(deserialize_with = "lenient::list_of")]
    pub fallback_used: Vec<String>,
}

pub use crate::evidence::TokenUsage;

/// Wall-clock time of each stage, in milliseconds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Latency {
    /// Retrieval: embedding the question and ranking passages.
    #[serde(deserialize_with = "lenient::value")]
    pub rag: f64,
    /// Graph evidence: grounding, queries and walks.
    #[serde(deserialize_with = "lenient::value")]
    pub graph: f64,
    /// Answer synthesis, LLM call included.
    #[serde(deserialize_with = "lenient::value")]
    pub synthesis: f64,
    /// The whole question, start to end.
    #[serde(deserialize_with = "lenient::value")]
    pub total: f64,
    /// Time spent in LLM calls (subqueries and synthesis), part of the stages above.
    #[serde(deserialize_with = "lenient::value")]
    pub llm_calls: f64,
}

/// The models a question used.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Models {
    /// The embedding model's id (name and fingerprint).
    #[serde(deserialize_with = "lenient::value")]
    pub embedding: String,
    /// The LLM's model id, or `None` when no LLM was used.
    #[serde(deserialize_with = "lenient::value")]
    pub llm: Option<String>,
}

/// Which path answered: `documents` (retrieval over the indexed corpus), `sql`, `es`.
/// Any other name read from a trace is kept as it is; an empty route reads as [`Route::Unknown`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Route {
    /// Not recorded (an empty route in the trace).
    #[default]
    Unknown,
    /// Retrieval over the indexed corpus, with graph evidence.
    Documents,
    /// The SQL agent over a database.
    Sql,
    /// The Elasticsearch path (embedded index or a server).
    Es,
    /// A route this version does not know, kept by name.
    Other(String),
}

impl Route {
    /// The route's name as written in traces (empty for [`Route::Unknown`]).
    pub fn as_str(&self) -> &str {
        match self {
            Route::Unknown => "",
            Route::Documents => "documents",
            Route::Sql => "sql",
            Route::Es => "es",
            Route::Other(s) => s,
        }
    }
}

impl From<String> for Route {
    fn from(s: String) -> Self {
        match s.as_str() {
            "" => Route::Unknown,
            "documents" => Route::Documents,
            "sql" => Route::Sql,
            "es" => Route::Es,
            _ => Route::Other(s),
        }
    }
}

impl From<&str> for Route {
    fn from(s: &str) -> Self {
        Route::from(s.to_string())
    }
}

impl From<Route> for String {
    fn from(r: Route) -> Self {
        match r {
            Route::Other(s) => s,
            r => r.as_str().to_string(),
        }
    }
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a question ended, whatever the route: the one field metrics read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// An answer was given (possibly degraded, e.g. extractive after an LLM failure: see `error`).
    Answered,
    /// A question was put back to the user (the SQL route exits with code 3).
    NeedsClarification,
    /// The system declined to answer: nothing relevant was found.
    Refused,
    /// The run failed without an answer.
    Error,
}

impl Status {
    /// The status as written in traces (snake case).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Answered => "answered",
            Status::NeedsClarification => "needs_clarification",
            Status::Refused => "refused",
            Status::Error => "error",
        }
    }

    /// The SQL agent's outcome (`internal.sql.outcome.status`) as a status; also how records
    /// written before `status` existed get one.
    pub fn from_sql_outcome(status: &str) -> Option<Status> {
        match status {
            "answered" => Some(Status::Answered),
            "needs_clarification" => Some(Status::NeedsClarification),
            "failed" | "error" => Some(Status::Error),
            "refused" => Some(Status::Refused),
            _ => None,
        }
    }
}

/// One retrieved passage as the documents route selected it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct RagHit {
    /// The chunk's id in the index.
    #[serde(deserialize_with = "lenient::value")]
    pub chunk_id: String,
    /// Fused score: weighted reciprocal rank fusion over the lanes that ranked it.
    #[serde(deserialize_with = "lenient::value")]
    pub score: f32,
    /// Best cosine similarity to the question or a sub-question (0 when the dense lane did not
    /// rank it).
    #[serde(deserialize_with = "lenient::value")]
    pub similarity: f32,
    /// Index of the sub-question it answers best (0 = the question itself).
    #[serde(deserialize_with = "lenient::value")]
    pub subquery: usize,
    /// (lane, rank, lane score) for every lane that ranked it.
    #[serde(deserialize_with = "lenient::value")]
    pub lanes: Value,
}

/// `internal.rag`: the documents route's retrieval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct RagInternal {
    /// The corpus that was searched.
    #[serde(deserialize_with = "lenient::value")]
    pub corpus: String,
    /// How many passages were selected.
    #[serde(deserialize_with = "lenient::value")]
    pub k: usize,
    /// Why that many.
    #[serde(deserialize_with = "lenient::value")]
    pub k_reason: String,
    /// The selected passages, best first.
    #[serde(deserialize_with = "lenient::list_of_objects")]
    pub hits: Vec<RagHit>,
    /// Each lane's top 20, the fusing walk, the graph seeds and the fused top 20.
    #[serde(deserialize_with = "lenient::value")]
    pub lanes: Value,
    /// Highest similarity among the hits.
    #[serde(deserialize_with = "lenient::value")]
    pub best_score: f32,
    /// The similarity below which nothing counts as found (a setting).
    #[serde(deserialize_with = "lenient::value")]
    pub relevance_threshold: f32,
    /// Whether anything relevant was found (else the answer declines).
    #[serde(deserialize_with = "lenient::value")]
    pub found: bool,
    /// The "does the evidence answer the question?" check: the evidence score reached, the
    /// threshold, and the question's focus words with their weights and where the passages hold
    /// them (null in records written before it, or when the check did not run).
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Value::is_null")]
    pub focus: Value,
    /// Keys this version does not know (kept so `qa traces show` prints them).
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// A chunk reached through the graph.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct ChunkRef {
    /// The chunk's id in the index.
    #[serde(deserialize_with = "lenient::value")]
    pub chunk_id: String,
    /// The document it comes from, relative to the corpus root.
    #[serde(deserialize_with = "lenient::value")]
    pub source_file: String,
}

/// `internal.graph`: the graph store's part of the documents route.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct GraphInternal {
    /// The graph store (`embedded`, `neo4j`), or `None` without one.
    #[serde(deserialize_with = "lenient::value")]
    pub backend: Option<String>,
    /// Entity-index hits for the question, as the Cypher prompt saw them.
    #[serde(deserialize_with = "lenient::value")]
    pub entities: Value,
    /// Hints, entity lines, the query that ran, its row count, any error, why generation was skipped.
    #[serde(deserialize_with = "lenient::value")]
    pub cypher: Value,
    /// Rows of the generated Cypher query (capped), as returned.
    #[serde(deserialize_with = "lenient::value")]
    pub raw_rows: Value,
    /// Every query sent to the store: name, text, parameters, row count, time, truncation.
    #[serde(deserialize_with = "lenient::value")]
    pub queries: Value,
    /// Facts found by the strategies and the generated query, as the answer cites them.
    #[serde(deserialize_with = "lenient::value")]
    pub facts: Value,
    /// Images reached through the graph.
    #[serde(deserialize_with = "lenient::value")]
    pub images: Value,
    /// Chunks that graph evidence pointed to.
    #[serde(deserialize_with = "lenient::list_of_objects")]
    pub resolved_chunks: Vec<ChunkRef>,
    /// Errors of graph queries (the route goes on without their evidence).
    #[serde(deserialize_with = "lenient::list_of")]
    pub errors: Vec<String>,
    /// Keys this version does not know (kept so `qa traces show` prints them).
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// `internal.llm`: provider and model, or why there is none; every call; the synthesis prompt.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct LlmInternal {
    /// The provider, `"none"` (no LLM configured), `"failed"` (it could not be opened), or null.
    #[serde(deserialize_with = "lenient::value")]
    pub provider: Option<String>,
    /// The model id.
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why there is no LLM (documents route).
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why SQL generation ran without an LLM (SQL route).
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The question's decomposition into sub-questions, when the LLM made one.
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Value::is_null")]
    pub subqueries: Value,
    /// Every LLM call: purpose, usage, latency, outcome.
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Value::is_null")]
    pub calls: Value,
    /// What the synthesis prompt held: its tokens and budget, facts and passages included, trimmed
    /// or dropped.
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Value::is_null")]
    pub prompt: Value,
    /// Who wrote the answer: `llm` or `extractive`.
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub synthesizer: Option<String>,
    /// Keys this version does not know (kept so `qa traces show` prints them).
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// `internal.sql.metrics` and `internal.es.metrics`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct SqlMetrics {
    /// Milliseconds per stage.
    #[serde(deserialize_with = "lenient::value")]
    pub latency_ms: std::collections::BTreeMap<String, f64>,
    /// The whole run, in milliseconds.
    #[serde(deserialize_with = "lenient::value")]
    pub total_ms: f64,
    /// LLM tokens of the run, when an LLM was used.
    #[serde(deserialize_with = "lenient::value")]
    pub tokens: Option<TokenUsage>,
    /// The LLM's model id, when an LLM was used.
    #[serde(deserialize_with = "lenient::value")]
    pub model: Option<String>,
}

/// `internal.sql`: the SQL route's state contract, every stage's update, the final state, the
/// executed statements and per-stage latency.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct SqlInternal {
    /// The database, as shown to users (no password).
    #[serde(deserialize_with = "lenient::value")]
    pub database: String,
    /// The agent's outcome: `{"status": "answered" | "needs_clarification" | "failed", …}`.
    #[serde(deserialize_with = "lenient::value")]
    pub outcome: Value,
    /// The contract of the agent's state: each key, the stage that writes it and how it merges.
    #[serde(deserialize_with = "lenient::value")]
    pub contract: Value,
    /// Every stage's update of the state, in order.
    #[serde(deserialize_with = "lenient::value")]
    pub steps: Value,
    /// The final state, with secrets scrubbed.
    #[serde(deserialize_with = "lenient::value")]
    pub state: Value,
    /// Every statement sent to the database, in order (probes included), after validation.
    #[serde(deserialize_with = "lenient::value")]
    pub executed: Value,
    /// Per-stage latency, tokens and model.
    #[serde(deserialize_with = "lenient::object")]
    pub metrics: SqlMetrics,
    /// Keys this version does not know (kept so `qa traces show` prints them).
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// `internal.es`: the Elasticsearch route's nodes (reiterate, mapping lookup, generation with
/// its candidates and ambiguity, the guard's verdicts), the requests that ran, the page and
/// per-node latency. Clarifications are recorded through [`TraceRecord::status`].
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct EsInternal {
    /// The index and where it lives (`embedded:<folder>` or the URL without credentials).
    #[serde(deserialize_with = "lenient::value")]
    pub target: String,
    /// `{"status": "answered" | "needs_clarification" | "error", …}`.
    #[serde(deserialize_with = "lenient::value")]
    pub outcome: Value,
    /// Each node's output, keyed by node name (`reiterate`, `mapping_lookup`, `generate`, …).
    #[serde(deserialize_with = "lenient::value")]
    pub nodes: Value,
    /// Every request sent to the engine, in order (after the guard), with its endpoint.
    #[serde(deserialize_with = "lenient::value")]
    pub executed: Value,
    /// Per-node latency, tokens and model.
    #[serde(deserialize_with = "lenient::object")]
    pub metrics: SqlMetrics,
    /// Keys this version does not know (kept so `qa traces show` prints them).
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// Each route fills its own sections; the others stay null.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Internal {
    /// The documents route's retrieval; null on other routes.
    #[serde(deserialize_with = "lenient::object_opt")]
    pub rag: Option<RagInternal>,
    /// The documents route's graph evidence; null on other routes.
    #[serde(deserialize_with = "lenient::object_opt")]
    pub graph: Option<GraphInternal>,
    /// LLM provider, model, every call (purpose, usage, latency, outcome), the synthesis prompt's
    /// contents; null when the route had nothing to say about an LLM.
    #[serde(deserialize_with = "lenient::object_opt")]
    pub llm: Option<LlmInternal>,
    /// The SQL route; null on other routes.
    #[serde(deserialize_with = "lenient::object_opt")]
    pub sql: Option<SqlInternal>,
    /// The Elasticsearch route; null on other routes.
    #[serde(deserialize_with = "lenient::object_opt")]
    pub es: Option<EsInternal>,
}

/// One line of `logs/query_traces.jsonl`, written by every route and read by `qa traces`. Every
/// field has a default, and a field of an unexpected shape reads as its default (see
/// [`lenient`]), so traces written by older versions (missing or differently shaped fields) load.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceRecord {
    /// 16 hex digits, unique per question (see [`new_trace_id`]).
    #[serde(deserialize_with = "lenient::value")]
    pub trace_id: String,
    /// When the question was answered (RFC 3339, UTC).
    #[serde(deserialize_with = "lenient::value")]
    pub timestamp: String,
    /// The question as asked.
    #[serde(deserialize_with = "lenient::value")]
    pub user_question: String,
    /// Which path answered.
    #[serde(deserialize_with = "lenient::value")]
    pub route: Route,
    /// How the question ended (absent in records written before it existed: see
    /// [`TraceRecord::status`]).
    #[serde(deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Sub-questions the question was split into (empty when it was not).
    #[serde(deserialize_with = "lenient::list_of")]
    pub rewritten_or_decomposed_queries: Vec<String>,
    /// The passages the answer was built from, best first.
    #[serde(deserialize_with = "lenient::list_of_objects")]
    pub retrieved_chunks: Vec<TraceChunk>,
    /// The nodes and edges graph evidence returned.
    #[serde(deserialize_with = "lenient::value")]
    pub retrieved_graph_subgraph: Subgraph,
    /// Grounding, Cypher and the graph strategies used.
    #[serde(deserialize_with = "lenient::object")]
    pub graph: TraceGraph,
    /// The answer as shown, notes included.
    #[serde(deserialize_with = "lenient::value")]
    pub final_answer: String,
    /// LLM tokens over every call (`None` without LLM calls).
    #[serde(deserialize_with = "lenient::value")]
    pub token_usage: Option<TokenUsage>,
    /// Time per stage.
    #[serde(deserialize_with = "lenient::object")]
    pub latency_ms: Latency,
    /// The models used.
    #[serde(deserialize_with = "lenient::object")]
    pub models: Models,
    /// What went wrong, when something did (the answer may still be given, degraded).
    #[serde(deserialize_with = "lenient::value")]
    pub error: Option<String>,
    /// The grounding guard's verdict on an LLM answer: per-sentence support scores and the action
    /// taken (null when no LLM answer was produced).
    #[serde(deserialize_with = "lenient::value")]
    pub answer_grounding: Option<Value>,
    /// Each route's own details.
    #[serde(deserialize_with = "lenient::object")]
    pub internal: Internal,
    /// The smart router's decision (`qa ask`); absent for direct commands (`qa sql`, `qa es`).
    #[serde(deserialize_with = "lenient::object_opt", skip_serializing_if = "Option::is_none")]
    pub routing: Option<TraceRouting>,
    /// The conversation turn the question was (`qa ask --session`, `qa chat`); absent otherwise.
    #[serde(deserialize_with = "lenient::object_opt", skip_serializing_if = "Option::is_none")]
    pub conversation: Option<TraceConversation>,
}

/// How the router sent the question: target, query type, confidence and why.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceRouting {
    /// `documents`, `sql` or `es`.
    #[serde(deserialize_with = "lenient::value")]
    pub target: String,
    /// `simple`, `complex` or `hybrid`.
    #[serde(deserialize_with = "lenient::value")]
    pub query_type: String,
    /// Confidence of the query type, in [0, 1].
    #[serde(deserialize_with = "lenient::value")]
    pub confidence: f64,
    /// Whether `--route` or `--type` overrode the rules.
    #[serde(deserialize_with = "lenient::value")]
    pub overridden: bool,
    /// The router's reasons.
    #[serde(deserialize_with = "lenient::list_of")]
    pub reasons: Vec<String>,
    /// The filters found (the router's `extracted_filters`).
    #[serde(deserialize_with = "lenient::value")]
    pub extracted_filters: Value,
}

/// Which session turn a trace belongs to, and how the message was read (the reiterate node).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceConversation {
    /// The session name.
    #[serde(deserialize_with = "lenient::value")]
    pub session: String,
    /// The turn's number in the session.
    #[serde(deserialize_with = "lenient::value")]
    pub turn: u32,
    /// The goal the message was turned into (shown to the user when it differs).
    #[serde(deserialize_with = "lenient::value")]
    pub main_goal: String,
    /// Why the goal reads as it does.
    #[serde(deserialize_with = "lenient::value")]
    pub reasoning: String,
    /// The message refers to earlier results ("show me more", "the same but for 2024").
    #[serde(deserialize_with = "lenient::value")]
    pub references_prior_results: bool,
    /// The user asked to run without clarifying questions.
    #[serde(deserialize_with = "lenient::value")]
    pub force_execute: bool,
    /// A pasted query, if the message contained one.
    #[serde(deserialize_with = "lenient::value")]
    pub user_query_text: Option<String>,
    /// Who restated the message: `rules`, or `llm` (its reply validated).
    #[serde(default, deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub reiterated_by: Option<String>,
    /// Why the LLM's restatement was not used (the rules' reading stood).
    #[serde(default, deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub llm_error: Option<String>,
    /// The restatement's LLM call (purpose, outcome, tokens, latency).
    #[serde(default, deserialize_with = "lenient::value", skip_serializing_if = "Option::is_none")]
    pub llm_call: Option<serde_json::Value>,
}

impl TraceRecord {
    /// The recorded status; for older records, the SQL agent's outcome.
    pub fn status(&self) -> Option<Status> {
        self.status.or_else(|| self.internal.sql.as_ref().and_then(|s| s.outcome.get("status")?.as_str()).and_then(Status::from_sql_outcome))
    }
}

/// Field-by-field tolerant deserialization: a field whose value has an unexpected shape (a string
/// where a list belongs, a number as a string, …) reads as its type's default instead of failing
/// the whole line. `null` reads as the default too. Each non-null value that had to be replaced
/// is counted (per thread: [`lenient::defaulted`]) so readers can report repaired lines.
///
/// Three strategies: [`lenient::value`] buffers the field's JSON and tries the type on it (for
/// scalars and small values); [`lenient::object`] / [`lenient::object_opt`] stream an object into
/// a struct whose own fields are lenient, and [`lenient::list_of_objects`] / [`lenient::list`] a
/// list element by element, so big nested parts (chunk texts) are skipped without being
/// buffered.
pub mod lenient {
    use std::cell::Cell;
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer};

    thread_local! {
        static DEFAULTED: Cell<usize> = const { Cell::new(0) };
    }

    /// Fields replaced by their default on this thread so far (compare before and after a line).
    pub fn defaulted() -> usize {
        DEFAULTED.with(Cell::get)
    }

    fn note() {
        DEFAULTED.with(|c| c.set(c.get() + 1));
    }

    /// Buffer the value, then read it as `T`; null or a value of another shape gives the default.
    pub fn value<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let null = v.is_null();
        Ok(T::deserialize(v).unwrap_or_else(|_| {
            if !null {
                note();
            }
            T::default()
        }))
    }

    /// A list element read by [`value`].
    struct Item<T>(T);
    impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for Item<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            value(d).map(Item)
        }
    }

    /// A list element read by [`object`].
    struct Obj<T>(T);
    impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Obj<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            object(d).map(Obj)
        }
    }

    /// The answer of a visitor to a value of the wrong shape: the default (counted unless null).
    macro_rules! other_shapes_default {
        () => {
            fn visit_bool<Er: serde::de::Error>(self, _: bool) -> Result<Self::Value, Er> {
                note();
                Ok(Default::default())
            }
            fn visit_i64<Er: serde::de::Error>(self, _: i64) -> Result<Self::Value, Er> {
                note();
                Ok(Default::default())
            }
            fn visit_u64<Er: serde::de::Error>(self, _: u64) -> Result<Self::Value, Er> {
                note();
                Ok(Default::default())
            }
            fn visit_f64<Er: serde::de::Error>(self, _: f64) -> Result<Self::Value, Er> {
                note();
                Ok(Default::default())
            }
            fn visit_str<Er: serde::de::Error>(self, _: &str) -> Result<Self::Value, Er> {
                note();
                Ok(Default::default())
            }
            fn visit_unit<Er: serde::de::Error>(self) -> Result<Self::Value, Er> {
                Ok(Default::default())
            }
            fn visit_none<Er: serde::de::Error>(self) -> Result<Self::Value, Er> {
                Ok(Default::default())
            }
        };
    }

    struct ObjectVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for ObjectVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        other_shapes_default!();
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            note();
            Ok(T::default())
        }
    }

    /// An object streamed into `T`, whose fields must be lenient themselves (then only broken
    /// JSON fails); any other shape gives the default.
    pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        d.deserialize_any(ObjectVisitor(PhantomData))
    }

    /// [`object`], with `None` for null and for a value of another shape.
    pub fn object_opt<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<Option<T>, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for V<T> {
            type Value = Option<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            other_shapes_default!();
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
                ObjectVisitor(PhantomData).visit_map(map).map(Some)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<T>, A::Error> {
                ObjectVisitor::<T>(PhantomData).visit_seq(seq).map(|_| None)
            }
        }
        d.deserialize_any(V(PhantomData))
    }

    struct ListVisitor<E>(PhantomData<E>);

    impl<'de, E: Deserialize<'de>> Visitor<'de> for ListVisitor<E> {
        type Value = Vec<E>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        other_shapes_default!();
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<E>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(e) = seq.next_element::<E>()? {
                out.push(e);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<E>, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            note();
            Ok(Vec::new())
        }
    }

    /// A list whose elements read themselves leniently (e.g. `IgnoredAny`); any other shape is
    /// an empty list.
    pub fn list<'de, D: Deserializer<'de>, E: Deserialize<'de>>(d: D) -> Result<Vec<E>, D::Error> {
        d.deserialize_any(ListVisitor(PhantomData))
    }

    /// A list of small values, each read by [`value`] (an element of another shape is the default).
    pub fn list_of<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<Vec<T>, D::Error> {
        Ok(list::<D, Item<T>>(d)?.into_iter().map(|i| i.0).collect())
    }

    /// A list of objects, each read by [`object`].
    pub fn list_of_objects<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<Vec<T>, D::Error> {
        Ok(list::<D, Obj<T>>(d)?.into_iter().map(|o| o.0).collect())
    }
}

/// A fresh trace id: time, process and a counter, hashed to 16 hex digits.
pub fn new_trace_id(question: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let basis = format!("{nanos}:{}:{n}:{question}", std::process::id());
    crate::fsx::sha256_hex(basis.as_bytes())[..16].to_string()
}

/// Append one record as one line. The line is written with a single `write_all` on a file
/// opened in append mode, so concurrent writers do not interleave within a line.
pub fn append(path: &Path, record: &TraceRecord) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ctx("creating log folder", dir)?;
    }
    let mut line = serde_json::to_vec(record).map_err(|e| crate::error::QaError::Data { path: path.into(), reason: e.to_string() })?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).ctx("opening trace file", path)?;
    f.write_all(&line).ctx("appending trace", path)?;
    Ok(())
}

/// Parse one trace line (a [`TraceRecord`] or a view of one such as `traces::TraceLite`): `None`
/// unless it is a JSON object (serde would read an array into a struct field by field).
pub fn parse_line<T: serde::de::DeserializeOwned>(line: &[u8]) -> Option<T> {
    let first = line.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    serde_json::from_slice(line).ok()
}

/// Stream records from a trace file; malformed lines are counted in `malformed`, not fatal.
pub struct TraceReader<R: BufRead> {
    lines: std::io::Lines<R>,
    /// Lines that could not be read or parsed so far.
    pub malformed: usize,
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    /// Open a trace file for reading.
    pub fn open(path: &Path) -> Result<Self> {
        let f = std::fs::File::open(path).ctx("opening trace file", path)?;
        Ok(TraceReader { lines: std::io::BufReader::new(f).lines(), malformed: 0 })
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = TraceRecord;
    fn next(&mut self) -> Option<TraceRecord> {
        loop {
            let line = match self.lines.next()? {
                Ok(l) => l,
                Err(_) => {
                    self.malformed += 1;
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match parse_line(line.as_bytes()) {
                Some(r) => return Some(r),
                None => self.malformed += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_and_read_back_skipping_malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("logs/t.jsonl");
        let rec = TraceRecord { trace_id: "a".into(), user_question: "q".into(), route: "documents".into(), ..Default::default() };
        append(&p, &rec).unwrap();
        std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"{\"trace_id\": \"trunc").unwrap();
        std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"\n{\"trace_id\":\"old\"}\n").unwrap();
        let mut r = TraceReader::open(&p).unwrap();
        let all: Vec<TraceRecord> = r.by_ref().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0], rec);
        assert_eq!(all[1].trace_id, "old");
        assert_eq!(r.malformed, 1);
    }

    #[test]
    fn full_records_read_fields_of_unexpected_shape_as_defaults() {
        let line = r#"{"trace_id":"x","route":"sql","status":"needs_clarification","latency_ms":{"total":"fast","rag":2},
            "retrieved_chunks":[{"chunk_id":"c1","score":"high","text":"t"},"junk"],"graph":{"fallback_used":[1,"co_mention"],"validation":"ok"},
            "models":"m","token_usage":{"prompt":"3"},"answer_grounding":null,
            "internal":{"rag":"x","graph":[1],"llm":{"provider":7,"model":"m1"},"sql":{"database":"d","outcome":{"status":"answered"},"metrics":{"total_ms":"slow","latency_ms":{"plan":1.5}},"future":1}}}"#
            .replace('\n', " ");
        let before = lenient::defaulted();
        let r: TraceRecord = serde_json::from_str(&line).unwrap();
        assert!(lenient::defaulted() > before);
        assert_eq!((r.trace_id.as_str(), &r.route, r.status()), ("x", &Route::Sql, Some(Status::NeedsClarification)));
        assert_eq!((r.latency_ms.total, r.latency_ms.rag), (0.0, 2.0));
        assert_eq!(r.retrieved_chunks.len(), 2);
        assert_eq!((r.retrieved_chunks[0].chunk_id.as_str(), r.retrieved_chunks[0].score, r.retrieved_chunks[0].text.as_str()), ("c1", 0.0, "t"));
        assert_eq!(r.retrieved_chunks[1], TraceChunk::default());
        assert_eq!(r.graph.fallback_used, ["", "co_mention"]);
        assert_eq!(r.graph.validation, Some(Value::String("ok".into())), "validation is free-form JSON");
        assert_eq!((r.models.clone(), r.token_usage), (Models::default(), None));
        assert_eq!((r.internal.rag.clone(), r.internal.graph.clone()), (None, None));
        let llm = r.internal.llm.as_ref().unwrap();
        assert_eq!((llm.provider.as_deref(), llm.model.as_deref()), (None, Some("m1")));
        let sql = r.internal.sql.as_ref().unwrap();
        assert_eq!((sql.database.as_str(), sql.metrics.total_ms, sql.metrics.latency_ms["plan"]), ("d", 0.0, 1.5));
        assert_eq!(sql.other["future"], 1, "unknown keys are kept");
        // Not an object at all: refused.
        assert!(parse_line::<TraceRecord>(b" [1]").is_none());
        assert!(parse_line::<TraceRecord>(b"\"x\"").is_none());
        assert!(parse_line::<TraceRecord>(b"{\"trace_id\": 1}").is_some());
    }

    #[test]
    fn status_from_older_sql_records_and_the_written_shape() {
        let r: TraceRecord = serde_json::from_str(r#"{"route":"sql","internal":{"sql":{"outcome":{"status":"failed","error":"e"}}}}"#).unwrap();
        assert_eq!(r.status(), Some(Status::Error));
        let r = TraceRecord { route: Route::Sql, status: Some(Status::NeedsClarification), internal: Internal { sql: Some(SqlInternal::default()), ..Default::default() }, ..Default::default() };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!((v["route"].as_str(), v["status"].as_str()), (Some("sql"), Some("needs_clarification")));
        assert!(v["internal"]["rag"].is_null() && v["internal"]["llm"].is_null());
        assert_eq!(v["internal"]["sql"]["metrics"], serde_json::json!({"latency_ms": {}, "total_ms": 0.0, "tokens": null, "model": null}));
        let back: TraceRecord = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
        assert!(serde_json::to_value(TraceRecord::default()).unwrap().get("status").is_none());
        assert_eq!(Route::from("graph"), Route::Other("graph".into()));
        assert_eq!(serde_json::to_value(Route::Other("graph".into())).unwrap(), "graph");
    }

    #[test]
    fn trace_ids_are_unique() {
        assert_ne!(new_trace_id("q"), new_trace_id("q"));
    }
}

