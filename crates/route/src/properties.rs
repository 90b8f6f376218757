//! Property tests of the router's contract (proptest; 256 cases each by default).

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::analysis::{MAX_CONTEXT_TOKENS, MAX_RECORDS, select_records};
use crate::classify::{QueryType, classify};
use crate::filters::extract;
use crate::intent::{IntentFilter, RouteIntent};
use crate::metadata::AnswerMetadata;
use crate::page::paginate;
use crate::profile::{FieldProfile, FieldRole, SourceProfile};
use crate::score::{Target, decide};

fn today() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 5, 20).unwrap()
}

/// Invented words: no question cue, no stop word.
fn word() -> impl Strategy<Value = String> {
    "[b-df-hj-np-tv-z]{2}[aeiou][b-df-hj-np-tv-z][aeiou]?[b-df-hj-np-tv-z]{1,2}".prop_map(|s| s)
}

fn profile() -> impl Strategy<Value = SourceProfile> {
    (
        proptest::collection::vec(word(), 1..3),
        proptest::collection::vec((word(), proptest::collection::vec(word(), 1..5), proptest::collection::vec((word(), word()), 0..3)), 1..4),
    )
        .prop_map(|(collections, fields)| {
            let mut p = SourceProfile::new(Target::Sql, "db");
            p.collections = collections;
            p.fields = fields
                .into_iter()
                .map(|(name, values, aliases)| {
                    // Half the aliases point at a real value, half at an invented one.
                    let aliases = aliases.into_iter().enumerate().map(|(i, (a, v))| (a, if i % 2 == 0 { values[0].clone() } else { v })).collect();
                    FieldProfile { name: format!("{name}_code"), role: FieldRole::Category, values, aliases, synonyms: vec![] }
                })
                .collect();
            p
        })
}

const DIRECT: &[&str] = &["How many", "List", "Show me", "Count", "Total", "Which"];
const ANALYTICAL: &[&str] = &["Why", "Recommend", "Predict", "What patterns explain", "Analyse the trends of", "Prioritize"];

