//! Command handlers that have their own subcommands: `qa graph …`, `qa sql …`, `qa es …`, `qa traces …`.

pub mod es;
pub mod graph;
pub mod sql;
pub mod traces;
