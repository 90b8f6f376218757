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
use sha2::{Digest, Sha256};

use qa_core::error::{IoContext, QaError, Result};

/// Version 2 added the lexical index, the entity graph and document titles.
pub const FORMAT_VERSION: u32 = 2;
pub const MANIFEST: &str = "manifest.json";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileEntry {
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub corpus: String,
    /// The corpus root as given to `qa index` (used in rebuild hints).
    pub corpus_root: String,
    pub model_id: String,
    pub dimension: usize,
    pub metric: String,
    pub chunk_count: usize,
    /// sha256 over the sorted (chunk id, content sha256) pairs.
    pub corpus_fingerprint: String,
    pub created_at: String,
    pub chunk_tokens: usize,
    pub chunk_overlap: usize,
    pub hnsw_m: usize,
    pub hnsw_ef_construction: usize,
    pub files: BTreeMap<String, FileEntry>,
    pub concept_count: usize,
    pub document_count: usize,
    pub image_count: usize,
    /// `deterministic`, or `llm:<model>` for `qa index --extract llm`.
    #[serde(default = "deterministic")]
    pub kg_extraction: String,
    /// Version of the extraction rules: a `qa` with other rules rebuilds the graph (embeddings are
    /// reused) instead of calling the index up to date.
    #[serde(default)]
    pub kg_version: u32,
}

fn deterministic() -> String {
    "deterministic".into()
}

pub fn file_entry(path: &Path) -> Result<FileEntry> {
    let mut f = File::open(path).ctx("opening", path)?;
    let mut hasher = Sha256::new();
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
    let sha256 = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(FileEntry { bytes, sha256 })
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

#[derive(Debug, Clone)]
pub struct CorpusDir {
    pub name: String,
    pub dir: PathBuf,
}

impl CorpusDir {
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

/// Read and check a generation's manifest and files. Sizes are always checked; checksums for
/// the files whose loaders trust their input (HNSW dumps, vectors).
pub fn verify_generation(gen_dir: &Path, deep: bool) -> std::result::Result<Manifest, String> {
    let path = gen_dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| format!("{} is not a valid manifest: {e}", path.display()))?;
    if manifest.format_version != FORMAT_VERSION {
        return Err(format!(
            "index format version {} (this qa reads version {FORMAT_VERSION})",
            manifest.format_version
        ));
    }
    for (name, want) in &manifest.files {
        let p = gen_dir.join(name);
        let meta = std::fs::metadata(&p).map_err(|_| format!("{name} is missing"))?;
        if name.ends_with(".db") {
            // SQLite may rewrite header bytes when a reader opens it in WAL mode; its own
            // integrity checks apply.
            continue;
        }
        if meta.len() != want.bytes {
            return Err(format!("{name} has {} bytes, the manifest says {} (truncated or modified)", meta.len(), want.bytes));
        }
        let must_hash = deep || name.starts_with("hnsw") || name.ends_with(".f32") || name.ends_with(".bin");
        if must_hash {
            let got = file_entry(&p).map_err(|e| e.to_string())?;
            if got.sha256 != want.sha256 {
                return Err(format!("{name} does not match its checksum (corrupted or modified)"));
            }
        }
    }
    Ok(manifest)
}

/// Corpora with a live generation, with their manifests (unreadable ones are listed with an error).
pub fn list_corpora(vector_dir: &Path) -> Vec<(CorpusDir, std::result::Result<Manifest, String>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(vector_dir) else { return out };
    for e in entries.flatten() {
        if !e.path().is_dir() {
            continue;
        }
        let cd = CorpusDir { name: e.file_name().to_string_lossy().into_owned(), dir: e.path() };
        if let Some(gen_dir) = cd.current() {
            let m = std::fs::read_to_string(gen_dir.join(MANIFEST))
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<Manifest>(&t).map_err(|e| e.to_string()));
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
    fn second_lock_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let cd = CorpusDir::new(tmp.path(), "c");
        let _a = cd.lock().unwrap();
        let err = cd.lock().unwrap_err();
        assert!(err.to_string().contains("another `qa index` is running"), "{err}");
    }
}
