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

#[test]
fn a_filtered_search_counts_exactly_what_the_records_hold() {
    let dir = indexed();
    let expected = count_where(&[("status", "delayed"), ("carrier", "Korvane Shipping")]);
    assert!(expected > 0);
    let v = ask(dir.path(), "delayed shipments carried by Korvane Shipping", &[], 0);
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["route"], "es");
    assert_eq!(v["intent"], "search");
    assert_eq!(v["total"].as_u64(), Some(expected), "{v}");
    assert_eq!(v["hits"].as_array().unwrap().len() as u64, expected.min(20));
    for h in v["hits"].as_array().unwrap() {
        assert_eq!((h["status"].as_str(), h["carrier"].as_str()), (Some("delayed"), Some("Korvane Shipping")), "{h}");
    }
    for key in ["main_goal", "es_query", "query_summary", "needs_clarification", "ambiguity", "aggregations", "page", "metrics", "trace_id"] {
        assert!(v.get(key).is_some(), "--json has {key}: {v}");
    }
    let t = traces(dir.path());
    assert_eq!(t.len(), 1);
    assert_eq!((t[0]["route"].as_str(), t[0]["status"].as_str(), t[0]["trace_id"].as_str()), (Some("es"), Some("answered"), v["trace_id"].as_str()));

    // The text output: a table, the page line, the summary and the DSL.
    let out = qa(dir.path()).args(["es", "delayed shipments carried by Korvane Shipping", "--index", "shipments"]).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("of {expected}")) && text.contains("Query: ") && text.contains("DSL: {"), "{text}");
    assert_eq!(traces(dir.path()).len(), 2, "every run appends its trace");
}

#[test]
fn an_aggregation_has_buckets_that_add_up_to_the_total() {
    let dir = indexed();
    let v = ask(dir.path(), "number of shipments per carrier", &[], 0);
    assert_eq!((v["status"].as_str(), v["intent"].as_str()), (Some("answered"), Some("aggregation")), "{v}");
    let aggs = v["aggregations"].as_object().expect("aggregations");
    let buckets = aggs.values().find_map(|a| a["buckets"].as_array()).expect("a bucket aggregation");
    let carriers: std::collections::BTreeSet<String> = records().iter().map(|r| r["carrier"].as_str().unwrap().to_string()).collect();
    assert_eq!(buckets.len(), carriers.len(), "{v}");
    let sum: u64 = buckets.iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(sum, records().len() as u64);
    assert_eq!(v["total"].as_u64(), Some(sum));
    let out = qa(dir.path()).args(["es", "number of shipments per carrier", "--index", "shipments"]).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains('█') && text.contains("doc_count"), "a table and a bar chart: {text}");
}

#[test]
fn offset_pages_are_disjoint_and_say_where_the_next_one_starts() {
    let dir = indexed();
    let expected = count_where(&[("status", "delayed")]);
    assert!(expected > 20);
    let ids = |v: &Value| -> Vec<String> { v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect() };
    let p1 = ask(dir.path(), "delayed shipments", &["--page-size", "10"], 0);
    let p2 = ask(dir.path(), "delayed shipments", &["--page-size", "10", "--offset", "10"], 0);
    assert_eq!((p1["total"].as_u64(), p2["total"].as_u64()), (Some(expected), Some(expected)));
    assert_eq!(p1["page"], json!({"offset": 0, "size": 10, "next_offset": 10}));
    assert_eq!(p2["page"]["offset"], 10);
    let (a, b) = (ids(&p1), ids(&p2));
    assert_eq!((a.len(), b.len()), (10, 10));
    assert!(a.iter().all(|id| !b.contains(id)), "pages overlap: {a:?} {b:?}");
    let out = qa(dir.path()).args(["es", "delayed shipments", "--index", "shipments", "--page-size", "10"]).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("showing 1–10 of {expected}; next: --offset 10")), "{text}");
}

