use serde_json::{Value, json};

use super::*;

/// The test mappings of `testdata/guard_mappings.json`: `books` and `visits`, two domains.
pub(super) fn mapping(index: &str) -> Mapping {
    let all: Value = serde_json::from_str(include_str!("../../testdata/guard_mappings.json")).unwrap();
    Mapping::from_es_json(index, &all[index]).unwrap()
}

fn limits() -> EsLimits {
    EsLimits::default()
}

fn check(body: Value, index: &str) -> Verdict {
    check_body(&body, Endpoint::Search, &mapping(index), &limits())
}

fn reasons(body: Value, index: &str) -> String {
    let v = check(body, index);
    assert!(!v.accepted, "expected a refusal: {v:?}");
    assert!(v.body.is_none() && v.request().is_none());
    v.reasons.join(" | ")
}

struct Case {
    name: String,
    input: Value,
    index: String,
    endpoint: Endpoint,
    line: Value,
}

fn corpus(text: &str) -> Vec<Case> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let line: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            Case {
                name: line["name"].as_str().unwrap().to_string(),
                input: line["input"].clone(),
                index: line["index"].as_str().unwrap_or("books").to_string(),
                endpoint: if line["endpoint"] == "count" { Endpoint::Count } else { Endpoint::Search },
                line,
            }
        })
        .collect()
}

fn run(case: &Case) -> Verdict {
    let m = mapping(&case.index);
    match &case.input {
        Value::String(text) => check_pasted(text, &m, &limits()),
        body => check_body(body, case.endpoint, &m, &limits()),
    }
}

#[test]
fn every_hostile_input_is_refused_for_its_reason() {
    let cases = corpus(include_str!("../../testdata/hostile.jsonl"));
    assert!(cases.len() >= 40, "{} hostile cases", cases.len());
    for case in &cases {
        assert!(case.line["why"].as_str().is_some_and(|w| !w.is_empty()), "{}: no why", case.name);
        let v = run(case);
        assert!(!v.accepted, "{} was accepted: {:?}", case.name, v.body);
        assert!(v.body.is_none() && v.request().is_none() && !v.reasons.is_empty(), "{}", case.name);
        let expect = case.line["expect"].as_str().unwrap();
        assert!(v.reasons.iter().any(|r| r.contains(expect)), "{}: no reason mentions {expect:?}: {:?}", case.name, v.reasons);
        if !case.input.is_string() && case.endpoint == Endpoint::Search {
            let pasted = checked_pasted(&case.input.to_string(), &mapping(&case.index), &limits());
            assert!(pasted.is_err(), "{}: refused as a body, accepted as pasted text", case.name);
        }
    }
}

/// Only the keys the caps may touch differ between what was given and what runs.
fn differs_only_by_caps(given: &Value, runs: &Value, at: &str, out: &mut Vec<String>) {
    const CAPPED: &[&str] = &["size", "shard_size", "timeout", "track_total_hits"];
    match (given, runs) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys().chain(b.keys()) {
                let here = join(at, k);
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => differs_only_by_caps(x, y, &here, out),
                    _ if CAPPED.contains(&k.as_str()) => {}
                    _ => out.push(here),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differs_only_by_caps(x, y, &format!("{at}[{i}]"), out);
            }
        }
        (x, y) if x == y => {}
        _ => {
            let key = at.rsplit('.').next().unwrap_or(at);
            if !CAPPED.contains(&key) {
                out.push(at.to_string());
            }
        }
    }
}

