//! A test double of an OpenSearch or Elasticsearch server holding a *document store* (the chunks,
//! their text, metadata and embeddings that qa's `--store` writes and searches), on loopback and on
//! [`super::http_server`]. One server holds any number of indices, each created by `PUT /{index}`.
//!
//! It speaks `GET /` (the [`Flavor`]'s cluster info); `PUT`, `GET`, `HEAD`, `DELETE /{index}`;
//! `GET /{index}/_mapping`; `POST|PUT /_bulk` and `/{index}/_bulk` (NDJSON `index`, `create`,
//! `delete`); `/{index}/_refresh`, `_search`, `_count` (GET or POST); `POST /{index}/_delete_by_query`.
//! Index creation is checked as the real servers check the vector field (`knn_vector` with
//! `index.knn` on OpenSearch, `dense_vector` on Elasticsearch), bulk items too (dimensions, unit
//! length for `dot_product`, zero vectors for cosine, `dynamic: strict`). Writes are searchable
//! only after a refresh, as on the real servers, so a client that forgets to refresh misses them.
//!
//! Search: exact kNN in the flavor's syntax (top-level `knn` and the `knn` query on Elasticsearch,
//! only the `knn` query on OpenSearch), scored by each similarity's documented formula, optionally
//! pre-filtered; `match`/`multi_match` (best_fields) by Lucene's BM25 (k1 1.2, b 0.75); `match_all`,
//! `term`, `terms`; top-level `knn` plus `query` sums both scores (Elasticsearch's hybrid); `size`,
//! `from`, `sort`, `search_after`, `_source` filtering, `min_score`. Errors have the servers' shapes.
//! Tests can make it fail the next requests or given bulk items, delay an answer, demand
//! credentials, read its request log, and read or seed indices directly.
//!
//! It does NOT verify: ANN recall (search is exact) or score scales beyond those formulas (nmslib's,
//! Lucene's lossy length norms); analyzers (text is lower-cased alphanumeric tokens: no stemming,
//! stop words, synonyms; analyzer names are not checked); refresh timing (nothing refreshes by
//! itself); dynamic mapping updates; types of non-vector fields; `bool` queries, `update` actions,
//! aliases, scripts, kNN `similarity` thresholds; licences, TLS, security roles, shards, replicas,
//! circuit breakers and other cluster limits.

#![allow(dead_code)]

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::es_server::{Logged, RequiredAuth, es_error};
use super::http_server::{HttpServer, Request, Response, Stop};

/// Which server it plays: cluster info, the vector field type, the kNN syntax, error type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor { OpenSearch, Elasticsearch }

/// A vector field's similarity, scored as both servers document: `Cosine` (ES `cosine`, OpenSearch
/// `cosinesimil`, Lucene and Faiss) (1 + cos) / 2; `DotProduct` (ES, unit vectors only) (1 + dot) / 2;
/// `MaxInnerProduct` (ES `max_inner_product`, OpenSearch `innerproduct`) dot + 1, or 1 / (1 − dot)
/// below 0; `L2` (ES `l2_norm`, OpenSearch `l2`) 1 / (1 + d²).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Similarity { Cosine, DotProduct, MaxInnerProduct, L2 }

impl Similarity {
    fn score(self, a: &[f64], b: &[f64]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        match self {
            Similarity::Cosine => (1.0 + dot / (norm(a) * norm(b))) / 2.0,
            Similarity::DotProduct => (1.0 + dot) / 2.0,
            Similarity::MaxInnerProduct => if dot < 0.0 { 1.0 / (1.0 - dot) } else { dot + 1.0 },
            Similarity::L2 => 1.0 / (1.0 + a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>()),
        }
    }
}

fn norm(v: &[f64]) -> f64 { v.iter().map(|x| x * x).sum::<f64>().sqrt() }

struct Index {
    /// `mappings` as sent at creation (with `_meta`), returned as is by `_mapping`.
    settings: Value, mappings: Value,
    vector_field: String, dims: usize, similarity: Similarity,
    /// Every write at once: `created`/`updated`/`not_found` are decided on it, as the servers
    /// decide on the latest write (real-time), not on what searches see.
    live: BTreeMap<String, Value>,
    /// What `_search` and `_count` see: `live` as of the last refresh.
    visible: BTreeMap<String, Value>,
    /// Writes since the last refresh.
    pending: usize, versions: HashMap<String, u64>, seq_no: u64,
}

impl Index {
    fn refresh(&mut self) { (self.visible, self.pending) = (self.live.clone(), 0); }
    /// The mapped type of a (possibly dotted) field.
    fn field_type(&self, field: &str) -> Option<&str> { self.mappings.pointer(&format!("{}/type", field.split('.').map(|p| format!("/properties/{p}")).collect::<String>()))?.as_str() }
    fn bump_version(&mut self, id: &str) -> u64 { *self.versions.entry(id.to_string()).and_modify(|v| *v += 1).or_insert(1) }
}

#[derive(Default)]
struct Faults {
    statuses: VecDeque<u16>, retry_after: Option<String>, delays: VecDeque<Duration>,
    /// Bulk item ids to fail (with this item status) once each, and every time.
    items_once: HashMap<String, u16>, items_always: HashMap<String, u16>,
}

struct State {
    flavor: Flavor, auth: Option<RequiredAuth>,
    indices: Mutex<HashMap<String, Index>>, faults: Mutex<Faults>,
    log: Mutex<Vec<Logged>>, bulk_ids: Mutex<Vec<String>>, auto_id: AtomicU64,
    /// Microseconds spent handling requests (benchmarks subtract the double's own work).
    busy_us: AtomicU64,
}

/// How to start a [`StoreServer`].
pub struct StoreServerBuilder { flavor: Flavor, auth: Option<RequiredAuth> }

impl StoreServerBuilder {
    /// Demand these credentials (401 `security_exception` otherwise).
    pub fn auth(self, auth: RequiredAuth) -> Self { StoreServerBuilder { auth: Some(auth), ..self } }
    pub fn start(self) -> StoreServer {
        let (flavor, auth, auto_id) = (self.flavor, self.auth, AtomicU64::new(0));
        let state = Arc::new(State { flavor, auth, indices: Mutex::default(), faults: Mutex::default(), log: Mutex::default(), bulk_ids: Mutex::default(), auto_id, busy_us: AtomicU64::new(0) });
        let st = state.clone();
        let server = HttpServer::start("store", move |req, stop| {
            let t = Instant::now();
            let r = handle(&st, req, stop);
            st.busy_us.fetch_add(t.elapsed().as_micros() as u64, Relaxed);
            r
        });
        StoreServer { url: server.url(), server: Some(server), state }
    }
}

