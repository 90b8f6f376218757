//! Terminal output of an ES answer (`qa es`, and the ES route of `qa ask`): hits as a table of their most informative top-level fields,
//! aggregations as tables of buckets or metrics (with a bar chart), and the lines around them.
//! Everything is derived from the answer's shapes (Elasticsearch's response format), never from
//! field names: it works the same for any index.

use std::collections::{BTreeSet, HashSet};
use std::io::Write;

use serde_json::{Map, Value};

use crate::{EsAnswer, Intent};
use qa_core::trace::Status;
use qa_sql::QueryResult;

/// Longest cell text used to estimate a column's width (the table cuts longer text with "…").
const MAX_ESTIMATED: usize = 30;
/// Texts longer than this on average are prose: shown only when there is room.
const PROSE: usize = 40;

/// The table of hits: the top-level `_source` fields that tell the hits apart, as many as fit
/// `width`: identifiers first, then short texts, dates, numbers, and prose last.
pub fn hits_table(hits: &[Value], width: usize) -> QueryResult {
    let columns = choose_columns(hits, width);
    let rows = hits.iter().map(|h| columns.iter().map(|c| cell(h.get(c))).collect()).collect();
    QueryResult { columns, rows, truncated: false, elapsed_ms: 0.0 }
}

/// A value as a table cell: scalars as they are, objects and arrays as compact JSON text.
fn cell(v: Option<&Value>) -> Value {
    match v {
        None | Some(Value::Null) => Value::Null,
        Some(v @ (Value::Object(_) | Value::Array(_))) => Value::String(v.to_string()),
        Some(v) => v.clone(),
    }
}

fn text_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        Value::Null => 0,
        v => v.to_string().chars().count(),
    }
}

struct Candidate {
    name: String,
    /// Column group: 0 identifiers, 1 short texts, 2 dates, 3 numbers and booleans, 4 prose and
    /// nested values.
    group: u8,
    score: f64,
    width: usize,
}

fn looks_like_date(v: &Value) -> bool {
    let b = v.as_str().map(str::as_bytes).unwrap_or_default();
    b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5..7].iter().all(u8::is_ascii_digit) && b[7] == b'-'
}

/// Rank the top-level fields: present in many hits, different from hit to hit, short enough to
/// read in a cell. Then keep the best that fit the terminal (at least one), grouped by kind
/// (see [`Candidate::group`]) and by name within a group.
fn choose_columns(hits: &[Value], width: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for h in hits {
        if let Some(o) = h.as_object() {
            for k in o.keys() {
                if seen.insert(k.clone()) {
                    names.push(k.clone());
                }
            }
        }
    }
    let n = hits.len().max(1) as f64;
    let mut candidates: Vec<Candidate> = names
        .into_iter()
        .map(|name| {
            let values: Vec<&Value> = hits.iter().filter_map(|h| h.get(&name)).filter(|v| !v.is_null()).collect();
            let present = values.len() as f64 / n;
            let distinct = values.iter().map(|v| v.to_string()).collect::<BTreeSet<_>>().len();
            let avg = if values.is_empty() { 0 } else { values.iter().map(|v| text_len(v)).sum::<usize>() / values.len() };
            let nested = values.iter().any(|v| v.is_object() || v.is_array());
            let mut score = present;
            if distinct <= 1 && hits.len() > 1 {
                score *= 0.4;
            }
            if avg > PROSE || nested {
                score *= 0.5;
            }
            let width = name.chars().count().max(avg.min(MAX_ESTIMATED)) + 3;
            let group = if avg > PROSE || nested {
                4
            } else if values.iter().all(|v| v.is_number() || v.is_boolean()) {
                3
            } else if values.iter().all(|v| looks_like_date(v)) {
                2
            } else if distinct == values.len() && values.len() > 1 {
                0
            } else {
                1
            };
            Candidate { name, group, score, width }
        })
        .collect();
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.group.cmp(&b.group)).then(a.name.cmp(&b.name)));
    let mut used = 1;
    let mut chosen: Vec<&Candidate> = Vec::new();
    for c in &candidates {
        if chosen.is_empty() || used + c.width <= width {
            used += c.width;
            chosen.push(c);
        }
    }
    chosen.sort_by(|a, b| a.group.cmp(&b.group).then(a.name.cmp(&b.name)));
    chosen.into_iter().map(|c| c.name.clone()).collect()
}

/// One aggregation shown as a table.
pub struct AggTable {
    /// The aggregation's name in the request.
    pub name: String,
    /// Buckets (key, doc_count, sub-metrics…) or metrics (metric, value).
    pub result: QueryResult,
    /// The two columns a bar chart shows (label, value), when the table has buckets.
    pub chart: Option<QueryResult>,
}

