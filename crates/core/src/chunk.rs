//! The chunk contract: one line of `chunking_outputs/<corpus>_chunks.jsonl`, shared by the
//! indexer that writes it and every stage that reads it.

use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{IoContext, QaError, Result};

/// Where a chunk sits in its document and what it holds, beside its text.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ChunkMeta {
    /// Headings enclosing the chunk's first non-heading block, outermost first.
    pub heading_path: Vec<String>,
    /// Ids of the images referenced by the chunk's blocks (see `corpus::ImageRef` in `qa-index`).
    pub image_ids: Vec<String>,
    /// Character (not byte) offsets of the chunk in the document's extracted text.
    pub char_start: usize,
    /// End of the chunk (exclusive), in characters like `char_start`.
    pub char_end: usize,
    /// Model tokens including [CLS] and [SEP].
    pub token_count: usize,
    /// sha256 of `content` in lower-case hex: the key of the embedding cache.
    pub content_sha256: String,
}

/// One line of `chunking_outputs/<corpus>_chunks.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Chunk {
    /// `<file stem slug>_<n>` (n counts the document's chunks from 0), unique within a corpus
    /// (a `~2`, `~3` … suffix settles collisions).
    pub id: String,
    /// Path of the document relative to the corpus root, with `/` separators.
    pub source_file: String,
    /// The text that is embedded, indexed and quoted as evidence.
    pub content: String,
    /// Position and provenance of the text.
    pub metadata: ChunkMeta,
}

/// Counts model tokens of a text without special tokens.
pub trait TokenCounter: Sync {
    /// Tokens the model's tokenizer makes of `text`, [CLS] and [SEP] not included.
    fn count(&self, text: &str) -> usize;
    /// Whether the tokenizer's vocabulary holds `word` (lower-case) whole: a word of general
    /// language, common enough in the model's training text to be one token ("hose", "bail"),
    /// unlike a coined name ("cbindgen"). False when the counter has no vocabulary.
    fn is_vocabulary_word(&self, _word: &str) -> bool {
        false
    }
}

/// Read a chunk file (one JSON [`Chunk`] a line; blank lines skipped). A line that is not a chunk
/// is an error naming its line number.
pub fn read_chunks(path: &Path) -> Result<Vec<Chunk>> {
    let f = std::fs::File::open(path).ctx("opening chunk file", path)?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.ctx("reading chunk file", path)?;
        if line.trim().is_empty() {
            continue;
        }
        let chunk: Chunk = serde_json::from_str(&line)
            .map_err(|e| QaError::Data { path: path.to_path_buf(), reason: format!("line {}: {e}", n + 1) })?;
        out.push(chunk);
    }
    Ok(out)
}
