//! A remote Elasticsearch (8, 9) or OpenSearch (2) index over HTTP(S): [`RemoteEngine`]
//! implements [`SearchEngine`] with reqwest's blocking client (rustls).
//!
//! Only three requests are ever built, and their paths come from the configured index and
//! [`Endpoint`], never from user text: `GET /<index>/_mapping`, `POST /<index>/_search` and
//! `POST /<index>/_count`, the last two with a body the guard accepted ([`CheckedRequest`]).
//!
//! - **Authentication**: an API key (`Authorization: ApiKey …`) or basic authentication (user
//!   name and password, from the URL's userinfo or the environment), see [`Auth`]. Credentials
//!   are sent as headers only; they never appear in [`SearchEngine::target`], errors or `Debug`
//!   output (every error text is scrubbed of each form a secret could take).
//! - **TLS**: the built-in roots plus, optionally, the CA certificates of a PEM file
//!   ([`RemoteConfig::ca_cert`]).
//! - **Timeouts and retries**: each request may take [`RemoteConfig::timeout_ms`] plus one
//!   second (the guard puts the same timeout in the body, so the server's partial answer comes
//!   first). 429, 502, 503 and 504 are retried up to [`RemoteConfig::retries`] times with
//!   exponential back-off, honouring `Retry-After` (in seconds) up to
//!   [`RemoteConfig::max_backoff_ms`]; nothing else is retried.
//! - **Errors**: an Elasticsearch error body (`{"error": {"type", "reason", "root_cause"},
//!   "status"}`) becomes [`EsError::Http`] with `type: reason`; a missing index
//!   (`index_not_found_exception`) becomes [`EsError::NoIndex`]; connection, TLS and timeout
//!   failures become [`EsError::Unreachable`] with the URL without credentials.
//! - **Responses** are returned in Elasticsearch's format; a `hits.total` given as a plain number
//!   (OpenSearch with `rest_total_hits_as_int`, old servers) is normalized to
//!   `{"value": n, "relation": "eq"}`. A mapping response for an alias over several indices is
//!   read from its first index.
//!
//! # What the loopback tests do not verify
//! The integration tests (`tests/it/es_remote.rs`) run this client against a loopback server
//! that speaks the ES REST API and answers from the embedded engine. They check the wire format,
//! authentication headers, retries, error bodies and that refused requests never leave the
//! process. They do **not** verify:
//! - Elasticsearch's own query semantics beyond the subset the embedded engine implements
//!   (analyzers, scoring, `minimum_should_match` details, date math rounding, time zones, the
//!   exact bucket keys and ordering of a real cluster);
//! - TLS against a real server (certificate chains, SNI, a custom CA file in use): the loopback
//!   server speaks plain HTTP;
//! - OpenSearch differences beyond the `hits.total` shape (security plugin error bodies,
//!   version-specific parameters);
//! - cluster errors and partial results: shard failures (`_shards.failed`), `timed_out: true`,
//!   circuit breakers, `search.max_buckets` and other cluster limits, read-only or red clusters,
//!   redirects and proxies in front of the cluster.

mod config;

use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use serde_json::{Value, json};

pub use config::{Auth, DEFAULT_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, RemoteConfig, redact_url};

use crate::{CheckedRequest, Endpoint, EsError, Mapping, SearchEngine};

/// Longest error reason kept from a server's answer (characters).
const MAX_REASON_CHARS: usize = 500;

/// The statuses retried (with back-off).
pub const RETRIED_STATUSES: &[u16] = &[429, 502, 503, 504];

/// A remote index that answers checked requests. `Debug` shows the configuration with its
/// secrets redacted.
pub struct RemoteEngine {
    config: RemoteConfig,
    client: Client,
    /// The `Authorization` header, marked sensitive.
    authorization: Option<HeaderValue>,
    /// Every form of every secret, scrubbed from error texts.
    secrets: Vec<String>,
}

impl RemoteEngine {
    /// A client for `config` (reads the CA file, if any). Nothing is sent yet.
    pub fn new(config: RemoteConfig) -> Result<RemoteEngine, EsError> {
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
        Ok(RemoteEngine { config, client, authorization, secrets })
    }

    /// The configuration (its secrets stay hidden in `Debug`).
    pub fn config(&self) -> &RemoteConfig {
        &self.config
    }

    /// Send one request to `/<index>/<path>` with retries; the JSON answer.
    fn send(&self, get: bool, path: &str, body: Option<&Value>) -> Result<Value, EsError> {
        let url = format!("{}/{path}", self.config.target());
        let mut attempt = 0u32;
        loop {
            let mut request = if get { self.client.get(&url) } else { self.client.post(&url) };
            request = self.authorize(request.header(ACCEPT, "application/json"));
            if let Some(b) = body {
                request = request.header(CONTENT_TYPE, "application/json").body(b.to_string());
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
    fn http_error(&self, status: u16, text: &str) -> EsError {
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
            reason.push_str(" (set QA_ES_API_KEY, or QA_ES_USERNAME and QA_ES_PASSWORD)");
        }
        let reason = scrub(&self.secrets, &reason);
        EsError::Http { status, reason: qa_core::text::truncate(&reason, MAX_REASON_CHARS) }
    }
}

impl std::fmt::Debug for RemoteEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEngine").field("config", &self.config).finish_non_exhaustive()
    }
}

