//! ES query generation (F06), deterministic: the question is read with [`qa_question`]
//! (analysis, links to the index's fields and values, coverage) into the typed intermediate form
//! [`EsPlan`], which renders to the query DSL and says itself in plain language.
//!
//! Every content word of the question is either used by the plan (the coverage says what it
//! became) or the run stops with a clarifying question — nothing is dropped silently: a filter
//! or word the plan cannot place asks (with the closest fields by link score), or, under force
//! or after the user said "run it without …", runs with a first note naming what was ignored.
//! Free text is searched only when the question asks for it (mention, containing, about, notes
//! that …, a quoted literal). A phrase that could mean several things (a value of two fields, a
//! date with several date fields) asks too, or under force takes the best guess, which the
//! answer names.
//!
//! Modules: `read` (the reader's state and helpers), `conditions` (numbers, dates, values,
//! flags, text), `shape` (counts, groups, metrics, rankings, ordering, projection), `account`
//! (the words that relate the others, and what is left).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use qa_question::{Coverage, ValueLookup};

use crate::lookup::Metadata;
use crate::semantic::Semantic;
use crate::{Ambiguity, Endpoint, Intent, Mapping};

mod account;
mod conditions;
mod dates;
mod rank;
mod read;
mod shape;
mod show;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_records;
#[cfg(test)]
mod tests_intake;
#[cfg(test)]
mod tests_loans;

/// A filter of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Filter {
    /// The field has one of the values (none of them when negated).
    Terms {
        /// Exact field path.
        field: String,
        /// Values (strings, numbers or booleans as stored).
        values: Vec<Value>,
        /// None of the values.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        negated: bool,
    },
    /// The field lies in a range (`gte`/`lte`/`gt`/`lt`, dates as `yyyy-MM-dd`).
    Range {
        /// Field path.
        field: String,
        /// Bounds by operator.
        bounds: BTreeMap<String, Value>,
        /// Outside the range.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        negated: bool,
    },
    /// The field lies in one of several ranges (a month of every year).
    AnyRange {
        /// Field path.
        field: String,
        /// The ranges.
        ranges: Vec<BTreeMap<String, Value>>,
    },
    /// One of several conditions ("8 cylinders or produced before 1980").
    Any {
        /// The conditions.
        any: Vec<Filter>,
    },
    /// Text the documents must contain, asked for explicitly ("mentioning X").
    Text {
        /// Text fields searched.
        fields: Vec<String>,
        /// The words.
        text: String,
        /// The words in this order, next to each other.
        phrase: bool,
    },
    /// The field has a value (none, when negated: "reviews with no cleanliness score").
    Exists {
        /// Field path.
        field: String,
        /// The field is missing.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        negated: bool,
    },
}

/// How the buckets of a terms grouping are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BucketOrder {
    /// Most documents first (Elasticsearch's default).
    CountDesc,
    /// Fewest documents first.
    CountAsc,
    /// Highest metric first.
    MetricDesc,
    /// Lowest metric first.
    MetricAsc,
    /// By the group's value, ascending.
    KeyAsc,
    /// By the group's value, descending.
    KeyDesc,
}

/// How results are grouped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Group {
    /// Buckets per value of a field.
    Terms {
        /// Exact field path.
        field: String,
        /// Buckets.
        size: usize,
        /// Bucket order.
        order: BucketOrder,
        /// Only groups with at least this many documents.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_count: Option<u64>,
    },
    /// Buckets per calendar interval of a date field.
    Calendar {
        /// Date field.
        field: String,
        /// `day`, `week`, `month`, `quarter` or `year`.
        interval: String,
    },
}

impl Group {
    /// The field grouped by.
    pub fn field(&self) -> &str {
        match self {
            Group::Terms { field, .. } | Group::Calendar { field, .. } => field,
        }
    }
}

