use super::*;
use serde_json::{Value, json};
use super::table::{plan_pages, table_width};
use super::text::{format_float, text_width, wrap};
use crate::QueryResult;
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
