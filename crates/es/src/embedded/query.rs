//! The query DSL subset, translated to tantivy queries.
//!
//! Clauses: `match_all`, `match_none`, `match` (operator, minimum_should_match, fuzziness),
//! `match_phrase` (slop), `multi_match` (best_fields, most_fields, phrase), `term`
//! (case_insensitive), `terms`, `range` (numbers, dates with date math, strings), `exists`,
//! `prefix`, `wildcard`, `ids`, `bool`, `constant_score`. A clause or parameter outside the subset
//! is [`EsError::Unsupported`], named. As in Elasticsearch, a field the mapping does not have
//! matches nothing.
//!
//! Quickwit's `quickwit-query` (Apache-2.0) was the reference for the shape of the translation.

use std::ops::Bound;

use serde_json::{Map, Value};
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, EmptyQuery, FuzzyTermQuery, Occur, PhrasePrefixQuery, PhraseQuery, Query,
    RangeQuery, RegexQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::{DateTime, Index, Term};

use super::dates::{resolve_bound, zone_offset_ms};
use super::schema::{Layout, Slot, scalar_string, to_bool, to_date_ms, to_f64, to_i64};
use crate::{EsError, FieldKind};

/// What translating a query needs.
pub(crate) struct QueryCtx<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) index: &'a Index,
    /// "now" for date math, epoch milliseconds.
    pub(crate) now_ms: i64,
}

type Q = Box<dyn Query>;

fn bad(msg: String) -> EsError {
    EsError::Json(msg)
}

fn unsupported(what: impl Into<String>) -> EsError {
    EsError::Unsupported(what.into())
}

/// The single `{"clause": body}` of a query object.
fn single(v: &Value, what: &str) -> Result<(String, Value), EsError> {
    match v.as_object() {
        Some(o) if o.len() == 1 => o.iter().next().map(|(k, v)| (k.clone(), v.clone())).ok_or_else(|| bad(format!("{what}: empty object"))),
        _ => Err(bad(format!("{what}: expected an object with exactly one key, got {}", short(v)))),
    }
}

fn short(v: &Value) -> String {
    qa_core::text::truncate(&v.to_string(), 80)
}

/// Refuse parameters outside `allowed`, naming the first one.
fn check_params(clause: &str, obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), EsError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(unsupported(format!("{clause}.{k}"))),
        None => Ok(()),
    }
}

/// A field-level clause `{"FIELD": value}` or `{"FIELD": {params}}`: the field and its body.
fn field_clause(clause: &str, v: &Value) -> Result<(String, Value), EsError> {
    let o = v.as_object().ok_or_else(|| bad(format!("[{clause}] expected an object")))?;
    let mut fields = o.iter().filter(|(k, _)| !matches!(k.as_str(), "boost" | "_name"));
    match (fields.next(), fields.next()) {
        (Some((k, v)), None) => Ok((k.clone(), v.clone())),
        _ => Err(bad(format!("[{clause}] expected exactly one field"))),
    }
}

fn boosted(q: Q, boost: Option<f64>) -> Q {
    match boost {
        Some(b) if (b - 1.0).abs() > f64::EPSILON => Box::new(BoostQuery::new(q, b as f32)),
        _ => q,
    }
}

fn boost_of(v: &Value) -> Option<f64> {
    v.get("boost").and_then(Value::as_f64)
}

