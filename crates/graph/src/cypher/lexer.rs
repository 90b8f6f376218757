//! Cypher lexer: turns query text into tokens with byte spans and line:column positions.
//!
//! It follows Neo4j's lexical rules where they decide *where a token ends* (strings with backslash
//! escapes, backtick identifiers with doubled-backtick escapes, `//` and non-nesting `/* */`
//! comments), because every later check depends on agreeing with the store about which text is live
//! code. Where lexers are known to disagree, it refuses instead of guessing:
//!
//! * Non-ASCII outside string literals and backtick identifiers (including comments) is an error.
//!   Fullwidth `ＣＲＥＡＴＥ`, Cyrillic look-alikes, zero-width characters, NBSP and the Unicode line
//!   separators (U+2028, U+0085 — which some lexers take as the end of a `//` comment) all fall here.
//! * ASCII control characters other than tab, LF and CR outside string literals are errors (vertical
//!   tab, form feed and the FS..US separators are whitespace or line breaks to some lexers only).
//! * A line comment ends at the first LF *or* CR, the earliest end any lexer uses.
//!
//! The lexer never panics and always returns the tokens it could make; errors are collected.

use super::ReasonKind;

/// What a token is. Keywords are plain [`TokKind::Ident`]s: the analysis decides by context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    /// Unquoted identifier or keyword (`MATCH`, `n`, `Concept`).
    Ident,
    /// Backtick identifier; `text` holds the unescaped name.
    QuotedIdent,
    /// `$name`, `$0` or `` $`name` ``; `text` holds the name.
    Param,
    /// Numeric literal as written.
    Number,
    /// String literal; `text` holds the unescaped value.
    Str,
    /// Operator or punctuation; `text` holds it (`(`, `<-`, `..`).
    Punct,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokKind,
    pub text: String,
    /// Byte span in the source.
    pub start: usize,
    pub end: usize,
    /// 1-based line and column (in characters) of `start`.
    pub line: u32,
    pub col: u32,
}

impl Token {
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == TokKind::Punct && self.text == p
    }
    /// An unquoted identifier equal to `kw`, ignoring ASCII case.
    pub fn is_word(&self, kw: &str) -> bool {
        self.kind == TokKind::Ident && self.text.eq_ignore_ascii_case(kw)
    }
    pub fn is_name(&self) -> bool {
        matches!(self.kind, TokKind::Ident | TokKind::QuotedIdent)
    }
    pub fn pos(&self) -> String {
        format!("{}:{}", self.line, self.col)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub kind: ReasonKind,
    pub message: String,
    pub offset: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub errors: Vec<LexError>,
}

/// Errors past this many are dropped: garbage input would otherwise produce one per character.
const MAX_ERRORS: usize = 12;

/// Two-character operators, tried before single characters (longest match).
const PUNCT2: [&str; 10] = ["<-", "->", "..", "=~", "<>", "<=", ">=", "!=", "+=", "::"];
const PUNCT1: &str = "()[]{},;:.|&!%+-*/^=<>";

