use super::*;
use crate::schema::tests::audit_context;

fn p(q: &str) -> PlanOutcome {
    plan(&audit_context(), q, &[])
}

#[test]
fn count_with_value_filter() {
    let o = p("How many critical findings are there?");
    let plan = o.plan.unwrap();
    assert_eq!(plan.table, "findings");
    assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Count, column: None }));
    assert!(matches!(&plan.filters[0], Filter::In { col, values, .. } if col.column == "severity" && values == &["Critical"]));
    assert!(o.ambiguity.is_none());
}

#[test]
fn group_by_department_joins_along_foreign_keys() {
    let o = p("How many open findings per department?");
    let plan = o.plan.unwrap();
    assert_eq!(plan.table, "findings");
    assert_eq!(plan.joins.len(), 2, "{:?}", plan.joins);
    assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("departments", "name") }]);
    assert!(matches!(&plan.filters[0], Filter::In { col, .. } if col == &ColRef::new("findings", "status")));
    assert!(o.fixes.iter().any(|f| f.starts_with("joined audits")), "{:?}", o.fixes);
}

#[test]
fn average_measure_year_and_alias() {
    let o = p("What is the average cost of urgent issues in 2024 by category?");
    let plan = o.plan.unwrap();
    assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Avg, column: Some(ColRef::new("findings", "estimated_cost")) }));
    assert!(plan.filters.contains(&Filter::Year { col: ColRef::new("findings", "reported_on"), year: 2024 }));
    assert!(plan.filters.iter().any(|f| matches!(f, Filter::In { values, .. } if values == &["Critical"])));
    assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("findings", "category") }]);
}

#[test]
fn ambiguous_value_asks_and_an_answer_resolves_it() {
    let o = p("How many are open?");
    let amb = o.ambiguity.expect("open is a status of audits and of findings");
    assert_eq!(amb.options.len(), 2);
    let q = o.clarifying_question.unwrap();
    assert!(q.contains("1. ") && q.contains("2. "), "{q}");
    let choice = resolve_answer(&amb, "findings").unwrap();
    assert_eq!(term_table(&choice), "findings");
    assert_eq!(resolve_answer(&amb, "2").map(|t| term_table(&t).to_string()), Some(term_table(&amb.options[1].term).to_string()));
    assert_eq!(resolve_answer(&amb, "9"), None);
    let o2 = plan(&audit_context(), "How many are open?", &[Clarification { phrase: amb.phrase.clone(), answer: "findings".into(), choice: Some(choice) }]);
    assert!(o2.ambiguity.is_none());
    let plan2 = o2.plan.unwrap();
    assert!(matches!(&plan2.filters[0], Filter::In { col, .. } if col.table == "findings"));
}

#[test]
fn value_before_a_table_word_binds_to_that_table() {
    let o = p("How many findings in closed audits?");
    assert!(o.ambiguity.is_none(), "{:?}", o.ambiguity);
    let plan = o.plan.unwrap();
    assert!(matches!(&plan.filters[0], Filter::In { col, .. } if col == &ColRef::new("audits", "status")));
}

#[test]
fn no_table_at_all_asks_which_table() {
    let o = p("How is the weather?");
    assert!(o.plan.is_none());
    assert_eq!(o.ambiguity.unwrap().options.len(), 4);
}

#[test]
fn which_department_has_the_most_is_top_one() {
    let plan = p("Which department has the most critical findings?").plan.unwrap();
    assert_eq!(plan.limit, Some(1));
    assert_eq!(plan.order_by, Some((None, true)));
    assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("departments", "name") }]);
}

#[test]
fn per_month_groups_by_time() {
    let plan = p("Number of findings per month in 2025").plan.unwrap();
    assert_eq!(plan.group_by, vec![GroupKey::Time { col: ColRef::new("findings", "reported_on"), unit: TimeUnit::Month }]);
    assert!(plan.filters.contains(&Filter::Year { col: ColRef::new("findings", "reported_on"), year: 2025 }));
}

#[test]
fn list_query_selects_label_and_filter_columns() {
    let plan = p("List critical findings in the Finance department with cost over 100000").plan.unwrap();
    assert!(plan.aggregate.is_none());
    assert!(plan.select.contains(&ColRef::new("findings", "summary")));
    assert!(plan.filters.iter().any(|f| matches!(f, Filter::Compare { op, value, .. } if op == ">" && *value == 100000.0)));
    assert!(plan.filters.iter().any(|f| matches!(f, Filter::In { col, .. } if col == &ColRef::new("departments", "name"))));
}

