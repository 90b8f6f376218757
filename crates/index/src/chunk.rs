//! Token-aware chunking. A document's blocks are joined into one text; blocks are split into units
//! (sentences, or lines for code); units are packed greedily into chunks of at most
//! `max_tokens` model tokens. A heading starts a new chunk once the current one holds a useful
//! amount of text, and consecutive chunks of a section share up to `overlap` tokens of whole
//! sentences, so no chunk starts mid-sentence unless a single sentence exceeds the window.

use std::collections::BTreeSet;

use qa_core::chunk::{Chunk, ChunkMeta, TokenCounter};
use qa_core::fsx::sha256_hex;
use qa_core::text::split_sentences;

use crate::corpus::{BlockKind, SourceDoc, slug};

/// Chunk size and overlap, in model tokens.
#[derive(Debug, Clone, Copy)]
pub struct ChunkParams {
    /// Window in model tokens, special tokens included.
    pub max_tokens: usize,
    /// Most tokens of whole trailing sentences a chunk repeats from the one before it.
    pub overlap: usize,
}

impl ChunkParams {
    fn budget(&self) -> usize {
        self.max_tokens.saturating_sub(2).max(8)
    }
    /// A heading only forces a break once the current chunk holds this many tokens.
    fn min_tokens_before_heading(&self) -> usize {
        self.budget() / 4
    }
}

#[derive(Debug, Clone)]
struct Unit {
    start: usize, // byte offsets into the document text
    end: usize,
    tokens: usize,
    heading: bool,
    block: usize,
}

/// The id prefix of a document's chunks: its relative path without extension, slugged.
pub fn file_stem_id(rel_path: &str) -> String {
    let without_ext = match rel_path.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') => stem,
        _ => rel_path,
    };
    slug(without_ext)
}

/// Chunk one document.
pub fn chunk_document(doc: &SourceDoc, counter: &dyn TokenCounter, params: ChunkParams) -> Vec<Chunk> {
    let mut text = String::new();
    let mut units: Vec<Unit> = Vec::new();
    let budget = params.budget();
    for (bi, block) in doc.blocks.iter().enumerate() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let base = text.len();
        text.push_str(&block.text);
        let heading = matches!(block.kind, BlockKind::Heading(_));
        let pieces = if block.kind == BlockKind::Code { split_lines(&block.text) } else { split_sentences(&block.text) };
        for (s, e) in pieces {
            let piece = &block.text[s..e];
            let tokens = counter.count(piece);
            if tokens <= budget {
                units.push(Unit { start: base + s, end: base + e, tokens, heading, block: bi });
            } else {
                for (ps, pe, pt) in split_oversized(piece, counter, budget) {
                    units.push(Unit { start: base + s + ps, end: base + s + pe, tokens: pt, heading, block: bi });
                }
            }
        }
    }
    let stem = file_stem_id(&doc.rel_path);
    let mut chunks = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let mut j = i;
        let mut tokens = 0;
        while j < units.len() {
            let u = &units[j];
            if j > i && tokens + u.tokens > budget {
                break;
            }
            let starts_heading = u.heading && (j == 0 || !units[j - 1].heading || units[j - 1].block != u.block);
            if j > i && starts_heading && tokens >= params.min_tokens_before_heading() {
                break;
            }
            tokens += u.tokens + usize::from(j > i); // a separator between units may cost a token
            j += 1;
        }
        chunks.push(make_chunk(doc, &text, &units[i..j], &stem, chunks.len(), counter));
        if j >= units.len() {
            break;
        }
        // Overlap: carry whole trailing sentences of this chunk, never across a heading.
        let mut k = j;
        let mut carried = 0;
        if !units[j].heading {
            while k > i + 1 {
                let prev = &units[k - 1];
                if prev.heading || carried + prev.tokens > params.overlap {
                    break;
                }
                carried += prev.tokens;
                k -= 1;
            }
        }
        i = k.max(i + 1);
    }
    chunks
}