/// Translate an ES query object.
pub(crate) fn build(ctx: &QueryCtx, q: &Value) -> Result<Q, EsError> {
    let (clause, body) = single(q, "query")?;
    match clause.as_str() {
        "match_all" => Ok(boosted(Box::new(AllQuery), boost_of(&body))),
        "match_none" => Ok(Box::new(EmptyQuery)),
        "match" => match_query(ctx, &body),
        "match_phrase" => match_phrase(ctx, &body),
        "match_phrase_prefix" => match_phrase_prefix(ctx, &body),
        "dis_max" => dis_max(ctx, &body),
        "multi_match" => multi_match(ctx, &body),
        "term" => term_query(ctx, &body),
        "terms" => terms_query(ctx, &body),
        "range" => range(ctx, &body),
        "exists" => exists(ctx, &body),
        "prefix" | "wildcard" => pattern_query(ctx, &clause, &body),
        "ids" => ids(ctx, &body),
        "bool" => bool_query(ctx, &body),
        "constant_score" => {
            let o = body.as_object().ok_or_else(|| bad("[constant_score] expected an object".into()))?;
            check_params("constant_score", o, &["filter", "boost", "_name"])?;
            let filter = o.get("filter").ok_or_else(|| bad("[constant_score] requires a filter".into()))?;
            Ok(Box::new(ConstScoreQuery::new(build(ctx, filter)?, boost_of(&body).unwrap_or(1.0) as f32)))
        }
        other => Err(unsupported(format!("query clause {other:?}"))),
    }
}

/// The analysed tokens of `text` for a text field, with their positions.
fn tokens(ctx: &QueryCtx, slot: &Slot, text: &str) -> Result<Vec<(usize, String)>, EsError> {
    let mut analyzer = ctx.index.tokenizer_for_field(slot.field).map_err(|e| EsError::Engine(e.to_string()))?;
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(t) = stream.next() {
        out.push((t.position, t.text.clone()));
    }
    Ok(out)
}

/// The body of a match-like clause: its query text and parameters.
fn query_and_params(clause: &str, body: &Value, allowed: &[&str]) -> Result<(Value, Map<String, Value>), EsError> {
    match body {
        Value::Object(o) => {
            check_params(clause, o, allowed)?;
            let q = o.get("query").cloned().ok_or_else(|| bad(format!("[{clause}] requires a query")))?;
            Ok((q, o.clone()))
        }
        other => Ok((other.clone(), Map::new())),
    }
}

/// Parameters of `match`; analysis and expansion tuning ones are accepted and have no effect.
const MATCH_PARAMS: &[&str] = &[
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
/// Parameters of `multi_match` (as [`MATCH_PARAMS`]).
const MULTI_MATCH_PARAMS: &[&str] = &[
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

fn match_query(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let (path, fbody) = field_clause("match", body)?;
    let (text, params) = query_and_params("match", &fbody, MATCH_PARAMS)?;
    let Some(slot) = ctx.layout.slot(&path) else {
        return Ok(Box::new(EmptyQuery));
    };
    let and = params.get("operator").and_then(Value::as_str).is_some_and(|o| o.eq_ignore_ascii_case("and"));
    let fuzzy = params.get("fuzziness").map(|f| match f {
        Value::String(s) if s.to_ascii_uppercase().starts_with("AUTO") => None,
        other => to_i64(other).map(|n| n.clamp(0, 2) as u8),
    });
    let q = match_on(ctx, slot, &text, and, params.get("minimum_should_match"), fuzzy)?;
    Ok(boosted(q, params.get("boost").and_then(Value::as_f64)))
}

/// A match on one field: analysed for text fields, exact for the others.
/// `fuzzy`: `None` no fuzziness, `Some(None)` AUTO, `Some(Some(n))` edit distance n.
fn match_on(ctx: &QueryCtx, slot: &Slot, text: &Value, and: bool, msm: Option<&Value>, fuzzy: Option<Option<u8>>) -> Result<Q, EsError> {
    if slot.kind != FieldKind::Text {
        // Non-text fields: the whole value is one term; a value that does not parse matches
        // nothing rather than failing (`lenient`), as a free-text query should.
        return Ok(exact_query(ctx, slot, text, false).unwrap_or_else(|_| Box::new(EmptyQuery)));
    }
    let s = scalar_string(text).ok_or_else(|| bad(format!("[match] query must be a scalar, got {}", short(text))))?;
    let toks = tokens(ctx, slot, &s)?;
    if toks.is_empty() {
        return Ok(Box::new(EmptyQuery));
    }
    let clauses: Vec<(Occur, Q)> = toks
        .iter()
        .map(|(_, t)| {
            let term = Term::from_field_text(slot.field, t);
            let q: Q = match fuzzy {
                Some(d) => {
                    let distance = d.unwrap_or(match t.chars().count() {
                        0..=2 => 0,
                        3..=5 => 1,
                        _ => 2,
                    });
                    Box::new(FuzzyTermQuery::new(term, distance, true))
                }
                None => Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs)),
            };
            (if and { Occur::Must } else { Occur::Should }, q)
        })
        .collect();
    if clauses.len() == 1 {
        return Ok(clauses.into_iter().next().map(|(_, q)| q).unwrap_or_else(|| Box::new(EmptyQuery)));
    }
    let n = clauses.len();
    let min = if and { 0 } else { msm.map(|m| minimum_should_match(m, n)).transpose()?.unwrap_or(1).max(1) };
    Ok(Box::new(BooleanQuery::with_minimum_required_clauses(clauses, min)))
}