#[test]
fn most_expensive_lists_ordered_by_cost_with_a_limit() {
    let plan = p("List the 5 most expensive critical findings").plan.unwrap();
    assert!(plan.aggregate.is_none(), "{plan:?}");
    assert_eq!(plan.limit, Some(5));
    assert_eq!(plan.order_by, Some((Some(ColRef::new("findings", "estimated_cost")), true)));
    let plan = p("What is the highest estimated cost of a critical finding?").plan.unwrap();
    assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Max, column: Some(ColRef::new("findings", "estimated_cost")) }));
}

#[test]
fn top_n_groups_by_the_term_after_it() {
    let plan = p("top 3 categories by total cost").plan.unwrap();
    assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("findings", "category") }]);
    assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Sum, column: Some(ColRef::new("findings", "estimated_cost")) }));
    assert_eq!((plan.limit, plan.order_by.clone()), (Some(3), Some((None, true))));
    let plan = p("top 2 departments by number of findings").plan.unwrap();
    assert_eq!(plan.table, "findings");
    assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("departments", "name") }]);
    // A lone table after "top" is the subject, not a grouping.
    let plan = p("top 3 findings by cost").plan.unwrap();
    assert!(plan.group_by.is_empty() && plan.aggregate.is_none(), "{plan:?}");
    assert_eq!((plan.limit, plan.order_by.clone()), (Some(3), Some((Some(ColRef::new("findings", "estimated_cost")), true))));
}

#[test]
fn group_by_completion_fix() {
    let ctx = audit_context();
    let mut plan = Plan {
        table: "findings".into(),
        joins: vec![],
        select: vec![ColRef::new("findings", "severity")],
        filters: vec![],
        aggregate: Some(Aggregate { func: AggFunc::Count, column: None }),
        group_by: vec![],
        order_by: None,
        limit: None,
    };
    let fixes = fix_plan(&ctx, &mut plan);
    assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("findings", "severity") }]);
    assert!(fixes[0].starts_with("grouped by findings.severity"));
}
/// A third schema, of another domain than both samples (a small shop), that no rule was
/// written for: the planner must read it from names, types, keys and sampled values alone.
mod other_schema {
    use super::*;
    use crate::generate::render;
    use crate::schema::SchemaContext;
    use crate::{ColumnInfo, DbSchema, Dialect, ForeignKey, TableInfo};

    fn col(name: &str, ty: &str, nullable: bool, samples: &[&str]) -> ColumnInfo {
        let distinct = (!samples.is_empty()).then_some(samples.len() as u64);
        ColumnInfo { name: name.into(), data_type: ty.into(), nullable, samples: samples.iter().map(|s| s.to_string()).collect(), distinct }
    }

    fn table(name: &str, columns: Vec<ColumnInfo>, fks: &[(&str, &str)]) -> TableInfo {
        let foreign_keys = fks.iter().map(|(c, t)| ForeignKey { columns: vec![c.to_string()], ref_table: t.to_string(), ref_columns: vec!["id".into()] }).collect();
        TableInfo { name: name.into(), columns, primary_key: vec!["id".into()], foreign_keys, row_count: Some(10) }
    }

    fn shop() -> SchemaContext {
        let db = DbSchema {
            dialect: None,
            tables: vec![
                table(
                    "customers",
                    vec![col("id", "integer", false, &[]), col("name", "text", false, &[]), col("city", "text", false, &["Berlin", "Porto", "Lyon"]), col("is_archived", "boolean", false, &[]), col("signed_up_on", "date", false, &[])],
                    &[],
                ),
                table(
                    "products",
                    vec![col("id", "integer", false, &[]), col("name", "text", false, &[]), col("category", "text", false, &["outdoor", "kitchen", "garden_tools"]), col("price", "numeric(8,2)", false, &[]), col("in_stock", "boolean", false, &[])],
                    &[],
                ),
                table(
                    "orders",
                    vec![
                        col("id", "integer", false, &[]),
                        col("customer_id", "integer", false, &[]),
                        col("ordered_on", "date", false, &[]),
                        col("channel", "text", false, &["web_shop", "phone", "in-store"]),
                        col("discount_code", "text", true, &[]),
                        col("amount", "numeric(10,2)", false, &[]),
                    ],
                    &[("customer_id", "customers")],
                ),
                table(
                    "order_items",
                    vec![col("id", "integer", false, &[]), col("order_id", "integer", false, &[]), col("product_id", "integer", false, &[]), col("quantity", "integer", false, &[])],
                    &[("order_id", "orders"), ("product_id", "products")],
                ),
            ],
        };
        SchemaContext::build(db, None)
    }

