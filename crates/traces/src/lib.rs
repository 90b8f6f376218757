//! Offline analysis of `logs/query_traces.jsonl` (`qa traces ...`): a streaming reader over a
//! lightweight view of each record, the shared filters, and one module per analysis.
//!
//! Records are never held whole: each line is parsed into [`TraceLite`] (only the fields the
//! analyses use; `text`, `metadata`, prompts and subgraph properties are skipped by the parser),
//! handed to a callback and dropped. Every field defaults (also when `null`), so traces written by
//! older versions load; lines that are not a JSON object (malformed, truncated) are counted and
//! skipped, never fatal.

pub mod diff;
mod error;
pub mod export;
pub mod report;
pub mod list;
pub mod show;
pub mod stats;
mod svg;

use std::io::BufRead;
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use serde::de::IgnoredAny;
use serde::Deserialize;

pub use error::{BadDate, TracesError};
use qa_core::trace::lenient;
use qa_core::trace::{Latency, Route, Status, TokenUsage};

/// `retrieved_chunks[]`: only the id (for `qa traces diff`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteChunk {
    #[serde(deserialize_with = "lenient::value")]
    pub chunk_id: String,
}

/// `retrieved_graph_subgraph`: nodes and edges are only counted, never parsed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteSubgraph {
    #[serde(deserialize_with = "lenient::list")]
    pub nodes: Vec<IgnoredAny>,
    #[serde(deserialize_with = "lenient::list")]
    pub edges: Vec<IgnoredAny>,
}

/// `graph.validation`: the verdict on the generated Cypher query.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteValidation {
    #[serde(deserialize_with = "lenient::value")]
    pub ok: Option<bool>,
}

/// `graph`: the fallback strategies used and the Cypher validation.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteGraph {
    #[serde(deserialize_with = "lenient::list_of")]
    pub fallback_used: Vec<String>,
    #[serde(deserialize_with = "lenient::object_opt")]
    pub validation: Option<LiteValidation>,
}

/// `internal.llm.provider`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteLlm {
    #[serde(deserialize_with = "lenient::value")]
    pub provider: Option<String>,
}

/// `internal.sql.outcome.status`: the status of records written before `status` existed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteSql {
    #[serde(deserialize_with = "lenient::object")]
    pub outcome: LiteOutcome,
}

/// `internal.rag`: only the focus check's score and threshold.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteRag {
    #[serde(deserialize_with = "lenient::object_opt")]
    pub focus: Option<LiteFocus>,
}

/// `internal.rag.focus`: the evidence score an answer reached and the threshold it was held to.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteFocus {
    #[serde(deserialize_with = "lenient::value")]
    pub evidence: Option<f64>,
    #[serde(deserialize_with = "lenient::value")]
    pub threshold: Option<f64>,
    /// `check.value_missing`: present when the passages lacked the value the question asks for.
    #[serde(deserialize_with = "lenient::object_opt")]
    pub check: Option<LiteCheck>,
}

/// `internal.rag.focus.check`: only whether a value asked for was missing.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteCheck {
    #[serde(deserialize_with = "lenient::value")]
    pub value_missing: Option<serde_json::Value>,
}

/// `internal.sql.outcome`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteOutcome {
    #[serde(deserialize_with = "lenient::value")]
    pub status: Option<String>,
}

/// `internal`: the per-route details the flags read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteInternal {
    #[serde(deserialize_with = "lenient::object_opt")]
    pub rag: Option<LiteRag>,
    #[serde(deserialize_with = "lenient::object_opt")]
    pub llm: Option<LiteLlm>,
    #[serde(deserialize_with = "lenient::object_opt")]
    pub sql: Option<LiteSql>,
}

