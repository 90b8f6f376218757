//! Aggregations in Elasticsearch's request and response format, computed over the fast-field
//! columns of the matching documents: `terms`, `date_histogram` (calendar and fixed
//! intervals), `histogram`, `range`/`date_range`, and the metrics `avg`, `sum`, `min`, `max`,
//! `value_count`, `cardinality`, `stats`; bucket aggregations nest sub-aggregations.
//!
//! Tantivy's own aggregation module speaks the same JSON but only has fixed date intervals and
//! names fields by tantivy name; computing buckets here keeps one code path for calendar
//! intervals, sub-aggregations, `name.keyword` paths and bucket caps. The bucket count of the
//! whole response is capped: past the cap the request is an error, not a huge response.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};
use tantivy::Searcher;

use super::columns::{FieldColumns, Val};
use super::dates::{Unit, add, fixed_interval_ms, floor, format_millis, resolve_bound, zone_offset_ms};
use super::schema::{Layout, to_f64};
use super::search::Match;
use crate::{EsError, FieldKind};

/// What computing aggregations needs.
pub(crate) struct AggCtx<'a> {
    pub(crate) searcher: &'a Searcher,
    pub(crate) layout: &'a Layout,
    /// The tantivy index (analysers for the queries of `filter`/`filters`).
    pub(crate) index: &'a tantivy::Index,
    /// `_index` of `top_hits` hits.
    pub(crate) index_name: &'a str,
    pub(crate) now_ms: i64,
    pub(crate) max_buckets: usize,
    /// Buckets produced so far in the response.
    pub(crate) buckets: Cell<usize>,
}

impl AggCtx<'_> {
    pub(crate) fn spend(&self, n: usize, name: &str) -> Result<(), EsError> {
        let total = self.buckets.get() + n;
        self.buckets.set(total);
        if total > self.max_buckets {
            return Err(EsError::Engine(format!(
                "too many buckets: aggregation {name:?} brings the response to {total} buckets, over the cap of {}",
                self.max_buckets
            )));
        }
        Ok(())
    }
}

fn bad(msg: String) -> EsError {
    EsError::Json(msg)
}

fn check_params(kind: &str, p: &Map<String, Value>, allowed: &[&str]) -> Result<(), EsError> {
    match p.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(EsError::Unsupported(format!("{kind}.{k}"))),
        None => Ok(()),
    }
}

/// Compute every aggregation of `aggs` (`{"name": {"type": {...}, "aggs": {...}}}`) over `docs`.
pub(crate) fn run(ctx: &AggCtx, docs: &[Match], aggs: &Value) -> Result<Value, EsError> {
    let defs = aggs.as_object().ok_or_else(|| bad("aggs must be an object".into()))?;
    let mut out = Map::new();
    for (name, def) in defs {
        out.insert(name.clone(), one(ctx, name, def, docs)?);
    }
    Ok(Value::Object(out))
}

fn one(ctx: &AggCtx, name: &str, def: &Value, docs: &[Match]) -> Result<Value, EsError> {
    let o = def.as_object().ok_or_else(|| bad(format!("aggregation {name:?} must be an object")))?;
    let sub = o.get("aggs").or_else(|| o.get("aggregations"));
    let mut types = o.iter().filter(|(k, _)| !matches!(k.as_str(), "aggs" | "aggregations" | "meta"));
    let (Some((kind, params)), None) = (types.next(), types.next()) else {
        return Err(bad(format!("aggregation {name:?} must have exactly one type")));
    };
    let p = params.as_object().ok_or_else(|| bad(format!("aggregation {name:?}: {kind} parameters must be an object")))?;
    let is_metric = matches!(kind.as_str(), "avg" | "sum" | "min" | "max" | "value_count" | "cardinality" | "stats" | "top_hits");
    if is_metric && sub.is_some() {
        return Err(bad(format!("aggregation {name:?}: a {kind} aggregation cannot have sub-aggregations")));
    }
    match kind.as_str() {
        "terms" => terms(ctx, name, p, sub, docs),
        "date_histogram" => date_histogram(ctx, name, p, sub, docs),
        "histogram" => histogram(ctx, name, p, sub, docs),
        "range" | "date_range" => range(ctx, name, kind, p, sub, docs),
        "filter" => super::filter_aggs::filter(ctx, name, params, sub, docs),
        "filters" => super::filter_aggs::filters(ctx, name, p, sub, docs),
        "top_hits" => super::filter_aggs::top_hits(ctx, p, docs),
        _ if is_metric => metric(ctx, kind, p, docs),
        other => Err(EsError::Unsupported(format!("aggregation type {other:?}"))),
    }
}

