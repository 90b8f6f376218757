//! One authenticated HTTP(S) connection to an Elasticsearch or OpenSearch server: the client,
//! the `Authorization` header, retries with back-off, error bodies read into [`EsError`], and
//! every secret scrubbed from what an error shows. The read-only question path
//! ([`super::RemoteEngine`]) and the documents' retrieval store (`qa-store`) both send through
//! it; each decides which paths it ever builds.

use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use serde_json::Value;

use super::config::{self, Auth, RemoteConfig, redact_url};
use crate::EsError;

/// Longest error reason kept from a server's answer (characters).
const MAX_REASON_CHARS: usize = 500;

/// The statuses retried (with back-off).
pub const RETRIED_STATUSES: &[u16] = &[429, 502, 503, 504];

/// The HTTP methods the clients use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `DELETE`.
    Delete,
}

/// A request body.
#[derive(Debug, Clone, Copy)]
pub enum Body<'a> {
    /// `application/json`.
    Json(&'a Value),
    /// `application/x-ndjson` (`_bulk`): lines that end with a newline.
    Ndjson(&'a str),
}

/// A client for one server. `Debug` shows the configuration with its secrets redacted.
pub struct Connection {
    config: RemoteConfig,
    client: Client,
    /// The `Authorization` header, marked sensitive.
    authorization: Option<HeaderValue>,
    /// Every form of every secret, scrubbed from error texts.
    secrets: Vec<String>,
    /// What a 401 tells the user to set.
    credentials_hint: &'static str,
}

impl Connection {
    /// A client for `config` (reads the CA file, if any). Nothing is sent yet. A 401 will name
    /// `credentials_hint` (the settings that hold the credentials).
    pub fn new(config: RemoteConfig, credentials_hint: &'static str) -> Result<Connection, EsError> {
        config::check_index(&config.index)?;
        if redact_url(&config.base) != config.base {
            return Err(EsError::NoIndex { name: redact_url(&config.base), hint: "put credentials in the environment, not in the base URL".into() });
        }
        let target = config.target();
        let mut builder = Client::builder()
            .timeout(Duration::from_millis(config.timeout_ms.saturating_add(1_000)))
            .connect_timeout(Duration::from_millis(config.timeout_ms.clamp(1, 10_000)))
            .user_agent(concat!("qa/", env!("CARGO_PKG_VERSION")));
        if let Some(path) = &config.ca_cert {
            let pem = std::fs::read(path).map_err(|e| EsError::io("cannot read the CA certificate file", path, e))?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                EsError::io("cannot read the CA certificate file", path, std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
            })?;
            if certs.is_empty() {
                let e = std::io::Error::new(std::io::ErrorKind::InvalidData, "no PEM certificate in it");
                return Err(EsError::io("cannot read the CA certificate file", path, e));
            }
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        let secrets = config.secrets();
        let client = builder.build().map_err(|e| EsError::Unreachable { target: target.clone(), reason: scrub(&secrets, &error_chain(&e)) })?;
        let authorization = match config.auth() {
            Auth::None => None,
            Auth::ApiKey(key) => Some(header_value(&format!("ApiKey {}", key.expose()), &target, "the API key")?),
            Auth::Basic { username, password } => {
                let raw = format!("{username}:{}", password.as_ref().map_or("", |p| p.expose()));
                Some(header_value(&format!("Basic {}", config::base64_of(raw.as_bytes())), &target, "the user name or password")?)
            }
        };
        Ok(Connection { config, client, authorization, secrets, credentials_hint })
    }

    /// The configuration (its secrets stay hidden in `Debug`).
    pub fn config(&self) -> &RemoteConfig {
        &self.config
    }

    /// `text` without any form of a configured secret.
    pub fn scrub(&self, text: &str) -> String {
        scrub(&self.secrets, text)
    }

    /// Send one request to `base/path` (`path` relative to the base URL: `""` for the cluster's
    /// information, `INDEX/_search`, …) with retries; the JSON answer.
    pub fn send(&self, method: Method, path: &str, body: Option<Body<'_>>) -> Result<Value, EsError> {
        let url = if path.is_empty() { format!("{}/", self.config.base) } else { format!("{}/{path}", self.config.base) };
        let mut attempt = 0u32;
        loop {
            let mut request = match method {
                Method::Get => self.client.get(&url),
                Method::Post => self.client.post(&url),
                Method::Put => self.client.put(&url),
                Method::Delete => self.client.delete(&url),
            };
            request = self.authorize(request.header(ACCEPT, "application/json"));
            match body {
                Some(Body::Json(b)) => request = request.header(CONTENT_TYPE, "application/json").body(b.to_string()),
                Some(Body::Ndjson(b)) => request = request.header(CONTENT_TYPE, "application/x-ndjson").body(b.to_string()),
                None => {}
            }
            let response = request.send().map_err(|e| self.unreachable(&e))?;
            let status = response.status().as_u16();
            if RETRIED_STATUSES.contains(&status) && attempt < self.config.retries {
                let wait = backoff(attempt, retry_after(response.headers()), &self.config);
                // Read the body so the connection can be reused.
                let _ = response.bytes();
                tracing::debug!(status, attempt, wait_ms = wait.as_millis() as u64, "es: retrying");
                std::thread::sleep(wait);
                attempt += 1;
                continue;
            }
            return self.answer(status, response);
        }
    }

    fn authorize(&self, request: RequestBuilder) -> RequestBuilder {
        match &self.authorization {
            Some(h) => request.header(AUTHORIZATION, h.clone()),
            None => request,
        }
    }

    fn answer(&self, status: u16, response: Response) -> Result<Value, EsError> {
        let text = response.text().map_err(|e| self.unreachable(&e))?;
        if !(200..300).contains(&status) {
            return Err(self.http_error(status, &text));
        }
        serde_json::from_str(&text).map_err(|e| EsError::Json(format!("{} answered {status} with a body that is not JSON: {e}", self.config.target())))
    }

    fn unreachable(&self, e: &reqwest::Error) -> EsError {
        let reason = if e.is_timeout() { format!("timed out after {} ms ({})", self.config.timeout_ms, error_chain(e)) } else { error_chain(e) };
        EsError::Unreachable { target: self.config.target(), reason: scrub(&self.secrets, &reason) }
    }

    /// An error status with its Elasticsearch error body (or whatever text came).
    pub(super) fn http_error(&self, status: u16, text: &str) -> EsError {
        let (kind, reason) = error_reason(text);
        if status == 404 && kind.as_deref() == Some("index_not_found_exception") {
            return EsError::NoIndex {
                name: self.config.target(),
                hint: "the server has no index or alias of that name: check the URL's last path segment".into(),
            };
        }
        let mut reason = match (kind, reason) {
            (Some(k), Some(r)) => format!("{k}: {r}"),
            (None, Some(r)) => r,
            (Some(k), None) => k,
            (None, None) => reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("error").to_string(),
        };
        if status == 401 {
            reason.push_str(&format!(" (set {})", self.credentials_hint));
        }
        let reason = scrub(&self.secrets, &reason);
        EsError::Http { status, reason: qa_core::text::truncate(&reason, MAX_REASON_CHARS) }
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("config", &self.config).finish_non_exhaustive()
    }
}

/// `(error.type, error.reason)` of an Elasticsearch error body; the root cause's reason when
/// the top one has none; a string `error`, or the body's first line, as the reason otherwise.
pub fn error_reason(body: &str) -> (Option<String>, Option<String>) {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty());
    match serde_json::from_str::<Value>(body).ok().as_ref().and_then(|v| v.get("error")) {
        Some(e @ Value::Object(_)) => {
            let root = e.get("root_cause").and_then(|r| r.get(0));
            let kind = text(e.get("type")).or_else(|| text(root.and_then(|r| r.get("type"))));
            let reason = text(e.get("reason")).or_else(|| text(root.and_then(|r| r.get("reason"))));
            (kind, reason)
        }
        Some(Value::String(s)) => (None, Some(s.clone())),
        _ => (None, body.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)),
    }
}