/// Elasticsearch's `minimum_should_match` (`2`, `"2"`, `"-1"`, `"75%"`, `"-25%"`) for `n`
/// optional clauses.
fn minimum_should_match(v: &Value, n: usize) -> Result<usize, EsError> {
    let s = scalar_string(v).ok_or_else(|| bad("minimum_should_match must be a number or a string".into()))?;
    let s = s.trim();
    let n_i = n as i64;
    let required = if let Some(p) = s.strip_suffix('%') {
        let pct: f64 = p.trim().parse().map_err(|_| bad(format!("minimum_should_match {s:?}")))?;
        let k = (n as f64 * pct.abs() / 100.0).floor() as i64;
        if pct < 0.0 { n_i - k } else { k }
    } else {
        let k: i64 = s.parse().map_err(|_| unsupported(format!("minimum_should_match {s:?}")))?;
        if k < 0 { n_i + k } else { k }
    };
    Ok(required.clamp(0, n_i) as usize)
}

fn match_phrase(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let (path, fbody) = field_clause("match_phrase", body)?;
    let (text, params) = query_and_params("match_phrase", &fbody, &["query", "slop", "boost", "_name", "analyzer", "zero_terms_query"])?;
    let Some(slot) = ctx.layout.slot(&path) else {
        return Ok(Box::new(EmptyQuery));
    };
    let slop = params.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32;
    Ok(boosted(phrase_on(ctx, slot, &text, slop)?, params.get("boost").and_then(Value::as_f64)))
}

fn phrase_on(ctx: &QueryCtx, slot: &Slot, text: &Value, slop: u32) -> Result<Q, EsError> {
    if slot.kind != FieldKind::Text {
        return Ok(exact_query(ctx, slot, text, false).unwrap_or_else(|_| Box::new(EmptyQuery)));
    }
    let s = scalar_string(text).ok_or_else(|| bad("[match_phrase] query must be a scalar".into()))?;
    let toks = tokens(ctx, slot, &s)?;
    Ok(match toks.len() {
        0 => Box::new(EmptyQuery),
        1 => Box::new(TermQuery::new(Term::from_field_text(slot.field, &toks[0].1), IndexRecordOption::WithFreqs)),
        _ => Box::new(PhraseQuery::new_with_offset_and_slop(toks.into_iter().map(|(p, t)| (p, Term::from_field_text(slot.field, &t))).collect(), slop)),
    })
}

