//! Example names: identifiers that a corpus's own code listings invent for an illustration
//! (`struct Guess`, `let file_path`, `fn drink`, `static COUNTER`). A technical book declares
//! them again in nearly every listing that uses them and nowhere else, while the names it
//! explains — `Option`, `Iterator`, `main`, a library's API — are declared once if at all and
//! mentioned across many documents. So an identifier is an example name when the documents that
//! declare it are at least half of those that mention it, and it is confined to a tenth of the
//! documents or fewer. Corpus statistics, no word list. An API reference documents its items
//! with signatures, not examples: a declaration without a body (`pub fn with_capacity(capacity:
//! usize) -> Vec<T>`, `pub struct AtomicPtr<T> { /* private fields */ }`) or on the page its
//! title names ("AtomicPtr in std::sync::atomic") does not count, so its names stay concepts.
//!
//! Example names stay in the graph as entities (a question about "the `Guess` type" must still
//! reach its listing: leaving them out of the graph cost the fused ranking all@5 on two books in
//! session 14); they are marked `role: example` and kept out of the list of concepts a reader
//! would look up (`qa graph concepts`).

use std::collections::{BTreeMap, HashMap, HashSet};

use qa_core::chunk::Chunk;

use super::{ChunkMentions, ConceptInfo};

/// Mark the concepts that are example names (`ConceptInfo::example`).
pub(super) fn mark_example_names(chunks: &[Chunk], mentions: &[ChunkMentions], titles: &HashMap<String, String>, concepts: &mut BTreeMap<String, ConceptInfo>) {
    // Placeholders need no statistics: `foo` is invented wherever it is used.
    for c in concepts.values_mut() {
        if c.kind == super::TermKind::Code && is_placeholder(&c.name) {
            c.example = true;
        }
    }
    // The identifier-shaped spellings of every concept.
    let mut by_spelling: HashMap<&str, &str> = HashMap::new();
    for c in concepts.values() {
        for s in std::iter::once(&c.name).chain(&c.aliases).filter(|s| is_identifier(s)) {
            by_spelling.entry(s.as_str()).or_insert(c.id.as_str());
        }
    }
    let mut declared_in: HashMap<&str, HashSet<&str>> = HashMap::new();
    for c in chunks {
        // The page about an item ("AtomicPtr in std::sync::atomic") declares it to document it.
        let title = titles.get(&c.source_file).map(String::as_str).unwrap_or("");
        for name in declared_names(&c.content).into_iter().filter(|n| !names_word(title, n)) {
            if let Some(id) = by_spelling.get(name) {
                declared_in.entry(id).or_default().insert(c.source_file.as_str());
            }
        }
    }
    if declared_in.is_empty() {
        return;
    }
    let documents = chunks.iter().map(|c| c.source_file.as_str()).collect::<HashSet<_>>().len();
    let mut mentioned_in: HashMap<&str, HashSet<&str>> = HashMap::new();
    for (chunk, m) in chunks.iter().zip(mentions) {
        for (id, _) in m.ranked.iter().filter(|(id, _)| declared_in.contains_key(id.as_str())) {
            mentioned_in.entry(id.as_str()).or_default().insert(chunk.source_file.as_str());
        }
    }
    let examples: Vec<String> = declared_in
        .iter()
        .filter(|(id, declaring)| {
            let mentioning = mentioned_in.get(*id).map_or(0, HashSet::len).max(declaring.len());
            declaring.len() * 2 >= mentioning && mentioning * 10 <= documents
        })
        .map(|(id, _)| (*id).to_string())
        .collect();
    for id in examples {
        if let Some(c) = concepts.get_mut(&id) {
            c.example = true;
        }
    }
}

/// A name made of programmers' placeholders: the metasyntactic words (`foo`, `Foo::Bar`,
/// `foo_functions`, `a::b`, `x.y.z`) or an owner's "my"/"our"/"your" before a name
/// (`my_pattern`, `OurFancyMethod`). A convention of code examples in any language, not a list of
/// one corpus's names.
pub(crate) fn is_placeholder(name: &str) -> bool {
    // Any part that is one of these marks an invented name; `bar` and single letters only when
    // every part is a placeholder (`progress_bar` is real).
    const STRONG: &[&str] = &["foo", "baz", "qux", "quux", "quuz", "corge", "grault", "garply", "waldo", "fred", "plugh", "xyzzy", "thud", "foobar"];
    let parts = name_parts(name);
    if parts.is_empty() {
        return false;
    }
    let lower: Vec<String> = parts.iter().map(|p| p.to_ascii_lowercase()).collect();
    let weak = |p: &str| p == "bar" || (p.len() == 1 && p.chars().all(|c| c.is_ascii_alphabetic()));
    let owner = parts.len() >= 2 && matches!(lower[0].as_str(), "my" | "our" | "your") && !parts.iter().any(|p| p.len() > 1 && p.chars().all(|c| c.is_ascii_uppercase()));
    owner || lower.iter().any(|p| STRONG.contains(&p.as_str())) || ((parts.len() >= 2 || lower[0] == "bar") && lower.iter().all(|p| STRONG.contains(&p.as_str()) || weak(p)))
}

