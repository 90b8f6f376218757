//! The embedded engine: an Elasticsearch-style index on tantivy under the data folder, no
//! server.
//!
//! Layout: `<data_dir>/es_indexes/<name>/` holds `mapping.json` (Elasticsearch's shape),
//! `meta.json` ([`IndexSummary`]) and `index/` (tantivy). A build writes a temporary sibling
//! folder and switches it in with renames, so an interrupted or failed build leaves the previous
//! index answering (an index left aside between the two renames is put back by [`EmbeddedIndex::open`]).
//!
//! Records that do not fit the mapping (a word in a `long` field, an object where a keyword is
//! expected) fail the build with the record number and field; nothing is skipped silently. Paths
//! the mapping does not have are kept in `_source` and not indexed (Elasticsearch's
//! `dynamic: false`).
//!
//! [`EmbeddedIndex::execute_json`] answers `_search` and `_count` bodies in Elasticsearch's
//! response format (the query DSL subset of [`query`], the aggregations of [`aggs`]); totals
//! are exact (`relation: "eq"`) unless `track_total_hits` asks for less.

mod aggs;
mod columns;
pub(crate) mod dates;
mod filter_aggs;
mod query;
mod schema;
mod search;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Map, Value, json};
use tantivy::query::{AllQuery, Query};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

use crate::engine::{CheckedRequest, Endpoint, SearchEngine};
use crate::{EsError, Mapping};
use schema::Layout;
use search::{SortSpec, SourceFilter};

/// Version of the on-disk layout; an index of another version must be rebuilt.
pub const FORMAT_VERSION: u32 = 1;
/// Folder of the embedded indexes inside the data folder.
pub const INDEXES_DIR: &str = "es_indexes";
/// Default cap on the buckets of one response (changed with [`EmbeddedIndex::set_max_buckets`]).
pub const DEFAULT_MAX_BUCKETS: usize = 10_000;
/// Indexing memory per writer thread.
const WRITER_HEAP_PER_THREAD: usize = 96 * 1024 * 1024;
/// Records between two progress reports.
const PROGRESS_EVERY: usize = 1_000;

/// What `meta.json` records about an index (and what [`EmbeddedIndex::list`] returns).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IndexSummary {
    /// The index name.
    pub name: String,
    /// Number of documents.
    pub docs: u64,
    /// Number of mapped leaf fields.
    pub fields: usize,
    /// When the index was built (RFC 3339, UTC).
    pub created: String,
    /// The file the records came from, when known.
    pub source: Option<String>,
    /// Layout version ([`FORMAT_VERSION`] when built by this version).
    pub format_version: u32,
    /// The index folder (not stored; set when read).
    #[serde(skip)]
    pub dir: PathBuf,
}

/// An opened embedded index.
#[derive(Clone)]
pub struct EmbeddedIndex {
    summary: IndexSummary,
    mapping: Mapping,
    layout: Layout,
    index: Index,
    reader: IndexReader,
    max_buckets: usize,
}

impl std::fmt::Debug for EmbeddedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedIndex").field("name", &self.summary.name).field("docs", &self.summary.docs).field("dir", &self.summary.dir).finish()
    }
}

/// Run `search` on a worker thread and wait at most `ms` milliseconds for its answer.
fn with_deadline(ms: u64, search: impl FnOnce() -> Result<Value, EsError> + Send + 'static) -> Result<Value, EsError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("es-search".into())
        .spawn(move || {
            let _ = tx.send(search());
        })
        .map_err(|e| engine("starting the search", e))?;
    match rx.recv_timeout(std::time::Duration::from_millis(ms)) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(EsError::Engine(format!("the search did not finish within its timeout of {ms} ms: narrow the question or raise es_timeout_ms"))),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(EsError::Engine("the search stopped without an answer".into())),
    }
}

fn engine(what: &str, e: impl std::fmt::Display) -> EsError {
    EsError::Engine(format!("{what}: {e}"))
}

