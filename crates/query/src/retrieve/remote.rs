//! The dense and lexical lanes on a remote store, with the generation's own files behind it.
//!
//! Two rules keep answers the same whichever store searched:
//! - **Scores are the generation's cosines.** A server reports its own scale (Elasticsearch's
//!   `(1 + cos) / 2`, OpenSearch's per engine, quantized vectors' approximations); the relevance
//!   threshold and the answer's similarity are defined on cosine, so every dense hit is rescored
//!   with the query and the chunk's vector from the generation, and re-sorted.
//! - **A failing store degrades, it does not fail the answer.** The first error of a question
//!   switches both lanes to the local files for the rest of it, and the reason becomes a note.

use std::sync::Mutex;

use qa_core::error::Result;
use qa_embed::dot;
use qa_index::store::{LocalStore, RetrievalStore};

/// A remote store answering first, the local files when it cannot.
pub struct WithFallback<'a> {
    remote: &'a dyn RetrievalStore,
    local: LocalStore<'a>,
    /// Every chunk's unit vector, row-major.
    vectors: &'a [f32],
    dim: usize,
    failure: Mutex<Option<String>>,
}

impl<'a> WithFallback<'a> {
    /// `vectors` holds the generation's chunk vectors (`dim` floats a row).
    pub fn new(remote: &'a dyn RetrievalStore, local: LocalStore<'a>, vectors: &'a [f32], dim: usize) -> WithFallback<'a> {
        WithFallback { remote, local, vectors, dim, failure: Mutex::new(None) }
    }

    /// Why the remote store was not used, if it failed.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    fn failed(&self) -> bool {
        self.failure.lock().map(|f| f.is_some()).unwrap_or(true)
    }

    fn record(&self, e: &qa_core::error::QaError) {
        tracing::warn!("retrieval store unavailable: {e}");
        if let Ok(mut f) = self.failure.lock()
            && f.is_none()
        {
            *f = Some(format!("{} did not answer ({e}); the dense and lexical lanes searched the local index instead", self.remote.describe()));
        }
    }

    /// The hits rescored with the generation's vectors; rows it does not have are dropped.
    fn rescore(&self, query: &[f32], hits: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
        let mut out: Vec<(usize, f32)> =
            hits.into_iter().filter_map(|(row, _)| self.vectors.get(row * self.dim..(row + 1) * self.dim).map(|v| (row, dot(query, v)))).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

impl RetrievalStore for WithFallback<'_> {
    fn describe(&self) -> String {
        match self.failure() {
            Some(_) => format!("local (fallback from {})", self.remote.describe()),
            None => self.remote.describe(),
        }
    }

    fn dense(&self, query: &[f32], k: usize) -> Result<Vec<(usize, f32)>> {
        if !self.failed() {
            match self.remote.dense(query, k) {
                Ok(hits) => return Ok(self.rescore(query, hits)),
                Err(e) => self.record(&e),
            }
        }
        self.local.dense(query, k)
    }

    fn lexical(&self, question: &str, k: usize) -> Result<Option<Vec<(usize, f32)>>> {
        if !self.failed() {
            match self.remote.lexical(question, k) {
                Ok(hits) => return Ok(hits),
                Err(e) => self.record(&e),
            }
        }
        self.local.lexical(question, k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::error::QaError;
    use qa_index::vector::{ExactIndex, VectorIndex};

    /// A store that answers rows in a fixed order with made-up scores, or fails.
    struct Scripted(Option<Vec<usize>>);

    impl RetrievalStore for Scripted {
        fn describe(&self) -> String {
            "scripted".into()
        }
        fn dense(&self, _: &[f32], _: usize) -> Result<Vec<(usize, f32)>> {
            self.0.clone().map(|rows| rows.into_iter().map(|r| (r, 99.0)).collect()).ok_or_else(|| QaError::Store("connection refused".into()))
        }
        fn lexical(&self, _: &str, _: usize) -> Result<Option<Vec<(usize, f32)>>> {
            self.0.clone().map(|rows| Some(rows.into_iter().map(|r| (r, 1.0)).collect())).ok_or_else(|| QaError::Store("connection refused".into()))
        }
    }

    fn rows() -> Vec<Vec<f32>> {
        vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.6, 0.8]]
    }

    #[test]
    fn remote_hits_get_the_generations_cosines_in_cosine_order() {
        let exact = ExactIndex { vectors: rows() };
        let flat: Vec<f32> = rows().concat();
        let remote = Scripted(Some(vec![1, 2, 0, 7]));
        let s = WithFallback::new(&remote, LocalStore { vectors: &exact, lexical: None }, &flat, 2);
        let hits = s.dense(&[1.0, 0.0], 3).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 2, 1], "row 7 is not in the generation");
        assert!((hits[1].1 - 0.6).abs() < 1e-6);
        assert_eq!(s.describe(), "scripted");
        assert!(s.failure().is_none());
    }

    #[test]
    fn a_failing_store_falls_back_to_the_local_files_with_a_note() {
        let exact = ExactIndex { vectors: rows() };
        let flat: Vec<f32> = rows().concat();
        let remote = Scripted(None);
        let s = WithFallback::new(&remote, LocalStore { vectors: &exact, lexical: None }, &flat, 2);
        let hits = s.dense(&[0.0, 1.0], 2).unwrap();
        assert_eq!(hits, exact.search(&[0.0, 1.0], 2));
        assert_eq!(s.lexical("q", 2).unwrap(), None, "the local files have no lexical index here");
        let note = s.failure().expect("a note");
        assert!(note.contains("scripted") && note.contains("connection refused"), "{note}");
        assert!(s.describe().starts_with("local (fallback from scripted"));
    }
}
