use super::*;
use crate::numbers::quantities;
use crate::tokens::tokenize;

fn cmp(q: &str) -> Vec<(Op, f64, Option<String>)> {
    let t = tokenize(q);
    let qs = quantities(&t);
    comparisons(&t, &qs, &vec![false; t.len()]).into_iter().map(|c| (c.op, qs[c.quantity].value, c.adjective)).collect()
}

#[test]
fn measure_tables_derived_from_measures() {
    let heavy: Vec<&str> = MEASURE_NOUN_FORMS.iter().filter(|(n, _)| *n == "weight").flat_map(|(_, f)| f.iter().copied()).collect();
    assert!(heavy.contains(&"heavier") && heavy.contains(&"lightest"), "{heavy:?}");
    assert_eq!(MEASURE_NOUN_FORMS.len(), MEASURES.iter().map(|m| m.1.len()).sum::<usize>());
    for (noun, forms) in MEASURE_NOUN_FORMS {
        assert!(forms.iter().all(|f| measure_of(f).is_some_and(|(_, nouns, _)| nouns.contains(noun))), "{noun}");
    }
    assert!(DOWNWARD_FORMS.contains(&"cheaper") && DOWNWARD_FORMS.contains(&"youngest") && !DOWNWARD_FORMS.contains(&"heavier"));
    assert!(DOWNWARD_FORMS.iter().all(|f| measure_of(f).is_some_and(|(_, _, up)| !up)));
}

#[test]
fn comparators_in_every_form() {
    assert_eq!(cmp("more than 100 users"), [(Op::Gt, 100.0, None)]);
    assert_eq!(cmp("no more than 3 stops"), [(Op::Le, 3.0, None)]);
    assert_eq!(cmp("singers older than 30"), [(Op::Gt, 30.0, Some("old".into()))]);
    assert_eq!(cmp("cheaper than 20"), [(Op::Lt, 20.0, Some("cheap".into()))]);
    assert_eq!(cmp("more expensive than 50"), [(Op::Gt, 50.0, Some("expensive".into()))]);
    assert_eq!(cmp("less expensive than 50"), [(Op::Lt, 50.0, Some("expensive".into()))]);
    assert_eq!(cmp("3 or more"), [(Op::Ge, 3.0, None)]);
    // A noun between the number and the cue: the cue's two words are the comparison's tail.
    assert_eq!(cmp("loads with 13.5% protein or more"), [(Op::Ge, 13.5, None)]);
    let t = tokenize("loads with 13.5% protein or more");
    assert_eq!(comparisons(&t, &quantities(&t), &vec![false; t.len()])[0].tail, Some(5));
    assert_eq!(cmp("2 children or fewer"), [(Op::Le, 2.0, None)]);
    assert_eq!(cmp("a rating of 2"), [(Op::Eq, 2.0, None)]);
    assert_eq!(cmp("under 10 minutes"), [(Op::Lt, 10.0, None)]);
    assert_eq!(cmp("a greater weight than 10"), [(Op::Gt, 10.0, None)]);
    assert_eq!(cmp("with a lower score than 60"), [(Op::Lt, 60.0, None)]);
    assert_eq!(cmp("singers above age 20"), [(Op::Gt, 20.0, None)]);
    let t = tokenize("capacity between 5000 and 10000");
    let qs = quantities(&t);
    let c = comparisons(&t, &qs, &vec![false; t.len()]);
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].op, qs[c[0].quantity].value, c[0].high.map(|h| qs[h].value)), (Op::Ge, 5000.0, Some(10000.0)));
}

#[test]
fn a_compound_number_is_no_count() {
    let counts = |q: &str| aggregates(&tokenize(q)).iter().filter(|g| g.func == AggWord::Count).count();
    assert_eq!(counts("What is the phone number of Petra Novak?"), 0);
    assert_eq!(counts("the room number of each guest"), 0);
    assert_eq!(counts("the largest number of students"), 1);
    assert_eq!(counts("Find number of pets owned by students"), 1);
    assert_eq!(counts("What is the number of cars?"), 1);
}

#[test]
fn moisture_strength_and_noise_have_their_adjectives() {
    assert_eq!(measure_of("wettest").map(|m| (m.1.contains(&"moisture"), m.2)), Some((true, true)));
    assert_eq!(measure_of("driest").map(|m| (m.1.contains(&"moisture"), m.2)), Some((true, false)));
    assert_eq!(measure_of("strongest").map(|m| (m.1.contains(&"abv"), m.2)), Some((true, true)));
    assert_eq!(measure_of("quietest").map(|m| (m.1.contains(&"noise"), m.2)), Some((true, false)));
}