/// Check that `name` is a safe folder name: letters, digits, `_`, `-`, `.`, starting with a
/// letter or digit, at most 100 characters.
fn validate_name(name: &str) -> Result<(), EsError> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(EsError::NoIndex {
            name: name.to_string(),
            hint: "not a valid index name: use letters, digits, '_', '-' and '.', starting with a letter or digit (at most 100 characters)".into(),
        })
    }
}

fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}", std::process::id())
}

fn read_json(path: &Path) -> Result<Value, EsError> {
    let text = std::fs::read_to_string(path).map_err(|e| EsError::io("cannot read", path, e))?;
    serde_json::from_str(&text).map_err(|e| EsError::Json(format!("{}: {e}", path.display())))
}

fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<(), EsError> {
    let bytes = serde_json::to_vec_pretty(v)?;
    qa_core::fsx::write_atomic(path, &bytes).map_err(|e| EsError::Engine(e.to_string()))
}

impl EmbeddedIndex {
    /// Build index `name` from `records` under `data_dir`, replacing an index of that name only
    /// once the new one is complete.
    pub fn create(
        data_dir: &Path,
        name: &str,
        records: &[Map<String, Value>],
        mapping: &Mapping,
        progress: &dyn qa_core::progress::Progress,
    ) -> Result<IndexSummary, EsError> {
        Self::create_with_source(data_dir, name, records, mapping, None, progress)
    }

