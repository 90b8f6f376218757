//! Tokens with spans: words (lower-case, singular and word-family forms), numbers (`1,000`,
//! `2.5`, `40k`, `-10`), ISO dates, quoted literals and the symbols that carry meaning (`,`, `(`,
//! `$`, `%`, `>`, …). Hyphenated words are split into their parts, each marked as glued to the
//! next, so that "pre-opening" matches a value said either way.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use qa_core::text;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TokenKind {
    /// A word (letters, digits, inner apostrophes).
    Word,
    /// A number, already scaled ("40k" is 40000).
    Number {
        /// The value.
        value: f64,
    },
    /// An ISO date (`2024-03-05`, a time part dropped).
    Date {
        /// The day.
        date: NaiveDate,
    },
    /// Text between quotes, kept as written.
    Quoted,
    /// One symbol character.
    Symbol,
}

/// One token of the question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// As written (for a quoted literal: the text between the quotes).
    pub text: String,
    /// Lower case.
    pub lower: String,
    /// Singular lower case (words); the lower text otherwise.
    pub norm: String,
    /// Byte offsets in the question.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// What it is.
    pub kind: TokenKind,
    /// Written against the next token with a hyphen ("pre" of "pre-opening").
    pub hyphen_next: bool,
    /// Followed by a possessive `'s` ("Raman" of "Raman's").
    pub possessive: bool,
}

impl Token {
    /// A word token.
    pub fn is_word(&self) -> bool {
        self.kind == TokenKind::Word
    }

    /// The number, if a number token.
    pub fn number(&self) -> Option<f64> {
        match self.kind {
            TokenKind::Number { value } => Some(value),
            _ => None,
        }
    }

    /// The date, if a date token.
    pub fn date(&self) -> Option<NaiveDate> {
        match self.kind {
            TokenKind::Date { date } => Some(date),
            _ => None,
        }
    }

    /// A symbol token equal to `c`.
    pub fn is_symbol(&self, c: char) -> bool {
        self.kind == TokenKind::Symbol && self.text.starts_with(c)
    }

    /// Written with an upper-case first letter (or all capitals), as names and codes are.
    pub fn capitalized(&self) -> bool {
        self.is_word() && self.text.chars().next().is_some_and(char::is_uppercase)
    }

    /// All capitals, two letters or more ("VIN", "CA", "SLA"; "CBCs", a plural).
    pub fn all_caps(&self) -> bool {
        let t = self.text.strip_suffix('s').filter(|r| r.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2).unwrap_or(&self.text);
        self.is_word() && t.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !t.chars().any(char::is_lowercase)
    }
}

/// Abbreviations whose full stop does not end a sentence.
const TITLES: &[&str] = &["dr", "mr", "mrs", "ms", "st", "prof", "no", "vs", "jr", "sr", "mt", "ft", "approx", "etc", "inc", "ltd", "co", "dept", "u.s"];

/// Symbols kept as tokens; every other non-word character separates.
const SYMBOLS: &[char] = &[',', '(', ')', '$', '€', '£', '%', '°', '>', '<', '=', '!', '≥', '≤', ';', '?', ':', '/'];

