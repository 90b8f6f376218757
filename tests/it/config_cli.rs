//! Configuration precedence: flags > QA_* environment > qa.toml > defaults, as `qa doctor` reports.

use crate::common;

use common::*;
use predicates::prelude::*;

fn setting<'a>(report: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    report["settings"].as_array().unwrap().iter().find(|s| s["key"] == key).unwrap()
}

#[test]
fn flags_beat_env_beat_file_beat_defaults() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("qa.toml"), "top_k = 7\nchunk_tokens = 128\nbatch_size = 4\n").unwrap();
    let out = qa(dir.path())
        .env("QA_CHUNK_TOKENS", "200")
        .env("QA_HNSW_M", "32")
        .args(["doctor", "--json"])
        .assert()
        .get_output()
        .stdout
        .clone();
    let r: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(setting(&r, "top_k")["value"], 7);
    assert_eq!(setting(&r, "top_k")["origin"], "file");
    assert_eq!(setting(&r, "chunk_tokens")["value"], 200);
    assert_eq!(setting(&r, "chunk_tokens")["origin"], "env");
    assert_eq!(setting(&r, "hnsw_m")["origin"], "env");
    assert_eq!(setting(&r, "data_dir")["origin"], "flag");
    assert_eq!(setting(&r, "min_concept_df")["origin"], "default");
    assert!(r["config_file"].as_str().unwrap().ends_with("qa.toml"));
}

#[test]
fn bad_settings_are_reported_with_their_source() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("qa.toml"), "top_kk = 7\n").unwrap();
    qa(dir.path()).args(["doctor"]).assert().code(1).stderr(predicate::str::contains("unknown setting 'top_kk'"));
    // A setting of the focus check that `evidence_threshold` replaced says what replaced it.
    std::fs::write(dir.path().join("qa.toml"), "focus_similarity = 0.6\n").unwrap();
    qa(dir.path()).args(["doctor"]).assert().code(1).stderr(predicate::str::contains("'focus_similarity' was replaced by 'evidence_threshold'"));
    let dir = tempfile::tempdir().unwrap();
    qa(dir.path()).env("QA_TOP_K", "many").args(["doctor"]).assert().code(1).stderr(predicate::str::contains("QA_TOP_K"));
    qa(dir.path()).env("QA_CHUNK_OVERLAP", "200").args(["doctor"]).assert().code(1).stderr(predicate::str::contains("chunk_overlap"));
}
