//! The server brought to the generation's chunks. The server is the record of what is stored:
//! its keys are listed first, only the chunks it lacks are sent, and its orphans (chunks of
//! removed, edited or shortened files) are deleted. A run that stopped half-way leaves a
//! partial but valid index; the next run lists the keys again and sends the rest.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use qa_core::chunk::Chunk;
use qa_core::progress::Progress;

use crate::client::{DocumentStore, ItemResult};
use crate::doc::{StoredChunk, doc_key};
use crate::flavor::StoreMeta;
use crate::{Result, StoreError};

/// Largest `_bulk` body, in bytes: well under the servers' default `http.max_content_length`
/// (100 MB) and small enough that one rejected request costs little.
pub const DEFAULT_BATCH_BYTES: usize = 4 * 1024 * 1024;
/// Times an item the server rejected as overloaded (429, 503) is sent again.
pub const ITEM_RETRIES: u32 = 4;
/// First wait before items are sent again, doubled each time.
pub const ITEM_BACKOFF_MS: u64 = 200;

/// How [`sync`] sends.
#[derive(Debug, Clone, Copy)]
pub struct SyncOptions {
    /// Largest `_bulk` body in bytes.
    pub batch_bytes: usize,
    /// Retries of overloaded items.
    pub item_retries: u32,
    /// First back-off between them, in milliseconds.
    pub item_backoff_ms: u64,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions { batch_bytes: DEFAULT_BATCH_BYTES, item_retries: ITEM_RETRIES, item_backoff_ms: ITEM_BACKOFF_MS }
    }
}

/// What a sync did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// The store (`opensearch URL`), without credentials.
    pub store: String,
    /// The index was created by this run.
    pub created: bool,
    /// Chunks of the generation.
    pub chunks: usize,
    /// Chunks the server already had (same key).
    pub kept: usize,
    /// Chunks sent and acknowledged.
    pub sent: usize,
    /// Orphans deleted.
    pub deleted: usize,
    /// `_bulk` requests made.
    pub requests: usize,
    /// Items sent again after the server rejected them as overloaded.
    pub retried_items: usize,
    /// Bytes of `_bulk` bodies.
    pub bytes: usize,
    /// Time of the whole sync.
    pub ms: f64,
}

/// One bulk operation.
enum Op {
    /// Write a document under its key.
    Index(String, String),
    /// Delete a key.
    Delete(String),
}

impl Op {
    fn key(&self) -> &str {
        match self {
            Op::Index(k, _) | Op::Delete(k) => k,
        }
    }

    fn lines(&self) -> String {
        match self {
            Op::Index(key, source) => format!("{}\n{source}\n", json!({"index": {"_id": key}})),
            Op::Delete(key) => format!("{}\n", json!({"delete": {"_id": key}})),
        }
    }
}

/// Sends operations in byte-sized batches and checks every item.
struct BulkWriter<'a> {
    store: &'a DocumentStore,
    options: SyncOptions,
    report: &'a mut SyncReport,
    failed: Vec<(String, u16, String)>,
}

impl BulkWriter<'_> {
    /// Send `ops`; overloaded items are retried, other failures kept in `failed`. Returns how
    /// many items succeeded. `progress` advances by one per settled item.
    fn run(&mut self, ops: Vec<Op>, progress: &dyn Progress) -> Result<usize> {
        let mut pending = ops;
        let mut ok = 0;
        for attempt in 0..=self.options.item_retries {
            if pending.is_empty() {
                break;
            }
            if attempt > 0 {
                self.report.retried_items += pending.len();
                std::thread::sleep(Duration::from_millis(self.options.item_backoff_ms.saturating_mul(1 << (attempt - 1).min(10))));
            }
            let last = attempt == self.options.item_retries;
            let mut again = Vec::new();
            for batch in batches(pending, self.options.batch_bytes) {
                let body: String = batch.iter().map(Op::lines).collect();
                self.report.requests += 1;
                self.report.bytes += body.len();
                let items = self.store.bulk(&body)?;
                if items.len() != batch.len() {
                    return Err(StoreError::Protocol { target: self.store.target(), reason: format!("_bulk answered {} items for {} operations", items.len(), batch.len()) });
                }
                for (op, item) in batch.into_iter().zip(items) {
                    let delete = matches!(op, Op::Delete(_));
                    if item.ok(delete) {
                        ok += 1;
                        progress.advance(1);
                    } else if overloaded(&item) && !last {
                        again.push(op);
                    } else {
                        progress.advance(1);
                        self.failed.push((op.key().to_string(), item.status, item.error.unwrap_or_else(|| "no reason given".into())));
                    }
                }
            }
            pending = again;
        }
        Ok(ok)
    }
}

