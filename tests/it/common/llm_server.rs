//! A scripted OpenAI-compatible server on loopback, for testing the HTTP chat provider (and the
//! commands that use it) from synchronous tests without any real model.
//!
//! Each request to `/v1/chat/completions` (any path, in fact) takes the next [`Scripted`]
//! response; every request is recorded so tests can assert what the client sent.

#![allow(dead_code)]

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// Answers a request from its parsed JSON body.
pub type ResponderFn = Arc<dyn Fn(&Value) -> Scripted + Send + Sync>;

/// One scripted answer.
#[derive(Clone)]
pub enum Scripted {
    /// 200 with a chat completion whose message content is `content`; `usage` is
    /// `(prompt_tokens, completion_tokens)`, omitted from the body when `None`.
    Reply { content: String, usage: Option<(u64, u64)>, finish_reason: &'static str },
    /// Any status with a raw body (sent as JSON when it parses as JSON) and an optional
    /// `Retry-After` header.
    Status { status: u16, body: String, retry_after: Option<String> },
    /// 200 with this raw body (not JSON, or JSON of the wrong shape).
    Malformed(String),
    /// Waits, then answers `then`.
    Delay { secs: f64, then: Box<Scripted> },
    /// Answers the inner response to this and every later request (put it last).
    Repeat(Box<Scripted>),
    /// Decides from the request body.
    Responder(ResponderFn),
}

impl Scripted {
    /// A normal reply with usage (10 prompt, 5 completion tokens) and `stop`.
    pub fn reply(content: impl Into<String>) -> Scripted {
        Scripted::Reply { content: content.into(), usage: Some((10, 5)), finish_reason: "stop" }
    }

    /// An error status with an OpenAI-style `{"error": {"message": …}}` body.
    pub fn error(status: u16, message: &str) -> Scripted {
        let body = json!({"error": {"message": message, "type": "test_error"}}).to_string();
        Scripted::Status { status, body, retry_after: None }
    }

    pub fn delay(secs: f64, then: Scripted) -> Scripted {
        Scripted::Delay { secs, then: Box::new(then) }
    }

    pub fn repeat(inner: Scripted) -> Scripted {
        Scripted::Repeat(Box::new(inner))
    }

    pub fn responder(f: impl Fn(&Value) -> Scripted + Send + Sync + 'static) -> Scripted {
        Scripted::Responder(Arc::new(f))
    }
}

impl fmt::Debug for Scripted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scripted::Reply { content, usage, finish_reason } => {
                f.debug_struct("Reply").field("content", content).field("usage", usage).field("finish_reason", finish_reason).finish()
            }
            Scripted::Status { status, body, retry_after } => {
                f.debug_struct("Status").field("status", status).field("body", body).field("retry_after", retry_after).finish()
            }
            Scripted::Malformed(body) => f.debug_tuple("Malformed").field(body).finish(),
            Scripted::Delay { secs, then } => f.debug_struct("Delay").field("secs", secs).field("then", then).finish(),
            Scripted::Repeat(inner) => f.debug_tuple("Repeat").field(inner).finish(),
            Scripted::Responder(_) => f.write_str("Responder(..)"),
        }
    }
}

/// What the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// Path and query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Lower-case header names; repeated headers keep the last value.
    pub headers: BTreeMap<String, String>,
    /// The parsed JSON body (`Value::Null` when it was not JSON; see `raw_body`).
    pub body: Value,
    pub raw_body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
}

struct Shared {
    script: Mutex<VecDeque<Scripted>>,
    requests: Mutex<Vec<RecordedRequest>>,
}

pub struct ScriptedLlmServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedLlmServer {
    /// Starts serving `script` on `127.0.0.1:<free port>`; ready when this returns.
    pub fn start(script: Vec<Scripted>) -> ScriptedLlmServer {
        // Bound here, synchronously, so the port is known and accepting before we return.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).expect("nonblocking listener");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared { script: Mutex::new(script.into()), requests: Mutex::new(Vec::new()) });
        let (tx, rx) = oneshot::channel::<()>();
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let thread = std::thread::Builder::new()
            .name("scripted-llm-server".into())
            .spawn(move || serve(listener, app, rx))
            .expect("spawn server thread");
        ScriptedLlmServer { addr, shared, shutdown: Some(tx), thread: Some(thread) }
    }

