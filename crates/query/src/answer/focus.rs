//! Does the evidence speak to what the question is about? Retrieval always returns its best
//! passages, even for a question the corpus cannot answer ("Who won the 2018 World Cup final?"
//! over a programming book returns a passage about "Hello, world!"). The question's *focus* is
//! its content words, each weighted by how rare it is in the corpus (a word most passages use says
//! little; a word no passage uses says most). The focus is *covered* by the share of that weight
//! the selected passages hold. Below a threshold the answer says the documents do not answer the
//! question, with the closest passages as pointers, instead of quoting a sentence that merely
//! shares a word with it. Names of the asker's own code (inside backticks, used by no passage) are
//! theirs, not the corpus's: `fn parse_all`, `struct Meters` weigh nothing, `chrono::NaiveDate` as
//! much as a plain word.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use qa_core::chunk::Chunk;
use qa_core::text::{content_words, normalized_words, singular, word_family};

/// Words that shape a question without naming its subject ("how do I *use* …", "what is the
/// *best* *way* …"): generic English, never a corpus's terms.
const ASKING_WORDS: &[&str] = &[
    "use", "using", "used", "way", "ways", "work", "works", "working", "make", "makes", "get", "gets", "need", "needs", "want",
    "best", "good", "happen", "happens", "mean", "means", "thing", "things", "kind", "tell", "know", "find", "give", "show",
    "possible", "example", "instead", "really", "actually", "still", "point", "come", "seem", "try", "take",
];

/// Whether the question word is an asking word, in any form: "wants", "seemed", "came", "got",
/// "made" shape a question as "want", "seem", "come", "get", "make" do (before session 30 only
/// the listed form was left out, so "our team wants …" made "want" a focus word no passage used).
fn is_asking_word(w: &str) -> bool {
    ASKING_WORDS.contains(&w) || qa_core::text::verb_lemmas(w).iter().any(|l| l != w && ASKING_WORDS.contains(&l.as_str()))
}

/// Document frequencies of the corpus's words (singular forms), counted once per chunk.
#[derive(Debug, Default)]
pub struct TermStats {
    docs: usize,
    df: HashMap<String, u32>,
}

impl TermStats {
    /// Count every chunk's words.
    pub fn build(chunks: &[Chunk]) -> TermStats {
        let mut df: HashMap<String, u32> = HashMap::new();
        for c in chunks {
            let seen: HashSet<String> = normalized_words(&c.content).into_iter().collect();
            for w in seen {
                *df.entry(w).or_default() += 1;
            }
        }
        TermStats { docs: chunks.len(), df }
    }

    /// How much a word says about a question's subject: its inverse document frequency, highest
    /// for a word no chunk uses.
    pub fn weight(&self, word: &str) -> f32 {
        let df = self.df.get(word).copied().unwrap_or(0) as f32;
        (1.0 + self.docs as f32 / (1.0 + df)).ln()
    }

    /// Chunks that use the word.
    pub fn df(&self, word: &str) -> u32 {
        self.df.get(word).copied().unwrap_or(0)
    }
}

/// A named thing weighs this many times a plain word: a question about "Rocket" is not answered
/// by a passage about routes.
const NAME_WEIGHT: f32 = 3.0;

