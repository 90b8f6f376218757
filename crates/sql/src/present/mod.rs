//! Presenting a result: a terminal table (paginated when wide), and for aggregates over
//! categories or time a Vega-Lite spec and a terminal bar chart.
//!
//! Everything here is plain text without ANSI styling (the output may be piped), and every
//! value from the database is sanitized before it reaches the terminal: control characters
//! (including ESC, so no escape sequences from data) become visible or blank, and display
//! widths are measured in terminal cells (`console::measure_text_width`), so CJK and emoji
//! text lines up.

mod chart;
mod table;
mod text;

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

pub use chart::{bar_chart, viz_spec};
pub use table::render_table;

#[cfg(test)]
mod tests;
