//! Readings added in session 27, on a schema written for these tests (a fruit growers'
//! cooperative: regions, growers, orchards, buyers, sales, harvests, jams and their
//! ingredients, tastings): a value or column several tables hold is read in the table nearest
//! the others the question names; the organisation the data belongs to ("the cooperative") is
//! no condition; "per kilogram" is a rate, not a group; a 0/1 flag had or not had is 1 or 0; a verb of
//! position relates; and answers that only repeat the question's givens, leave a "who" clause
//! unanswered, group other rows than "which N X" asks for, or drop a state said after "are",
//! ask instead.

use super::tests::{answer, col, fk, nullable, sql, table};
use super::*;
use crate::{ColumnInfo, DbSchema, ForeignKey};

fn orchards() -> SchemaContext {
    let t = |name: &str, pk: &str, columns: Vec<ColumnInfo>, fks: Vec<ForeignKey>| table(name, pk, columns, fks, 80);
    SchemaContext::build(
        DbSchema {
            dialect: None,
            tables: vec![
                t("regions", "region_id", vec![col("region_id", "integer", &[]), col("name", "text", &["Betuwe", "Haspengouw"]), col("country_code", "text", &["NL", "BE"])], vec![]),
                t(
                    "growers",
                    "grower_id",
                    vec![col("grower_id", "integer", &[]), col("first_name", "text", &["Anouk", "Pieter"]), col("last_name", "text", &["Jansen", "Claes"]), col("grower_code", "text", &["GR-0012", "GR-0140"]), col("postal_code", "text", &["4001", "3800"]), col("region_id", "integer", &[]), col("joined_on", "text", &["2019-04-01", "2024-06-12"])],
                    vec![fk("region_id", "regions", "region_id")],
                ),
                t(
                    "orchards",
                    "orchard_id",
                    vec![col("orchard_id", "integer", &[]), col("site_code", "text", &["OR-NL-001", "OR-BE-004"]), col("name", "text", &["De Hoge Hof", "Sint-Truiden Oost"]), col("region_id", "integer", &[]), col("grower_id", "integer", &[]), col("altitude_m", "integer", &[]), col("has_irrigation", "integer", &["0", "1"])],
                    vec![fk("region_id", "regions", "region_id"), fk("grower_id", "growers", "grower_id")],
                ),
                t("buyers", "buyer_id", vec![col("buyer_id", "integer", &[]), col("company_name", "text", &["FreshCo", "Appelhuis"]), col("country_code", "text", &["NL", "DE"])], vec![]),
                t(
                    "sales",
                    "sale_id",
                    vec![col("sale_id", "integer", &[]), col("buyer_id", "integer", &[]), col("grower_id", "integer", &[]), col("fruit_type", "text", &["pear", "apple", "cherry"]), col("quantity_kg", "real", &[]), col("unit_price_eur", "real", &[]), col("sold_on", "text", &["2025-03-02", "2024-10-11"])],
                    vec![fk("buyer_id", "buyers", "buyer_id"), fk("grower_id", "growers", "grower_id")],
                ),
                t(
                    "harvests",
                    "harvest_id",
                    vec![col("harvest_id", "integer", &[]), col("orchard_id", "integer", &[]), col("fruit_type", "text", &["pear", "apple", "cherry"]), col("harvested_kg", "real", &[]), col("sugar_pct", "real", &[]), col("picked_on", "text", &["2025-09-02", "2024-08-20"])],
                    vec![fk("orchard_id", "orchards", "orchard_id")],
                ),
                t("jams", "jam_id", vec![col("jam_id", "integer", &[]), col("jam_name", "text", &["Pear Ginger", "Cherry Classic"]), col("is_vegan", "integer", &["0", "1"])], vec![]),
                t(
                    "ingredients",
                    "ingredient_id",
                    vec![col("ingredient_id", "integer", &[]), col("name", "text", &["cane sugar", "pectin", "ginger"]), nullable(col("contains_gelatine", "integer", &["0", "1"])), col("price_per_kg_eur", "real", &[]), col("pack_size_kg", "real", &[])],
                    vec![],
                ),
                t(
                    "jam_ingredients",
                    "jam_ingredient_id",
                    vec![col("jam_ingredient_id", "integer", &[]), col("jam_id", "integer", &[]), col("ingredient_id", "integer", &[]), col("grams", "integer", &[])],
                    vec![fk("jam_id", "jams", "jam_id"), fk("ingredient_id", "ingredients", "ingredient_id")],
                ),
                t(
                    "tastings",
                    "tasting_id",
                    vec![col("tasting_id", "integer", &[]), col("orchard_id", "integer", &[]), col("jam_id", "integer", &[]), col("held_on", "text", &["2025-03-12", "2024-05-02"])],
                    vec![fk("orchard_id", "orchards", "orchard_id"), fk("jam_id", "jams", "jam_id")],
                ),
            ],
        },
        None,
    )
}

