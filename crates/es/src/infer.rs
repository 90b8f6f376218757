//! Mapping inference from records, after Elasticsearch's dynamic mapping with one refinement:
//! strings are `keyword` when they look like categories and `text` (with a `keyword` multi-field)
//! when they look like prose or names.
//!
//! - numbers → `long` (all integral) or `double`; booleans → `boolean`;
//! - strings that are all full ISO-8601 dates or date-times → `date`;
//! - other strings → `keyword` when low-cardinality (distinct ≤ max(50, 5 % of the values), not
//!   mostly unique), short (average ≤ 40 characters, none over 256) and not prose (fewer than four
//!   words on average); else `text` + `keyword` (ignore_above 256);
//! - arrays → their elements' type; objects → dotted fields;
//! - mixed types widen: long + double → double; anything with strings (or numbers with
//!   booleans) → keyword/text by the rule above on the values' string forms.
//!
//! Output is deterministic: fields sorted by path, decisions independent of record order.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};

use crate::embedded::dates::is_date_string;
use crate::{Field, FieldKind, Mapping};

/// Distinct values a keyword field may have at least (the 5 % rule raises it on large inputs).
const KEYWORD_MIN_DISTINCT: usize = 50;
/// Longest average value length of a keyword field.
const KEYWORD_MAX_AVG_LEN: f64 = 40.0;
/// Longest value of a keyword field (Elasticsearch's usual `ignore_above`).
const KEYWORD_MAX_LEN: usize = 256;
/// Average word count from which strings are prose.
const PROSE_AVG_WORDS: f64 = 4.0;
/// Distinct strings kept per field while inferring: past it the field is high-cardinality.
const DISTINCT_TRACK_CAP: usize = 100_000;

/// Visit every leaf value of a record with its dotted path: objects are descended, arrays
/// contribute each element, nulls are skipped. `buf` is scratch space for the path.
pub(crate) fn for_each_leaf(record: &Map<String, Value>, f: &mut dyn FnMut(&str, &Value)) {
    let mut buf = String::new();
    visit_object(record, &mut buf, f);
}

fn visit_object(obj: &Map<String, Value>, buf: &mut String, f: &mut dyn FnMut(&str, &Value)) {
    for (k, v) in obj {
        let len = buf.len();
        if !buf.is_empty() {
            buf.push('.');
        }
        buf.push_str(k);
        visit_value(v, buf, f);
        buf.truncate(len);
    }
}

fn visit_value(v: &Value, buf: &mut String, f: &mut dyn FnMut(&str, &Value)) {
    match v {
        Value::Null => {}
        Value::Object(o) => visit_object(o, buf, f),
        Value::Array(items) => items.iter().for_each(|item| visit_value(item, buf, f)),
        _ => f(buf, v),
    }
}

/// What was seen of one path.
#[derive(Default)]
struct Stats {
    integers: usize,
    floats: usize,
    booleans: usize,
    strings: usize,
    dates: usize,
    total_len: usize,
    max_len: usize,
    total_words: usize,
    distinct: HashSet<String>,
    distinct_overflow: bool,
}

impl Stats {
    fn add(&mut self, v: &Value) {
        let text = match v {
            Value::Bool(b) => {
                self.booleans += 1;
                b.to_string()
            }
            Value::Number(n) => {
                if n.is_i64() || n.is_u64() && n.as_u64().is_some_and(|u| i64::try_from(u).is_ok()) {
                    self.integers += 1;
                } else {
                    self.floats += 1;
                }
                n.to_string()
            }
            Value::String(s) => {
                if s.is_empty() {
                    return;
                }
                self.strings += 1;
                if is_date_string(s) {
                    self.dates += 1;
                }
                s.clone()
            }
            _ => return,
        };
        let chars = text.chars().count();
        self.total_len += chars;
        self.max_len = self.max_len.max(chars);
        self.total_words += text.split_whitespace().count();
        if self.distinct.len() < DISTINCT_TRACK_CAP {
            self.distinct.insert(text);
        } else if !self.distinct.contains(&text) {
            self.distinct_overflow = true;
        }
    }

    fn values(&self) -> usize {
        self.integers + self.floats + self.booleans + self.strings
    }

    fn kind(&self) -> Option<FieldKind> {
        let n = self.values();
        if n == 0 {
            return None;
        }
        let numbers = self.integers + self.floats;
        Some(if self.strings == 0 && self.booleans == 0 {
            if self.floats > 0 { FieldKind::Double } else { FieldKind::Long }
        } else if self.strings == 0 && numbers == 0 {
            FieldKind::Boolean
        } else if self.dates == n {
            FieldKind::Date
        } else if self.looks_like_categories(n) {
            FieldKind::Keyword
        } else {
            FieldKind::Text
        })
    }

    fn looks_like_categories(&self, n: usize) -> bool {
        let distinct = self.distinct.len();
        let cap = KEYWORD_MIN_DISTINCT.max(n / 20);
        let mostly_unique = n >= 10 && distinct * 2 > n;
        let avg_len = self.total_len as f64 / n as f64;
        let avg_words = self.total_words as f64 / n as f64;
        !self.distinct_overflow
            && distinct <= cap
            && !mostly_unique
            && avg_len <= KEYWORD_MAX_AVG_LEN
            && self.max_len <= KEYWORD_MAX_LEN
            && avg_words < PROSE_AVG_WORDS
    }
}

