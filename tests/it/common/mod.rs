//! Shared helpers for the CLI tests: a `qa` command isolated from the developer's environment,
//! and one indexed copy of the sample corpus shared by the read-only tests of a test binary.

#![allow(dead_code)]

pub mod es_server;
pub mod http_server;
pub mod llm_server;
pub mod sql_fixture;
pub mod store_server;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn models_dir() -> PathBuf {
    repo().join("models")
}

pub fn sample_corpus() -> PathBuf {
    repo().join("sample_corpus")
}

/// `qa` with a clean environment (no QA_* leaking in), working in `data_dir`, without an LLM
/// (extractive answers; LLM tests set `QA_LLM_PROVIDER` or pass `--llm`).
pub fn qa(data_dir: &Path) -> Command {
    let mut cmd = qa_without_models(data_dir);
    cmd.arg("--models-dir").arg(models_dir()).env("QA_LLM_PROVIDER", "none");
    cmd
}

/// The local GGUF chat model fetched by `scripts/setup-models.sh`.
pub fn local_llm_path() -> PathBuf {
    let p = models_dir().join("SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(p.is_file(), "{} is missing: run scripts/setup-models.sh (it fetches the LLM too)", p.display());
    p
}

/// Like [`qa`] but without pointing at the repository's models folder.
pub fn qa_without_models(data_dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("qa").expect("qa binary");
    for (k, _) in std::env::vars() {
        if k.starts_with("QA_") {
            cmd.env_remove(k);
        }
    }
    // No user data folder: models found there (`qa setup` on this machine) would hide a missing one.
    cmd.current_dir(data_dir).env("XDG_DATA_HOME", data_dir.join(".no-user-data")).arg("--data-dir").arg(data_dir).arg("-q");
    cmd
}

/// A data dir with the sample corpus indexed once per test binary.
pub fn indexed_sample() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::Builder::new().prefix("qa-test-").tempdir().expect("tempdir").keep();
        qa(&dir).arg("index").arg(sample_corpus()).assert().success();
        dir
    })
}

/// A private copy of the shared indexed data dir, for tests that modify it.
pub fn copy_of_indexed_sample() -> tempfile::TempDir {
    let src = indexed_sample();
    let dst = tempfile::Builder::new().prefix("qa-test-copy-").tempdir().expect("tempdir");
    copy_dir(src, dst.path());
    dst
}

pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    // Tests that share the indexed folder run `qa` in it concurrently, and `qa` writes its
    // files through a temporary name and a rename: an entry listed here may be gone (renamed)
    // when it is copied. Its final name is in the listing or the copy is of a moment before.
    let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    let entries = match std::fs::read_dir(src) {
        Ok(x) => x,
        Err(err) if gone(&err) => return,
        Err(err) => panic!("{}: {err}", src.display()),
    };
    for e in entries {
        let Ok(e) = e else { continue };
        let target = dst.join(e.file_name());
        let is_dir = match e.file_type() {
            Ok(t) => t.is_dir(),
            Err(err) if gone(&err) => continue,
            Err(err) => panic!("{}: {err}", e.path().display()),
        };
        if is_dir {
            copy_dir(&e.path(), &target);
        } else if let Err(err) = std::fs::copy(e.path(), &target) {
            assert!(gone(&err), "{}: {err}", e.path().display());
        }
    }
}

/// Run `qa ask QUESTION --json` and parse the answer object.
pub fn ask_json(data_dir: &Path, question: &str) -> serde_json::Value {
    let out = qa(data_dir).args(["ask", question, "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("ask --json prints JSON")
}

/// The live generation folder of a corpus.
pub fn live_generation(data_dir: &Path, corpus: &str) -> PathBuf {
    let cd = data_dir.join("vector_store_outputs").join(corpus);
    let name = std::fs::read_to_string(cd.join("CURRENT")).unwrap();
    cd.join(name.trim())
}
