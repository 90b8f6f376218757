//! `qa traces ...` end to end on trace files written by the test: malformed lines, a truncated
//! last line, an old-version record, several routes, fallbacks, a refused Cypher query, an LLM
//! error and a clarification status.

use crate::common;

use std::path::Path;

use common::qa;
use serde_json::{json, Value};

#[allow(clippy::too_many_arguments)]
fn record(id: &str, ts: &str, route: &str, q: &str, chunks: &[&str], nodes: usize, lat: [f64; 4], answer: &str) -> Value {
    let chunks: Vec<Value> = chunks
        .iter()
        .map(|c| json!({"chunk_id": c, "source_file": format!("docs/{c}.md"), "score": 0.75, "metadata": {}, "text": format!("text of {c}")}))
        .collect();
    let nodes: Vec<Value> = (0..nodes).map(|i| json!({"id": format!("n{i}"), "labels": ["Concept"], "properties": {"name": format!("node {i}")}})).collect();
    let edges: Vec<Value> = if nodes.len() >= 2 { vec![json!({"source": "n0", "type": "RELATED_TO", "target": "n1", "properties": {}})] } else { vec![] };
    json!({
        "trace_id": id, "timestamp": ts, "user_question": q, "route": route,
        "rewritten_or_decomposed_queries": [q],
        "retrieved_chunks": chunks,
        "retrieved_graph_subgraph": {"nodes": nodes, "edges": edges},
        "graph": {"grounded_entities": [], "generated_cypher": null, "validation": null, "sanitized_cypher": null, "fallback_used": []},
        "final_answer": answer, "token_usage": null,
        "latency_ms": {"rag": lat[0], "graph": lat[1], "synthesis": lat[2], "total": lat[3], "llm_calls": 0.0},
        "models": {"embedding": "all-MiniLM-L6-v2", "llm": null},
        "error": null, "answer_grounding": null,
        "internal": {"rag": {}, "graph": {}, "llm": null}
    })
}

fn fixture_records() -> Vec<Value> {
    let mut t1 = record("aaaa1111", "2026-03-01T10:00:00Z", "documents", "What is deep sleep?", &["c1", "c2"], 0, [10.0, 0.0, 5.0, 20.0], "A1");
    t1["token_usage"] = json!({"prompt": 10, "completion": 5, "total": 15});
    t1["internal"]["rag"] = json!({"best_score": 0.41, "found": false, "focus": {"evidence": 0.667, "threshold": 0.7, "check": {"share": 0.75, "passage_share": 0.44, "words": [
        {"word": "muck", "weight": 4.7, "df": 0, "held": false, "in_best_passage": false, "named": false},
        {"word": "load", "weight": 2.1, "df": 3, "held": true, "in_best_passage": true, "named": false},
        {"word": "horse", "weight": 2.5, "df": 2, "held": true, "in_best_passage": false, "named": false},
        {"word": "take", "weight": 1.2, "df": 9, "held": true, "in_best_passage": true, "named": false, "held_as": "collect"}
    ]}}});
    // An LLM that read the passages and declined.
    t1["answer_grounding"] = json!({"action": "declined", "reason": "the LLM said the passages do not answer the question", "supported_fraction": 0.0,
        "sentences": [{"text": "The documents do not say how much muck a half plot may take.", "score": 0.41, "abstention": true, "supported": false},
                      {"text": "Horses eat hay.", "score": 0.12, "abstention": false, "supported": false}]});
    let mut t2 = record("aaaa2222", "2026-03-01T11:00:00Z", "graph", "How does X relate to Y, \"really\"?", &[], 2, [0.0, 30.0, 10.0, 40.0], "A2");
    t2["graph"]["fallback_used"] = json!(["co_mention", "shortest_path", "co_mention"]);
    t2["graph"]["generated_cypher"] = json!("MATCH (n) DETACH DELETE n");
    t2["graph"]["validation"] = json!({"ok": false, "reasons": ["write clause DELETE"]});
    let mut t3 = record("bbbb3333", "2026-03-02T09:00:00Z", "hybrid", "<script>alert(1)</script> wiring & pins?", &["c3"], 1, [5.0, 15.0, 20.0, 60.0], "A3");
    t3["graph"]["fallback_used"] = json!(["co_mention"]);
    t3["graph"]["validation"] = json!({"ok": true, "reasons": []});
    t3["graph"]["sanitized_cypher"] = json!("MATCH (c:Concept) RETURN c LIMIT 25");
    t3["token_usage"] = json!({"prompt": 20, "completion": 10, "total": 30});
    t3["error"] = json!("LLM call failed: timeout");
    t3["internal"]["llm"] = json!({"provider": "failed", "reason": "timeout"});
    let mut t4 = record("cccc4444", "2026-03-03T08:00:00Z", "es", "¿Qué es el sueño profundo?", &[], 0, [0.0, 0.0, 0.0, 80.0], "A4");
    // A clarification is read from the status, whatever the route (the old `clarification` flag
    // is kept by `show` but counts for nothing).
    t4["status"] = json!("needs_clarification");
    t4["internal"]["rag"] = json!({"clarification": true});
    // An old-version record: most fields missing.
    let t5 = json!({"trace_id": "dddd5555", "user_question": "old question", "timestamp": "2026-03-03T09:00:00Z", "retrieved_chunks": null, "graph": {"fallback_used": null}});
    vec![t1, t2, t3, t4, t5]
}

