//! Command handlers that have their own subcommands: `qa graph …`, `qa sql …`, `qa es …`, `qa traces …`,
//! `qa session …`, `qa route`.

pub mod chat;
pub mod es;
pub mod eval_report;
pub mod graph;
pub mod route;
pub mod session;
pub mod sql;
pub mod store;
pub mod traces;
