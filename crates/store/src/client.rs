//! The requests to the server. Paths are built from the configured index and fixed endpoints
//! only; writes go only to an index whose `_meta` marks it as qa's ([`IndexState::Ours`]).

use serde_json::{Value, json};

use qa_es::EsError;
use qa_es::remote::{Body, Connection, Method, RemoteConfig};

use crate::flavor::{self, Flavor, StoreMeta};
use crate::{Result, StoreError};

/// The settings a 401 names.
pub const CREDENTIALS: &str = "QA_STORE_API_KEY, or QA_STORE_USERNAME and QA_STORE_PASSWORD";

/// Documents listed per page of a scan (keys only).
pub const KEY_PAGE: usize = 5_000;

/// What the index at the URL is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// No index of that name.
    Missing,
    /// An index qa did not create (or of another layout): never written to.
    NotOurs,
    /// A qa document store for this model.
    Ours(StoreMeta),
}

/// One item of a `_bulk` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemResult {
    /// The document's `_id`.
    pub id: String,
    /// Its HTTP status.
    pub status: u16,
    /// `type: reason` of a failed item.
    pub error: Option<String>,
}

impl ItemResult {
    /// Created, updated or deleted (a delete of a missing document counts: it is gone).
    pub fn ok(&self, delete: bool) -> bool {
        (200..300).contains(&self.status) || (delete && self.status == 404)
    }
}

/// The index of one server. `Debug` hides the credentials.
#[derive(Debug)]
pub struct DocumentStore {
    connection: Connection,
    flavor: Flavor,
}

impl DocumentStore {
    /// Connect: the server's `GET /` tells OpenSearch from Elasticsearch. Nothing is written.
    pub fn connect(config: RemoteConfig) -> Result<DocumentStore> {
        let connection = Connection::new(config, CREDENTIALS)?;
        let info = connection.send(Method::Get, "", None)?;
        Ok(DocumentStore { flavor: Flavor::detect(&info), connection })
    }

    /// The back end's kind.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// The index URL, without credentials.
    pub fn target(&self) -> String {
        self.connection.config().target()
    }

    /// `opensearch https://host:9200/index`: how traces and summaries name the store.
    pub fn describe(&self) -> String {
        format!("{} {}", self.flavor.name(), self.target())
    }

    fn path(&self, endpoint: &str) -> String {
        format!("{}/{endpoint}", self.connection.config().index)
    }

    fn send(&self, method: Method, endpoint: &str, body: Option<Body<'_>>) -> Result<Value> {
        Ok(self.connection.send(method, &self.path(endpoint), body)?)
    }

    /// Whether the index exists and whose it is.
    pub fn state(&self) -> Result<IndexState> {
        match self.send(Method::Get, "_mapping", None) {
            Ok(mapping) => Ok(StoreMeta::from_mapping(&mapping).map_or(IndexState::NotOurs, IndexState::Ours)),
            Err(StoreError::Server(EsError::NoIndex { .. })) => Ok(IndexState::Missing),
            Err(e) => Err(e),
        }
    }

    /// Ready to be written with `meta`'s vectors: created when missing (`true`), refused when it
    /// is not qa's or holds another model's vectors.
    pub fn ensure(&self, meta: &StoreMeta) -> Result<bool> {
        match self.state()? {
            IndexState::Missing => {
                let body = self.flavor.create_body(meta);
                self.send(Method::Put, "", Some(Body::Json(&body))).map(|_| true).or_else(|e| match e {
                    // Created by a concurrent run in the meantime: check it like an existing one.
                    StoreError::Server(EsError::Http { status: 400, ref reason }) if reason.contains("resource_already_exists_exception") => {
                        self.expect(meta).map(|()| false)
                    }
                    e => Err(e),
                })
            }
            _ => self.expect(meta).map(|()| false),
        }
    }

    /// The index exists, is qa's and holds `meta`'s vectors.
    pub fn expect(&self, meta: &StoreMeta) -> Result<()> {
        match self.state()? {
            IndexState::Missing => Err(StoreError::Missing { target: self.target() }),
            IndexState::NotOurs => Err(StoreError::NotOurs { target: self.target() }),
            IndexState::Ours(found) if !found.same_vectors(meta) => Err(StoreError::ModelMismatch { target: self.target(), found: found.describe(), expected: meta.describe() }),
            IndexState::Ours(found) if found.corpus != meta.corpus => Err(StoreError::CorpusMismatch { target: self.target(), found: found.corpus, expected: meta.corpus.clone() }),
            IndexState::Ours(_) => Ok(()),
        }
    }

