//! The router's reading on a made-up source of a domain none of the samples has: a hotel's
//! guest-survey store.

use chrono::NaiveDate;

use super::*;
use crate::filters::extract;
use crate::profile::{FieldProfile, FieldRole};
use crate::score::{Target, decide, score_source};

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 5, 20).unwrap()
}

fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, day)
}

fn field(name: &str, role: FieldRole, values: &[&str]) -> FieldProfile {
    FieldProfile { name: name.into(), role, values: values.iter().map(|v| v.to_string()).collect(), aliases: vec![], synonyms: vec![] }
}

fn surveys() -> SourceProfile {
    let mut p = SourceProfile::new(Target::Sql, "hotel.db");
    p.collections = vec!["guest_surveys".into(), "stays".into()];
    p.fields = vec![
        field("satisfactionRating", FieldRole::Number, &[]),
        field("country_code", FieldRole::Category, &["CA", "US", "MX"]),
        field("room_type", FieldRole::Category, &["suite", "double room", "bunk_bed"]),
        field("checkInDate", FieldRole::Date, &[]),
        field("nightly_rate_usd", FieldRole::Number, &[]),
        FieldProfile { name: "stay_channel".into(), role: FieldRole::Category, values: vec!["Walk-in".into(), "Agency".into()], aliases: vec![("travel agent".into(), "Agency".into()), ("concierge".into(), "Butler".into())], synonyms: vec!["booked through".into()] },
    ];
    p
}

fn read(q: &str) -> Matches {
    matches(&qa_question::analyse(q, today()), &surveys())
}

fn fields(m: &Matches) -> Vec<&str> {
    m.fields.iter().map(|(_, f)| f.as_str()).collect()
}

fn values(m: &Matches) -> Vec<(&str, &str)> {
    m.values.iter().map(|v| (v.field.as_str(), v.value.as_str())).collect()
}

#[test]
fn a_field_said_naturally_is_named() {
    let m = read("What is the average satisfaction rating of stays?");
    assert_eq!(fields(&m), ["satisfactionRating"], "{m:?}");
    assert_eq!(m.collections, [("stays".to_string(), "stays".to_string())]);
    // The core of a name (its unit dropped), a camelCase date, a whole multi-word collection.
    let m = read("nightly rate and check in date of guest surveys");
    assert_eq!(fields(&m), ["checkInDate", "nightly_rate_usd"], "{m:?}");
    assert_eq!(m.collections.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(), ["guest_surveys"]);
    // A synonym of the semantic file.
    assert_eq!(fields(&read("stays booked through an agency")), ["stay_channel"]);
}

#[test]
fn a_value_with_its_field_is_one_filter_and_names_both() {
    let m = read("How many stays from country code CA?");
    assert_eq!(values(&m), [("country_code", "CA")], "{m:?}");
    assert_eq!(m.values[0].phrase, "country code ca");
    assert_eq!(fields(&m), ["country_code"], "{m:?}");
    let (score, reasons) = score_source("How many stays from country code CA?", &surveys(), &extract("How many stays from country code CA?", Some(&surveys()), today()));
    // stays 2 + field 1 + value 2 + records 0.5.
    assert_eq!(score, 5.5, "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("is country_code = \"CA\"")), "{reasons:?}");
    // A stored value in its own words ("bunk bed" for `bunk_bed`, "walk-in"), or an alias.
    assert_eq!(values(&read("guests in a bunk bed who came walk-in")), [("room_type", "bunk_bed"), ("stay_channel", "Walk-in")]);
    let m = read("stays booked by a travel agent");
    assert_eq!(values(&m), [("stay_channel", "Agency")]);
    assert!(m.values[0].via_alias);
}

#[test]
fn an_alias_for_a_missing_value_is_dropped_with_a_warning() {
    let f = extract("stays arranged by the concierge", Some(&surveys()), today());
    assert!(f.values.is_empty(), "{f:?}");
    assert!(f.warnings.iter().any(|w| w.contains("Butler") && w.contains("dropped")), "{f:?}");
}

#[test]
fn relative_dates_and_quarters() {
    let f = extract("stays last month", Some(&surveys()), today());
    let r = f.date_range.clone().expect("last month");
    assert_eq!((r.from, r.to), (d(2026, 4, 1), d(2026, 4, 30)));
    assert!(f.years.is_empty(), "{f:?}");
    let f = extract("average satisfaction rating in Q1 2025", Some(&surveys()), today());
    let r = f.date_range.clone().expect("a quarter");
    assert_eq!((r.from, r.to, f.years.as_slice()), (d(2025, 1, 1), d(2025, 3, 31), &[2025][..]));
    let f = extract("guest surveys of the first quarter of 2024 and last year", None, today());
    let r = f.date_range.unwrap();
    assert_eq!((r.from, r.to, f.years.as_slice()), (d(2024, 1, 1), d(2024, 3, 31), &[2024, 2025][..]));
    let r = extract("stays between 2021 and 2023", None, today()).date_range.unwrap();
    assert_eq!((r.from, r.to), (d(2021, 1, 1), d(2023, 12, 31)));
    let r = extract("stays since June 2025", None, today()).date_range.unwrap();
    assert_eq!((r.from, r.to), (d(2025, 6, 1), None));
    // A count after a comparator is no year.
    assert!(extract("stays with more than 2000 nights", None, today()).years.is_empty());
}

#[test]
fn a_partial_or_misspelt_word_does_not_route() {
    // A part of a name, a misspelt name or value, a value in the wrong case for a code, a
    // collection's words written together: nothing is named.
    for q in ["What is the satisfaction of guests?", "average satisfcation ratting", "guests from ca", "rooms of type suiet", "guestsurveys", "the rate"] {
        let m = read(q);
        assert!(m.fields.is_empty() && m.values.is_empty() && m.collections.is_empty(), "{q}: {m:?}");
    }
    // So a question that only says such words stays with the documents.
    let mut docs = SourceProfile::new(Target::Documents, "handbook");
    docs.entities = vec!["housekeeping".into()];
    let d = decide("What is the satisfaction of guests with housekeeping?", &[docs, surveys()], today());
    assert_eq!(d.target, Target::Documents, "{d:?}");
    assert_eq!(d.scores.sql, Some(0.0), "{d:?}");
}

#[test]
fn the_schema_keeps_roles_values_and_aliases() {
    let s = surveys().schema();
    assert_eq!(s.collections.len(), 3);
    let f = s.field("", "country_code").unwrap();
    assert_eq!((f.kind, f.values.len()), (qa_question::FieldKind::Keyword, 3));
    assert_eq!(s.field("", "checkInDate").unwrap().kind, qa_question::FieldKind::Date);
    assert_eq!(s.field("", "satisfactionRating").unwrap().kind, qa_question::FieldKind::Number);
    assert_eq!(s.aliases.len(), 2);
    assert_eq!(s.field("", "stay_channel").unwrap().synonyms, ["booked through"]);
}