    /// Answers every request with `f(body)`.
    pub fn with_responder(f: impl Fn(&Value) -> Scripted + Send + Sync + 'static) -> ScriptedLlmServer {
        ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::responder(f))])
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }
}

impl Drop for ScriptedLlmServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The server thread: runs until told to stop, then drops in-flight (e.g. delayed) responses
/// instead of waiting for them.
fn serve(listener: std::net::TcpListener, app: Router, stop: oneshot::Receiver<()>) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
        tokio::select! {
            result = axum::serve(listener, app).into_future() => { let _ = result; }
            _ = stop => {}
        }
    });
    rt.shutdown_timeout(Duration::from_millis(100));
}

async fn handle(State(shared): State<Arc<Shared>>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let parsed: Value = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    let recorded = RecordedRequest {
        method: method.to_string(),
        path: uri.path_and_query().map(|p| p.to_string()).unwrap_or_else(|| uri.path().to_string()),
        headers: headers
            .iter()
            .map(|(k, v)| (k.as_str().to_ascii_lowercase(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body: parsed.clone(),
        raw_body,
    };
    // Recorded before answering, so a request the client gave up on (timeout) still counts.
    let number = {
        let mut requests = shared.requests.lock().unwrap();
        requests.push(recorded);
        requests.len()
    };
    let next = {
        let mut script = shared.script.lock().unwrap();
        match script.front() {
            Some(Scripted::Repeat(inner)) => Some((**inner).clone()),
            Some(_) => script.pop_front(),
            None => None,
        }
    };
    match next {
        Some(step) => respond(step, &parsed).await,
        None => status_response(
            500,
            json!({"error": {"message": format!("scripted server: script exhausted at request {number}")}}).to_string(),
            None,
        ),
    }
}

/// Turns a script step into a response, following delays, repeats and responders.
async fn respond(mut step: Scripted, request: &Value) -> Response {
    loop {
        step = match step {
            Scripted::Reply { content, usage, finish_reason } => {
                return json_response(StatusCode::OK, completion(request, &content, usage, finish_reason));
            }
            Scripted::Status { status, body, retry_after } => return status_response(status, body, retry_after),
            Scripted::Malformed(body) => return raw_response(StatusCode::OK, "application/json", body),
            Scripted::Delay { secs, then } => {
                tokio::time::sleep(Duration::from_secs_f64(secs.max(0.0))).await;
                *then
            }
            Scripted::Repeat(inner) => *inner,
            Scripted::Responder(f) => f(request),
        };
    }
}

/// An OpenAI chat-completion body.
fn completion(request: &Value, content: &str, usage: Option<(u64, u64)>, finish_reason: &str) -> Value {
    let mut body = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model").cloned().unwrap_or(Value::Null),
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": finish_reason,
        }],
    });
    if let Some((prompt, completion)) = usage {
        body["usage"] = json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion});
    }
    body
}

fn status_response(status: u16, body: String, retry_after: Option<String>) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type =
        if serde_json::from_str::<Value>(&body).is_ok() { "application/json" } else { "text/plain; charset=utf-8" };
    let mut resp = raw_response(code, content_type, body);
    if let Some(value) = retry_after.and_then(|v| v.parse().ok()) {
        resp.headers_mut().insert(header::RETRY_AFTER, value);
    }
    resp
}

fn json_response(status: StatusCode, body: Value) -> Response {
    raw_response(status, "application/json", body.to_string())
}

fn raw_response(status: StatusCode, content_type: &str, body: String) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .expect("valid response parts")
}

/// Point `cmd` at `server` as its OpenAI-compatible LLM: no retries, a 5 s timeout.
pub fn use_scripted_llm(mut cmd: assert_cmd::Command, server: &ScriptedLlmServer) -> assert_cmd::Command {
    cmd.env("QA_LLM_PROVIDER", "openai")
        .env("QA_LLM_BASE_URL", server.base_url())
        .env("QA_LLM_MODEL", "scripted-model")
        .env("QA_LLM_MAX_RETRIES", "0")
        .env("QA_LLM_TIMEOUT_SECS", "5");
    cmd
}
