//! Plans over two made-up indexes (customs declarations, class bookings): the records said in
//! another word, the date every record holds, a noun that names a date, two fields one word
//! names alike, and the small words around measures ("on average", "a single", "kind of").

use super::tests::{filters, today};
use super::*;
use serde_json::json;


pub(super) fn top(xs: &[&str]) -> Vec<(String, u64)> {
    xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect()
}

/// Declarations: an own code held once per document, a date every document holds and one set
/// later, two country fields, a classifier named `<noun>_category`, a count kept per document.
fn declarations() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "customs_declarations",
        &json!({"properties": {
            "declaration_id": {"type": "keyword"}, "submittedDate": {"type": "date"}, "clearedDate": {"type": "date"},
            "port_name": {"type": "keyword"}, "portCountry": {"type": "keyword"}, "originCountry": {"type": "keyword"},
            "goods_category": {"type": "keyword"}, "status": {"type": "keyword"}, "transport_mode": {"type": "keyword"},
            "packageCount": {"type": "long"}, "dutyPaidEur": {"type": "double"}, "declared_value_eur": {"type": "double"},
            "weight_kg": {"type": "double"}, "inspection_time_sec": {"type": "long"}, "inspecting_officer": {"type": "keyword"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("declaration_id".into(), (0..60).map(|i| (format!("CD-{i:04}"), 1)).collect());
    meta.values.insert("port_name".into(), top(&["Algeciras", "Medyka", "Gdansk"]));
    meta.values.insert("portCountry".into(), top(&["ES", "PL", "NL"]));
    meta.values.insert("originCountry".into(), top(&["CN", "US", "VN"]));
    meta.values.insert("goods_category".into(), top(&["tobacco", "electronics", "seafood"]));
    meta.values.insert("status".into(), top(&["cleared", "held", "seized"]));
    meta.values.insert("transport_mode".into(), top(&["sea", "road", "air"]));
    meta.ranges.insert("submittedDate".into(), (json!("2024-03-01"), json!("2025-10-30")));
    meta.ranges.insert("clearedDate".into(), (json!("2024-03-02"), json!("2025-10-30")));
    meta.present.insert("submittedDate".into(), 350);
    meta.present.insert("clearedDate".into(), 300);
    meta.values.insert("inspecting_officer".into(), top(&["Manuel Ortega", "Anna Nowak"]));
    meta.present.insert("inspecting_officer".into(), 120);
    meta.present.insert("port_name".into(), 350);
    meta.total = Some(350);
    (mapping, meta)
}

/// Class bookings: the booking's own code, the date it was booked and the date of the class,
/// a member's name in two fields and the member's tier.
fn bookings() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "fitness_classes",
        &json!({"properties": {
            "booking_id": {"type": "keyword"}, "booked_date": {"type": "date"}, "classDate": {"type": "date"},
            "class_type": {"type": "keyword"}, "member_first_name": {"type": "keyword"}, "memberLastName": {"type": "keyword"},
            "membership_tier": {"type": "keyword"}, "price_eur": {"type": "double"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("booking_id".into(), (0..60).map(|i| (format!("BK-{i:04}"), 1)).collect());
    meta.values.insert("class_type".into(), top(&["yoga", "boxing", "spinning"]));
    meta.values.insert("member_first_name".into(), top(&["Laura", "Fleur", "Daan"]));
    meta.values.insert("memberLastName".into(), top(&["Schmidt", "de Boer", "Meijer"]));
    meta.values.insert("membership_tier".into(), top(&["premium", "basic"]));
    for d in ["booked_date", "classDate"] {
        meta.ranges.insert(d.into(), (json!("2024-01-02"), json!("2025-12-20")));
        meta.present.insert(d.into(), 352);
    }
    meta.total = Some(352);
    (mapping, meta)
}

pub(super) fn run(index: &(Mapping, Metadata), q: &str) -> Result<EsPlan, Ambiguity> {
    let semantic = Semantic::default();
    let choices = Choices::new();
    let input = PlanInput { mapping: &index.0, meta: &index.1, semantic: &semantic, choices: &choices, force: false, today: today(), sample_size: 50, max_buckets: 1000 };
    build(q, &input, None).map(|p| p.plan).map_err(|e| e.0)
}

fn plan(index: &(Mapping, Metadata), q: &str) -> EsPlan {
    run(index, q).unwrap_or_else(|a| panic!("{q:?} asked: {a:?}"))
}

fn asks(index: &(Mapping, Metadata), q: &str) -> Ambiguity {
    match run(index, q) {
        Err(a) => a,
        Ok(p) => panic!("{q:?} answered: {} {:?}", p.summary(), p.coverage),
    }
}


#[test]
fn the_date_every_record_holds_dates_a_year_no_word_places() {
    let d = declarations();
    let p = plan(&d, "How many declarations in 2025?");
    assert_eq!(filters(&p), ["submittedDate from 2025-01-01 and before 2026-01-01"]);
    assert!(p.notes.iter().any(|n| n.contains("submittedDate")), "{:?}", p.notes);
    // A verb that only a measure's name shares ("declared" of `declared_value_eur`) names no date.
    assert_eq!(filters(&plan(&d, "the five heaviest declarations declared in 2025")), ["submittedDate from 2025-01-01 and before 2026-01-01"]);
    // Without the counts, nothing says which date: ask.
    let mut blind = declarations();
    blind.1.present.clear();
    blind.1.total = None;
    assert_eq!(asks(&blind, "How many declarations in 2025?").field, DATE_CHOICE);
    // Both dates on every booking: still a question, unless a noun before names one.
    let b = bookings();
    assert_eq!(asks(&b, "How many bookings in 2025?").field, DATE_CHOICE);
    assert_eq!(filters(&plan(&b, "How many bookings were there for classes in March 2025?")), ["classDate from 2025-03-01 and before 2025-04-01"]);
    assert_eq!(filters(&plan(&b, "How many bookings were for classes held in 2024?")), ["classDate from 2024-01-01 and before 2025-01-01"]);
}

#[test]
fn the_records_said_in_another_word_and_what_still_asks() {
    let d = declarations();
    let p = plan(&d, "How many tobacco consignments were seized?");
    assert_eq!(p.intent, Intent::Count);
    assert_eq!(filters(&p), ["goods_category is \"tobacco\"", "status is \"seized\""]);
    assert!(p.notes.iter().any(|n| n.contains("consignments")), "{:?}", p.notes);
    assert_eq!(filters(&plan(&d, "How many shipments weighed over 20 tonnes?")), ["weight_kg over 20000"]);
    // Something one named document has, the object of a verb, or a word after "each": asks.
    asks(&d, "How many viewings did declaration CD-0003 get?");
    asks(&d, "How many seized declarations had fatalities?");
    asks(&d, "How many declarations did each broker clear?");
    // "on hold" is a state the plan must place, not a light verb.
    asks(&d, "How many declarations are on hold?");
}

#[test]
fn one_word_for_two_fields_asks_and_by_before_a_value_names_who() {
    let d = declarations();
    let amb = asks(&d, "total duty paid per country");
    assert_eq!(amb.alternatives, ["originCountry", "portCountry"]);
    // The halves of one person's name are one person, not a choice.
    let b = bookings();
    let p = plan(&b, "How many bookings has each member made?");
    assert!(!p.groups.is_empty(), "{}", p.summary());
    // "bookings by premium members": the tier is a condition, nobody is grouped.
    let p = plan(&b, "How many bookings by premium members were for yoga classes?");
    assert!(p.groups.is_empty(), "{}", p.summary());
    assert_eq!(filters(&p), ["class_type is \"yoga\"", "membership_tier is \"premium\""]);
}

#[test]
fn on_average_a_single_document_and_a_kind_of_thing() {
    let d = declarations();
    let p = plan(&d, "On average, how many packages are on a declaration that came in by road?");
    assert_eq!(p.metric, Some(("avg".to_string(), "packageCount".to_string())));
    let p = plan(&d, "How many packages came in by road?");
    assert_eq!(p.metric, Some(("sum".to_string(), "packageCount".to_string())));
    let p = plan(&d, "What is the highest weight of a single declaration?");
    assert_eq!(p.metric, Some(("max".to_string(), "weight_kg".to_string())));
    // The largest value for each group is every group's value, not the top group.
    let p = plan(&d, "What's the largest weight of a single declaration for each transport mode?");
    assert!(matches!(&p.groups[..], [Group::Terms { size, .. }] if *size != 1), "{:?}", p.groups);
    assert_eq!(p.metric, Some(("max".to_string(), "weight_kg".to_string())));
    let p = plan(&d, "What is the average declared value for each kind of goods?");
    assert!(matches!(&p.groups[..], [Group::Terms { field, .. }] if field == "goods_category"), "{:?}", p.groups);
    // A time with its unit after it.
    let p = plan(&d, "Average inspection time in seconds for each port");
    assert_eq!(p.metric, Some(("avg".to_string(), "inspection_time_sec".to_string())));
}

#[test]
fn a_verb_of_paying_beside_the_money_field_is_its_verb() {
    let b = bookings();
    let p = plan(&b, "What is the highest price anyone paid for a yoga class?");
    assert_eq!(p.metric, Some(("max".to_string(), "price_eur".to_string())));
    assert!(p.coverage.unmapped.is_empty(), "{:?}", p.coverage);
}

#[test]
fn with_or_without_a_field_some_documents_lack() {
    let d = declarations();
    let p = plan(&d, "How many declarations at Medyka had no inspecting officer?");
    assert!(p.filters.iter().any(|f| matches!(f, Filter::Exists { field, negated: true } if field == "inspecting_officer")), "{}", p.summary());
    let p = plan(&d, "Which declarations have an inspecting officer?");
    assert!(p.filters.iter().any(|f| matches!(f, Filter::Exists { field, negated: false } if field == "inspecting_officer")), "{}", p.summary());
    // A field every document holds is no "with" condition.
    asks(&d, "Which declarations have no port name?");
}

#[test]
fn a_measure_with_a_unit_is_no_group_of_a_related_word() {
    let d = declarations();
    // "inspector" is of the family of `inspection_time_sec`: never its values as groups.
    if let Ok(p) = run(&d, "How many declarations did each inspector clear?") {
        assert!(!p.groups.iter().any(|g| g.field() == "inspection_time_sec"), "{}", p.summary());
    }
}

#[test]
fn a_calendar_adjective_before_a_figure_groups_by_its_interval() {
    let d = declarations();
    let p = plan(&d, "Monthly count of declarations for the first quarter of 2025");
    assert!(matches!(&p.groups[..], [Group::Calendar { field, interval }] if field == "submittedDate" && interval == "month"), "{:?}", p.groups);
}

/// Lost property: three dates none of which every record is known to hold, a stop name, prose.
fn lost_items() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "lost_property",
        &json!({"properties": {
            "item_ref": {"type": "keyword"}, "found_date": {"type": "date"}, "claimed_date": {"type": "date"}, "registeredDate": {"type": "date"},
            "stop_name": {"type": "keyword"}, "city": {"type": "keyword"}, "description": {"type": "text"}, "finderNote": {"type": "text"},
            "estimatedValueEur": {"type": "double"}, "claimFeeEur": {"type": "double"}, "category": {"type": "keyword"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("item_ref".into(), (0..60).map(|i| (format!("LP-2025-{i:05}"), 1)).collect());
    meta.values.insert("stop_name".into(), top(&["Groenplaats", "Zuidplein"]));
    meta.values.insert("city".into(), top(&["Antwerp", "Brussels"]));
    meta.values.insert("category".into(), top(&["jewellery", "bag", "umbrella"]));
    (mapping, meta)
}

#[test]
fn a_common_verb_in_a_date_fields_name_dates_and_a_place_is_no_text() {
    let l = lost_items();
    // "found" is too common a word to link, yet `found_date` holds it: that date.
    let p = plan(&l, "Which items were found at Groenplaats in 2025?");
    assert!(filters(&p).contains(&"found_date from 2025-01-01 and before 2026-01-01".to_string()), "{:?}", filters(&p));
    // No verb leaves the three dates to choose from.
    assert_eq!(asks(&l, "How many items at Groenplaats in 2025?").field, DATE_CHOICE);
    // "near an escalator": the place's preposition and article are not words of the text.
    let p = plan(&l, "Which items in Brussels were found near an escalator?");
    let text = p.filters.iter().find_map(|f| match f {
        Filter::Text { text, .. } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(text.as_deref(), Some("escalator"), "{:?}", filters(&p));
    // Two amounts in euros: "worth" before the cue says the value.
    let p = plan(&l, "List the jewellery worth more than 500 euros.");
    assert!(filters(&p).iter().any(|f| f.contains("estimatedValueEur")), "{:?}", filters(&p));
    assert_eq!(asks(&l, "List the jewellery over 500 euros.").message, "Which field does \"over 500 euros\" compare?");
}
