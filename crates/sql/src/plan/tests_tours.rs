//! Readings added in session 25, on a schema written for these tests (a cycling-tour company:
//! riders who refer riders, guides, tours with a start and an end stop, bookings, stops on a
//! tour, invoices with an amount and the VAT on it): "referred by another rider", "people" of
//! the one table of people, a relation said by the verb of a linking table, the table named
//! after both ends as the relation without a role, the amount among several money columns,
//! and groups shown by their bare key asking.

use super::tests::{answer, col, fk, nullable, sql, table};
use super::*;
use crate::{ColumnInfo, DbSchema, ForeignKey};

fn tours() -> SchemaContext {
    let t = |name: &str, pk: &str, columns: Vec<ColumnInfo>, fks: Vec<ForeignKey>| table(name, pk, columns, fks, 80);
    SchemaContext::build(
        DbSchema {
            dialect: None,
            tables: vec![
                t(
                    "riders",
                    "rider_id",
                    vec![col("rider_id", "integer", &[]), col("first_name", "text", &["Femke", "Joris"]), col("last_name", "text", &["Bakker", "Smit"]), col("joined_on", "text", &["2023-04-01", "2025-05-02"]), nullable(col("company_name", "text", &["Fietsplan BV"])), nullable(col("referred_by_rider_id", "integer", &[]))],
                    vec![fk("referred_by_rider_id", "riders", "rider_id")],
                ),
                t("stops", "stop_id", vec![col("stop_id", "integer", &[]), col("name", "text", &["Molenplein", "Veerhaven"])], vec![]),
                t(
                    "tours",
                    "tour_id",
                    vec![col("tour_id", "integer", &[]), col("title", "text", &["Dykes and Mills", "Tulip Loop"]), col("category", "text", &["family", "sport"]), col("guide_id", "integer", &[]), col("start_stop_id", "integer", &[]), col("end_stop_id", "integer", &[])],
                    vec![fk("guide_id", "riders", "rider_id"), fk("start_stop_id", "stops", "stop_id"), fk("end_stop_id", "stops", "stop_id")],
                ),
                t("tour_stops", "tour_stop_id", vec![col("tour_stop_id", "integer", &[]), col("tour_id", "integer", &[]), col("stop_id", "integer", &[])], vec![fk("tour_id", "tours", "tour_id"), fk("stop_id", "stops", "stop_id")]),
                t(
                    "tour_bookings",
                    "booking_id",
                    vec![col("booking_id", "integer", &[]), col("tour_id", "integer", &[]), col("rider_id", "integer", &[]), col("booked_on", "text", &["2025-03-01", "2025-06-11"])],
                    vec![fk("tour_id", "tours", "tour_id"), fk("rider_id", "riders", "rider_id")],
                ),
                t(
                    "invoices",
                    "invoice_id",
                    vec![col("invoice_id", "integer", &[]), col("booking_id", "integer", &[]), col("amount_eur", "numeric(8,2)", &[]), col("vat_eur", "numeric(8,2)", &[]), col("issued_on", "text", &["2025-03-02", "2025-06-12"])],
                    vec![fk("booking_id", "tour_bookings", "booking_id")],
                ),
            ],
        },
        None,
    )
}

#[test]
fn referred_by_another_of_the_rows_is_whether_the_reference_is_held() {
    let ctx = tours();
    let s = sql(&ctx, "Which riders were referred by another rider?");
    assert!(s.contains("riders.referred_by_rider_id IS NOT NULL"), "{s}");
    let s = sql(&ctx, "How many riders were referred to us by another rider?");
    assert!(s.contains("COUNT(*)") && s.contains("referred_by_rider_id IS NOT NULL"), "{s}");
}

#[test]
fn people_are_the_one_table_of_people() {
    let ctx = tours();
    let s = sql(&ctx, "How many people joined in 2025?");
    assert!(s.contains("FROM riders") && s.contains("riders.joined_on >= '2025-01-01'"), "{s}");
}

#[test]
fn the_verb_of_a_linking_table_and_the_table_named_after_both_relate_rows() {
    let ctx = tours();
    // "booked" names `tour_bookings`: not the guide's key `tours.guide_id`.
    let s = sql(&ctx, "How many riders booked each tour?");
    assert!(s.contains("tour_bookings") && !s.contains("guide_id"), "{s}");
    // Two role keys (start, end) and `tour_stops`, named after both: the stops on a tour.
    let s = sql(&ctx, "Which stops are visited by more than two tours?");
    assert!(s.contains("tour_stops") && !s.contains("start_stop_id") && !s.contains("end_stop_id"), "{s}");
    // A word of a role keeps its key.
    let a = answer(&ctx, "Where does the Tulip Loop tour end?");
    assert!(a.as_deref().is_none_or(|s| s.contains("end_stop_id")), "{a:?}");
}

#[test]
fn the_amount_among_money_columns_and_groups_shown_by_their_key_ask() {
    let ctx = tours();
    let s = sql(&ctx, "What is the total amount of the invoices?");
    assert!(s.contains("SUM(invoices.amount_eur)"), "{s}");
    let s = sql(&ctx, "How many invoices over 500 euros were issued in 2025?");
    assert!(s.contains("invoices.amount_eur > 500") && !s.contains("vat_eur"), "{s}");
    // Groups of riders by who referred them, shown by the bare key: asked.
    let a = answer(&ctx, "Which riders have referred more than two riders, and how many each?");
    assert!(a.as_deref().is_none_or(|s| s.contains("first_name")), "{a:?}");
}

#[test]
fn a_column_named_after_the_tables_noun_groups_and_the_code_alone_is_the_rows_code() {
    let ctx = tours();
    // "per tour category": the tours' category, reached from the bookings.
    let s = sql(&ctx, "How many bookings were made per tour category?");
    assert!(s.contains("GROUP BY tours.category"), "{s}");
}

#[test]
fn a_second_what_clause_the_query_leaves_unanswered_asks() {
    let ctx = tours();
    let a = answer(&ctx, "How many invoices were issued in 2025, and what did they come to in total?");
    assert!(a.as_deref().is_none_or(|s| s.contains("SUM(invoices.amount_eur)")), "{a:?}");
    // Said again with "how many", the count answers both.
    let s = sql(&ctx, "Which rider made the most bookings, and how many bookings was that?");
    assert!(s.contains("COUNT("), "{s}");
    // A count of the rows between "which" and their noun.
    let s = sql(&ctx, "Which three riders made the most bookings?");
    assert!(s.contains("GROUP BY") && s.contains("LIMIT 3"), "{s}");
}

#[test]
fn the_words_after_are_say_which_rows_not_what_to_show() {
    let ctx = tours();
    // "are companies" read only as `company_name` to show would list every rider.
    let a = answer(&ctx, "Which riders are companies? Give the company name.");
    assert!(a.as_deref().is_none_or(|s| s.contains("WHERE")), "{a:?}");
    // "when were they …" after the rows' own clause is another ask, not their predicate.
    let s = sql(&ctx, "Which riders joined in 2025, and when did they join?");
    assert!(s.contains("riders.joined_on"), "{s}");
}
