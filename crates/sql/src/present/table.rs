//! The terminal table: columns paginated to the terminal width, the first column repeated as
//! a key on every page.

use comfy_table::{Cell, CellAlignment, ContentArrangement, Row, Table, presets::UTF8_FULL_CONDENSED};
use serde_json::Value;

use crate::QueryResult;
use super::text::{cell_text, cut, is_numeric_value, sanitize, text_width, wrap};
use super::{MAX_CELL, MAX_KEY_NAME, MIN_CONTENT, MIN_WRAP};

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
pub(super) struct ColumnView {
    pub(super) header: String,
    pub(super) cells: Vec<String>,
    /// Per cell: right-aligned?
    pub(super) right: Vec<bool>,
    pub(super) header_right: bool,
    /// Natural content width in display cells (at least 1, as comfy-table does).
    pub(super) width: usize,
}

impl ColumnView {
    pub(super) fn new(result: &QueryResult, index: usize) -> ColumnView {
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
pub(super) struct Page {
    pub(super) cols: Vec<usize>,
    pub(super) keyed: bool,
    pub(super) wrap_last: Option<usize>,
}

/// Width of a comfy-table (UTF-8 borders, padding 1 each side) whose columns have these
/// content widths: `│ a ┆ b │` = 1 + Σ(w + 3).
pub(super) fn table_width(content_widths: impl IntoIterator<Item = usize>) -> usize {
    1 + content_widths.into_iter().map(|w| w + 3).sum::<usize>()
}

/// Split columns (content widths `widths`) into pages fitting `width`. Every column appears on
/// exactly one page as a data column, in order; column 0 opens page 1 and is repeated as the
/// key on later pages when the key and the next column fit.
pub(super) fn plan_pages(widths: &[usize], width: usize) -> Vec<Page> {
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

pub(super) fn page_title(page: &Page, cols: &[ColumnView], ncols: usize) -> String {
    let data = if page.keyed { &page.cols[1..] } else { &page.cols[..] };
    let (first, last) = (data[0] + 1, data[data.len() - 1] + 1);
    let range = if first == last { format!("column {first} of {ncols}") } else { format!("columns {first}-{last} of {ncols}") };
    if page.keyed { format!("{range} (key: {})", cut(&cols[0].header, MAX_KEY_NAME)) } else { range }
}

pub(super) fn render_page(page: &Page, cols: &[ColumnView], nrows: usize) -> String {
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
