//! Candidate concept terms in a text, found without a model: code identifiers, acronyms, proper
//! names (capitalised word sequences), noun phrases (runs of lower-case content words that stop at
//! function words, verb forms, adverbs, comparatives and punctuation, so a term never crosses a
//! verb or clause boundary) and short heading texts. Ids are normalised (lower case, trimmed, no
//! leading article, last word singular); the lexicons live in [`crate::text`].

use serde::{Deserialize, Serialize};

/// How a concept term was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TermKind {
    /// A noun phrase: a run of lower-case content words.
    Phrase,
    /// A short heading text.
    Heading,
    /// A mostly-capitals word (`MQTT`, `I2C`, `QoS`).
    Acronym,
    /// A code identifier (`esp_deep_sleep_start`, `read()`).
    Code,
    /// Named by the LLM extractor.
    Entity,
    /// A capitalised word sequence: a person, place, work or organisation.
    Name,
    /// The title of a document (its `h1`, `<title>` or title line).
    Title,
}

impl TermKind {
    /// The lower-case name, as serialized (`phrase`, `code`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TermKind::Phrase => "phrase",
            TermKind::Heading => "heading",
            TermKind::Acronym => "acronym",
            TermKind::Code => "code",
            TermKind::Entity => "entity",
            TermKind::Name => "name",
            TermKind::Title => "title",
        }
    }
    /// When one id is found as several kinds, the most specific kind wins.
    pub fn priority(self) -> u8 {
        match self {
            TermKind::Phrase => 0,
            TermKind::Name => 1,
            TermKind::Heading => 2,
            TermKind::Acronym => 3,
            TermKind::Code => 4,
            TermKind::Entity => 5,
            TermKind::Title => 6,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub id: String,
    pub surface: String,
    pub kind: TermKind,
}

/// Words that may end or continue a term ("dew point", "data set", "run time") but never start
/// one ("point of view", "long time" are not concepts).
const WEAK: &[&str] = &["point", "set", "sets", "time", "times", "day", "days", "step", "steps", "part", "case", "cases", "change", "changes", "work", "works", "run", "runs", "real", "full", "half", "small", "large", "long", "place"];

const ACRONYM_STOP: &[&str] = &["OK", "OR", "AND", "THE", "NOT", "TODO", "NOTE", "IF", "IT", "IS", "AM", "PM", "ID", "NO", "TO", "OF", "IN", "ON", "AT", "BY", "DO", "WE", "US"];

/// Lower-case words that may join two capitalised words into one name ("Haymo of Faversham",
/// "Ivan the Terrible", "Vincent van Gogh"). "and" is not one: "Scott Derrickson and Ed Wood" are
/// two names (a title such as "Kiss and Tell" is still found whole, by the title dictionary).
const NAME_CONNECTORS: &[&str] = &["of", "the", "de", "da", "del", "della", "di", "du", "la", "le", "van", "von", "der", "den", "al", "bin", "y", "des"];

/// Longest proper name we take, in words.
const MAX_NAME_WORDS: usize = 6;

fn is_stop(w: &str) -> bool {
    qa_core::text::is_stop(w)
}

pub use qa_core::text::singular;

/// Normalised concept id of a surface form.
pub fn normalize_concept(surface: &str) -> String {
    let cleaned: String = surface
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
        .trim_end_matches("()")
        .to_lowercase();
    let mut words: Vec<&str> = cleaned.split_whitespace().collect();
    // "The MQTT broker" and "MQTT broker" are one concept.
    if words.len() > 1 && matches!(words[0], "the" | "a" | "an") {
        words.remove(0);
    }
    match words.split_last() {
        Some((last, rest)) => {
            let mut out: Vec<String> = rest.iter().map(|w| w.to_string()).collect();
            out.push(singular(last));
            out.join(" ")
        }
        None => String::new(),
    }
}

fn is_code_identifier(tok: &str) -> bool {
    let t = tok.trim_end_matches("()");
    if t.len() < 3 || t.len() > 60 || !t.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') {
        return false;
    }
    if !t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.') {
        return false;
    }
    let snake = t.contains('_') && t.chars().any(|c| c.is_ascii_alphabetic());
    let path = t.contains("::");
    let call = tok.ends_with("()");
    let camel = t.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && t.chars().any(|c| c.is_ascii_uppercase())
        && !t.contains('.');
    snake || path || call || camel
}

