//! Query clauses: only the allow-listed read clauses, each with its own parameters, every field
//! known to the mapping and every value fitting its field.

use serde_json::{Map, Value};

use super::fields::Use;
use super::{Checker, join};
use crate::FieldKind;

/// The query clauses a body may use.
pub const ALLOWED_QUERIES: &[&str] = &[
    "match_all",
    "match_none",
    "match",
    "match_phrase",
    "match_phrase_prefix",
    "multi_match",
    "term",
    "terms",
    "range",
    "exists",
    "prefix",
    "wildcard",
    "ids",
    "bool",
    "constant_score",
    "dis_max",
];

/// Most values a `terms` query or an `ids` query may list (Elasticsearch's
/// `index.max_terms_count` default).
pub const MAX_TERMS: usize = 65_536;

const COMMON: &[&str] = &["boost", "_name"];
const MATCH: &[&str] = &[
    "query",
    "operator",
    "minimum_should_match",
    "fuzziness",
    "prefix_length",
    "max_expansions",
    "fuzzy_transpositions",
    "fuzzy_rewrite",
    "lenient",
    "zero_terms_query",
    "analyzer",
    "auto_generate_synonyms_phrase_query",
    "boost",
    "_name",
];
const MATCH_PHRASE: &[&str] = &["query", "slop", "analyzer", "zero_terms_query", "boost", "_name"];
const MATCH_PHRASE_PREFIX: &[&str] = &["query", "slop", "max_expansions", "analyzer", "zero_terms_query", "boost", "_name"];
const MULTI_MATCH: &[&str] = &[
    "query",
    "fields",
    "type",
    "operator",
    "minimum_should_match",
    "fuzziness",
    "prefix_length",
    "max_expansions",
    "fuzzy_transpositions",
    "tie_breaker",
    "slop",
    "lenient",
    "zero_terms_query",
    "analyzer",
    "auto_generate_synonyms_phrase_query",
    "boost",
    "_name",
];
const MULTI_MATCH_TYPES: &[&str] = &["best_fields", "most_fields", "cross_fields", "phrase", "phrase_prefix", "bool_prefix"];
const TERM: &[&str] = &["value", "boost", "case_insensitive", "_name"];
const RANGE: &[&str] = &["gt", "gte", "lt", "lte", "format", "time_zone", "relation", "boost", "_name"];
const PREFIX: &[&str] = &["value", "boost", "case_insensitive", "rewrite", "_name"];
const WILDCARD: &[&str] = &["value", "wildcard", "boost", "case_insensitive", "rewrite", "_name"];
const BOOL: &[&str] = &["must", "filter", "should", "must_not", "minimum_should_match", "boost", "_name"];

