//! The ES path's error type.

use std::path::PathBuf;

/// What can go wrong on the Elasticsearch path. Messages never contain credentials.
#[derive(Debug, thiserror::Error)]
pub enum EsError {
    /// A file could not be read or written.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done ("cannot read", "cannot write", …).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A mapping that cannot be read, or a field it does not have.
    #[error("mapping: {0}")]
    Mapping(String),
    /// Input records that cannot be loaded (bad JSON/CSV line, value not matching the mapping).
    #[error("records: {0}")]
    Records(String),
    /// The guard refused a request; nothing was sent. One reason per entry.
    #[error("refused: {}", .0.join("; "))]
    Refused(Vec<String>),
    /// A query-DSL feature the embedded engine does not implement (the request is valid ES).
    #[error("not supported by the embedded engine: {0}")]
    Unsupported(String),
    /// No index of that name (embedded) or at that URL (remote).
    #[error("no index {name:?}: {hint}")]
    NoIndex {
        /// The index name or URL (credentials removed).
        name: String,
        /// How to create it or what to check.
        hint: String,
    },
    /// The embedded engine (tantivy) failed.
    #[error("embedded engine: {0}")]
    Engine(String),
    /// The remote server answered with an error status.
    #[error("server answered {status}: {reason}")]
    Http {
        /// HTTP status code.
        status: u16,
        /// The `error.reason` of the body, or the status text.
        reason: String,
    },
    /// The remote server could not be reached (connection, TLS, timeout).
    #[error("cannot reach {target}: {reason}")]
    Unreachable {
        /// The server (credentials removed).
        target: String,
        /// What failed.
        reason: String,
    },
    /// A response or a request body that is not the expected JSON.
    #[error("bad JSON: {0}")]
    Json(String),
    /// A checkpoint that cannot be used for a resume.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
}

impl EsError {
    /// An I/O error with the file it concerns.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EsError::Io { action, path: path.into(), source }
    }
}

impl From<serde_json::Error> for EsError {
    fn from(e: serde_json::Error) -> Self {
        EsError::Json(e.to_string())
    }
}