fn is_acronym(tok: &str) -> bool {
    let upper = tok.chars().filter(|c| c.is_ascii_uppercase()).count();
    let len = tok.chars().count();
    (2..=10).contains(&len)
        && upper >= 2
        && tok.chars().all(|c| c.is_ascii_alphanumeric())
        && tok.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        // mostly capitals: MQTT, I2C, ESP32, BME280, QoS, LiPo; not "HelloWorld"
        && upper * 2 >= tok.chars().filter(|c| c.is_ascii_alphabetic()).count()
        && !ACRONYM_STOP.contains(&tok)
}

/// All candidate terms in `text` (repeated terms appear once per occurrence), plus the last
/// heading of `heading_path` when it is short enough to name a concept.
pub fn extract_terms(text: &str, heading_path: &[String]) -> Vec<Term> {
    let mut out = Vec::new();
    // Code spans and identifiers.
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            // Inside backticks a PascalCase name is code too (`RefCell<T>`, `Vec`); generics are
            // dropped so `Box<T>` and `Box` are one concept.
            let p = part.trim();
            let base = p.split('<').next().unwrap_or(p).trim();
            let pascal = base.len() >= 2
                && base.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && base.chars().all(|c| c.is_ascii_alphanumeric())
                && base.chars().any(|c| c.is_ascii_lowercase());
            if is_code_identifier(base) || pascal {
                out.push(Term { id: normalize_concept(base), surface: base.trim_end_matches("()").to_string(), kind: TermKind::Code });
            }
            // `std::rc::Rc` also names `Rc`.
            if let Some((_, last)) = base.rsplit_once("::")
                && last.len() >= 2
                && last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                out.push(Term { id: normalize_concept(last), surface: last.to_string(), kind: TermKind::Code });
            }
        }
    }
    let prose: String = text.lines().map(|l| if looks_like_code(l) { "" } else { l }).collect::<Vec<_>>().join("\n");
    for line in prose.lines() {
        scan_line(line, &mut out);
    }
    if let Some(h) = heading_path.last() {
        let cleaned = clean_heading(h);
        let words = cleaned.split_whitespace().count();
        if (1..=4).contains(&words) && cleaned.chars().any(|c| c.is_alphabetic()) {
            let id = normalize_concept(&cleaned);
            let single_stop = words == 1 && is_stop(&id);
            if !id.is_empty() && !single_stop && id.len() >= 3 {
                out.push(Term { id, surface: cleaned.to_string(), kind: TermKind::Heading });
            }
        }
    }
    out.retain(|t| !t.id.is_empty() && t.id.len() <= 80);
    out
}

/// One token of a prose line, classified once.
struct Tok<'a> {
    /// The token without surrounding punctuation.
    text: &'a str,
    raw: &'a str,
    lower: String,
    /// Starts a sentence (its capital letter says nothing about being a name).
    sentence_start: bool,
}

impl Tok<'_> {
    fn wordish(&self) -> bool {
        self.lower.chars().all(|c| c.is_alphabetic() || c == '-' || c == '\'') && self.lower.chars().filter(|c| c.is_alphabetic()).count() >= 2
    }
    /// Title case: a capital, then lower-case letters ("Shirley", "McCartney"); not an acronym.
    fn title_case(&self) -> bool {
        self.wordish() && qa_core::text::is_capitalized(self.text) && !is_acronym(self.text) && self.text.chars().skip(1).any(char::is_lowercase)
    }
    fn ends_clause(&self) -> bool {
        self.raw.ends_with([',', '.', ';', ':', '!', '?', ')', '"', '\u{201d}']) && !self.raw.ends_with("()")
    }
    fn ends_sentence(&self) -> bool {
        let r = self.raw.trim_end_matches(['"', '\'', ')', '\u{201d}']);
        r.ends_with(['.', '!', '?', ':']) && !r.ends_with("()")
    }
}