#[test]
fn every_benign_input_is_accepted_and_changed_only_by_caps() {
    let cases = corpus(include_str!("../../testdata/benign.jsonl"));
    assert!(cases.len() >= 20, "{} benign cases", cases.len());
    for case in &cases {
        let v = run(case);
        assert!(v.accepted, "{} was refused: {:?}", case.name, v.reasons);
        let body = v.body.clone().unwrap();
        assert_eq!(v.request().unwrap().body(), &body, "{}", case.name);
        assert_eq!(v.request().unwrap().endpoint(), v.endpoint);
        let given = match &case.input {
            Value::String(text) => paste::parse(text).unwrap().body,
            b => b.clone(),
        };
        let mut diff = Vec::new();
        differs_only_by_caps(&given, &body, "", &mut diff);
        assert!(diff.is_empty(), "{}: changed beyond the caps at {diff:?}", case.name);
        for c in &v.changes {
            let cap = c.contains("capped to") || c.starts_with("timeout") || c.starts_with("track_total_hits") || c.starts_with("query parameter");
            assert!(cap, "{}: unexpected change {c:?}", case.name);
        }
        // Fixed point: checking what runs again changes nothing.
        let again = check_body(&body, v.endpoint, &mapping(&case.index), &limits());
        assert!(again.accepted && again.changes.is_empty(), "{}: {:?}", case.name, again.changes);
        assert_eq!(again.body.as_ref(), Some(&body));
    }
}

#[test]
fn search_gets_timeout_and_exact_totals_count_gets_neither() {
    let v = check(json!({"query": {"match_all": {}}}), "books");
    let body = v.body.unwrap();
    assert_eq!(body["timeout"], json!(format!("{}ms", limits().timeout_ms)));
    assert_eq!(body["track_total_hits"], json!(true));
    assert_eq!(v.changes.len(), 2, "{:?}", v.changes);
    let c = check_body(&json!({"query": {"match_all": {}}}), Endpoint::Count, &mapping("books"), &limits());
    assert!(c.accepted && c.changes.is_empty());
    assert_eq!(c.body.unwrap(), json!({"query": {"match_all": {}}}));
    let small = check(json!({"timeout": "200ms"}), "books");
    assert_eq!(small.body.unwrap()["timeout"], json!("200ms"), "a smaller timeout is kept");
}

#[test]
fn caps_follow_the_limits() {
    let l = EsLimits { row_cap: 5, max_window: 50, max_buckets: 7, timeout_ms: 100 };
    let m = mapping("books");
    let v = check_body(&json!({"size": 6, "aggs": {"g": {"terms": {"field": "genre", "size": 8}}}}), Endpoint::Search, &m, &l);
    let body = v.body.unwrap();
    assert_eq!((body["size"].clone(), body["aggs"]["g"]["terms"]["size"].clone()), (json!(5), json!(7)));
    assert_eq!(body["timeout"], json!("100ms"));
    assert_eq!(v.changes.iter().filter(|c| c.contains("capped to")).count(), 2, "{:?}", v.changes);
    assert!(check_body(&json!({"size": 5, "from": 45}), Endpoint::Search, &m, &l).accepted);
    let deep = check_body(&json!({"size": 5, "from": 46}), Endpoint::Search, &m, &l);
    assert!(deep.reasons[0].contains("search_after"), "{:?}", deep.reasons);
    // A missing size counts as Elasticsearch's default of 10 for the window.
    assert!(!check_body(&json!({"from": 41}), Endpoint::Search, &m, &l).accepted);
    let hist = json!({"size": 0, "aggs": {"h": {"histogram": {"field": "pages", "interval": 10, "extended_bounds": {"min": 0, "max": 100}}}}});
    assert!(!check_body(&hist, Endpoint::Search, &m, &l).accepted, "11 buckets > 7");
    assert!(check_body(&hist, Endpoint::Search, &m, &EsLimits::default()).accepted);
}

#[test]
fn unknown_fields_get_suggestions() {
    let r = reasons(json!({"query": {"term": {"genr": "x"}}}), "books");
    assert!(r.contains("did you mean \"genre\""), "{r}");
    let r = reasons(json!({"sort": ["admited_at"]}), "visits");
    assert!(r.contains("\"admitted_at\""), "{r}");
    let r = reasons(json!({"query": {"match": {"author.nme": "x"}}}), "books");
    assert!(r.contains("author.name"), "{r}");
    // Multi-fields resolve only when declared.
    assert!(check(json!({"query": {"term": {"author.name.raw": "x"}}}), "books").accepted);
    let r = reasons(json!({"query": {"term": {"author.name.keyword": "x"}}}), "books");
    assert!(r.contains("unknown field"), "{r}");
}

