//! Command handlers that have their own subcommands: `qa graph …`, `qa sql …`, `qa traces …`, `qa session …`.

pub mod graph;
pub mod route;
pub mod session;
pub mod sql;
pub mod traces;
