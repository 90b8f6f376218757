//! The one date reader: years ("in 2024"), months ("March 2025", "in March"), quarters ("Q1
//! 2025", "the first quarter of 2024"), ISO days, ranges ("between 2020 and 2022", "from March to
//! May 2025"), open ranges ("since 2024", "before 2015", "after June 2025", "until 2020") and
//! relative dates ("last year", "this month", "in the last 30 days", "last week", "today",
//! "yesterday"). Every interval is inclusive on both ends, in days.

use chrono::{Datelike, Duration, NaiveDate};
use serde::{Deserialize, Serialize};

use crate::tokens::Token;

use qa_core::text::MONTHS;

/// The month a word names: full names and abbreviations of three letters or more ("mar",
/// "sept"). "may" and "march" are also verbs: callers check the context.
pub fn month_of(word: &str) -> Option<u32> {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    if w.len() < 3 {
        return None;
    }
    MONTHS.iter().position(|m| m.starts_with(w) && (w.len() == m.len() || w.len() <= 4)).map(|i| i as u32 + 1)
}

/// The year a token is: four digits 1800–2100 (a number token).
pub fn year_of(t: &Token) -> Option<i32> {
    let v = t.number()?;
    (t.text.len() == 4 && v.fract() == 0.0 && (1800.0..=2100.0).contains(&v)).then_some(v as i32)
}

/// The last day of a month.
pub fn last_day(year: i32, month: u32) -> Option<NaiveDate> {
    let (y, m) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
    NaiveDate::from_ymd_opt(y, m, 1).map(|d| d - Duration::days(1))
}

/// How precise a date mention is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grain {
    /// One day.
    Day,
    /// One month.
    Month,
    /// A quarter.
    Quarter,
    /// A calendar year.
    Year,
    /// An interval of other length, or open on one side.
    Range,
}

/// A date the question states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DateMention {
    /// Token range of the words.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// First day, if bounded below.
    pub from: Option<NaiveDate>,
    /// Last day, if bounded above.
    pub to: Option<NaiveDate>,
    /// A month of any year ("in March" without a year): 1–12.
    pub month_of_year: Option<u32>,
    /// How precise.
    pub grain: Grain,
    /// Relative to today ("last year").
    pub relative: bool,
    /// The words.
    pub phrase: String,
    /// The year, when the mention is exactly one calendar year (for integer year columns).
    pub year: Option<i32>,
    /// For an open range, the bound as a year ("after 1950" → 1950, "since 2024" → 2024), and
    /// whether that year itself is included.
    pub open_year: Option<(i32, bool)>,
}

fn year_range(y: i32) -> (Option<NaiveDate>, Option<NaiveDate>) {
    (NaiveDate::from_ymd_opt(y, 1, 1), NaiveDate::from_ymd_opt(y, 12, 31))
}

fn month_range(y: i32, m: u32) -> (Option<NaiveDate>, Option<NaiveDate>) {
    (NaiveDate::from_ymd_opt(y, m, 1), last_day(y, m))
}

fn quarter_of(word: &str) -> Option<u32> {
    match word {
        "q1" | "first" | "1st" => Some(1),
        "q2" | "second" | "2nd" => Some(2),
        "q3" | "third" | "3rd" => Some(3),
        "q4" | "fourth" | "4th" | "last" => Some(4),
        _ => None,
    }
}

/// One point in time the question names at `i`: its interval, grain and token end.
#[derive(Clone)]
struct Point {
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    grain: Grain,
    end: usize,
    year: Option<i32>,
    month: Option<u32>,
}

/// A day of the month written as a number ("9", "9th", "21st").
fn day_of(t: &Token) -> Option<u32> {
    let w = t.lower.as_str();
    let digits = ["st", "nd", "rd", "th"].iter().find_map(|s| w.strip_suffix(s)).unwrap_or(w);
    if digits.is_empty() || digits.len() > 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u32>().ok().filter(|d| (1..=31).contains(d))
}

