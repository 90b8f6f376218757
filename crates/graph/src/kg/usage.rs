//! How the corpus uses a one-word candidate term, to tell a term a reader would look up from a
//! word that only looks like one: a function word, a generic verb or adverb written with a capital
//! at the start of a heading or an output line ("Finished", "Creating", "Next"), a caption label
//! followed by its numbering ("Listing 1-1", "Figure 15-2"), a heading repeated across documents
//! ("Summary"). Corpus statistics, not word lists of one corpus: the same rules hold for any text.

use std::collections::{BTreeSet, HashMap, HashSet};

use qa_core::chunk::Chunk;
use qa_core::text::{is_base_verb, is_phrase_breaker, is_stop, is_verb_form};

use super::terms::{clean_heading, normalize_concept};

/// The uses of one one-word term across the corpus.
#[derive(Debug, Default, Clone)]
pub(crate) struct Usage {
    /// Occurrences (any case).
    pub total: usize,
    /// Occurrences written as code (inside backticks).
    pub as_code: usize,
    /// Occurrences followed by a section-style number ("1-1", "15.2").
    pub before_numbering: usize,
    /// Occurrences with a capital first letter.
    pub capitalised: usize,
    /// Occurrences that open a quotation ("Hello, world!" printed by an example).
    pub quoted: usize,
    /// Occurrences as the first part of a hyphenated word ("Cortex" of "Cortex-M3"), not counted
    /// in `total`.
    pub in_compound: usize,
    /// Occurrences right after a number ("16 MiB", "2.5 kW").
    pub after_number: usize,
}

/// The usage of every one-word id in `ids` over the chunks.
pub(crate) fn usage(chunks: &[Chunk], ids: &HashSet<String>) -> HashMap<String, Usage> {
    let mut out: HashMap<String, Usage> = HashMap::new();
    for c in chunks {
        let tokens: Vec<&str> = c.content.split_whitespace().collect();
        let spans = span_roles(&c.content);
        for (i, raw) in tokens.iter().enumerate() {
            let word = raw.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '_');
            // Acronym ids keep their plural ("options" of "OPTIONS"), other ids are singular.
            let (singular, lower) = (normalize_concept(word), word.to_lowercase());
            for id in [Some(singular.clone()), (lower != singular).then_some(lower)].into_iter().flatten().filter(|id| !id.is_empty() && ids.contains(id)) {
                let u = out.entry(id).or_default();
                u.total += 1;
                if word.starts_with(char::is_uppercase) {
                    u.capitalised += 1;
                }
                match spans[i] {
                    SpanRole::Code => u.as_code += 1,
                    // `Hello, world!` is text a program prints, quoted with backticks.
                    SpanRole::Text { opens: true } => u.quoted += 1,
                    SpanRole::Prose | SpanRole::Text { opens: false } => {}
                }
                if tokens.get(i + 1).is_some_and(|next| is_numbering(next)) {
                    u.before_numbering += 1;
                }
                if i > 0 && is_number(tokens[i - 1]) {
                    u.after_number += 1;
                }
                if raw.find(word).and_then(|at| raw[..at].chars().next_back()).is_some_and(|q| matches!(q, '"' | '\u{201c}' | '\'')) {
                    u.quoted += 1;
                }
            }
            if let Some((first, rest)) = word.split_once('-')
                && rest.starts_with(char::is_alphanumeric)
                && let id = normalize_concept(first)
                && ids.contains(&id)
            {
                out.entry(id).or_default().in_compound += 1;
            }
        }
    }
    out
}

/// What a whitespace token is, as far as backtick spans go.
#[derive(Debug, Clone, Copy, PartialEq)]
enum SpanRole {
    /// Outside any backtick span.
    Prose,
    /// Inside a span of code (`Drop`, `let mut guess`, `&mut self`).
    Code,
    /// Inside a span that reads as a sentence (`Hello, world!`): text shown or typed, not code.
    /// `opens` marks its first token.
    Text { opens: bool },
}