/// Split a question into tokens.
pub fn tokenize(question: &str) -> Vec<Token> {
    let chars: Vec<(usize, char)> = question.char_indices().collect();
    let n = chars.len();
    let at = |i: usize| chars.get(i).map(|(_, c)| *c);
    let byte = |i: usize| chars.get(i).map(|(b, _)| *b).unwrap_or(question.len());
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        // A quoted literal: "…", “…”, or '…' opened at a word boundary.
        let opens = matches!(c, '"' | '“' | '”') || (c == '\'' && (i == 0 || !at(i - 1).is_some_and(char::is_alphanumeric)));
        if opens {
            let close: &[char] = if c == '\'' { &['\'', '’'] } else { &['"', '”', '“'] };
            if let Some(j) = (i + 1..n).find(|&j| close.contains(&chars[j].1) && !(c == '\'' && at(j + 1).is_some_and(char::is_alphanumeric))) {
                let inner = &question[byte(i + 1)..byte(j)];
                if !inner.trim().is_empty() && j - i <= 80 {
                    let t = inner.trim().to_string();
                    // Compared as a stored value's words are ("JetBlue Airways" → jetblue airway).
                    let norm = crate::names::value_words(&t).join(" ");
                    out.push(Token { lower: t.to_lowercase(), norm, text: t, start: byte(i), end: byte(j + 1), kind: TokenKind::Quoted, hyphen_next: false, possessive: false });
                    i = j + 1;
                    continue;
                }
            }
        }
        if c.is_ascii_digit() || (c == '-' && at(i + 1).is_some_and(|d| d.is_ascii_digit()) && (i == 0 || at(i - 1).is_some_and(char::is_whitespace))) || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit()) && (i == 0 || !at(i - 1).is_some_and(char::is_alphanumeric))) {
            let (tok, next) = number_at(question, &chars, i);
            if let Some(mut t) = tok {
                // "BP-2024-00406": a number glued by a hyphen to what follows, as a word is.
                t.hyphen_next = at(next) == Some('-') && at(next + 1).is_some_and(char::is_alphanumeric);
                out.push(t);
                i = next;
                continue;
            }
        }
        if c.is_alphanumeric() {
            let mut j = i;
            while j < n && (chars[j].1.is_alphanumeric() || (chars[j].1 == '\'' || chars[j].1 == '’') && at(j + 1).is_some_and(char::is_alphanumeric) && !matches!(at(j + 1), Some('s' | 'S')) || chars[j].1 == '.' && is_abbreviation_dot(&chars, j)) {
                j += 1;
            }
            let mut word = question[byte(i)..byte(j)].to_string();
            let mut possessive = false;
            // "Raman's", "drivers'": the possessive is dropped, and remembered.
            if matches!(at(j), Some('\'' | '’')) && matches!(at(j + 1), Some('s' | 'S')) && !at(j + 2).is_some_and(char::is_alphanumeric) {
                possessive = true;
                let end = j + 2;
                push_word(&mut out, &word, byte(i), byte(j), possessive);
                i = end;
                continue;
            }
            if matches!(at(j), Some('\'' | '’')) && word.ends_with('s') && !at(j + 1).is_some_and(char::is_alphanumeric) {
                possessive = true;
            }
            let hyphen = at(j) == Some('-') && at(j + 1).is_some_and(char::is_alphanumeric);
            word = word.trim_end_matches('.').to_string();
            push_word(&mut out, &word, byte(i), byte(i) + word.len(), possessive);
            if hyphen && let Some(last) = out.last_mut() {
                last.hyphen_next = true;
            }
            i = j;
            continue;
        }
        // A full stop ends a sentence, unless it ends a title ("Dr.") or an initial ("J.").
        if c == '.' && at(i + 1).is_none_or(char::is_whitespace) {
            let prev_word = out.last().filter(|t| t.is_word() && t.end == chars[i].0).map(|t| t.lower.clone());
            let title = prev_word.as_deref().is_some_and(|w| w.chars().count() == 1 || TITLES.contains(&w));
            if !title {
                out.push(Token { lower: ".".into(), norm: ".".into(), text: ".".into(), start: chars[i].0, end: byte(i + 1), kind: TokenKind::Symbol, hyphen_next: false, possessive: false });
            }
            i += 1;
            continue;
        }
        // A dash set off by spaces ("contracts in pounds - buyer and date") parts a list from
        // what it is of; inside a word or code ("SHP-001751") it is no symbol.
        let lone_dash = matches!(c, '-' | '–' | '—') && (i == 0 || at(i - 1).is_some_and(char::is_whitespace)) && at(i + 1).is_none_or(char::is_whitespace);
        if SYMBOLS.contains(&c) || lone_dash {
            let mut text = c.to_string();
            // Two-character operators.
            if matches!(c, '>' | '<' | '!') && at(i + 1) == Some('=') {
                text.push('=');
                i += 1;
            } else if c == '<' && at(i + 1) == Some('>') {
                text = "!=".into();
                i += 1;
            }
            out.push(Token { lower: text.clone(), norm: text.clone(), text, start: chars[i].0, end: byte(i + 1), kind: TokenKind::Symbol, hyphen_next: false, possessive: false });
        }
        i += 1;
    }
    out
}

