//! `qa-core`: the contracts every other `qa` crate shares — the chunk record, evidence records,
//! the trace record, the library error, the text toolkit, atomic file writes, secrets, settings
//! enums, progress reporting and the percentile — and nothing that does I/O beyond files.

pub mod chunk;
pub mod error;
pub mod evidence;
pub mod fsx;
pub mod progress;
pub mod secret;
pub mod setting;
pub mod stats;
pub mod tabular_eval;
pub mod text;
pub mod trace;