/// The running server; stops when dropped or at [`StoreServer::stop`].
pub struct StoreServer { server: Option<HttpServer>, url: String, state: Arc<State> }

impl StoreServer {
    pub fn builder(flavor: Flavor) -> StoreServerBuilder { StoreServerBuilder { flavor, auth: None } }
    /// `http://127.0.0.1:PORT` (no index); still the (dead) address after [`StoreServer::stop`].
    pub fn url(&self) -> String { self.url.clone() }
    /// `http://127.0.0.1:PORT/<index>`.
    pub fn index_url(&self, index: &str) -> String { format!("{}/{index}", self.url) }
    pub fn flavor(&self) -> Flavor { self.state.flavor }
    /// Requests answered and the milliseconds spent answering them (injected delays included).
    pub fn served(&self) -> (usize, f64) { (self.state.log.lock().unwrap().len(), self.state.busy_us.load(Relaxed) as f64 / 1000.0) }
    /// Stops serving (connections refused from now on); the log and the indices stay readable.
    pub fn stop(&mut self) { self.server.take(); }
    /// Answer the next requests, of any kind, with these statuses (and this `Retry-After`).
    pub fn fail_next(&self, statuses: &[u16], retry_after: Option<&str>) {
        let mut f = self.state.faults.lock().unwrap();
        f.statuses.extend(statuses);
        f.retry_after = retry_after.map(str::to_string);
    }
    /// Fail these ids, once each, inside the next bulk requests holding them; other items succeed.
    pub fn fail_bulk_items(&self, ids: &[&str], status: u16) { self.faults().items_once.extend(ids.iter().map(|id| (id.to_string(), status))); }
    /// Fail these ids inside every bulk request from now on.
    pub fn fail_bulk_items_always(&self, ids: &[&str], status: u16) { self.faults().items_always.extend(ids.iter().map(|id| (id.to_string(), status))); }
    /// The next request waits this long before it is answered (woken early if the server stops).
    pub fn delay_next(&self, delay: Duration) { self.faults().delays.push_back(delay); }
    /// Forget every injected fault and delay.
    pub fn clear_faults(&self) { *self.faults() = Faults::default(); }
    fn faults(&self) -> std::sync::MutexGuard<'_, Faults> { self.state.faults.lock().unwrap() }
    /// Every request so far (`path` with its query string).
    pub fn requests(&self) -> Vec<Logged> { self.state.log.lock().unwrap().clone() }
    pub fn clear_log(&self) { self.state.log.lock().unwrap().clear(); }
    /// Every `_id` of an `index`/`create` action in the bulk requests that were parsed (not
    /// refused whole), in order, failed items included.
    pub fn bulk_ids_sent(&self) -> Vec<String> { self.state.bulk_ids.lock().unwrap().clone() }
    /// Creates an index as `PUT /{name}` with this body would; panics if that is refused.
    pub fn create_index(&self, name: &str, body: Value) { if let Err(r) = create_index(&self.state, name, &body) { panic!("create_index({name}) refused: {}", String::from_utf8_lossy(&r.body)) } }
    /// The refreshed (searchable) ids, sorted; empty for an unknown index.
    pub fn doc_ids(&self, index: &str) -> Vec<String> { self.with_index(index, |i| i.visible.keys().cloned().collect()).unwrap_or_default() }
    /// A refreshed document's source.
    pub fn doc(&self, index: &str, id: &str) -> Option<Value> { self.with_index(index, |i| i.visible.get(id).cloned()).flatten() }
    /// Writes not yet refreshed.
    pub fn pending(&self, index: &str) -> usize { self.with_index(index, |i| i.pending).unwrap_or(0) }
    /// The mappings as stored (`_meta` included).
    pub fn mapping(&self, index: &str) -> Option<Value> { self.with_index(index, |i| i.mappings.clone()) }
    /// Overwrites `_meta`: an index written by another model or another qa. Panics on no index.
    pub fn set_meta(&self, index: &str, meta: Value) { self.with_index(index, |i| i.mappings["_meta"] = meta).expect("set_meta: no such index") }
    /// Puts a document, searchable at once and unchecked (orphans, foreign documents).
    pub fn insert_raw(&self, index: &str, id: &str, source: Value) {
        self.with_index(index, |i| (i.bump_version(id), i.live.insert(id.into(), source.clone()), i.visible.insert(id.into(), source))).expect("insert_raw: no such index");
    }
    fn with_index<T>(&self, index: &str, f: impl FnOnce(&mut Index) -> T) -> Option<T> { self.state.indices.lock().unwrap().get_mut(index).map(f) }
}

type Answer = Result<Response, Response>;
fn bad(kind: &str, reason: impl AsRef<str>) -> Response { es_error(400, kind, reason.as_ref()) }
fn fail<T>(kind: &str, reason: impl AsRef<str>) -> Result<T, Response> { Err(bad(kind, reason)) }

fn handle(st: &State, req: &Request, stop: &Stop) -> Response {
    let authorization = req.header("authorization").map(str::to_string);
    st.log.lock().unwrap().push(Logged { method: req.method.clone(), path: req.path_and_query().to_string(), body: req.body_text(), authorization });
    let delay = st.faults.lock().unwrap().delays.pop_front();
    if let Some(d) = delay { stop.sleep(d); }
    let (Ok(resp) | Err(resp)) = answer(st, req);
    // Elasticsearch 8 marks its responses so (its official clients refuse a server without it).
    if st.flavor == Flavor::Elasticsearch { resp.with_header("X-elastic-product", "Elasticsearch") } else { resp }
}

fn answer(st: &State, req: &Request) -> Answer {
    if let Some(auth) = &st.auth
        && req.header("authorization") != Some(auth.header().as_str())
    {
        let why = if req.header("authorization").is_none() { format!("missing authentication credentials for REST request [{}]", req.path()) } else { "unable to authenticate user for REST request".into() };
        return Err(es_error(401, "security_exception", &why)
            .with_header("WWW-Authenticate", "Basic realm=\"security\" charset=\"UTF-8\"")
            .with_header("WWW-Authenticate", "ApiKey"));
    }
    let mut faults = st.faults.lock().unwrap();
    if let Some(status) = faults.statuses.pop_front() {
        let (kind, why) = fault_kind(st.flavor, status);
        let resp = es_error(status, kind, why);
        return Err(if let Some(ra) = &faults.retry_after { resp.with_header("Retry-After", ra) } else { resp });
    }
    drop(faults);
    route(st, req)
}