impl SearchEngine for RemoteEngine {
    fn index(&self) -> &str {
        &self.config.index
    }

    fn target(&self) -> String {
        self.config.target()
    }

    fn mapping(&self) -> Result<Mapping, EsError> {
        let v = self.send(true, "_mapping", None)?;
        Mapping::from_es_json(&self.config.index, &v)
    }

    fn run(&self, request: &CheckedRequest) -> Result<Value, EsError> {
        let mut v = self.send(false, request.endpoint().path(), Some(request.body()))?;
        if request.endpoint() == Endpoint::Search {
            normalize_total(&mut v);
        }
        Ok(v)
    }
}

/// `hits.total` as `{"value", "relation"}` also when the server sent a plain number.
pub fn normalize_total(response: &mut Value) {
    if let Some(total) = response.get_mut("hits").and_then(|h| h.get_mut("total"))
        && let Some(n) = total.as_u64()
    {
        *total = json!({"value": n, "relation": "eq"});
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
fn backoff(attempt: u32, retry_after: Option<Duration>, config: &RemoteConfig) -> Duration {
    let exp = config.backoff_ms.saturating_mul(1u64 << attempt.min(20));
    let wait = retry_after.unwrap_or(Duration::from_millis(exp));
    wait.min(Duration::from_millis(config.max_backoff_ms))
}

/// `Retry-After: <seconds>` (the HTTP-date form is ignored: the back-off applies).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_error_bodies() {
        let es = r#"{"error":{"root_cause":[{"type":"parsing_exception","reason":"unknown query [foo]"}],"type":"parsing_exception","reason":"unknown query [foo]","line":1},"status":400}"#;
        assert_eq!(error_reason(es), (Some("parsing_exception".into()), Some("unknown query [foo]".into())));
        let root_only = r#"{"error":{"root_cause":[{"type":"x_exception","reason":"why"}]},"status":500}"#;
        assert_eq!(error_reason(root_only), (Some("x_exception".into()), Some("why".into())));
        assert_eq!(error_reason(r#"{"error":"Unauthorized"}"#), (None, Some("Unauthorized".into())));
        assert_eq!(error_reason("\n<html>Bad gateway</html>"), (None, Some("<html>Bad gateway</html>".into())));
    }

    #[test]
    fn normalizes_numeric_totals() {
        let mut v = json!({"hits": {"total": 7, "hits": []}});
        normalize_total(&mut v);
        assert_eq!(v["hits"]["total"], json!({"value": 7, "relation": "eq"}));
        let mut v = json!({"hits": {"total": {"value": 10000, "relation": "gte"}}});
        let before = v.clone();
        normalize_total(&mut v);
        assert_eq!(v, before);
    }

    #[test]
    fn backoff_doubles_honours_retry_after_and_is_capped() {
        let mut c = RemoteConfig::from_url("http://h/i").unwrap();
        (c.backoff_ms, c.max_backoff_ms) = (100, 1_000);
        assert_eq!(backoff(0, None, &c), Duration::from_millis(100));
        assert_eq!(backoff(2, None, &c), Duration::from_millis(400));
        assert_eq!(backoff(9, None, &c), Duration::from_millis(1_000));
        assert_eq!(backoff(0, Some(Duration::from_millis(700)), &c), Duration::from_millis(700));
        assert_eq!(backoff(0, Some(Duration::from_secs(3600)), &c), Duration::from_millis(1_000));
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(RETRY_AFTER, HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn errors_never_show_secrets() {
        let mut c = RemoteConfig::from_url("http://elastic:s3cret-pw@127.0.0.1:1/idx").unwrap();
        c.api_key = Some(qa_core::secret::Secret::new("the-api-key"));
        let e = RemoteEngine::new(c).unwrap();
        assert!(!format!("{e:?}").contains("s3cret-pw") && !format!("{e:?}").contains("the-api-key"));
        let err = e.http_error(401, r#"{"error":{"type":"security_exception","reason":"bad key the-api-key for elastic:s3cret-pw"},"status":401}"#);
        let shown = err.to_string();
        assert!(shown.contains("security_exception") && shown.contains("QA_ES_API_KEY"), "{shown}");
        assert!(!shown.contains("the-api-key") && !shown.contains("s3cret-pw"), "{shown}");
        let missing = e.http_error(404, r#"{"error":{"type":"index_not_found_exception","reason":"no such index [idx]"},"status":404}"#);
        assert!(matches!(missing, EsError::NoIndex { .. }), "{missing}");
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_an_error() {
        let mut c = RemoteConfig::from_url("https://h/idx").unwrap();
        c.ca_cert = Some("/nonexistent/ca.pem".into());
        assert!(matches!(RemoteEngine::new(c.clone()), Err(EsError::Io { .. })));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate").unwrap();
        c.ca_cert = Some(path);
        assert!(matches!(RemoteEngine::new(c), Err(EsError::Io { .. })));
    }
}
