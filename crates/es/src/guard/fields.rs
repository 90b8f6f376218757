//! Field names and values checked against the mapping: unknown fields with "did you mean",
//! exact (keyword) forms of text fields, `_source` patterns, range bounds and date expressions,
//! time units.

use serde_json::Value;

use qa_question::edit::edit_distance;

use super::Checker;
use crate::{FieldKind, Mapping};

/// How a field is used, for the messages about text fields without an exact form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Use {
    /// `term`, `terms`, `prefix`, `wildcard`: exact values.
    Exact,
    /// A bucket or metric aggregation.
    Aggregate,
    /// `sort`.
    Sort,
}

impl Use {
    fn what(self) -> &'static str {
        match self {
            Use::Exact => "an exact-value query",
            Use::Aggregate => "an aggregation",
            Use::Sort => "sorting",
        }
    }
}

impl Checker<'_> {
    /// The kind of a known field, or a reason (with suggestions) and `None`.
    pub(super) fn field(&mut self, at: &str, name: &str) -> Option<FieldKind> {
        if let Some(kind) = self.mapping.kind_of(name) {
            return Some(kind);
        }
        if let Some(why) = super::forbidden_reason(name) {
            self.refuse(at, format!("{name:?}: {why}"));
            return None;
        }
        let hint = suggestions(self.mapping, name);
        self.refuse(at, format!("unknown field {name:?} in index {:?}{hint}", self.mapping.index));
        None
    }

    /// A known field usable for exact values, aggregations or sorting: text fields are refused
    /// with the keyword multi-field to use instead, or the reason there is none.
    pub(super) fn exact_field(&mut self, at: &str, name: &str, usage: Use) -> Option<FieldKind> {
        let kind = self.field(at, name)?;
        if kind != FieldKind::Text {
            return Some(kind);
        }
        let field = self.mapping.field(name)?;
        let msg = match field.exact_path() {
            Some(exact) => format!("{name:?} is a text field and cannot be used for {}: use {exact:?}", usage.what()),
            None if usage == Use::Exact => {
                format!("{name:?} is a text field without a keyword sub-field: use a match query instead of {}", usage.what())
            }
            None => {
                let exact: Vec<String> = self.mapping.fields.iter().filter_map(|f| f.exact_path()).take(8).collect();
                let hint = if exact.is_empty() { String::new() } else { format!("; fields that can: {}", exact.join(", ")) };
                format!("{name:?} is a text field without a keyword sub-field and cannot be used for {}{hint}", usage.what())
            }
        };
        self.refuse(at, msg);
        None
    }

    /// A field name given as a JSON value (`"field": "x"`): must be a string naming a known field.
    pub(super) fn field_value(&mut self, at: &str, v: &Value, usage: Option<Use>) -> Option<FieldKind> {
        let Some(name) = v.as_str() else {
            self.refuse(at, "a field name must be a string");
            return None;
        };
        match usage {
            Some(u) => self.exact_field(at, name, u),
            None => self.field(at, name),
        }
    }

    /// A field pattern (`_source`, `multi_match` fields): a known path, or a wildcard pattern that
    /// matches at least one. `allow_boost` accepts a `^2` suffix.
    pub(super) fn field_pattern(&mut self, at: &str, v: &Value, allow_boost: bool) {
        let Some(raw) = v.as_str() else {
            self.refuse(at, "a field pattern must be a string");
            return;
        };
        let pattern = match raw.rsplit_once('^') {
            Some((p, boost)) if allow_boost => {
                if boost.parse::<f64>().map_or(true, |b| !b.is_finite() || b < 0.0) {
                    self.refuse(at, format!("{raw:?}: the boost after ^ must be a non-negative number"));
                    return;
                }
                p
            }
            _ => raw,
        };
        if !pattern.contains('*') {
            self.field(at, pattern);
            return;
        }
        if !self.mapping.paths().any(|p| wildcard_match(pattern, &p)) {
            self.refuse(at, format!("pattern {pattern:?} matches no field of index {:?}", self.mapping.index));
        }
    }

    /// A range bound (`gte`, `from` of a range aggregation, …) on a field of `kind`.
    pub(super) fn bound(&mut self, at: &str, field: &str, kind: FieldKind, v: &Value, free_format: bool) {
        let ok = match (kind, v) {
            (_, Value::Null) => true,
            (FieldKind::Long | FieldKind::Double, Value::Number(_)) => true,
            (FieldKind::Long | FieldKind::Double, Value::String(s)) => s.trim().parse::<f64>().is_ok_and(f64::is_finite),
            (FieldKind::Date, Value::Number(n)) => n.is_i64() || n.is_u64(),
            (FieldKind::Date, Value::String(s)) => (free_format && !s.trim().is_empty()) || is_date_expr(s),
            (FieldKind::Keyword | FieldKind::Text | FieldKind::Other, Value::String(_) | Value::Number(_)) => true,
            _ => false,
        };
        if !ok {
            let expected = match kind {
                FieldKind::Long | FieldKind::Double => "a number",
                FieldKind::Date => "a date (ISO 8601, epoch milliseconds or date math such as now-30d/d)",
                FieldKind::Boolean => "nothing: booleans have no ranges",
                _ => "a string or a number",
            };
            self.refuse(at, format!("bound {v} does not fit {field:?} ({}): expected {expected}", kind.es_type()));
        }
    }

    /// Whether the field of this name declares its own date `format` (then any string may be a
    /// date in it).
    pub(super) fn has_format(&self, field: &str) -> bool {
        self.mapping.field(field).is_some_and(|f| f.format.is_some())
    }
}

