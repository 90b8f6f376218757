use super::*;
use crate::filters::{ExtractedFilters, ValueFilter};
use serde_json::json;

const TEAMS: [&str; 3] = ["alpha", "beta", "gamma"];

fn records() -> Vec<Value> {
    (0..60)
        .map(|i| {
            json!({
                "id": format!("T-{i}"),
                "team": TEAMS[i % 3],
                "severity": if i % 10 == 0 { "Critical" } else { "Low" },
                "hours": i as f64 / 2.0,
                "opened": format!("2025-0{}-1{}", 1 + i % 9, i % 10),
                "summary": format!("printer jam number {i} on floor {}", i % 4),
            })
        })
        .collect()
}

#[test]
fn selection_prefers_filter_matches_and_respects_caps() {
    let filters = ExtractedFilters { values: vec![ValueFilter { field: "severity".into(), value: "Critical".into(), phrase: "critical".into(), via_alias: false }], ..Default::default() };
    let s = select_records(&records(), "why do critical printer jams happen", &filters);
    assert_eq!(s.records.len(), MAX_RECORDS);
    assert!(s.tokens <= MAX_CONTEXT_TOKENS);
    assert_eq!(s.considered, 60);
    // The 6 critical records come first.
    assert!(s.records[..6].iter().all(|r| r["severity"] == "Critical"), "{:?}", &s.records[..6]);
}

#[test]
fn a_budget_too_small_for_big_records_leaves_them_out() {
    let big: Vec<Value> = (0..5).map(|i| json!({"id": i, "text": "word ".repeat(5_000)})).collect();
    let s = select_records(&big, "text", &ExtractedFilters::default());
    assert!(s.tokens <= MAX_CONTEXT_TOKENS);
    assert_eq!(s.records.len(), 1);
    assert_eq!(s.over_budget, 4);
}

#[test]
fn analysis_counts_what_the_records_hold() {
    let rs = records();
    let a = analyse(&rs[..20]);
    assert_eq!(a.records, 20);
    let team = a.breakdowns.iter().find(|b| b.field == "team").unwrap();
    assert_eq!(team.top, [("alpha".to_string(), 7), ("beta".to_string(), 7), ("gamma".to_string(), 6)]);
    assert!(a.breakdowns.iter().all(|b| b.field != "id" && b.field != "summary"), "identifiers and prose are not categories");
    let hours = a.numbers.iter().find(|n| n.field == "hours").unwrap();
    assert_eq!((hours.min, hours.max, hours.count), (0.0, 9.5, 20));
    assert_eq!(a.dates[0].field, "opened");
    assert_eq!(a.cited[0], "T-0");
    assert!(a.render().contains("team: alpha (7), beta (7), gamma (6)"));
}
