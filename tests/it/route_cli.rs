//! `qa route` and `qa ask` through the router over the three sample sources: the indexed sample
//! corpus, the sample SQL database and the sample ES index.

use serde_json::Value;

use crate::common::{self, qa, sql_fixture};

fn route(dir: &std::path::Path, db: &std::path::Path, question: &str) -> Value {
    let out = qa(dir).env("QA_SQL_URL", db).env("QA_ES", "shipments").args(["route", question, "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn each_question_goes_to_its_source_with_complete_metadata() {
    let dir = common::copy_of_indexed_sample();
    let db = sql_fixture::sqlite_sample(dir.path());
    qa(dir.path()).args(["es", "index"]).arg(common::repo().join("samples/es/shipments.jsonl")).args(["--name", "shipments"]).assert().success();

    let d = route(dir.path(), &db, "How many critical findings per department?");
    assert_eq!((d["target"].as_str(), d["query_type"].as_str()), (Some("sql"), Some("simple")), "{d}");
    for key in ["confidence", "extracted_filters", "requires_llm", "reasons", "scores"] {
        assert!(d.get(key).is_some(), "{key} missing: {d}");
    }
    assert!(d["scores"]["documents"].is_number() && d["scores"]["sql"].is_number() && d["scores"]["es"].is_number(), "{d}");

    let d = route(dir.path(), &db, "Which delayed shipments went to Saltmere Harbour in 2026?");
    assert_eq!(d["target"], "es", "{d}");
    assert_eq!(d["extracted_filters"]["years"], serde_json::json!([2026]));
    assert!(d["extracted_filters"]["values"].as_array().unwrap().iter().any(|v| v["value"] == "delayed"), "{d}");

    let d = route(dir.path(), &db, "How does deep sleep relate to battery life?");
    assert_eq!(d["target"], "documents", "{d}");

    let d = route(dir.path(), &db, "Why are so many critical findings still open, and what should we prioritize?");
    assert_eq!((d["target"].as_str(), d["query_type"].as_str()), (Some("sql"), Some("complex")), "{d}");
    assert_eq!(d["requires_llm"], true);

    // qa ask: a complex SQL question is answered by the deterministic analysis, with metadata.
    let out = qa(dir.path()).env("QA_SQL_URL", &db).args(["ask", "Why are so many critical findings still open?", "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["metadata"]["query_type"], "complex", "{v}");
    let analysed = v["metadata"]["records_analyzed"].as_u64().unwrap();
    assert!(analysed > 0 && analysed <= 20, "{v}");
    assert!(v["analysis"]["text"].as_str().unwrap().contains("records analysed"), "{v}");
    // --route and --type override, and the trace records both.
    qa(dir.path()).env("QA_SQL_URL", &db).args(["ask", "How many critical findings per department?", "--route", "sql", "--type", "hybrid", "--json"]).assert().success();
    let traces = std::fs::read_to_string(dir.path().join("logs/query_traces.jsonl")).unwrap();
    let last: Value = serde_json::from_str(traces.lines().last().unwrap()).unwrap();
    assert_eq!((last["routing"]["query_type"].as_str(), last["routing"]["overridden"].as_bool()), (Some("hybrid"), Some(true)), "{last}");
    let stats = qa(dir.path()).args(["traces", "stats", "--json"]).assert().success().get_output().stdout.clone();
    let stats: Value = serde_json::from_slice(&stats).unwrap();
    assert!(stats["by_route_and_type"].as_array().unwrap().iter().any(|k| k["route"] == "sql" && k["query_type"] == "hybrid"), "{stats}");
    // A route to an unconfigured source is an error naming the setting (here the folder has no
    // search index to find).
    let bare = common::copy_of_indexed_sample();
    qa(bare.path()).args(["ask", "anything", "--route", "es"]).assert().code(1).stderr(predicates::str::contains("QA_ES"));
    // A source that is named but cannot be opened says why (credentials scrubbed), not "not configured".
    let dead = qa(bare.path()).args(["ask", "how many findings", "--route", "sql", "--db", "postgres://u:hunter2pw@127.0.0.1:9/x"]).assert().code(1).get_output().stderr.clone();
    let dead = String::from_utf8_lossy(&dead);
    assert!(dead.contains("--route sql: the source could not be opened") && !dead.contains("hunter2pw"), "{dead}");
    // --db and --es name the sources on ask and route alike (no environment variable needed).
    let out = qa(dir.path()).args(["route", "Which delayed shipments went to Saltmere Harbour in 2026?", "--json", "--es", "shipments"]).arg("--db").arg(&db).assert().success().get_output().stdout.clone();
    let d: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(d["target"], "es", "{d}");
    let out = qa(dir.path()).args(["ask", "How many critical findings per department?", "--json", "--es", "shipments"]).arg("--db").arg(&db).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["routing"]["target"], "sql", "{v}");
}

#[test]
fn after_the_demo_chat_routes_across_documents_sql_and_the_found_index() {
    // The demo's state: the sample indexed, the sample database and the shipments index built,
    // and a qa.toml naming the database (the index is found in the data folder).
    let dir = common::copy_of_indexed_sample();
    let db = sql_fixture::sqlite_sample(dir.path());
    qa(dir.path()).args(["es", "index"]).arg(common::repo().join("samples/es/shipments.jsonl")).args(["--name", "shipments"]).assert().success();
    let toml = format!(
        "sql_url = \"{}\"\nsql_semantic_schema = \"{}\"\nes_semantic = \"{}\"\n",
        db.display(),
        common::repo().join("samples/sql/audit_semantic.toml").display(),
        common::repo().join("samples/es/shipments_semantic.toml").display()
    );
    std::fs::write(dir.path().join("qa.toml"), toml).unwrap();
    let out = qa(dir.path()).args(["sources", "--json"]).assert().success().get_output().stdout.clone();
    let s: Value = serde_json::from_slice(&out).unwrap();
    let targets: Vec<&str> = s["sources"].as_array().unwrap().iter().map(|x| x["target"].as_str().unwrap()).collect();
    assert_eq!(targets, ["documents", "sql", "es"], "{s}");
    assert_eq!(s["sources"][1]["why"], "sql_url from qa.toml", "{s}");
    assert_eq!(s["sources"][2]["why"], "found in the data folder", "{s}");
    let out = qa(dir.path())
        .arg("chat")
        .write_stdin("number of shipments per carrier\nHow many critical findings per department?\nHow does deep sleep relate to battery life?\n/exit\n")
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("finding_count") && text.contains("Brightwater Lines"), "{text}");
    // Each turn's trace says where it went.
    let traces = std::fs::read_to_string(dir.path().join("logs/query_traces.jsonl")).unwrap();
    let routes: Vec<String> = traces.lines().rev().take(3).map(|l| serde_json::from_str::<Value>(l).unwrap()["route"].as_str().unwrap_or("").to_string()).collect();
    assert_eq!(routes, ["documents", "sql", "es"], "last three turns, newest first");
    // With two indexes in the folder none is picked, and the note says how to choose.
    qa(dir.path()).args(["es", "index"]).arg(common::repo().join("samples/es/shipments.jsonl")).args(["--name", "other"]).assert().success();
    let out = qa(dir.path()).args(["sources", "--json"]).assert().success().get_output().stdout.clone();
    let s: Value = serde_json::from_slice(&out).unwrap();
    assert!(!s["sources"].as_array().unwrap().iter().any(|x| x["target"] == "es"), "{s}");
    assert!(s["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("--es NAME")), "{s}");
    // A database that cannot be opened is left out, and the note says why.
    std::fs::write(dir.path().join("garbage.db"), "not a database").unwrap();
    let out = qa(dir.path()).args(["sources", "--json", "--db", "garbage.db"]).assert().success().get_output().stdout.clone();
    let s: Value = serde_json::from_slice(&out).unwrap();
    assert!(!s["sources"].as_array().unwrap().iter().any(|x| x["target"] == "sql"), "{s}");
    assert!(s["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("sql_url from --db") && n.as_str().unwrap().contains("garbage.db")), "{s}");
}
