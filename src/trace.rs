//! Query traces: the record contract, an append-only JSONL writer and a tolerant reader.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{IoContext, Result};
use crate::graph::evidence::Grounded;
use crate::graph::Subgraph;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceChunk {
    pub chunk_id: String,
    pub source_file: String,
    pub score: f32,
    pub metadata: serde_json::Value,
    pub text: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceGraph {
    pub grounded_entities: Vec<Grounded>,
    /// LLM-generated Cypher (none without an LLM).
    pub generated_cypher: Option<String>,
    pub validation: Option<serde_json::Value>,
    pub sanitized_cypher: Option<String>,
    /// Deterministic strategies that produced evidence (all of them are fallbacks in the
    /// no-LLM path): direct_edge, co_mention, shortest_path, neighbourhood, images.
    pub fallback_used: Vec<String>,
}

pub use crate::llm::TokenUsage;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Latency {
    pub rag: f64,
    pub graph: f64,
    /// Answer synthesis, LLM call included.
    pub synthesis: f64,
    pub total: f64,
    /// Time spent in LLM calls (subqueries and synthesis), part of the stages above.
    pub llm_calls: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Models {
    pub embedding: String,
    pub llm: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Internal {
    pub rag: serde_json::Value,
    pub graph: serde_json::Value,
    /// LLM provider, model, every call (purpose, usage, latency, outcome), the synthesis prompt's
    /// contents; null without an LLM.
    pub llm: serde_json::Value,
    /// The SQL route: state contract, every stage's update, the final state, executed
    /// statements and per-stage latency; null on other routes.
    pub sql: serde_json::Value,
}

/// One line of `logs/query_traces.jsonl`. Every field has a default so traces written by older
/// versions (missing fields) still load.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TraceRecord {
    pub trace_id: String,
    pub timestamp: String,
    pub user_question: String,
    pub route: String,
    pub rewritten_or_decomposed_queries: Vec<String>,
    pub retrieved_chunks: Vec<TraceChunk>,
    pub retrieved_graph_subgraph: Subgraph,
    pub graph: TraceGraph,
    pub final_answer: String,
    pub token_usage: Option<TokenUsage>,
    pub latency_ms: Latency,
    pub models: Models,
    pub error: Option<String>,
    /// The grounding guard's verdict on an LLM answer: per-sentence support scores and the action
    /// taken (null when no LLM answer was produced).
    pub answer_grounding: Option<serde_json::Value>,
    pub internal: Internal,
}

/// A fresh trace id: time, process and a counter, hashed to 16 hex digits.
pub fn new_trace_id(question: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let basis = format!("{nanos}:{}:{n}:{question}", std::process::id());
    crate::chunk::sha256_hex(basis.as_bytes())[..16].to_string()
}

/// Append one record as one line. The line is written with a single `write_all` on a file
/// opened in append mode, so concurrent writers do not interleave within a line.
pub fn append(path: &Path, record: &TraceRecord) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ctx("creating log folder", dir)?;
    }
    let mut line = serde_json::to_vec(record).map_err(|e| crate::error::QaError::Data { path: path.into(), reason: e.to_string() })?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).ctx("opening trace file", path)?;
    f.write_all(&line).ctx("appending trace", path)?;
    Ok(())
}

/// Stream records from a trace file; malformed lines are counted in `malformed`, not fatal.
pub struct TraceReader<R: BufRead> {
    lines: std::io::Lines<R>,
    pub malformed: usize,
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    pub fn open(path: &Path) -> Result<Self> {
        let f = std::fs::File::open(path).ctx("opening trace file", path)?;
        Ok(TraceReader { lines: std::io::BufReader::new(f).lines(), malformed: 0 })
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = TraceRecord;
    fn next(&mut self) -> Option<TraceRecord> {
        loop {
            let line = match self.lines.next()? {
                Ok(l) => l,
                Err(_) => {
                    self.malformed += 1;
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(&line) {
                Ok(r) => return Some(r),
                Err(_) => self.malformed += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_and_read_back_skipping_malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("logs/t.jsonl");
        let rec = TraceRecord { trace_id: "a".into(), user_question: "q".into(), route: "documents".into(), ..Default::default() };
        append(&p, &rec).unwrap();
        std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"{\"trace_id\": \"trunc").unwrap();
        std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"\n{\"trace_id\":\"old\"}\n").unwrap();
        let mut r = TraceReader::open(&p).unwrap();
        let all: Vec<TraceRecord> = r.by_ref().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0], rec);
        assert_eq!(all[1].trace_id, "old");
        assert_eq!(r.malformed, 1);
    }

    #[test]
    fn trace_ids_are_unique() {
        assert_ne!(new_trace_id("q"), new_trace_id("q"));
    }
}