fn tokens(line: &str) -> Vec<Tok<'_>> {
    let mut out: Vec<Tok> = Vec::new();
    let mut sentence_start = true;
    for raw in line.split_whitespace() {
        let tok = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_') && c != '(' && c != ')');
        let tok = tok.trim_start_matches('(');
        let tok = if tok.ends_with(')') && !tok.ends_with("()") { tok.trim_end_matches(')') } else { tok };
        // "the controller's fuse" names the controller.
        let tok = tok.strip_suffix("'s").or_else(|| tok.strip_suffix("\u{2019}s")).unwrap_or(tok);
        let t = Tok { text: tok, raw, lower: tok.to_lowercase(), sentence_start };
        // A bullet or a dash keeps the next word at the start of its sentence.
        if tok.chars().any(char::is_alphanumeric) {
            sentence_start = t.ends_sentence();
        }
        out.push(t);
    }
    out
}

/// A heading-like line ("BROWN-OUTS AND RESET LOOPS", "The I2C Bus Between the ESP32 and the
/// BME280"): its capitals mark a heading, not names or acronyms. Returns the line with those
/// words in lower case (identifiers with digits, such as BME280, keep their case), or `None` for
/// ordinary prose.
fn heading_case_line(line: &str) -> Option<String> {
    let t = line.trim();
    if t.ends_with(['.', '!', '?', ';']) {
        return None;
    }
    let words: Vec<&str> = t.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).collect();
    if words.len() < 2 || words.len() > 14 {
        return None;
    }
    let letters: Vec<char> = t.chars().filter(|c| c.is_alphabetic()).collect();
    let shouty = letters.iter().all(|c| c.is_uppercase());
    let content: Vec<&&str> = words.iter().filter(|w| !is_stop(&w.to_lowercase())).collect();
    let capitalised = content.iter().filter(|w| w.chars().next().is_some_and(char::is_uppercase)).count();
    // One content word is enough when the function words are capitalised too ("Who This Book
    // Is For"): otherwise "This Book" would be read as a name.
    let all_capitalised = words.iter().filter(|w| w.chars().next().is_some_and(char::is_uppercase)).count();
    let title_case = !content.is_empty() && capitalised * 4 >= content.len() * 3 && (content.len() >= 2 || all_capitalised * 4 >= words.len() * 3);
    if !shouty && !title_case {
        return None;
    }
    let lowered: Vec<String> = t
        .split_whitespace()
        .map(|w| {
            let has_digit = w.chars().any(|c| c.is_ascii_digit());
            let all_caps = w.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
            // Keep acronyms inside a title-case heading ("MQTT Telemetry"); in a shouting line
            // every plain word is lowered.
            if has_digit || (!shouty && all_caps && w.chars().filter(|c| c.is_alphabetic()).count() >= 2) { w.to_string() } else { w.to_lowercase() }
        })
        .collect();
    Some(lowered.join(" "))
}

