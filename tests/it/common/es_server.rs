//! A test double of an Elasticsearch server on loopback, on [`super::http_server`]: it speaks
//! the REST API's wire format for what qa calls (`GET /{index}/_mapping`,
//! `GET|POST /{index}/_search` and `/_count`) and answers from a backend, normally the embedded
//! engine (`EmbeddedIndex::execute_json`), so its hits and aggregations are real.
//!
//! Besides answers it can: answer the next requests with given statuses (429, 503, …, with an
//! optional `Retry-After`), require an API key or basic authentication (401 with an ES security
//! error otherwise), send `hits.total` as a plain number (old OpenSearch), and it logs every
//! request (method, path, body, `Authorization`) so tests can assert what reached it.
//!
//! Errors have Elasticsearch's shapes: 404 `index_not_found_exception` for another index, 400
//! with `{"error": {"type", "reason", "root_cause"}, "status"}` for a body the backend rejects
//! or that is not JSON, 405 for another method, 400 "no handler found" for another endpoint.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use qa_es::{Endpoint, EsError};
use serde_json::{Value, json};

use super::http_server::{HttpServer, Request, Response};

/// Runs a raw body on the index: what the server does with a request that reached it.
pub type Backend = Arc<dyn Fn(Endpoint, &Value) -> Result<Value, EsError> + Send + Sync>;

/// Credentials the server demands.
#[derive(Debug, Clone)]
pub enum RequiredAuth {
    /// `Authorization: ApiKey <key>`.
    ApiKey(String),
    /// `Authorization: Basic base64(user:password)`.
    Basic(String, String),
}

impl RequiredAuth {
    /// The `Authorization` value that satisfies it.
    pub fn header(&self) -> String {
        match self {
            RequiredAuth::ApiKey(k) => format!("ApiKey {k}"),
            RequiredAuth::Basic(u, p) => format!("Basic {}", base64(format!("{u}:{p}").as_bytes())),
        }
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub body: String,
    pub authorization: Option<String>,
}

#[derive(Default)]
struct Faults {
    /// Statuses to answer, in order, before serving normally.
    statuses: VecDeque<u16>,
    retry_after: Option<String>,
}

struct State {
    index: String,
    mapping: Value,
    backend: Backend,
    auth: Option<RequiredAuth>,
    numeric_total: bool,
    faults: Mutex<Faults>,
    log: Mutex<Vec<Logged>>,
}

/// The running server; stops when dropped.
pub struct EsServer {
    server: HttpServer,
    state: Arc<State>,
}

/// How to start an [`EsServer`].
pub struct EsServerBuilder {
    index: String,
    mapping: Value,
    backend: Backend,
    auth: Option<RequiredAuth>,
    numeric_total: bool,
}

impl EsServerBuilder {
    /// Demand these credentials.
    pub fn auth(mut self, auth: RequiredAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Send `hits.total` as a number (OpenSearch with `rest_total_hits_as_int`).
    pub fn numeric_total(mut self) -> Self {
        self.numeric_total = true;
        self
    }

    pub fn start(self) -> EsServer {
        let state = Arc::new(State {
            index: self.index,
            mapping: self.mapping,
            backend: self.backend,
            auth: self.auth,
            numeric_total: self.numeric_total,
            faults: Mutex::default(),
            log: Mutex::default(),
        });
        let st = state.clone();
        let server = HttpServer::start("es", move |req, _| handle(&st, req));
        EsServer { server, state }
    }
}

impl EsServer {
    /// A server for `index` with its mapping (Elasticsearch's shape, `{"mappings": …}`) and the
    /// backend that runs bodies.
    pub fn builder(index: &str, mapping: Value, backend: Backend) -> EsServerBuilder {
        EsServerBuilder { index: index.to_string(), mapping, backend, auth: None, numeric_total: false }
    }

    /// A server for the embedded index `name` built in `dir`, answering every body from it (so
    /// its answers are real).
    pub fn over_embedded(dir: &std::path::Path, name: &str) -> EsServerBuilder {
        use qa_es::SearchEngine;
        let index = Arc::new(qa_es::embedded::EmbeddedIndex::open(dir, name).expect("embedded index"));
        let mapping = index.mapping().expect("mapping").to_es_json();
        let backend: Backend = Arc::new(move |endpoint, body| index.execute_json(endpoint, body));
        EsServer::builder(name, mapping, backend)
    }

