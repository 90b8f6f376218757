//! The remote engine against the loopback Elasticsearch double (`common::es_server`): the wire
//! format, authentication, retries, errors, and that only checked requests reach the server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use qa_core::secret::Secret;
use qa_es::guard;
use qa_es::remote::{RemoteConfig, RemoteEngine};
use qa_es::{Endpoint, EsError, EsLimits, Mapping, SearchEngine};
use serde_json::{Value, json};

use crate::common::es_server::{Backend, EsServer, RequiredAuth};

const API_KEY: &str = "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==";
const PASSWORD: &str = "p4ss-w0rd-7f3a";

/// A mapping of a domain unlike the sample's: library loans.
fn loans_mapping() -> Value {
    json!({"mappings": {"properties": {
        "member": {"type": "keyword"},
        "title": {"type": "text", "fields": {"keyword": {"type": "keyword"}}},
        "branch": {"type": "keyword"},
        "days": {"type": "integer"},
        "borrowed": {"type": "date"}
    }}})
}

/// A backend that answers every search with no hits (for tests about the transport).
fn empty_backend() -> Backend {
    Arc::new(|endpoint, _body| {
        Ok(match endpoint {
            Endpoint::Search => json!({"took": 1, "timed_out": false, "hits": {"total": {"value": 0, "relation": "eq"}, "max_score": null, "hits": []}}),
            Endpoint::Count => json!({"count": 0}),
        })
    })
}

fn config(url: &str) -> RemoteConfig {
    let mut c = RemoteConfig::from_url(url).unwrap();
    (c.backoff_ms, c.max_backoff_ms, c.timeout_ms) = (5, 200, 5_000);
    c
}

fn engine(c: RemoteConfig) -> RemoteEngine {
    RemoteEngine::new(c).unwrap()
}

fn match_all(mapping: &Mapping) -> qa_es::CheckedRequest {
    guard::checked(&json!({"query": {"match_all": {}}, "size": 5}), Endpoint::Search, mapping, &EsLimits::default()).unwrap()
}

#[test]
fn reads_the_mapping() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).start();
    let e = engine(config(&server.index_url()));
    let m = e.mapping().unwrap();
    assert_eq!(m.index, "loans");
    assert_eq!(m.field("title.keyword").map(|f| f.path.as_str()), Some("title"));
    assert_eq!(m.kind_of("borrowed"), Some(qa_es::FieldKind::Date));
    let log = server.requests();
    assert_eq!(log.len(), 1);
    assert_eq!((log[0].method.as_str(), log[0].path.as_str()), ("GET", "/loans/_mapping"));
    assert_eq!(e.target(), server.index_url());
}

#[test]
fn numeric_totals_are_normalized() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).numeric_total().start();
    let e = engine(config(&server.index_url()));
    let m = e.mapping().unwrap();
    let v = e.run(&match_all(&m)).unwrap();
    assert_eq!(v["hits"]["total"], json!({"value": 0, "relation": "eq"}));
}

#[test]
fn retries_429_then_succeeds_honouring_retry_after() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).start();
    let mut c = config(&server.index_url());
    c.max_backoff_ms = 300;
    let e = engine(c);
    let m = e.mapping().unwrap();
    server.clear_log();
    server.fail_next(&[429, 429], Some("1"));
    let t = Instant::now();
    let v = e.run(&match_all(&m)).unwrap();
    assert_eq!(v["hits"]["total"]["value"], json!(0));
    assert_eq!(server.requests().len(), 3, "two 429s, then the answer");
    let waited = t.elapsed();
    assert!(waited >= Duration::from_millis(550) && waited < Duration::from_secs(2), "Retry-After 1 s cut to 300 ms, twice: {waited:?}");
}