/// Terms of one prose line: identifiers, acronyms, proper names and noun-phrase windows.
fn scan_line(line: &str, out: &mut Vec<Term>) {
    let lowered = heading_case_line(line);
    let toks = tokens(lowered.as_deref().unwrap_or(line));
    let mut run: Vec<&str> = Vec::new();
    let mut name: Vec<&str> = Vec::new();
    // Inside a backtick span that spans several tokens (`let mut guess`, `&mut self`): every word
    // there is code, never part of a phrase or a name.
    let mut in_span = false;
    for (i, t) in toks.iter().enumerate() {
        let in_code = in_span || t.raw.contains('`');
        in_span ^= t.raw.matches('`').count() % 2 == 1;
        if t.text.is_empty() {
            flush_run(&mut run, out);
            flush_name(&mut name, out);
            continue;
        }
        let backticked = t.raw.starts_with('`');
        if !backticked && is_code_identifier(t.text) && (t.text.contains('_') || t.text.contains("::") || t.text.ends_with("()")) {
            out.push(Term { id: normalize_concept(t.text), surface: t.text.trim_end_matches("()").to_string(), kind: TermKind::Code });
        }
        if is_acronym(t.text) {
            out.push(Term { id: t.lower.clone(), surface: t.text.to_string(), kind: TermKind::Acronym });
        }
        let next_title = toks.get(i + 1).is_some_and(|n| n.title_case() && !n.sentence_start);
        if t.title_case() && !in_code {
            // A capital at a sentence start is a name only when another capitalised word follows
            // ("Shirley Temple was"); "Deep sleep saves power" starts with an ordinary word.
            let starts_name = !t.sentence_start || (next_title && !is_stop(&t.lower));
            if starts_name {
                flush_run(&mut run, out);
                name.push(t.text);
                if t.ends_clause() {
                    flush_name(&mut name, out);
                }
                continue;
            }
        }
        // "Haymo of Faversham", "University of Cambridge" are one name; "Trent Reznor of Nine
        // Inch Nails" is a person and a band: a connector only joins a one-word name to the next.
        let joins = name.len() == 1 || !matches!(t.lower.as_str(), "of" | "de" | "von" | "van");
        if !name.is_empty() && joins && NAME_CONNECTORS.contains(&t.lower.as_str()) && next_title && !t.ends_clause() {
            name.push(t.text);
            continue;
        }
        flush_name(&mut name, out);
        let content = (t.wordish() || is_acronym(t.text))
            && !in_code
            && !is_stop(&t.lower)
            && !qa_core::text::is_phrase_breaker(&t.lower)
            && (!qa_core::text::is_verb_form(&t.lower) || (run.is_empty() && qa_core::text::is_participle(&t.lower)));
        if content {
            run.push(t.text);
        } else {
            flush_run(&mut run, out);
        }
        if t.ends_clause() {
            flush_run(&mut run, out);
        }
    }
    flush_run(&mut run, out);
    flush_name(&mut name, out);
}

/// Emit every 2- and 3-word window of a run of content words (none starts with a weak word).
fn flush_run(run: &mut Vec<&str>, out: &mut Vec<Term>) {
    for len in 2..=3 {
        if run.len() < len {
            continue;
        }
        for w in run.windows(len) {
            let first = w[0].to_lowercase();
            if WEAK.contains(&first.as_str()) || qa_core::text::is_referring_adjective(&first) {
                continue;
            }
            // Matched case-insensitively, but an acronym keeps its case in the surface form.
            let surface = w.iter().map(|x| if is_acronym(x) { x.to_string() } else { x.to_lowercase() }).collect::<Vec<_>>().join(" ");
            out.push(Term { id: normalize_concept(&surface), surface, kind: TermKind::Phrase });
        }
    }
    run.clear();
}

/// Emit a proper name (trailing connectors dropped; at most [`MAX_NAME_WORDS`] words).
fn flush_name(name: &mut Vec<&str>, out: &mut Vec<Term>) {
    while name.last().is_some_and(|w| NAME_CONNECTORS.contains(&w.to_lowercase().as_str())) {
        name.pop();
    }
    if !name.is_empty() && name.len() <= MAX_NAME_WORDS {
        let surface = name.join(" ");
        let surface = surface.trim_end_matches(['\'', '\u{2019}']).trim_end_matches("'s").to_string();
        let id = normalize_concept(&surface);
        if id.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !(name.len() == 1 && is_stop(&id)) {
            out.push(Term { id, surface, kind: TermKind::Name });
        }
    }
    name.clear();
}

/// A heading's text as a term: its numbering, a disambiguation and a question's lead dropped.
pub(crate) fn clean_heading(h: &str) -> String {
    strip_question_lead(&strip_numbering(super::link::strip_disambiguation(h)))
}

