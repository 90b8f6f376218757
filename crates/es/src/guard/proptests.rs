//! Property tests: random JSON never panics the guard; random bodies built from the query
//! vocabulary (valid and hostile parts mixed) are either refused, or accepted with no refused
//! key anywhere, sizes within the caps, and as a fixed point of the guard.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

use super::tests::mapping;
use super::*;

fn limits() -> EsLimits {
    EsLimits { row_cap: 50, max_window: 500, max_buckets: 40, timeout_ms: 2_000 }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "[a-z_*.^]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(8, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Keys: the DSL's own (allowed and refused), field names, and noise.
fn key() -> impl Strategy<Value = String> {
    let vocab: Vec<&'static str> = SEARCH_KEYS
        .iter()
        .chain(ALLOWED_QUERIES)
        .chain(ALLOWED_AGGS)
        .chain(REFUSED)
        .chain(&["field", "value", "gte", "lt", "order", "interval", "calendar_interval", "must", "filter", "should", "genre", "pages", "published", "title"])
        .copied()
        .collect();
    prop_oneof![prop::sample::select(vocab).prop_map(String::from), "[a-z_]{1,10}"]
}

/// Keys refused by name; none of them is a field of the test mapping.
const REFUSED: &[&str] = &[
    "script",
    "_script",
    "script_fields",
    "runtime_mappings",
    "scripted_metric",
    "bucket_script",
    "bucket_selector",
    "script_score",
    "function_score",
    "more_like_this",
    "percolate",
    "has_child",
    "has_parent",
    "pit",
    "indices_boost",
    "profile",
    "explain",
    "query_string",
    "wrapper",
];

fn field() -> impl Strategy<Value = String> {
    let paths: Vec<String> = mapping("books").paths().collect();
    prop_oneof![4 => prop::sample::select(paths), 1 => "[a-z_]{1,8}"]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..3000).prop_map(|n| json!(n)),
        "[a-zA-Z ]{0,8}".prop_map(Value::String),
        any::<bool>().prop_map(Value::Bool),
        (1990i32..2030).prop_map(|y| json!(format!("{y}-01-15"))),
    ]
}

fn leaf_query() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"match_all": {}})),
        (field(), "[a-z ]{1,10}").prop_map(|(f, s)| json!({"match": {f: s}})),
        (field(), scalar()).prop_map(|(f, v)| json!({"term": {f: v}})),
        (field(), prop::collection::vec(scalar(), 0..4)).prop_map(|(f, v)| json!({"terms": {f: v}})),
        (field(), scalar(), scalar()).prop_map(|(f, a, b)| json!({"range": {f: {"gte": a, "lt": b}}})),
        field().prop_map(|f| json!({"exists": {"field": f}})),
        (prop::sample::select(REFUSED), any_json()).prop_map(|(k, v)| json!({k: v})),
    ]
}

fn query() -> impl Strategy<Value = Value> {
    leaf_query().prop_recursive(3, 24, 4, |inner| {
        (prop::sample::select(vec!["must", "filter", "should", "must_not"]), prop::collection::vec(inner, 0..4))
            .prop_map(|(occur, clauses)| json!({"bool": {occur: clauses}}))
    })
}

fn aggs() -> impl Strategy<Value = Value> {
    let terms = (field(), 0u64..200, prop::option::of(field())).prop_map(|(f, size, sub)| {
        let mut a = json!({"terms": {"field": f, "size": size}});
        if let Some(s) = sub {
            a["aggs"] = json!({"m": {"max": {"field": s}}, "t": {"top_hits": {"size": size}}});
        }
        a
    });
    let hist = (field(), prop::sample::select(vec!["month", "year", "1d", "bogus"])).prop_map(|(f, i)| json!({"date_histogram": {"field": f, "calendar_interval": i}}));
    let agg = prop_oneof![terms, hist, (prop::sample::select(REFUSED), any_json()).prop_map(|(k, v)| json!({k: v}))];
    prop::collection::btree_map("[a-z]{1,4}", agg, 1..3).prop_map(|m| Value::Object(m.into_iter().collect()))
}

