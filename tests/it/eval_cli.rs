//! `qa eval` on a labelled set: the fusion and every lane are scored per `kind` of question, in
//! the JSON report and in the printed one.

use crate::common::*;
use serde_json::Value;

#[test]
fn eval_scores_each_kind_of_question_apart() {
    let dir = tempfile::Builder::new().prefix("qa-eval-kinds-").tempdir().unwrap();
    qa(dir.path()).arg("index").arg(repo().join("tests/data/hotpot-slice/corpus")).assert().success();
    // The slice's first four questions, labelled two by two.
    let text = std::fs::read_to_string(repo().join("tests/data/hotpot-slice/questions.jsonl")).unwrap();
    let mut lines = Vec::new();
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).take(4).enumerate() {
        let mut q: Value = serde_json::from_str(line).unwrap();
        q["kind"] = Value::from(if i < 2 { "first" } else { "second" });
        lines.push(q.to_string());
    }
    let set = dir.path().join("kinds.jsonl");
    std::fs::write(&set, lines.join("\n")).unwrap();
    let out = qa(dir.path()).args(["eval", "--no-repeat", "--json"]).arg(&set).assert().success();
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    for kind in ["first", "second"] {
        let k = &r["by_kind"][kind];
        assert_eq!(k["questions"], 2, "{kind}: {r}");
        for lane in ["dense", "lexical", "graph"] {
            assert!(k["lanes"][lane]["all"]["5"].is_number(), "{kind}/{lane}: {k}");
        }
    }
    // The per-kind recall averages to the overall one (two questions each).
    let overall = r["fused"]["recall"]["5"].as_f64().unwrap();
    let mean = (r["by_kind"]["first"]["fused"]["recall"]["5"].as_f64().unwrap() + r["by_kind"]["second"]["fused"]["recall"]["5"].as_f64().unwrap()) / 2.0;
    assert!((overall - mean).abs() < 1e-9, "{overall} vs {mean}");
    assert_eq!(r["per_question"][3]["kind"], "second");
    let out = qa(dir.path()).args(["eval", "--no-repeat"]).arg(&set).assert().success();
    let printed = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(printed.contains("kind 'first' (2 questions)") && printed.contains("kind 'second' (2 questions)"), "{printed}");
}