    /// `http://127.0.0.1:PORT` (no index).
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// `http://127.0.0.1:PORT/<index>`.
    pub fn index_url(&self) -> String {
        format!("{}/{}", self.server.url(), self.state.index)
    }

    /// Answer the next requests with these statuses (and this `Retry-After`, if any) first.
    pub fn fail_next(&self, statuses: &[u16], retry_after: Option<&str>) {
        let mut f = self.state.faults.lock().unwrap();
        f.statuses.extend(statuses);
        f.retry_after = retry_after.map(str::to_string);
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Logged> {
        self.state.log.lock().unwrap().clone()
    }

    pub fn clear_log(&self) {
        self.state.log.lock().unwrap().clear();
    }
}

fn handle(state: &State, req: &Request) -> Response {
    state.log.lock().unwrap().push(Logged {
        method: req.method.clone(),
        path: req.path().to_string(),
        body: req.body_text(),
        authorization: req.header("authorization").map(str::to_string),
    });
    if let Some(auth) = &state.auth
        && req.header("authorization") != Some(auth.header().as_str())
    {
        let why = match req.header("authorization") {
            None => format!("missing authentication credentials for REST request [{}]", req.path()),
            Some(_) => "unable to authenticate user for REST request".to_string(),
        };
        return es_error(401, "security_exception", &why)
            .with_header("WWW-Authenticate", "Basic realm=\"security\" charset=\"UTF-8\"")
            .with_header("WWW-Authenticate", "ApiKey");
    }
    {
        let mut faults = state.faults.lock().unwrap();
        if let Some(status) = faults.statuses.pop_front() {
            let (kind, why) = match status {
                429 => ("es_rejected_execution_exception", "rejected execution: search queue is full"),
                503 => ("cluster_block_exception", "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered]"),
                _ => ("exception", "injected failure"),
            };
            let mut resp = es_error(status, kind, why);
            if let Some(ra) = &faults.retry_after {
                resp = resp.with_header("Retry-After", ra);
            }
            return resp;
        }
    }
    route(state, req)
}

fn route(state: &State, req: &Request) -> Response {
    let segments: Vec<&str> = req.path().trim_matches('/').split('/').collect();
    let (index, endpoint) = match segments.as_slice() {
        [index, endpoint] => (*index, *endpoint),
        _ => return no_handler(req),
    };
    let method_ok = match endpoint {
        "_mapping" => req.method == "GET",
        "_search" | "_count" => req.method == "GET" || req.method == "POST",
        _ => return no_handler(req),
    };
    if !method_ok {
        let msg = format!("Incorrect HTTP method for uri [{}] and method [{}], allowed: [GET, POST]", req.path(), req.method);
        return Response::json(405, &json!({"error": msg, "status": 405}));
    }
    if index != state.index {
        let reason = format!("no such index [{index}]");
        let cause = json!({"type": "index_not_found_exception", "reason": reason, "index": index});
        let body = json!({"error": {"root_cause": [cause], "type": "index_not_found_exception", "reason": reason, "index": index}, "status": 404});
        return Response::json(404, &body);
    }
    if endpoint == "_mapping" {
        return Response::json(200, &json!({ index: state.mapping }));
    }
    let body: Value = if req.body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        match serde_json::from_slice(&req.body) {
            Ok(v) => v,
            Err(e) => return es_error(400, "parsing_exception", &format!("Failed to parse the request body: {e}")),
        }
    };
    let ep = if endpoint == "_search" { Endpoint::Search } else { Endpoint::Count };
    match (state.backend)(ep, &body) {
        Ok(mut v) => {
            if state.numeric_total
                && let Some(n) = v.pointer("/hits/total/value").cloned()
            {
                v["hits"]["total"] = n;
            }
            Response::json(200, &v)
        }
        Err(e) => es_error(400, "search_phase_execution_exception", &e.to_string()),
    }
}

/// An Elasticsearch error response.
pub fn es_error(status: u16, kind: &str, reason: &str) -> Response {
    Response::json(
        status,
        &json!({"error": {"root_cause": [{"type": kind, "reason": reason}], "type": kind, "reason": reason}, "status": status}),
    )
}

fn no_handler(req: &Request) -> Response {
    let msg = format!("no handler found for uri [{}] and method [{}]", req.path(), req.method);
    Response::json(400, &json!({"error": msg, "status": 400}))
}

fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ABC[((n >> (18 - 6 * i)) & 63) as usize] as char } else { '=' });
        }
    }
    out
}
