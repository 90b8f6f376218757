//! `qa traces stats`: counts, route mix, exact latency percentiles, token usage, failure and
//! fallback rates, slowest questions. Also the aggregates the HTML report draws.
//!
//! Memory: the per-stage latency values (4 × f64 per trace, needed for exact percentiles), a
//! 5-entry heap of the slowest traces, the last 200 traces' stage times and hourly counters.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use serde::Serialize;

use qa_core::stats::nearest_rank;

use super::{Status, TraceLite};

/// The latency stages reported, in report order.
pub(crate) const STAGES: [&str; 4] = ["rag", "graph", "synthesis", "total"];
/// How many of the slowest traces are kept.
const SLOWEST: usize = 5;
/// How many of the most recent traces' stage times are kept.
const RECENT: usize = 200;

/// Latency figures of one stage, in milliseconds; `None` when there are no traces.
#[derive(Debug, Clone, Serialize)]
pub struct StageLatency {
    /// `rag`, `graph`, `synthesis` or `total`.
    pub stage: String,
    /// Number of values.
    pub n: usize,
    /// Median (nearest rank).
    pub p50: Option<f64>,
    /// 95th percentile (nearest rank).
    pub p95: Option<f64>,
    /// 99th percentile (nearest rank).
    pub p99: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// Arithmetic mean.
    pub mean: Option<f64>,
}

/// How many traces have a property, and their share.
#[derive(Debug, Clone, Serialize)]
pub struct Rate {
    /// Traces with the property.
    pub count: usize,
    /// count / traces (0 when there are no traces).
    pub rate: f64,
}

/// Token usage summed over the traces that recorded it.
#[derive(Debug, Clone, Serialize)]
pub struct Tokens {
    /// Prompt tokens.
    pub prompt: u64,
    /// Completion tokens.
    pub completion: u64,
    /// Total tokens as recorded.
    pub total: u64,
    /// Traces that recorded token usage (the means divide by this).
    pub traces_with_usage: usize,
    /// Mean prompt tokens per trace with usage (0 when none).
    pub mean_prompt: f64,
    /// Mean completion tokens per trace with usage (0 when none).
    pub mean_completion: f64,
    /// Mean total tokens per trace with usage (0 when none).
    pub mean_total: f64,
}

/// The failure and fallback rates, as shares of the matching traces.
#[derive(Debug, Clone, Serialize)]
pub struct Rates {
    /// No text chunk was retrieved.
    pub empty_rag_context: Rate,
    /// The graph evidence has no node.
    pub empty_graph_evidence: Rate,
    /// The graph evidence used at least one fallback strategy.
    pub fallback_used: Rate,
    /// Per fallback strategy: the traces that used it (a trace counts once per strategy).
    pub fallback_by_kind: BTreeMap<String, Rate>,
    /// The generated Cypher query was refused by the validator.
    pub cypher_validation_failures: Rate,
    /// The error mentions the LLM, or the LLM provider is recorded as failed.
    pub llm_errors: Rate,
    /// The status is `needs_clarification`.
    pub clarification_requests: Rate,
    /// A turn of a session (`qa chat`, `qa ask --session`).
    pub session_turns: Rate,
    /// A session turn whose message the LLM restated (its reply passed the schema).
    pub restated_by_llm: Rate,
    /// A session turn where the LLM's restatement was asked for but not used (the rules' stood).
    pub restatement_fallbacks: Rate,
}

/// The documents route's "does the evidence answer the question?" check over the traces that
/// recorded it: how many fell below the threshold, and how many answers and refusals sit close to
/// it — the ones a change of `evidence_threshold` would flip first.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvidenceCheck {
    /// Traces that recorded the check.
    pub checked: usize,
    /// Of those, the ones whose score was below their threshold.
    pub below_threshold: usize,
    /// Scores below the threshold by less than [`NEAR_THRESHOLD`].
    pub just_below: usize,
    /// Scores at or above the threshold by less than [`NEAR_THRESHOLD`] (answered unless the
    /// value asked for was missing).
    pub just_above: usize,
    /// Refused because the passages named the question's thing without the value it asks for (a
    /// phone number, a price …), whatever the score.
    #[serde(default)]
    pub value_missing: usize,
}

