//! `qa sql` end to end on real databases: SQLite files built from samples/sql/audit.sql, and a
//! real PostgreSQL server (the throwaway cluster scripts/test.sh starts; QA_TEST_PG_URL). The
//! deterministic generator and the scripted loopback LLM (OpenAI wire protocol) both write SQL.

use crate::common;

use std::path::Path;

use common::llm_server::use_scripted_llm as with_llm;
use common::llm_server::sql_llm;
use common::sql_fixture;
use common::qa;
use serde_json::Value;

/// One database to run a scenario on: the URL for `--db` and env for the password.
struct Engine {
    name: &'static str,
    url: String,
    password: Option<String>,
}

fn engines(dir: &Path) -> Vec<Engine> {
    #[cfg_attr(not(feature = "postgres"), allow(unused_mut))] // nothing more is pushed without it
    let mut out = vec![Engine { name: "sqlite", url: format!("sqlite://{}", sql_fixture::sqlite_sample(dir).display()), password: None }];
    #[cfg(feature = "postgres")]
    if let Some((url, password)) = sql_fixture::pg_sample() {
        out.push(Engine { name: "postgres", url, password: Some(password) });
    }
    out
}

fn qa_sql(dir: &Path, e: &Engine) -> assert_cmd::Command {
    let mut cmd = qa(dir);
    cmd.env("QA_SQL_URL", &e.url);
    if let Some(p) = &e.password {
        cmd.env("QA_SQL_PASSWORD", p);
    }
    cmd
}

fn json_out(cmd: &mut assert_cmd::Command, code: i32) -> Value {
    let out = cmd.assert().code(code).get_output().clone();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn last_trace(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("logs/query_traces.jsonl")).expect("trace file");
    serde_json::from_str(text.lines().last().expect("a trace line")).expect("trace JSON")
}


fn sum_column(v: &Value, col: usize) -> f64 {
    v["rows"].as_array().unwrap().iter().map(|r| r[col].as_f64().unwrap_or(0.0)).sum()
}

#[test]
fn deterministic_answer_is_correct_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = sql_fixture::sqlite_sample(dir.path());
    let conn = rusqlite::Connection::open(&sqlite).unwrap();
    let expected: i64 = conn.query_row("SELECT COUNT(*) FROM findings WHERE severity = 'Critical'", [], |r| r.get(0)).unwrap();
    assert!(expected > 0);
    let mut answers = Vec::new();
    for e in engines(dir.path()) {
        let v = json_out(qa_sql(dir.path(), &e).args(["sql", "How many critical findings per department?", "--json"]), 0);
        assert_eq!(v["status"], "answered", "{}: {v}", e.name);
        // The departments by their name (and key), then the count.
        let cols: Vec<&str> = v["columns"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!((cols.first().copied(), cols.last().copied()), (Some("name"), Some("finding_count")), "{}: {v}", e.name);
        assert_eq!(sum_column(&v, cols.len() - 1) as i64, expected, "{}: per-department counts add up to the total", e.name);
        let sql = v["sql"].as_str().unwrap();
        assert!(sql.contains("findings.audit_id = audits.id") && sql.contains("LIMIT"), "{sql}");
        assert!(v["explain"].as_str().is_some_and(|p| !p.is_empty()), "EXPLAIN ran first: {v}");
        assert!(v["viz_spec"]["$schema"].as_str().is_some_and(|s| s.contains("vega-lite")), "a category aggregate gets a chart spec");
        answers.push(v["rows"].clone());
    }
    // Both engines hold the same data: the same question gives the same rows.
    if answers.len() == 2 {
        assert_eq!(answers[0], answers[1]);
    }
}

#[test]
fn text_output_has_table_chart_sql_and_viz_file() {
    let dir = tempfile::tempdir().unwrap();
    let e = &engines(dir.path())[0];
    let viz = dir.path().join("chart.json");
    let out = qa_sql(dir.path(), e).args(["sql", "average cost of urgent issues by category", "--semantic"]).arg(common::repo().join("samples/sql/audit_semantic.toml")).arg("--viz").arg(&viz).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("avg_estimated_cost"), "{text}");
    assert!(text.contains("█"), "bar chart: {text}");
    assert!(text.contains("SQL: SELECT findings.category, AVG(findings.estimated_cost) AS avg_estimated_cost"), "{text}");
    assert!(text.contains("GROUP BY findings.category"), "{text}");
    assert!(text.contains("findings.severity = 'Critical'"), "the alias 'urgent' became the filter: {text}");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(&viz).unwrap()).unwrap();
    assert_eq!(spec["mark"]["type"].as_str().or(spec["mark"].as_str()), Some("bar"));
}

