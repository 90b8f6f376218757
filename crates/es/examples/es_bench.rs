//! Benchmark of the embedded engine: indexing throughput and warm query latency.
//!
//! `cargo run --release -p qa-es --example es_bench -- [N]` generates N (default 100,000)
//! synthetic event records (a seeded PRNG: the same records every run), infers their mapping,
//! indexes them in a temporary folder, then prints the median latency of 25 warm runs of a
//! filtered count, a terms aggregation, a date histogram by month, a bool query with from/size
//! and a sorted page, each checked by the guard and run as `qa es` runs it (`SearchEngine::run`,
//! under the guard's timeout). Targets (issue 14): indexing ≥ 20,000 records/s; a filtered count
//! or a terms aggregation over 100,000 records ≤ 20 ms warm.

use std::time::{Duration, Instant};

use qa_core::progress::Silent;
use qa_es::{Endpoint, EsLimits, Mapping, SearchEngine};
use qa_es::embedded::EmbeddedIndex;
use qa_es::infer::infer_mapping;
use serde_json::{Map, Value, json};

/// splitmix64: small, seeded, good enough for synthetic data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const CATEGORIES: [&str; 12] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];
const REGIONS: [&str; 8] = ["north", "south", "east", "west", "central", "coastal", "highland", "island"];
const STATUSES: [&str; 4] = ["open", "pending", "closed", "archived"];
const WORDS: [&str; 24] = [
    "quick",
    "review",
    "network",
    "storage",
    "update",
    "failure",
    "request",
    "customer",
    "report",
    "monthly",
    "sensor",
    "battery",
    "upgrade",
    "invoice",
    "delay",
    "schedule",
    "backup",
    "license",
    "renewal",
    "audit",
    "migration",
    "outage",
    "support",
    "training",
];

fn record(rng: &mut Rng, i: usize) -> Map<String, Value> {
    let words: Vec<&str> = (0..6 + rng.below(5)).map(|_| rng.pick(&WORDS)).collect();
    let day = rng.below(730) as i64;
    let created = chrono::NaiveDate::from_ymd_opt(2023, 1, 1).unwrap_or_default() + chrono::Duration::days(day);
    let tags: Vec<&str> = (0..1 + rng.below(3)).map(|_| rng.pick(&WORDS[..8])).collect();
    let v = json!({
        "id": format!("ev-{i}"),
        "category": rng.pick(&CATEGORIES),
        "region": rng.pick(&REGIONS),
        "status": rng.pick(&STATUSES),
        "title": words.join(" "),
        "amount": (rng.below(1_000_000) as f64) / 100.0,
        "count": rng.below(500),
        "active": rng.below(2) == 0,
        "created": format!("{created}T{:02}:{:02}:00Z", rng.below(24), rng.below(60)),
        "tags": tags,
        "owner": {"team": format!("team-{}", rng.below(30))}
    });
    v.as_object().cloned().unwrap_or_default()
}

fn median_ms(idx: &EmbeddedIndex, mapping: &Mapping, endpoint: Endpoint, body: &Value, runs: usize) -> (f64, Value) {
    let limits = EsLimits { max_buckets: 1_000, ..EsLimits::default() };
    let req = qa_es::guard::checked(body, endpoint, mapping, &limits).expect("the guard accepts the body");
    let mut last = idx.run(&req).expect("query runs");
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        last = idx.run(&req).expect("query runs");
        times.push(t.elapsed());
    }
    times.sort();
    (times[runs / 2].as_secs_f64() * 1000.0, last)
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let mut rng = Rng(42);
    let t = Instant::now();
    let records: Vec<Map<String, Value>> = (0..n).map(|i| record(&mut rng, i)).collect();
    println!("generated {n} records in {:.0} ms", t.elapsed().as_secs_f64() * 1000.0);
    let t = Instant::now();
    let mapping = infer_mapping("events", &records);
    println!("inferred mapping ({} fields) in {:.0} ms", mapping.fields.len(), t.elapsed().as_secs_f64() * 1000.0);
    for f in &mapping.fields {
        println!("  {:<12} {}", f.path, f.es_type);
    }
    let dir = tempfile::tempdir().expect("temporary folder");
    let t = Instant::now();
    EmbeddedIndex::create(dir.path(), "events", &records, &mapping, &Silent).expect("index builds");
    let secs = t.elapsed().as_secs_f64();
    println!("indexed {n} records in {:.2} s: {:.0} records/s (target ≥ 20,000)", secs, n as f64 / secs);

    let t = Instant::now();
    let idx = EmbeddedIndex::open(dir.path(), "events").expect("index opens");
    println!("opened in {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    let runs = 25;
    let cases: Vec<(&str, Endpoint, Value)> = vec![
        (
            "filtered count (term + range)",
            Endpoint::Count,
            json!({"query": {"bool": {"filter": [{"term": {"category": "gamma"}}, {"range": {"amount": {"gte": 2500}}}]}}}),
        ),
        ("count, all docs", Endpoint::Count, json!({"query": {"match_all": {}}})),
        ("terms agg (all docs)", Endpoint::Search, json!({"size": 0, "aggs": {"by_region": {"terms": {"field": "region", "size": 10}}}})),
        (
            "terms agg + avg sub-agg",
            Endpoint::Search,
            json!({"size": 0, "aggs": {"by_cat": {"terms": {"field": "category"}, "aggs": {"avg_amount": {"avg": {"field": "amount"}}}}}}),
        ),
        (
            "date_histogram by month",
            Endpoint::Search,
            json!({"size": 0, "aggs": {"per_month": {"date_histogram": {"field": "created", "calendar_interval": "month"}}}}),
        ),
        (
            "bool match+filter, from 40 size 20",
            Endpoint::Search,
            json!({"query": {"bool": {"must": {"match": {"title": "network outage"}}, "filter": {"term": {"status": "open"}}}}, "from": 40, "size": 20}),
        ),
        (
            "filter, sort by date desc, size 20",
            Endpoint::Search,
            json!({"query": {"bool": {"filter": {"range": {"created": {"gte": "2024-01-01"}}}}}, "sort": [{"created": "desc"}, "_doc"], "size": 20}),
        ),
    ];
    println!("\nwarm latency, median of {runs} runs over {n} records:");
    for (name, endpoint, body) in &cases {
        let (ms, out) = median_ms(&idx, &mapping, *endpoint, body, runs);
        let total = out.get("count").or_else(|| out["hits"]["total"].get("value")).cloned().unwrap_or(Value::Null);
        println!("  {name:<38} {ms:>8.2} ms   (matches: {total})");
    }
}