/// How close to the threshold a score counts as "near" it.
pub const NEAR_THRESHOLD: f64 = 0.05;

/// One of the slowest traces. Orders by total latency, then by trace id (lower id ranks higher).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Slow {
    /// Total latency in milliseconds.
    pub total_ms: f64,
    /// The trace's id.
    pub trace_id: String,
    /// The trace's timestamp as written.
    pub timestamp: String,
    /// The trace's route.
    pub route: String,
    /// The question.
    pub question: String,
}

impl Eq for Slow {}
impl PartialOrd for Slow {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Slow {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.total_ms.total_cmp(&other.total_ms).then_with(|| other.trace_id.cmp(&self.trace_id))
    }
}

/// Counts and total latency of the traces of one route and query type.
#[derive(Debug, Clone, Serialize)]
pub struct KindLatency {
    /// The route (`documents`, `sql`, `es`).
    pub route: String,
    /// The router's query type (`simple`, `complex`, `hybrid`), or `-` for traces of direct
    /// commands (`qa sql`, `qa es`) and of versions before the router.
    pub query_type: String,
    /// Traces.
    pub count: usize,
    /// Median total latency.
    pub p50: Option<f64>,
    /// 95th percentile of total latency.
    pub p95: Option<f64>,
    /// Slowest total latency.
    pub max: Option<f64>,
}

/// The report of `qa traces stats --json`.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// The trace file read.
    pub file: String,
    /// Traces that passed the filters.
    pub traces: usize,
    /// Lines skipped because they are not a trace record.
    pub malformed_lines: usize,
    /// Lines kept although a field had an unexpected shape (that field read as its default).
    pub lines_with_defaulted_fields: usize,
    /// Traces per route (`(none)` for records without one).
    pub routes: BTreeMap<String, usize>,
    /// Traces per status (`answered`, `needs_clarification`, `refused`, `error`; `(none)` for
    /// records that carry none).
    pub statuses: BTreeMap<String, usize>,
    /// Latency per stage: rag, graph, synthesis, total.
    pub latency_ms: Vec<StageLatency>,
    /// Counts and total latency per route and query type.
    pub by_route_and_type: Vec<KindLatency>,
    /// How the percentiles are computed, in words.
    pub percentile_method: &'static str,
    /// Token usage.
    pub tokens: Tokens,
    /// Failure and fallback rates.
    pub rates: Rates,
    /// The slowest traces by total latency, slowest first (at most 5).
    pub slowest: Vec<Slow>,
    /// The documents route's evidence check.
    pub evidence_check: EvidenceCheck,
}

/// One recent trace's stage times in milliseconds (for the stacked bars).
#[derive(Debug, Clone)]
pub struct Recent {
    pub(crate) trace_id: String,
    pub(crate) rag: f64,
    pub(crate) graph: f64,
    pub(crate) synthesis: f64,
    pub(crate) total: f64,
}

/// Everything a scan aggregated: the stats plus what the report's charts need.
#[derive(Debug, Clone)]
pub struct Aggregates {
    /// The statistics.
    pub stats: Stats,
    /// Sorted latency values per stage (ms): rag, graph, synthesis, total.
    pub latencies: Vec<Vec<f64>>,
    /// Stage times of the last 200 traces, oldest first.
    pub recent: Vec<Recent>,
    /// Per UTC hour (seconds since the epoch / 3600): (traces, traces with a fallback).
    pub hourly: BTreeMap<i64, (usize, usize)>,
}