#[test]
fn trace_records_contract_steps_and_state() {
    let dir = tempfile::tempdir().unwrap();
    let e = &engines(dir.path())[0];
    qa_sql(dir.path(), e).args(["sql", "How many open findings were reported in 2024?"]).assert().success();
    let t = last_trace(dir.path());
    assert_eq!(t["route"], "sql");
    let sql = &t["internal"]["sql"];
    let stages: Vec<&str> = sql["steps"].as_array().unwrap().iter().map(|s| s["stage"].as_str().unwrap()).collect();
    assert_eq!(stages, ["input", "schema", "plan", "generate", "validate", "execute", "present"]);
    assert!(sql["contract"].as_array().unwrap().iter().any(|c| c["key"] == "sql_candidates" && c["merge"] == "append"));
    assert!(sql["contract"].as_array().unwrap().iter().any(|c| c["key"] == "loop_count" && c["merge"] == "increment"));
    assert_eq!(sql["state"]["validation_ok"], true);
    assert_eq!(sql["state"]["loop_count"], 1);
    assert!(sql["metrics"]["latency_ms"]["execute"].as_f64().is_some());
    // Every statement that reached the database carries a LIMIT within the cap.
    for s in sql["executed"].as_array().unwrap() {
        let s = s.as_str().unwrap();
        let n: usize = s.rsplit("LIMIT ").next().unwrap().trim().parse().unwrap_or_else(|_| panic!("no LIMIT: {s}"));
        assert!(n <= 1000, "within the default row cap: {s}");
    }
    // `qa traces show` renders the SQL route's stages, candidates and final statement.
    let id = t["trace_id"].as_str().unwrap();
    let out = qa(dir.path()).args(["traces", "show", id]).assert().success().get_output().stdout.clone();
    let shown = String::from_utf8(out).unwrap();
    assert!(shown.contains("Stages: input") && shown.contains("→ execute"), "{shown}");
    assert!(shown.contains("[valid] plan score") && shown.contains("SQL: SELECT COUNT(*)"), "{shown}");
    // The offline analyser reads SQL traces too.
    let out = qa(dir.path()).args(["traces", "stats", "--json"]).assert().success().get_output().stdout.clone();
    let stats: Value = serde_json::from_slice(&out).unwrap();
    assert!(stats.to_string().contains("\"sql\""), "route mix lists sql: {stats}");
}

#[test]
fn clarification_checkpoints_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = sql_fixture::sqlite_sample(dir.path());
    let conn = rusqlite::Connection::open(&sqlite).unwrap();
    let open_findings: i64 = conn.query_row("SELECT COUNT(*) FROM findings WHERE status = 'Open'", [], |r| r.get(0)).unwrap();
    let open_audits: i64 = conn.query_row("SELECT COUNT(*) FROM audits WHERE status = 'Open'", [], |r| r.get(0)).unwrap();
    assert_ne!(open_findings, open_audits);
    for e in engines(dir.path()) {
        let v = json_out(qa_sql(dir.path(), &e).args(["sql", "How many are open?", "--json"]), 3);
        assert_eq!(v["status"], "needs_clarification", "{v}");
        let q = v["clarifying_question"].as_str().unwrap();
        assert!(q.contains("1. ") && q.contains("audits") && q.contains("findings"), "{q}");
        let id = v["checkpoint"].as_str().unwrap().to_string();
        assert!(dir.path().join(format!("sql_checkpoints/{id}.json")).is_file());
        // Nothing ran against the data before the answer.
        assert!(last_trace(dir.path())["internal"]["sql"]["executed"].as_array().unwrap().is_empty());

        let v = json_out(qa_sql(dir.path(), &e).args(["sql", "--resume", &id[..8], "--answer", "findings", "--json"]), 0);
        assert_eq!(v["status"], "answered", "{v}");
        assert_eq!(v["rows"][0][0].as_i64(), Some(open_findings), "{}: {v}", e.name);
        assert!(!dir.path().join(format!("sql_checkpoints/{id}.json")).exists(), "checkpoint removed after the run");
        let t = last_trace(dir.path());
        assert_eq!(t["internal"]["sql"]["state"]["clarifications"][0]["answer"], "findings");

        // An option number works too.
        let v = json_out(qa_sql(dir.path(), &e).args(["sql", "How many are open?", "--json"]), 3);
        let id = v["checkpoint"].as_str().unwrap().to_string();
        let n = if v["clarifying_question"].as_str().unwrap().contains("1. audits") { "1" } else { "2" };
        let v = json_out(qa_sql(dir.path(), &e).args(["sql", "--resume", &id, "--answer", n, "--json"]), 0);
        assert_eq!(v["rows"][0][0].as_i64(), Some(open_audits), "{}: {v}", e.name);
    }
    qa(dir.path()).args(["sql", "--resume", "deadbeef", "--answer", "x", "--db", "x.db"]).assert().code(1).stderr(predicates::str::contains("no checkpoint"));
}

