//! Aggregations: only the allow-listed bucket and metric aggregations, nested at most
//! [`MAX_AGG_DEPTH`] levels, on known fields of a fitting kind, with bucket sizes capped.

use serde_json::{Map, Value, json};

use super::fields::{Use, interval_ms, parse_date_ms};
use super::query::is_scalar;
use super::{Checker, join};
use crate::FieldKind;

/// The aggregations a body may use.
pub const ALLOWED_AGGS: &[&str] = &[
    "terms",
    "date_histogram",
    "histogram",
    "range",
    "date_range",
    "filter",
    "filters",
    "avg",
    "sum",
    "min",
    "max",
    "value_count",
    "cardinality",
    "stats",
    "top_hits",
];

/// Deepest nesting of aggregations (an aggregation, its sub-aggregation, and one more).
pub const MAX_AGG_DEPTH: usize = 3;

/// Most aggregations one body may hold, all levels together.
pub const MAX_AGGS: usize = 64;

/// Largest `from + size` of a `top_hits` aggregation (Elasticsearch's
/// `index.max_inner_result_window` default); its `size` is also capped at
/// [`crate::EsLimits::max_buckets`].
pub const TOP_HITS_WINDOW: usize = 100;

const METRICS: &[&str] = &["avg", "sum", "min", "max", "value_count", "cardinality", "stats", "top_hits"];
const TERMS: &[&str] = &[
    "field",
    "size",
    "shard_size",
    "order",
    "min_doc_count",
    "shard_min_doc_count",
    "missing",
    "include",
    "exclude",
    "show_term_doc_count_error",
    "execution_hint",
    "collect_mode",
    "format",
];
const HISTOGRAM: &[&str] = &["field", "interval", "min_doc_count", "extended_bounds", "hard_bounds", "offset", "order", "keyed", "missing", "format"];
const DATE_HISTOGRAM: &[&str] = &[
    "field",
    "calendar_interval",
    "fixed_interval",
    "interval",
    "format",
    "time_zone",
    "min_doc_count",
    "extended_bounds",
    "hard_bounds",
    "offset",
    "order",
    "keyed",
    "missing",
];
const RANGE: &[&str] = &["field", "ranges", "keyed", "missing", "format", "time_zone"];

