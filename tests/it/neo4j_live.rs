//! The Neo4j store against a real Neo4j server. Every test is `#[ignore]`d (a plain `cargo test`
//! lists them as ignored, never as passed); run them with `--ignored` against a server named by
//! `QA_NEO4J_URI` (without it, each fails with a message saying so). To run them:
//!
//! ```text
//! docker run --rm -d --name qa-neo4j -p 7687:7687 -e NEO4J_AUTH=neo4j/testpassword neo4j:5
//! # wait until `docker logs qa-neo4j` says "Started.", then:
//! QA_NEO4J_URI=bolt://localhost:7687 QA_NEO4J_USERNAME=neo4j QA_NEO4J_PASSWORD=testpassword \
//!     cargo test --test neo4j_live -- --ignored
//! docker stop qa-neo4j
//! ```
//!
//! `QA_NEO4J_DATABASE` picks a database other than the default. The tests write only nodes whose
//! ids start with a per-run prefix and delete them afterwards (the constraints and the
//! `entityIndex` they create stay, as after any `ingest`). They run one at a time, since they
//! compare whole-database counts.

use crate::common;

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use qa::config::Secret;
use qa_graph::{GraphStore, Neo4jGraph, Neo4jOptions};
use qa_graph::kg::{GraphDocument, KgNode, KgRel, Meta};
use serde_json::json;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The server named by `QA_NEO4J_URI`; a test asked to run without one fails and says why.
fn live_options() -> Neo4jOptions {
    let Some(uri) = std::env::var("QA_NEO4J_URI").ok().filter(|u| !u.trim().is_empty()) else {
        panic!("neo4j_live needs a Neo4j server: set QA_NEO4J_URI (and QA_NEO4J_USERNAME, QA_NEO4J_PASSWORD) to run these ignored tests");
    };
    Neo4jOptions {
        uri,
        username: std::env::var("QA_NEO4J_USERNAME").unwrap_or_else(|_| "neo4j".into()),
        password: std::env::var("QA_NEO4J_PASSWORD").ok().map(Secret::new),
        database: std::env::var("QA_NEO4J_DATABASE").ok().filter(|d| !d.is_empty()),
        timeout: Duration::from_secs(30),
        row_cap: 1000,
    }
}

/// A per-run token: one word to the full-text analyzer, and the prefix of every id we write.
fn token() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("qalive{}x{}", std::process::id(), nanos % 1_000_000_000)
}

fn meta(pairs: &[(&str, serde_json::Value)]) -> Vec<Meta> {
    pairs.iter().map(|(k, v)| Meta { key: k.to_string(), value: v.clone() }).collect()
}

fn docs(t: &str) -> Vec<GraphDocument> {
    let (doc, sleep, battery) = (format!("{t}::a_0"), format!("{t} deep sleep"), format!("{t} battery life"));
    vec![GraphDocument {
        source: KgNode { id: doc.clone(), node_type: "Document".into(), metadata: meta(&[("source_file", json!("a.md"))]) },
        nodes: vec![
            KgNode { id: sleep.clone(), node_type: "Concept".into(), metadata: meta(&[("name", json!(sleep)), ("aliases", json!(["nap"]))]) },
            KgNode { id: battery.clone(), node_type: "Concept".into(), metadata: meta(&[("name", json!(battery)), ("detail", json!({"k": 1}))]) },
        ],
        relationships: vec![
            KgRel { source: doc.clone(), target: sleep.clone(), rel_type: "MENTIONS".into(), metadata: meta(&[("count", json!(2))]) },
            KgRel { source: doc, target: battery.clone(), rel_type: "MENTIONS".into(), metadata: vec![] },
            KgRel { source: battery, target: sleep, rel_type: "RELATED_TO".into(), metadata: meta(&[("weight", json!(3))]) },
        ],
    }]
}