#[test]
fn retries_5xx_then_reports_the_error() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).start();
    let mut c = config(&server.index_url());
    c.retries = 2;
    let e = engine(c);
    let m = e.mapping().unwrap();
    server.clear_log();
    server.fail_next(&[503, 502, 504], None);
    let err = e.run(&match_all(&m)).unwrap_err();
    assert!(matches!(err, EsError::Http { status: 504, .. }), "{err}");
    assert_eq!(server.requests().len(), 3, "the first attempt and two retries");
    // Other errors are not retried.
    server.clear_log();
    server.fail_next(&[500], None);
    let err = e.run(&match_all(&m)).unwrap_err();
    assert!(matches!(err, EsError::Http { status: 500, .. }), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn unauthenticated_requests_get_401_without_secrets_in_the_message() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).auth(RequiredAuth::ApiKey(API_KEY.into())).start();
    let err = engine(config(&server.index_url())).mapping().unwrap_err();
    assert!(matches!(err, EsError::Http { status: 401, .. }), "{err}");
    assert!(err.to_string().contains("QA_ES_API_KEY"), "{err}");
    let mut wrong = config(&server.index_url());
    wrong.api_key = Some(Secret::new("d3Jvbmc6a2V5"));
    let err = engine(wrong).mapping().unwrap_err();
    assert!(matches!(err, EsError::Http { status: 401, .. }) && !err.to_string().contains("d3Jvbmc6a2V5"), "{err}");
}

#[test]
fn api_key_is_sent_as_a_header() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).auth(RequiredAuth::ApiKey(API_KEY.into())).start();
    let mut c = config(&server.index_url());
    c.api_key = Some(Secret::new(API_KEY));
    let e = engine(c);
    let m = e.mapping().unwrap();
    e.run(&match_all(&m)).unwrap();
    let log = server.requests();
    assert!(log.iter().all(|r| r.authorization.as_deref() == Some(format!("ApiKey {API_KEY}").as_str())), "{log:?}");
    assert!(!format!("{e:?}").contains(API_KEY));
}

#[test]
fn basic_auth_from_the_url_is_sent_and_never_shown() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).auth(RequiredAuth::Basic("reader".into(), PASSWORD.into())).start();
    let with_userinfo = server.index_url().replace("http://", &format!("http://reader:{PASSWORD}@"));
    let e = engine(config(&with_userinfo));
    assert_eq!(e.target(), server.index_url(), "the target has no credentials");
    let m = e.mapping().unwrap();
    e.run(&match_all(&m)).unwrap();
    let log = server.requests();
    assert!(log.iter().all(|r| r.authorization.as_deref().is_some_and(|a| a.starts_with("Basic "))), "{log:?}");
    assert!(log.iter().all(|r| !r.path.contains(PASSWORD)));
    // A wrong password: the error names neither it nor the right one.
    let wrong = server.index_url().replace("http://", "http://reader:not-the-password@");
    let err = engine(config(&wrong)).mapping().unwrap_err().to_string();
    assert!(err.contains("401") && !err.contains("not-the-password") && !err.contains(PASSWORD), "{err}");
    assert!(!format!("{e:?}").contains(PASSWORD));
}

#[test]
fn unknown_index_is_no_index() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).start();
    let err = engine(config(&format!("{}/returns", server.url()))).mapping().unwrap_err();
    assert!(matches!(err, EsError::NoIndex { ref name, .. } if name.ends_with("/returns")), "{err}");
}

#[test]
fn unreachable_server_names_the_url_without_credentials() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://reader:{PASSWORD}@127.0.0.1:{port}/loans");
    let err = engine(config(&url)).mapping().unwrap_err();
    let shown = err.to_string();
    assert!(matches!(err, EsError::Unreachable { .. }), "{shown}");
    assert!(shown.contains(&format!("127.0.0.1:{port}/loans")) && !shown.contains(PASSWORD) && !shown.contains("reader:"), "{shown}");
}

