//! The guard: every generated, pasted or resumed request body is checked against the mapping,
//! the allowed clauses and the caps before it reaches an engine. Only an accepted [`Verdict`]
//! yields a [`CheckedRequest`], and engines take nothing else.
//!
//! [`check_body`] judges a body for an endpoint, [`check_pasted`] reads pasted text first (a bare
//! JSON body, or one Kibana-console request such as `GET /idx/_search {…}` or `POST idx/_count`),
//! and [`checked`] / [`checked_pasted`] are the same for callers that just want to run.
//!
//! # Rules
//! - **Shape**: the body is a JSON object nested at most [`MAX_JSON_DEPTH`] levels and holding
//!   at most [`MAX_JSON_NODES`] values (checked without recursion, so hostile input cannot blow
//!   the stack). Pasted text is at most [`paste::MAX_PASTE_BYTES`].
//! - **Endpoints**: only `_search` and `_count`, with `GET` or `POST`, on the mapping's index
//!   (one concrete name: no lists, patterns or `_all`). Write, admin, SQL and script endpoints,
//!   other methods, query-string parameters that change the search (`q=`, `scroll=`) and
//!   several requests in one text are refused with the reason.
//! - **Top-level keys** of `_search`: [`SEARCH_KEYS`]; `_count` takes only `query`.
//! - **Query clauses**: [`query::ALLOWED_QUERIES`], each with its own parameters (scalars only,
//!   except where clauses nest). `terms` only in its array form (the lookup form reads another
//!   document, possibly of another index).
//! - **Refused with a specific reason** wherever they appear (see [`forbidden_reason`]):
//!   scripts (`script`, `_script` sort, `script_fields`, `runtime_mappings`, `scripted_metric`,
//!   `bucket_script`, `bucket_selector`, `script_score`, any `*_script` parameter),
//!   `function_score`, `more_like_this`, `percolate`, `has_child`/`has_parent`/`parent_id`,
//!   `query_string`/`simple_query_string` (field names hidden in text), `wrapper`, `pit`,
//!   `indices_boost`, `profile`, `explain`, `scroll`. Every other unknown key is refused as
//!   unknown.
//! - **Fields**: every field a request names (clauses, `sort`, aggregations, `_source`,
//!   `stored_fields`, `docvalue_fields`, `multi_match` fields with `^boost`) exists in the
//!   mapping (`name.keyword` multi-fields resolve); wildcard patterns match at least one field.
//!   Exact-value clauses, aggregations and sorting on a text field are refused with the keyword
//!   sub-field to use, or the advice to use `match`. Values and range bounds must fit the field
//!   (numbers for numbers; ISO dates, epoch milliseconds or date math for dates).
//! - **Aggregations**: [`aggs::ALLOWED_AGGS`], nested at most [`aggs::MAX_AGG_DEPTH`] levels, at
//!   most [`aggs::MAX_AGGS`] in all; metric aggregations have no sub-aggregations; histogram
//!   bounds may not make more than `max_buckets` buckets.
//!
//! # Caps (changes, recorded in [`Verdict::changes`], not refusals)
//! `size` above [`EsLimits::row_cap`] is lowered to it (a missing `size` is left to the
//! caller); `from + size` above [`EsLimits::max_window`] is refused ("use search_after");
//! `terms` `size`/`shard_size` above [`EsLimits::max_buckets`] are lowered, and `top_hits`
//! `size` to `max_buckets` or [`aggs::TOP_HITS_WINDOW`]; `_search` gets `timeout` set to
//! [`EsLimits::timeout_ms`] (a smaller one is kept) and `track_total_hits: true`. An accepted
//! body checked again is accepted without changes.

mod aggs;
pub(crate) mod fields;
mod paste;
mod query;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use std::fmt::Display;

use serde::Serialize;
use serde_json::{Map, Value, json};

pub use aggs::{ALLOWED_AGGS, MAX_AGG_DEPTH, MAX_AGGS, TOP_HITS_WINDOW};
pub use paste::MAX_PASTE_BYTES;
pub use query::{ALLOWED_QUERIES, MAX_TERMS};

use crate::{CheckedRequest, Endpoint, EsError, EsLimits, Mapping};
use fields::Use;
use query::is_scalar;

/// Deepest JSON nesting a body may have (objects and arrays).
pub const MAX_JSON_DEPTH: usize = 32;

/// Most JSON values (of any kind) a body may hold.
pub const MAX_JSON_NODES: usize = 100_000;

