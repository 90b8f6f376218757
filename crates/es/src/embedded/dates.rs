//! Dates as Elasticsearch reads and writes them: ISO-8601 strings (`yyyy`, `yyyy-MM`,
//! `yyyy-MM-dd`, date-times with optional seconds, fractions and offsets), epoch milliseconds,
//! date math (`now-30d/d`, `2024-01-01||+1M`), calendar rounding, and Java-style output formats.
//!
//! All instants are UTC epoch milliseconds.

use chrono::{DateTime, Datelike, Duration, Months, NaiveDate, NaiveDateTime, Timelike, Utc};

/// A calendar or clock unit, for date math, rounding and calendar intervals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
}

impl Unit {
    /// The unit of a date-math letter (`y M w d h H m s`).
    fn from_math_letter(c: char) -> Option<Unit> {
        Some(match c {
            'y' => Unit::Year,
            'M' => Unit::Month,
            'w' => Unit::Week,
            'd' => Unit::Day,
            'h' | 'H' => Unit::Hour,
            'm' => Unit::Minute,
            's' => Unit::Second,
            _ => return None,
        })
    }

    /// The unit of an ES `calendar_interval` (`month`, `1M`, `quarter`, `1q`, …).
    pub(crate) fn from_calendar_interval(s: &str) -> Option<Unit> {
        Some(match s {
            "year" | "1y" => Unit::Year,
            "quarter" | "1q" => Unit::Quarter,
            "month" | "1M" => Unit::Month,
            "week" | "1w" => Unit::Week,
            "day" | "1d" => Unit::Day,
            "hour" | "1h" => Unit::Hour,
            "minute" | "1m" => Unit::Minute,
            "second" | "1s" => Unit::Second,
            _ => return None,
        })
    }
}

/// A parsed date string: its first instant and the unit of its least precise missing component
/// (`2024-03` → March 1st, `Month`), used to round `lte`/`gt` bounds up like Elasticsearch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParsedDate {
    pub(crate) millis: i64,
    pub(crate) precision: Option<Unit>,
}

fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let part = b.get(at..at + n)?;
    part.iter().try_fold(0u32, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0')))
}

/// Parse an ISO-8601 date or date-time (`yyyy`, `yyyy-MM`, `yyyy-MM-dd`,
/// `yyyy-MM-ddTHH:mm[:ss[.fff]][Z|±HH:mm|±HHmm|±HH]`, a space allowed instead of `T`).
pub(crate) fn parse_iso(s: &str) -> Option<ParsedDate> {
    let b = s.trim().as_bytes();
    let year = digits(b, 0, 4)? as i32;
    if b.len() == 4 {
        return at(year, 1, 1, 0, 0, 0, 0, 0, Some(Unit::Year));
    }
    if b.get(4) != Some(&b'-') {
        return None;
    }
    let month = digits(b, 5, 2)?;
    if b.len() == 7 {
        return at(year, month, 1, 0, 0, 0, 0, 0, Some(Unit::Month));
    }
    if b.get(7) != Some(&b'-') {
        return None;
    }
    let day = digits(b, 8, 2)?;
    if b.len() == 10 {
        return at(year, month, day, 0, 0, 0, 0, 0, Some(Unit::Day));
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let hour = digits(b, 11, 2)?;
    let mut i = 13;
    let mut minute = 0;
    let mut precision = Some(Unit::Hour);
    if b.get(i) == Some(&b':') {
        minute = digits(b, i + 1, 2)?;
        i += 3;
        precision = Some(Unit::Minute);
    }
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        second = digits(b, i + 1, 2)?;
        i += 3;
        precision = Some(Unit::Second);
    }
    let mut milli = 0;
    if matches!(b.get(i), Some(b'.' | b',')) {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let frac = &b[start..(start + 3).min(i)];
        milli = frac.iter().fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0')) * 10u32.pow(3 - frac.len() as u32);
        precision = None;
    }
    let offset_secs = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let oh = digits(b, i + 1, 2)?;
            let rest = &b[i + 3..];
            let om = match rest {
                [] => 0,
                [b':', ..] if rest.len() == 3 => digits(rest, 1, 2)?,
                _ if rest.len() == 2 => digits(rest, 0, 2)?,
                _ => return None,
            };
            let secs = (oh * 3600 + om * 60) as i64;
            if sign == b'-' { -secs } else { secs }
        }
        Some(_) => return None,
    };
    at(year, month, day, hour, minute, second, milli, offset_secs, precision)
}