/// The span role of every whitespace token of `text` (the spans are [`qa_core::text::code_spans`]).
/// A span reads as text when it holds a comma and a space or ends like a sentence, has a space,
/// and no character that only code uses.
fn span_roles(text: &str) -> Vec<SpanRole> {
    let tokens: Vec<std::ops::Range<usize>> = text
        .split_whitespace()
        .map(|t| {
            let start = t.as_ptr() as usize - text.as_ptr() as usize;
            start..start + t.len()
        })
        .collect();
    let mut roles = vec![SpanRole::Prose; tokens.len()];
    for span in qa_core::text::code_spans(text) {
        let inner = &text[span.clone()];
        let codeish = inner.chars().any(|c| matches!(c, '(' | ')' | '{' | '}' | '[' | ']' | '<' | '>' | ':' | ';' | '=' | '&' | '*' | '#' | '$' | '|' | '\\' | '_'));
        let sentence = inner.contains(", ") || inner.trim_end().ends_with(['!', '?', '.']);
        let printed = sentence && !codeish && inner.contains(' ');
        // The backticks belong to the span: a token holding one is inside it.
        let (from, to) = (span.start - 1, span.end + 1);
        let mut first = true;
        for (_, role) in tokens.iter().zip(roles.iter_mut()).filter(|(t, _)| t.start < to && t.end > from) {
            *role = if printed { SpanRole::Text { opens: first } } else { SpanRole::Code };
            first = false;
        }
    }
    roles
}

/// Texts the corpus uses as layout rather than prose: the documents that have a text as a whole
/// heading — a heading of a chunk's heading path, or a short standalone line in heading case
/// inside a chunk ("SYNOPSIS", "Common Options" of every command's manual page) — and how often
/// a text labels a line ("Default: …", "Tracking Issue: #1234").
#[derive(Debug, Default)]
pub(crate) struct Layout {
    /// Documents by heading id.
    heading_docs: HashMap<String, BTreeSet<String>>,
    /// Line-label uses by id.
    labels: HashMap<String, usize>,
    /// Documents in the corpus.
    documents: usize,
}

impl Layout {
    /// The layout of a corpus.
    pub(crate) fn of(chunks: &[Chunk]) -> Layout {
        let mut out = Layout::default();
        let mut files: HashSet<&str> = HashSet::new();
        for c in chunks {
            files.insert(&c.source_file);
            let mut add = |h: &str| {
                let id = normalize_concept(&clean_heading(h));
                if !id.is_empty() {
                    out.heading_docs.entry(id).or_default().insert(c.source_file.clone());
                }
            };
            for h in &c.metadata.heading_path {
                add(h);
            }
            for block in c.content.split("\n\n") {
                let b = block.trim();
                if is_heading_line(b) {
                    add(b);
                }
                for label in b.lines().filter_map(line_label) {
                    *out.labels.entry(normalize_concept(label)).or_default() += 1;
                }
            }
        }
        out.documents = files.len();
        out
    }

    /// A heading the documents' template repeats: one word in three or more documents, a longer
    /// heading also in a tenth of them.
    pub(crate) fn repeated_heading(&self, id: &str) -> bool {
        // Acronym ids keep their plural ("options" of "OPTIONS"); headings are normalised.
        let docs = [id.to_string(), normalize_concept(id)].iter().filter_map(|k| self.heading_docs.get(k)).map(BTreeSet::len).max().unwrap_or(0);
        docs >= 3 && (!id.contains(' ') || docs * 10 >= self.documents)
    }

    /// The heading ids the template repeats ([`Layout::repeated_heading`]).
    pub(crate) fn repeated_headings(&self) -> HashSet<String> {
        self.heading_docs.keys().filter(|id| self.repeated_heading(id)).cloned().collect()
    }

    /// Why a term used `total` times is layout rather than a concept: a heading repeated across
    /// documents (one word in three or more; a longer heading also in a tenth of them, so a topic
    /// that heads a section in three documents of a large book stays), or a line label used for
    /// half its occurrences.
    pub(crate) fn furniture(&self, id: &str, total: usize) -> Option<&'static str> {
        if self.repeated_heading(id) {
            return Some("a heading repeated across documents");
        }
        let labels = self.labels.get(id).copied().unwrap_or(0);
        if labels >= 3 && labels * 2 >= total {
            return Some("a line label");
        }
        None
    }
}

/// A standalone line in heading case: one line, at most eight words, no closing punctuation or
/// code, every word capitalised or a function word ("SEE ALSO", "Common Options", "Exit Status").
fn is_heading_line(block: &str) -> bool {
    if block.is_empty() || block.contains('\n') || block.contains('`') || block.ends_with(['.', ':', ';', ',', '!', '?']) {
        return false;
    }
    let words: Vec<&str> = block.split_whitespace().filter(|w| w.chars().next().is_some_and(char::is_alphabetic)).collect();
    !words.is_empty()
        && block.split_whitespace().count() <= 8
        && words.iter().all(|w| w.chars().next().is_some_and(char::is_uppercase) || is_stop(&w.to_lowercase()))
        && words.iter().any(|w| w.chars().next().is_some_and(char::is_uppercase))
}

