//! Dictionary linking: once the corpus's concepts are known, find every mention of them in every
//! chunk, not only where the per-chunk extractor happened to see them. This is what connects a
//! passage to the documents whose titles it names ("… starred Shirley Temple …" → the document
//! titled "Shirley Temple"), the bridge of a two-hop question.
//!
//! Multi-word names and aliases match case-insensitively on normalised words (last word
//! singular); a single word matches only as a name, title, acronym or identifier, and only with
//! its capitalisation ("Temple" the name, not "temple" the building).

use std::collections::{HashMap, HashSet};

use super::{normalize_concept, singular, TermKind};

/// Longest alias matched, in words.
const MAX_ALIAS_WORDS: usize = 8;

/// Aliases of the corpus's concepts, ready for scanning.
pub struct AliasIndex {
    /// Normalised word sequence ("kiss and tell") → concept ids.
    multi: HashMap<String, Vec<String>>,
    /// First words of multi-word aliases, to skip positions that cannot start one.
    first_words: HashSet<String>,
    /// A single word as written ("Nantong", "MQTT", "Rc") → concept ids.
    single: HashMap<String, Vec<String>>,
    /// Ids of document-title concepts.
    titles: HashSet<String>,
    /// Identifiers spelled like an ordinary word (`setup`, `loop`, `clone`): mentioned only where
    /// written as code, not by the word "setup" in a sentence.
    code_only: HashSet<String>,
    /// Identifiers spelled like a capitalised word (`Summary`, `Guess`, `Box`): not mentioned by a
    /// capital the position explains — a heading "Summary", a printed "Guess the number!", a
    /// sentence's first word — unless written as code there (`Box::new`).
    capital_word: HashSet<String>,
    /// Heading ids the documents' template repeats ("summary"): such a heading line names no
    /// topic, so a capital word there is not a mention.
    template_headings: HashSet<String>,
}

/// A concept's name and surface forms, with its kind.
pub struct AliasSource<'a> {
    /// The concept id.
    pub id: &'a str,
    /// The concept's kind: it decides whether a single word may be an alias.
    pub kind: TermKind,
    /// Name and aliases as written.
    pub surfaces: Vec<&'a str>,
}

/// "Kiss and Tell (1945 film)" → "Kiss and Tell": the disambiguation is not said in running text.
pub(crate) fn strip_disambiguation(title: &str) -> &str {
    let t = title.trim();
    match t.rfind(" (") {
        Some(i) if t.ends_with(')') && i > 0 => t[..i].trim(),
        _ => t,
    }
}

fn key(words: &[String]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if i + 1 == words.len() {
            out.push_str(&singular(w));
        } else {
            out.push_str(w);
        }
    }
    out
}

/// Word tokens with their original case (letters, digits, `_`, inner apostrophes dropped).
fn raw_words(text: &str) -> Vec<&str> {
    word_spans(text).into_iter().map(|(a, b)| &text[a..b]).collect()
}

