//! The graph path end to end through the CLI, on the real embedded store: `qa graph ingest`,
//! `stats`, `schema` and `check`, and LLM-generated Cypher during `qa ask` — a scripted
//! OpenAI-compatible server on loopback returns good, invalid and hostile queries, and each must
//! end as the validator decides: run read-only (rows become evidence), sanitized, or refused with
//! the deterministic fallbacks answering instead.

use crate::common;

use std::path::Path;

use common::llm_server::{Scripted, ScriptedLlmServer};
use common::*;
use serde_json::{json, Value};

const RELATION_QUESTION: &str = "How does deep sleep relate to battery life?";

fn is_cypher_request(body: &Value) -> bool {
    body["response_format"]["json_schema"]["name"] == "cypher_query"
}

fn user_prompt(body: &Value) -> String {
    body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "user").map(|m| m["content"].as_str().unwrap_or("")).collect()
}

/// A scripted LLM: `cypher` answers the Cypher request; subqueries get a plain query, synthesis a
/// short cited answer.
fn llm_answering_cypher(cypher: &'static str) -> ScriptedLlmServer {
    ScriptedLlmServer::with_responder(move |body| {
        if is_cypher_request(body) {
            return Scripted::reply(json!({ "cypher": cypher }).to_string());
        }
        if body["response_format"]["json_schema"]["name"] == "subqueries" {
            return Scripted::reply(r#"{"subqueries": ["deep sleep battery life"]}"#);
        }
        Scripted::reply("Deep sleep keeps the average current low, which extends battery life.")
    })
}

fn qa_remote(data_dir: &Path, server: &ScriptedLlmServer) -> assert_cmd::Command {
    common::llm_server::use_scripted_llm(qa(data_dir), server)
}

fn ask_remote(data_dir: &Path, server: &ScriptedLlmServer, question: &str) -> Value {
    let out = qa_remote(data_dir, server).args(["ask", question, "--json"]).assert().success().get_output().clone();
    serde_json::from_slice(&out.stdout).expect("JSON answer")
}

fn graph_json(data_dir: &Path, args: &[&str]) -> Value {
    let out = qa(data_dir).arg("graph").args(args).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("graph --json prints JSON")
}

fn counts(data_dir: &Path) -> Value {
    graph_json(data_dir, &["stats"])["counts"].clone()
}

#[test]
fn stats_and_schema_describe_the_indexed_graph() {
    let dir = indexed_sample();
    let c = counts(dir);
    assert_eq!(c["by_label"]["Image"], 5, "the sample corpus has five images: {c}");
    assert!(c["by_label"]["Concept"].as_u64().unwrap() > 100);
    assert!(c["by_type"]["MENTIONS"].as_u64().unwrap() > 100);
    let total: u64 = c["by_label"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(c["nodes"].as_u64().unwrap(), total);
    let s = graph_json(dir, &["schema"])["schema"].clone();
    assert_eq!(s["labels"], json!(["Concept", "Document", "Image"]));
    assert_eq!(s["relationship_types"], json!(["DEPICTS", "HAS_IMAGE", "MENTIONS", "RELATED_TO"]));
    assert!(s["property_keys"].as_array().unwrap().contains(&json!("source_id")));
    let human = qa(dir).args(["graph", "stats"]).assert().success().get_output().stdout.clone();
    let human = String::from_utf8(human).unwrap();
    assert!(human.contains("embedded store:") && human.contains("MENTIONS"), "{human}");
}

#[test]
fn concepts_lists_the_most_linked_topics_of_the_sample_corpus() {
    let dir = indexed_sample();
    let c = graph_json(dir, &["concepts", "--top", "40"]);
    let top = c["top"].as_array().unwrap();
    assert_eq!(top.len(), 40, "{c}");
    assert!(c["concepts"].as_u64().unwrap() > 100);
    let links = |x: &Value| x["mentions"].as_u64().unwrap() + x["related"].as_u64().unwrap();
    assert!(top.windows(2).all(|w| links(&w[0]) >= links(&w[1])), "most linked first: {c}");
    let names: Vec<&str> = top.iter().map(|x| x["name"].as_str().unwrap()).collect();
    // The corpus's own topics, none of the words that only look like concepts.
    assert!(names.contains(&"ESP32") && names.contains(&"deep sleep"), "{names:?}");
    for noise in ["Listing", "Figure", "Next", "Summary", "Note", "Example"] {
        assert!(!names.iter().any(|n| n.eq_ignore_ascii_case(noise)), "{noise} in {names:?}");
    }
    let human = String::from_utf8(qa(dir).args(["graph", "concepts", "--top", "5"]).assert().success().get_output().stdout.clone()).unwrap();
    assert!(human.contains("most linked") && human.contains("ESP32"), "{human}");
}

#[test]
fn example_names_are_listed_apart_from_concepts() {
    let dir = tempfile::tempdir().unwrap();
    let kg = dir.path().join("book_kg.jsonl");
    let concept = |id: &str, name: &str, role: Option<&str>| {
        let mut meta = vec![json!({"key": "name", "value": name}), json!({"key": "kind", "value": "code"})];
        meta.extend(role.map(|r| json!({"key": "role", "value": r})));
        json!({"id": id, "type": "Concept", "metadata": meta})
    };
    let line = |chunk: &str, nodes: Vec<Value>| {
        let doc = format!("book_chunks.jsonl::{chunk}");
        let rels: Vec<Value> = nodes.iter().map(|n| json!({"source": doc, "target": n["id"], "type": "MENTIONS", "metadata": []})).collect();
        json!({"source": {"id": doc, "type": "Document", "metadata": []}, "nodes": nodes, "relationships": rels}).to_string()
    };
    let text = [line("c0", vec![concept("option", "Option", None), concept("tally", "Tally", Some("example"))]), line("c1", vec![concept("option", "Option", None)])].join("\n");
    std::fs::write(&kg, text).unwrap();
    let listed = graph_json(dir.path(), &["concepts", kg.to_str().unwrap()]);
    assert_eq!((listed["concepts"].as_u64(), listed["example_names"].as_u64()), (Some(1), Some(1)), "{listed}");
    assert_eq!(listed["top"][0]["name"], "Option");
    let examples = graph_json(dir.path(), &["concepts", "--examples", kg.to_str().unwrap()]);
    assert_eq!(examples["top"].as_array().map(|t| t.len()), Some(1), "{examples}");
    assert_eq!((examples["top"][0]["name"].as_str(), examples["top"][0]["example"].as_bool()), (Some("Tally"), Some(true)));
    let human = String::from_utf8(qa(dir.path()).args(["graph", "concepts", kg.to_str().unwrap()]).assert().success().get_output().stdout.clone()).unwrap();
    assert!(human.contains("1 example name set aside") && !human.contains("Tally"), "{human}");
}

#[test]
fn ingest_is_idempotent_and_merges_new_knowledge() {
    let dir = copy_of_indexed_sample();
    let before = counts(dir.path());
    // The corpus's own KG again: nothing new.
    let again = graph_json(dir.path(), &["ingest"]);
    assert_eq!((again["stats"]["nodes"].as_u64(), again["stats"]["relationships"].as_u64()), (Some(0), Some(0)), "{again}");
    assert_eq!(again["stats"]["properties_set"], 0);
    assert_eq!(counts(dir.path()), before);

    // A second KG file with a new concept and a typed relation to an existing one.
    let extra = dir.path().join("extra_kg.jsonl");
    let line = json!({
        "source": {"id": "notes_chunks.jsonl::notes_0", "type": "Document", "metadata": [{"key": "source_id", "value": "notes_chunks.jsonl::notes_0"}, {"key": "source_file", "value": "notes.md"}]},
        "nodes": [{"id": "supercapacitor", "type": "Concept", "metadata": [{"key": "name", "value": "supercapacitor"}]}],
        "relationships": [
            {"source": "notes_chunks.jsonl::notes_0", "target": "supercapacitor", "type": "MENTIONS", "metadata": []},
            {"source": "supercapacitor", "target": "deep sleep", "type": "POWERS", "metadata": [{"key": "evidence", "value": ["notes_0"]}]}
        ]
    });
    std::fs::write(&extra, format!("{line}\nnot json at all\n")).unwrap();
    let first = graph_json(dir.path(), &["ingest", extra.to_str().unwrap()]);
    assert_eq!(first["malformed_lines"], 1);
    assert_eq!(first["stats"]["nodes"], 2, "{first}");
    assert_eq!(first["stats"]["relationships"], 2, "{first}");
    let second = graph_json(dir.path(), &["ingest", extra.to_str().unwrap()]);
    assert_eq!((second["stats"]["nodes"].as_u64(), second["stats"]["relationships"].as_u64()), (Some(0), Some(0)), "{second}");
    let after = counts(dir.path());
    assert_eq!(after["by_type"]["POWERS"], 1);
    assert_eq!(after["nodes"].as_u64().unwrap(), before["nodes"].as_u64().unwrap() + 2);
    let schema = graph_json(dir.path(), &["schema"])["schema"].clone();
    assert!(schema["relationship_types"].as_array().unwrap().contains(&json!("POWERS")));
    // The new relation is now allowed in checked Cypher, and is real graph evidence.
    qa(dir.path()).args(["graph", "check", "MATCH (a:Concept)-[:POWERS]->(b:Concept) RETURN a.id, b.id LIMIT 5"]).assert().success();
}

#[test]
fn check_explains_its_verdict_with_exit_codes() {
    let dir = indexed_sample();
    let ok = qa(dir).args(["graph", "check", "MATCH (c:Concept {id: 'deep sleep'})-[:RELATED_TO]-(n:Concept) RETURN n.name LIMIT 10"]).assert().success();
    assert!(String::from_utf8_lossy(&ok.get_output().stdout).starts_with("accepted"));

    let refused = qa(dir).args(["graph", "check", "MATCH (n) DETACH DELETE n"]).assert().code(1);
    let text = String::from_utf8_lossy(&refused.get_output().stdout).into_owned();
    assert!(text.starts_with("rejected") && text.contains("DELETE"), "{text}");

    // Unknown labels are refused against the store's schema, and only then.
    let unknown = "MATCH (p:Person) RETURN p.name LIMIT 5";
    let out = qa(dir).args(["graph", "check", unknown, "--json"]).assert().code(1).get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["report"]["accepted"], false);
    assert!(v["report"]["validation"]["reasons"].as_array().unwrap().iter().any(|r| r["kind"] == "unknown_label"), "{v}");
    qa(dir).args(["graph", "check", unknown, "--no-schema"]).assert().success();

    // An unknown relationship type is sanitized away, and a missing LIMIT added.
    let out = qa(dir).args(["graph", "check", "MATCH (a:Concept)-[:MENTIONS|INVENTED]-(b) RETURN b.id", "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let run = v["report"]["cypher_to_run"].as_str().unwrap();
    assert!(!run.contains("INVENTED") && run.contains(":MENTIONS") && run.contains("LIMIT"), "{run}");
}

#[test]
fn generated_cypher_rows_become_evidence() {
    let dir = indexed_sample();
    let server = llm_answering_cypher(
        "MATCH (a:Concept {id: 'deep sleep'})<-[:MENTIONS]-(d:Document)-[:MENTIONS]->(b:Concept {id: 'battery life'}) RETURN d.source_id AS source_id, d.source_file AS file LIMIT 10",
    );
    let v = ask_remote(dir, &server, RELATION_QUESTION);
    let g = &v["trace"]["graph"];
    assert!(g["generated_cypher"].as_str().unwrap().contains("MENTIONS"));
    assert_eq!(g["validation"]["ok"], true, "{g}");
    assert_eq!(g["fallback_used"], json!([]), "rows came back, so no fallback ran: {g}");
    let cy = &v["trace"]["internal"]["graph"]["cypher"];
    assert!(cy["rows"].as_u64().unwrap() >= 1, "{cy}");
    let text = v["answer"]["text"].as_str().unwrap();
    assert!(text.contains("Raw graph rows:") && text.contains("source_id: sample-corpus_chunks.jsonl::"), "{text}");
    // The chunk named by the row is resolved from the graph and cited.
    let resolved: Vec<String> = v["trace"]["internal"]["graph"]["resolved_chunks"].as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap().to_string()).collect();
    assert!(!resolved.is_empty());

    // The prompt carried the schema, the grounded entities, the allowed types and the hint
    // (the two concepts share no direct edge in the sample graph).
    let req = server.requests().into_iter().find(|r| is_cypher_request(&r.body)).expect("a Cypher request");
    let prompt = user_prompt(&req.body);
    assert!(prompt.contains("relationship types (the only ones allowed): DEPICTS, HAS_IMAGE, MENTIONS, RELATED_TO"), "{prompt}");
    assert!(prompt.contains("- deep sleep (Concept)") && prompt.contains("- battery life (Concept)"), "{prompt}");
    assert!(prompt.contains("no direct relationship") && prompt.contains("shortestPath"), "{prompt}");
    // The synthesis prompt shows the rows as raw rows.
    let synth = server.requests().into_iter().map(|r| user_prompt(&r.body)).find(|p| p.contains("Question:") && p.contains("Text:")).unwrap();
    assert!(synth.contains("Raw graph rows:"), "{synth}");
}

#[test]
fn hostile_generated_cypher_is_refused_and_fallbacks_answer() {
    let dir = copy_of_indexed_sample();
    let before = counts(dir.path());
    let server = llm_answering_cypher("MATCH (n) DETACH DELETE n RETURN count(n) AS gone LIMIT 1");
    let v = ask_remote(dir.path(), &server, RELATION_QUESTION);
    let g = &v["trace"]["graph"];
    assert_eq!(g["validation"]["ok"], false, "{g}");
    assert!(g["validation"]["reasons"].to_string().contains("DELETE"), "{g}");
    assert!(g["fallback_used"].as_array().unwrap().iter().any(|s| s == "co_mention"), "{g}");
    assert!(v["trace"]["internal"]["graph"]["cypher"]["executed"].is_null());
    assert!(!v["answer"]["text"].as_str().unwrap().contains("Raw graph rows:"));
    assert_eq!(counts(dir.path()), before, "nothing was deleted");
}

#[test]
fn invented_relationship_types_are_sanitized_before_running() {
    let dir = indexed_sample();
    let server = llm_answering_cypher("MATCH (a:Concept {id: 'deep sleep'})-[r:RELATED_TO|DRAINS]-(b:Concept) RETURN b.name AS neighbour, r.weight AS weight LIMIT 5");
    let v = ask_remote(dir, &server, "What is deep sleep related to?");
    let g = &v["trace"]["graph"];
    let sanitized = g["sanitized_cypher"].as_str().unwrap_or_else(|| panic!("sanitized: {g}"));
    assert!(!sanitized.contains("DRAINS") && sanitized.contains("RELATED_TO"));
    assert_eq!(v["trace"]["internal"]["graph"]["cypher"]["executed"].as_str(), Some(sanitized));
    assert!(v["trace"]["internal"]["graph"]["cypher"]["rows"].as_u64().unwrap() >= 1);
}

#[test]
fn empty_rows_fall_back_and_generation_can_be_turned_off() {
    let dir = indexed_sample();
    let server = llm_answering_cypher("MATCH (a:Concept {id: 'no such concept'})-[:RELATED_TO]-(b) RETURN b.id LIMIT 5");
    let v = ask_remote(dir, &server, RELATION_QUESTION);
    assert_eq!(v["trace"]["internal"]["graph"]["cypher"]["rows"], 0);
    assert!(!v["trace"]["graph"]["fallback_used"].as_array().unwrap().is_empty());

    let server = llm_answering_cypher("MATCH (n) RETURN n LIMIT 1");
    let out = qa_remote(dir, &server).env("QA_CYPHER_GENERATION", "false").args(["ask", RELATION_QUESTION, "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v["trace"]["graph"]["generated_cypher"].is_null());
    assert_eq!(v["trace"]["internal"]["graph"]["cypher"]["skipped"], "cypher_generation is off");
    assert!(!server.requests().iter().any(|r| is_cypher_request(&r.body)));
}

#[test]
fn unreachable_neo4j_degrades_to_text_only_answers() {
    let dir = indexed_sample();
    let out = qa(dir)
        .env("QA_NEO4J_URI", "bolt://127.0.0.1:9")
        .env("QA_NEO4J_PASSWORD", "hunter2-secret")
        .env("QA_GRAPH_TIMEOUT_SECS", "3")
        .args(["ask", RELATION_QUESTION, "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v["answer"]["text"].as_str().unwrap();
    assert!(text.contains("graph store unavailable"), "{text}");
    assert!(!v["answer"]["chunks_used"].as_array().unwrap().is_empty(), "dense retrieval still answers");
    assert!(v["trace"]["error"].as_str().unwrap().contains("graph store unavailable"));
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!all.contains("hunter2-secret"), "the password leaked");

    // Commands that need the store say what to check.
    let err = qa(dir).env("QA_NEO4J_URI", "bolt://127.0.0.1:9").env("QA_GRAPH_TIMEOUT_SECS", "3").args(["graph", "stats"]).assert().code(1).get_output().stderr.clone();
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("127.0.0.1:9"), "{err}");
}

#[test]
fn prose_instead_of_cypher_and_queries_the_store_cannot_run_fall_back() {
    let dir = indexed_sample();
    // A model that answers in prose: refused by the validator, never sent to the store.
    let server = llm_answering_cypher("I think deep sleep saves the battery.");
    let v = ask_remote(dir, &server, RELATION_QUESTION);
    assert_eq!(v["trace"]["graph"]["validation"]["ok"], false, "{}", v["trace"]["graph"]);
    assert!(v["trace"]["internal"]["graph"]["cypher"]["executed"].is_null());
    assert!(v["trace"]["graph"]["fallback_used"].as_array().unwrap().iter().any(|s| s == "co_mention"));

    // A valid read query the embedded store cannot run (graphdblite has no CALL subqueries): the
    // validator accepts it, the store's error is recorded, and the fallbacks answer.
    let server = llm_answering_cypher("CALL { MATCH (c:Concept {id: 'deep sleep'}) RETURN c } RETURN c.name AS name LIMIT 5");
    let v = ask_remote(dir, &server, RELATION_QUESTION);
    let cy = &v["trace"]["internal"]["graph"]["cypher"];
    assert_eq!(v["trace"]["graph"]["validation"]["ok"], true, "{cy}");
    assert_eq!(cy["rows"], 0, "{cy}");
    assert!(cy["error"].as_str().is_some_and(|e| e.contains("could not run")), "{cy}");
    assert!(v["trace"]["graph"]["fallback_used"].as_array().unwrap().iter().any(|s| s == "co_mention"), "{cy}");
    assert!(v["answer"]["text"].as_str().unwrap().contains("Chunks used:"));
}
