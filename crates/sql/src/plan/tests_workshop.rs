//! Readings added in session 25, on a schema written for these tests (a bicycle workshop:
//! bike models with a maker, repairs started and finished, parts used on a repair, customers
//! with a birth date): a verb of finishing dates the rows' own event, rows without a date are
//! dated by the row they belong to, "oldest" of a person is the birth date, "largest first"
//! orders the one measure shown, a model is named by its maker too, a reference said with its
//! table's code word shows that code, and a word of the database's name is no group.

use super::tests::{col, fk, nullable, on, sql, table};
use super::*;
use crate::{ColumnInfo, DbSchema, ForeignKey};

fn workshop() -> SchemaContext {
    let t = |name: &str, pk: &str, columns: Vec<ColumnInfo>, fks: Vec<ForeignKey>| table(name, pk, columns, fks, 60);
    SchemaContext::build(
        DbSchema {
            dialect: None,
            tables: vec![
                t("shops", "shop_id", vec![col("shop_id", "integer", &[]), col("city", "text", &["Delft", "Leiden"])], vec![]),
                t(
                    "customers",
                    "customer_id",
                    vec![col("customer_id", "integer", &[]), col("first_name", "text", &["Noor", "Bram"]), col("last_name", "text", &["Visser", "Mulder"]), col("date_of_birth", "text", &["1961-03-02", "1999-11-20"]), col("joined_on", "text", &["2020-01-05", "2025-02-14"]), col("shop_id", "integer", &[])],
                    vec![fk("shop_id", "shops", "shop_id")],
                ),
                t(
                    "bike_models",
                    "bike_model_id",
                    vec![col("bike_model_id", "integer", &[]), col("manufacturer", "text", &["Gazelle", "Batavus"]), col("model_name", "text", &["Ultimate C8", "Finez"]), col("weight_kg", "real", &[]), col("gear_count", "integer", &[])],
                    vec![],
                ),
                t(
                    "repairs",
                    "repair_id",
                    vec![
                        col("repair_id", "integer", &[]),
                        col("repair_code", "text", &["RP-2025-0012", "RP-2024-0140"]),
                        col("bike_model_id", "integer", &[]),
                        col("customer_id", "integer", &[]),
                        col("started_on", "text", &["2024-03-01", "2025-06-11"]),
                        nullable(col("repaired_on", "text", &["2024-03-04", "2025-06-19"])),
                    ],
                    vec![fk("bike_model_id", "bike_models", "bike_model_id"), fk("customer_id", "customers", "customer_id")],
                ),
                t(
                    "parts_used",
                    "part_id",
                    vec![col("part_id", "integer", &[]), col("repair_id", "integer", &[]), col("part_type", "text", &["brake pad", "chain", "tyre"]), col("cost_eur", "numeric(8,2)", &[])],
                    vec![fk("repair_id", "repairs", "repair_id")],
                ),
            ],
        },
        None,
    )
}

#[test]
fn finishing_dates_the_rows_own_event_and_dateless_rows_their_parent() {
    let ctx = workshop();
    let s = sql(&ctx, "How many repairs were completed in 2024?");
    assert!(s.contains("repairs.repaired_on >= '2024-01-01'") && !s.contains("started_on"), "{s}");
    // The parts have no date: the repair they were used on dates them.
    let s = sql(&ctx, "How many chains were used in 2025?");
    assert!(s.contains("JOIN repairs") && s.contains("repairs.repaired_on >= '2025-01-01'"), "{s}");
}

#[test]
fn the_oldest_person_is_read_off_the_birth_date() {
    let ctx = workshop();
    let s = sql(&ctx, "Who is the oldest customer who joined at the Delft shop?");
    assert!(s.contains("ORDER BY customers.date_of_birth ASC"), "{s}");
    // "most recently joined" still ranks by the date its verb names.
    let s = sql(&ctx, "Which customer joined most recently?");
    assert!(s.contains("customers.joined_on DESC"), "{s}");
}

#[test]
fn an_adjective_first_orders_the_one_measure_shown_and_models_keep_their_maker() {
    let ctx = workshop();
    // "largest" alone would read `gear_count` (a count is a size); the list shows the weight.
    let s = sql(&ctx, "List the bike models with their weight, largest first.");
    assert!(s.contains("ORDER BY bike_models.weight_kg DESC") && !s.contains("gear_count"), "{s}");
    assert!(s.contains("bike_models.manufacturer") && s.contains("bike_models.model_name"), "{s}");
}

#[test]
fn a_reference_said_with_its_tables_code_word_shows_that_code() {
    let ctx = workshop();
    let s = sql(&ctx, "Which parts cost more than 50 euros? Give the part type and the repair code.");
    assert!(s.contains("repairs.repair_code") && s.contains("JOIN repairs"), "{s}");
    // "the repair id" is the key itself.
    let s = sql(&ctx, "Which parts cost more than 50 euros? Give the part type and the repair id.");
    assert!(s.contains("parts_used.repair_id") && !s.contains("repair_code"), "{s}");
}

#[test]
fn a_word_of_the_database_name_before_a_group_is_the_domain() {
    let ctx = workshop().with_database_name("sqlite:///data/cycle_workshop.db");
    let o = on(&ctx, "How much did we spend on parts in each cycle shop?");
    let plan = o.plan.expect("a plan");
    let s = ir::render_query(&ctx, &plan, crate::Dialect::Sqlite, Some(200));
    assert!(s.contains("GROUP BY") && s.contains("shops"), "{s}");
}

#[test]
fn the_code_alone_in_a_list_is_the_rows_code() {
    let ctx = workshop();
    let s = sql(&ctx, "Which repairs were completed in 2025? Give the code and the start date.");
    assert!(s.contains("repairs.repair_code") && s.contains("repairs.started_on"), "{s}");
}

#[test]
fn a_model_shown_is_shown_with_its_maker() {
    let ctx = workshop();
    let s = sql(&ctx, "Which model has the most gears?");
    assert!(s.contains("bike_models.manufacturer") && s.contains("bike_models.model_name"), "{s}");
}