impl AliasIndex {
    /// Index the surface forms and ids of `sources`: multi-word forms (at most eight words, a
    /// leading article optional) by their normalised words; single words only when written like
    /// a name (capitalised, with `_`, or code) and the concept is a name, title, acronym, code or
    /// LLM entity.
    pub fn build<'a>(sources: impl IntoIterator<Item = AliasSource<'a>>) -> AliasIndex {
        let mut idx = AliasIndex { multi: HashMap::new(), first_words: HashSet::new(), single: HashMap::new(), titles: HashSet::new(), code_only: HashSet::new(), capital_word: HashSet::new(), template_headings: HashSet::new() };
        for src in sources {
            if src.kind == TermKind::Title {
                idx.titles.insert(src.id.to_string());
            }
            let mut forms: Vec<&str> = src.surfaces.clone();
            // The id is a normalised form (lower case, last word singular), not a spelling seen
            // in the corpus: as a one-word alias it would make the identifier `Fn` match every
            // `fn` keyword and `Value` every "value". It stands in only when nothing was seen.
            if forms.is_empty() || src.id.contains(' ') {
                forms.push(src.id);
            }
            for form in forms {
                let words: Vec<String> = raw_words(form).iter().map(|w| w.to_lowercase()).collect();
                match words.len() {
                    0 => {}
                    1 => {
                        let single_ok = matches!(src.kind, TermKind::Name | TermKind::Title | TermKind::Acronym | TermKind::Code | TermKind::Entity);
                        let written = raw_words(form)[0];
                        // A lower-case single word is a common word, not a name.
                        let named = written.chars().next().is_some_and(char::is_uppercase) || written.contains('_') || src.kind == TermKind::Code;
                        if single_ok && named && written.chars().count() >= 2 {
                            push_unique(idx.single.entry(written.to_string()).or_default(), src.id);
                            let mut rest = written.chars();
                            let capitalised = rest.next().is_some_and(|c| c.is_ascii_uppercase()) && rest.all(|c| c.is_ascii_lowercase());
                            if src.kind == TermKind::Code && written.chars().all(|c| c.is_ascii_lowercase()) {
                                idx.code_only.insert(written.to_string());
                            } else if src.kind == TermKind::Code && capitalised {
                                idx.capital_word.insert(written.to_string());
                            }
                        }
                    }
                    n if n <= MAX_ALIAS_WORDS => {
                        // Leading articles are optional in running text ("the Brady Bunch").
                        let start = usize::from(matches!(words[0].as_str(), "the" | "a" | "an") && n > 2);
                        let k = key(&words[start..]);
                        idx.first_words.insert(words[start].clone());
                        push_unique(idx.multi.entry(k).or_default(), src.id);
                    }
                    _ => {}
                }
            }
        }
        idx
    }

    /// The heading ids (normalised, [`normalize_concept`]) the documents' template repeats.
    pub fn with_template_headings(mut self, ids: HashSet<String>) -> AliasIndex {
        self.template_headings = ids;
        self
    }

    /// Concept ids mentioned in `text`, with their counts: longest match first, matches do not
    /// overlap — except a document title nested in a longer match ("Trent Reznor" inside "Trent
    /// Reznor of Nine Inch Nails"), which still counts: it is what links a passage to that
    /// document.
    pub fn scan(&self, text: &str) -> HashMap<String, u32> {
        let spans = word_spans(text);
        let raw: Vec<&str> = spans.iter().map(|&(a, b)| &text[a..b]).collect();
        // Only needed when some identifier links where written as code alone.
        let code = if self.code_only.is_empty() && self.capital_word.is_empty() { Vec::new() } else { code_bytes(text) };
        let written_as_code = |i: usize| {
            let (a, b) = spans[i];
            code[a] || text[..a].ends_with(['.', ':']) || text[b..].starts_with(['(', '!'])
        };
        // A capital explained by its position: the first word of a line, a sentence, a quotation
        // or a code span — but a heading names its topic ("Acquire and Release"), unless it is a
        // heading the template repeats ("Summary").
        let capital_explained = |i: usize| {
            let before = text[..spans[i].0].trim_end_matches([' ', '\t']);
            let explained = before.is_empty() || before.ends_with(['\n', '.', '!', '?', ':', '"', '\u{201c}', '\'', '\u{2018}', '`', '(', '-', '*']);
            explained && self.heading_at(text, spans[i].0).is_none_or(|h| self.template_headings.contains(&h))
        };
        // Written as code in a way the capital cannot explain: `Box`, `Box<T>`, `Box::new`, `Guess {`.
        let capital_as_code = |i: usize| {
            let (a, b) = spans[i];
            // `Hello, world!` is printed text in backticks, not the identifier.
            (text[..a].ends_with('`') && !text[b..].starts_with(", ")) || text[b..].starts_with(['<', '(', '{', '`', ':', ';']) || text[b..].starts_with(" {")
        };
        let linked = |i: usize| {
            let w = raw[i];
            if self.code_only.contains(w) {
                written_as_code(i)
            } else if self.capital_word.contains(w) {
                // In a listing or a code span the word is code (`None => 0`, `derive(Debug,
                // Clone)`) unless words follow it as in printed text ("Guess the number!").
                let (a, b) = spans[i];
                let after = &text[b..];
                let opens_span = text[..a].ends_with('`');
                let text_follows = (after.starts_with(' ') && after[1..].starts_with(char::is_alphabetic)) || (opens_span && after.starts_with(", "));
                !capital_explained(i) || capital_as_code(i) || (code[a] && !text_follows)
            } else {
                true
            }
        };
        let lower: Vec<String> = raw.iter().map(|w| w.to_lowercase()).collect();
        let mut found: HashMap<String, u32> = HashMap::new();
        let mut covered_until = 0;
        for i in 0..raw.len() {
            let inside = i < covered_until;
            let mut matched = 0;
            if self.first_words.contains(&lower[i]) {
                let max = MAX_ALIAS_WORDS.min(raw.len() - i);
                for len in (2..=max).rev() {
                    if let Some(ids) = self.multi.get(&key(&lower[i..i + len])) {
                        // Past the longest match at this word (or inside an earlier one), only
                        // titles count.
                        let nested = inside || matched > 0;
                        let fits = !inside || i + len <= covered_until;
                        for id in ids.iter().filter(|id| fits && (!nested || self.titles.contains(*id))) {
                            *found.entry(id.clone()).or_default() += 1;
                        }
                        if !nested {
                            matched = len;
                        }
                    }
                }
            }
            if let Some(ids) = self.single.get(raw[i]).filter(|_| linked(i)) {
                let nested = inside || matched > 0;
                for id in ids.iter().filter(|id| !nested || self.titles.contains(*id)) {
                    *found.entry(id.clone()).or_default() += 1;
                }
                if !nested {
                    matched = 1;
                }
            }
            covered_until = covered_until.max(i + matched);
        }
        found
    }
}

