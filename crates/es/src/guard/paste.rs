//! Pasted text: a bare JSON body, or one Kibana-console request (`GET /idx/_search {…}`,
//! `POST idx/_count`, `GET _search`). Only `GET`/`POST` on `_search` and `_count` are read;
//! every other method and endpoint is refused with the reason.

use serde_json::Value;

use crate::Endpoint;

/// Longest pasted text read (bytes).
pub const MAX_PASTE_BYTES: usize = 1 << 20;

/// Query parameters that change nothing but the response's formatting; they are dropped.
const HARMLESS_PARAMS: &[&str] = &["pretty", "human", "error_trace"];

/// A request read from pasted text.
#[derive(Debug)]
pub(super) struct Pasted {
    pub endpoint: Endpoint,
    /// The index named in the path, if any.
    pub index: Option<String>,
    pub body: Value,
    /// What was dropped on the way (formatting parameters).
    pub notes: Vec<String>,
}

/// The request in `text`, or every reason it cannot be one.
pub(super) fn parse(text: &str) -> Result<Pasted, Vec<String>> {
    if text.len() > MAX_PASTE_BYTES {
        return Err(vec![format!("the text is {} bytes; at most {MAX_PASTE_BYTES}", text.len())]);
    }
    let text = text.trim_start_matches('\u{feff}');
    // Console comments before the request.
    let mut rest = text.trim_start();
    while rest.starts_with('#') || rest.starts_with("//") {
        rest = rest.split_once('\n').map_or("", |(_, r)| r).trim_start();
    }
    if rest.is_empty() {
        return Err(vec!["nothing to check: paste a JSON body or a request such as GET /index/_search {…}".into()]);
    }
    if rest.starts_with('{') {
        let body = one_json(rest)?;
        return Ok(Pasted { endpoint: Endpoint::Search, index: None, body, notes: Vec::new() });
    }
    let (line, body_text) = rest.split_once('\n').unwrap_or((rest, ""));
    let mut words = line.split_whitespace();
    let (method, target) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
    // A body may follow on the request line itself (`GET idx/_search {"query": …}`).
    let inline_body = line.trim_start()[method.len()..].trim_start().get(target.len()..).unwrap_or_default();
    if method.eq_ignore_ascii_case("curl") {
        return Err(vec!["curl commands are not read: paste the JSON body or a console request (GET /index/_search {…})".into()]);
    }
    let mut reasons = Vec::new();
    check_method(method, &mut reasons);
    let (endpoint, index, notes) = match parse_target(target) {
        Ok(t) => t,
        Err(why) => {
            reasons.push(why);
            (Endpoint::Search, None, Vec::new())
        }
    };
    if !reasons.is_empty() {
        return Err(reasons);
    }
    let body_text = format!("{inline_body}\n{body_text}");
    let body = if body_text.trim().is_empty() { Value::Object(Default::default()) } else { one_json(body_text.trim())? };
    Ok(Pasted { endpoint, index, body, notes })
}

fn check_method(method: &str, reasons: &mut Vec<String>) {
    match method.to_ascii_uppercase().as_str() {
        "GET" | "POST" => {}
        "" => reasons.push("expected a JSON body or a request line such as GET /index/_search".into()),
        "DELETE" => reasons.push("DELETE removes data: only GET or POST to _search and _count may run".into()),
        "PUT" | "PATCH" => reasons.push(format!("{method} writes: only GET or POST to _search and _count may run")),
        m if m.bytes().all(|b| b.is_ascii_alphabetic()) => reasons.push(format!("method {m} is not allowed: only GET or POST to _search and _count")),
        _ => reasons.push(format!("{method:?} is neither a JSON body nor a request line (GET /index/_search)")),
    }
}