#[allow(clippy::too_many_arguments, reason = "the components of one date")]
fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32, offset_secs: i64, precision: Option<Unit>) -> Option<ParsedDate> {
    let dt = NaiveDate::from_ymd_opt(y, mo, d)?.and_hms_milli_opt(h, mi, s, ms)?;
    Some(ParsedDate { millis: dt.and_utc().timestamp_millis() - offset_secs * 1000, precision })
}

/// Whether a string is a full date (at least `yyyy-MM-dd`): what inference maps to `date`.
pub(crate) fn is_date_string(s: &str) -> bool {
    s.len() >= 10 && parse_iso(s).is_some_and(|p| p.precision.is_none_or(|u| u >= Unit::Day))
}

fn naive(ms: i64) -> Option<NaiveDateTime> {
    DateTime::<Utc>::from_timestamp_millis(ms).map(|d| d.naive_utc())
}

/// The first instant of the calendar unit containing `ms` (weeks start on Monday).
pub(crate) fn floor(ms: i64, unit: Unit) -> i64 {
    let Some(t) = naive(ms) else { return ms };
    let d = t.date();
    let start = match unit {
        Unit::Year => NaiveDate::from_ymd_opt(d.year(), 1, 1).map(|d| d.and_time(Default::default())),
        Unit::Quarter => NaiveDate::from_ymd_opt(d.year(), (d.month0() / 3) * 3 + 1, 1).map(|d| d.and_time(Default::default())),
        Unit::Month => NaiveDate::from_ymd_opt(d.year(), d.month(), 1).map(|d| d.and_time(Default::default())),
        Unit::Week => Some((d - Duration::days(i64::from(d.weekday().num_days_from_monday()))).and_time(Default::default())),
        Unit::Day => Some(d.and_time(Default::default())),
        Unit::Hour => t.with_minute(0).and_then(|t| t.with_second(0)).and_then(|t| t.with_nanosecond(0)),
        Unit::Minute => t.with_second(0).and_then(|t| t.with_nanosecond(0)),
        Unit::Second => t.with_nanosecond(0),
    };
    start.map_or(ms, |s| s.and_utc().timestamp_millis())
}

/// `ms` moved by `n` units (calendar-aware for months, quarters and years).
pub(crate) fn add(ms: i64, n: i64, unit: Unit) -> Option<i64> {
    let fixed = |per: i64| ms.checked_add(n.checked_mul(per)?);
    match unit {
        Unit::Year | Unit::Quarter | Unit::Month => {
            let months = n * match unit {
                Unit::Year => 12,
                Unit::Quarter => 3,
                _ => 1,
            };
            let t = naive(ms)?;
            let moved = if months >= 0 {
                t.checked_add_months(Months::new(u32::try_from(months).ok()?))
            } else {
                t.checked_sub_months(Months::new(u32::try_from(-months).ok()?))
            }?;
            Some(moved.and_utc().timestamp_millis())
        }
        Unit::Week => fixed(7 * 86_400_000),
        Unit::Day => fixed(86_400_000),
        Unit::Hour => fixed(3_600_000),
        Unit::Minute => fixed(60_000),
        Unit::Second => fixed(1_000),
    }
}

/// The last millisecond of the unit containing `ms`.
fn ceil(ms: i64, unit: Unit) -> i64 {
    add(floor(ms, unit), 1, unit).map_or(ms, |next| next - 1)
}

