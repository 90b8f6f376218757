//! On-disk layout of a corpus's derived data and its manifest.
//!
//! ```text
//! vector_store_outputs/<corpus>/
//!     CURRENT              name of the live generation (replaced atomically)
//!     index.lock           held by a running `qa index`
//!     gen-<time>-<pid>/    one complete, immutable index generation:
//!         manifest.json    model id, dimension, metric, counts, fingerprint, file sizes + checksums
//!         chunks.jsonl     the id map: line i is the chunk whose vector has id i
//!         vectors.f32      raw unit vectors (the embedding cache for incremental runs)
//!         hnsw.hnsw.graph, hnsw.hnsw.data
//!         hnsw_rows.bin    HNSW point → chunk row, only for a graph updated in place
//!         graph.db         embedded graph database (graphdblite)
//!         concepts.json, concept_vectors.f32   concept names and their embeddings (grounding)
//! ```
//! A generation is written under a `.tmp` name, renamed, and only then named in `CURRENT`, so an
//! interrupted `qa index` leaves the previous generation loadable.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use qa_core::error::{IoContext, QaError, Result};

/// Version 2 added the lexical index, the entity graph and document titles.
pub const FORMAT_VERSION: u32 = 2;
/// File name of a generation's manifest.
pub const MANIFEST: &str = "manifest.json";
/// File name of a generation's id map (line i is the chunk whose vector has id i).
pub const CHUNKS_FILE: &str = "chunks.jsonl";
/// File name of a generation's raw unit vectors.
pub const VECTORS_FILE: &str = "vectors.f32";

/// Size and checksum of one file of a generation, as the manifest records them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileEntry {
    /// Size in bytes.
    pub bytes: u64,
    /// sha256 of the content, lower-case hex.
    pub sha256: String,
}

/// `manifest.json`: what a generation was built from and with, and the files it consists of.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the `qa` that wrote it.
    pub format_version: u32,
    /// The corpus name (the folder under `vector_store_outputs/`).
    pub corpus: String,
    /// The corpus root as given to `qa index` (used in rebuild hints).
    pub corpus_root: String,
    /// The embedding model's id (name and fingerprint); queries need the same model.
    pub model_id: String,
    /// Length of the embedding vectors.
    pub dimension: usize,
    /// Similarity of the vector index (`cosine`).
    pub metric: String,
    /// Chunks (= vectors = rows of the id map).
    pub chunk_count: usize,
    /// sha256 over the sorted (chunk id, content sha256) pairs.
    pub corpus_fingerprint: String,
    /// When the generation was built (RFC 3339).
    pub created_at: String,
    /// Chunk window in model tokens, special tokens included.
    pub chunk_tokens: usize,
    /// Tokens of whole sentences shared by consecutive chunks, at most.
    pub chunk_overlap: usize,
    /// HNSW: links per node.
    pub hnsw_m: usize,
    /// HNSW: candidate list size while building.
    pub hnsw_ef_construction: usize,
    /// Every file of the generation (sub-folder files as `lexical/<name>`) except the manifest.
    pub files: BTreeMap<String, FileEntry>,
    /// Concepts of the knowledge graph.
    pub concept_count: usize,
    /// Documents that were loaded.
    pub document_count: usize,
    /// Images referenced by the documents.
    pub image_count: usize,
    /// `deterministic`, or `llm:<model>` for `qa index --extract llm`.
    #[serde(default = "deterministic")]
    pub kg_extraction: String,
    /// Version of the extraction rules: a `qa` with other rules rebuilds the graph (embeddings are
    /// reused) instead of calling the index up to date.
    #[serde(default)]
    pub kg_version: u32,
    /// sha256 of the KG JSONL contract written with this generation: the next `qa index` reads
    /// that file as the graph its store was loaded from (to update the store instead of loading
    /// it anew) only while the file is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kg_sha256: Option<String>,
}

fn deterministic() -> String {
    "deterministic".into()
}

/// Size and checksum of one file.
fn file_entry(path: &Path) -> Result<FileEntry> {
    let mut f = File::open(path).ctx("opening", path)?;
    let mut hasher = qa_core::fsx::Sha256Stream::default();
    let mut buf = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let n = f.read(&mut buf).ctx("reading", path)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok(FileEntry { bytes, sha256: hasher.finish_hex() })
}

/// Size and checksum of every file of a generation folder, one level of sub-folders included
/// (`lexical/<file>`).
pub fn list_files(gen_dir: &Path) -> Result<BTreeMap<String, FileEntry>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(gen_dir).ctx("listing", gen_dir)? {
        let entry = entry.ctx("listing", gen_dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            for sub in std::fs::read_dir(&path).ctx("listing", &path)? {
                let sub = sub.ctx("listing", &path)?;
                // tantivy's writer lock is bookkeeping, not index data.
                let sub_name = sub.file_name().to_string_lossy().into_owned();
                if sub.path().is_file() && !sub_name.ends_with(".lock") {
                    files.insert(format!("{name}/{sub_name}"), file_entry(&sub.path())?);
                }
            }
        } else {
            files.insert(name, file_entry(&path)?);
        }
    }
    Ok(files)
}