impl Checker<'_> {
    /// One query clause (`{"term": {…}}`), recursively.
    pub(super) fn query(&mut self, at: &str, v: &Value) {
        let Some(obj) = v.as_object() else {
            self.refuse(at, "a query must be an object holding one clause");
            return;
        };
        if obj.len() != 1 {
            let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
            self.refuse(at, format!("a query object holds exactly one clause, found {} ({})", obj.len(), keys.join(", ")));
        }
        for (name, body) in obj {
            let here = join(at, name);
            match name.as_str() {
                "match_all" | "match_none" => {
                    self.object_params(&here, body, COMMON);
                }
                "match" => self.text_clause(&here, body, MATCH),
                "match_phrase" => self.text_clause(&here, body, MATCH_PHRASE),
                "match_phrase_prefix" => self.text_clause(&here, body, MATCH_PHRASE_PREFIX),
                "multi_match" => self.multi_match(&here, body),
                "term" => self.term(&here, body),
                "terms" => self.terms(&here, body),
                "range" => self.range(&here, body),
                "exists" => self.exists(&here, body),
                "prefix" => self.string_clause(&here, body, PREFIX),
                "wildcard" => self.string_clause(&here, body, WILDCARD),
                "ids" => self.ids(&here, body),
                "bool" => self.bool_query(&here, body),
                "constant_score" => {
                    if let Some(p) = self.object_params(&here, body, &["filter", "boost", "_name"]) {
                        self.required_query(&here, p, "filter");
                    }
                }
                "dis_max" => self.dis_max(&here, body),
                other => self.unknown(at, other, "query clause", ALLOWED_QUERIES),
            }
        }
    }

    /// `{"field": value}` or `{"field": {"query"|"value": …, params}}`: the field and its value.
    fn single_field<'v>(&mut self, at: &str, body: &'v Value) -> Option<(&'v str, &'v Value)> {
        let Some(obj) = body.as_object() else {
            self.refuse(at, "expected {\"<field>\": …}");
            return None;
        };
        let mut entries = obj.iter();
        match (entries.next(), entries.next()) {
            (Some((field, v)), None) => Some((field.as_str(), v)),
            (None, _) => {
                self.refuse(at, "names no field");
                None
            }
            _ => {
                let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
                self.refuse(at, format!("names exactly one field, found {} ({})", keys.len(), keys.join(", ")));
                None
            }
        }
    }

    /// The value of a single-field clause: a scalar, or an object of `params` whose `value_key`
    /// is required. Every parameter must be a scalar.
    fn field_value_or_params<'v>(&mut self, at: &str, v: &'v Value, params: &[&str], value_keys: &[&str]) -> Option<&'v Value> {
        match v {
            Value::Object(p) => {
                self.scalar_params(at, p, params);
                let found = value_keys.iter().find_map(|k| p.get(*k));
                if found.is_none() {
                    self.refuse(at, format!("missing {:?}", value_keys[0]));
                }
                found
            }
            Value::Array(_) => {
                self.refuse(at, "expected a single value, not an array");
                None
            }
            scalar => Some(scalar),
        }
    }

    /// `match`, `match_phrase`, `match_phrase_prefix`: any known field, a scalar query.
    fn text_clause(&mut self, at: &str, body: &Value, params: &[&str]) {
        let Some((field, v)) = self.single_field(at, body) else { return };
        let here = join(at, field);
        self.field(&here, field);
        if let Some(q) = self.field_value_or_params(&here, v, params, &["query"])
            && q.is_null()
        {
            self.refuse(&here, "the query text is null");
        }
    }

    fn multi_match(&mut self, at: &str, body: &Value) {
        let Some(p) = self.object_params(at, body, MULTI_MATCH) else { return };
        match p.get("query") {
            None => self.refuse(at, "missing \"query\""),
            Some(q) if !is_scalar(q) || q.is_null() => self.refuse(at, "\"query\" must be a string or a number"),
            Some(_) => {}
        }
        match p.get("fields") {
            None => {}
            Some(Value::Array(fields)) => {
                for (i, f) in fields.iter().enumerate() {
                    self.field_pattern(&format!("{at}.fields[{i}]"), f, true);
                }
            }
            Some(f) => self.field_pattern(&join(at, "fields"), f, true),
        }
        if let Some(t) = p.get("type")
            && !t.as_str().is_some_and(|t| MULTI_MATCH_TYPES.contains(&t))
        {
            self.refuse(at, format!("type {t} is not one of {}", MULTI_MATCH_TYPES.join(", ")));
        }
        self.scalars_except(at, p, &["query", "fields"]);
    }

    fn term(&mut self, at: &str, body: &Value) {
        let Some((field, v)) = self.single_field(at, body) else { return };
        let here = join(at, field);
        let kind = self.exact_field(&here, field, Use::Exact);
        if let Some(value) = self.field_value_or_params(&here, v, TERM, &["value"])
            && let Some(kind) = kind
        {
            self.value_fits(&here, field, kind, value);
        }
    }

    fn terms(&mut self, at: &str, body: &Value) {
        let Some(obj) = body.as_object() else {
            self.refuse(at, "expected {\"<field>\": [values]}");
            return;
        };
        let (common, fields): (Vec<_>, Vec<_>) = obj.iter().partition(|(k, _)| COMMON.contains(&k.as_str()));
        for (k, v) in common {
            if !is_scalar(v) {
                self.refuse(&join(at, k), "must be a string, number or boolean");
            }
        }
        if fields.len() != 1 {
            self.refuse(at, format!("names exactly one field, found {}", fields.len()));
        }
        for (field, values) in fields {
            let here = join(at, field);
            let kind = self.exact_field(&here, field, Use::Exact);
            match values {
                Value::Array(values) => {
                    if values.len() > MAX_TERMS {
                        self.refuse(&here, format!("{} values; at most {MAX_TERMS}", values.len()));
                        continue;
                    }
                    for (i, value) in values.iter().enumerate() {
                        if let Some(kind) = kind {
                            self.value_fits(&format!("{here}[{i}]"), field, kind, value);
                        }
                    }
                }
                Value::Object(_) => self.refuse(
                    &here,
                    "terms lookup (an object naming an index, id and path) reads another document and possibly another index: list the values instead",
                ),
                _ => self.refuse(&here, "expected an array of values"),
            }
        }
    }

    fn range(&mut self, at: &str, body: &Value) {
        let Some((field, v)) = self.single_field(at, body) else { return };
        let here = join(at, field);
        let kind = self.field(&here, field);
        let Some(p) = v.as_object() else {
            self.refuse(&here, "expected {\"gte\"|\"gt\"|\"lte\"|\"lt\": …}");
            return;
        };
        self.scalar_params(&here, p, RANGE);
        let bounds: Vec<(&str, &Value)> = ["gt", "gte", "lt", "lte"].iter().filter_map(|b| p.get(*b).map(|v| (*b, v))).collect();
        if bounds.is_empty() {
            self.refuse(&here, "a range needs at least one of gt, gte, lt, lte");
        }
        let Some(kind) = kind else { return };
        if kind == FieldKind::Boolean {
            self.refuse(&here, format!("{field:?} is boolean: use a term query, booleans have no ranges"));
            return;
        }
        let free_format = p.contains_key("format") || self.has_format(field);
        for (b, v) in bounds {
            self.bound(&join(&here, b), field, kind, v, free_format);
        }
    }

    fn exists(&mut self, at: &str, body: &Value) {
        let Some(p) = self.object_params(at, body, &["field", "boost", "_name"]) else { return };
        match p.get("field") {
            Some(f) => {
                self.field_value(&join(at, "field"), f, None);
            }
            None => self.refuse(at, "missing \"field\""),
        }
    }

    /// `prefix`, `wildcard`: string patterns on keyword (or text) fields.
    fn string_clause(&mut self, at: &str, body: &Value, params: &[&str]) {
        let Some((field, v)) = self.single_field(at, body) else { return };
        let here = join(at, field);
        let kind = self.field(&here, field);
        if let Some(kind) = kind
            && !matches!(kind, FieldKind::Keyword | FieldKind::Text | FieldKind::Other)
        {
            self.refuse(&here, format!("{field:?} is {}: prefix and wildcard work on strings only", kind.es_type()));
        }
        if let Some(value) = self.field_value_or_params(&here, v, params, &["value", "wildcard"])
            && !value.is_string()
        {
            self.refuse(&here, "the pattern must be a string");
        }
    }

    fn ids(&mut self, at: &str, body: &Value) {
        let Some(p) = self.object_params(at, body, &["values", "boost", "_name"]) else { return };
        match p.get("values") {
            Some(Value::Array(ids)) if ids.len() <= MAX_TERMS && ids.iter().all(|i| i.is_string() || i.is_number()) => {}
            Some(Value::Array(ids)) if ids.len() > MAX_TERMS => self.refuse(at, format!("{} ids; at most {MAX_TERMS}", ids.len())),
            _ => self.refuse(at, "\"values\" must be an array of ids"),
        }
    }

    fn bool_query(&mut self, at: &str, body: &Value) {
        let Some(p) = self.object_params(at, body, BOOL) else { return };
        for occur in ["must", "filter", "should", "must_not"] {
            match p.get(occur) {
                None => {}
                Some(Value::Array(clauses)) => {
                    for (i, c) in clauses.iter().enumerate() {
                        self.query(&format!("{at}.{occur}[{i}]"), c);
                    }
                }
                Some(c) => self.query(&join(at, occur), c),
            }
        }
        if let Some(m) = p.get("minimum_should_match")
            && !(m.is_i64() || m.is_u64() || m.is_string())
        {
            self.refuse(at, "minimum_should_match must be an integer or a string such as \"75%\"");
        }
        self.number_param(at, p, "boost");
    }

    fn dis_max(&mut self, at: &str, body: &Value) {
        let Some(p) = self.object_params(at, body, &["queries", "tie_breaker", "boost", "_name"]) else { return };
        match p.get("queries") {
            Some(Value::Array(qs)) if !qs.is_empty() => {
                for (i, q) in qs.iter().enumerate() {
                    self.query(&format!("{at}.queries[{i}]"), q);
                }
            }
            _ => self.refuse(at, "\"queries\" must be a non-empty array of queries"),
        }
        self.number_param(at, p, "tie_breaker");
        self.number_param(at, p, "boost");
    }

    /// A clause that must be present and is a query (`constant_score.filter`).
    fn required_query(&mut self, at: &str, p: &Map<String, Value>, key: &str) {
        match p.get(key) {
            Some(q) => self.query(&join(at, key), q),
            None => self.refuse(at, format!("missing {key:?}")),
        }
    }

    /// Whether `value` can match a field of `kind` (a number for numbers, a date for dates, …).
    pub(super) fn value_fits(&mut self, at: &str, field: &str, kind: FieldKind, value: &Value) {
        let ok = match kind {
            FieldKind::Boolean => value.is_boolean() || matches!(value.as_str(), Some("true" | "false")),
            FieldKind::Keyword | FieldKind::Text | FieldKind::Other => is_scalar(value) && !value.is_null(),
            FieldKind::Long | FieldKind::Double | FieldKind::Date => {
                if value.is_null() || !is_scalar(value) || value.is_boolean() {
                    false
                } else {
                    self.bound(at, field, kind, value, self.has_format(field));
                    return;
                }
            }
        };
        if !ok {
            self.refuse(at, format!("value {value} does not fit {field:?} ({})", kind.es_type()));
        }
    }
}

/// A string, number, boolean or null.
pub(super) fn is_scalar(v: &Value) -> bool {
    !(v.is_object() || v.is_array())
}
