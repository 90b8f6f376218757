use super::*;
use crate::embedded::EmbeddedIndex;
use crate::{EsStatus, Mapping};
use serde_json::{Map, json};

/// Support tickets: two date fields (so a bare date is ambiguous), a keyword team, a number.
fn tickets(dir: &Path) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    let teams = ["billing", "platform", "mobile"];
    let records: Vec<Map<String, Value>> = (0..90)
        .map(|i| {
            let r = json!({
                "id": format!("T{i:03}"),
                "team": teams[i % 3],
                "priority": if i % 10 == 0 { "urgent" } else { "normal" },
                "opened_on": format!("2025-{:02}-{:02}", 1 + i % 12, 1 + i % 28),
                "closed_on": format!("2025-{:02}-{:02}", 1 + (i + 1) % 12, 1 + i % 28),
                "hours": (i % 17) as f64 + 0.5,
                "summary": format!("printer jam on floor {}", i % 4),
            });
            r.as_object().unwrap().clone()
        })
        .collect();
    let mapping = Mapping::from_es_json(
        "tickets",
        &json!({"properties": {"id": {"type": "keyword"}, "team": {"type": "keyword"}, "priority": {"type": "keyword"},
            "opened_on": {"type": "date"}, "closed_on": {"type": "date"}, "hours": {"type": "double"}, "summary": {"type": "text"}}}),
    )
    .unwrap();
    EmbeddedIndex::create(dir, "tickets", &records, &mapping, &qa_core::progress::Silent).unwrap();
    (EmbeddedIndex::open(dir, "tickets").unwrap(), records)
}

fn ask(engine: &EmbeddedIndex, dir: &Path, q: &str, o: EsOptions) -> EsRun {
    answer(engine, None, EsQuestion { question: q, options: o, data_dir: dir, llm_skip: None }).unwrap()
}

fn opts() -> EsOptions {
    EsOptions { now: Some("2026-05-20T00:00:00Z".parse().unwrap()), ..EsOptions::default() }
}

#[test]
fn a_filtered_search_counts_what_the_records_hold() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let expected = records.iter().filter(|r| r["team"] == "billing" && r["priority"] == "urgent").count() as u64;
    let run = ask(&engine, dir.path(), "Show me the urgent billing tickets", opts());
    assert_eq!(run.answer.status, EsStatus::Answered, "{:?}", run.answer);
    assert_eq!(run.answer.total, Some(expected));
    assert!(run.answer.hits.iter().all(|h| h["team"] == "billing" && h["priority"] == "urgent"));
    assert!(run.answer.query_summary.contains("team is \"billing\""), "{}", run.answer.query_summary);
    assert_eq!(run.trace.route, qa_core::trace::Route::Es);
    let es = run.trace.internal.es.as_ref().unwrap();
    assert!(es.nodes.get("mapping_lookup").is_some() && es.metrics.latency_ms.contains_key("execute"));
}

#[test]
fn an_aggregation_sums_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let run = ask(&engine, dir.path(), "number of tickets per team", opts());
    assert_eq!(run.answer.intent, Intent::Aggregation);
    let buckets = run.answer.aggregations.as_ref().unwrap()["group"]["buckets"].as_array().unwrap().clone();
    let sum: u64 = buckets.iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(sum, records.len() as u64);
    assert_eq!(buckets.len(), 3);
}

#[test]
fn a_bare_date_asks_which_field_then_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let run = ask(&engine, dir.path(), "How many tickets in March 2025?", opts());
    assert_eq!(run.answer.status, EsStatus::NeedsClarification);
    let amb = run.answer.ambiguity.clone().unwrap();
    assert_eq!(amb.alternatives, ["closed_on", "opened_on"]);
    assert!(run.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap().iter().all(|e| e["purpose"] == "sampling"), "nothing but sampling ran");
    let id = run.checkpoint.as_ref().unwrap().file_stem().unwrap().to_str().unwrap().to_string();
    let resumed = resume(&engine, None, dir.path(), &id[..6], "the opened date", opts()).unwrap();
    let expected = records.iter().filter(|r| r["opened_on"].as_str().unwrap().starts_with("2025-03")).count() as u64;
    assert_eq!(resumed.answer.total, Some(expected));
    assert!(checkpoint::load(dir.path(), &id).is_err(), "the checkpoint is removed after the answer");
    // Forced: the best guess runs and is named.
    let forced = ask(&engine, dir.path(), "How many tickets in March 2025? just run it", opts());
    assert_eq!(forced.answer.status, EsStatus::Answered);
    assert!(forced.answer.notes.iter().any(|n| n.contains("closed_on")), "{:?}", forced.answer.notes);
}

#[test]
fn pages_are_disjoint_and_consecutive() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let p1 = ask(&engine, dir.path(), "billing tickets", EsOptions { page_size: 10, ..opts() });
    let page = p1.answer.page.unwrap();
    assert_eq!((page.offset, page.size, page.next_offset), (0, 10, Some(10)));
    let p2 = ask(&engine, dir.path(), "billing tickets", EsOptions { page_size: 10, offset: 10, ..opts() });
    let ids = |r: &EsRun| r.answer.hits.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (a, b) = (ids(&p1), ids(&p2));
    assert_eq!(b.len(), 10);
    assert!(b.iter().all(|x| !a.contains(x)));
    let again = run_query(&engine, "more", p1.answer.es_query.as_ref().unwrap(), &EsOptions { page_size: 10, offset: 10, ..opts() }).unwrap();
    assert_eq!(ids(&again), b);
}

#[test]
fn a_hostile_pasted_query_is_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let run = ask(&engine, dir.path(), r#"run this: POST /tickets/_delete_by_query {"query": {"match_all": {}}}"#, opts());
    assert_eq!(run.answer.status, EsStatus::Error);
    assert!(run.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap().is_empty());
    let ok = ask(&engine, dir.path(), r#"run this: {"query": {"term": {"team": "mobile"}}}"#, opts());
    assert_eq!(ok.answer.status, EsStatus::Answered);
    assert_eq!(ok.answer.total, Some(30));
}

#[test]
fn an_unknown_grouping_field_is_a_clarification() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let run = ask(&engine, dir.path(), "tickets by owner", opts());
    assert_eq!(run.answer.status, EsStatus::NeedsClarification, "{:?}", run.answer);
    let amb = run.answer.ambiguity.unwrap();
    assert_eq!(amb.field, "owner");
    assert!(!amb.alternatives.is_empty());
}

#[test]
fn to_and_from_pick_the_directed_field() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<Map<String, Value>> = (0..20)
        .map(|i| {
            let (from, to) = (["Oslo", "Lima"][i % 2], ["Lima", "Oslo"][(i / 2) % 2]);
            json!({"source_city": from, "target_city": to, "seats": i}).as_object().unwrap().clone()
        })
        .collect();
    let mapping = crate::infer::infer_mapping("flights", &records);
    EmbeddedIndex::create(dir.path(), "flights", &records, &mapping, &qa_core::progress::Silent).unwrap();
    let engine = EmbeddedIndex::open(dir.path(), "flights").unwrap();
    let to = ask(&engine, dir.path(), "flights to Lima", opts());
    assert_eq!(to.answer.total, Some(records.iter().filter(|r| r["target_city"] == "Lima").count() as u64), "{:?}", to.answer);
    let from = ask(&engine, dir.path(), "flights from Lima", opts());
    assert_eq!(from.answer.total, Some(records.iter().filter(|r| r["source_city"] == "Lima").count() as u64));
    assert_eq!(ask(&engine, dir.path(), "flights with Lima", opts()).answer.status, EsStatus::NeedsClarification);
}