impl Checker<'_> {
    /// An `aggs` object: `{"<name>": {<type>: {…}, "aggs": {…}}}` at nesting level `depth` (1 at
    /// the top).
    pub(super) fn aggs(&mut self, at: &str, v: &mut Value, depth: usize) {
        if depth > MAX_AGG_DEPTH {
            self.refuse(at, format!("aggregations nest at most {MAX_AGG_DEPTH} levels deep"));
            return;
        }
        let Some(obj) = v.as_object_mut() else {
            self.refuse(at, "expected an object of named aggregations");
            return;
        };
        for (name, agg) in obj.iter_mut() {
            let here = join(at, name);
            if name.is_empty() || name.contains(['[', ']', '>']) {
                self.refuse(&here, "an aggregation name must be non-empty, without [, ] or >");
            }
            self.agg_count += 1;
            if self.agg_count == MAX_AGGS + 1 {
                self.refuse(at, format!("more than {MAX_AGGS} aggregations"));
            }
            self.agg(&here, agg, depth);
        }
    }

    fn agg(&mut self, at: &str, agg: &mut Value, depth: usize) {
        let Some(obj) = agg.as_object_mut() else {
            self.refuse(at, "an aggregation must be an object");
            return;
        };
        let sub_key = match (obj.contains_key("aggs"), obj.contains_key("aggregations")) {
            (true, true) => {
                self.refuse(at, "use either \"aggs\" or \"aggregations\", not both");
                return;
            }
            (true, false) => Some("aggs"),
            (false, true) => Some("aggregations"),
            (false, false) => None,
        };
        let types: Vec<String> = obj.keys().filter(|k| !matches!(k.as_str(), "aggs" | "aggregations")).cloned().collect();
        if types.len() != 1 {
            self.refuse(at, format!("an aggregation has exactly one type, found {} ({})", types.len(), types.join(", ")));
        }
        let sub_names: Vec<String> =
            sub_key.and_then(|k| obj.get(k)).and_then(Value::as_object).map(|o| o.keys().cloned().collect()).unwrap_or_default();
        for t in &types {
            let here = join(at, t);
            let Some(body) = obj.get_mut(t) else { continue };
            self.agg_type(&here, t, body, &sub_names);
        }
        if let Some(k) = sub_key {
            if types.iter().any(|t| METRICS.contains(&t.as_str())) {
                self.refuse(at, format!("{} is a metric aggregation and cannot have sub-aggregations", types.join(", ")));
            } else if let Some(sub) = obj.get_mut(k) {
                self.aggs(&join(at, k), sub, depth + 1);
            }
        }
    }

    fn agg_type(&mut self, at: &str, t: &str, body: &mut Value, sub_names: &[String]) {
        match t {
            "terms" => self.terms_agg(at, body, sub_names),
            "histogram" => self.histogram(at, body, false, sub_names),
            "date_histogram" => self.histogram(at, body, true, sub_names),
            "range" | "date_range" => self.range_agg(at, body, t == "date_range"),
            "filter" => self.query(at, body),
            "filters" => self.filters(at, body),
            "avg" | "sum" | "min" | "max" | "stats" => {
                if let Some(kind) = self.metric(at, body, &["field", "missing", "format"])
                    && !matches!(kind, FieldKind::Long | FieldKind::Double | FieldKind::Date | FieldKind::Boolean)
                {
                    self.refuse(at, format!("{t} needs a numeric or date field, not {}", kind.es_type()));
                }
            }
            "value_count" => {
                self.metric(at, body, &["field", "missing"]);
            }
            "cardinality" => {
                self.metric(at, body, &["field", "missing", "precision_threshold"]);
            }
            "top_hits" => self.top_hits(at, body),
            other => self.unknown(at, other, "aggregation", ALLOWED_AGGS),
        }
    }

    /// A metric aggregation's parameters; the kind of its (required) field.
    fn metric(&mut self, at: &str, body: &Value, params: &[&str]) -> Option<FieldKind> {
        let p = self.object_params(at, body, params)?;
        self.scalars_except(at, p, &[]);
        self.agg_field(at, p, Use::Aggregate)
    }

    /// The required `field` of an aggregation.
    fn agg_field(&mut self, at: &str, p: &Map<String, Value>, usage: Use) -> Option<FieldKind> {
        match p.get("field") {
            Some(f) => self.field_value(&join(at, "field"), f, Some(usage)),
            None => {
                self.refuse(at, "missing \"field\" (scripts are not allowed in its place)");
                None
            }
        }
    }

    fn terms_agg(&mut self, at: &str, body: &mut Value, sub_names: &[String]) {
        let Some(p) = self.object_params(at, body, TERMS) else { return };
        self.scalars_except(at, p, &["order", "include", "exclude"]);
        self.agg_field(at, p, Use::Aggregate);
        self.order(at, p.get("order"), sub_names, &["_count", "_key"]);
        for k in ["include", "exclude"] {
            match p.get(k) {
                None | Some(Value::String(_)) => {}
                Some(Value::Array(vs)) if vs.iter().all(|v| is_scalar(v) && !v.is_null()) => {}
                Some(Value::Object(o))
                    if k == "include" && o.len() == 2 && o.get("partition").is_some_and(Value::is_u64) && o.get("num_partitions").is_some_and(Value::is_u64) => {}
                Some(_) => self.refuse(&join(at, k), "expected a pattern, an array of values or {partition, num_partitions}"),
            }
        }
        let cap = self.limits.max_buckets;
        if let Some(p) = body.as_object_mut() {
            self.cap_size(at, p, "size", cap, "max_buckets");
            self.cap_size(at, p, "shard_size", cap, "max_buckets");
        }
    }

    /// `order`: `{"<key>": "asc"|"desc"}` or an array of those; a key is one of `builtin` or a
    /// sub-aggregation (`avg_price`, `stats.max`).
    fn order(&mut self, at: &str, order: Option<&Value>, sub_names: &[String], builtin: &[&str]) {
        let Some(order) = order else { return };
        let here = join(at, "order");
        let entries: Vec<&Value> = match order {
            Value::Array(a) => a.iter().collect(),
            one => vec![one],
        };
        for e in entries {
            let Some(o) = e.as_object().filter(|o| o.len() == 1) else {
                self.refuse(&here, "expected {\"<key>\": \"asc\"|\"desc\"}");
                continue;
            };
            for (key, dir) in o {
                if !matches!(dir.as_str(), Some("asc" | "desc")) {
                    self.refuse(&here, format!("order of {key:?} must be \"asc\" or \"desc\""));
                }
                let head = key.split(['.', '>', '[']).next().unwrap_or(key);
                if !builtin.contains(&key.as_str()) && !sub_names.iter().any(|s| s == head) {
                    self.refuse(&here, format!("cannot order by {key:?}: not one of {} or a sub-aggregation", builtin.join(", ")));
                }
            }
        }
    }

    fn histogram(&mut self, at: &str, body: &mut Value, dates: bool, sub_names: &[String]) {
        let Some(p) = self.object_params(at, body, if dates { DATE_HISTOGRAM } else { HISTOGRAM }) else { return };
        self.scalars_except(at, p, &["order", "extended_bounds", "hard_bounds"]);
        let kind = self.agg_field(at, p, Use::Aggregate);
        match (kind, dates) {
            (Some(FieldKind::Date), true) | (Some(FieldKind::Long | FieldKind::Double), false) | (None, _) => {}
            (Some(k), _) => {
                let need = if dates { "a date" } else { "a numeric" };
                self.refuse(at, format!("needs {need} field, not {}", k.es_type()));
            }
        }
        self.order(at, p.get("order"), sub_names, &["_count", "_key"]);
        let interval = if dates { self.date_interval(at, p) } else { self.number_interval(at, p) };
        for b in ["extended_bounds", "hard_bounds"] {
            let Some(bounds) = p.get(b) else { continue };
            let here = join(at, b);
            let parse = |v: Option<&Value>| -> Option<f64> {
                match v? {
                    Value::Number(n) => n.as_f64(),
                    Value::String(s) if dates => parse_date_ms(s).map(|ms| ms as f64),
                    _ => None,
                }
            };
            let Some(o) = bounds.as_object().filter(|o| o.keys().all(|k| k == "min" || k == "max")) else {
                self.refuse(&here, "expected {\"min\": …, \"max\": …}");
                continue;
            };
            let (min, max) = (parse(o.get("min")), parse(o.get("max")));
            let written = o.values().all(|v| is_scalar(v) && !v.is_null());
            if !written || (!dates && (min.is_none() || max.is_none())) {
                self.refuse(&here, "min and max must be numbers (dates for a date histogram)");
            }
            if let (Some(min), Some(max), Some(step)) = (min, max, interval) {
                let buckets = ((max - min) / step).floor() + 1.0;
                if buckets > self.limits.max_buckets as f64 {
                    self.refuse(&here, format!("would make {buckets:.0} buckets; at most {} (widen the interval)", self.limits.max_buckets));
                }
            }
        }
    }

    /// The step of a `date_histogram` in milliseconds (exactly one interval parameter).
    fn date_interval(&mut self, at: &str, p: &Map<String, Value>) -> Option<f64> {
        let given: Vec<&str> = ["calendar_interval", "fixed_interval", "interval"].into_iter().filter(|k| p.contains_key(*k)).collect();
        let [key] = given.as_slice() else {
            self.refuse(at, "give exactly one of calendar_interval or fixed_interval");
            return None;
        };
        let s = p.get(*key).and_then(Value::as_str).unwrap_or_default();
        let ms = match *key {
            "calendar_interval" => interval_ms(s, true),
            "fixed_interval" => interval_ms(s, false),
            _ => interval_ms(s, true).or_else(|| interval_ms(s, false)),
        };
        if ms.is_none() {
            self.refuse(&join(at, key), format!("{s:?} is not a valid interval (calendar: minute, hour, day, week, month, quarter, year; fixed: 30m, 12h, 7d …)"));
        }
        ms.map(|ms| ms as f64)
    }

    fn number_interval(&mut self, at: &str, p: &Map<String, Value>) -> Option<f64> {
        let step = p.get("interval").and_then(Value::as_f64).filter(|s| s.is_finite() && *s > 0.0);
        if step.is_none() {
            self.refuse(at, "\"interval\" must be a positive number");
        }
        step
    }

    fn range_agg(&mut self, at: &str, body: &Value, dates: bool) {
        let Some(p) = self.object_params(at, body, RANGE) else { return };
        self.scalars_except(at, p, &["ranges"]);
        let kind = self.agg_field(at, p, Use::Aggregate);
        let field = p.get("field").and_then(Value::as_str).unwrap_or_default();
        let kind = match (kind, dates) {
            (Some(FieldKind::Date), _) | (Some(FieldKind::Long | FieldKind::Double), false) => kind,
            (Some(k), _) => {
                self.refuse(at, format!("needs a {} field, not {}", if dates { "date" } else { "numeric or date" }, k.es_type()));
                None
            }
            (None, _) => None,
        };
        let Some(Value::Array(ranges)) = p.get("ranges").filter(|r| r.as_array().is_some_and(|a| !a.is_empty())) else {
            self.refuse(at, "\"ranges\" must be a non-empty array of {from, to, key}");
            return;
        };
        if ranges.len() > self.limits.max_buckets {
            self.refuse(at, format!("{} ranges; at most {}", ranges.len(), self.limits.max_buckets));
        }
        let free_format = p.contains_key("format") || self.has_format(field);
        for (i, r) in ranges.iter().enumerate() {
            let here = format!("{at}.ranges[{i}]");
            let Some(r) = self.object_params(&here, r, &["from", "to", "key"]) else { continue };
            if r.get("key").is_some_and(|k| !k.is_string()) {
                self.refuse(&here, "\"key\" must be a string");
            }
            for b in ["from", "to"] {
                if let (Some(v), Some(kind)) = (r.get(b), kind) {
                    self.bound(&join(&here, b), field, kind, v, free_format);
                }
            }
        }
    }

    fn filters(&mut self, at: &str, body: &Value) {
        let Some(p) = self.object_params(at, body, &["filters", "other_bucket", "other_bucket_key", "keyed"]) else { return };
        self.scalars_except(at, p, &["filters"]);
        let here = join(at, "filters");
        let named: Vec<(String, &Value)> = match p.get("filters") {
            Some(Value::Object(o)) => o.iter().map(|(k, v)| (join(&here, k), v)).collect(),
            Some(Value::Array(a)) => a.iter().enumerate().map(|(i, v)| (format!("{here}[{i}]"), v)).collect(),
            _ => {
                self.refuse(at, "\"filters\" must be an object or an array of queries");
                return;
            }
        };
        if named.len() > self.limits.max_buckets {
            self.refuse(at, format!("{} filters; at most {}", named.len(), self.limits.max_buckets));
        }
        for (path, q) in named {
            self.query(&path, q);
        }
    }

    fn top_hits(&mut self, at: &str, body: &mut Value) {
        let Some(p) = self.object_params(at, body, &["size", "from", "sort", "_source"]) else { return };
        self.scalars_except(at, p, &["sort", "_source"]);
        if let Some(s) = p.get("sort") {
            self.sort(&join(at, "sort"), s);
        }
        if let Some(s) = p.get("_source") {
            self.source(&join(at, "_source"), s);
        }
        let cap = self.limits.max_buckets.min(TOP_HITS_WINDOW);
        let Some(p) = body.as_object_mut() else { return };
        let size = self.cap_size(at, p, "size", cap, "top_hits").unwrap_or(3);
        let from = self.cap_size(at, p, "from", usize::MAX, "").unwrap_or(0);
        if from.saturating_add(size) > TOP_HITS_WINDOW {
            self.refuse(at, format!("top_hits from + size is {}; at most {TOP_HITS_WINDOW}", from.saturating_add(size)));
        }
    }

    /// A non-negative integer parameter, lowered to `cap` when larger (recorded as a change);
    /// its value as it will run.
    pub(super) fn cap_size(&mut self, at: &str, p: &mut Map<String, Value>, key: &str, cap: usize, cap_name: &str) -> Option<usize> {
        let v = p.get(key)?;
        let Some(n) = v.as_u64() else {
            self.refuse(&join(at, key), format!("must be a non-negative integer, not {v}"));
            return None;
        };
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n > cap {
            p.insert(key.to_string(), json!(cap));
            self.change(format!("{}: {n} capped to {cap} ({cap_name})", join(at, key)));
            return Some(cap);
        }
        Some(n)
    }
}