/// The words of an identifier: split at `::`, `.`, `_` and a lower-to-upper case change
/// (`Foo::BarBaz` → Foo, Bar, Baz).
fn name_parts(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for piece in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let mut start = 0;
        let bytes = piece.as_bytes();
        for i in 1..bytes.len() {
            if bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase() {
                out.push(&piece[start..i]);
                start = i;
            }
        }
        out.push(&piece[start..]);
    }
    out
}

/// Whether `text` has `word` as a whole word (case-sensitive).
fn names_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| w == word)
}

/// `Guess`, `file_path`, `MY_GPIO`: a letter or underscore, then letters, digits, underscores.
fn is_identifier(s: &str) -> bool {
    s.len() >= 2 && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The names a text's code declares as its own items or variables ([`declaration`]); a function
/// counts when its body follows — on the same line or after a signature over a few lines — for an
/// API reference shows signatures without bodies.
pub(crate) fn declared_names(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((name, body_opens)) = declaration(line) else { continue };
        let body_follows = || lines[i + 1..].iter().take(8).take_while(|l| !l.trim().is_empty()).any(|l| l.trim_end().ends_with('{'));
        if body_opens || body_follows() {
            out.push(name);
        }
    }
    out
}

/// The name a line of code declares as a new item or variable of the listing's own — `pub struct
/// Guess {`, `let mut file_path =`, `fn search<'a>(`, `static COUNTER: …`, `def drink(`, `class
/// Pair:` — and whether the line opens its body (a function's signature may go on over several
/// lines first). Not a method (its first parameter is `self`: `fn fmt(&self, …)` implements a
/// library's trait), not an associated type (`type Item` indented inside an impl), not a pattern
/// (`let Some(x) =`). The character after the name must be code (`{ ( < : = ; [`), so a prose
/// line that opens with "type inference …" or "function pointers …" declares nothing.
fn declaration(line: &str) -> Option<(&str, bool)> {
    let indented = line.starts_with([' ', '\t']);
    let mut rest = line.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = r.split_once(')')?.1.trim_start();
            continue;
        }
        let Some(r) = ["pub ", "async ", "unsafe ", "export ", "extern \"C\" "].iter().find_map(|q| rest.strip_prefix(q)) else { break };
        rest = r.trim_start();
    }
    if let Some(r) = rest.strip_prefix("const fn ") {
        rest = r.trim_start();
        return declared_after("fn", rest);
    }
    let (keyword, after) = rest.split_once(' ')?;
    if !qa_core::text::DECLARING_KEYWORDS.contains(&keyword) || (keyword == "type" && indented) {
        return None;
    }
    declared_after(keyword, after.trim_start())
}

