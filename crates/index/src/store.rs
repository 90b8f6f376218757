//! The seam behind the dense and lexical lanes: where a question's nearest passages and its
//! best BM25 matches come from. [`LocalStore`] answers from the generation's own files (the
//! HNSW graph or an exact scan, and the tantivy index); `qa-store` answers from an OpenSearch or
//! Elasticsearch index. Fusion, the graph lane and answer writing sit above this seam and do not
//! know which one answered.
//!
//! Rows are positions in the generation's chunk list; a store that keys its documents otherwise
//! maps them back to rows before it answers.

use qa_core::error::Result;

use crate::lexical::LexicalIndex;
use crate::vector::VectorIndex;

/// The dense and lexical lanes' source of passages.
pub trait RetrievalStore: Send + Sync {
    /// Where the lanes run, as a trace shows it: `local`, or the back end and its URL without
    /// credentials.
    fn describe(&self) -> String;
    /// Up to `k` (row, cosine similarity) pairs nearest to the unit vector `query`, most similar
    /// first.
    fn dense(&self, query: &[f32], k: usize) -> Result<Vec<(usize, f32)>>;
    /// Up to `k` (row, BM25 score) pairs for `question`, best first; `None` when this store has
    /// no lexical index.
    fn lexical(&self, question: &str, k: usize) -> Result<Option<Vec<(usize, f32)>>>;
}

/// The generation's own files.
pub struct LocalStore<'a> {
    /// The dense index (HNSW or exact).
    pub vectors: &'a dyn VectorIndex,
    /// The BM25 index, when the generation has one.
    pub lexical: Option<&'a LexicalIndex>,
}

impl RetrievalStore for LocalStore<'_> {
    fn describe(&self) -> String {
        "local".into()
    }

    fn dense(&self, query: &[f32], k: usize) -> Result<Vec<(usize, f32)>> {
        Ok(self.vectors.search(query, k))
    }

    fn lexical(&self, question: &str, k: usize) -> Result<Option<Vec<(usize, f32)>>> {
        self.lexical.map(|lx| lx.search(question, k)).transpose()
    }
}

/// A remote store opened for one generation, or why it cannot answer now (the answer then
/// comes from the local files, with the reason as a note).
pub enum Opened {
    /// Ready to search.
    Ready(Box<dyn RetrievalStore>),
    /// The server could not be reached: degrade, do not fail.
    Unavailable(String),
}

/// What a remote store is opened against: the generation's chunks and its embedding model.
pub struct GenerationInfo<'a> {
    /// The chunks, in row order.
    pub chunks: &'a [qa_core::chunk::Chunk],
    /// The embedding model's id.
    pub model: &'a str,
    /// Its dimension.
    pub dimension: usize,
    /// The corpus's name.
    pub corpus: &'a str,
}

/// Opens the configured remote store for a generation. An `Err` is a configuration the user
/// must fix (an index of another model, one qa did not create, one never filled): the
/// question fails with it.
#[derive(Clone)]
pub struct StoreOpener {
    /// How the store is shown (its URL without credentials).
    pub target: String,
    /// The opening.
    #[allow(clippy::type_complexity)]
    pub open: std::sync::Arc<dyn Fn(&GenerationInfo<'_>) -> Result<Opened> + Send + Sync>,
}

impl std::fmt::Debug for StoreOpener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreOpener").field("target", &self.target).finish_non_exhaustive()
    }
}