/// A year, "March 2025", "March of 2025", "Q1 2025", "the first quarter of 2024", an ISO day, or a
/// month alone (when `month_alone`), starting at token `i`.
fn point_at(t: &[Token], i: usize, month_alone: bool, default_year: Option<i32>) -> Option<Point> {
    let tok = t.get(i)?;
    if let Some(d) = tok.date() {
        return Some(Point { from: Some(d), to: Some(d), grain: Grain::Day, end: i + 1, year: None, month: None });
    }
    // "9 August 2025", "9th of August": a day.
    if let Some(day) = day_of(tok) {
        let k = if t.get(i + 1).is_some_and(|x| x.lower == "of") { i + 2 } else { i + 1 };
        if let Some(m) = t.get(k).and_then(|x| month_of(&x.lower)) {
            let (y, end) = match t.get(k + 1).and_then(year_of) {
                Some(y) => (Some(y), k + 2),
                None => (default_year, k + 1),
            };
            if let Some(d) = y.and_then(|y| NaiveDate::from_ymd_opt(y, m, day)) {
                return Some(Point { from: Some(d), to: Some(d), grain: Grain::Day, end, year: None, month: None });
            }
        }
    }
    if let Some(y) = year_of(tok) {
        let (from, to) = year_range(y);
        return Some(Point { from, to, grain: Grain::Year, end: i + 1, year: Some(y), month: None });
    }
    let w = tok.lower.as_str();
    // "Q1 2025", "Q3".
    if let Some(q) = quarter_of(w).filter(|_| w.starts_with('q')) {
        let (y, end) = match t.get(i + 1).and_then(year_of) {
            Some(y) => (Some(y), i + 2),
            None => (default_year, i + 1),
        };
        let y = y?;
        let (from, _) = month_range(y, q * 3 - 2);
        let (_, to) = month_range(y, q * 3);
        return Some(Point { from, to, grain: Grain::Quarter, end, year: None, month: None });
    }
    // "the first quarter of 2024".
    if let Some(q) = quarter_of(w)
        && t.get(i + 1).is_some_and(|n| n.norm == "quarter")
    {
        let (y, end) = match (t.get(i + 2).map(|x| x.lower.as_str()), t.get(i + 3).and_then(year_of), t.get(i + 2).and_then(year_of)) {
            (Some("of" | "in"), Some(y), _) => (Some(y), i + 4),
            (_, _, Some(y)) => (Some(y), i + 3),
            _ => (default_year, i + 2),
        };
        let y = y?;
        let (from, _) = month_range(y, q * 3 - 2);
        let (_, to) = month_range(y, q * 3);
        return Some(Point { from, to, grain: Grain::Quarter, end, year: None, month: None });
    }
    let m = month_of(w)?;
    // "August 9, 2025", "August 9th 2025": a day.
    if let Some(day) = t.get(i + 1).and_then(day_of) {
        let k = if t.get(i + 2).is_some_and(|x| x.lower == ",") { i + 3 } else { i + 2 };
        let (y, end) = match t.get(k).and_then(year_of) {
            Some(y) => (Some(y), k + 1),
            None => (default_year, i + 2),
        };
        if let Some(d) = y.and_then(|y| NaiveDate::from_ymd_opt(y, m, day)) {
            return Some(Point { from: Some(d), to: Some(d), grain: Grain::Day, end, year: None, month: None });
        }
    }
    // "may" and "march" as verbs: a month only when written with a capital or a year follows.
    let verb_like = matches!(w, "may" | "march") && !tok.capitalized();
    let (y, end) = match (t.get(i + 1).and_then(year_of), t.get(i + 1).map(|x| x.lower.as_str()), t.get(i + 2).and_then(year_of)) {
        (Some(y), _, _) => (Some(y), i + 2),
        (None, Some("of" | ","), Some(y)) => (Some(y), i + 3),
        _ => (None, i + 1),
    };
    match (y.or(default_year), y) {
        (Some(y), _) => {
            let (from, to) = month_range(y, m);
            Some(Point { from, to, grain: Grain::Month, end, year: None, month: Some(m) })
        }
        (None, _) if month_alone && !verb_like => Some(Point { from: None, to: None, grain: Grain::Month, end, year: None, month: Some(m) }),
        _ => None,
    }
}

fn phrase(t: &[Token], s: usize, e: usize) -> String {
    t[s..e].iter().map(|x| x.text.as_str()).collect::<Vec<_>>().join(" ")
}

/// Every date the question states, in order, not overlapping.
pub fn find_dates(t: &[Token], today: NaiveDate) -> Vec<DateMention> {
    let mut out: Vec<DateMention> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if let Some(m) = date_at(t, i, today) {
            i = m.end.max(i + 1);
            out.push(m);
        } else {
            i += 1;
        }
    }
    out
}

fn mention(t: &[Token], start: usize, end: usize, from: Option<NaiveDate>, to: Option<NaiveDate>, grain: Grain) -> DateMention {
    DateMention { start, end, from, to, month_of_year: None, grain, relative: false, phrase: phrase(t, start, end), year: None, open_year: None }
}