/// The name after a declaring `keyword`, checked as [`declaration`] says, and whether the line
/// opens the body of a function (always true of other declarations).
fn declared_after<'l>(keyword: &str, after: &'l str) -> Option<(&'l str, bool)> {
    let after = after.strip_prefix("mut ").map_or(after, str::trim_start);
    let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
    let (name, tail) = after.split_at(end);
    if !is_identifier(name) || name == "fn" {
        return None;
    }
    if keyword == "let" && !name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
        return None;
    }
    let tail = tail.trim_start();
    if !tail.starts_with(['{', '(', '<', ':', '=', ';', '[']) {
        return None;
    }
    // An API reference shows an item with its body elided (`pub struct AtomicPtr<T> { /* private
    // fields */ }`): documentation of the item, not an example's own code.
    if tail.contains("/*") {
        return None;
    }
    let mut body_opens = true;
    if matches!(keyword, "fn" | "def" | "function") {
        body_opens = tail.contains('{') || tail.trim_end().ends_with(':');
        let params = tail.split_once('(')?.1;
        let first = params.split([',', ')']).next().unwrap_or("");
        if first.split(':').next().unwrap_or("").trim_end().ends_with("self") {
            return None;
        }
    }
    Some((name, body_opens))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kg::{concept_links, extract, ExtractParams};
    use qa_core::chunk::ChunkMeta;

    fn page(n: usize, text: String) -> Chunk {
        Chunk {
            id: format!("c{n}"),
            source_file: format!("page{n}.md"),
            content: text,
            metadata: ChunkMeta { heading_path: vec![format!("Page {n}")], image_ids: vec![], char_start: 0, char_end: 0, token_count: 50, content_sha256: String::new() },
        }
    }

    /// Twelve pages: eleven use `Option`, and the book restates `enum Option` once to explain it;
    /// the twelfth invents a `Tally` struct for its listing and declares it in each of its listings.
    #[test]
    fn placeholder_names_are_example_names() {
        for name in ["foo", "Foo::Bar", "bar::Bar", "Bar", "foo_functions", "FooFunctions", "a::b", "x.y.z", "my_pattern", "our_fancy_method", "MyStruct"] {
            assert!(is_placeholder(name), "{name}");
        }
        for name in ["progress_bar", "ProgressBar", "MySQL", "Option", "thread::spawn", "my", "food", "barrier", "a", "Vec"] {
            assert!(!is_placeholder(name), "{name}");
        }
    }

    #[test]
    fn a_name_only_the_listings_declare_is_an_example_name_an_explained_one_a_concept() {
        let mut chunks: Vec<Chunk> = (0..12).map(|n| page(n, format!("A value of type `Option` may be absent; page {n} returns an `Option` from `lookup`."))).collect();
        chunks[3].content.push_str("\n\nenum Option<T> {\n    None,\n    Some(T),\n}");
        chunks[7].content = "The listing counts votes with a `Tally` of its own.\n\nstruct Tally {\n    yes: u32,\n}\n\nfn main() {\n    let mut tally = Tally { yes: 0 };\n}".into();
        let none = Default::default();
        let params = ExtractParams { min_df: 2, min_related_weight: 1, max_per_chunk: 10 };
        let kg = extract(&chunks, &none, "t_chunks.jsonl", &Default::default(), &Default::default(), params);
        assert!(kg.concepts["tally"].example, "{:?}", kg.concepts.get("tally"));
        // The page titled by the name documents it: not an example.
        let titles = [("page7.md".to_string(), "Tally in votes::count".to_string())].into_iter().collect();
        let documented = extract(&chunks, &none, "t_chunks.jsonl", &Default::default(), &titles, params);
        assert!(documented.concepts.get("tally").is_some_and(|c| !c.example), "{:?}", documented.concepts.get("tally"));
        assert!(!kg.concepts["option"].example);
        // Both stay in the graph; only the concept list tells them apart.
        let linked = concept_links(&kg.documents);
        assert!(linked.iter().any(|c| c.id == "tally" && c.example && c.mentions == 1));
        assert!(linked.iter().any(|c| c.id == "option" && !c.example && c.mentions == 11));
    }

    #[test]
    fn declarations_of_the_listing_own_names() {
        for (line, name) in [
            ("pub struct Guess {", "Guess"),
            ("    let mut file_path = args[1].clone();", "file_path"),
            ("pub fn search<'a>(query: &str, contents: &'a str) -> Vec<&'a str> {", "search"),
            ("static COUNTER: AtomicUsize = AtomicUsize::new(0);", "COUNTER"),
            ("def drink(beverage):", "drink"),
            ("class Pair:", "Pair"),
            ("enum List {", "List"),
            ("pub(crate) const fn limit() -> u32 {", "limit"),
            ("type Job = Box<dyn FnOnce() + Send + 'static>;", "Job"),
            ("struct Meters(u32);", "Meters"),
        ] {
            assert_eq!(declared_names(line), vec![name], "{line}");
        }
    }

    #[test]
    fn a_signature_over_several_lines_counts_when_its_body_follows() {
        let example = "pub fn search_case_insensitive<'a>(\n    query: &str,\n    contents: &'a str,\n) -> Vec<&'a str> {\n    vec![]\n}";
        assert_eq!(declared_names(example), vec!["search_case_insensitive"]);
        let reference = "pub fn from_raw_parts_in(\n    ptr: *mut T,\n    length: usize,\n) -> Vec<T, A>\n\nCreates a `Vec<T, A>` directly from a pointer.";
        assert!(declared_names(reference).is_empty());
    }

    #[test]
    fn methods_associated_types_patterns_and_prose_declare_nothing() {
        for line in [
            "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {",
            "    fn into_iter(self) -> Self::IntoIter {",
            "    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output>;",
            "    type Item = u32;",
            "let Some(x) = maybe else { return };",
            "type inference works out the rest",
            "function pointers are a type of their own",
            "let (a, b) = pair;",
            "impl Summary for Tweet {",
            "pub fn with_capacity(capacity: usize) -> Vec<T>",
            "pub struct AtomicPtr<T> { /* private fields */ }",
        ] {
            assert!(declared_names(line).is_empty(), "{line}");
        }
    }
}
