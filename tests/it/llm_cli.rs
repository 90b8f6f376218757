//! The LLM layer end to end through the CLI: `qa` talks to a scripted OpenAI-compatible server on
//! loopback (the real HTTP wire protocol) and, in the last tests, runs the real local GGUF model.
//! Every answer must keep its evidence honest: invented chunk ids and unsupported sentences never
//! reach the user, and a failing LLM degrades to the extractive answer with exit code 0.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::llm_server::{Scripted, ScriptedLlmServer};
use common::*;
use serde_json::Value;

const API_KEY: &str = "sk-test-DO-NOT-LEAK-4242";
const QUESTION: &str = "What I2C address does the BME280 use when SDO is tied to ground?";

/// `qa` pointed at the scripted server (openai provider, the fake key, quick retries).
fn qa_remote(data_dir: &Path, server: &ScriptedLlmServer) -> assert_cmd::Command {
    let mut cmd = qa(data_dir);
    cmd.env("QA_LLM_PROVIDER", "openai")
        .env("QA_LLM_BASE_URL", server.base_url())
        .env("QA_LLM_MODEL", "scripted-model")
        .env("QA_LLM_API_KEY", API_KEY)
        .env("QA_LLM_MAX_RETRIES", "1")
        .env("QA_LLM_TIMEOUT_SECS", "5")
        // These tests script the subquery and synthesis calls; generated Cypher has its own
        // tests (graph_cli.rs).
        .env("QA_CYPHER_GENERATION", "off");
    cmd
}

