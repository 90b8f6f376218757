//! An index copied between back ends (OpenSearch ⇄ Elasticsearch, one server to another) with
//! the vectors it holds: nothing is re-embedded, and the target ends with exactly the source's
//! documents.

use qa_core::progress::Progress;

use crate::client::{DocumentStore, IndexState};
use crate::sync::{self, SyncOptions, SyncReport};
use crate::{Result, StoreError};

/// Copy `from` into `to` (created with `to`'s own mapping when missing).
pub fn migrate(from: &DocumentStore, to: &DocumentStore, options: SyncOptions, progress: &dyn Progress) -> Result<SyncReport> {
    let meta = match from.state()? {
        IndexState::Ours(meta) => meta,
        IndexState::Missing => return Err(StoreError::Missing { target: from.target() }),
        IndexState::NotOurs => return Err(StoreError::NotOurs { target: from.target() }),
    };
    sync::copy_all(from, to, &meta, options, progress)
}