/// "Dr." and "St." keep no dot; "U.S." keeps its inner dots.
fn is_abbreviation_dot(chars: &[(usize, char)], j: usize) -> bool {
    chars.get(j + 1).is_some_and(|(_, c)| c.is_alphabetic()) && j >= 1 && chars[j - 1].1.is_alphabetic() && (j < 2 || !chars[j - 2].1.is_alphabetic())
}

fn push_word(out: &mut Vec<Token>, word: &str, start: usize, end: usize, possessive: bool) {
    if word.is_empty() {
        return;
    }
    let lower = word.to_lowercase().replace('’', "'");
    // `singular` keeps short words; "ids" is the plural people write most.
    // "CBCs", "SAEs": the plural of an acronym is the acronym.
    let acronym_plural = word.len() >= 3 && word.ends_with('s') && word[..word.len() - 1].chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) && word[..word.len() - 1].chars().filter(char::is_ascii_uppercase).count() >= 2;
    let norm = if lower == "ids" {
        "id".to_string()
    } else if acronym_plural {
        lower[..lower.len() - 1].to_string()
    } else {
        text::singular(&lower)
    };
    out.push(Token { text: word.to_string(), lower, norm, start, end, kind: TokenKind::Word, hyphen_next: false, possessive });
}

/// A number (or an ISO date) starting at char index `i`; `None` when the digits are part of a
/// word ("3rd", "S1", "T20-S004").
fn number_at(q: &str, chars: &[(usize, char)], i: usize) -> (Option<Token>, usize) {
    let n = chars.len();
    let byte = |k: usize| chars.get(k).map(|(b, _)| *b).unwrap_or(q.len());
    // ISO date, optionally with a time part.
    let rest = &q[byte(i)..];
    let iso = rest.len() >= 10 && rest.as_bytes()[4] == b'-' && rest.as_bytes()[7] == b'-' && rest[..10].bytes().enumerate().all(|(k, b)| k == 4 || k == 7 || b.is_ascii_digit());
    if iso && let Ok(date) = NaiveDate::parse_from_str(&rest[..10], "%Y-%m-%d") {
        {
            let mut end = 10;
            let tail = &rest[10..];
            if (tail.starts_with('T') || tail.starts_with(' ')) && tail.len() >= 6 && tail.as_bytes()[3] == b':' && tail[1..3].bytes().all(|b| b.is_ascii_digit()) {
                end += tail[1..].find(|ch: char| !(ch.is_ascii_digit() || ch == ':' || ch == '.')).map(|k| k + 1).unwrap_or(tail.len());
            }
            let text = rest[..end].to_string();
            let k = i + rest[..end].chars().count();
            return (Some(Token { lower: text.clone(), norm: text.clone(), text, start: byte(i), end: byte(k), kind: TokenKind::Date { date }, hyphen_next: false, possessive: false }), k);
        }
    }
    let mut j = i;
    if chars[j].1 == '-' {
        j += 1;
    }
    while j < n && (chars[j].1.is_ascii_digit() || ((chars[j].1 == ',' || chars[j].1 == '.') && chars.get(j + 1).is_some_and(|(_, c)| c.is_ascii_digit()) && chars.get(j - 1).is_some_and(|(_, c)| c.is_ascii_digit()))) {
        // "1,000" groups thousands; "1, 2" lists.
        let group_of_three = chars.get(j + 1..j + 4).is_some_and(|s| s.iter().all(|(_, c)| c.is_ascii_digit())) && !chars.get(j + 4).is_some_and(|(_, c)| c.is_ascii_digit());
        if chars[j].1 == ',' && !group_of_three {
            break;
        }
        j += 1;
    }
    let digits: String = q[byte(i)..byte(j)].chars().filter(|c| *c != ',').collect();
    let Ok(mut value) = digits.parse::<f64>() else { return (None, i + 1) };
    let mut end = j;
    // A letter right after: a scale ("40k", "2m" is ambiguous: metres; only k, K, bn), an
    // ordinal ("3rd", "21st"), or a code ("S1" is handled as a word, "4x4", "2b").
    if let Some((_, c)) = chars.get(j)
        && c.is_alphabetic()
    {
        let mut k = j;
        while k < n && chars[k].1.is_alphanumeric() {
            k += 1;
        }
        let suffix: String = q[byte(j)..byte(k)].to_lowercase();
        match suffix.as_str() {
            "k" => {
                value *= 1000.0;
                end = k;
            }
            "bn" => {
                value *= 1e9;
                end = k;
            }
            "st" | "nd" | "rd" | "th" => end = k,
            _ => {
                // A word with digits in it: a code, read as a word.
                let word = q[byte(i)..byte(k)].to_string();
                let lower = word.to_lowercase();
                return (Some(Token { norm: lower.clone(), lower, text: word, start: byte(i), end: byte(k), kind: TokenKind::Word, hyphen_next: false, possessive: false }), k);
            }
        }
    }
    if !value.is_finite() {
        return (None, end.max(i + 1));
    }
    let text = q[byte(i)..byte(end)].to_string();
    (Some(Token { lower: text.to_lowercase(), norm: text.to_lowercase(), text, start: byte(i), end: byte(end), kind: TokenKind::Number { value }, hyphen_next: false, possessive: false }), end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(q: &str) -> Vec<String> {
        tokenize(q).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_numbers_dates_and_symbols() {
        assert_eq!(texts("List the VIN, model and list price of cars over 40,000 (cheapest first)?"), ["List", "the", "VIN", ",", "model", "and", "list", "price", "of", "cars", "over", "40,000", "(", "cheapest", "first", ")", "?"]);
        let t = tokenize("fines over 2.5k since 2024-03-01T10:00 at -10 °C");
        assert_eq!(t[2].number(), Some(2500.0));
        assert_eq!(t[4].date(), NaiveDate::from_ymd_opt(2024, 3, 1));
        assert_eq!(t[6].number(), Some(-10.0));
        assert!(t[7].is_symbol('°'));
        assert_eq!(tokenize("1, 2 and 3").iter().filter_map(Token::number).collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn quotes_possessives_hyphens_and_codes() {
        let t = tokenize("Priya Raman's tickets named 'Summer Show' in the pre-opening state, T20-S004 and S1");
        assert_eq!(t[1].text, "Raman");
        assert!(t[1].possessive);
        let q = t.iter().find(|t| t.kind == TokenKind::Quoted).unwrap();
        assert_eq!(q.text, "Summer Show");
        let pre = t.iter().position(|t| t.lower == "pre").unwrap();
        assert!(t[pre].hyphen_next && t[pre + 1].lower == "opening");
        assert!(t.iter().any(|t| t.text == "T20" && t.is_word()));
        assert!(t.iter().any(|t| t.text == "S1" && t.is_word()));
        // An apostrophe inside a word is not a quote.
        assert_eq!(texts("the driver's car isn't 'red'"), ["the", "driver", "car", "isn't", "red"]);
        assert_eq!(tokenize("cars")[0].norm, "car");
        assert!(tokenize("VIN")[0].all_caps());
        assert_eq!(texts("Dr. Santos in the U.S."), ["Dr", "Santos", "in", "the", "U.S"]);
    }
}
