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
mod connection;

use serde_json::{Value, json};

pub use config::{Auth, DEFAULT_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, RemoteConfig, redact_url};
pub use connection::{Body, Connection, Method, RETRIED_STATUSES, backoff, error_reason};

use crate::{CheckedRequest, Endpoint, EsError, Mapping, SearchEngine};

/// A remote index that answers checked requests. `Debug` shows the configuration with its
/// secrets redacted.
#[derive(Debug)]
pub struct RemoteEngine {
    connection: Connection,
}

/// The settings a 401 of the question path names.
const CREDENTIALS: &str = "QA_ES_API_KEY, or QA_ES_USERNAME and QA_ES_PASSWORD";

impl RemoteEngine {
    /// A client for `config` (reads the CA file, if any). Nothing is sent yet.
    pub fn new(config: RemoteConfig) -> Result<RemoteEngine, EsError> {
        Ok(RemoteEngine { connection: Connection::new(config, CREDENTIALS)? })
    }

    /// The configuration (its secrets stay hidden in `Debug`).
    pub fn config(&self) -> &RemoteConfig {
        self.connection.config()
    }

    fn send(&self, get: bool, path: &str, body: Option<&Value>) -> Result<Value, EsError> {
        let method = if get { Method::Get } else { Method::Post };
        self.connection.send(method, &format!("{}/{path}", self.config().index), body.map(Body::Json))
    }
}

impl SearchEngine for RemoteEngine {
    fn index(&self) -> &str {
        &self.config().index
    }

    fn target(&self) -> String {
        self.config().target()
    }

    fn mapping(&self) -> Result<Mapping, EsError> {
        let v = self.send(true, "_mapping", None)?;
        Mapping::from_es_json(&self.config().index, &v)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

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
        assert_eq!(connection::retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(RETRY_AFTER, HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(connection::retry_after(&h), None);
    }

    #[test]
    fn errors_never_show_secrets() {
        let mut c = RemoteConfig::from_url("http://elastic:s3cret-pw@127.0.0.1:1/idx").unwrap();
        c.api_key = Some(qa_core::secret::Secret::new("the-api-key"));
        let e = RemoteEngine::new(c).unwrap();
        assert!(!format!("{e:?}").contains("s3cret-pw") && !format!("{e:?}").contains("the-api-key"));
        let err = e.connection.http_error(401, r#"{"error":{"type":"security_exception","reason":"bad key the-api-key for elastic:s3cret-pw"},"status":401}"#);
        let shown = err.to_string();
        assert!(shown.contains("security_exception") && shown.contains("QA_ES_API_KEY"), "{shown}");
        assert!(!shown.contains("the-api-key") && !shown.contains("s3cret-pw"), "{shown}");
        let missing = e.connection.http_error(404, r#"{"error":{"type":"index_not_found_exception","reason":"no such index [idx]"},"status":404}"#);
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
