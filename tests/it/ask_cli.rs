//! End-to-end questions against the indexed sample corpus (real model, real HNSW, real graph).

use crate::common;

use common::*;
use predicates::prelude::*;

fn chunk_files(answer: &serde_json::Value) -> Vec<String> {
    answer["trace"]["retrieved_chunks"].as_array().unwrap().iter().map(|c| c["source_file"].as_str().unwrap().to_string()).collect()
}

#[test]
fn concept_question_retrieves_the_chunk_of_its_file() {
    let a = ask_json(indexed_sample(), "What I2C address does the BME280 use when SDO is tied to ground?");
    assert_eq!(chunk_files(&a)[0], "bme280-sensor.md", "top chunk: {:?}", chunk_files(&a));
    let text = a["answer"]["text"].as_str().unwrap();
    assert!(text.contains("0x76"), "{text}");
    // every cited chunk is one that was retrieved or resolved from the graph
    let used: Vec<&str> = a["answer"]["chunks_used"].as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap()).collect();
    assert!(!used.is_empty());
    let known: Vec<String> = a["trace"]["retrieved_chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["chunk_id"].as_str().unwrap().to_string())
        .chain(a["trace"]["internal"]["graph"]["resolved_chunks"].as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap().to_string()))
        .collect();
    for u in used {
        assert!(known.iter().any(|k| k == u), "{u} was cited but never retrieved");
    }
}

#[test]
fn other_concepts_land_in_their_own_files() {
    for (q, file) in [
        ("Which Magnus formula constants are used to compute the dew point?", "dew-point-and-derived-metrics.md"),
        ("What value of pull-up resistor is used on the SDA and SCL lines?", "i2c-bus.html"),
        ("At what height should the radiation shield be mounted?", "enclosure-and-radiation-shield.html"),
    ] {
        let a = ask_json(indexed_sample(), q);
        assert!(chunk_files(&a).iter().any(|f| f == file), "{q}: {:?}", chunk_files(&a));
    }
}

