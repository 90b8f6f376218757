//! Indexing behaviour: incremental runs, bad files, corrupt or mismatched indexes, missing
//! models, interrupted runs.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::*;
use predicates::prelude::*;

fn index_json(dir: &std::path::Path, corpus: &std::path::Path, name: &str) -> serde_json::Value {
    let out = qa(dir).args(["index", "--json", "--name", name]).arg(corpus).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn unchanged_corpus_reembeds_nothing_and_changes_are_incremental() {
    let data = tempfile::tempdir().unwrap();
    let corpus = tempfile::tempdir().unwrap();
    copy_dir(&sample_corpus(), corpus.path());
    let first = index_json(data.path(), corpus.path(), "c");
    let total = first["chunks"].as_u64().unwrap();
    assert!(total > 50);
    assert_eq!(first["embedded"].as_u64(), Some(total));

    let again = index_json(data.path(), corpus.path(), "c");
    assert_eq!(again["embedded"], 0);
    assert_eq!(again["added"], 0);
    assert_eq!(again["removed"], 0);
    assert_eq!(again["kept"].as_u64(), Some(total));

    // Change one file, delete another.
    let grafana_chunks = std::fs::read_to_string(data.path().join("chunking_outputs/c_chunks.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"source_file\":\"grafana-dashboard.html\""))
        .count() as u64;
    assert!(grafana_chunks > 0);
    std::fs::remove_file(corpus.path().join("grafana-dashboard.html")).unwrap();
    let p = corpus.path().join("troubleshooting.txt");
    let mut text = std::fs::read_to_string(&p).unwrap();
    text.push_str("\n\nFROST ON THE SHIELD\n\nA thin layer of hoar frost on the radiation shield delays readings by minutes.\n");
    std::fs::write(&p, text).unwrap();
    let third = index_json(data.path(), corpus.path(), "c");
    let added = third["added"].as_u64().unwrap();
    assert!((1..=3).contains(&added), "only the changed tail of troubleshooting.txt is new: {third}");
    assert!(third["removed"].as_u64().unwrap() >= grafana_chunks, "{third}");
    assert_eq!(third["kept"].as_u64().unwrap() + added, third["chunks"].as_u64().unwrap());
    // A change this small updates the HNSW graph in place (at most 10% of its points deleted).
    let removed = third["removed"].as_u64().unwrap();
    assert_eq!(third["hnsw_updated"].as_bool(), Some(removed as f64 <= 0.1 * (total + added) as f64), "{third}");
    // the deleted file is gone from the index, the new text is found
    let a = ask_json(data.path(), "What does hoar frost on the radiation shield do?");
    let files: Vec<&str> = a["trace"]["retrieved_chunks"].as_array().unwrap().iter().map(|c| c["source_file"].as_str().unwrap()).collect();
    assert!(files.contains(&"troubleshooting.txt"), "{files:?}");
    // The deleted file's points are still in the graph (as waypoints) but never come back.
    let a = ask_json(data.path(), "How do I build a Grafana dashboard with panels for temperature?");
    let files: Vec<&str> = a["trace"]["retrieved_chunks"].as_array().unwrap().iter().map(|c| c["source_file"].as_str().unwrap()).collect();
    assert!(!files.contains(&"grafana-dashboard.html"), "{files:?}");
    // --rebuild builds a clean graph.
    let rebuilt: serde_json::Value = serde_json::from_slice(
        &qa(data.path()).args(["index", "--json", "--rebuild", "--name", "c"]).arg(corpus.path()).assert().success().get_output().stdout,
    )
    .unwrap();
    assert_eq!(rebuilt["hnsw_updated"], false);
    let all = std::fs::read_to_string(data.path().join("chunking_outputs/c_chunks.jsonl")).unwrap();
    assert!(!all.contains("grafana-dashboard.html"));
}

fn graph_counts(dir: &std::path::Path) -> serde_json::Value {
    let out = qa(dir).args(["graph", "stats", "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice::<serde_json::Value>(&out).unwrap()["counts"].clone()
}

#[test]
fn a_small_edit_updates_the_graph_store_to_what_a_rebuild_would_load() {
    let data = tempfile::tempdir().unwrap();
    let corpus = tempfile::tempdir().unwrap();
    copy_dir(&sample_corpus(), corpus.path());
    let first = index_json(data.path(), corpus.path(), "c");
    assert_eq!(first["graph_updated"], false, "a first index loads its store");
    let initial = graph_counts(data.path());
    let p = corpus.path().join("troubleshooting.txt");
    let original = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("{original}\n\nFROST ON THE SHIELD\n\nA thin layer of hoar frost on the radiation shield delays readings by minutes.\n")).unwrap();
    let edited = index_json(data.path(), corpus.path(), "c");
    assert_eq!(edited["graph_updated"], true, "{edited}");
    let updated = graph_counts(data.path());
    let rebuilt = qa(data.path()).args(["index", "--json", "--rebuild", "--name", "c"]).arg(corpus.path()).assert().success().get_output().stdout.clone();
    let rebuilt: serde_json::Value = serde_json::from_slice(&rebuilt).unwrap();
    assert_eq!(rebuilt["graph_updated"], false);
    assert_eq!(graph_counts(data.path()), updated, "the updated store holds what a fresh load holds");
    assert_eq!((edited["concepts"].clone(), edited["relationships"].clone()), (rebuilt["concepts"].clone(), rebuilt["relationships"].clone()));

    // A store `qa graph ingest` added to is loaded anew from the corpus's own graph.
    let extra = data.path().join("extra_kg.jsonl");
    let line = serde_json::json!({
        "source": {"id": "notes::n_0", "type": "Document", "metadata": []},
        "nodes": [{"id": "supercapacitor", "type": "Concept", "metadata": [{"key": "name", "value": "supercapacitor"}]}],
        "relationships": [{"source": "notes::n_0", "target": "supercapacitor", "type": "MENTIONS", "metadata": []}]
    });
    std::fs::write(&extra, format!("{line}\n")).unwrap();
    qa(data.path()).args(["graph", "ingest"]).arg(&extra).assert().success();
    std::fs::write(&p, original).unwrap();
    let restored = index_json(data.path(), corpus.path(), "c");
    assert_eq!(restored["graph_updated"], false, "{restored}");
    assert_eq!(graph_counts(data.path()), initial, "the ingested extra is gone, as after any full load");
}

#[test]
fn unusable_files_are_skipped_and_counted() {
    let data = tempfile::tempdir().unwrap();
    let corpus = tempfile::tempdir().unwrap();
    std::fs::write(corpus.path().join("good.md"), "# Rain gauge\n\nA tipping bucket rain gauge counts tips of a small seesaw.\n").unwrap();
    std::fs::write(corpus.path().join("empty.md"), "").unwrap();
    std::fs::write(corpus.path().join("latin1.txt"), b"caf\xe9 au lait\n").unwrap();
    std::fs::write(corpus.path().join("binary.html"), b"<html>\x00\x01\x02</html>").unwrap();
    std::fs::create_dir(corpus.path().join("sub")).unwrap();
    std::os::unix::fs::symlink(corpus.path(), corpus.path().join("sub/loop")).unwrap();
    let s = index_json(data.path(), corpus.path(), "bad");
    assert_eq!(s["files_loaded"], 1);
    let reasons: Vec<String> = s["files_skipped"].as_array().unwrap().iter().map(|k| k["reason"].as_str().unwrap().to_string()).collect();
    assert!(reasons.iter().any(|r| r == "empty file"), "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "not valid UTF-8"), "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "binary content"), "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "symlink loop"), "{reasons:?}");
}

#[test]
fn truncated_index_gives_a_rebuild_hint() {
    let dir = copy_of_indexed_sample();
    let generation = live_generation(dir.path(), "sample-corpus");
    let data = generation.join("hnsw.hnsw.data");
    let len = std::fs::metadata(&data).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&data).unwrap().set_len(len / 2).unwrap();
    qa(dir.path())
        .args(["ask", "What is deep sleep?"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("truncated or modified"))
        .stderr(predicate::str::contains("rebuild it with `qa index").and(predicate::str::contains("sample_corpus --rebuild`")));
}

#[test]
fn index_built_with_another_model_is_refused() {
    let dir = copy_of_indexed_sample();
    let manifest_path = live_generation(dir.path(), "sample-corpus").join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    m["model_id"] = "bge-small-en-v1.5@0123456789ab".into();
    std::fs::write(&manifest_path, serde_json::to_string(&m).unwrap()).unwrap();
    qa(dir.path())
        .args(["ask", "What is deep sleep?"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("was built with bge-small-en-v1.5@0123456789ab"))
        .stderr(predicate::str::contains("--rebuild"));
}

#[test]
fn missing_model_names_the_setup_command() {
    let dir = copy_of_indexed_sample();
    qa_without_models(dir.path())
        .args(["--models-dir", "/nonexistent/models", "ask", "What is deep sleep?"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("embedding model not found"))
        .stderr(predicate::str::contains("qa setup"))
        .stderr(predicate::str::contains("scripts/setup-models.sh"));
    // the environment variable works too (and names the same fix)
    qa_without_models(dir.path())
        .env("QA_MODELS_DIR", "/nonexistent/models")
        .args(["ask", "What is deep sleep?"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/nonexistent/models/all-MiniLM-L6-v2"));
    qa_without_models(dir.path())
        .args(["--models-dir", "/nonexistent/models", "index"])
        .arg(sample_corpus())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("scripts/setup-models.sh"));
}

#[test]
fn no_index_says_how_to_build_one() {
    let dir = tempfile::tempdir().unwrap();
    qa(dir.path()).args(["ask", "What is deep sleep?"]).assert().code(1).stderr(predicate::str::contains("qa index"));
}

#[test]
fn interrupted_index_leaves_the_previous_index_usable() {
    let dir = copy_of_indexed_sample();
    // Re-index the same corpus name from four distinct copies of the sample (hundreds of chunks
    // to embed: many seconds of work) and kill the run part-way.
    let big = tempfile::tempdir().unwrap();
    for n in 0..4 {
        let part = big.path().join(format!("part{n}"));
        copy_dir(&sample_corpus(), &part);
        for e in std::fs::read_dir(&part).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let mut t = std::fs::read_to_string(&p).unwrap();
                t.push_str(&format!("\n\nCopy {n} of this page.\n"));
                std::fs::write(&p, t).unwrap();
            }
        }
    }
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("qa"))
        .current_dir(dir.path())
        .arg("--data-dir")
        .arg(dir.path())
        .arg("--models-dir")
        .arg(models_dir())
        .args(["-q", "index", "--rebuild", "--name", "sample-corpus"])
        .arg(big.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the rebuild finished before it could be interrupted");
    let a = ask_json(dir.path(), "What I2C address does the BME280 use?");
    assert!(a["answer"]["text"].as_str().unwrap().contains("0x76"));
    // and the next index run cleans up and succeeds
    qa(dir.path()).arg("index").arg(sample_corpus()).assert().success();
}

#[test]
fn doctor_reports_setup_as_json() {
    let out = qa(indexed_sample()).args(["doctor", "--json"]).assert().success().get_output().stdout.clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["ok"], true);
    let checks = report["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["name"] == "index 'sample-corpus'" && c["ok"] == true));
    let data_dir = report["settings"].as_array().unwrap().iter().find(|s| s["key"] == "data_dir").unwrap();
    assert_eq!(data_dir["origin"], "flag");
    let empty = tempfile::tempdir().unwrap();
    qa(empty.path()).args(["doctor"]).assert().code(1).stdout(predicate::str::contains("qa index"));
}

#[test]
fn chunk_flags_that_are_valid_together_are_accepted_together() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("a.md"), "# Garden\n\nThe tomato bed is watered every morning at six. Mulch keeps the soil moist for two days.\n").unwrap();
    // Applied one at a time, 64 tokens would be judged against the default overlap (32) first.
    qa(dir.path()).arg("index").arg(&docs).args(["--chunk-tokens", "64", "--chunk-overlap", "16"]).assert().success();
    // An invalid pair names both settings and where each value came from.
    qa(dir.path())
        .arg("index")
        .arg(&docs)
        .args(["--chunk-tokens", "64"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("chunk_overlap (32, the default)"))
        .stderr(predicate::str::contains("chunk_tokens (64, --chunk-tokens)"));
    // The environment's value is judged with the flags, not before them: a chunk size too small
    // for the default overlap is fine with the overlap the command gives.
    qa(dir.path()).env("QA_CHUNK_TOKENS", "64").arg("index").arg(&docs).args(["--chunk-overlap", "16"]).assert().success();
    qa(dir.path())
        .env("QA_CHUNK_TOKENS", "64")
        .arg("index")
        .arg(&docs)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("chunk_tokens (64, QA_CHUNK_TOKENS)"));
}