#[test]
fn a_value_or_column_several_tables_hold_is_read_nearest_the_named_table() {
    let ctx = orchards();
    // 'cherry' is a fruit of sales and of harvests: the buyers' sales hold it one join away.
    let s = sql(&ctx, "How many different buyers bought cherries?");
    assert!(s.contains("sales.fruit_type = 'cherry'") && !s.contains("harvests"), "{s}");
    // `country_code` of regions (the growers' own) and of buyers (two joins away).
    let s = sql(&ctx, "How many growers are there in each country?");
    assert!(s.contains("GROUP BY regions.country_code") && !s.contains("buyers"), "{s}");
}

#[test]
fn the_organisation_the_data_belongs_to_is_no_condition() {
    let ctx = orchards();
    let s = sql(&ctx, "How many orchards does the cooperative have?");
    assert!(s.starts_with("SELECT COUNT(*)") && s.contains("FROM orchards") && !s.contains("WHERE"), "{s}");
    let s = sql(&ctx, "How many growers joined the cooperative in 2024?");
    assert!(s.contains("growers.joined_on >= '2024-01-01'"), "{s}");
    // A capitalised word is a name the data may not hold: never dropped.
    assert_eq!(answer(&ctx, "How many orchards does the Fruitful Union have?"), None);
}

#[test]
fn rates_negations_and_verbs_of_position() {
    let ctx = orchards();
    let s = sql(&ctx, "Which three ingredients are the most expensive per kilogram?");
    assert!(s.contains("ORDER BY ingredients.price_per_kg_eur DESC") && s.contains("LIMIT 3") && !s.contains("GROUP BY"), "{s}");
    // A 0/1 flag said as something had or not had is its 1 or 0, never a NULL test.
    let s = sql(&ctx, "Which ingredients have no gelatine?");
    assert!(s.contains("ingredients.contains_gelatine = 0") && !s.contains("NULL"), "{s}");
    let s = sql(&ctx, "How many ingredients have gelatine?");
    assert!(s.contains("ingredients.contains_gelatine = 1") && !s.contains("NULL"), "{s}");
    let s = sql(&ctx, "Which orchards lie above 500 metres? Give the site code and altitude.");
    assert!(s.contains("orchards.altitude_m > 500"), "{s}");
}

#[test]
fn answers_that_would_not_answer_ask() {
    let ctx = orchards();
    // Only the givens back (the site code, the one day).
    assert_eq!(answer(&ctx, "What was tasted at orchard OR-NL-001 on 12 March 2025?"), None);
    // The region alone for "and who owns it".
    assert_eq!(answer(&ctx, "In which region is orchard OR-BE-004, and who owns it?"), None);
    // Groups of orchards for "which three regions".
    assert_eq!(answer(&ctx, "Which three regions' orchards had the most harvests? List them with their harvest counts."), None);
    // "still out": a state no condition says.
    assert_eq!(answer(&ctx, "Which harvests are still out?"), None);
}

#[test]
fn percentages_and_the_code_of_a_referenced_row() {
    let ctx = orchards();
    // "percentage" is the unit of a `_pct` column …
    let s = sql(&ctx, "What is the average sugar percentage of the harvests?");
    assert!(s.contains("AVG(harvests.sugar_pct)"), "{s}");
    // … and a percentage of rows a ratio of two counts, the part's and the whole's.
    let s = sql(&ctx, "What percentage of the harvests picked in 2025 were cherries?");
    assert!(s.starts_with("SELECT 100.0 * (SELECT COUNT(*) FROM harvests WHERE"), "{s}");
    let (part, whole) = s.split_once(" / NULLIF(").expect("a division");
    assert!(part.contains("harvests.fruit_type = 'cherry'") && part.contains("harvests.picked_on >= '2025-01-01'"), "{s}");
    assert!(!whole.contains("cherry") && whole.contains("harvests.picked_on >= '2025-01-01'"), "{s}");
    // Per group, the two counts cannot say it: asked.
    assert_eq!(answer(&ctx, "What percentage of the harvests were cherries, per region?"), None);
    // "the grower code" over `orchards.grower_id`: the grower's own code, of two code columns.
    let s = sql(&ctx, "Which orchards have irrigation? Show the site code and the grower code.");
    assert!(s.contains("growers.grower_code") && !s.contains("postal_code"), "{s}");
}

#[test]
fn related_rows_counted_after_of_our_and_money_asked_of_a_weight() {
    let ctx = orchards();
    let s = sql(&ctx, "Which buyers have bought from more than one of our growers?");
    assert!(s.contains("HAVING COUNT(DISTINCT") && s.contains("> 1"), "{s}");
    // "the total value" is money: a sum of kilograms is no answer.
    assert_eq!(answer(&ctx, "What was the total value of the cherries harvested in 2025?"), None);
}

#[test]
fn on_which_dates_asks_for_the_date_the_verb_names() {
    let ctx = orchards();
    // The orchards have no date; the harvests' `picked_on` is the one the verb names.
    let s = sql(&ctx, "On which dates was orchard OR-NL-001 picked?");
    assert!(s.starts_with("SELECT DISTINCT harvests.picked_on") && s.contains("orchards.site_code = 'OR-NL-001'"), "{s}");
}
