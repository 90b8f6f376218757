//! Questions over a made-up bike-rental index in the embedded engine: records named by what a
//! classifier field classifies, words the index's prose holds, rankings by a measure, groups of
//! a person kept in two name fields. Expected answers are computed from the records.

use super::tests::{answered, ask, opts};
use super::*;
use crate::embedded::EmbeddedIndex;
use crate::Mapping;
use qa_core::trace::Status;
use serde_json::{Map, json};

const RIDERS: [(&str, &str); 4] = [("Ana", "Lima"), ("Ana", "Berg"), ("Joao", "Lima"), ("Ines", "Sousa")];

fn rentals(dir: &Path) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    let notes = ["Returned with a flat tyre.", "Basket fitted at pickup.", "Rider asked for a child seat.", "Chain oiled before the ride."];
    let records: Vec<Map<String, Value>> = (0..60)
        .map(|i| {
            let (first, last) = RIDERS[i % 4];
            let category = ["city", "cargo", "mountain"][i % 3];
            let r = json!({
                "rental_id": format!("R-{i:03}"),
                "bike_category": category,
                "riderFirstName": first,
                "riderLastName": last,
                "distance_km": (i * 7 % 40) as f64 + 0.5,
                "yearMade": 2015 + (i % 9) as i64,
                "rentedAt": format!("2025-{:02}-{:02}", 1 + i % 12, 1 + i % 27),
                "note": notes[i % 4],
            });
            r.as_object().unwrap().clone()
        })
        .collect();
    let mapping = Mapping::from_es_json(
        "rentals",
        &json!({"properties": {"rental_id": {"type": "keyword"}, "bike_category": {"type": "keyword"}, "riderFirstName": {"type": "keyword"},
            "riderLastName": {"type": "keyword"}, "distance_km": {"type": "double"}, "yearMade": {"type": "long"}, "rentedAt": {"type": "date"},
            "note": {"type": "text"}}}),
    )
    .unwrap();
    EmbeddedIndex::create(dir, "rentals", &records, &mapping, &qa_core::progress::Silent).unwrap();
    (EmbeddedIndex::open(dir, "rentals").unwrap(), records)
}

#[test]
fn the_records_are_what_a_classifier_field_classifies() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rentals(dir.path());
    let run = answered(&engine, dir.path(), "How many bikes were rented in May 2025?");
    let expected = records.iter().filter(|r| r["rentedAt"].as_str().unwrap().starts_with("2025-05")).count() as u64;
    assert_eq!(run.answer.total, Some(expected), "a count of records, not of categories: {}", run.answer.query_summary);
    assert!(!run.answer.query_summary.contains("cardinality"), "{}", run.answer.query_summary);
}

#[test]
fn a_word_the_prose_holds_is_searched_there_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rentals(dir.path());
    let run = answered(&engine, dir.path(), "How many rentals had a basket?");
    let expected = records.iter().filter(|r| r["note"].as_str().unwrap().contains("Basket")).count() as u64;
    assert_eq!(run.answer.total, Some(expected));
    assert!(run.answer.query_summary.contains("note matches \"basket\""), "{}", run.answer.query_summary);
    // A word the prose does not hold is not searched: it asks.
    let run = ask(&engine, dir.path(), "How many rentals had a helmet?", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification);
    // Nor after a negation.
    let run = ask(&engine, dir.path(), "How many rentals had no basket?", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification);
}

#[test]
fn a_ranking_by_a_measure_and_a_count_of_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rentals(dir.path());
    let run = answered(&engine, dir.path(), "Which are the three longest rentals by distance?");
    let mut d: Vec<f64> = records.iter().map(|r| r["distance_km"].as_f64().unwrap()).collect();
    d.sort_by(|a, b| b.total_cmp(a));
    let got: Vec<f64> = run.answer.hits.iter().map(|h| h["distance_km"].as_f64().unwrap()).collect();
    assert_eq!(got, d[..3].to_vec(), "{}", run.answer.query_summary);
    let run = answered(&engine, dir.path(), "Which two bike categories have the most rentals?");
    assert!(run.answer.query_summary.contains("top 2"), "{}", run.answer.query_summary);
    let run = answered(&engine, dir.path(), "How many rentals of bikes made after 2020?");
    let expected = records.iter().filter(|r| r["yearMade"].as_i64().unwrap() > 2020).count() as u64;
    assert_eq!(run.answer.total, Some(expected), "{}", run.answer.query_summary);
}

#[test]
fn a_person_kept_in_two_name_fields_is_grouped_by_both() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rentals(dir.path());
    let run = answered(&engine, dir.path(), "How many rentals per rider?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert_eq!(rows.len(), RIDERS.len(), "two Anas and two Limas are four riders: {rows:?}");
    // A ranking of such pairs is read off every pair; riders tied at the top all show.
    let run = answered(&engine, dir.path(), "Which rider has the most rentals?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    let per = |f: &str, l: &str| records.iter().filter(|r| r["riderFirstName"] == f && r["riderLastName"] == l).count() as u64;
    let most = RIDERS.iter().map(|(f, l)| per(f, l)).max().unwrap();
    let leaders = RIDERS.iter().filter(|(f, l)| per(f, l) == most).count();
    assert_eq!(rows.len(), leaders, "{rows:?}");
    assert!(rows.iter().all(|r| r.contains(&json!(most))), "{rows:?}");
    // "each Lima rider": the words of the groups went to a condition; it asks, never drops
    // the grouping.
    let run = ask(&engine, dir.path(), "How many rentals does each Lima rider have?", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification, "{}", run.answer.query_summary);
    // Said by one half, that half is the group.
    let run = answered(&engine, dir.path(), "How many rentals per rider first name?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert_eq!(rows.len(), 3, "{rows:?}");
}

#[test]
fn the_oldest_thing_is_the_earliest_made() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = rentals(dir.path());
    let run = answered(&engine, dir.path(), "Which are the two oldest bikes?");
    let min = records.iter().map(|r| r["yearMade"].as_i64().unwrap()).min().unwrap();
    assert!(run.answer.hits.iter().all(|h| h["yearMade"].as_i64() == Some(min)), "by the year made, not the rental date: {}", run.answer.query_summary);
}

#[test]
fn the_date_in_a_list_is_the_only_date_field() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = rentals(dir.path());
    let run = answered(&engine, dir.path(), "Which rentals had a basket? Give the rental id and date.");
    assert!(run.answer.hits.iter().all(|h| h.get("rentedAt").is_some()), "{}", run.answer.query_summary);
    // Month buckets are labelled by month.
    let run = answered(&engine, dir.path(), "How many rentals per month in 2025?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert!(rows.iter().all(|r| r[0].as_str().is_some_and(|m| m.len() == 7)), "{rows:?}");
}
