//! Presenting a result: a terminal table (paginated when wide), and for aggregates over
//! categories or time a Vega-Lite spec and a terminal bar chart.
//!
//! Everything here is plain text without ANSI styling (the output may be piped), and every
//! value from the database is sanitized before it reaches the terminal: control characters
//! (including ESC, so no escape sequences from data) become visible or blank, and display
//! widths are measured in terminal cells (`console::measure_text_width`), so CJK and emoji
//! text lines up.

use comfy_table::{Cell, CellAlignment, ContentArrangement, Row, Table, presets::UTF8_FULL_CONDENSED};
use serde_json::{Value, json};

use super::QueryResult;

/// Longest cell text shown in a table, in display cells (the cut text ends with `…`).
const MAX_CELL: usize = 60;
/// Longest label in the terminal bar chart, in display cells.
const MAX_LABEL: usize = 30;
/// Longest column name shown in a page title's `(key: …)`.
const MAX_KEY_NAME: usize = 30;
/// When a column does not fit next to the key at its natural width, it is wrapped instead if
/// at least this many cells (or its natural width, when smaller) are left for it.
const MIN_WRAP: usize = 10;
/// Narrowest content width a wrapped column gets (2 so a double-width character fits).
const MIN_CONTENT: usize = 2;
/// Rows a chart accepts.
const CHART_ROWS: std::ops::RangeInclusive<usize> = 2..=50;
/// Distinct series (colors) a three-column chart accepts.
const MAX_SERIES: usize = 20;

const VEGA_LITE_SCHEMA: &str = "https://vega.github.io/schema/vega-lite/v5.json";

/// Render the rows as a table (comfy-table, UTF-8 borders) fitting `width` columns of
/// terminal. When the columns do not fit, split them into pages of columns (the first column
/// repeated on every page as a key), each page titled "columns 1-4 of 9". Long cell text is
/// cut with "…" at 60 chars. NULL prints as "NULL".
///
/// Details:
/// - Numeric columns (every non-null value a JSON number or a decimal string such as
///   `"12.50"`) are right-aligned, header included; a JSON number in a mixed column is
///   right-aligned on its own. Floats show at most 2 decimals (integral floats none; tiny
///   non-zero values keep 2 significant digits so they do not read as 0).
/// - Page titles: `columns 1-4 of 9` for the first page (the key counts there), then
///   `columns 5-7 of 9 (key: id)`; a one-column page says `column 5 of 9`. No title when
///   everything fits on one page.
/// - A column too wide for the terminal even alone (or next to the key, if at least 10 cells
///   are left for it) is wrapped to the width; when not even the key fits beside a column, the
///   page shows that column alone. Table lines are never wider than `max(width, 6)`.
/// - 0 rows: the header, then a line `(no rows)`. 0 columns: `(no columns)`.
/// - The string has no trailing newline (like comfy-table's `Display`).
pub fn render_table(result: &QueryResult, width: usize) -> String {
    let ncols = result.columns.len();
    if ncols == 0 {
        return if result.rows.is_empty() {
            "(no columns)".to_string()
        } else {
            format!("(no columns; {} rows)", result.rows.len())
        };
    }
    let cols: Vec<ColumnView> = (0..ncols).map(|i| ColumnView::new(result, i)).collect();
    let widths: Vec<usize> = cols.iter().map(|c| c.width).collect();
    let pages = plan_pages(&widths, width);

    let mut out = String::new();
    let paginate = pages.len() > 1;
    for (n, page) in pages.iter().enumerate() {
        if n > 0 {
            out.push_str("\n\n");
        }
        if paginate {
            out.push_str(&page_title(page, &cols, ncols));
            out.push('\n');
        }
        out.push_str(&render_page(page, &cols, result.rows.len()));
    }
    if result.rows.is_empty() {
        out.push_str("\n(no rows)");
    }
    out
}

/// One column, its cells already turned into display text.
struct ColumnView {
    header: String,
    cells: Vec<String>,
    /// Per cell: right-aligned?
    right: Vec<bool>,
    header_right: bool,
    /// Natural content width in display cells (at least 1, as comfy-table does).
    width: usize,
}