#[test]
fn llm_candidate_with_wrong_casing_is_fixed_by_the_value_probe() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = sql_fixture::sqlite_sample(dir.path());
    let conn = rusqlite::Connection::open(&sqlite).unwrap();
    let (name, expected): (String, i64) = conn
        .query_row("SELECT a.full_name, COUNT(*) FROM audits JOIN auditors a ON audits.lead_auditor_id = a.id GROUP BY a.full_name ORDER BY 2 DESC LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let lower = name.to_lowercase();
    // "zorblat" is a word the planner cannot place, so its own plan asks and the model's
    // statement (which names it) is the one that runs.
    let question = format!("How many audits did {lower} lead as zorblat?");
    let sql: &'static str = Box::leak(format!("SELECT COUNT(*) AS zorblat FROM audits JOIN auditors ON audits.lead_auditor_id = auditors.id WHERE auditors.full_name = '{lower}'").into_boxed_str());
    for e in engines(dir.path()) {
        let server = sql_llm(sql);
        let v = json_out(with_llm(qa_sql(dir.path(), &e), &server).args(["sql", &question, "--k", "1", "--json"]), 0);
        assert_eq!(v["status"], "answered", "{v}");
        assert_eq!(v["rows"][0][0].as_i64(), Some(expected), "{}: {v}", e.name);
        let final_sql = v["sql"].as_str().unwrap().to_uppercase();
        assert!(final_sql.contains(if e.name == "postgres" { "ILIKE" } else { "NOCASE" }), "{final_sql}");
        let t = last_trace(dir.path());
        let st = &t["internal"]["sql"]["state"];
        assert_eq!(st["loop_count"], 2, "one repair iteration: {st}");
        assert!(t["internal"]["llm"]["calls"].as_array().unwrap().len() == 1);
        assert_eq!(server.requests().len(), 1);
        // With room for one iteration only, the loop stops with a helpful error instead.
        let out = with_llm(qa_sql(dir.path(), &e), &server).args(["sql", &question, "--k", "1", "--max-loops", "1"]).assert().code(1).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("after 1 attempts") && err.contains("hint:"), "{err}");
    }
}

#[test]
fn llm_join_on_the_wrong_key_is_replaced_by_the_patched_plan() {
    let dir = tempfile::tempdir().unwrap();
    let e = &engines(dir.path())[0];
    let server = sql_llm("SELECT COUNT(*) AS n FROM findings JOIN audits ON findings.id = audits.id WHERE audits.status = 'Closed' AND findings.severity = 'High'");
    let v = json_out(with_llm(qa_sql(dir.path(), e), &server).args(["sql", "How many high findings in closed audits?", "--k", "1", "--json"]), 0);
    assert_eq!(v["status"], "answered", "{v}");
    let sql = v["sql"].as_str().unwrap();
    assert!(sql.contains("findings.audit_id = audits.id"), "{sql}");
    let t = last_trace(dir.path());
    let steps = t["internal"]["sql"]["state"]["val_reasons"].to_string();
    assert!(steps.contains("join not along a foreign key"), "{steps}");
}

