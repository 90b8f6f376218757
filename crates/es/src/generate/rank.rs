//! Ranking ES candidates, and describing a body in plain language.
//!
//! A body is read into its parts ([`parts`]): exact values per field, free text, ranges,
//! groupings and metrics. A valid candidate then scores by agreement with the deterministic plan
//! (which holds the lookup's field/value mappings after clarification: each value filter it
//! keeps, each range, the grouping, the metric, the intent), plus exact values beyond the plan's
//! that the question states (an exact filter beats the same word as free text), minus values a
//! field cannot hold (its sampled values are complete and lack them) and values that come from
//! nowhere. A refused candidate scores far below any valid one.

use std::collections::HashSet;

use serde_json::{Map, Value};

use qa_core::text;

use super::GenerateInput;
use crate::guard::Verdict;
use crate::plan::Filter;
use crate::Intent;

/// What a body asks for.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BodyParts {
    /// `(field, value)` of `term` / `terms` clauses.
    pub exact: Vec<(String, String)>,
    /// `(field, text)` of `match`-like clauses (`*` for `multi_match`).
    pub text: Vec<(String, String)>,
    /// `(field, bounds)` of `range` clauses.
    pub ranges: Vec<(String, Map<String, Value>)>,
    /// Fields grouped by (`terms`, `date_histogram`, `histogram`).
    pub groups: Vec<String>,
    /// `(op, field)` of metric aggregations.
    pub metrics: Vec<(String, String)>,
}

/// The parts of `body` (its query, `post_filter` and aggregations; `must_not` clauses are left
/// out: they exclude rather than ask).
pub fn parts(body: &Value) -> BodyParts {
    let mut p = BodyParts::default();
    for key in ["query", "post_filter"] {
        if let Some(q) = body.get(key) {
            query_parts(q, &mut p);
        }
    }
    if let Some(a) = body.get("aggs").or_else(|| body.get("aggregations")) {
        agg_parts(a, &mut p);
    }
    p
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        _ => None,
    }
}

fn each(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(a) => a.iter().collect(),
        one => vec![one],
    }
}

fn query_parts(q: &Value, p: &mut BodyParts) {
    let Some(o) = q.as_object() else { return };
    for (clause, spec) in o {
        match clause.as_str() {
            "bool" => {
                for k in ["must", "filter", "should"] {
                    for sub in spec.get(k).map(each).unwrap_or_default() {
                        query_parts(sub, p);
                    }
                }
            }
            "constant_score" => spec.get("filter").into_iter().for_each(|f| query_parts(f, p)),
            "dis_max" => spec.get("queries").map(each).unwrap_or_default().into_iter().for_each(|x| query_parts(x, p)),
            "nested" | "boosting" => spec.get("query").or_else(|| spec.get("positive")).into_iter().for_each(|x| query_parts(x, p)),
            "term" | "terms" => {
                for (field, v) in spec.as_object().into_iter().flatten().filter(|(k, _)| *k != "boost") {
                    let values: Vec<&Value> = match v {
                        Value::Object(inner) => inner.get("value").into_iter().collect(),
                        other => each(other),
                    };
                    p.exact.extend(values.into_iter().filter_map(scalar).map(|x| (field.clone(), x)));
                }
            }
            "match" | "match_phrase" | "match_phrase_prefix" | "match_bool_prefix" => {
                for (field, v) in spec.as_object().into_iter().flatten() {
                    if let Some(t) = scalar(v.get("query").unwrap_or(v)) {
                        p.text.push((field.clone(), t));
                    }
                }
            }
            "multi_match" => {
                if let Some(t) = spec.get("query").and_then(scalar) {
                    p.text.push(("*".into(), t));
                }
            }
            "range" => {
                for (field, bounds) in spec.as_object().into_iter().flatten() {
                    p.ranges.push((field.clone(), bounds.as_object().cloned().unwrap_or_default()));
                }
            }
            _ => {}
        }
    }
}

fn agg_parts(aggs: &Value, p: &mut BodyParts) {
    for def in aggs.as_object().into_iter().flatten().map(|(_, d)| d) {
        for (kind, spec) in def.as_object().into_iter().flatten() {
            let field = spec.get("field").and_then(Value::as_str).map(str::to_string);
            match (kind.as_str(), field) {
                ("aggs" | "aggregations", _) => agg_parts(spec, p),
                ("terms" | "date_histogram" | "histogram", Some(f)) => p.groups.push(f),
                ("avg" | "sum" | "min" | "max" | "value_count" | "cardinality" | "stats", Some(f)) => p.metrics.push((kind.clone(), f)),
                _ => {}
            }
        }
    }
}

/// What a body asks for, by its shape: aggregations, a count (`size: 0`), or hits.
pub fn intent_of(body: &Value) -> Intent {
    if body.get("aggs").or_else(|| body.get("aggregations")).is_some_and(|a| a.as_object().is_some_and(|o| !o.is_empty())) {
        Intent::Aggregation
    } else if body.get("size").and_then(Value::as_u64) == Some(0) {
        Intent::Count
    } else {
        Intent::Search
    }
}

/// Whether a value is known to a field.
enum Known {
    /// Among the field's sampled values.
    Sampled,
    /// The sample holds every value of the field, and not this one: it matches nothing.
    Absent,
    /// No sample says either way.
    Unknown,
}

