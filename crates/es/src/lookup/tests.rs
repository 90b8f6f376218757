use super::*;
use crate::semantic::{Semantic, SemanticField, ValueAlias};

fn library() -> (Mapping, Metadata) {
    let m = Mapping::from_es_json(
        "loans",
        &json!({"properties": {
            "branch": {"type": "keyword"}, "genre": {"type": "keyword"}, "borrower_city": {"type": "keyword"},
            "loaned_on": {"type": "date"}, "returned_on": {"type": "date"}, "pages": {"type": "integer"},
            "title": {"type": "text", "fields": {"keyword": {"type": "keyword"}}}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("branch".into(), vec![("Harbour".into(), 10), ("Old Town".into(), 5)]);
    meta.values.insert("genre".into(), vec![("poetry".into(), 3), ("history".into(), 4)]);
    meta.values.insert("borrower_city".into(), vec![("Harbour".into(), 2), ("Lisbon".into(), 9)]);
    (m, meta)
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 5, 20).unwrap()
}

#[test]
fn fields_values_and_intent() {
    let (m, meta) = library();
    let a = analyse("How many poetry loans at the old town branch?", &m, &meta, &Semantic::default(), today());
    assert_eq!(a.intent_type, Intent::Count);
    let vals: Vec<(&str, &str, MatchKind)> = a.mappings.iter().filter_map(|x| Some((x.field.as_str(), x.value.as_deref()?, x.match_kind))).collect();
    assert!(vals.contains(&("genre", "poetry", MatchKind::Exact)), "{vals:?}");
    assert!(vals.contains(&("branch", "Old Town", MatchKind::CaseInsensitive)), "{vals:?}");
    let a = analyse("average pages per genre", &m, &meta, &Semantic::default(), today());
    assert_eq!(a.intent_type, Intent::Aggregation);
    assert_eq!(a.metric, Some(("avg".to_string(), "pages".to_string())));
    assert_eq!(a.group_term.as_deref(), Some("genre"));
}

#[test]
fn fuzzy_aliases_synonyms_dates_and_numbers() {
    let (m, meta) = library();
    let mut sem = Semantic::default();
    sem.value_aliases.push(ValueAlias { phrase: "verse".into(), field: "genre".into(), values: vec!["poetry".into()] });
    sem.fields.insert("borrower_city".into(), SemanticField { description: None, synonyms: vec!["hometown".into()] });
    let a = analyse("verse books by hometown with more than 300 pages returned in March 2026 from Lisbn", &m, &meta, &sem, today());
    let find = |k: MatchKind| a.mappings.iter().find(|x| x.match_kind == k).map(|x| (x.field.clone(), x.value.clone()));
    assert_eq!(find(MatchKind::Alias), Some(("genre".into(), Some("poetry".into()))));
    assert_eq!(find(MatchKind::Fuzzy), Some(("borrower_city".into(), Some("Lisbon".into()))));
    assert_eq!(find(MatchKind::Synonym), Some(("borrower_city".into(), None)));
    assert_eq!(a.comparisons[0].field, "pages");
    assert_eq!((a.comparisons[0].op.as_str(), a.comparisons[0].value), ("gt", 300.0));
    let d = a.date.unwrap();
    assert_eq!((d.from, d.to), (NaiveDate::from_ymd_opt(2026, 3, 1), NaiveDate::from_ymd_opt(2026, 3, 31)));
    assert_eq!(d.named_fields, ["returned_on"]);
    let d = analyse("loans in the last 30 days", &m, &meta, &Semantic::default(), today()).date.unwrap();
    assert_eq!(d.from, NaiveDate::from_ymd_opt(2026, 4, 20));
    assert!(d.named_fields.is_empty(), "no event named: the plan asks");
}

#[test]
fn a_verb_names_the_date_field_of_its_event() {
    let (m, meta) = library();
    let d = |q: &str| analyse(q, &m, &meta, &Semantic::default(), today()).date.unwrap().named_fields;
    assert_eq!(d("books loaned in March 2026"), ["loaned_on"]);
    assert_eq!(d("books loaning last month"), ["loaned_on"]);
    assert_eq!(d("which books got returned this year"), ["returned_on"]);
    assert_eq!(d("books that came back after 2026-01-01"), Vec::<String>::new());
}

/// A rides domain: units in field names, an id-suffixed keyword, a snake_case status.
fn rides() -> (Mapping, Metadata) {
    let m = Mapping::from_es_json(
        "rides",
        &json!({"properties": {
            "distance_km": {"type": "double"}, "price_usd": {"type": "double"}, "driver_id": {"type": "keyword"},
            "status": {"type": "keyword"}, "started_at": {"type": "date"}, "passenger_count": {"type": "long"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("status".into(), vec![("in_progress".into(), 4), ("completed".into(), 40)]);
    meta.values.insert("driver_id".into(), vec![("d-17".into(), 9)]);
    (m, meta)
}

#[test]
fn units_adjectives_snake_case_values_and_rankings() {
    let (m, meta) = rides();
    let a = |q: &str| analyse(q, &m, &meta, &Semantic::default(), today());
    let c = a("rides farther than 12 km").comparisons;
    assert_eq!((c[0].field.as_str(), c[0].op.as_str(), c[0].value), ("distance_km", "gt", 12.0));
    let c = a("rides cheaper than 20 dollars").comparisons;
    assert_eq!((c[0].field.as_str(), c[0].op.as_str()), ("price_usd", "lt"));
    let r = a("rides cheaper than 20 usd");
    assert!(!r.free_text.contains(&"usd".to_string()), "the unit is no text to search: {:?}", r.free_text);
    assert_eq!(a("the most expensive ride").metric, Some(("max".into(), "price_usd".into())));
    assert_eq!(a("which driver has the most rides").metric, None);
    assert_eq!(a("the cheapest ride").metric, Some(("min".into(), "price_usd".into())));
    assert_eq!(a("average distance per driver").metric, Some(("avg".into(), "distance_km".into())));
    assert_eq!(a("average distance per driver").group_term.as_deref(), Some("driver"));
    let v = a("rides in progress");
    assert!(v.mappings.iter().any(|x| x.field == "status" && x.value.as_deref() == Some("in_progress")), "{:?}", v.mappings);
    let g = a("which rides were sent in progress");
    assert!(!g.free_text.contains(&"sent".to_string()), "a verb beside a filter is grammar: {:?}", g.free_text);
    assert!(a("rides that sent flowers").free_text.contains(&"sent".to_string()), "without a filter the words are all there is");
    let t = a("top 3 drivers by number of rides");
    assert_eq!((t.group_term.as_deref(), t.top), (Some("driver"), Some(3)));
    assert_eq!(a("total passengers per driver").metric, Some(("sum".into(), "passenger_count".into())));
}