/// The aggregations of a response as tables: one per bucket aggregation, and one for all the
/// single-value metrics together. `request_aggs` (the request's `aggs`) names the bucket key
/// column after the field it groups by.
pub fn aggregation_tables(aggs: &Value, request_aggs: Option<&Value>) -> Vec<AggTable> {
    let mut tables = Vec::new();
    let mut metric_rows: Vec<Vec<Value>> = Vec::new();
    let Some(aggs) = aggs.as_object() else {
        return tables;
    };
    for (name, a) in aggs {
        let request = request_aggs.and_then(|r| r.get(name));
        if let Some(buckets) = a.get("buckets") {
            tables.push(bucket_table(name, buckets, request));
        } else {
            metric_rows.extend(metric_values(name, a));
        }
    }
    if !metric_rows.is_empty() {
        let result = QueryResult { columns: vec!["metric".into(), "value".into()], rows: metric_rows, truncated: false, elapsed_ms: 0.0 };
        tables.push(AggTable { name: "metrics".into(), result, chart: None });
    }
    tables
}

/// The field a request aggregation groups by (`{"terms": {"field": …}}`), if it names one.
fn grouped_field(request: Option<&Value>) -> Option<String> {
    request?.as_object()?.iter().filter(|(k, _)| !matches!(k.as_str(), "aggs" | "aggregations" | "meta")).find_map(|(_, body)| body.get("field")?.as_str().map(str::to_string))
}

/// A bucket's label: `key_as_string` (dates, without a midnight time) or `key`.
fn bucket_label(bucket: &Value, keyed: Option<&str>) -> Value {
    if let Some(s) = bucket.get("key_as_string").and_then(Value::as_str) {
        let day = s.strip_suffix("T00:00:00.000Z").or_else(|| s.strip_suffix("T00:00:00Z")).unwrap_or(s);
        return Value::String(day.to_string());
    }
    match (bucket.get("key"), keyed) {
        (Some(k), _) => k.clone(),
        (None, Some(k)) => Value::String(k.to_string()),
        (None, None) => Value::Null,
    }
}

/// Keys of a bucket that are its own, not sub-aggregations.
fn is_bucket_key(k: &str) -> bool {
    matches!(k, "key" | "key_as_string" | "doc_count" | "from" | "from_as_string" | "to" | "to_as_string" | "doc_count_error_upper_bound")
}

/// The one bucket sub-aggregation of a bucket (a nested grouping), with its name.
fn inner_buckets(bucket: &Value) -> Option<(&str, &Value)> {
    bucket.as_object()?.iter().find(|(k, v)| !is_bucket_key(k) && v.get("buckets").is_some()).map(|(k, v)| (k.as_str(), &v["buckets"]))
}

fn bucket_table(name: &str, buckets: &Value, request: Option<&Value>) -> AggTable {
    // Nested groupings ("per agent" over a first and a last name): one row per inner bucket,
    // the outer keys first.
    let first = buckets.as_array().and_then(|a| a.first());
    if let Some((inner_name, _)) = first.and_then(inner_buckets) {
        let inner_request = request.and_then(|r| r.get("aggs").or_else(|| r.get("aggregations"))).and_then(|a| a.get(inner_name));
        let outer_column = grouped_field(request).unwrap_or_else(|| name.to_string());
        let mut result: Option<QueryResult> = None;
        let mut rows = Vec::new();
        for b in buckets.as_array().into_iter().flatten() {
            let Some((_, inner)) = inner_buckets(b) else { continue };
            let t = bucket_table(inner_name, inner, inner_request);
            for r in &t.result.rows {
                let mut row = vec![bucket_label(b, None)];
                row.extend(r.iter().cloned());
                rows.push(row);
            }
            result.get_or_insert(t.result);
        }
        let mut columns = vec![outer_column];
        columns.extend(result.map(|r| r.columns).unwrap_or_default());
        return AggTable { name: name.to_string(), result: QueryResult { columns, rows, truncated: false, elapsed_ms: 0.0 }, chart: None };
    }
    let list: Vec<(Option<&str>, &Value)> = match buckets {
        Value::Array(a) => a.iter().map(|b| (None, b)).collect(),
        Value::Object(o) => o.iter().map(|(k, b)| (Some(k.as_str()), b)).collect(),
        _ => Vec::new(),
    };
    // Sub-aggregations with a single value become columns, in the order the first bucket has them.
    let mut metrics: Vec<String> = Vec::new();
    for (_, b) in &list {
        if let Some(o) = b.as_object() {
            for (k, v) in o {
                if !is_bucket_key(k) && v.get("buckets").is_none() && (v.get("value").is_some() || v.get("doc_count").is_some()) && !metrics.contains(k) {
                    metrics.push(k.clone());
                }
            }
        }
    }
    let key_column = grouped_field(request).unwrap_or_else(|| name.to_string());
    let mut columns = vec![key_column, "doc_count".to_string()];
    columns.extend(metrics.iter().cloned());
    let rows: Vec<Vec<Value>> = list
        .iter()
        .map(|(keyed, b)| {
            let mut row = vec![bucket_label(b, *keyed), b.get("doc_count").cloned().unwrap_or(Value::Null)];
            for m in &metrics {
                row.push(b.get(m).map(single_value).unwrap_or(Value::Null));
            }
            row
        })
        .collect();
    let value_col = if metrics.len() == 1 { 2 } else { 1 };
    let chart_rows: Vec<Vec<Value>> = rows.iter().map(|r| vec![r[0].clone(), r[value_col].clone()]).collect();
    let chart = QueryResult { columns: vec![columns[0].clone(), columns[value_col].clone()], rows: chart_rows, truncated: false, elapsed_ms: 0.0 };
    AggTable { name: name.to_string(), result: QueryResult { columns, rows, truncated: false, elapsed_ms: 0.0 }, chart: Some(chart) }
}