    /// [`EmbeddedIndex::create`], recording the file the records came from in `meta.json`.
    pub fn create_with_source(
        data_dir: &Path,
        name: &str,
        records: &[Map<String, Value>],
        mapping: &Mapping,
        source: Option<&Path>,
        progress: &dyn qa_core::progress::Progress,
    ) -> Result<IndexSummary, EsError> {
        validate_name(name)?;
        let root = data_dir.join(INDEXES_DIR);
        std::fs::create_dir_all(&root).map_err(|e| EsError::io("cannot create", &root, e))?;
        let building = root.join(format!(".{name}.building-{}", unique_suffix()));
        let built = build_into(&building, name, records, mapping, source, progress);
        let summary = match built {
            Ok(s) => s,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&building);
                return Err(e);
            }
        };
        let target = root.join(name);
        let aside = root.join(format!(".{name}.old-{}", unique_suffix()));
        if target.exists() {
            std::fs::rename(&target, &aside).map_err(|e| EsError::io("cannot move aside", &target, e))?;
        }
        if let Err(e) = std::fs::rename(&building, &target) {
            let _ = std::fs::rename(&aside, &target);
            let _ = std::fs::remove_dir_all(&building);
            return Err(EsError::io("cannot switch in", &target, e));
        }
        let _ = std::fs::remove_dir_all(&aside);
        Ok(IndexSummary { dir: target, ..summary })
    }

    /// Open index `name` under `data_dir`.
    pub fn open(data_dir: &Path, name: &str) -> Result<EmbeddedIndex, EsError> {
        validate_name(name)?;
        let root = data_dir.join(INDEXES_DIR);
        let dir = root.join(name);
        if !dir.join("meta.json").exists() {
            recover_aside(&root, name);
        }
        if !dir.join("meta.json").exists() {
            return Err(EsError::NoIndex {
                name: name.to_string(),
                hint: format!("no embedded index of that name in {}; create it with `qa es index FILE --name {name}`", root.display()),
            });
        }
        let mut summary: IndexSummary = serde_json::from_value(read_json(&dir.join("meta.json"))?)?;
        if summary.format_version != FORMAT_VERSION {
            return Err(EsError::Engine(format!(
                "index {name:?} has layout version {} and this qa reads version {FORMAT_VERSION}: rebuild it with `qa es index FILE --name {name}`",
                summary.format_version
            )));
        }
        summary.dir = dir.clone();
        let mapping = Mapping::from_es_json(name, &read_json(&dir.join("mapping.json"))?)?;
        let (schema, layout) = Layout::build(&mapping);
        let index = Index::open_in_dir(dir.join("index")).map_err(|e| engine("cannot open the index", e))?;
        if index.schema() != schema {
            return Err(EsError::Engine(format!("index {name:?}: mapping.json does not match the index: rebuild it with `qa es index FILE --name {name}`")));
        }
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| engine("cannot read the index", e))?;
        Ok(EmbeddedIndex { summary, mapping, layout, index, reader, max_buckets: DEFAULT_MAX_BUCKETS })
    }

    /// Every embedded index under `data_dir`, by name (folders without a readable `meta.json`
    /// are left out).
    pub fn list(data_dir: &Path) -> Result<Vec<IndexSummary>, EsError> {
        let root = data_dir.join(INDEXES_DIR);
        let entries = match std::fs::read_dir(&root) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(EsError::io("cannot list", &root, e)),
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let dir = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            let Ok(Ok(mut s)) = read_json(&dir.join("meta.json")).map(serde_json::from_value::<IndexSummary>) else {
                continue;
            };
            if !hidden {
                s.dir = dir;
                out.push(s);
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// What `meta.json` says about this index.
    pub fn summary(&self) -> &IndexSummary {
        &self.summary
    }

    /// Cap the buckets of one response (default 10,000); past it an aggregation is an error.
    pub fn set_max_buckets(&mut self, max_buckets: usize) {
        self.max_buckets = max_buckets;
    }

    /// Answer a `_search` or `_count` body, as a server would, in Elasticsearch's response
    /// format. Date math (`now-30d`) is relative to the current time.
    pub fn execute_json(&self, endpoint: Endpoint, body: &Value) -> Result<Value, EsError> {
        self.execute_json_at(endpoint, body, chrono::Utc::now())
    }

    /// [`EmbeddedIndex::execute_json`] with `now` fixed (reproducible date math).
    pub fn execute_json_at(&self, endpoint: Endpoint, body: &Value, now: chrono::DateTime<chrono::Utc>) -> Result<Value, EsError> {
        let started = Instant::now();
        let empty = Map::new();
        let body = match body {
            Value::Object(o) => o,
            Value::Null => &empty,
            other => {
                return Err(EsError::Json(format!("a request body must be an object, got {}", qa_core::text::truncate(&other.to_string(), 60))));
            }
        };
        let searcher = self.reader.searcher();
        let qctx = query::QueryCtx { layout: &self.layout, index: &self.index, now_ms: now.timestamp_millis() };
        let query: Box<dyn Query> = match body.get("query") {
            Some(q) => query::build(&qctx, q)?,
            None => Box::new(AllQuery),
        };
        let shards = json!({"total": 1, "successful": 1, "skipped": 0, "failed": 0});
        match endpoint {
            Endpoint::Count => {
                if let Some(k) = body.keys().find(|k| k.as_str() != "query") {
                    return Err(EsError::Unsupported(format!("_count request key {k:?}")));
                }
                let n = query.count(&searcher).map_err(|e| engine("count", e))?;
                Ok(json!({"count": n, "_shards": shards}))
            }
            Endpoint::Search => {
                let mut out = self.search(&searcher, body, query.as_ref(), now.timestamp_millis())?;
                out.insert("took".into(), json!(started.elapsed().as_millis() as u64));
                out.insert("timed_out".into(), json!(false));
                out.insert("_shards".into(), shards);
                Ok(Value::Object(out))
            }
        }
    }

    fn search(&self, searcher: &tantivy::Searcher, body: &Map<String, Value>, query: &dyn Query, now_ms: i64) -> Result<Map<String, Value>, EsError> {
        const KEYS: [&str; 15] = [
            "query",
            "size",
            "from",
            "sort",
            "search_after",
            "_source",
            "track_total_hits",
            "timeout",
            "aggs",
            "aggregations",
            "track_scores",
            "min_score",
            "post_filter",
            "stored_fields",
            "docvalue_fields",
        ];
        if let Some(k) = body.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(EsError::Unsupported(format!("search request key {k:?}")));
        }
        let count_of = |k: &str, default: usize| -> Result<usize, EsError> {
            match body.get(k) {
                None | Some(Value::Null) => Ok(default),
                Some(v) => v.as_u64().map(|n| n as usize).ok_or_else(|| EsError::Json(format!("{k} must be a non-negative integer, got {v}"))),
            }
        };
        let size = count_of("size", 10)?;
        let from = count_of("from", 0)?;
        let sort = SortSpec::parse(searcher, &self.layout, body.get("sort"))?;
        let track_scores = body.get("track_scores").and_then(Value::as_bool).unwrap_or(false);
        let min_score = body.get("min_score").and_then(Value::as_f64);
        let aggs_body = body.get("aggs").or_else(|| body.get("aggregations"));
        // top_hits ranks bucket documents by score, min_score filters on it.
        let aggs_need_scores = aggs_body.is_some_and(|a| a.to_string().contains("\"top_hits\""));
        let scoring = (size > 0 && (sort.needs_scores() || track_scores)) || min_score.is_some() || aggs_need_scores;
        // `stored_fields` without `_source`: hits without their source, as in Elasticsearch.
        let source_filter = match (body.get("_source"), body.get("stored_fields")) {
            (None, Some(_)) => SourceFilter::parse(Some(&Value::Bool(false)))?,
            (src, _) => SourceFilter::parse(src)?,
        };
        let docvalues = search::docvalue_fields(searcher, &self.layout, body.get("docvalue_fields"))?;
        let after = match body.get("search_after") {
            Some(v) if from > 0 => {
                return Err(EsError::Json(format!("from must be 0 when search_after is used (got {from}, after {v})")));
            }
            Some(v) => Some(sort.after_values(v)?),
            None => None,
        };
        let mut matches = search::collect(searcher, query, scoring)?;
        if let Some(min) = min_score {
            matches.retain(|m| f64::from(m.score) >= min);
        }
        // post_filter narrows the hits, not the aggregations.
        let hit_matches = match body.get("post_filter") {
            Some(pf) => {
                let qctx = query::QueryCtx { layout: &self.layout, index: &self.index, now_ms };
                let keep: std::collections::HashSet<(u32, u32)> =
                    search::collect(searcher, query::build(&qctx, pf)?.as_ref(), false)?.into_iter().map(|m| (m.seg, m.doc)).collect();
                matches.iter().filter(|m| keep.contains(&(m.seg, m.doc))).copied().collect()
            }
            None => matches.clone(),
        };
        let total = hit_matches.len();
        let page = search::page(&sort, &hit_matches, after.as_deref(), from, size)?;
        let show_scores = scoring && (!sort.explicit || track_scores || sort.needs_scores());
        let style =
            search::HitStyle { index: &self.summary.name, scores: show_scores, sort_values: sort.explicit, source: &source_filter, docvalues: &docvalues };
        let hits = search::hits_json(searcher, &self.layout, page, &style)?;
        let max_score = if show_scores { hit_matches.iter().map(|m| m.score).reduce(f32::max).map_or(Value::Null, |s| json!(s)) } else { Value::Null };
        let mut hits_obj = Map::new();
        match body.get("track_total_hits") {
            Some(Value::Bool(false)) => {}
            Some(Value::Number(n)) if n.as_u64().is_some_and(|cap| (total as u64) > cap) => {
                hits_obj.insert("total".into(), json!({"value": n, "relation": "gte"}));
            }
            _ => {
                hits_obj.insert("total".into(), json!({"value": total, "relation": "eq"}));
            }
        }
        hits_obj.insert("max_score".into(), max_score);
        hits_obj.insert("hits".into(), Value::Array(hits));
        let mut out = Map::new();
        out.insert("hits".into(), Value::Object(hits_obj));
        if let Some(a) = aggs_body {
            let ctx = aggs::AggCtx {
                searcher,
                layout: &self.layout,
                index: &self.index,
                index_name: &self.summary.name,
                now_ms,
                max_buckets: self.max_buckets,
                buckets: std::cell::Cell::new(0),
            };
            out.insert("aggregations".into(), aggs::run(&ctx, &matches, a)?);
        }
        Ok(out)
    }
}