impl ColumnView {
    fn new(result: &QueryResult, index: usize) -> ColumnView {
        let values: Vec<Option<&Value>> = result.rows.iter().map(|r| r.get(index)).collect();
        let numeric_column = values.iter().any(|v| matches!(v, Some(v) if is_numeric_value(v)))
            && values.iter().all(|v| matches!(v, None | Some(Value::Null)) || matches!(v, Some(v) if is_numeric_value(v)));
        let header = cut(&sanitize(&result.columns[index]), MAX_CELL);
        let cells: Vec<String> = values
            .iter()
            .map(|v| match v {
                // A ragged row (fewer values than columns) shows an empty cell.
                None => String::new(),
                Some(v) => cut(&cell_text(v), MAX_CELL),
            })
            .collect();
        let right = values.iter().map(|v| numeric_column || matches!(v, Some(Value::Number(_)))).collect();
        let width = std::iter::once(&header).chain(cells.iter()).map(|s| text_width(s)).max().unwrap_or(0).max(1);
        ColumnView { header, cells, right, header_right: numeric_column, width }
    }
}

/// A page of the table: which columns, whether the first is the repeated key, and the content
/// width the last column is wrapped to (when it does not fit at its natural width).
#[derive(Debug, Clone, PartialEq)]
struct Page {
    cols: Vec<usize>,
    keyed: bool,
    wrap_last: Option<usize>,
}

/// Width of a comfy-table (UTF-8 borders, padding 1 each side) whose columns have these
/// content widths: `│ a ┆ b │` = 1 + Σ(w + 3).
fn table_width(content_widths: impl IntoIterator<Item = usize>) -> usize {
    1 + content_widths.into_iter().map(|w| w + 3).sum::<usize>()
}

/// Split columns (content widths `widths`) into pages fitting `width`. Every column appears on
/// exactly one page as a data column, in order; column 0 opens page 1 and is repeated as the
/// key on later pages when the key and the next column fit.
fn plan_pages(widths: &[usize], width: usize) -> Vec<Page> {
    let n = widths.len();
    if n == 0 {
        return Vec::new();
    }
    if table_width(widths.iter().copied()) <= width {
        return vec![Page { cols: (0..n).collect(), keyed: false, wrap_last: None }];
    }
    let mut pages = Vec::new();
    let mut next = 0;
    while next < n {
        let mut page = Page { cols: Vec::new(), keyed: false, wrap_last: None };
        let mut used = 1; // the left border
        if next == 0 {
            // Page 1 opens with column 0 itself.
            let cost = widths[0] + 3;
            page.cols.push(0);
            next = 1;
            if used + cost > width {
                page.wrap_last = Some(width.saturating_sub(used + 3).max(MIN_CONTENT));
                pages.push(page);
                continue;
            }
            used += cost;
        } else if used + (widths[0] + 3) + 3 + widths[next].min(MIN_WRAP) <= width {
            page.cols.push(0);
            page.keyed = true;
            used += widths[0] + 3;
        }
        // Column 0 is the key on page 1 as on the others: a page should hold a column past it.
        let data_start = if page.keyed || page.cols == [0] { 1 } else { 0 };
        while next < n && used + widths[next] + 3 <= width {
            page.cols.push(next);
            used += widths[next] + 3;
            next += 1;
        }
        if page.cols.len() == data_start && next < n {
            // The next column does not fit at its natural width: wrap it into the room left,
            // beside the key when that leaves it enough room (else page 1 keeps column 0 alone).
            let room = width.saturating_sub(used + 3);
            if page.cols.is_empty() {
                page.cols.push(next);
                page.wrap_last = Some(room.max(MIN_CONTENT));
                next += 1;
            } else if room >= MIN_WRAP {
                page.cols.push(next);
                page.wrap_last = Some(room);
                next += 1;
            }
        }
        pages.push(page);
    }
    pages
}

fn page_title(page: &Page, cols: &[ColumnView], ncols: usize) -> String {
    let data = if page.keyed { &page.cols[1..] } else { &page.cols[..] };
    let (first, last) = (data[0] + 1, data[data.len() - 1] + 1);
    let range = if first == last { format!("column {first} of {ncols}") } else { format!("columns {first}-{last} of {ncols}") };
    if page.keyed { format!("{range} (key: {})", cut(&cols[0].header, MAX_KEY_NAME)) } else { range }
}

fn render_page(page: &Page, cols: &[ColumnView], nrows: usize) -> String {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_content_arrangement(ContentArrangement::Disabled);
    let last = page.cols.len() - 1;
    let prepare = |pos: usize, text: &str| -> String {
        match page.wrap_last {
            Some(w) if pos == last => wrap(text, w),
            _ => text.to_string(),
        }
    };
    let align = |right: bool| if right { CellAlignment::Right } else { CellAlignment::Left };
    let header: Vec<Cell> = page
        .cols
        .iter()
        .enumerate()
        .map(|(pos, &c)| Cell::new(prepare(pos, &cols[c].header)).set_alignment(align(cols[c].header_right)))
        .collect();
    table.set_header(Row::from(header));
    for r in 0..nrows {
        let cells: Vec<Cell> = page
            .cols
            .iter()
            .enumerate()
            .map(|(pos, &c)| Cell::new(prepare(pos, &cols[c].cells[r])).set_alignment(align(cols[c].right[r])))
            .collect();
        table.add_row(Row::from(cells));
    }
    table.to_string()
}

