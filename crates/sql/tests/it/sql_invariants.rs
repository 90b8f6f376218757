//! Invariants of the SQL agent, checked with proptest on a real SQLite database: whatever the
//! question and whatever the LLM writes (benign, broken or hostile SQL), nothing reaches the
//! database unless it validated, every statement that runs has LIMIT ≤ the row cap, the loop
//! stops at max_loops, and the data is unchanged afterwards.
//!
//! The LLM here is a test double that replays SQL from a pool: its output is the adversarial
//! input under test, so no model is needed (the wire protocol is covered in sql_cli.rs).

use crate::common;

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use qa_llm::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, LlmRun};
use qa_core::evidence::TokenUsage;
use qa_sql::agent::{Agent, AgentOptions, Outcome};
use qa_sql::db::{self, SqlDatabase};
use qa_sql::{validate, DbSchema, Dialect, ExecLimits, QueryResult, SqlError, SqlUrl};

const POOL: &[&str] = &[
    "SELECT COUNT(*) FROM findings WHERE severity = 'critical'",
    "SELECT severity, COUNT(*) FROM findings GROUP BY severity",
    "SELECT * FROM findings",
    "SELECT nope FROM findings",
    "SELECT COUNT(*) FROM findings f JOIN audits a ON f.id = a.id",
    "DELETE FROM findings",
    "SELECT 1; DROP TABLE findings",
    "UPDATE findings SET status = 'Closed'",
    "WITH x AS (DELETE FROM findings RETURNING *) SELECT * FROM x",
    "SELECT * FROM findings LIMIT 100000",
    "SELECT * FROM sqlite_master",
    "ATTACH DATABASE '/tmp/x.db' AS x",
    "PRAGMA writable_schema = ON",
    "SELECT load_extension('x')",
    "not sql at all",
    "",
];

struct PoolLlm {
    picks: Vec<usize>,
    n: usize,
}

impl Llm for PoolLlm {
    fn provider(&self) -> &'static str {
        "openai"
    }
    fn model_id(&self) -> String {
        "pool".into()
    }
    fn context_length(&self) -> Option<usize> {
        None
    }
    fn count_tokens(&self, text: &str) -> usize {
        text.len() / 4
    }
    fn chat(&mut self, _r: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let sql = POOL[self.picks[self.n % self.picks.len()] % POOL.len()];
        self.n += 1;
        Ok(ChatResponse {
            text: serde_json::json!({ "sql": sql }).to_string(),
            usage: TokenUsage::new(10, 5),
            finish_reason: FinishReason::Stop,
            latency_ms: 0.0,
            prompt_tokens_per_s: None,
            completion_tokens_per_s: None,
            attempts: 1,
        })
    }
}

/// The real database, with every statement it is asked to run recorded.
struct Recording {
    inner: Box<dyn SqlDatabase>,
    log: Arc<Mutex<Vec<String>>>,
}

impl SqlDatabase for Recording {
    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn introspect(&mut self, n: usize) -> Result<DbSchema, SqlError> {
        self.inner.introspect(n)
    }
    fn explain(&mut self, sql: &str) -> Result<String, SqlError> {
        self.log.lock().unwrap().push(format!("EXPLAIN {sql}"));
        self.inner.explain(sql)
    }
    fn query(&mut self, sql: &str, limits: ExecLimits) -> Result<QueryResult, SqlError> {
        self.log.lock().unwrap().push(sql.to_string());
        self.inner.query(sql, limits)
    }
}

const WORDS: &[&str] = &[
    "how", "many", "critical", "findings", "per", "department", "open", "audits", "average", "cost", "by", "category", "in", "2024", "closed",
    "which", "has", "the", "most", "list", "high", "region", "total", "month", "drop", "table", "delete", ";", "'", "--",
];

fn limit_of(sql: &str) -> Option<usize> {
    let upper = sql.to_uppercase();
    let i = upper.rfind("LIMIT ")?;
    upper[i + 6..].split_whitespace().next()?.parse().ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn nothing_unvalidated_runs_and_limits_hold(
        words in proptest::collection::vec(proptest::sample::select(WORDS), 1..10),
        picks in proptest::collection::vec(0usize..64, 1..4),
        cap in 1usize..300,
        max_loops in 1u64..5,
        k in 0usize..4,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = common::sql_fixture::sqlite_sample(dir.path());
        let before = common::sql_fixture::sqlite_checksum(&path);
        let url = SqlUrl::parse(&format!("sqlite://{}", path.display())).unwrap();
        let limits = ExecLimits { row_cap: cap, timeout_ms: 2000 };
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut rec = Recording { inner: db::open(&url, limits).unwrap(), log: log.clone() };
        let mut llm = PoolLlm { picks: picks.clone(), n: 0 };
        let mut run = LlmRun::new(&mut llm);
        // Some runs force low-confidence plans through, so execution is reached either way.
        let opts = AgentOptions { k, max_loops, limits, semantic_schema: None, sample_values: 8, use_llm: true, force: picks[0] % 3 == 0 };
        // Half the questions start like a real one, so plans exist and execution is reached.
        let question = if picks[0] % 2 == 0 { format!("how many findings {}", words.join(" ")) } else { words.join(" ") };
        let result = Agent::new(&mut rec, Some(&mut run), opts).run(&question, None);

        let schema = rec.inner.introspect(0).unwrap();
        if matches!(result.outcome, Outcome::Answered) {
            // The final statement ran, and it is the validated one.
            let final_sql = result.state.str("sql").unwrap().to_string();
            prop_assert!(log.lock().unwrap().iter().any(|s| s == &final_sql));
        }
        for stmt in log.lock().unwrap().iter() {
            let sql = stmt.strip_prefix("EXPLAIN ").unwrap_or(stmt);
            let v = validate::validate(sql, Dialect::Sqlite, Some(&schema), cap);
            prop_assert!(v.ok, "ran without validating: {stmt}: {:?}", v.reasons);
            let n = limit_of(sql);
            prop_assert!(n.is_some_and(|n| n <= cap), "LIMIT missing or above {cap}: {sql}");
        }
        prop_assert!(result.state.count("loop_count") <= max_loops);
        if matches!(result.outcome, Outcome::Answered) {
            prop_assert!(result.state.bool("validation_ok"));
            prop_assert!(result.result.as_ref().is_some_and(|r| r.rows.len() <= cap));
        } else {
            // No answer: the final query never ran.
            prop_assert!(result.state.get("exec_rows").is_none());
        }
        drop(rec);
        prop_assert_eq!(common::sql_fixture::sqlite_checksum(&path), before);
    }
}
