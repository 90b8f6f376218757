//! The dense and lexical lanes on the server.

use std::collections::HashMap;

use qa_core::chunk::Chunk;
use qa_core::error::Result;
use qa_index::store::RetrievalStore;

use crate::client::DocumentStore;
use crate::doc::doc_key;
use crate::flavor::StoreMeta;

/// [`RetrievalStore`] on a document store: kNN and `multi_match`, keys mapped to the
/// generation's rows. A key the generation does not have (the server is ahead of or behind this
/// machine's index) is skipped: `qa store check` reports it.
pub struct RemoteLanes {
    store: DocumentStore,
    rows: HashMap<String, usize>,
}

impl RemoteLanes {
    /// Lanes over `store` for the generation's `chunks`, after checking that the index exists,
    /// is qa's and holds `meta`'s vectors (a clear error otherwise, before any question).
    pub fn open(store: DocumentStore, meta: &StoreMeta, chunks: &[Chunk]) -> crate::Result<RemoteLanes> {
        store.expect(meta)?;
        let rows = chunks.iter().enumerate().map(|(row, c)| (doc_key(c), row)).collect();
        Ok(RemoteLanes { store, rows })
    }

    fn rows(&self, keys: impl IntoIterator<Item = (String, f32)>) -> Vec<(usize, f32)> {
        keys.into_iter().filter_map(|(k, s)| self.rows.get(&k).map(|&row| (row, s))).collect()
    }
}

impl RetrievalStore for RemoteLanes {
    fn describe(&self) -> String {
        self.store.describe()
    }

    /// Rows nearest first; the scores are placeholders (rank order): the engine rescores them
    /// with the generation's vectors.
    fn dense(&self, query: &[f32], k: usize) -> Result<Vec<(usize, f32)>> {
        let keys = self.store.knn(query, k)?;
        let n = keys.len() as f32;
        Ok(self.rows(keys.into_iter().enumerate().map(|(i, key)| (key, n - i as f32))))
    }

    fn lexical(&self, question: &str, k: usize) -> Result<Option<Vec<(usize, f32)>>> {
        if question.trim().is_empty() || k == 0 {
            return Ok(Some(Vec::new()));
        }
        Ok(Some(self.rows(self.store.lexical(question, k)?)))
    }
}