fn multi_match(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let o = body.as_object().ok_or_else(|| bad("[multi_match] expected an object".into()))?;
    check_params("multi_match", o, MULTI_MATCH_PARAMS)?;
    let text = o.get("query").ok_or_else(|| bad("[multi_match] requires a query".into()))?;
    let kind = o.get("type").and_then(Value::as_str).unwrap_or("best_fields");
    if !matches!(kind, "best_fields" | "most_fields" | "cross_fields" | "phrase" | "phrase_prefix" | "bool_prefix") {
        return Err(unsupported(format!("multi_match.type {kind:?}")));
    }
    let patterns: Vec<String> = match o.get("fields") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => vec!["*".to_string()],
    };
    let and = o.get("operator").and_then(Value::as_str).is_some_and(|op| op.eq_ignore_ascii_case("and"));
    let fuzzy = o.get("fuzziness").map(|f| to_i64(f).map(|n| n.clamp(0, 2) as u8));
    let slop = o.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32;
    let mut per_field: Vec<Q> = Vec::new();
    for pattern in &patterns {
        let (name, field_boost) = match pattern.split_once('^') {
            Some((n, b)) => (n, b.parse::<f64>().ok()),
            None => (pattern.as_str(), None),
        };
        let mut paths: Vec<(&String, &Slot)> = ctx
            .layout
            .paths()
            .filter(|(p, s)| glob_match(name, p) && (name != "*" || matches!(s.kind, FieldKind::Text | FieldKind::Keyword) && s.ignore_above.is_none()))
            .collect();
        paths.sort_by(|a, b| a.0.cmp(b.0));
        for (_, slot) in paths {
            let q = match kind {
                "phrase" => phrase_on(ctx, slot, text, slop)?,
                "phrase_prefix" => phrase_prefix_on(ctx, slot, text, true, false)?,
                "bool_prefix" => phrase_prefix_on(ctx, slot, text, false, and)?,
                _ => match_on(ctx, slot, text, and, o.get("minimum_should_match"), fuzzy)?,
            };
            per_field.push(boosted(q, field_boost));
        }
    }
    let q: Q = match (per_field.len(), kind) {
        (0, _) => Box::new(EmptyQuery),
        (1, _) => per_field.remove(0),
        // cross_fields is approximated by most_fields: every field's match adds to the score.
        (_, "most_fields" | "cross_fields") => Box::new(BooleanQuery::new(per_field.into_iter().map(|q| (Occur::Should, q)).collect())),
        _ => Box::new(DisjunctionMaxQuery::with_tie_breaker(per_field, o.get("tie_breaker").and_then(Value::as_f64).unwrap_or(0.0) as f32)),
    };
    Ok(boosted(q, boost_of(body)))
}

/// `*` and `?` wildcards over a whole path (or value).
pub(crate) fn glob_match(pattern: &str, s: &str) -> bool {
    let (p, s): (Vec<char>, Vec<char>) = (pattern.chars().collect(), s.chars().collect());
    let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn term_query(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let (path, fbody) = field_clause("term", body)?;
    let (value, params) = match &fbody {
        Value::Object(o) => {
            check_params("term", o, &["value", "boost", "case_insensitive", "_name"])?;
            (o.get("value").cloned().ok_or_else(|| bad("[term] requires a value".into()))?, o.clone())
        }
        other => (other.clone(), Map::new()),
    };
    let Some(slot) = ctx.layout.slot(&path) else {
        return Ok(Box::new(EmptyQuery));
    };
    let ci = params.get("case_insensitive").and_then(Value::as_bool).unwrap_or(false);
    Ok(boosted(exact_query(ctx, slot, &value, ci)?, params.get("boost").and_then(Value::as_f64)))
}

/// The term of an exact value on a non-date field.
fn exact_term(slot: &Slot, v: &Value) -> Result<Term, EsError> {
    let wrong = |what: &str| bad(format!("{} is not {what}", short(v)));
    Ok(match slot.kind {
        FieldKind::Keyword | FieldKind::Text => Term::from_field_text(slot.field, &scalar_string(v).ok_or_else(|| wrong("a scalar"))?),
        FieldKind::Long => Term::from_field_i64(slot.field, to_i64(v).ok_or_else(|| wrong("an integer"))?),
        FieldKind::Double => Term::from_field_f64(slot.field, to_f64(v).ok_or_else(|| wrong("a number"))?),
        FieldKind::Boolean => Term::from_field_bool(slot.field, to_bool(v).ok_or_else(|| wrong("a boolean"))?),
        FieldKind::Date | FieldKind::Other => return Err(wrong("an exact value of this field")),
    })
}

/// One exact value: a term, a case-insensitive pattern, or, on dates, the span the value
/// names (`2024-03-01` is that whole day, as in Elasticsearch).
fn exact_query(ctx: &QueryCtx, slot: &Slot, v: &Value, case_insensitive: bool) -> Result<Q, EsError> {
    if slot.kind == FieldKind::Date {
        let text = scalar_string(v).ok_or_else(|| bad(format!("{} is not a date", short(v))))?;
        let (lo, hi) = (resolve_bound(&text, ctx.now_ms, false), resolve_bound(&text, ctx.now_ms, true));
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Err(bad(format!("{text:?} is not a date")));
        };
        return Ok(Box::new(RangeQuery::new(Bound::Included(date_term(slot, lo)), Bound::Included(date_term(slot, hi)))));
    }
    if case_insensitive && matches!(slot.kind, FieldKind::Keyword | FieldKind::Text) {
        let s = scalar_string(v).unwrap_or_default();
        return regex(slot, &regex_literal(&s, true));
    }
    let option = if slot.kind == FieldKind::Text { IndexRecordOption::WithFreqs } else { IndexRecordOption::Basic };
    Ok(Box::new(TermQuery::new(exact_term(slot, v)?, option)))
}

