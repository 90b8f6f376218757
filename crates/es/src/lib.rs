//! The Elasticsearch path: answer a question over a search index, embedded (tantivy, no server)
//! or remote (Elasticsearch 8/9, OpenSearch 2).
//!
//! Nodes, after the design documents: reiterate ([`reiterate`], F01: rules, or the LLM's
//! validated restatement) → mapping lookup ([`lookup`], F05: the index sampled and described to
//! the shared question reader, `qa-question`) → ES query generation ([`plan`] reads the question
//! with `qa-question` — analysis, links, coverage — into a typed intermediate form rendered to the
//! query DSL, or asks; [`generate`] adds LLM candidates, F06) → clarification or the guard
//! ([`guard`]) → paged execution ([`run`], F07) on a [`SearchEngine`] ([`embedded`] or
//! [`remote`]).
//! A clarification saves a [`checkpoint`] and resumes from it (F09).
//!
//! Safety does not rest on the engine: every generated, pasted or resumed body goes through the
//! guard, which checks fields against the mapping, allows only read clauses, caps sizes and
//! buckets and sets a timeout; engines accept nothing but a [`CheckedRequest`], and only the
//! `_search`, `_count` and `_mapping` endpoints are ever called.

pub mod answer;
pub mod checkpoint;
pub mod connect;
pub mod embedded;
pub mod engine;
mod error;
pub mod eval;
pub mod generate;
pub mod guard;
pub mod infer;
pub mod lookup;
pub mod mapping;
pub mod plan;
pub mod profile;
pub mod records;
/// The reiterate node (F01), shared with conversations.
pub use qa_converse::reiterate;
pub mod remote;
pub mod run;
pub mod present;
pub mod semantic;
pub mod source;


pub use answer::{Ambiguity, EsAnswer, EsFailure, Intent, Page};
pub use engine::{CheckedRequest, Endpoint, EsLimits, SearchEngine};
pub use error::EsError;
pub use mapping::{Field, FieldKind, Mapping};