/// Infer an Elasticsearch-style mapping for `records` (see the module documentation).
pub fn infer_mapping(index: &str, records: &[Map<String, Value>]) -> Mapping {
    let mut stats: BTreeMap<String, Stats> = BTreeMap::new();
    let mut objects: HashSet<String> = HashSet::new();
    for rec in records {
        collect_object_paths(rec, "", &mut objects);
        for_each_leaf(rec, &mut |path, v| {
            if let Some(s) = stats.get_mut(path) {
                s.add(v);
            } else {
                let mut s = Stats::default();
                s.add(v);
                stats.insert(path.to_string(), s);
            }
        });
    }
    let fields = stats
        .into_iter()
        // A path that is an object somewhere keeps its sub-fields; its scalar values stay in
        // `_source` only (Elasticsearch would reject the conflict).
        .filter(|(path, _)| !objects.contains(path))
        .filter_map(|(path, s)| {
            let kind = s.kind()?;
            let keyword_subfield = (kind == FieldKind::Text).then(|| "keyword".to_string());
            Some(Field { path, kind, es_type: kind.es_type().to_string(), keyword_subfield, format: None })
        })
        .collect();
    Mapping { index: index.to_string(), fields }
}

fn collect_object_paths(obj: &Map<String, Value>, prefix: &str, out: &mut HashSet<String>) {
    for (k, v) in obj {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        let mut visit = |o: &Map<String, Value>| {
            collect_object_paths(o, &path, out);
            true
        };
        let is_object = match v {
            Value::Object(o) => visit(o),
            Value::Array(items) => {
                let mut any = false;
                for o in items.iter().filter_map(Value::as_object) {
                    any |= visit(o);
                }
                any
            }
            _ => false,
        };
        if is_object {
            out.insert(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn recs(v: Value) -> Vec<Map<String, Value>> {
        v.as_array().unwrap().iter().map(|r| r.as_object().unwrap().clone()).collect()
    }

    fn kinds(m: &Mapping) -> Vec<(String, FieldKind)> {
        m.fields.iter().map(|f| (f.path.clone(), f.kind)).collect()
    }

    #[test]
    fn infers_a_library_catalogue() {
        let genres = ["fiction", "history", "science", "poetry"];
        let mut rows = Vec::new();
        for i in 0..120 {
            rows.push(json!({
                "isbn": format!("978-{i:06}"),
                "title": format!("The {i} chronicles of a quiet town by the river"),
                "genre": genres[i % 4],
                "pages": 100 + i,
                "rating": if i % 3 == 0 { json!(4) } else { json!(3.5) },
                "available": i % 2 == 0,
                "published": format!("20{:02}-0{}-1{}", i % 24, 1 + i % 9, i % 10),
                "tags": [genres[(i + 1) % 4], "paper"],
                "author": {"name": format!("Author {}", i % 7), "born": 1900 + (i % 80) as i64},
                "blurb": null
            }));
        }
        let m = infer_mapping("books", &recs(Value::Array(rows)));
        assert_eq!(
            kinds(&m),
            [
                ("author.born".into(), FieldKind::Long),
                ("author.name".into(), FieldKind::Keyword),
                ("available".into(), FieldKind::Boolean),
                ("genre".into(), FieldKind::Keyword),
                ("isbn".into(), FieldKind::Text),
                ("pages".into(), FieldKind::Long),
                ("published".into(), FieldKind::Date),
                ("rating".into(), FieldKind::Double),
                ("tags".into(), FieldKind::Keyword),
                ("title".into(), FieldKind::Text),
            ]
        );
        assert_eq!(m.field("title").unwrap().keyword_subfield.as_deref(), Some("keyword"));
        assert_eq!(m.kind_of("title.keyword"), Some(FieldKind::Keyword));
        // ES shape round trip keeps the inferred mapping.
        assert_eq!(Mapping::from_es_json("books", &m.to_es_json()).unwrap(), m);
    }

    #[test]
    fn infers_sensor_readings_with_mixed_types_deterministically() {
        let rows = json!([
            {"sensor": "s-1", "reading": 3, "at": "2025-01-01T10:00:00Z", "code": 7, "flag": true},
            {"sensor": "s-2", "reading": 2.25, "at": "2025-01-01T10:05:00+01:00", "code": "E7", "flag": 1},
            {"sensor": "s-1", "reading": -1, "at": "2025-01-02", "note": "probe replaced after the storm damaged the housing", "code": ""},
        ]);
        let records = recs(rows);
        let m = infer_mapping("readings", &records);
        let expected = [
            ("at", FieldKind::Date),
            ("code", FieldKind::Keyword),
            ("flag", FieldKind::Keyword),
            ("note", FieldKind::Text),
            ("reading", FieldKind::Double),
            ("sensor", FieldKind::Keyword),
        ];
        assert_eq!(kinds(&m), expected.map(|(p, k)| (p.to_string(), k)));
        let mut reversed = records.clone();
        reversed.reverse();
        assert_eq!(infer_mapping("readings", &reversed), m, "order of records does not matter");
    }

    #[test]
    fn object_paths_win_over_scalars_and_empty_fields_are_left_out() {
        let m = infer_mapping("x", &recs(json!([{"a": 1, "e": null}, {"a": {"b": "x"}}, {"c": [{"d": 1}, {"d": 2.5}]}])));
        assert_eq!(kinds(&m), [("a.b".into(), FieldKind::Keyword), ("c.d".into(), FieldKind::Double)]);
    }
}
