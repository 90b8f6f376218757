use super::*;
use crate::profile::{FieldProfile, FieldRole, SourceProfile};

fn today() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 5, 20).unwrap()
}

fn field(name: &str, role: FieldRole, values: &[&str]) -> FieldProfile {
    FieldProfile { name: name.into(), role, values: values.iter().map(|v| v.to_string()).collect(), aliases: vec![], synonyms: vec![] }
}

fn library_sql() -> SourceProfile {
    let mut p = SourceProfile::new(Target::Sql, "library.db");
    p.collections = vec!["loans".into(), "books".into(), "members".into()];
    p.fields = vec![field("genre", FieldRole::Category, &["Poetry", "Science Fiction", "History"]), field("due_date", FieldRole::Date, &[]), field("branch", FieldRole::Category, &["Harbour", "Old Town"])];
    p
}

fn sensors_es() -> SourceProfile {
    let mut p = SourceProfile::new(Target::Es, "readings");
    p.collections = vec!["readings".into()];
    p.fields = vec![field("sensor_type", FieldRole::Category, &["humidity", "pressure"]), field("site", FieldRole::Category, &["Quarry North", "Dock 4"]), field("recorded_at", FieldRole::Date, &[])];
    p
}

fn docs() -> SourceProfile {
    let mut p = SourceProfile::new(Target::Documents, "handbook");
    p.entities = vec!["deep sleep".into(), "battery".into(), "BME280".into()];
    p
}

#[test]
fn each_question_goes_to_the_source_it_names() {
    let sources = [docs(), library_sql(), sensors_es()];
    let d = decide("How many poetry books are on loan at the Harbour branch?", &sources, today());
    assert_eq!(d.target, Target::Sql, "{d:?}");
    let d = decide("Average pressure readings per site in 2025", &sources, today());
    assert_eq!(d.target, Target::Es, "{d:?}");
    assert_eq!(d.extracted_filters.years, [2025]);
    let d = decide("How does deep sleep affect the battery?", &sources, today());
    assert_eq!(d.target, Target::Documents, "{d:?}");
    assert!(d.scores.sql.is_some() && d.scores.es.is_some() && d.scores.documents.is_some());
}

#[test]
fn one_column_word_is_not_enough_for_a_structured_source() {
    let d = decide("What is the genre of this novel?", &[docs(), library_sql()], today());
    assert_eq!(d.target, Target::Documents, "{d:?}");
    // Without documents, the structured source answers anyway.
    let d = decide("What is the genre of this novel?", &[library_sql()], today());
    assert_eq!(d.target, Target::Sql);
}

#[test]
fn a_collection_the_documents_know_nothing_of_goes_to_its_source() {
    let mut es = SourceProfile::new(Target::Es, "parcels");
    es.collections = vec!["parcels".into()];
    es.fields = vec![field("weight_kg", FieldRole::Number, &[]), field("state", FieldRole::Category, &["in_transit", "lost"])];
    let sources = [docs(), es];
    let d = decide("parcels heavier than 20 kg", &sources, today());
    assert_eq!(d.target, Target::Es, "{d:?}");
    assert_eq!(d.query_type, QueryType::Simple, "a comparison asks for records: {d:?}");
    let d = decide("average weight of the parcels", &sources, today());
    assert!(d.reasons.iter().any(|r| r.contains("names field weight_kg")), "{d:?}");
    let d = decide("parcels in transit", &sources, today());
    assert_eq!(d.extracted_filters.values[0].value, "in_transit", "{d:?}");
    assert_eq!((d.query_type, d.confidence), (QueryType::Simple, 0.7), "a filter-only question: {d:?}");
    // No cue and no filter: the documented fallback stands.
    let d = decide("parcels", &sources, today());
    assert_eq!((d.target, d.query_type, d.confidence), (Target::Es, QueryType::Complex, 0.5), "{d:?}");
    // The documents name the battery: they keep the question.
    let d = decide("How long do parcels of batteries last?", &sources, today());
    assert_eq!(d.target, Target::Documents, "{d:?}");
}