fn date_term(slot: &Slot, ms: i64) -> Term {
    Term::from_field_date(slot.field, DateTime::from_timestamp_millis(ms))
}

fn regex(slot: &Slot, pattern: &str) -> Result<Q, EsError> {
    Ok(Box::new(RegexQuery::from_pattern(pattern, slot.field).map_err(|e| bad(format!("pattern: {e}")))?))
}

/// `s` as a regular expression matching it literally (each cased letter as `[xX]` when
/// `case_insensitive`).
fn regex_literal(s: &str, case_insensitive: bool) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        push_literal(&mut out, c, case_insensitive);
    }
    out
}

fn push_literal(out: &mut String, c: char, case_insensitive: bool) {
    let (mut lower, mut upper) = (c.to_lowercase(), c.to_uppercase());
    if case_insensitive
        && let (Some(l), None, Some(u), None) = (lower.next(), lower.next(), upper.next(), upper.next())
        && l != u
    {
        out.push('[');
        out.push(l);
        out.push(u);
        out.push(']');
        return;
    }
    if "\\.+*?()|[]{}^$#&-~\"<>@".contains(c) {
        out.push('\\');
    }
    out.push(c);
}

fn terms_query(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let o = body.as_object().ok_or_else(|| bad("[terms] expected an object".into()))?;
    let mut fields = o.iter().filter(|(k, _)| !matches!(k.as_str(), "boost" | "_name"));
    let (Some((path, values)), None) = (fields.next(), fields.next()) else {
        return Err(bad("[terms] expected exactly one field".into()));
    };
    let Value::Array(values) = values else {
        return Err(unsupported("terms lookup (terms with an object instead of a list of values)"));
    };
    let Some(slot) = ctx.layout.slot(path) else {
        return Ok(Box::new(EmptyQuery));
    };
    let q: Q = if slot.kind == FieldKind::Date {
        let each = values.iter().map(|v| Ok((Occur::Should, exact_query(ctx, slot, v, false)?))).collect::<Result<Vec<_>, EsError>>()?;
        Box::new(BooleanQuery::new(each))
    } else {
        Box::new(TermSetQuery::new(values.iter().map(|v| exact_term(slot, v)).collect::<Result<Vec<_>, _>>()?))
    };
    Ok(Box::new(ConstScoreQuery::new(q, boost_of(body).unwrap_or(1.0) as f32)))
}

fn ids(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let o = body.as_object().ok_or_else(|| bad("[ids] expected an object".into()))?;
    check_params("ids", o, &["values", "boost", "_name"])?;
    let values = o.get("values").and_then(Value::as_array).ok_or_else(|| bad("[ids] requires values".into()))?;
    let terms: Vec<Term> = values.iter().filter_map(scalar_string).map(|s| Term::from_field_text(ctx.layout.id, &s)).collect();
    Ok(Box::new(ConstScoreQuery::new(Box::new(TermSetQuery::new(terms)), boost_of(body).unwrap_or(1.0) as f32)))
}