/// A metric aggregation's value: `value_as_string` (dates) or `value`; a filter's `doc_count`.
fn single_value(v: &Value) -> Value {
    if let Some(s) = v.get("value_as_string") {
        return s.clone();
    }
    v.get("value").or_else(|| v.get("doc_count")).cloned().unwrap_or(Value::Null)
}

/// Rows (name, value) of a metric aggregation: one for a single-value metric, one per statistic
/// for `stats`-like results.
fn metric_values(name: &str, a: &Value) -> Vec<Vec<Value>> {
    if a.get("value").is_some() || a.get("doc_count").is_some() && a.as_object().is_some_and(|o| o.len() == 1) {
        return vec![vec![Value::String(name.to_string()), single_value(a)]];
    }
    let Some(o) = a.as_object() else {
        return vec![vec![Value::String(name.to_string()), a.clone()]];
    };
    o.iter()
        .filter(|(k, v)| !k.ends_with("_as_string") && (v.is_number() || v.is_null()))
        .map(|(k, v)| vec![Value::String(format!("{name}.{k}")), o.get(&format!("{k}_as_string")).cloned().unwrap_or_else(|| v.clone())])
        .collect()
}

/// How the user continues an answer: with `qa es` flags, or with the next message of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continuation {
    /// `--offset N`, `--resume ID --answer …`.
    Flags,
    /// "show me more", a reply in the next turn.
    Session,
}

/// "showing 1–20 of 143; next: --offset 20" (or why nothing is shown).
pub fn page_line(a: &EsAnswer, how: Continuation) -> Option<String> {
    let total = a.total?;
    if a.intent == Intent::Count {
        return Some(format!("{total} matching document{}", if total == 1 { "" } else { "s" }));
    }
    if a.hits.is_empty() {
        return match &a.page {
            Some(p) if p.offset > 0 && total > 0 => Some(format!("no hits at offset {} (there are {total})", p.offset)),
            _ if a.aggregations.is_some() => Some(format!("{total} matching document{}", if total == 1 { "" } else { "s" })),
            _ => Some(format!("no matching documents (0 of {total})")),
        };
    }
    let offset = a.page.as_ref().map_or(0, |p| p.offset);
    let mut line = format!("showing {}–{} of {total}", offset + 1, offset + a.hits.len());
    if let Some(p) = &a.page
        && let Some(next) = p.next_offset
    {
        if how == Continuation::Session {
            line.push_str("; say \"show me more\" for the next page");
            return Some(line);
        }
        line.push_str(&format!("; next: --offset {next}"));
        // Past the result window the cursor fetches the next page without walking to it.
        if let Some(after) = &p.search_after {
            line.push_str(&format!(" --search-after '{}'", Value::Array(after.clone())));
        }
    }
    Some(line)
}

/// The clarifying question, its numbered choices and how to answer.
pub fn write_clarification(out: &mut dyn Write, a: &EsAnswer, checkpoint: Option<&str>, how: Continuation) -> std::io::Result<()> {
    match &a.ambiguity {
        Some(amb) => {
            writeln!(out, "{}", amb.message)?;
            for (i, alt) in amb.alternatives.iter().enumerate() {
                writeln!(out, "  {}. {alt}", i + 1)?;
            }
        }
        None => writeln!(out, "{}", a.query_summary)?,
    }
    match (checkpoint, how) {
        (Some(_), Continuation::Session) => writeln!(out, "\nReply with a number or the choice's words, or \"just run it\" for the first choice.")?,
        (Some(id), Continuation::Flags) => writeln!(out, "\nAnswer with: qa es --resume {id} --answer \"<number or words>\"")?,
        (None, _) => {}
    }
    Ok(())
}

