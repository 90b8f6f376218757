//! The Neo4j store through the real `neo4rs` driver and the real Bolt wire protocol, against a
//! scripted Bolt server on loopback (`common/bolt_server.rs`). What these tests cannot check is
//! Neo4j itself: Cypher semantics, MERGE, constraints, full-text index population and the
//! server's enforcement of READ access mode (`tests/neo4j_live.rs` does, against a real server).

#[path = "common/bolt_server.rs"]
mod bolt_server;

use std::time::{Duration, Instant};

use bolt_server::{BoltServer, Reply, Value, date, duration, keys, list, map, node, param, path, rel, urel};
use qa::config::Secret;
use qa_graph::{EntityHit, GraphStore, Neo4jGraph, Neo4jOptions};
use qa_graph::kg::{GraphDocument, KgNode, KgRel, Meta};
use serde_json::json;

const PASSWORD: &str = "Corr3ct-Horse-Battery";

fn options(uri: &str) -> Neo4jOptions {
    Neo4jOptions {
        uri: uri.into(),
        username: "neo4j".into(),
        password: Some(Secret::new(PASSWORD)),
        database: None,
        timeout: Duration::from_secs(2),
        row_cap: 100,
    }
}

fn connect(server: &BoltServer) -> Neo4jGraph {
    let g = Neo4jGraph::connect(&options(&server.uri())).expect("connect to the Bolt double");
    server.clear();
    g
}

fn params(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    v.as_object().unwrap().clone()
}

fn messages(server: &BoltServer) -> Vec<&'static str> {
    server.requests().iter().map(|r| r.message).collect()
}

/// The messages of the work itself, without the RESET the driver's pool sends before it reuses
/// a connection.
fn exchange(server: &BoltServer) -> Vec<&'static str> {
    messages(server).into_iter().filter(|m| *m != "RESET").collect()
}

#[test]
fn connect_says_hello_and_checks_with_a_read() {
    let server = BoltServer::start();
    let g = Neo4jGraph::connect(&options(&server.uri())).unwrap();
    assert_eq!(g.backend(), "neo4j");
    let requests = server.requests();
    assert_eq!(requests[0].message, "HELLO");
    let hello = keys(&requests[0].extra);
    assert_eq!(hello["scheme"], "basic".into());
    assert_eq!(hello["principal"], "neo4j".into());
    let run = &server.runs()[0];
    assert_eq!(run.query.as_deref(), Some("RETURN 1 AS ok"));
    assert_eq!(run.extra.get("mode"), Some(&Value::from("r")));
    assert!(!format!("{g:?}").contains(PASSWORD));
}

#[test]
fn read_runs_in_read_mode_with_a_server_timeout_and_typed_params() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    let q = "MATCH (c:Concept {id: $id}) RETURN c.id AS id, c.df AS df";
    server.on(q, Reply::records(&["id", "df"], vec![vec!["deep sleep".into(), 3.into()]]));
    let p = params(json!({"id": "deep sleep", "n": 3, "big": -70000, "x": 0.25, "flags": [true, false], "m": {"k": null, "s": "v"}}));
    let rows = g.read(q, &p).unwrap().rows;
    assert_eq!(rows.len(), 1);
    assert_eq!((&rows[0]["id"], &rows[0]["df"]), (&json!("deep sleep"), &json!(3)));

    let runs = server.runs();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.query.as_deref(), Some(q));
    assert_eq!(run.extra.get("mode"), Some(&Value::from("r")), "READ access mode");
    assert_eq!(run.extra.get("tx_timeout"), Some(&Value::Int(2000)), "server-side timeout in ms");
    assert_eq!(run.params.to_json(), json!({"id": "deep sleep", "n": 3, "big": -70000, "x": 0.25, "flags": [true, false], "m": {"k": null, "s": "v"}}));
    assert!(matches!(run.params.get("x"), Some(Value::Float(_))) && matches!(run.params.get("n"), Some(Value::Int(3))));
    assert_eq!(exchange(&server), ["RUN", "PULL"], "auto-commit: no BEGIN");
}