/// The error type and reason each server gives for an injected status.
fn fault_kind(flavor: Flavor, status: u16) -> (&'static str, &'static str) {
    match (status, flavor) {
        (429, Flavor::Elasticsearch) => ("es_rejected_execution_exception", "rejected execution: write queue is full"),
        (429, Flavor::OpenSearch) => ("rejected_execution_exception", "rejected execution: write queue is full"),
        (503, _) => ("unavailable_shards_exception", "primary shard is not active"),
        (500, _) => ("internal_server_error", "injected failure"),
        (400, _) => (parse_error(flavor), "injected failure: failed to parse"),
        _ => ("exception", "injected failure"),
    }
}

/// Elasticsearch 8 renamed the document-level parse error; OpenSearch kept the old name.
fn parse_error(flavor: Flavor) -> &'static str { if flavor == Flavor::Elasticsearch { "document_parsing_exception" } else { "mapper_parsing_exception" } }

fn route(st: &State, req: &Request) -> Answer {
    let segments: Vec<&str> = req.path().split('/').filter(|s| !s.is_empty()).collect();
    let method = req.method.as_str();
    let allow = |methods: &[&str]| {
        if methods.contains(&method) { return Ok(()); }
        let msg = format!("Incorrect HTTP method for uri [{}] and method [{method}], allowed: {methods:?}", req.path());
        Err(Response::json(405, &json!({"error": msg, "status": 405})))
    };
    match segments.as_slice() {
        [] => allow(&["GET", "HEAD"]).map(|()| Response::json(200, &cluster_info(st.flavor))),
        ["_bulk"] => allow(&["POST", "PUT"]).and_then(|()| bulk(st, req, None)),
        [name] if !name.starts_with('_') => {
            allow(&["GET", "HEAD", "PUT", "DELETE"])?;
            if method == "PUT" { return create_index(st, name, &json_body(req)?); }
            let mut indices = st.indices.lock().unwrap();
            match (method, indices.get(*name)) {
                ("HEAD", found) => Ok(Response::empty(if found.is_some() { 200 } else { 404 })),
                (_, None) => Err(index_not_found(name)),
                ("GET", Some(i)) => Ok(Response::json(200, &json!({*name: {"aliases": {}, "mappings": i.mappings, "settings": i.settings}}))),
                _ => Ok(Response::json(200, &json!({"acknowledged": indices.remove(*name).is_some()}))),
            }
        }
        [name, endpoint] if !name.starts_with('_') => {
            let methods: &[&str] = match *endpoint {
                "_mapping" => &["GET"],
                "_bulk" => &["POST", "PUT"],
                "_delete_by_query" => &["POST"],
                "_refresh" | "_search" | "_count" => &["GET", "POST"],
                _ => return Err(no_handler(req)),
            };
            allow(methods)?;
            if *endpoint == "_bulk" { return bulk(st, req, Some(name)); }
            let body = json_body(req)?;
            let mut indices = st.indices.lock().unwrap();
            let index = indices.get_mut(*name).ok_or_else(|| index_not_found(name))?;
            match *endpoint {
                "_mapping" => Ok(Response::json(200, &json!({*name: {"mappings": index.mappings}}))),
                "_refresh" => { index.refresh(); Ok(Response::json(200, &json!({"_shards": {"total": 1, "successful": 1, "failed": 0}}))) }
                "_search" => search(st.flavor, name, index, &body),
                "_count" => count(st.flavor, index, &body),
                _ => delete_by_query(st.flavor, index, &body),
            }
        }
        _ => Err(no_handler(req)),
    }
}

fn cluster_info(flavor: Flavor) -> Value {
    match flavor {
        Flavor::OpenSearch => json!({"name": "loopback", "cluster_name": "loopback", "version": {"distribution": "opensearch", "number": "2.17.0"}, "tagline": "The OpenSearch Project: https://opensearch.org/"}),
        Flavor::Elasticsearch => json!({"name": "loopback", "cluster_name": "loopback", "version": {"number": "8.15.0", "build_flavor": "default"}, "tagline": "You Know, for Search"}),
    }
}

fn no_handler(req: &Request) -> Response { Response::json(400, &json!({"error": format!("no handler found for uri [{}] and method [{}]", req.path(), req.method), "status": 400})) }

fn index_not_found(name: &str) -> Response {
    let cause = json!({"type": "index_not_found_exception", "reason": format!("no such index [{name}]"), "index": name});
    let error = json!({"root_cause": [cause], "type": cause["type"], "reason": cause["reason"], "index": name});
    Response::json(404, &json!({"error": error, "status": 404}))
}

fn unsupported_type(ct: &str) -> Response { Response::json(406, &json!({"error": format!("Content-Type header [{ct}] is not supported"), "status": 406})) }

/// A JSON object body (`{}` when empty). Both servers refuse a body without a JSON content type.
fn json_body(req: &Request) -> Result<Value, Response> {
    if req.body.iter().all(u8::is_ascii_whitespace) { return Ok(json!({})); }
    let ct = req.header("content-type").unwrap_or("");
    if !ct.to_ascii_lowercase().contains("json") { return Err(unsupported_type(ct)); }
    serde_json::from_slice::<Value>(&req.body).ok().filter(Value::is_object).ok_or_else(|| bad("parsing_exception", "request body must be a JSON object"))
}