/// Display width in terminal cells.
fn text_width(s: &str) -> usize {
    console::measure_text_width(s)
}

/// Make text safe and one-line for a terminal: newlines become `↵`, tabs and other control
/// characters (ESC included, so no escape sequences from data) a space.
fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => out.push('↵'),
            c if c.is_control() => out.push(' '),
            // Bidirectional overrides/isolates could reorder the rest of the line.
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Cut `s` to at most `max` display cells, ending with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if text_width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    for c in s.chars() {
        out.push(c);
        if text_width(&out) > max - 1 {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// Wrap `s` into lines of at most `max` display cells: at the last space when the word so far
/// fits a line of its own, else hard (at least one character a line).
fn wrap(s: &str, max: usize) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for c in s.chars() {
        let line = lines.last_mut().expect("never empty");
        line.push(c);
        if text_width(line) <= max || line.chars().count() == 1 {
            continue;
        }
        line.pop();
        if c == ' ' {
            lines.push(String::new());
            continue;
        }
        let mut next = String::new();
        if let Some(i) = line.rfind(' ') {
            let tail = &line[i + 1..];
            if i > 0 && text_width(&format!("{tail}{c}")) <= max {
                next = tail.to_string();
                line.truncate(i);
            }
        }
        next.push(c);
        lines.push(next);
    }
    lines.join("\n")
}

/// The text a cell shows.
fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Number(n) => format_number(n),
        Value::String(s) => sanitize(s),
        Value::Bool(b) => b.to_string(),
        other => sanitize(&other.to_string()),
    }
}

fn format_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        Some(x) => format_float(x),
        None => n.to_string(),
    }
}

/// At most 2 decimals, trailing zeros dropped; integral values without decimals; non-zero
/// values below 0.01 with 2 significant digits; huge values in exponent form.
fn format_float(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let ax = x.abs();
    if ax >= 1e16 {
        return format!("{x:.2e}");
    }
    if x.fract() == 0.0 {
        return format!("{x:.0}");
    }
    if ax >= 0.01 {
        return trim_zeros(format!("{x:.2}"));
    }
    if ax < 1e-6 {
        return format!("{x:.1e}");
    }
    let decimals = (-ax.log10()).ceil() as usize + 1;
    trim_zeros(format!("{x:.decimals$}"))
}

fn trim_zeros(s: String) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// A plain decimal in a string, as databases return NUMERIC: `-12`, `3.50`, `+0.5`, `1e3`.
fn decimal_string(s: &str) -> Option<f64> {
    let t = s.trim();
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        if e.is_empty() || !digits(e) {
            return None;
        }
    }
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn is_numeric_value(v: &Value) -> bool {
    numeric(v).is_some()
}

/// A value as a number: a JSON number or a decimal string.
fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => decimal_string(s),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Charts
// ---------------------------------------------------------------------------------------------

/// A category label: text, or an integer year.
#[derive(Debug, Clone, PartialEq)]
enum Label {
    Text(String),
    Year(i64),
}

impl Label {
    fn of(v: &Value) -> Option<Label> {
        match v {
            Value::String(s) => Some(Label::Text(s.clone())),
            Value::Number(n) => n.as_i64().filter(|y| (1900..=2100).contains(y)).map(Label::Year),
            _ => None,
        }
    }

    fn display(&self) -> String {
        match self {
            Label::Text(s) => sanitize(s),
            Label::Year(y) => y.to_string(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Label::Text(s) => Value::String(s.clone()),
            Label::Year(y) => json!(y),
        }
    }

    fn cmp(&self, other: &Label) -> std::cmp::Ordering {
        match (self, other) {
            (Label::Year(a), Label::Year(b)) => a.cmp(b),
            (a, b) => a.display().cmp(&b.display()),
        }
    }
}

/// How a label column reads as time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeKind {
    /// Integer years or `YYYY` strings: an ordinal axis.
    Year,
    /// `YYYY-MM`.
    Month,
    /// `YYYY-MM-DD`.
    Day,
}

fn time_kind(label: &Label) -> Option<TimeKind> {
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
struct ChartShape<'a> {
    label_name: &'a str,
    series_name: Option<&'a str>,
    value_name: &'a str,
    rows: Vec<ChartRow<'a>>,
    /// Every non-null label reads as the same kind of time.
    time: Option<TimeKind>,
    /// The rows come ordered by label (ascending or descending).
    ordered: bool,
}