#[test]
fn text_fields_point_to_their_exact_form() {
    let r = reasons(json!({"size": 0, "aggs": {"a": {"terms": {"field": "author.name"}}}}), "books");
    assert!(r.contains("use \"author.name.raw\""), "{r}");
    let r = reasons(json!({"size": 0, "aggs": {"a": {"cardinality": {"field": "notes"}}}}), "visits");
    assert!(r.contains("without a keyword sub-field") && r.contains("fields that can"), "{r}");
}

#[test]
fn values_must_fit_their_fields() {
    assert!(check(json!({"query": {"term": {"in_print": "true"}}}), "books").accepted);
    assert!(!check(json!({"query": {"term": {"in_print": "yes"}}}), "books").accepted);
    assert!(check(json!({"query": {"range": {"published": {"gte": 1_700_000_000_000_i64}}}}), "books").accepted);
    assert!(!check(json!({"query": {"range": {"published": {"gte": true}}}}), "books").accepted);
    assert!(!check(json!({"query": {"range": {"in_print": {"gte": 1}}}}), "books").accepted);
    assert!(check(json!({"query": {"range": {"isbn": {"gte": "978", "lt": "979"}}}}), "books").accepted, "string ranges on keywords");
    assert!(check(json!({"query": {"range": {"published": {"gte": "03/2020", "format": "MM/yyyy"}}}}), "books").accepted);
    assert!(!check(json!({"query": {"range": {"published": {"gte": "03/2020"}}}}), "books").accepted);
    assert!(!check(json!({"query": {"range": {"pages": {}}}}), "books").accepted);
    assert!(!check(json!({"query": {"prefix": {"pages": "1"}}}), "books").accepted);
}

#[test]
fn all_reasons_are_reported_at_once() {
    let v = check(json!({"query": {"bool": {"must": [{"term": {"nope": 1}}, {"script": {"script": "1"}}]}}, "profile": true}), "books");
    assert_eq!(v.reasons.len(), 3, "{:?}", v.reasons);
    assert!(v.reasons.iter().any(|r| r.starts_with("query.bool.must[0].term.nope:")), "{:?}", v.reasons);
}

#[test]
fn pasted_index_must_be_the_mapping_s() {
    let m = mapping("books");
    let v = check_pasted("GET /books/_search\n{\"query\": {\"match\": {\"title\": \"sea\"}}}", &m, &limits());
    assert!(v.accepted && v.index == "books");
    let v = check_pasted("GET _count", &m, &limits());
    assert!(v.accepted && v.endpoint == Endpoint::Count);
    let v = check_pasted("GET /visits/_search", &m, &limits());
    assert!(!v.accepted && v.reasons[0].contains("not the checked index"), "{:?}", v.reasons);
    let err = checked_pasted("DELETE /books", &m, &limits()).unwrap_err();
    assert!(matches!(err, EsError::Refused(ref r) if !r.is_empty()), "{err}");
}

#[test]
fn hostile_shapes_do_not_overflow_the_stack() {
    let mut deep = json!(1);
    for _ in 0..2_000 {
        deep = json!([deep]);
    }
    let v = check(json!({"query": deep}), "books");
    assert!(v.reasons[0].contains("deeper than"));
    // serde_json's own recursion limit stops deeper pasted text.
    let text = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    assert!(!check_pasted(&text, &mapping("books"), &limits()).accepted);
    let wide = json!({"query": {"terms": {"genre": vec!["x"; MAX_JSON_NODES + 1]}}});
    assert!(check(wide, "books").reasons[0].contains("more than"));
}

#[test]
fn a_refused_verdict_cannot_be_edited_into_a_request() {
    let mut v = check(json!({"script_fields": {}}), "books");
    v.accepted = true;
    v.reasons.clear();
    v.body = Some(json!({"script_fields": {}}));
    assert!(v.request().is_none(), "only the guard's own accepted verdicts carry a request");
    assert!(v.into_request().is_err());
}

#[test]
fn verdict_serializes_for_check_json() {
    let v = check(json!({"size": 1000}), "books");
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["accepted"], json!(true));
    assert_eq!(j["endpoint"], json!("search"));
    assert_eq!(j["body"]["size"], json!(200));
    assert!(j.get("request").is_none());
    assert!(j["changes"].as_array().unwrap().len() == 3);
}