#[test]
fn a_clarification_exits_3_and_resumes_with_the_answer() {
    let dir = indexed();
    let v = ask(dir.path(), "shipments in March 2026", &[], 3);
    assert_eq!((v["status"].as_str(), v["needs_clarification"].as_bool()), (Some("needs_clarification"), Some(true)), "{v}");
    let alternatives = v["ambiguity"]["alternatives"].as_array().expect("alternatives");
    assert!(alternatives.len() >= 2, "{v}");
    let id = v["checkpoint"].as_str().expect("a checkpoint id").to_string();
    let t = traces(dir.path());
    assert_eq!((t[0]["route"].as_str(), t[0]["status"].as_str()), (Some("es"), Some("needs_clarification")));

    let out = qa(dir.path()).args(["es", "shipments in March 2026", "--index", "shipments"]).assert().code(3).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("  1. ") && text.contains("qa es --resume "), "{text}");

    // Resume without naming the index again: the checkpoint knows it.
    let field = alternatives[0].as_str().unwrap().to_string();
    let r = run_json(qa(dir.path()).args(["es", "--resume", &id, "--answer", "1", "--json"]), 0);
    assert_eq!(r["status"], "answered", "{r}");
    let expected = records().iter().filter(|x| x[field.as_str()].as_str().is_some_and(|d| d.starts_with("2026-03"))).count() as u64;
    assert_eq!(r["total"].as_u64(), Some(expected), "resumed with {field}: {r}");
    assert_eq!(traces(dir.path()).len(), 3);
}

fn doctor(cmd: &mut assert_cmd::Command) -> (Value, String) {
    let out = cmd.args(["doctor", "--json"]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("doctor JSON ({e}): {text}")), text)
}

fn es_check(v: &Value) -> Value {
    v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "es").cloned().unwrap_or(Value::Null)
}

#[test]
fn doctor_reports_the_target_with_its_origin_and_never_a_credential() {
    let dir = indexed();
    std::fs::write(dir.path().join("qa.toml"), "es = \"shipments\"\nes_page_size = 7\n").unwrap();
    let (v, _) = doctor(qa(dir.path()).env("QA_ES_PAGE_SIZE", "9"));
    let c = es_check(&v);
    assert_eq!(c["ok"], true, "{c}");
    assert!(c["detail"].as_str().unwrap().contains(&format!("{} documents", records().len())), "{c}");
    let setting = |k: &str| v["settings"].as_array().unwrap().iter().find(|s| s["key"] == k).cloned().unwrap();
    assert_eq!((setting("es")["value"].as_str(), setting("es")["origin"].as_str()), (Some("shipments"), Some("file")));
    assert_eq!((setting("es_page_size")["value"].as_u64(), setting("es_page_size")["origin"].as_str()), (Some(9), Some("env")));

    // An unreachable server: a failed check with a fix, and no secret anywhere.
    let (v, text) = doctor(qa(dir.path()).env("QA_ES", "http://someone:url-pass-77@127.0.0.1:9/idx").env("QA_ES_API_KEY", "key-sekret-42").env("QA_ES_PASSWORD", "pw-sekret-43"));
    let c = es_check(&v);
    assert_eq!(c["ok"], false, "{c}");
    assert!(c["detail"].as_str().unwrap().contains("http://127.0.0.1:9/idx") && c["fix"].is_string(), "{c}");
    for secret in ["key-sekret-42", "pw-sekret-43", "url-pass-77"] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

/// A loopback Elasticsearch server answering from the embedded index `shipments` in `dir`,
/// demanding `key` as API key.
fn loopback_server(dir: &Path, key: &str) -> common::es_server::EsServer {
    common::es_server::EsServer::over_embedded(dir, "shipments").auth(common::es_server::RequiredAuth::ApiKey(key.into())).start()
}

#[test]
fn the_remote_path_answers_through_the_rest_api_without_showing_the_key() {
    const KEY: &str = "c2VjcmV0LWtleS1mb3ItdGVzdHM=";
    let dir = indexed();
    let server = loopback_server(dir.path(), KEY);
    let remote = |args: &[&str]| {
        let mut cmd = qa(dir.path());
        cmd.args(["es"]).args(args).args(["--es", &server.index_url()]).env("QA_ES_API_KEY", KEY).env("QA_ES_RETRIES", "0");
        cmd
    };
    let expected = count_where(&[("status", "delayed"), ("carrier", "Korvane Shipping")]);
    let out = remote(&["delayed shipments carried by Korvane Shipping", "--json"]).assert().code(0).get_output().clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["status"].as_str(), v["total"].as_u64()), (Some("answered"), Some(expected)), "{v}");
    assert_eq!(v["target"].as_str(), Some(server.index_url().as_str()));
    let text = remote(&["number of shipments per carrier"]).assert().code(0).get_output().clone();
    let check = remote(&["check", "POST /shipments/_delete_by_query {\"query\":{\"match_all\":{}}}"]).assert().code(1).get_output().clone();
    let mapping = remote(&["mapping", "--json"]).assert().code(0).get_output().clone();
    for o in [&out, &text, &check, &mapping] {
        let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(!all.contains(KEY), "the API key leaked: {all}");
    }
    let trace_text = std::fs::read_to_string(dir.path().join("logs/query_traces.jsonl")).unwrap();
    assert!(!trace_text.contains(KEY) && trace_text.contains("\"route\":\"es\""));
    let requests = server.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.authorization.as_deref(), Some(format!("ApiKey {KEY}").as_str()), "{r:?}");
        assert!(["/shipments/_mapping", "/shipments/_search", "/shipments/_count"].contains(&r.path.as_str()), "only read endpoints: {r:?}");
    }

    // Wrong key: a clear error with a hint, exit 1, the key not shown.
    let out = qa(dir.path()).args(["es", "delayed shipments", "--es", &server.index_url()]).env("QA_ES_API_KEY", "wrong-key-123").env("QA_ES_RETRIES", "0").assert().code(1).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("hint:") && err.contains("QA_ES_API_KEY") && !err.contains("wrong-key-123"), "{err}");

    // Nobody listening: exit 1 with a hint, no panic.
    let out = qa(dir.path()).args(["es", "delayed shipments", "--es", "http://127.0.0.1:9/shipments", "--timeout-ms", "2000"]).env("QA_ES_RETRIES", "0").assert().code(1).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: ") && err.contains("hint:") && !err.contains("panicked"), "{err}");
}

