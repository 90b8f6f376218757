//! `qa-store`: the documents' dense and lexical lanes on a server — an OpenSearch 2 or
//! Elasticsearch 8/9 index that `qa index --store URL` fills and `qa ask --store URL` searches.
//!
//! - [`doc`]: one chunk as a server document, and its stable key (document path, position and
//!   content hash: the same chunk always gets the same `_id`, so a re-run overwrites instead of
//!   duplicating).
//! - [`flavor`]: what differs between OpenSearch and Elasticsearch (the vector field's mapping,
//!   the kNN query), detected from the server's `GET /`.
//! - [`client::DocumentStore`]: the requests, through `qa-es`'s connection (authentication, TLS,
//!   retries of 429/5xx, secrets scrubbed). It writes only to an index whose mapping carries
//!   qa's `_meta` marker, so a user's own data index is never touched.
//! - [`sync`]: the server brought to the generation's chunks — the keys it holds are listed, the
//!   missing chunks sent in `_bulk` batches sized by bytes (every item's status checked, rejected
//!   items retried), the orphans deleted, then a refresh. The server is the record of what is
//!   stored: a run that died half-way is completed by the next, and nothing is reported stored
//!   that the server did not acknowledge.
//! - [`search::RemoteLanes`]: [`qa_index::store::RetrievalStore`] on the server — kNN for the
//!   dense lane, `multi_match` for the lexical one — with document keys mapped back to rows.
//! - [`check`] (server against the generation: missing, orphaned and stale chunks, model
//!   mismatch) and [`migrate`] (documents and their vectors copied to another server, no
//!   re-embedding).

pub mod check;
pub mod client;
pub mod doc;
pub mod flavor;
pub mod migrate;
pub mod search;
pub mod sync;

use qa_es::EsError;

/// Why a store operation failed. Every text is free of credentials.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The server could not be reached or answered an error (with its reason).
    #[error("{0}")]
    Server(#[from] EsError),
    /// The index exists but was not created by qa: it is never written to.
    #[error("{target} is not a qa document store (its mapping has no `_meta.qa_store`)\n  fix: give `--store` an index name of its own (the URL's last path segment); qa creates it")]
    NotOurs {
        /// The index URL, without credentials.
        target: String,
    },
    /// The index holds vectors of another embedding model or dimension.
    #[error("{target} holds vectors of {found}, but this index uses {expected}\n  fix: sync to a new index name, or delete that index on the server and run `qa index --store` again")]
    ModelMismatch {
        /// The index URL, without credentials.
        target: String,
        /// What the index's `_meta` says.
        found: String,
        /// The generation's model and dimension.
        expected: String,
    },
    /// The index holds another corpus's chunks.
    #[error("{target} holds the chunks of corpus '{found}', not of '{expected}'\n  fix: give each corpus an index of its own (the URL's last path segment)")]
    CorpusMismatch {
        /// The index URL, without credentials.
        target: String,
        /// The corpus its `_meta` names.
        found: String,
        /// This generation's corpus.
        expected: String,
    },
    /// The index does not exist (a query or check against a store never synced).
    #[error("{target} does not exist\n  fix: fill it with `qa index <FOLDER> --store {target}`")]
    Missing {
        /// The index URL, without credentials.
        target: String,
    },
    /// Some chunks were not stored; the server keeps the rest, and the next run resends these.
    #[error("{} of {sent} chunks were not stored by {target}: {}\n  fix: run the same `qa index --store` again (it sends only what the server lacks)", failed.len(), summarize(failed))]
    Incomplete {
        /// The index URL, without credentials.
        target: String,
        /// Documents sent.
        sent: usize,
        /// `(document key, status, reason)` of each failed item.
        failed: Vec<(String, u16, String)>,
    },
    /// An answer that does not have the shape the API documents.
    #[error("{target} answered unexpectedly: {reason}")]
    Protocol {
        /// The index URL, without credentials.
        target: String,
        /// What was wrong.
        reason: String,
    },
}

/// The first few failures, and how many more.
fn summarize(failed: &[(String, u16, String)]) -> String {
    let shown: Vec<String> = failed.iter().take(3).map(|(id, status, why)| format!("{id} ({status} {why})")).collect();
    match failed.len().saturating_sub(shown.len()) {
        0 => shown.join("; "),
        more => format!("{} and {more} more", shown.join("; ")),
    }
}

impl From<StoreError> for qa_core::error::QaError {
    fn from(e: StoreError) -> Self {
        qa_core::error::QaError::Store(e.to_string())
    }
}

/// Result alias of the crate.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
