//! `qa`: local-first question answering over your own documents.
//!
//! Pipeline stages, one module each: [`corpus`] → [`chunk`] → [`embed`] → [`vector`] index and
//! [`kg`] → [`graph`] store → [`retrieve`] + graph evidence → [`answer`] → [`trace`].
//! [`indexer`] and [`ask`] compose them; [`app`] is the command-line edge.

pub mod alloc;
pub mod answer;
pub mod app;
pub mod ask;
pub mod bench;
pub mod chunk;
pub mod cli;
pub mod config;
pub mod corpus;
pub mod doctor;
pub mod embed;
pub mod error;
pub mod eval;
pub mod graph;
pub mod graph_cmd;
pub mod indexer;
pub mod kg;
pub mod layout;
pub mod lexical;
pub mod llm;
pub mod retrieve;
pub mod sql;
pub mod sql_cmd;
pub mod text;
pub mod trace;
pub mod traces;
pub mod traces_cmd;
pub mod vector;
