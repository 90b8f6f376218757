use super::*;
use crate::sql::schema::tests::audit_context;

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