fn exists(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let o = body.as_object().ok_or_else(|| bad("[exists] expected an object".into()))?;
    check_params("exists", o, &["field", "boost", "_name"])?;
    let path = o.get("field").and_then(Value::as_str).ok_or_else(|| bad("[exists] requires a field".into()))?;
    let Some(slot) = ctx.layout.slot(path) else {
        return Ok(Box::new(EmptyQuery));
    };
    let term = TermQuery::new(Term::from_field_text(ctx.layout.present, &slot.present_path), IndexRecordOption::Basic);
    Ok(Box::new(ConstScoreQuery::new(Box::new(term), boost_of(body).unwrap_or(1.0) as f32)))
}

fn pattern_query(ctx: &QueryCtx, clause: &str, body: &Value) -> Result<Q, EsError> {
    let (path, fbody) = field_clause(clause, body)?;
    let (value, params) = match &fbody {
        Value::Object(o) => {
            check_params(clause, o, &["value", "wildcard", "boost", "case_insensitive", "rewrite", "_name"])?;
            let v = o.get("value").or_else(|| o.get("wildcard")).and_then(Value::as_str).ok_or_else(|| bad(format!("[{clause}] requires a value")))?;
            (v.to_string(), o.clone())
        }
        Value::String(s) => (s.clone(), Map::new()),
        other => {
            return Err(bad(format!("[{clause}] expected a string, got {}", short(other))));
        }
    };
    let Some(slot) = ctx.layout.slot(&path) else {
        return Ok(Box::new(EmptyQuery));
    };
    if !matches!(slot.kind, FieldKind::Keyword | FieldKind::Text) {
        return Err(bad(format!("[{clause}] field {path:?} is not a string field")));
    }
    let ci = params.get("case_insensitive").and_then(Value::as_bool).unwrap_or(false);
    let mut pattern = String::new();
    if clause == "prefix" {
        pattern.push_str(&regex_literal(&value, ci));
        pattern.push_str(".*");
    } else {
        for c in value.chars() {
            match c {
                '*' => pattern.push_str(".*"),
                '?' => pattern.push('.'),
                c => push_literal(&mut pattern, c, ci),
            }
        }
    }
    Ok(Box::new(ConstScoreQuery::new(regex(slot, &pattern)?, boost_of(&fbody).unwrap_or(1.0) as f32)))
}

fn range(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let (path, params) = field_clause("range", body)?;
    let p = params.as_object().ok_or_else(|| bad("[range] expected an object of bounds".into()))?;
    check_params("range", p, &["gt", "gte", "lt", "lte", "from", "to", "include_lower", "include_upper", "format", "time_zone", "boost", "relation", "_name"])?;
    let Some(slot) = ctx.layout.slot(&path) else {
        return Ok(Box::new(EmptyQuery));
    };
    let flag = |k: &str| p.get(k).and_then(Value::as_bool).unwrap_or(true);
    let pick = |strict: &str, loose: &str, legacy: &str, legacy_incl: &str| -> Option<(Value, bool)> {
        p.get(strict)
            .filter(|v| !v.is_null())
            .map(|v| (v.clone(), false))
            .or_else(|| p.get(loose).filter(|v| !v.is_null()).map(|v| (v.clone(), true)))
            .or_else(|| p.get(legacy).filter(|v| !v.is_null()).map(|v| (v.clone(), flag(legacy_incl))))
    };
    let lower = pick("gt", "gte", "from", "include_lower");
    let upper = pick("lt", "lte", "to", "include_upper");
    if lower.is_none() && upper.is_none() {
        return exists(ctx, &serde_json::json!({"field": path}));
    }
    let zone = match p.get("time_zone").and_then(Value::as_str) {
        Some(z) => Some(zone_offset_ms(z).ok_or_else(|| unsupported(format!("range.time_zone {z:?} (only UTC and fixed offsets)")))?),
        None => None,
    };
    let lo = lower.map(|(v, incl)| bound(ctx, slot, &v, incl, false, zone)).transpose()?.unwrap_or(Bound::Unbounded);
    let hi = upper.map(|(v, incl)| bound(ctx, slot, &v, incl, true, zone)).transpose()?.unwrap_or(Bound::Unbounded);
    let q: Q = match (&lo, &hi) {
        (Bound::Unbounded, Bound::Unbounded) => Box::new(EmptyQuery),
        _ => Box::new(RangeQuery::new(lo, hi)),
    };
    Ok(Box::new(ConstScoreQuery::new(q, boost_of(&params).unwrap_or(1.0) as f32)))
}