#[test]
fn nodes_relationships_paths_and_temporal_values_come_back_as_json() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    let a = node(11, &["Concept"], &[("id", "battery life".into()), ("df", 2.into())]);
    let b = node(12, &["Concept"], &[("id", "deep sleep".into())]);
    let d = node(13, &["Document"], &[("id", "f::a_0".into()), ("source_file", "a.md".into())]);
    let q = "MATCH p = (a)-[r]->(b)<-[m]-(d) RETURN a, r, p, d, [a, b] AS pair, {n: b} AS wrapped, date() AS day, duration('P1DT1H') AS span";
    server.on(
        q,
        Reply::records(
            &["a", "r", "p", "d", "pair", "wrapped", "day", "span"],
            vec![vec![
                a.clone(),
                rel(21, 11, 12, "RELATED_TO", &[("weight", 2.into())]),
                path(vec![a.clone(), b.clone(), d.clone()], vec![urel(21, "RELATED_TO", &[]), urel(22, "MENTIONS", &[("count", 4.into())])], &[1, 1, -2, 2]),
                d.clone(),
                list(vec![a.clone(), b.clone()]),
                map(&[("n", b.clone())]),
                date(19_844),
                duration(0, 1, 3600, 0),
            ]],
        ),
    );
    let rows = g.read(q, &params(json!({}))).unwrap().rows;
    let row = &rows[0];
    assert_eq!(row["a"], json!({"id": "battery life", "labels": ["Concept"], "properties": {"id": "battery life", "df": 2}}));
    assert_eq!(row["r"], json!({"source": "battery life", "type": "RELATED_TO", "target": "deep sleep", "properties": {"weight": 2}}));
    assert_eq!(row["d"]["properties"]["source_file"], "a.md");
    assert_eq!(row["pair"][1]["id"], "deep sleep");
    assert_eq!(row["wrapped"]["n"]["labels"], json!(["Concept"]));
    let p = &row["p"];
    assert_eq!(p["nodes"].as_array().unwrap().iter().map(|n| n["id"].clone()).collect::<Vec<_>>(), [json!("battery life"), json!("deep sleep"), json!("f::a_0")]);
    assert_eq!(p["edges"][0], json!({"source": "battery life", "type": "RELATED_TO", "target": "deep sleep", "properties": {}}));
    assert_eq!(p["edges"][1], json!({"source": "f::a_0", "type": "MENTIONS", "target": "deep sleep", "properties": {"count": 4}}));
    assert_eq!(row["day"], "2024-05-01");
    assert_eq!(row["span"], "P1DT1H");
}

#[test]
fn the_row_cap_stops_pulling() {
    let server = BoltServer::start();
    let mut opts = options(&server.uri());
    opts.row_cap = 3;
    let mut g = Neo4jGraph::connect(&opts).unwrap();
    server.clear();
    let q = "UNWIND range(1, 10) AS i RETURN i";
    server.on(q, Reply::records(&["i"], (1..=10).map(|i| vec![Value::Int(i)]).collect()));
    let read = g.read(q, &params(json!({}))).unwrap();
    assert!(read.truncated, "a cut result says so");
    let rows = read.rows;
    assert_eq!(rows.iter().map(|r| r["i"].clone()).collect::<Vec<_>>(), [json!(1), json!(2), json!(3)]);
    let requests = server.requests();
    let pulls: Vec<_> = requests.iter().filter(|r| r.message == "PULL").collect();
    assert_eq!(pulls.len(), 1, "one PULL, never a second: {:?}", messages(&server));
    // One row past the cap is pulled: that is how the store knows the result was cut.
    assert_eq!(pulls[0].extra.get("n"), Some(&Value::Int(4)));

    // The connection is reset before its next use; the next read works.
    server.on("RETURN 2 AS two", Reply::records(&["two"], vec![vec![2.into()]]));
    assert_eq!(g.read("RETURN 2 AS two", &params(json!({}))).unwrap().rows[0]["two"], 2);
    assert!(messages(&server).contains(&"RESET"));
}

#[test]
fn a_server_failure_is_a_clear_error_and_the_store_stays_usable() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    server.on("MATCH (n RETURN n", Reply::failure("Neo.ClientError.Statement.SyntaxError", "Invalid input 'RETURN': expected ')'"));
    let e = g.read("MATCH (n RETURN n", &params(json!({}))).unwrap_err().to_string();
    assert!(e.contains("Neo.ClientError.Statement.SyntaxError") && e.contains("Invalid input 'RETURN'"), "{e}");
    assert!(e.starts_with("graph store error: Neo4j query failed"), "{e}");
    assert_eq!(exchange(&server), ["RUN", "PULL"], "PULL is answered IGNORED after the FAILURE");

    server.on("CREATE (:X)", Reply::failure("Neo.ClientError.Statement.AccessMode", "Writing in read access mode not allowed."));
    let e = g.read("CREATE (:X)", &params(json!({}))).unwrap_err().to_string();
    assert!(e.contains("AccessMode"), "{e}");

    server.on("RETURN 1 AS one", Reply::records(&["one"], vec![vec![1.into()]]));
    assert_eq!(g.read("RETURN 1 AS one", &params(json!({}))).unwrap().rows[0]["one"], 1);
}

