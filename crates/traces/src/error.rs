//! The errors of the trace analyses. Each message carries its cause (so it reads whole on its
//! own), and I/O errors name the file and what was being done with it.

use std::path::PathBuf;

/// A date bound that is neither `YYYY-MM-DD` nor RFC 3339; holds the value as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a date: use YYYY-MM-DD or RFC 3339 (e.g. 2026-01-31T12:00:00Z)")]
pub struct BadDate(pub String);

/// Why a filter could not be built or a trace file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TracesError {
    /// A `--since` or `--until` value that is not a date.
    #[error("{flag}: {source}")]
    Bound {
        /// The option the value was given to (`--since` or `--until`).
        flag: &'static str,
        /// The rejected value.
        source: BadDate,
    },
    /// The trace file could not be opened (usually: no `qa ask` has written it yet).
    #[error("opening trace file {} (traces are appended by `qa ask`; --file picks another): {source}", path.display())]
    Open {
        /// The trace file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Writing the output failed.
    #[error("writing {what}: {source}")]
    Write {
        /// What was written.
        what: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// Reading the opened trace file failed part-way.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The trace file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl TracesError {
    /// Wraps a date error with the option it came from.
    pub(crate) fn bound(flag: &'static str) -> impl FnOnce(BadDate) -> Self {
        move |source| TracesError::Bound { flag, source }
    }
}