/// The intermediate form of a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EsPlan {
    /// What is asked for.
    pub intent: Intent,
    /// Filters, all must hold.
    pub filters: Vec<Filter>,
    /// Groupings, outermost first.
    pub groups: Vec<Group>,
    /// `(avg|sum|min|max|cardinality, field)`.
    pub metric: Option<(String, String)>,
    /// More metrics asked together ("the average and maximum capacity").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_metrics: Vec<(String, String)>,
    /// Hits sorted by `(field, descending)`.
    pub sort: Option<(String, bool)>,
    /// Hits asked for ("the 5 deepest"): the page holds at most this many.
    pub size: Option<usize>,
    /// Fields shown ("the id and title of …"); all when empty.
    pub source: Vec<String>,
    /// Guesses made, words ignored, and other notes for the answer (what was ignored first).
    pub notes: Vec<String>,
    /// What each word of the question became, and the words not used.
    pub coverage: Coverage,
    /// People kept in two name fields, grouped by both: what is read off the pairs once the
    /// response is back (see [`EsPlan::settle_pairs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<Pairs>,
}

/// What a grouping by a person's two name fields answers, computed over the returned pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pairs {
    /// The `n` people with the most (or fewest) documents, or the highest (lowest) metric; ties
    /// at the cut-off are kept.
    Rank {
        /// How many people.
        n: usize,
        /// Most (or highest) first.
        desc: bool,
        /// Ranked by the metric, not the document count.
        by_metric: bool,
    },
    /// How many different people.
    Count,
}

/// Choices made by the user for earlier ambiguities: ambiguity key → choice (a field path, or
/// the "run it without …" option).
pub type Choices = BTreeMap<String, String>;

/// The key of the date-field choice.
pub const DATE_CHOICE: &str = "date";

/// The start of the option that runs a query without the words it could not place.
pub const RUN_WITHOUT: &str = "run it without";

/// What the plan reads besides the question.
pub struct PlanInput<'a> {
    /// The index's fields.
    pub mapping: &'a Mapping,
    /// What was sampled.
    pub meta: &'a Metadata,
    /// The semantic file.
    pub semantic: &'a Semantic,
    /// Earlier answers to clarifying questions.
    pub choices: &'a Choices,
    /// Take the best guess instead of asking.
    pub force: bool,
    /// "Today", for relative dates.
    pub today: chrono::NaiveDate,
    /// Values sampled per field (a shorter list is complete).
    pub sample_size: usize,
    /// Bucket cap.
    pub max_buckets: usize,
}

/// A plan, and how the question was read (for the trace and the LLM prompt).
#[derive(Debug, Clone)]
pub struct Planned {
    /// The plan.
    pub plan: EsPlan,
    /// The question's mentions: words, what they name, how, score.
    pub reading: Value,
}

/// Read `question` and build the plan; an ambiguity (or a part of the question that matches
/// nothing) that neither the choices nor force settles is returned as the clarifying question.
pub fn build(question: &str, input: &PlanInput, lookup: Option<&mut dyn ValueLookup>) -> Result<Planned, (Ambiguity, Value, Intent)> {
    let schema = crate::lookup::source_schema(input.mapping, input.meta, input.semantic, input.choices, input.sample_size);
    let mut r = read::Reader::new(question, input, &schema, lookup);
    let outcome = r.conditions().and_then(|_| r.shape()).and_then(|_| r.account());
    let reading = r.reading();
    match outcome {
        Ok(()) => Ok(Planned { plan: r.finish(), reading }),
        Err(a) => Err((a, reading, r.intent())),
    }
}

fn scalar_text(v: &Value) -> String {
    v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())
}

fn range_clause(field: &str, bounds: &BTreeMap<String, Value>) -> Value {
    let mut m = Map::new();
    m.insert(field.to_string(), json!(bounds));
    json!({"range": m})
}

fn one(key: &str, field: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(field.to_string(), v);
    let mut o = Map::new();
    o.insert(key.to_string(), Value::Object(m));
    Value::Object(o)
}