/// The columns of the aggregation's `field` (`None`: the mapping does not have it, so the
/// aggregation is empty, as in Elasticsearch).
fn columns(ctx: &AggCtx, kind: &str, p: &Map<String, Value>) -> Result<Option<FieldColumns>, EsError> {
    let path = p.get("field").and_then(Value::as_str).ok_or_else(|| bad(format!("[{kind}] requires a field")))?;
    if p.contains_key("script") {
        return Err(EsError::Unsupported(format!("{kind}.script")));
    }
    match ctx.layout.slot(path) {
        None => Ok(None),
        Some(slot) => FieldColumns::open(ctx.searcher, slot, path).map(Some),
    }
}

/// The values of a doc, deduplicated (a doc counts once per bucket).
fn doc_values(cols: &FieldColumns, m: &Match, buf: &mut Vec<Val>) {
    buf.clear();
    cols.values(m.seg, m.doc, buf);
    if buf.len() > 1 {
        buf.sort_by(|a, b| match (a, b) {
            (Val::Ord(x), Val::Ord(y)) => x.cmp(y),
            _ => a.number().unwrap_or(0.0).total_cmp(&b.number().unwrap_or(0.0)),
        });
        buf.dedup();
    }
}

/// A bucket before rendering.
struct Bucket {
    key: Value,
    key_as_string: Option<String>,
    extra: Map<String, Value>,
    docs: Vec<Match>,
}

/// Render buckets with their sub-aggregations.
fn render(ctx: &AggCtx, buckets: Vec<Bucket>, sub: Option<&Value>, subs_done: Option<Vec<Value>>) -> Result<Vec<Value>, EsError> {
    let mut out = Vec::with_capacity(buckets.len());
    let mut done = subs_done.map(Vec::into_iter);
    for b in buckets {
        let mut o = Map::new();
        o.insert("key".into(), b.key);
        if let Some(s) = b.key_as_string {
            o.insert("key_as_string".into(), json!(s));
        }
        o.extend(b.extra);
        o.insert("doc_count".into(), json!(b.docs.len()));
        let computed = match (&mut done, sub) {
            (Some(it), _) => it.next(),
            (None, Some(s)) => Some(run(ctx, &b.docs, s)?),
            (None, None) => None,
        };
        if let Some(Value::Object(subs)) = computed {
            o.extend(subs);
        }
        out.push(Value::Object(o));
    }
    Ok(out)
}