fn create_index(st: &State, name: &str, body: &Value) -> Answer {
    if name.chars().any(|c| c.is_ascii_uppercase() || " \"*\\<|,>/?#:".contains(c)) {
        return fail("invalid_index_name_exception", format!("Invalid index name [{name}], must be lowercase, without [ , \", *, \\, <, |, ,, >, /, ?, #, :]"));
    }
    if let Some(key) = unknown_key(body, &["settings", "mappings", "aliases"]) { return fail("parsing_exception", format!("unknown key [{key}] for create index")); }
    let mut indices = st.indices.lock().unwrap();
    if indices.contains_key(name) { return fail("resource_already_exists_exception", format!("index [{name}/loopback] already exists")); }
    let settings = body.get("settings").cloned().unwrap_or_else(|| json!({}));
    let mappings = body.get("mappings").cloned().unwrap_or_else(|| json!({}));
    let knn = [settings.pointer("/index/knn"), settings.get("index.knn"), settings.get("knn")].into_iter().flatten().next();
    // Elasticsearch has no `index.knn` (an OpenSearch k-NN plugin setting) and refuses unknown settings.
    if st.flavor == Flavor::Elasticsearch && knn.is_some() { return fail("illegal_argument_exception", "unknown setting [index.knn] please check that any required plugins are installed"); }
    let knn_on = knn.is_some_and(|v| v == true || v.as_str() == Some("true"));
    let mapper = |reason: String| bad("mapper_parsing_exception", format!("Failed to parse mapping: {reason}"));
    let mut vectors = Vec::new();
    for (field, p) in mappings.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let default = if p.get("properties").is_some() { "object" } else { "" };
        match (p.get("type").and_then(Value::as_str).unwrap_or(default), st.flavor) {
            ("knn_vector", Flavor::OpenSearch) | ("dense_vector", Flavor::Elasticsearch) => vectors.push(vector_field(st.flavor, field, p, knn_on)?),
            ("text" | "keyword" | "integer" | "long" | "float" | "object" | "boolean", _) => {}
            ("", _) => return Err(mapper(format!("No type specified for field [{field}]"))),
            (other, _) => return Err(mapper(format!("No handler for type [{other}] declared on field [{field}]"))),
        }
    }
    // The store's requirement, not the servers': one embedding per chunk, in one known field.
    let [(vector_field, dims, similarity)]: [_; 1] =
        vectors.try_into().map_err(|v: Vec<_>| mapper(format!("the store needs exactly one vector field, found {}", v.len())))?;
    let (live, visible, versions) = (BTreeMap::new(), BTreeMap::new(), HashMap::new());
    indices.insert(name.to_string(), Index { settings, mappings, vector_field, dims, similarity, live, visible, pending: 0, versions, seq_no: 0 });
    Ok(Response::json(200, &json!({"acknowledged": true, "shards_acknowledged": true, "index": name})))
}

/// Checks a vector field's mapping as the flavor's server would: (name, dimension, similarity).
fn vector_field(flavor: Flavor, field: &str, p: &Value, knn_on: bool) -> Result<(String, usize, Similarity), Response> {
    let mapper = |reason: String| fail("mapper_parsing_exception", format!("Failed to parse mapping: {reason}"));
    let text = |pointer: &str| p.pointer(pointer).and_then(Value::as_str);
    let (dims, similarity) = match flavor {
        Flavor::OpenSearch => {
            let Some(dims) = p.get("dimension").and_then(Value::as_u64) else { return mapper(format!("Dimension value missing for vector: {field}")) };
            if !(1..=16000).contains(&dims) { return mapper(format!("Dimension value must be in [1, 16000] for vector: {field}, got {dims}")); }
            if !knn_on {
                return fail("illegal_argument_exception", format!("Cannot set modelId or method parameters when index.knn setting is false (field [{field}])"));
            }
            // Without `method` OpenSearch picks hnsw and l2, the defaults below.
            if let Some(m) = text("/method/name").or(p.get("method").map(|_| "(missing)")).filter(|m| *m != "hnsw") {
                return mapper(format!("Invalid method name [{m}] for vector: {field}; the store uses [hnsw]"));
            }
            if let Some(e) = text("/method/engine").filter(|e| !["lucene", "faiss", "nmslib"].contains(e)) { return mapper(format!("Invalid engine type: {e}")); }
            let space = text("/method/space_type").unwrap_or("l2");
            let spaces = [("cosinesimil", Similarity::Cosine), ("l2", Similarity::L2), ("innerproduct", Similarity::MaxInnerProduct)];
            let Some(&(_, sim)) = spaces.iter().find(|(n, _)| *n == space) else { return mapper(format!("Unable to find space: {space} (field [{field}])")) };
            (dims, sim)
        }
        Flavor::Elasticsearch => {
            let Some(dims) = p.get("dims").and_then(Value::as_u64) else { return mapper(format!("the store needs [dims] on [dense_vector] field [{field}]")) };
            if !(1..=4096).contains(&dims) { return mapper(format!("The number of dimensions should be in the range [1, 4096] but was [{dims}]")); }
            if p.get("index").is_some_and(|i| i != true) { return mapper(format!("field [{field}] needs [index: true] for kNN search")); }
            let name = text("/similarity").unwrap_or("cosine");
            let sims = [("cosine", Similarity::Cosine), ("dot_product", Similarity::DotProduct), ("l2_norm", Similarity::L2), ("max_inner_product", Similarity::MaxInnerProduct)];
            let Some(&(_, sim)) = sims.iter().find(|(n, _)| *n == name) else {
                return mapper(format!("Unknown value [{name}] for field [similarity] - accepted values are [l2_norm, dot_product, cosine, max_inner_product]"));
            };
            let known = ["hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw", "flat", "int8_flat"];
            if let Some(t) = p.pointer("/index_options/type").filter(|t| !t.as_str().is_some_and(|t| known.contains(&t))) {
                return mapper(format!("Unknown vector index options type [{t}] for field [{field}]"));
            }
            (dims, sim)
        }
    };
    Ok((field.to_string(), dims as usize, similarity))
}

fn query_param(req: &Request, name: &str) -> Option<String> {
    req.query()?.split('&').map(|kv| kv.split_once('=').unwrap_or((kv, ""))).find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
}