/// "What Is Ownership" → "Ownership"; "How to Read the Sensor" → "Read the Sensor".
fn strip_question_lead(h: &str) -> String {
    let words: Vec<&str> = h.split_whitespace().collect();
    let lead = |w: &str| matches!(w.to_lowercase().as_str(), "what" | "how" | "why" | "when" | "where" | "which" | "who");
    let aux = |w: &str| matches!(w.to_lowercase().as_str(), "is" | "are" | "do" | "does" | "can" | "to" | "should" | "was");
    match words.as_slice() {
        [q, a, rest @ ..] if lead(q) && aux(a) && !rest.is_empty() => rest.join(" "),
        _ => h.to_string(),
    }
}

/// A line of source code rather than prose. Paragraphs reach us as single lines, code blocks
/// keep their line breaks, so line-level signals work: an indent, a brace or semicolon at the end,
/// a comment marker, a keyword at the start, or arrows and turbofish anywhere.
fn looks_like_code(line: &str) -> bool {
    const STARTS: &[&str] = &[
        "fn ", "let ", "pub ", "impl ", "struct ", "enum ", "use ", "mod ", "match ", "if ", "for ", "while ", "return ",
        "async ", "const ", "static ", "trait ", "type ", "extern ", "#[", "#include", "//", "/*", "}", "def ", "import ",
        "from ", "class ", "void ", "int ", "float ", "$ ",
    ];
    let t = line.trim();
    line.starts_with("    ")
        || line.starts_with('\t')
        || t.ends_with(['{', '}', ';'])
        || STARTS.iter().any(|k| t.starts_with(k))
        || ["->", "=>", "::<", "();"].iter().any(|m| t.contains(m))
}