/// The human-readable answer: table(s), chart, page line, summary, notes and the DSL that ran.
pub fn write_answer(out: &mut dyn Write, a: &EsAnswer, width: usize, how: Continuation) -> std::io::Result<()> {
    let request_aggs = a.es_query.as_ref().and_then(|q| q.get("aggs").or_else(|| q.get("aggregations")));
    let tables = a.aggregations.as_ref().map(|aggs| aggregation_tables(aggs, request_aggs)).unwrap_or_default();
    let show_hits = !a.hits.is_empty() || (tables.is_empty() && a.intent == Intent::Search);
    if show_hits {
        writeln!(out, "{}", qa_sql::present::render_table(&hits_table(&a.hits, width), width))?;
    }
    for t in &tables {
        if show_hits || tables.len() > 1 {
            writeln!(out, "\n{}:", t.name)?;
        }
        writeln!(out, "{}", qa_sql::present::render_table(&t.result, width))?;
        if let Some(chart) = t.chart.as_ref().and_then(|c| qa_sql::present::bar_chart(c, width.min(100))) {
            writeln!(out, "\n{chart}")?;
        }
    }
    if let Some(line) = page_line(a, how) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "\nQuery: {}", a.query_summary)?;
    for n in &a.notes {
        writeln!(out, "note: {n}")?;
    }
    if let Some(q) = &a.es_query {
        writeln!(out, "DSL: {}", serde_json::to_string(q).unwrap_or_default())?;
    }
    Ok(())
}

/// The `--json` object: the answer's fields, `route: "es"`, and the checkpoint id of a
/// clarification.
pub fn answer_json(a: &EsAnswer, target: &str, checkpoint: Option<&str>) -> Value {
    let mut v = match serde_json::to_value(a) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    v.insert("route".into(), Value::String("es".into()));
    v.insert("target".into(), Value::String(target.to_string()));
    v.insert("checkpoint".into(), checkpoint.map_or(Value::Null, |c| Value::String(c.to_string())));
    Value::Object(v)
}

/// Whether the run stopped to ask.
pub fn is_clarification(a: &EsAnswer) -> bool {
    a.status == Status::NeedsClarification || a.needs_clarification
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn columns_prefer_varied_short_fields_and_fit_the_width() {
        let hits: Vec<Value> = (0..5)
            .map(|i| json!({"a": format!("k{i}"), "same": "x", "prose": "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod", "n": i, "d": format!("2025-01-0{}", i % 2 + 1)}))
            .collect();
        let wide = choose_columns(&hits, 200);
        assert_eq!(wide, ["a", "same", "d", "n", "prose"], "everything fits: identifiers, texts, dates, numbers, prose");
        let narrow = choose_columns(&hits, 14);
        assert_eq!(narrow, ["a", "n"], "varied short fields first");
        assert_eq!(choose_columns(&hits, 1).len(), 1, "at least one column");
    }

    #[test]
    fn bucket_aggregations_become_tables_named_after_the_grouped_field() {
        let aggs = json!({
            "per_x": {"buckets": [{"key": "a", "doc_count": 3, "avg_w": {"value": 1.5}}, {"key": "b", "doc_count": 2, "avg_w": {"value": null}}]},
            "over_time": {"buckets": [{"key": 1, "key_as_string": "2025-01-01T00:00:00.000Z", "doc_count": 4}]},
            "max_d": {"value": 1.0, "value_as_string": "2026-01-01"},
            "st": {"count": 2, "min": 1.0, "max": 3.0, "avg": 2.0, "sum": 4.0}
        });
        let request = json!({"per_x": {"terms": {"field": "x.keyword", "size": 10}, "aggs": {"avg_w": {"avg": {"field": "w"}}}}});
        let t = aggregation_tables(&aggs, Some(&request));
        let per_x = t.iter().find(|t| t.name == "per_x").unwrap();
        assert_eq!(per_x.result.columns, ["x.keyword", "doc_count", "avg_w"]);
        assert_eq!(per_x.result.rows[0], [json!("a"), json!(3), json!(1.5)]);
        assert_eq!(per_x.chart.as_ref().unwrap().columns, ["x.keyword", "avg_w"]);
        let time = t.iter().find(|t| t.name == "over_time").unwrap();
        assert_eq!(time.result.rows[0][0], json!("2025-01-01"));
        let metrics = t.iter().find(|t| t.name == "metrics").unwrap();
        assert!(metrics.result.rows.contains(&vec![json!("max_d"), json!("2026-01-01")]));
        assert!(metrics.result.rows.contains(&vec![json!("st.avg"), json!(2.0)]));
    }
}
