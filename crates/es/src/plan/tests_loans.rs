//! Readings added in session 27, on an index written for these tests (loans of a tool
//! library): the verb of the records' actor ("borrowed", where several fields are named after
//! the borrower) dates the record's own event and relates; "by borrowers" is the person each
//! record is about; a state said after "are" in words the coverage does not count ("still out")
//! asks instead of running as every document.

use super::tests::{filters, today};
use super::tests_records::{run, top};
use super::*;
use serde_json::json;

/// Loans of a tool library: the loan's own date, a due date and a return date set later, the
/// borrower in three fields, the tool's kind.
fn tool_loans() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "tool_loans",
        &json!({"properties": {
            "loan_code": {"type": "keyword"}, "loanDate": {"type": "date"}, "due_date": {"type": "date"}, "returnedDate": {"type": "date"},
            "tool_kind": {"type": "keyword"}, "borrower_first_name": {"type": "keyword"}, "borrowerLastName": {"type": "keyword"},
            "borrowerPostcode": {"type": "keyword"}, "is_member": {"type": "boolean"}, "deposit_eur": {"type": "double"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("loan_code".into(), (0..60).map(|i| (format!("TL-{i:04}"), 1)).collect());
    meta.values.insert("tool_kind".into(), top(&["drill", "ladder", "sander"]));
    meta.values.insert("borrower_first_name".into(), top(&["Ines", "Joost"]));
    meta.values.insert("borrowerLastName".into(), top(&["Smit", "Bos"]));
    meta.values.insert("borrowerPostcode".into(), top(&["3511", "3512"]));
    for d in ["loanDate", "due_date"] {
        meta.ranges.insert(d.into(), (json!("2024-01-02"), json!("2025-10-20")));
        meta.present.insert(d.into(), 300);
    }
    meta.ranges.insert("returnedDate".into(), (json!("2024-01-09"), json!("2025-10-28")));
    meta.present.insert("returnedDate".into(), 280);
    meta.total = Some(300);
    (mapping, meta)
}

#[test]
fn the_actors_verb_dates_the_records_own_event() {
    let l = tool_loans();
    let p = run(&l, "How many drills were borrowed in 2025?").unwrap_or_else(|a| panic!("asked: {a:?}"));
    assert_eq!(p.intent, Intent::Count);
    assert_eq!(filters(&p), ["loanDate from 2025-01-01 and before 2026-01-01", "tool_kind is \"drill\""]);
    // The same verb beside a ranking relates, no condition of its own.
    let p = run(&l, "Which tool kind is borrowed most?").unwrap_or_else(|a| panic!("asked: {a:?}"));
    assert!(filters(&p).is_empty(), "{:?}", filters(&p));
    // A verb of no actor ("repaired") still asks which date.
    assert!(run(&l, "How many ladders were repaired in 2025?").is_err());
}

#[test]
fn by_the_actor_is_no_condition_and_counting_them_counts_people() {
    let l = tool_loans();
    let p = run(&l, "How many sander loans were made by borrowers who are not members?").unwrap_or_else(|a| panic!("asked: {a:?}"));
    assert_eq!(filters(&p), ["is_member is \"false\"", "tool_kind is \"sander\""]);
    // "How many borrowers" counts people (by both halves of the name), not loans.
    let p = run(&l, "How many borrowers are members?").unwrap_or_else(|a| panic!("asked: {a:?}"));
    assert!(!p.groups.is_empty(), "{}", p.summary());
}

#[test]
fn a_state_said_in_uncounted_words_asks() {
    let l = tool_loans();
    let a = run(&l, "Which tools are still out?").expect_err("a state nothing placed");
    assert!(a.message.contains("still out"), "{}", a.message);
    // Under force it runs and says first what it ignored.
    let semantic = Semantic::default();
    let choices = Choices::new();
    let input = PlanInput { mapping: &l.0, meta: &l.1, semantic: &semantic, choices: &choices, force: true, today: today(), sample_size: 50, max_buckets: 1000 };
    let p = build("Which tools are still out?", &input, None).map(|p| p.plan).unwrap_or_else(|e| panic!("asked under force: {:?}", e.0));
    assert!(p.notes.first().is_some_and(|n| n.starts_with("ignored") && n.contains("still out")), "{:?}", p.notes);
}