/// The question's focus words (singular forms, each once).
pub fn focus_words(question: &str) -> Vec<String> {
    let contracted = contraction_parts(question);
    let mut out: Vec<String> = Vec::new();
    for w in content_words(question) {
        if is_asking_word(&w) || contracted.contains(&w) {
            continue;
        }
        let s = singular(&w);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The parts of the question's English contractions — "doesn" of "doesn't", "ve" of "I've", "d"
/// of "I'd" — which are function words split by the tokenizer, never what the question is about.
/// A possessive ("Rust's") keeps its owner.
fn contraction_parts(question: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for raw in question.split_whitespace() {
        let token = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let Some((left, right)) = token.split_once(['\'', '’']) else { continue };
        let (left, right) = (left.to_lowercase(), right.to_lowercase());
        match right.as_str() {
            "t" => {
                out.insert(left);
            }
            "ve" | "re" | "ll" | "d" | "m" => {
                out.insert(left);
                out.insert(right);
            }
            _ => {}
        }
    }
    out
}

/// Words of the question that name a thing (singular, lower-case): a capitalised word that does
/// not open a sentence ("Rocket", "Tokio"), a word in capitals or with digits ("GC", "PyO3",
/// "CO2"), and every word of an identifier ("rustfmt.toml", "cargo-deny", "par_iter").
pub fn named_words(question: &str) -> HashSet<String> {
    let contracted = contraction_parts(question);
    let mut out = HashSet::new();
    let mut opens_sentence = true;
    for raw in question.split_whitespace() {
        let token = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let token = token.strip_suffix("'s").or_else(|| token.strip_suffix("’s")).unwrap_or(token);
        let letters = token.chars().filter(|c| c.is_alphabetic()).count();
        let inner_punct = token.chars().any(|c| matches!(c, '.' | '_' | ':' | '-' | '<' | '>')) && letters >= 2;
        let capital = token.chars().next().is_some_and(char::is_uppercase) && !opens_sentence;
        let caps_or_digits = letters >= 2 && (token.chars().filter(|c| c.is_uppercase()).count() >= 2 || token.chars().any(|c| c.is_ascii_digit()));
        if inner_punct || capital || caps_or_digits {
            for w in normalized_words(token) {
                if w.chars().any(char::is_alphabetic) && !qa_core::text::is_stop(&w) && !contracted.contains(&w) {
                    out.insert(w);
                }
            }
        }
        opens_sentence = raw.ends_with(['.', '?', '!', ':']);
    }
    out
}

/// How much of the question's focus the evidence holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FocusCoverage {
    /// Share of the focus's weight the evidence holds (1.0 when the question has no focus words).
    pub share: f32,
    /// Focus words no evidence passage uses, heaviest first.
    pub missing: Vec<String>,
    /// Of those, the words no passage of the corpus uses at all.
    pub absent_from_corpus: Vec<String>,
    /// Share of the focus's weight the best single passage holds: focus words spread over several
    /// passages, each holding a few, are not an answer ("rustfmt" in one passage, "line width"
    /// in another).
    #[serde(default = "whole")]
    pub passage_share: f32,
    /// Focus words that best passage does not use, heaviest first.
    #[serde(default)]
    pub passage_missing: Vec<String>,
    /// Every focus word with its weight and where it was found: why the check decided as it did.
    #[serde(default)]
    pub words: Vec<FocusWord>,
    /// The best cosine similarity of a candidate sentence (its opening words) to the question,
    /// when the writer re-ranked its sentences by meaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence_similarity: Option<f32>,
    /// The value the question asks for that no passage gives for the thing it names ("a phone
    /// number" of "marina office"): the passages describe the thing, not the value asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_missing: Option<MissingValue>,
}

/// A kind of value the question asks for and the thing it asks it of, as the reader is told.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MissingValue {
    /// What is asked for ("phone number", "price").
    pub asked: String,
    /// The thing's words as the question says them ("marina office").
    pub of: String,
}

/// One focus word of the question, as the check weighed it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FocusWord {
    /// The word (singular, lower-case).
    pub word: String,
    /// Its weight: inverse document frequency, times three for a name.
    pub weight: f32,
    /// Chunks of the corpus that use it.
    pub df: u32,
    /// Whether an evidence passage holds it.
    pub held: bool,
    /// Whether the best single passage holds it.
    pub in_best_passage: bool,
    /// Whether the question writes it as a name (capitalised inside a sentence, in capitals, with
    /// digits, or part of an identifier).
    #[serde(default)]
    pub named: bool,
    /// The passage's word of the same meaning that holds it, when no passage uses the word itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_as: Option<String>,
}

fn whole() -> f32 {
    1.0
}

