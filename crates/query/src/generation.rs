//! A live generation's chunks, vectors and document titles, read as a whole: what a remote
//! store is synced to and checked against (`qa index --store`, `qa store check`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use qa_core::chunk::Chunk;
use qa_core::error::{QaError, Result};
use qa_index::index_store::{self, Manifest};
use qa_index::vector;

/// The files of one generation.
#[derive(Debug)]
pub struct GenerationFiles {
    /// The corpus name.
    pub corpus: String,
    /// The generation folder.
    pub dir: PathBuf,
    /// Its manifest (model, dimension, corpus root).
    pub manifest: Manifest,
    /// The chunks in row order.
    pub chunks: Vec<Chunk>,
    /// Their unit vectors, row-major.
    pub vectors: Vec<f32>,
    /// Document titles by source file.
    pub titles: BTreeMap<String, String>,
}

/// Read the live generation of `corpus` (the only or most recent one when `None`).
pub fn read_live(vector_dir: &Path, corpus: Option<&str>) -> Result<GenerationFiles> {
    let cd = crate::ask::resolve_corpus(vector_dir, corpus)?;
    let dir = cd.current().ok_or_else(|| QaError::IndexMissing { corpus: cd.name.clone(), dir: vector_dir.to_path_buf() })?;
    let corrupt = |reason: String, root: &str| QaError::IndexCorrupt { dir: dir.clone(), reason, corpus_root: root.to_string() };
    let manifest = index_store::verify_generation(&dir, false).map_err(|e| corrupt(e.to_string(), "<FOLDER>"))?;
    let root = manifest.corpus_root.clone();
    let chunks = qa_core::chunk::read_chunks(&dir.join(index_store::CHUNKS_FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
    let (rows, dim) = vector::read_vectors(&dir.join(index_store::VECTORS_FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
    if rows.len() != chunks.len() || dim != manifest.dimension {
        return Err(corrupt(format!("{} has {} vectors of {dim} dimensions for {} chunks", index_store::VECTORS_FILE, rows.len(), chunks.len()), &root));
    }
    let text = std::fs::read_to_string(dir.join(crate::build::DOCUMENTS_FILE)).map_err(|e| corrupt(e.to_string(), &root))?;
    let titles = serde_json::from_str(&text).map_err(|e| corrupt(format!("{}: {e}", crate::build::DOCUMENTS_FILE), &root))?;
    Ok(GenerationFiles { corpus: cd.name, dir, manifest, chunks, vectors: rows.concat(), titles })
}
