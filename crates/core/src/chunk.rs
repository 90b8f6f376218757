//! The chunk contract: one line of `chunking_outputs/<corpus>_chunks.jsonl`, shared by the
//! indexer that writes it and every stage that reads it.

use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{IoContext, QaError, Result};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ChunkMeta {
    pub heading_path: Vec<String>,
    pub image_ids: Vec<String>,
    /// Character (not byte) offsets of the chunk in the document's extracted text.
    pub char_start: usize,
    pub char_end: usize,
    /// Model tokens including [CLS] and [SEP].
    pub token_count: usize,
    pub content_sha256: String,
}

/// One line of `chunking_outputs/<corpus>_chunks.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Chunk {
    pub id: String,
    pub source_file: String,
    pub content: String,
    pub metadata: ChunkMeta,
}

/// Counts model tokens of a text without special tokens.
pub trait TokenCounter: Sync {
    fn count(&self, text: &str) -> usize;
}

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
