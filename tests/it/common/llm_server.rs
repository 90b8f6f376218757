//! A scripted OpenAI-compatible server on loopback, for testing the HTTP chat provider (and the
//! commands that use it) from synchronous tests without any real model.
//!
//! Each request to `/v1/chat/completions` (any path, in fact) takes the next [`Scripted`]
//! response; every request is recorded so tests can assert what the client sent. The HTTP/1.1
//! side is [`super::http_server`].

#![allow(dead_code)]

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::http_server::{self, HttpServer, Request, Response, Stop};

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

/// Stops when dropped, without waiting for delayed responses.
pub struct ScriptedLlmServer {
    server: HttpServer,
    shared: Arc<Shared>,
}

impl ScriptedLlmServer {
    /// Starts serving `script` on `127.0.0.1:<free port>`; ready when this returns.
    pub fn start(script: Vec<Scripted>) -> ScriptedLlmServer {
        let shared = Arc::new(Shared { script: Mutex::new(script.into()), requests: Mutex::new(Vec::new()) });
        let state = shared.clone();
        let server = HttpServer::start("scripted-llm-server", move |request, stop| handle(&state, request, stop));
        ScriptedLlmServer { server, shared }
    }

    /// Answers every request with `f(body)`.
    pub fn with_responder(f: impl Fn(&Value) -> Scripted + Send + Sync + 'static) -> ScriptedLlmServer {
        ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::responder(f))])
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.url())
    }

    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }
}

fn handle(shared: &Shared, request: &Request, stop: &Stop) -> Response {
    let raw_body = request.body_text();
    let parsed: Value = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    let recorded = RecordedRequest {
        method: request.method.clone(),
        path: request.path_and_query().to_string(),
        // Later values of a repeated header replace earlier ones.
        headers: request.headers.iter().cloned().collect(),
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
        Some(step) => respond(step, &parsed, stop),
        None => status_response(
            500,
            json!({"error": {"message": format!("scripted server: script exhausted at request {number}")}}).to_string(),
            None,
        ),
    }
}

/// Turns a script step into a response, following delays, repeats and responders. A delay
/// cut short by the server stopping ends here; the server sends nothing then.
fn respond(mut step: Scripted, request: &Value, stop: &Stop) -> Response {
    loop {
        step = match step {
            Scripted::Reply { content, usage, finish_reason } => {
                return Response::json(200, &completion(request, &content, usage, finish_reason));
            }
            Scripted::Status { status, body, retry_after } => return status_response(status, body, retry_after),
            Scripted::Malformed(body) => return Response::new(200, "application/json", body),
            Scripted::Delay { secs, then } => {
                if !stop.sleep(Duration::from_secs_f64(secs.max(0.0))) {
                    return Response::empty(503);
                }
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

/// `status` (500 when it is not a valid code) with `body`, as JSON when it parses as JSON, and a
/// `Retry-After` header when given one that can be sent.
fn status_response(status: u16, body: String, retry_after: Option<String>) -> Response {
    let status = if (100..=999).contains(&status) { status } else { 500 };
    let content_type =
        if serde_json::from_str::<Value>(&body).is_ok() { "application/json" } else { "text/plain; charset=utf-8" };
    let resp = Response::new(status, content_type, body);
    match retry_after {
        Some(value) if http_server::is_header_value(&value) => resp.with_header("Retry-After", &value),
        _ => resp,
    }
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

/// A scripted LLM that answers every SQL request with `sql` (and expects no other request).
pub fn sql_llm(sql: &'static str) -> ScriptedLlmServer {
    ScriptedLlmServer::with_responder(move |body| {
        assert_eq!(body["response_format"]["json_schema"]["name"], "sql_query", "only SQL calls expected");
        Scripted::reply(serde_json::json!({ "sql": sql }).to_string())
    })
}
