//! `--store`: the documents' dense and lexical lanes on an OpenSearch / Elasticsearch index,
//! against the loopback server of `common::store_server` (the real HTTP API: mappings, `_bulk`,
//! kNN and `multi_match` searches, refresh; faults injected on demand).

use std::path::Path;

use serde_json::{Value, json};

use crate::common::es_server::RequiredAuth;
use crate::common::store_server::{Flavor, StoreServer};
use crate::common::*;

const QUESTION: &str = "How is the dew point computed?";

/// A copy of the shared indexed data folder and a private copy of the sample corpus (tests edit
/// it) under the same corpus name, so that its embeddings are reused: nothing is embedded until
/// a test edits a file.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = copy_of_indexed_sample();
    let corpus = dir.path().join("sample_corpus");
    copy_dir(&sample_corpus(), &corpus);
    (dir, corpus)
}

/// The sample corpus's name (from its folder's name).
const CORPUS: &str = "sample-corpus";

fn index_json(dir: &Path, corpus: &Path, store: &str) -> Value {
    let out = qa(dir).arg("index").arg(corpus).args(["--json", "--store", store]).assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn ask_store(dir: &Path, store: &str) -> Value {
    let out = qa(dir).args(["ask", QUESTION, "--json", "--store", store]).assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn selected(a: &Value) -> Vec<String> {
    a["trace"]["internal"]["rag"]["hits"].as_array().unwrap().iter().map(|h| h["chunk_id"].as_str().unwrap().to_string()).collect()
}

/// Source files of the documents whose keys were sent in `_bulk` index actions.
fn files_sent(server: &StoreServer, ids: &[String]) -> Vec<String> {
    let mut files: Vec<String> = ids.iter().filter_map(|id| server.doc("docs", id)).map(|d| d["source_file"].as_str().unwrap().to_string()).collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn index_fills_an_opensearch_index_and_ask_searches_it() {
    let server = StoreServer::builder(Flavor::OpenSearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    let s = index_json(dir.path(), &corpus, &store);
    let chunks = s["chunks"].as_u64().unwrap() as usize;
    assert_eq!((s["store"]["sent"].as_u64(), s["store"]["created"].as_bool()), (Some(chunks as u64), Some(true)), "{s}");
    assert_eq!(server.doc_ids("docs").len(), chunks, "every chunk is stored and refreshed");
    assert_eq!(server.pending("docs"), 0);
    // The mapping qa created: OpenSearch's knn_vector with an explicit method, and the model in _meta.
    let mapping = server.mapping("docs").unwrap();
    assert_eq!(mapping["properties"]["embedding"]["type"], "knn_vector", "{mapping}");
    assert_eq!(mapping["properties"]["embedding"]["method"]["space_type"], "cosinesimil");
    assert_eq!(mapping["_meta"]["dimension"], 384);
    let doc = server.doc("docs", &server.doc_ids("docs")[0]).unwrap();
    for field in ["content", "source_file", "headings", "content_sha256", "chunk_id", "title"] {
        assert!(doc.get(field).is_some(), "{field} missing in {doc}");
    }
    assert_eq!(doc["embedding"].as_array().unwrap().len(), 384);
    // Every bulk body was NDJSON.
    assert!(server.requests().iter().filter(|r| r.path.contains("_bulk")).all(|r| r.body.ends_with('\n')));

    server.clear_log();
    let remote = ask_store(dir.path(), &store);
    let searches: Vec<Value> = server.requests().iter().filter(|r| r.path.ends_with("/_search")).map(|r| serde_json::from_str(&r.body).unwrap()).collect();
    assert!(searches.iter().any(|b| b.pointer("/query/knn/embedding/vector").is_some()), "a kNN query clause reached the server");
    assert!(searches.iter().any(|b| b.pointer("/query/multi_match/query").is_some()), "a multi_match reached the server");
    assert!(remote["trace"]["internal"]["rag"]["lanes"]["store"].as_str().unwrap().starts_with("opensearch http://"), "{}", remote["trace"]["internal"]["rag"]["lanes"]["store"]);
    // The same corpus searched locally selects the same top passage (brute-force kNN equals
    // the exact neighbours; BM25 differs only in analysis).
    let local = ask_json(dir.path(), QUESTION);
    assert_eq!(local["trace"]["internal"]["rag"]["lanes"]["store"], "local");
    assert_eq!(selected(&remote)[0], selected(&local)[0]);
    assert!(remote["answer"].to_string().to_lowercase().contains("dew point"), "{}", remote["answer"]);
}

#[test]
fn reindexing_sends_only_what_changed_and_leaves_no_orphans() {
    let server = StoreServer::builder(Flavor::Elasticsearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    let first = index_json(dir.path(), &corpus, &store);
    let mapping = server.mapping("docs").unwrap();
    assert_eq!((mapping["properties"]["embedding"]["type"].as_str(), mapping["properties"]["embedding"]["similarity"].as_str()), (Some("dense_vector"), Some("cosine")));
    // Nothing changed: nothing is sent.
    server.clear_log();
    let again = index_json(dir.path(), &corpus, &store);
    assert_eq!((again["store"]["sent"].as_u64(), &again["store"]["kept"], again["store"]["deleted"].as_u64()), (Some(0), &first["chunks"], Some(0)), "{again}");
    assert!(server.bulk_ids_sent().len() == first["chunks"].as_u64().unwrap() as usize, "no bulk was sent on the unchanged run");
    // One file edited: only its chunks are sent.
    let before = server.bulk_ids_sent().len();
    let path = corpus.join("power-budget.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}\n\n## Winter margin\n\nIn December the panel yields a third of its summer energy, so the node sleeps for ten minutes between readings.\n")).unwrap();
    let edited = index_json(dir.path(), &corpus, &store);
    let sent: Vec<String> = server.bulk_ids_sent()[before..].to_vec();
    assert!(!sent.is_empty(), "{edited}");
    assert_eq!(files_sent(&server, &sent), vec!["power-budget.md".to_string()], "only the edited file's chunks were sent");
    assert_eq!(server.doc_ids("docs").len(), edited["chunks"].as_u64().unwrap() as usize, "the edited file's old chunks were deleted");
    // One file deleted: its chunks leave the server, and check finds it clean.
    std::fs::remove_file(corpus.join("troubleshooting.txt")).unwrap();
    let removed = index_json(dir.path(), &corpus, &store);
    assert!(removed["store"]["deleted"].as_u64().unwrap() > 0, "{removed}");
    assert!(server.doc_ids("docs").iter().all(|id| server.doc("docs", id).unwrap()["source_file"] != "troubleshooting.txt"));
    let out = qa(dir.path()).args(["store", "check", "--json", "--store", &store]).assert().success();
    let check: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!((check["index"].as_str(), check["missing_count"].as_u64(), check["orphaned_count"].as_u64()), (Some("ok"), Some(0), Some(0)), "{check}");
    // An orphan planted on the server is found, and the next index run removes it.
    let mut planted = server.doc("docs", &server.doc_ids("docs")[0]).unwrap();
    planted["doc_key"] = json!("0000planted");
    server.insert_raw("docs", "0000planted", planted);
    let out = qa(dir.path()).args(["store", "check", "--store", &store]).assert().code(1);
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("orphaned: 1: 0000planted"), "{}", String::from_utf8_lossy(&out.get_output().stdout));
    index_json(dir.path(), &corpus, &store);
    assert!(server.doc("docs", "0000planted").is_none());
}

#[test]
fn rejected_items_are_retried_and_failed_ones_are_reported_then_completed() {
    let server = StoreServer::builder(Flavor::OpenSearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    // Index locally first to learn the keys qa will send.
    qa(dir.path()).arg("index").arg(&corpus).assert().success();
    let keys = doc_keys(dir.path());
    // A 429 storm on whole requests, and overloaded items inside a bulk: retried, complete.
    server.fail_next(&[429, 429, 503], Some("0"));
    server.fail_bulk_items(&[keys[0].as_str(), keys[1].as_str()], 429);
    let s = index_json(dir.path(), &corpus, &store);
    assert_eq!(server.doc_ids("docs").len(), keys.len(), "{s}");
    assert!(s["store"]["retried_items"].as_u64().unwrap() >= 2, "{s}");
    // Items the server refuses: the run fails naming them, the rest is stored, nothing is
    // claimed; the next run sends exactly the missing ones.
    let dir2 = copy_of_indexed_sample();
    let store2 = server.index_url("docs2");
    server.fail_bulk_items(&[keys[2].as_str(), keys[3].as_str()], 400);
    let out = qa(dir2.path()).arg("index").arg(&corpus).args(["--store", &store2]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("2 of") && err.contains(&keys[2]) && err.contains("not stored") && err.contains("local index"), "{err}");
    assert_eq!(server.doc_ids("docs2").len(), keys.len() - 2);
    let out = qa(dir2.path()).args(["store", "check", "--json", "--store", &store2]).assert().code(1);
    let check: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(check["missing_count"], 2, "{check}");
    let before = server.bulk_ids_sent().len();
    let s = index_json(dir2.path(), &corpus, &store2);
    let mut resent = server.bulk_ids_sent()[before..].to_vec();
    resent.sort();
    let mut want = vec![keys[2].clone(), keys[3].clone()];
    want.sort();
    assert_eq!((resent, s["store"]["sent"].as_u64()), (want, Some(2)));
    qa(dir2.path()).args(["store", "check", "--store", &store2]).assert().success();
}

/// The keys qa gives the generation's chunks (path, id and content hash), as `qa store check`
/// would list them missing on an empty server.
fn doc_keys(dir: &Path) -> Vec<String> {
    let gen_dir = live_generation(dir, CORPUS);
    let chunks = qa_core::chunk::read_chunks(&gen_dir.join("chunks.jsonl")).unwrap();
    chunks.iter().map(qa_store::doc::doc_key).collect()
}

#[test]
fn a_dead_server_degrades_answers_and_fails_index_clearly() {
    let mut server = StoreServer::builder(Flavor::OpenSearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    index_json(dir.path(), &corpus, &store);
    server.stop();
    // The answer comes from the local files, with a note saying why.
    let a = ask_store(dir.path(), &store);
    let text = a["answer"]["text"].as_str().unwrap();
    assert!(text.contains("could not be reached") && text.contains("searched the local index instead"), "{text}");
    assert!(a["trace"]["internal"]["rag"]["lanes"]["store"] == "local", "{}", a["trace"]["internal"]["rag"]["lanes"]["store"]);
    assert!(!selected(&a).is_empty());
    // Indexing says the local index is complete and the store is not.
    let out = qa(dir.path()).arg("index").arg(&corpus).args(["--store", &store]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains(&format!("the local index of '{CORPUS}' is complete")) && err.contains("127.0.0.1"), "{err}");
}

#[test]
fn a_server_slower_than_the_timeout_degrades_the_answer() {
    let server = StoreServer::builder(Flavor::Elasticsearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    index_json(dir.path(), &corpus, &store);
    server.delay_next(std::time::Duration::from_secs(5));
    let started = std::time::Instant::now();
    let out = qa(dir.path()).args(["ask", QUESTION, "--json", "--store", &store]).env("QA_STORE_TIMEOUT_MS", "300").assert().success();
    let a: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let text = a["answer"]["text"].as_str().unwrap();
    assert!(text.contains("timed out") && text.contains("searched the local index instead"), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "the client gave up before the server answered");
}

#[test]
fn an_index_of_another_model_or_not_made_by_qa_is_refused() {
    let server = StoreServer::builder(Flavor::Elasticsearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    index_json(dir.path(), &corpus, &store);
    server.set_meta("docs", json!({"qa_store": 1, "model": "another-model", "dimension": 768, "corpus": CORPUS}));
    let out = qa(dir.path()).args(["ask", QUESTION, "--store", &store]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("another-model (768 dimensions)") && err.contains("all-MiniLM-L6-v2"), "{err}");
    // A user's own index: never written to.
    server.create_index("users-data", json!({"mappings": {"properties": {"name": {"type": "keyword"}, "v": {"type": "dense_vector", "dims": 3, "index": true, "similarity": "cosine"}}}}));
    server.clear_log();
    let out = qa(dir.path()).arg("index").arg(&corpus).args(["--store", &server.index_url("users-data")]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("not a qa document store"), "{err}");
    assert!(server.requests().iter().all(|r| r.method == "GET"), "only reads reached the server: {:?}", server.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect::<Vec<_>>());
}

#[test]
fn one_index_holds_one_corpus() {
    let server = StoreServer::builder(Flavor::OpenSearch).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    index_json(dir.path(), &corpus, &store);
    let stored = server.doc_ids("docs");
    // A second corpus synced to the same index would delete the first one's chunks as orphans:
    // refused before anything is written.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(corpus.join("calibration.md"), other.join("calibration.md")).unwrap();
    server.clear_log();
    let out = qa(dir.path()).arg("index").arg(&other).args(["--store", &store]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains(&format!("holds the chunks of corpus '{CORPUS}', not of 'other'")), "{err}");
    assert!(server.bulk_ids_sent().len() == stored.len() && server.doc_ids("docs") == stored, "nothing was written or deleted");
    // Asking the other corpus against it is the same error, not silently empty lanes.
    let out = qa(dir.path()).args(["ask", QUESTION, "--corpus", "other", "--store", &store]).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains(&format!("holds the chunks of corpus '{CORPUS}'")));
}

#[test]
fn credentials_come_from_the_environment_and_are_never_shown() {
    let server = StoreServer::builder(Flavor::OpenSearch).auth(RequiredAuth::Basic("indexer".into(), "s3cret-store-pw".into())).start();
    let (dir, corpus) = workspace();
    let store = server.index_url("docs");
    let out = qa(dir.path()).arg("index").arg(&corpus).args(["--store", &store]).env("QA_STORE_USERNAME", "indexer").env("QA_STORE_PASSWORD", "wrong-pw").assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("401") && err.contains("QA_STORE_USERNAME") && !err.contains("wrong-pw"), "{err}");
    qa(dir.path()).arg("index").arg(&corpus).args(["--store", &store]).env("QA_STORE_USERNAME", "indexer").env("QA_STORE_PASSWORD", "s3cret-store-pw").assert().success();
    assert!(server.requests().iter().any(|r| r.authorization.as_deref().is_some_and(|a| a.starts_with("Basic "))));
    // A password in the URL works and is not printed, not in the trace either.
    let with_pw = store.replacen("http://", "http://indexer:s3cret-store-pw@", 1);
    let out = qa(dir.path()).args(["ask", QUESTION, "--json", "--store", &with_pw]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string() + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(!text.contains("s3cret-store-pw"), "the password leaked");
    let logs = std::fs::read_dir(dir.path().join("logs")).map(|d| d.flatten().map(|e| std::fs::read_to_string(e.path()).unwrap_or_default()).collect::<String>()).unwrap_or_default();
    assert!(!logs.contains("s3cret-store-pw"), "the password is in the logs or traces");
}

#[test]
fn migrate_copies_between_back_ends_without_reembedding() {
    let from = StoreServer::builder(Flavor::OpenSearch).start();
    let to = StoreServer::builder(Flavor::Elasticsearch).start();
    let (dir, corpus) = workspace();
    let source = from.index_url("docs");
    index_json(dir.path(), &corpus, &source);
    // A stale document on the target goes.
    let target = to.index_url("copy");
    let out = qa(dir.path()).args(["store", "migrate", "--json", "--store", &source, "--to", &target]).assert().success();
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(to.doc_ids("copy"), from.doc_ids("docs"), "{r}");
    let id = &from.doc_ids("docs")[3];
    assert_eq!(to.doc("copy", id).unwrap()["embedding"], from.doc("docs", id).unwrap()["embedding"], "vectors copied as stored");
    assert_eq!(to.mapping("copy").unwrap()["properties"]["embedding"]["type"], "dense_vector", "the target got its own back end's mapping");
    qa(dir.path()).args(["store", "check", "--store", &target]).assert().success();
    let a = ask_store(dir.path(), &target);
    assert!(a["trace"]["internal"]["rag"]["lanes"]["store"].as_str().unwrap().starts_with("elasticsearch "));
}

#[test]
fn eval_on_the_store_matches_the_local_index() {
    let server = StoreServer::builder(Flavor::OpenSearch).start();
    let dir = tempfile::Builder::new().prefix("qa-store-eval-").tempdir().unwrap();
    let store = server.index_url("hotpot");
    qa(dir.path()).arg("index").arg(repo().join("tests/data/hotpot-slice/corpus")).args(["--store", &store]).assert().success();
    let set = repo().join("tests/data/hotpot-slice/questions.jsonl");
    let run = |store: Option<&str>| -> Value {
        let mut cmd = qa(dir.path());
        cmd.args(["eval", "--no-repeat", "--json"]).arg(&set);
        if let Some(s) = store {
            cmd.args(["--store", s]);
        }
        serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap()
    };
    let local = run(None);
    let remote = run(Some(&store));
    let recall = |r: &Value, lane: Option<&str>| match lane {
        Some(l) => r["lanes"][l]["recall"]["5"].as_f64().unwrap(),
        None => r["fused"]["recall"]["5"].as_f64().unwrap(),
    };
    assert!((recall(&local, Some("dense")) - recall(&remote, Some("dense"))).abs() < 1e-9, "exact kNN on both sides");
    assert!((recall(&local, None) - recall(&remote, None)).abs() <= 0.05, "fused recall@5: local {} store {}", recall(&local, None), recall(&remote, None));
}

#[test]
fn doctor_shows_the_store_url_without_its_password() {
    let dir = tempfile::Builder::new().prefix("qa-store-doctor-").tempdir().unwrap();
    let out = qa(dir.path()).args(["doctor", "--json", "--store", "https://u:hunter2-store@search.example:9200/docs"]).assert();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("https://search.example:9200/docs") && !text.contains("hunter2-store"), "{text}");
}
