//! Charts for aggregates over categories or time: a Vega-Lite spec and a terminal bar chart.

use serde_json::{Value, json};

use crate::QueryResult;
use super::text::{cell_text, cut, numeric, sanitize, text_width};
use super::{CHART_ROWS, MAX_CELL, MAX_LABEL, MAX_SERIES, MIN_WRAP, VEGA_LITE_SCHEMA};

pub(super) enum Label {
    Text(String),
    Year(i64),
}

impl Label {
    pub(super) fn of(v: &Value) -> Option<Label> {
        match v {
            Value::String(s) => Some(Label::Text(s.clone())),
            Value::Number(n) => n.as_i64().filter(|y| (1900..=2100).contains(y)).map(Label::Year),
            _ => None,
        }
    }

    pub(super) fn display(&self) -> String {
        match self {
            Label::Text(s) => sanitize(s),
            Label::Year(y) => y.to_string(),
        }
    }

    pub(super) fn json(&self) -> Value {
        match self {
            Label::Text(s) => Value::String(s.clone()),
            Label::Year(y) => json!(y),
        }
    }

    pub(super) fn cmp(&self, other: &Label) -> std::cmp::Ordering {
        match (self, other) {
            (Label::Year(a), Label::Year(b)) => a.cmp(b),
            (a, b) => a.display().cmp(&b.display()),
        }
    }
}

/// How a label column reads as time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeKind {
    /// Integer years or `YYYY` strings: an ordinal axis.
    Year,
    /// `YYYY-MM`.
    Month,
    /// `YYYY-MM-DD`.
    Day,
}

pub(super) fn time_kind(label: &Label) -> Option<TimeKind> {
    match label {
        Label::Year(_) => Some(TimeKind::Year),
        Label::Text(s) => {
            let b = s.as_bytes();
            let num = |r: std::ops::Range<usize>| -> Option<u32> {
                let part = s.get(r)?;
                if part.bytes().all(|c| c.is_ascii_digit()) { part.parse().ok() } else { None }
            };
            let year_ok = |y: u32| (1000..=2999).contains(&y);
            match b.len() {
                4 => num(0..4).filter(|&y| year_ok(y)).map(|_| TimeKind::Year),
                7 if b[4] == b'-' => {
                    let (y, m) = (num(0..4)?, num(5..7)?);
                    (year_ok(y) && (1..=12).contains(&m)).then_some(TimeKind::Month)
                }
                10 if b[4] == b'-' && b[7] == b'-' => {
                    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
                    (year_ok(y) && (1..=12).contains(&m) && (1..=31).contains(&d)).then_some(TimeKind::Day)
                }
                _ => None,
            }
        }
    }
}

/// The shape both charts accept: labels (and, for three columns, a series label) with a
/// number per row. Nulls are kept here; each chart decides what to do with them.
pub(super) struct ChartShape<'a> {
    pub(super) label_name: &'a str,
    pub(super) series_name: Option<&'a str>,
    pub(super) value_name: &'a str,
    pub(super) rows: Vec<ChartRow<'a>>,
    /// Every non-null label reads as the same kind of time.
    pub(super) time: Option<TimeKind>,
    /// The rows come ordered by label (ascending or descending).
    pub(super) ordered: bool,
}

pub(super) struct ChartRow<'a> {
    pub(super) label: Option<Label>,
    pub(super) series: Option<Label>,
    pub(super) value: Option<f64>,
    pub(super) raw_value: &'a Value,
}

pub(super) fn chart_shape(result: &QueryResult) -> Option<ChartShape<'_>> {
    let ncols = result.columns.len();
    if !(2..=3).contains(&ncols) || !CHART_ROWS.contains(&result.rows.len()) || result.truncated {
        return None;
    }
    let label_of = |v: &Value| -> Option<Option<Label>> {
        match v {
            Value::Null => Some(None),
            v => Label::of(v).map(Some),
        }
    };
    let mut rows = Vec::with_capacity(result.rows.len());
    for row in &result.rows {
        if row.len() != ncols {
            return None;
        }
        let label = label_of(&row[0])?;
        let series = if ncols == 3 { label_of(&row[1])? } else { None };
        let raw_value = &row[ncols - 1];
        let value = match raw_value {
            Value::Null => None,
            v => Some(numeric(v)?),
        };
        rows.push(ChartRow { label, series, value, raw_value });
    }
    let labels: Vec<&Label> = rows.iter().filter_map(|r| r.label.as_ref()).collect();
    if labels.is_empty() || rows.iter().all(|r| r.value.is_none()) {
        return None;
    }
    if ncols == 3 {
        let mut series: Vec<String> = rows.iter().filter_map(|r| r.series.as_ref().map(Label::display)).collect();
        series.sort();
        series.dedup();
        if series.len() > MAX_SERIES {
            return None;
        }
    }
    let kinds: Vec<Option<TimeKind>> = labels.iter().map(|l| time_kind(l)).collect();
    let time = kinds[0].filter(|k| kinds.iter().all(|x| *x == Some(*k)));
    let ascending = labels.windows(2).all(|w| w[0].cmp(w[1]) != std::cmp::Ordering::Greater);
    let descending = labels.windows(2).all(|w| w[0].cmp(w[1]) != std::cmp::Ordering::Less);
    Some(ChartShape {
        label_name: &result.columns[0],
        series_name: (ncols == 3).then(|| result.columns[1].as_str()),
        value_name: &result.columns[ncols - 1],
        rows,
        time,
        ordered: ascending || descending,
    })
}

