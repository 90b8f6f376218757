//! Dense vector index: an HNSW graph (hnsw_rs) over unit vectors with cosine distance, persisted
//! next to the raw vectors. `ExactIndex` (brute force) is the second implementation: the ground
//! truth for recall measurements and the fallback a user can choose for tiny corpora.

use std::io::{Read, Write};
use std::path::Path;

use hnsw_rs::prelude::{AnnT, Distance, Hnsw, HnswIo};

use qa_embed::dot;
use qa_core::error::{IoContext, QaError, Result};

/// Nearest-neighbour search over the chunk vectors. Ids are row numbers in the id map.
pub trait VectorIndex: Send + Sync {
    /// Up to `k` (row, cosine similarity) pairs, most similar first.
    fn search(&self, query: &[f32], k: usize) -> Vec<(usize, f32)>;
    /// Number of indexed vectors.
    fn len(&self) -> usize;
    /// Whether no vector is indexed.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Cosine distance for unit vectors: `1 - a·b`, clamped at 0 against rounding. (anndists'
/// `DistDot` asserts `a·b <= 1`, which rounding can break for unit vectors.)
#[derive(Default, Clone, Copy)]
pub struct UnitCosine;

impl Distance<f32> for UnitCosine {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (1.0 - dot(a, b)).max(0.0)
    }
}

/// Base name of the HNSW dump files (`hnsw.hnsw.graph`, `hnsw.hnsw.data`).
const HNSW_BASENAME: &str = "hnsw";

/// HNSW tuning: graph degree and the candidate list sizes that trade speed for recall.
#[derive(Debug, Clone, Copy)]
pub struct HnswParams {
    /// Links per node.
    pub m: usize,
    /// Candidate list size while building (higher: better graph, slower build).
    pub ef_construction: usize,
    /// Candidate list size while searching, raised to `k` when smaller (higher: better recall,
    /// slower search).
    pub ef_search: usize,
}

/// Why an HNSW dump could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum HnswLoadError {
    /// hnsw_rs reported an error (missing or unreadable files).
    #[error("{0}")]
    Load(String),
    /// hnsw_rs panicked on malformed input.
    #[error("the HNSW files are malformed ({0})")]
    Malformed(qa_core::error::Panic),
}

/// Insert points one after another. hnsw_rs draws each point's layer from a seeded generator in
/// insertion order, so a serial insert makes the same graph every time: the same corpus gives the
/// same answers after every `qa index`. Its parallel insert gave a different graph on each build,
/// and an answer could flip between two builds of one corpus (one Cargo-book question in session
/// 20); the graph costs about 2% of indexing time next to the embedding, so determinism is cheap.
fn insert_in_order<'v>(hnsw: &Hnsw<'static, f32, UnitCosine>, points: impl Iterator<Item = (&'v Vec<f32>, usize)>) {
    for (v, id) in points {
        hnsw.insert((v.as_slice(), id));
    }
}

/// The approximate index: an HNSW graph searched with a fixed `ef_search`.
///
/// A graph built from scratch has point i = chunk row i. A graph updated in place
/// ([`HnswIndex::update`]) keeps its points: `rows` maps each point to its chunk row, or to
/// [`DELETED`] for a chunk that no longer exists (hnsw_rs cannot remove points: they stay in the
/// graph as waypoints and are filtered from results), and the map is saved as [`ROWS_FILE`].
pub struct HnswIndex {
    hnsw: Hnsw<'static, f32, UnitCosine>,
    ef_search: usize,
    rows: Option<Vec<u32>>,
    live: usize,
}

/// The point → chunk row map of a graph updated in place (u32 little-endian per point).
pub const ROWS_FILE: &str = "hnsw_rows.bin";
/// A point whose chunk was removed.
pub const DELETED: u32 = u32::MAX;

/// Limits of an update in place; beyond them the caller rebuilds. Deleted points cost search
/// work and, in numbers, recall, so they may be at most a tenth of the graph; inserted points
/// are as good as built ones, but past a quarter of the graph a fresh build is as cheap.
const MAX_DELETED_SHARE: f64 = 0.10;
const MAX_INSERTED_SHARE: f64 = 0.25;