/// "Default: `[]`", "Tracking Issue: #1234", "test result: ok.": the one to four plain words
/// before a colon that opens a line; one word only with a capital ("note: …" may be prose).
fn line_label(line: &str) -> Option<&str> {
    let (head, _) = line.trim().split_once(':')?;
    let words = head.split_whitespace().count();
    let plain = head.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-');
    ((1..=4).contains(&words) && plain && (words >= 2 || head.starts_with(|c: char| c.is_uppercase()))).then_some(head)
}

/// Words of a term written in code or console-output blocks and in prose: `(in blocks, in prose)`
/// for every id in `ids`. Paragraphs reach the chunks as single lines and code or output blocks
/// keep their line breaks, so a block with a line break inside is code or output.
pub(crate) fn block_usage(chunks: &[Chunk], ids: &HashSet<String>) -> HashMap<String, (usize, usize)> {
    const LONGEST: usize = 5;
    let first_words: HashSet<&str> = ids.iter().filter_map(|id| id.split(' ').next()).collect();
    let mut out: HashMap<String, (usize, usize)> = HashMap::new();
    for c in chunks {
        for block in c.content.split("\n\n") {
            let in_block = block.trim().contains('\n');
            let words: Vec<&str> = block.split_whitespace().map(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '_')).filter(|w| !w.is_empty()).collect();
            for i in 0..words.len() {
                if !first_words.contains(words[i].to_lowercase().as_str()) {
                    continue;
                }
                for n in 1..=LONGEST.min(words.len() - i) {
                    let id = normalize_concept(&words[i..i + n].join(" "));
                    if let Some(e) = ids.get(&id).map(|_| out.entry(id).or_default()) {
                        if in_block { e.0 += 1 } else { e.1 += 1 }
                    }
                }
            }
        }
    }
    out
}

/// A term seen mostly in code or console output ("previous error", "test result") and seldom
/// in prose is output, not a concept.
pub(crate) fn mostly_output((in_blocks, in_prose): (usize, usize)) -> bool {
    in_blocks >= 2 && in_blocks >= 3 * in_prose
}

/// Nouns that name a part of a document rather than a topic ("the wiring page", "the next
/// section", "Listing 3"): a phrase ending in one is furniture. Generic English.
pub(crate) fn is_furniture(word: &str) -> bool {
    matches!(word, "page" | "section" | "chapter" | "figure" | "listing" | "appendix" | "paragraph" | "footnote" | "note" | "example" | "screenshot" | "documentation" | "manual")
}

/// "1-1", "15-2:", "3.4": the numbering of a listing, figure or table.
fn is_numbering(token: &str) -> bool {
    let t = token.trim_end_matches([':', '.', ',', ')']);
    let mut parts = t.split(['-', '.']);
    let (Some(a), Some(b), None) = (parts.next(), parts.next(), parts.next()) else { return false };
    !a.is_empty() && !b.is_empty() && a.chars().all(|c| c.is_ascii_digit()) && b.chars().all(|c| c.is_ascii_digit())
}

/// "16", "2.5", "1,200": a quantity written in digits. A year is no quantity ("the 2021
/// edition" names an edition, not its unit).
fn is_number(token: &str) -> bool {
    let t = token.trim_start_matches(['(', '~', '≈']);
    let year = t.len() == 4 && (t.starts_with("19") || t.starts_with("20"));
    !year && t.starts_with(|c: char| c.is_ascii_digit()) && t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-'))
}

/// "creating", "finished", "running": an -ing or -ed form of a known verb.
fn inflects_a_verb(word: &str) -> bool {
    (word.ends_with("ing") || word.ends_with("ed")) && qa_core::text::verb_lemmas(word).iter().skip(1).any(|l| is_base_verb(l))
}

