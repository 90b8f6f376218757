//! The planner on a schema written for these tests (an animal rescue: species by name, animals
//! admitted and weighed in grams, staff, prescriptions with a validity deadline, dispensings
//! with two keys to the staff), asserted on the SQL it renders: a count of a label's value
//! counts the rows that refer to it, a "when" clause after a statement, a verb right before a
//! date dates it, a deadline is no event's date, and a holding table's own name tells no key.

use super::tests::{col, fk, on, sql, table};
use super::*;
use crate::{ColumnInfo, DbSchema, Dialect};

fn rescue() -> SchemaContext {
    let t = |name: &str, pk: &str, columns: Vec<ColumnInfo>, fks| table(name, pk, columns, fks, 40);
    SchemaContext::build(
        DbSchema {
            dialect: None,
            tables: vec![
                t("species", "species_id", vec![col("species_id", "integer", &[]), col("common_name", "text", &["Hedgehog", "Barn owl", "Grey seal"]), col("is_protected", "integer", &["0", "1"])], vec![]),
                t(
                    "animals",
                    "animal_id",
                    vec![col("animal_id", "integer", &[]), col("species_id", "integer", &[]), col("admission_code", "text", &["AD-2025-0142"]), col("admitted_on", "text", &["2024-05-01", "2025-03-02"]), col("weight_on_admission_g", "integer", &[])],
                    vec![fk("species_id", "species", "species_id")],
                ),
                t(
                    "releases",
                    "release_id",
                    vec![col("release_id", "integer", &[]), col("animal_id", "integer", &[]), col("released_on", "text", &["2025-06-01"]), col("weight_at_release_g", "integer", &[])],
                    vec![fk("animal_id", "animals", "animal_id")],
                ),
                t("staff", "staff_id", vec![col("staff_id", "integer", &[]), col("first_name", "text", &["Vasco", "Ines"]), col("last_name", "text", &["Martins", "Sousa"]), col("role", "text", &["pharmacist", "assistant"]), col("hired_on", "text", &["2019-04-01"])], vec![]),
                t(
                    "prescriptions",
                    "prescription_id",
                    vec![col("prescription_id", "integer", &[]), col("rx_number", "text", &["RX-2025-0142"]), col("issued_on", "text", &["2024-02-01"]), col("valid_until", "text", &["2024-05-01"])],
                    vec![],
                ),
                t("patients", "patient_id", vec![col("patient_id", "integer", &[]), col("patient_code", "text", &["PT-10110"]), col("first_name", "text", &["Rita", "Tomas"]), col("last_name", "text", &["Lopes", "Alves"])], vec![]),
                t("medicines", "medicine_id", vec![col("medicine_id", "integer", &[]), col("brand_name", "text", &["Eliquis 5 mg", "Shingrix"]), col("pack_size", "integer", &[]), col("form", "text", &["tablet", "cream", "inhaler"]), col("price_eur", "real", &[])], vec![]),
                t(
                    "dispensings",
                    "dispensing_id",
                    vec![col("dispensing_id", "integer", &[]), col("patient_id", "integer", &[]), col("dispensed_by_id", "integer", &[]), col("checked_by_id", "integer", &[]), col("dispensed_on", "text", &["2025-01-02"]), col("packs", "integer", &[])],
                    vec![fk("patient_id", "patients", "patient_id"), fk("dispensed_by_id", "staff", "staff_id"), fk("checked_by_id", "staff", "staff_id")],
                ),
            ],
        },
        None,
    )
}

#[test]
fn a_count_of_a_labels_value_counts_the_rows_that_refer_to_it() {
    let ctx = rescue();
    let s = sql(&ctx, "How many hedgehogs did we admit in 2025?");
    assert!(s.starts_with("SELECT COUNT(*) AS animal_count FROM animals"), "{s}");
    assert!(s.contains("species.common_name = 'Hedgehog'") && s.contains("animals.admitted_on >= '2025-01-01'"), "{s}");
    // Nothing of another table in play: the label's own table is what is counted.
    let s = sql(&ctx, "How many protected species are there?");
    assert!(s.contains("FROM species") && !s.contains("animals"), "{s}");
}

#[test]
fn a_when_after_a_statement_opens_a_clause() {
    let ctx = rescue();
    let s = sql(&ctx, "Give me the admission codes of the animals that weighed more than 50 kg when they came in.");
    assert!(s.contains("animals.weight_on_admission_g > 50000") && s.contains("animals.admission_code"), "{s}");
    // Asked beside other things, "when" still shows the date.
    let s = sql(&ctx, "List the admission codes of the animals and when they were admitted.");
    assert!(s.contains("animals.admitted_on"), "{s}");
}

