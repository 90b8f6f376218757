//! An incremental validator for *prefixes* of a JSON value, fed byte by byte.
//!
//! Constrained decoding asks, for every candidate token, "would the output still be the start of
//! some valid JSON text if this token's bytes were appended?". The validator answers that without
//! backtracking: it is a small push-down automaton (a stack of open containers plus the state of
//! the token being read), cheap to clone, so a candidate is tested on a clone and the clone kept
//! when the candidate is chosen. It works on bytes, not characters, because a byte-level BPE token
//! may end in the middle of a multi-byte UTF-8 character.

/// An open container on the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    /// `{`
    Object,
    /// `[`
    Array,
}

/// Where inside a number the last byte left us (RFC 8259 grammar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberPart {
    /// After the leading `-`: a digit must follow.
    Minus,
    /// After a leading `0`: no more integer digits.
    Zero,
    IntDigits,
    /// After `.`: a digit must follow.
    Dot,
    FracDigits,
    /// After `e`/`E`: a sign or digit must follow.
    Exp,
    /// After the exponent's sign: a digit must follow.
    ExpSign,
    ExpDigits,
}

impl NumberPart {
    /// Whether the number may end here.
    fn is_terminal(self) -> bool {
        matches!(self, NumberPart::Zero | NumberPart::IntDigits | NumberPart::FracDigits | NumberPart::ExpDigits)
    }
}

/// Where inside a string the last byte left us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StringPart {
    Plain,
    /// After a backslash.
    Escape,
    /// Inside `\uXXXX`: hex digits still expected.
    Unicode(u8),
    /// Inside a multi-byte UTF-8 character: continuation bytes still expected.
    Utf8(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// A value must start here (top level, after `[`, `,` in an array, or `:`).
    ValueStart,
    /// Just after `[`: a value or `]`.
    ArrayFirst,
    /// Just after `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key.
    ObjectKey,
    /// After a key: `:`.
    Colon,
    /// After a complete value: `,` or the container's closing bracket, or (top level) the end.
    AfterValue,
    String {
        key: bool,
        part: StringPart,
    },
    Number(NumberPart),
    /// Inside `true`/`false`/`null`: the rest of the literal still expected.
    Literal {
        word: &'static [u8],
        next: u8,
    },
}

/// The kind of value a byte opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// `{`
    Object,
    /// `[`
    Array,
    /// `"`
    String,
    /// `-` or a digit.
    Number,
    /// `t`
    True,
    /// `f`
    False,
    /// `n`
    Null,
}

/// What an accepted byte did, for validators layered on top of the syntax (see
/// [`JsonPrefix::push_event`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// Whitespace between tokens.
    Space,
    /// The first byte of a value.
    Open(ValueKind),
    /// The `"` opening an object key.
    KeyOpen,
    /// A byte inside a string; `starts_char` when it begins a character (a plain byte, a
    /// backslash, a UTF-8 lead byte) rather than continuing an escape or a multi-byte character.
    StringByte {
        /// The string is an object key.
        key: bool,
        /// The byte begins a character.
        starts_char: bool,
    },
    /// The closing `"` of a string.
    StringClose {
        /// The string is an object key.
        key: bool,
    },
    /// The `:` after a key.
    Colon,
    /// A `,` in the innermost container.
    Comma,
    /// The closing bracket of a container.
    Close(Container),
    /// A byte continuing a number (a byte that ends a number is reported as what it starts).
    NumberByte,
    /// A byte continuing `true`/`false`/`null`.
    LiteralByte,
}

/// Where the last byte left a [`JsonPrefix`] (see [`JsonPrefix::position`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    /// A value must start (top level, after `:` or after `,` in an array).
    ValueStart,
    /// Just after `[`.
    ArrayFirst,
    /// Just after `{`.
    ObjectFirst,
    /// After `,` in an object: a key must follow.
    ObjectKey,
    /// After a key: `:` must follow.
    Colon,
    /// After a complete value.
    AfterValue,
    /// Inside a key.
    Key,
    /// Inside a string value.
    String,
    /// Inside a number or `true`/`false`/`null`.
    Scalar,
}

/// Longest run of whitespace accepted between tokens: enough for pretty-printed JSON, short
/// enough that a model stuck emitting newlines is turned back to content.
pub(crate) const MAX_WHITESPACE_RUN: usize = 32;

/// A JSON-prefix validator. `Default` starts before the first byte of a value.
#[derive(Debug, Clone)]
pub(crate) struct JsonPrefix {
    stack: Vec<Container>,
    state: State,
    /// Whitespace bytes in a row outside strings.
    whitespace_run: usize,
}