/// A range bound as Elasticsearch resolves it: epoch milliseconds, an ISO date, or date math
/// (`now-1M/M`, `2024-01-01||+1d`). With `round_up` (`gt`, `lte`), rounding and missing date
/// components go to the unit's last millisecond; otherwise to its first.
pub(crate) fn resolve_bound(text: &str, now_ms: i64, round_up: bool) -> Option<i64> {
    let text = text.trim();
    let (anchor, math) = if let Some(rest) = text.strip_prefix("now") {
        (now_ms, rest)
    } else if let Some((date, math)) = text.split_once("||") {
        (parse_iso(date)?.millis, math)
    } else if let Some(p) = parse_iso(text) {
        return Some(match (round_up, p.precision) {
            (true, Some(unit)) => ceil(p.millis, unit),
            _ => p.millis,
        });
    } else {
        return text.parse::<i64>().ok();
    };
    let mut ms = anchor;
    let mut chars = math.chars().peekable();
    while let Some(op) = chars.next() {
        match op {
            '+' | '-' => {
                let mut n = String::new();
                while let Some(c) = chars.peek().filter(|c| c.is_ascii_digit()) {
                    n.push(*c);
                    chars.next();
                }
                let n: i64 = if n.is_empty() { 1 } else { n.parse().ok()? };
                let unit = Unit::from_math_letter(chars.next()?)?;
                ms = add(ms, if op == '-' { -n } else { n }, unit)?;
            }
            '/' => {
                let unit = Unit::from_math_letter(chars.next()?)?;
                ms = if round_up { ceil(ms, unit) } else { floor(ms, unit) };
            }
            _ => return None,
        }
    }
    Some(ms)
}

/// A fixed interval (`30d`, `12h`, `90m`, `10s`, `500ms`) in milliseconds.
pub(crate) fn fixed_interval_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let n: i64 = s[..split].parse().ok()?;
    let per = match &s[split..] {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    (n > 0).then_some(n * per)
}

/// A time zone offset (`Z`, `UTC`, `+01:00`, `-0530`) in milliseconds; named zones other than
/// UTC are not known here.
pub(crate) fn zone_offset_ms(s: &str) -> Option<i64> {
    match s {
        "Z" | "UTC" | "utc" | "Etc/UTC" | "GMT" => Some(0),
        _ => {
            let sign = match s.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let rest = s[1..].replace(':', "");
            let h: i64 = rest.get(..2)?.parse().ok()?;
            let m: i64 = if rest.len() > 2 { rest.get(2..4)?.parse().ok()? } else { 0 };
            Some(sign * (h * 3_600_000 + m * 60_000))
        }
    }
}

/// `ms` formatted with an Elasticsearch/Java date pattern (`yyyy-MM-dd`, `yyyy-MM`, named
/// formats `date`, `strict_date_optional_time`, `epoch_millis`); the default is
/// `2024-03-01T00:00:00.000Z`. The first alternative of `a||b` is used.
pub(crate) fn format_millis(ms: i64, pattern: Option<&str>) -> String {
    let Some(t) = naive(ms) else {
        return ms.to_string();
    };
    let pattern = pattern.map(|p| p.split("||").next().unwrap_or(p));
    let chrono_fmt = match pattern {
        None | Some("strict_date_optional_time" | "date_optional_time" | "strict_date_time" | "date_time") => "%Y-%m-%dT%H:%M:%S%.3fZ".to_string(),
        Some("epoch_millis") => return ms.to_string(),
        Some("epoch_second") => return (ms.div_euclid(1000)).to_string(),
        Some("date" | "strict_date" | "year_month_day" | "strict_year_month_day") => "%Y-%m-%d".to_string(),
        Some("year_month" | "strict_year_month") => "%Y-%m".to_string(),
        Some("year" | "strict_year") => "%Y".to_string(),
        Some(java) => java_to_chrono(java),
    };
    // A pattern chrono cannot render (its `to_string` would panic) falls back to milliseconds.
    let mut out = String::new();
    match std::fmt::Write::write_fmt(&mut out, format_args!("{}", t.format(&chrono_fmt))) {
        Ok(()) => out,
        Err(_) => ms.to_string(),
    }
}