/// Words of the question's own code (inside backticks), singular and lower-case, and of those the
/// names the snippet declares (`fn parse_all`, `struct Meters`, `let cfg`). A word the prose
/// around the snippets writes as a name too ("the Cranelift backend …
/// `-Zcodegen-backend=cranelift`") is what the question is about, not the asker's code: it is
/// left out of both. Said in plain words ("a marker type … `struct Marker;`") it stays the asker's.
fn code_words(question: &str) -> (HashSet<String>, HashSet<String>) {
    let (mut all, mut declared) = (HashSet::new(), HashSet::new());
    let spans = qa_core::text::code_spans(question);
    let mut prose = String::with_capacity(question.len());
    let mut at = 0;
    for span in &spans {
        prose.push_str(&question[at..span.start]);
        prose.push(' ');
        at = span.end;
    }
    prose.push_str(&question[at..]);
    let said = named_words(&prose);
    for span in spans {
        let ws = normalized_words(&question[span]);
        for (j, w) in ws.iter().enumerate() {
            if said.contains(w) {
                continue;
            }
            all.insert(w.clone());
            let before = |k: usize| j.checked_sub(k).and_then(|i| ws.get(i)).map(String::as_str);
            if before(1).is_some_and(|a| qa_core::text::DECLARING_KEYWORDS.contains(&a)) || (before(2) == Some("let") && before(1) == Some("mut")) {
                declared.insert(w.clone());
            }
        }
    }
    (all, declared)
}

/// The coverage of the question's focus by the evidence passages, together and one by one.
pub fn coverage(question: &str, stats: &TermStats, evidence: &[&str]) -> FocusCoverage {
    coverage_with(question, stats, evidence, None)
}

/// What holding a word by its meaning needs: which words are general language, and vectors that
/// place words of one meaning close together (the embedding model's).
pub trait WordMeaning {
    /// Whether the word (lower-case) is a word of general language: the model's tokenizer holds
    /// it whole ("fee" and "bail" are; "cbindgen" and even "hosepipe" are not).
    fn is_common_word(&self, word: &str) -> bool;
    /// Unit vectors of the words, in order (None: the model failed).
    fn vectors(&self, words: &[&str]) -> Option<Vec<Vec<f32>>>;
}

/// How close (cosine of the words' vectors) a passage's word must be to a focus word to hold it
/// by meaning ("cost" by "fee", "pile" by "heap").
pub const MEANING_MIN_COSINE: f32 = 0.7;

/// Words of a passage compared with the focus words by meaning: at most this many per passage.
const MEANING_WORDS_PER_PASSAGE: usize = 400;

/// The coverage as [`coverage`] reads it, and then, with `meaning`, a plain focus word of general
/// language that a passage does not use counts as held by that passage when the passage uses a
/// word of the same meaning. The asker's words are often not the corpus's ("cost" where the
/// handbook says "fee"): the lexical check alone refuses such questions. Names never count by
/// meaning, only by their spelling: "Tokio" is not held by a passage about an "async runtime".
pub fn coverage_with(question: &str, stats: &TermStats, evidence: &[&str], meaning: Option<&dyn WordMeaning>) -> FocusCoverage {
    let focus = focus_words(question);
    let named = named_words(question);
    let value_missing = missing_value(question, evidence);
    if focus.is_empty() {
        return FocusCoverage { share: 1.0, passage_share: 1.0, value_missing, ..Default::default() };
    }
    let (code, declared) = code_words(question);
    // Each focus word with its weight.
    let mut weighted: Vec<(String, f32)> = Vec::new();
    for w in &focus {
        // A name of the asker's own code that no passage uses (`parse_all`, `Meters`) is theirs,
        // not the corpus's: it weighs as a plain word, and a name the snippet declares not at all.
        let own_name = code.contains(w) && stats.df(w) == 0;
        if own_name && declared.contains(w) {
            continue;
        }
        weighted.push((w.clone(), stats.weight(w) * if named.contains(w) && !own_name { NAME_WEIGHT } else { 1.0 }));
    }
    let mut passages: Vec<PassageWords> = evidence.iter().map(|t| PassageWords::of(t)).collect();
    if let Some(m) = meaning {
        let plain: Vec<&str> = weighted.iter().map(|(w, _)| w.as_str()).filter(|w| !named.contains(*w) && !code.contains(*w)).collect();
        hold_by_meaning(&mut passages, &plain, m);
    }
    let all = PassageWords::union(&passages);
    let (share, missing) = all.holds(&weighted);
    let (passage_share, passage_missing) = passages.iter().map(|p| p.holds(&weighted)).max_by(|a, b| a.0.total_cmp(&b.0)).unwrap_or((0.0, Vec::new()));
    let absent_from_corpus = missing.iter().filter(|w| stats.df(w) == 0 && !all.meant.contains_key(*w)).cloned().collect();
    let words = weighted
        .iter()
        .map(|(w, weight)| FocusWord {
            word: w.clone(),
            weight: *weight,
            df: stats.df(w),
            held: !missing.contains(w),
            in_best_passage: !passage_missing.contains(w),
            named: named.contains(w),
            held_as: if passages.iter().any(|p| p.uses(w)) { None } else { all.meant.get(w).cloned() },
        })
        .collect();
    FocusCoverage { share, missing, absent_from_corpus, passage_share, passage_missing, words, sentence_similarity: None, value_missing }
}

