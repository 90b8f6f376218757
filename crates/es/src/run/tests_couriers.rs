//! Questions over a made-up courier index in the embedded engine: countries kept as codes in an
//! origin and a destination field, a flag named for a state after a participle
//! (`delivered_late`), two dates one of which a phrasal verb names (`pickup_date`), prose
//! remarks. Expected answers are computed from the records.

use super::tests::{answered, ask, opts};
use super::*;
use crate::embedded::EmbeddedIndex;
use crate::Mapping;
use qa_core::trace::Status;
use serde_json::{Map, json};

const COUNTRIES: [&str; 8] = ["DE", "PL", "NL", "BE", "FR", "AT", "CZ", "CH"];

fn couriers(dir: &Path) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    let remarks = ["Left with a neighbour.", "A barking dog at the gate.", "Box damaged in transit.", "Signed for at reception."];
    let records: Vec<Map<String, Value>> = (0..80)
        .map(|i| {
            let r = json!({
                "parcel_code": format!("P-{i:04}"),
                "originCountry": COUNTRIES[i % 8],
                "destinationCountry": COUNTRIES[(i * 3 + 1) % 8],
                "delivered_late": i % 5 == 0,
                "pickup_date": format!("2025-{:02}-{:02}", 1 + i % 6, 1 + i % 27),
                "deliveredDate": format!("2025-{:02}-{:02}", 1 + (i + 1) % 6, 1 + i % 27),
                "weight_kg": (i % 17) as f64 + 0.5,
                "delayMinutes": if i % 3 == 0 { (i * 7 % 90) as i64 } else { 0 },
                "remarks": remarks[i % 4],
            });
            r.as_object().unwrap().clone()
        })
        .collect();
    let mapping = Mapping::from_es_json(
        "parcels",
        &json!({"properties": {"parcel_code": {"type": "keyword"}, "originCountry": {"type": "keyword"}, "destinationCountry": {"type": "keyword"},
            "delivered_late": {"type": "boolean"}, "pickup_date": {"type": "date"}, "deliveredDate": {"type": "date"}, "weight_kg": {"type": "double"},
            "delayMinutes": {"type": "long"}, "remarks": {"type": "text"}}}),
    )
    .unwrap();
    EmbeddedIndex::create(dir, "parcels", &records, &mapping, &qa_core::progress::Silent).unwrap();
    (EmbeddedIndex::open(dir, "parcels").unwrap(), records)
}

fn count(records: &[Map<String, Value>], f: impl Fn(&Map<String, Value>) -> bool) -> u64 {
    records.iter().filter(|r| f(r)).count() as u64
}

#[test]
fn a_country_said_by_name_after_to_is_the_destination_code() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = couriers(dir.path());
    let run = answered(&engine, dir.path(), "How many parcels went to Poland?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["destinationCountry"] == "PL")), "{}", run.answer.query_summary);
    let run = answered(&engine, dir.path(), "How many parcels came from Switzerland?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["originCountry"] == "CH")), "{}", run.answer.query_summary);
}

#[test]
fn the_state_word_of_a_flag_and_a_phrasal_verbs_date() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = couriers(dir.path());
    let run = answered(&engine, dir.path(), "How many parcels arrived late?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["delivered_late"] == true)), "{}", run.answer.query_summary);
    // "picked up" is `pickup_date`, not the delivery date.
    let run = answered(&engine, dir.path(), "How many parcels were picked up in March 2025?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["pickup_date"].as_str().unwrap().starts_with("2025-03"))), "{}", run.answer.query_summary);
    // "the most late parcels": "late" is the condition, "most" ranks the count.
    let run = answered(&engine, dir.path(), "Which destination country had the most late parcels?");
    assert!(run.answer.query_summary.contains("delivered_late"), "{}", run.answer.query_summary);
    assert!(!run.answer.query_summary.contains("max of"), "{}", run.answer.query_summary);
}

#[test]
fn month_buckets_are_labelled_by_month() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = couriers(dir.path());
    let run = answered(&engine, dir.path(), "How many parcels were picked up in each month of 2025?");
    let (_, rows, _) = crate::eval::answer_rows(&run.answer);
    let march = count(&records, |r| r["pickup_date"].as_str().unwrap().starts_with("2025-03"));
    assert!(rows.iter().any(|r| r[0] == json!("2025-03") && r[1] == json!(march)), "{rows:?}");
}

#[test]
fn words_the_remarks_are_said_to_hold_are_searched_there() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = couriers(dir.path());
    let run = answered(&engine, dir.path(), "How many remarks mention a barking dog?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["remarks"].as_str().unwrap().contains("barking dog"))), "{}", run.answer.query_summary);
    // Not said as what the records hold, nor with a verb of saying: it asks.
    let run = ask(&engine, dir.path(), "What is the neighbour's phone number?", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification, "{}", run.answer.query_summary);
}

#[test]
fn a_participle_of_a_number_field_is_that_number() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = couriers(dir.path());
    // "delayed" of `delayMinutes`: above zero alone, the comparison's verb with a number.
    let run = answered(&engine, dir.path(), "How many delayed parcels were there?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["delayMinutes"].as_i64().unwrap() > 0)), "{}", run.answer.query_summary);
    let run = answered(&engine, dir.path(), "How many parcels were delayed by more than 30 minutes?");
    assert_eq!(run.answer.total, Some(count(&records, |r| r["delayMinutes"].as_i64().unwrap() > 30)), "{}", run.answer.query_summary);
    // The remarks' word "delayed" is not searched in the prose.
    assert!(!run.answer.query_summary.contains("remarks"), "{}", run.answer.query_summary);
}

#[test]
fn the_records_ranked_show_the_listed_fields_without_grouping() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = couriers(dir.path());
    let run = answered(&engine, dir.path(), "Which 3 parcels to Poland were the heaviest? Give the parcel code and weight.");
    assert!(run.answer.query_summary.contains("3 documents"), "documents ranked, not groups per code: {}", run.answer.query_summary);
}
