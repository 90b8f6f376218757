//! Plans read from questions over made-up indexes (parcels, library loans, rides): every word
//! used or asked about, conditions bound to the fields they name, shapes, and renderings.

use super::*;
use crate::semantic::{SemanticField, ValueAlias};
use serde_json::json;

pub(super) fn today() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 5, 20).unwrap()
}

/// A parcel-delivery index: camelCase and snake_case names, units in names, two date fields,
/// two booleans, a prose field and a key.
fn parcels() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "parcels",
        &json!({"properties": {
            "parcel_ref": {"type": "keyword"}, "courierName": {"type": "keyword"}, "depot": {"type": "keyword"},
            "originCity": {"type": "keyword"}, "status": {"type": "keyword"}, "isFragile": {"type": "boolean"},
            "signatureRequired": {"type": "boolean"}, "weight_kg": {"type": "double"}, "distance_km": {"type": "double"},
            "attempts": {"type": "long"}, "scheduledAt": {"type": "date"}, "deliveredAt": {"type": "date"},
            "notes": {"type": "text", "fields": {"keyword": {"type": "keyword"}}}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    let v = |xs: &[&str]| xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect::<Vec<_>>();
    meta.values.insert("courierName".into(), v(&["Ana Lima", "Tomas Berg", "Ines Duarte"]));
    meta.values.insert("depot".into(), v(&["Riverside", "North Yard", "Airport"]));
    meta.values.insert("originCity".into(), v(&["Riverside", "Porto", "Leeds"]));
    meta.values.insert("status".into(), v(&["delivered", "returned", "in_transit", "lost"]));
    meta.values.insert("isFragile".into(), v(&["false", "true"]));
    meta.values.insert("signatureRequired".into(), v(&["false", "true"]));
    meta.values.insert("parcel_ref".into(), (0..50).map(|i| (format!("PX-{i:04}"), 1)).collect());
    meta.values.insert("notes.keyword".into(), v(&["The box arrived with a broken seal and was resealed at the depot.", "Left with a neighbour after two failed attempts at the door."]));
    meta.ranges.insert("scheduledAt".into(), (json!("2024-01-03"), json!("2026-04-30")));
    (mapping, meta)
}

struct Asked {
    mapping: Mapping,
    meta: Metadata,
    semantic: Semantic,
}

impl Asked {
    fn new((mapping, meta): (Mapping, Metadata)) -> Asked {
        Asked { mapping, meta, semantic: Semantic::default() }
    }

    fn with(&self, q: &str, choices: &Choices, force: bool) -> Result<EsPlan, Ambiguity> {
        let input = PlanInput { mapping: &self.mapping, meta: &self.meta, semantic: &self.semantic, choices, force, today: today(), sample_size: 50, max_buckets: 1000 };
        build(q, &input, None).map(|p| p.plan).map_err(|e| e.0)
    }

    fn plan(&self, q: &str) -> EsPlan {
        self.with(q, &Choices::new(), false).unwrap_or_else(|a| panic!("{q:?} asked: {a:?}"))
    }

    fn asks(&self, q: &str) -> Ambiguity {
        match self.with(q, &Choices::new(), false) {
            Err(a) => a,
            Ok(p) => panic!("{q:?} answered: {} {:?}", p.summary(), p.coverage),
        }
    }

    fn body(&self, q: &str) -> Value {
        self.plan(q).render(0, 20).1
    }
}

/// The filters in plain language, in order.
pub(super) fn filters(p: &EsPlan) -> Vec<String> {
    let mut f: Vec<String> = p.filters.iter().map(filter_words).collect();
    f.sort();
    f
}

#[test]
fn flags_values_units_and_counts() {
    let a = Asked::new(parcels());
    let p = a.plan("How many fragile parcels weigh more than 2 kg?");
    assert_eq!(p.intent, Intent::Count);
    assert_eq!(filters(&p), ["isFragile is \"true\"", "weight_kg over 2"]);
    // Units convert to the field's: 500 g is 0.5 kg, 1500 m is 1.5 km.
    assert_eq!(filters(&a.plan("parcels heavier than 500 g")), ["weight_kg over 0.5"]);
    assert_eq!(filters(&a.plan("How many parcels travelled further than 1500 m?")), ["distance_km over 1.5"]);
    // The unit says which measure a comparative means; a unit of another kind is no condition.
    assert_eq!(filters(&a.plan("parcels that weigh more than 3 kg")), ["weight_kg over 3"]);
    a.asks("parcels heavier than 3 km");
    // A negated flag, by its prefix or by "not".
    assert_eq!(filters(&a.plan("How many parcels are not fragile?")), ["isFragile is \"false\""]);
    let b = a.body("Show the parcels that needed more than 2 attempts at Riverside depot");
    assert_eq!(b["query"]["bool"]["filter"], json!([{"range": {"attempts": {"gt": 2}}}, {"term": {"depot": "Riverside"}}]), "{b}");
    assert_eq!(b["size"], 20);
    // Every word is accounted for.
    // (Parcels she delivered: their delivery took place.)
    let p = a.plan("How many parcels did Ana Lima deliver?");
    assert!(p.coverage.unmapped.is_empty(), "{:?}", p.coverage);
    assert_eq!(filters(&p), ["courierName is \"Ana Lima\"", "deliveredAt is present"]);
}

#[test]
fn dates_go_to_the_field_the_question_names_or_ask() {
    let a = Asked::new(parcels());
    let p = a.plan("How many parcels were delivered in March 2026?");
    assert_eq!(filters(&p), ["deliveredAt from 2026-03-01 and before 2026-04-01"]);
    let p = a.plan("parcels scheduled since 2025");
    assert_eq!(filters(&p), ["scheduledAt from 2025-01-01"]);
    // No verb of either date's family: which date?
    let amb = a.asks("How many parcels in 2025?");
    assert_eq!((amb.field.as_str(), amb.alternatives.clone()), (DATE_CHOICE, vec!["deliveredAt".to_string(), "scheduledAt".into()]));
    let mut choices = Choices::new();
    choices.insert(DATE_CHOICE.into(), "scheduledAt".into());
    assert_eq!(filters(&a.with("How many parcels in 2025?", &choices, false).unwrap()), ["scheduledAt from 2025-01-01 and before 2026-01-01"]);
    // A month of any year: that month of every year the field spans.
    let p = a.plan("parcels scheduled in March");
    assert!(matches!(&p.filters[0], Filter::AnyRange { ranges, .. } if ranges.len() == 3), "{:?}", p.filters);
}

#[test]
fn groups_metrics_and_rankings() {
    let a = Asked::new(parcels());
    let b = a.body("Average distance per courier");
    assert_eq!(b["aggs"]["group"]["terms"]["field"], "courierName");
    assert_eq!(b["aggs"]["group"]["aggs"]["metric"], json!({"avg": {"field": "distance_km"}}));
    let b = a.body("Which courier handled the most parcels?");
    assert_eq!(b["aggs"]["group"]["terms"], json!({"field": "courierName", "size": 1}), "{b}");
    let b = a.body("Which depot has the lowest average weight?");
    assert_eq!(b["aggs"]["group"]["terms"], json!({"field": "depot", "size": 1, "order": {"metric": "asc"}}), "{b}");
    let b = a.body("Top 2 depots by total weight");
    assert_eq!(b["aggs"]["group"]["terms"], json!({"field": "depot", "size": 2, "order": {"metric": "desc"}}), "{b}");
    let amb = a.asks("the 5 latest parcels");
    assert_eq!(amb.field, DATE_CHOICE);
    let b = a.body("the 3 heaviest parcels");
    assert_eq!((b["sort"].clone(), b["size"].clone()), (json!([{"weight_kg": {"order": "desc"}}]), json!(3)));
    let p = a.plan("What is the longest distance?");
    assert_eq!(p.metric, Some(("max".into(), "distance_km".into())));
    let p = a.plan("Total weight of returned parcels by depot");
    assert_eq!((p.metric.clone(), filters(&p)), (Some(("sum".into(), "weight_kg".into())), vec!["status is \"returned\"".to_string()]));
    let b = a.body("How many parcels per month of delivery?");
    assert_eq!(b["aggs"]["group"]["date_histogram"]["calendar_interval"], "month", "{b}");
    let p = a.plan("How many different couriers are there?");
    assert_eq!(p.metric, Some(("cardinality".into(), "courierName".into())));
}

#[test]
fn text_is_searched_only_when_asked_for() {
    let a = Asked::new(parcels());
    // Words said plainly must each occur, in any order; in quotes, as a phrase.
    let p = a.plan("Show parcels whose notes mention a broken seal");
    assert_eq!(p.filters, [Filter::Text { fields: vec!["notes".into()], text: "broken seal".into(), phrase: false }]);
    let p = a.plan("Show parcels whose notes mention \"broken seal\"");
    assert!(matches!(p.filters.as_slice(), [Filter::Text { phrase: true, .. }]), "{:?}", p.filters);
    let p = a.plan("How many parcels mention the neighbour?");
    assert_eq!(filters(&p), ["notes matches \"neighbour\""]);
    // Unknown words are not text: the index may not hold them.
    let amb = a.asks("How many parcels had a customs declaration?");
    assert!(amb.message.contains("\"customs declaration\""), "{amb:?}");
    assert!(amb.alternatives[0].starts_with(RUN_WITHOUT), "{amb:?}");
}

#[test]
fn nothing_is_dropped_silently() {
    let a = Asked::new(parcels());
    // A filter on something the index lacks asks, with the closest fields by link score.
    let amb = a.asks("How many parcels were insured?");
    assert_eq!(amb.field, "insured");
    let amb = a.asks("What is the average price of a parcel?");
    assert!(amb.message.contains("price"), "{amb:?}");
    let amb = a.asks("Parcels per driver weight class");
    assert!(amb.alternatives.iter().any(|x| x == "weight_kg" || x.starts_with(RUN_WITHOUT)), "{amb:?}");
    // Under force, the query runs without them and says so first.
    let p = a.with("How many fragile parcels were insured?", &Choices::new(), true).unwrap();
    assert_eq!(filters(&p), ["isFragile is \"true\""]);
    assert!(p.notes[0].starts_with("ignored") && p.notes[0].contains("\"insured\""), "{:?}", p.notes);
    // So does the user's "run it without …".
    let mut choices = Choices::new();
    choices.insert("insured".into(), format!("{RUN_WITHOUT} \"insured\""));
    let p = a.with("How many fragile parcels were insured?", &choices, false).unwrap();
    assert!(p.notes[0].contains("\"insured\""));
    // Or the field the user names for the words.
    let mut choices = Choices::new();
    choices.insert("insured".into(), "signatureRequired".into());
    let p = a.with("How many parcels were insured?", &choices, false).unwrap();
    assert_eq!(filters(&p), ["signatureRequired is \"true\""]);
}

#[test]
fn a_value_of_two_fields_asks_unless_a_direction_says() {
    let a = Asked::new(parcels());
    let amb = a.asks("parcels in Riverside");
    assert_eq!(amb.alternatives, ["depot", "originCity"]);
    assert_eq!(filters(&a.plan("parcels sent from Riverside")), ["originCity is \"Riverside\""]);
    assert_eq!(filters(&a.plan("parcels at the Riverside depot")), ["depot is \"Riverside\""]);
    // A noun next to the value, across a preposition, that is a word of one of the fields.
    assert_eq!(filters(&a.plan("How many parcels left our depot in Riverside?")), ["depot is \"Riverside\""]);
    assert_eq!(filters(&a.plan("How many parcels had an origin city of Riverside?")), ["originCity is \"Riverside\""]);
    // Values of one field said together are one condition; "not" excludes.
    assert_eq!(filters(&a.plan("parcels that were returned or lost")), ["status is \"returned\" or \"lost\""]);
    assert_eq!(filters(&a.plan("parcels not from Porto")), ["originCity is not \"Porto\""]);
    // Conditions on two fields joined by "or": either.
    assert_eq!(filters(&a.plan("parcels that were lost or weigh more than 20 kg")), ["(status is \"lost\" or weight_kg over 20)"]);
}

/// Library loans: synonyms, aliases and a misspelt value.
fn library() -> (Mapping, Metadata, Semantic) {
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
    let mut sem = Semantic::default();
    sem.value_aliases.push(ValueAlias { phrase: "verse".into(), field: "genre".into(), values: vec!["poetry".into()] });
    sem.fields.insert("borrower_city".into(), SemanticField { description: None, synonyms: vec!["hometown".into()] });
    (m, meta, sem)
}

#[test]
fn synonyms_aliases_spelling_and_verbs_of_dates() {
    let (m, meta, semantic) = library();
    let a = Asked { mapping: m, meta, semantic };
    let p = a.plan("How many verse loans to borrowers from Lisbn returned in March 2026 with more than 300 pages?");
    assert_eq!(filters(&p), ["borrower_city is \"Lisbon\"", "genre is \"poetry\"", "pages over 300", "returned_on from 2026-03-01 and before 2026-04-01"], "{:?}", p.coverage);
    assert!(p.notes.iter().any(|n| n.contains("Lisbn")), "{:?}", p.notes);
    let b = a.body("loans per hometown");
    assert_eq!(b["aggs"]["group"]["terms"]["field"], "borrower_city");
    let p = a.plan("What was loaned in 2026?");
    assert_eq!(filters(&p), ["loaned_on from 2026-01-01 and before 2027-01-01"]);
}

/// Rides: units in names, an id-suffixed keyword, a snake_case status.
fn rides() -> (Mapping, Metadata) {
    let m = Mapping::from_es_json(
        "rides",
        &json!({"properties": {
            "distance_km": {"type": "double"}, "price_usd": {"type": "double"}, "driver_id": {"type": "keyword"},
            "status": {"type": "keyword"}, "started_at": {"type": "date"}, "passenger_count": {"type": "long"},
            "number_of_stops": {"type": "long"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("status".into(), vec![("in_progress".into(), 4), ("completed".into(), 40)]);
    meta.values.insert("driver_id".into(), vec![("d-17".into(), 9)]);
    (m, meta)
}

#[test]
fn adjectives_units_and_rankings_on_rides() {
    let a = Asked::new(rides());
    assert_eq!(filters(&a.plan("rides farther than 12 km")), ["distance_km over 12"]);
    assert_eq!(filters(&a.plan("rides cheaper than 20 dollars")), ["price_usd under 20"]);
    assert_eq!(a.plan("the most expensive ride").sort, Some(("price_usd".into(), true)));
    assert_eq!(filters(&a.plan("rides in progress")), ["status is \"in_progress\""]);
    let p = a.plan("average distance per driver");
    assert_eq!((p.metric.clone(), p.groups[0].field()), (Some(("avg".into(), "distance_km".into())), "driver_id"));
    let p = a.plan("total passengers per driver");
    assert_eq!(p.metric, Some(("sum".into(), "passenger_count".into())));
    let b = a.body("top 3 drivers by number of rides");
    assert_eq!(b["aggs"]["group"]["terms"], json!({"field": "driver_id", "size": 3}), "{b}");
    // "number of stops" naming a field is that field, not a count.
    let p = a.plan("Return the driver and status of all rides in descending order of number of stops.");
    assert!(p.groups.is_empty() && p.sort == Some(("number_of_stops".into(), true)), "{p:?}");
}

/// Grant applications: one person kept in two name fields, two dates, a flag, amounts.
fn grants() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "grants",
        &json!({"properties": {
            "grant_ref": {"type": "keyword"}, "applicant_first_name": {"type": "keyword"}, "applicantLastName": {"type": "keyword"},
            "fund": {"type": "keyword"}, "requested_eur": {"type": "double"}, "energy_kwh": {"type": "double"},
            "submittedOn": {"type": "date"}, "decision_date": {"type": "date"}, "is_renewal": {"type": "boolean"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    let v = |xs: &[&str]| xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect::<Vec<_>>();
    meta.values.insert("applicant_first_name".into(), v(&["Mira", "Jonas", "Ewa"]));
    meta.values.insert("applicantLastName".into(), v(&["Kovac", "Lind", "Nowak"]));
    meta.values.insert("fund".into(), v(&["culture", "science", "sport"]));
    meta.values.insert("is_renewal".into(), v(&["false", "true"]));
    meta.values.insert("grant_ref".into(), (0..50).map(|i| format!("GR-{i:04}")).map(|x| (x, 1)).collect());
    (mapping, meta)
}

#[test]
fn lists_after_with_people_asked_by_who_and_verbs_that_only_relate() {
    let a = Asked::new(grants());
    // A plain list after "with" is what is shown.
    let p = a.plan("Show the renewal grants with the grant ref and the fund.");
    assert_eq!(filters(&p), ["is_renewal is \"true\""]);
    assert!(p.source.contains(&"grant_ref".to_string()) && p.source.contains(&"fund".to_string()), "{:?}", p.source);
    // "who" is the records' only person, told apart by both name fields.
    let p = a.plan("Who filed the most grants?");
    assert!(matches!(p.pairs, Some(Pairs::Rank { n: 1, desc: true, .. })), "{:?}", p.pairs);
    // A verb of the decision's family dates by the decision.
    assert_eq!(filters(&a.plan("How many grants were decided in May 2025?")), ["decision_date from 2025-05-01 and before 2025-06-01"]);
    // A flag after "which" is the records' condition, not a list of its values.
    let p = a.plan("Which renewal grants were decided in May 2025?");
    assert!(p.groups.is_empty(), "{:?}", p.groups);
    assert_eq!(filters(&p).len(), 2, "{:?}", filters(&p));
    // "energy delivered", "kWh used": the verb of a measure relates, the unit names it.
    let p = a.plan("How much energy was delivered in total per fund?");
    assert_eq!(p.metric, Some(("sum".into(), "energy_kwh".into())));
    let p = a.plan("Which grants were decided in May 2025? Give the grant ref, decision date and kWh used.");
    assert!(p.source.contains(&"energy_kwh".to_string()) && p.source.contains(&"decision_date".to_string()), "{:?}", p.source);
    // A lone "by" before a condition says who, it does not group.
    let b = Asked::new(parcels());
    let p = b.plan("How many parcels by Ana Lima?");
    assert!(p.groups.is_empty(), "{:?}", p.groups);
    assert_eq!(filters(&p), ["courierName is \"Ana Lima\""]);
    assert_eq!(filters(&b.plan("How many parcels covered more than 10 km?")), ["distance_km over 10"]);
}

/// Service calls: an index named by a noun the prose stop list holds, a date each record
/// begins with and one that ends it, a status of the same family as a verb.
fn service_calls() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "service_calls",
        &json!({"properties": {
            "call_ref": {"type": "keyword"}, "status": {"type": "keyword"}, "cost_eur": {"type": "double"},
            "received_on": {"type": "date"}, "closed_date": {"type": "date"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("status".into(), vec![("closed".into(), 90), ("open".into(), 10)]);
    meta.values.insert("call_ref".into(), (0..50).map(|i| (format!("SC-{i:04}"), 1)).collect());
    (mapping, meta)
}

#[test]
fn records_named_by_a_common_noun_and_dated_by_when_they_began() {
    let a = Asked::new(service_calls());
    assert_eq!(filters(&a.plan("How many calls cost over 500 euros?")), ["cost_eur over 500"]);
    // No verb, or a verb of beginning: the date each record begins with.
    assert_eq!(filters(&a.plan("How many calls in 2025?")), ["received_on from 2025-01-01 and before 2026-01-01"]);
    assert_eq!(filters(&a.plan("How many calls were opened in 2025?")), ["received_on from 2025-01-01 and before 2026-01-01"]);
    // The verb of the ending names its date.
    assert_eq!(filters(&a.plan("How many calls were closed in 2025?")), ["closed_date from 2025-01-01 and before 2026-01-01"]);
}

#[test]
fn an_event_said_as_a_state_tests_its_date_and_a_flag_before_the_noun_is_a_condition() {
    let a = Asked::new(parcels());
    // "scheduled" without a date: the scheduling happened (its date is there), or not.
    assert_eq!(filters(&a.plan("How many parcels were scheduled?")), ["scheduledAt is present"]);
    assert_eq!(filters(&a.plan("How many parcels have not been scheduled yet?")), ["scheduledAt is missing"]);
    assert_eq!(filters(&a.plan("How many unscheduled parcels are there?")), ["scheduledAt is missing"]);
    // A stored value of that word stays the value ('delivered' is a status).
    assert_eq!(filters(&a.plan("How many parcels were delivered?")), ["status is \"delivered\""]);
    // With a date after it, the word is the event's date.
    assert_eq!(filters(&a.plan("How many parcels were delivered in March 2026?")), ["deliveredAt from 2026-03-01 and before 2026-04-01"]);
    // A flag's word right before the records' noun says which records, also in a list of what
    // to show, and "how many" of it counts them (a flag has no values worth counting).
    let p = a.plan("Show the fragile parcels with their parcel ref and weight");
    assert_eq!(filters(&p), ["isFragile is \"true\""]);
    let p = a.plan("How many signature parcels went to Porto?");
    assert!(filters(&p).contains(&"signatureRequired is \"true\"".to_string()), "{:?}", p.filters);
    assert!(p.metric.is_none(), "{:?}", p.metric);
}

#[test]
fn an_amount_asked_for_is_the_sum_of_the_measure_named_or_is_not_dropped() {
    let a = Asked::new(parcels());
    // "how much … weigh" and "… in total": the one measure the question names, summed.
    let p = a.plan("How much did the fragile parcels weigh?");
    assert_eq!(p.metric, Some(("sum".to_string(), "weight_kg".to_string())), "{:?}", p.coverage);
    let p = a.plan("What did the fragile parcels weigh in total?");
    assert_eq!(p.metric, Some(("sum".to_string(), "weight_kg".to_string())), "{:?}", p.coverage);
    // Of one ranked record, the amount is that record's measure.
    let p = a.plan("How much does the heaviest parcel weigh?");
    assert!(p.metric.is_none() && p.size == Some(1), "{:?} {:?}", p.metric, p.size);
    // No measure named: the amount asked for is not dropped, the question asks.
    let amb = a.asks("How much did Ana Lima handle?");
    assert!(amb.message.contains("much"), "{}", amb.message);
}

#[test]
fn a_speed_said_of_a_duration_ranks_the_other_way() {
    // A ride index with a duration: "the slowest" is the most minutes.
    let mapping = Mapping::from_es_json("rides", &json!({"properties": {"route": {"type": "keyword"}, "wait_time_min": {"type": "double"}}})).unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("route".into(), vec![("north".into(), 10), ("south".into(), 8)]);
    let a = Asked::new((mapping, meta));
    let b = a.body("Which route has the slowest average wait time?");
    assert_eq!(b["aggs"]["group"]["terms"]["order"], json!({"metric": "desc"}), "{b}");
}

#[test]
fn with_and_without_a_flag_groups_and_a_yes_or_no_question_shows_it() {
    let a = Asked::new(parcels());
    let b = a.body("average weight with and without a signature required");
    assert_eq!(b["aggs"]["group"]["terms"]["field"], "signatureRequired", "{b}");
    let p = a.plan("Is parcel PX-0007 fragile?");
    assert!(!filters(&p).iter().any(|f| f.starts_with("isFragile")), "{:?}", p.filters);
    // "did … schedule": the base verb after "did" is the event (its date is there).
    assert_eq!(filters(&a.plan("Which parcels did Ana Lima schedule?")), ["courierName is \"Ana Lima\"", "scheduledAt is present"]);
}

/// An index named by two words (`warehouse_picks`): a flag whose name holds the index's verb
/// (`wasShortPicked`), a field named by the first word (`warehouse_code`).
fn warehouse_picks() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "warehouse_picks",
        &json!({"properties": {
            "task_id": {"type": "keyword"}, "warehouse_code": {"type": "keyword"}, "picker_first_name": {"type": "keyword"},
            "pickerLastName": {"type": "keyword"}, "quantity": {"type": "long"}, "wasShortPicked": {"type": "boolean"},
            "created_date": {"type": "date"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    let v = |xs: &[&str]| xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect::<Vec<_>>();
    meta.values.insert("warehouse_code".into(), v(&["VNL1", "HAM2", "DUI1"]));
    meta.values.insert("picker_first_name".into(), v(&["Lukas", "Sanne"]));
    meta.values.insert("pickerLastName".into(), v(&["Weber", "de Vries"]));
    meta.values.insert("wasShortPicked".into(), v(&["false", "true"]));
    meta.values.insert("task_id".into(), (0..50).map(|i| (format!("PK-2025-{i:05}"), 1)).collect());
    meta.ranges.insert("created_date".into(), (json!("2024-01-03"), json!("2025-12-30")));
    (mapping, meta)
}

#[test]
fn the_index_verb_is_no_flag_and_its_first_word_a_field() {
    let a = Asked::new(warehouse_picks());
    // "the short picks": the flag, a condition — not a field to show.
    assert_eq!(filters(&a.plan("list the short picks at VNL1")), ["warehouse_code is \"VNL1\"", "wasShortPicked is \"true\""]);
    // "picked" is what every record is: no condition.
    assert_eq!(filters(&a.plan("tasks picked by Lukas Weber")), ["pickerLastName is \"Weber\"", "picker_first_name is \"Lukas\""]);
    // "per warehouse": grouped by the warehouse's field, not the records themselves.
    let b = a.body("number of short picks per warehouse");
    assert_eq!(b["aggs"]["group"]["terms"]["field"], "warehouse_code", "{b}");
    // "the most short picks": counted per warehouse, most first — not the shortest pick.
    let b = a.body("Which warehouse had the most short picks?");
    assert_eq!(b["aggs"]["group"]["terms"]["field"], "warehouse_code", "{b}");
    // (Terms come most documents first unless an order says otherwise.)
    assert_eq!((b["aggs"]["group"]["terms"]["size"].clone(), b["aggs"]["group"]["terms"]["order"].clone()), (json!(1), Value::Null), "{b}");
    // "Who are the pickers at HAM2?": each person once, by both halves of the name.
    let b = a.body("Who are the pickers at HAM2?");
    assert_eq!((b["aggs"]["group"]["terms"]["field"].clone(), b["aggs"]["group"]["aggs"]["group1"]["terms"]["field"].clone()), (json!("picker_first_name"), json!("pickerLastName")), "{b}");
}

#[test]
fn a_reference_of_one_document_shows_that_document() {
    let a = Asked::new(parcels());
    // PX-0007 is one parcel: its status is read off the document, not a group of one.
    let p = a.plan("Which depot was parcel PX-0007 at?");
    assert!(p.groups.is_empty(), "{:?}", p.groups);
    assert_eq!(filters(&p), ["parcel_ref is \"PX-0007\""]);
}

#[test]
fn the_extreme_asked_with_fields_of_its_record_is_that_record() {
    let a = Asked::new(parcels());
    // Not a group per listed reference with its own minimum: the one lightest parcel.
    let p = a.plan("What was the lightest fragile parcel? Give the parcel ref, depot and weight.");
    assert!(p.groups.is_empty() && p.metric.is_none(), "{:?} {:?}", p.groups, p.metric);
    assert_eq!((p.sort.clone(), p.size), (Some(("weight_kg".to_string(), false)), Some(1)));
}

#[test]
fn a_field_of_each_record_asked_for_lists_the_records() {
    let a = Asked::new(warehouse_picks());
    // "Which pickers …? Give the task id and the picker's name": one row per task, both halves
    // of the name, not each picker once.
    let p = a.plan("Which pickers worked at HAM2? Give the task id and the picker's name.");
    assert!(p.groups.is_empty(), "{:?} {:?} {:?}", p.groups, p.source, p.coverage);
    for f in ["task_id", "picker_first_name", "pickerLastName"] {
        assert!(p.source.iter().any(|s| s == f), "{f} not in {:?} {:?}", p.source, p.coverage);
    }
}

/// Enrolments on courses: a modifier of the index's name ("course") that names three fields, a
/// technician's name written short (`tech_*`), a fee per record, a date named by its event.
fn course_enrolments() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "course_enrolments",
        &json!({"properties": {
            "enrolment_ref": {"type": "keyword"}, "course_code": {"type": "keyword"}, "courseTitle": {"type": "keyword"},
            "course_category": {"type": "keyword"}, "provider": {"type": "keyword"}, "feeChargedEur": {"type": "double"},
            "tech_first_name": {"type": "keyword"}, "techLastName": {"type": "keyword"}, "gallery": {"type": "keyword"},
            "enrolledDate": {"type": "date"}, "completedDate": {"type": "date"}, "isPaid": {"type": "boolean"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    let v = |xs: &[&str]| xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect::<Vec<_>>();
    meta.values.insert("course_code".into(), v(&["PY-101", "UX-200", "ES-110"]));
    meta.values.insert("courseTitle".into(), v(&["Python Basics", "UX Design", "Spanish I"]));
    meta.values.insert("course_category".into(), v(&["programming", "design", "languages"]));
    meta.values.insert("provider".into(), v(&["Acme", "Globex"]));
    meta.values.insert("tech_first_name".into(), v(&["Lena", "Omar"]));
    meta.values.insert("techLastName".into(), v(&["Vos", "Ali"]));
    meta.values.insert("gallery".into(), v(&["North", "South"]));
    meta.values.insert("isPaid".into(), v(&["false", "true"]));
    meta.values.insert("enrolment_ref".into(), (0..50).map(|i| (format!("EN-{i:04}"), 1)).collect());
    meta.ranges.insert("enrolledDate".into(), (json!("2024-01-03"), json!("2025-12-30")));
    (mapping, meta)
}

#[test]
fn a_word_of_the_index_name_groups_by_its_label_and_totals_rank_by_their_sum() {
    let a = Asked::new(course_enrolments());
    // "which three courses": the courses' titles, three groups by documents.
    let b = a.body("Which three courses have the most enrolments?");
    assert_eq!((b["aggs"]["group"]["terms"]["field"].clone(), b["aggs"]["group"]["terms"]["size"].clone()), (json!("courseTitle"), json!(3)), "{b}");
    // "the highest fees in total": ranked by the sum, not by the largest single fee.
    let p = a.plan("Which provider charged the highest fees in total?");
    assert_eq!(p.metric, Some(("sum".to_string(), "feeChargedEur".to_string())), "{:?}", p.coverage);
    // A technician's name written `tech_*`: the person asked for, both halves shown.
    let p = a.plan("Which technician handled enrolment EN-0007?");
    assert_eq!(filters(&p), ["enrolment_ref is \"EN-0007\""]);
    assert!(p.coverage.unmapped.is_empty(), "{:?}", p.coverage);
}

#[test]
fn a_clause_that_asks_for_a_field_and_a_date_said_with_its_event() {
    let a = Asked::new(course_enrolments());
    // "…, and in which gallery?": the field is shown with the documents, not a condition.
    let p = a.plan("Which enrolments by Lena Vos are paid, and in which gallery?");
    assert!(p.coverage.mapped.iter().any(|m| m.role == "show gallery"), "{:?}", p.coverage);
    // "the enrol date": the date its verb names, both words used.
    let p = a.plan("List the paid enrolments at Acme with the enrol date and course code.");
    assert!(p.coverage.mapped.iter().any(|m| m.phrase == "enrol date" && m.role == "show enrolledDate"), "{:?}", p.coverage);
}

#[test]
fn the_records_own_date_by_its_verb_who_by_a_roles_verb_and_a_list_after_with_their() {
    let mapping = Mapping::from_es_json(
        "shipments",
        &json!({"properties": {
            "shipment_id": {"type": "keyword"}, "carrier": {"type": "keyword"}, "courier_name": {"type": "keyword"},
            "owner_first_name": {"type": "keyword"}, "ownerLastName": {"type": "keyword"}, "status": {"type": "keyword"},
            "weight_kg": {"type": "double"}, "shippedDate": {"type": "date"}, "deliveredDate": {"type": "date"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    let v = |xs: &[&str]| xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect::<Vec<_>>();
    meta.values.insert("carrier".into(), v(&["DHL", "UPS"]));
    meta.values.insert("courier_name".into(), v(&["Jan Smit", "Lea Vos"]));
    meta.values.insert("owner_first_name".into(), v(&["Ana", "Bo"]));
    meta.values.insert("ownerLastName".into(), v(&["Ruiz", "Berg"]));
    meta.values.insert("status".into(), v(&["delivered", "lost", "in_transit"]));
    meta.values.insert("shipment_id".into(), (0..50).map(|i| (format!("SH-{i:04}"), 1)).collect());
    meta.ranges.insert("shippedDate".into(), (json!("2024-01-03"), json!("2025-12-30")));
    let a = Asked::new((mapping, meta));
    // A year of shipments is when each was shipped (the index's noun, as its verb), not when
    // it arrived.
    let p = a.plan("lost shipments in 2025");
    assert!(filters(&p).iter().any(|f| f.contains("shippedDate")), "{:?}", filters(&p));
    // "Who owns …": the owner, by the verb of that role.
    let p = a.plan("Who owns shipment SH-0007?");
    assert!(p.coverage.mapped.iter().any(|m| m.phrase == "owns" && m.role.starts_with("show owner")), "{:?}", p.coverage);
    // "with their courier": a field listed beside the records, not a word left over.
    let p = a.plan("shipments in transit with their courier");
    assert!(p.coverage.mapped.iter().any(|m| m.role == "show courier_name"), "{:?}", p.coverage);
    // "never" over groups cannot be a filter (it would keep every carrier with one shipment
    // that was not lost): asked.
    let q = a.asks("Which carriers never lost a shipment?");
    assert_eq!(q.field, "never", "{q:?}");
}

#[test]
fn a_unit_that_opens_a_name_and_the_noun_of_its_dimension() {
    let mapping = Mapping::from_es_json(
        "meter_readings",
        &json!({"properties": {
            "reading_id": {"type": "keyword"}, "meterNo": {"type": "keyword"}, "city": {"type": "keyword"},
            "tariff": {"type": "keyword"}, "kwh_used": {"type": "double"}, "cost_eur": {"type": "double"}, "readingDate": {"type": "date"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    let v = |xs: &[&str]| xs.iter().enumerate().map(|(i, x)| (x.to_string(), 100 - i as u64)).collect::<Vec<_>>();
    meta.values.insert("city".into(), v(&["Delft", "Gouda"]));
    meta.values.insert("tariff".into(), v(&["fixed", "dynamic"]));
    meta.values.insert("meterNo".into(), v(&["M-101", "M-102", "M-103"]));
    meta.ranges.insert("readingDate".into(), (json!("2025-01-02"), json!("2025-12-28")));
    let a = Asked::new((mapping, meta));
    // "above 800 kWh" of `kwh_used`: the unit opens the name.
    assert_eq!(filters(&a.plan("readings above 800 kWh in Delft")), ["city is \"Delft\"", "kwh_used over 800"]);
    // "energy", "consumption": the noun of the kWh's dimension.
    assert_eq!(a.plan("total energy used in Gouda").metric, Some(("sum".to_string(), "kwh_used".to_string())));
    assert_eq!(a.plan("Which tariff has the lowest average consumption?").metric, Some(("avg".to_string(), "kwh_used".to_string())));
    // "were read": the index's own verb, irregular, after "be".
    let p = a.plan("How many different meters were read in Delft?");
    assert!(p.coverage.unmapped.is_empty(), "{:?}", p.coverage);
}