/// The value the question asks for, when the passages name its thing but give no such value
/// beside it ([`super::asked`]).
fn missing_value(question: &str, evidence: &[&str]) -> Option<MissingValue> {
    let asked = super::asked::asked_value(question)?;
    let passages: Vec<Vec<&str>> = evidence.iter().map(|t| qa_core::text::split_sentences(t).into_iter().map(|(a, b)| &t[a..b]).collect()).collect();
    (super::asked::value_missing(&asked, question, &passages) == Some(true)).then(|| MissingValue { asked: asked.kind.described().to_string(), of: asked.said.clone() })
}

/// The answer's note when words of the question were held only by meaning: the reader sees how
/// the question was read ("cost" as "fee") and can judge it.
pub fn read_by_meaning(f: &FocusCoverage) -> Option<String> {
    let read: Vec<String> = f.words.iter().filter_map(|w| w.held_as.as_ref().map(|by| format!("\"{}\" as \"{by}\"", w.word))).collect();
    (!read.is_empty()).then(|| format!("the documents do not use every word of the question; read {}.", read.join(", ")))
}

/// Mark, in each passage, the focus words it does not use but holds by a word of the same
/// meaning. Only words of general language on both sides are compared: the vectors of coined
/// words and fragments of code say little about their meaning.
fn hold_by_meaning(passages: &mut [PassageWords], focus: &[&str], m: &dyn WordMeaning) {
    let open: Vec<&str> = focus.iter().copied().filter(|w| w.len() >= 3 && m.is_common_word(w) && passages.iter().any(|p| !p.uses(w))).collect();
    if open.is_empty() {
        return;
    }
    let mut vocab: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for w in &open {
        index.entry(w).or_insert_with(|| {
            vocab.push(w);
            vocab.len() - 1
        });
    }
    let mut per_passage: Vec<Vec<usize>> = Vec::new();
    for p in passages.iter() {
        let mut mine: Vec<usize> = Vec::new();
        let mut words: Vec<&str> = p.words.iter().map(String::as_str).filter(|w| w.len() >= 3 && w.chars().all(char::is_alphabetic) && !qa_core::text::is_stop(w)).collect();
        // Sorted for a deterministic choice when the cap binds (a chunk of 256 tokens holds far
        // fewer distinct words; the questions of the benchmark sets embed 160–200 words each).
        words.sort_unstable();
        for w in words {
            if mine.len() >= MEANING_WORDS_PER_PASSAGE {
                break;
            }
            if !m.is_common_word(w) {
                continue;
            }
            let at = *index.entry(w).or_insert_with(|| {
                vocab.push(w);
                vocab.len() - 1
            });
            mine.push(at);
        }
        per_passage.push(mine);
    }
    let Some(vectors) = m.vectors(&vocab) else { return };
    let cos = |a: usize, b: usize| vectors[a].iter().zip(&vectors[b]).map(|(x, y)| x * y).sum::<f32>();
    let mut found: Vec<Vec<(String, String)>> = vec![Vec::new(); passages.len()];
    for (pi, p) in passages.iter().enumerate() {
        for w in &open {
            if p.uses(w) {
                continue;
            }
            let wi = index[w];
            let best = per_passage[pi].iter().filter(|&&o| o != wi).map(|&o| (cos(wi, o), o)).max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((_, o)) = best.filter(|(c, _)| *c >= MEANING_MIN_COSINE) {
                found[pi].push((w.to_string(), vocab[o].to_string()));
            }
        }
    }
    for (p, f) in passages.iter_mut().zip(found) {
        p.meant.extend(f);
    }
}

