//! Questions over a made-up index of hire-boat rides in the embedded engine: a ride's own code
//! and date next to the code of the boat it used (each boat used about once), a skipper kept in
//! two name fields with namesakes on each side, a member flag, and a flag of two words that a
//! verb only partly names, and a booking date besides the ride's own date. Expected answers
//! are computed from the records.

use super::tests::{answered, ask, opts};
use super::*;
use crate::embedded::EmbeddedIndex;
use crate::Mapping;
use serde_json::{Map, json};
use std::collections::BTreeMap;

// Namesakes on both halves: "Ada Lind" and "Ada Moe", "Bo Lind".
const SKIPPERS: [(&str, &str); 5] = [("Ada", "Lind"), ("Ada", "Moe"), ("Bo", "Lind"), ("Cy", "Moe"), ("Di", "Falk")];

fn rides(dir: &Path) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    let records: Vec<Map<String, Value>> = (0..120)
        .map(|i| {
            // Skippers ride unevenly (Ada Lind most), so there is one clear leader.
            let who = [0, 0, 0, 1, 2, 0, 3, 4, 2, 1, 0, 3][i % 12];
            let (first, last) = SKIPPERS[who];
            json!({
                "ride_code": format!("RD-{:05}", 10_000 + i),
                "boat_code": format!("B-{:04}", 3000 + i * 7),
                "ride_date": format!("2025-{:02}-{:02}", 1 + i % 9, 1 + i % 27),
                "booked_on": format!("2024-{:02}-{:02}", 1 + i % 12, 1 + i % 25),
                "skipper_first_name": first,
                "skipperLastName": last,
                "is_member": i % 3 == 0,
                "has_sail_cover": i % 4 == 0,
                "duration_min": 20 + (i * 7) % 90,
            })
            .as_object()
            .unwrap()
            .clone()
        })
        .collect();
    let mapping = Mapping::from_es_json(
        "hireboats",
        &json!({"properties": {"ride_code": {"type": "keyword"}, "boat_code": {"type": "keyword"}, "ride_date": {"type": "date"}, "booked_on": {"type": "date"}, "skipper_first_name": {"type": "keyword"},
            "skipperLastName": {"type": "keyword"}, "is_member": {"type": "boolean"}, "has_sail_cover": {"type": "boolean"}, "duration_min": {"type": "long"}}}),
    )
    .unwrap();
    EmbeddedIndex::create(dir, "hireboats", &records, &mapping, &qa_core::progress::Silent).unwrap();
    (EmbeddedIndex::open(dir, "hireboats").unwrap(), records)
}

fn per_skipper(records: &[Map<String, Value>]) -> BTreeMap<(String, String), u64> {
    let mut out = BTreeMap::new();
    for r in records {
        *out.entry((r["skipper_first_name"].as_str().unwrap().to_string(), r["skipperLastName"].as_str().unwrap().to_string())).or_insert(0) += 1;
    }
    out
}

#[test]
fn the_records_are_what_their_dated_own_code_names() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rides(dir.path());
    // `ride_code` and `boat_code` are both held once per sampled record; rides have a date.
    let run = answered(&engine, dir.path(), "How many rides did members take?");
    let want = records.iter().filter(|r| r["is_member"] == true).count() as u64;
    assert_eq!(run.answer.total, Some(want), "{}", run.answer.query_summary);
}

#[test]
fn people_in_two_name_fields_are_ranked_and_counted_as_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rides(dir.path());
    let counts = per_skipper(&records);
    let (leader, most) = counts.iter().max_by_key(|(_, n)| **n).map(|(k, n)| (k.clone(), *n)).unwrap();
    let run = answered(&engine, dir.path(), "Which skipper took the most rides?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].contains(&json!(leader.0)) && rows[0].contains(&json!(leader.1)) && rows[0].contains(&json!(most)), "{rows:?} want {leader:?} {most}");
    // Counting one half would merge namesakes (3 first names, 3 last names, 5 people).
    let run = answered(&engine, dir.path(), "How many different skippers have taken a ride?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert!(rows.iter().flatten().any(|v| v == &json!(counts.len())), "{rows:?}");
}

#[test]
fn two_values_of_one_field_side_by_side_are_compared_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rides(dir.path());
    let run = answered(&engine, dir.path(), "What is the average duration in minutes for members and for non-members?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert_eq!(rows.len(), 2, "{rows:?} {}", run.answer.query_summary);
    let avg = |m: bool| {
        let xs: Vec<f64> = records.iter().filter(|r| r["is_member"] == m).map(|r| r["duration_min"].as_f64().unwrap()).collect();
        xs.iter().sum::<f64>() / xs.len() as f64
    };
    for (m, key) in [(true, 1), (false, 0)] {
        let row = rows.iter().find(|r| r[0] == json!(key)).unwrap_or_else(|| panic!("{rows:?}"));
        assert!(row.iter().any(|v| v.as_f64().is_some_and(|x| (x - avg(m)).abs() < 1e-6)), "{row:?} want {}", avg(m));
    }
}

#[test]
fn a_verb_naming_part_of_a_two_word_flag_sets_no_flag() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rides(dir.path());
    // "covered" is of the family of "cover" in `has_sail_cover`, which it does not say.
    let run = ask(&engine, dir.path(), "How many rides covered more than 60 minutes?", opts());
    let body = run.answer.es_query.clone().unwrap_or_default().to_string();
    assert!(!body.contains("has_sail_cover"), "{body}");
    if run.answer.status == Status::Answered {
        let want = records.iter().filter(|r| r["duration_min"].as_i64().unwrap() > 60).count() as u64;
        assert_eq!(run.answer.total, Some(want), "{}", run.answer.query_summary);
    }
}

#[test]
fn a_date_asked_for_is_the_records_own_date() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rides(dir.path());
    let run = answered(&engine, dir.path(), "Which rides did Bo Lind take? Give the ride code and date.");
    let want = records.iter().filter(|r| r["skipper_first_name"] == "Bo" && r["skipperLastName"] == "Lind").count() as u64;
    assert_eq!(run.answer.total, Some(want), "{}", run.answer.query_summary);
    assert!(run.answer.hits.iter().all(|h| h.get("ride_date").is_some() && h.get("booked_on").is_none()), "{:?}", run.answer.hits.first());
}

#[test]
fn a_field_fixed_to_one_value_is_no_group() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = rides(dir.path());
    let run = answered(&engine, dir.path(), "Which ride has code RD-10007?");
    assert!(run.answer.aggregations.is_none() && run.answer.hits.len() == 1, "{}", run.answer.query_summary);
    assert_eq!(run.answer.hits[0]["ride_code"], "RD-10007");
}