#[test]
fn hostile_llm_output_never_executes_and_the_data_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = [
        "DELETE FROM findings",
        "SELECT 1; DROP TABLE findings",
        "COMMIT; BEGIN READ WRITE; UPDATE findings SET status = 'Closed'; COMMIT",
        "WITH gone AS (DELETE FROM findings RETURNING *) SELECT COUNT(*) FROM gone",
        "SELECT * INTO stolen FROM findings",
    ];
    for e in engines(dir.path()) {
        let before = sql_fixture::checksum(&e.url, e.password.as_deref());
        for h in hostile {
            let server = sql_llm(Box::leak(h.to_string().into_boxed_str()));
            // With a plan the deterministic candidate answers; the hostile ones are refused.
            let v = json_out(with_llm(qa_sql(dir.path(), &e), &server).args(["sql", "How many critical findings?", "--k", "2", "--json"]), 0);
            assert_eq!(v["status"], "answered");
            let t = last_trace(dir.path());
            for s in t["internal"]["sql"]["executed"].as_array().unwrap() {
                let s = s.as_str().unwrap().to_uppercase();
                assert!(!s.contains("DELETE") && !s.contains("DROP") && !s.contains("UPDATE") && !s.contains("INTO"), "{s}");
            }
            let cands = t["internal"]["sql"]["state"]["sql_candidates"].as_array().unwrap();
            assert!(cands.iter().any(|c| c["source"] == "llm#1" && c["valid"] == false), "the LLM candidate was judged invalid: {cands:?}");
        }
        assert_eq!(sql_fixture::checksum(&e.url, e.password.as_deref()), before, "{}: data unchanged", e.name);
    }
}

#[test]
fn sql_check_judges_statements() {
    let dir = tempfile::tempdir().unwrap();
    for e in engines(dir.path()) {
        qa_sql(dir.path(), &e).args(["sql", "check", "DELETE FROM findings"]).assert().code(1).stdout(predicates::str::contains("rejected"));
        qa_sql(dir.path(), &e).args(["sql", "check", "COMMIT; BEGIN READ WRITE; UPDATE findings SET status = 'Closed'"]).assert().code(1);
        qa_sql(dir.path(), &e).args(["sql", "check", "SELECT nope FROM findings"]).assert().code(1).stdout(predicates::str::contains("nope"));
        let v = json_out(qa_sql(dir.path(), &e).args(["sql", "check", "SELECT severity, COUNT(*) FROM findings GROUP BY severity LIMIT 100000", "--json"]), 0);
        assert_eq!(v["verdict"]["ok"], true, "{v}");
        assert!(v["verdict"]["sql"].as_str().unwrap().ends_with("LIMIT 1000"), "{v}");
        assert_eq!(v["schema_checked"], true);
    }
    // Without a database: dialect only, no schema.
    qa(dir.path()).args(["sql", "check", "SELECT 1", "--dialect", "postgres"]).assert().success().stdout(predicates::str::contains("no schema"));
}

#[test]
fn schema_command_and_bad_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let e = &engines(dir.path())[0];
    qa_sql(dir.path(), e).args(["sql", "schema"]).assert().success().stdout(predicates::str::contains("TABLE findings").and(predicates::str::contains("'Critical'")));
    // No database configured.
    qa(dir.path()).args(["sql", "How many findings?"]).assert().code(1).stderr(predicates::str::contains("--db"));
    // A missing SQLite file is not created.
    let missing = dir.path().join("nope.db");
    qa(dir.path()).args(["sql", "How many findings?", "--db"]).arg(&missing).assert().code(1).stderr(predicates::str::contains("nope.db"));
    assert!(!missing.exists());
    // Dialect mismatch.
    qa_sql(dir.path(), e).args(["sql", "How many findings?", "--dialect", "postgres"]).assert().code(1).stderr(predicates::str::contains("does not match"));
    // A Postgres password never shows, even in a connection error.
    let out = qa(dir.path()).args(["sql", "How many findings?", "--db", "postgres://qa:s3cret-pw@127.0.0.1:1/nodb", "--timeout-ms", "500"]).assert().code(1).get_output().clone();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!all.contains("s3cret-pw"), "{all}");
    assert!(all.contains("127.0.0.1"), "{all}");
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn ask_routes_database_questions_to_sql_and_others_to_documents() {
    let e_dir = tempfile::tempdir().unwrap();
    let e = &engines(e_dir.path())[0];
    let data = common::indexed_sample();
    let mut cmd = qa(data);
    cmd.env("QA_SQL_URL", &e.url);
    let v: Value = serde_json::from_slice(&cmd.args(["How many critical findings per department?", "--json"]).assert().success().get_output().stdout).unwrap();
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["routing"]["target"], "sql", "{v}");
    assert!(v["routing"]["reasons"].to_string().contains("names findings"), "{v}");
    assert_eq!(v["metadata"]["query_type"], "simple", "{v}");
    let mut cmd = qa(data);
    cmd.env("QA_SQL_URL", &e.url);
    let v: Value = serde_json::from_slice(&cmd.args(["How does deep sleep relate to battery life?", "--json"]).assert().success().get_output().stdout).unwrap();
    assert!(v["answer"]["text"].as_str().is_some(), "answered from the documents: {v}");
    assert_ne!(v["trace"]["route"], "sql");
}