impl Default for JsonPrefix {
    fn default() -> Self {
        JsonPrefix { stack: Vec::new(), state: State::ValueStart, whitespace_run: 0 }
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Continuation bytes a UTF-8 lead byte announces; `None` for bytes that cannot start a character.
fn utf8_continuations(lead: u8) -> Option<u8> {
    match lead {
        0xC2..=0xDF => Some(1),
        0xE0..=0xEF => Some(2),
        0xF0..=0xF4 => Some(3),
        _ => None,
    }
}

impl JsonPrefix {
    /// A validator before the first byte of a value.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed all of `bytes`; false (and the validator left in an unspecified state) if any byte
    /// makes the text stop being a prefix of a JSON value.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.push(b))
    }

    /// Whether `bytes` could be appended, without changing `self`.
    #[cfg(test)]
    pub fn accepts(&self, bytes: &[u8]) -> bool {
        self.clone().push_bytes(bytes)
    }

    /// The top-level value is finished (only whitespace may follow). A top-level number is
    /// never reported complete because another digit could still extend it.
    pub fn is_complete(&self) -> bool {
        self.stack.is_empty() && self.state == State::AfterValue
    }

    /// The text read so far is a whole JSON value (a trailing top-level number counts).
    pub fn could_end_here(&self) -> bool {
        self.is_complete() || (self.stack.is_empty() && matches!(self.state, State::Number(p) if p.is_terminal()))
    }

    /// Where the last byte left the validator, and the fewest bytes that finish the piece being
    /// read: the rest of an escape, a multi-byte character, a number's required digit or a
    /// literal (a string's closing quote not included).
    pub fn position(&self) -> (Position, usize) {
        match self.state {
            State::ValueStart => (Position::ValueStart, 0),
            State::ArrayFirst => (Position::ArrayFirst, 0),
            State::ObjectFirst => (Position::ObjectFirst, 0),
            State::ObjectKey => (Position::ObjectKey, 0),
            State::Colon => (Position::Colon, 0),
            State::AfterValue => (Position::AfterValue, 0),
            State::String { key, part } => {
                let pending = match part {
                    StringPart::Plain => 0,
                    StringPart::Escape => 1,
                    StringPart::Unicode(n) | StringPart::Utf8(n) => n as usize,
                };
                (if key { Position::Key } else { Position::String }, pending)
            }
            State::Number(part) => (Position::Scalar, usize::from(!part.is_terminal())),
            State::Literal { word, next } => (Position::Scalar, word.len() - next as usize),
        }
    }

    /// Feed one byte; false if it cannot continue a JSON prefix (or makes a whitespace run
    /// longer than [`MAX_WHITESPACE_RUN`]).
    pub fn push(&mut self, b: u8) -> bool {
        self.push_event(b).is_some()
    }

    /// Feed one byte and say what it did; `None` when [`push`](Self::push) would be false.
    pub fn push_event(&mut self, b: u8) -> Option<Event> {
        let in_string = matches!(self.state, State::String { .. });
        if !in_string && is_ws(b) {
            self.whitespace_run += 1;
            if self.whitespace_run > MAX_WHITESPACE_RUN {
                return None;
            }
        } else {
            self.whitespace_run = 0;
        }
        match self.state {
            State::ValueStart => self.start_value(b, false),
            State::ArrayFirst => self.start_value(b, true),
            State::ObjectFirst => self.object_key(b, true),
            State::ObjectKey => self.object_key(b, false),
            State::Colon => self.colon(b),
            State::AfterValue => self.after_value(b),
            State::String { key, part } => self.string(b, key, part),
            State::Number(part) => self.number(b, part),
            State::Literal { word, next } => self.literal(b, word, next),
        }
    }

    fn start_value(&mut self, b: u8, may_close_array: bool) -> Option<Event> {
        let (state, kind) = match b {
            _ if is_ws(b) => return Some(Event::Space),
            b']' if may_close_array => return self.close(Container::Array),
            b'{' => {
                self.stack.push(Container::Object);
                (State::ObjectFirst, ValueKind::Object)
            }
            b'[' => {
                self.stack.push(Container::Array);
                (State::ArrayFirst, ValueKind::Array)
            }
            b'"' => (State::String { key: false, part: StringPart::Plain }, ValueKind::String),
            b'-' => (State::Number(NumberPart::Minus), ValueKind::Number),
            b'0' => (State::Number(NumberPart::Zero), ValueKind::Number),
            b'1'..=b'9' => (State::Number(NumberPart::IntDigits), ValueKind::Number),
            b't' => (State::Literal { word: b"true", next: 1 }, ValueKind::True),
            b'f' => (State::Literal { word: b"false", next: 1 }, ValueKind::False),
            b'n' => (State::Literal { word: b"null", next: 1 }, ValueKind::Null),
            _ => return None,
        };
        self.state = state;
        Some(Event::Open(kind))
    }

    fn object_key(&mut self, b: u8, may_close: bool) -> Option<Event> {
        match b {
            _ if is_ws(b) => Some(Event::Space),
            b'}' if may_close => self.close(Container::Object),
            b'"' => {
                self.state = State::String { key: true, part: StringPart::Plain };
                Some(Event::KeyOpen)
            }
            _ => None,
        }
    }

    fn colon(&mut self, b: u8) -> Option<Event> {
        match b {
            _ if is_ws(b) => Some(Event::Space),
            b':' => {
                self.state = State::ValueStart;
                Some(Event::Colon)
            }
            _ => None,
        }
    }

    fn after_value(&mut self, b: u8) -> Option<Event> {
        if is_ws(b) {
            return Some(Event::Space);
        }
        match (self.stack.last(), b) {
            (Some(Container::Object), b',') => {
                self.state = State::ObjectKey;
                Some(Event::Comma)
            }
            (Some(Container::Array), b',') => {
                self.state = State::ValueStart;
                Some(Event::Comma)
            }
            (Some(Container::Object), b'}') => self.close(Container::Object),
            (Some(Container::Array), b']') => self.close(Container::Array),
            _ => None,
        }
    }

    /// Close the innermost container if it is `kind`.
    fn close(&mut self, kind: Container) -> Option<Event> {
        if self.stack.last() != Some(&kind) {
            return None;
        }
        self.stack.pop();
        self.state = State::AfterValue;
        Some(Event::Close(kind))
    }

    fn string(&mut self, b: u8, key: bool, part: StringPart) -> Option<Event> {
        let next = match part {
            StringPart::Plain => match b {
                b'"' => {
                    self.state = if key { State::Colon } else { State::AfterValue };
                    return Some(Event::StringClose { key });
                }
                b'\\' => StringPart::Escape,
                0x00..=0x1F | 0x7F => return None,
                0x20..=0x7E => StringPart::Plain,
                _ => match utf8_continuations(b) {
                    Some(n) => StringPart::Utf8(n),
                    None => return None,
                },
            },
            StringPart::Escape => match b {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => StringPart::Plain,
                b'u' => StringPart::Unicode(4),
                _ => return None,
            },
            StringPart::Unicode(left) if b.is_ascii_hexdigit() => {
                if left == 1 {
                    StringPart::Plain
                } else {
                    StringPart::Unicode(left - 1)
                }
            }
            StringPart::Unicode(_) => return None,
            StringPart::Utf8(left) if (0x80..=0xBF).contains(&b) => {
                if left == 1 {
                    StringPart::Plain
                } else {
                    StringPart::Utf8(left - 1)
                }
            }
            StringPart::Utf8(_) => return None,
        };
        self.state = State::String { key, part: next };
        Some(Event::StringByte { key, starts_char: part == StringPart::Plain })
    }

    fn number(&mut self, b: u8, part: NumberPart) -> Option<Event> {
        use NumberPart::*;
        let next = match (part, b) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') => IntDigits,
            (IntDigits, b'0'..=b'9') => IntDigits,
            (Zero | IntDigits, b'.') => Dot,
            (Dot | FracDigits, b'0'..=b'9') => FracDigits,
            (Zero | IntDigits | FracDigits, b'e' | b'E') => Exp,
            (Exp, b'+' | b'-') => ExpSign,
            (Exp | ExpSign | ExpDigits, b'0'..=b'9') => ExpDigits,
            _ if part.is_terminal() => {
                // The number ended; the byte belongs to what follows the value.
                self.state = State::AfterValue;
                return self.after_value(b);
            }
            _ => return None,
        };
        self.state = State::Number(next);
        Some(Event::NumberByte)
    }