/// One range bound as a term; integer bounds are tightened so fractions behave as in
/// Elasticsearch (`gt 2.5` on a long is `>= 3`). `upper` says which side it is.
fn bound(ctx: &QueryCtx, slot: &Slot, v: &Value, inclusive: bool, upper: bool, zone: Option<i64>) -> Result<Bound<Term>, EsError> {
    let wrap = |t: Term, incl: bool| {
        if incl { Bound::Included(t) } else { Bound::Excluded(t) }
    };
    let wrong = |what: &str| bad(format!("[range] bound {} is not {what}", short(v)));
    Ok(match slot.kind {
        FieldKind::Long => {
            let f = to_f64(v).ok_or_else(|| wrong("a number"))?;
            let i = match (upper, inclusive) {
                (false, true) => f.ceil(),
                (false, false) => f.floor() + 1.0,
                (true, true) => f.floor(),
                (true, false) => f.ceil() - 1.0,
            };
            Bound::Included(Term::from_field_i64(slot.field, i.clamp(i64::MIN as f64, i64::MAX as f64) as i64))
        }
        FieldKind::Double => wrap(Term::from_field_f64(slot.field, to_f64(v).ok_or_else(|| wrong("a number"))?), inclusive),
        FieldKind::Date => {
            // `gt` and `lte` round up (`lte 2024-01-31` includes that whole day).
            let round_up = upper == inclusive;
            let ms = match v {
                Value::Number(_) => to_date_ms(v),
                Value::String(s) => {
                    let explicit_zone = s.starts_with("now") || s.ends_with('Z') || s.get(10..).is_some_and(|t| t.contains('+') || t.contains('-'));
                    resolve_bound(s, ctx.now_ms, round_up).map(|ms| if explicit_zone { ms } else { ms - zone.unwrap_or(0) })
                }
                _ => None,
            }
            .ok_or_else(|| wrong("a date"))?;
            wrap(date_term(slot, ms), inclusive)
        }
        FieldKind::Keyword | FieldKind::Text => wrap(Term::from_field_text(slot.field, &scalar_string(v).ok_or_else(|| wrong("a scalar"))?), inclusive),
        FieldKind::Boolean | FieldKind::Other => {
            return Err(bad("[range] is not supported on this field type".into()));
        }
    })
}

fn clauses(v: Option<&Value>) -> Vec<&Value> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().collect(),
        Some(one) => vec![one],
    }
}

fn bool_query(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let o = body.as_object().ok_or_else(|| bad("[bool] expected an object".into()))?;
    check_params("bool", o, &["must", "filter", "should", "must_not", "minimum_should_match", "boost", "_name", "adjust_pure_negative"])?;
    let mut subs: Vec<(Occur, Q)> = Vec::new();
    for q in clauses(o.get("must")) {
        subs.push((Occur::Must, build(ctx, q)?));
    }
    // Filters restrict without scoring.
    for q in clauses(o.get("filter")) {
        subs.push((Occur::Must, Box::new(ConstScoreQuery::new(build(ctx, q)?, 0.0))));
    }
    let required = subs.len();
    let should = clauses(o.get("should"));
    for q in &should {
        subs.push((Occur::Should, build(ctx, q)?));
    }
    for q in clauses(o.get("must_not")) {
        subs.push((Occur::MustNot, build(ctx, q)?));
    }
    let min_should = match o.get("minimum_should_match") {
        Some(m) => minimum_should_match(m, should.len())?,
        None if required == 0 && !should.is_empty() => 1,
        None => 0,
    };
    if required == 0 && should.is_empty() {
        // Only exclusions (or nothing): everything, minus them.
        subs.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(AllQuery), 0.0))));
    }
    if min_should > should.len() {
        return Ok(Box::new(EmptyQuery));
    }
    Ok(boosted(Box::new(BooleanQuery::with_minimum_required_clauses(subs, min_should)), boost_of(body)))
}

