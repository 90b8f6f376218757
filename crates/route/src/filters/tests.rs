use super::*;
use crate::profile::{FieldProfile, FieldRole, SourceProfile};
use crate::score::Target;

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 5, 20).unwrap()
}

fn tickets() -> SourceProfile {
    let mut p = SourceProfile::new(Target::Sql, "helpdesk");
    p.collections = vec!["tickets".into()];
    p.fields = vec![
        FieldProfile {
            name: "severity".into(),
            role: FieldRole::Category,
            values: vec!["Critical".into(), "High".into(), "Low".into()],
            aliases: vec![("urgent".into(), "Critical".into()), ("blocker".into(), "Showstopper".into())],
            synonyms: vec![],
        },
        FieldProfile { name: "status".into(), role: FieldRole::Category, values: vec!["Open".into(), "Closed".into()], aliases: vec![("resolved".into(), "Closed".into())], synonyms: vec![] },
        FieldProfile { name: "opened_at".into(), role: FieldRole::Date, values: vec![], aliases: vec![], synonyms: vec![] },
    ];
    p
}

#[test]
fn years_explicit_and_relative() {
    let f = extract("tickets in 2024 compared with last year and this year", None, today());
    assert_eq!(f.years, [2024, 2025, 2026]);
    assert!(extract("version 1999 or 2100 or 20250", None, today()).years.is_empty());
}

#[test]
fn date_ranges() {
    let f = extract("orders in March 2026", None, today());
    let r = f.date_range.unwrap();
    assert_eq!((r.from, r.to), (NaiveDate::from_ymd_opt(2026, 3, 1), NaiveDate::from_ymd_opt(2026, 3, 31)));
    let r = extract("what happened in the last 30 days", None, today()).date_range.unwrap();
    assert_eq!((r.from, r.to), (NaiveDate::from_ymd_opt(2026, 4, 20), Some(today())));
    let r = extract("since 2026-01-15", None, today()).date_range.unwrap();
    assert_eq!((r.from, r.to), (NaiveDate::from_ymd_opt(2026, 1, 15), None));
    let r = extract("between 2025-06-30 and 2025-01-01", None, today()).date_range.unwrap();
    assert_eq!((r.from, r.to), (NaiveDate::from_ymd_opt(2025, 1, 1), NaiveDate::from_ymd_opt(2025, 6, 30)));
    assert!(extract("you may 2 go", None, today()).date_range.is_none());
}

#[test]
fn values_and_aliases_are_schema_valid() {
    let f = extract("urgent tickets that are resolved", Some(&tickets()), today());
    let got: Vec<(&str, &str, bool)> = f.values.iter().map(|v| (v.field.as_str(), v.value.as_str(), v.via_alias)).collect();
    assert_eq!(got, [("severity", "Critical", true), ("status", "Closed", true)]);
    let f = extract("every blocker that is high", Some(&tickets()), today());
    assert_eq!(f.values.len(), 1, "{f:?}");
    assert_eq!(f.values[0].value, "High");
    assert!(f.warnings.iter().any(|w| w.contains("Showstopper") && w.contains("dropped")), "{f:?}");
}
