//! The embedded engine against expectations computed from the records themselves.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use qa_core::progress::Silent;
use serde_json::{Map, Value, json};

use super::*;
use crate::FieldKind;

/// An orders domain: keyword, text + keyword, double, long, boolean, date, keyword arrays, an
/// object, an optional field.
fn orders() -> Vec<Map<String, Value>> {
    let customers = ["acme", "globex", "initech", "umbrella", "Hooli"];
    let notes = ["fast delivery requested", "gift wrap and fast shipping", "deliver to the back door", "fragile glass items inside"];
    let cities = ["Paris", "Oslo", "Lima"];
    let start = NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    (0..80)
        .map(|i: usize| {
            let day = start + Duration::days(i as i64 * 5);
            let placed = if i.is_multiple_of(10) { format!("{day}T12:30:00Z") } else { day.to_string() };
            let mut r = json!({
                "id": format!("ord-{i}"),
                "customer": customers[i % 5],
                "note": notes[i % 4],
                "amount": (i * 37 % 100) as f64 + 0.5,
                "qty": i % 9,
                "paid": !i.is_multiple_of(3),
                "placed": placed,
                "address": {"city": cities[i % 3]},
            });
            if !i.is_multiple_of(11) {
                r["tags"] = if i.is_multiple_of(2) { json!(["red", "blue"]) } else { json!(["blue"]) };
            }
            if i.is_multiple_of(4) {
                r["discount"] = json!(i % 3);
            }
            r.as_object().unwrap().clone()
        })
        .collect()
}

fn orders_mapping() -> Mapping {
    Mapping::from_es_json(
        "orders",
        &json!({"properties": {
            "id": {"type": "keyword"},
            "customer": {"type": "keyword"},
            "note": {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}},
            "amount": {"type": "double"},
            "qty": {"type": "long"},
            "paid": {"type": "boolean"},
            "placed": {"type": "date"},
            "tags": {"type": "keyword"},
            "address": {"properties": {"city": {"type": "keyword"}}},
            "discount": {"type": "long"}
        }}),
    )
    .unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    idx: EmbeddedIndex,
    recs: Vec<Map<String, Value>>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let recs = orders();
    EmbeddedIndex::create(dir.path(), "orders", &recs, &orders_mapping(), &Silent).unwrap();
    let idx = EmbeddedIndex::open(dir.path(), "orders").unwrap();
    Fixture { _dir: dir, idx, recs }
}

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-01-20T08:00:00Z").unwrap().with_timezone(&Utc)
}

impl Fixture {
    fn search(&self, body: Value) -> Value {
        self.idx.execute_json_at(Endpoint::Search, &body, now()).unwrap_or_else(|e| panic!("{body}: {e}"))
    }

    /// The `_count` of a query, checked to agree with the search total.
    fn count(&self, query: Value) -> usize {
        let c = self.idx.execute_json_at(Endpoint::Count, &json!({"query": query}), now()).unwrap_or_else(|e| panic!("{query}: {e}"));
        let s = self.search(json!({"query": query, "size": 0}));
        assert_eq!(c["count"], s["hits"]["total"]["value"], "{query}");
        c["count"].as_u64().unwrap() as usize
    }

    fn expect(&self, f: impl Fn(&Map<String, Value>) -> bool) -> usize {
        self.recs.iter().filter(|r| f(r)).count()
    }
}

fn s<'a>(r: &'a Map<String, Value>, k: &str) -> &'a str {
    r[k].as_str().unwrap()
}
fn f(r: &Map<String, Value>, k: &str) -> f64 {
    r[k].as_f64().unwrap()
}
fn day(r: &Map<String, Value>) -> &str {
    &s(r, "placed")[..10]
}