/// Deletes this run's nodes when the test ends, pass or fail (through the driver directly: the
/// store has no delete).
struct Cleanup {
    opts: Neo4jOptions,
    prefix: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut config = neo4rs::ConfigBuilder::default()
            .uri(self.opts.uri.as_str())
            .user(self.opts.username.as_str())
            .password(self.opts.password.as_ref().map(Secret::expose).unwrap_or(""));
        if let Some(db) = &self.opts.database {
            config = config.db(db.as_str());
        }
        let result = rt.block_on(async {
            let graph = neo4rs::Graph::connect(config.build()?)?;
            graph.run(neo4rs::query("MATCH (n) WHERE n.id STARTS WITH $p DETACH DELETE n").param("p", self.prefix.as_str())).await
        });
        if let Err(e) = result {
            eprintln!("cleanup of {} failed: {e}", self.prefix);
        }
    }
}

fn setup() -> (Neo4jGraph, String, Cleanup, std::sync::MutexGuard<'static, ()>) {
    let opts = live_options();
    let guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let g = Neo4jGraph::connect(&opts).expect("QA_NEO4J_URI is set, so the server must be reachable");
    let t = token();
    (g, t.clone(), Cleanup { opts, prefix: t }, guard)
}

#[test]
#[ignore = "needs QA_NEO4J_URI"]
fn ingesting_twice_changes_nothing_the_second_time() {
    let (mut g, t, _cleanup, _guard) = setup();
    let first = g.ingest(&docs(&t)).unwrap();
    assert_eq!((first.nodes, first.relationships, first.skipped_relationships), (3, 3, 0), "{first:?}");
    let before = g.counts().unwrap();
    let second = g.ingest(&docs(&t)).unwrap();
    assert_eq!((second.nodes, second.relationships, second.properties_set), (0, 0, 0), "{second:?}");
    let after = g.counts().unwrap();
    assert_eq!(before, after);
    assert!(after.by_label["Concept"] >= 2 && after.by_type["RELATED_TO"] >= 1);
    let p = serde_json::Map::from_iter([("id".to_string(), json!(format!("{t} battery life")))]);
    let rows = g.read("MATCH (c:Concept {id: $id}) RETURN c", &p).unwrap().rows;
    assert_eq!(rows[0]["c"]["properties"]["detail"], json!(r#"{"k":1}"#), "a nested map is stored as JSON text");
}

#[test]
#[ignore = "needs QA_NEO4J_URI"]
fn schema_and_entity_search() {
    let (mut g, t, _cleanup, _guard) = setup();
    g.ingest(&docs(&t)).unwrap();
    let schema = g.schema().unwrap();
    for label in ["Concept", "Document"] {
        assert!(schema.labels.iter().any(|l| l == label), "{schema:?}");
    }
    assert!(schema.relationship_types.iter().any(|r| r == "MENTIONS"), "{schema:?}");
    assert!(schema.property_keys.iter().any(|k| k == "id"), "{schema:?}");

    // The full-text index is populated asynchronously: poll for a while.
    let deadline = Instant::now() + Duration::from_secs(15);
    let hits = loop {
        let hits = g.search_entities(&format!("{t} sleep AND (nap)?"), 10).unwrap();
        if hits.iter().any(|h| h.name == format!("{t} deep sleep")) || Instant::now() > deadline {
            break hits;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let hit = hits.iter().find(|h| h.name == format!("{t} deep sleep")).unwrap_or_else(|| panic!("no hit in {hits:?}"));
    assert_eq!(hit.labels, ["Concept"]);
    assert!(hit.score > 0.0);
}

#[test]
#[ignore = "needs QA_NEO4J_URI"]
fn reads_return_paths_and_refuse_writes() {
    let (mut g, t, _cleanup, _guard) = setup();
    g.ingest(&docs(&t)).unwrap();
    let p = serde_json::Map::from_iter([("d".to_string(), json!(format!("{t}::a_0"))), ("c".to_string(), json!(format!("{t} deep sleep")))]);
    let rows = g.read("MATCH p = (d:Document {id: $d})-[:MENTIONS]->(c:Concept {id: $c}) RETURN p", &p).unwrap().rows;
    assert_eq!(rows.len(), 1);
    let path = &rows[0]["p"];
    assert_eq!(path["nodes"][0]["id"], json!(format!("{t}::a_0")));
    assert_eq!(path["nodes"][1]["labels"], json!(["Concept"]));
    assert_eq!(path["edges"][0], json!({"source": format!("{t}::a_0"), "type": "MENTIONS", "target": format!("{t} deep sleep"), "properties": {"count": 2}}));

    let probe = serde_json::Map::from_iter([("id".to_string(), json!(format!("{t} probe")))]);
    let e = g.read("CREATE (n:Concept {id: $id}) RETURN n", &probe).unwrap_err().to_string();
    assert!(e.contains("Neo4j query failed"), "{e}");
    let n = g.read("MATCH (n:Concept {id: $id}) RETURN count(n) AS n", &probe).unwrap().rows;
    assert_eq!(n[0]["n"], 0, "the write was refused in READ mode");
}

/// The whole `qa` graph path on Neo4j: `qa graph ingest` loads the sample corpus's KG (MERGE; it
/// stays in the database), then a question whose LLM-written Cypher (from the scripted loopback
/// LLM) is validated and run on the server in READ mode, and a hostile query that never runs.
#[test]
#[ignore = "needs QA_NEO4J_URI"]
fn cli_answers_from_neo4j_with_generated_cypher() {
    let opts = live_options();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = common::copy_of_indexed_sample();
    let with_neo4j = |cmd: &mut assert_cmd::Command| {
        cmd.env("QA_NEO4J_URI", &opts.uri).env("QA_NEO4J_USERNAME", &opts.username).env("QA_GRAPH_TIMEOUT_SECS", "30");
        if let Ok(p) = std::env::var("QA_NEO4J_PASSWORD") {
            cmd.env("QA_NEO4J_PASSWORD", p);
        }
        if let Some(db) = &opts.database {
            cmd.env("QA_NEO4J_DATABASE", db);
        }
    };
    let mut ingest = common::qa(dir.path());
    with_neo4j(&mut ingest);
    ingest.args(["graph", "ingest", "--json"]).assert().success();
    let mut again = common::qa(dir.path());
    with_neo4j(&mut again);
    let out = again.args(["graph", "ingest", "--json"]).assert().success().get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!((v["stats"]["nodes"].as_u64(), v["stats"]["relationships"].as_u64()), (Some(0), Some(0)), "{v}");

    for (cypher, runs) in [
        ("MATCH (a:Concept {id: 'deep sleep'})<-[:MENTIONS]-(d:Document)-[:MENTIONS]->(b:Concept {id: 'battery life'}) RETURN d.source_id AS source_id LIMIT 10", true),
        ("MATCH (n) DETACH DELETE n", false),
    ] {
        let server = common::llm_server::ScriptedLlmServer::with_responder(move |body| {
            if body["response_format"]["json_schema"]["name"] == "cypher_query" {
                return common::llm_server::Scripted::reply(json!({ "cypher": cypher }).to_string());
            }
            common::llm_server::Scripted::reply("Deep sleep keeps the average current low.")
        });
        let mut ask = common::qa(dir.path());
        with_neo4j(&mut ask);
        let out = ask
            .env("QA_LLM_PROVIDER", "openai")
            .env("QA_LLM_BASE_URL", server.base_url())
            .env("QA_LLM_MODEL", "scripted")
            .args(["ask", "How does deep sleep relate to battery life?", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["trace"]["internal"]["graph"]["backend"], "neo4j");
        assert_eq!(v["trace"]["graph"]["validation"]["ok"], runs, "{}", v["trace"]["graph"]);
        let rows = v["trace"]["internal"]["graph"]["cypher"]["rows"].as_u64().unwrap_or(0);
        assert_eq!(rows > 0, runs, "{}", v["trace"]["internal"]["graph"]["cypher"]);
    }
}