fn match_phrase_prefix(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let (path, fbody) = field_clause("match_phrase_prefix", body)?;
    let (text, params) =
        query_and_params("match_phrase_prefix", &fbody, &["query", "slop", "max_expansions", "analyzer", "zero_terms_query", "boost", "_name"])?;
    let Some(slot) = ctx.layout.slot(&path) else {
        return Ok(Box::new(EmptyQuery));
    };
    Ok(boosted(phrase_prefix_on(ctx, slot, &text, true, false)?, params.get("boost").and_then(Value::as_f64)))
}

/// The words of `text` with the last one a prefix: as a phrase (`match_phrase_prefix`) or as
/// independent terms (`bool_prefix`, all required when `and`). The prefix is the part the
/// analysed last word shares with its raw lower-case form, so a whole word and a word being typed
/// both match.
fn phrase_prefix_on(ctx: &QueryCtx, slot: &Slot, text: &Value, phrase: bool, and: bool) -> Result<Q, EsError> {
    let s = scalar_string(text).ok_or_else(|| bad("[match_phrase_prefix] query must be a scalar".into()))?;
    if slot.kind != FieldKind::Text {
        return match slot.kind {
            FieldKind::Keyword => regex(slot, &format!("{}.*", regex_literal(&s, false))),
            _ => Ok(exact_query(ctx, slot, text, false).unwrap_or_else(|_| Box::new(EmptyQuery))),
        };
    }
    let mut toks = tokens(ctx, slot, &s)?;
    let Some((last_pos, last)) = toks.pop() else { return Ok(Box::new(EmptyQuery)) };
    let raw_last = s.split_whitespace().last().unwrap_or_default().to_lowercase();
    let prefix: String = last.chars().zip(raw_last.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a).collect();
    let prefix = if prefix.is_empty() { last } else { prefix };
    if phrase && !toks.is_empty() {
        let mut terms: Vec<(usize, Term)> = toks.into_iter().map(|(p, t)| (p, Term::from_field_text(slot.field, &t))).collect();
        terms.push((last_pos, Term::from_field_text(slot.field, &prefix)));
        return Ok(Box::new(PhrasePrefixQuery::new_with_offset(terms)));
    }
    let occur = if and { Occur::Must } else { Occur::Should };
    let mut clauses: Vec<(Occur, Q)> =
        toks.into_iter().map(|(_, t)| (occur, Box::new(TermQuery::new(Term::from_field_text(slot.field, &t), IndexRecordOption::WithFreqs)) as Q)).collect();
    clauses.push((occur, regex(slot, &format!("{}.*", regex_literal(&prefix, false)))?));
    Ok(if clauses.len() == 1 { clauses.remove(0).1 } else { Box::new(BooleanQuery::new(clauses)) })
}

fn dis_max(ctx: &QueryCtx, body: &Value) -> Result<Q, EsError> {
    let o = body.as_object().ok_or_else(|| bad("[dis_max] expected an object".into()))?;
    check_params("dis_max", o, &["queries", "tie_breaker", "boost", "_name"])?;
    let queries = o.get("queries").and_then(Value::as_array).ok_or_else(|| bad("[dis_max] requires queries".into()))?;
    let subs = queries.iter().map(|q| build(ctx, q)).collect::<Result<Vec<_>, _>>()?;
    if subs.is_empty() {
        return Ok(Box::new(EmptyQuery));
    }
    let tie = o.get("tie_breaker").and_then(Value::as_f64).unwrap_or(0.0) as f32;
    Ok(boosted(Box::new(DisjunctionMaxQuery::with_tie_breaker(subs, tie)), boost_of(body)))
}