/// The lightweight view of one [`qa_core::trace::TraceRecord`] line: the same field names, types
/// and per-field tolerance ([`lenient`]), only the fields the analyses read. Absent, `null` and
/// unreadable fields hold their defaults.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TraceLite {
    /// The record's id (`qa traces show` takes a prefix of it).
    #[serde(deserialize_with = "lenient::value")]
    pub trace_id: String,
    /// When the question was asked, as written (RFC 3339; one that does not parse never matches
    /// a date filter).
    #[serde(deserialize_with = "lenient::value")]
    pub timestamp: String,
    /// The question as the user put it.
    #[serde(deserialize_with = "lenient::value")]
    pub user_question: String,
    /// The route the question took.
    #[serde(deserialize_with = "lenient::value")]
    pub route: Route,
    #[serde(deserialize_with = "lenient::value")]
    pub(crate) status: Option<Status>,
    #[serde(deserialize_with = "lenient::list_of_objects")]
    pub(crate) retrieved_chunks: Vec<LiteChunk>,
    #[serde(deserialize_with = "lenient::object")]
    pub(crate) retrieved_graph_subgraph: LiteSubgraph,
    #[serde(deserialize_with = "lenient::object")]
    pub(crate) graph: LiteGraph,
    #[serde(deserialize_with = "lenient::value")]
    pub(crate) final_answer: String,
    #[serde(deserialize_with = "lenient::value")]
    pub(crate) token_usage: Option<TokenUsage>,
    /// Per-stage latencies in milliseconds.
    #[serde(deserialize_with = "lenient::object")]
    pub latency_ms: Latency,
    #[serde(deserialize_with = "lenient::value")]
    pub(crate) error: Option<String>,
    #[serde(deserialize_with = "lenient::object")]
    pub(crate) internal: LiteInternal,
    #[serde(deserialize_with = "lenient::object_opt")]
    pub(crate) routing: Option<LiteRouting>,
    #[serde(deserialize_with = "lenient::object_opt")]
    pub(crate) conversation: Option<LiteConversation>,
}

/// `conversation`: the session turn and how its message was restated.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteConversation {
    #[serde(deserialize_with = "lenient::value")]
    pub reiterated_by: Option<String>,
    #[serde(deserialize_with = "lenient::value")]
    pub llm_error: Option<String>,
}

/// `routing`: the smart router's query type (absent in traces of direct commands).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LiteRouting {
    #[serde(deserialize_with = "lenient::value")]
    pub query_type: String,
}

impl TraceLite {
    /// Number of retrieved text chunks.
    pub fn chunks(&self) -> usize {
        self.retrieved_chunks.len()
    }
    /// Number of nodes in the retrieved graph evidence.
    pub fn graph_nodes(&self) -> usize {
        self.retrieved_graph_subgraph.nodes.len()
    }
    /// The graph evidence used at least one fallback strategy.
    pub(crate) fn fallback_used(&self) -> bool {
        !self.graph.fallback_used.is_empty()
    }
    /// `graph.validation.ok == false`; `None` when no generated Cypher was validated.
    pub(crate) fn cypher_ok(&self) -> Option<bool> {
        self.graph.validation.as_ref().and_then(|v| v.ok)
    }
    /// The error mentions the LLM, or the LLM provider is recorded as `"failed"` (a degraded,
    /// extractive answer).
    pub(crate) fn llm_failed(&self) -> bool {
        let in_error = self.error.as_deref().is_some_and(|e| e.to_ascii_lowercase().contains("llm"));
        let provider_failed = self.internal.llm.as_ref().and_then(|l| l.provider.as_deref()) == Some("failed");
        in_error || provider_failed
    }
    /// How the question ended: the recorded status, or for older SQL records the agent's outcome.
    /// How the run ended (`answered`, `needs_clarification`, `error`), when recorded (older SQL
    /// records: from the agent's outcome).
    pub fn status(&self) -> Option<Status> {
        self.status.or_else(|| self.internal.sql.as_ref().and_then(|s| s.outcome.status.as_deref()).and_then(Status::from_sql_outcome))
    }
    /// A question was put back to the user, on any route.
    pub(crate) fn clarification(&self) -> bool {
        self.status() == Some(Status::NeedsClarification)
    }
    /// Anything went wrong: an error (or status `error`), a refused generated Cypher query, or a
    /// failed LLM.
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.status() == Some(Status::Error) || self.cypher_ok() == Some(false) || self.llm_failed()
    }
    /// The timestamp in UTC; `None` when it is not RFC 3339.
    pub(crate) fn time(&self) -> Option<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(&self.timestamp).ok().map(|d| d.with_timezone(&Utc))
    }
}