#[test]
fn relation_question_returns_graph_evidence_between_the_two_concepts() {
    let a = ask_json(indexed_sample(), "How does deep sleep relate to battery life?");
    let grounded: Vec<&str> = a["trace"]["graph"]["grounded_entities"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert!(grounded[..2].contains(&"deep sleep") && grounded[..2].contains(&"battery life"), "{grounded:?}");
    let facts = a["answer"]["graph_facts"].as_array().unwrap();
    let relational: Vec<&serde_json::Value> =
        facts.iter().filter(|f| ["direct_edge", "co_mention", "shortest_path"].contains(&f["kind"].as_str().unwrap())).collect();
    assert!(!relational.is_empty(), "no relational graph evidence: {facts:?}");
    let used = a["trace"]["graph"]["fallback_used"].as_array().unwrap();
    assert!(used.iter().any(|u| u == "direct_edge" || u == "co_mention" || u == "shortest_path"));
    // the subgraph in the trace contains both concepts
    let nodes: Vec<&str> = a["trace"]["retrieved_graph_subgraph"]["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert!(nodes.contains(&"deep sleep") && nodes.contains(&"battery life"));
    assert!(a["answer"]["text"].as_str().unwrap().contains("From the knowledge graph:"));
}

#[test]
fn image_question_yields_its_image_path() {
    let a = ask_json(indexed_sample(), "Show me the wiring diagram");
    let paths: Vec<&str> = a["answer"]["image_paths"].as_array().unwrap().iter().map(|i| i["source_path"].as_str().unwrap()).collect();
    assert!(paths.iter().any(|p| p.ends_with("sample_corpus/images/wiring-diagram.svg")), "{paths:?}");
    assert!(a["answer"]["text"].as_str().unwrap().contains("Image paths:"));
    let a = ask_json(indexed_sample(), "Show me the solar charging circuit");
    let paths: Vec<&str> = a["answer"]["image_paths"].as_array().unwrap().iter().map(|i| i["source_path"].as_str().unwrap()).collect();
    assert!(paths.iter().any(|p| p.ends_with("images/solar-charging-circuit.svg")), "{paths:?}");
}

#[test]
fn unrelated_question_says_nothing_was_found() {
    let a = ask_json(indexed_sample(), "What is the airspeed velocity of an unladen swallow?");
    assert_eq!(a["answer"]["found"], false, "{}", a["answer"]["text"]);
    assert!(a["answer"]["text"].as_str().unwrap().contains("could not find"));
    assert!(a["answer"]["chunks_used"].as_array().unwrap().is_empty());
}

#[test]
fn human_output_and_trace_flag() {
    qa(indexed_sample())
        .args(["What is deep sleep on the ESP32?", "--trace"])
        .assert()
        .success()
        .stdout(predicate::str::contains("=== Final Answer ==="))
        .stdout(predicate::str::contains("Chunks used:"))
        .stdout(predicate::str::contains("=== Query Trace (JSON) ==="));
}

#[test]
fn trace_line_parses_and_has_every_contract_field() {
    let dir = copy_of_indexed_sample();
    let a = ask_json(dir.path(), "How does the radiation shield relate to self-heating?");
    let text = std::fs::read_to_string(dir.path().join("logs/query_traces.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    for key in [
        "trace_id", "timestamp", "user_question", "route", "rewritten_or_decomposed_queries", "retrieved_chunks",
        "retrieved_graph_subgraph", "graph", "final_answer", "token_usage", "latency_ms", "models", "error", "internal",
    ] {
        assert!(last.get(key).is_some(), "trace lacks {key}");
    }
    for key in ["grounded_entities", "generated_cypher", "validation", "sanitized_cypher", "fallback_used"] {
        assert!(last["graph"].get(key).is_some(), "trace.graph lacks {key}");
    }
    for key in ["rag", "graph", "synthesis", "total"] {
        assert!(last["latency_ms"][key].as_f64().is_some(), "latency_ms lacks {key}");
    }
    for key in ["chunk_id", "source_file", "score", "metadata", "text"] {
        assert!(last["retrieved_chunks"][0].get(key).is_some(), "retrieved chunk lacks {key}");
    }
    assert!(last["retrieved_graph_subgraph"]["nodes"].is_array() && last["retrieved_graph_subgraph"]["edges"].is_array());
    assert_eq!(last["trace_id"], a["trace"]["trace_id"]);
    assert_eq!(last["route"], "documents");
    assert!(last["models"]["embedding"].as_str().unwrap().starts_with("all-MiniLM-L6-v2@"));
    // the same record is in the text log as one QUERY_TRACE_JSON line
    let log = std::fs::read_to_string(dir.path().join("logs/query_agent_logs.txt")).unwrap();
    let line = log.lines().rev().find(|l| l.contains("QUERY_TRACE_JSON")).expect("QUERY_TRACE_JSON line");
    let json_part = &line[line.find("QUERY_TRACE_JSON ").unwrap() + "QUERY_TRACE_JSON ".len()..];
    let logged: serde_json::Value = serde_json::from_str(json_part).unwrap();
    assert_eq!(logged["trace_id"], last["trace_id"]);
}

#[test]
fn multi_intent_question_is_decomposed() {
    let a = ask_json(indexed_sample(), "What is an MQTT broker and how does deep sleep work?");
    let subs = a["trace"]["rewritten_or_decomposed_queries"].as_array().unwrap();
    assert_eq!(subs.len(), 3, "{subs:?}");
    let files = chunk_files(&a);
    assert!(files.iter().any(|f| f == "mqtt-telemetry.md"), "{files:?}");
    assert!(files.iter().any(|f| f == "esp32-microcontroller.md" || f == "power-budget.md"), "{files:?}");
}

#[test]
fn empty_question_is_a_usage_error() {
    qa(indexed_sample()).args(["ask", ""]).assert().code(2).stderr(predicate::str::contains("the question is empty"));
    qa(indexed_sample()).args(["ask", "   "]).assert().code(2);
}
