//! `qa es` with an LLM: candidates from the loopback OpenAI-compatible server of
//! `common::llm_server`, judged by the guard, ranked against the lookup and repaired with the
//! guard's reasons, through the binary on the bundled shipments sample. Expected numbers come
//! from the JSONL.

use crate::common;

use std::path::Path;

use common::llm_server::{use_scripted_llm, Scripted, ScriptedLlmServer};
use common::qa;
use serde_json::{json, Value};

fn indexed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    qa(dir.path()).args(["es", "index"]).arg(common::repo().join("samples/es/shipments.jsonl")).args(["--name", "shipments"]).assert().success();
    dir
}

/// The id of a record that the lookup's sample (the 50 first ids) does not hold.
fn unsampled_id() -> String {
    let text = std::fs::read_to_string(common::repo().join("samples/es/shipments.jsonl")).unwrap();
    let ids: Vec<String> = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    ids[ids.len() / 2].clone()
}

fn ask(dir: &Path, server: Option<&ScriptedLlmServer>, question: &str, extra: &[&str]) -> Value {
    let mut cmd = qa(dir);
    if let Some(s) = server {
        cmd = use_scripted_llm(cmd, s);
    }
    // Only query generation asks the LLM here (the reiterate prompt has tests of its own).
    cmd.env("QA_REITERATE", "off");
    let out = cmd.args(["es", question, "--index", "shipments", "--json"]).args(extra).assert().code(0).get_output().clone();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn last_trace(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("logs/query_traces.jsonl")).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

fn reply(body: Value) -> Scripted {
    Scripted::reply(json!({"intent": "search", "body": body}).to_string())
}

#[test]
fn an_llm_candidate_that_pins_the_asked_id_is_chosen() {
    let dir = indexed();
    let id = unsampled_id();
    let question = format!("show shipment {id}");
    let server = ScriptedLlmServer::with_responder({
        let id = id.clone();
        move |_| reply(json!({"query": {"term": {"id.keyword": id}}}))
    });
    let v = ask(dir.path(), Some(&server), &question, &["--k", "1"]);
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["total"].as_u64(), Some(1), "{v}");
    assert_eq!(v["hits"][0]["id"], json!(id));
    assert_eq!(v["es_query"]["query"]["term"]["id.keyword"], json!(id));
    assert!(v["metrics"]["tokens"]["total"].as_u64().unwrap() > 0, "{v}");
    let t = last_trace(dir.path());
    let cands = t["internal"]["es"]["nodes"]["generate"]["candidates"].as_array().unwrap().clone();
    assert!(cands.iter().any(|c| c["source"] == "llm#1" && c["chosen"] == true), "{cands:?}");
    assert!(cands.iter().any(|c| c["source"] == "deterministic" && c["chosen"] == false));
    assert_eq!(t["internal"]["llm"]["model"], "scripted-model");
    // The prompt named the index's fields and carried the deterministic draft.
    let sent = server.requests()[0].body["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(sent.contains("- id: text (exact values and aggregations: id.keyword)") && sent.contains("A draft body"), "{sent}");
}

#[test]
fn hostile_llm_bodies_are_refused_repaired_once_and_never_sent() {
    let dir = indexed();
    let script = vec![
        reply(json!({"query": {"match_all": {}}, "script_fields": {"x": {"script": {"source": "params['_source']"}}}})),
        reply(json!({"query": {"term": {"owner": "x"}}})),
        reply(json!({"query": {"function_score": {"query": {"match_all": {}}, "script_score": {"script": "1"}}}})),
        reply(json!({"query": {"terms": {"carrier": {"index": "other", "id": "1", "path": "p"}}}})),
    ];
    let server = ScriptedLlmServer::start(script);
    let v = ask(dir.path(), Some(&server), "delayed shipments", &["--k", "2", "--max-repairs", "1"]);
    assert_eq!(v["status"], "answered", "{v}");
    assert!(v["hits"].as_array().unwrap().iter().all(|h| h["status"] == "delayed"), "the deterministic query ran: {v}");
    let t = last_trace(dir.path());
    let executed = t["internal"]["es"]["executed"].to_string();
    for word in ["script", "owner", "function_score", "\"index\""] {
        assert!(!executed.contains(word), "{word} was sent: {executed}");
    }
    let cands = t["internal"]["es"]["nodes"]["generate"]["candidates"].as_array().unwrap().clone();
    assert_eq!(cands.iter().filter(|c| c["valid"] == false).count(), 4, "{cands:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "two candidates, each repaired once");
    // The repair sent the guard's reasons back.
    let repair = requests[1].body["messages"][1]["content"].as_str().unwrap().to_string();
    let reason = cands.iter().find(|c| c["source"] == "llm#1").unwrap()["reasons"][0].as_str().unwrap().to_string();
    assert!(repair.contains("was refused") && repair.contains(&reason), "{repair}");
}

#[test]
fn with_the_llm_down_the_deterministic_answer_carries_a_note() {
    let dir = indexed();
    let server = ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::error(503, "overloaded"))]);
    let with = ask(dir.path(), Some(&server), "delayed shipments", &[]);
    let without = ask(dir.path(), None, "delayed shipments", &[]);
    assert_eq!(with["status"], "answered");
    assert_eq!(with["total"], without["total"]);
    assert_eq!(with["es_query"], without["es_query"]);
    let notes = with["notes"].to_string();
    assert!(notes.contains("LLM query generation degraded"), "{with}");
    let t = last_trace(dir.path());
    assert!(t["internal"]["llm"]["provider"].is_null() && t["internal"]["llm"]["skipped"].is_string(), "the second run had no LLM, and says why: {}", t["internal"]["llm"]);
}