/// `--since`, `--until` and `--route`; the default keeps every trace.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    since: Option<DateTime<Utc>>,
    /// Exclusive upper bound (a date means "through the end of that day").
    until: Option<DateTime<Utc>>,
    route: Option<String>,
}

/// A date bound: `YYYY-MM-DD` (UTC midnight; for an upper bound, the next midnight) or RFC 3339.
fn parse_bound(s: &str, upper: bool) -> Result<DateTime<Utc>, BadDate> {
    if let Ok(d) = DateTime::parse_from_rfc3339(s.trim()) {
        let d = d.with_timezone(&Utc);
        return Ok(if upper { d + chrono::Duration::nanoseconds(1) } else { d });
    }
    if let Ok(d) = NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d") {
        let d = if upper { d.succ_opt().unwrap_or(d) } else { d };
        return Ok(d.and_hms_opt(0, 0, 0).expect("midnight").and_utc());
    }
    Err(BadDate(s.to_string()))
}

impl Filter {
    /// Traces at or after `since`, up to `until` (a date includes that whole day) and on `route`;
    /// dates are `YYYY-MM-DD` (UTC) or RFC 3339.
    pub fn new(since: Option<&str>, until: Option<&str>, route: Option<&str>) -> Result<Self, TracesError> {
        let since = since.map(|s| parse_bound(s, false)).transpose().map_err(TracesError::bound("--since"))?;
        let until = until.map(|s| parse_bound(s, true)).transpose().map_err(TracesError::bound("--until"))?;
        Ok(Filter { since, until, route: route.map(str::to_string) })
    }

    /// The trace passes every filter. Traces whose timestamp does not parse never match a date
    /// filter.
    pub(crate) fn matches(&self, t: &TraceLite) -> bool {
        if self.route.as_deref().is_some_and(|r| r != t.route.as_str()) {
            return false;
        }
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        let Some(ts) = t.time() else { return false };
        self.since.is_none_or(|s| ts >= s) && self.until.is_none_or(|u| ts < u)
    }
}

/// What a scan saw.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct ScanCounts {
    /// Non-blank lines read.
    pub lines: usize,
    /// Lines skipped because they are not a trace record (malformed or truncated JSON).
    pub malformed: usize,
    /// Records that passed the filters.
    pub matched: usize,
    /// Records kept although a field had an unexpected shape (that field read as its default).
    pub defaulted: usize,
}

/// Stream the records of a trace file that pass `filter` through `f`, in file order.
pub fn scan(path: &Path, filter: &Filter, f: impl FnMut(&TraceLite)) -> Result<ScanCounts, TracesError> {
    let file = std::fs::File::open(path).map_err(|source| TracesError::Open { path: path.to_path_buf(), source })?;
    scan_reader(std::io::BufReader::with_capacity(1 << 16, file), filter, f).map_err(|source| TracesError::Read { path: path.to_path_buf(), source })
}

/// [`scan`] over any line reader; only reading can fail.
fn scan_reader<R: BufRead>(mut r: R, filter: &Filter, mut f: impl FnMut(&TraceLite)) -> std::io::Result<ScanCounts> {
    let mut counts = ScanCounts::default();
    let mut buf = Vec::with_capacity(8192);
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        counts.lines += 1;
        let before = lenient::defaulted();
        match qa_core::trace::parse_line::<TraceLite>(&buf) {
            Some(t) => {
                counts.defaulted += usize::from(lenient::defaulted() != before);
                if filter.matches(&t) {
                    counts.matched += 1;
                    f(&t);
                }
            }
            None => counts.malformed += 1,
        }
    }
    Ok(counts)
}

