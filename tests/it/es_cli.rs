//! `qa es` end to end through the binary: an embedded index built from the bundled shipments
//! sample (and a small fixture of another domain), questions answered deterministically (no
//! LLM), the guard's verdicts, clarification and resume, paging, errors, traces, and the remote
//! path against the loopback Elasticsearch server of `common::es_server`. Each test has its own
//! data folder. Expected numbers are computed here from the JSONL, never copied from output.

use crate::common;

use std::path::{Path, PathBuf};

use common::qa;
use serde_json::{json, Value};

fn sample() -> PathBuf {
    common::repo().join("samples/es/shipments.jsonl")
}

fn records() -> Vec<Value> {
    std::fs::read_to_string(sample()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Records whose `field` equals `value`, for every (field, value) pair.
fn count_where(pairs: &[(&str, &str)]) -> u64 {
    records().iter().filter(|r| pairs.iter().all(|(f, v)| r[*f] == json!(v))).count() as u64
}

/// A data folder with the sample indexed as `shipments`.
fn indexed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    qa(dir.path()).args(["es", "index"]).arg(sample()).args(["--name", "shipments"]).assert().success();
    dir
}

fn run_json(cmd: &mut assert_cmd::Command, code: i32) -> Value {
    let out = cmd.assert().code(code).get_output().clone();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn ask(dir: &Path, question: &str, extra: &[&str], code: i32) -> Value {
    run_json(qa(dir).args(["es", question, "--index", "shipments", "--json"]).args(extra), code)
}

fn traces(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("logs/query_traces.jsonl")).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).expect("trace JSON")).collect()
}

#[test]
fn index_prints_docs_fields_and_rate_and_lists_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_json(qa(dir.path()).args(["es", "index"]).arg(sample()).args(["--name", "shipments", "--json"]), 0);
    assert_eq!(v["docs"].as_u64(), Some(records().len() as u64), "{v}");
    assert!(v["fields"].as_u64().unwrap() >= 10, "{v}");
    assert_eq!(v["mapping_inferred"], true);
    assert!(v["docs_per_sec"].as_f64().unwrap() > 0.0);
    assert!(dir.path().join("es_indexes/shipments").is_dir());

    let out = qa(dir.path()).args(["es", "index"]).arg(sample()).args(["--name", "again"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("Indexed {} documents", records().len())) && text.contains("documents/s"), "{text}");

    let list = run_json(qa(dir.path()).args(["es", "list", "--json"]), 0);
    let names: Vec<String> = list["indexes"].as_array().unwrap().iter().map(|i| i["name"].as_str().map_or_else(|| i.to_string(), str::to_string)).collect();
    assert!(names.iter().any(|n| n.contains("shipments")) && names.iter().any(|n| n.contains("again")), "{list}");
}

#[test]
fn an_explicit_mapping_and_another_domain_work_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("books.csv");
    std::fs::write(&data, "isbn,title,genre,pages,published\n1,The Quiet Orchard,fiction,312,2019-04-02\n2,Salt and Iron,history,498,2021-09-15\n3,Small Engines,technical,220,2018-01-20\n4,A Winter Ledger,fiction,276,2022-11-03\n").unwrap();
    let mapping = dir.path().join("books_mapping.json");
    std::fs::write(&mapping, r#"{"mappings": {"properties": {"isbn": {"type": "keyword"}, "title": {"type": "text", "fields": {"raw": {"type": "keyword"}}}, "genre": {"type": "keyword"}, "pages": {"type": "integer"}, "published": {"type": "date"}}}}"#).unwrap();
    qa(dir.path()).args(["es", "index"]).arg(&data).args(["--name", "books", "--mapping"]).arg(&mapping).assert().success();
    let m = run_json(qa(dir.path()).args(["es", "mapping", "--index", "books", "--json"]), 0);
    let fields: Vec<(&str, &str)> = m["fields"].as_array().unwrap().iter().map(|f| (f["path"].as_str().unwrap(), f["es_type"].as_str().unwrap())).collect();
    assert_eq!(fields, [("genre", "keyword"), ("isbn", "keyword"), ("pages", "integer"), ("published", "date"), ("title", "text")]);
    let genre = m["fields"].as_array().unwrap().iter().find(|f| f["path"] == "genre").unwrap();
    assert_eq!(genre["samples"][0], "fiction", "sampled values, most frequent first: {genre}");
    let v = run_json(qa(dir.path()).args(["es", "check", r#"{"query":{"term":{"genre":"fiction"}}}"#, "--index", "books", "--json"]), 0);
    assert_eq!(v["verdict"]["accepted"], true, "{v}");
    let v = run_json(qa(dir.path()).args(["es", "check", r#"{"query":{"term":{"author":"x"}}}"#, "--index", "books", "--json"]), 1);
    assert!(v["verdict"]["reasons"].to_string().contains("author"), "an unknown field is named: {v}");
}

#[test]
fn check_accepts_a_safe_body_and_refuses_delete_by_query() {
    let dir = indexed();
    let out = qa(dir.path()).args(["es", "check", r#"{"query":{"match_all":{}},"size":50000}"#, "--index", "shipments"]).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("accepted") && text.contains("would run:"), "{text}");
    let out = qa(dir.path()).args(["es", "check", "POST /shipments/_delete_by_query\n{\"query\":{\"match_all\":{}}}", "--index", "shipments"]).assert().code(1).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("refused") && !text.contains("would run:"), "{text}");
    let v = run_json(qa(dir.path()).args(["es", "check", r#"{"query":{"script":{"script":"1"}}}"#, "--index", "shipments", "--json"]), 1);
    assert_eq!(v["verdict"]["accepted"], false);
    assert!(v["verdict"]["body"].is_null());
}

#[test]
fn mapping_shows_kinds_and_sampled_values() {
    let dir = indexed();
    let out = qa(dir.path()).args(["es", "mapping", "--index", "shipments"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    for r in records().iter().take(1) {
        for key in r.as_object().unwrap().keys() {
            assert!(text.contains(key.as_str()), "field {key} listed: {text}");
        }
    }
    assert!(text.contains("date") && text.contains("e.g."), "{text}");
}

#[test]
fn a_missing_index_names_the_command_that_builds_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = qa(dir.path()).args(["es", "how many shipments", "--index", "nowhere"]).assert().code(1).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("qa es index FILE --name nowhere") && err.contains("hint:"), "{err}");
    let out = qa(dir.path()).args(["es", "mapping"]).assert().code(1).get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--index NAME"), "no target: says how to give one");
    qa(dir.path()).args(["es", "  "]).assert().code(2);
}