impl AliasIndex {
    /// The normalised text of the line holding byte `at`, when that line is a block of its own
    /// that reads as a heading: at most eight words, no closing punctuation, no code.
    fn heading_at(&self, text: &str, at: usize) -> Option<String> {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let block_start = start == 0 || text[..start].ends_with("\n\n");
        let line = text[start..].split('\n').next().unwrap_or("");
        let block_ends = text[start + line.len()..].starts_with("\n\n") || start + line.len() == text.len();
        let plain = !line.trim().is_empty() && line.split_whitespace().count() <= 8 && !line.trim_end().ends_with(['.', '!', '?', ':', ';', ',']) && !line.contains('`');
        (block_start && block_ends && plain).then(|| normalize_concept(&super::terms::clean_heading(line)))
    }
}

/// Byte spans of the word tokens of `text` (letters, digits, `_`).
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric() || c == '_', start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                spans.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        spans.push((a, text.len()));
    }
    spans
}

/// For every byte of `text`, whether it is code: inside a listing (paragraphs reach the chunks as
/// single lines, listings keep their line breaks) or a backticked span of a paragraph — but not
/// inside a string literal of a listing line (`println!("Guess the number!")` prints words).
fn code_bytes(text: &str) -> Vec<bool> {
    let mut code = vec![false; text.len()];
    let mut offset = 0;
    for block in text.split("\n\n") {
        let listing = block.trim().contains('\n');
        let mut in_ticks = false;
        let mut in_string = false;
        for (i, c) in block.char_indices() {
            match c {
                '`' => in_ticks = !in_ticks,
                '"' if listing => in_string = !in_string,
                '\n' => in_string = false,
                _ => {}
            }
            code[offset + i] = (listing && !in_string) || in_ticks;
        }
        offset += block.len() + 2;
    }
    code
}

fn push_unique(list: &mut Vec<String>, id: &str) {
    if !list.iter().any(|x| x == id) {
        list.push(id.to_string());
    }
}