/// The fixture file: the five records, two malformed lines in between, a truncated last line.
fn write_fixture(dir: &Path) -> std::path::PathBuf {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let recs = fixture_records();
    let mut s = String::new();
    for (i, r) in recs.iter().enumerate() {
        s.push_str(&serde_json::to_string(r).unwrap());
        s.push('\n');
        if i == 1 {
            s.push_str("this is not json\n\n");
        }
    }
    s.push_str("{\"trace_id\": \"eeee6666\", \"user_question\": \"cut off");
    let p = logs.join("query_traces.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

fn json_of(cmd: &mut assert_cmd::Command) -> Value {
    serde_json::from_str(&stdout_of(cmd)).expect("JSON on stdout")
}

#[test]
fn stats_numbers_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let s = json_of(qa(dir.path()).args(["traces", "stats", "--json"]));
    assert_eq!(s["traces"], 5);
    assert_eq!(s["malformed_lines"], 2);
    assert_eq!(s["routes"], json!({"(none)": 1, "documents": 1, "es": 1, "graph": 1, "hybrid": 1}));
    let lat = s["latency_ms"].as_array().unwrap();
    let stage = |name: &str| lat.iter().find(|l| l["stage"] == name).unwrap().clone();
    // total: [0, 20, 40, 60, 80] → p50 rank 3, p95/p99 rank 5.
    let total = stage("total");
    assert_eq!((total["p50"].as_f64(), total["p95"].as_f64(), total["p99"].as_f64(), total["max"].as_f64()), (Some(40.0), Some(80.0), Some(80.0), Some(80.0)));
    assert_eq!(total["mean"], 40.0);
    // rag: [0, 0, 0, 5, 10].
    let rag = stage("rag");
    assert_eq!((rag["p50"].as_f64(), rag["p95"].as_f64(), rag["max"].as_f64()), (Some(0.0), Some(10.0), Some(10.0)));
    assert_eq!(stage("synthesis")["p50"], 5.0);
    assert_eq!(s["tokens"], json!({"prompt": 30, "completion": 15, "total": 45, "traces_with_usage": 2, "mean_prompt": 15.0, "mean_completion": 7.5, "mean_total": 22.5}));
    let r = &s["rates"];
    assert_eq!(r["empty_rag_context"], json!({"count": 3, "rate": 0.6}));
    assert_eq!(r["empty_graph_evidence"], json!({"count": 3, "rate": 0.6}));
    assert_eq!(r["fallback_used"], json!({"count": 2, "rate": 0.4}));
    assert_eq!(r["fallback_by_kind"], json!({"co_mention": {"count": 2, "rate": 0.4}, "shortest_path": {"count": 1, "rate": 0.2}}));
    assert_eq!(r["cypher_validation_failures"]["count"], 1);
    assert_eq!(r["llm_errors"]["count"], 1);
    assert_eq!(r["clarification_requests"]["count"], 1);
    let slow: Vec<&str> = s["slowest"].as_array().unwrap().iter().map(|x| x["trace_id"].as_str().unwrap()).collect();
    assert_eq!(slow, ["cccc4444", "bbbb3333", "aaaa2222", "aaaa1111", "dddd5555"]);

    // Text form.
    let text = stdout_of(qa(dir.path()).args(["traces", "stats"]));
    assert!(text.contains("Traces: 5 from"), "{text}");
    assert!(text.contains("(2 malformed line(s) skipped)"), "{text}");
    assert!(text.contains("nearest-rank"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("total") && l.contains("40.0") && l.contains("80.0")), "{text}");
}

#[test]
fn filters_by_route_and_date() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let n = |args: &[&str]| json_of(qa(dir.path()).args(["traces", "stats", "--json"]).args(args))["traces"].as_u64().unwrap();
    assert_eq!(n(&["--route", "graph"]), 1);
    assert_eq!(n(&["--since", "2026-03-02"]), 3);
    assert_eq!(n(&["--until", "2026-03-01"]), 2);
    assert_eq!(n(&["--since", "2026-03-01T10:30:00Z", "--until", "2026-03-02T09:00:00Z"]), 2);
    assert_eq!(n(&["--route", "nope"]), 0);
    let none = json_of(qa(dir.path()).args(["traces", "stats", "--json", "--route", "nope"]));
    assert!(none["latency_ms"][3]["p50"].is_null() && none["slowest"].as_array().unwrap().is_empty());
    assert_eq!(none["malformed_lines"], 2);
    assert!(stdout_of(qa(dir.path()).args(["traces", "stats", "--route", "nope"])).contains("No traces match."));
    // A date that is not one: exit 1 with the reason.
    qa(dir.path()).args(["traces", "stats", "--since", "last week"]).assert().code(1).stderr(predicates::str::contains("YYYY-MM-DD"));
    // --file overrides the default location.
    let other = tempfile::tempdir().unwrap();
    let f = write_fixture(other.path());
    let empty = tempfile::tempdir().unwrap();
    let s = json_of(qa(empty.path()).args(["traces", "stats", "--json", "--file"]).arg(&f));
    assert_eq!(s["traces"], 5);
}