/// "Chapter 3: Deep sleep" / "3.1 Deep sleep" / "Deep sleep" → "Deep sleep".
fn strip_numbering(h: &str) -> String {
    let mut s = h.trim();
    if let Some(rest) = s.strip_prefix("Chapter ") {
        s = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches([':', '.', ' ']);
    }
    let s = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').trim();
    s.trim_end_matches([':', '?', '.']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<(String, TermKind)> {
        extract_terms(text, &[]).into_iter().map(|t| (t.id, t.kind)).collect()
    }

    #[test]
    fn finds_phrases_acronyms_and_code() {
        let found = ids("The ESP32 enters deep sleep after `mqtt_publish()` returns, and read_pressure() is called.");
        assert!(found.contains(&("esp32".into(), TermKind::Acronym)));
        assert!(found.contains(&("deep sleep".into(), TermKind::Phrase)));
        assert!(found.contains(&("mqtt_publish".into(), TermKind::Code)));
        assert!(found.contains(&("read_pressure".into(), TermKind::Code)));
        assert!(!found.iter().any(|(id, _)| id.starts_with("the ")));
    }

    #[test]
    fn normalises_plurals_and_case() {
        assert_eq!(normalize_concept("Pull-up Resistors"), "pull-up resistor");
        assert_eq!(normalize_concept("batteries"), "battery");
        assert_eq!(normalize_concept("bus"), "bus");
        assert_eq!(normalize_concept("radiation shields"), "radiation shield");
        assert_eq!(normalize_concept("switches"), "switch");
        assert_eq!(normalize_concept("The MQTT broker"), "mqtt broker");
    }

    #[test]
    fn heading_terms_are_cleaned() {
        let t = extract_terms("Body.", &["Chapter 3: Deep Sleep".into()]);
        assert!(t.iter().any(|t| t.id == "deep sleep" && t.kind == TermKind::Heading));
    }

    #[test]
    fn code_lines_give_identifiers_not_phrases() {
        let text = "A `RefCell<T>` gives interior mutability; see `std::rc::Rc`.\nfn main() {\n    let mut threads = vec![];\n}";
        let found = ids(text);
        assert!(found.contains(&("refcell".into(), TermKind::Code)), "{found:?}");
        assert!(found.contains(&("rc".into(), TermKind::Code)), "{found:?}");
        assert!(found.contains(&("interior mutability".into(), TermKind::Phrase)));
        assert!(!found.iter().any(|(id, _)| id == "mut thread" || id == "fn main"), "{found:?}");
        // Words inside a backtick span of several tokens are code, not a phrase or a name.
        let found = ids("Write `let mut guess = String::new()` and pass `&mut guess_count` to `Hello World` here; mutable state needs care.");
        assert!(!found.iter().any(|(id, _)| id == "mut guess" || id == "hello world"), "{found:?}");
        assert!(found.contains(&("guess_count".into(), TermKind::Code)), "an identifier inside a span is still found: {found:?}");
        assert!(found.contains(&("mutable state".into(), TermKind::Phrase)), "prose after the span: {found:?}");
        // prose with an equals sign is still prose
        assert!(ids("The constants a = 17.62 and b = 243.12 give the dew point temperature.").iter().any(|(id, _)| id == "dew point temperature"));
    }

    #[test]
    fn names_are_proper_name_sequences() {
        let found = ids("The soundtrack was produced by Trent Reznor of Nine Inch Nails, and Haymo of Faversham read it. Shirley Temple starred.");
        assert!(found.contains(&("trent reznor".into(), TermKind::Name)), "{found:?}");
        assert!(found.contains(&("nine inch nail".into(), TermKind::Name)), "{found:?}");
        assert!(found.contains(&("haymo of faversham".into(), TermKind::Name)), "{found:?}");
        assert!(found.contains(&("shirley temple".into(), TermKind::Name)), "{found:?}");
        // A capital at a sentence start is not a name by itself.
        assert!(!found.iter().any(|(id, k)| id == "soundtrack" && *k == TermKind::Name));
    }

    #[test]
    fn phrases_never_cross_a_verb_or_clause_boundary() {
        let found = ids("The sensor measures station pressure, which reads 1013 hPa lower than tens of pressure readings.");
        let bad = ["sensor measures", "sensor measures station", "measures station", "hpa lower", "pressure tens"];
        assert!(!found.iter().any(|(id, _)| bad.contains(&id.as_str())), "{found:?}");
        assert!(found.iter().any(|(id, _)| id == "station pressure"), "{found:?}");
    }

    #[test]
    fn heading_capitals_are_not_names_or_acronyms() {
        let found = ids("BATTERY NOT CHARGING\nThe I2C Bus Between the ESP32 and the BME280\n- Stale readings appear after a reset.");
        assert!(!found.iter().any(|(id, k)| matches!(k, TermKind::Acronym) && ["battery", "charging"].contains(&id.as_str())), "{found:?}");
        assert!(!found.iter().any(|(id, k)| *k == TermKind::Name && (id == "bus between" || id == "stale")), "{found:?}");
        assert!(found.contains(&("esp32".into(), TermKind::Acronym)), "{found:?}");
        assert!(found.iter().any(|(id, _)| id == "stale reading"), "{found:?}");
    }

    #[test]
    fn referring_adjectives_never_start_a_term_and_capitalised_function_words_make_a_heading() {
        let found = ids("Build the current package and the selected packages with valid values. The sleep current is low.");
        assert!(!found.iter().any(|(id, _)| ["current package", "selected package", "valid value"].contains(&id.as_str())), "{found:?}");
        assert!(found.iter().any(|(id, _)| id == "sleep current"), "{found:?}");
        let found = ids("Who This Book Is For\nWelcome to the book.");
        assert!(!found.iter().any(|(id, k)| *k == TermKind::Name && id == "this book"), "{found:?}");
    }

    #[test]
    fn phrases_do_not_cross_punctuation() {
        let found = ids("Use a radiation shield, battery packs help.");
        assert!(!found.iter().any(|(id, _)| id == "shield battery"));
        assert!(found.iter().any(|(id, _)| id == "radiation shield"));
    }
}