#[test]
fn a_speed_said_of_a_duration_flips() {
    assert!(speed_of_a_duration("slow", "response_time_min"));
    assert!(speed_of_a_duration("fast", "durationHours"));
    assert!(!speed_of_a_duration("slow", "max_speed_kmh"));
    assert!(!speed_of_a_duration("long", "response_time_min"));
}

#[test]
fn superlatives_aggregates_groupings_and_orderings() {
    let t = tokenize("Who are the 5 vets with the most appointments?");
    let qs = quantities(&t);
    let s = superlatives(&t, &qs);
    assert_eq!(s.len(), 1);
    assert!(s[0].desc && s[0].adjective.is_none());
    let t = tokenize("Top 5 most expensive projects");
    let s = superlatives(&t, &quantities(&t));
    assert_eq!((s.len(), s[0].start, s[0].n, s[0].desc, s[0].adjective.as_deref()), (1, 0, Some(5), true, Some("expensive")));
    let s = superlatives(&tokenize("the 3 largest groups"), &quantities(&tokenize("the 3 largest groups")));
    assert_eq!((s[0].n, s[0].desc, s[0].adjective.as_deref()), (Some(3), true, Some("big")));
    let t = tokenize("top 3 teams by number of breaches");
    let s = superlatives(&t, &quantities(&t));
    assert_eq!(s[0].n, Some(3));
    let t = tokenize("What is the most common hometown?");
    assert!(superlatives(&t, &quantities(&t))[0].mode);
    let t = tokenize("the youngest singer");
    let s = superlatives(&t, &quantities(&t));
    assert_eq!((s[0].desc, s[0].adjective.as_deref()), (false, Some("young")));
    assert_eq!(aggregates(&tokenize("How many different countries"))[0].func, AggWord::Count);
    assert_eq!(aggregates(&tokenize("the average age"))[0].func, AggWord::Avg);
    assert!(groupings(&tokenize("books written by authors")).is_empty());
    assert!(groupings(&tokenize("offers turned down by the candidate")).is_empty());
    assert_eq!(groupings(&tokenize("the average score given by each recruiter"))[0].target, 6);
    assert_eq!(groupings(&tokenize("sales broken down by region"))[0].start, 1);
    assert_eq!(groupings(&tokenize("number of tickets per team"))[0].target, 4);
    assert_eq!(groupings(&tokenize("for each city"))[0].target, 2);
    assert_eq!(groupings(&tokenize("Monthly count of declarations"))[0].target, 0);
    assert!(groupings(&tokenize("the monthly premium of each policy")).iter().all(|g| g.target != 1));
    let o = orderings(&tokenize("List prices, cheapest first"));
    assert_eq!((o[0].desc, o[0].adjective.as_deref()), (Some(false), Some("cheap")));
    // A noun of the rows between the adjective and "first".
    let o = orderings(&tokenize("sessions per trainer, busiest trainer first"));
    assert_eq!((o[0].start, o[0].end, o[0].desc, o[0].adjective.as_deref()), (4, 7, Some(true), Some("busy")));
    let o = orderings(&tokenize("Most recent leaver first."));
    assert_eq!((o[0].start, o[0].end), (0, 4));
    let o = orderings(&tokenize("ordered by age from the oldest to the youngest"));
    assert_eq!(o.len(), 2);
    assert_eq!(o[1].desc, Some(true));
    let o = orderings(&tokenize("sorted by name descending"));
    assert_eq!((o[0].target, o[0].desc), (Some(2), Some(true)));
    assert!(orderings(&tokenize("in reverse alphabetical order"))[0].alphabetical);
    assert_eq!(distinct_words(&tokenize("for different cities, distinct names")), [4]);
}

#[test]
fn a_share_of_rows_is_two_counts() {
    let q = "What percentage of the batches brewed in 2025 were dry-hopped?";
    let (whole, part) = ratio_counts(q, &tokenize(q)).expect("a ratio");
    assert_eq!(whole, "How many batches brewed in 2025?");
    assert_eq!(part, "How many batches brewed in 2025 were dry-hopped?");
    // No auxiliary to split at, a grouping, or no "what … of": none.
    for q in ["What share of deliveries arrived late?", "What percentage of loans were late, per branch?", "The share of loans that were late"] {
        assert!(ratio_counts(q, &tokenize(q)).is_none(), "{q}");
    }
}

#[test]
fn measure_hints() {
    assert_eq!(measure_hint("away"), ["distance"]);
    assert!(measure_hint("up").contains(&"elevation"));
    assert!(measure_hint("cats").is_empty());
}