    fn sql(q: &str) -> (PlanOutcome, String) {
        let ctx = shop();
        let o = plan(&ctx, q, &[]);
        let s = o.plan.as_ref().map(|p| render(&ctx, p, Dialect::Sqlite, 100)).unwrap_or_default();
        (o, s)
    }

    fn confident(q: &str) -> String {
        let (o, s) = sql(q);
        assert!(o.ambiguity.is_none() && o.confidence >= CONFIDENCE_THRESHOLD, "{q}: {:?} {:?}", o.coverage, o.ambiguity);
        let v = crate::validate::validate(&s, Dialect::Sqlite, Some(&shop().db), 100);
        assert!(v.ok, "{q}: {s}: {:?}", v.reasons);
        s
    }

    #[test]
    fn yes_no_columns_values_with_separators_and_optional_columns() {
        assert!(confident("How many customers are archived?").contains("WHERE customers.is_archived = TRUE"));
        assert!(confident("How many customers are not archived?").contains("customers.is_archived = FALSE"));
        assert!(confident("How many products are in stock?").contains("products.in_stock = TRUE"));
        assert!(confident("How many products are out of stock?").contains("products.in_stock = FALSE"));
        assert!(confident("How many orders came through the web shop?").contains("orders.channel = 'web_shop'"));
        assert!(confident("How many in store orders?").contains("orders.channel = 'in-store'"));
        assert!(confident("How many orders with a discount code?").contains("orders.discount_code IS NOT NULL"));
        assert!(confident("How many orders without a discount code?").contains("orders.discount_code IS NULL"));
    }

    #[test]
    fn comparisons_bind_to_the_named_column() {
        let s = confident("How many outdoor products have a price over 50?");
        assert!(s.contains("products.price > 50") && s.contains("products.category = 'outdoor'"), "{s}");
        let s = confident("How many products are priced between 10 and 20?");
        assert!(s.contains("products.price >= 10 AND products.price <= 20"), "{s}");
        let s = confident("How many orders have a quantity of at least 3 items?");
        assert!(s.contains("order_items.quantity >= 3") || s.contains(">= 3"), "{s}");
        let s = confident("How many customers have more than 2 orders?");
        assert!(s.contains("(SELECT COUNT(*) FROM orders WHERE orders.customer_id = customers.id) > 2"), "{s}");
        let s = confident("How many customers have never ordered?");
        assert!(s.contains("= 0"), "{s}");
    }

    #[test]
    fn projections_rankings_and_distinct_counts() {
        let s = confident("List the names and cities of archived customers");
        assert!(s.starts_with("SELECT customers.name, customers.city FROM customers"), "{s}");
        let s = confident("Which customer has the most orders?");
        assert!(s.contains("GROUP BY customers.name") && s.ends_with("LIMIT 1"), "{s}");
        let s = confident("Which product has the highest price?");
        assert!(s.contains("ORDER BY products.price DESC LIMIT 1") && !s.contains("GROUP BY"), "{s}");
        let s = confident("Average price per category");
        assert!(s.starts_with("SELECT products.category AS category, ROUND(AVG(products.price), 2)"), "{s}");
        let s = confident("How many different cities do customers live in?");
        assert!(s.contains("COUNT(DISTINCT customers.city)"), "{s}");
    }

    #[test]
    fn one_to_many_joins_never_repeat_a_parents_amount() {
        // Filter only: a semi-join, so each order's amount counts once.
        let s = confident("What is the total amount of orders with outdoor products?");
        assert!(s.contains("SUM(orders.amount)") && s.contains("orders.id IN (SELECT order_items.order_id FROM order_items JOIN products"), "{s}");
        // Grouped by something on the many side: de-duplicate before summing.
        let s = confident("Total amount of orders per product category");
        assert!(s.contains("SELECT DISTINCT orders.id AS qa_key"), "{s}");
        // Counting customers through their orders: each customer once.
        let s = confident("How many customers ordered in 2024?");
        assert!(s.contains("customers.id IN (SELECT orders.customer_id FROM orders WHERE orders.ordered_on >= '2024-01-01'"), "{s}");
    }