fn bulk(st: &State, req: &Request, path_index: Option<&str>) -> Answer {
    let started = Instant::now();
    let ct = req.header("content-type").unwrap_or("");
    let mime = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if mime != "application/x-ndjson" && mime != "application/vnd.elasticsearch+x-ndjson" { return Err(unsupported_type(ct)); }
    let text = req.body_text();
    if text.trim().is_empty() { return fail("action_request_validation_exception", "Validation Failed: 1: no requests added;"); }
    let unterminated = || bad("illegal_argument_exception", "The bulk request must be terminated by a newline [\\n]");
    if !text.ends_with('\n') { return Err(unterminated()); }
    // The whole request is parsed before anything is written, as the servers do: (kind, index, id, source).
    let mut ops: Vec<(String, String, Option<String>, Option<&str>)> = Vec::new();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    while let Some(line) = lines.next() {
        let action = serde_json::from_str::<Value>(line).unwrap_or_default();
        let Some((kind, meta)) = single(&action).filter(|(k, _)| ["index", "create", "delete"].contains(&k.as_str())) else {
            return fail("illegal_argument_exception", format!("Malformed action/metadata line [{line}], expected one of [create, delete, index] (update is not implemented here)"));
        };
        let Some(index) = meta.get("_index").and_then(Value::as_str).or(path_index) else { return fail("action_request_validation_exception", "Validation Failed: 1: index is missing;"); };
        let id = meta.get("_id").map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
        if kind == "delete" && id.is_none() { return fail("action_request_validation_exception", "Validation Failed: 1: id is missing;"); }
        let source = if kind == "delete" { None } else { Some(lines.next().ok_or_else(unterminated)?) };
        ops.push((kind.clone(), index.to_string(), id, source));
    }
    st.bulk_ids.lock().unwrap().extend(ops.iter().filter(|op| op.0 != "delete").filter_map(|op| op.2.clone()));
    let (mut indices, mut faults) = (st.indices.lock().unwrap(), st.faults.lock().unwrap());
    let (mut items, mut errors, mut touched) = (Vec::new(), false, HashSet::new());
    for (kind, index, id, source) in ops {
        let id = id.unwrap_or_else(|| format!("auto-{:016}", st.auto_id.fetch_add(1, Relaxed)));
        let item = write_item(st.flavor, &mut indices, &mut faults, &kind, &index, &id, source).unwrap_or_else(|(status, error)| {
            errors = true;
            json!({"_index": index, "_id": id, "status": status, "error": error})
        });
        touched.insert(index);
        items.push(json!({ kind: item }));
    }
    if query_param(req, "refresh").is_some_and(|v| v != "false") { touched.iter().for_each(|name| indices.get_mut(name).into_iter().for_each(Index::refresh)); }
    Ok(Response::json(200, &json!({"took": started.elapsed().as_millis() as u64, "errors": errors, "items": items})))
}

/// Applies one bulk item to the live state: the item's body, or its status and error object.
fn write_item(flavor: Flavor, indices: &mut HashMap<String, Index>, faults: &mut Faults, kind: &str, index: &str, id: &str, source: Option<&str>) -> Result<Value, (u16, Value)> {
    let error = |status: u16, kind: &str, reason: String| (status, json!({"type": kind, "reason": reason, "index": index}));
    let Some(idx) = indices.get_mut(index) else { return Err(error(404, "index_not_found_exception", format!("no such index [{index}]"))) };
    if let Some(status) = faults.items_always.get(id).copied().or_else(|| faults.items_once.remove(id)) {
        let (kind, reason) = fault_kind(flavor, status);
        return Err(error(status, kind, format!("[{id}] {reason}")));
    }
    let existed = idx.live.contains_key(id);
    let (status, result) = if kind == "delete" {
        if idx.live.remove(id).is_some() { (200, "deleted") } else { (404, "not_found") }
    } else {
        if kind == "create" && existed {
            return Err(error(409, "version_conflict_engine_exception", format!("[{id}]: version conflict, document already exists (current version [{}])", idx.versions[id])));
        }
        let doc = serde_json::from_str::<Value>(source.unwrap_or_default()).ok().filter(Value::is_object);
        let doc = doc.ok_or_else(|| error(400, parse_error(flavor), format!("failed to parse document with id '{id}': not a JSON object")))?;
        check_doc(flavor, idx, id, &doc).map_err(|(kind, reason)| error(400, kind, reason))?;
        idx.live.insert(id.to_string(), doc);
        if existed { (200, "updated") } else { (201, "created") }
    };
    let version = idx.bump_version(id);
    (idx.seq_no, idx.pending) = (idx.seq_no + 1, idx.pending + usize::from(status != 404));
    let shards = json!({"total": 1, "successful": 1, "failed": 0});
    Ok(json!({"_index": index, "_id": id, "_version": version, "result": result, "_shards": shards, "_seq_no": idx.seq_no - 1, "_primary_term": 1, "status": status}))
}

/// The per-document checks the servers make against the mapping: (error type, reason).
fn check_doc(flavor: Flavor, idx: &Index, id: &str, doc: &Value) -> Result<(), (&'static str, String)> {
    if idx.mappings.get("dynamic").is_some_and(|d| d.as_str() == Some("strict"))
        && let Some(f) = doc.as_object().into_iter().flatten().map(|(k, _)| k).find(|k| idx.mappings.pointer(&format!("/properties/{k}")).is_none())
    {
        return Err(("strict_dynamic_mapping_exception", format!("mapping set to strict, dynamic introduction of [{f}] within [_doc] is not allowed")));
    }
    let Some(v) = doc.get(&idx.vector_field).filter(|v| !v.is_null()) else { return Ok(()) };
    let (field, parse) = (&idx.vector_field, parse_error(flavor));
    let vector = as_vector(v).ok_or_else(|| (parse, format!("failed to parse field [{field}] in document with id '{id}': not an array of numbers")))?;
    if vector.len() != idx.dims {
        return Err((parse, match flavor {
            Flavor::OpenSearch => format!("Vector dimension mismatch. Expected: {}, Given: {}", idx.dims, vector.len()),
            Flavor::Elasticsearch => format!("The [dense_vector] field [{field}] in doc [document with id '{id}'] has a different number of dimensions [{}] than defined in the mapping [{}]", vector.len(), idx.dims),
        }));
    }
    let squared = norm(&vector).powi(2);
    if idx.similarity == Similarity::DotProduct && (squared - 1.0).abs() > 1e-4 { return Err((parse, "The [dot_product] similarity can only be used with unit-length vectors.".to_string())); }
    if idx.similarity == Similarity::Cosine && squared == 0.0 { return Err((parse, "The [cosine] similarity does not support vectors with zero magnitude.".to_string())); }
    Ok(())
}

fn as_vector(v: &Value) -> Option<Vec<f64>> { v.as_array()?.iter().map(Value::as_f64).collect() }
fn shards() -> Value { json!({"total": 1, "successful": 1, "skipped": 0, "failed": 0}) }

