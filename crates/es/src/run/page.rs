//! Paged execution of a search (F07): `from`/`size` inside the result window, `search_after`
//! on the body's sort plus a `_doc` tie-breaker past it. Every request of a walk is a new body,
//! so each goes through the guard like any other; the page returned carries the cursor of the
//! next one (the last hit's sort values), so "show more" past the window does not walk again.
//!
//! The tie-breaker makes the order total, and the embedded engine's default order (score, then
//! record order) is exactly `[_score desc, _doc asc]`, so pages inside and beyond the window
//! follow one order: no hit is repeated or skipped at the boundary. On a remote multi-shard
//! index `_doc` is per shard; without a point-in-time context (which bodies may not open)
//! Elasticsearch documents such walks as best effort.

use serde_json::{Value, json};

use super::Nodes;
use crate::{EsError, EsLimits, Mapping, Page, SearchEngine};

/// Most requests one walk may take to reach its page (each returns up to the row cap), so a
/// very deep offset costs a bounded amount of work; a page's cursor reaches the next page in
/// one request.
pub const MAX_WALK_STEPS: usize = 100;

/// One page of hits and the response it came from.
pub(super) struct Paged {
    /// The body that fetched the page (after the guard).
    pub(super) body: Value,
    /// The engine's response to it.
    pub(super) response: Value,
    /// The page, with the next page's cursor when the hits carry sort values.
    pub(super) page: Page,
}

/// `body`'s sort with a `_doc` tie-breaker (by score first when it has none).
pub fn walk_sort(body: &Value) -> Value {
    let mut keys: Vec<Value> = match body.get("sort") {
        None | Some(Value::Null) => vec![json!({"_score": "desc"})],
        Some(Value::Array(a)) => a.clone(),
        Some(one) => vec![one.clone()],
    };
    let named = |k: &Value, name: &str| k.as_str() == Some(name) || k.get(name).is_some();
    if !keys.iter().any(|k| named(k, "_doc") || named(k, "_shard_doc")) {
        keys.push(json!({"_doc": "asc"}));
    }
    Value::Array(keys)
}

/// Where a page starts: an offset, and the sort values of the hit before it when known.
pub(super) struct PageAt<'a> {
    /// First hit of the page.
    pub(super) offset: usize,
    /// Hits per page.
    pub(super) size: usize,
    /// The cursor of this page (the previous page's last sort values), if the caller has it.
    pub(super) after: Option<&'a [Value]>,
}

/// Fetch the page `at` of the search `base` (a body the guard accepted, without `from`).
pub(super) fn fetch(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits, base: &Value, at: &PageAt, nodes: &mut Nodes) -> Result<Paged, EsError> {
    let window = limits.max_window;
    let mut body = base.clone();
    strip_paging(&mut body);
    body["size"] = json!(at.size);
    let after: Option<Vec<Value>> = match at.after {
        Some(a) if at.offset > 0 => Some(a.to_vec()),
        _ if at.offset + at.size <= window => None,
        _ => Some(walk_to(engine, mapping, limits, &body, at.offset, nodes)?),
    };
    if after.as_ref().is_some_and(Vec::is_empty) {
        // The results end before the offset: an empty page, with the total.
        let total = total_only(engine, mapping, limits, base, nodes)?;
        let page = Page { offset: at.offset, size: at.size, next_offset: None, search_after: None };
        return Ok(Paged { body, response: json!({"hits": {"total": {"value": total}, "hits": []}}), page });
    }
    match &after {
        Some(a) => {
            body["sort"] = walk_sort(&body);
            body["search_after"] = Value::Array(a.clone());
        }
        None => {
            if at.offset > 0 {
                body["from"] = json!(at.offset);
            }
            // The next page lies past the window: sort with the tie-breaker now, so this page's
            // last hit gives the next page's cursor.
            if at.offset + 2 * at.size > window {
                body["sort"] = walk_sort(&body);
            }
        }
    }
    let response = send(engine, mapping, limits, &body, nodes)?;
    let hits = response["hits"]["hits"].as_array().cloned().unwrap_or_default();
    let total = total_of(&response);
    let next = at.offset + hits.len();
    let next_offset = ((next as u64) < total && !hits.is_empty()).then_some(next);
    let search_after = next_offset.and(hits.last()).and_then(|h| h.get("sort")).and_then(Value::as_array).cloned();
    Ok(Paged { body, response, page: Page { offset: at.offset, size: at.size, next_offset, search_after } })
}

