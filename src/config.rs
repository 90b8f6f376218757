//! The settings live in `qa-settings`; the binary's modules name them through here.

pub use qa_settings::*;