/// The concept id of a document title (disambiguation dropped, normalised like every id).
pub(crate) fn title_id(title: &str) -> String {
    normalize_concept(strip_disambiguation(title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_names_and_phrases_are_found_in_running_text() {
        let idx = AliasIndex::build([
            AliasSource { id: "kiss and tell", kind: TermKind::Title, surfaces: vec!["Kiss and Tell (1945 film)", "Kiss and Tell"] },
            AliasSource { id: "shirley temple", kind: TermKind::Title, surfaces: vec!["Shirley Temple"] },
            AliasSource { id: "nantong", kind: TermKind::Title, surfaces: vec!["Nantong"] },
            AliasSource { id: "deep sleep", kind: TermKind::Phrase, surfaces: vec!["deep sleep"] },
            AliasSource { id: "temple", kind: TermKind::Phrase, surfaces: vec!["temple"] },
        ]);
        let found = idx.scan("Shirley Temple starred in Kiss and Tell; the temple in nantong and Nantong. Deep sleeps help.");
        let nested = AliasIndex::build([
            AliasSource { id: "trent reznor", kind: TermKind::Title, surfaces: vec!["Trent Reznor"] },
            AliasSource { id: "trent reznor of nine inch nail", kind: TermKind::Name, surfaces: vec!["Trent Reznor of Nine Inch Nails"] },
            AliasSource { id: "inch nail", kind: TermKind::Phrase, surfaces: vec!["inch nails"] },
        ])
        .scan("produced by Trent Reznor of Nine Inch Nails.");
        assert_eq!(nested.get("trent reznor"), Some(&1), "a title nested in a longer name is a mention");
        assert_eq!(nested.get("trent reznor of nine inch nail"), Some(&1));
        assert_eq!(nested.get("inch nail"), None, "other nested matches do not count");
        assert_eq!(found.get("shirley temple"), Some(&1));
        assert_eq!(found.get("kiss and tell"), Some(&1));
        assert_eq!(found.get("nantong"), Some(&1), "only the capitalised mention of a one-word name counts");
        assert_eq!(found.get("deep sleep"), Some(&1), "plural of the last word matches");
        assert_eq!(found.get("temple"), None, "a lower-case one-word phrase is not linked");
    }

    #[test]
    fn a_word_written_with_capitals_does_not_match_its_lower_case() {
        let idx = AliasIndex::build([
            AliasSource { id: "fn", kind: TermKind::Code, surfaces: vec!["Fn"] },
            AliasSource { id: "value", kind: TermKind::Code, surfaces: vec!["Value"] },
            AliasSource { id: "clone", kind: TermKind::Code, surfaces: vec!["clone"] },
        ]);
        let found = idx.scan("fn apply<F: Fn()>(f: F) { let value = f.clone(); } // a Value");
        assert_eq!(found.get("fn"), Some(&1), "only the trait `Fn`, not the keyword `fn`");
        assert_eq!(found.get("value"), Some(&1), "only the type `Value`, not the variable");
        assert_eq!(found.get("clone"), Some(&1));
        let idx = AliasIndex::build([AliasSource { id: "setup", kind: TermKind::Code, surfaces: vec!["setup"] }]);
        let found = idx.scan("The setup takes an hour. Then `setup` runs, and setup() calls x.setup.\n\nvoid setup() {\n  setup\n}");
        assert_eq!(found.get("setup"), Some(&5), "a word-like identifier counts only where written as code");
    }

    #[test]
    fn an_identifier_spelled_like_a_capitalised_word_is_not_mentioned_by_a_capital_its_position_explains() {
        let idx = AliasIndex::build([
            AliasSource { id: "summary", kind: TermKind::Code, surfaces: vec!["Summary"] },
            AliasSource { id: "guess", kind: TermKind::Code, surfaces: vec!["Guess"] },
            AliasSource { id: "box", kind: TermKind::Code, surfaces: vec!["Box"] },
        ])
        .with_template_headings(["summary".to_string()].into_iter().collect());
        let text = "Summary\n\nBox Basics\n\nThe `Summary` trait is ours. A Summary of it.\n\nimpl Summary for Post {\n    Guess::new(5);\n    println!(\"Guess the number!\");\n}\n\n$ cargo run\nGuess the number!\n\nUsing Box<T> on the heap. Box<T> is a pointer, and so is a Box. It prints `Guess, again!`.";
        let found = idx.scan(text);
        assert_eq!(found.get("summary"), Some(&3), "`Summary`, \"A Summary\" and `impl Summary`, not the template's heading");
        assert_eq!(found.get("guess"), Some(&1), "`Guess::new`, not printed or output text");
        assert_eq!(found.get("box"), Some(&4), "a heading of its own, mid-sentence and `Box<T>` at a sentence start");
        let idx = AliasIndex::build([
            AliasSource { id: "none", kind: TermKind::Code, surfaces: vec!["None"] },
            AliasSource { id: "debug", kind: TermKind::Code, surfaces: vec!["Debug"] },
        ]);
        let found = idx.scan("None of this matters.\n\n#[derive(Debug, Clone)]\nmatch x {\n    None => 0,\n}\n\nDebug output follows.");
        assert_eq!((found.get("none"), found.get("debug")), (Some(&1), Some(&1)), "code in a listing, not the sentences' first words");
    }

    #[test]
    fn disambiguation_is_dropped_from_titles() {
        assert_eq!(strip_disambiguation("Kiss and Tell (1945 film)"), "Kiss and Tell");
        assert_eq!(strip_disambiguation("(Untitled)"), "(Untitled)");
        assert_eq!(title_id("The Hythrun Chronicles"), "hythrun chronicle");
    }
}