/// The words of a passage and their families.
#[derive(Default)]
struct PassageWords {
    words: HashSet<String>,
    families: HashSet<String>,
    /// Focus words the passage holds by a word of the same meaning, with that word.
    meant: HashMap<String, String>,
}

impl PassageWords {
    fn of(text: &str) -> PassageWords {
        let mut p = PassageWords::default();
        for w in normalized_words(text) {
            p.families.insert(word_family(&w));
            p.words.insert(w);
        }
        p
    }

    fn union(passages: &[PassageWords]) -> PassageWords {
        let mut all = PassageWords::default();
        for p in passages {
            all.words.extend(p.words.iter().cloned());
            all.families.extend(p.families.iter().cloned());
            for (w, by) in &p.meant {
                all.meant.entry(w.clone()).or_insert_with(|| by.clone());
            }
        }
        all
    }

    /// Whether the passage uses the word, a word of its family or of its stem. A word of the same
    /// family counts ("compiles" for "compiler"), for words long enough that families do not
    /// collide. An identifier (`holiday_c`, `max_retries`) counts only as spelled: it names one
    /// key or item, and a passage about holidays does not hold `schedule.holiday_c`.
    fn uses(&self, w: &str) -> bool {
        self.words.contains(w) || (w.len() >= 5 && !w.contains('_') && (self.families.contains(&word_family(w)) || self.words.iter().any(|e| same_stem(w, e))))
    }

    /// The share of the focus's weight these words hold (used, or held by meaning), and the
    /// focus words they lack, heaviest first.
    fn holds(&self, weighted: &[(String, f32)]) -> (f32, Vec<String>) {
        let (mut total, mut held) = (0.0f32, 0.0f32);
        let mut missing: Vec<(f32, &String)> = Vec::new();
        for (w, weight) in weighted {
            total += weight;
            if self.uses(w) || self.meant.contains_key(w) {
                held += weight;
            } else {
                missing.push((*weight, w));
            }
        }
        missing.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        (if total > 0.0 { held / total } else { 1.0 }, missing.into_iter().map(|(_, w)| w.clone()).collect())
    }
}