/// " (did you mean …?)" with up to three close paths, or "".
pub(super) fn suggestions(mapping: &Mapping, name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let last = |p: &str| p.rsplit('.').next().unwrap_or(p).to_ascii_lowercase();
    let mut scored: Vec<(usize, String)> = mapping
        .paths()
        .filter_map(|p| {
            let lp = p.to_ascii_lowercase();
            let d = edit_distance(&lower, &lp).min(edit_distance(&last(&lower), &last(&lp)) + 1);
            let close = d <= (name.chars().count() / 3).max(2) || lp.contains(&lower) || lower.contains(&lp);
            close.then_some((d, p))
        })
        .collect();
    scored.sort();
    scored.truncate(3);
    if scored.is_empty() {
        return String::new();
    }
    let names: Vec<String> = scored.into_iter().map(|(_, p)| format!("{p:?}")).collect();
    format!(" (did you mean {}?)", names.join(" or "))
}

/// `*` matches any run of characters (ES field patterns know no other wildcard).
pub(super) fn wildcard_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == text;
    }
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// A date as Elasticsearch's default format (`strict_date_optional_time||epoch_millis`) reads
/// it, or date math: `now`, `now-30d/d`, `2026-01-01||+1M/d`.
pub(super) fn is_date_expr(s: &str) -> bool {
    let s = s.trim();
    let (anchor, math) = match s.strip_prefix("now") {
        Some(rest) => ("now", rest),
        None => s.split_once("||").unwrap_or((s, "")),
    };
    (anchor == "now" || parse_date_ms(anchor).is_some()) && is_date_math(math)
}

/// `+1d`, `-3M/M`, `/d`, … in sequence (possibly none).
fn is_date_math(mut s: &str) -> bool {
    while let Some(c) = s.chars().next() {
        match c {
            '+' | '-' => {
                let digits = s[1..].bytes().take_while(u8::is_ascii_digit).count();
                let unit = s[1 + digits..].chars().next();
                if digits == 0 || !unit.is_some_and(|u| "yMwdhHms".contains(u)) {
                    return false;
                }
                s = &s[2 + digits..];
            }
            '/' => {
                if !s[1..].chars().next().is_some_and(|u| "yMwdhHms".contains(u)) {
                    return false;
                }
                s = &s[2..];
            }
            _ => return false,
        }
    }
    true
}