/// `/idx/_search?pretty` → the endpoint, the index, notes.
fn parse_target(target: &str) -> Result<(Endpoint, Option<String>, Vec<String>), String> {
    if target.is_empty() {
        return Err("the request line names no endpoint: GET /index/_search".into());
    }
    if target.contains("://") {
        return Err("give the path only (GET /index/_search): the server is the configured one".into());
    }
    if target.contains('%') {
        return Err(format!("percent-encoded paths are not accepted: {target:?}"));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut notes = Vec::new();
    for param in query.split('&').filter(|p| !p.is_empty()) {
        let name = param.split('=').next().unwrap_or(param);
        if HARMLESS_PARAMS.contains(&name) {
            notes.push(format!("query parameter {name:?} dropped (formatting only)"));
        } else {
            return Err(format!("query parameter {name:?} is not allowed: everything the request does must be in the checked body"));
        }
    }
    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    let (index, ep) = match segments.as_slice() {
        ["_all", ..] => return Err("_all names several indices: only the checked index may be searched".into()),
        [ep] if ep.starts_with('_') => (None, *ep),
        [first, ..] if first.starts_with('_') => return Err(endpoint_reason(path.trim_matches('/'))),
        [idx] => return Err(format!("{idx:?} alone is not a search: only /<index>/_search and /<index>/_count may run")),
        [idx, ep] => {
            check_index_name(idx)?;
            (Some(idx.to_string()), *ep)
        }
        [] => return Err("the request line names no endpoint: GET /index/_search".into()),
        [_, ep, ..] if !matches!(*ep, "_search" | "_count") => (None, *ep),
        _ => return Err(format!("{path:?}: only /<index>/_search and /<index>/_count may run")),
    };
    let endpoint = match ep {
        "_search" => Endpoint::Search,
        "_count" => Endpoint::Count,
        other => return Err(endpoint_reason(other)),
    };
    if segments.len() > 2 {
        return Err(format!("{path:?}: only /<index>/_search and /<index>/_count may run"));
    }
    Ok((endpoint, index, notes))
}

/// An index name as Elasticsearch allows it, and a single concrete one (no lists, patterns or
/// `_all`).
fn check_index_name(idx: &str) -> Result<(), String> {
    if idx.contains([',', '*']) || idx == "_all" {
        return Err(format!("{idx:?} names several indices: only the checked index may be searched"));
    }
    if idx.starts_with(['_', '-', '+']) {
        return Err(format!("{idx:?} is not an index name"));
    }
    if idx.contains(['\\', '"', '<', '>', '|', ' ', '#', ':']) {
        return Err(format!("{idx:?} is not a valid index name"));
    }
    Ok(())
}

/// Why an endpoint other than `_search`/`_count` is refused.
fn endpoint_reason(ep: &str) -> String {
    let head = ep.split('/').next().unwrap_or(ep);
    let why = match head {
        "_delete_by_query" | "_update_by_query" | "_update" | "_bulk" | "_doc" | "_create" | "_reindex" | "_delete" => {
            "writes or deletes documents"
        }
        "_msearch" | "_mget" | "_async_search" | "_search_shards" | "_field_caps" | "_termvectors" | "_mtermvectors" | "_explain" | "_validate"
        | "_knn_search" | "_terms_enum" | "_rank_eval" | "_search_template" | "_render" | "_source" => "is not one of the two endpoints that run",
        "_sql" | "_eql" | "_esql" | "_query" | "_ppl" | "_plugins" | "_opendistro" => "runs a query language the guard does not check",
        "_scripts" => "manages stored scripts",
        "_pit" => "opens point-in-time contexts (the engine does that itself)",
        "_mapping" | "_mappings" | "_settings" | "_alias" | "_aliases" | "_stats" | "_segments" | "_recovery" => {
            "reads or changes index metadata (use `qa es mapping` to see the mapping)"
        }
        "_close" | "_open" | "_forcemerge" | "_refresh" | "_flush" | "_cache" | "_shrink" | "_split" | "_clone" | "_rollover" | "_freeze"
        | "_unfreeze" | "_block" => "administers the index",
        "_cluster" | "_nodes" | "_cat" | "_snapshot" | "_security" | "_ingest" | "_tasks" | "_ilm" | "_license" | "_xpack" | "_ml" | "_transform"
        | "_watcher" | "_all" | "_data_stream" | "_index_template" | "_template" | "_component_template" => "is a cluster or admin API",
        _ => "is not allowed",
    };
    format!("endpoint {ep} {why}: only _search and _count on the checked index may run")
}

/// Exactly one JSON value and nothing after it.
fn one_json(text: &str) -> Result<Value, Vec<String>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(vec![format!("the body is not valid JSON: {e}")]),
        None => return Err(vec!["the body is empty".into()]),
    };
    let after = text[stream.byte_offset()..].trim();
    if !after.is_empty() {
        return Err(vec!["text after the body (several requests or bodies?): paste exactly one request".into()]);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_requests() {
        let p = parse("GET /books/_search\n{\"query\": {\"match_all\": {}}}").unwrap();
        assert_eq!((p.endpoint, p.index.as_deref()), (Endpoint::Search, Some("books")));
        assert!(p.body.get("query").is_some());
        let p = parse("post books/_count").unwrap();
        assert_eq!((p.endpoint, p.index.as_deref(), p.body), (Endpoint::Count, Some("books"), serde_json::json!({})));
        let p = parse("# a comment\nGET _search?pretty {\"size\": 1}").unwrap();
        assert_eq!((p.endpoint, p.index, p.body), (Endpoint::Search, None, serde_json::json!({"size": 1})));
        assert_eq!(p.notes.len(), 1);
        let p = parse("  {\"size\": 2}  ").unwrap();
        assert_eq!(p.body, serde_json::json!({"size": 2}));
    }

    #[test]
    fn refused_requests_say_why() {
        for (text, word) in [
            ("POST /books/_delete_by_query {\"query\": {\"match_all\": {}}}", "deletes"),
            ("DELETE /books", "DELETE"),
            ("PUT /books/_doc/1 {}", "PUT"),
            ("GET /books/_doc/1", "writes"),
            ("GET /a,b/_search", "several"),
            ("GET /*/_search", "several"),
            ("GET _all/_search", "several"),
            ("GET /books/_search?q=title:x", "\"q\""),
            ("GET /books/_search?scroll=1m", "\"scroll\""),
            ("POST _sql {\"query\": \"select 1\"}", "query language"),
            ("GET /books/_search {} GET /books/_search {}", "exactly one"),
            ("{\"size\": 1}{\"size\": 2}", "exactly one"),
            ("GET /books/_search {not json", "valid JSON"),
            ("curl -XPOST localhost:9200/books/_search", "curl"),
            ("GET http://h:9200/books/_search", "path only"),
            ("GET /books/%5Fsearch", "percent"),
            ("", "nothing"),
        ] {
            let reasons = parse(text).expect_err(text);
            assert!(reasons.iter().any(|r| r.contains(word)), "{text}: {reasons:?}");
        }
    }
}