fn kg_node(id: &str, t: &str, meta: &[(&str, serde_json::Value)]) -> KgNode {
    KgNode { id: id.into(), node_type: t.into(), metadata: meta.iter().map(|(k, v)| Meta { key: k.to_string(), value: v.clone() }).collect() }
}

fn kg_rel(s: &str, t: &str, ty: &str, meta: &[(&str, serde_json::Value)]) -> KgRel {
    KgRel { source: s.into(), target: t.into(), rel_type: ty.into(), metadata: meta.iter().map(|(k, v)| Meta { key: k.to_string(), value: v.clone() }).collect() }
}

fn sample_docs() -> Vec<GraphDocument> {
    vec![GraphDocument {
        source: kg_node("f::a_0", "Document", &[("source_file", json!("a.md")), ("heading_path", json!(["Power", "Sleep"]))]),
        nodes: vec![
            kg_node("deep sleep", "Concept", &[("name", json!("deep sleep"))]),
            kg_node("battery life", "Concept", &[("name", json!("battery life")), ("extra", json!({"nested": true}))]),
        ],
        relationships: vec![
            kg_rel("f::a_0", "deep sleep", "MENTIONS", &[("count", json!(2))]),
            kg_rel("f::a_0", "battery life", "MENTIONS", &[]),
            kg_rel("battery life", "deep sleep", "RELATED_TO", &[("weight", json!(3))]),
            kg_rel("f::a_0", "nowhere", "MENTIONS", &[]),
        ],
    }]
}

const NODE_CHECK_CONCEPT: &str = "UNWIND $ids AS id MATCH (n:`Concept` {id: id}) RETURN n.id AS id, properties(n) AS props";
const NODE_CHECK_DOCUMENT: &str = "UNWIND $ids AS id MATCH (n:`Document` {id: id}) RETURN n.id AS id, properties(n) AS props";
const REL_CHECK_MENTIONS: &str = "UNWIND $rows AS row MATCH (a:`Document` {id: row.source})-[:`MENTIONS`]->(b:`Concept` {id: row.target}) RETURN DISTINCT row.source AS source, row.target AS target";
const REL_CHECK_RELATED: &str = "UNWIND $rows AS row MATCH (a:`Concept` {id: row.source})-[:`RELATED_TO`]->(b:`Concept` {id: row.target}) RETURN DISTINCT row.source AS source, row.target AS target";