/// Cut `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate(s: &str, max: usize) -> String {
    let s = s.replace(['\n', '\r', '\t'], " ");
    if s.chars().count() <= max {
        return s;
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lite(json: &str) -> TraceLite {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn date_bounds_accept_days_and_rfc3339() {
        assert_eq!(parse_bound("2026-03-04", false).unwrap().to_rfc3339(), "2026-03-04T00:00:00+00:00");
        assert_eq!(parse_bound("2026-03-04", true).unwrap().to_rfc3339(), "2026-03-05T00:00:00+00:00");
        assert_eq!(parse_bound("2026-03-04T10:00:00+02:00", false).unwrap().to_rfc3339(), "2026-03-04T08:00:00+00:00");
        assert!(parse_bound("04/03/2026", false).is_err());
    }

    #[test]
    fn date_filters_are_inclusive_of_whole_days() {
        let f = Filter::new(Some("2026-03-04"), Some("2026-03-05"), None).unwrap();
        assert!(!f.matches(&lite(r#"{"timestamp":"2026-03-03T23:59:59Z"}"#)));
        assert!(f.matches(&lite(r#"{"timestamp":"2026-03-04T00:00:00Z"}"#)));
        assert!(f.matches(&lite(r#"{"timestamp":"2026-03-05T23:59:59.999Z"}"#)));
        assert!(!f.matches(&lite(r#"{"timestamp":"2026-03-06T00:00:00Z"}"#)));
        // Offsets are honoured: 01:00+02:00 is the 4th at 23:00 UTC.
        assert!(f.matches(&lite(r#"{"timestamp":"2026-03-05T01:00:00+02:00"}"#)));
        // No parsable time: excluded by a date filter, kept without one.
        assert!(!f.matches(&lite(r#"{"timestamp":"yesterday"}"#)));
        assert!(Filter::default().matches(&lite(r#"{"timestamp":"yesterday"}"#)));
        let exact = Filter::new(None, Some("2026-03-04T12:00:00Z"), None).unwrap();
        assert!(exact.matches(&lite(r#"{"timestamp":"2026-03-04T12:00:00Z"}"#)));
        assert!(!exact.matches(&lite(r#"{"timestamp":"2026-03-04T12:00:01Z"}"#)));
    }

    #[test]
    fn errors_name_the_option_or_the_file_once() {
        let e = Filter::new(None, Some("last week"), None).unwrap_err();
        assert_eq!(e.to_string(), "--until: 'last week' is not a date: use YYYY-MM-DD or RFC 3339 (e.g. 2026-01-31T12:00:00Z)");
        assert_eq!(qa_core::error::error_chain(&e), e.to_string());
        let e = scan(Path::new("/nonexistent/traces.jsonl"), &Filter::default(), |_| {}).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("opening trace file /nonexistent/traces.jsonl (traces are appended by `qa ask`; --file picks another): "), "{text}");
        assert_eq!(qa_core::error::error_chain(&e), text);
    }

    #[test]
    fn route_filter_and_null_fields() {
        let f = Filter::new(None, None, Some("graph")).unwrap();
        let t = lite(r#"{"route":"graph","graph":null,"retrieved_chunks":null,"internal":{"llm":null},"latency_ms":null}"#);
        assert!(f.matches(&t));
        assert_eq!(t.chunks(), 0);
        assert!(!f.matches(&lite(r#"{"route":"documents"}"#)));
    }

    #[test]
    fn scan_counts_malformed_and_truncated_lines() {
        let data = "{\"trace_id\":\"a\"}\nnot json\n\n42\n{\"trace_id\":\"b\"}\n{\"trace_id\":\"tru";
        let mut ids = Vec::new();
        let c = scan_reader(data.as_bytes(), &Filter::default(), |t| ids.push(t.trace_id.clone())).unwrap();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!((c.lines, c.malformed, c.matched), (5, 3, 2));
    }

    #[test]
    fn flags() {
        let t = lite(r#"{"route":"es","status":"needs_clarification","error":"LLM timed out","internal":{"llm":{"provider":"failed"}},"graph":{"validation":{"ok":false,"reasons":["x"]}}}"#);
        assert!(t.clarification() && t.llm_failed() && t.failed());
        assert_eq!(t.cypher_ok(), Some(false));
        // The old flag in internal.rag is not a status.
        let t = lite(r#"{"route":"es","internal":{"rag":{"clarification":true}}}"#);
        assert!(!t.clarification() && !t.failed());
        // Any route; older SQL records through the agent's outcome.
        let t = lite(r#"{"route":"sql","internal":{"sql":{"outcome":{"status":"needs_clarification","question":"which?"}}}}"#);
        assert_eq!(t.status(), Some(Status::NeedsClarification));
        assert!(t.clarification());
        let t = lite(r#"{"route":"sql","status":"error"}"#);
        assert!(t.failed() && !t.clarification());
        assert_eq!(lite(r#"{"route":"documents","status":"answered"}"#).status(), Some(Status::Answered));
    }

    #[test]
    fn a_field_of_an_unexpected_shape_defaults_and_the_line_is_kept_and_counted() {
        let data = [
            // A string where a list belongs, a string where a bool or a number belongs.
            r#"{"trace_id":"a","graph":{"fallback_used":"co_mention","validation":{"ok":"yes"}},"latency_ms":{"total":"12.5","rag":3}}"#,
            // Lists of the wrong shape, a list element of the wrong shape, a number as a string.
            r#"{"trace_id":"b","retrieved_chunks":"c1","retrieved_graph_subgraph":{"nodes":[{"id":"n"},"x"],"edges":7},"token_usage":{"prompt":"3","completion":1,"total":4}}"#,
            // Objects where strings belong and the other way round.
            r#"{"trace_id":"c","route":5,"status":"maybe","internal":{"llm":"none","sql":[1]},"error":{"m":1},"graph":"x","latency_ms":[1]}"#,
            // Nothing wrong (nulls are absent values, not repairs).
            r#"{"trace_id":"d","route":"sql","error":null,"graph":null,"internal":{"sql":{"outcome":{"status":"needs_clarification"}}}}"#,
            r#"{"trace_id":["e"],"retrieved_chunks":[{"chunk_id":"c9"},"junk",{"chunk_id":7}]}"#,
            "not json",
            "[1, 2]",
        ]
        .join("\n");
        let mut seen = Vec::new();
        let c = scan_reader(data.as_bytes(), &Filter::default(), |t| {
            seen.push((
                (t.trace_id.clone(), t.route.clone(), t.status(), t.graph.fallback_used.clone(), t.cypher_ok(), t.latency_ms.total),
                t.latency_ms.rag,
                t.chunks(),
                t.graph_nodes(),
                t.retrieved_graph_subgraph.edges.len(),
                t.token_usage.is_some(),
                t.error.clone(),
                t.internal.llm.is_some() || t.internal.sql.is_some(),
            ))
        })
        .unwrap();
        assert_eq!((c.lines, c.malformed, c.matched, c.defaulted), (7, 2, 5, 4), "{c:?}");
        let none: Vec<String> = Vec::new();
        assert_eq!(seen[0], (("a".into(), Route::Unknown, None, none.clone(), None, 0.0), 3.0, 0, 0, 0, false, None, false));
        assert_eq!(seen[1], (("b".into(), Route::Unknown, None, none.clone(), None, 0.0), 0.0, 0, 2, 0, false, None, false));
        assert_eq!(seen[2], (("c".into(), Route::Unknown, None, none.clone(), None, 0.0), 0.0, 0, 0, 0, false, None, false));
        assert_eq!(seen[3], (("d".into(), Route::Sql, Some(Status::NeedsClarification), none.clone(), None, 0.0), 0.0, 0, 0, 0, false, None, true));
        assert_eq!(seen[4].0.0, "");
        assert_eq!(seen[4].2, 3, "elements of another shape are kept as defaults");
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo wörld", 6), "héllo…");
        assert_eq!(truncate("short", 10), "short");
    }
}