/// "Which X has the most Y?" when several X have exactly as many: the answer keeps its one row
/// and a warning names the rows that tie with it; when one X leads, no warning.
#[test]
fn a_tie_for_first_place_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ties.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE crews (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
         CREATE TABLE repairs (id INTEGER PRIMARY KEY, crew_id INTEGER NOT NULL REFERENCES crews(id), kind TEXT NOT NULL);
         INSERT INTO crews VALUES (1, 'North'), (2, 'South'), (3, 'East');
         INSERT INTO repairs (crew_id, kind) VALUES (1, 'pipe'), (1, 'pipe'), (2, 'pipe'), (2, 'pipe'), (3, 'pipe'), (3, 'valve'), (3, 'valve');",
    )
    .unwrap();
    drop(conn);
    let url = format!("sqlite://{}", db.display());
    let ask = |q: &str| json_out(qa(dir.path()).args(["--llm", "none", "sql", q, "--db", &url, "--json"]), 0);
    let warned = |v: &Value| v["warnings"].as_array().unwrap().iter().filter_map(Value::as_str).find(|w| w.contains("tie")).map(str::to_string);
    let v = ask("Which crew has the most pipe repairs?");
    assert_eq!(v["status"], "answered", "{v}");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    let shown = rows[0][0].as_str().unwrap();
    let other = if shown == "North" { "South" } else { "North" };
    assert!(["North", "South"].contains(&shown), "{v}");
    let w = warned(&v).unwrap_or_else(|| panic!("no tie warning: {v}"));
    assert!(w.contains("1 other row ties for first place") && w.contains(other) && w.contains("top 2"), "{w}");
    let v = ask("Which crew has the most repairs?");
    let names: Vec<&str> = v["rows"].as_array().unwrap().iter().filter_map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["East"], "{v}");
    assert_eq!(warned(&v), None, "{v}");
}

/// "Which certified crews are in Leiden?": a list no row meets under
/// several conditions asks before answering "none" (exit 3); "1" accepts the empty answer and
/// `--force` answers at once. A list of one condition with no row is answered.
#[test]
fn an_empty_list_under_several_conditions_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crews.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE crews (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL, is_certified INTEGER NOT NULL, members INTEGER NOT NULL);
         INSERT INTO crews VALUES (1, 'North', 'Delft', 1, 4), (2, 'South', 'Leiden', 0, 6), (3, 'East', 'Delft', 0, 5);",
    )
    .unwrap();
    drop(conn);
    let url = format!("sqlite://{}", db.display());
    let run = |args: &[&str], code: i32| json_out(qa(dir.path()).args(["--llm", "none", "sql"]).args(args).args(["--db", &url, "--json"]), code);
    let v = run(&["Which certified crews are in Leiden?"], 3);
    assert_eq!(v["status"], "needs_clarification", "{v}");
    assert!(v["clarifying_question"].as_str().unwrap().contains("No row matches"), "{v}");
    let id = v["checkpoint"].as_str().unwrap().to_string();
    let v = run(&["--resume", &id, "--answer", "1"], 0);
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["rows"].as_array().unwrap().len(), 0, "{v}");
    let v = run(&["Which certified crews are in Leiden?", "--force"], 0);
    assert_eq!(v["rows"].as_array().unwrap().len(), 0, "{v}");
    // One condition that no row meets: "none" is the answer.
    let v = run(&["Which crews have more than 20 members?"], 0);
    assert_eq!(v["status"], "answered", "{v}");
    assert_eq!(v["rows"].as_array().unwrap().len(), 0, "{v}");
}