/// The sort values of the hit just before `offset` (past the window): one `from`/`size` request
/// to the window's last hit, then `search_after` steps of the row cap. Empty when the results
/// end before `offset`.
fn walk_to(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits, body: &Value, offset: usize, nodes: &mut Nodes) -> Result<Vec<Value>, EsError> {
    let step = limits.row_cap.max(1);
    let jump = offset.min(limits.max_window);
    let steps = 1 + (offset - jump).div_ceil(step);
    if steps > MAX_WALK_STEPS {
        return Err(EsError::Refused(vec![format!(
            "offset {offset} lies {} hits past the {}-hit window: reaching it would take {steps} requests (at most {MAX_WALK_STEPS}); page there step by step with each page's cursor, or narrow the query",
            offset - jump,
            limits.max_window
        )]));
    }
    let mut walk = body.clone();
    walk["sort"] = walk_sort(body);
    walk["from"] = json!(jump - 1);
    walk["size"] = json!(1);
    let mut reached = jump - 1;
    let mut after = last_sort(&send(engine, mapping, limits, &walk, nodes)?);
    walk.as_object_mut().map(|o| o.remove("from"));
    while reached + 1 < offset {
        let Some(a) = after.clone().filter(|a| !a.is_empty()) else { break };
        let want = (offset - reached - 1).min(step);
        walk["size"] = json!(want);
        walk["search_after"] = Value::Array(a);
        let resp = send(engine, mapping, limits, &walk, nodes)?;
        let got = resp["hits"]["hits"].as_array().map_or(0, Vec::len);
        if got < want {
            return Ok(Vec::new());
        }
        reached += got;
        after = last_sort(&resp);
    }
    after.ok_or_else(|| EsError::Engine("search_after paging: the hits carry no sort values".into()))
}

/// The last hit's sort values: `Some(empty)` when there is no hit, `None` when hits carry none.
fn last_sort(resp: &Value) -> Option<Vec<Value>> {
    match resp["hits"]["hits"].as_array() {
        Some(h) if h.is_empty() => Some(Vec::new()),
        Some(h) => h.last().and_then(|x| x.get("sort")).and_then(Value::as_array).cloned(),
        None => Some(Vec::new()),
    }
}

/// The total of `base` alone (for an empty page past the last hit).
fn total_only(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits, base: &Value, nodes: &mut Nodes) -> Result<u64, EsError> {
    let mut body = base.clone();
    strip_paging(&mut body);
    body["size"] = json!(0);
    Ok(total_of(&send(engine, mapping, limits, &body, nodes)?))
}

fn strip_paging(body: &mut Value) {
    if let Some(o) = body.as_object_mut() {
        o.remove("from");
        o.remove("search_after");
    }
}

/// Check `body` with the guard, then run it.
fn send(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits, body: &Value, nodes: &mut Nodes) -> Result<Value, EsError> {
    let req = crate::guard::checked(body, crate::Endpoint::Search, mapping, limits)?;
    nodes.run(engine, &req)
}

/// `hits.total` of a response (Elasticsearch's object or OpenSearch's number), or `count`.
pub(super) fn total_of(resp: &Value) -> u64 {
    resp["hits"]["total"]["value"].as_u64().or_else(|| resp["hits"]["total"].as_u64()).or_else(|| resp["count"].as_u64()).unwrap_or(0)
}