fn date_at(t: &[Token], i: usize, today: NaiveDate) -> Option<DateMention> {
    let w = t[i].lower.as_str();
    let next = t.get(i + 1).map(|x| x.lower.as_str()).unwrap_or("");
    // Relative dates.
    if let Some(m) = relative_at(t, i, today) {
        return Some(m);
    }
    // "between 2020 and 2022", "from March to May 2025", "from 2021 to 2023".
    if matches!(w, "between" | "from") {
        let a = point_at(t, i + 1, true, None)?;
        let joiner = t.get(a.end).map(|x| x.lower.as_str());
        if matches!(joiner, Some("and" | "to" | "until" | "through" | "till")) || t.get(a.end).is_some_and(|x| x.text == "-") {
            let b = point_at(t, a.end + 1, true, None)?;
            // "from March to May 2025": the first month takes the second's year.
            let a = match (a.from, a.month, b.from) {
                (None, Some(m), Some(bf)) => {
                    let (from, to) = month_range(bf.year(), m);
                    Point { from, to, ..a.clone() }
                }
                _ => a.clone(),
            };
            if a.from.is_some() && b.to.is_some() {
                let mut m = mention(t, i, b.end, a.from, b.to, Grain::Range);
                if let (Some(ya), Some(yb)) = (a.year, b.year) {
                    m.open_year = None;
                    m.year = (ya == yb).then_some(ya);
                }
                return Some(m);
            }
        }
        if w == "from" {
            // "from 2024 on(wards)": open.
            if matches!(t.get(a.end).map(|x| x.lower.as_str()), Some("on" | "onward" | "onwards")) {
                let mut m = mention(t, i, a.end + 1, a.from, None, Grain::Range);
                m.open_year = a.year.map(|y| (y, true));
                return Some(m);
            }
        }
        return None;
    }
    // "over 2024 and 2025", "across 2023 and 2024": two consecutive years as one span (not
    // "more than 2024").
    if matches!(w, "over" | "across" | "throughout")
        && let (Some(a), Some(b)) = (t.get(i + 1).and_then(year_of), t.get(i + 3).and_then(year_of))
        && t.get(i + 2).is_some_and(|x| x.lower == "and")
        && b == a + 1
    {
        let (from, _) = year_range(a);
        let (_, to) = year_range(b);
        let mut m = mention(t, i, i + 4, from, to, Grain::Range);
        m.open_year = None;
        m.year = None;
        return Some(m);
    }
    // Open ranges.
    let open = match w {
        // "policies starting in 2025" start within 2025; "starting 2025", "starting from
        // 2025" open a range.
        "starting" if matches!(next, "in" | "on" | "during") => None,
        "since" | "starting" => Some((true, true)),
        "after" | "later" => Some((true, false)),
        "before" | "earlier" | "prior" => Some((false, false)),
        "until" | "till" | "through" | "up" if !(w == "up" && next != "to") => Some((false, true)),
        _ => None,
    };
    if let Some((lower_bound, inclusive)) = open {
        let mut k = i + 1;
        while t.get(k).is_some_and(|x| matches!(x.lower.as_str(), "than" | "to" | "in" | "from")) {
            k += 1;
        }
        let p = point_at(t, k, false, None)?;
        let mut m = if lower_bound {
            let from = if inclusive { p.from } else { p.to.map(|d| d + Duration::days(1)) };
            mention(t, i, p.end, from, None, Grain::Range)
        } else {
            let to = if inclusive { p.to } else { p.from.map(|d| d - Duration::days(1)) };
            mention(t, i, p.end, None, to, Grain::Range)
        };
        m.open_year = p.year.map(|y| (y, inclusive));
        return Some(m);
    }
    // A decade: "the 1990s", "in the 1980's".
    if let Some((decade, end)) = decade_at(t, i) {
        let mut m = mention(t, i, end, NaiveDate::from_ymd_opt(decade, 1, 1), NaiveDate::from_ymd_opt(decade + 9, 12, 31), Grain::Range);
        m.open_year = None;
        return Some(m);
    }
    // A point: "in 2024", "2024", "in March 2025", "Q1 2025", "in March" (a preposition before a
    // lone month).
    let after_prep = i > 0 && matches!(t[i - 1].lower.as_str(), "in" | "during" | "of" | "for" | "on");
    let p = point_at(t, i, after_prep, None)?;
    // "in 2020 or later", "March 2024 or earlier": a point that opens a range.
    let after_or = t.get(p.end).is_some_and(|x| x.lower == "or").then(|| t.get(p.end + 1).map(|x| x.lower.as_str())).flatten();
    match after_or {
        Some("later" | "after") => {
            let mut m = mention(t, i, p.end + 2, p.from, None, Grain::Range);
            m.open_year = p.year.map(|y| (y, true));
            return Some(m);
        }
        Some("earlier" | "before") => {
            let mut m = mention(t, i, p.end + 2, None, p.to, Grain::Range);
            m.open_year = p.year.map(|y| (y, true));
            return Some(m);
        }
        _ => {}
    }
    let mut m = mention(t, i, p.end, p.from, p.to, p.grain);
    m.month_of_year = if p.from.is_none() { p.month } else { None };
    m.year = p.year;
    Some(m)
}

