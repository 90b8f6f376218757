//! The reiterate node with an LLM (the loopback OpenAI-compatible server of
//! `common::llm_server`): the restatement is used when its reply passes the schema, the session's
//! earlier turns are its context, and an unusable reply leaves the rules' reading standing with
//! the failure traced — in a session and in `qa es`. ES query generation is off here so the
//! reiterate prompt is the only LLM call.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::llm_server::{Scripted, ScriptedLlmServer, use_scripted_llm};
use crate::common::{self, qa};

fn shipments(dir: &Path) -> Vec<Value> {
    let sample = common::repo().join("samples/es/shipments.jsonl");
    qa(dir).args(["es", "index"]).arg(&sample).args(["--name", "shipments"]).assert().success();
    std::fs::read_to_string(&sample).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A reiterate reply restating every message as `goal(message)`; any other prompt is an error.
fn restating(goal: impl Fn(&str) -> String + Send + Sync + 'static) -> ScriptedLlmServer {
    ScriptedLlmServer::with_responder(move |body| {
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        if !system.contains("restate") {
            return Scripted::error(500, "only the reiterate prompt is expected here");
        }
        let user = body["messages"][1]["content"].as_str().unwrap_or_default();
        let message = user.rsplit("New message: ").next().unwrap_or_default();
        Scripted::reply(json!({"main_goal": goal(message), "reasoning": "restated", "user_query_text": null, "references_prior_results": false, "force_execute": false}).to_string())
    })
}

fn last_trace(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("logs/query_traces.jsonl")).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn a_session_follow_up_is_restated_by_the_llm_with_the_earlier_turns() {
    let dir = tempfile::tempdir().unwrap();
    let records = shipments(dir.path());
    let port = records[0]["destination_port"].as_str().unwrap().to_string();
    let expected = records.iter().filter(|r| r["status"] == "delayed" && r["destination_port"] == port.as_str()).count() as u64;
    let p = port.clone();
    let server = restating(move |m| if m.starts_with("and which") { format!("delayed shipments with destination port {p}") } else { m.to_string() });
    let ask = |m: &str| -> Value {
        let mut cmd = use_scripted_llm(qa(dir.path()), &server);
        cmd.env("QA_ES", "shipments").env("QA_ES_GENERATION", "off").args(["ask", m, "--session", "s", "--json"]);
        let out = cmd.assert().success().get_output().stdout.clone();
        serde_json::from_slice(&out).unwrap()
    };
    ask("List the delayed shipments");
    let v = ask("and which of those went there?");
    assert_eq!(v["reiterated_by"], "llm", "{v}");
    assert_eq!(v["main_goal"].as_str(), Some(format!("delayed shipments with destination port {port}").as_str()));
    assert_eq!(v["total"].as_u64(), Some(expected), "{v}");
    // The second request carried the first turn: its message, its goal and its answer.
    let requests: Vec<_> = server.requests().into_iter().filter(|r| r.body["messages"][0]["content"].as_str().is_some_and(|s| s.contains("restate"))).collect();
    assert_eq!(requests.len(), 2);
    let context = requests[1].body["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(context.contains("List the delayed shipments") && context.contains("matching"), "{context}");
    let t = last_trace(dir.path());
    assert_eq!(t["conversation"]["reiterated_by"], "llm");
    assert_eq!(t["conversation"]["llm_call"]["purpose"], "reiterate");
    assert_eq!(t["conversation"]["llm_call"]["outcome"], "used");
    let out = qa(dir.path()).args(["traces", "stats", "--json"]).assert().success().get_output().stdout.clone();
    let s: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!((s["rates"]["session_turns"]["count"].as_u64(), s["rates"]["restated_by_llm"]["count"].as_u64()), (Some(2), Some(2)), "{s}");
    let show: Value = serde_json::from_slice(&qa(dir.path()).args(["session", "show", "s", "--json"]).assert().success().get_output().stdout).unwrap();
    assert_eq!(show["turns"][1]["main_goal"], v["main_goal"]);
}

#[test]
fn an_unusable_restatement_leaves_the_rules_standing_and_is_traced() {
    let dir = tempfile::tempdir().unwrap();
    let records = shipments(dir.path());
    let delayed = records.iter().filter(|r| r["status"] == "delayed").count() as u64;
    for (name, server) in [
        ("empty goal", restating(|_| String::new())),
        ("not JSON", ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::reply("Sure! Here are the delayed shipments."))])),
        ("dead endpoint", ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::error(503, "overloaded"))])),
    ] {
        let session = name.replace(' ', "-");
        let mut cmd = use_scripted_llm(qa(dir.path()), &server);
        cmd.env("QA_ES", "shipments").env("QA_ES_GENERATION", "off").args(["ask", "List the delayed shipments", "--session", &session, "--json"]);
        let out = cmd.assert().success().get_output().stdout.clone();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!((v["reiterated_by"].as_str(), v["main_goal"].as_str()), (Some("rules"), Some("List the delayed shipments")), "{name}: {v}");
        assert_eq!(v["total"].as_u64(), Some(delayed), "{name}");
        assert!(v["reiterate_llm_error"].is_string(), "{name}: {v}");
        let t = last_trace(dir.path());
        assert!(t["conversation"]["llm_error"].is_string(), "{name}: {t}");
    }
    // `qa traces stats` counts the turns and the fallbacks.
    let out = qa(dir.path()).args(["traces", "stats", "--json"]).assert().success().get_output().stdout.clone();
    let s: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!((s["rates"]["session_turns"]["count"].as_u64(), s["rates"]["restatement_fallbacks"]["count"].as_u64(), s["rates"]["restated_by_llm"]["count"].as_u64()), (Some(3), Some(3), Some(0)), "{s}");
}