impl HnswIndex {
    /// Build over `vectors` (row i gets id i), one point after another ([`insert_in_order`]).
    pub fn build(vectors: &[Vec<f32>], params: HnswParams) -> HnswIndex {
        let n = vectors.len().max(1);
        let hnsw = Hnsw::<f32, UnitCosine>::new(params.m, n, 16, params.ef_construction, UnitCosine);
        insert_in_order(&hnsw, vectors.iter().enumerate().map(|(i, v)| (v, i)));
        let mut hnsw = hnsw;
        hnsw.set_searching_mode(true);
        HnswIndex { hnsw, ef_search: params.ef_search, rows: None, live: vectors.len() }
    }

    /// The graph for a new list of chunks, made from this one when the change is small:
    /// `old_to_new[r]` is the new row of the chunk at old row r (None: removed); `vectors` are
    /// the new rows' vectors, and the rows no old row maps to are inserted. None when the change
    /// is beyond the limits above (the caller builds from scratch).
    pub fn update(mut self, old_to_new: &[Option<usize>], vectors: &[Vec<f32>]) -> Option<HnswIndex> {
        let points = self.hnsw.get_nb_point();
        let old_rows: Vec<u32> = self.rows.take().unwrap_or_else(|| (0..points as u32).collect());
        if old_rows.len() != points || self.live != old_to_new.len() {
            return None;
        }
        let mut covered = vec![false; vectors.len()];
        let mut rows: Vec<u32> = Vec::with_capacity(points);
        for &old in &old_rows {
            let new = (old != DELETED).then(|| old_to_new.get(old as usize).copied().flatten()).flatten();
            match new {
                Some(r) if r < vectors.len() && !covered[r] => {
                    covered[r] = true;
                    rows.push(r as u32);
                }
                _ => rows.push(DELETED),
            }
        }
        let inserted: Vec<usize> = (0..vectors.len()).filter(|&r| !covered[r]).collect();
        let deleted = rows.iter().filter(|&&r| r == DELETED).count();
        let total = points + inserted.len();
        if deleted as f64 > MAX_DELETED_SHARE * total as f64 || inserted.len() as f64 > MAX_INSERTED_SHARE * vectors.len().max(1) as f64 {
            return None;
        }
        rows.extend(inserted.iter().map(|&r| r as u32));
        self.hnsw.set_searching_mode(false);
        insert_in_order(&self.hnsw, inserted.iter().enumerate().map(|(i, &r)| (&vectors[r], points + i)));
        self.hnsw.set_searching_mode(true);
        Some(HnswIndex { hnsw: self.hnsw, ef_search: self.ef_search, rows: Some(rows), live: vectors.len() })
    }

    /// Points in the graph that stand for no chunk.
    pub fn deleted_points(&self) -> usize {
        self.hnsw.get_nb_point() - self.live
    }

    /// Write `hnsw.hnsw.graph` and `hnsw.hnsw.data` into `dir`, and the row map of an updated
    /// graph.
    pub fn save(&self, dir: &Path) -> Result<()> {
        self.hnsw
            .file_dump(dir, HNSW_BASENAME)
            .map_err(|e| QaError::io("writing HNSW index", dir, std::io::Error::other(e.to_string())))?;
        if let Some(rows) = &self.rows {
            let bytes: Vec<u8> = rows.iter().flat_map(|r| r.to_le_bytes()).collect();
            let path = dir.join(ROWS_FILE);
            std::fs::write(&path, bytes).ctx("writing", &path)?;
        }
        Ok(())
    }