impl EsPlan {
    /// The query clause of the filters.
    fn query(&self) -> Value {
        let mut filter: Vec<Value> = Vec::new();
        let mut must: Vec<Value> = Vec::new();
        let mut must_not: Vec<Value> = Vec::new();
        for f in &self.filters {
            let (c, negated) = clause(f);
            match (f, negated) {
                (_, true) => must_not.push(c),
                (Filter::Text { .. }, false) => must.push(c),
                _ => filter.push(c),
            }
        }
        let mut b = Map::new();
        for (k, v) in [("must", must), ("filter", filter), ("must_not", must_not)] {
            if !v.is_empty() {
                b.insert(k.into(), Value::Array(v));
            }
        }
        if b.is_empty() { json!({"match_all": {}}) } else { json!({"bool": b}) }
    }

    /// The plan as a request body (always `_search`): hits for searches, `size: 0` with the
    /// total for counts, aggregations for groupings and metrics.
    pub fn render(&self, offset: usize, page_size: usize) -> (Endpoint, Value) {
        let mut body = json!({"query": self.query()});
        let mut metric_aggs = Map::new();
        for (i, (op, field)) in self.metric.iter().chain(self.more_metrics.iter()).enumerate() {
            metric_aggs.insert(if i == 0 { "metric".into() } else { format!("metric{}", i + 1) }, one(op, "field", json!(field)));
        }
        let metric_agg = (!metric_aggs.is_empty()).then_some(Value::Object(metric_aggs));
        if !self.groups.is_empty() {
            let mut inner: Option<Value> = metric_agg;
            for (i, g) in self.groups.iter().enumerate().rev() {
                let mut agg = match g {
                    Group::Terms { field, size, order, min_count } => {
                        let mut t = json!({"field": field, "size": size});
                        if let Some(n) = min_count {
                            t["min_doc_count"] = json!(n);
                        }
                        match order {
                            BucketOrder::CountDesc => {}
                            BucketOrder::CountAsc => t["order"] = json!({"_count": "asc"}),
                            BucketOrder::MetricDesc if self.metric.is_some() => t["order"] = json!({"metric": "desc"}),
                            BucketOrder::MetricAsc if self.metric.is_some() => t["order"] = json!({"metric": "asc"}),
                            BucketOrder::KeyAsc => t["order"] = json!({"_key": "asc"}),
                            BucketOrder::KeyDesc => t["order"] = json!({"_key": "desc"}),
                            _ => {}
                        }
                        json!({"terms": t})
                    }
                    // Buckets labelled at their grain ("2025-03" for a month), as a reader
                    // writes them.
                    Group::Calendar { field, interval } => {
                        let mut h = json!({"field": field, "calendar_interval": interval});
                        let format = match interval.as_str() {
                            "month" | "1M" => Some("yyyy-MM"),
                            "year" | "1y" => Some("yyyy"),
                            "day" | "1d" | "week" | "1w" => Some("yyyy-MM-dd"),
                            _ => None,
                        };
                        if let Some(f) = format {
                            h["format"] = json!(f);
                        }
                        json!({"date_histogram": h})
                    }
                };
                if let Some(sub) = inner.take() {
                    agg["aggs"] = sub;
                }
                let name = if i == 0 { "group".to_string() } else { format!("group{i}") };
                inner = Some(one_obj(&name, agg));
            }
            body["aggs"] = inner.unwrap_or_default();
            body["size"] = json!(0);
        } else if let Some(m) = metric_agg {
            body["aggs"] = m;
            body["size"] = json!(0);
        } else if self.intent == Intent::Count {
            body["size"] = json!(0);
        } else {
            body["size"] = json!(self.size.map_or(page_size, |n| n.min(page_size.max(1))));
            if let Some((field, desc)) = &self.sort {
                body["sort"] = json!([one_obj(field, json!({"order": if *desc { "desc" } else { "asc" }}))]);
            }
            if !self.source.is_empty() {
                body["_source"] = json!(self.source);
            }
            if offset > 0 {
                body["from"] = json!(offset);
            }
        }
        (Endpoint::Search, body)
    }