#[test]
fn missing_file_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    qa(dir.path()).args(["traces", "stats"]).assert().code(1).stderr(predicates::str::contains("query_traces.jsonl"));
    qa(dir.path()).args(["traces", "export", "--format", "xml"]).assert().code(2);
    qa(dir.path()).args(["traces"]).assert().code(2);
    let help = stdout_of(qa(dir.path()).args(["traces", "--help"]));
    assert!(help.contains("Examples:") && help.contains("nearest-rank"), "{help}");
}

#[test]
fn list_filters_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let out = stdout_of(qa(dir.path()).args(["traces", "list"]));
    assert_eq!(out.lines().count(), 5, "{out}");
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("2026-03-01 10:00:00  aaaa1111"), "{first}");
    assert!(first.contains("20.0 ms") && first.contains("2 ch") && first.contains("What is deep sleep?"), "{first}");
    let ids = |args: &[&str]| -> Vec<String> {
        let v = json_of(qa(dir.path()).args(["traces", "list", "--json"]).args(args));
        v.as_array().unwrap().iter().map(|r| r["trace_id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(ids(&["--failed"]), ["aaaa2222", "bbbb3333"]);
    assert_eq!(ids(&["--slow", "50"]), ["bbbb3333", "cccc4444"]);
    assert_eq!(ids(&["--limit", "2"]), ["cccc4444", "dddd5555"]);
    assert_eq!(ids(&["--route", "hybrid"]), ["bbbb3333"]);
    assert!(ids(&["--route", "nope"]).is_empty());
    assert!(ids(&["--route", "nope", "--limit", "3"]).is_empty());
    let row = &json_of(qa(dir.path()).args(["traces", "list", "--json", "--route", "graph"]))[0];
    assert_eq!((row["total_ms"].as_f64(), row["chunks"].as_u64(), row["graph_nodes"].as_u64(), row["failed"].as_bool()), (Some(40.0), Some(0), Some(2), Some(true)));
    // Long questions are cut to the width.
    let narrow = stdout_of(qa(dir.path()).env("COLUMNS", "110").args(["traces", "list", "--route", "graph"]));
    assert!(narrow.trim_end().chars().count() <= 110 && narrow.contains('…'), "{narrow}");
}

#[test]
fn show_by_prefix_with_evidence() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let out = stdout_of(qa(dir.path()).args(["traces", "show", "aaaa2"]));
    for needle in ["Trace aaaa2222", "route graph", "Graph subgraph: 2 node(s), 1 edge(s)", "(n0)-[:RELATED_TO]->(n1)", "Generated Cypher:", "MATCH (n) DETACH DELETE n", "Validation: refused — write clause DELETE", "Fallbacks used: co_mention, shortest_path, co_mention", "Answer:\nA2"] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    // The documents route's evidence check: why the question was refused, word by word.
    let out = stdout_of(qa(dir.path()).args(["traces", "show", "aaaa1"]));
    for needle in ["Evidence check: refused; score 0.667 (threshold 0.700) from similarity 0.410, focus held by the passages 0.75 and by the best one 0.44", "muck (4.7): in no document", "load (2.1): in the best passage", "horse (2.5): in another passage", "take (1.2): read as \"collect\"",
        "LLM answer: declined — the LLM said the passages do not answer the question",
        "  - says the passages lack it: The documents do not say how much muck",
        "  - unsupported (0.12): Horses eat hay."] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    let out = stdout_of(qa(dir.path()).args(["traces", "show", "bbbb"]));
    assert!(!out.contains("Evidence check"), "no check in the record: {out}");
    assert!(out.contains("Retrieved chunks (1):") && out.contains("[0.750] docs/c3.md  (c3)"), "{out}");
    assert!(out.contains("Error: LLM call failed: timeout") && out.contains("Sanitized Cypher:"), "{out}");
    let v = json_of(qa(dir.path()).args(["traces", "show", "cccc", "--json"]));
    assert_eq!(v["trace_id"], "cccc4444");
    assert_eq!(v["internal"]["rag"]["clarification"], true);
    // The old record shows with defaults.
    let out = stdout_of(qa(dir.path()).args(["traces", "show", "dddd5555"]));
    assert!(out.contains("Retrieved chunks (0):") && out.contains("Fallbacks used: none"), "{out}");
    // Ambiguous and missing: exit 1, candidates listed.
    qa(dir.path())
        .args(["traces", "show", "aaaa"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("matches 2 traces").and(predicates::str::contains("aaaa1111")).and(predicates::str::contains("aaaa2222")));
    qa(dir.path()).args(["traces", "show", "zzzz"]).assert().code(1).stderr(predicates::str::contains("no trace with an id starting with 'zzzz'"));
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn export_csv_and_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let csv = stdout_of(qa(dir.path()).args(["traces", "export", "--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6, "{csv}");
    assert_eq!(lines[0], "trace_id,timestamp,route,status,question,rag_ms,graph_ms,synthesis_ms,total_ms,llm_calls_ms,prompt_tokens,completion_tokens,total_tokens,chunks,graph_nodes,fallbacks,cypher_ok,error");
    assert_eq!(lines[1], "aaaa1111,2026-03-01T10:00:00Z,documents,,What is deep sleep?,10,0,5,20,0,10,5,15,2,0,,,");
    assert_eq!(lines[2], "aaaa2222,2026-03-01T11:00:00Z,graph,,\"How does X relate to Y, \"\"really\"\"?\",0,30,10,40,0,,,,0,2,co_mention;shortest_path;co_mention,false,");
    assert!(lines[3].ends_with(",1,1,co_mention,true,LLM call failed: timeout"), "{}", lines[3]);
    assert_eq!(lines[5], "dddd5555,2026-03-03T09:00:00Z,,,old question,0,0,0,0,0,,,,0,0,,,");

    let out = dir.path().join("rows.jsonl");
    qa(dir.path()).args(["traces", "export", "--format", "jsonl", "--route", "graph", "--out"]).arg(&out).assert().success();
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["fallbacks"], "co_mention;shortest_path;co_mention");
    assert_eq!(rows[0]["cypher_ok"], false);
    assert_eq!(rows[0]["graph_nodes"], 2);
}

#[test]
fn report_is_self_contained_with_well_formed_svg() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let out = dir.path().join("report.html");
    qa(dir.path()).args(["traces", "report", "--out"]).arg(&out).assert().success();
    let html = std::fs::read_to_string(&out).unwrap();
    for h in ["<h2>Summary</h2>", "<h2>Latency percentiles</h2>", "<h2>Latency histograms</h2>", "<h2>Stage breakdown per query</h2>", "<h2>Route mix</h2>", "<h2>Fallback rate over time</h2>", "<h2>Slowest questions</h2>"] {
        assert!(html.contains(h), "missing {h}");
    }
    // User input is escaped; no scripts, no external assets.
    assert!(!html.contains("<script"), "unescaped question");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; wiring &amp; pins?"));
    assert!(!html.contains("src=") && !html.contains("<link") && !html.contains("href="), "external assets");
    // The span is 3 days: fallback rate per day.
    assert!(html.contains("per day"));
    let mut n = 0;
    let mut rest = html.as_str();
    while let Some(start) = rest.find("<svg") {
        let end = rest[start..].find("</svg>").expect("closed svg") + start + "</svg>".len();
        let block = &rest[start..end];
        let doc = roxmltree::Document::parse(block).unwrap_or_else(|e| panic!("malformed SVG ({e}):\n{block}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        n += 1;
        rest = &rest[end..];
    }
    assert_eq!(n, 7, "4 histograms, stage breakdown, route mix, fallback rate");
}

#[test]
fn diff_two_runs() {
    let dir = tempfile::tempdir().unwrap();
    let recs = fixture_records();
    let a: Vec<Value> = recs[..3].to_vec();
    let mut b1 = recs[0].clone();
    b1["latency_ms"]["total"] = json!(40.0);
    b1["retrieved_chunks"] = json!([{"chunk_id": "c1"}, {"chunk_id": "c3"}]);
    let mut b2 = recs[1].clone();
    b2["latency_ms"]["total"] = json!(20.0);
    b2["final_answer"] = json!("a different answer");
    let b3 = json!({"trace_id": "ffff", "user_question": "new one", "latency_ms": {"total": 5.0}});
    let write = |name: &str, rs: &[Value]| {
        let p = dir.path().join(name);
        let s: String = rs.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
        std::fs::write(&p, s + "garbage\n").unwrap();
        p
    };
    let pa = write("a.jsonl", &a);
    let pb = write("b.jsonl", &[b1, b2, b3]);
    let d = json_of(qa(dir.path()).args(["traces", "diff", "--json"]).arg(&pa).arg(&pb));
    let s = &d["summary"];
    assert_eq!(s["matched"], 2);
    assert_eq!(s["median_latency_ratio"], 1.25);
    assert!((s["mean_chunk_jaccard"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(s["answers_changed"], 1);
    assert_eq!((s["only_in_a"].as_u64(), s["only_in_b"].as_u64()), (Some(1), Some(1)));
    assert_eq!((s["malformed_lines_a"].as_u64(), s["malformed_lines_b"].as_u64()), (Some(1), Some(1)));
    assert_eq!(d["only_in_a"], json!(["<script>alert(1)</script> wiring & pins?"]));
    assert_eq!(d["only_in_b"], json!(["new one"]));
    let q: Vec<(String, f64, bool)> = d["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["question"].as_str().unwrap().to_string(), q["latency_ratio"].as_f64().unwrap(), q["answer_changed"].as_bool().unwrap()))
        .collect();
    assert_eq!(q, [("How does X relate to Y, \"really\"?".to_string(), 0.5, true), ("What is deep sleep?".to_string(), 2.0, false)]);
    let text = stdout_of(qa(dir.path()).args(["traces", "diff"]).arg(&pa).arg(&pb));
    assert!(text.contains("2 matched question(s): median latency ratio B/A 1.25, mean chunk Jaccard 0.67, 1 answer(s) changed; 1 only in A, 1 only in B"), "{text}");
    assert!(text.contains("only in B: new one"), "{text}");
    qa(dir.path()).args(["traces", "diff"]).arg(&pa).arg(dir.path().join("missing.jsonl")).assert().code(1);
}

/// Records written by the real writer (`qa_core::trace::append`) from the library's own types load
/// with every field the analyses read.
#[test]
fn reads_what_the_trace_writer_writes() {
    use qa_core::trace::{append, Latency, TokenUsage, TraceChunk, TraceGraph, TraceRecord};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logs/query_traces.jsonl");
    let mut sub = qa_core::evidence::Subgraph::default();
    sub.add_node("a", "Concept", Default::default());
    sub.add_node("b", "Concept", Default::default());
    sub.add_edge("a", "RELATED_TO", "b", Default::default());
    let rec = TraceRecord {
        trace_id: "0123456789abcdef".into(),
        timestamp: "2026-11-22T02:06:41.422260553+00:00".into(),
        user_question: "How does deep sleep relate to battery life?".into(),
        route: "documents".into(),
        retrieved_chunks: vec![TraceChunk { chunk_id: "power-budget_2".into(), source_file: "power-budget.md".into(), score: 0.5, ..Default::default() }],
        retrieved_graph_subgraph: sub,
        graph: TraceGraph {
            validation: Some(json!({"ok": false, "reasons": ["unknown label Foo"]})),
            fallback_used: vec!["neighbourhood".into()],
            ..Default::default()
        },
        token_usage: Some(TokenUsage::new(100, 20)),
        latency_ms: Latency { rag: 22.8, graph: 27.6, synthesis: 2.1, total: 52.7, llm_calls: 0.0 },
        final_answer: "Deep sleep cuts the current draw.".into(),
        ..Default::default()
    };
    append(&path, &rec).unwrap();
    let s = json_of(qa(dir.path()).args(["traces", "stats", "--json", "--since", "2026-11-22", "--until", "2026-11-22"]));
    assert_eq!(s["traces"], 1);
    assert_eq!(s["tokens"]["total"], 120);
    assert_eq!(s["rates"]["cypher_validation_failures"]["count"], 1);
    assert_eq!(s["rates"]["fallback_by_kind"]["neighbourhood"]["count"], 1);
    assert_eq!(s["latency_ms"][3]["p50"], 52.7);
    let shown: TraceRecord = serde_json::from_value(json_of(qa(dir.path()).args(["traces", "show", "0123", "--json"]))).unwrap();
    assert_eq!(shown, rec);
    let csv = stdout_of(qa(dir.path()).args(["traces", "export", "--format", "csv"]));
    assert_eq!(
        csv.lines().nth(1).unwrap(),
        "0123456789abcdef,2026-11-22T02:06:41.422260553+00:00,documents,,How does deep sleep relate to battery life?,22.8,27.6,2.1,52.7,0,100,20,120,1,2,neighbourhood,false,"
    );
}