#[test]
fn a_refused_body_never_reaches_the_server() {
    let server = EsServer::builder("loans", loans_mapping(), empty_backend()).start();
    let e = engine(config(&server.index_url()));
    let m = e.mapping().unwrap();
    server.clear_log();
    for text in [
        r#"{"query": {"script": {"script": "1"}}}"#,
        "POST /loans/_delete_by_query\n{\"query\": {\"match_all\": {}}}",
        r#"{"query": {"term": {"no_such_field": 1}}}"#,
        "GET /other/_search",
    ] {
        let err = guard::checked_pasted(text, &m, &EsLimits::default()).unwrap_err();
        assert!(matches!(err, EsError::Refused(_)), "{text}: {err}");
    }
    assert!(server.requests().is_empty(), "nothing was sent: {:?}", server.requests());
    // An accepted one is sent as checked, to the endpoint's path.
    let req = guard::checked_pasted("POST loans/_count\n{\"query\": {\"term\": {\"branch\": \"east\"}}}", &m, &EsLimits::default()).unwrap();
    assert_eq!(e.run(&req).unwrap(), json!({"count": 0}));
    let log = server.requests();
    assert_eq!((log[0].method.as_str(), log[0].path.as_str()), ("POST", "/loans/_count"));
    assert_eq!(serde_json::from_str::<Value>(&log[0].body).unwrap(), *req.body());
}

#[test]
fn a_bad_query_is_an_http_error_with_the_server_s_reason() {
    let backend: Backend = Arc::new(|_, _| Err(EsError::Unsupported("failed to create query: [days] is not a number".into())));
    let server = EsServer::builder("loans", loans_mapping(), backend).start();
    let e = engine(config(&server.index_url()));
    let m = e.mapping().unwrap();
    let err = e.run(&match_all(&m)).unwrap_err();
    match err {
        EsError::Http { status, reason } => {
            assert_eq!(status, 400);
            assert!(reason.starts_with("search_phase_execution_exception: ") && reason.contains("[days] is not a number"), "{reason}");
        }
        other => panic!("{other}"),
    }
}

// ---- Answers from the embedded engine behind the server: the same hits, totals and buckets.

mod live {
    use std::sync::Arc;

    use qa_core::progress::Silent;
    use qa_es::embedded::EmbeddedIndex;
    use qa_es::guard;
    use qa_es::remote::{RemoteConfig, RemoteEngine};
    use qa_es::{Endpoint, EsLimits, Mapping, SearchEngine};
    use serde_json::{Map, Value, json};

    use crate::common::es_server::{Backend, EsServer};

    /// An embedded index, the loopback server answering from it, and the remote engine.
    struct Live {
        _dir: tempfile::TempDir,
        embedded: Arc<EmbeddedIndex>,
        server: EsServer,
        remote: RemoteEngine,
    }

    fn live(name: &str, mapping: Value, records: &[Map<String, Value>]) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let mapping = Mapping::from_es_json(name, &mapping).unwrap();
        EmbeddedIndex::create(dir.path(), name, records, &mapping, &Silent).unwrap();
        let embedded = Arc::new(EmbeddedIndex::open(dir.path(), name).unwrap());
        let idx = embedded.clone();
        let backend: Backend = Arc::new(move |endpoint, body| idx.execute_json(endpoint, body));
        let server = EsServer::builder(name, mapping.to_es_json(), backend).start();
        let remote = RemoteEngine::new(RemoteConfig::from_url(&server.index_url()).unwrap()).unwrap();
        Live { _dir: dir, embedded, server, remote }
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    const BRANCHES: [&str; 3] = ["east", "west", "harbour"];
    const CLINICS: [&str; 2] = ["north", "south"];

    /// Library loans (deterministic).
    fn loans() -> (Value, Vec<Map<String, Value>>) {
        let mapping = json!({"properties": {
            "member": {"type": "keyword"},
            "title": {"type": "text", "fields": {"keyword": {"type": "keyword"}}},
            "branch": {"type": "keyword"},
            "days": {"type": "integer"},
            "borrowed": {"type": "date"}
        }});
        let titles = ["The Salt Road", "Winter Orchard", "A Map of Rivers", "Night Ferry"];
        let records = (0..60)
            .map(|i: i64| {
                obj(json!({
                    "member": format!("m{:02}", i % 7),
                    "title": titles[(i % 4) as usize],
                    "branch": BRANCHES[(i % 3) as usize],
                    "days": (i * 7) % 30 + 1,
                    "borrowed": format!("2025-{:02}-{:02}", i % 12 + 1, i % 28 + 1)
                }))
            })
            .collect();
        (mapping, records)
    }

