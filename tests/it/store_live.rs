//! The `--store` suite against a real server (opt-in): `QA_TEST_OPENSEARCH_URL` or
//! `QA_TEST_ELASTICSEARCH_URL` = `http(s)://host:port` (no index: each run creates its own and
//! deletes it), credentials in `QA_TEST_STORE_API_KEY` or `QA_TEST_STORE_USERNAME` +
//! `QA_TEST_STORE_PASSWORD`. It checks what the loopback server cannot: the mapping accepted by a
//! real cluster, real kNN and BM25 answering, refresh visibility.

use serde_json::Value;

use crate::common::*;

fn live(base_var: &str) {
    let base = std::env::var(base_var).unwrap_or_else(|_| panic!("set {base_var}=http(s)://host:port to run this test"));
    let index = format!("qa-live-{}", std::process::id());
    let store = format!("{}/{index}", base.trim_end_matches('/'));
    let dir = tempfile::Builder::new().prefix("qa-store-live-").tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    copy_dir(&sample_corpus(), &corpus);
    let with_credentials = |mut cmd: assert_cmd::Command| {
        for (from, to) in [("QA_TEST_STORE_API_KEY", "QA_STORE_API_KEY"), ("QA_TEST_STORE_USERNAME", "QA_STORE_USERNAME"), ("QA_TEST_STORE_PASSWORD", "QA_STORE_PASSWORD")] {
            if let Ok(v) = std::env::var(from) {
                cmd.env(to, v);
            }
        }
        cmd
    };
    let result = std::panic::catch_unwind(|| {
        let out = with_credentials(qa(dir.path())).arg("index").arg(&corpus).args(["--json", "--store", &store]).assert().success();
        let s: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(s["store"]["sent"], s["chunks"], "{s}");
        let out = with_credentials(qa(dir.path())).args(["ask", "How is the dew point computed?", "--json", "--store", &store]).assert().success();
        let a: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let text = a["answer"]["text"].as_str().unwrap();
        assert!(!text.contains("did not answer") && !text.contains("could not be reached"), "{text}");
        assert!(a["trace"]["internal"]["rag"]["lanes"]["store"].as_str().unwrap().contains(&index));
        assert!(a["answer"].to_string().to_lowercase().contains("dew point"));
        with_credentials(qa(dir.path())).args(["store", "check", "--store", &store]).assert().success();
        std::fs::remove_file(corpus.join("troubleshooting.txt")).unwrap();
        with_credentials(qa(dir.path())).arg("index").arg(&corpus).args(["--store", &store]).assert().success();
        with_credentials(qa(dir.path())).args(["store", "check", "--store", &store]).assert().success();
    });
    // Delete the run's index whatever happened.
    let client = reqwest::blocking::Client::new();
    let mut req = client.delete(&store);
    if let (Ok(u), Ok(p)) = (std::env::var("QA_TEST_STORE_USERNAME"), std::env::var("QA_TEST_STORE_PASSWORD")) {
        req = req.basic_auth(u, Some(p));
    } else if let Ok(k) = std::env::var("QA_TEST_STORE_API_KEY") {
        req = req.header("Authorization", format!("ApiKey {k}"));
    }
    let _ = req.send();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

#[test]
#[ignore = "needs a real OpenSearch 2 server: QA_TEST_OPENSEARCH_URL=http(s)://host:9200"]
fn opensearch_live() {
    live("QA_TEST_OPENSEARCH_URL");
}

#[test]
#[ignore = "needs a real Elasticsearch 8/9 server: QA_TEST_ELASTICSEARCH_URL=http(s)://host:9200"]
fn elasticsearch_live() {
    live("QA_TEST_ELASTICSEARCH_URL");
}