    /// Read the answer off the person pairs of a two-level grouping (first name, then last
    /// name): the ranked pairs as a two-level aggregation of one pair per outer bucket, or the
    /// number of pairs as a metric. Every value must have been returned (the groups' sizes are
    /// the bucket cap), which `incomplete` reports otherwise.
    pub fn settle_pairs(&self, aggs: &mut Value) -> Option<String> {
        let pairs = self.pairs?;
        let mut rows: Vec<(Value, Value, u64, Option<f64>, Value)> = Vec::new();
        let outer = aggs.get("group")?.get("buckets")?.as_array()?.clone();
        let cap = self.groups.first().map_or(0, |g| match g {
            Group::Terms { size, .. } => *size,
            Group::Calendar { .. } => 0,
        });
        let mut incomplete = outer.len() >= cap && cap > 0;
        for b in &outer {
            let inner = b.get("group1").and_then(|g| g.get("buckets")).and_then(Value::as_array).cloned().unwrap_or_default();
            incomplete |= inner.len() >= cap && cap > 0;
            for c in inner {
                let count = c.get("doc_count").and_then(Value::as_u64).unwrap_or(0);
                let metric = c.get("metric").and_then(|m| m.get("value")).and_then(Value::as_f64);
                rows.push((b.get("key").cloned().unwrap_or(Value::Null), c.get("key").cloned().unwrap_or(Value::Null), count, metric, c));
            }
        }
        match pairs {
            Pairs::Count => {
                *aggs = json!({"metric": {"value": rows.len()}});
            }
            Pairs::Rank { n, desc, by_metric } => {
                let score = |r: &(Value, Value, u64, Option<f64>, Value)| if by_metric { r.3.unwrap_or(f64::NAN) } else { r.2 as f64 };
                rows.retain(|r| !score(r).is_nan());
                rows.sort_by(|a, b| if desc { score(b).total_cmp(&score(a)) } else { score(a).total_cmp(&score(b)) });
                let n = n.max(1);
                if rows.len() > n {
                    let cut = score(&rows[n - 1]);
                    let mut keep = n;
                    while keep < rows.len() && score(&rows[keep]) == cut {
                        keep += 1;
                    }
                    rows.truncate(keep);
                }
                let buckets: Vec<Value> = rows.into_iter().map(|(first, _, count, _, inner)| json!({"key": first, "doc_count": count, "group1": {"buckets": [inner]}})).collect();
                *aggs = json!({"group": {"buckets": buckets}});
            }
        }
        incomplete.then(|| "some names may be missing: there were more than the bucket cap".to_string())
    }

    /// The plan in plain language.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self.filters.iter().map(filter_words).collect();
        let metric = self.metric.as_ref().map(|_| self.metric.iter().chain(self.more_metrics.iter()).map(|(op, f)| format!("{op} of {f}")).collect::<Vec<_>>().join(" and "));
        let what = match (self.groups.first(), &metric, self.intent) {
            (Some(g), m, _) => {
                let per: Vec<String> = self.groups.iter().map(|g| match g {
                    Group::Terms { field, .. } => field.clone(),
                    Group::Calendar { field, interval } => format!("{interval} of {field}"),
                }).collect();
                let top = match g {
                    Group::Terms { size, order, .. } if matches!(order, BucketOrder::MetricAsc | BucketOrder::MetricDesc | BucketOrder::CountAsc) || *size <= 5 && !matches!(order, BucketOrder::KeyAsc | BucketOrder::KeyDesc) => {
                        let by = match order {
                            BucketOrder::CountDesc => "most documents",
                            BucketOrder::CountAsc => "fewest documents",
                            BucketOrder::MetricDesc => "highest",
                            BucketOrder::MetricAsc => "lowest",
                            BucketOrder::KeyAsc | BucketOrder::KeyDesc => "value",
                        };
                        format!(" (top {size} by {by})")
                    }
                    _ => String::new(),
                };
                format!("{} per {}{top}", m.clone().unwrap_or_else(|| "documents".into()), per.join(" and "))
            }
            (None, Some(m), _) => m.clone(),
            (None, None, Intent::Count) => "the number of documents".to_string(),
            (None, None, _) => match (&self.sort, self.size) {
                (Some((f, desc)), Some(1)) => format!("the document with the {} {f}", if *desc { "highest" } else { "lowest" }),
                (Some((f, desc)), n) => format!("{} documents by {f} {}", n.map_or_else(String::new, |n| format!("the {n}")), if *desc { "descending" } else { "ascending" }).trim_start().to_string(),
                (None, Some(n)) => format!("{n} documents"),
                (None, None) => "documents".to_string(),
            },
        };
        let what = match self.pairs {
            Some(Pairs::Count) => "the number of different people (first and last name)".to_string(),
            Some(Pairs::Rank { n, desc, by_metric }) => format!(
                "{what}; the top {n} of the people (first and last name together) by {}, {} first",
                if by_metric { "the metric" } else { "documents" },
                if desc { "highest" } else { "lowest" }
            ),
            None => what,
        };
        if parts.is_empty() { format!("{what}, all documents") } else { format!("{what} where {}", parts.join(", ")) }
    }
}

