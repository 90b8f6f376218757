//! Plans over a made-up index of wool intakes at mills (session 25): a count before the
//! people a ranking orders, a list between "what" and its auxiliary, a negated verb that dates
//! nothing, and the records said in another word after "every".

use super::tests::{filters, today};
use super::tests_records::top;
use super::*;
use serde_json::json;

/// Wool intakes: an own reference held once per document, the intake date every document
/// holds and a payment date set later, a farmer's name in two fields, a grade and a flag.
fn intakes() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "wool_intakes",
        &json!({"properties": {
            "intake_ref": {"type": "keyword"}, "intakeDate": {"type": "date"}, "paidDate": {"type": "date"},
            "farmer_first_name": {"type": "keyword"}, "farmerLastName": {"type": "keyword"}, "mill_name": {"type": "keyword"}, "millCode": {"type": "keyword"},
            "fleece_weight_kg": {"type": "double"}, "micron": {"type": "double"}, "grease_pct": {"type": "double"}, "grade": {"type": "keyword"},
            "was_rejected": {"type": "boolean"}, "payment_eur": {"type": "double"}
        }}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("intake_ref".into(), (0..60).map(|i| (format!("WI-{i:04}"), 1)).collect());
    meta.values.insert("farmer_first_name".into(), top(&["Gwen", "Rhys", "Mairi"]));
    meta.values.insert("farmerLastName".into(), top(&["Pryce", "Evans", "Munro"]));
    meta.values.insert("mill_name".into(), top(&["Bradford", "Galashiels", "Newtown"]));
    meta.values.insert("millCode".into(), top(&["UK-BFD", "UK-GAL", "UK-NEW"]));
    meta.values.insert("grade".into(), top(&["fine", "medium", "coarse"]));
    meta.values.insert("was_rejected".into(), top(&["false", "true"]));
    meta.ranges.insert("intakeDate".into(), (json!("2024-05-02"), json!("2025-09-30")));
    meta.ranges.insert("paidDate".into(), (json!("2024-05-20"), json!("2025-10-28")));
    meta.present.insert("intakeDate".into(), 300);
    meta.present.insert("paidDate".into(), 240);
    meta.total = Some(300);
    (mapping, meta)
}

fn plan(q: &str) -> EsPlan {
    let index = intakes();
    let semantic = Semantic::default();
    let choices = Choices::new();
    let input = PlanInput { mapping: &index.0, meta: &index.1, semantic: &semantic, choices: &choices, force: false, today: today(), sample_size: 50, max_buckets: 1000 };
    build(q, &input, None).map(|p| p.plan).map_err(|e| e.0).unwrap_or_else(|a| panic!("{q:?} asked: {a:?}"))
}

#[test]
fn a_count_before_the_people_a_ranking_orders_is_how_many() {
    let p = plan("Who are the three farmers with the most fleece weight in total?");
    assert!(matches!(p.pairs, Some(Pairs::Rank { n: 3, desc: true, .. })), "{}", p.summary());
    // Without the count: the one farmer.
    let p = plan("Who is the farmer with the most fleece weight in total?");
    assert!(matches!(p.pairs, Some(Pairs::Rank { n: 1, .. })), "{}", p.summary());
}

#[test]
fn what_a_list_did_a_record_have_shows_every_item() {
    let p = plan("What micron and grade did WI-0007 have?");
    assert!(p.source.contains(&"micron".to_string()) && p.source.contains(&"grade".to_string()), "{:?}", p.source);
}

#[test]
fn a_negated_verb_dates_nothing_and_every_record_said_otherwise_is_a_record() {
    let p = plan("Which intakes from 2025 have not been paid?");
    let f = filters(&p);
    assert!(f.iter().any(|x| x.starts_with("intakeDate from 2025-01-01")), "{f:?}");
    assert!(f.iter().any(|x| x.contains("paidDate") && x.contains("missing")), "{f:?}");
    assert!(!f.iter().any(|x| x.starts_with("paidDate from")), "{f:?}");
    // "every rejected consignment": the documents, in the asker's word.
    let p = plan("Show the intake ref and fleece weight of every rejected consignment at Bradford.");
    assert!(p.notes.iter().any(|n| n.contains("consignment")), "{:?}", p.notes);
    assert_eq!(filters(&p), ["mill_name is \"Bradford\"", "was_rejected is \"true\""]);
}

#[test]
fn a_group_said_of_one_things_name_and_code_is_by_name() {
    let p = plan("average micron per mill");
    assert!(p.groups.iter().any(|g| matches!(g, Group::Terms { field, .. } if field.starts_with("mill_name"))), "{}", p.summary());
}

