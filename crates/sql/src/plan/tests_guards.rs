//! The final checks that turn a confident wrong answer into a question, on a schema written
//! for these tests (a home-care agency: clients, care plans with weekly hours, invoices with
//! hours billed, visits by car, incidents during visits, patrols with their distance): each
//! guard is shown firing on a shape held-out sets answered wrongly, and staying quiet beside it;
//! and two readings that answer such shapes rightly instead (a date said after a noun of a
//! dated table, the label of a table with a whole name beside a contact's two halves).

use super::tests::{answer, col, fk, sql, table};
use super::*;
use crate::{ColumnInfo, DbSchema, ForeignKey};

fn care_agency() -> SchemaContext {
    let t = |name: &str, pk: &str, columns: Vec<ColumnInfo>, fks: Vec<ForeignKey>| table(name, pk, columns, fks, 40);
    SchemaContext::build(
        DbSchema {
            dialect: None,
            tables: vec![
                t("clients", "client_id", vec![col("client_id", "integer", &[]), col("first_name", "text", &["Marcel", "Ilse"]), col("last_name", "text", &["Jongen", "Peeters"]), col("city", "text", &["Utrecht", "Gouda"])], vec![]),
                t(
                    "care_plans",
                    "plan_id",
                    vec![col("plan_id", "integer", &[]), col("client_id", "integer", &[]), col("hours_per_week", "real", &[]), col("start_date", "text", &["2024-02-01", "2025-03-01"])],
                    vec![fk("client_id", "clients", "client_id")],
                ),
                t(
                    "invoices",
                    "invoice_id",
                    vec![col("invoice_id", "integer", &[]), col("plan_id", "integer", &[]), col("hours_billed", "real", &[]), col("amount_eur", "numeric(8,2)", &[]), col("issued_on", "text", &["2025-01-31", "2025-02-28"])],
                    vec![fk("plan_id", "care_plans", "plan_id")],
                ),
                t("vehicles", "vehicle_id", vec![col("vehicle_id", "integer", &[]), col("plate", "text", &["GX-418-B", "KL-220-P"]), col("in_service_since", "text", &["2021-04-01", "2024-09-15"])], vec![]),
                t(
                    "visits",
                    "visit_id",
                    vec![col("visit_id", "integer", &[]), col("plan_id", "integer", &[]), col("vehicle_id", "integer", &[]), col("visit_date", "text", &["2025-01-04", "2025-05-30"]), col("max_guests", "integer", &[]), col("distance_km", "real", &[])],
                    vec![fk("plan_id", "care_plans", "plan_id"), fk("vehicle_id", "vehicles", "vehicle_id")],
                ),
                t(
                    "incidents",
                    "incident_id",
                    vec![col("incident_id", "integer", &[]), col("visit_id", "integer", &[]), col("severity", "text", &["minor", "major"])],
                    vec![fk("visit_id", "visits", "visit_id")],
                ),
                t(
                    "vehicle_checks",
                    "check_id",
                    vec![col("check_id", "integer", &[]), col("vehicle_id", "integer", &[]), col("check_type", "text", &["brakes", "tyres"]), col("passed", "integer", &["0", "1"]), col("checked_on", "text", &["2024-09-02", "2025-01-15"])],
                    vec![fk("vehicle_id", "vehicles", "vehicle_id")],
                ),
                t(
                    "contractors",
                    "contractor_id",
                    vec![col("contractor_id", "integer", &[]), col("company_name", "text", &["Bouw BV", "Klus & Co"]), col("contact_first_name", "text", &["Jan", "Eva"]), col("contact_last_name", "text", &["Smit", "Bos"])],
                    vec![],
                ),
                t(
                    "repairs",
                    "repair_id",
                    vec![col("repair_id", "integer", &[]), col("contractor_id", "integer", &[]), col("repaired_on", "text", &["2024-03-01", "2025-06-11"])],
                    vec![fk("contractor_id", "contractors", "contractor_id")],
                ),
                t(
                    "patrols",
                    "patrol_id",
                    vec![col("patrol_id", "integer", &[]), col("patrol_mode", "text", &["bicycle", "car"]), col("patrol_distance_km", "real", &[])],
                    vec![],
                ),
            ],
        },
        None,
    )
}

#[test]
fn a_measure_sharing_a_word_with_one_that_says_more_is_not_taken() {
    let ctx = care_agency();
    // "billed" is a word of `hours_billed`: never the weekly hours of the plans.
    let a = answer(&ctx, "How many hours have we billed in total for Marcel Jongen?");
    assert!(a.as_deref().is_none_or(|s| s.contains("hours_billed") && !s.contains("hours_per_week")), "{a:?}");
    // Said with its own words, the weekly hours are answered.
    let s = sql(&ctx, "What is the total of the hours per week of the care plans of Marcel Jongen?");
    assert!(s.contains("SUM(care_plans.hours_per_week)"), "{s}");
    // "a bicycle patrol": the patrols' own distance, not the visits'.
    let a = answer(&ctx, "What is the average distance covered on a bicycle patrol, in km?");
    assert!(a.as_deref().is_none_or(|s| s.contains("patrol_distance_km")), "{a:?}");
}

#[test]
fn money_asked_for_is_measured_in_money() {
    let ctx = care_agency();
    // "guests" is a word of `max_guests`, which holds no money.
    let a = answer(&ctx, "How much have guests from Utrecht spent on visits in total?");
    assert!(a.as_deref().is_none_or(|s| s.contains("amount_eur")), "{a:?}");
}

#[test]
fn a_question_opening_with_when_shows_a_date_and_a_date_belongs_to_its_event() {
    let ctx = care_agency();
    let a = answer(&ctx, "When did Marcel Jongen's care plan start, and how many hours per week is it?");
    assert!(a.as_deref().is_none_or(|s| s.contains("start_date")), "{a:?}");
    // The incidents counted per month are dated by their visits, never by the car's service date.
    let a = answer(&ctx, "In which month of 2025 were the most incidents reported?");
    assert!(a.as_deref().is_none_or(|s| !s.contains("in_service_since")), "{a:?}");
}

#[test]
fn an_adjective_no_column_answers_orders_by_the_one_figure() {
    let ctx = care_agency();
    let s = sql(&ctx, "How many visits has each vehicle made? Busiest vehicle first.");
    assert!(s.contains("GROUP BY") && s.contains("ORDER BY COUNT(*) DESC"), "{s}");
}

#[test]
fn a_figure_over_groups_of_one_row_each_asks() {
    let ctx = care_agency();
    let a = answer(&ctx, "Average distance per visit for each severity of incident");
    assert!(a.as_deref().is_none_or(|s| !s.contains("GROUP BY visits.visit_id")), "{a:?}");
}

#[test]
fn a_date_after_a_noun_of_a_dated_table_and_a_whole_name_as_label() {
    let ctx = care_agency();
    // "a check" reads as `check_type`, a column of the checks, which have one date.
    let s = sql(&ctx, "Which vehicles failed a check in September 2024? Give the plate and the kind of check.");
    assert!(s.contains("vehicle_checks.checked_on >= '2024-09-01'") && !s.contains("in_service_since"), "{s}");
    // Three name columns: the company's whole name labels the rows, not a contact's surname.
    let s = sql(&ctx, "Which contractor made the most repairs in 2025?");
    assert!(s.contains("contractors.company_name") && !s.contains("contact_last_name"), "{s}");
}