/// An item the server would take later: its queue was full or a shard was unavailable.
fn overloaded(item: &ItemResult) -> bool {
    matches!(item.status, 429 | 503)
}

/// Operations in order, cut so that no body exceeds `max_bytes` (a single larger document
/// still goes alone).
fn batches(ops: Vec<Op>, max_bytes: usize) -> Vec<Vec<Op>> {
    let mut out: Vec<Vec<Op>> = Vec::new();
    let mut size = 0;
    for op in ops {
        let len = op.lines().len();
        if out.last().is_none_or(|b| !b.is_empty() && size + len > max_bytes) {
            out.push(Vec::new());
            size = 0;
        }
        size += len;
        if let Some(b) = out.last_mut() {
            b.push(op);
        }
    }
    out
}

/// The generation a sync reads: chunks in row order with their vectors and their documents'
/// titles.
pub struct Generation<'a> {
    /// The chunks.
    pub chunks: &'a [Chunk],
    /// Their unit vectors, row-major.
    pub vectors: &'a [f32],
    /// The vectors' dimension.
    pub dimension: usize,
    /// The embedding model's id.
    pub model: &'a str,
    /// The corpus's name.
    pub corpus: &'a str,
    /// Document titles by source file.
    pub titles: &'a BTreeMap<String, String>,
}

impl Generation<'_> {
    /// The `_meta` of an index of these vectors.
    pub fn meta(&self) -> StoreMeta {
        StoreMeta { model: self.model.to_string(), dimension: self.dimension, corpus: self.corpus.to_string() }
    }

    fn document(&self, row: usize) -> StoredChunk {
        let c = &self.chunks[row];
        let v = self.vectors.get(row * self.dimension..(row + 1) * self.dimension).unwrap_or_default();
        StoredChunk::new(c, v, self.titles.get(&c.source_file).map_or("", String::as_str))
    }
}

/// Bring the server's index to `generation`: create it if needed, send what it lacks, delete
/// its orphans, refresh. An item the server would not store makes the result
/// [`StoreError::Incomplete`] (after the rest was written, deleted and refreshed).
pub fn sync(store: &DocumentStore, generation: &Generation<'_>, options: SyncOptions, progress: &dyn Progress) -> Result<SyncReport> {
    let t = Instant::now();
    let mut report = SyncReport { store: store.describe(), chunks: generation.chunks.len(), ..Default::default() };
    report.created = store.ensure(&generation.meta())?;
    let stored: HashSet<String> = store.scan(&["doc_key"])?.iter().filter_map(|d| d.get("doc_key")?.as_str().map(str::to_string)).collect();
    let keys: Vec<String> = generation.chunks.iter().map(doc_key).collect();
    let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
    let to_send: Vec<usize> = (0..keys.len()).filter(|&row| !stored.contains(&keys[row])).collect();
    let mut orphans: Vec<&String> = stored.iter().filter(|k| !wanted.contains(k.as_str())).collect();
    orphans.sort();
    report.kept = keys.len() - to_send.len();
    let mut ops: Vec<Op> = Vec::with_capacity(to_send.len() + orphans.len());
    for &row in &to_send {
        let doc = generation.document(row);
        let source = serde_json::to_string(&doc).map_err(|e| StoreError::Protocol { target: store.target(), reason: e.to_string() })?;
        ops.push(Op::Index(keys[row].clone(), source));
    }
    let deletes = orphans.len();
    ops.extend(orphans.into_iter().map(|k| Op::Delete(k.clone())));
    progress.start("store", ops.len() as u64);
    let mut writer = BulkWriter { store, options, report: &mut report, failed: Vec::new() };
    let result = writer.run(ops, progress);
    let failed = std::mem::take(&mut writer.failed);
    progress.finish();
    result?;
    store.refresh()?;
    let deleted_failed = failed.iter().filter(|f| !wanted.contains(f.0.as_str())).count();
    report.deleted = deletes - deleted_failed;
    report.sent = to_send.len() - (failed.len() - deleted_failed);
    report.ms = t.elapsed().as_secs_f64() * 1000.0;
    if failed.is_empty() { Ok(report) } else { Err(StoreError::Incomplete { target: store.target(), sent: to_send.len() + deletes, failed }) }
}

