//! `qa traces stats` on traces written by the real writers, every route in one data dir: a
//! documents question on the indexed sample corpus, on the sample SQLite database one SQL
//! question that is answered and one that asks for clarification (exit code 3), and the same
//! pair on the embedded search index of the shipments sample.

use crate::common;

use common::{copy_of_indexed_sample, qa, sql_fixture};
use serde_json::{json, Value};

fn stats(dir: &std::path::Path, args: &[&str]) -> Value {
    let out = qa(dir).args(["traces", "stats", "--json"]).args(args).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("stats JSON")
}

#[test]
fn stats_count_routes_statuses_and_clarifications_of_every_writer() {
    let dir = copy_of_indexed_sample();
    let _ = std::fs::remove_file(dir.path().join("logs/query_traces.jsonl"));
    qa(dir.path()).args(["ask", "--llm", "none", "What is deep sleep on the ESP32?"]).assert().success();
    let url = format!("sqlite://{}", sql_fixture::sqlite_sample(dir.path()).display());
    qa(dir.path()).env("QA_SQL_URL", &url).args(["sql", "How many critical findings per department?", "--json"]).assert().code(0);
    qa(dir.path()).env("QA_SQL_URL", &url).args(["sql", "How many are open?", "--json"]).assert().code(3);
    let shipments = common::repo().join("samples/es/shipments.jsonl");
    qa(dir.path()).args(["es", "index"]).arg(&shipments).args(["--name", "shipments"]).assert().success();
    qa(dir.path()).args(["es", "delayed shipments", "--index", "shipments", "--json"]).assert().code(0);
    qa(dir.path()).args(["es", "shipments in March 2026", "--index", "shipments", "--json"]).assert().code(3);

    let text = std::fs::read_to_string(dir.path().join("logs/query_traces.jsonl")).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let fields: Vec<(&str, &str)> = lines.iter().map(|l| (l["route"].as_str().unwrap(), l["status"].as_str().unwrap())).collect();
    assert_eq!(fields, [("documents", "answered"), ("sql", "answered"), ("sql", "needs_clarification"), ("es", "answered"), ("es", "needs_clarification")]);

    let s = stats(dir.path(), &[]);
    assert_eq!((s["traces"].as_u64(), s["malformed_lines"].as_u64(), s["lines_with_defaulted_fields"].as_u64()), (Some(5), Some(0), Some(0)), "{s}");
    assert_eq!(s["routes"], json!({"documents": 1, "sql": 2, "es": 2}));
    assert_eq!(s["statuses"], json!({"answered": 3, "needs_clarification": 2}));
    assert_eq!(s["rates"]["clarification_requests"]["count"], 2, "{s}");

    let sql = stats(dir.path(), &["--route", "sql"]);
    assert_eq!((sql["traces"].as_u64(), sql["rates"]["clarification_requests"]["count"].as_u64()), (Some(2), Some(1)));
    let es = stats(dir.path(), &["--route", "es"]);
    assert_eq!((es["traces"].as_u64(), es["rates"]["clarification_requests"]["count"].as_u64()), (Some(2), Some(1)));
    let docs = stats(dir.path(), &["--route", "documents"]);
    assert_eq!((docs["traces"].as_u64(), docs["rates"]["clarification_requests"]["count"].as_u64()), (Some(1), Some(0)));

    // Every line reads back as the one record type: `show` prints each in full.
    for l in &lines {
        let id = l["trace_id"].as_str().unwrap();
        let out = qa(dir.path()).args(["traces", "show", id, "--json"]).assert().success().get_output().stdout.clone();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!((&v["route"], &v["status"]), (&l["route"], &l["status"]));
    }
    // `list` and `export` carry the status of each line.
    let out = qa(dir.path()).args(["traces", "list", "--json"]).assert().success().get_output().stdout.clone();
    let listed: Vec<Value> = serde_json::from_slice(&out).unwrap();
    let statuses: Vec<&str> = listed.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, fields.iter().map(|(_, s)| *s).collect::<Vec<_>>());
    let out = qa(dir.path()).args(["traces", "export", "--format", "csv"]).assert().success().get_output().stdout.clone();
    let csv = String::from_utf8(out).unwrap();
    let exported: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').nth(3).unwrap()).collect();
    assert_eq!(exported, statuses);
    let text = String::from_utf8(qa(dir.path()).args(["traces", "list"]).assert().success().get_output().stdout.clone()).unwrap();
    assert!(text.lines().nth(2).unwrap().contains(" clarify "), "{text}");
}
