//! Conversations beyond questions: pasted SQL statements and Elasticsearch bodies (run when the
//! validator accepts them, refused with nothing sent otherwise), a clarifying question on the
//! ES route answered or forced in the next turn, and `qa chat` driven through stdin.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, es_server::EsServer, qa, sql_fixture};

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

fn shipments(dir: &Path) -> Vec<Value> {
    let sample = common::repo().join("samples/es/shipments.jsonl");
    qa(dir).args(["es", "index"]).arg(&sample).args(["--name", "shipments"]).assert().success();
    std::fs::read_to_string(&sample).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_pasted_sql_statement_runs_pages_and_a_hostile_one_never_reaches_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = sql_fixture::sqlite_sample(dir.path());
    let ask = |m: &str, code: i32| -> Value {
        let out = qa(dir.path()).env("QA_SQL_URL", &db).env("QA_SQL_ROW_CAP", "10").args(["ask", m, "--session", "paste", "--json"]).assert().code(code).get_output().stdout.clone();
        json_of(&out)
    };
    let conn = rusqlite::Connection::open(&db).unwrap();
    let expected: Vec<i64> = conn.prepare("SELECT id FROM findings WHERE severity = 'High' ORDER BY id").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert!(expected.len() > 20, "{}", expected.len());
    let statement = "SELECT id, severity FROM findings WHERE severity = 'High' ORDER BY id";
    let p1 = ask(&format!("run this: {statement}"), 0);
    assert_eq!(p1["user_query_text"], statement, "{p1}");
    let ids = |v: &Value| v["rows"].as_array().unwrap().iter().map(|r| r[0].as_i64().unwrap()).collect::<Vec<_>>();
    assert_eq!(ids(&p1), expected[..10]);
    let p2 = ask("show me more", 0);
    assert_eq!((p2["page"]["offset"].as_u64(), ids(&p2)), (Some(10), expected[10..20].to_vec()), "{p2}");

    let before: i64 = conn.query_row("SELECT COUNT(*) FROM findings", [], |r| r.get(0)).unwrap();
    for hostile in ["run this: DELETE FROM findings", "execute: DROP TABLE findings", "SELECT id FROM findings; DELETE FROM findings", "run this: SELECT secret FROM findings"] {
        let v = ask(hostile, 1);
        assert_eq!(v["status"], "error", "{hostile}: {v}");
        assert!(!v["reasons"].as_array().unwrap().is_empty(), "{v}");
        assert!(v.get("rows").is_none(), "nothing ran: {v}");
    }
    let after: i64 = conn.query_row("SELECT COUNT(*) FROM findings", [], |r| r.get(0)).unwrap();
    assert_eq!(before, after);
    // The refused turns are in the session as errors, with the statement kept.
    let show = json_of(&qa(dir.path()).args(["session", "show", "paste", "--json"]).assert().success().get_output().stdout);
    let turns = show["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 6);
    assert_eq!((turns[2]["status"].as_str(), turns[2]["user_query_text"].as_str()), (Some("error"), Some("DELETE FROM findings")));
    assert_eq!(turns[0]["artifact"]["type"], "sql");
}

#[test]
fn a_pasted_es_body_runs_and_a_hostile_one_is_refused_before_any_search() {
    let dir = tempfile::tempdir().unwrap();
    let records = shipments(dir.path());
    let server = EsServer::over_embedded(dir.path(), "shipments").start();
    let ask = |m: &str, code: i32| -> Value {
        let out = qa(dir.path()).env("QA_ES", server.index_url()).env("QA_ES_RETRIES", "0").args(["ask", m, "--session", "paste", "--json"]).assert().code(code).get_output().stdout.clone();
        json_of(&out)
    };
    let port = records[0]["destination_port"].as_str().unwrap().to_string();
    let expected = records.iter().filter(|r| r["destination_port"] == port.as_str()).count() as u64;
    let body = format!(r#"{{"query": {{"term": {{"destination_port": "{port}"}}}}}}"#);
    let v = ask(&format!("run this: {body}"), 0);
    assert_eq!((v["status"].as_str(), v["total"].as_u64()), (Some("answered"), Some(expected)), "{v}");
    assert_eq!(v["user_query_text"].as_str(), Some(body.as_str()));
    assert!(server.requests().iter().any(|r| r.path.ends_with("/_search")));

    for hostile in [
        r#"run this: POST /shipments/_delete_by_query {"query": {"match_all": {}}}"#.to_string(),
        r#"run this: {"query": {"script": {"script": {"source": "1"}}}}"#.to_string(),
        r#"just run it: {"query": {"term": {"owner": "me"}}}"#.to_string(),
        r#"{"query": {"terms": {"carrier": {"index": "users", "id": "1", "path": "name"}}}}"#.to_string(),
    ] {
        server.clear_log();
        let v = ask(&hostile, 1);
        assert_eq!(v["status"], "error", "{hostile}: {v}");
        let searched: Vec<_> = server.requests().into_iter().filter(|r| !r.path.ends_with("/_mapping")).collect();
        assert!(searched.is_empty(), "{hostile} reached the engine: {searched:?}");
    }
}

#[test]
fn an_es_clarification_is_answered_or_forced_in_the_next_turn() {
    let dir = tempfile::tempdir().unwrap();
    let records = shipments(dir.path());
    let ask = |session: &str, m: &str, code: i32| -> Value {
        let out = qa(dir.path()).env("QA_ES", "shipments").args(["ask", m, "--session", session, "--json"]).assert().code(code).get_output().stdout.clone();
        json_of(&out)
    };
    let day = records[0]["arrival_date"].as_str().unwrap().to_string();
    let count = |field: &str| records.iter().filter(|r| r[field] == day.as_str()).count() as u64;
    let question = format!("How many shipments were there on {day}?");
    let v = ask("a", &question, 3);
    assert_eq!(v["needs_clarification"], true, "{v}");
    let alternatives: Vec<String> = v["ambiguity"]["alternatives"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert!(alternatives.len() >= 2 && alternatives.iter().any(|a| a == "arrival_date"), "{alternatives:?}");
    // "just run it": the first alternative runs, and the answer names it.
    let v = ask("a", "just run it, don't ask me anything", 0);
    assert_eq!((v["status"].as_str(), v["force_execute"].as_bool()), (Some("answered"), Some(true)), "{v}");
    let guess = v["best_guess"].as_str().unwrap().to_string();
    assert_eq!(guess, alternatives[0]);
    assert_eq!(v["total"].as_u64(), Some(count(&guess)));
    assert!(v["query_summary"].as_str().unwrap().contains(&guess), "{v}");
    // A named choice.
    ask("b", &question, 3);
    let v = ask("b", "the arrival date", 0);
    assert_eq!(v["total"].as_u64(), Some(count("arrival_date")), "{v}");
    assert!(v.get("best_guess").is_none());
}

#[test]
fn qa_chat_reads_turns_from_stdin_into_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let records = shipments(dir.path());
    let delayed = records.iter().filter(|r| r["status"] == "delayed").count() as u64;
    let out = qa(dir.path())
        .env("QA_ES", "shipments")
        .args(["chat", "--session", "c", "--json"])
        .write_stdin("List the delayed shipments\n\nshow me more\n/history\n/histroy\nrun this: DELETE FROM t\n")
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // One JSON document per turn (the /history listing is text in between).
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&stdout[..stdout.find("#1 ").unwrap()]).into_iter::<Value>().map(Result::unwrap).collect();
    assert_eq!(docs.len(), 2, "{stdout}");
    assert_eq!((docs[0]["total"].as_u64(), docs[0]["turn"].as_u64()), (Some(delayed), Some(1)));
    assert_eq!((docs[1]["page"]["offset"].as_u64(), docs[1]["turn"].as_u64()), (Some(20), Some(2)));
    assert!(stdout.contains("#2 ") && stdout.contains("show me more"), "{stdout}");
    // The pasted DELETE has no database to run on: an error for that turn, the chat goes on
    // to the end of input and exits 1.
    assert!(String::from_utf8_lossy(&out.stderr).contains("--db or QA_SQL_URL"), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown command /histroy"), "a mistyped command is no question: {out:?}");
    let show = json_of(&qa(dir.path()).args(["session", "show", "c", "--json"]).assert().success().get_output().stdout);
    assert_eq!(show["turns"].as_array().unwrap().len(), 2);
    // Without --session a new chat-… session is started; /exit ends it.
    qa(dir.path()).env("QA_ES", "shipments").args(["chat"]).write_stdin("number of shipments per carrier\n/exit\nshow me more\n").assert().success();
    let list = json_of(&qa(dir.path()).args(["session", "list", "--json"]).assert().success().get_output().stdout);
    let chat = list["sessions"].as_array().unwrap().iter().find(|s| s["name"].as_str().unwrap().starts_with("chat-")).expect("a chat- session");
    assert_eq!(chat["turns"], 1, "lines after /exit are not read");
}

#[test]
fn show_me_more_without_an_earlier_result_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = qa(dir.path()).args(["ask", "show me more"]).assert().code(1).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("--session"), "{}", String::from_utf8_lossy(&out));
    let out = qa(dir.path()).args(["ask", "show me more", "--session", "new"]).assert().code(1).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("no earlier SQL or Elasticsearch result"), "{}", String::from_utf8_lossy(&out));
    qa(dir.path()).args(["session", "show", "new"]).assert().code(1);
}