    /// Load a dump. The caller has verified file sizes and checksums against the manifest; the
    /// loader asserts on malformed input, so a panic is still turned into an error here.
    pub fn load(dir: &Path, ef_search: usize) -> std::result::Result<HnswIndex, HnswLoadError> {
        let rows = match std::fs::read(dir.join(ROWS_FILE)) {
            Ok(bytes) if bytes.len() % 4 == 0 => Some(bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect::<Vec<u32>>()),
            Ok(_) => return Err(HnswLoadError::Load(format!("{ROWS_FILE} is not a list of u32"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(HnswLoadError::Load(format!("{ROWS_FILE}: {e}"))),
        };
        let dir = dir.to_path_buf();
        let loaded = qa_core::error::catch_panic(move || {
            // hnsw_rs ties the index's lifetime to its loader; the loader is small and an index is
            // loaded once per process, so it is kept alive for the whole run.
            let io: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new(&dir, HNSW_BASENAME)));
            io.load_hnsw::<f32, UnitCosine>().map_err(|e| e.to_string())
        });
        let mut hnsw = match loaded {
            Ok(Ok(hnsw)) => hnsw,
            Ok(Err(e)) => return Err(HnswLoadError::Load(e)),
            Err(p) => return Err(HnswLoadError::Malformed(p)),
        };
        hnsw.set_searching_mode(true);
        let points = hnsw.get_nb_point();
        let live = match &rows {
            None => points,
            Some(rows) => {
                // Every live row once, and rows 0..live exactly: else the map is not this graph's.
                let live = rows.iter().filter(|&&r| r != DELETED).count();
                let mut seen = vec![false; live];
                let valid = rows.len() == points
                    && rows.iter().filter(|&&r| r != DELETED).all(|&r| (r as usize) < live && !std::mem::replace(&mut seen[r as usize], true));
                if !valid {
                    return Err(HnswLoadError::Load(format!("{ROWS_FILE} does not match the graph's {points} points")));
                }
                live
            }
        };
        Ok(HnswIndex { hnsw, ef_search, rows, live })
    }

    fn search_points(&self, query: &[f32], n: usize) -> Vec<(usize, f32)> {
        self.hnsw.search(query, n, self.ef_search.max(n)).into_iter().map(|p| (p.d_id, 1.0 - p.distance)).collect()
    }
}

impl VectorIndex for HnswIndex {
    fn search(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        if self.live == 0 || k == 0 {
            return Vec::new();
        }
        let mut out = match &self.rows {
            None => self.search_points(query, k),
            Some(rows) => {
                // Ask for a margin of extra points for the deleted ones among the nearest; if
                // the margin was not enough, ask again for as many as could be deleted.
                let deleted = self.deleted_points();
                let map = |hits: Vec<(usize, f32)>| -> Vec<(usize, f32)> {
                    hits.into_iter().filter_map(|(p, s)| rows.get(p).filter(|&&r| r != DELETED).map(|&r| (r as usize, s))).collect()
                };
                let mut live = map(self.search_points(query, k + deleted.min(k.max(16))));
                if live.len() < k.min(self.live) && deleted > k.max(16) {
                    live = map(self.search_points(query, k + deleted));
                }
                live
            }
        };
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }
    fn len(&self) -> usize {
        self.live
    }
}

qa_core::setting_enum! {
    /// Which dense index answers questions (the `vector_index` setting). `qa index` always
    /// builds the HNSW graph, so switching needs no rebuild.
    VectorIndexKind {
        /// The HNSW graph: approximate, fast at any size.
        Hnsw => "hnsw",
        /// A scan of every vector: exact, linear in the corpus.
        Exact => "exact",
    }
}

/// Exact search by scanning every vector: borrowed rows (`&[Vec<f32>]`, for recall
/// measurements) or owned ones (the engine with `vector_index = "exact"`).
pub struct ExactIndex<V: AsRef<[Vec<f32>]> + Send + Sync> {
    /// Unit vectors; row i has id i.
    pub vectors: V,
}

impl<V: AsRef<[Vec<f32>]> + Send + Sync> VectorIndex for ExactIndex<V> {
    fn search(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        let mut scored: Vec<(usize, f32)> = self.vectors.as_ref().iter().enumerate().map(|(i, v)| (i, dot(query, v))).collect();
        let k = k.min(scored.len());
        if k == 0 {
            return Vec::new();
        }
        scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }
    fn len(&self) -> usize {
        self.vectors.as_ref().len()
    }
}

/// Raw vectors file: `QAVEC1\0\0`, u64 rows, u64 dim, then rows*dim little-endian f32.
pub fn write_vectors(path: &Path, vectors: &[Vec<f32>], dim: usize) -> Result<()> {
    let f = std::fs::File::create(path).ctx("creating vectors file", path)?;
    let mut w = std::io::BufWriter::new(f);
    let mut header = Vec::with_capacity(24);
    header.extend_from_slice(b"QAVEC1\0\0");
    header.extend_from_slice(&(vectors.len() as u64).to_le_bytes());
    header.extend_from_slice(&(dim as u64).to_le_bytes());
    w.write_all(&header).ctx("writing vectors file", path)?;
    for v in vectors {
        if v.len() != dim {
            return Err(QaError::Data { path: path.into(), reason: format!("vector of length {} (expected {dim})", v.len()) });
        }
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        w.write_all(&bytes).ctx("writing vectors file", path)?;
    }
    w.into_inner().map_err(|e| QaError::io("writing vectors file", path, e.into_error()))?.sync_all().ctx("syncing", path)?;
    Ok(())
}

/// Read a file written by [`write_vectors`]: the rows and their dimension. A wrong header or
/// length is an error.
pub fn read_vectors(path: &Path) -> Result<(Vec<Vec<f32>>, usize)> {
    let mut bytes = Vec::new();
    std::fs::File::open(path).ctx("opening vectors file", path)?.read_to_end(&mut bytes).ctx("reading vectors file", path)?;
    let bad = |reason: &str| QaError::Data { path: path.into(), reason: reason.into() };
    if bytes.len() < 24 || &bytes[..8] != b"QAVEC1\0\0" {
        return Err(bad("not a qa vectors file"));
    }
    let rows = u64::from_le_bytes(bytes[8..16].try_into().unwrap_or_default()) as usize;
    let dim = u64::from_le_bytes(bytes[16..24].try_into().unwrap_or_default()) as usize;
    if bytes.len() != 24 + rows * dim * 4 {
        return Err(bad("file is truncated or has trailing data"));
    }
    let floats: Vec<f32> = bytes[24..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Ok((floats.chunks(dim.max(1)).map(<[f32]>::to_vec).collect(), dim))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }

    fn random_vectors(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                unit((0..dim)
                    .map(|_| {
                        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((s >> 33) as f32 / (1u64 << 31) as f32) - 0.5
                    })
                    .collect())
            })
            .collect()
    }

    #[test]
    fn hnsw_matches_exact_search_and_survives_a_round_trip() {
        let vectors = random_vectors(500, 32, 7);
        let params = HnswParams { m: 16, ef_construction: 200, ef_search: 128 };
        let index = HnswIndex::build(&vectors, params);
        let exact = ExactIndex { vectors: &vectors };
        let dir = tempfile::tempdir().unwrap();
        index.save(dir.path()).unwrap();
        let loaded = HnswIndex::load(dir.path(), 128).unwrap();
        let (mut hits, mut top1) = (0, 0);
        for q in vectors.iter().take(50) {
            let want: Vec<usize> = exact.search(q, 10).into_iter().map(|(i, _)| i).collect();
            let got: Vec<usize> = loaded.search(q, 10).into_iter().map(|(i, _)| i).collect();
            hits += got.iter().filter(|i| want.contains(i)).count();
            top1 += usize::from(got.first() == want.first());
        }
        assert!(hits as f32 / 500.0 >= 0.95, "recall {}", hits as f32 / 500.0);
        // Approximate search: a rare query can miss its own point; nearly all must find it.
        assert!(top1 >= 48, "top-1 agreed with exact search for {top1}/50 queries");
    }

    /// The same vectors give the same graph, byte for byte, so the same corpus gives the same
    /// answers after every build.
    #[test]
    fn building_twice_gives_the_same_graph() {
        let vectors = random_vectors(400, 16, 5);
        let params = HnswParams { m: 16, ef_construction: 100, ef_search: 64 };
        let files = |dir: &Path| -> Vec<Vec<u8>> {
            HnswIndex::build(&vectors, params).save(dir).unwrap();
            ["hnsw.hnsw.graph", "hnsw.hnsw.data"].iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect()
        };
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        assert!(files(a.path()) == files(b.path()), "two builds of one set of vectors differ");
    }

    /// An update in place: removed chunks never come back, moved rows are found at their new
    /// row, inserted ones are found, recall stays that of a fresh build, and the result survives
    /// a save and load; a change past the limits is refused.
    #[test]
    fn hnsw_updated_in_place_finds_the_new_rows_and_never_the_removed() {
        let params = HnswParams { m: 16, ef_construction: 200, ef_search: 128 };
        let old = random_vectors(600, 32, 11);
        let dir = tempfile::tempdir().unwrap();
        HnswIndex::build(&old, params).save(dir.path()).unwrap();
        // New list: old rows 0..20 removed, the rest shifted down by 20, 30 new vectors at the end.
        let fresh = random_vectors(30, 32, 99);
        let new: Vec<Vec<f32>> = old[20..].iter().cloned().chain(fresh.iter().cloned()).collect();
        let old_to_new: Vec<Option<usize>> = (0..old.len()).map(|r| r.checked_sub(20)).collect();
        let index = HnswIndex::load(dir.path(), 128).unwrap().update(&old_to_new, &new).expect("a small change updates in place");
        assert_eq!((index.len(), index.deleted_points()), (new.len(), 20));
        let out = tempfile::tempdir().unwrap();
        index.save(out.path()).unwrap();
        let loaded = HnswIndex::load(out.path(), 128).unwrap();
        assert_eq!(loaded.len(), new.len());
        let exact = ExactIndex { vectors: &new };
        let (mut hits, mut self_misses) = (0, 0);
        for (row, q) in new.iter().enumerate().step_by(7) {
            let got: Vec<usize> = loaded.search(q, 10).into_iter().map(|(i, _)| i).collect();
            assert_eq!(got.len(), 10);
            assert!(got.iter().all(|&r| r < new.len()), "a deleted point was returned");
            // Approximate search (see the test above): nearly every row finds itself first.
            self_misses += usize::from(got.first() != Some(&row));
            let want: Vec<usize> = exact.search(q, 10).into_iter().map(|(i, _)| i).collect();
            hits += got.iter().filter(|i| want.contains(i)).count();
        }
        let queries = new.len().div_ceil(7);
        assert!(self_misses <= 2, "{self_misses} of {queries} rows did not find themselves first");
        assert!(hits as f32 / (queries * 10) as f32 >= 0.95, "recall {}", hits as f32 / (queries * 10) as f32);
        // Removing a fifth of the chunks is past the limit: the caller rebuilds.
        let most: Vec<Option<usize>> = (0..new.len()).map(|r| r.checked_sub(new.len() / 5)).collect();
        let kept: Vec<Vec<f32>> = new[new.len() / 5..].to_vec();
        assert!(HnswIndex::load(out.path(), 128).unwrap().update(&most, &kept).is_none());
    }

    #[test]
    fn a_row_map_that_does_not_fit_the_graph_is_an_error() {
        let vectors = random_vectors(40, 8, 3);
        let dir = tempfile::tempdir().unwrap();
        HnswIndex::build(&vectors, HnswParams { m: 8, ef_construction: 50, ef_search: 50 }).save(dir.path()).unwrap();
        let twice_zero: Vec<u8> = (0..40u32).map(|r| if r == 1 { 0 } else { r }).flat_map(|r| r.to_le_bytes()).collect();
        std::fs::write(dir.path().join(ROWS_FILE), twice_zero).unwrap();
        let err = HnswIndex::load(dir.path(), 50).err().expect("a row listed twice must be refused");
        assert!(err.to_string().contains("does not match"), "{err}");
        std::fs::write(dir.path().join(ROWS_FILE), [1u8, 2, 3]).unwrap();
        assert!(HnswIndex::load(dir.path(), 50).is_err());
    }

    #[test]
    fn vectors_file_round_trip_and_truncation_is_detected() {
        let vectors = random_vectors(10, 8, 1);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v.f32");
        write_vectors(&p, &vectors, 8).unwrap();
        let (back, dim) = read_vectors(&p).unwrap();
        assert_eq!(dim, 8);
        assert_eq!(back, vectors);
        let len = std::fs::metadata(&p).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(len - 3).unwrap();
        assert!(read_vectors(&p).unwrap_err().to_string().contains("truncated"));
    }

    #[test]
    fn loading_garbage_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hnsw.hnsw.graph"), b"garbage").unwrap();
        std::fs::write(dir.path().join("hnsw.hnsw.data"), b"garbage").unwrap();
        assert!(HnswIndex::load(dir.path(), 10).is_err());
    }
}