    /// Send one `_bulk` body (NDJSON lines ending in a newline); each item's outcome in order.
    pub fn bulk(&self, ndjson: &str) -> Result<Vec<ItemResult>> {
        let answer = self.send(Method::Post, "_bulk", Some(Body::Ndjson(ndjson)))?;
        let items = answer.get("items").and_then(Value::as_array).ok_or_else(|| self.protocol("a _bulk answer without `items`"))?;
        items
            .iter()
            .map(|item| {
                let inner = item.as_object().and_then(|o| o.values().next()).ok_or_else(|| self.protocol("an empty _bulk item"))?;
                let id = inner.get("_id").and_then(Value::as_str).unwrap_or_default().to_string();
                let status = inner.get("status").and_then(Value::as_u64).ok_or_else(|| self.protocol("a _bulk item without `status`"))? as u16;
                let error = inner.get("error").map(|e| {
                    let kind = e.get("type").and_then(Value::as_str).unwrap_or("error");
                    let reason = e.get("reason").and_then(Value::as_str).unwrap_or_default();
                    self.connection.scrub(&format!("{kind}: {reason}"))
                });
                Ok(ItemResult { id, status, error })
            })
            .collect()
    }

    /// Make what was written searchable.
    pub fn refresh(&self) -> Result<()> {
        self.send(Method::Post, "_refresh", None).map(|_| ())
    }

    /// Documents in key order after `after`, `size` at most, with `fields` of their source (all
    /// of it when `None`).
    pub fn page(&self, after: Option<&str>, size: usize, fields: Option<&[&str]>) -> Result<Vec<Value>> {
        let mut body = json!({"size": size, "sort": [{"doc_key": "asc"}], "query": {"match_all": {}}, "track_total_hits": false});
        body["_source"] = fields.map_or(json!(true), |f| json!(f));
        if let Some(a) = after {
            body["search_after"] = json!([a]);
        }
        let answer = self.send(Method::Post, "_search", Some(Body::Json(&body)))?;
        Ok(self.hits(&answer)?.iter().filter_map(|h| h.get("_source").cloned()).collect())
    }

    /// Every stored document's key with `fields` of its source, in key order.
    pub fn scan(&self, fields: &[&str]) -> Result<Vec<Value>> {
        let mut all: Vec<Value> = Vec::new();
        loop {
            let after = all.last().and_then(|d| d.get("doc_key")).and_then(Value::as_str).map(str::to_string);
            let page = self.page(after.as_deref(), KEY_PAGE, Some(fields))?;
            let done = page.len() < KEY_PAGE;
            all.extend(page);
            if done {
                return Ok(all);
            }
        }
    }

    /// Keys of the `k` documents nearest to `vector`, nearest first.
    pub fn knn(&self, vector: &[f32], k: usize) -> Result<Vec<String>> {
        let answer = self.send(Method::Post, "_search", Some(Body::Json(&self.flavor.knn_body(vector, k))))?;
        Ok(self.keyed(&answer)?.into_iter().map(|(key, _)| key).collect())
    }

    /// Keys and BM25 scores of the `k` best documents for `question`.
    pub fn lexical(&self, question: &str, k: usize) -> Result<Vec<(String, f32)>> {
        let answer = self.send(Method::Post, "_search", Some(Body::Json(&flavor::lexical_body(question, k))))?;
        self.keyed(&answer)
    }

    fn hits<'a>(&self, answer: &'a Value) -> Result<&'a Vec<Value>> {
        answer.pointer("/hits/hits").and_then(Value::as_array).ok_or_else(|| self.protocol("a _search answer without `hits.hits`"))
    }

    fn keyed(&self, answer: &Value) -> Result<Vec<(String, f32)>> {
        Ok(self
            .hits(answer)?
            .iter()
            .filter_map(|h| {
                let key = h.pointer("/_source/doc_key").or_else(|| h.get("_id")).and_then(Value::as_str)?;
                Some((key.to_string(), h.get("_score").and_then(Value::as_f64).unwrap_or(0.0) as f32))
            })
            .collect())
    }

    fn protocol(&self, reason: &str) -> StoreError {
        StoreError::Protocol { target: self.target(), reason: reason.to_string() }
    }
}