fn terms(ctx: &AggCtx, name: &str, p: &Map<String, Value>, sub: Option<&Value>, docs: &[Match]) -> Result<Value, EsError> {
    check_params(
        "terms",
        p,
        &[
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
        ],
    )?;
    let empty = json!({"doc_count_error_upper_bound": 0, "sum_other_doc_count": 0, "buckets": []});
    let Some(cols) = columns(ctx, "terms", p)? else {
        return Ok(empty);
    };
    let size = p.get("size").and_then(Value::as_u64).unwrap_or(10) as usize;
    let min_doc_count = p.get("min_doc_count").and_then(Value::as_u64).unwrap_or(1) as usize;
    let mut groups = group_terms(&cols, docs, p.get("missing"))?;
    let include = p.get("include").map(|v| TermFilter::parse("include", v)).transpose()?;
    let exclude = p.get("exclude").map(|v| TermFilter::parse("exclude", v)).transpose()?;
    if include.is_some() || exclude.is_some() {
        groups.retain(|g| {
            let key = term_string(g);
            include.as_ref().is_none_or(|f| f.accepts(&key)) && !exclude.as_ref().is_some_and(|f| f.accepts(&key))
        });
    }
    groups.retain(|g| g.2.len() >= min_doc_count);
    let order = parse_order(p.get("order"), ("_count", true))?;
    let key_cmp = |a: &(Val, String, Vec<Match>), b: &(Val, String, Vec<Match>)| match (a.0, b.0) {
        (Val::Ord(_), Val::Ord(_)) => a.1.cmp(&b.1),
        (x, y) => x.number().unwrap_or(0.0).total_cmp(&y.number().unwrap_or(0.0)),
    };
    // Ordering by a sub-aggregation's value needs the sub-aggregations of every bucket.
    let by_metric = order.iter().any(|(k, _)| k != "_count" && k != "_key");
    let mut subs: Vec<Option<Value>> = vec![None; groups.len()];
    if by_metric {
        let sub = sub.ok_or_else(|| bad(format!("terms {name:?} is ordered by a sub-aggregation it does not have")))?;
        for (i, g) in groups.iter().enumerate() {
            subs[i] = Some(run(ctx, &g.2, sub)?);
        }
    }
    let mut idx: Vec<usize> = (0..groups.len()).collect();
    idx.sort_by(|&a, &b| {
        for (key, desc) in &order {
            let o = match key.as_str() {
                "_count" => groups[a].2.len().cmp(&groups[b].2.len()),
                "_key" => key_cmp(&groups[a], &groups[b]),
                path => metric_of(subs[a].as_ref(), path).total_cmp(&metric_of(subs[b].as_ref(), path)),
            };
            let o = if *desc { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        key_cmp(&groups[a], &groups[b])
    });
    let other: usize = idx.iter().skip(size).map(|&i| groups[i].2.len()).sum();
    idx.truncate(size);
    ctx.spend(idx.len(), name)?;
    let mut taken: Vec<Option<(Val, String, Vec<Match>)>> = groups.into_iter().map(Some).collect();
    let mut buckets = Vec::with_capacity(idx.len());
    let mut done = Vec::new();
    for i in idx {
        let Some((v, s, docs)) = taken[i].take() else {
            continue;
        };
        if by_metric {
            done.push(subs[i].take().unwrap_or(Value::Null));
        }
        let (key, key_as_string) = match v {
            Val::Ord(_) => (json!(s), None),
            Val::I64(n) => (json!(n), None),
            Val::F64(f) => (json!(f), None),
            Val::Date(ms) => (json!(ms), Some(format_millis(ms, p.get("format").and_then(Value::as_str)))),
            Val::Bool(b) => (json!(u8::from(b)), Some(b.to_string())),
        };
        buckets.push(Bucket { key, key_as_string, extra: Map::new(), docs });
    }
    let rendered = render(ctx, buckets, sub, by_metric.then_some(done))?;
    Ok(json!({"doc_count_error_upper_bound": 0, "sum_other_doc_count": other, "buckets": rendered}))
}

/// Documents grouped by term: (a value, its string for strings, the documents). Strings go
/// through per-segment ordinal tables, other values by their bits; documents without a value go
/// to `missing` when given.
type Group = (Val, String, Vec<Match>);

fn group_terms(cols: &FieldColumns, docs: &[Match], missing: Option<&Value>) -> Result<Vec<Group>, EsError> {
    let mut groups: Vec<Group> = Vec::new();
    let mut by_string: HashMap<String, usize> = HashMap::new();
    let mut by_number: HashMap<(u8, u64), usize> = HashMap::new();
    let mut ord_tables: Vec<Vec<u32>> = Vec::new();
    let missing_val = match missing {
        None | Some(Value::Null) => None,
        Some(v) => Some(match cols.kind {
            FieldKind::Long => Val::I64(super::schema::to_i64(v).ok_or_else(|| bad(format!("terms.missing {v} is not an integer")))?),
            FieldKind::Double => Val::F64(to_f64(v).ok_or_else(|| bad(format!("terms.missing {v} is not a number")))?),
            FieldKind::Date => Val::Date(super::schema::to_date_ms(v).ok_or_else(|| bad(format!("terms.missing {v} is not a date")))?),
            FieldKind::Boolean => Val::Bool(super::schema::to_bool(v).ok_or_else(|| bad(format!("terms.missing {v} is not a boolean")))?),
            _ => Val::Ord(u64::MAX),
        }),
    };
    let missing_string = missing.and_then(super::schema::scalar_string).unwrap_or_default();
    let names = ord_names(cols, docs)?;
    let mut string_group = |groups: &mut Vec<Group>, s: String, v: Val| -> usize {
        *by_string.entry(s.clone()).or_insert_with(|| {
            groups.push((v, s, Vec::new()));
            groups.len() - 1
        })
    };
    let mut buf = Vec::new();
    for m in docs {
        doc_values(cols, m, &mut buf);
        let absent = buf.is_empty();
        if let (true, Some(v)) = (absent, missing_val) {
            buf.push(v);
        }
        for v in &buf {
            let idx = match *v {
                Val::Ord(u64::MAX) if absent => string_group(&mut groups, missing_string.clone(), *v),
                Val::Ord(ord) => {
                    let seg = m.seg as usize;
                    if ord_tables.len() <= seg {
                        ord_tables.resize_with(seg + 1, Vec::new);
                    }
                    if ord_tables[seg].is_empty() {
                        ord_tables[seg] = vec![0; cols.num_terms(m.seg)];
                    }
                    match ord_tables[seg].get(ord as usize).copied() {
                        Some(slot) if slot > 0 => slot as usize - 1,
                        _ => {
                            let name = match names.get(seg).and_then(|n| n.get(&ord)) {
                                Some(s) => s.clone(),
                                None => cols.term(m.seg, ord)?,
                            };
                            let idx = string_group(&mut groups, name, *v);
                            if let Some(cell) = ord_tables[seg].get_mut(ord as usize) {
                                *cell = idx as u32 + 1;
                            }
                            idx
                        }
                    }
                }
                other => {
                    let bits = match other {
                        Val::I64(i) => (0, i as u64),
                        Val::Date(i) => (1, i as u64),
                        Val::F64(f) => (2, f.to_bits()),
                        Val::Bool(b) => (3, u64::from(b)),
                        Val::Ord(o) => (4, o),
                    };
                    *by_number.entry(bits).or_insert_with(|| {
                        groups.push((other, String::new(), Vec::new()));
                        groups.len() - 1
                    })
                }
            };
            groups[idx].2.push(*m);
        }
    }
    Ok(groups)
}

/// The strings of the term ordinals `docs` hold, per segment, each segment's resolved in one
/// sorted pass over its dictionary. Empty for fields that are not strings.
fn ord_names(cols: &FieldColumns, docs: &[Match]) -> Result<Vec<HashMap<u64, String>>, EsError> {
    if cols.kind != FieldKind::Keyword && cols.kind != FieldKind::Text {
        return Ok(Vec::new());
    }
    // Which ordinals occur, per segment (a flag per term of the segment's dictionary).
    let mut present: Vec<Vec<bool>> = Vec::new();
    let mut buf = Vec::new();
    for m in docs {
        buf.clear();
        cols.values(m.seg, m.doc, &mut buf);
        let seg = m.seg as usize;
        for v in &buf {
            if let Val::Ord(o) = v {
                if present.len() <= seg {
                    present.resize_with(seg + 1, Vec::new);
                }
                if present[seg].is_empty() {
                    present[seg] = vec![false; cols.num_terms(m.seg)];
                }
                if let Some(flag) = present[seg].get_mut(*o as usize) {
                    *flag = true;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(present.len());
    for (seg, flags) in present.into_iter().enumerate() {
        let ords: Vec<u64> = flags.iter().enumerate().filter(|(_, f)| **f).map(|(o, _)| o as u64).collect();
        let strings = cols.terms_sorted(seg as u32, &ords)?;
        out.push(ords.into_iter().zip(strings).collect());
    }
    Ok(out)
}

/// The string a term's `include`/`exclude` compare with.
fn term_string(g: &Group) -> String {
    match g.0 {
        Val::Ord(_) => g.1.clone(),
        Val::I64(i) | Val::Date(i) => i.to_string(),
        Val::F64(f) => f.to_string(),
        Val::Bool(b) => b.to_string(),
    }
}

/// A terms aggregation's `include`/`exclude`: a list of exact values, or a regular expression
/// limited to literals, `.`, `.*` and `|` (translated to wildcards; others are unsupported).
enum TermFilter {
    Exact(HashSet<String>),
    Globs(Vec<String>),
}

impl TermFilter {
    fn parse(what: &str, v: &Value) -> Result<TermFilter, EsError> {
        match v {
            Value::Array(a) => Ok(TermFilter::Exact(a.iter().filter_map(super::schema::scalar_string).collect())),
            Value::String(re) => re
                .split('|')
                .map(|alt| regex_to_glob(alt).ok_or_else(|| EsError::Unsupported(format!("terms.{what} pattern {re:?} (only literals, '.', '.*' and '|')"))))
                .collect::<Result<_, _>>()
                .map(TermFilter::Globs),
            _ => Err(EsError::Unsupported(format!("terms.{what} {v}"))),
        }
    }

    fn accepts(&self, key: &str) -> bool {
        match self {
            TermFilter::Exact(set) => set.contains(key),
            TermFilter::Globs(globs) => globs.iter().any(|g| super::query::glob_match(g, key)),
        }
    }
}

fn regex_to_glob(re: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = re.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push('*');
            }
            '.' => out.push('?'),
            '\\' => match chars.next() {
                Some(e) if e != '*' && e != '?' && !e.is_alphanumeric() => out.push(e),
                _ => return None,
            },
            '*' | '?' | '+' | '(' | ')' | '[' | ']' | '{' | '}' | '^' | '$' | '~' | '&' | '<' | '>' | '#' | '@' | '"' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// `order`: `{"_count": "desc"}`, `{"_key": "asc"}`, `{"sub_agg": "desc"}`,
/// `{"stats_agg.avg": "asc"}`, or a list of them.
fn parse_order(v: Option<&Value>, default: (&str, bool)) -> Result<Vec<(String, bool)>, EsError> {
    let entries: Vec<&Map<String, Value>> = match v {
        None => return Ok(vec![(default.0.to_string(), default.1)]),
        Some(Value::Object(o)) => vec![o],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_object).collect(),
        Some(other) => return Err(bad(format!("order: cannot read {other}"))),
    };
    let mut out = Vec::new();
    for o in entries {
        for (k, dir) in o {
            let desc = match dir.as_str() {
                Some("desc") => true,
                Some("asc") => false,
                _ => return Err(bad(format!("order {k:?}: expected asc or desc"))),
            };
            let key = if k == "_term" { "_key".to_string() } else { k.clone() };
            out.push((key, desc));
        }
    }
    Ok(out)
}

/// The value a sub-aggregation path (`avg_price`, `price_stats.max`) names in computed
/// sub-aggregations; missing values sort first.
fn metric_of(subs: Option<&Value>, path: &str) -> f64 {
    let (agg, field) = path.split_once('.').unwrap_or((path, "value"));
    let field = if field == "value" && subs.and_then(|s| s.get(agg)).is_some_and(|a| a.get("value").is_none()) { "count" } else { field };
    subs.and_then(|s| s.get(agg)).and_then(|a| a.get(field)).and_then(Value::as_f64).unwrap_or(f64::NEG_INFINITY)
}

/// How a date histogram cuts time.
enum Interval {
    Calendar(Unit),
    Fixed(i64),
}

fn date_histogram(ctx: &AggCtx, name: &str, p: &Map<String, Value>, sub: Option<&Value>, docs: &[Match]) -> Result<Value, EsError> {
    check_params(
        "date_histogram",
        p,
        &[
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
        ],
    )?;
    let interval = if let Some(c) = p.get("calendar_interval").and_then(Value::as_str) {
        Interval::Calendar(Unit::from_calendar_interval(c).ok_or_else(|| bad(format!("calendar_interval {c:?}")))?)
    } else if let Some(f) = p.get("fixed_interval").and_then(Value::as_str) {
        Interval::Fixed(fixed_interval_ms(f).ok_or_else(|| bad(format!("fixed_interval {f:?}")))?)
    } else if let Some(i) = p.get("interval").and_then(Value::as_str) {
        match Unit::from_calendar_interval(i) {
            Some(u) => Interval::Calendar(u),
            None => Interval::Fixed(fixed_interval_ms(i).ok_or_else(|| bad(format!("interval {i:?}")))?),
        }
    } else {
        return Err(bad(format!("date_histogram {name:?} needs a calendar_interval or fixed_interval")));
    };
    let zone = match p.get("time_zone").and_then(Value::as_str) {
        Some(z) => zone_offset_ms(z).ok_or_else(|| EsError::Unsupported(format!("date_histogram.time_zone {z:?} (only UTC and fixed offsets)")))?,
        None => 0,
    };
    let offset = match p.get("offset").and_then(Value::as_str) {
        Some(o) => {
            let (sign, rest) = o.strip_prefix('-').map_or((1, o.trim_start_matches('+')), |r| (-1, r));
            sign * fixed_interval_ms(rest).ok_or_else(|| bad(format!("offset {o:?}")))?
        }
        None => 0,
    };
    let format = p.get("format").and_then(Value::as_str);
    let empty = json!({"buckets": []});
    let Some(cols) = columns(ctx, "date_histogram", p)? else {
        return Ok(empty);
    };
    if cols.kind != FieldKind::Date {
        return Err(EsError::Mapping(format!("date_histogram {name:?}: field {:?} is not a date", p.get("field"))));
    }
    // Keys are computed in local time (UTC + zone), then shifted back to UTC instants.
    let shift = zone + offset;
    let key_of = |ms: i64| -> i64 {
        let local = ms + shift;
        let start = match interval {
            Interval::Calendar(u) => floor(local, u),
            Interval::Fixed(step) => local.div_euclid(step) * step,
        };
        start - shift
    };
    let next = |key: i64| -> Option<i64> {
        match interval {
            Interval::Calendar(u) => add(key + shift, 1, u).map(|n| n - shift),
            Interval::Fixed(step) => key.checked_add(step),
        }
    };
    let bounds = extended_bounds(ctx, p, "extended_bounds")?.map(|(lo, hi)| (key_of(lo), key_of(hi)));
    let hard = extended_bounds(ctx, p, "hard_bounds")?;
    let missing = match p.get("missing") {
        Some(v) => Some(Val::Date(
            v.as_str().and_then(|s| resolve_bound(s, ctx.now_ms, false)).or_else(|| v.as_i64()).ok_or_else(|| bad(format!("date_histogram.missing {v}")))?,
        )),
        None => None,
    };
    let mut groups: BTreeMap<i64, Vec<Match>> = BTreeMap::new();
    let mut buf = Vec::new();
    for m in docs {
        doc_values(&cols, m, &mut buf);
        if let (true, Some(v)) = (buf.is_empty(), missing) {
            buf.push(v);
        }
        let mut last = None;
        for v in &buf {
            if let Val::Date(ms) = v {
                let k = key_of(*ms);
                if last != Some(k) {
                    groups.entry(k).or_default().push(*m);
                    last = Some(k);
                }
            }
        }
    }
    let min_doc_count = p.get("min_doc_count").and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut keys = bucket_keys(ctx, name, &groups, min_doc_count, bounds, next)?;
    if let Some((lo, hi)) = hard {
        keys.retain(|k| *k >= key_of(lo) && *k <= hi);
    }
    let buckets = keys
        .into_iter()
        .map(|k| Bucket { key: json!(k), key_as_string: Some(format_millis(k + zone, format)), extra: Map::new(), docs: groups.remove(&k).unwrap_or_default() })
        .collect();
    let mut rendered = render(ctx, buckets, sub, None)?;
    order_histogram(p.get("order"), &mut rendered)?;
    Ok(json!({ "buckets": keyed(p, rendered) }))
}

/// The keys of a histogram: the filled ones, and with `min_doc_count` 0 every key between the
/// first and last (or the extended bounds), within the bucket budget.
fn bucket_keys<K: Copy + Ord>(
    ctx: &AggCtx,
    name: &str,
    groups: &BTreeMap<K, Vec<Match>>,
    min_doc_count: usize,
    bounds: Option<(K, K)>,
    next: impl Fn(K) -> Option<K>,
) -> Result<Vec<K>, EsError> {
    let filled: Vec<K> = groups.iter().filter(|(_, d)| d.len() >= min_doc_count.max(1)).map(|(k, _)| *k).collect();
    if min_doc_count > 0 {
        ctx.spend(filled.len(), name)?;
        return Ok(filled);
    }
    let first = groups.keys().next().copied();
    let last = groups.keys().next_back().copied();
    let (lo, hi) = match (first, last, bounds) {
        (Some(f), Some(l), Some((bl, bh))) => (if bl < f { bl } else { f }, if bh > l { bh } else { l }),
        (Some(f), Some(l), None) => (f, l),
        (None, None, Some((bl, bh))) => (bl, bh),
        _ => return Ok(Vec::new()),
    };
    let mut keys = Vec::new();
    let mut k = lo;
    let budget = ctx.max_buckets.saturating_sub(ctx.buckets.get());
    while k <= hi {
        keys.push(k);
        if keys.len() > budget {
            return ctx.spend(keys.len(), name).map(|_| Vec::new());
        }
        match next(k) {
            Some(n) if n > k => k = n,
            _ => break,
        }
    }
    ctx.spend(keys.len(), name)?;
    Ok(keys)
}

/// A date histogram's `extended_bounds` or `hard_bounds` (`which`), as epoch milliseconds.
fn extended_bounds(ctx: &AggCtx, p: &Map<String, Value>, which: &str) -> Result<Option<(i64, i64)>, EsError> {
    let Some(b) = p.get(which) else {
        return Ok(None);
    };
    let get = |k: &str, up: bool| -> Result<i64, EsError> {
        let v = b.get(k).ok_or_else(|| bad(format!("extended_bounds needs {k}")))?;
        match v {
            Value::Number(n) => n.as_i64().ok_or_else(|| bad(format!("extended_bounds.{k}"))),
            Value::String(s) => resolve_bound(s, ctx.now_ms, up).ok_or_else(|| bad(format!("extended_bounds.{k} {s:?}"))),
            _ => Err(bad(format!("extended_bounds.{k}"))),
        }
    };
    Ok(Some((get("min", false)?, get("max", false)?)))
}

/// Buckets as an object keyed by `key_as_string` (or the key) when `keyed` is true.
fn keyed(p: &Map<String, Value>, buckets: Vec<Value>) -> Value {
    if p.get("keyed").and_then(Value::as_bool) != Some(true) {
        return Value::Array(buckets);
    }
    let mut out = Map::new();
    for b in buckets {
        let key = match (b.get("key_as_string"), b.get("key")) {
            (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => s.clone(),
            (_, Some(Value::Number(n))) => n.as_f64().map_or_else(|| n.to_string(), es_number),
            _ => String::new(),
        };
        out.insert(key, b);
    }
    Value::Object(out)
}

/// Histograms come in key order; `order` may ask for `_key` desc or `_count`.
fn order_histogram(order: Option<&Value>, buckets: &mut [Value]) -> Result<(), EsError> {
    let Some(order) = order else { return Ok(()) };
    let order = parse_order(Some(order), ("_key", false))?;
    let num = |b: &Value, k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    buckets.sort_by(|a, b| {
        for (key, desc) in &order {
            let o = match key.as_str() {
                "_count" => num(a, "doc_count").total_cmp(&num(b, "doc_count")),
                "_key" => num(a, "key").total_cmp(&num(b, "key")),
                path => metric_of(Some(a), path).total_cmp(&metric_of(Some(b), path)),
            };
            let o = if *desc { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        num(a, "key").total_cmp(&num(b, "key"))
    });
    Ok(())
}

/// An f64 usable as an ordered map key (histogram keys are finite).
#[derive(Debug, Clone, Copy)]
struct Key(f64);
impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

fn histogram(ctx: &AggCtx, name: &str, p: &Map<String, Value>, sub: Option<&Value>, docs: &[Match]) -> Result<Value, EsError> {
    check_params("histogram", p, &["field", "interval", "min_doc_count", "extended_bounds", "hard_bounds", "offset", "order", "keyed", "missing", "format"])?;
    let missing = p.get("missing").and_then(to_f64_ref).map(Val::F64);
    let interval = p.get("interval").and_then(to_f64_ref).filter(|i| *i > 0.0).ok_or_else(|| bad(format!("histogram {name:?} needs a positive interval")))?;
    let offset = p.get("offset").and_then(to_f64_ref).unwrap_or(0.0);
    let Some(cols) = columns(ctx, "histogram", p)? else {
        return Ok(json!({"buckets": []}));
    };
    let key_of = |v: f64| ((v - offset) / interval).floor() * interval + offset;
    let mut groups: BTreeMap<Key, Vec<Match>> = BTreeMap::new();
    let mut buf = Vec::new();
    for m in docs {
        doc_values(&cols, m, &mut buf);
        if let (true, Some(v)) = (buf.is_empty(), missing) {
            buf.push(v);
        }
        let mut last = None;
        for v in buf.iter().filter_map(|v| v.number()) {
            let k = key_of(v);
            if last != Some(k) {
                groups.entry(Key(k)).or_default().push(*m);
                last = Some(k);
            }
        }
    }
    let bounds = match p.get("extended_bounds") {
        Some(b) => match (b.get("min").and_then(to_f64_ref), b.get("max").and_then(to_f64_ref)) {
            (Some(lo), Some(hi)) => Some((Key(key_of(lo)), Key(key_of(hi)))),
            _ => return Err(bad("extended_bounds needs min and max".into())),
        },
        None => None,
    };
    let min_doc_count = p.get("min_doc_count").and_then(Value::as_u64).unwrap_or(0) as usize;
    // Keys are recomputed from an index to avoid drift when adding the interval repeatedly.
    let mut keys = bucket_keys(ctx, name, &groups, min_doc_count, bounds, |k: Key| {
        let i = ((k.0 - offset) / interval).round();
        Some(Key((i + 1.0) * interval + offset))
    })?;
    if let Some(h) = p.get("hard_bounds") {
        let (lo, hi) = (h.get("min").and_then(to_f64_ref).unwrap_or(f64::MIN), h.get("max").and_then(to_f64_ref).unwrap_or(f64::MAX));
        keys.retain(|k| k.0 >= key_of(lo) && k.0 <= hi);
    }
    let buckets =
        keys.into_iter().map(|k| Bucket { key: json!(k.0), key_as_string: None, extra: Map::new(), docs: groups.remove(&k).unwrap_or_default() }).collect();
    let mut rendered = render(ctx, buckets, sub, None)?;
    order_histogram(p.get("order"), &mut rendered)?;
    Ok(json!({ "buckets": keyed(p, rendered) }))
}

fn to_f64_ref(v: &Value) -> Option<f64> {
    to_f64(v)
}

/// ES's number form in range keys: `100.0`, `2.5`.
fn es_number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 { format!("{f:.1}") } else { f.to_string() }
}

fn range(ctx: &AggCtx, name: &str, kind: &str, p: &Map<String, Value>, sub: Option<&Value>, docs: &[Match]) -> Result<Value, EsError> {
    check_params(kind, p, &["field", "ranges", "format", "keyed", "missing", "time_zone"])?;
    let ranges = p.get("ranges").and_then(Value::as_array).ok_or_else(|| bad(format!("{kind} {name:?} needs ranges")))?;
    let cols = columns(ctx, kind, p)?;
    let dates = kind == "date_range" || cols.as_ref().is_some_and(|c| c.kind == FieldKind::Date);
    let format = p.get("format").and_then(Value::as_str);
    let bound = |v: Option<&Value>, up: bool| -> Result<Option<f64>, EsError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if dates => {
                resolve_bound(s, ctx.now_ms, up).map(|ms| Some(ms as f64)).ok_or_else(|| bad(format!("{kind}: {s:?} is not a date")))
            }
            Some(other) => to_f64(other).map(Some).ok_or_else(|| bad(format!("{kind}: {other} is not a number"))),
        }
    };
    let missing = bound(p.get("missing"), false)?;
    ctx.spend(ranges.len(), name)?;
    let mut buckets = Vec::with_capacity(ranges.len());
    let mut buf = Vec::new();
    for r in ranges {
        let ro = r.as_object().ok_or_else(|| bad(format!("{kind}: each range must be an object")))?;
        check_params(&format!("{kind}.ranges"), ro, &["from", "to", "key"])?;
        let (from, to) = (bound(ro.get("from"), false)?, bound(ro.get("to"), false)?);
        let show = |f: Option<f64>| match f {
            None => "*".to_string(),
            Some(x) if dates => format_millis(x as i64, format),
            Some(x) => es_number(x),
        };
        let key = ro.get("key").and_then(Value::as_str).map_or_else(|| format!("{}-{}", show(from), show(to)), str::to_string);
        let mut in_range = Vec::new();
        if let Some(cols) = &cols {
            for m in docs {
                doc_values(cols, m, &mut buf);
                if let (true, Some(x)) = (buf.is_empty(), missing) {
                    buf.push(Val::F64(x));
                }
                if buf.iter().filter_map(|v| v.number()).any(|x| from.is_none_or(|f| x >= f) && to.is_none_or(|t| x < t)) {
                    in_range.push(*m);
                }
            }
        }
        let mut extra = Map::new();
        if let Some(f) = from {
            extra.insert("from".into(), json!(f));
            if dates {
                extra.insert("from_as_string".into(), json!(format_millis(f as i64, format)));
            }
        }
        if let Some(t) = to {
            extra.insert("to".into(), json!(t));
            if dates {
                extra.insert("to_as_string".into(), json!(format_millis(t as i64, format)));
            }
        }
        buckets.push(Bucket { key: json!(key), key_as_string: None, extra, docs: in_range });
    }
    Ok(json!({ "buckets": keyed(p, render(ctx, buckets, sub, None)?) }))
}

fn metric(ctx: &AggCtx, kind: &str, p: &Map<String, Value>, docs: &[Match]) -> Result<Value, EsError> {
    check_params(kind, p, &["field", "format", "precision_threshold", "missing"])?;
    let missing = p.get("missing").and_then(to_f64_ref);
    let format = p.get("format").and_then(Value::as_str);
    let cols = columns(ctx, kind, p)?;
    let dates = cols.as_ref().is_some_and(|c| c.kind == FieldKind::Date);
    let (mut count, mut sum, mut min, mut max) = (0u64, 0.0f64, f64::INFINITY, f64::NEG_INFINITY);
    let mut distinct_numbers: HashSet<u64> = HashSet::new();
    let mut distinct_ords: HashSet<(u32, u64)> = HashSet::new();
    let mut buf = Vec::new();
    if let Some(cols) = &cols {
        for m in docs {
            buf.clear();
            cols.values(m.seg, m.doc, &mut buf);
            if buf.is_empty()
                && let Some(x) = missing
            {
                buf.push(Val::F64(x));
            }
            for v in &buf {
                count += 1;
                match v.number() {
                    Some(x) => {
                        sum += x;
                        min = min.min(x);
                        max = max.max(x);
                        if kind == "cardinality" {
                            distinct_numbers.insert(x.to_bits());
                        }
                    }
                    None => {
                        if let (Val::Ord(o), "cardinality") = (v, kind) {
                            distinct_ords.insert((m.seg, *o));
                        }
                    }
                }
            }
        }
    }
    let numeric = cols.as_ref().is_some_and(|c| c.kind != FieldKind::Keyword);
    if !numeric && matches!(kind, "avg" | "sum" | "min" | "max" | "stats") && cols.is_some() {
        return Err(EsError::Mapping(format!("{kind}: field {:?} is not numeric", p.get("field"))));
    }
    let none = count == 0;
    let with_string = |v: Value, ms: Option<f64>| -> Value {
        match (dates, ms) {
            (true, Some(x)) => {
                json!({"value": v, "value_as_string": format_millis(x as i64, format)})
            }
            _ => json!({ "value": v }),
        }
    };
    let opt = |x: f64| if none { None } else { Some(x) };
    Ok(match kind {
        "avg" => with_string(json!(opt(sum / count.max(1) as f64)), opt(sum / count.max(1) as f64)),
        "sum" => json!({"value": sum}),
        "min" => with_string(json!(opt(min)), opt(min)),
        "max" => with_string(json!(opt(max)), opt(max)),
        "value_count" => json!({"value": count}),
        "cardinality" => {
            let mut strings: HashSet<String> = HashSet::new();
            if let Some(cols) = &cols {
                for (seg, ord) in &distinct_ords {
                    strings.insert(cols.term(*seg, *ord)?);
                }
            }
            json!({"value": distinct_numbers.len() + strings.len()})
        }
        _ => {
            let mut s = json!({"count": count, "min": opt(min), "max": opt(max), "avg": opt(sum / count.max(1) as f64), "sum": sum});
            if dates && !none {
                s["min_as_string"] = json!(format_millis(min as i64, format));
                s["max_as_string"] = json!(format_millis(max as i64, format));
            }
            s
        }
    })
}