    #[test]
    fn dates_lists_and_alternatives() {
        // The date is the counted rows', not the grouping target's.
        let s = confident("How many orders per customer in 2024?");
        assert!(s.contains("orders.ordered_on >= '2024-01-01' AND orders.ordered_on < '2025-01-01'") && s.contains("GROUP BY customers.name"), "{s}");
        let s = confident("List orders from March 2024");
        assert!(s.contains("orders.ordered_on >= '2024-03-01' AND orders.ordered_on < '2024-04-01'"), "{s}");
        let s = confident("Total amount by channel and city");
        assert!(s.contains("GROUP BY orders.channel, customers.city ORDER BY total_amount DESC, 1, 2"), "{s}");
        let s = confident("How many orders came by phone or in store?");
        assert!(s.contains("orders.channel IN ('phone', 'in-store')"), "{s}");
        let s = confident("How many orders did not come by phone or in store?");
        assert!(s.contains("orders.channel NOT IN ('phone', 'in-store')"), "{s}");
    }

    #[test]
    fn unknown_words_lower_the_confidence_instead_of_being_dropped() {
        let (o, _) = sql("How many loyal customers are there?");
        assert!(o.confidence < CONFIDENCE_THRESHOLD, "{:?}", o.coverage);
        assert_eq!(o.coverage.unmapped, ["loyal"]);
        let (o, _) = sql("How many products in the camping category?");
        assert!(o.confidence < CONFIDENCE_THRESHOLD && o.coverage.unmapped.contains(&"camping".to_string()), "{:?}", o.coverage);
        let (o, _) = sql("How many orders in the cold months?");
        assert!(o.confidence < CONFIDENCE_THRESHOLD, "{:?}", o.coverage);
    }

    #[test]
    fn relative_dates_and_money_comparatives() {
        let ctx = shop();
        let today = chrono::NaiveDate::from_ymd_opt(2026, 5, 20).unwrap();
        let on = |q: &str| {
            let o = plan_on(&ctx, q, &[], today);
            assert!(o.ambiguity.is_none() && o.confidence >= CONFIDENCE_THRESHOLD, "{q}: {:?}", o.coverage);
            o.plan.as_ref().map(|p| render(&ctx, p, Dialect::Sqlite, 100)).unwrap_or_default()
        };
        assert!(on("How many orders last year?").contains("orders.ordered_on >= '2025-01-01' AND orders.ordered_on < '2026-01-01'"));
        assert!(on("How many orders this year?").contains("orders.ordered_on >= '2026-01-01' AND orders.ordered_on < '2027-01-01'"));
        assert!(on("How many orders this month?").contains("orders.ordered_on >= '2026-05-01' AND orders.ordered_on < '2026-06-01'"));
        assert!(on("orders in the last 10 days").contains("orders.ordered_on >= '2026-05-10' AND orders.ordered_on < '2026-05-21'"));
        assert!(on("How many orders last month?").contains("orders.ordered_on >= '2026-04-20'"));
        assert!(on("customers who signed up in the past 2 weeks").contains("customers.signed_up_on >= '2026-05-06'"));
        assert!(on("orders from today").contains("orders.ordered_on >= '2026-05-20' AND orders.ordered_on < '2026-05-21'"));
        assert!(on("products cheaper than 20").contains("products.price < 20"));
        assert!(on("products more expensive than 50").contains("products.price > 50"));
        assert!(on("products less expensive than 50").contains("products.price < 50"));
        assert!(on("What is the cheapest product?").contains("MIN(products.price)"));
        assert!(on("List the 3 most expensive products").contains("ORDER BY products.price DESC"));
    }

    #[test]
    fn measure_adjectives_and_units_of_a_named_column() {
        let db = DbSchema { dialect: None, tables: vec![table("parcels", vec![col("id", "integer", false, &[]), col("weight_kg", "real", false, &[]), col("label", "text", false, &[])], &[])] };
        let ctx = SchemaContext::build(db, None);
        let on = |q: &str| {
            let o = plan(&ctx, q, &[]);
            assert!(o.ambiguity.is_none() && o.confidence >= CONFIDENCE_THRESHOLD, "{q}: {:?}", o.coverage);
            o.plan.as_ref().map(|p| render(&ctx, p, Dialect::Sqlite, 100)).unwrap_or_default()
        };
        assert!(on("parcels heavier than 20 kg").contains("parcels.weight_kg > 20"));
        assert!(on("parcels lighter than 2 kg").contains("parcels.weight_kg < 2"));
        assert!(on("the heaviest parcel").contains("MAX(parcels.weight_kg)"));
        // No price column: "cheaper" is left to the planner, which cannot map it.
        assert!(plan(&ctx, "parcels cheaper than 5", &[]).confidence < CONFIDENCE_THRESHOLD);
    }
}