/// What ranking compares candidates with.
pub(crate) struct Context<'a> {
    input: &'a GenerateInput<'a>,
    words: Vec<String>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(input: &'a GenerateInput<'a>) -> Context<'a> {
        Context { input, words: text::normalized_words(input.question) }
    }

    /// The field a path belongs to (`name.keyword` → `name`), for comparing paths.
    fn base(&self, path: &str) -> String {
        self.input.mapping.field(path).map_or_else(|| path.to_string(), |f| f.path.clone())
    }

    fn same(&self, a: &str, b: &str) -> bool {
        self.base(a) == self.base(b)
    }

    fn known(&self, field: &str, value: &str) -> Known {
        let sample = self.input.mapping.field(field).and_then(|f| f.exact_path()).and_then(|p| self.input.meta.values.get(&p));
        match sample {
            Some(vals) if vals.iter().any(|(v, _)| v == value) => Known::Sampled,
            Some(vals) if vals.len() < self.input.sample_size => Known::Absent,
            _ => Known::Unknown,
        }
    }

    fn in_question(&self, value: &str) -> bool {
        let vw = text::normalized_words(value);
        !vw.is_empty() && self.words.windows(vw.len()).any(|w| w == vw.as_slice())
    }

    /// The rank score of a candidate (see the module documentation).
    pub(crate) fn score(&self, body: &Value, verdict: &Verdict) -> f64 {
        if !verdict.accepted {
            return -100.0 - verdict.reasons.len() as f64;
        }
        let p = parts(body);
        let plan = self.input.plan;
        let mut s = 10.0;
        let mut planned: Vec<(String, String)> = Vec::new();
        for f in &plan.filters {
            match f {
                Filter::Terms { field, values, negated: false } => {
                    let want: Vec<String> = values.iter().filter_map(scalar).collect();
                    let kept = p.exact.iter().any(|(pf, v)| self.same(pf, field) && want.iter().any(|x| x == v));
                    s += if kept { 2.0 } else { -2.0 };
                    planned.extend(want.into_iter().map(|v| (self.base(field), v)));
                }
                Filter::Terms { .. } => {}
                Filter::Range { field, negated: false, .. } | Filter::AnyRange { field, .. } => s += if p.ranges.iter().any(|(pf, _)| self.same(pf, field)) { 1.0 } else { -1.0 },
                Filter::Range { .. } | Filter::Any { .. } | Filter::Exists { .. } => {}
                Filter::Text { text, .. } => {
                    let words = text::normalized_words(text);
                    s += if p.text.iter().any(|(_, t)| words.iter().all(|w| text::normalized_words(t).contains(w))) { 1.0 } else { -1.0 };
                }
            }
        }
        for g in &plan.groups {
            s += if p.groups.iter().any(|x| self.same(x, g.field())) { 1.0 } else { -1.0 };
        }
        if let Some((op, field)) = &plan.metric {
            s += if p.metrics.iter().any(|(o, f)| o == op && self.same(f, field)) { 1.0 } else { -1.0 };
        }
        s += if intent_of(body) == plan.intent { 2.0 } else { -2.0 };
        for (field, value) in &p.exact {
            if planned.contains(&(self.base(field), value.clone())) {
                continue;
            }
            s += match (self.known(field, value), self.in_question(value)) {
                (Known::Absent, _) => -3.0,
                (_, true) => 1.5,
                (Known::Sampled, false) => 0.0,
                (Known::Unknown, false) => -1.0,
            };
        }
        let text_words: HashSet<String> = p.text.iter().flat_map(|(_, t)| text::normalized_words(t)).filter(|w| self.words.contains(w)).collect();
        s += 0.5 * text_words.len() as f64;
        // Shorter wins among equals.
        s - body.to_string().len() as f64 / 10_000.0
    }
}

/// A body in plain language ("documents per carrier where status is "delayed"").
pub fn describe(body: &Value) -> String {
    let p = parts(body);
    let mut conds: Vec<String> = Vec::new();
    for (f, v) in &p.exact {
        conds.push(format!("{f} is \"{v}\""));
    }
    for (f, bounds) in &p.ranges {
        let b: Vec<String> = bounds.iter().filter(|(op, _)| !crate::plan::op_words(op).is_empty()).map(|(op, v)| format!("{} {}", crate::plan::op_words(op), scalar(v).unwrap_or_default())).collect();
        conds.push(format!("{f} {}", b.join(" and ")));
    }
    for (f, t) in &p.text {
        conds.push(if f == "*" { format!("text matches \"{t}\"") } else { format!("{f} matches \"{t}\"") });
    }
    let metric = p.metrics.first().map(|(op, f)| format!("{op} of {f}"));
    let what = match (p.groups.first(), metric, intent_of(body)) {
        (Some(g), m, _) => format!("{} per {g}", m.unwrap_or_else(|| "documents".into())),
        (None, Some(m), _) => m,
        (None, None, Intent::Count) => "the number of documents".into(),
        (None, None, _) => "documents".into(),
    };
    if conds.is_empty() { format!("{what}, all documents") } else { format!("{what} where {}", conds.join(", ")) }
}