proptest! {
    #[test]
    fn filter_only_questions_are_simple(cue in 0..DIRECT.len(), p in profile(), pick in any::<prop::sample::Index>(), year in 2000i32..2100) {
        let f = &p.fields[pick.index(p.fields.len())];
        let q = format!("{} {} {} in {year}", DIRECT[cue], f.values[0], p.collections[0]);
        let d = classify(&q);
        prop_assert_eq!(d.query_type, QueryType::Simple, "{} {:?}", q, d);
        prop_assert!(d.confidence >= crate::MIN_CONFIDENCE);
    }

    #[test]
    fn analytical_questions_are_complex(cue in 0..ANALYTICAL.len(), words in proptest::collection::vec(word(), 1..6)) {
        let q = format!("{} {}?", ANALYTICAL[cue], words.join(" "));
        prop_assert_eq!(classify(&q).query_type, QueryType::Complex, "{}", q);
    }

    #[test]
    fn confidence_is_bounded_and_low_confidence_is_complex(q in ".{0,200}") {
        let d = classify(&q);
        prop_assert!((0.0..=1.0).contains(&d.confidence));
        if d.confidence < crate::MIN_CONFIDENCE {
            prop_assert_eq!(d.query_type, QueryType::Complex);
        }
        prop_assert!(!d.reasons.is_empty());
    }

    #[test]
    fn years_in_range_are_extracted(year in 2000i32..2100, other in 0u32..10_000, before in proptest::collection::vec(word(), 0..4)) {
        prop_assume!(!(2000..2100).contains(&other));
        let q = format!("{} in {year} not {other}", before.join(" "));
        let f = extract(&q, None, today());
        prop_assert_eq!(f.years, vec![year]);
    }

    #[test]
    fn extracted_filters_are_schema_valid(p in profile(), extra in proptest::collection::vec(word(), 0..6), picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..4)) {
        // A question naming some values and some aliases (valid or not) of the profile.
        let mut words = extra;
        for i in &picks {
            let f = &p.fields[i.index(p.fields.len())];
            words.push(f.values[i.index(f.values.len())].clone());
            if let Some((a, _)) = f.aliases.first() { words.push(a.clone()); }
        }
        let f = extract(&words.join(" "), Some(&p), today());
        for v in &f.values {
            let field = p.field(&v.field);
            prop_assert!(field.is_some());
            prop_assert!(field.unwrap().values.contains(&v.value), "{:?} not a value of {}", v.value, v.field);
        }
    }

    #[test]
    fn selections_respect_the_caps(n in 0usize..80, size in 1usize..4000) {
        let records: Vec<Value> = (0..n).map(|i| json!({"id": i, "text": "x".repeat(size + i)})).collect();
        let s = select_records(&records, "x", &Default::default());
        prop_assert!(s.records.len() <= MAX_RECORDS);
        prop_assert!(s.tokens <= MAX_CONTEXT_TOKENS);
        prop_assert_eq!(s.considered, n);
    }

    #[test]
    fn pages_above_fifty_rows_say_so(total in 0u64..10_000, offset in 0usize..10_000) {
        let p = paginate(total, offset, 0);
        prop_assert_eq!(p.page_size, 50);
        prop_assert!(p.returned <= 50);
        prop_assert_eq!(p.has_more, (offset as u64) + 50 < total);
        if total > 50 && offset == 0 {
            prop_assert_eq!(p.next_offset, Some(50));
        }
        if let Some(next) = p.next_offset { prop_assert!((next as u64) < total && next == offset + p.returned); }
    }

    #[test]
    fn metadata_is_complete(p in profile(), q in "[a-z ]{0,60}", ms in 0.0f64..1e6) {
        let d = decide(&q, &[p], today());
        let m = AnswerMetadata {
            query_type: d.query_type, target: d.target, execution_time_ms: ms, records_analyzed: 0, tokens_used: None,
            confidence: d.confidence, extracted_filters: d.extracted_filters, reasons: d.reasons, pagination: None, error: None,
        };
        let v = serde_json::to_value(&m).unwrap();
        for key in ["query_type", "target", "execution_time_ms", "records_analyzed", "tokens_used", "confidence", "extracted_filters", "reasons"] {
            prop_assert!(v.get(key).is_some(), "missing {}", key);
        }
        prop_assert!(!m.reasons.is_empty());
    }

    #[test]
    fn intents_round_trip(p in profile(), t in 0..3usize, c in 0.0f64..=1.0, pick in any::<prop::sample::Index>()) {
        let f = &p.fields[pick.index(p.fields.len())];
        let intent = RouteIntent {
            target: Target::Sql,
            query_type: [QueryType::Simple, QueryType::Complex, QueryType::Hybrid][t],
            confidence: c,
            filters: vec![IntentFilter { field: f.name.clone(), value: f.values[0].clone() }],
            reasoning: "r".into(),
        };
        let text = serde_json::to_string(&intent).unwrap();
        let back = RouteIntent::parse(&text, std::slice::from_ref(&p)).unwrap();
        // serde_json parses floats to within an ulp, not always bit-exactly.
        prop_assert!((back.confidence - intent.confidence).abs() < 1e-12);
        prop_assert_eq!(RouteIntent { confidence: intent.confidence, ..back }, intent);
    }

    #[test]
    fn malformed_intents_are_rejected(p in profile(), junk in ".{0,40}", c in 1.0001f64..100.0) {
        prop_assert!(RouteIntent::parse(&junk, std::slice::from_ref(&p)).is_err() || serde_json::from_str::<RouteIntent>(&junk).is_ok());
        let bad_conf = json!({"target": "sql", "query_type": "simple", "confidence": c}).to_string();
        prop_assert!(RouteIntent::parse(&bad_conf, std::slice::from_ref(&p)).is_err());
        let unknown_key = json!({"target": "sql", "query_type": "simple", "confidence": 0.5, "sql": "DROP TABLE x"}).to_string();
        prop_assert!(RouteIntent::parse(&unknown_key, std::slice::from_ref(&p)).is_err());
        let unknown_field = json!({"target": "sql", "query_type": "simple", "confidence": 0.5, "filters": [{"field": "nope_field", "value": "v"}]}).to_string();
        prop_assert!(RouteIntent::parse(&unknown_field, std::slice::from_ref(&p)).is_err());
        let unconfigured = json!({"target": "es", "query_type": "simple", "confidence": 0.5}).to_string();
        prop_assert!(RouteIntent::parse(&unconfigured, std::slice::from_ref(&p)).is_err());
    }
}
