//! `qa-query`: the two document pipelines. [`build`] turns a corpus into an index generation
//! (chunks, vectors, HNSW, lexical index, knowledge graph); [`ask`] answers a question from one
//! (retrieval lanes in [`retrieve`], fusion, answer writers in [`answer`]) and records its trace.
//! [`eval`] measures retrieval and answers against a labelled question set.

pub mod answer;
pub mod ask;
pub mod build;
pub mod eval;
pub mod generation;
pub mod profile;
pub mod retrieve;
pub mod source;