#[test]
fn a_leading_unit_with_groups_is_the_measures_total() {
    let p = plan("Kilograms of fine wool per mill");
    assert_eq!(p.metric, Some(("sum".to_string(), "fleece_weight_kg".to_string())), "{}", p.summary());
    assert!(!p.groups.is_empty(), "{}", p.summary());
}

#[test]
fn how_much_beside_a_record_shows_its_money() {
    let p = plan("When was WI-0007 paid, and for how much?");
    assert!(p.source.is_empty() || p.source.contains(&"payment_eur".to_string()), "{:?}", p.source);
    assert!(p.metric.is_none(), "{}", p.summary());
    // Opening the question, "how much" is an amount of its own: not the payment shown.
    let index = intakes();
    let semantic = Semantic::default();
    let choices = Choices::new();
    let input = PlanInput { mapping: &index.0, meta: &index.1, semantic: &semantic, choices: &choices, force: false, today: today(), sample_size: 50, max_buckets: 1000 };
    let asked = build("How much was charged for scouring the fine wool taken in at Bradford?", &input, None).map(|p| p.plan);
    assert!(asked.as_ref().is_err() || asked.as_ref().is_ok_and(|p| p.metric.is_some()), "{:?}", asked.map(|p| p.summary()));
}

#[test]
fn a_shares_own_noun_after_its_field_is_the_field() {
    let p = plan("Average grease content of fine wool per mill");
    assert_eq!(p.metric, Some(("avg".to_string(), "grease_pct".to_string())), "{}", p.summary());
}

#[test]
fn the_total_named_field_of_many_records_is_summed() {
    let mapping = Mapping::from_es_json(
        "wool_sales",
        &json!({"properties": {"sale_ref": {"type": "keyword"}, "buyer": {"type": "keyword"}, "total_price_eur": {"type": "double"}, "saleDate": {"type": "date"}, "season_year": {"type": "long"}}}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("sale_ref".into(), (0..40).map(|i| (format!("WS-{i:03}"), 1)).collect());
    meta.values.insert("buyer".into(), top(&["Bradford Spinners", "Harris Mills"]));
    let index = (mapping, meta);
    let semantic = Semantic::default();
    let choices = Choices::new();
    let input = PlanInput { mapping: &index.0, meta: &index.1, semantic: &semantic, choices: &choices, force: false, today: today(), sample_size: 50, max_buckets: 1000 };
    let plan = |q: &str| build(q, &input, None).map(|p| p.plan).unwrap_or_else(|a| panic!("{q:?} asked: {:?}", a.0));
    let p = plan("What is the total price for the sales to Harris Mills?");
    assert_eq!(p.metric, Some(("sum".to_string(), "total_price_eur".to_string())), "{}", p.summary());
    // "the 2024 season" of `season_year`: the year before the noun of a year field.
    let p = plan("What is the total price for the sales of the 2024 season?");
    assert!(filters(&p).iter().any(|f| f.starts_with("season_year")), "{}", p.summary());
    // One sale named by its reference: its own value.
    let p = plan("What is the total price of sale WS-007?");
    assert!(p.metric.is_none(), "{}", p.summary());
}

#[test]
fn a_state_said_by_its_participle_is_dated_by_the_date_set_later() {
    // `status` holds 'rejected' and 'accepted'; `decidedDate` is set when a decision is made,
    // `intakeDate` on every record.
    let mapping = Mapping::from_es_json(
        "wool_claims",
        &json!({"properties": {"claim_ref": {"type": "keyword"}, "status": {"type": "keyword"}, "intakeDate": {"type": "date"}, "decidedDate": {"type": "date"}}}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("claim_ref".into(), (0..40).map(|i| (format!("WC-{i:03}"), 1)).collect());
    meta.values.insert("status".into(), top(&["open", "rejected", "accepted"]));
    meta.present.insert("intakeDate".into(), 40);
    meta.present.insert("decidedDate".into(), 25);
    meta.total = Some(40);
    let index = (mapping, meta);
    let semantic = Semantic::default();
    let choices = Choices::new();
    let input = PlanInput { mapping: &index.0, meta: &index.1, semantic: &semantic, choices: &choices, force: false, today: today(), sample_size: 50, max_buckets: 1000 };
    let p = build("How many claims rejected in 2025 were there?", &input, None).map(|p| p.plan).unwrap_or_else(|a| panic!("asked: {:?}", a.0));
    assert!(filters(&p).iter().any(|f| f.starts_with("decidedDate from 2025-01-01")), "{}", p.summary());
}