/// The folder of one corpus's index generations (`vector_store_outputs/<corpus>/`).
#[derive(Debug, Clone)]
pub struct CorpusDir {
    /// The corpus name.
    pub name: String,
    /// The folder.
    pub dir: PathBuf,
}

impl CorpusDir {
    /// The folder of corpus `name` under `vector_dir` (it need not exist).
    pub fn new(vector_dir: &Path, name: &str) -> CorpusDir {
        CorpusDir { name: name.to_string(), dir: vector_dir.join(name) }
    }

    /// The live generation, if any.
    pub fn current(&self) -> Option<PathBuf> {
        let name = std::fs::read_to_string(self.dir.join("CURRENT")).ok()?;
        let name = name.trim();
        (!name.is_empty() && !name.contains('/')).then(|| self.dir.join(name))
    }

    /// Take the indexer lock; released when the returned file is dropped (or the process dies).
    pub fn lock(&self) -> Result<File> {
        std::fs::create_dir_all(&self.dir).ctx("creating index folder", &self.dir)?;
        let path = self.dir.join("index.lock");
        let f = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).ctx("opening lock file", &path)?;
        match f.try_lock() {
            Ok(()) => Ok(f),
            Err(std::fs::TryLockError::WouldBlock) => Err(QaError::IndexLocked { corpus: self.name.clone(), lock: path }),
            Err(std::fs::TryLockError::Error(e)) => Err(QaError::io("locking", path, e)),
        }
    }

    /// A fresh temporary folder for a new generation.
    pub fn new_generation(&self) -> Result<PathBuf> {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3f");
        let dir = self.dir.join(format!("gen-{stamp}-{}.tmp", std::process::id()));
        std::fs::create_dir_all(&dir).ctx("creating index generation", &dir)?;
        Ok(dir)
    }

    /// Make `tmp_gen` the live generation and delete older generations and leftovers.
    pub fn publish(&self, tmp_gen: &Path) -> Result<PathBuf> {
        let final_name = tmp_gen
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.trim_end_matches(".tmp").to_string())
            .ok_or_else(|| QaError::Config("bad generation path".into()))?;
        let final_dir = self.dir.join(&final_name);
        std::fs::rename(tmp_gen, &final_dir).ctx("publishing index generation", &final_dir)?;
        let current_tmp = self.dir.join("CURRENT.tmp");
        std::fs::write(&current_tmp, format!("{final_name}\n")).ctx("writing", &current_tmp)?;
        File::open(&current_tmp).and_then(|f| f.sync_all()).ctx("syncing", &current_tmp)?;
        std::fs::rename(&current_tmp, self.dir.join("CURRENT")).ctx("switching CURRENT", &self.dir)?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.remove_stale(&final_name);
        Ok(final_dir)
    }

    /// Remove generations other than `keep` (we hold the lock, so no indexer is writing them).
    fn remove_stale(&self, keep: &str) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("gen-")
                && name != keep
                && let Err(err) = std::fs::remove_dir_all(e.path())
            {
                tracing::warn!(path = %e.path().display(), %err, "could not remove old index generation");
            }
        }
    }
}