#[test]
fn the_verb_right_before_a_date_dates_it() {
    let ctx = rescue();
    let s = sql(&ctx, "For the hedgehogs admitted in 2025 that were released, what was their average weight at release in grams?");
    assert!(s.contains("AVG(releases.weight_at_release_g)") && s.contains("animals.admitted_on >= '2025-01-01'") && !s.contains("releases.released_on >="), "{s}");
}

#[test]
fn a_deadline_is_not_the_date_of_the_event() {
    let ctx = rescue();
    let s = sql(&ctx, "How many prescriptions are there from 2024?");
    assert!(s.contains("prescriptions.issued_on >= '2024-01-01'") && !s.contains("valid_until >="), "{s}");
    // A word of the end says the deadline.
    let o = on(&ctx, "How many prescriptions expired in 2024?");
    let plan = o.plan.map(|p| ir::render_query(&ctx, &p, Dialect::Sqlite, Some(200))).unwrap_or_default();
    assert!(!plan.contains("issued_on >="), "{plan}");
}

#[test]
fn the_holding_tables_name_tells_no_key() {
    let ctx = rescue();
    let s = sql(&ctx, "How many dispensings did Vasco Martins check in 2025?");
    assert!(s.contains("dispensings.checked_by_id = staff.staff_id") && s.contains("dispensings.dispensed_on >= '2025-01-01'"), "{s}");
    let s = sql(&ctx, "Which pharmacist checked the most dispensings in 2025?");
    assert!(s.contains("dispensings.checked_by_id = staff.staff_id") && s.contains("dispensings.dispensed_on >= '2025-01-01'") && !s.contains("hired_on"), "{s}");
}

#[test]
fn the_words_around_an_ordering_an_amount_and_a_negation() {
    let ctx = rescue();
    let s = sql(&ctx, "Which staff are pharmacists? Sort them alphabetically by surname.");
    assert!(s.contains("ORDER BY staff.last_name ASC"), "{s}");
    let s = sql(&ctx, "List the medicines that cost more than 40 euros a pack, with their price.");
    assert!(s.contains("medicines.price_eur > 40"), "{s}");
    let s = sql(&ctx, "Which patients have never had anything dispensed?");
    assert!(s.contains("patients.patient_id NOT IN (SELECT dispensings.patient_id FROM dispensings"), "{s}");
}

#[test]
fn the_date_shown_is_the_one_the_question_tests() {
    let ctx = rescue();
    // Patients have no date of their own; the dispensings' date is the one "in 2025" tests.
    let s = sql(&ctx, "Which patients were dispensed something in 2025? Show the patient code and the date.");
    assert!(s.contains("dispensings.dispensed_on") && s.contains("patients.patient_code"), "{s}");
}

#[test]
fn a_condition_after_either_alternatives_asks() {
    let ctx = rescue();
    let o = on(&ctx, "List the medicines that are either tablets or creams with a price over 40 euros.");
    assert!(o.confidence < CONFIDENCE_THRESHOLD && o.coverage.penalties.iter().any(|(p, _)| p.contains("may hold for it alone")), "{:?}", o.coverage.penalties);
    // Without "either", the list and the condition read as one.
    let s = sql(&ctx, "List the medicines that are tablets or creams with a price over 40 euros.");
    assert!(s.contains("medicines.form IN ('tablet', 'cream')") && s.contains("medicines.price_eur > 40"), "{s}");
}

#[test]
fn a_period_beside_a_count_of_related_rows_dates_the_counted_rows() {
    let ctx = rescue();
    let s = sql(&ctx, "Which species had more than 10 animals admitted in 2025?");
    assert!(s.contains("FROM animals WHERE animals.admitted_on >= '2025-01-01' AND animals.admitted_on < '2026-01-01' GROUP BY animals.species_id HAVING COUNT(*) > 10"), "{s}");
    // Two whole years on the rows' own date: either; "over" two consecutive years: the span.
    let s = sql(&ctx, "How many animals were admitted in 2024 and 2025?");
    assert!(s.contains("(animals.admitted_on >= '2024-01-01' AND animals.admitted_on < '2025-01-01' OR animals.admitted_on >= '2025-01-01'"), "{s}");
    let s = sql(&ctx, "How many animals were admitted over 2024 and 2025?");
    assert!(s.contains("animals.admitted_on >= '2024-01-01' AND animals.admitted_on < '2026-01-01'"), "{s}");
}

#[test]
fn in_total_sums_the_measure_said_before_it() {
    let ctx = rescue();
    let s = sql(&ctx, "What did the tablets cost in total?");
    assert!(s.contains("SUM(medicines.price_eur)") && s.contains("medicines.form = 'tablet'"), "{s}");
}
