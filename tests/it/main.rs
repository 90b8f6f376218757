//! All integration tests in one crate: one binary to compile and link instead of one per file
//! (each used to compile the shared helpers and link every dependency again).
//! Run one file's tests with `cargo test --release --test it <file>::`.
//!
//! Tests of an optional back end (cargo features `neo4j`, `postgres`, `local-llm`) are compiled
//! only with that feature, so a build without it reports them as absent, not as passed.

mod common;

mod ask_cli;
mod config_cli;
mod es_llm;
mod es_remote;
mod embed_model;
mod es_cli;
mod es_eval;
mod eval_cli;
mod graph_cli;
mod index_cli;
mod llm_cli;
#[cfg(feature = "local-llm")]
mod llm_local;
#[cfg(feature = "neo4j")]
mod neo4j_bolt;
#[cfg(feature = "neo4j")]
mod neo4j_live;
mod retrieval_cli;
mod route_cli;
mod session_cli;
mod setup_cli;
mod reiterate_llm;
mod session_paste;
mod sql_cli;
mod sql_eval;
mod store_cli;
mod store_live;
mod source_trait;
mod store_server_selftest;
mod traces_cli;
mod traces_routes;
