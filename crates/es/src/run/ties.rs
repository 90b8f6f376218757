//! Ties at the cut of a top-N grouping: "which mechanic fixes the most cars?" answered with one
//! bucket when three mechanics fixed exactly as many is a confident answer the data does not
//! support. The probe reruns the checked body with more buckets; the answer keeps its buckets
//! and a note names the groups that tie with the last one shown.

use serde_json::Value;

use super::Nodes;
use crate::guard::check_body;
use crate::mapping::Mapping;
use crate::{Endpoint, EsLimits, SearchEngine};

/// Groupings longer than this are lists, not "the most …": their cut is not checked.
const MAX_TOP_N: u64 = 10;
/// How many buckets past the cut the probe reads.
const PAST_THE_CUT: u64 = 100;

/// The note naming the groups that tie with the last bucket shown, or None (no cut, no tie, or
/// the probe could not run).
pub(super) fn tie_note(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits, body: &Value, aggregations: Option<&Value>, nodes: &mut Nodes) -> Option<String> {
    let terms = body.get("aggs")?.get("group")?.get("terms")?;
    let n = terms.get("size")?.as_u64()?;
    if n == 0 || n > MAX_TOP_N || body["aggs"]["group"].get("aggs").is_some_and(|a| a.get("group1").is_some()) {
        return None;
    }
    // What orders the buckets: the count, or the metric sub-aggregation.
    let by_metric = terms.get("order").and_then(|o| o.get("metric")).is_some();
    if terms.get("order").is_some_and(|o| o.get("_key").is_some()) {
        return None;
    }
    let shown = aggregations?.get("group")?.get("buckets")?.as_array()?;
    if (shown.len() as u64) < n {
        return None;
    }
    let mut probe = body.clone();
    probe["aggs"]["group"]["terms"]["size"] = Value::from((n + PAST_THE_CUT).min(limits.max_buckets as u64));
    let req = check_body(&probe, Endpoint::Search, mapping, limits).request()?;
    let resp = nodes.run(engine, &req).ok()?;
    let buckets = resp.get("aggregations")?.get("group")?.get("buckets")?.as_array()?.clone();
    let key = |b: &Value| if by_metric { b["metric"]["value"].clone() } else { b["doc_count"].clone() };
    let n = n as usize;
    let cut = key(buckets.get(n - 1)?);
    if cut.is_null() {
        return None;
    }
    let others: Vec<String> = buckets[n..].iter().take_while(|b| key(b) == cut).map(|b| b.get("key_as_string").unwrap_or(&b["key"]).as_str().map_or_else(|| b["key"].to_string(), str::to_string)).collect();
    if others.is_empty() {
        return None;
    }
    let named = others.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    let more = if others.len() > 5 { format!(" and {} more", others.len() - 5) } else { String::new() };
    let place = if n == 1 { "first place".to_string() } else { format!("place {n}") };
    let tie = if others.len() == 1 { "1 other group ties".to_string() } else { format!("{} other groups tie", others.len()) };
    Some(format!("{tie} for {place} ({named}{more}): which one is shown is arbitrary; ask for the top {} to see them all", n + others.len()))
}
