//! One chunk as a server document. The fields mirror the chunk contract (text, heading path,
//! file, position, content hash) plus the document's title and the embedding, so that a server
//! alone can show a passage and a second back end can be filled from the first without
//! re-embedding ([`crate::migrate`]).

use serde::{Deserialize, Serialize};

use qa_core::chunk::Chunk;

/// The `_source` of one stored chunk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredChunk {
    /// The document's `_id` too ([`doc_key`]); a keyword field, so listings can sort on it.
    pub doc_key: String,
    /// The chunk's id in the generation.
    pub chunk_id: String,
    /// The document's path relative to the corpus root.
    pub source_file: String,
    /// The document's title.
    pub title: String,
    /// The heading path, outermost first, joined by " > ".
    pub headings: String,
    /// The passage.
    pub content: String,
    /// sha256 of `content`.
    pub content_sha256: String,
    /// Character offsets in the document's text.
    pub char_start: usize,
    /// End of the chunk (exclusive).
    pub char_end: usize,
    /// Model tokens.
    pub token_count: usize,
    /// Images the chunk references.
    pub image_ids: Vec<String>,
    /// The unit vector of the embedding model named in the index's `_meta`.
    pub embedding: Vec<f32>,
}

/// The stable key of a chunk: a hash of its document's path, its id (the position in the
/// document) and its content hash. An unchanged chunk keeps its key across runs (an upsert, not a
/// duplicate); an edited one gets a new key (sent again, the old one deleted as an orphan).
pub fn doc_key(chunk: &Chunk) -> String {
    let raw = format!("{}\n{}\n{}", chunk.source_file, chunk.id, chunk.metadata.content_sha256);
    qa_core::fsx::sha256_hex(raw.as_bytes())[..32].to_string()
}

impl StoredChunk {
    /// The document for `chunk` with its vector and its document's title.
    pub fn new(chunk: &Chunk, embedding: &[f32], title: &str) -> StoredChunk {
        StoredChunk {
            doc_key: doc_key(chunk),
            chunk_id: chunk.id.clone(),
            source_file: chunk.source_file.clone(),
            title: title.to_string(),
            headings: chunk.metadata.heading_path.join(" > "),
            content: chunk.content.clone(),
            content_sha256: chunk.metadata.content_sha256.clone(),
            char_start: chunk.metadata.char_start,
            char_end: chunk.metadata.char_end,
            token_count: chunk.metadata.token_count,
            image_ids: chunk.metadata.image_ids.clone(),
            embedding: embedding.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::chunk::ChunkMeta;

    fn chunk(file: &str, id: &str, sha: &str) -> Chunk {
        let metadata = ChunkMeta { heading_path: vec!["A".into(), "B".into()], image_ids: vec![], char_start: 0, char_end: 4, token_count: 3, content_sha256: sha.into() };
        Chunk { id: id.into(), source_file: file.into(), content: "text".into(), metadata }
    }

    #[test]
    fn keys_are_stable_and_change_with_path_position_or_content() {
        let a = doc_key(&chunk("a.md", "a_0", "s1"));
        assert_eq!(a, doc_key(&chunk("a.md", "a_0", "s1")));
        assert_eq!(a.len(), 32);
        for other in [chunk("b.md", "a_0", "s1"), chunk("a.md", "a_1", "s1"), chunk("a.md", "a_0", "s2")] {
            assert_ne!(a, doc_key(&other));
        }
        let d = StoredChunk::new(&chunk("a.md", "a_0", "s1"), &[0.5, 0.5], "Title");
        assert_eq!((d.doc_key.as_str(), d.headings.as_str(), d.embedding.len()), (a.as_str(), "A > B", 2));
    }
}
