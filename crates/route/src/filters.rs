//! Filters a question states: years (2000–2099, "last year", "this year"), date ranges (a month,
//! "since", "before", "after", "between … and …", "last N days/weeks/months"), and values of the
//! target's category fields, directly or through aliases. Every value filter is checked against
//! the profile: a value the field does not have is dropped with a warning.

use chrono::{Datelike, Duration, NaiveDate};
use serde::{Deserialize, Serialize};

use qa_core::text;

use crate::profile::{FieldRole, SourceProfile};

/// A date interval, both ends inclusive; an open end is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DateRange {
    /// First day, if bounded below.
    pub from: Option<NaiveDate>,
    /// Last day, if bounded above.
    pub to: Option<NaiveDate>,
    /// The words it came from.
    pub phrase: String,
}

/// A value of a category field the question names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueFilter {
    /// The field.
    pub field: String,
    /// The field's value (as the source stores it).
    pub value: String,
    /// The words it came from.
    pub phrase: String,
    /// Whether it came through an alias.
    pub via_alias: bool,
}

/// Everything extracted, validated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExtractedFilters {
    /// Years named (or implied by "last year" / "this year").
    pub years: Vec<i32>,
    /// A date interval, when one is stated.
    pub date_range: Option<DateRange>,
    /// Category values named.
    pub values: Vec<ValueFilter>,
    /// Filters dropped, and why.
    pub warnings: Vec<String>,
}

impl ExtractedFilters {
    /// Whether nothing was extracted.
    pub fn is_empty(&self) -> bool {
        self.years.is_empty() && self.date_range.is_none() && self.values.is_empty()
    }
}

const MONTHS: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

fn month_of(word: &str) -> Option<u32> {
    // Full names and abbreviations of three letters or more ("mar", "sept"); callers require a
    // year right after, so "may" the verb does not become a month.
    let w = word.to_lowercase();
    MONTHS.iter().position(|m| w.len() >= 3 && m.starts_with(&w)).map(|i| i as u32 + 1)
}

fn year_of(word: &str) -> Option<i32> {
    (word.len() == 4 && word.starts_with("20") && word.chars().all(|c| c.is_ascii_digit())).then(|| word.parse().ok()).flatten()
}

fn last_day(year: i32, month: u32) -> Option<NaiveDate> {
    let (y, m) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
    NaiveDate::from_ymd_opt(y, m, 1).map(|d| d - Duration::days(1))
}

/// Extract the filters of `question`; value filters only when a profile is given. `today`
/// anchors relative dates.
pub fn extract(question: &str, profile: Option<&SourceProfile>, today: NaiveDate) -> ExtractedFilters {
    let mut out = ExtractedFilters::default();
    let words = text::words(question);
    for (i, w) in words.iter().enumerate() {
        if let Some(y) = year_of(w) {
            out.years.push(y);
        }
        let prev = i.checked_sub(1).map(|j| words[j].as_str());
        if w == "year" {
            match prev {
                Some("last" | "previous") => out.years.push(today.year() - 1),
                Some("this" | "current") => out.years.push(today.year()),
                _ => {}
            }
        }
    }
    out.years.sort_unstable();
    out.years.dedup();
    out.date_range = date_range(&words, question, today);
    if let Some(p) = profile {
        value_filters(&words, p, &mut out);
    }
    out
}

fn date_range(words: &[String], question: &str, today: NaiveDate) -> Option<DateRange> {
    let iso: Vec<NaiveDate> = question
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter_map(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
        .collect();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str);
        let after = words.get(i + 2).map(String::as_str);
        // "last 30 days", "past 3 months", "last week"
        if matches!(w.as_str(), "last" | "past") {
            let (n, unit) = match (next.and_then(|n| n.parse::<i64>().ok()), next, after) {
                (Some(n), _, Some(u)) => (n, u),
                (None, Some(u), _) => (1, u),
                _ => continue,
            };
            let days = match text::singular(unit).as_str() {
                "day" => n,
                "week" => 7 * n,
                "month" => 30 * n,
                _ => continue,
            };
            return Some(DateRange { from: Some(today - Duration::days(days)), to: Some(today), phrase: format!("{w} {n} {unit}") });
        }
        // "in March 2026"
        if let (Some(m), Some(y)) = (month_of(w), next.and_then(year_of)) {
            return Some(DateRange { from: NaiveDate::from_ymd_opt(y, m, 1), to: last_day(y, m), phrase: format!("{w} {y}") });
        }
    }
    let has = |k: &str| words.iter().any(|w| w == k);
    match iso.as_slice() {
        [a, b, ..] if has("between") || has("from") => Some(DateRange { from: Some(*a.min(b)), to: Some(*a.max(b)), phrase: format!("between {a} and {b}") }),
        [a, ..] if has("since") || has("after") || has("from") => Some(DateRange { from: Some(*a), to: None, phrase: format!("since {a}") }),
        [a, ..] if has("before") || has("until") => Some(DateRange { from: None, to: Some(*a), phrase: format!("before {a}") }),
        [a] => Some(DateRange { from: Some(*a), to: Some(*a), phrase: a.to_string() }),
        _ => None,
    }
}

fn value_filters(words: &[String], profile: &SourceProfile, out: &mut ExtractedFilters) {
    let norm: Vec<String> = words.iter().map(|w| text::singular(w)).collect();
    for f in profile.fields.iter().filter(|f| f.role == FieldRole::Category) {
        for v in &f.values {
            // `in_transit` is said "in transit".
            let vw = text::normalized_words(&v.replace('_', " "));
            if is_matchable(&vw) && text::contains_seq(&norm, &vw) {
                out.values.push(ValueFilter { field: f.name.clone(), value: v.clone(), phrase: vw.join(" "), via_alias: false });
            }
        }
        for (alias, value) in &f.aliases {
            let aw = text::normalized_words(alias);
            if !is_matchable(&aw) || !text::contains_seq(&norm, &aw) {
                continue;
            }
            if !f.values.is_empty() && !f.values.iter().any(|v| v == value) {
                out.warnings.push(format!("\"{alias}\" → {}: {value:?} is not a value of {} (dropped)", f.name, f.name));
                continue;
            }
            out.values.push(ValueFilter { field: f.name.clone(), value: value.clone(), phrase: aw.join(" "), via_alias: true });
        }
    }
    out.values.sort_by(|a, b| (&a.field, &a.value).cmp(&(&b.field, &b.value)));
    out.values.dedup_by(|a, b| a.field == b.field && a.value == b.value);
}

/// A value worth matching: at least one word that is not a stop word, and not a lone short
/// token (a one-letter code would match everywhere).
fn is_matchable(words: &[String]) -> bool {
    words.iter().any(|w| !text::is_stop(w)) && (words.len() > 1 || words.first().is_some_and(|w| w.chars().count() >= 2))
}

#[cfg(test)]
mod tests;
