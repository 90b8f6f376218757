//! The aggregations that select documents by query or return them: `filter`, `filters` and
//! `top_hits`.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::aggs::{AggCtx, run};
use super::query::{self, QueryCtx};
use super::search::{self, HitStyle, Match, SortSpec, SourceFilter};
use crate::EsError;

/// The documents of `docs` that also match `q`.
fn docs_matching(ctx: &AggCtx, q: &Value, docs: &[Match]) -> Result<Vec<Match>, EsError> {
    let qctx = QueryCtx { layout: ctx.layout, index: ctx.index, now_ms: ctx.now_ms };
    let query = query::build(&qctx, q)?;
    let keep: HashSet<(u32, u32)> = search::collect(ctx.searcher, query.as_ref(), false)?.into_iter().map(|m| (m.seg, m.doc)).collect();
    Ok(docs.iter().filter(|m| keep.contains(&(m.seg, m.doc))).copied().collect())
}

/// A single bucket: its doc count and sub-aggregations.
fn single_bucket(ctx: &AggCtx, docs: &[Match], sub: Option<&Value>) -> Result<Map<String, Value>, EsError> {
    let mut o = Map::new();
    o.insert("doc_count".into(), json!(docs.len()));
    if let Some(s) = sub
        && let Value::Object(subs) = run(ctx, docs, s)?
    {
        o.extend(subs);
    }
    Ok(o)
}

/// `{"filter": QUERY}`: one bucket of the documents matching the query.
pub(crate) fn filter(ctx: &AggCtx, name: &str, q: &Value, sub: Option<&Value>, docs: &[Match]) -> Result<Value, EsError> {
    ctx.spend(1, name)?;
    let kept = docs_matching(ctx, q, docs)?;
    Ok(Value::Object(single_bucket(ctx, &kept, sub)?))
}

/// `{"filters": {"filters": {NAME: QUERY, …} | [QUERY, …], "other_bucket", "other_bucket_key",
/// "keyed"}}`: one bucket per query, and optionally one for documents matching none.
pub(crate) fn filters(ctx: &AggCtx, name: &str, p: &Map<String, Value>, sub: Option<&Value>, docs: &[Match]) -> Result<Value, EsError> {
    if let Some(k) = p.keys().find(|k| !matches!(k.as_str(), "filters" | "other_bucket" | "other_bucket_key" | "keyed")) {
        return Err(EsError::Unsupported(format!("filters.{k}")));
    }
    let named: Vec<(Option<String>, &Value)> = match p.get("filters") {
        Some(Value::Object(o)) => o.iter().map(|(k, q)| (Some(k.clone()), q)).collect(),
        Some(Value::Array(a)) => a.iter().map(|q| (None, q)).collect(),
        _ => return Err(EsError::Json(format!("filters {name:?} needs \"filters\" (an object or a list of queries)"))),
    };
    let other_key = p.get("other_bucket_key").and_then(Value::as_str).map(str::to_string);
    let other = p.get("other_bucket").and_then(Value::as_bool).unwrap_or(other_key.is_some());
    let keyed = named.first().is_some_and(|(n, _)| n.is_some()) && p.get("keyed").and_then(Value::as_bool).unwrap_or(true);
    ctx.spend(named.len() + usize::from(other), name)?;
    let mut matched: HashSet<(u32, u32)> = HashSet::new();
    let mut buckets: Vec<(Option<String>, Map<String, Value>)> = Vec::with_capacity(named.len() + 1);
    for (key, q) in named {
        let kept = docs_matching(ctx, q, docs)?;
        matched.extend(kept.iter().map(|m| (m.seg, m.doc)));
        buckets.push((key, single_bucket(ctx, &kept, sub)?));
    }
    if other {
        let rest: Vec<Match> = docs.iter().filter(|m| !matched.contains(&(m.seg, m.doc))).copied().collect();
        buckets.push((Some(other_key.unwrap_or_else(|| "_other_".into())), single_bucket(ctx, &rest, sub)?));
    }
    let rendered = if keyed {
        Value::Object(buckets.into_iter().map(|(k, b)| (k.unwrap_or_default(), Value::Object(b))).collect())
    } else {
        Value::Array(
            buckets
                .into_iter()
                .map(|(k, mut b)| {
                    if let Some(k) = k {
                        b.insert("key".into(), json!(k));
                    }
                    Value::Object(b)
                })
                .collect(),
        )
    };
    Ok(json!({ "buckets": rendered }))
}

/// `{"top_hits": {"size", "from", "sort", "_source"}}`: the best documents of the bucket, as
/// hits (by score unless sorted).
pub(crate) fn top_hits(ctx: &AggCtx, p: &Map<String, Value>, docs: &[Match]) -> Result<Value, EsError> {
    if let Some(k) = p.keys().find(|k| !matches!(k.as_str(), "size" | "from" | "sort" | "_source")) {
        return Err(EsError::Unsupported(format!("top_hits.{k}")));
    }
    let size = p.get("size").and_then(Value::as_u64).unwrap_or(3) as usize;
    let from = p.get("from").and_then(Value::as_u64).unwrap_or(0) as usize;
    let sort = SortSpec::parse(ctx.searcher, ctx.layout, p.get("sort"))?;
    let source = SourceFilter::parse(p.get("_source"))?;
    let page = search::page(&sort, docs, None, from, size)?;
    let scores = !sort.explicit || sort.needs_scores();
    let style = HitStyle { index: ctx.index_name, scores, sort_values: sort.explicit, source: &source, docvalues: &[] };
    let hits = search::hits_json(ctx.searcher, ctx.layout, page, &style)?;
    let max_score = if scores { docs.iter().map(|m| m.score).reduce(f32::max).map_or(Value::Null, |s| json!(s)) } else { Value::Null };
    Ok(json!({"hits": {"total": {"value": docs.len(), "relation": "eq"}, "max_score": max_score, "hits": hits}}))
}
