//! Command handlers that have their own subcommands: `qa graph …`, `qa sql …`, `qa traces …`.

pub mod graph;
pub mod sql;
pub mod traces;
