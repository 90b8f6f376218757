//! `qa`: the command-line edge of local-first question answering over your own documents. It holds
//! every clap type ([`cli`]), the typed settings ([`config`]), the command handlers ([`app`],
//! [`commands`], [`doctor`], [`bench`]) and terminal output. The pipelines are library crates:
//! `qa-core` (contracts) ← `qa-embed`, `qa-llm` ← `qa-index` ← `qa-graph` ← `qa-query`, plus
//! `qa-sql` and `qa-traces`; see `docs/ARCHITECTURE.md`.

pub mod alloc;
pub mod app;
pub mod bench;
pub mod cli;
pub mod commands;
pub mod config;
pub mod doctor;
pub mod progress;
pub mod routed;