    fn literal(&mut self, b: u8, word: &'static [u8], next: u8) -> Option<Event> {
        let i = next as usize;
        if word.get(i) != Some(&b) {
            return None;
        }
        self.state = if i + 1 == word.len() { State::AfterValue } else { State::Literal { word, next: next + 1 } };
        Some(Event::LiteralByte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(text: &str) -> bool {
        JsonPrefix::new().push_bytes(text.as_bytes())
    }

    fn complete(text: &str) -> bool {
        let mut v = JsonPrefix::new();
        v.push_bytes(text.as_bytes()) && v.is_complete()
    }

    #[test]
    fn valid_prefixes_are_accepted() {
        for p in [
            "",
            " ",
            "{",
            "{\"",
            "{\"subqueries\": [\"",
            "{\"subqueries\": [\"what is a \\\"dew point\\\"",
            "{\"a\": [1, 2.5, -0.3e+1",
            "{\"a\": tr",
            "{\"a\": null, \"b\": fals",
            "[[], {}, [{\"x\": [true",
            "\"caf\u{e9}",
            "\"\\u00e",
            "-",
            "0.",
            "1e",
            "1E-",
            "{\n  \"k\" :\t[ ] ,\r\n \"",
        ] {
            assert!(accepts(p), "should accept {p:?}");
        }
    }

    #[test]
    fn invalid_prefixes_are_rejected() {
        for p in [
            "}",
            "]",
            "{]",
            "[}",
            "{\"a\" 1",
            "{\"a\":}",
            "{1",
            "{,",
            "[1,]",
            "[,",
            "{\"a\":1,}",
            "{\"a\":1 \"b\"",
            "01",
            "-a",
            "1.e",
            "1e+-",
            "tru ",
            "nul1",
            "\"\\x",
            "\"\\u12g",
            "\"line\nbreak",
            "\"tab\there",
            "{\"a\": 'single'",
            "[1] x",
            "{} {}",
        ] {
            assert!(!accepts(p), "should reject {p:?}");
        }
    }

    #[test]
    fn raw_utf8_inside_strings_is_checked_bytewise() {
        let euro = "€".as_bytes(); // 3 bytes
        let mut v = JsonPrefix::new();
        assert!(v.push_bytes(b"\""));
        assert!(v.push_bytes(&euro[..1]), "a lead byte may end a token");
        assert!(!v.accepts(b"\""), "a quote cannot interrupt a multi-byte character");
        assert!(v.push_bytes(&euro[1..]));
        assert!(v.push_bytes(b"\""));
        assert!(v.is_complete());
        assert!(accepts("\"\u{80}\u{10FFFF}\""), "two- and four-byte characters");
        assert!(!JsonPrefix::new().push_bytes(&[b'"', 0xFF]), "0xFF never occurs in UTF-8");
        assert!(!JsonPrefix::new().push_bytes(&[b'"', 0x80]), "a continuation byte cannot start a character");
    }

    #[test]
    fn completion_is_detected() {
        assert!(complete("{}"));
        assert!(complete("{\"subqueries\": [\"a\", \"b\"]}"));
        assert!(complete("[1, [2], {\"x\": null}]"));
        assert!(complete("\"text\""));
        assert!(complete("true"));
        assert!(complete("{\"a\": 1}\n"), "trailing whitespace keeps it complete");
        assert!(!complete("{\"a\": 1"));
        assert!(!complete("{\"a\": [1]"));
        assert!(!complete("\"open"));
        assert!(!complete("12"), "a top-level number may still grow");
        let mut v = JsonPrefix::new();
        assert!(v.push_bytes(b"12"));
        assert!(v.could_end_here());
        assert!(v.push_bytes(b" "));
        assert!(v.is_complete());
    }

    #[test]
    fn number_followed_by_structure() {
        assert!(complete("[1]"));
        assert!(complete("{\"a\":-0.5e10}"));
        assert!(complete("[0,1.25,3e2]"));
        assert!(!accepts("[1.]"));
        assert!(!accepts("[-]"));
    }

    #[test]
    fn whitespace_runs_are_bounded_outside_strings_only() {
        let indent = " ".repeat(MAX_WHITESPACE_RUN);
        assert!(accepts(&format!("{{{indent}\"a\":{indent}1}}")));
        assert!(!accepts(&format!("{{{indent} ")));
        let long_string = format!("[\"{}\"]", " ".repeat(4 * MAX_WHITESPACE_RUN));
        assert!(complete(&long_string));
    }

    #[test]
    fn accepts_does_not_change_state() {
        let mut v = JsonPrefix::new();
        assert!(v.push_bytes(b"{\"a\": "));
        assert!(v.accepts(b"\"x\"}"));
        assert!(!v.is_complete());
        assert!(v.push_bytes(b"[]}"));
        assert!(v.is_complete());
    }
}