/// Put back an index moved aside by a build interrupted between its two renames.
fn recover_aside(root: &Path, name: &str) {
    let prefix = format!(".{name}.old-");
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut aside: Vec<PathBuf> = entries.flatten().filter(|e| e.file_name().to_string_lossy().starts_with(&prefix)).map(|e| e.path()).collect();
    aside.sort();
    if let Some(latest) = aside.pop()
        && latest.join("meta.json").exists()
    {
        let _ = std::fs::rename(latest, root.join(name));
    }
}

/// Write the whole index into `dir` (which must not exist).
fn build_into(
    dir: &Path,
    name: &str,
    records: &[Map<String, Value>],
    mapping: &Mapping,
    source: Option<&Path>,
    progress: &dyn qa_core::progress::Progress,
) -> Result<IndexSummary, EsError> {
    let index_dir = dir.join("index");
    std::fs::create_dir_all(&index_dir).map_err(|e| EsError::io("cannot create", &index_dir, e))?;
    let (schema, layout) = Layout::build(mapping);
    let index = Index::create_in_dir(&index_dir, schema).map_err(|e| engine("cannot create the index", e))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let mut writer =
        index.writer_with_num_threads::<TantivyDocument>(threads, threads * WRITER_HEAP_PER_THREAD).map_err(|e| engine("cannot open the index writer", e))?;
    progress.start(&format!("indexing {name}"), records.len() as u64);
    for (i, rec) in records.iter().enumerate() {
        let doc = layout.document(rec, i as u64)?;
        writer.add_document(doc).map_err(|e| engine("cannot add a document", e))?;
        if (i + 1) % PROGRESS_EVERY == 0 {
            progress.advance(PROGRESS_EVERY as u64);
        }
    }
    progress.advance((records.len() % PROGRESS_EVERY) as u64);
    writer.commit().map_err(|e| engine("cannot commit the index", e))?;
    writer.wait_merging_threads().map_err(|e| engine("cannot finish the index", e))?;
    progress.finish();
    let summary = IndexSummary {
        name: name.to_string(),
        docs: records.len() as u64,
        fields: mapping.fields.len(),
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        source: source.map(|p| p.display().to_string()),
        format_version: FORMAT_VERSION,
        dir: dir.to_path_buf(),
    };
    let mut es_mapping = mapping.to_es_json();
    if let Some(m) = es_mapping.get_mut("mappings").and_then(Value::as_object_mut) {
        // Paths outside the mapping stay in `_source` without being indexed.
        m.insert("dynamic".into(), json!(false));
    }
    write_json(&dir.join("mapping.json"), &es_mapping)?;
    write_json(&dir.join("meta.json"), &summary)?;
    Ok(summary)
}

impl SearchEngine for EmbeddedIndex {
    fn index(&self) -> &str {
        &self.summary.name
    }

    fn target(&self) -> String {
        format!("embedded:{}", self.summary.dir.display())
    }

    fn mapping(&self) -> Result<Mapping, EsError> {
        Ok(self.mapping.clone())
    }

    fn run(&self, request: &CheckedRequest) -> Result<Value, EsError> {
        // The body's `timeout` (the guard sets one on every search) is a deadline here: the
        // search runs on a worker thread and the caller stops waiting when it passes. Tantivy
        // cannot be interrupted, so the worker finishes in the background; the answer is an
        // error rather than Elasticsearch's partial `timed_out: true` result.
        let Some(ms) = request.body().get("timeout").and_then(Value::as_str).and_then(crate::guard::fields::time_value_ms) else {
            return self.execute_json(request.endpoint(), request.body());
        };
        let (index, endpoint, body) = (self.clone(), request.endpoint(), request.body().clone());
        with_deadline(ms, move || index.execute_json(endpoint, &body))
    }
}