#[test]
fn full_text_and_exact_clauses_match_the_records() {
    let fx = fixture();
    let note_has = |r: &Map<String, Value>, w: &str| s(r, "note").split(' ').any(|x| x == w);
    assert_eq!(fx.count(json!({"match_all": {}})), 80);
    assert_eq!(fx.count(json!({"match_none": {}})), 0);
    // Stemming: "shipped" finds "shipping".
    assert_eq!(fx.count(json!({"match": {"note": "shipped glass"}})), fx.expect(|r| note_has(r, "shipping") || note_has(r, "glass")));
    assert_eq!(
        fx.count(json!({"match": {"note": {"query": "fast shipping", "operator": "and"}}})),
        fx.expect(|r| note_has(r, "fast") && note_has(r, "shipping"))
    );
    assert_eq!(fx.count(json!({"match": {"note": {"query": "fast glass door", "minimum_should_match": 2}}})), 0);
    assert_eq!(fx.count(json!({"match_phrase": {"note": "fast delivery"}})), fx.expect(|r| s(r, "note").contains("fast delivery")));
    assert_eq!(fx.count(json!({"match_phrase": {"note": "delivery fast"}})), 0);
    // On a keyword field the whole query is one term, as in Elasticsearch.
    assert_eq!(
        fx.count(json!({"multi_match": {"query": "glass door", "fields": ["customer", "note^2"]}})),
        fx.expect(|r| note_has(r, "glass") || note_has(r, "door"))
    );
    assert_eq!(fx.count(json!({"multi_match": {"query": "umbrella", "fields": ["customer", "note"]}})), fx.expect(|r| s(r, "customer") == "umbrella"));
    assert_eq!(fx.count(json!({"multi_match": {"query": "fast glass", "type": "phrase"}})), 0);
    assert_eq!(fx.count(json!({"term": {"customer": "acme"}})), fx.expect(|r| s(r, "customer") == "acme"));
    assert_eq!(fx.count(json!({"term": {"customer": "hooli"}})), 0, "term is exact");
    assert_eq!(fx.count(json!({"term": {"customer": {"value": "hOOLI", "case_insensitive": true}}})), fx.expect(|r| s(r, "customer") == "Hooli"));
    assert_eq!(fx.count(json!({"term": {"note.keyword": "deliver to the back door"}})), fx.expect(|r| s(r, "note") == "deliver to the back door"));
    assert_eq!(fx.count(json!({"term": {"paid": false}})), fx.expect(|r| r["paid"] == json!(false)));
    assert_eq!(fx.count(json!({"term": {"address.city": "Oslo"}})), fx.expect(|r| r["address"]["city"] == json!("Oslo")));
    assert_eq!(fx.count(json!({"term": {"tags": "red"}})), fx.expect(|r| r.get("tags").is_some_and(|t| t.as_array().unwrap().contains(&json!("red")))));
    assert_eq!(fx.count(json!({"terms": {"customer": ["acme", "initech", "nobody"]}})), fx.expect(|r| ["acme", "initech"].contains(&s(r, "customer"))));
    assert_eq!(fx.count(json!({"terms": {"qty": [1, 2]}})), fx.expect(|r| [1, 2].contains(&r["qty"].as_i64().unwrap())));
    assert_eq!(fx.count(json!({"exists": {"field": "discount"}})), fx.expect(|r| r.contains_key("discount")));
    assert_eq!(fx.count(json!({"exists": {"field": "tags"}})), fx.expect(|r| r.contains_key("tags")));
    assert_eq!(fx.count(json!({"prefix": {"customer": "ini"}})), fx.expect(|r| s(r, "customer").starts_with("ini")));
    assert_eq!(fx.count(json!({"prefix": {"customer": {"value": "HOO", "case_insensitive": true}}})), fx.expect(|r| s(r, "customer") == "Hooli"));
    assert_eq!(fx.count(json!({"wildcard": {"customer": "*e*"}})), fx.expect(|r| s(r, "customer").contains('e')));
    assert_eq!(fx.count(json!({"ids": {"values": ["ord-3", "ord-7", "ord-999"]}})), 2);
    assert_eq!(fx.count(json!({"constant_score": {"filter": {"term": {"customer": "acme"}}, "boost": 2.0}})), 16);
    assert_eq!(fx.count(json!({"term": {"no_such_field": "x"}})), 0, "unmapped fields match nothing, as in Elasticsearch");
}

#[test]
fn ranges_on_numbers_and_dates_match_the_records() {
    let fx = fixture();
    let qty = |r: &Map<String, Value>| r["qty"].as_i64().unwrap();
    assert_eq!(fx.count(json!({"range": {"amount": {"gte": 20, "lt": 60.5}}})), fx.expect(|r| f(r, "amount") >= 20.0 && f(r, "amount") < 60.5));
    assert_eq!(fx.count(json!({"range": {"qty": {"gt": 2.5, "lte": 6}}})), fx.expect(|r| qty(r) > 2 && qty(r) <= 6));
    assert_eq!(fx.count(json!({"range": {"qty": {"lt": 3}}})), fx.expect(|r| qty(r) < 3));
    // `lte` a date includes that whole day; `gt` a date excludes it.
    assert_eq!(fx.count(json!({"range": {"placed": {"gte": "2024-03-01", "lte": "2024-03-31"}}})), fx.expect(|r| day(r).starts_with("2024-03")));
    assert_eq!(fx.count(json!({"range": {"placed": {"gt": "2024-12-27"}}})), fx.expect(|r| day(r) > "2024-12-27"));
    assert_eq!(fx.count(json!({"range": {"placed": {"gte": "2024-06", "lt": "2024-07"}}})), fx.expect(|r| day(r).starts_with("2024-06")));
    assert_eq!(fx.count(json!({"range": {"placed": {"gte": "2024-01-01T12:00:00Z", "lt": "2024-01-02"}}})), 1, "the record placed at 12:30");
    // Date math relative to the fixed now (2025-01-20T08:00Z).
    assert_eq!(fx.count(json!({"range": {"placed": {"gte": "now-30d/d"}}})), fx.expect(|r| day(r) >= "2024-12-21"));
    assert_eq!(fx.count(json!({"range": {"placed": {"gte": "now-1M/M", "lt": "now/M"}}})), fx.expect(|r| day(r).starts_with("2024-12")));
    assert_eq!(fx.count(json!({"term": {"placed": "2024-01-01"}})), 1, "a date term covers its day");
    assert_eq!(fx.count(json!({"range": {"customer": {"gte": "g", "lt": "j"}}})), fx.expect(|r| ("g".."j").contains(&s(r, "customer"))));
}

