//! Self-tests of the document-store double (`common::store_server`), over HTTP as qa will talk to
//! it: the behaviours of OpenSearch and Elasticsearch that `--store` relies on (refusals included),
//! so that tests built on the double test qa and not the double.

use std::time::Duration;

use reqwest::blocking::Client;
use serde_json::{Value, json};

use crate::common::es_server::RequiredAuth;
use crate::common::store_server::{Flavor, StoreServer};

const INDEX: &str = "chunks";
const FLAVORS: [Flavor; 2] = [Flavor::OpenSearch, Flavor::Elasticsearch];
const NDJSON: &str = "application/x-ndjson";

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(10)).build().unwrap()
}

/// Sends `body` as JSON (or nothing); the status and the parsed answer (`null` when empty).
fn call(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = client().request(method.parse().unwrap(), url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

fn bulk_at(url: &str, ndjson: &str, content_type: &str) -> (u16, Value) {
    let resp = client().post(url).header("Content-Type", content_type).body(ndjson.to_string()).send().unwrap();
    (resp.status().as_u16(), resp.json().unwrap())
}

fn bulk(server: &StoreServer, ndjson: &str) -> (u16, Value) {
    bulk_at(&format!("{}/_bulk", server.index_url(INDEX)), ndjson, NDJSON)
}

fn search(server: &StoreServer, body: Value) -> (u16, Value) {
    call("POST", &format!("{}/_search", server.index_url(INDEX)), Some(body))
}

fn count(server: &StoreServer) -> u64 {
    let (status, body) = call("GET", &format!("{}/_count", server.index_url(INDEX)), None);
    assert_eq!(status, 200, "{body}");
    body["count"].as_u64().unwrap()
}

fn refresh(server: &StoreServer) {
    let (status, body) = call("POST", &format!("{}/_refresh", server.index_url(INDEX)), None);
    assert_eq!((status, &body["_shards"]["successful"]), (200, &json!(1)), "{body}");
}

/// `index` actions for (id, source) pairs, newline-terminated.
fn ndjson(docs: &[(&str, Value)]) -> String {
    docs.iter().map(|(id, source)| format!("{}\n{source}\n", json!({"index": {"_id": id}}))).collect()
}

fn chunk(content: &str, doc: &str, vector: [f64; 3]) -> Value {
    json!({"content": content, "title": "", "doc": doc, "chunk": 0, "embedding": vector})
}

fn hit_ids(resp: &Value) -> Vec<&str> {
    resp["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap()).collect()
}

fn item_field<'a>(resp: &'a Value, field: &str) -> Vec<&'a Value> {
    resp["items"].as_array().unwrap().iter().map(|i| &i.as_object().unwrap().values().next().unwrap()[field]).collect()
}

/// A store index of 3-dimensional cosine vectors, in the flavor's mapping.
fn index_body(flavor: Flavor) -> Value {
    let properties = |vector: Value| {
        let p = json!({"content": {"type": "text"}, "title": {"type": "text"}, "doc": {"type": "keyword"}, "chunk": {"type": "integer"}, "embedding": vector});
        json!({"_meta": {"model": "m1", "dims": 3}, "properties": p})
    };
    match flavor {
        Flavor::OpenSearch => json!({"settings": {"index": {"knn": true}}, "mappings": properties(
            json!({"type": "knn_vector", "dimension": 3, "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "lucene"}})
        )}),
        Flavor::Elasticsearch => json!({"mappings": properties(json!({"type": "dense_vector", "dims": 3, "index": true, "similarity": "cosine"}))}),
    }
}

fn server_with_index(flavor: Flavor) -> StoreServer {
    let server = StoreServer::builder(flavor).start();
    let (status, body) = call("PUT", &server.index_url(INDEX), Some(index_body(flavor)));
    assert_eq!(status, 200, "{body}");
    server
}

/// Three refreshed chunks: `a` and `b` on the axes, `c` between them.
fn server_with_docs(flavor: Flavor) -> StoreServer {
    let server = server_with_index(flavor);
    let docs = [("a", chunk("alpha", "d1", [1.0, 0.0, 0.0])), ("b", chunk("beta", "d1", [0.0, 1.0, 0.0])), ("c", chunk("gamma", "d2", [0.7, 0.7, 0.0]))];
    let (status, body) = bulk(&server, &ndjson(&docs));
    assert_eq!((status, &body["errors"]), (200, &json!(false)), "{body}");
    refresh(&server);
    server
}

#[test]
fn creates_an_index_per_flavor_and_refuses_the_other_flavors_vector_type() {
    for flavor in FLAVORS {
        let server = StoreServer::builder(flavor).start();
        let (status, info) = call("GET", &server.url(), None);
        assert_eq!(status, 200);
        assert_eq!(info["version"]["distribution"] == "opensearch", flavor == Flavor::OpenSearch, "{info}");

        let (status, body) = call("PUT", &server.index_url(INDEX), Some(index_body(flavor)));
        assert_eq!((status, &body["acknowledged"], &body["index"]), (200, &json!(true), &json!(INDEX)), "{body}");
        let (status, body) = call("PUT", &server.index_url(INDEX), Some(index_body(flavor)));
        assert_eq!((status, body["error"]["type"].as_str()), (400, Some("resource_already_exists_exception")), "{body}");
        let (status, body) = call("GET", &format!("{}/_mapping", server.index_url(INDEX)), None);
        assert_eq!((status, &body[INDEX]["mappings"]["_meta"]["model"]), (200, &json!("m1")), "{body}");
        server.set_meta(INDEX, json!({"model": "other"}));
        assert_eq!(server.mapping(INDEX).unwrap()["_meta"]["model"], "other");

        let (other, refused) = match flavor {
            Flavor::OpenSearch => (Flavor::Elasticsearch, "No handler for type [dense_vector]"),
            Flavor::Elasticsearch => (Flavor::OpenSearch, "No handler for type [knn_vector]"),
        };
        let mut body = index_body(other);
        body.as_object_mut().unwrap().remove("settings");
        let (status, body) = call("PUT", &server.index_url("other"), Some(body));
        assert_eq!((status, body["error"]["type"].as_str()), (400, Some("mapper_parsing_exception")), "{body}");
        assert!(body["error"]["reason"].as_str().unwrap().contains(refused), "{body}");
        assert!(server.mapping("other").is_none());

        let (status, body) = call("GET", &format!("{}/_mapping", server.index_url("missing")), None);
        assert_eq!((status, body["error"]["type"].as_str(), body["error"]["index"].as_str()), (404, Some("index_not_found_exception"), Some("missing")));
    }

    // OpenSearch wants `index.knn: true` for a knn_vector field; Elasticsearch has no such setting.
    let server = StoreServer::builder(Flavor::OpenSearch).start();
    let mut body = index_body(Flavor::OpenSearch);
    body["settings"] = json!({});
    let (status, body) = call("PUT", &server.index_url(INDEX), Some(body));
    assert_eq!((status, body["error"]["type"].as_str()), (400, Some("illegal_argument_exception")), "{body}");
    let server = StoreServer::builder(Flavor::Elasticsearch).start();
    let mut body = index_body(Flavor::Elasticsearch);
    body["settings"] = json!({"index": {"knn": true}});
    let (status, body) = call("PUT", &server.index_url(INDEX), Some(body));
    assert_eq!(status, 400, "{body}");
    assert!(body["error"]["reason"].as_str().unwrap().contains("unknown setting [index.knn]"), "{body}");
}

#[test]
fn bulk_writes_are_searchable_only_after_a_refresh() {
    for flavor in FLAVORS {
        let server = server_with_index(flavor);
        let (status, body) = bulk(&server, &ndjson(&[("a", chunk("one", "d1", [1.0, 0.0, 0.0])), ("b", chunk("two", "d1", [0.0, 1.0, 0.0]))]));
        assert_eq!((status, &body["errors"]), (200, &json!(false)), "{body}");
        assert_eq!(item_field(&body, "status"), [&json!(201), &json!(201)]);
        assert_eq!(item_field(&body, "result"), [&json!("created"), &json!("created")]);
        assert_eq!(server.pending(INDEX), 2);
        assert_eq!(count(&server), 0, "not searchable before a refresh");
        let (_, resp) = search(&server, json!({"query": {"match_all": {}}}));
        assert_eq!(resp["hits"]["total"]["value"], 0, "{resp}");
        assert!(server.doc_ids(INDEX).is_empty());

        refresh(&server);
        assert_eq!((count(&server), server.pending(INDEX), server.doc_ids(INDEX)), (2, 0, vec!["a".to_string(), "b".to_string()]));
        let (_, resp) = search(&server, json!({"query": {"match_all": {}}}));
        assert_eq!(hit_ids(&resp), ["a", "b"], "{resp}");

        // A rewrite and a delete are seen at the next refresh too.
        let ops = format!("{}{}\n", ndjson(&[("a", chunk("one again", "d1", [1.0, 0.0, 0.0]))]), json!({"delete": {"_id": "b"}}));
        let (_, body) = bulk(&server, &ops);
        assert_eq!(item_field(&body, "result"), [&json!("updated"), &json!("deleted")], "{body}");
        assert_eq!(item_field(&body, "_version"), [&json!(2), &json!(2)], "{body}");
        assert_eq!((count(&server), server.doc(INDEX, "a").unwrap()["content"].as_str()), (2, Some("one")));

        // `?refresh=true` refreshes at once.
        let url = format!("{}/_bulk?refresh=true", server.index_url(INDEX));
        let (status, _) = bulk_at(&url, &ndjson(&[("c", chunk("three", "d2", [0.0, 0.0, 1.0]))]), NDJSON);
        assert_eq!(status, 200);
        assert_eq!(server.doc_ids(INDEX), ["a", "c"]);
        assert_eq!(server.doc(INDEX, "a").unwrap()["content"], "one again");
    }
}

#[test]
fn knn_ranks_the_closer_vector_first_in_each_flavors_syntax() {
    let query = [0.9, 0.1, 0.0];
    for flavor in FLAVORS {
        let server = server_with_docs(flavor);
        let body = match flavor {
            Flavor::OpenSearch => json!({"size": 2, "query": {"knn": {"embedding": {"vector": query, "k": 2}}}}),
            Flavor::Elasticsearch => json!({"size": 2, "knn": {"field": "embedding", "query_vector": query, "k": 2, "num_candidates": 10}}),
        };
        let (status, resp) = search(&server, body);
        assert_eq!(status, 200, "{resp}");
        assert_eq!(hit_ids(&resp), ["a", "c"], "{resp}");
        let cos = 0.9 / (0.82f64).sqrt();
        let top = resp["hits"]["hits"][0]["_score"].as_f64().unwrap();
        assert!((top - (1.0 + cos) / 2.0).abs() < 1e-5, "cosine scores (1 + cos) / 2: {resp}");
        assert!(resp["hits"]["hits"][1]["_score"].as_f64().unwrap() < top);
        assert_eq!(resp["hits"]["hits"][0]["_source"]["doc"], "d1");
    }

    // OpenSearch has no top-level `knn`.
    let server = server_with_docs(Flavor::OpenSearch);
    let (status, resp) = search(&server, json!({"knn": {"field": "embedding", "query_vector": query, "k": 2, "num_candidates": 10}}));
    assert_eq!((status, resp["error"]["type"].as_str()), (400, Some("parsing_exception")), "{resp}");
    assert!(resp["error"]["reason"].as_str().unwrap().contains("Unknown key for a START_OBJECT in [knn]"), "{resp}");

    // Elasticsearch also takes the `knn` query, and wants num_candidates >= k.
    let server = server_with_docs(Flavor::Elasticsearch);
    let (status, resp) = search(&server, json!({"size": 2, "query": {"knn": {"field": "embedding", "query_vector": query, "num_candidates": 5}}}));
    assert_eq!((status, hit_ids(&resp)), (200, vec!["a", "c"]), "{resp}");
    let (status, resp) = search(&server, json!({"knn": {"field": "embedding", "query_vector": query, "k": 5, "num_candidates": 2}}));
    assert_eq!((status, resp["error"]["type"].as_str()), (400, Some("illegal_argument_exception")), "{resp}");
    let (status, _) = search(&server, json!({"knn": {"field": "embedding", "query_vector": [1.0, 0.0], "k": 1, "num_candidates": 2}}));
    assert_eq!(status, 400, "a query vector of the wrong dimension");
}

#[test]
fn multi_match_ranks_the_documents_with_the_term() {
    let server = server_with_index(Flavor::OpenSearch);
    let doc = |content: &str, title: &str| json!({"content": content, "title": title, "doc": "d", "embedding": [1.0, 0.0, 0.0]});
    let docs = [("a", doc("the river bank was muddy", "rivers")), ("b", doc("bank loans and interest", "bank")), ("c", doc("mountain trails", "hiking"))];
    let url = format!("{}/_bulk?refresh=wait_for", server.index_url(INDEX));
    assert_eq!(bulk_at(&url, &ndjson(&docs), NDJSON).0, 200);

    let (status, resp) = search(&server, json!({"query": {"multi_match": {"query": "Bank", "fields": ["content", "title^2"]}}}));
    assert_eq!(status, 200, "{resp}");
    assert_eq!(hit_ids(&resp), ["b", "a"], "only documents with the term, the title match first: {resp}");
    assert_eq!(resp["hits"]["total"]["value"], 2);
    assert_eq!(resp["hits"]["max_score"], resp["hits"]["hits"][0]["_score"]);
    let (_, resp) = search(&server, json!({"query": {"match": {"content": {"query": "mountain"}}}}));
    assert_eq!(hit_ids(&resp), ["c"], "{resp}");
    let (status, resp) = search(&server, json!({"query": {"fuzzy_thing": {"content": "x"}}}));
    assert_eq!((status, resp["error"]["type"].as_str(), resp["error"]["reason"].as_str()), (400, Some("parsing_exception"), Some("unknown query [fuzzy_thing]")));
}

#[test]
fn sort_and_search_after_page_through_five_documents_two_at_a_time() {
    let server = server_with_index(Flavor::Elasticsearch);
    let docs: Vec<(String, Value)> = ["d4", "d2", "d5", "d1", "d3"].iter().map(|d| (format!("id-{d}"), chunk("text", d, [0.0, 0.0, 1.0]))).collect();
    let docs: Vec<(&str, Value)> = docs.iter().map(|(id, v)| (id.as_str(), v.clone())).collect();
    assert_eq!(bulk(&server, &ndjson(&docs)).0, 200);
    refresh(&server);

    let mut pages: Vec<Vec<String>> = Vec::new();
    let mut after: Option<Value> = None;
    loop {
        let mut body = json!({"size": 2, "query": {"match_all": {}}, "sort": [{"doc": {"order": "asc"}}], "_source": ["doc"]});
        if let Some(a) = &after {
            body["search_after"] = a.clone();
        }
        let (status, resp) = search(&server, body);
        assert_eq!(status, 200, "{resp}");
        let hits = resp["hits"]["hits"].as_array().unwrap();
        if hits.is_empty() {
            break;
        }
        assert_eq!(resp["hits"]["total"]["value"], 5);
        assert!(hits.iter().all(|h| h["_score"].is_null() && h["_source"].as_object().unwrap().len() == 1), "{resp}");
        pages.push(hits.iter().map(|h| h["_source"]["doc"].as_str().unwrap().to_string()).collect());
        after = Some(hits.last().unwrap()["sort"].clone());
        assert!(pages.len() <= 3, "search_after must move forward: {pages:?}");
    }
    assert_eq!(pages, [vec!["d1", "d2"], vec!["d3", "d4"], vec!["d5"]]);
    let (status, _) = search(&server, json!({"search_after": ["d1"]}));
    assert_eq!(status, 400, "search_after without sort");
}

#[test]
fn failed_bulk_items_report_errors_while_the_others_succeed() {
    for flavor in FLAVORS {
        let server = server_with_index(flavor);
        server.fail_bulk_items(&["b"], 429);
        server.fail_bulk_items_always(&["z"], 400);
        let docs = [("a", chunk("a", "d", [1.0, 0.0, 0.0])), ("b", chunk("b", "d", [1.0, 0.0, 0.0])), ("c", chunk("c", "d", [1.0, 0.0, 0.0]))];
        let mut short = chunk("short", "d", [1.0, 0.0, 0.0]);
        short["embedding"] = json!([1.0, 0.0]);
        let mut all = docs.to_vec();
        all.extend([("d", short), ("z", chunk("z", "d", [1.0, 0.0, 0.0]))]);
        let (status, body) = bulk(&server, &ndjson(&all));
        assert_eq!((status, &body["errors"]), (200, &json!(true)), "{body}");
        assert_eq!(item_field(&body, "status"), [&json!(201), &json!(429), &json!(201), &json!(400), &json!(400)], "{body}");
        let (rejected, parse) = match flavor {
            Flavor::OpenSearch => ("rejected_execution_exception", "mapper_parsing_exception"),
            Flavor::Elasticsearch => ("es_rejected_execution_exception", "document_parsing_exception"),
        };
        let errors: Vec<&Value> = item_field(&body, "error").into_iter().map(|e| &e["type"]).collect();
        assert_eq!(errors, [&Value::Null, &json!(rejected), &Value::Null, &json!(parse), &json!(parse)], "{body}");

        // `b` failed once; `z` fails every time.
        let (_, body) = bulk(&server, &ndjson(&[("b", chunk("b", "d", [1.0, 0.0, 0.0])), ("z", chunk("z", "d", [1.0, 0.0, 0.0]))]));
        assert_eq!(item_field(&body, "status"), [&json!(201), &json!(400)], "{body}");
        refresh(&server);
        assert_eq!(server.doc_ids(INDEX), ["a", "b", "c"]);
        assert_eq!(server.bulk_ids_sent(), ["a", "b", "c", "d", "z", "b", "z"]);
    }
}

#[test]
fn fail_next_answers_the_injected_statuses_with_retry_after() {
    let server = server_with_index(Flavor::Elasticsearch);
    server.clear_log();
    server.fail_next(&[429, 503], Some("2"));
    let resp = client().get(server.url()).send().unwrap();
    assert_eq!((resp.status().as_u16(), resp.headers()["retry-after"].to_str().unwrap()), (429, "2"));
    let body: Value = resp.json().unwrap();
    assert_eq!((body["error"]["type"].as_str(), &body["status"]), (Some("es_rejected_execution_exception"), &json!(429)), "{body}");
    let (status, body) = search(&server, json!({}));
    assert_eq!((status, body["error"]["type"].as_str()), (503, Some("unavailable_shards_exception")), "{body}");
    let (status, _) = search(&server, json!({}));
    assert_eq!(status, 200, "served normally once the injected statuses are used up");
    let log = server.requests();
    assert_eq!(log.iter().map(|l| (l.method.as_str(), l.path.as_str())).collect::<Vec<_>>(), [("GET", "/"), ("POST", "/chunks/_search"), ("POST", "/chunks/_search")]);
}

#[test]
fn bulk_needs_a_final_newline_and_the_ndjson_content_type() {
    let server = server_with_index(Flavor::OpenSearch);
    let line = ndjson(&[("a", chunk("a", "d", [1.0, 0.0, 0.0]))]);
    let (status, body) = bulk(&server, line.trim_end());
    assert_eq!((status, body["error"]["type"].as_str()), (400, Some("illegal_argument_exception")), "{body}");
    assert!(body["error"]["reason"].as_str().unwrap().contains("must be terminated by a newline"), "{body}");

    let (status, body) = bulk_at(&format!("{}/_bulk", server.index_url(INDEX)), &line, "application/json");
    assert_eq!(status, 406);
    assert_eq!(body, json!({"error": "Content-Type header [application/json] is not supported", "status": 406}));
    assert_eq!((server.pending(INDEX), server.bulk_ids_sent().len()), (0, 0), "nothing written");
}

#[test]
fn demands_credentials_delays_and_dies() {
    let mut server = StoreServer::builder(Flavor::Elasticsearch).auth(RequiredAuth::ApiKey("k3y".into())).start();
    let resp = client().get(server.url()).send().unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    assert!(resp.headers().get("www-authenticate").is_some());
    let resp = client().get(server.url()).header("Authorization", "ApiKey k3y").send().unwrap();
    assert_eq!((resp.status().as_u16(), resp.headers()["x-elastic-product"].to_str().unwrap()), (200, "Elasticsearch"));

    server.delay_next(Duration::from_secs(5));
    let quick = Client::builder().timeout(Duration::from_millis(300)).build().unwrap();
    let err = quick.get(server.url()).header("Authorization", "ApiKey k3y").send().unwrap_err();
    assert!(err.is_timeout(), "{err}");

    let url = server.url();
    server.stop();
    assert!(client().get(url).send().unwrap_err().is_connect());
    assert_eq!(server.requests().len(), 3);
}