/// The top-level keys of a `_search` body.
pub const SEARCH_KEYS: &[&str] = &[
    "query",
    "size",
    "from",
    "sort",
    "_source",
    "aggs",
    "aggregations",
    "track_total_hits",
    "search_after",
    "timeout",
    "min_score",
    "post_filter",
    "stored_fields",
    "docvalue_fields",
];

/// The guard's judgement of one request (printed by `qa es check --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Whether the request may run.
    pub accepted: bool,
    /// The endpoint it runs on.
    pub endpoint: Endpoint,
    /// The index it runs on (the mapping's).
    pub index: String,
    /// Why it is refused (empty when accepted), one reason each, prefixed with where in the
    /// body (`query.bool.filter[0].term.x: …`).
    pub reasons: Vec<String>,
    /// What the guard changed (caps, the timeout, `track_total_hits`, dropped formatting
    /// parameters).
    pub changes: Vec<String>,
    /// The body as it would run (after the changes); `None` when refused.
    pub body: Option<Value>,
    /// The request itself, only when accepted: a [`Verdict`] cannot be built or edited into an
    /// accepted one outside the guard.
    #[serde(skip)]
    request: Option<CheckedRequest>,
}

impl Verdict {
    /// The request to run, when accepted.
    pub fn request(&self) -> Option<CheckedRequest> {
        self.request.clone()
    }

    /// The request to run, or [`EsError::Refused`] with the reasons.
    pub fn into_request(self) -> Result<CheckedRequest, EsError> {
        match self.request {
            Some(r) => Ok(r),
            None if self.reasons.is_empty() => Err(EsError::Refused(vec!["not accepted by the guard".into()])),
            None => Err(EsError::Refused(self.reasons)),
        }
    }

    fn refused(endpoint: Endpoint, mapping: &Mapping, reasons: Vec<String>) -> Verdict {
        Verdict { accepted: false, endpoint, index: mapping.index.clone(), reasons, changes: Vec::new(), body: None, request: None }
    }
}

/// Judge `body` for `endpoint` on the index of `mapping`.
pub fn check_body(body: &Value, endpoint: Endpoint, mapping: &Mapping, limits: &EsLimits) -> Verdict {
    if let Err(why) = shape(body) {
        return Verdict::refused(endpoint, mapping, vec![why]);
    }
    let mut checker = Checker { mapping, limits, reasons: Vec::new(), changes: Vec::new(), agg_count: 0 };
    let mut body = body.clone();
    checker.body(&mut body, endpoint);
    let Checker { mut reasons, changes, .. } = checker;
    dedup(&mut reasons);
    if !reasons.is_empty() {
        return Verdict::refused(endpoint, mapping, reasons);
    }
    let request = CheckedRequest::new(endpoint, body.clone());
    Verdict { accepted: true, endpoint, index: mapping.index.clone(), reasons, changes, body: Some(body), request: Some(request) }
}

/// Judge pasted text: a bare JSON body (for `_search`) or one console request
/// (`GET /idx/_search {…}`, `POST idx/_count`, `GET _search`) on the mapping's index.
pub fn check_pasted(text: &str, mapping: &Mapping, limits: &EsLimits) -> Verdict {
    let pasted = match paste::parse(text) {
        Ok(p) => p,
        Err(reasons) => return Verdict::refused(Endpoint::Search, mapping, reasons),
    };
    if let Some(index) = &pasted.index
        && *index != mapping.index
    {
        let why = format!("index {index:?} is not the checked index {:?}: only that index may be searched", mapping.index);
        return Verdict::refused(pasted.endpoint, mapping, vec![why]);
    }
    let mut verdict = check_body(&pasted.body, pasted.endpoint, mapping, limits);
    if verdict.accepted {
        let mut changes = pasted.notes;
        changes.append(&mut verdict.changes);
        verdict.changes = changes;
    }
    verdict
}

/// The checked request for `body`, or [`EsError::Refused`] with every reason.
pub fn checked(body: &Value, endpoint: Endpoint, mapping: &Mapping, limits: &EsLimits) -> Result<CheckedRequest, EsError> {
    check_body(body, endpoint, mapping, limits).into_request()
}

/// The checked request for pasted text, or [`EsError::Refused`] with every reason.
pub fn checked_pasted(text: &str, mapping: &Mapping, limits: &EsLimits) -> Result<CheckedRequest, EsError> {
    check_pasted(text, mapping, limits).into_request()
}

