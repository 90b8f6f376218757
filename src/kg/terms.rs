//! Candidate concept terms in a text, found without a model: code identifiers, acronyms,
//! multi-word noun-like phrases (runs of content words between stop words and punctuation) and
//! short heading texts. Ids are normalised (lower case, trimmed, last word singular).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TermKind {
    Phrase,
    Heading,
    Acronym,
    Code,
    /// Named by the LLM extractor.
    Entity,
}

impl TermKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TermKind::Phrase => "phrase",
            TermKind::Heading => "heading",
            TermKind::Acronym => "acronym",
            TermKind::Code => "code",
            TermKind::Entity => "entity",
        }
    }
    /// When one id is found as several kinds, the most specific kind wins.
    pub fn priority(self) -> u8 {
        match self {
            TermKind::Phrase => 0,
            TermKind::Heading => 1,
            TermKind::Acronym => 2,
            TermKind::Code => 3,
            TermKind::Entity => 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub id: String,
    pub surface: String,
    pub kind: TermKind,
}

/// Words that never start, end or sit inside a multi-word term.
const STOP: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "almost", "also", "although", "always", "am", "among", "an",
    "and", "another", "any", "anything", "are", "around", "as", "at", "back", "be", "because", "been", "before", "being",
    "below", "best", "better", "between", "both", "but", "by", "can", "cannot", "could", "did", "do", "does", "doing",
    "done", "down", "during", "each", "easy", "either", "else", "enough", "even", "ever", "every", "few", "first",
    "for", "from", "further", "get", "gets", "getting", "give", "given", "gives", "go", "goes", "going", "good", "got",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in",
    "into", "is", "it", "its", "itself", "just", "keep", "keeps", "kind", "last", "least", "less", "let", "lets",
    "like", "likely", "look", "made", "make", "makes", "making", "many", "may", "me", "might", "more", "most",
    "much", "must", "my", "need", "needs", "never", "new", "next", "no", "nor", "not", "nothing", "now", "of", "off",
    "often", "on", "once", "one", "only", "or", "other", "others", "our", "ours", "out", "over", "own", "per", "put",
    "quite", "rather", "really", "right", "same", "say", "says", "see", "seen", "several", "shall", "she", "should",
    "show", "shows", "simply", "since", "so", "some", "something", "sometimes", "still", "such", "sure", "take",
    "takes", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "thing",
    "things", "this", "those", "though", "through", "thus", "to", "too", "two", "three", "under", "until", "up",
    "upon", "us", "use", "used", "uses", "using", "usually", "very", "via", "want", "was", "way", "ways", "we", "well",
    "were", "what", "when", "where", "whether", "which", "while", "who", "whole", "whom", "why", "will", "with",
    "within", "without", "would", "yes", "yet", "you", "your", "yours", "yourself", "able", "already", "become",
    "becomes", "call", "called", "calls", "come", "comes", "different",
    "example", "examples", "find", "found", "great", "know", "known", "later", "little", "lot", "mean",
    "means", "note", "possible", "start",
    "starts", "take", "tell", "try", "turn", "write", "writes",
    "written", "chapter", "section", "following", "above", "below", "instead", "actually", "usually", "typically",
    "simple", "important", "certain", "specific", "etc", "ie", "eg", "vs", "once", "twice",     "allow", "allows", "add", "adds", "added", "avoid", "avoids", "require", "requires", "required", "return",
    "returns", "read", "reads", "needed", "provide", "provides", "include", "includes", "including", "give", "gives",
];

/// Words that may end or continue a term ("dew point", "data set", "run time") but never start
/// one ("point of view", "long time" are not concepts).
const WEAK: &[&str] = &["point", "set", "sets", "time", "times", "day", "days", "step", "steps", "part", "case", "cases", "change", "changes", "work", "works", "run", "runs", "real", "full", "half", "small", "large", "long", "place"];

const ACRONYM_STOP: &[&str] = &["OK", "OR", "AND", "THE", "NOT", "TODO", "NOTE", "IF", "IT", "IS", "AM", "PM", "ID", "NO", "TO", "OF", "IN", "ON", "AT", "BY", "DO", "WE", "US"];

static STOP_SET: std::sync::LazyLock<std::collections::HashSet<&'static str>> =
    std::sync::LazyLock::new(|| STOP.iter().copied().collect());

fn is_stop(w: &str) -> bool {
    STOP_SET.contains(w)
}