#[test]
fn ingest_creates_constraints_and_the_entity_index_then_merges_in_batches() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    let stats = g.ingest(&sample_docs()).unwrap();
    assert_eq!((stats.nodes, stats.relationships, stats.properties_set, stats.skipped_relationships), (3, 3, 0, 1));
    assert_eq!((stats.by_label["Concept"], stats.by_label["Document"]), (2, 1));
    assert_eq!((stats.by_type["MENTIONS"], stats.by_type["RELATED_TO"]), (2, 1));

    let runs = server.runs();
    let queries: Vec<&str> = runs.iter().map(|r| r.query.as_deref().unwrap()).collect();
    assert_eq!(
        queries,
        [
            "CREATE CONSTRAINT Concept_id IF NOT EXISTS FOR (n:`Concept`) REQUIRE n.id IS UNIQUE",
            "CREATE CONSTRAINT Document_id IF NOT EXISTS FOR (n:`Document`) REQUIRE n.id IS UNIQUE",
            "CREATE FULLTEXT INDEX entityIndex IF NOT EXISTS FOR (n:Concept|Document|Image) ON EACH [n.id, n.name]",
            NODE_CHECK_CONCEPT,
            "UNWIND $rows AS row MERGE (n:`Concept` {id: row.id}) SET n += row.props",
            NODE_CHECK_DOCUMENT,
            "UNWIND $rows AS row MERGE (n:`Document` {id: row.id}) SET n += row.props",
            REL_CHECK_MENTIONS,
            "UNWIND $rows AS row MATCH (a:`Document` {id: row.source}) MATCH (b:`Concept` {id: row.target}) MERGE (a)-[r:`MENTIONS`]->(b) SET r += row.props",
            REL_CHECK_RELATED,
            "UNWIND $rows AS row MATCH (a:`Concept` {id: row.source}) MATCH (b:`Concept` {id: row.target}) MERGE (a)-[r:`RELATED_TO`]->(b) SET r += row.props",
        ]
    );
    assert!(runs.iter().all(|r| r.extra.get("mode") == Some(&Value::from("w"))), "write mode throughout");
    // Schema statements auto-commit; the data goes in one explicit transaction.
    let m = messages(&server);
    let begin = m.iter().position(|x| *x == "BEGIN").unwrap();
    assert_eq!(m.iter().filter(|x| **x == "RUN").count(), 11);
    assert_eq!(m.iter().filter(|x| **x == "BEGIN").count(), 1);
    assert_eq!(m.last(), Some(&"COMMIT"));
    assert_eq!(m[..begin].iter().filter(|x| **x == "RUN").count(), 3, "constraints + index before BEGIN: {m:?}");

    assert_eq!(param(&runs[3], "ids"), json!(["deep sleep", "battery life"]));
    assert_eq!(
        param(&runs[4], "rows"),
        json!([
            {"id": "deep sleep", "props": {"name": "deep sleep"}},
            {"id": "battery life", "props": {"name": "battery life", "extra": "{\"nested\":true}"}},
        ])
    );
    assert_eq!(param(&runs[6], "rows"), json!([{"id": "f::a_0", "props": {"source_file": "a.md", "heading_path": ["Power", "Sleep"]}}]));
    assert_eq!(
        param(&runs[8], "rows"),
        json!([
            {"source": "f::a_0", "target": "deep sleep", "props": {"count": 2}},
            {"source": "f::a_0", "target": "battery life", "props": {}},
        ])
    );
    assert_eq!(param(&runs[10], "rows"), json!([{"source": "battery life", "target": "deep sleep", "props": {"weight": 3}}]));
}

#[test]
fn a_second_ingest_sends_the_same_merge_statements_and_reports_nothing_new() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    g.ingest(&sample_docs()).unwrap();
    let first: Vec<Option<String>> = server.runs().into_iter().map(|r| r.query).collect();
    server.clear();
    // What the server now holds, as the existence checks see it.
    server.on(
        NODE_CHECK_CONCEPT,
        Reply::records(
            &["id", "props"],
            vec![
                vec!["deep sleep".into(), map(&[("id", "deep sleep".into()), ("name", "deep sleep".into())])],
                vec!["battery life".into(), map(&[("id", "battery life".into()), ("name", "old name".into()), ("extra", "{\"nested\":true}".into())])],
            ],
        ),
    );
    server.on(
        NODE_CHECK_DOCUMENT,
        Reply::records(
            &["id", "props"],
            vec![vec!["f::a_0".into(), map(&[("id", "f::a_0".into()), ("source_file", "a.md".into()), ("heading_path", list(vec!["Power".into(), "Sleep".into()]))])]],
        ),
    );
    server.on(REL_CHECK_MENTIONS, Reply::records(&["source", "target"], vec![vec!["f::a_0".into(), "deep sleep".into()], vec!["f::a_0".into(), "battery life".into()]]));
    server.on(REL_CHECK_RELATED, Reply::records(&["source", "target"], vec![vec!["battery life".into(), "deep sleep".into()]]));
    let stats = g.ingest(&sample_docs()).unwrap();
    assert_eq!((stats.nodes, stats.relationships, stats.properties_set), (0, 0, 1), "only battery life's name changed");
    let second: Vec<Option<String>> = server.runs().into_iter().map(|r| r.query).collect();
    assert_eq!(first, second, "the same statements again: MERGE makes them idempotent");
    assert!(second.iter().flatten().filter(|q| q.contains("$rows")).all(|q| q.contains("MERGE") || q.starts_with("UNWIND $rows AS row MATCH (a:")));
    assert!(!second.iter().flatten().any(|q| q.contains("CREATE (")), "never CREATE for data");
}