/// Streaming aggregation; feed it every matching trace, then [`Collector::finish`].
#[derive(Debug, Default)]
pub struct Collector {
    count: usize,
    routes: BTreeMap<String, usize>,
    statuses: BTreeMap<String, usize>,
    /// Total latencies per (route, query type).
    kinds: BTreeMap<(String, String), Vec<f64>>,
    /// Lines with a defaulted field ([`crate::ScanCounts::defaulted`]); set by the caller from the
    /// scan's counts.
    pub defaulted_lines: usize,
    latencies: [Vec<f64>; 4],
    tokens: [u64; 3],
    with_usage: usize,
    empty_rag: usize,
    empty_graph: usize,
    fallback_any: usize,
    fallback_kinds: BTreeMap<String, usize>,
    cypher_fail: usize,
    llm_fail: usize,
    clarification: usize,
    session_turns: usize,
    restated: usize,
    restatement_fallbacks: usize,
    evidence: EvidenceCheck,
    slow: BinaryHeap<Reverse<Slow>>,
    recent: VecDeque<Recent>,
    /// Per UTC hour (seconds since the epoch / 3600): (traces, traces with a fallback).
    hourly: BTreeMap<i64, (usize, usize)>,
}

impl Collector {
    /// Count one matching trace.
    pub fn add(&mut self, t: &TraceLite) {
        self.count += 1;
        let route = if t.route.as_str().is_empty() { "(none)" } else { t.route.as_str() };
        match self.routes.get_mut(route) {
            Some(n) => *n += 1,
            None => {
                self.routes.insert(route.to_string(), 1);
            }
        }
        *self.statuses.entry(t.status().map_or("(none)", Status::as_str).to_string()).or_default() += 1;
        let l = &t.latency_ms;
        let query_type = t.routing.as_ref().map(|r| r.query_type.as_str()).filter(|q| !q.is_empty()).unwrap_or("-");
        self.kinds.entry((route.to_string(), query_type.to_string())).or_default().push(l.total);
        for (v, x) in self.latencies.iter_mut().zip([l.rag, l.graph, l.synthesis, l.total]) {
            v.push(x);
        }
        if let Some(u) = &t.token_usage {
            self.with_usage += 1;
            self.tokens[0] += u.prompt;
            self.tokens[1] += u.completion;
            self.tokens[2] += u.total;
        }
        self.empty_rag += usize::from(t.chunks() == 0);
        self.empty_graph += usize::from(t.graph_nodes() == 0);
        self.fallback_any += usize::from(t.fallback_used());
        let mut kinds: Vec<&str> = t.graph.fallback_used.iter().map(String::as_str).collect();
        kinds.sort_unstable();
        kinds.dedup();
        for k in kinds {
            *self.fallback_kinds.entry(k.to_string()).or_default() += 1;
        }
        self.cypher_fail += usize::from(t.cypher_ok() == Some(false));
        self.llm_fail += usize::from(t.llm_failed());
        self.clarification += usize::from(t.clarification());
        if let Some(c) = &t.conversation {
            self.session_turns += 1;
            self.restated += usize::from(c.reiterated_by.as_deref() == Some("llm"));
            self.restatement_fallbacks += usize::from(c.llm_error.is_some());
        }
        let focus = t.internal.rag.as_ref().and_then(|r| r.focus.as_ref());
        if let Some((score, threshold)) = focus.and_then(|f| f.evidence.zip(f.threshold)) {
            let missing = focus.and_then(|f| f.check.as_ref()).is_some_and(|c| c.value_missing.as_ref().is_some_and(|v| !v.is_null()));
            let e = &mut self.evidence;
            e.checked += 1;
            e.below_threshold += usize::from(score < threshold);
            e.just_below += usize::from(score < threshold && score >= threshold - NEAR_THRESHOLD);
            e.just_above += usize::from(!missing && score >= threshold && score < threshold + NEAR_THRESHOLD);
            e.value_missing += usize::from(missing);
        }
        if self.slow.len() < SLOWEST || self.slow.peek().is_some_and(|Reverse(min)| l.total > min.total_ms) {
            self.slow.push(Reverse(Slow {
                total_ms: l.total,
                trace_id: t.trace_id.clone(),
                timestamp: t.timestamp.clone(),
                route: t.route.to_string(),
                question: t.user_question.clone(),
            }));
            if self.slow.len() > SLOWEST {
                self.slow.pop();
            }
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(Recent { trace_id: t.trace_id.clone(), rag: l.rag, graph: l.graph, synthesis: l.synthesis, total: l.total });
        if let Some(ts) = t.time() {
            let e = self.hourly.entry(ts.timestamp().div_euclid(3600)).or_default();
            e.0 += 1;
            e.1 += usize::from(t.fallback_used());
        }
    }

    /// The aggregates of everything added; `file` and `malformed` (lines skipped) are reported as
    /// given.
    pub fn finish(mut self, file: String, malformed: usize) -> Aggregates {
        let n = self.count;
        let rate = |count: usize| Rate { count, rate: if n == 0 { 0.0 } else { count as f64 / n as f64 } };
        let mut latency_ms = Vec::new();
        for (stage, v) in STAGES.iter().zip(self.latencies.iter_mut()) {
            v.sort_unstable_by(f64::total_cmp);
            let mean = (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
            latency_ms.push(StageLatency {
                stage: stage.to_string(),
                n: v.len(),
                p50: nearest_rank(v, 50),
                p95: nearest_rank(v, 95),
                p99: nearest_rank(v, 99),
                max: v.last().copied(),
                mean,
            });
        }
        let wu = self.with_usage;
        let mean = |x: u64| if wu == 0 { 0.0 } else { x as f64 / wu as f64 };
        let tokens = Tokens {
            prompt: self.tokens[0],
            completion: self.tokens[1],
            total: self.tokens[2],
            traces_with_usage: wu,
            mean_prompt: mean(self.tokens[0]),
            mean_completion: mean(self.tokens[1]),
            mean_total: mean(self.tokens[2]),
        };
        let rates = Rates {
            empty_rag_context: rate(self.empty_rag),
            empty_graph_evidence: rate(self.empty_graph),
            fallback_used: rate(self.fallback_any),
            fallback_by_kind: self.fallback_kinds.iter().map(|(k, c)| (k.clone(), rate(*c))).collect(),
            cypher_validation_failures: rate(self.cypher_fail),
            llm_errors: rate(self.llm_fail),
            clarification_requests: rate(self.clarification),
            session_turns: rate(self.session_turns),
            restated_by_llm: rate(self.restated),
            restatement_fallbacks: rate(self.restatement_fallbacks),
        };
        let mut slowest: Vec<Slow> = self.slow.into_iter().map(|Reverse(s)| s).collect();
        slowest.sort_by(|a, b| b.cmp(a));
        let by_route_and_type = std::mem::take(&mut self.kinds)
            .into_iter()
            .map(|((route, query_type), mut v)| {
                v.sort_unstable_by(f64::total_cmp);
                KindLatency { route, query_type, count: v.len(), p50: nearest_rank(&v, 50), p95: nearest_rank(&v, 95), max: v.last().copied() }
            })
            .collect();
        let stats = Stats {
            file,
            traces: n,
            malformed_lines: malformed,
            lines_with_defaulted_fields: self.defaulted_lines,
            routes: self.routes,
            statuses: self.statuses,
            latency_ms,
            by_route_and_type,
            percentile_method: "nearest-rank (value at rank ceil(p/100 * n) of the sorted values), exact",
            tokens,
            rates,
            slowest,
            evidence_check: self.evidence,
        };
        Aggregates { stats, latencies: self.latencies.into_iter().collect(), recent: self.recent.into_iter().collect(), hourly: self.hourly }
    }
}

fn ms(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into())
}

fn pct(r: &Rate) -> String {
    format!("{:>6} {:>6.1}%", r.count, r.rate * 100.0)
}

/// The human-readable form of `qa traces stats`.
pub fn render_text(s: &Stats) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "Traces: {} from {} ({} malformed line(s) skipped)", s.traces, s.file, s.malformed_lines);
    if s.traces == 0 {
        let _ = writeln!(o, "No traces match.");
        return o;
    }
    let routes: Vec<String> = s
        .routes
        .iter()
        .map(|(r, c)| format!("{r} {c} ({:.1}%)", *c as f64 * 100.0 / s.traces as f64))
        .collect();
    let _ = writeln!(o, "Routes: {}", routes.join(", "));
    let statuses: Vec<String> = s.statuses.iter().map(|(k, c)| format!("{k} {c}")).collect();
    let _ = writeln!(o, "Statuses: {}", statuses.join(", "));
    if s.lines_with_defaulted_fields > 0 {
        let _ = writeln!(o, "Lines with a field of an unexpected shape (read as its default): {}", s.lines_with_defaulted_fields);
    }
    let _ = writeln!(o, "\nLatency (ms; exact nearest-rank percentiles)");
    let _ = writeln!(o, "  {:<10} {:>10} {:>10} {:>10} {:>10} {:>10}", "stage", "p50", "p95", "p99", "max", "mean");
    for l in &s.latency_ms {
        let _ = writeln!(o, "  {:<10} {:>10} {:>10} {:>10} {:>10} {:>10}", l.stage, ms(l.p50), ms(l.p95), ms(l.p99), ms(l.max), ms(l.mean));
    }
    if s.by_route_and_type.len() > 1 || s.by_route_and_type.iter().any(|k| k.query_type != "-") {
        let _ = writeln!(o, "\nBy route and query type (total ms)");
        let _ = writeln!(o, "  {:<10} {:<8} {:>7} {:>10} {:>10} {:>10}", "route", "type", "traces", "p50", "p95", "max");
        for k in &s.by_route_and_type {
            let _ = writeln!(o, "  {:<10} {:<8} {:>7} {:>10} {:>10} {:>10}", k.route, k.query_type, k.count, ms(k.p50), ms(k.p95), ms(k.max));
        }
    }
    let t = &s.tokens;
    let _ = writeln!(
        o,
        "\nTokens: prompt {}, completion {}, total {} ({} trace(s) with usage; mean per query {:.1} / {:.1} / {:.1})",
        t.prompt, t.completion, t.total, t.traces_with_usage, t.mean_prompt, t.mean_completion, t.mean_total
    );
    let r = &s.rates;
    let _ = writeln!(o, "\nRates (traces, % of {})", s.traces);
    let _ = writeln!(o, "  empty RAG context            {}", pct(&r.empty_rag_context));
    let _ = writeln!(o, "  empty graph evidence         {}", pct(&r.empty_graph_evidence));
    let _ = writeln!(o, "  fallback used                {}", pct(&r.fallback_used));
    for (k, v) in &r.fallback_by_kind {
        let _ = writeln!(o, "    {:<26} {}", k, pct(v));
    }
    let _ = writeln!(o, "  Cypher validation failures   {}", pct(&r.cypher_validation_failures));
    let _ = writeln!(o, "  LLM errors / degradations    {}", pct(&r.llm_errors));
    let _ = writeln!(o, "  clarification requests       {}", pct(&r.clarification_requests));
    let _ = writeln!(o, "  session turns                {}", pct(&r.session_turns));
    let _ = writeln!(o, "    restated by the LLM        {}", pct(&r.restated_by_llm));
    let _ = writeln!(o, "    LLM restatement fallbacks  {}", pct(&r.restatement_fallbacks));
    let e = &s.evidence_check;
    if e.checked > 0 {
        let _ = writeln!(
            o,
            "\nEvidence check (documents): {} checked, {} below the threshold; within {NEAR_THRESHOLD} of it: {} refused, {} answered — the ones `evidence_threshold` flips first",
            e.checked, e.below_threshold, e.just_below, e.just_above
        );
        if e.value_missing > 0 {
            let _ = writeln!(o, "  refused because the passages lacked the value asked for (a phone number, a price …): {}", e.value_missing);
        }
    }
    let _ = writeln!(o, "\nSlowest questions");
    for sl in &s.slowest {
        let _ = writeln!(o, "  {:>10.1} ms  {:<16}  {}", sl.total_ms, sl.trace_id, super::truncate(&sl.question, 80));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistics of these trace lines.
    fn stats_of(lines: &[&str]) -> Stats {
        let mut c = Collector::default();
        for l in lines {
            c.add(&serde_json::from_str::<TraceLite>(l).unwrap());
        }
        c.finish("f".into(), 0).stats
    }

    #[test]
    fn latency_is_broken_down_by_route_and_query_type() {
        let lines = [
            r#"{"route":"sql","routing":{"query_type":"simple"},"latency_ms":{"total":10}}"#,
            r#"{"route":"sql","routing":{"query_type":"simple"},"latency_ms":{"total":30}}"#,
            r#"{"route":"sql","routing":{"query_type":"complex"},"latency_ms":{"total":90}}"#,
            r#"{"route":"documents","routing":{"query_type":7},"latency_ms":{"total":5}}"#,
            r#"{"route":"es","latency_ms":{"total":2}}"#,
        ];
        let s = stats_of(&lines);
        let got: Vec<(&str, &str, usize, Option<f64>)> = s.by_route_and_type.iter().map(|k| (k.route.as_str(), k.query_type.as_str(), k.count, k.max)).collect();
        assert_eq!(got, [("documents", "-", 1, Some(5.0)), ("es", "-", 1, Some(2.0)), ("sql", "complex", 1, Some(90.0)), ("sql", "simple", 2, Some(30.0))]);
        assert!(render_text(&s).contains("By route and query type"));
    }

    #[test]
    fn collector_keeps_the_five_slowest() {
        let mut c = Collector::default();
        for i in 0..50 {
            let t: TraceLite =
                serde_json::from_str(&format!(r#"{{"trace_id":"t{i}","latency_ms":{{"total":{}}}}}"#, (i * 37) % 50)).unwrap();
            c.add(&t);
        }
        let s = c.finish("f".into(), 0).stats;
        let totals: Vec<f64> = s.slowest.iter().map(|x| x.total_ms).collect();
        assert_eq!(totals, [49.0, 48.0, 47.0, 46.0, 45.0]);
        assert_eq!(s.latency_ms[3].p50, Some(24.0));
    }

    #[test]
    fn the_evidence_check_counts_scores_near_the_threshold() {
        let lines = [
            r#"{"route":"documents","internal":{"rag":{"focus":{"evidence":0.40,"threshold":0.7}}}}"#,
            r#"{"route":"documents","internal":{"rag":{"focus":{"evidence":0.68,"threshold":0.7}}}}"#,
            r#"{"route":"documents","internal":{"rag":{"focus":{"evidence":0.72,"threshold":0.7}}}}"#,
            r#"{"route":"documents","internal":{"rag":{"focus":{"evidence":0.95,"threshold":0.7}}}}"#,
            r#"{"route":"documents","internal":{"rag":{"focus":"garbled"}}}"#,
            r#"{"route":"documents","internal":{"rag":{"focus":{"evidence":0.71,"threshold":0.7,"check":{"value_missing":{"asked":"price","of":"diesel"}}}}}}"#,
            r#"{"route":"sql"}"#,
        ];
        let s = stats_of(&lines);
        let e = &s.evidence_check;
        assert_eq!((e.checked, e.below_threshold, e.just_below, e.just_above, e.value_missing), (5, 2, 1, 1, 1), "{e:?}");
        assert!(render_text(&s).contains("Evidence check (documents): 5 checked, 2 below the threshold"), "{}", render_text(&s));
        assert!(render_text(&s).contains("lacked the value asked for (a phone number, a price …): 1"), "{}", render_text(&s));
    }
}