/// One filter's clause, and whether it excludes.
fn clause(f: &Filter) -> (Value, bool) {
    match f {
        Filter::Terms { field, values, negated } => (if values.len() == 1 { one("term", field, values[0].clone()) } else { one("terms", field, Value::Array(values.clone())) }, *negated),
        Filter::Range { field, bounds, negated } => (range_clause(field, bounds), *negated),
        Filter::Exists { field, negated } => (json!({"exists": {"field": field}}), *negated),
        Filter::AnyRange { field, ranges } => {
            let any: Vec<Value> = ranges.iter().map(|b| range_clause(field, b)).collect();
            (json!({"bool": {"should": any, "minimum_should_match": 1}}), false)
        }
        Filter::Any { any } => {
            let subs: Vec<Value> = any
                .iter()
                .map(|x| match clause(x) {
                    (c, true) => json!({"bool": {"must_not": [c]}}),
                    (c, false) => c,
                })
                .collect();
            (json!({"bool": {"should": subs, "minimum_should_match": 1}}), false)
        }
        Filter::Text { fields, text, phrase } => (
            match (fields.as_slice(), phrase) {
                ([f], false) => one("match", f, json!({"query": text, "operator": "and"})),
                ([f], true) => one("match_phrase", f, json!(text)),
                (_, false) => json!({"multi_match": {"query": text, "fields": fields, "operator": "and"}}),
                (_, true) => json!({"multi_match": {"query": text, "fields": fields, "type": "phrase"}}),
            },
            false,
        ),
    }
}

/// One filter in plain language.
fn filter_words(f: &Filter) -> String {
    match f {
        Filter::Terms { field, values, negated } => {
            let vs = values.iter().map(|v| format!("\"{}\"", scalar_text(v))).collect::<Vec<_>>().join(" or ");
            format!("{field} is {}{vs}", if *negated { "not " } else { "" })
        }
        Filter::Range { field, bounds, negated } => {
            let b: Vec<String> = bounds.iter().map(|(op, v)| format!("{} {}", if v.is_string() { date_words(op) } else { op_words(op) }, scalar_text(v))).collect();
            format!("{field} {}{}", if *negated { "not " } else { "" }, b.join(" and "))
        }
        Filter::AnyRange { field, ranges } => {
            let first = ranges.first().and_then(|b| b.get("gte")).map(scalar_text).unwrap_or_default();
            if ranges.len() > 2 { format!("{field} in the month of {first} in any of {} years", ranges.len()) } else { format!("{field} in one of {} ranges from {first}", ranges.len()) }
        }
        Filter::Any { any } => format!("({})", any.iter().map(filter_words).collect::<Vec<_>>().join(" or ")),
        Filter::Text { fields, text, .. } => format!("{} matches \"{text}\"", if fields.len() == 1 { fields[0].clone() } else { "text".into() }),
        Filter::Exists { field, negated } => format!("{field} {}", if *negated { "is missing" } else { "is present" }),
    }
}

fn one_obj(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.to_string(), v);
    Value::Object(m)
}

fn date_words(op: &str) -> &'static str {
    match op {
        "gte" => "from",
        "lte" => "to",
        "gt" => "after",
        "lt" => "before",
        _ => "",
    }
}

pub(crate) fn op_words(op: &str) -> &'static str {
    match op {
        "gte" => "from",
        "lte" => "to",
        "gt" => "over",
        "lt" => "under",
        _ => "",
    }
}