/// English plural → singular for the last word of a term, conservatively.
pub fn singular(word: &str) -> String {
    let w = word;
    let n = w.len();
    if n <= 3 || !w.is_ascii() || w.chars().any(|c| c.is_ascii_digit()) {
        return w.to_string();
    }
    if let Some(stem) = w.strip_suffix("ies") {
        if n > 4 {
            return format!("{stem}y");
        }
    }
    for keep in ["ss", "us", "is", "ous", "sis", "ics", "ness"] {
        if w.ends_with(keep) {
            return w.to_string();
        }
    }
    for es in ["ches", "shes", "sses", "xes", "zes"] {
        if w.ends_with(es) {
            return w[..n - 2].to_string();
        }
    }
    if let Some(stem) = w.strip_suffix('s') {
        return stem.to_string();
    }
    w.to_string()
}

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
            if let Some((_, last)) = base.rsplit_once("::") {
                if last.len() >= 2 && last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push(Term { id: normalize_concept(last), surface: last.to_string(), kind: TermKind::Code });
                }
            }
        }
    }
    // Word-level scan: tokens keep internal `_`, `-`, `.`, `:` and `()` so identifiers survive.
    let mut run: Vec<&str> = Vec::new();
    let flush_run = |run: &mut Vec<&str>, out: &mut Vec<Term>| {
        // Emit every 2- and 3-word window of content words inside the run.
        for len in 2..=3 {
            if run.len() < len {
                continue;
            }
            for w in run.windows(len) {
                if WEAK.contains(&w[0].to_lowercase().as_str()) {
                    continue;
                }
                let surface = w.join(" ");
                out.push(Term { id: normalize_concept(&surface), surface, kind: TermKind::Phrase });
            }
        }
        run.clear();
    };
    let prose: String = text.lines().map(|l| if looks_like_code(l) { "" } else { l }).collect::<Vec<_>>().join("\n");
    for raw in prose.split(|c: char| c.is_whitespace()) {
        if raw.is_empty() {
            continue;
        }
        let ends_clause = raw.ends_with([',', '.', ';', ':', '!', '?', ')', '"']) && !raw.ends_with("()");
        let tok = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_') && c != '(' && c != ')');
        let tok = tok.trim_start_matches('(').trim_end_matches(|c| c == ')' && !tok.ends_with("()"));
        let tok = if tok.ends_with(')') && !tok.ends_with("()") { tok.trim_end_matches(')') } else { tok };
        if tok.is_empty() {
            flush_run(&mut run, &mut out);
            continue;
        }
        if !raw.starts_with('`') && is_code_identifier(tok) && (tok.contains('_') || tok.contains("::") || tok.ends_with("()")) {
            out.push(Term { id: normalize_concept(tok), surface: tok.trim_end_matches("()").to_string(), kind: TermKind::Code });
        }
        if is_acronym(tok) {
            out.push(Term { id: tok.to_lowercase(), surface: tok.to_string(), kind: TermKind::Acronym });
        }
        let lower = tok.to_lowercase();
        let wordish = lower.chars().all(|c| c.is_alphabetic() || c == '-') && lower.chars().filter(|c| c.is_alphabetic()).count() >= 2;
        if (wordish || is_acronym(tok)) && !is_stop(&lower) && !raw.starts_with('`') {
            run.push(tok);
        } else {
            flush_run(&mut run, &mut out);
        }
        if ends_clause {
            flush_run(&mut run, &mut out);
        }
    }
    flush_run(&mut run, &mut out);
    // Phrases are matched case-insensitively but keep an acronym's case in the surface form.
    for t in out.iter_mut().filter(|t| t.kind == TermKind::Phrase) {
        t.surface = t.surface.split(' ').map(|w| if is_acronym(w) { w.to_string() } else { w.to_lowercase() }).collect::<Vec<_>>().join(" ");
    }
    if let Some(h) = heading_path.last() {
        let cleaned = strip_numbering(h);
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
        // prose with an equals sign is still prose
        assert!(ids("The constants a = 17.62 and b = 243.12 give the dew point temperature.").iter().any(|(id, _)| id == "dew point temperature"));
    }

    #[test]
    fn phrases_do_not_cross_punctuation() {
        let found = ids("Use a radiation shield, battery packs help.");
        assert!(!found.iter().any(|(id, _)| id == "shield battery"));
        assert!(found.iter().any(|(id, _)| id == "radiation shield"));
    }
}