#[test]
fn qa_es_uses_the_llm_restatement_and_records_it_in_the_node() {
    let dir = tempfile::tempdir().unwrap();
    let records = shipments(dir.path());
    let delayed = records.iter().filter(|r| r["status"] == "delayed").count() as u64;
    let server = restating(|_| "delayed shipments".to_string());
    let es = |server: &ScriptedLlmServer, q: &str| -> Value {
        let mut cmd = use_scripted_llm(qa(dir.path()), server);
        cmd.env("QA_ES_GENERATION", "off").args(["es", q, "--index", "shipments", "--json"]);
        serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap()
    };
    let v = es(&server, "hmm, so which ones are running behind? the late ones I mean");
    assert_eq!((v["main_goal"].as_str(), v["total"].as_u64()), (Some("delayed shipments"), Some(delayed)), "{v}");
    let node = &last_trace(dir.path())["internal"]["es"]["nodes"]["reiterate"];
    assert_eq!(node["by"], "llm", "{node}");
    assert_eq!(server.requests().len(), 1);
    // With reiterate = off the LLM is not asked.
    let mut cmd = use_scripted_llm(qa(dir.path()), &server);
    cmd.env("QA_ES_GENERATION", "off").env("QA_REITERATE", "off").args(["es", "delayed shipments", "--index", "shipments", "--json"]).assert().success();
    assert_eq!(server.requests().len(), 1);
    // A reply that is no reiteration: the rules' goal runs, the failure is in the node.
    let bad = ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::reply("{\"intent\": \"search\", \"body\": {}}"))]);
    let v = es(&bad, "delayed shipments");
    assert_eq!((v["main_goal"].as_str(), v["total"].as_u64()), (Some("delayed shipments"), Some(delayed)));
    let node = &last_trace(dir.path())["internal"]["es"]["nodes"]["reiterate"];
    assert_eq!(node["by"], "rules");
    assert!(node["llm_error"].as_str().unwrap().contains("unexpected key"), "{node}");
}