#[test]
fn an_ingest_failure_names_the_neo4j_error() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    server.on(
        "CREATE CONSTRAINT Concept_id IF NOT EXISTS FOR (n:`Concept`) REQUIRE n.id IS UNIQUE",
        Reply::failure("Neo.ClientError.Schema.ConstraintCreationFailed", "Unable to create Constraint: duplicate ids"),
    );
    let e = g.ingest(&sample_docs()).unwrap_err().to_string();
    assert!(e.contains("Neo4j ingest failed") && e.contains("ConstraintCreationFailed"), "{e}");
    assert!(!messages(&server).contains(&"BEGIN"), "no data written after a schema failure");
}

#[test]
fn schema_lists_labels_types_and_keys() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    server.on("CALL db.labels()", Reply::records(&["label"], vec![vec!["Document".into()], vec!["Concept".into()]]));
    server.on("CALL db.relationshipTypes()", Reply::records(&["relationshipType"], vec![vec!["MENTIONS".into()]]));
    server.on("CALL db.propertyKeys()", Reply::records(&["propertyKey"], vec![vec!["name".into()], vec!["id".into()]]));
    let s = g.schema().unwrap();
    assert_eq!(s.labels, ["Concept", "Document"]);
    assert_eq!(s.relationship_types, ["MENTIONS"]);
    assert_eq!(s.property_keys, ["id", "name"]);
    assert!(server.runs().iter().all(|r| r.extra.get("mode") == Some(&Value::from("r"))));
}

const SEARCH: &str = "CALL db.index.fulltext.queryNodes(\"entityIndex\", $query) YIELD node, score RETURN coalesce(node.id, node.text, node.name) AS name, labels(node) AS labels, score LIMIT $limit";

#[test]
fn entity_search_escapes_lucene_and_drops_nameless_hits() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    server.on(
        SEARCH,
        Reply::records(
            &["name", "labels", "score"],
            vec![
                vec!["deep sleep".into(), list(vec!["Concept".into()]), 2.5.into()],
                vec![Value::Null, list(vec!["Image".into()]), 2.0.into()],
                vec!["".into(), list(vec!["Concept".into()]), 1.5.into()],
                vec!["f::a_0".into(), list(vec!["Document".into()]), 1.0.into()],
            ],
        ),
    );
    let hits = g.search_entities("deep sleep AND (battery)?", 5).unwrap();
    assert_eq!(
        hits,
        [
            EntityHit { name: "deep sleep".into(), labels: vec!["Concept".into()], score: 2.5 },
            EntityHit { name: "f::a_0".into(), labels: vec!["Document".into()], score: 1.0 },
        ]
    );
    let run = &server.runs()[0];
    assert_eq!(param(run, "query"), json!(r"deep sleep and \(battery\)\?"));
    assert_eq!(param(run, "limit"), json!(5));
    assert_eq!(run.extra.get("mode"), Some(&Value::from("r")));

    // Nothing searchable: no query at all.
    server.clear();
    assert!(g.search_entities("?!", 5).unwrap().is_empty());
    assert!(server.runs().is_empty());
}

#[test]
fn entity_search_without_the_index_finds_nothing() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    server.on(SEARCH, Reply::failure("Neo.ClientError.Procedure.ProcedureCallFailed", "Failed to invoke procedure: There is no such fulltext schema index: entityIndex"));
    assert!(g.search_entities("sleep", 5).unwrap().is_empty());
}

#[test]
fn counts_per_label_and_type() {
    let server = BoltServer::start();
    let mut g = connect(&server);
    server.on("CALL db.labels()", Reply::records(&["label"], vec![vec!["Concept".into()], vec!["Document".into()], vec!["Empty".into()]]));
    server.on("CALL db.relationshipTypes()", Reply::records(&["relationshipType"], vec![vec!["MENTIONS".into()]]));
    server.on("MATCH (n:`Concept`) RETURN count(n) AS n", Reply::records(&["n"], vec![vec![2.into()]]));
    server.on("MATCH (n:`Document`) RETURN count(n) AS n", Reply::records(&["n"], vec![vec![1.into()]]));
    server.on("MATCH (n:`Empty`) RETURN count(n) AS n", Reply::records(&["n"], vec![vec![0.into()]]));
    server.on("MATCH ()-[r:`MENTIONS`]->() RETURN count(r) AS n", Reply::records(&["n"], vec![vec![70_000.into()]]));
    let c = g.counts().unwrap();
    assert_eq!((c.nodes, c.relationships), (3, 70_000));
    assert_eq!(c.by_label.len(), 2, "labels without nodes are left out");
    assert_eq!(c.by_type["MENTIONS"], 70_000);
}