/// Why a generation cannot be used: its manifest or one of its files is missing, unreadable or
/// does not match.
#[derive(Debug, thiserror::Error)]
pub enum GenerationError {
    /// The manifest could not be read.
    #[error("cannot read {}: {source}", path.display())]
    ManifestUnreadable {
        /// The manifest's path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The manifest is not valid JSON of the expected shape.
    #[error("{} is not a valid manifest: {source}", path.display())]
    ManifestInvalid {
        /// The manifest's path.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// Another `qa` wrote the generation in a layout this one does not read.
    #[error("index format version {0} (this qa reads version {FORMAT_VERSION})")]
    FormatVersion(u32),
    /// A file the manifest lists does not exist.
    #[error("{0} is missing")]
    FileMissing(String),
    /// A file's size differs from the manifest's.
    #[error("{name} has {found} bytes, the manifest says {expected} (truncated or modified)")]
    SizeMismatch {
        /// The file, relative to the generation folder.
        name: String,
        /// Its size on disk.
        found: u64,
        /// Its size in the manifest.
        expected: u64,
    },
    /// A file's checksum differs from the manifest's.
    #[error("{0} does not match its checksum (corrupted or modified)")]
    ChecksumMismatch(String),
    /// A file could not be read to compute its checksum.
    #[error(transparent)]
    Read(#[from] QaError),
}

/// Read and parse the manifest of a generation (without checking its files).
fn read_manifest(gen_dir: &Path) -> std::result::Result<Manifest, GenerationError> {
    let path = gen_dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|source| GenerationError::ManifestUnreadable { path: path.clone(), source })?;
    serde_json::from_str(&text).map_err(|source| GenerationError::ManifestInvalid { path, source })
}

/// Read and check a generation's manifest and files. Sizes are always checked; checksums for
/// the files whose loaders trust their input (HNSW dumps, vectors).
pub fn verify_generation(gen_dir: &Path, deep: bool) -> std::result::Result<Manifest, GenerationError> {
    let manifest = read_manifest(gen_dir)?;
    if manifest.format_version != FORMAT_VERSION {
        return Err(GenerationError::FormatVersion(manifest.format_version));
    }
    for (name, want) in &manifest.files {
        let p = gen_dir.join(name);
        let meta = std::fs::metadata(&p).map_err(|_| GenerationError::FileMissing(name.clone()))?;
        if name.ends_with(".db") {
            // SQLite may rewrite header bytes when a reader opens it in WAL mode; its own
            // integrity checks apply.
            continue;
        }
        if meta.len() != want.bytes {
            return Err(GenerationError::SizeMismatch { name: name.clone(), found: meta.len(), expected: want.bytes });
        }
        let must_hash = deep || name.starts_with("hnsw") || name.ends_with(".f32") || name.ends_with(".bin");
        if must_hash && file_entry(&p)?.sha256 != want.sha256 {
            return Err(GenerationError::ChecksumMismatch(name.clone()));
        }
    }
    Ok(manifest)
}

/// Corpora with a live generation, with their manifests (unreadable ones are listed with an error).
pub fn list_corpora(vector_dir: &Path) -> Vec<(CorpusDir, std::result::Result<Manifest, GenerationError>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(vector_dir) else { return out };
    for e in entries.flatten() {
        if !e.path().is_dir() {
            continue;
        }
        let cd = CorpusDir { name: e.file_name().to_string_lossy().into_owned(), dir: e.path() };
        if let Some(gen_dir) = cd.current() {
            let m = read_manifest(&gen_dir);
            out.push((cd, m));
        }
    }
    out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    out
}

/// Corpus name from the folder being indexed: its final path component, slugged.
pub fn corpus_name_for(path: &Path) -> String {
    let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let base = if canon.is_file() { canon.file_stem() } else { canon.file_name() };
    crate::corpus::slug(&base.map(|b| b.to_string_lossy().into_owned()).unwrap_or_else(|| "corpus".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_switches_current_and_removes_old_generations() {
        let tmp = tempfile::tempdir().unwrap();
        let cd = CorpusDir::new(tmp.path(), "c");
        let _lock = cd.lock().unwrap();
        let g1 = cd.new_generation().unwrap();
        std::fs::write(g1.join("x"), "1").unwrap();
        let p1 = cd.publish(&g1).unwrap();
        assert_eq!(cd.current().unwrap(), p1);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let g2 = cd.new_generation().unwrap();
        // an unfinished generation does not change what is live
        assert_eq!(cd.current().unwrap(), p1);
        let p2 = cd.publish(&g2).unwrap();
        assert_eq!(cd.current().unwrap(), p2);
        assert!(!p1.exists());
    }

    #[test]
    fn verification_names_what_is_wrong() {
        let tmp = tempfile::tempdir().unwrap();
        let g = tmp.path();
        let err = verify_generation(g, false).unwrap_err();
        assert!(matches!(err, GenerationError::ManifestUnreadable { .. }) && err.to_string().starts_with("cannot read "), "{err}");
        std::fs::write(g.join("vectors.f32"), "1234").unwrap();
        let manifest = Manifest {
            format_version: FORMAT_VERSION,
            corpus: "c".into(),
            corpus_root: "c".into(),
            model_id: "m".into(),
            dimension: 1,
            metric: "cosine".into(),
            chunk_count: 1,
            corpus_fingerprint: String::new(),
            created_at: String::new(),
            chunk_tokens: 256,
            chunk_overlap: 0,
            hnsw_m: 16,
            hnsw_ef_construction: 100,
            files: list_files(g).unwrap(),
            concept_count: 0,
            document_count: 1,
            image_count: 0,
            kg_extraction: deterministic(),
            kg_version: 0,
            kg_sha256: None,
        };
        std::fs::write(g.join(MANIFEST), serde_json::to_string(&manifest).unwrap()).unwrap();
        assert!(verify_generation(g, true).is_ok());
        std::fs::write(g.join("vectors.f32"), "4321").unwrap();
        assert_eq!(verify_generation(g, false).unwrap_err().to_string(), "vectors.f32 does not match its checksum (corrupted or modified)");
        std::fs::write(g.join("vectors.f32"), "12").unwrap();
        assert_eq!(verify_generation(g, false).unwrap_err().to_string(), "vectors.f32 has 2 bytes, the manifest says 4 (truncated or modified)");
        std::fs::remove_file(g.join("vectors.f32")).unwrap();
        assert_eq!(verify_generation(g, false).unwrap_err().to_string(), "vectors.f32 is missing");
        std::fs::write(g.join(MANIFEST), "{").unwrap();
        assert!(verify_generation(g, false).unwrap_err().to_string().contains("manifest.json is not a valid manifest: "));
    }

    #[test]
    fn second_lock_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let cd = CorpusDir::new(tmp.path(), "c");
        let _a = cd.lock().unwrap();
        let err = cd.lock().unwrap_err();
        assert!(err.to_string().contains("another `qa index` is running"), "{err}");
    }
}