/// Why a key is refused wherever it appears, for the keys refused by name rather than as
/// merely unknown; `None` for any other key.
pub fn forbidden_reason(key: &str) -> Option<&'static str> {
    let scripts = "scripts are not allowed: they run code on the server";
    Some(match key {
        "script" | "_script" | "script_fields" | "scripted_metric" | "script_score" => scripts,
        "runtime_mappings" => "runtime_mappings define fields with scripts: not allowed",
        "bucket_script" | "bucket_selector" => "pipeline aggregations with scripts are not allowed",
        "function_score" => "function_score (custom scoring with functions and scripts) is not allowed",
        "more_like_this" | "mlt" => "more_like_this reads documents, possibly of other indices: not allowed",
        "percolate" => "percolate reads stored queries, possibly of other indices: not allowed",
        "has_child" | "has_parent" | "parent_id" => "join queries (has_child, has_parent, parent_id) are not allowed",
        "query_string" | "simple_query_string" => {
            "query_string reads field names and operators out of its text, which the guard cannot check: use match or multi_match"
        }
        "wrapper" => "wrapper hides an encoded query from the guard: not allowed",
        "pit" => "point-in-time contexts are opened by the engine, never by a body",
        "indices_boost" => "indices_boost addresses other indices: not allowed",
        "profile" => "profile exposes shard internals and slows the search: not allowed",
        "explain" => "explain is not allowed",
        "scroll" | "scroll_id" => "scroll contexts are not allowed: page with from/size or search_after",
        k if k.starts_with("script") || k.starts_with("_script") || k.ends_with("_script") => scripts,
        _ => return None,
    })
}

/// `a.b` (or `b` at the top).
fn join(at: &str, key: &str) -> String {
    if at.is_empty() { key.to_string() } else { format!("{at}.{key}") }
}

/// Depth and size, without recursion.
fn shape(body: &Value) -> Result<(), String> {
    let mut stack = vec![(body, 1usize)];
    let mut nodes = 0usize;
    while let Some((v, depth)) = stack.pop() {
        nodes += 1;
        if nodes > MAX_JSON_NODES {
            return Err(format!("the body holds more than {MAX_JSON_NODES} values"));
        }
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Object(o) => Box::new(o.values()),
            Value::Array(a) => Box::new(a.iter()),
            _ => continue,
        };
        if depth > MAX_JSON_DEPTH {
            return Err(format!("the body nests deeper than {MAX_JSON_DEPTH} levels"));
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    Ok(())
}

fn dedup(reasons: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    reasons.retain(|r| seen.insert(r.clone()));
}

/// The state of one check: the reasons and changes found so far.
struct Checker<'a> {
    mapping: &'a Mapping,
    limits: &'a EsLimits,
    reasons: Vec<String>,
    changes: Vec<String>,
    agg_count: usize,
}