fn ask_remote(data_dir: &Path, server: &ScriptedLlmServer, question: &str) -> (Value, String) {
    let out = qa_remote(data_dir, server).args(["ask", question, "--json"]).assert().success().get_output().clone();
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON answer");
    (v, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Passage ids the synthesis prompt offered, in order.
fn offered_ids(body: &Value) -> Vec<String> {
    let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap().to_string();
    user.lines()
        .filter(|l| l.starts_with('[') && l.contains("] ("))
        .map(|l| l[1..l.find(']').unwrap()].to_string())
        .collect()
}

fn is_subquery_request(body: &Value) -> bool {
    body["response_format"]["json_schema"]["name"] == "subqueries"
}

fn bme_chunk(body: &Value) -> String {
    offered_ids(body).into_iter().find(|id| id.starts_with("bme280")).expect("the BME280 passage is in the prompt")
}

#[test]
fn remote_answer_keeps_supported_sentences_and_drops_inventions() {
    let server = ScriptedLlmServer::with_responder(|body| {
        if is_subquery_request(body) {
            return Scripted::reply(r#"{"subqueries": ["BME280 I2C address SDO ground"]}"#);
        }
        let id = bme_chunk(body);
        Scripted::reply(format!(
            "The BME280 responds at address 0x76 when its SDO pin is tied to ground [{id}]. \
             Mars has two moons made of green cheese [ghost_chunk_9]."
        ))
    });
    let dir = indexed_sample();
    let (a, stderr) = ask_remote(dir, &server, QUESTION);
    let text = a["answer"]["text"].as_str().unwrap();
    assert_eq!(a["answer"]["synthesizer"], "llm", "{text}");
    assert!(text.contains("0x76 when its SDO pin is tied to ground"), "{text}");
    assert!(!text.contains("cheese") && !text.contains("ghost_chunk_9"), "{text}");
    let g = &a["trace"]["answer_grounding"];
    assert_eq!(g["action"], "removed_unsupported");
    assert_eq!(g["invented_chunk_ids"], serde_json::json!(["ghost_chunk_9"]));
    assert_eq!(g["sentences"].as_array().unwrap().len(), 2);
    assert_eq!(g["sentences"][0]["supported"], true);
    assert_eq!(g["sentences"][1]["supported"], false);
    // Chunks used come from the evidence, never from the model's say-so.
    let used: Vec<&str> = a["answer"]["chunks_used"].as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap()).collect();
    let offered = offered_ids(&server.requests()[1].body);
    assert!(used.iter().any(|u| u.starts_with("bme280")), "{used:?}");
    assert!(used.iter().all(|u| offered.iter().any(|o| o == u)), "{used:?} vs {offered:?}");
    // Usage summed over both calls (the server reports 10 + 5 per call), model and LLM time traced.
    let t = &a["trace"];
    assert_eq!(t["token_usage"], serde_json::json!({"prompt": 20, "completion": 10, "total": 30}));
    assert_eq!(t["models"]["llm"], "scripted-model");
    assert!(t["latency_ms"]["llm_calls"].as_f64().unwrap() > 0.0);
    assert_eq!(t["internal"]["llm"]["subqueries"]["source"], "llm");
    assert!(t["rewritten_or_decomposed_queries"].as_array().unwrap().iter().any(|q| q == "BME280 I2C address SDO ground"));
    assert!(t["error"].is_null());
    // What was sent: the model, the key as a bearer token, the question and JSON schema output.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs.iter().all(|r| r.body["model"] == "scripted-model" && r.header("authorization") == Some(&format!("Bearer {API_KEY}"))));
    assert_eq!(reqs[0].body["response_format"]["type"], "json_schema");
    assert!(reqs[1].body.get("response_format").is_none());
    assert!(reqs[1].body["messages"][1]["content"].as_str().unwrap().contains(QUESTION));
    // The key is in no output, trace or log.
    let logs = std::fs::read_to_string(dir.join("logs/query_agent_logs.txt")).unwrap_or_default();
    let traces = std::fs::read_to_string(dir.join("logs/query_traces.jsonl")).unwrap();
    for (what, s) in [("answer", &a.to_string()), ("stderr", &stderr), ("log", &logs), ("traces", &traces)] {
        assert!(!s.contains(API_KEY), "the API key leaked into the {what}");
    }
}

#[test]
fn an_answer_the_evidence_does_not_support_is_replaced_by_the_extractive_one() {
    let server = ScriptedLlmServer::start(vec![
        Scripted::reply(r#"{"subqueries": ["BME280 address"]}"#),
        Scripted::reply("The sensor is a memory leak that occurs when a value is left uninitialized. Rust has 42 lifetimes [bme280-sensor_0]."),
    ]);
    let (a, _) = ask_remote(indexed_sample(), &server, QUESTION);
    let text = a["answer"]["text"].as_str().unwrap();
    assert_eq!(a["answer"]["synthesizer"], "extractive");
    assert!(!text.contains("memory leak") && text.contains("0x76"), "{text}");
    assert!(text.contains("LLM answer withheld"), "{text}");
    let g = &a["trace"]["answer_grounding"];
    assert_eq!(g["action"], "fell_back_to_extractive");
    assert!(g["reason"].as_str().unwrap().contains("0 of 2 sentences"), "{g}");
}

/// The LLM's view of the passages is believed: when all it says is that they do not answer the
/// question, the answer says the documents do not answer it — the extractive quote the guard
/// falls back to for an unsupported answer would claim more than the model found.
#[test]
fn an_llm_that_finds_no_answer_in_the_passages_is_believed() {
    for reply in [
        "The provided text doesn\u{2019}t say which address the sensor uses.",
        "The documents do not mention the address. Mars has two moons made of green cheese [ghost_chunk_9].",
    ] {
        let server = ScriptedLlmServer::start(vec![Scripted::reply(r#"{"subqueries": ["BME280 address"]}"#), Scripted::reply(reply)]);
        let (a, _) = ask_remote(indexed_sample(), &server, QUESTION);
        let text = a["answer"]["text"].as_str().unwrap();
        assert_eq!(a["answer"]["found"], false, "{text}");
        assert_eq!(a["answer"]["synthesizer"], "llm");
        assert!(text.starts_with("The indexed documents do not seem to answer this question: the LLM read the closest passages"), "{text}");
        assert!(text.contains("not") && text.contains("Closest passages"), "{text}");
        assert!(!text.contains("0x76") && !text.contains("cheese"), "no quote stands in for the model's reading: {text}");
        assert!(a["answer"]["chunks_used"].as_array().unwrap().is_empty());
        assert_eq!(a["trace"]["answer_grounding"]["action"], "declined");
    }
    // `llm_answerability = off`: the model's reading decides nothing; the extractive answer stands.
    let server = ScriptedLlmServer::start(vec![Scripted::reply(r#"{"subqueries": ["BME280 address"]}"#), Scripted::reply("The documents do not say.")]);
    let out = qa_remote(indexed_sample(), &server).env("QA_LLM_ANSWERABILITY", "off").args(["ask", QUESTION, "--json"]).assert().success().get_output().stdout.clone();
    let a: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(a["answer"]["found"], true);
    assert_eq!(a["answer"]["synthesizer"], "extractive");
}

/// A question the evidence check alone refuses as a near miss (its names found, one word not
/// the documents') is the LLM's to read: a supported answer is shown with a note, a declined one
/// stays a refusal. A far miss never reaches the model.
#[test]
fn a_near_miss_of_the_evidence_check_is_read_by_the_llm() {
    const NEAR: &str = "How is the battery voltage divider built and connected?";
    let dir = indexed_sample();
    let before = qa(dir).args(["--llm", "none", "ask", NEAR, "--json"]).assert().success().get_output().stdout.clone();
    let before: Value = serde_json::from_slice(&before).unwrap();
    assert_eq!(before["answer"]["found"], false, "the check alone refuses it: {}", before["answer"]["text"]);
    // The model quotes the passage's first sentence about the divider, citing it.
    let quoting = |body: &Value| {
        if is_subquery_request(body) {
            return Scripted::reply(serde_json::json!({ "subqueries": [NEAR] }).to_string());
        }
        let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap().to_string();
        let mut id = String::new();
        for line in user.lines() {
            if line.starts_with('[') && line.contains("] (") {
                id = line[1..line.find(']').unwrap()].to_string();
            } else if let Some(s) = line.split_inclusive(". ").find(|s| s.contains("divider") && s.split_whitespace().count() > 6) {
                return Scripted::reply(format!("{} [{id}]", s.trim().trim_end_matches('.')));
            }
        }
        Scripted::reply("The documents do not say.")
    };
    // `llm_answerability = off`: the refusal stands and the model is not asked to answer.
    let off = ScriptedLlmServer::with_responder(quoting);
    let out = qa_remote(dir, &off).env("QA_LLM_ANSWERABILITY", "off").args(["ask", NEAR, "--json"]).assert().success().get_output().stdout.clone();
    let a: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(a["answer"]["found"], false, "{}", a["answer"]["text"]);
    assert_eq!(off.requests().len(), 1, "only the subquery call");
    let server = ScriptedLlmServer::with_responder(quoting);
    let (a, _) = ask_remote(dir, &server, NEAR);
    let text = a["answer"]["text"].as_str().unwrap();
    assert_eq!(a["answer"]["found"], true, "{text}");
    assert_eq!(a["answer"]["synthesizer"], "llm", "{text}");
    assert!(text.contains("divider"), "{text}");
    assert!(text.contains("Note: the documents do not use every word of the question"), "{text}");
    let same = serde_json::json!({ "subqueries": [NEAR] }).to_string();
    let declining = ScriptedLlmServer::start(vec![Scripted::reply(same), Scripted::reply("The passages do not say how it is built.")]);
    let (a, _) = ask_remote(dir, &declining, NEAR);
    assert_eq!(a["answer"]["found"], false, "{}", a["answer"]["text"]);
    assert_eq!(a["trace"]["answer_grounding"]["action"], "declined");
    // An unsupported reading leaves the refusal, and the note says so.
    let same = serde_json::json!({ "subqueries": [NEAR] }).to_string();
    let inventing = ScriptedLlmServer::start(vec![Scripted::reply(same), Scripted::reply("Mars has two moons made of green cheese. Volcanic ash corrodes copper.")]);
    let (a, _) = ask_remote(dir, &inventing, NEAR);
    let text = a["answer"]["text"].as_str().unwrap();
    assert_eq!(a["answer"]["found"], false, "{text}");
    assert!(!text.contains("cheese") && text.contains("the evidence check's refusal stands"), "{text}");
    // Far from the documents: only the subquery call, no synthesis.
    let far = ScriptedLlmServer::start(vec![Scripted::reply(r#"{"subqueries": ["FIFA World Cup 2018 final"]}"#), Scripted::reply("France won it [x].")]);
    let (a, _) = ask_remote(dir, &far, "Who won the 2018 FIFA World Cup final?");
    assert_eq!(a["answer"]["found"], false);
    assert_eq!(far.requests().len(), 1, "the model was asked to answer a far miss");
}

#[test]
fn an_uncited_answer_is_flagged_and_still_lists_its_evidence() {
    let server = ScriptedLlmServer::start(vec![
        Scripted::reply(r#"{"subqueries": ["BME280 address"]}"#),
        Scripted::reply("The BME280 responds at address 0x76 when its SDO pin is tied to ground."),
    ]);
    let (a, _) = ask_remote(indexed_sample(), &server, QUESTION);
    assert_eq!(a["answer"]["synthesizer"], "llm");
    assert_eq!(a["trace"]["answer_grounding"]["uncited"], true);
    let used = a["answer"]["chunks_used"].as_array().unwrap();
    assert!(used.iter().any(|c| c["chunk_id"].as_str().unwrap().starts_with("bme280")), "{used:?}");
}

#[test]
fn invalid_subquery_json_falls_back_to_the_deterministic_split() {
    let server = ScriptedLlmServer::start(vec![
        Scripted::reply("Sure! Here are some queries: BME280, address"),
        Scripted::reply("The BME280 responds at address 0x76 when its SDO pin is tied to ground [bme280-sensor_0]."),
    ]);
    let (a, _) = ask_remote(indexed_sample(), &server, QUESTION);
    let plan = &a["trace"]["internal"]["llm"]["subqueries"];
    assert_eq!(plan["source"], "deterministic");
    assert!(plan["fallback_reason"].as_str().unwrap().contains("LLM"), "{plan}");
    assert_eq!(a["trace"]["rewritten_or_decomposed_queries"], serde_json::json!([QUESTION]));
    assert_eq!(server.requests().len(), 2, "synthesis still asked the LLM");
}

/// Degradation: the answer is extractive, says why in one line, the trace has the error, exit 0.
fn assert_degraded(a: &Value, expect: &str) {
    let text = a["answer"]["text"].as_str().unwrap();
    assert_eq!(a["answer"]["synthesizer"], "extractive");
    assert!(text.contains("0x76"), "{text}");
    assert!(text.contains("Note: LLM unavailable:"), "{text}");
    let err = a["trace"]["error"].as_str().unwrap();
    assert!(err.contains(expect), "{err}");
    assert!(!err.contains(API_KEY) && !text.contains(API_KEY));
}

#[test]
fn server_errors_until_give_up_degrade_the_answer() {
    let server = ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::error(500, "upstream exploded"))]);
    let (a, _) = ask_remote(indexed_sample(), &server, QUESTION);
    assert_degraded(&a, "500");
    // One retry for the subquery call; the synthesis call is not attempted against a dead endpoint.
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_slow_endpoint_times_out_and_degrades_quickly() {
    // Without the timeout this would take ≥ 60 s (30 s per attempt); the bound leaves room for a
    // loaded machine running the other tests in parallel.
    let server = ScriptedLlmServer::start(vec![Scripted::repeat(Scripted::delay(30.0, Scripted::reply("late")))]);
    let dir = indexed_sample();
    let t = Instant::now();
    let out = qa_remote(dir, &server).env("QA_LLM_TIMEOUT_SECS", "1").args(["ask", QUESTION, "--json"]).assert().success().get_output().clone();
    let a: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_degraded(&a, "timed out");
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
}

#[test]
fn an_unreachable_endpoint_degrades_the_answer() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = qa(indexed_sample())
        .env("QA_LLM_PROVIDER", "openai")
        .env("QA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("QA_LLM_MODEL", "m")
        .env("QA_LLM_MAX_RETRIES", "0")
        .args(["ask", QUESTION, "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let a: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_degraded(&a, "unreachable");
}

#[test]
fn a_misconfigured_provider_degrades_with_a_fix_it_hint() {
    let out = qa(indexed_sample()).env("QA_LLM_PROVIDER", "openai").args(["ask", QUESTION, "--json"]).assert().success().get_output().clone();
    let a: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_degraded(&a, "QA_LLM_BASE_URL");
}

#[test]
fn llm_graph_extraction_adds_typed_relations_and_reports_failures() {
    let corpus = tempfile::tempdir().unwrap();
    std::fs::write(corpus.path().join("wiring.md"), "# Wiring\n\nThe BME280 sensor connects to the ESP32 board over the I2C bus. Pull-up resistors keep the bus lines high.\n").unwrap();
    std::fs::write(corpus.path().join("power.md"), "# Power\n\nThe solar panel charges the LiPo battery through a charge controller. The battery feeds the ESP32 board.\n").unwrap();
    std::fs::write(corpus.path().join("notes.txt"), "Calibration notes: the anemometer cups spin faster in gusts. Record the gust speed every minute.\n").unwrap();
    let server = ScriptedLlmServer::with_responder(|body| {
        let user = body["messages"][1]["content"].as_str().unwrap_or("");
        let repair = body["messages"].as_array().unwrap().len() > 2;
        if user.contains("BME280") {
            Scripted::reply(
                r#"{"entities": [{"name": "BME280", "type": "sensor", "description": "weather sensor"},
                                 {"name": "ESP32", "type": "micro controller", "description": "the board"},
                                 {"name": "Saturn V", "type": "rocket", "description": "not in the passage"}],
                    "relations": [{"source": "BME280", "target": "ESP32", "type": "connects to"},
                                  {"source": "BME280", "target": "ESP32", "type": "MENTIONS"}]}"#,
            )
        } else if user.contains("solar panel") && !repair {
            Scripted::reply(r#"{"entities": [{"name": "solar panel""#)
        } else if user.contains("solar panel") {
            Scripted::reply(r#"{"entities": [{"name": "solar panel", "type": "power source", "description": "charges the battery"}, {"name": "LiPo battery", "type": "battery", "description": "stores energy"}], "relations": [{"source": "solar panel", "target": "LiPo battery", "type": "charges"}]}"#)
        } else {
            Scripted::reply("I cannot do that.")
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = qa_remote(dir.path(), &server).args(["index", "--extract", "llm", "--json"]).arg(corpus.path()).assert().success().get_output().clone();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    let x = &s["llm_extraction"];
    assert_eq!(s["kg_extraction"], "llm:scripted-model");
    assert_eq!((x["chunks"].as_u64(), x["ok_first_try"].as_u64(), x["repaired"].as_u64(), x["failed"].as_u64()), (Some(3), Some(1), Some(1), Some(1)), "{x}");
    assert_eq!(x["relations"], 2);
    assert!(x["failures"][0].as_str().unwrap().contains("notes"), "{x}");
    // The typed relations are in the KG JSONL with their evidence; the invented entity is not.
    let kg = std::fs::read_to_string(dir.path().join(format!("chunking_outputs/{}_kg.jsonl", s["corpus"].as_str().unwrap()))).unwrap();
    let rels: Vec<Value> = kg.lines().flat_map(|l| serde_json::from_str::<Value>(l).unwrap()["relationships"].as_array().unwrap().clone()).collect();
    let typed: Vec<(&str, &str, &str)> = rels
        .iter()
        .filter(|r| r["metadata"].as_array().unwrap().iter().any(|m| m["key"] == "extracted_by"))
        .map(|r| (r["source"].as_str().unwrap(), r["type"].as_str().unwrap(), r["target"].as_str().unwrap()))
        .collect();
    assert!(typed.contains(&("bme280", "CONNECTS_TO", "esp32")), "{typed:?}");
    assert!(typed.contains(&("solar panel", "CHARGES", "lipo battery")), "{typed:?}");
    assert!(!kg.contains("Saturn"));
    // A second run over the unchanged corpus is up to date and asks nothing.
    let before = server.requests().len();
    qa_remote(dir.path(), &server).args(["index", "--extract", "llm"]).arg(corpus.path()).assert().success();
    assert_eq!(server.requests().len(), before);
    // The typed relation is graph evidence for a question about both entities.
    let a: Value = serde_json::from_slice(
        &qa(dir.path()).args(["ask", "How does the BME280 relate to the ESP32?", "--json"]).assert().success().get_output().stdout,
    )
    .unwrap();
    let facts = a["answer"]["graph_facts"].to_string();
    assert!(facts.contains("CONNECTS_TO"), "{facts}");
}

#[test]
fn extract_llm_without_an_llm_is_an_error_that_says_how_to_get_one() {
    let corpus = tempfile::tempdir().unwrap();
    std::fs::write(corpus.path().join("a.md"), "# A\n\nSome text about sensors.\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    qa_without_models(dir.path())
        .env("QA_LLM_PROVIDER", "auto")
        .args(["index", "--extract", "llm"])
        .arg(corpus.path())
        .assert()
        .failure()
        .stderr(predicates::str::contains("setup-models.sh"));
}

#[cfg(feature = "local-llm")]
#[test]
fn the_local_model_answers_or_is_overruled_by_the_grounding_guard() {
    // A GGUF dropped anywhere and named by QA_LLM_MODEL is picked up by `--llm auto`.
    let own = tempfile::tempdir().unwrap();
    let model = own.path().join("my-chat-model.gguf");
    std::os::unix::fs::symlink(local_llm_path(), &model).unwrap();
    let out = qa(indexed_sample())
        .env("QA_LLM_MODEL", &model)
        .args(["--llm", "auto", "ask", QUESTION, "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let a: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = &a["trace"];
    assert_eq!(t["models"]["llm"], "my-chat-model.gguf");
    assert!(t["error"].is_null(), "{}", t["error"]);
    // Tokens counted by us: two calls (subqueries, synthesis), each with prompt and completion.
    let calls = t["internal"]["llm"]["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let usage = &t["token_usage"];
    assert!(usage["prompt"].as_u64().unwrap() > 100 && usage["completion"].as_u64().unwrap() > 0);
    assert_eq!(usage["total"].as_u64(), Some(usage["prompt"].as_u64().unwrap() + usage["completion"].as_u64().unwrap()));
    // Subqueries: constrained JSON either validated (llm) or fell back with a reason; say which.
    let plan = &t["internal"]["llm"]["subqueries"];
    match plan["source"].as_str().unwrap() {
        "llm" => assert!(t["rewritten_or_decomposed_queries"].as_array().unwrap().len() >= 2),
        "deterministic" => assert!(plan["fallback_reason"].is_string()),
        other => panic!("unknown subquery source {other}"),
    }
    // Whatever the tiny model wrote, what reaches the user is supported or extractive.
    let g = &t["answer_grounding"];
    let action = g["action"].as_str().unwrap();
    match a["answer"]["synthesizer"].as_str().unwrap() {
        "llm" if action == "declined" => assert_eq!(a["answer"]["found"], false),
        "llm" => assert!(action == "kept_all" || action == "removed_unsupported"),
        "extractive" => assert_eq!(action, "fell_back_to_extractive"),
        other => panic!("unknown synthesizer {other}"),
    }
    for s in g["sentences"].as_array().unwrap() {
        if s["supported"] == false && s["abstention"] == false {
            assert!(!a["answer"]["text"].as_str().unwrap().contains(s["text"].as_str().unwrap()), "unsupported sentence shown: {s}");
        }
    }
}