/// The JSON token name the servers' parsers report for a value.
fn token(v: &Value) -> &'static str {
    match v { Value::Object(_) => "START_OBJECT", Value::Array(_) => "START_ARRAY", Value::String(_) => "VALUE_STRING", Value::Number(_) => "VALUE_NUMBER", _ => "VALUE_BOOLEAN" }
}

fn uint(obj: &Value, key: &str, default: usize) -> Result<usize, Response> {
    let Some(v) = obj.get(key) else { return Ok(default) };
    v.as_u64().map(|n| n as usize).ok_or_else(|| bad("illegal_argument_exception", format!("[{key}] parameter cannot be negative or fractional, found [{v}]")))
}

fn search(flavor: Flavor, name: &str, idx: &Index, body: &Value) -> Answer {
    // Only Elasticsearch has a top-level `knn`; OpenSearch refuses it as an unknown key.
    let knn = if flavor == Flavor::Elasticsearch { "knn" } else { "query" };
    let allowed = ["query", "size", "from", "sort", "search_after", "_source", "track_total_hits", "timeout", "min_score", knn];
    if let Some(k) = unknown_key(body, &allowed) { return fail("parsing_exception", format!("Unknown key for a {} in [{k}].", token(&body[k]))); }
    let (size, from) = (uint(body, "size", 10)?, uint(body, "from", 0)?);
    if from + size > 10000 { return fail("illegal_argument_exception", format!("Result window is too large, from + size must be less than or equal to: [10000] but was [{}].", from + size)); }
    let mut scored = match body.get("query") {
        Some(q) => eval(flavor, idx, q)?,
        None if body.get("knn").is_some() => BTreeMap::new(),
        None => idx.visible.keys().map(|id| (id.clone(), 1.0)).collect(),
    };
    // Elasticsearch's hybrid: the kNN hits and the query's are one disjunction, scores summed.
    for (id, s) in body.get("knn").map(|knn| knn_es(flavor, idx, knn, Some(size))).transpose()?.unwrap_or_default() { *scored.entry(id).or_insert(0.0) += s; }
    if let Some(min) = body.get("min_score").and_then(Value::as_f64) { scored.retain(|_, s| *s >= min); }
    let total = scored.len();
    let sort = parse_sort(idx, body.get("sort"))?;
    // Sorting on fields alone leaves `_score` and `max_score` null, as on the servers.
    let track_scores = sort.is_empty() || sort.iter().any(|(f, _)| f == "_score");
    let sort_key = |id: &String, s: f64| -> Vec<Value> { sort.iter().map(|(f, _)| if f == "_score" { json!(s as f32) } else { first_value(&idx.visible[id], f) }).collect() };
    let mut hits: Vec<(String, f64, Vec<Value>)> = scored.into_iter().map(|(id, s)| (sort_key(&id, s), id, s)).map(|(k, id, s)| (id, s, k)).collect();
    hits.sort_by(|a, b| (if sort.is_empty() { b.1.total_cmp(&a.1) } else { cmp_keys(&a.2, &b.2, &sort) }).then_with(|| a.0.cmp(&b.0)));
    let max_score = if track_scores { hits.iter().map(|h| h.1 as f32).reduce(f32::max) } else { None };
    if let Some(after) = body.get("search_after") {
        let Some(after) = after.as_array().filter(|a| a.len() == sort.len() && !sort.is_empty()) else {
            return fail("illegal_argument_exception", format!("[search_after] needs a [sort] with as many values; sort has [{}]", sort.len()));
        };
        if from > 0 { return fail("illegal_argument_exception", "[from] parameter must be set to 0 when [search_after] is used"); }
        hits.retain(|h| cmp_keys(&h.2, after, &sort) == Ordering::Greater);
    }
    let page: Vec<Value> = hits.into_iter().skip(from).take(size).map(|(id, s, keys)| {
        let mut hit = json!({"_index": name, "_id": id, "_score": if track_scores { json!(s as f32) } else { Value::Null }});
        if let Some(source) = filter_source(&idx.visible[&id], body.get("_source")) { hit["_source"] = source; }
        if !sort.is_empty() { hit["sort"] = json!(keys); }
        hit
    }).collect();
    let hits = json!({"total": {"value": total, "relation": "eq"}, "max_score": max_score, "hits": page});
    Ok(Response::json(200, &json!({"took": 1, "timed_out": false, "_shards": shards(), "hits": hits})))
}

fn count(flavor: Flavor, idx: &Index, body: &Value) -> Answer {
    if let Some(k) = unknown_key(body, &["query"]) { return fail("parsing_exception", format!("request does not support [{k}]")); }
    let n = body.get("query").map(|q| eval(flavor, idx, q).map(|m| m.len())).transpose()?.unwrap_or(idx.visible.len());
    Ok(Response::json(200, &json!({"count": n, "_shards": shards()})))
}

fn delete_by_query(flavor: Flavor, idx: &mut Index, body: &Value) -> Answer {
    let Some(q) = body.get("query") else { return fail("action_request_validation_exception", "Validation Failed: 1: query is missing;") };
    // Matches what searches see, and deletes at once and visibly (as with `refresh=true`).
    let ids: Vec<String> = eval(flavor, idx, q)?.into_keys().collect();
    for id in &ids { idx.visible.remove(id); idx.live.remove(id); idx.bump_version(id); }
    Ok(Response::json(200, &json!({"took": 1, "timed_out": false, "total": ids.len(), "deleted": ids.len(), "batches": 1, "version_conflicts": 0, "noops": 0, "failures": []})))
}

/// A key of the object `v` that is not in `allowed`.
fn unknown_key<'a>(v: &'a Value, allowed: &[&str]) -> Option<&'a String> { v.as_object()?.keys().find(|k| !allowed.contains(&k.as_str())) }

/// The only (key, value) of a one-key object.
fn single(v: &Value) -> Option<(&String, &Value)> { v.as_object().filter(|o| o.len() == 1).and_then(|o| o.iter().next()) }

