//! Presenting a result: a terminal table (paginated when wide), and for aggregates over
//! categories or time a Vega-Lite spec and a terminal bar chart.
//!
//! CONTRACT (implemented by the presentation helper) — see the functions.

use super::QueryResult;

/// Render the rows as a table (comfy-table, UTF-8 borders) fitting `width` columns of
/// terminal. When the columns do not fit, split them into pages of columns (the first column
/// repeated on every page as a key), each page titled "columns 1-4 of 9". Long cell text is
/// cut with "…" at 60 chars. NULL prints as "NULL".
pub fn render_table(result: &QueryResult, width: usize) -> String {
    let _ = (result, width);
    String::new()
}

/// When the result is an aggregate over categories or time — exactly one text/date-like
/// column and one numeric column (or a first label column and a last numeric column with two
/// columns total), 2..=50 rows — a Vega-Lite v5 bar spec (line spec when the label column
/// looks like dates/months: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`) with the data inline. None otherwise.
pub fn viz_spec(result: &QueryResult, title: &str) -> Option<serde_json::Value> {
    let _ = (result, title);
    None
}

/// A horizontal bar chart of the same shape `viz_spec` accepts, using `█` blocks scaled to
/// `width`, labels left-aligned, values right of the bar. None when the shape does not fit.
pub fn bar_chart(result: &QueryResult, width: usize) -> Option<String> {
    let _ = (result, width);
    None
}