/// "Which X has the most …" when another group has exactly as many: the answer keeps its bucket
/// and a note names the tied group; when one group leads, no note.
#[test]
fn a_tie_for_first_place_is_named_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rows: &[(&str, &str)]| {
        let path = dir.path().join("repairs.jsonl");
        let text: String = rows.iter().enumerate().map(|(i, (m, j))| json!({"id": format!("r{i}"), "mechanic_name": m, "job": j}).to_string() + "\n").collect();
        std::fs::write(&path, text).unwrap();
        qa(dir.path()).args(["es", "index"]).arg(&path).args(["--name", "repairs"]).assert().success();
    };
    let notes = |v: &Value| v["notes"].as_array().unwrap().iter().filter_map(Value::as_str).filter(|n| n.contains("tie")).map(str::to_string).collect::<Vec<_>>();
    write(&[("Ana", "brake"), ("Ana", "tyre"), ("Ben", "brake"), ("Ben", "oil"), ("Cy", "oil")]);
    let v = run_json(qa(dir.path()).args(["es", "Which mechanic has the most repairs?", "--index", "repairs", "--json", "--llm", "none"]), 0);
    assert_eq!(v["aggregations"]["group"]["buckets"].as_array().map(Vec::len), Some(1), "the answer keeps its one bucket: {v}");
    let n = notes(&v);
    assert!(n.len() == 1 && n[0].contains("1 other group ties for first place") && (n[0].contains("Ben") || n[0].contains("Ana")), "{v}");
    write(&[("Ana", "brake"), ("Ana", "tyre"), ("Ana", "oil"), ("Ben", "brake"), ("Ben", "oil"), ("Cy", "oil")]);
    let v = run_json(qa(dir.path()).args(["es", "Which mechanic has the most repairs?", "--index", "repairs", "--json", "--llm", "none"]), 0);
    assert!(notes(&v).is_empty(), "{v}");
}

/// "each load delivered at Bradford" over an index of wool deliveries whose notes say "Load
/// rejected." now and then: the records' noun before the records' verb is the records, not a
/// text condition on the notes (which would keep only the rejected ones).
#[test]
fn the_records_noun_before_their_verb_is_no_text_search() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("wool_deliveries.jsonl");
    let lines: Vec<String> = (0..12)
        .map(|i| {
            let mill = if i % 2 == 0 { "Bradford" } else { "Galashiels" };
            let note = if i % 3 == 0 { "Wet fleece. Load rejected." } else { "Clean fleece, no remarks." };
            json!({"delivery_ref": format!("WD-{i:04}"), "deliveryDate": format!("2025-0{}-1{}", 1 + i % 8, i % 9), "mill_name": mill, "weight_kg": 180 + i, "inspector_note": note}).to_string()
        })
        .collect();
    std::fs::write(&data, lines.join("\n")).unwrap();
    qa(dir.path()).args(["es", "index"]).arg(&data).args(["--name", "wool_deliveries"]).assert().success();
    let v = run_json(qa(dir.path()).args(["--llm", "none", "es", "Show the delivery ref of each load delivered at Bradford.", "--index", "wool_deliveries", "--json"]), 0);
    assert_eq!(v["total"].as_u64(), Some(6), "{v}");
    assert!(!v["query_summary"].as_str().unwrap_or_default().contains("inspector_note"), "{v}");
}