fn make_chunk(doc: &SourceDoc, text: &str, units: &[Unit], stem: &str, n: usize, counter: &dyn TokenCounter) -> Chunk {
    let start = units[0].start;
    let end = units[units.len() - 1].end;
    let content = text[start..end].to_string();
    let first_body = units.iter().find(|u| !u.heading).unwrap_or(&units[0]);
    let mut heading_path = doc.blocks[first_body.block].heading_path.clone();
    if heading_path.is_empty() {
        heading_path = doc.blocks[units[0].block].heading_path.clone();
    }
    let mut images = BTreeSet::new();
    let mut seen_blocks = BTreeSet::new();
    for u in units {
        if seen_blocks.insert(u.block) {
            images.extend(doc.blocks[u.block].image_ids.iter().cloned());
        }
    }
    let char_start = text[..start].chars().count();
    let char_end = char_start + content.chars().count();
    Chunk {
        id: format!("{stem}_{n}"),
        source_file: doc.rel_path.clone(),
        metadata: ChunkMeta {
            heading_path,
            image_ids: images.into_iter().collect(),
            char_start,
            char_end,
            token_count: counter.count(&content) + 2,
            content_sha256: sha256_hex(content.as_bytes()),
        },
        content,
    }
}

/// Byte ranges of groups of code lines (blank lines separate groups; long groups split per line).
fn split_lines(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end_matches('\n');
        if !trimmed.trim().is_empty() {
            out.push((offset, offset + trimmed.len()));
        }
        offset += line.len();
    }
    // Merge consecutive lines: each line as its own unit would make overlap and packing work at a
    // finer grain than needed, and line ranges stay contiguous in the block text.
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in out {
        match merged.last_mut() {
            Some(last) if e - last.0 < 400 && !text[last.1..s].contains("\n\n") => last.1 = e,
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// Split one over-long unit at word boundaries into pieces of at most `budget` tokens.
fn split_oversized(piece: &str, counter: &dyn TokenCounter, budget: usize) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut in_word = false;
    let mut ws = 0;
    for (idx, ch) in piece.char_indices() {
        if ch.is_whitespace() {
            if in_word {
                words.push((ws, idx));
                in_word = false;
            }
        } else if !in_word {
            ws = idx;
            in_word = true;
        }
    }
    if in_word {
        words.push((ws, piece.len()));
    }
    let mut cur_start: Option<usize> = None;
    let mut cur_end = 0;
    let mut cur_tokens = 0;
    for (s, e) in words {
        let t = counter.count(&piece[s..e]).max(1);
        if t > budget {
            // A single "word" beyond the window (minified text, base64): cut it by characters.
            if let Some(cs) = cur_start.take() {
                out.push((cs, cur_end, cur_tokens));
                cur_tokens = 0;
            }
            let mut a = s;
            while a < e {
                let mut b = e.min(a + budget * 2);
                while !piece.is_char_boundary(b) {
                    b -= 1;
                }
                if b <= a {
                    break;
                }
                out.push((a, b, counter.count(&piece[a..b])));
                a = b;
            }
            continue;
        }
        if cur_start.is_some() && cur_tokens + t > budget {
            out.push((cur_start.unwrap_or(s), cur_end, cur_tokens));
            cur_start = None;
            cur_tokens = 0;
        }
        cur_start.get_or_insert(s);
        cur_end = e;
        cur_tokens += t;
    }
    if let Some(cs) = cur_start {
        out.push((cs, cur_end, cur_tokens));
    }
    out
}

/// Make chunk ids unique across a corpus (two files can slug to the same stem).
pub fn dedupe_ids(chunks: &mut [Chunk]) {
    let mut seen = std::collections::HashSet::new();
    for c in chunks.iter_mut() {
        if !seen.insert(c.id.clone()) {
            let mut n = 2;
            while !seen.insert(format!("{}~{n}", c.id)) {
                n += 1;
            }
            c.id = format!("{}~{n}", c.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Block, DocKind};

    /// One token per whitespace-separated word: enough to test packing rules.
    struct Words;
    impl TokenCounter for Words {
        fn count(&self, text: &str) -> usize {
            text.split_whitespace().count()
        }
    }

    fn doc(blocks: Vec<(BlockKind, &str)>) -> SourceDoc {
        let mut path = Vec::new();
        let blocks = blocks
            .into_iter()
            .map(|(kind, text)| {
                if let BlockKind::Heading(_) = kind {
                    path = vec![text.to_string()];
                }
                Block { kind, text: text.into(), heading_path: path.clone(), image_ids: vec![] }
            })
            .collect();
        SourceDoc { rel_path: "dir/My File.md".into(), kind: DocKind::Markdown, blocks, images: vec![], title: None }
    }

    #[test]
    fn sentences_respect_abbreviations() {
        let t = "Use a resistor, e.g. 4.7 kOhm. Then test it! Does it work? Yes.";
        let parts: Vec<&str> = split_sentences(t).iter().map(|(s, e)| &t[*s..*e]).collect();
        assert_eq!(parts, vec!["Use a resistor, e.g. 4.7 kOhm.", "Then test it!", "Does it work?", "Yes."]);
    }

    #[test]
    fn sentences_with_multibyte_spaces_and_letters() {
        let t = "Draw 10\u{a0}µA in sleep, i.e.\u{a0}almost nothing. Ωmega follows. Then 4.7\u{202f}kΩ.";
        let parts: Vec<&str> = split_sentences(t).iter().map(|(s, e)| &t[*s..*e]).collect();
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert!(parts[0].ends_with("nothing."));
    }

    #[test]
    fn chunks_fit_budget_overlap_and_map_back_to_text() {
        let sentence = "alpha beta gamma delta epsilon zeta eta theta.";
        let para: String = (0..30).map(|i| format!("Sentence {i} {sentence}")).collect::<Vec<_>>().join(" ");
        let d = doc(vec![(BlockKind::Heading(1), "Intro"), (BlockKind::Paragraph, &para)]);
        let params = ChunkParams { max_tokens: 64, overlap: 12 };
        let chunks = chunk_document(&d, &Words, params);
        assert!(chunks.len() > 3);
        for c in &chunks {
            assert!(c.metadata.token_count <= 64 + 2, "{} has {}", c.id, c.metadata.token_count);
            assert!(c.content.ends_with('.'), "chunk ends mid-sentence: {}", c.content);
            assert_eq!(c.metadata.heading_path, vec!["Intro"]);
        }
        assert_eq!(chunks[0].id, "dir-my-file_0");
        // consecutive chunks overlap by at least one whole sentence
        let tail = chunks[0].content.rsplit(". ").next().unwrap();
        assert!(chunks[1].content.contains(tail.trim_end_matches('.')));
        // offsets map back to the joined text
        let full = format!("Intro\n\n{para}");
        for c in &chunks {
            let s: String = full.chars().skip(c.metadata.char_start).take(c.metadata.char_end - c.metadata.char_start).collect();
            assert_eq!(s, c.content);
        }
    }

    #[test]
    fn headings_start_new_chunks_once_enough_text() {
        let long = "word ".repeat(60) + "end.";
        let d = doc(vec![
            (BlockKind::Heading(2), "First"),
            (BlockKind::Paragraph, &long),
            (BlockKind::Heading(2), "Second"),
            (BlockKind::Paragraph, "Short text here."),
        ]);
        let chunks = chunk_document(&d, &Words, ChunkParams { max_tokens: 200, overlap: 10 });
        assert_eq!(chunks.len(), 2);
        assert!(chunks[1].content.starts_with("Second"));
        assert_eq!(chunks[1].metadata.heading_path, vec!["Second"]);
        // a short section is merged with the next one instead of becoming a tiny chunk
        let d = doc(vec![
            (BlockKind::Heading(2), "First"),
            (BlockKind::Paragraph, "Tiny."),
            (BlockKind::Heading(2), "Second"),
            (BlockKind::Paragraph, "Short text here."),
        ]);
        assert_eq!(chunk_document(&d, &Words, ChunkParams { max_tokens: 200, overlap: 10 }).len(), 1);
    }

    #[test]
    fn oversized_sentence_is_split_by_words() {
        let long = "token ".repeat(300);
        let d = doc(vec![(BlockKind::Paragraph, long.trim())]);
        let chunks = chunk_document(&d, &Words, ChunkParams { max_tokens: 100, overlap: 10 });
        assert!(chunks.len() >= 3);
        assert!(chunks.iter().all(|c| c.metadata.token_count <= 102));
    }

    #[test]
    fn duplicate_ids_get_suffixes() {
        let d = doc(vec![(BlockKind::Paragraph, "One sentence.")]);
        let mut chunks = chunk_document(&d, &Words, ChunkParams { max_tokens: 64, overlap: 8 });
        chunks.extend(chunks.clone());
        dedupe_ids(&mut chunks);
        assert_eq!(chunks[1].id, "dir-my-file_0~2");
    }
}