fn body() -> impl Strategy<Value = Value> {
    (
        prop::option::of(query()),
        prop::option::of(0u64..200),
        prop::option::of(0u64..600),
        prop::option::of(aggs()),
        prop::option::of(field()),
        prop::option::of(prop::sample::select(vec!["1s", "10s", "1500ms", "soon"])),
        prop::option::of((key(), any_json())),
    )
        .prop_map(|(q, size, from, aggs, sort, timeout, extra)| {
            let mut b = Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    b.insert(k.to_string(), v);
                }
            };
            put("query", q);
            put("size", size.map(|s| json!(s)));
            put("from", from.map(|s| json!(s)));
            put("aggs", aggs);
            put("sort", sort.map(|s| json!([{s: "desc"}])));
            put("timeout", timeout.map(|t| json!(t)));
            if let Some((k, v)) = extra {
                b.insert(k, v);
            }
            Value::Object(b)
        })
}

/// Every object key at any depth.
fn all_keys(v: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                out.extend(o.keys().map(String::as_str));
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

/// Every `size` under `terms` and `top_hits`, and the top-level size and window.
fn assert_caps(body: &Value, l: &EsLimits) {
    let size = body.get("size").and_then(Value::as_u64);
    assert!(size.is_none_or(|s| s as usize <= l.row_cap), "{body}");
    let from = body.get("from").and_then(Value::as_u64).unwrap_or(0);
    assert!(from + size.unwrap_or(10) <= l.max_window as u64, "{body}");
    let mut stack = vec![body];
    while let Some(v) = stack.pop() {
        if let Value::Object(o) = v {
            for (k, inner) in o {
                if k == "terms" || k == "top_hits" {
                    for s in ["size", "shard_size"] {
                        assert!(inner.get(s).and_then(Value::as_u64).is_none_or(|n| n as usize <= l.max_buckets), "{k}: {inner}");
                    }
                }
                stack.push(inner);
            }
        } else if let Value::Array(a) = v {
            stack.extend(a);
        }
    }
}

proptest! {
    #![proptest_config(Config { cases: 256, ..Config::default() })]

    #[test]
    fn random_json_never_panics(v in any_json(), count in any::<bool>()) {
        let endpoint = if count { Endpoint::Count } else { Endpoint::Search };
        let _ = check_body(&v, endpoint, &mapping("books"), &limits());
        let _ = check_pasted(&v.to_string(), &mapping("visits"), &limits());
    }

    #[test]
    fn random_text_never_panics(s in "(GET|POST|PUT|DELETE)? ?/?[a-z_,*]{0,8}/?_?[a-z]{0,8}\\??[a-z=&]{0,8}\n?\\{?[\"a-z:{}\\[\\] ]{0,30}") {
        let _ = check_pasted(&s, &mapping("books"), &limits());
    }

    #[test]
    fn accepted_bodies_are_safe_capped_and_a_fixed_point(b in body()) {
        let (m, l) = (mapping("books"), limits());
        let v = check_body(&b, Endpoint::Search, &m, &l);
        if let Some(out) = &v.body {
            prop_assert!(v.accepted && v.reasons.is_empty());
            for k in all_keys(out) {
                prop_assert!(forbidden_reason(k).is_none(), "refused key {k} in accepted {out}");
            }
            assert_caps(out, &l);
            let again = check_body(out, Endpoint::Search, &m, &l);
            prop_assert!(again.accepted, "{:?}", again.reasons);
            prop_assert!(again.changes.is_empty(), "{:?}", again.changes);
            prop_assert_eq!(again.body.as_ref(), Some(out));
        } else {
            prop_assert!(!v.accepted && !v.reasons.is_empty());
        }
    }
}

/// The generator is not vacuous: a fair share of its bodies is accepted, and a fair share refused.
#[test]
fn the_body_generator_yields_both_verdicts() {
    let mut runner = TestRunner::deterministic();
    let strategy = body();
    let (m, l) = (mapping("books"), limits());
    let mut accepted = 0;
    for _ in 0..400 {
        let b = strategy.new_tree(&mut runner).unwrap().current();
        accepted += usize::from(check_body(&b, Endpoint::Search, &m, &l).accepted);
    }
    assert!((40..=360).contains(&accepted), "{accepted} of 400 accepted");
}