impl Checker<'_> {
    fn refuse(&mut self, at: &str, msg: impl Display) {
        self.reasons.push(if at.is_empty() { msg.to_string() } else { format!("{at}: {msg}") });
    }

    fn change(&mut self, what: String) {
        self.changes.push(what);
    }

    /// A key that is no allowed `what` (query clause, parameter, …).
    fn unknown(&mut self, at: &str, key: &str, what: &str, allowed: &[&str]) {
        match forbidden_reason(key) {
            Some(why) => self.refuse(at, format!("{key}: {why}")),
            None => self.refuse(at, format!("{what} {key:?} is not allowed (allowed: {})", allowed.join(", "))),
        }
    }

    /// `v` as an object whose keys are all in `allowed` (unknown keys are refused; the object is
    /// still returned so that the known parts are checked too).
    fn object_params<'v>(&mut self, at: &str, v: &'v Value, allowed: &[&str]) -> Option<&'v Map<String, Value>> {
        let Some(p) = v.as_object() else {
            self.refuse(at, "expected an object");
            return None;
        };
        for k in p.keys() {
            if !allowed.contains(&k.as_str()) {
                self.unknown(at, k, "parameter", allowed);
            }
        }
        Some(p)
    }

    /// Unknown keys refused, and every value a scalar.
    fn scalar_params(&mut self, at: &str, p: &Map<String, Value>, allowed: &[&str]) {
        for k in p.keys() {
            if !allowed.contains(&k.as_str()) {
                self.unknown(at, k, "parameter", allowed);
            }
        }
        self.scalars_except(at, p, &[]);
    }

    /// Every value of `p` but those under `except` must be a scalar.
    fn scalars_except(&mut self, at: &str, p: &Map<String, Value>, except: &[&str]) {
        for (k, v) in p {
            if !except.contains(&k.as_str()) && !is_scalar(v) {
                self.refuse(&join(at, k), "must be a string, number or boolean");
            }
        }
    }

    /// An optional number parameter.
    fn number_param(&mut self, at: &str, p: &Map<String, Value>, key: &str) {
        if let Some(v) = p.get(key)
            && !v.is_number()
        {
            self.refuse(&join(at, key), format!("must be a number, not {v}"));
        }
    }

    /// The whole body.
    fn body(&mut self, body: &mut Value, endpoint: Endpoint) {
        let Some(obj) = body.as_object_mut() else {
            self.refuse("", "the body must be a JSON object");
            return;
        };
        let keys: Vec<String> = obj.keys().cloned().collect();
        for k in &keys {
            match endpoint {
                Endpoint::Count if k != "query" => {
                    if SEARCH_KEYS.contains(&k.as_str()) {
                        self.refuse(k, "_count accepts only \"query\"");
                    } else {
                        self.unknown("", k, "key", &["query"]);
                    }
                }
                Endpoint::Search if !SEARCH_KEYS.contains(&k.as_str()) => self.unknown("", k, "top-level key", SEARCH_KEYS),
                _ => {}
            }
        }
        if let Some(q) = obj.get("query") {
            self.query("query", q);
        }
        if endpoint == Endpoint::Search {
            self.search_parts(obj);
            self.search_caps(obj);
        }
    }

    /// Everything of a `_search` body but the query and the caps.
    fn search_parts(&mut self, obj: &mut Map<String, Value>) {
        if let Some(q) = obj.get("post_filter") {
            self.query("post_filter", q);
        }
        let sorts = obj.get("sort").map(|s| self.sort("sort", s));
        if let Some(s) = obj.get("_source") {
            self.source("_source", s);
        }
        if obj.contains_key("aggs") && obj.contains_key("aggregations") {
            self.refuse("", "use either \"aggs\" or \"aggregations\", not both");
        } else if let Some((k, a)) = obj.iter_mut().find(|(k, _)| *k == "aggs" || *k == "aggregations") {
            let k = k.clone();
            self.aggs(&k, a, 1);
        }
        if let Some(v) = obj.get("stored_fields") {
            self.stored_fields(v);
        }
        if let Some(v) = obj.get("docvalue_fields") {
            self.docvalue_fields(v);
        }
        if obj.get("min_score").is_some_and(|m| !m.is_number()) {
            self.refuse("min_score", "must be a number");
        }
        if let Some(after) = obj.get("search_after") {
            match (after, sorts) {
                (Value::Array(a), Some(n)) if !a.is_empty() && a.iter().all(is_scalar) => {
                    if a.len() != n {
                        self.refuse("search_after", format!("has {} values but sort has {n}", a.len()));
                    }
                }
                (Value::Array(_), None) => self.refuse("search_after", "needs a sort (with a tie-breaker)"),
                _ => self.refuse("search_after", "must be a non-empty array of the last hit's sort values"),
            }
            if obj.get("from").and_then(Value::as_u64).is_some_and(|f| f > 0) {
                self.refuse("from", "must be 0 with search_after");
            }
        }
    }

    /// `size`, `from`, `timeout`, `track_total_hits`.
    fn search_caps(&mut self, obj: &mut Map<String, Value>) {
        let size = self.cap_size("", obj, "size", self.limits.row_cap, "row cap").unwrap_or(10);
        let from = self.cap_size("", obj, "from", usize::MAX, "").unwrap_or(0);
        if from.saturating_add(size) > self.limits.max_window {
            self.refuse("from", format!("from + size is {}, beyond {}: use search_after for deep pages", from.saturating_add(size), self.limits.max_window));
        }
        let cap = self.limits.timeout_ms;
        match obj.get("timeout").cloned() {
            None => {
                obj.insert("timeout".into(), json!(format!("{cap}ms")));
                self.change(format!("timeout set to {cap}ms"));
            }
            Some(t) => match t.as_str().and_then(fields::time_value_ms) {
                None => self.refuse("timeout", format!("{t} is not a time value such as \"5s\" or \"500ms\"")),
                Some(ms) if ms > cap || ms == 0 => {
                    obj.insert("timeout".into(), json!(format!("{cap}ms")));
                    self.change(format!("timeout {t} lowered to {cap}ms"));
                }
                Some(_) => {}
            },
        }
        match obj.get("track_total_hits") {
            Some(Value::Bool(true)) => {}
            Some(v) if !(v.is_boolean() || v.is_u64()) => self.refuse("track_total_hits", "must be true, false or a number"),
            other => {
                let was = other.map_or("missing".into(), Value::to_string);
                obj.insert("track_total_hits".into(), Value::Bool(true));
                self.change(format!("track_total_hits set to true (was {was}) so totals are exact"));
            }
        }
    }

    /// `sort`: the number of sort keys.
    fn sort(&mut self, at: &str, v: &Value) -> usize {
        let entries: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            one => vec![one],
        };
        for (i, e) in entries.iter().enumerate() {
            let here = if v.is_array() { format!("{at}[{i}]") } else { at.to_string() };
            match e {
                Value::String(f) => self.sort_field(&here, f),
                Value::Object(o) if o.len() == 1 => {
                    for (f, spec) in o {
                        self.sort_field(&here, f);
                        let ok = match spec {
                            Value::String(d) => matches!(d.as_str(), "asc" | "desc"),
                            Value::Object(p) => {
                                self.scalar_params(&join(&here, f), p, &["order", "missing", "mode", "unmapped_type", "format", "numeric_type"]);
                                p.get("order").is_none_or(|d| matches!(d.as_str(), Some("asc" | "desc")))
                            }
                            _ => false,
                        };
                        if !ok {
                            self.refuse(&join(&here, f), "expected \"asc\", \"desc\" or {\"order\": …}");
                        }
                    }
                }
                _ => self.refuse(&here, "expected a field name or {\"<field>\": \"asc\"|\"desc\"}"),
            }
        }
        entries.len()
    }

    fn sort_field(&mut self, at: &str, f: &str) {
        if matches!(f, "_score" | "_doc") {
            return;
        }
        if f.starts_with('_') && self.mapping.field(f).is_none() {
            self.unknown(at, f, "sort", &["_score", "_doc", "<field>"]);
            return;
        }
        self.exact_field(at, f, Use::Sort);
    }

    /// `_source`: a boolean, a pattern, patterns, or `{includes, excludes}`.
    fn source(&mut self, at: &str, v: &Value) {
        match v {
            Value::Bool(_) => {}
            Value::String(_) => self.field_pattern(at, v, false),
            Value::Array(a) => {
                for (i, p) in a.iter().enumerate() {
                    self.field_pattern(&format!("{at}[{i}]"), p, false);
                }
            }
            Value::Object(o) => {
                let allowed = ["includes", "excludes", "include", "exclude"];
                self.object_params(at, v, &allowed);
                for (k, list) in o.iter().filter(|(k, _)| allowed.contains(&k.as_str())) {
                    match list {
                        Value::Array(a) => {
                            for (i, p) in a.iter().enumerate() {
                                self.field_pattern(&format!("{at}.{k}[{i}]"), p, false);
                            }
                        }
                        other => self.field_pattern(&join(at, k), other, false),
                    }
                }
            }
            _ => self.refuse(at, "expected true, false, a field pattern, an array of them or {includes, excludes}"),
        }
    }

    fn stored_fields(&mut self, v: &Value) {
        let list: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            one => vec![one],
        };
        for (i, f) in list.into_iter().enumerate() {
            if f.as_str() != Some("_none_") {
                self.field_pattern(&format!("stored_fields[{i}]"), f, false);
            }
        }
    }

    fn docvalue_fields(&mut self, v: &Value) {
        let Some(list) = v.as_array() else {
            self.refuse("docvalue_fields", "expected an array");
            return;
        };
        for (i, f) in list.iter().enumerate() {
            let here = format!("docvalue_fields[{i}]");
            let name = match f {
                Value::Object(o) => {
                    self.scalar_params(&here, o, &["field", "format"]);
                    o.get("field").cloned().unwrap_or(Value::Null)
                }
                other => other.clone(),
            };
            match name.as_str() {
                Some(n) if n.contains('*') => self.field_pattern(&here, &name, false),
                Some(_) => {
                    self.field_value(&here, &name, Some(Use::Aggregate));
                }
                None => self.refuse(&here, "expected a field name or {\"field\": …, \"format\": …}"),
            }
        }
    }
}
