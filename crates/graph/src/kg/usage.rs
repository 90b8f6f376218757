//! How the corpus uses a one-word candidate term, to tell a term a reader would look up from a
//! word that only looks like one: a function word, a generic verb or adverb written with a capital
//! at the start of a heading or an output line ("Finished", "Creating", "Next"), a caption label
//! followed by its numbering ("Listing 1-1", "Figure 15-2"), a heading repeated across documents
//! ("Summary"). Corpus statistics, not word lists of one corpus: the same rules hold for any text.

use std::collections::{BTreeSet, HashMap, HashSet};

use qa_core::chunk::Chunk;
use qa_core::text::{is_base_verb, is_phrase_breaker, is_stop, is_verb_form};

use super::terms::normalize_concept;

/// The uses of one one-word term across the corpus.
#[derive(Debug, Default, Clone)]
pub(crate) struct Usage {
    /// Occurrences (any case).
    pub total: usize,
    /// Occurrences written as code (inside backticks).
    pub as_code: usize,
    /// Occurrences followed by a section-style number ("1-1", "15.2").
    pub before_numbering: usize,
    /// Documents that have the term as a whole heading.
    pub heading_docs: BTreeSet<String>,
}

/// The usage of every one-word id in `ids` over the chunks.
pub(crate) fn usage(chunks: &[Chunk], ids: &HashSet<String>) -> HashMap<String, Usage> {
    let mut out: HashMap<String, Usage> = HashMap::new();
    for c in chunks {
        let tokens: Vec<&str> = c.content.split_whitespace().collect();
        for (i, raw) in tokens.iter().enumerate() {
            let id = normalize_concept(raw.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '_'));
            if id.is_empty() || !ids.contains(&id) {
                continue;
            }
            let u = out.entry(id).or_default();
            u.total += 1;
            if raw.contains('`') {
                u.as_code += 1;
            }
            if tokens.get(i + 1).is_some_and(|next| is_numbering(next)) {
                u.before_numbering += 1;
            }
        }
        if let Some(h) = c.metadata.heading_path.last() {
            let id = normalize_concept(h);
            if ids.contains(&id) {
                out.entry(id).or_default().heading_docs.insert(c.source_file.clone());
            }
        }
    }
    out
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
    matches!(word, "page" | "section" | "chapter" | "figure" | "listing" | "appendix" | "paragraph" | "footnote" | "note" | "example" | "screenshot")
}

/// "1-1", "15-2:", "3.4": the numbering of a listing, figure or table.
fn is_numbering(token: &str) -> bool {
    let t = token.trim_end_matches([':', '.', ',', ')']);
    let mut parts = t.split(['-', '.']);
    let (Some(a), Some(b), None) = (parts.next(), parts.next(), parts.next()) else { return false };
    !a.is_empty() && !b.is_empty() && a.chars().all(|c| c.is_ascii_digit()) && b.chars().all(|c| c.is_ascii_digit())
}

/// "creating", "finished", "running": an -ing or -ed form of a known verb.
fn inflects_a_verb(word: &str) -> bool {
    (word.ends_with("ing") || word.ends_with("ed")) && qa_core::text::verb_lemmas(word).iter().skip(1).any(|l| is_base_verb(l))
}

/// Why a one-word term is not a concept, or None when it may be one.
pub(crate) fn not_a_concept(id: &str, u: &Usage) -> Option<&'static str> {
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
    if u.heading_docs.len() >= 3 && !code {
        return Some("a heading repeated across documents");
    }
    None
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
        let why = |id: &str| not_a_concept(id, &u[id]);
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
}