#[test]
fn wrong_credentials_are_named_without_the_password() {
    let server = BoltServer::with_credentials("neo4j", "the-right-one");
    let e = Neo4jGraph::connect(&options(&server.uri())).unwrap_err().to_string();
    assert!(e.contains("credentials") && e.contains("QA_NEO4J_PASSWORD") && e.contains(&server.uri()), "{e}");
    assert!(!e.contains(PASSWORD), "{e}");
    let hello = &server.requests()[0];
    assert_eq!(hello.extra.get("credentials"), Some(&Value::from(PASSWORD)), "the driver did send it, over the wire only");

    let mut right = options(&server.uri());
    right.password = Some(Secret::new("the-right-one"));
    Neo4jGraph::connect(&right).expect("the right password is accepted");
}

#[test]
fn a_closed_port_fails_fast_with_what_to_check() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let uri = format!("bolt://127.0.0.1:{port}");
    let started = Instant::now();
    let e = Neo4jGraph::connect(&options(&uri)).unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(e.contains(&uri) && e.contains("server running") && e.contains("QA_NEO4J_URI"), "{e}");
    assert!(!e.contains(PASSWORD));
}

#[test]
fn a_server_that_never_answers_times_out() {
    let server = BoltServer::silent();
    let mut opts = options(&server.uri());
    opts.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let e = Neo4jGraph::connect(&opts).unwrap_err().to_string();
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(450) && took < Duration::from_secs(3), "{took:?}");
    assert!(e.contains("no answer from Neo4j") && e.contains(&server.uri()), "{e}");
    assert!(!e.contains(PASSWORD));
}

#[test]
fn every_packstream_size_tier_crosses_the_wire() {
    // The double's encoder against the driver's decoder: each integer tier, and strings, lists
    // and maps past their tiny and 8-bit size limits.
    let ints: Vec<i64> = vec![0, -16, -17, -128, -129, 127, 128, 32_767, 32_768, -32_769, 2_147_483_648, i64::MIN, i64::MAX];
    let long = "x".repeat(300);
    let big_list: Vec<Value> = (0..20).map(Value::Int).collect();
    let big_map: Vec<(String, Value)> = (0..20).map(|i| (format!("k{i}"), Value::Int(i))).collect();
    let server = BoltServer::start();
    let mut g = connect(&server);
    let q = "RETURN $everything";
    server.on(
        q,
        Reply::records(
            &["ints", "long", "list", "map", "f", "t", "nil", "bytes"],
            vec![vec![
                list(ints.iter().map(|i| Value::Int(*i)).collect()),
                long.as_str().into(),
                list(big_list),
                Value::Map(big_map),
                (-1.5).into(),
                true.into(),
                Value::Null,
                Value::Bytes(vec![0, 255]),
            ]],
        ),
    );
    let long_param = "y".repeat(70_000); // more than one 64 KiB chunk on the way out
    let rows = g.read(q, &params(json!({"everything": long_param}))).unwrap().rows;
    let row = &rows[0];
    assert_eq!(row["ints"], json!(ints));
    assert_eq!(row["long"], json!(long));
    assert_eq!(row["list"].as_array().unwrap().len(), 20);
    assert_eq!(row["map"]["k19"], 19);
    assert_eq!((&row["f"], &row["t"], &row["nil"], &row["bytes"]), (&json!(-1.5), &json!(true), &json!(null), &json!([0, 255])));
    assert_eq!(param(&server.runs()[0], "everything").as_str().map(str::len), Some(70_000));

    let mut bytes = Vec::new();
    for v in [Value::Int(-17), Value::Int(128), Value::Int(-32_769), Value::from("0123456789abcdef")] {
        bolt_server::encode(&v, &mut bytes);
    }
    assert_eq!(&bytes[..2], [0xC8, 0xEF]);
    assert_eq!(&bytes[2..5], [0xC9, 0x00, 0x80]);
    assert_eq!(&bytes[5..10], [0xCA, 0xFF, 0xFF, 0x7F, 0xFF]);
    assert_eq!(&bytes[10..12], [0xD0, 16]);
    let mut input = bytes.as_slice();
    let decoded: Vec<Value> = (0..4).map(|_| bolt_server::decode(&mut input).unwrap()).collect();
    assert_eq!(decoded, [Value::Int(-17), Value::Int(128), Value::Int(-32_769), Value::from("0123456789abcdef")]);
}
