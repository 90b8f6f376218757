//! Questions over a made-up index of lodge stays in the embedded engine: a score some stays
//! lack, a star rating said as "4-star", two dates (the stay and when it was booked) and a
//! number of nights. Expected answers are computed from the records.

use super::tests::{answered, ask, opts};
use super::*;
use crate::embedded::EmbeddedIndex;
use crate::Mapping;
use serde_json::{Map, json};

const LODGES: [&str; 5] = ["Birch Hollow", "Cedar Ridge", "Fern Gully", "Heron Point", "Larch Bay"];

fn stays(dir: &Path) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    stays_named(dir, "stays")
}

fn stays_named(dir: &Path, name: &str) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    let records: Vec<Map<String, Value>> = (0..90)
        .map(|i| {
            let mut r = json!({
                "stay_code": format!("S-{i:04}"),
                "lodgeName": LODGES[i % 5],
                "star_rating": 3 + (i % 5) % 3,
                "stay_date": format!("2025-{:02}-{:02}", 1 + i % 9, 1 + i % 28),
                "booked_on": format!("2024-{:02}-{:02}", 1 + (i * 7) % 12, 1 + (i * 3) % 28),
                "nights_stayed": 1 + (i * 5) % 13,
                "overallScore": 5 + (i * 3) % 6,
            });
            // Some guests left no cleanliness score.
            if i % 4 != 0 {
                r["cleanliness_score"] = json!(4 + i % 7);
            }
            r.as_object().unwrap().clone()
        })
        .collect();
    let mapping = Mapping::from_es_json(
        name,
        &json!({"properties": {"stay_code": {"type": "keyword"}, "lodgeName": {"type": "keyword"}, "star_rating": {"type": "long"}, "stay_date": {"type": "date"},
            "booked_on": {"type": "date"}, "nights_stayed": {"type": "long"}, "cleanliness_score": {"type": "long"}, "overallScore": {"type": "long"}}}),
    )
    .unwrap();
    EmbeddedIndex::create(dir, name, &records, &mapping, &qa_core::progress::Silent).unwrap();
    (EmbeddedIndex::open(dir, name).unwrap(), records)
}

#[test]
fn no_score_is_a_score_never_given() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = stays(dir.path());
    let run = answered(&engine, dir.path(), "How many stays at our 4-star lodges have no cleanliness score?");
    let want = records.iter().filter(|r| r["star_rating"] == 4 && !r.contains_key("cleanliness_score")).count() as u64;
    assert_eq!(run.answer.total, Some(want), "{}", run.answer.query_summary);
}

#[test]
fn each_of_our_lodges_groups_by_lodge() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = stays(dir.path());
    for q in ["How many stays did each of our 4-star lodges get?", "How many stays did each 4-star lodge get?"] {
        let run = answered(&engine, dir.path(), q);
        let (_, rows, _) = crate::eval::answer_rows(&run.answer);
        let want: std::collections::BTreeSet<String> = records.iter().filter(|r| r["star_rating"] == 4).map(|r| r["lodgeName"].as_str().unwrap().to_string()).collect();
        let got: std::collections::BTreeSet<String> = rows.iter().filter_map(|r| r[0].as_str().map(str::to_string)).collect();
        assert_eq!(got, want, "{q}: {}", run.answer.query_summary);
    }
}

#[test]
fn a_ranking_adjective_takes_the_field_its_noun_names() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = stays(dir.path());
    // "bookings" names when a stay was booked, not the stay's own date.
    let run = answered(&engine, dir.path(), "What are the five most recent bookings?");
    assert!(run.answer.query_summary.contains("booked_on") && !run.answer.query_summary.contains("stay_date"), "{}", run.answer.query_summary);
    // How long a stay is, is no date.
    let run = ask(&engine, dir.path(), "What were the 3 longest stays?", opts());
    assert!(!run.answer.query_summary.contains("stay_date"), "{}", run.answer.query_summary);
}

#[test]
fn the_records_are_what_their_own_code_names_and_dated_by_their_own_date() {
    let dir = tempfile::tempdir().unwrap();
    // The index is `lodging`; its records are "stays", as their `stay_code` says — and with two
    // dates and no verb, "in March 2025" is the stay's own date.
    let (engine, records) = stays_named(dir.path(), "lodging");
    let run = answered(&engine, dir.path(), "How many stays were there in March 2025?");
    let want = records.iter().filter(|r| r["stay_date"].as_str().unwrap().starts_with("2025-03")).count() as u64;
    assert_eq!(run.answer.total, Some(want), "{}", run.answer.query_summary);
    let run = answered(&engine, dir.path(), "How many stays were there in each month of 2025, by stay date?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    assert!(rows.iter().all(|r| r[0].as_str().is_some_and(|m| m.starts_with("2025-"))), "{rows:?}");
}

#[test]
fn a_filler_word_that_opens_a_fields_name_is_that_name() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = stays(dir.path());
    let run = answered(&engine, dir.path(), "What is the average overall score of each lodge?");
    assert!(run.answer.query_summary.contains("overallScore"), "{}", run.answer.query_summary);
}

#[test]
fn the_average_number_of_a_count_and_a_verb_that_only_relates() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = stays(dir.path());
    let run = answered(&engine, dir.path(), "What is the average number of nights stayed at each lodge?");
    assert!(run.answer.query_summary.contains("nights_stayed"), "{}", run.answer.query_summary);
    // "gave" relates the stays to their score: no condition of its own.
    let run = answered(&engine, dir.path(), "How many stays gave an overall score of 6 or lower?");
    let want = records.iter().filter(|r| r["overallScore"].as_i64().unwrap() <= 6).count() as u64;
    assert_eq!(run.answer.total, Some(want), "{}", run.answer.query_summary);
}