/// Two words of one stem: a shared beginning of at least five letters that covers three quarters
/// of the shorter word ("consumption" and "consume", "individually" and "individual"; not
/// "transport" and "transform").
fn same_stem(a: &str, b: &str) -> bool {
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    shared >= 5 && shared * 4 >= shorter * 3
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::chunk::ChunkMeta;

    fn chunk(id: &str, text: &str) -> Chunk {
        Chunk {
            id: id.into(),
            source_file: format!("{id}.md"),
            content: text.into(),
            metadata: ChunkMeta { heading_path: vec![], image_ids: vec![], char_start: 0, char_end: 0, token_count: 0, content_sha256: String::new() },
        }
    }

    #[test]
    fn the_best_single_passage_is_measured_too() {
        let chunks = [
            chunk("a", "Run rustfmt before every commit."),
            chunk("b", "The maximum width of a line in the terminal output is configurable."),
            chunk("c", "Ownership moves values."),
        ];
        let s = TermStats::build(&chunks);
        let c = coverage("What maximum line width does rustfmt use?", &s, &[&chunks[0].content, &chunks[1].content]);
        assert!(c.share > 0.9, "together the passages hold every word: {c:?}");
        assert!((c.passage_share - 0.75).abs() < 1e-6 && c.passage_missing == ["rustfmt"], "no passage holds them all: {c:?}");
        let one = coverage("What maximum line width does rustfmt use?", &s, &[&chunks[1].content]);
        assert!((one.passage_share - one.share).abs() < 1e-6);
    }

    #[test]
    fn rare_words_weigh_more_and_unseen_words_most() {
        let chunks = [chunk("a", "The compiler checks ownership."), chunk("b", "The compiler prints hello world."), chunk("c", "Ownership moves values.")];
        let s = TermStats::build(&chunks);
        assert!(s.weight("compiler") < s.weight("hello"));
        assert!(s.weight("hello") < s.weight("fifa"));
        assert_eq!(s.df("ownership"), 2);
    }

    #[test]
    fn a_passage_that_shares_one_common_word_does_not_cover_the_focus() {
        let chunks = [
            chunk("a", "Hello, world! is the first program in this book."),
            chunk("b", "The world of ownership: every value has an owner."),
            chunk("c", "When a variable goes out of scope, Rust calls drop."),
        ];
        let s = TermStats::build(&chunks);
        let c = coverage("Who won the 2018 FIFA World Cup final?", &s, &[&chunks[0].content]);
        assert!(c.share < 0.3, "{c:?}");
        assert!(c.absent_from_corpus.contains(&"fifa".to_string()), "{c:?}");
        let c = coverage("What happens when a variable goes out of scope?", &s, &[&chunks[2].content]);
        assert!(c.share > 0.9, "{c:?}");
        assert!(c.missing.is_empty(), "{c:?}");
    }

    #[test]
    fn names_are_capitalised_coded_or_identifiers() {
        let n = named_words("How do I define an HTTP route in the Rocket web framework?");
        assert!(n.contains("rocket") && n.contains("http") && !n.contains("route"), "{n:?}");
        let n = named_words("How do I set max_width in rustfmt.toml? Which CO2 sensor does PyO3 use?");
        for w in ["max_width", "rustfmt", "toml", "co2", "pyo3"] {
            assert!(n.contains(w), "{w}: {n:?}");
        }
        assert!(!n.contains("which"), "a sentence's first word is not a name: {n:?}");
    }

    #[test]
    fn words_of_one_stem_cover_each_other() {
        assert!(same_stem("consumption", "consume") && same_stem("individually", "individual"));
        assert!(!same_stem("transport", "transform") && !same_stem("general", "generic") && !same_stem("cat", "cattle"));
    }

    #[test]
    fn the_asker_s_own_code_names_are_not_the_corpus_s_focus() {
        let (all, declared) = code_words("Why is `fn parse_all(s: &str) -> Vec<_>` rejected? I have `struct Meters(f64);` and `let mut cfg = load();`");
        for w in ["parse_all", "meter", "cfg"] {
            assert!(declared.contains(w), "{w}: {declared:?}");
        }
        assert!(all.contains("vec") && all.contains("load") && !declared.contains("load") && !all.contains("rejected"), "{all:?}");
        let (all, _) = code_words("Why does ` appear before fn parse_all here?");
        assert!(all.is_empty(), "an unclosed backtick opens no span: {all:?}");
        let chunks = [
            chunk("a", "A function's return type must be spelled out: the placeholder `_` is not allowed in a signature."),
            chunk("b", "Type inference fills in the element type of a Vec from its use."),
        ];
        let s = TermStats::build(&chunks);
        // `parse_all` is declared by the asker: it is neither focus nor missing.
        let c = coverage("Why is `fn parse_all(s: &str) -> Vec<_>` rejected as a return type?", &s, &[&chunks[0].content]);
        assert!(!c.missing.contains(&"parse_all".to_string()), "{c:?}");
        // A crate the corpus never names still counts as missing (the question may be off-topic),
        // only no longer as a name weighing three times a word.
        let own = coverage("Does `tokio::spawn` need a return type?", &s, &[&chunks[0].content]);
        let said = coverage("Does Tokio spawn need a return type?", &s, &[&chunks[0].content]);
        assert!(own.missing.contains(&"tokio".to_string()) && said.missing.contains(&"tokio".to_string()));
        assert!(own.share > said.share, "{own:?} {said:?}");
    }

    #[test]
    fn contractions_are_function_words_not_the_focus() {
        let f = focus_words("I've used `addr_of!` but it doesn't compile; we'd like Rust's own syntax. Isn't there one?");
        for w in ["ve", "doesn", "isn", "d"] {
            assert!(!f.contains(&w.to_string()), "{w}: {f:?}");
        }
        assert!(f.contains(&"rust".to_string()) && f.contains(&"syntax".to_string()), "a possessive keeps its owner: {f:?}");
        assert!(!named_words("To do it I've been using a macro.").contains("ve"));
    }

    #[test]
    fn asking_words_are_not_the_focus() {
        assert_eq!(focus_words("How do I use the borrow checker?"), ["borrow", "checker"]);
        // In any of their forms: "wants", "came", "seems" shape the question as "want" does.
        assert_eq!(focus_words("Our team wants the replica that came back to catch up. It seems slow."), ["team", "replica", "catch", "slow"]);
        assert!(coverage("How do I?", &TermStats::default(), &[]).share == 1.0);
    }

    #[test]
    fn a_word_the_prose_says_too_is_not_the_asker_s_own_code() {
        let (all, _) = code_words("How do I use the Cranelift backend with `-Zcodegen-backend=cranelift` on `my_crate`?");
        assert!(!all.contains("cranelift"), "the prose names it: {all:?}");
        assert!(all.contains("my_crate"), "{all:?}");
        let (_, declared) = code_words("For a marker type, should I write `struct Marker {}` or `struct Marker;`?");
        assert!(declared.contains("marker"), "said in plain words, the declared name stays the asker's: {declared:?}");
        let chunks = [chunk("a", "Codegen backends are chosen with a flag."), chunk("b", "Other text.")];
        let s = TermStats::build(&chunks);
        let c = coverage("How do I use the Cranelift backend with `-Zcodegen-backend=cranelift`?", &s, &[&chunks[0].content]);
        let cl = c.words.iter().find(|w| w.word == "cranelift").expect("cranelift is a focus word");
        assert!(cl.named && (cl.weight - NAME_WEIGHT * s.weight("cranelift")).abs() < 1e-6, "{cl:?}");
    }

    /// Words with vectors of their own: two words share a meaning when they share a vector.
    struct Meanings(&'static [(&'static str, usize)]);
    impl WordMeaning for Meanings {
        fn is_common_word(&self, word: &str) -> bool {
            self.0.iter().any(|(w, _)| *w == word)
        }
        fn vectors(&self, words: &[&str]) -> Option<Vec<Vec<f32>>> {
            let axis = |w: &str| self.0.iter().find(|(x, _)| *x == w).map(|(_, a)| *a).unwrap_or(7);
            Some(words.iter().map(|w| (0..8).map(|i| if i == axis(w) { 1.0 } else { 0.0 }).collect()).collect())
        }
    }

    #[test]
    fn a_word_is_held_by_a_passage_word_of_the_same_meaning_but_a_name_is_not() {
        let chunks = [
            chunk("a", "Each plot has a tap and pays a yearly fee; rockets of water from the trough are not allowed."),
            chunk("b", "The shed opens at nine."),
        ];
        let s = TermStats::build(&chunks);
        let m = Meanings(&[("cost", 0), ("fee", 0), ("rocket", 1), ("plot", 2), ("tap", 3), ("water", 4), ("trough", 5), ("shed", 6)]);
        let q = "What does a plot cost?";
        let words_only = coverage(q, &s, &[&chunks[0].content]);
        assert!(words_only.missing.contains(&"cost".to_string()), "{words_only:?}");
        let read = coverage_with(q, &s, &[&chunks[0].content], Some(&m));
        let hp = read.words.iter().find(|w| w.word == "cost").expect("cost is a focus word");
        assert!(hp.held && hp.held_as.as_deref() == Some("fee"), "{hp:?}");
        assert_eq!(read_by_meaning(&read).as_deref(), Some("the documents do not use every word of the question; read \"cost\" as \"fee\"."));
        assert_eq!(read_by_meaning(&words_only), None);
        assert!(read.share > words_only.share && read.missing.is_empty() && read.absent_from_corpus.is_empty(), "{read:?}");
        // A name is matched by its spelling only.
        let named = coverage_with("Does the Rocket framework run here?", &s, &[&chunks[0].content], Some(&m));
        assert!(named.words.iter().any(|w| w.word == "rocket" && w.named && w.held), "spelled alike (rockets), the name is held by its family: {named:?}");
        let other = coverage_with("What does the shed cost?", &s, &[&chunks[1].content], Some(&m));
        assert!(other.missing.contains(&"cost".to_string()), "a passage without a word of that meaning does not hold it: {other:?}");
    }
}