#[test]
fn bool_combines_like_elasticsearch() {
    let fx = fixture();
    let (cust, paid) = (|r: &Map<String, Value>| s(r, "customer").to_string(), |r: &Map<String, Value>| r["paid"] == json!(true));
    let q = json!({"bool": {
        "must": [{"match": {"note": "fast"}}],
        "filter": [{"range": {"amount": {"gte": 10}}}, {"term": {"paid": true}}],
        "must_not": {"term": {"customer": "globex"}}
    }});
    let note_fast = |r: &Map<String, Value>| s(r, "note").contains("fast");
    assert_eq!(fx.count(q), fx.expect(|r| note_fast(r) && f(r, "amount") >= 10.0 && paid(r) && cust(r) != "globex"));
    let should =
        json!({"bool": {"should": [{"term": {"customer": "acme"}}, {"term": {"paid": false}}, {"term": {"address.city": "Lima"}}], "minimum_should_match": 2}});
    assert_eq!(fx.count(should), fx.expect(|r| [cust(r) == "acme", !paid(r), r["address"]["city"] == json!("Lima")].iter().filter(|b| **b).count() >= 2));
    // Should clauses are optional next to a filter, required alone.
    let optional = json!({"bool": {"filter": {"term": {"customer": "acme"}}, "should": {"term": {"paid": false}}}});
    assert_eq!(fx.count(optional), 16);
    assert_eq!(fx.count(json!({"bool": {"should": [{"term": {"customer": "acme"}}, {"term": {"customer": "Hooli"}}]}})), 32);
    assert_eq!(fx.count(json!({"bool": {"must_not": [{"term": {"customer": "acme"}}]}})), 64);
    assert_eq!(fx.count(json!({"bool": {}})), 80);
    // Scored matches rank first: the `should` boosts documents that also match it.
    let ranked = fx.search(json!({"query": {"bool": {"filter": {"term": {"customer": "acme"}}, "should": {"term": {"paid": false}}}}, "size": 5}));
    for hit in ranked["hits"]["hits"].as_array().unwrap() {
        assert_eq!(hit["_source"]["paid"], json!(false), "{hit}");
    }
}