/// A Vega-Lite field reference to a flat key: `.`, `[`, `]` and `\` are escaped, else
/// Vega-Lite reads them as nested access.
pub(super) fn vl_field(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '.' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// When the result is an aggregate over categories or time — exactly one text/date-like
/// column and one numeric column (or a first label column and a last numeric column with two
/// columns total), 2..=50 rows — a Vega-Lite v5 bar spec (line spec when the label column
/// looks like dates/months: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`) with the data inline. None otherwise.
///
/// Details:
/// - Labels are strings or integer years (1900–2100); values JSON numbers or decimal strings
///   (NUMERIC comes back as text), converted to numbers in the data. Not accepted: any other
///   first column, a truncated result, a row count outside 2..=50.
/// - Three columns (label, series label, number): a grouped bar (`xOffset` + `color` by the
///   second column), or a line per series over time; at most 20 series.
/// - Time: `YYYY-MM` / `YYYY-MM-DD` strings → `temporal` x with a UTC time unit; integer years
///   and `YYYY` strings → `ordinal` x (an integer on a temporal axis would read as
///   milliseconds). Mark `line` with `point: true`.
/// - Categories: nominal x sorted by descending y, unless the rows already come ordered by
///   label (then the query's order is kept: `sort: null`).
/// - Rows with a NULL label or value are left out (the description says how many); fewer than
///   two rows left → None.
/// - Fields are the real column names (escaped for Vega-Lite in field references), with the
///   names as axis titles; empty or duplicate names fall back to `label`/`series`/`value`.
pub fn viz_spec(result: &QueryResult, title: &str) -> Option<serde_json::Value> {
    let shape = chart_shape(result)?;
    let three = shape.series_name.is_some();

    // Field names: the column names unless empty or clashing.
    let mut names: Vec<&str> = vec![shape.label_name];
    names.extend(shape.series_name);
    names.push(shape.value_name);
    let clash = names.iter().any(|n| n.is_empty())
        || names.iter().enumerate().any(|(i, n)| names[..i].contains(n));
    let fallback: &[&str] = if three { &["label", "series", "value"] } else { &["label", "value"] };
    let keys: Vec<&str> = if clash { fallback.to_vec() } else { names.clone() };
    let titles: Vec<&str> = names.iter().zip(fallback).map(|(n, f)| if n.is_empty() { *f } else { *n }).collect();

    let mut values = Vec::new();
    let mut skipped = 0;
    for row in &shape.rows {
        let (Some(label), Some(value)) = (&row.label, row.value) else {
            skipped += 1;
            continue;
        };
        if three && row.series.is_none() {
            skipped += 1;
            continue;
        }
        let mut obj = serde_json::Map::new();
        obj.insert(keys[0].to_string(), label.json());
        if let Some(series) = &row.series {
            obj.insert(keys[1].to_string(), series.json());
        }
        // Integers stay integers; decimal strings and floats become JSON floats.
        let v = match row.raw_value {
            Value::Number(n) => Value::Number(n.clone()),
            _ => json!(value),
        };
        obj.insert(keys[keys.len() - 1].to_string(), v);
        values.push(Value::Object(obj));
    }
    if values.len() < 2 {
        return None;
    }

    let x_field = vl_field(keys[0]);
    let y_field = vl_field(keys[keys.len() - 1]);
    let y = json!({"field": y_field, "type": "quantitative", "title": titles[titles.len() - 1]});
    let (mark, x) = match shape.time {
        Some(kind) => {
            let x = match kind {
                TimeKind::Year => json!({"field": x_field, "type": "ordinal", "title": titles[0]}),
                TimeKind::Month => json!({"field": x_field, "type": "temporal", "timeUnit": "utcyearmonth", "title": titles[0]}),
                TimeKind::Day => json!({"field": x_field, "type": "temporal", "timeUnit": "utcyearmonthdate", "title": titles[0]}),
            };
            (json!({"type": "line", "point": true, "tooltip": true}), x)
        }
        None => {
            let sort = if shape.ordered { Value::Null } else { json!("-y") };
            (
                json!({"type": "bar", "tooltip": true}),
                json!({"field": x_field, "type": "nominal", "title": titles[0], "sort": sort, "axis": {"labelLimit": 200}}),
            )
        }
    };
    let mut encoding = serde_json::Map::new();
    encoding.insert("x".into(), x);
    encoding.insert("y".into(), y);
    if three {
        let series_field = vl_field(keys[1]);
        encoding.insert("color".into(), json!({"field": series_field, "type": "nominal", "title": titles[1]}));
        if shape.time.is_none() {
            encoding.insert("xOffset".into(), json!({"field": series_field, "type": "nominal"}));
        }
    }

    let mut spec = serde_json::Map::new();
    spec.insert("$schema".into(), json!(VEGA_LITE_SCHEMA));
    if !title.trim().is_empty() {
        spec.insert("title".into(), json!(title));
    }
    let what = if three { format!("{} by {} and {}", titles[2], titles[0], titles[1]) } else { format!("{} by {}", titles[1], titles[0]) };
    let description = if skipped > 0 { format!("{what} ({skipped} rows with NULL left out)") } else { what };
    spec.insert("description".into(), json!(description));
    spec.insert("data".into(), json!({"values": values}));
    spec.insert("mark".into(), mark);
    spec.insert("encoding".into(), Value::Object(encoding));
    Some(Value::Object(spec))
}

/// A horizontal bar chart of the same shape `viz_spec` accepts, using `█` blocks scaled to
/// `width`, labels left-aligned, values right of the bar. None when the shape does not fit.
///
/// Details: two-column results only (three columns → None: the spec covers them). One line a
/// row in the query's order: the label padded to the longest (cut at 30 cells with `…`), a
/// bar whose eighths use `▏▎▍▌▋▊▉` (the largest value fills the bar width; a positive value
/// too small to show gets `▏`), then the value as the table shows it. NULL labels and values
/// print `NULL` (no bar). Negative values → None (a bar from zero would mislead). Labels
/// shrink (to 8 cells) on narrow terminals; None when not even a 1-cell bar fits, so every
/// line fits `width`. No trailing newline.
pub fn bar_chart(result: &QueryResult, width: usize) -> Option<String> {
    let shape = chart_shape(result)?;
    if shape.series_name.is_some() {
        return None;
    }
    if shape.rows.iter().any(|r| r.value.is_some_and(|v| v < 0.0)) {
        return None;
    }
    let labels: Vec<String> = shape.rows.iter().map(|r| r.label.as_ref().map_or("NULL".to_string(), Label::display)).collect();
    let values: Vec<String> = shape.rows.iter().map(|r| cut(&cell_text(r.raw_value), MAX_CELL)).collect();
    let value_w = values.iter().map(|v| text_width(v)).max().unwrap_or(0);
    let mut label_w = labels.iter().map(|l| text_width(l)).max().unwrap_or(0).min(MAX_LABEL);
    let fixed = |label_w: usize| label_w + 1 + 1 + value_w;
    let mut bar_w = width.saturating_sub(fixed(label_w));
    if bar_w < MIN_WRAP && label_w > 8 {
        label_w = label_w.saturating_sub(MIN_WRAP - bar_w).max(8);
        bar_w = width.saturating_sub(fixed(label_w));
    }
    if bar_w == 0 {
        return None;
    }
    let max = shape.rows.iter().filter_map(|r| r.value).fold(0.0_f64, f64::max);

    const PARTIAL: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let mut lines = Vec::with_capacity(shape.rows.len());
    for ((row, label), value) in shape.rows.iter().zip(&labels).zip(&values) {
        let label = cut(label, label_w);
        let pad = label_w.saturating_sub(text_width(&label));
        let bar = match row.value {
            Some(v) if max > 0.0 && v > 0.0 => {
                let mut eighths = ((v / max) * (bar_w * 8) as f64).round() as usize;
                eighths = eighths.clamp(1, bar_w * 8);
                format!("{}{}", "█".repeat(eighths / 8), PARTIAL[eighths % 8])
            }
            _ => String::new(),
        };
        lines.push(format!("{label}{} {bar} {value}", " ".repeat(pad)));
    }
    Some(lines.join("\n"))
}