/// Epoch milliseconds of an ISO 8601 date or date-time (UTC unless an offset is given), or of
/// an epoch-milliseconds string.
pub(super) fn parse_date_ms(s: &str) -> Option<i64> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime};
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && s.len() > 4 {
        return s.parse().ok();
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(s) {
        return Some(dt.timestamp_millis());
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(dt) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(dt.and_utc().timestamp_millis());
        }
    }
    let padded = match s.len() {
        4 => format!("{s}-01-01"),
        7 => format!("{s}-01"),
        _ => s.to_string(),
    };
    let date = NaiveDate::parse_from_str(&padded, "%Y-%m-%d").ok()?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
}

/// Milliseconds of an ES time value (`500ms`, `5s`, `1m`, `2h`, `1d`, `100micros`, `10nanos`);
/// `None` when it is not one. Sub-millisecond values round up to 1 ms when not zero.
pub(crate) fn time_value_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = s[..digits].parse().ok()?;
    let per_unit_ns: u64 = match &s[digits..] {
        "nanos" => 1,
        "micros" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return None,
    };
    let ns = n.checked_mul(per_unit_ns)?;
    Some(ns.div_ceil(1_000_000))
}

/// Milliseconds of a histogram interval: `fixed_interval` (`90m`, `1d`) or `calendar_interval`
/// (`month`, `1M`, `quarter`, …, approximated: 30 d a month, 91 d a quarter, 365 d a year).
pub(super) fn interval_ms(s: &str, calendar: bool) -> Option<u64> {
    const DAY: u64 = 86_400_000;
    let unit = match s {
        "minute" | "1m" => Some(60_000),
        "hour" | "1h" => Some(3_600_000),
        "day" | "1d" => Some(DAY),
        "week" | "1w" => Some(7 * DAY),
        "month" | "1M" => Some(30 * DAY),
        "quarter" | "1q" => Some(91 * DAY),
        "year" | "1y" => Some(365 * DAY),
        _ => None,
    };
    if calendar {
        return unit;
    }
    // Fixed intervals: a multiple of ms, s, m, h or d (no calendar units).
    time_value_ms(s).filter(|ms| *ms > 0 && !s.ends_with("nanos") && !s.ends_with("micros"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_date_math() {
        for ok in ["2026-03-01", "2026-03", "2026", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00.5+02:00", "now", "now-30d/d", "now/M", "2026-01-01||+1M/d", "1700000000000"] {
            assert!(is_date_expr(ok), "{ok}");
        }
        for bad in ["", "yesterday", "now-", "now-d", "2026-13-01", "2026-01-01||+1x", "now; drop", "1e9"] {
            assert!(!is_date_expr(bad), "{bad}");
        }
    }

    #[test]
    fn time_values_and_intervals() {
        assert_eq!(time_value_ms("5s"), Some(5000));
        assert_eq!(time_value_ms("250ms"), Some(250));
        assert_eq!(time_value_ms("10micros"), Some(1));
        assert_eq!(time_value_ms("5 s"), None);
        assert_eq!(time_value_ms("-1s"), None);
        assert_eq!(time_value_ms("99999999999999999999d"), None);
        assert_eq!(interval_ms("month", true), Some(30 * 86_400_000));
        assert_eq!(interval_ms("90m", false), Some(5_400_000));
        assert_eq!(interval_ms("1M", false), None, "M is not a fixed unit");
        assert_eq!(interval_ms("0s", false), None);
    }

    #[test]
    fn wildcards() {
        assert!(wildcard_match("a*", "abc"));
        assert!(wildcard_match("*.name", "owner.name"));
        assert!(wildcard_match("a*c*e", "abcde"));
        assert!(!wildcard_match("a*c*e", "abde"));
        assert!(!wildcard_match("ab*ba", "aba"));
        assert!(wildcard_match("*", "x"));
    }
}
