//! Cell text: sanitizing, display widths, cutting and wrapping, number formatting.

use serde_json::Value;

/// Display width in terminal cells.
pub(super) fn text_width(s: &str) -> usize {
    console::measure_text_width(s)
}

/// Make text safe and one-line for a terminal: newlines become `↵`, tabs and other control
/// characters (ESC included, so no escape sequences from data) a space.
pub(super) fn sanitize(s: &str) -> String {
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
pub(super) fn cut(s: &str, max: usize) -> String {
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
pub(super) fn wrap(s: &str, max: usize) -> String {
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
pub(super) fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Number(n) => format_number(n),
        Value::String(s) => sanitize(s),
        Value::Bool(b) => b.to_string(),
        other => sanitize(&other.to_string()),
    }
}

pub(super) fn format_number(n: &serde_json::Number) -> String {
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
pub(super) fn format_float(x: f64) -> String {
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

pub(super) fn trim_zeros(s: String) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// A plain decimal in a string, as databases return NUMERIC: `-12`, `3.50`, `+0.5`, `1e3`.
pub(super) fn decimal_string(s: &str) -> Option<f64> {
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

pub(super) fn is_numeric_value(v: &Value) -> bool {
    numeric(v).is_some()
}

/// A value as a number: a JSON number or a decimal string.
pub(super) fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => decimal_string(s),
        _ => None,
    }
}