    /// Clinic visits (deterministic).
    fn visits() -> (Value, Vec<Map<String, Value>>) {
        let mapping = json!({"properties": {
            "patient": {"type": "keyword"},
            "clinic": {"type": "keyword"},
            "cost": {"type": "double"},
            "insured": {"type": "boolean"},
            "visited": {"type": "date"}
        }});
        let records = (0..45)
            .map(|i: i64| {
                obj(json!({
                    "patient": format!("p{}", i % 11),
                    "clinic": CLINICS[(i % 2) as usize],
                    "cost": 20.0 + (i % 9) as f64 * 12.5,
                    "insured": i % 4 != 0,
                    "visited": format!("2024-{:02}-15", i % 6 + 1)
                }))
            })
            .collect();
        (mapping, records)
    }

    /// Runs `body` (checked against the mapping read over the wire) on both engines.
    fn both(l: &Live, endpoint: Endpoint, body: Value) -> (Value, Value) {
        let mapping = l.remote.mapping().unwrap();
        let req = guard::checked(&body, endpoint, &mapping, &EsLimits::default()).unwrap();
        (l.remote.run(&req).unwrap(), l.embedded.run(&req).unwrap())
    }

    #[test]
    fn the_mapping_read_over_the_wire_is_the_embedded_one() {
        for (name, (mapping, records)) in [("loans", loans()), ("visits", visits())] {
            let l = live(name, mapping, &records);
            assert_eq!(l.remote.mapping().unwrap(), l.embedded.mapping().unwrap());
        }
    }

    #[test]
    fn hits_and_aggregations_equal_the_embedded_engine_s() {
        let (mapping, records) = loans();
        let l = live("loans", mapping, &records);
        let body = json!({
            "query": {"bool": {"filter": [{"term": {"branch": "east"}}, {"range": {"days": {"gte": 10}}}]}},
            "sort": [{"days": "desc"}, {"member": "asc"}],
            "size": 5,
            "aggs": {"per_member": {"terms": {"field": "member", "size": 3}, "aggs": {"longest": {"max": {"field": "days"}}}}}
        });
        let (remote, embedded) = both(&l, Endpoint::Search, body);
        let expected = records.iter().filter(|r| r["branch"] == "east" && r["days"].as_i64().unwrap() >= 10).count() as u64;
        assert!(expected > 5 && expected < records.len() as u64, "a filter that selects some: {expected}");
        assert_eq!(remote["hits"]["total"], json!({"value": expected, "relation": "eq"}));
        assert_eq!(remote["hits"]["total"], embedded["hits"]["total"]);
        let sources = |v: &Value| v["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_source"].clone()).collect::<Vec<_>>();
        assert_eq!(sources(&remote).len(), 5);
        assert_eq!(sources(&remote), sources(&embedded));
        let days: Vec<i64> = sources(&remote).iter().map(|s| s["days"].as_i64().unwrap()).collect();
        assert!(days.windows(2).all(|w| w[0] >= w[1]), "sorted by days, descending: {days:?}");
        assert_eq!(remote["aggregations"], embedded["aggregations"]);
        assert_eq!(remote["aggregations"]["per_member"]["buckets"].as_array().map(Vec::len), Some(3));
    }

    #[test]
    fn date_histograms_and_counts_equal_the_embedded_engine_s() {
        let (mapping, records) = visits();
        let l = live("visits", mapping, &records);
        let body = json!({"size": 0, "aggs": {"per_month": {"date_histogram": {"field": "visited", "calendar_interval": "month"},
            "aggs": {"spent": {"sum": {"field": "cost"}}}}}});
        let (remote, embedded) = both(&l, Endpoint::Search, body);
        assert_eq!(remote["aggregations"], embedded["aggregations"]);
        assert_eq!(remote["aggregations"]["per_month"]["buckets"].as_array().map(Vec::len), Some(6));
        let insured = records.iter().filter(|r| r["insured"] == json!(true)).count();
        let (remote, embedded) = both(&l, Endpoint::Count, json!({"query": {"term": {"insured": true}}}));
        assert_eq!(remote, embedded);
        assert_eq!(remote["count"], json!(insured));
        let log = l.server.requests();
        let last = log.last().unwrap();
        assert_eq!((last.method.as_str(), last.path.as_str()), ("POST", "/visits/_count"));
    }
}