/// The wait before retry `attempt` (0-based): `Retry-After` if the server gave one, else the
/// exponential back-off; never more than `max_backoff_ms`.
pub fn backoff(attempt: u32, retry_after: Option<Duration>, config: &RemoteConfig) -> Duration {
    let exp = config.backoff_ms.saturating_mul(1u64 << attempt.min(20));
    let wait = retry_after.unwrap_or(Duration::from_millis(exp));
    wait.min(Duration::from_millis(config.max_backoff_ms))
}

/// `Retry-After: <seconds>` (the HTTP-date form is ignored: the back-off applies).
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let secs: u64 = headers.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
}

fn header_value(value: &str, target: &str, what: &str) -> Result<HeaderValue, EsError> {
    let mut h = HeaderValue::from_str(value)
        .map_err(|_| EsError::Unreachable { target: target.to_string(), reason: format!("{what} cannot be sent in an HTTP header (control characters?)") })?;
    h.set_sensitive(true);
    Ok(h)
}

/// The error and its sources, without the URL (added by the caller, credential-free).
fn error_chain(e: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p: &String| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

fn scrub(secrets: &[String], text: &str) -> String {
    secrets.iter().fold(text.to_string(), |t, s| qa_core::secret::scrub_secret(&t, Some(s)))
}
