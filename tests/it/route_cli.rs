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
    // A route to an unconfigured source is an error naming the setting.
    qa(dir.path()).args(["ask", "anything", "--route", "es"]).assert().code(1).stderr(predicates::str::contains("QA_ES"));
    // --db and --es name the sources on ask and route alike (no environment variable needed).
    let out = qa(dir.path()).args(["route", "Which delayed shipments went to Saltmere Harbour in 2026?", "--json", "--es", "shipments"]).arg("--db").arg(&db).assert().success().get_output().stdout.clone();
    let d: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(d["target"], "es", "{d}");
    let out = qa(dir.path()).args(["ask", "How many critical findings per department?", "--json", "--es", "shipments"]).arg("--db").arg(&db).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["routing"]["target"], "sql", "{v}");
}
