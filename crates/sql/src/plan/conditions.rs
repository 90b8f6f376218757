//! Conditions on numbers and dates: comparisons bound to the column they qualify ("price over
//! 50", "more than 500 pages", "between 10 and 20"), counts of related rows ("more than 5
//! orders"), years, months, quarters and date ranges ("in March 2024", "before 2024-02-01").

use chrono::{Datelike, NaiveDate};

use super::super::ColumnKind;
use super::fix;
use super::interpret::Interp;
use super::{ColRef, Filter};

/// Verbs that compare a price: "cost over 50", "priced under 20".
const MONEY_VERBS: &[&str] = &["cost", "costs", "costing", "priced", "worth", "sells", "sell", "selling", "sold"];

const MONTHS: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTHS_SHORT: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

fn month_of(w: &str) -> Option<u32> {
    MONTHS.iter().position(|m| *m == w).or_else(|| MONTHS_SHORT.iter().position(|m| *m == w).filter(|_| w != "may" && w != "mar")).map(|i| i as u32 + 1).or((w == "sept").then_some(9))
}

fn iso(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

fn ymd(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

fn next_month(y: i32, m: u32) -> Option<NaiveDate> {
    if m == 12 { ymd(y + 1, 1, 1) } else { ymd(y, m + 1, 1) }
}

/// A date expression: the tokens it spans and what it means.
enum DateSpec {
    Year(i32),
    Range(Option<NaiveDate>, Option<NaiveDate>),
    MonthOf(u32),
}

/// A comparison operator found at a token: the operator, the tokens it spans, and the
/// number token(s) it compares with.
struct Op {
    op: &'static str,
    words: std::ops::Range<usize>,
    numbers: Vec<usize>,
}

impl Interp<'_> {
    fn year_at(&self, i: usize) -> Option<i32> {
        let t = self.q.toks.get(i)?;
        (t.text.len() == 4 && !self.q.is_mapped(i)).then_some(t.number).flatten().filter(|n| n.fract() == 0.0 && (1900.0..=2100.0).contains(n)).map(|n| n as i32)
    }

    fn date_at(&self, i: usize) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(self.q.toks.get(i)?.date.as_deref()?, "%Y-%m-%d").ok()
    }

    /// A date relative to today starting at token `i`: "this year", "last year" (calendar
    /// years), "this month", "last 30 days", "past 2 weeks", "last week" / "last month" (the
    /// last 7 / 30 days up to today, as the router reads them), "today", "yesterday".
    fn relative_date(&self, i: usize) -> Option<(usize, usize, DateSpec)> {
        let (w, next) = (self.q.word(i), self.q.word(i + 1));
        let today = self.today;
        let tomorrow = today.succ_opt();
        let days_of = |unit: &str| match unit {
            "day" | "days" => Some(1),
            "week" | "weeks" => Some(7),
            "month" | "months" => Some(30),
            "year" | "years" => Some(365),
            _ => None,
        };
        let back = |n: i64| today.checked_sub_signed(chrono::Duration::days(n));
        match (w, next) {
            ("today", _) => Some((i, i + 1, DateSpec::Range(Some(today), tomorrow))),
            ("yesterday", _) => Some((i, i + 1, DateSpec::Range(back(1), Some(today)))),
            ("this" | "current", "year") => Some((i, i + 2, DateSpec::Year(today.year()))),
            ("last" | "previous", "year") => Some((i, i + 2, DateSpec::Year(today.year() - 1))),
            ("this" | "current", "month") => Some((i, i + 2, DateSpec::Range(ymd(today.year(), today.month(), 1), next_month(today.year(), today.month())))),
            ("last" | "past" | "previous", unit) if days_of(unit).is_some() => Some((i, i + 2, DateSpec::Range(back(days_of(unit)?), tomorrow))),
            ("last" | "past", _) => {
                let n = self.q.number(i + 1).filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n <= 10_000.0)? as i64;
                let per = days_of(self.q.word(i + 2))?;
                Some((i, i + 3, DateSpec::Range(back(n * per), tomorrow)))
            }
            _ => None,
        }
    }

    /// The date expression starting at token `i`: (first token, end, meaning).
    fn date_expr(&self, i: usize) -> Option<(usize, usize, DateSpec)> {
        let w = self.q.word(i);
        let prev = if i > 0 { self.q.word(i - 1) } else { "" };
        let op_start = if matches!(prev, "before" | "after" | "since" | "until" | "till" | "through" | "from" | "on" | "in" | "during") { i - 1 } else { i };
        let day = chrono::Duration::days(1);
        if let Some(relative) = self.relative_date(i) {
            return Some(relative);
        }
        if let Some(d) = self.date_at(i) {
            return Some(match prev {
                "before" => (op_start, i + 1, DateSpec::Range(None, Some(d))),
                "after" => (op_start, i + 1, DateSpec::Range(d.checked_add_signed(day), None)),
                "since" | "from" => (op_start, i + 1, DateSpec::Range(Some(d), None)),
                "until" | "till" | "through" => (op_start, i + 1, DateSpec::Range(None, d.checked_add_signed(day))),
                _ => (op_start, i + 1, DateSpec::Range(Some(d), d.checked_add_signed(day))),
            });
        }
        if w == "between" {
            if let (Some(a), "and", Some(b)) = (self.date_at(i + 1), self.q.word(i + 2), self.date_at(i + 3)) {
                return Some((i, i + 4, DateSpec::Range(Some(a), b.checked_add_signed(day))));
            }
            if let (Some(a), "and", Some(b)) = (self.year_at(i + 1), self.q.word(i + 2), self.year_at(i + 3)) {
                return Some((i, i + 4, DateSpec::Range(ymd(a, 1, 1), ymd(b + 1, 1, 1))));
            }
            return None;
        }
        if let Some(m) = month_of(w).or_else(|| (w == "may" && (self.year_at(i + 1).is_some() || matches!(prev, "in" | "during"))).then_some(5)) {
            let year = self.year_at(i + 1).or_else(|| (self.q.word(i + 1) == "of").then(|| self.year_at(i + 2)).flatten());
            let end = if self.year_at(i + 1).is_some() { i + 2 } else if year.is_some() { i + 3 } else { i + 1 };
            return match year {
                Some(y) => {
                    let (first, next) = (ymd(y, m, 1)?, next_month(y, m)?);
                    Some(match prev {
                        "before" => (op_start, end, DateSpec::Range(None, Some(first))),
                        "after" => (op_start, end, DateSpec::Range(Some(next), None)),
                        "since" => (op_start, end, DateSpec::Range(Some(first), None)),
                        _ => (op_start, end, DateSpec::Range(Some(first), Some(next))),
                    })
                }
                None if matches!(prev, "in" | "during") => Some((op_start, end, DateSpec::MonthOf(m))),
                None => None,
            };
        }
        // "q1 2024", "first quarter of 2024".
        let quarter = match w {
            "q1" | "first" => Some(1),
            "q2" | "second" => Some(2),
            "q3" | "third" => Some(3),
            "q4" | "fourth" | "last" => Some(4),
            _ => None,
        };
        if let Some(qn) = quarter {
            let (year_at, end) = if w.starts_with('q') {
                (i + 1, i + 2)
            } else if self.q.word(i + 1) == "quarter" && self.q.word(i + 2) == "of" {
                (i + 3, i + 4)
            } else if self.q.word(i + 1) == "quarter" {
                (i + 2, i + 3)
            } else {
                return None;
            };
            let y = self.year_at(year_at)?;
            let first = ymd(y, 3 * qn - 2, 1)?;
            let next = if qn == 4 { ymd(y + 1, 1, 1)? } else { ymd(y, 3 * qn + 1, 1)? };
            return Some((op_start, end, DateSpec::Range(Some(first), Some(next))));
        }
        let y = self.year_at(i)?;
        if matches!(prev, "top" | "than" | "over" | "under" | "above" | "below" | "exactly" | "least" | "most" | "first") {
            return None;
        }
        Some(match prev {
            "before" => (op_start, i + 1, DateSpec::Range(None, ymd(y, 1, 1))),
            "after" => (op_start, i + 1, DateSpec::Range(ymd(y + 1, 1, 1), None)),
            "since" => (op_start, i + 1, DateSpec::Range(ymd(y, 1, 1), None)),
            "until" | "till" | "through" => (op_start, i + 1, DateSpec::Range(None, ymd(y + 1, 1, 1))),
            // "orders from 2024" are the orders of 2024.
            _ => (op_start, i + 1, DateSpec::Year(y)),
        })
    }

    /// The column a date expression at `start` is about: a date column named just before it
    /// ("joined in 2023"), else the default date of the nearest table named before it, else the
    /// subject's. An integer column named just before ("published after 2015") is left to the
    /// numeric comparisons (None, true).
    fn date_column(&mut self, start: usize) -> (Option<ColRef>, bool) {
        let before: Vec<usize> = (0..self.ms.len()).filter(|&k| self.ms[k].end <= start && !self.used[k]).collect();
        if let Some(&k) = before.last()
            && self.q.prev_content(start).is_some_and(|p| p < self.ms[k].end)
        {
            let date_reading = self.ms[k].terms.iter().find_map(|(t, _)| match t {
                super::Term::Column { table, column } => {
                    let c = ColRef::new(table, column);
                    (self.kind(&c) == Some(ColumnKind::Date)).then_some(c)
                }
                _ => None,
            });
            if let Some(c) = date_reading {
                self.consume(k, format!("{c} (date)"));
                return (Some(c), false);
            }
            if self.pick_column(k).is_some_and(|c| self.kind(&c) == Some(ColumnKind::Integer)) {
                return (None, true);
            }
        }
        // The nearest table named before it; when that table has no date, the nearest dated
        // table on the join path back to the subject ("members who borrowed a book in 2025":
        // the loans between them), else the subject.
        // (A grouping target is not what is dated: "appointments per doctor in 2024".)
        let nearest = (0..self.ms.len()).filter(|&k| self.ms[k].end <= start && !self.ms[k].is_value() && !self.is_group_target(k)).filter_map(|k| self.ms[k].table()).next_back().map(str::to_string);
        let mut route: Vec<String> = Vec::new();
        if let Some(t) = &nearest {
            route.push(t.clone());
            if let Some(path) = fix::best_path(self.ctx, &self.subject, t, &[]) {
                route.extend(path.iter().rev().map(|s| s.from_table.clone()));
            }
        }
        route.push(self.subject.clone());
        let table = route.into_iter().find(|t| self.ctx.default_date(t).is_some());
        (table.and_then(|t| self.ctx.default_date(&t).map(|d| ColRef::new(&t, &d))), false)
    }

    /// Years, months, quarters and ranges of dates.
    pub fn dates(&mut self) {
        let mut i = 0;
        while i < self.q.len() {
            if self.q.is_mapped(i) {
                i += 1;
                continue;
            }
            let Some((start, end, spec)) = self.date_expr(i) else {
                i += 1;
                continue;
            };
            let (col, numeric) = self.date_column(start);
            if numeric {
                i = end;
                continue;
            }
            let Some(col) = col else {
                i = end;
                continue;
            };
            let (filter, role) = match spec {
                DateSpec::Year(y) => (Filter::Year { col: col.clone(), year: y }, format!("{col} in {y}")),
                DateSpec::MonthOf(m) => (Filter::MonthOf { col: col.clone(), month: m }, format!("{col} in month {m}")),
                DateSpec::Range(from, to) => {
                    let (from, to) = (from.map(iso), to.map(iso));
                    let role = format!("{col} in [{}, {})", from.as_deref().unwrap_or("…"), to.as_deref().unwrap_or("…"));
                    (Filter::DateRange { col: col.clone(), from, to }, role)
                }
            };
            self.q.mark(start..end, role);
            self.filters.push(filter);
            i = end;
        }
    }

    fn op_at(&self, i: usize) -> Option<Op> {
        let w = |k: usize| self.q.word(k);
        let num = |k: usize| (self.q.number(k).is_some() && !self.q.is_mapped(k)).then_some(k);
        let (op, len): (&'static str, usize) = match (w(i), w(i + 1), w(i + 2)) {
            ("no", "more" | "greater", "than") => ("<=", 3),
            ("no", "less" | "fewer", "than") => (">=", 3),
            ("more" | "greater" | "higher" | "larger" | "bigger" | "longer", "than", _) => (">", 2),
            ("less" | "fewer" | "lower" | "smaller" | "shorter", "than", _) => ("<", 2),
            // Money comparatives: bound to the subject's money column below.
            ("costlier" | "pricier", "than", _) | ("more", "expensive", "than") => (">", if w(i) == "more" { 3 } else { 2 }),
            ("cheaper", "than", _) | ("less", "expensive", "than") => ("<", if w(i) == "less" { 3 } else { 2 }),
            ("over" | "above" | "exceeding" | "exceeds" | "exceed", _, _) => (">", 1),
            ("under" | "below", _, _) => ("<", 1),
            ("at", "least", _) => (">=", 2),
            ("at", "most", _) => ("<=", 2),
            ("up", "to", _) => ("<=", 2),
            ("exactly" | "equals", _, _) => ("=", 1),
            ("equal", "to", _) => ("=", 2),
            ("after", _, _) => (">", 1),
            ("since", _, _) => (">=", 1),
            ("before", _, _) => ("<", 1),
            ("until" | "till", _, _) => ("<=", 1),
            ("between", _, _) => {
                let (a, b) = (num(i + 1)?, num(i + 3)?);
                return (w(i + 2) == "and").then_some(Op { op: "between", words: i..i + 1, numbers: vec![a, b] });
            }
            _ => {
                // "3 or more", "10 or fewer".
                let n = num(i)?;
                return match (w(i + 1), w(i + 2)) {
                    ("or", "more" | "greater" | "above" | "over") => Some(Op { op: ">=", words: i + 1..i + 3, numbers: vec![n] }),
                    ("or", "less" | "fewer" | "below" | "under") => Some(Op { op: "<=", words: i + 1..i + 3, numbers: vec![n] }),
                    _ => None,
                };
            }
        };
        Some(Op { op, words: i..i + len, numbers: vec![num(i + len)?] })
    }

    /// Numeric comparisons, each bound to the column it qualifies: a number column named just
    /// before the operator ("price over 50") or just after the number ("more than 500 pages");
    /// a table of rows related to the subject after the number is a count of them ("more than
    /// 5 orders"); else the subject's only number column (a weaker reading).
    pub fn comparisons(&mut self) {
        let mut i = 0;
        while i < self.q.len() {
            let Some(op) = self.op_at(i) else {
                i += 1;
                continue;
            };
            let first = op.words.start.min(op.numbers[0]);
            let last = op.words.end.max(*op.numbers.last().unwrap_or(&i)) + 1;
            let values: Vec<f64> = op.numbers.iter().filter_map(|&k| self.q.number(k)).collect();
            let prev = (0..self.ms.len()).rev().find(|&k| !self.used[k] && self.ms[k].end <= first && self.q.prev_content(first).is_some_and(|p| p < self.ms[k].end));
            let next = (0..self.ms.len()).find(|&k| !self.used[k] && self.ms[k].start >= last && self.q.next_content(last - 1) == Some(self.ms[k].start));
            let numeric = |me: &Self, k: Option<usize>| k.and_then(|k| me.pick_column(k).filter(|c| me.is_numeric(c)).map(|c| (k, c)));
            let bound = numeric(self, prev).or_else(|| numeric(self, next));
            // "cost over 50", or the operator itself ("cheaper than 20", "more expensive than 50").
            let money_verb = first.checked_sub(1).filter(|&j| MONEY_VERBS.contains(&self.q.word(j)) && !self.q.is_mapped(j));
            // The operator names money itself: only a column whose name says money will do.
            let spoken_money = op.words.clone().any(|k| matches!(self.q.word(k), "costlier" | "pricier" | "cheaper" | "expensive"));
            let money = match money_verb {
                Some(j) => self.money_column().map(|c| (j, c)),
                None if spoken_money => self.named_money_column().map(|c| (op.words.start, c)),
                None => None,
            };
            let mut compared: Option<ColRef> = None;
            let filters: Vec<Filter> = if let Some((k, col)) = bound {
                let f = compare_filters(&col, op.op, &values);
                self.consume(k, format!("{col} {} {}", op.op, fmt_values(&values)));
                compared = Some(col);
                f
            } else if let Some((j, col)) = money {
                self.q.mark(j..j + 1, format!("{col} {} {}", op.op, fmt_values(&values)));
                let f = compare_filters(&col, op.op, &values);
                compared = Some(col);
                f
            } else if let Some(k) = next.filter(|&k| self.ms[k].is_table() && !self.ms[k].is_value()) {
                let t = self.ms[k].table().unwrap_or_default().to_string();
                match fix::best_path(self.ctx, &self.subject, &t, &[]).filter(|p| !p.is_empty() && fix::multiplies(self.ctx, &p[0])) {
                    Some(path) => {
                        self.consume(k, format!("table {t} (related rows {} {})", op.op, fmt_values(&values)));
                        compare_related(path, op.op, &values)
                    }
                    None => Vec::new(),
                }
            } else if let Some(col) = self.only_number_column().filter(|_| !spoken_money && (!matches!(op.op, ">" | "<" | ">=" | "<=") || !matches!(self.q.word(op.words.start), "after" | "since" | "before" | "until" | "till"))) {
                self.penalties.push((format!("\"{}\" compared on {col}, the only number column of {}", self.q.word(op.words.start), self.subject), 0.85));
                let f = compare_filters(&col, op.op, &values);
                compared = Some(col);
                f
            } else {
                Vec::new()
            };
            if filters.is_empty() {
                i += 1;
                continue;
            }
            self.q.mark(op.words.clone(), format!("operator {}", op.op));
            for &k in &op.numbers {
                self.q.mark(k..k + 1, format!("operator {}", op.op));
            }
            if op.op == "between" {
                self.q.mark(op.numbers[0] + 1..op.numbers[0] + 2, "operator between");
            }
            // "over 20 kg": the unit after the number, when the compared column's name says it.
            if let (Some(col), Some(&n)) = (&compared, op.numbers.last()) {
                let unit = self.q.word(n + 1).to_string();
                if !unit.is_empty() && !self.q.is_mapped(n + 1) && qa_route::SourceProfile::name_words(&col.column).contains(&unit) {
                    self.q.mark(n + 1..n + 2, format!("unit of {col}"));
                }
            }
            self.filters.extend(filters);
            i = last;
        }
    }

    /// The one number column of the subject that is a measure (not a key).
    fn only_number_column(&self) -> Option<ColRef> {
        let t = self.ctx.table(&self.subject)?;
        let nums: Vec<&super::super::ColumnInfo> = t
            .columns
            .iter()
            .filter(|c| matches!(c.kind(), ColumnKind::Number | ColumnKind::Integer) && !c.name.eq_ignore_ascii_case("id") && !c.name.to_ascii_lowercase().ends_with("_id") && !t.primary_key.contains(&c.name))
            .collect();
        (nums.len() == 1).then(|| ColRef::new(&t.name, &nums[0].name))
    }
}

fn fmt_values(values: &[f64]) -> String {
    values.iter().map(|v| format!("{v}")).collect::<Vec<_>>().join(" and ")
}

fn compare_filters(col: &ColRef, op: &str, values: &[f64]) -> Vec<Filter> {
    match (op, values) {
        ("between", [a, b]) => vec![
            Filter::Compare { col: col.clone(), op: ">=".into(), value: a.min(*b) },
            Filter::Compare { col: col.clone(), op: "<=".into(), value: a.max(*b) },
        ],
        (op, [v]) => vec![Filter::Compare { col: col.clone(), op: op.into(), value: *v }],
        _ => Vec::new(),
    }
}

fn compare_related(path: Vec<super::JoinStep>, op: &str, values: &[f64]) -> Vec<Filter> {
    match (op, values) {
        ("between", [a, b]) => vec![
            Filter::Related { path: path.clone(), op: ">=".into(), value: a.min(*b) },
            Filter::Related { path, op: "<=".into(), value: a.max(*b) },
        ],
        (op, [v]) => vec![Filter::Related { path, op: op.into(), value: *v }],
        _ => Vec::new(),
    }
}