struct Cursor<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }
    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(n)
    }
    fn starts_with(&self, s: &str) -> bool {
        self.src[self.pos..].starts_with(s)
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        // CR LF counts as one line break; a lone CR is a line break too.
        if c == '\n' {
            if !self.src[..self.pos - 1].ends_with('\r') {
                self.line += 1;
            }
            self.col = 1;
        } else if c == '\r' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// How a character the lexer does not accept is shown in messages (invisible ones as `\u{..}`).
fn describe(c: char) -> String {
    if c.is_ascii_graphic() {
        format!("'{c}'")
    } else if c.is_alphanumeric() {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

struct Lexer<'a> {
    cur: Cursor<'a>,
    out: Lexed,
}

impl Lexer<'_> {
    fn error(&mut self, kind: ReasonKind, offset: usize, line: u32, col: u32, what: String) {
        if self.out.errors.len() < MAX_ERRORS {
            self.out.errors.push(LexError { kind, message: format!("{what} at {line}:{col}"), offset });
        }
    }

    fn push(&mut self, kind: TokKind, text: String, start: usize, line: u32, col: u32) {
        self.out.tokens.push(Token { kind, text, start, end: self.cur.pos, line, col });
    }

    /// The previous token can end an expression: a `.` after it is property access, not a float.
    fn prev_ends_value(&self) -> bool {
        self.out.tokens.last().is_some_and(|t| {
            matches!(t.kind, TokKind::Ident | TokKind::QuotedIdent | TokKind::Param | TokKind::Number | TokKind::Str)
                || (t.kind == TokKind::Punct && matches!(t.text.as_str(), ")" | "]" | "}"))
        })
    }

    fn run(mut self) -> Lexed {
        while let Some(c) = self.cur.peek() {
            let (start, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
            match c {
                ' ' | '\t' | '\n' | '\r' => {
                    self.cur.bump();
                }
                '/' if self.cur.starts_with("//") => self.line_comment(),
                '/' if self.cur.starts_with("/*") => self.block_comment(),
                '\'' | '"' => self.string(c),
                '`' => {
                    if let Some(name) = self.backtick() {
                        self.push(TokKind::QuotedIdent, name, start, line, col);
                    }
                }
                '$' => self.param(),
                c if c.is_ascii_digit() => self.number(),
                '.' if self.cur.peek_at(1).is_some_and(|d| d.is_ascii_digit()) && !self.prev_ends_value() => self.number(),
                c if is_ident_start(c) => {
                    while self.cur.peek().is_some_and(is_ident_char) {
                        self.cur.bump();
                    }
                    let text = self.cur.src[start..self.cur.pos].to_string();
                    self.push(TokKind::Ident, text, start, line, col);
                }
                c if !c.is_ascii() => {
                    // One error per run of non-ASCII characters, naming the first few.
                    let mut shown = Vec::new();
                    while let Some(d) = self.cur.peek().filter(|d| !d.is_ascii()) {
                        if shown.len() < 3 {
                            shown.push(describe(d));
                        }
                        self.cur.bump();
                    }
                    let what = format!("non-ASCII character {} outside a string literal", shown.join(", "));
                    self.error(ReasonKind::NonAscii, start, line, col, what);
                }
                c if c.is_ascii_control() => {
                    self.cur.bump();
                    let what = format!("control character {} outside a string literal", describe(c));
                    self.error(ReasonKind::Syntax, start, line, col, what);
                }
                _ => {
                    if let Some(p) = PUNCT2.iter().find(|p| self.cur.starts_with(p)) {
                        self.cur.bump();
                        self.cur.bump();
                        self.push(TokKind::Punct, (*p).to_string(), start, line, col);
                    } else if PUNCT1.contains(c) {
                        self.cur.bump();
                        self.push(TokKind::Punct, c.to_string(), start, line, col);
                    } else {
                        self.cur.bump();
                        self.error(ReasonKind::Syntax, start, line, col, format!("unexpected character {}", describe(c)));
                    }
                }
            }
        }
        self.out
    }

    /// Characters inside comments: comments are dropped, so only their *end* matters, and that is
    /// where lexers disagree (Unicode line separators, VT/FF). Such characters are refused.
    fn comment_char(&mut self, c: char, in_line_comment: bool) {
        let (offset, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
        let bad_control = c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
        if !c.is_ascii() {
            self.error(ReasonKind::NonAscii, offset, line, col, format!("non-ASCII character {} in a comment", describe(c)));
        } else if bad_control {
            let where_ = if in_line_comment { "a line comment" } else { "a comment" };
            self.error(ReasonKind::Syntax, offset, line, col, format!("control character {} in {where_}", describe(c)));
        }
        self.cur.bump();
    }

    fn line_comment(&mut self) {
        self.cur.bump();
        self.cur.bump();
        while let Some(c) = self.cur.peek() {
            if c == '\n' || c == '\r' {
                break;
            }
            self.comment_char(c, true);
        }
    }

    fn block_comment(&mut self) {
        let (start, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
        self.cur.bump();
        self.cur.bump();
        // Not nested: the first `*/` ends the comment, as in Cypher.
        loop {
            if self.cur.starts_with("*/") {
                self.cur.bump();
                self.cur.bump();
                return;
            }
            match self.cur.peek() {
                Some(c) => self.comment_char(c, false),
                None => {
                    self.error(ReasonKind::Syntax, start, line, col, "unterminated /* comment".into());
                    return;
                }
            }
        }
    }

    /// `count` hex digits of a `\u` / `\U` escape.
    fn hex_escape(&mut self, count: usize) -> Option<char> {
        let mut v: u32 = 0;
        for _ in 0..count {
            let d = self.cur.peek()?.to_digit(16)?;
            self.cur.bump();
            v = v.checked_mul(16)?.checked_add(d)?;
        }
        Some(char::from_u32(v).unwrap_or('\u{FFFD}'))
    }

    fn string(&mut self, quote: char) {
        let (start, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
        self.cur.bump();
        let mut value = String::new();
        loop {
            let Some(c) = self.cur.bump() else {
                let what = format!("unterminated string starting with {quote}");
                self.error(ReasonKind::Syntax, start, line, col, what);
                return;
            };
            if c == quote {
                break;
            }
            if c != '\\' {
                value.push(c);
                continue;
            }
            let (eoff, eline, ecol) = (self.cur.pos - 1, self.cur.line, self.cur.col.saturating_sub(1));
            let Some(e) = self.cur.bump() else {
                let what = format!("unterminated string starting with {quote}");
                self.error(ReasonKind::Syntax, start, line, col, what);
                return;
            };
            let decoded = match e {
                '\\' => Some('\\'),
                '\'' => Some('\''),
                '"' => Some('"'),
                'n' => Some('\n'),
                't' => Some('\t'),
                'b' => Some('\u{8}'),
                'f' => Some('\u{c}'),
                'r' => Some('\r'),
                'u' => self.hex_escape(4),
                'U' => self.hex_escape(8),
                _ => None,
            };
            match decoded {
                Some(d) => value.push(d),
                None => {
                    // Invalid escapes are errors in Neo4j too; lexing goes on inside the string.
                    let what = format!("invalid escape sequence \\{} in a string", e.escape_debug());
                    self.error(ReasonKind::Syntax, eoff, eline, ecol, what);
                }
            }
        }
        self.push(TokKind::Str, value, start, line, col);
    }

    /// A backtick identifier; a doubled backtick inside is one backtick. None after an error.
    fn backtick(&mut self) -> Option<String> {
        let (start, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
        self.cur.bump();
        let mut name = String::new();
        loop {
            match self.cur.bump() {
                None => {
                    self.error(ReasonKind::Syntax, start, line, col, "unterminated backtick identifier".into());
                    return None;
                }
                Some('`') if self.cur.peek() == Some('`') => {
                    self.cur.bump();
                    name.push('`');
                }
                Some('`') => break,
                Some(c) => name.push(c),
            }
        }
        if name.is_empty() {
            self.error(ReasonKind::Syntax, start, line, col, "empty backtick identifier".into());
            return None;
        }
        Some(name)
    }

    fn param(&mut self) {
        let (start, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
        self.cur.bump();
        match self.cur.peek() {
            Some('`') => {
                if let Some(name) = self.backtick() {
                    self.push(TokKind::Param, name, start, line, col);
                }
            }
            Some(c) if is_ident_char(c) => {
                while self.cur.peek().is_some_and(is_ident_char) {
                    self.cur.bump();
                }
                let name = self.cur.src[start + 1..self.cur.pos].to_string();
                self.push(TokKind::Param, name, start, line, col);
            }
            _ => self.error(ReasonKind::Syntax, start, line, col, "expected a parameter name after $".into()),
        }
    }

    fn digits(&mut self, ok: fn(char) -> bool) {
        while self.cur.peek().is_some_and(|c| ok(c) || c == '_') {
            self.cur.bump();
        }
    }

    /// Integers (decimal, `0x` hex, `0o` octal), decimals and exponents; underscores between digits.
    /// A number running straight into letters (`1CREATE`, `0xZ`) is a syntax error.
    fn number(&mut self) {
        let (start, line, col) = (self.cur.pos, self.cur.line, self.cur.col);
        let mut well_formed = true;
        if self.cur.starts_with("0x") || self.cur.starts_with("0X") || self.cur.starts_with("0o") || self.cur.starts_with("0O") {
            let hex = matches!(self.cur.peek_at(1), Some('x' | 'X'));
            self.cur.bump();
            self.cur.bump();
            let digits_start = self.cur.pos;
            self.digits(if hex { |c: char| c.is_ascii_hexdigit() } else { |c: char| ('0'..='7').contains(&c) });
            well_formed = self.cur.pos > digits_start;
        } else {
            self.digits(|c| c.is_ascii_digit());
            if self.cur.peek() == Some('.') && self.cur.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                self.cur.bump();
                self.digits(|c| c.is_ascii_digit());
            }
            if matches!(self.cur.peek(), Some('e' | 'E')) {
                let sign = matches!(self.cur.peek_at(1), Some('+' | '-'));
                let digit_at = if sign { 2 } else { 1 };
                if self.cur.peek_at(digit_at).is_some_and(|c| c.is_ascii_digit()) {
                    for _ in 0..digit_at {
                        self.cur.bump();
                    }
                    self.digits(|c| c.is_ascii_digit());
                }
            }
        }
        if self.cur.peek().is_some_and(is_ident_char) {
            while self.cur.peek().is_some_and(is_ident_char) {
                self.cur.bump();
            }
            well_formed = false;
        }
        let text = self.cur.src[start..self.cur.pos].to_string();
        if well_formed {
            self.push(TokKind::Number, text, start, line, col);
        } else {
            self.error(ReasonKind::Syntax, start, line, col, format!("malformed number {text}"));
        }
    }
}

/// Lex `src`. Comments and whitespace produce no tokens.
pub fn lex(src: &str) -> Lexed {
    Lexer { cur: Cursor { src, pos: 0, line: 1, col: 1 }, out: Lexed::default() }.run()
}

/// The value of an integer literal token (`10`, `1_000`, `0x10`, `0o17`), or None when the token is
/// not an integer; `Some(None)` when it is an integer too large for u64.
pub fn integer_value(text: &str) -> Option<Option<u64>> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    let (digits, radix) = match clean.get(..2) {
        Some("0x" | "0X") => (&clean[2..], 16),
        Some("0o" | "0O") => (&clean[2..], 8),
        _ => (clean.as_str(), 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(u64::from_str_radix(digits, radix).ok())
}
