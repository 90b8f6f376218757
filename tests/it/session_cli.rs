//! `qa ask --session` and `qa session …` end to end: paging a SQL result, answering a
//! clarifying question (or forcing the best guess), follow-ups on the documents, two processes
//! on one session, unreadable lines and unknown names.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, qa, sql_fixture};

fn ask(dir: &Path, db: &Path, session: &str, message: &str, code: i32) -> Value {
    let out = qa(dir)
        .env("QA_SQL_URL", db)
        .env("QA_SQL_ROW_CAP", "20")
        .args(["ask", message, "--session", session, "--json"])
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

fn first_column(v: &Value) -> Vec<i64> {
    v["rows"].as_array().unwrap().iter().map(|r| r[0].as_i64().unwrap()).collect()
}

#[test]
fn show_me_more_pages_a_sql_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = sql_fixture::sqlite_sample(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let critical: i64 = conn.query_row("SELECT COUNT(*) FROM findings WHERE severity = 'Critical'", [], |r| r.get(0)).unwrap();
    assert!(critical > 40);
    let p1 = ask(dir.path(), &db, "triage", "List the critical findings", 0);
    assert_eq!((p1["session"].as_str(), p1["turn"].as_u64()), (Some("triage"), Some(1)), "{p1}");
    let ids1 = first_column(&p1);
    assert_eq!(ids1.len(), 20);
    let p2 = ask(dir.path(), &db, "triage", "show me more", 0);
    assert_eq!(p2["page"]["offset"], 20, "page 2 starts at page 1's size: {p2}");
    assert_eq!(p2["references_prior_results"], true);
    let ids2 = first_column(&p2);
    assert_eq!(ids2.len(), 20);
    assert!(ids2.iter().all(|id| !ids1.contains(id)), "page 2 repeats a row of page 1");
    assert!(ids2[0] > *ids1.last().unwrap(), "pages follow the statement's order");
    // The session records both turns with their artifacts.
    let show = qa(dir.path()).args(["session", "show", "triage", "--json"]).assert().success().get_output().stdout.clone();
    let show: Value = serde_json::from_slice(&show).unwrap();
    let turns = show["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[1]["artifact"]["offset"], 20);
    assert_eq!(turns[1]["artifact"]["type"], "sql");
    assert_eq!(turns[0]["route"], "sql");
}

#[test]
fn a_clarification_is_answered_or_forced_in_the_next_turn() {
    let dir = tempfile::tempdir().unwrap();
    let db = sql_fixture::sqlite_sample(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let open_findings: i64 = conn.query_row("SELECT COUNT(*) FROM findings WHERE status = 'Open'", [], |r| r.get(0)).unwrap();
    let v = ask(dir.path(), &db, "s2", "How many are open?", 3);
    assert_eq!(v["status"], "needs_clarification", "{v}");
    let v = ask(dir.path(), &db, "s2", "the findings", 0);
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["rows"][0][0].as_i64(), Some(open_findings));

    let v = ask(dir.path(), &db, "s3", "How many are open?", 3);
    let first_choice = v["clarifying_question"].as_str().unwrap().lines().find_map(|l| l.trim().strip_prefix("1. ")).unwrap().to_string();
    let v = ask(dir.path(), &db, "s3", "just run it, don't ask me anything", 0);
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["force_execute"], true);
    assert_eq!(v["best_guess"].as_str(), Some(first_choice.as_str()), "the guess is named: {v}");
}

#[test]
fn a_follow_up_on_the_documents_takes_the_earlier_subject() {
    let dir = common::copy_of_indexed_sample();
    let first = qa(dir.path()).args(["ask", "What does the BME280 measure?", "--session", "d", "--json"]).assert().success().get_output().stdout.clone();
    let first: Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(first["main_goal"], "What does the BME280 measure?");
    let out = qa(dir.path()).args(["ask", "and what about its accuracy?", "--session", "d", "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let goal = v["main_goal"].as_str().unwrap();
    assert!(goal.contains("BME280") && goal.contains("accuracy"), "{goal}");
    assert_eq!(v["turn"], 2);
    // The trace records the session, the turn and the rewrite.
    let traces = std::fs::read_to_string(dir.path().join("logs/query_traces.jsonl")).unwrap();
    let last: Value = serde_json::from_str(traces.lines().last().unwrap()).unwrap();
    assert_eq!(last["conversation"]["session"], "d");
    assert_eq!(last["conversation"]["main_goal"].as_str(), Some(goal));
    assert_eq!(last["user_question"], "and what about its accuracy?");
}

#[test]
fn two_processes_on_one_session_lose_no_turn() {
    let dir = tempfile::tempdir().unwrap();
    let db = sql_fixture::sqlite_sample(dir.path());
    let spawn = |i: usize| {
        let dir = dir.path().to_path_buf();
        let db = db.clone();
        std::thread::spawn(move || {
            for j in 0..4 {
                qa(&dir).env("QA_SQL_URL", &db).args(["ask", "How many findings per department?", "--session", "shared"]).env("QA_TEST_WRITER", format!("{i}.{j}")).assert().success();
            }
        })
    };
    let (a, b) = (spawn(1), spawn(2));
    a.join().unwrap();
    b.join().unwrap();
    let out = qa(dir.path()).args(["session", "show", "shared", "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let mut turns: Vec<u64> = v["turns"].as_array().unwrap().iter().map(|t| t["turn"].as_u64().unwrap()).collect();
    turns.sort_unstable();
    assert_eq!(turns, (1..=8).collect::<Vec<u64>>());
}

#[test]
fn unknown_sessions_and_unreadable_lines() {
    let dir = tempfile::tempdir().unwrap();
    qa(dir.path()).args(["session", "show", "nope"]).assert().code(1).stderr(predicates::str::contains("no session named \"nope\""));
    let db = sql_fixture::sqlite_sample(dir.path());
    ask(dir.path(), &db, "s", "How many findings per department?", 0);
    let file = dir.path().join("sessions/s.jsonl");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"turn\": broken\n");
    std::fs::write(&file, text).unwrap();
    let v = ask(dir.path(), &db, "s", "How many findings per department?", 0);
    assert_eq!(v["turn"], 2);
    qa(dir.path()).args(["session", "show", "s"]).assert().success().stderr(predicates::str::contains("line 2 skipped"));
    let out = qa(dir.path()).args(["session", "list", "--json"]).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["sessions"][0]["turns"], 2);
    qa(dir.path()).args(["session", "clear", "s"]).assert().success();
    qa(dir.path()).args(["session", "show", "s"]).assert().code(1);
}

#[test]
fn show_me_more_pages_an_es_result() {
    let dir = tempfile::tempdir().unwrap();
    let sample = common::repo().join("samples/es/shipments.jsonl");
    qa(dir.path()).args(["es", "index"]).arg(&sample).args(["--name", "shipments"]).assert().success();
    let delayed = std::fs::read_to_string(&sample).unwrap().lines().filter(|l| l.contains("\"status\": \"delayed\"")).count() as u64;
    assert!(delayed > 40, "{delayed}");
    let run = |m: &str| -> Value {
        let out = qa(dir.path()).env("QA_ES", "shipments").args(["ask", m, "--session", "triage", "--json"]).assert().success().get_output().stdout.clone();
        serde_json::from_slice(&out).unwrap()
    };
    let p1 = run("List the delayed shipments");
    assert_eq!(p1["routing"]["target"], "es", "{p1}");
    assert_eq!(p1["total"].as_u64(), Some(delayed));
    let ids = |v: &Value| v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let p2 = run("show me more");
    assert_eq!(p2["page"]["offset"], 20, "{p2}");
    assert_eq!(p2["references_prior_results"], true);
    let (a, b) = (ids(&p1), ids(&p2));
    assert_eq!((a.len(), b.len()), (20, 20));
    assert!(b.iter().all(|x| !a.contains(x)), "page 2 repeats a hit of page 1");
    let pasted = qa(dir.path()).env("QA_ES", "shipments").args(["ask", r#"run this: POST /shipments/_delete_by_query {"query": {"match_all": {}}}"#, "--route", "es"]).assert().code(1).get_output().clone();
    assert!(String::from_utf8_lossy(&pasted.stderr).contains("refused"), "{pasted:?}");
}