#[test]
fn hits_are_in_elasticsearch_format_with_source_filtering() {
    let fx = fixture();
    let r = fx.search(json!({"query": {"term": {"customer": "acme"}}, "size": 3, "_source": {"includes": ["customer", "address.*"], "excludes": ["id"]}}));
    assert_eq!(r["timed_out"], json!(false));
    assert!(r["took"].is_u64());
    assert_eq!(r["hits"]["total"], json!({"value": 16, "relation": "eq"}));
    let hits = r["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["_index"], json!("orders"));
    assert_eq!(hits[0]["_id"], json!("ord-0"), "filter-only queries keep record order");
    assert_eq!(hits[0]["_source"], json!({"customer": "acme", "address": {"city": "Paris"}}));
    let full = fx.search(json!({"query": {"ids": {"values": ["ord-12"]}}}));
    assert_eq!(Value::Object(fx.recs[12].clone()), full["hits"]["hits"][0]["_source"], "_source is the record verbatim");
    let none = fx.search(json!({"size": 1, "_source": false}));
    assert!(none["hits"]["hits"][0].get("_source").is_none());
    let capped = fx.search(json!({"size": 0, "track_total_hits": 10}));
    assert_eq!(capped["hits"]["total"], json!({"value": 10, "relation": "gte"}));
    let matched = fx.search(json!({"query": {"match": {"note": "glass"}}, "size": 1}));
    assert!(matched["hits"]["max_score"].as_f64().unwrap() > 0.0);
    assert!(matched["hits"]["hits"][0]["_score"].as_f64().unwrap() > 0.0);
}

#[test]
fn from_size_and_search_after_give_disjoint_complete_pages() {
    let fx = fixture();
    let query = json!({"range": {"amount": {"gte": 5}}});
    let expected = fx.expect(|r| f(r, "amount") >= 5.0);
    let sort = json!([{"amount": "desc"}, {"customer": "asc"}, "_doc"]);
    let mut seen_from: Vec<String> = Vec::new();
    for page in 0.. {
        let r = fx.search(json!({"query": query, "sort": sort, "from": page * 7, "size": 7}));
        let hits = r["hits"]["hits"].as_array().unwrap().clone();
        if hits.is_empty() {
            break;
        }
        seen_from.extend(hits.iter().map(|h| h["_id"].as_str().unwrap().to_string()));
    }
    let mut seen_after: Vec<String> = Vec::new();
    let mut amounts: Vec<f64> = Vec::new();
    let mut after: Option<Value> = None;
    loop {
        let mut body = json!({"query": query, "sort": sort, "size": 6});
        if let Some(a) = &after {
            body["search_after"] = a.clone();
        }
        let r = fx.search(body);
        let hits = r["hits"]["hits"].as_array().unwrap().clone();
        let Some(last) = hits.last() else { break };
        after = Some(last["sort"].clone());
        assert_eq!(last["sort"].as_array().unwrap().len(), 3);
        for h in &hits {
            let ordinal: i64 = h["_id"].as_str().unwrap()["ord-".len()..].parse().unwrap();
            assert_eq!(h["sort"][2], json!(ordinal), "_doc sorts by record order");
        }
        seen_after.extend(hits.iter().map(|h| h["_id"].as_str().unwrap().to_string()));
        amounts.extend(hits.iter().map(|h| h["_source"]["amount"].as_f64().unwrap()));
    }
    assert_eq!(seen_from.len(), expected);
    assert_eq!(seen_from.iter().collect::<BTreeSet<_>>().len(), expected, "pages are disjoint");
    assert_eq!(seen_after, seen_from, "search_after walks the same order");
    assert!(amounts.windows(2).all(|w| w[0] >= w[1]), "sorted by amount desc");
    // Dates sort as epoch milliseconds; missing values go last.
    let by_discount = fx.search(json!({"sort": [{"discount": "desc"}, {"placed": "asc"}], "size": 80}));
    let hits = by_discount["hits"]["hits"].as_array().unwrap();
    assert!(hits[0]["sort"][1].is_i64());
    assert_eq!(hits.iter().filter(|h| h["sort"][0].is_null()).count(), fx.expect(|r| !r.contains_key("discount")));
    assert!(hits.iter().skip_while(|h| !h["sort"][0].is_null()).all(|h| h["sort"][0].is_null()), "missing last");
    let err = fx.idx.execute_json_at(Endpoint::Search, &json!({"search_after": [1], "from": 5, "sort": ["_doc"]}), now());
    assert!(err.is_err());
}

fn buckets(v: &Value) -> Vec<(Value, u64)> {
    v["buckets"].as_array().unwrap().iter().map(|b| (b["key"].clone(), b["doc_count"].as_u64().unwrap())).collect()
}

#[test]
fn terms_and_metric_aggregations_match_the_records() {
    let fx = fixture();
    let r = fx.search(json!({"size": 0, "query": {"range": {"amount": {"gte": 30}}}, "aggs": {
        "by_city": {"terms": {"field": "address.city", "size": 2}, "aggs": {"avg_amount": {"avg": {"field": "amount"}}}},
        "by_tag": {"terms": {"field": "tags", "order": {"_key": "asc"}}},
        "by_qty": {"terms": {"field": "qty", "order": {"max_amount": "desc"}, "size": 3}, "aggs": {"max_amount": {"max": {"field": "amount"}}}},
        "total": {"sum": {"field": "amount"}}, "lo": {"min": {"field": "amount"}}, "hi": {"max": {"field": "amount"}},
        "n": {"value_count": {"field": "tags"}}, "customers": {"cardinality": {"field": "customer"}},
        "st": {"stats": {"field": "qty"}}, "first": {"min": {"field": "placed"}}
    }}));
    let sel: Vec<&Map<String, Value>> = fx.recs.iter().filter(|r| f(r, "amount") >= 30.0).collect();
    let mut per_city: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    for r in &sel {
        let e = per_city.entry(r["address"]["city"].as_str().unwrap().to_string()).or_default();
        e.0 += 1;
        e.1 += f(r, "amount");
    }
    let mut expected: Vec<(String, (u64, f64))> = per_city.into_iter().collect();
    expected.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    let aggs = &r["aggregations"];
    let got = aggs["by_city"]["buckets"].as_array().unwrap();
    assert_eq!(got.len(), 2);
    for (b, (city, (n, sum))) in got.iter().zip(&expected) {
        assert_eq!((b["key"].as_str().unwrap(), b["doc_count"].as_u64().unwrap()), (city.as_str(), *n));
        assert!((b["avg_amount"]["value"].as_f64().unwrap() - sum / *n as f64).abs() < 1e-9);
    }
    assert_eq!(aggs["by_city"]["sum_other_doc_count"].as_u64().unwrap(), expected[2..].iter().map(|e| e.1.0).sum::<u64>());
    let tag_count = |t: &str| sel.iter().filter(|r| r.get("tags").is_some_and(|v| v.as_array().unwrap().contains(&json!(t)))).count() as u64;
    assert_eq!(buckets(&aggs["by_tag"]), vec![(json!("blue"), tag_count("blue")), (json!("red"), tag_count("red"))]);
    let max_amount_of = |q: i64| sel.iter().filter(|r| r["qty"].as_i64() == Some(q)).map(|r| f(r, "amount")).fold(f64::MIN, f64::max);
    let top_qty: Vec<i64> = aggs["by_qty"]["buckets"].as_array().unwrap().iter().map(|b| b["key"].as_i64().unwrap()).collect();
    let vals: Vec<f64> = top_qty.iter().map(|q| max_amount_of(*q)).collect();
    assert!(vals.windows(2).all(|w| w[0] >= w[1]) && vals[0] == sel.iter().map(|r| f(r, "amount")).fold(f64::MIN, f64::max));
    let amounts: Vec<f64> = sel.iter().map(|r| f(r, "amount")).collect();
    assert!((aggs["total"]["value"].as_f64().unwrap() - amounts.iter().sum::<f64>()).abs() < 1e-9);
    assert_eq!(aggs["lo"]["value"].as_f64().unwrap(), amounts.iter().copied().fold(f64::MAX, f64::min));
    assert_eq!(aggs["hi"]["value"].as_f64().unwrap(), amounts.iter().copied().fold(f64::MIN, f64::max));
    let n_tags: usize = sel.iter().filter_map(|r| r.get("tags")).map(|t| t.as_array().unwrap().len()).sum();
    assert_eq!(aggs["n"]["value"].as_u64().unwrap() as usize, n_tags);
    assert_eq!(aggs["customers"]["value"].as_u64().unwrap() as usize, sel.iter().map(|r| s(r, "customer")).collect::<BTreeSet<_>>().len());
    assert_eq!(aggs["st"]["count"].as_u64().unwrap() as usize, sel.len());
    assert_eq!(aggs["st"]["sum"].as_f64().unwrap(), sel.iter().map(|r| r["qty"].as_f64().unwrap()).sum::<f64>());
    let first_day = sel.iter().map(|r| day(r)).min().unwrap();
    assert!(aggs["first"]["value_as_string"].as_str().unwrap().starts_with(first_day));
}

#[test]
fn histograms_and_ranges_match_the_records() {
    let fx = fixture();
    // March 2024 filtered out: its month bucket stays, empty (min_doc_count 0 fills gaps).
    let q = json!({"bool": {"must_not": {"range": {"placed": {"gte": "2024-03-01", "lt": "2024-04-01"}}}}});
    let r = fx.search(json!({"size": 0, "query": q, "aggs": {
        "per_month": {"date_histogram": {"field": "placed", "calendar_interval": "month", "format": "yyyy-MM"}, "aggs": {"who": {"terms": {"field": "customer", "size": 1}}}},
        "per_quarter": {"date_histogram": {"field": "placed", "calendar_interval": "quarter"}},
        "per_30d": {"date_histogram": {"field": "placed", "fixed_interval": "30d", "min_doc_count": 1}},
        "amounts": {"histogram": {"field": "amount", "interval": 25}},
        "bands": {"range": {"field": "amount", "ranges": [{"to": 20}, {"from": 20, "to": 70}, {"from": 70}]}}
    }}));
    let sel: Vec<&Map<String, Value>> = fx.recs.iter().filter(|r| !day(r).starts_with("2024-03")).collect();
    let mut months: BTreeMap<String, u64> = BTreeMap::new();
    for r in &sel {
        *months.entry(day(r)[..7].to_string()).or_default() += 1;
    }
    months.insert("2024-03".into(), 0);
    let aggs = &r["aggregations"];
    let got: Vec<(String, u64)> = aggs["per_month"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["key_as_string"].as_str().unwrap().to_string(), b["doc_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, months.into_iter().collect::<Vec<_>>());
    let jan = &aggs["per_month"]["buckets"][0];
    assert_eq!(jan["key"], json!(DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z").unwrap().timestamp_millis()));
    assert_eq!(jan["who"]["buckets"].as_array().unwrap().len(), 1);
    let mut quarters: BTreeMap<String, u64> = BTreeMap::new();
    for r in &sel {
        let (y, m): (i32, u32) = (day(r)[..4].parse().unwrap(), day(r)[5..7].parse().unwrap());
        *quarters.entry(format!("{y}-{:02}-01T00:00:00.000Z", (m - 1) / 3 * 3 + 1)).or_default() += 1;
    }
    let got: Vec<(String, u64)> = aggs["per_quarter"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["key_as_string"].as_str().unwrap().to_string(), b["doc_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, quarters.into_iter().collect::<Vec<_>>());
    let fixed_total: u64 = buckets(&aggs["per_30d"]).iter().map(|b| b.1).sum();
    assert_eq!(fixed_total as usize, sel.len());
    for (key, _) in buckets(&aggs["per_30d"]) {
        assert_eq!(key.as_i64().unwrap() % (30 * 86_400_000), 0, "fixed buckets start on multiples of the interval");
    }
    let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
    for r in &sel {
        *hist.entry((f(r, "amount") / 25.0).floor() as i64 * 25).or_default() += 1;
    }
    assert_eq!(buckets(&aggs["amounts"]), hist.into_iter().map(|(k, n)| (json!(k as f64), n)).collect::<Vec<_>>());
    let band = |lo: f64, hi: f64| sel.iter().filter(|r| f(r, "amount") >= lo && f(r, "amount") < hi).count() as u64;
    let got = buckets(&aggs["bands"]);
    assert_eq!(got, vec![(json!("*-20.0"), band(f64::MIN, 20.0)), (json!("20.0-70.0"), band(20.0, 70.0)), (json!("70.0-*"), band(70.0, f64::MAX))]);
}

#[test]
fn bucket_caps_and_unsupported_requests_are_errors() {
    let mut fx = fixture();
    fx.idx.set_max_buckets(20);
    let too_many =
        fx.idx.execute_json_at(Endpoint::Search, &json!({"size": 0, "aggs": {"d": {"date_histogram": {"field": "placed", "fixed_interval": "1d"}}}}), now());
    assert!(too_many.unwrap_err().to_string().contains("too many buckets"));
    let ok = fx.idx.execute_json_at(
        Endpoint::Search,
        &json!({"size": 0, "aggs": {"m": {"date_histogram": {"field": "placed", "calendar_interval": "month"}}}}),
        now(),
    );
    assert!(ok.is_ok());
    for (body, named) in [
        (json!({"query": {"script": {"script": "1"}}}), "script"),
        (json!({"query": {"more_like_this": {"like": "x"}}}), "more_like_this"),
        (json!({"query": {"match": {"note": {"query": "x", "zero": 1}}}}), "match.zero"),
        (json!({"highlight": {"fields": {"note": {}}}}), "highlight"),
        (json!({"aggs": {"p": {"percentiles": {"field": "amount"}}}}), "percentiles"),
        (json!({"aggs": {"t": {"terms": {"field": "customer", "script": "x"}}}}), "terms.script"),
        (json!({"query": {"terms": {"customer": {"index": "other", "id": "1", "path": "x"}}}}), "terms lookup"),
    ] {
        let e = fx.idx.execute_json_at(Endpoint::Search, &body, now()).unwrap_err();
        assert!(matches!(e, EsError::Unsupported(_)), "{body}: {e}");
        assert!(e.to_string().contains(named), "{e}");
    }
    let text_agg = fx.idx.execute_json_at(Endpoint::Search, &json!({"aggs": {"t": {"terms": {"field": "note"}}}}), now());
    assert!(text_agg.unwrap_err().to_string().contains("keyword"), "text fields aggregate through their keyword multi-field");
    assert!(fx.idx.execute_json_at(Endpoint::Count, &json!({"query": {"match_all": {}}, "size": 3}), now()).is_err());
}

#[test]
fn create_open_list_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    assert!(EmbeddedIndex::list(dir.path()).unwrap().is_empty());
    match EmbeddedIndex::open(dir.path(), "orders").unwrap_err() {
        EsError::NoIndex { hint, .. } => {
            assert!(hint.contains("qa es index FILE --name orders"), "{hint}")
        }
        other => panic!("{other}"),
    }
    for bad in ["", "../x", ".hidden", "a/b", "a b"] {
        assert!(EmbeddedIndex::create(dir.path(), bad, &[], &orders_mapping(), &Silent).is_err(), "{bad:?}");
    }
    let s = EmbeddedIndex::create_with_source(dir.path(), "orders", &orders(), &orders_mapping(), Some(Path::new("orders.jsonl")), &Silent).unwrap();
    assert_eq!((s.docs, s.fields, s.format_version), (80, 10, FORMAT_VERSION));
    EmbeddedIndex::create(dir.path(), "empty", &[], &orders_mapping(), &Silent).unwrap();
    let names: Vec<String> = EmbeddedIndex::list(dir.path()).unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["empty", "orders"]);
    let idx = EmbeddedIndex::open(dir.path(), "orders").unwrap();
    assert_eq!(idx.summary().source.as_deref(), Some("orders.jsonl"));
    assert_eq!(idx.mapping().unwrap(), orders_mapping());
    assert_eq!(SearchEngine::index(&idx), "orders");
    assert!(idx.target().starts_with("embedded:"));
    let req = CheckedRequest::new(Endpoint::Count, json!({"query": {"term": {"customer": "acme"}}}));
    assert_eq!(idx.run(&req).unwrap()["count"], json!(16));
    // An index of another layout version asks for a rebuild.
    let meta = dir.path().join(INDEXES_DIR).join("empty").join("meta.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
    v["format_version"] = json!(FORMAT_VERSION + 1);
    std::fs::write(&meta, v.to_string()).unwrap();
    assert!(EmbeddedIndex::open(dir.path(), "empty").unwrap_err().to_string().contains("rebuild"));
}

#[test]
fn a_failed_rebuild_leaves_the_old_index_answering() {
    let dir = tempfile::tempdir().unwrap();
    let recs = orders();
    EmbeddedIndex::create(dir.path(), "orders", &recs[..40], &orders_mapping(), &Silent).unwrap();
    let mut bad = recs.clone();
    bad[57].insert("qty".into(), json!("many"));
    let err = EmbeddedIndex::create(dir.path(), "orders", &bad, &orders_mapping(), &Silent).unwrap_err().to_string();
    assert!(err.contains("record 58") && err.contains("qty"), "{err}");
    let idx = EmbeddedIndex::open(dir.path(), "orders").unwrap();
    assert_eq!(idx.execute_json(Endpoint::Count, &json!({})).unwrap()["count"], json!(40));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join(INDEXES_DIR)).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers, ["orders"], "no temporary folder left");
    drop(idx);
    // A successful rebuild replaces it; an index moved aside mid-switch is put back on open.
    EmbeddedIndex::create(dir.path(), "orders", &recs, &orders_mapping(), &Silent).unwrap();
    let root = dir.path().join(INDEXES_DIR);
    std::fs::rename(root.join("orders"), root.join(".orders.old-1-2")).unwrap();
    let idx = EmbeddedIndex::open(dir.path(), "orders").unwrap();
    assert_eq!(idx.execute_json(Endpoint::Count, &json!({})).unwrap()["count"], json!(80));
}

#[test]
fn a_second_domain_from_csv_with_an_inferred_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("station,reading_c,taken_at,alert,remark\n");
    let stations = ["north ridge", "harbour", "airport"];
    for i in 0..60 {
        let remark = if i % 6 == 0 { "\"sensor recalibrated, readings may drift for a while\"" } else { "" };
        csv.push_str(&format!(
            "{},{:.1},2023-0{}-{:02}T0{}:00:00Z,{},{remark}\n",
            stations[i % 3],
            -5.0 + i as f64 * 0.7,
            1 + i % 6,
            1 + i % 28,
            i % 10,
            i % 5 == 0
        ));
    }
    let path = dir.path().join("weather.csv");
    std::fs::write(&path, csv).unwrap();
    let recs = crate::records::load_records(&path).unwrap();
    let mapping = crate::infer::infer_mapping("weather", &recs);
    let kind = |p: &str| mapping.field(p).unwrap().kind;
    assert_eq!(
        [kind("station"), kind("reading_c"), kind("taken_at"), kind("alert"), kind("remark")],
        [FieldKind::Keyword, FieldKind::Double, FieldKind::Date, FieldKind::Boolean, FieldKind::Text]
    );
    EmbeddedIndex::create(dir.path(), "weather", &recs, &mapping, &Silent).unwrap();
    let idx = EmbeddedIndex::open(dir.path(), "weather").unwrap();
    let r = idx
        .execute_json(
            Endpoint::Search,
            &json!({"size": 0, "query": {"bool": {"filter": [{"term": {"alert": true}}, {"range": {"taken_at": {"gte": "2023-02-01", "lt": "2023-05-01"}}}]}},
                "aggs": {"per_station": {"terms": {"field": "station"}, "aggs": {"avg_c": {"avg": {"field": "reading_c"}}}}}}),
        )
        .unwrap();
    let in_window = |i: usize| (2..=4).contains(&(1 + i % 6));
    let expected = (0..60).filter(|&i| i % 5 == 0 && in_window(i)).count();
    assert_eq!(r["hits"]["total"]["value"], json!(expected));
    let sum: u64 = r["aggregations"]["per_station"]["buckets"].as_array().unwrap().iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(sum as usize, expected);
    let recal = idx.execute_json(Endpoint::Count, &json!({"query": {"match": {"remark": "recalibrating"}}})).unwrap();
    assert_eq!(recal["count"], json!(10));
}

#[test]
fn the_rest_of_what_the_guard_allows_runs() {
    let fx = fixture();
    let note = |r: &Map<String, Value>| s(r, "note").to_string();
    assert_eq!(fx.count(json!({"match_phrase_prefix": {"note": "fast deliv"}})), fx.expect(|r| note(r).contains("fast deliv")));
    assert_eq!(fx.count(json!({"match_phrase_prefix": {"note": "fragi"}})), fx.expect(|r| note(r).starts_with("fragi")));
    assert_eq!(fx.count(json!({"multi_match": {"query": "back do", "type": "bool_prefix", "operator": "and", "fields": ["note"]}})), 20);
    assert_eq!(fx.count(json!({"multi_match": {"query": "gift wr", "type": "phrase_prefix", "fields": ["note", "customer"]}})), 20);
    assert_eq!(
        fx.count(json!({"dis_max": {"queries": [{"term": {"customer": "acme"}}, {"term": {"paid": false}}], "tie_breaker": 0.3}})),
        fx.expect(|r| s(r, "customer") == "acme" || r["paid"] == json!(false))
    );
    // post_filter narrows hits, not aggregations.
    let r = fx.search(json!({"query": {"term": {"paid": true}}, "post_filter": {"term": {"customer": "acme"}}, "size": 100,
        "aggs": {"c": {"terms": {"field": "customer", "size": 10}}}}));
    let paid = |r: &Map<String, Value>| r["paid"] == json!(true);
    assert_eq!(r["hits"]["total"]["value"], json!(fx.expect(|r| paid(r) && s(r, "customer") == "acme")));
    let agg_total: u64 = buckets(&r["aggregations"]["c"]).iter().map(|b| b.1).sum();
    assert_eq!(agg_total as usize, fx.expect(paid));
    // min_score keeps the better matches only.
    let all = fx.search(json!({"query": {"match": {"note": "fast glass"}}, "size": 0}))["hits"]["total"]["value"].as_u64().unwrap();
    let min = fx.search(json!({"query": {"match": {"note": "fast glass"}}, "min_score": 100.0, "size": 0}))["hits"]["total"]["value"].as_u64().unwrap();
    assert!(all > 0 && min == 0);
    // docvalue_fields and stored_fields.
    let r = fx.search(json!({"query": {"ids": {"values": ["ord-10"]}}, "stored_fields": ["_none_"], "docvalue_fields": ["tags", {"field": "placed", "format": "yyyy-MM-dd"}]}));
    let hit = &r["hits"]["hits"][0];
    assert!(hit.get("_source").is_none());
    assert_eq!(hit["fields"]["placed"], json!(["2024-02-20"]));
    assert_eq!(hit["fields"]["tags"], json!(["blue", "red"]));
    // filter, filters, top_hits.
    let r = fx.search(json!({"size": 0, "aggs": {
        "acme": {"filter": {"term": {"customer": "acme"}}, "aggs": {"avg": {"avg": {"field": "amount"}}}},
        "f": {"filters": {"filters": {"oslo": {"term": {"address.city": "Oslo"}}, "cheap": {"range": {"amount": {"lt": 20}}}}, "other_bucket_key": "rest"}},
        "per_city": {"terms": {"field": "address.city"}, "aggs": {"top": {"top_hits": {"size": 2, "sort": [{"amount": "desc"}], "_source": ["amount"]}}}}
    }}));
    let aggs = &r["aggregations"];
    let acme: Vec<f64> = fx.recs.iter().filter(|r| s(r, "customer") == "acme").map(|r| f(r, "amount")).collect();
    assert_eq!(aggs["acme"]["doc_count"], json!(acme.len()));
    assert!((aggs["acme"]["avg"]["value"].as_f64().unwrap() - acme.iter().sum::<f64>() / acme.len() as f64).abs() < 1e-9);
    let oslo = |r: &Map<String, Value>| r["address"]["city"] == json!("Oslo");
    assert_eq!(aggs["f"]["buckets"]["oslo"]["doc_count"], json!(fx.expect(oslo)));
    assert_eq!(aggs["f"]["buckets"]["cheap"]["doc_count"], json!(fx.expect(|r| f(r, "amount") < 20.0)));
    assert_eq!(aggs["f"]["buckets"]["rest"]["doc_count"], json!(fx.expect(|r| !oslo(r) && f(r, "amount") >= 20.0)));
    for b in aggs["per_city"]["buckets"].as_array().unwrap() {
        let city = b["key"].as_str().unwrap();
        let mut amounts: Vec<f64> = fx.recs.iter().filter(|r| r["address"]["city"] == json!(city)).map(|r| f(r, "amount")).collect();
        amounts.sort_by(|a, b| b.total_cmp(a));
        let top: Vec<f64> = b["top"]["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_source"]["amount"].as_f64().unwrap()).collect();
        assert_eq!(top, amounts[..2]);
        assert_eq!(b["top"]["hits"]["total"]["value"], b["doc_count"]);
    }
    // terms missing/include/exclude; keyed histograms, hard_bounds, range missing.
    let r = fx.search(json!({"size": 0, "aggs": {
        "disc": {"terms": {"field": "discount", "missing": -1}},
        "inc": {"terms": {"field": "customer", "include": "a.*|glo.ex", "exclude": ["acme"]}},
        "h": {"histogram": {"field": "qty", "interval": 3, "keyed": true, "hard_bounds": {"min": 3, "max": 5}}},
        "r": {"range": {"field": "discount", "missing": 0, "ranges": [{"to": 1}], "keyed": true}}
    }}));
    let aggs = &r["aggregations"];
    let no_discount = fx.expect(|r| !r.contains_key("discount"));
    assert!(buckets(&aggs["disc"]).contains(&(json!(-1), no_discount as u64)));
    assert_eq!(buckets(&aggs["inc"]).into_iter().map(|b| b.0).collect::<Vec<_>>(), vec![json!("globex")]);
    let h = aggs["h"]["buckets"].as_object().unwrap();
    assert_eq!(h.keys().collect::<Vec<_>>(), ["3.0"]);
    assert_eq!(h["3.0"]["doc_count"], json!(fx.expect(|r| (3..6).contains(&r["qty"].as_i64().unwrap()))));
    let zero = fx.expect(|r| r.get("discount").is_none_or(|d| d.as_i64() == Some(0)));
    assert_eq!(aggs["r"]["buckets"]["*-1.0"]["doc_count"], json!(zero));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Arbitrary strings in value positions (dates, numbers, patterns, formats) give an answer or
    /// an error, never a panic.
    #[test]
    fn hostile_values_never_panic(v in "\\PC{0,24}") {
        let fx = FIXTURE.with(|f| f.clone());
        let bodies = [
            json!({"query": {"range": {"placed": {"gte": v, "lt": v}}}}),
            json!({"query": {"range": {"qty": {"gt": v}}}}),
            json!({"query": {"term": {"placed": v}}}),
            json!({"query": {"prefix": {"customer": {"value": v, "case_insensitive": true}}}}),
            json!({"query": {"wildcard": {"customer": v}}}),
            json!({"query": {"match": {"note": {"query": v, "minimum_should_match": v}}}}),
            json!({"query": {"match_phrase": {"note": v}}}),
            json!({"aggs": {"d": {"date_histogram": {"field": "placed", "calendar_interval": "month", "format": v, "time_zone": v}}}}),
            json!({"aggs": {"d": {"date_histogram": {"field": "placed", "fixed_interval": v}}}}),
            json!({"aggs": {"r": {"date_range": {"field": "placed", "ranges": [{"from": v}]}}}}),
            json!({"sort": [{"placed": "asc"}, "_doc"], "search_after": [v, 1]}),
        ];
        for b in &bodies {
            let _ = fx.idx.execute_json_at(Endpoint::Search, b, now());
        }
    }
}

thread_local! {
    static FIXTURE: std::rc::Rc<Fixture> = std::rc::Rc::new(fixture());
}

#[test]
fn a_search_past_its_deadline_is_an_error_and_one_within_it_answers() {
    let slow = with_deadline(30, || {
        std::thread::sleep(std::time::Duration::from_millis(600));
        Ok(json!({}))
    });
    assert!(slow.unwrap_err().to_string().contains("timeout of 30 ms"));
    assert_eq!(with_deadline(5_000, || Ok(json!({"ok": true}))).unwrap(), json!({"ok": true}));
    // Through the engine: the guard's timeout is on every search, and a normal one answers.
    let fx = fixture();
    let req = crate::guard::checked(&json!({"query": {"match_all": {}}, "size": 1}), Endpoint::Search, &orders_mapping(), &crate::EsLimits::default()).unwrap();
    assert!(req.body()["timeout"].is_string());
    assert_eq!(fx.idx.run(&req).unwrap()["hits"]["total"]["value"], 80);
}