/// The visible documents a query matches, with their scores.
fn eval(flavor: Flavor, idx: &Index, query: &Value) -> Result<BTreeMap<String, f64>, Response> {
    let Some((kind, arg)) = single(query) else { return fail("parsing_exception", format!("query malformed, expected one query type: {query}")) };
    let one_field = || single(arg).ok_or_else(|| bad("parsing_exception", format!("[{kind}] query malformed, expected one field")));
    Ok(match kind.as_str() {
        "match_all" => idx.visible.keys().map(|id| (id.clone(), 1.0)).collect(),
        "term" | "terms" => {
            let (field, wanted) = one_field()?;
            let wanted = match (kind.as_str(), wanted) {
                ("term", v) => vec![v.get("value").unwrap_or(v).clone()],
                (_, Value::Array(a)) => a.clone(),
                _ => return fail("parsing_exception", format!("[terms] query does not support [{field}]")),
            };
            let wanted: HashSet<String> = wanted.iter().map(term_key).collect();
            idx.visible.iter().filter(|(_, d)| field_values(d, field).iter().any(|v| wanted.contains(&term_key(v)))).map(|(id, _)| (id.clone(), 1.0)).collect()
        }
        "match" => one_field().map(|(field, arg)| bm25(idx, &[(field.clone(), 1.0)], &term_key(arg.get("query").unwrap_or(arg))))?,
        "multi_match" => {
            let Some(text) = arg.get("query").map(term_key) else { return fail("parsing_exception", "[multi_match] requires query value") };
            if let Some(t) = arg.get("type").filter(|t| t.as_str() != Some("best_fields")) {
                return fail("parsing_exception", format!("[multi_match] type {t} is not implemented here, only best_fields"));
            }
            let boosted = |f: &str| f.split_once('^').map_or((f.to_string(), 1.0), |(f, b)| (f.to_string(), b.parse::<f64>().unwrap_or(1.0)));
            let fields: Vec<(String, f64)> = match arg.get("fields").and_then(Value::as_array) {
                Some(fields) => fields.iter().filter_map(Value::as_str).map(boosted).collect(),
                // Without fields the servers search every field (`index.query.default_field: *`).
                None => idx.mappings["properties"].as_object().into_iter().flatten().filter(|(_, p)| p["type"] == "text").map(|(f, _)| (f.clone(), 1.0)).collect(),
            };
            bm25(idx, &fields, &text)
        }
        "knn" if flavor == Flavor::Elasticsearch => knn_es(flavor, idx, arg, None)?.into_iter().collect(),
        "knn" => {
            let Some((field, spec)) = single(arg).filter(|(_, s)| s.is_object()) else {
                return fail("parsing_exception", "[knn] malformed query, expected {\"<field>\": {\"vector\": [...], \"k\": K}}");
            };
            if let Some(key) = unknown_key(spec, &["vector", "k", "filter", "boost"]) { return fail("parsing_exception", format!("[knn] unknown token [{key}] after [{field}]")); }
            let Some(vector) = spec.get("vector").and_then(as_vector) else { return fail("parsing_exception", "[knn] requires a numeric [vector]") };
            let Some(k) = spec.get("k").and_then(Value::as_u64).filter(|k| (1..=10000).contains(k)) else {
                return fail("illegal_argument_exception", "[knn] requires k between 1 and 10000 (distance and score are not implemented here)");
            };
            if *field != idx.vector_field { return fail("illegal_argument_exception", format!("Field '{field}' is not knn_vector type.")); }
            if vector.len() != idx.dims { return fail("illegal_argument_exception", format!("Query vector has invalid dimension: {}. Dimension should be: {}", vector.len(), idx.dims)); }
            nearest(flavor, idx, &vector, k as usize, spec.get("filter"))?.into_iter().collect()
        }
        other => return fail("parsing_exception", format!("unknown query [{other}]")),
    })
}

/// Elasticsearch's kNN: top-level (`size` given; `k` defaults to it) or the `knn` query (`k`
/// defaults to `num_candidates`: that many per shard, and this double has one shard).
fn knn_es(flavor: Flavor, idx: &Index, arg: &Value, size: Option<usize>) -> Result<Vec<(String, f64)>, Response> {
    if arg.is_array() { return fail("illegal_argument_exception", "several [knn] searches are not implemented here"); }
    if let Some(key) = unknown_key(arg, &["field", "query_vector", "k", "num_candidates", "filter", "boost"]) { return fail("parsing_exception", format!("[knn] unknown field [{key}]")); }
    let Some(field) = arg.get("field").and_then(Value::as_str) else { return fail("illegal_argument_exception", "[knn] requires a [field]") };
    let Some(vector) = arg.get("query_vector").and_then(as_vector) else { return fail("illegal_argument_exception", "[knn] requires a numeric [query_vector]") };
    let given_candidates = arg.get("num_candidates").map(|_| uint(arg, "num_candidates", 0)).transpose()?;
    let k = uint(arg, "k", size.or(given_candidates).unwrap_or(10))?;
    let candidates = given_candidates.unwrap_or((k + k / 2).min(10000));
    if k == 0 { return fail("illegal_argument_exception", "[k] must be greater than 0"); }
    if candidates < k { return fail("illegal_argument_exception", "[num_candidates] cannot be less than [k]"); }
    if candidates > 10000 { return fail("illegal_argument_exception", "[num_candidates] cannot exceed [10000]"); }
    if field != idx.vector_field { return fail("illegal_argument_exception", format!("[knn] queries are only supported on [dense_vector] fields; [{field}] is not one")); }
    if vector.len() != idx.dims {
        return fail("illegal_argument_exception", format!("The query vector has a different number of dimensions [{}] than the document vectors [{}].", vector.len(), idx.dims));
    }
    nearest(flavor, idx, &vector, k, arg.get("filter"))
}

/// The exact `k` nearest visible documents that pass `filter` (a query or an array of them).
fn nearest(flavor: Flavor, idx: &Index, query: &[f64], k: usize, filter: Option<&Value>) -> Result<Vec<(String, f64)>, Response> {
    if idx.similarity == Similarity::Cosine && norm(query) == 0.0 { return fail("illegal_argument_exception", "The [cosine] similarity does not support vectors with zero magnitude."); }
    let filters = filter.map(|f| f.as_array().cloned().unwrap_or_else(|| vec![f.clone()])).unwrap_or_default();
    let matched = filters.iter().map(|f| eval(flavor, idx, f)).collect::<Result<Vec<_>, _>>()?;
    let passes = |id: &String| matched.iter().all(|m| m.contains_key(id));
    let score = |id: &String, d: &Value| Some((id.clone(), idx.similarity.score(query, &as_vector(d.get(&idx.vector_field)?)?)));
    let mut hits: Vec<(String, f64)> = idx.visible.iter().filter(|(id, _)| passes(id)).filter_map(|(id, d)| score(id, d)).collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    hits.truncate(k);
    Ok(hits)
}