/// Why a one-word term is not a concept, or None when it may be one.
pub(crate) fn not_a_concept(id: &str, u: &Usage, layout: &Layout) -> Option<&'static str> {
    if id.contains(' ') {
        return None;
    }
    // A word the corpus writes as code a quarter of the time is an identifier (`Drop`, `Send`).
    let code = u.total > 0 && u.as_code * 4 >= u.total;
    let ordinary = is_stop(id) || is_verb_form(id) || is_base_verb(id) || is_phrase_breaker(id) || inflects_a_verb(id);
    if u.total > 0 && u.before_numbering * 3 >= u.total && !code {
        return Some("a caption label (followed by its numbering)");
    }
    if ordinary && !code {
        return Some("a function word, verb or adverb");
    }
    // "March", "Sunday": part of a date, in any corpus.
    if qa_core::text::is_calendar_word(id) && !code {
        return Some("a month or weekday name");
    }
    // "MiB" of "16 MiB": a word that nearly always follows a number is its unit.
    if u.total >= 2 && u.after_number * 4 >= u.total * 3 && !code {
        return Some("a unit (follows a number)");
    }
    if code {
        return None;
    }
    // Mostly the opening word of a quotation: text a program prints or a user types.
    if u.total >= 3 && u.quoted * 2 >= u.total {
        return Some("quoted text");
    }
    // Nearly always the first part of a hyphenated name: a fragment of it.
    if u.in_compound >= 3 && u.in_compound >= 9 * u.total {
        return Some("a fragment of a hyphenated name");
    }
    // A label starts with a capital: "Default: none" is judged against the capitalised uses, so
    // that prose "by default" does not hide it.
    layout.furniture(id, u.capitalised.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::chunk::ChunkMeta;

    fn chunk(file: &str, heading: &str, text: &str) -> Chunk {
        Chunk {
            id: format!("{file}_0"),
            source_file: file.into(),
            content: text.into(),
            metadata: ChunkMeta { heading_path: vec![heading.into()], image_ids: vec![], char_start: 0, char_end: 0, token_count: 0, content_sha256: String::new() },
        }
    }

    #[test]
    fn labels_generic_words_and_repeated_headings_are_not_concepts_identifiers_are() {
        let chunks = [
            chunk("a.md", "Summary", "Listing 1-1: a program. Finished building. The `Drop` trait runs when a value goes out of scope. Ownership moves."),
            chunk("b.md", "Summary", "Listing 2-1 shows `Drop` again. Creating a thread. Ownership rules."),
            chunk("c.md", "Summary", "See Listing 3-2 and Figure 3-1. Implement `Drop` for it."),
        ];
        let ids: HashSet<String> = ["listing", "finished", "drop", "ownership", "summary", "creating", "figure"].iter().map(|s| s.to_string()).collect();
        let u = usage(&chunks, &ids);
        let layout = Layout::of(&chunks);
        let why = |id: &str| not_a_concept(id, &u.get(id).cloned().unwrap_or_default(), &layout);
        assert_eq!(why("listing"), Some("a caption label (followed by its numbering)"));
        assert_eq!(why("figure"), Some("a caption label (followed by its numbering)"));
        assert_eq!(why("finished"), Some("a function word, verb or adverb"));
        assert_eq!(why("creating"), Some("a function word, verb or adverb"));
        assert_eq!(why("summary"), Some("a heading repeated across documents"));
        assert_eq!(why("drop"), None, "written as code");
        assert_eq!(why("ownership"), None);
        let chunks = [chunk("d.md", "Testing", "Run the tests.\n\n$ cargo test\ntest result: ok. 1 passed\n\ntest result: FAILED. 0 passed\nerror: 1 previous error\n\nThe test result line sums it up.\n\nOwnership rules.")];
        let ids: HashSet<String> = ["test result", "ownership rule"].iter().map(|s| s.to_string()).collect();
        let b = block_usage(&chunks, &ids);
        assert_eq!(b["test result"], (2, 1), "two output blocks (with line breaks), one paragraph");
        assert!(!mostly_output(b["test result"]) && mostly_output((3, 1)) && !mostly_output((1, 0)));
        assert_eq!(b["ownership rule"], (0, 1));
        assert!(inflects_a_verb("creating") && inflects_a_verb("running") && inflects_a_verb("finished") && !inflects_a_verb("beijing") && !inflects_a_verb("string"));
        assert!(is_numbering("15-2:") && is_numbering("3.4") && !is_numbering("2024") && !is_numbering("a-b"));
    }

    #[test]
    fn template_headings_labels_quotations_and_fragments_are_not_concepts() {
        // Every command's manual page has the same sections; one page explains build scripts.
        let mut chunks: Vec<Chunk> = ["run", "build", "test"]
            .iter()
            .map(|cmd| chunk(&format!("cargo-{cmd}.md"), "NAME", &format!("cargo-{cmd}\n\nSYNOPSIS\n\ncargo {cmd} [options]\n\nOPTIONS\n\nCommon Options\n\nUse the Cortex-M3 board.\n\nDefault: none")))
            .collect();
        chunks.push(chunk("scripts.md", "Build Scripts", "Build Scripts\n\nA build script runs first, by default, with default features and the default profile. Print \"Hello, world!\" and \"Hello again\" or Hello there.\n\nDefault: `false`\n\nThe Cortex-M4 and Cortex-M0 and Cortex-A cores."));
        let layout = Layout::of(&chunks);
        assert_eq!(layout.furniture("common options", 3), Some("a heading repeated across documents"), "a longer heading in most documents");
        assert_eq!(layout.furniture("build script", 2), None, "a heading in one document");
        assert_eq!(layout.furniture("default", 4), Some("a line label"));
        assert_eq!(layout.furniture("default", 20), None, "a label for few of its uses");
        let ids: HashSet<String> = ["options", "synopsis", "hello", "cortex", "build", "default"].iter().map(|s| s.to_string()).collect();
        let u = usage(&chunks, &ids);
        assert_eq!(u["options"].total, 9, "an acronym's id keeps its plural: OPTIONS, Options, [options]");
        let why = |id: &str| not_a_concept(id, &u[id], &layout);
        assert_eq!(why("options"), Some("a heading repeated across documents"));
        assert_eq!(why("synopsis"), Some("a heading repeated across documents"));
        assert_eq!(why("hello"), Some("quoted text"));
        // Printed text in backticks opens a quotation; a code span is code.
        let roles = span_roles("prints `Hello, world!` and `let mut guess` or `Drop`.");
        assert_eq!(roles[1..3], [SpanRole::Text { opens: true }, SpanRole::Text { opens: false }]);
        assert_eq!(roles[4..7], [SpanRole::Code; 3]);
        assert_eq!((roles[0], roles[3], roles[8]), (SpanRole::Prose, SpanRole::Prose, SpanRole::Code));
        let printed = [chunk("p.md", "Greeting", "It prints `Hello, world!` and `Hello, Rust!`; the `Hello` type greets.")];
        let u = usage(&printed, &["hello".to_string()].into_iter().collect());
        assert_eq!((u["hello"].total, u["hello"].as_code, u["hello"].quoted), (3, 1, 2));
        assert_eq!(why("cortex"), Some("a fragment of a hyphenated name"));
        assert_eq!(why("default"), Some("a line label"), "its capitalised uses are labels, whatever prose says \"by default\"");
        assert!(!is_heading_line("cargo run [options]") && !is_heading_line("A build script runs first.") && is_heading_line("See Also"));
        assert_eq!(line_label("Tracking Issue: #1234"), Some("Tracking Issue"));
        assert_eq!((line_label("Set `build.jobs`: 4"), line_label("The value of this setting is: 4")), (None, None), "code, or a sentence");
        assert_eq!((line_label("test result: ok. 1 passed"), line_label("note: see below")), (Some("test result"), None));
    }

    #[test]
    fn dates_and_units_are_not_concepts_counted_nouns_are() {
        let chunks = [
            chunk("a.md", "Fees", "Fees are due in March. The office opens on Sunday. The board has 16 MiB of flash and 8 MiB of RAM."),
            chunk("b.md", "Threads", "Start 4 threads. A thread runs a closure; threads share memory. The cache is 64 MiB. Pay by March."),
        ];
        let ids: HashSet<String> = ["march", "sunday", "mib", "thread", "office"].iter().map(|s| s.to_string()).collect();
        let u = usage(&chunks, &ids);
        let layout = Layout::of(&chunks);
        let why = |id: &str| not_a_concept(id, &u.get(id).cloned().unwrap_or_default(), &layout);
        assert_eq!(why("march"), Some("a month or weekday name"));
        assert_eq!(why("sunday"), Some("a month or weekday name"));
        assert_eq!(u["mib"].after_number, 3);
        assert_eq!(why("mib"), Some("a unit (follows a number)"));
        assert_eq!(why("thread"), None, "counted once, named twice more");
        assert_eq!(why("office"), None);
        assert!(is_number("16") && is_number("2.5") && is_number("1,200") && !is_number("v2") && !is_number("-") && !is_number("2021"));
    }
}