/// A decade written as its first year with an "s": one token ("1990s") or the year, maybe an
/// apostrophe, and "s".
fn decade_at(t: &[Token], i: usize) -> Option<(i32, usize)> {
    let w = t[i].lower.as_str();
    let decade = |digits: &str| digits.parse::<i32>().ok().filter(|y| y % 10 == 0 && (1800..=2100).contains(y));
    if w.is_ascii() && w.len() == 5 && w.ends_with('s') && w[..4].chars().all(|c| c.is_ascii_digit()) {
        return decade(&w[..4]).map(|y| (y, i + 1));
    }
    let y = year_of(&t[i]).filter(|y| y % 10 == 0)?;
    let mut k = i + 1;
    if t.get(k).is_some_and(|x| x.text == "'" || x.text == "’") {
        k += 1;
    }
    t.get(k).is_some_and(|x| x.lower == "s").then_some((y, k + 1))
}

/// "last year", "this year", "next year", "this month", "last month", "last week", "this week",
/// "today", "yesterday", "(in the) last/past N days|weeks|months|years".
fn relative_at(t: &[Token], i: usize, today: NaiveDate) -> Option<DateMention> {
    let w = t[i].lower.as_str();
    let rel = |m: DateMention| DateMention { relative: true, ..m };
    match w {
        "today" => return Some(rel(mention(t, i, i + 1, Some(today), Some(today), Grain::Day))),
        "yesterday" => {
            let d = today - Duration::days(1);
            return Some(rel(mention(t, i, i + 1, Some(d), Some(d), Grain::Day)));
        }
        _ => {}
    }
    if !matches!(w, "last" | "past" | "this" | "current" | "previous" | "next") {
        return None;
    }
    let (n, unit_at) = match t.get(i + 1).and_then(|x| x.number().or_else(|| crate::numbers::number_word(&x.lower))) {
        Some(n) if n >= 1.0 && n.fract() == 0.0 => (Some(n as i64), i + 2),
        _ => (None, i + 1),
    };
    let unit = t.get(unit_at)?.norm.as_str();
    let end = unit_at + 1;
    let y = today.year();
    let m = match (w, n, unit) {
        ("last" | "past", Some(n), "day") => mention(t, i, end, Some(today - Duration::days(n)), Some(today), Grain::Range),
        ("last" | "past", Some(n), "week") => mention(t, i, end, Some(today - Duration::days(7 * n)), Some(today), Grain::Range),
        ("last" | "past", Some(n), "month") => mention(t, i, end, Some(today - Duration::days(30 * n)), Some(today), Grain::Range),
        ("last" | "past", Some(n), "year") => mention(t, i, end, Some(today - Duration::days(365 * n)), Some(today), Grain::Range),
        ("this" | "current", None, "year") => {
            let (from, to) = year_range(y);
            DateMention { year: Some(y), ..mention(t, i, end, from, to, Grain::Year) }
        }
        ("last" | "previous" | "past", None, "year") => {
            let (from, to) = year_range(y - 1);
            DateMention { year: Some(y - 1), ..mention(t, i, end, from, to, Grain::Year) }
        }
        ("next", None, "year") => {
            let (from, to) = year_range(y + 1);
            DateMention { year: Some(y + 1), ..mention(t, i, end, from, to, Grain::Year) }
        }
        ("this" | "current", None, "month") => {
            let (from, to) = month_range(y, today.month());
            mention(t, i, end, from, to, Grain::Month)
        }
        ("last" | "previous" | "past", None, "month") => {
            let (py, pm) = if today.month() == 1 { (y - 1, 12) } else { (y, today.month() - 1) };
            let (from, to) = month_range(py, pm);
            mention(t, i, end, from, to, Grain::Month)
        }
        ("this" | "current", None, "week") => {
            let from = today - Duration::days(today.weekday().num_days_from_monday() as i64);
            mention(t, i, end, Some(from), Some(from + Duration::days(6)), Grain::Range)
        }
        ("last" | "previous" | "past", None, "week") => {
            let from = today - Duration::days(today.weekday().num_days_from_monday() as i64 + 7);
            mention(t, i, end, Some(from), Some(from + Duration::days(6)), Grain::Range)
        }
        ("this" | "current", None, "quarter") | ("last" | "previous", None, "quarter") => {
            let q = (today.month() - 1) / 3;
            let (qy, q) = if w == "this" || w == "current" { (y, q) } else if q == 0 { (y - 1, 3) } else { (y, q - 1) };
            let (from, _) = month_range(qy, q * 3 + 1);
            let (_, to) = month_range(qy, q * 3 + 3);
            mention(t, i, end, from, to, Grain::Quarter)
        }
        _ => return None,
    };
    // "in the last 30 days": the preposition and article belong to it.
    Some(rel(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tokenize;

    fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, day)
    }

    fn dates(q: &str) -> Vec<DateMention> {
        find_dates(&tokenize(q), NaiveDate::from_ymd_opt(2026, 11, 26).unwrap())
    }

    #[test]
    fn years_months_quarters_and_days() {
        let m = &dates("bookings made in 2024")[0];
        assert_eq!((m.from, m.to, m.year), (d(2024, 1, 1), d(2024, 12, 31), Some(2024)));
        let m = &dates("readings taken in March 2025")[0];
        assert_eq!((m.from, m.to, m.grain), (d(2025, 3, 1), d(2025, 3, 31), Grain::Month));
        let m = &dates("the first quarter of 2024")[0];
        assert_eq!((m.from, m.to), (d(2024, 1, 1), d(2024, 3, 31)));
        let m = &dates("bills for Q1 2025")[0];
        assert_eq!((m.from, m.to), (d(2025, 1, 1), d(2025, 3, 31)));
        let m = &dates("visits in March")[0];
        assert_eq!((m.from, m.month_of_year), (None, Some(3)));
        assert!(dates("you may go").is_empty());
        for q in ["on 9 August 2025", "on the 9th of August 2025", "on August 9, 2025"] {
            let m = &dates(q)[0];
            assert_eq!((m.from, m.to, m.grain), (d(2025, 8, 9), d(2025, 8, 9), Grain::Day), "{q}");
        }
        let m = &dates("on 2024-03-05")[0];
        assert_eq!((m.from, m.to, m.grain), (d(2024, 3, 5), d(2024, 3, 5), Grain::Day));
    }

    #[test]
    fn decades() {
        for q in ["passengers born in the 1990s", "born in the 1990's"] {
            let m = &dates(q)[0];
            assert_eq!((m.from, m.to, m.grain), (d(1990, 1, 1), d(1999, 12, 31), Grain::Range), "{q}");
        }
        assert!(dates("the 1995s").is_empty() || dates("the 1995s")[0].grain != Grain::Range);
    }

    #[test]
    fn ranges_open_and_relative() {
        let m = &dates("between 2020 and 2022")[0];
        assert_eq!((m.from, m.to), (d(2020, 1, 1), d(2022, 12, 31)));
        // A point followed by "or later" / "or earlier" opens the range at it.
        let m = &dates("admitted to the bar in 2024 or later")[0];
        assert_eq!((m.from, m.to, m.open_year, m.end - m.start), (d(2024, 1, 1), None, Some((2024, true)), 3));
        let m = &dates("collected in March 2020 or earlier")[0];
        assert_eq!((m.from, m.to), (None, d(2020, 3, 31)));
        let m = &dates("from March to May 2025")[0];
        assert_eq!((m.from, m.to), (d(2025, 3, 1), d(2025, 5, 31)));
        let m = &dates("hired before 2015")[0];
        assert_eq!((m.from, m.to, m.open_year), (None, d(2014, 12, 31), Some((2015, false))));
        let m = &dates("independent after 1950")[0];
        assert_eq!((m.from, m.open_year), (d(1951, 1, 1), Some((1950, false))));
        let m = &dates("since June 2025")[0];
        assert_eq!((m.from, m.to), (d(2025, 6, 1), None));
        let m = &dates("created last year")[0];
        assert_eq!((m.from, m.year, m.relative), (d(2025, 1, 1), Some(2025), true));
        let m = &dates("in the last 30 days")[0];
        assert_eq!((m.from, m.to), (d(2026, 10, 27), d(2026, 11, 26)));
        let m = &dates("this month")[0];
        assert_eq!((m.from, m.to), (d(2026, 11, 1), d(2026, 11, 30)));
    }
}