struct ChartRow<'a> {
    label: Option<Label>,
    series: Option<Label>,
    value: Option<f64>,
    raw_value: &'a Value,
}

fn chart_shape(result: &QueryResult) -> Option<ChartShape<'_>> {
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
fn vl_field(name: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn result(columns: &[&str], rows: Vec<Vec<Value>>) -> QueryResult {
        QueryResult { columns: columns.iter().map(|c| c.to_string()).collect(), rows, truncated: false, elapsed_ms: 1.0 }
    }

    /// Lines of the bordered tables (not page titles or notes).
    fn table_lines(s: &str) -> Vec<&str> {
        s.lines().filter(|l| l.starts_with(['┌', '│', '╞', '└', '├'])).collect()
    }

    /// Split a paginated rendering into (title, table lines) pages.
    fn pages(s: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for line in s.lines() {
            if line.starts_with("column") {
                out.push((line.to_string(), Vec::new()));
            } else if line.starts_with(['┌', '│', '╞', '└', '├']) {
                if out.is_empty() {
                    out.push((String::new(), Vec::new())); // one page, untitled
                }
                out.last_mut().expect("a page").1.push(line.to_string());
            }
        }
        out
    }

    /// The cells of a table content line, trimmed.
    fn cells(line: &str) -> Vec<String> {
        line.trim_matches('│').split('┆').map(|c| c.trim().to_string()).collect()
    }

    #[test]
    fn numbers_right_text_left_and_floats_at_most_two_decimals() {
        let r = result(
            &["name", "amount"],
            vec![
                vec![json!("Alice"), json!(1234)],
                vec![json!("Bob"), json!(7.5)],
                vec![json!("Carol"), json!(3.14659)],
                vec![json!("Dan"), json!(2.0)],
            ],
        );
        let t = render_table(&r, 80);
        assert!(t.contains("│ name  ┆ amount │"), "{t}");
        assert!(t.contains("│ Alice ┆   1234 │"), "{t}");
        assert!(t.contains("│ Bob   ┆    7.5 │"), "{t}");
        assert!(t.contains("│ Carol ┆   3.15 │"), "{t}");
        assert!(t.contains("│ Dan   ┆      2 │"), "{t}");
        assert!(!t.contains('\u{1b}'), "no ANSI styling");
        assert!(!t.contains("column"), "no page title when it fits: {t}");
    }

    #[test]
    fn float_formatting() {
        assert_eq!(format_float(2.0), "2");
        assert_eq!(format_float(-3.0), "-3");
        assert_eq!(format_float(3.14659), "3.15");
        assert_eq!(format_float(2.5), "2.5");
        assert_eq!(format_float(0.999), "1");
        assert_eq!(format_float(0.001234), "0.0012");
        assert_eq!(format_float(-0.0), "0");
        assert_eq!(format_float(1e20), "1.00e20");
        assert_eq!(format_float(1.5e-9), "1.5e-9");
    }

    #[test]
    fn header_of_numeric_column_is_right_aligned_and_decimal_strings_count() {
        let r = result(&["n", "total_amount"], vec![vec![json!("a"), json!("12.50")], vec![json!("b"), json!(null)]]);
        let t = render_table(&r, 80);
        assert!(t.contains("│ n ┆ total_amount │"), "{t}");
        assert!(t.contains("│ a ┆        12.50 │"), "{t}");
        assert!(t.contains("│ b ┆         NULL │"), "{t}");
    }

    #[test]
    fn null_prints_null() {
        let r = result(&["city", "pop"], vec![vec![json!(null), json!(10)], vec![json!("Oslo"), json!(null)]]);
        let t = render_table(&r, 80);
        assert!(t.contains("│ NULL ┆   10 │"), "{t}");
        assert!(t.contains("│ Oslo ┆ NULL │"), "{t}");
    }

    #[test]
    fn long_text_is_cut_at_60_cells() {
        let long = "x".repeat(100);
        let cjk = "漢".repeat(50);
        let r = result(&["t"], vec![vec![json!(long)], vec![json!(cjk)]]);
        let t = render_table(&r, 200);
        let want = format!("{}…", "x".repeat(59));
        assert!(t.contains(&format!("│ {want} │")), "{t}");
        let cut_cjk = format!("{}…", "漢".repeat(29));
        assert!(t.contains(&cut_cjk), "{t}");
        for line in table_lines(&t) {
            assert_eq!(text_width(line), 64, "{line}");
        }
    }

    #[test]
    fn control_characters_are_neutralized() {
        let r = result(&["t"], vec![vec![json!("red\u{1b}[31m\nnext\tcol")]]);
        let t = render_table(&r, 80);
        assert!(!t.contains('\u{1b}'));
        assert!(t.contains("red [31m↵next col"), "{t}");
        assert_eq!(table_lines(&t).len(), 5, "one line per row: {t}");
    }

    fn wide_result() -> QueryResult {
        let cols = ["id", "first_name", "last_name", "email_address", "city", "country", "signup_date", "plan", "lifetime_value"];
        let rows = (1..=3)
            .map(|i| {
                vec![
                    json!(i),
                    json!(format!("First{i}")),
                    json!(format!("Lastname{i}")),
                    json!(format!("person{i}@example.com")),
                    json!("Springfield"),
                    json!("Norway"),
                    json!(format!("2024-01-0{i}")),
                    json!("premium"),
                    json!(1234.5 * i as f64),
                ]
            })
            .collect();
        result(&cols, rows)
    }

    #[test]
    fn wide_tables_paginate_by_columns_with_the_key_repeated() {
        let r = wide_result();
        for width in [40, 60, 80] {
            let t = render_table(&r, width);
            let pages = pages(&t);
            assert!(pages.len() >= 2, "width {width}: {t}");
            let mut next = 1;
            for (i, (title, lines)) in pages.iter().enumerate() {
                for line in lines {
                    assert!(text_width(line) <= width, "width {width}: {line}");
                }
                let header = cells(&lines[1]);
                let ids: Vec<String> = lines[3..lines.len() - 1].iter().map(|l| cells(l)[0].clone()).collect();
                assert_eq!(header[0], "id", "key column first on every page: {t}");
                assert_eq!(ids, ["1", "2", "3"], "{t}");
                let data = if i == 0 { header.len() } else { header.len() - 1 };
                let start = if i == 0 { 1 } else { next };
                let want = if data == 1 { format!("column {start} of 9") } else { format!("columns {start}-{} of 9", start + data - 1) };
                let want = if i == 0 { want } else { format!("{want} (key: id)") };
                assert_eq!(title, &want, "width {width}: {t}");
                for (k, name) in header.iter().skip(if i == 0 { 0 } else { 1 }).enumerate() {
                    assert_eq!(name, &r.columns[start - 1 + k]);
                }
                next = start + data;
            }
            assert_eq!(next, 10, "every column shown once: {t}");
        }
    }

    #[test]
    fn wide_table_fits_unpaginated_when_the_terminal_is_wide() {
        let t = render_table(&wide_result(), 400);
        assert!(!t.contains("columns"), "{t}");
        assert_eq!(table_lines(&t).len(), 7);
    }

    #[test]
    fn zero_rows_and_zero_columns() {
        let r = result(&["a", "b"], vec![]);
        let t = render_table(&r, 80);
        assert!(t.contains("│ a ┆ b │"), "{t}");
        assert!(t.ends_with("(no rows)"), "{t}");
        assert_eq!(render_table(&result(&[], vec![]), 80), "(no columns)");
        let ragged = result(&["a", "b"], vec![vec![json!(1)], vec![json!(1), json!(2), json!(3)]]);
        let t = render_table(&ragged, 80);
        assert!(t.contains("│ 1 ┆   │"), "{t}");
    }

    #[test]
    fn tiny_widths_fall_back_to_one_column_per_page() {
        let r = wide_result();
        for width in [0, 1, 5] {
            let t = render_table(&r, width);
            let pages = pages(&t);
            assert_eq!(pages.len(), 9, "width {width}: {t}");
            for (i, (title, lines)) in pages.iter().enumerate() {
                assert_eq!(title, &format!("column {} of 9", i + 1));
                for line in lines {
                    assert!(text_width(line) <= width.max(6), "width {width}: {line}");
                }
            }
        }
    }

    #[test]
    fn a_column_wider_than_the_terminal_is_wrapped() {
        let r = result(&["id", "note"], vec![vec![json!(1), json!("word ".repeat(20))]]);
        let t = render_table(&r, 30);
        assert!(!t.contains("column"), "one page, the note wrapped beside the key: {t}");
        for line in table_lines(&t) {
            assert!(text_width(line) <= 30, "{line}\n{t}");
        }
        // All the (cut) text is still there.
        let text: String = table_lines(&t).iter().filter(|l| l.starts_with('│')).map(|l| cells(l).last().cloned().unwrap_or_default()).collect();
        assert!(text.replace(' ', "").contains(&"word".repeat(11)), "{t}");
    }

    #[test]
    fn wrap_breaks_at_spaces_else_hard() {
        assert_eq!(wrap("word word word", 10), "word word\nword");
        assert_eq!(wrap("abcdefghij", 4), "abcd\nefgh\nij");
        assert_eq!(wrap("漢漢漢", 3), "漢\n漢\n漢");
        assert_eq!(wrap("a verylongword", 5), "a\nveryl\nongwo\nrd");
    }

    #[test]
    fn plan_keeps_order_and_covers_every_column_once() {
        let widths = [4, 20, 20, 20, 3, 70, 5];
        for width in [0, 10, 30, 50, 80] {
            let pages = plan_pages(&widths, width);
            let data: Vec<usize> = pages.iter().flat_map(|p| if p.keyed { p.cols[1..].to_vec() } else { p.cols.clone() }).collect();
            assert_eq!(data, (0..widths.len()).collect::<Vec<_>>(), "width {width}: {pages:?}");
            for p in &pages {
                let ws: Vec<usize> = p.cols.iter().enumerate().map(|(i, &c)| if i == p.cols.len() - 1 { p.wrap_last.unwrap_or(widths[c]) } else { widths[c] }).collect();
                assert!(table_width(ws) <= width.max(6), "width {width}: {p:?}");
            }
        }
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(|i| json!(i)),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
            any::<bool>().prop_map(|b| json!(b)),
            ".{0,80}".prop_map(Value::String),
            "[a-z漢😀 \n\t\u{1b}\u{301}\u{200d}\u{fe0f}]{0,90}".prop_map(Value::String),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn render_table_never_panics_and_lines_fit(
            ncols in 0usize..7,
            rows in prop::collection::vec(prop::collection::vec(arb_value(), 0..8), 0..5),
            names in prop::collection::vec("[a-z_.漢]{0,12}", 7),
            width in 0usize..140,
        ) {
            let r = QueryResult { columns: names[..ncols].to_vec(), rows, truncated: false, elapsed_ms: 0.0 };
            let t = render_table(&r, width);
            for line in table_lines(&t) {
                prop_assert!(text_width(line) <= width.max(6), "width {}: {}\n{}", width, line, t);
            }
            // Every page is a rectangle.
            for (_, lines) in pages(&t) {
                let w: Vec<usize> = lines.iter().map(|l| text_width(l)).collect();
                prop_assert!(w.windows(2).all(|p| p[0] == p[1]), "{}", t);
            }
            let _ = viz_spec(&r, "t");
            if let Some(chart) = bar_chart(&r, width) {
                for line in chart.lines() {
                    prop_assert!(text_width(line) <= width, "{}", chart);
                }
            }
        }
    }

    // ---- charts ----

    fn categories() -> QueryResult {
        result(
            &["category", "revenue"],
            vec![vec![json!("Books"), json!(120)], vec![json!("Toys"), json!(480.5)], vec![json!("Games"), json!("240.25")]],
        )
    }

    #[test]
    fn viz_for_categories_is_a_bar_sorted_by_value() {
        let spec = viz_spec(&categories(), "Revenue by category").expect("a spec");
        assert_eq!(spec["$schema"], VEGA_LITE_SCHEMA);
        assert_eq!(spec["title"], "Revenue by category");
        assert_eq!(spec["mark"]["type"], "bar");
        assert_eq!(spec["encoding"]["x"]["field"], "category");
        assert_eq!(spec["encoding"]["x"]["type"], "nominal");
        assert_eq!(spec["encoding"]["x"]["sort"], "-y");
        assert_eq!(spec["encoding"]["y"]["field"], "revenue");
        assert_eq!(spec["encoding"]["y"]["type"], "quantitative");
        let values = spec["data"]["values"].as_array().unwrap();
        assert_eq!(values.len(), 3);
        assert_eq!(values[0], json!({"category": "Books", "revenue": 120}));
        assert_eq!(values[2], json!({"category": "Games", "revenue": 240.25}), "decimal strings become numbers");
    }

    #[test]
    fn viz_keeps_the_order_of_rows_ordered_by_label() {
        let r = result(&["grade", "n"], vec![vec![json!("A"), json!(3)], vec![json!("B"), json!(9)], vec![json!("C"), json!(1)]]);
        let spec = viz_spec(&r, "").unwrap();
        assert_eq!(spec["encoding"]["x"]["sort"], Value::Null);
        assert!(spec.get("title").is_none());
    }

    #[test]
    fn viz_for_months_is_a_temporal_line() {
        let r = result(
            &["month", "orders"],
            vec![vec![json!("2024-01"), json!(10)], vec![json!("2024-02"), json!(12)], vec![json!("2024-03"), json!(9)]],
        );
        let spec = viz_spec(&r, "Orders per month").unwrap();
        assert_eq!(spec["mark"], json!({"type": "line", "point": true, "tooltip": true}));
        assert_eq!(spec["encoding"]["x"]["type"], "temporal");
        assert_eq!(spec["encoding"]["x"]["timeUnit"], "utcyearmonth");
        let days = result(&["day", "n"], vec![vec![json!("2024-01-30"), json!(1)], vec![json!("2024-01-31"), json!(2)]]);
        assert_eq!(viz_spec(&days, "").unwrap()["encoding"]["x"]["timeUnit"], "utcyearmonthdate");
        // Not a date: month 13.
        let bad = result(&["m", "n"], vec![vec![json!("2024-13"), json!(1)], vec![json!("2024-01"), json!(2)]]);
        assert_eq!(viz_spec(&bad, "").unwrap()["mark"]["type"], "bar");
    }

    #[test]
    fn viz_for_integer_years_is_an_ordinal_line() {
        let r = result(&["year", "total"], vec![vec![json!(2022), json!(1.5)], vec![json!(2023), json!(2.5)], vec![json!(2024), json!(3)]]);
        let spec = viz_spec(&r, "t").unwrap();
        assert_eq!(spec["mark"]["type"], "line");
        assert_eq!(spec["mark"]["point"], true);
        assert_eq!(spec["encoding"]["x"]["type"], "ordinal");
        assert_eq!(spec["data"]["values"][0]["year"], 2022);
        // An integer that is not a year is no label.
        let r = result(&["customer_id", "total"], vec![vec![json!(17), json!(1)], vec![json!(18), json!(2)]]);
        assert!(viz_spec(&r, "t").is_none());
    }

    #[test]
    fn viz_three_columns_colors_by_the_second() {
        let r = result(
            &["region", "product", "sales"],
            vec![
                vec![json!("North"), json!("A"), json!(5)],
                vec![json!("North"), json!("B"), json!(7)],
                vec![json!("South"), json!("A"), json!(2)],
                vec![json!("South"), json!("B"), json!(4)],
            ],
        );
        let spec = viz_spec(&r, "t").unwrap();
        assert_eq!(spec["mark"]["type"], "bar");
        assert_eq!(spec["encoding"]["color"]["field"], "product");
        assert_eq!(spec["encoding"]["xOffset"]["field"], "product");
        assert_eq!(spec["encoding"]["y"]["field"], "sales");
        assert_eq!(spec["data"]["values"][1], json!({"region": "North", "product": "B", "sales": 7}));
        assert!(bar_chart(&r, 80).is_none(), "no terminal chart for three columns");
        // Over months: one colored line per series.
        let r = result(
            &["month", "product", "sales"],
            vec![vec![json!("2024-01"), json!("A"), json!(5)], vec![json!("2024-02"), json!("A"), json!(7)]],
        );
        let spec = viz_spec(&r, "t").unwrap();
        assert_eq!(spec["mark"]["type"], "line");
        assert_eq!(spec["encoding"]["color"]["field"], "product");
        assert!(spec["encoding"].get("xOffset").is_none());
    }

    #[test]
    fn viz_none_for_non_aggregates() {
        let two_text = result(&["a", "b"], vec![vec![json!("x"), json!("y")], vec![json!("z"), json!("w")]]);
        assert!(viz_spec(&two_text, "t").is_none());
        let one_row = result(&["a", "n"], vec![vec![json!("x"), json!(1)]]);
        assert!(viz_spec(&one_row, "t").is_none());
        let sixty: Vec<Vec<Value>> = (0..60).map(|i| vec![json!(format!("c{i}")), json!(i)]).collect();
        assert!(viz_spec(&result(&["a", "n"], sixty), "t").is_none());
        let four = result(&["a", "b", "c", "n"], vec![vec![json!("x"), json!("y"), json!("z"), json!(1)]; 3]);
        assert!(viz_spec(&four, "t").is_none());
        let one_col = result(&["n"], vec![vec![json!(1)], vec![json!(2)]]);
        assert!(viz_spec(&one_col, "t").is_none());
        let mut truncated = categories();
        truncated.truncated = true;
        assert!(viz_spec(&truncated, "t").is_none());
        let all_null = result(&["a", "n"], vec![vec![json!("x"), json!(null)], vec![json!("y"), json!(null)]]);
        assert!(viz_spec(&all_null, "t").is_none());
    }

    #[test]
    fn viz_skips_null_rows_and_escapes_field_names() {
        let r = result(
            &["t.name", "sum(x[1])"],
            vec![vec![json!("a"), json!(1)], vec![json!(null), json!(2)], vec![json!("c"), json!(null)], vec![json!("d"), json!(4)]],
        );
        let spec = viz_spec(&r, "t").unwrap();
        assert_eq!(spec["data"]["values"].as_array().unwrap().len(), 2);
        assert_eq!(spec["data"]["values"][0], json!({"t.name": "a", "sum(x[1])": 1}));
        assert_eq!(spec["encoding"]["x"]["field"], "t\\.name");
        assert_eq!(spec["encoding"]["x"]["title"], "t.name");
        assert_eq!(spec["encoding"]["y"]["field"], "sum(x\\[1\\])");
        assert!(spec["description"].as_str().unwrap().contains("2 rows with NULL"));
        let dup = result(&["n", "n"], vec![vec![json!("a"), json!(1)], vec![json!("b"), json!(2)]]);
        let spec = viz_spec(&dup, "t").unwrap();
        assert_eq!(spec["data"]["values"][0], json!({"label": "a", "value": 1}));
        assert_eq!(spec["encoding"]["y"]["title"], "n");
    }

    /// Bar length in eighths of a cell.
    fn bar_eighths(line: &str) -> usize {
        line.chars()
            .map(|c| match c {
                '█' => 8,
                '▏' => 1,
                '▎' => 2,
                '▍' => 3,
                '▌' => 4,
                '▋' => 5,
                '▊' => 6,
                '▉' => 7,
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn bar_lengths_are_proportional() {
        let r = result(
            &["fruit", "n"],
            vec![vec![json!("apple"), json!(100)], vec![json!("banana"), json!(50)], vec![json!("kiwi"), json!(33)], vec![json!("fig"), json!(0)]],
        );
        let width = 60;
        let chart = bar_chart(&r, width).expect("a chart");
        let lines: Vec<&str> = chart.lines().collect();
        assert_eq!(lines.len(), 4);
        // label (6) + space + bar + space + value (3)
        let bar_w = width - 6 - 1 - 1 - 3;
        assert_eq!(bar_eighths(lines[0]), bar_w * 8, "{chart}");
        assert!(lines[0].starts_with("apple  █"), "{chart}");
        assert!(lines[0].ends_with("█ 100"), "{chart}");
        assert_eq!(bar_eighths(lines[1]), bar_w * 4, "half the value, half the bar: {chart}");
        let third = bar_eighths(lines[2]) as f64 / (bar_w * 8) as f64;
        assert!((third - 0.33).abs() < 1.0 / 16.0, "{chart}");
        assert!(lines[2].contains(['▏', '▎', '▍', '▌', '▋', '▊', '▉']), "a partial block: {chart}");
        assert_eq!(lines[3], "fig     0");
        for line in &lines {
            assert!(text_width(line) <= width);
        }
    }

    #[test]
    fn bar_chart_labels_are_cut_and_tiny_values_still_show() {
        let r = result(&["name", "v"], vec![vec![json!("a".repeat(40)), json!(1000)], vec![json!("b"), json!(1)]]);
        let chart = bar_chart(&r, 80).unwrap();
        let lines: Vec<&str> = chart.lines().collect();
        assert!(lines[0].starts_with(&format!("{}… █", "a".repeat(29))), "{chart}");
        assert!(lines[1].starts_with(&format!("b{} ▏ 1", " ".repeat(29))), "{chart}");
    }

    #[test]
    fn bar_chart_refuses_negatives_and_narrow_terminals_and_shows_null() {
        let neg = result(&["a", "n"], vec![vec![json!("x"), json!(-1)], vec![json!("y"), json!(2)]]);
        assert!(bar_chart(&neg, 80).is_none());
        for width in [0, 1, 5] {
            if let Some(chart) = bar_chart(&categories(), width) {
                assert!(chart.lines().all(|l| text_width(l) <= width), "{chart}");
            }
        }
        assert!(bar_chart(&categories(), 5).is_none());
        let with_null = result(&["a", "n"], vec![vec![json!("x"), json!(null)], vec![json!(null), json!(2)]]);
        let chart = bar_chart(&with_null, 40).unwrap();
        assert!(chart.lines().next().unwrap().ends_with("x     NULL"), "{chart}");
        assert!(chart.lines().nth(1).unwrap().starts_with("NULL █"), "{chart}");
        let years = result(&["year", "n"], vec![vec![json!(2023), json!(1)], vec![json!(2024), json!(2)]]);
        assert!(bar_chart(&years, 40).unwrap().starts_with("2023 "));
    }
}