/// Lucene's BM25 (no `k1 + 1` factor since Lucene 8) per field, times the field's boost; the best
/// field wins (best_fields). Keyword fields match their whole value.
fn bm25(idx: &Index, fields: &[(String, f64)], text: &str) -> BTreeMap<String, f64> {
    let (k1, b, mut best) = (1.2, 0.75, BTreeMap::<String, f64>::new());
    for (field, boost) in fields {
        let keyword = idx.field_type(field) == Some("keyword");
        let analyze = |s: &str| if keyword { vec![s.to_string()] } else { tokens(s) };
        let field_tokens = |d: &Value| field_values(d, field).iter().filter_map(|v| v.as_str()).flat_map(analyze).collect::<Vec<_>>();
        let docs: Vec<(&String, Vec<String>)> = idx.visible.iter().map(|(id, d)| (id, field_tokens(d))).filter(|(_, t)| !t.is_empty()).collect();
        let n = docs.len() as f64;
        let avgdl = docs.iter().map(|(_, t)| t.len()).sum::<usize>() as f64 / n.max(1.0);
        // Summed over the query's terms within a field; the best field's sum is the score.
        let mut scores: HashMap<&String, f64> = HashMap::new();
        for term in analyze(text) {
            let df = docs.iter().filter(|(_, t)| t.contains(&term)).count() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (id, t) in &docs {
                let tf = t.iter().filter(|x| **x == term).count() as f64;
                *scores.entry(*id).or_default() += boost * idf * tf / (tf + k1 * (1.0 - b + b * t.len() as f64 / avgdl));
            }
        }
        for (id, s) in scores { best.entry(id.clone()).and_modify(|e| *e = e.max(s)).or_insert(s); }
    }
    best.retain(|_, s| *s > 0.0);
    best
}

fn tokens(text: &str) -> Vec<String> { text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect() }

/// The values of a (dotted) field in a source, arrays flattened, nulls dropped.
fn field_values<'a>(doc: &'a Value, path: &str) -> Vec<&'a Value> {
    let flatten = |vs: Vec<&'a Value>| -> Vec<&'a Value> { vs.into_iter().flat_map(|v| v.as_array().map_or(vec![v], |a| a.iter().collect())).collect() };
    let mut current = vec![doc];
    for part in path.split('.') { current = flatten(current).into_iter().filter_map(|v| v.get(part)).collect(); }
    flatten(current).into_iter().filter(|v| !v.is_null()).collect()
}

fn first_value(doc: &Value, field: &str) -> Value { field_values(doc, field).first().map_or(Value::Null, |v| (*v).clone()) }

/// A term as the servers compare it: `"5"` matches `5`.
fn term_key(v: &Value) -> String { v.as_str().map_or_else(|| v.to_string(), str::to_string) }

/// `[{"f": "asc"}]`, `[{"f": {"order": "desc"}}]`, `["f"]` or one such entry: (field, descending).
fn parse_sort(idx: &Index, sort: Option<&Value>) -> Result<Vec<(String, bool)>, Response> {
    let entries = sort.map(|s| s.as_array().cloned().unwrap_or_else(|| vec![s.clone()])).unwrap_or_default();
    let mut keys = Vec::new();
    for e in &entries {
        let (field, order) = match (e, single(e)) {
            (Value::String(f), _) => (f.clone(), None),
            (_, Some((f, spec))) => (f.clone(), spec.as_str().or_else(|| spec.get("order").and_then(Value::as_str))),
            _ => return fail("parsing_exception", format!("malformed [sort] entry {e}")),
        };
        let desc = match order {
            Some(o) if o != "asc" && o != "desc" => return fail("illegal_argument_exception", format!("Unknown SortOrder [{o}]")),
            Some(o) => o == "desc",
            None => field == "_score",
        };
        match idx.field_type(&field) {
            _ if field == "_score" => {}
            None => return fail("query_shard_exception", format!("No mapping found for [{field}] in order to sort on")),
            Some("text") => return fail("illegal_argument_exception", format!("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. [{field}]")),
            _ => {}
        }
        keys.push((field, desc));
    }
    Ok(keys)
}

/// Compares sort values key by key; missing values (null) sort last in either order (`_last`).
fn cmp_keys(a: &[Value], b: &[Value], sort: &[(String, bool)]) -> Ordering {
    for ((x, y), (_, desc)) in a.iter().zip(b).zip(sort) {
        let o = match (x, y) {
            (Value::Null, _) | (_, Value::Null) => x.is_null().cmp(&y.is_null()),
            (Value::Number(p), Value::Number(q)) => p.as_f64().unwrap_or(0.0).total_cmp(&q.as_f64().unwrap_or(0.0)),
            _ => term_key(x).cmp(&term_key(y)),
        };
        let o = if *desc && !x.is_null() && !y.is_null() { o.reverse() } else { o };
        if o != Ordering::Equal { return o; }
    }
    Ordering::Equal
}

/// `_source`: true, false, a field name or prefix pattern (`meta*`), a list of them, or
/// `{"includes": …, "excludes": …}`; applied to top-level fields.
fn filter_source(source: &Value, spec: Option<&Value>) -> Option<Value> {
    let names = |v: Option<&Value>| -> Vec<String> { v.map(|v| v.as_array().cloned().unwrap_or_else(|| vec![v.clone()])).unwrap_or_default().iter().filter_map(Value::as_str).map(str::to_string).collect() };
    let (includes, excludes) = match spec {
        None | Some(Value::Bool(true)) => return Some(source.clone()),
        Some(Value::Bool(false)) => return None,
        Some(Value::Object(o)) => (names(o.get("includes")), names(o.get("excludes"))),
        other => (names(other), Vec::new()),
    };
    let glob = |p: &String, k: &str| p.strip_suffix('*').map_or(p == k, |prefix| k.starts_with(prefix));
    let kept = source.as_object()?.iter().filter(|(k, _)| (includes.is_empty() || includes.iter().any(|p| glob(p, k.as_str()))) && !excludes.iter().any(|p| glob(p, k.as_str())));
    Some(Value::Object(kept.map(|(k, v)| (k.clone(), v.clone())).collect::<Map<_, _>>()))
}