/// Translate the common letters of a Java date pattern to chrono's `%` syntax; quoted text is
/// literal.
fn java_to_chrono(java: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = java.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mut run = 1;
        while i + run < chars.len() && chars[i + run] == c {
            run += 1;
        }
        let piece = match (c, run) {
            ('\'', _) => {
                let end = chars[i + 1..].iter().position(|&x| x == '\'').map_or(chars.len(), |p| i + 1 + p);
                out.extend(chars[i + 1..end].iter().map(|&ch| if ch == '%' { "%%".to_string() } else { ch.to_string() }).collect::<Vec<_>>());
                i = end + 1;
                continue;
            }
            ('y' | 'u', 2) => "%y",
            ('y' | 'u', _) => "%Y",
            ('M', 1) => "%-m",
            ('M', 2) => "%m",
            ('M', 3) => "%b",
            ('M', _) => "%B",
            ('d', 1) => "%-d",
            ('d', _) => "%d",
            ('H', 1) => "%-H",
            ('H', _) => "%H",
            ('m', _) => "%M",
            ('s', _) => "%S",
            ('S', _) => "%3f",
            ('E', 1..=3) => "%a",
            ('E', _) => "%A",
            ('X' | 'Z' | 'x', _) => "Z",
            ('%', _) => "%%",
            _ => {
                out.extend(std::iter::repeat_n(c, run));
                i += run;
                continue;
            }
        };
        out.push_str(piece);
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis()
    }

    #[test]
    fn parses_iso_forms_and_rejects_others() {
        assert_eq!(parse_iso("2024-03-01").unwrap().millis, ms("2024-03-01T00:00:00Z"));
        assert_eq!(parse_iso("2024-03-01T10:20:30.5+02:00").unwrap().millis, ms("2024-03-01T08:20:30.500Z"));
        assert_eq!(parse_iso("2024-03-01 10:20").unwrap().millis, ms("2024-03-01T10:20:00Z"));
        assert_eq!(parse_iso("2024-03").unwrap().precision, Some(Unit::Month));
        for bad in ["2024-13-01", "2024-02-30", "hello", "2024/03/01", "2024-03-01T", "12345"] {
            assert!(parse_iso(bad).is_none(), "{bad}");
        }
        assert!(is_date_string("2024-03-01") && !is_date_string("2024-03") && !is_date_string("2024"));
    }

    #[test]
    fn date_math_rounds_like_elasticsearch() {
        let now = ms("2024-05-17T13:45:00Z");
        assert_eq!(resolve_bound("now-30d", now, false), Some(ms("2024-04-17T13:45:00Z")));
        assert_eq!(resolve_bound("now-1M/M", now, false), Some(ms("2024-04-01T00:00:00Z")));
        assert_eq!(resolve_bound("now-1M/M", now, true), Some(ms("2024-04-30T23:59:59.999Z")));
        assert_eq!(resolve_bound("now/d", now, false), Some(ms("2024-05-17T00:00:00Z")));
        assert_eq!(resolve_bound("2024-01-31||+1M", now, false), Some(ms("2024-02-29T00:00:00Z")));
        assert_eq!(resolve_bound("2024-01-31", now, true), Some(ms("2024-01-31T23:59:59.999Z")));
        assert_eq!(resolve_bound("1700000000000", now, false), Some(1_700_000_000_000));
        assert_eq!(resolve_bound("now-3x", now, false), None);
    }

    #[test]
    fn calendar_floors_and_formats() {
        let t = ms("2024-05-17T13:45:10Z");
        assert_eq!(floor(t, Unit::Quarter), ms("2024-04-01T00:00:00Z"));
        assert_eq!(floor(t, Unit::Week), ms("2024-05-13T00:00:00Z"));
        assert_eq!(format_millis(t, None), "2024-05-17T13:45:10.000Z");
        assert_eq!(format_millis(t, Some("yyyy-MM")), "2024-05");
        assert_eq!(format_millis(t, Some("yyyy-MM-dd'T'HH:mm||epoch_millis")), "2024-05-17T13:45");
        assert_eq!(fixed_interval_ms("30d"), Some(30 * 86_400_000));
        // Odd patterns never panic: unknown letters are literal, `%` is escaped.
        for odd in ["%Q", "QQQ 'open", "yyyy%%MM", "", "'"] {
            let _ = format_millis(t, Some(odd));
        }
        assert_eq!(zone_offset_ms("-05:30"), Some(-(5 * 3_600_000 + 30 * 60_000)));
    }
}
