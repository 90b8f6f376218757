//! Token scan: statement count, write/admin keywords, comments and stray non-ASCII, judged on
//! sqlparser's tokens for the dialect before anything is parsed.

use std::collections::{BTreeSet, HashSet};

use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

use crate::{DbSchema, Dialect};
use super::{COMMENT_WORDS, HARD_WORDS, MAX_TOKENS, Reason, ReasonKind, SOFT_WORDS, short, sql_dialect};

pub(super) struct TokenScan {
    /// Non-empty statements between `;`.
    pub(super) statements: usize,
    pub(super) reasons: Vec<Reason>,
    pub(super) limit_all: bool,
}

pub(super) fn scan_tokens(sql: &str, dialect: Dialect, schema: Option<&DbSchema>) -> Result<TokenScan, Reason> {
    let d = sql_dialect(dialect);
    // Raw (unescaped = false) contents, so non-ASCII characters can be counted exactly.
    let tokens = Tokenizer::new(d.as_ref(), sql)
        .with_unescape(false)
        .tokenize()
        .map_err(|e| Reason::new(ReasonKind::Parse, short(&e.to_string())))?;
    let significant: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_) | Token::EOF)).collect();
    if significant.len() > MAX_TOKENS {
        return Err(Reason::new(
            ReasonKind::Parse,
            format!("statement too complex: {} tokens (at most {MAX_TOKENS})", significant.len()),
        ));
    }
    let mut scan = TokenScan { statements: count_statements(&significant), reasons: Vec::new(), limit_all: false };
    scan.reasons.extend(keyword_reason(&significant, schema, &mut scan.limit_all));
    scan.reasons.extend(comment_reasons(&tokens));
    scan.reasons.extend(non_ascii_reason(sql, &tokens));
    Ok(scan)
}

/// Non-empty statements between `;`.
fn count_statements(significant: &[&Token]) -> usize {
    let mut statements = 0;
    let mut in_statement = false;
    for t in significant {
        if matches!(t, Token::SemiColon) {
            in_statement = false;
        } else if !in_statement {
            in_statement = true;
            statements += 1;
        }
    }
    statements
}

/// Write/admin keywords outside strings (see the module doc); notes `LIMIT ALL` on the way.
fn keyword_reason(significant: &[&Token], schema: Option<&DbSchema>, limit_all: &mut bool) -> Option<Reason> {
    let names: HashSet<String> = schema
        .map(|s| {
            s.tables
                .iter()
                .flat_map(|t| {
                    std::iter::once(t.name.to_ascii_lowercase())
                        .chain(t.columns.iter().map(|c| c.name.to_ascii_lowercase()))
                })
                .collect()
        })
        .unwrap_or_default();

    let mut flagged: BTreeSet<String> = BTreeSet::new();
    for (i, t) in significant.iter().enumerate() {
        let Token::Word(w) = t else { continue };
        if w.quote_style.is_some() {
            continue;
        }
        let upper = w.value.to_ascii_uppercase();
        let prev = i.checked_sub(1).and_then(|j| significant.get(j));
        let next = significant.get(i + 1);
        if upper == "LIMIT"
            && matches!(next, Some(Token::Word(n)) if n.quote_style.is_none() && n.value.eq_ignore_ascii_case("ALL"))
        {
            *limit_all = true;
        }
        let hard = HARD_WORDS.contains(&upper.as_str()) || (upper == "REPLACE" && !matches!(next, Some(Token::LParen)));
        let soft = SOFT_WORDS.contains(&upper.as_str())
            && !matches!(prev, Some(Token::Period))
            && !matches!(next, Some(Token::Period))
            && !names.contains(&w.value.to_ascii_lowercase());
        if hard || soft {
            flagged.insert(upper);
        }
    }
    if flagged.is_empty() {
        return None;
    }
    let words: Vec<String> = flagged.into_iter().collect();
    Some(Reason::new(
        ReasonKind::Forbidden,
        format!("write/admin keyword{} {} outside a string", if words.len() > 1 { "s" } else { "" }, words.join(", ")),
    ))
}

/// Comments: never executed, but a `;` or a statement keyword in one is an attempt to hide SQL.
fn comment_reasons(tokens: &[Token]) -> Vec<Reason> {
    let mut reasons = Vec::new();
    for t in tokens {
        let comment = match t {
            Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => comment,
            Token::Whitespace(Whitespace::MultiLineComment(comment)) => comment,
            _ => continue,
        };
        if comment.contains(';') {
            reasons.push(Reason::new(ReasonKind::Forbidden, "a comment contains ';' (hidden statement?)"));
            continue;
        }
        let hit = comment
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .find(|w| COMMENT_WORDS.iter().any(|k| k.eq_ignore_ascii_case(w)));
        if let Some(word) = hit {
            reasons.push(Reason::new(
                ReasonKind::Forbidden,
                format!("a comment contains the keyword {} (hidden statement?)", word.to_ascii_uppercase()),
            ));
        }
    }
    reasons
}

/// Non-ASCII outside literals, quoted identifiers and comments. The tokenizer folds any
/// Unicode whitespace into a plain space, so count: every non-ASCII character of the text
/// must be accounted for by an allowed token.
fn non_ascii_reason(sql: &str, tokens: &[Token]) -> Option<Reason> {
    let total = sql.chars().filter(|c| !c.is_ascii()).count();
    let mut allowed = 0usize;
    let mut stray: BTreeSet<char> = BTreeSet::new();
    for t in tokens {
        let inside_allowed = match t {
            Token::Word(w) if w.quote_style.is_some() => Some(w.value.as_str()),
            Token::Word(_) => None,
            Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => Some(comment.as_str()),
            Token::Whitespace(Whitespace::MultiLineComment(comment)) => Some(comment.as_str()),
            Token::SingleQuotedString(s)
            | Token::DoubleQuotedString(s)
            | Token::TripleSingleQuotedString(s)
            | Token::TripleDoubleQuotedString(s)
            | Token::SingleQuotedByteStringLiteral(s)
            | Token::DoubleQuotedByteStringLiteral(s)
            | Token::TripleSingleQuotedByteStringLiteral(s)
            | Token::TripleDoubleQuotedByteStringLiteral(s)
            | Token::SingleQuotedRawStringLiteral(s)
            | Token::DoubleQuotedRawStringLiteral(s)
            | Token::TripleSingleQuotedRawStringLiteral(s)
            | Token::TripleDoubleQuotedRawStringLiteral(s)
            | Token::NationalStringLiteral(s)
            | Token::EscapedStringLiteral(s)
            | Token::UnicodeStringLiteral(s)
            | Token::HexStringLiteral(s) => Some(s.as_str()),
            Token::DollarQuotedString(s) => Some(s.value.as_str()),
            _ => None,
        };
        match inside_allowed {
            Some(s) => allowed += s.chars().filter(|c| !c.is_ascii()).count(),
            None => stray.extend(t.to_string().chars().filter(|c| !c.is_ascii())),
        }
    }
    if total <= allowed && stray.is_empty() {
        return None;
    }
    let shown: Vec<String> = stray.iter().take(4).map(|c| format!("U+{:04X}", *c as u32)).collect();
    let what = if shown.is_empty() { "invisible or Unicode whitespace".to_string() } else { shown.join(", ") };
    Some(Reason::new(
        ReasonKind::Forbidden,
        format!(
            "non-ASCII character outside string literals ({what}): \
             look-alike letters and invisible characters are not allowed"
        ),
    ))
}