/// Copy every document of `from` into `to` (same keys, vectors as stored: nothing is
/// re-embedded), delete what `to` has beyond them, refresh. Both must hold the same model's
/// vectors; `to` is created when missing.
pub fn copy_all(from: &DocumentStore, to: &DocumentStore, meta: &StoreMeta, options: SyncOptions, progress: &dyn Progress) -> Result<SyncReport> {
    let t = Instant::now();
    let mut report = SyncReport { store: to.describe(), ..Default::default() };
    from.expect(meta)?;
    report.created = to.ensure(meta)?;
    let existing: HashSet<String> = to.scan(&["doc_key"])?.iter().filter_map(|d| d.get("doc_key")?.as_str().map(str::to_string)).collect();
    let mut copied: HashSet<String> = HashSet::new();
    let mut failed = Vec::new();
    let mut after: Option<String> = None;
    progress.start("copy", 0);
    loop {
        // Full documents (vectors included) a page at a time: memory stays bounded.
        let page = from.page(after.as_deref(), 500, None)?;
        let done = page.len() < 500;
        after = page.last().and_then(|d| d.get("doc_key")).and_then(|k| k.as_str()).map(str::to_string);
        let ops: Vec<Op> = page.iter().filter_map(|d| Some(Op::Index(d.get("doc_key")?.as_str()?.to_string(), d.to_string()))).collect();
        report.chunks += ops.len();
        copied.extend(ops.iter().map(|o| o.key().to_string()));
        let mut writer = BulkWriter { store: to, options, report: &mut report, failed: Vec::new() };
        let sent = writer.run(ops, progress)?;
        failed.append(&mut writer.failed);
        report.sent += sent;
        if done {
            break;
        }
    }
    let orphans: Vec<Op> = existing.iter().filter(|k| !copied.contains(*k)).map(|k| Op::Delete(k.clone())).collect();
    let mut writer = BulkWriter { store: to, options, report: &mut report, failed: Vec::new() };
    let deleted = writer.run(orphans, progress)?;
    failed.append(&mut writer.failed);
    report.deleted = deleted;
    progress.finish();
    to.refresh()?;
    report.ms = t.elapsed().as_secs_f64() * 1000.0;
    if failed.is_empty() { Ok(report) } else { Err(StoreError::Incomplete { target: to.target(), sent: report.chunks, failed }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_respect_the_byte_limit_and_keep_order() {
        let ops: Vec<Op> = (0..10).map(|i| Op::Index(format!("k{i}"), "x".repeat(100))).collect();
        let one = ops[0].lines().len();
        let out = batches(ops, one * 3);
        assert_eq!(out.iter().map(Vec::len).collect::<Vec<_>>(), vec![3, 3, 3, 1]);
        assert_eq!(out[1][0].key(), "k3");
        let big = batches(vec![Op::Index("big".into(), "y".repeat(1000)), Op::Delete("d".into())], 10);
        assert_eq!(big.iter().map(Vec::len).collect::<Vec<_>>(), vec![1, 1], "a document larger than the limit goes alone");
        assert!(big[1][0].lines().ends_with('\n'));
    }
}
