//! Answers. [`synthesize`] is the extractive synthesizer (no LLM, and the fallback whenever the
//! LLM fails): the retrieved sentences most relevant to the question, each citing its chunk, plus
//! the graph facts. [`llm`] builds the LLM's prompt and cleans its answer; [`grounding`] checks
//! that answer against the evidence. Both end with the `Chunks used` and `Image paths` blocks,
//! built only from evidence that was actually retrieved.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use qa_core::text::split_sentences;
use qa_core::chunk::Chunk;
use qa_core::text::query_terms;
use qa_graph::evidence::{GraphEvidence, GraphFact, ImageHit};
use qa_core::text::singular;

mod asked;
pub mod focus;
pub mod grounding;
mod intent;
pub mod llm;
pub mod writer;

/// Cosine similarity of each of several texts to the question, or `None` when embedding fails.
pub type SimilarityFn<'a> = &'a dyn Fn(&[&str]) -> Option<Vec<f32>>;

/// A sentence of an answer with the chunk it cites.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CitedSentence {
    /// The sentence, without its citation.
    pub text: String,
    /// The cited chunk (its first citation for an LLM sentence; empty when it cites none).
    pub chunk_id: String,
    /// The cited chunk's source file (empty when it cites none).
    pub source_file: String,
    /// Relevance score (extractive) or grounding support score (LLM).
    pub score: f32,
}

/// A chunk an answer used, as listed in its `Chunks used` block.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ChunkRef {
    /// The chunk's id.
    pub chunk_id: String,
    /// The file the chunk comes from.
    pub source_file: String,
}

/// An answer: its sentences and the evidence behind them, and the printable text.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Answer {
    /// False when nothing relevant was found (the text then says so).
    pub found: bool,
    /// `extractive` or `llm`.
    #[serde(default)]
    pub synthesizer: String,
    /// The answer's sentences, in order.
    pub sentences: Vec<CitedSentence>,
    /// Graph facts shown with the answer, citing only chunks that were retrieved.
    pub graph_facts: Vec<GraphFact>,
    /// The chunks cited by the sentences and the facts, in order of first citation.
    pub chunks_used: Vec<ChunkRef>,
    /// The images shown with the answer.
    pub image_paths: Vec<ImageHit>,
    /// The full printable answer, blocks included.
    pub text: String,
    /// How much of the question's focus the evidence held (`None`: not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<focus::FocusCoverage>,
}

/// A chunk the answer may draw from, with how strongly retrieval or the graph supports it.
#[derive(Clone, Copy)]
pub struct Candidate<'a> {
    /// The chunk.
    pub chunk: &'a Chunk,
    /// Support strength: the dense similarity for a retrieved chunk, a lower share of the best one
    /// for a graph-found chunk.
    pub score: f32,
    /// Found through graph evidence (co-mention, mentioning document, image document).
    pub from_graph: bool,
    /// Position in the retrieval's selection (0 = best); graph-evidence chunks come after.
    pub rank: usize,
}

/// What the extractive synthesizer answers from.
pub struct SynthesisInput<'a> {
    /// The user's question.
    pub question: &'a str,
    /// The chunks the answer may draw from: the retrieval's selection, then graph-found chunks.
    pub candidates: Vec<Candidate<'a>>,
    /// The graph evidence: grounded concepts, facts and images.
    pub graph: &'a GraphEvidence,
    /// Best dense-retrieval similarity.
    pub best_score: f32,
    /// `best_score` below this (and no concept grounded exactly) means nothing relevant was found.
    pub relevance_threshold: f32,
    /// How much of the question's focus the candidates hold (`None`: not checked).
    pub focus: Option<focus::FocusCoverage>,
    /// The evidence score ([`SynthesisInput::evidence`]) below which the documents do not answer
    /// the question.
    pub evidence_threshold: f32,
    /// Sentences in the answer at most.
    pub max_sentences: usize,
    /// Every image of the corpus by id (to show figures of quoted chunks).
    pub images: &'a std::collections::BTreeMap<String, qa_index::corpus::ImageRef>,
    /// Names of the entities that link the selected passages to each other (the bridge of a
    /// two-hop question: "Tamsin Veller", named in the orchestra's page and the title of her
    /// own). A sentence naming one carries the answer's second step even without a question word.
    pub bridge_terms: &'a [String],
    /// Cosine similarity of each sentence to the question (the embedding model), used to re-rank
    /// the best lexical candidates; `None` keeps the lexical order.
    pub similarity: Option<SimilarityFn<'a>>,
    /// The question's parts when retrieval split it ("What is A, and how does B work?" → "What is
    /// A?", "How does B work?"): each part's best sentence comes right after the best one.
    pub parts: &'a [String],
}

/// Weight of the focus share the passages hold together in the evidence score.
const SHARE_EVIDENCE: f32 = 0.2;
/// Weight of the focus share the best single passage holds in the evidence score.
const PASSAGE_SHARE_EVIDENCE: f32 = 0.15;
/// A focus share this high, together and in one passage, is a complete answer by its words.
const COMPLETE_SHARE: f32 = 0.95;
/// Below this share together, a refusal names the words the passages lack; above it, that the
/// words are spread over passages (or that no passage is close to what is asked).
const SPREAD_SHARE: f32 = 0.6;

/// Score added to a sentence that delivers what the question asks for (and taken from one that
/// points elsewhere).
const INTENT_BONUS: f32 = 0.25;
/// Characters of the nearest sentence a refusal quotes as a pointer.
const NEAREST_CHARS: usize = 200;
/// How far below the evidence threshold a refusal still quotes its nearest sentence.
const NEAREST_MARGIN: f32 = 0.15;
/// Lexical candidates re-ranked by semantic similarity.
const RERANK_POOL: usize = 8;
/// Words of each candidate the similarity sees (the opening of a sentence carries its point).
const RERANK_WORDS: usize = 48;

use qa_core::text::normalized_words as words;

/// Sentences of a chunk, skipping headings and code (they read badly as answer sentences).
fn sentences(content: &str) -> Vec<String> {
    let mut out = Vec::new();
    for block in content.split("\n\n") {
        let b = block.trim();
        let looks_like_code = b.contains('\n') && (b.contains('{') || b.contains(';') || b.contains("  ")) || b.starts_with("```");
        // Headings are their own blocks and carry no sentence punctuation.
        let looks_like_heading = !b.ends_with(['.', '!', '?', ':', ')', '|']) && b.split_whitespace().count() <= 14;
        if b.is_empty() || looks_like_code || looks_like_heading {
            continue;
        }
        for (s, e) in split_sentences(b) {
            let sent = b[s..e].trim();
            // A table row or a line that introduces a list reads as a fragment on its own.
            let table_row = sent.matches('|').count() >= 2;
            if sent.split_whitespace().count() >= 4 && !table_row && !sent.ends_with(':') {
                out.push(sent.to_string());
            }
        }
    }
    out
}

/// Every content word of the sentence is one of the question's: it restates the question.
fn restates(sentence_words: &[String], question: &BTreeSet<&str>) -> bool {
    let content: Vec<&String> = sentence_words.iter().filter(|w| !qa_core::text::is_stop(w) && w.chars().any(char::is_alphabetic)).collect();
    !content.is_empty() && content.iter().all(|w| question.contains(w.as_str()))
}

/// Two sentences whose content words overlap by 70% or more (Jaccard).
fn near_duplicate(a: &str, b: &str) -> bool {
    let set = |t: &str| -> BTreeSet<String> { words(t).into_iter().filter(|w| !qa_core::text::is_stop(w)).collect() };
    let (x, y) = (set(a), set(b));
    let inter = x.intersection(&y).count();
    let union = x.union(&y).count();
    union > 0 && inter * 10 >= union * 7
}

/// The sentence names a concept and then says what it is ("X is", "the X are", "an X means"). The
/// concept must open its noun phrase: in "the water-based dew point is …" the subject is another
/// thing.
fn defines_a_concept(sentence: &[String], concepts: &[Vec<String>]) -> bool {
    concepts.iter().filter(|c| !c.is_empty()).any(|c| {
        (0..sentence.len().saturating_sub(c.len())).any(|i| {
            let opens = i == 0 || matches!(sentence[i - 1].as_str(), "the" | "a" | "an");
            opens
                && sentence[i..i + c.len()] == c[..]
                && matches!(sentence[i + c.len()].as_str(), "is" | "are" | "mean" | "means" | "refer" | "refers")
        })
    })
}

/// The sentence has one of `side`'s words.
fn names_any(sentence: &[String], side: &[String]) -> bool {
    side.iter().any(|w| sentence.contains(w))
}

/// What the sentence scoring compares each sentence with, derived from the question once.
struct QuestionTerms {
    /// The question's query terms, singular.
    terms: Vec<String>,
    /// Every word of the question (a sentence made only of these restates it).
    all_words: Vec<String>,
    /// The bridge entities' names, as words.
    bridge_words: Vec<Vec<String>>,
    /// The names of the (at most three) confidently grounded concepts, as words.
    concept_names: Vec<Vec<String>>,
    /// What kind of answer the question asks for (a reason, a number, a step …).
    intent: intent::Intent,
    /// The content words of the two things a relation question relates.
    sides: Option<(Vec<String>, Vec<String>)>,
}

impl QuestionTerms {
    fn of(input: &SynthesisInput) -> QuestionTerms {
        Self::of_text(input, input.question)
    }

    /// The terms of `text` (the question or one of its parts).
    fn of_text(input: &SynthesisInput, text: &str) -> QuestionTerms {
        let concept_names: Vec<Vec<String>> = input
            .graph
            .grounded
            .iter()
            // Only confidently grounded concepts (as for relational graph evidence): a partial text
            // match on one common word ("point" → "frost point") is no reason to prefer a sentence.
            .filter(|g| g.method == "exact" || g.score >= 0.75)
            .take(3)
            .map(|g| words(&g.id))
            .collect();
        QuestionTerms {
            terms: query_terms(text).iter().map(|w| singular(w)).collect(),
            all_words: words(text),
            bridge_words: input.bridge_terms.iter().map(|t| words(t)).collect(),
            concept_names,
            intent: intent::intent(text),
            sides: intent::relation_sides(text),
        }
    }
}

/// The extractive answer: the candidates' sentences scored against the question (word overlap,
/// grounded concepts and bridge entities named, retrieval rank), the best few re-ranked by
/// similarity, the chain of a two-hop answer kept, each sentence citing its chunk; then the graph
/// facts and the evidence blocks. "Not found" when retrieval was too weak or no sentence matched.
pub fn synthesize(mut input: SynthesisInput) -> Answer {
    let terms = QuestionTerms::of(&input);
    let scored = score_sentences(&input.candidates, &terms);
    let chain = bridge_chain(&scored, &terms.bridge_words);
    let mut pool = distinct_best(scored, RERANK_POOL.max(input.max_sentences));
    if let Some(sim) = input.similarity {
        let best = rerank(&mut pool, sim);
        if let Some(f) = input.focus.as_mut() {
            f.sentence_similarity = best;
        }
    }
    // The best sentence, then the chain, then the rest of the pool.
    let mut picked: Vec<CitedSentence> = pool.iter().take(1).cloned().collect();
    let fresh = |picked: &[CitedSentence], c: &CitedSentence| !picked.iter().any(|p| p.text == c.text || near_duplicate(&p.text, &c.text));
    // Each part's best sentence (scored against the part alone, with the part's own intent).
    let part_best: Vec<CitedSentence> = input.parts.iter().filter_map(|p| score_sentences(&input.candidates, &QuestionTerms::of_text(&input, p)).into_iter().next()).collect();
    for c in chain.into_iter().chain(part_best) {
        if picked.len() < input.max_sentences && fresh(&picked, &c) {
            picked.push(c);
        }
    }
    for c in pool.into_iter().skip(1) {
        if picked.len() < input.max_sentences && fresh(&picked, &c) {
            picked.push(c);
        }
    }
    let grounded_lexically = input.graph.grounded.iter().any(|g| g.method == "exact");
    let relevant = input.best_score >= input.relevance_threshold || grounded_lexically;
    if !relevant || picked.is_empty() {
        let text = "I could not find anything relevant to this question in the indexed documents.\n\
                    (No retrieved passage matched the question well enough; try rephrasing, or index more documents.)"
            .to_string();
        return Answer { found: false, synthesizer: "extractive".into(), sentences: vec![], graph_facts: vec![], chunks_used: vec![], image_paths: vec![], text, focus: input.focus.clone() };
    }
    if let Some(f) = input.focus.as_ref().filter(|f| input.unanswered(f)) {
        return not_answered(&input, f, picked.first());
    }
    let mut answer = extractive_answer(&input, picked);
    answer.focus = input.focus.clone();
    answer
}

/// The evidence score of passages whose best similarity to the question is `best_score`
/// ([`SynthesisInput::evidence`]).
pub(crate) fn evidence_score(best_score: f32, f: &focus::FocusCoverage) -> f32 {
    best_score + SHARE_EVIDENCE * f.share + PASSAGE_SHARE_EVIDENCE * f.passage_share
}

impl SynthesisInput<'_> {
    /// How strongly the passages bear on the question: the best passage's cosine similarity to
    /// it, plus a fifth of the focus share the passages hold together and 0.15 of the share the
    /// best single passage holds. Meaning and words vouch for each other: a passage close in
    /// meaning answers a question in the asker's own words ("cost" for "fee"), one that
    /// holds the question's rare words needs less closeness, and one that is neither — words
    /// spread over passages, or a neighbouring topic in the corpus's words — is no answer.
    pub(crate) fn evidence(&self, f: &focus::FocusCoverage) -> f32 {
        evidence_score(self.best_score, f)
    }

    /// Whether the evidence leaves the question unanswered: its score is below the threshold,
    /// and no single passage holds (nearly) every focus word — a passage that does is an answer
    /// however short the question and its similarity ("What is the Schottky diode for?").
    pub(crate) fn unanswered(&self, f: &focus::FocusCoverage) -> bool {
        let complete = f.share >= COMPLETE_SHARE && f.passage_share >= COMPLETE_SHARE;
        // A threshold of 0 turns the whole check off, the value asked for included.
        self.evidence_threshold > 0.0 && (f.value_missing.is_some() || (!complete && self.evidence(f) < self.evidence_threshold))
    }

    /// Whether a refusal is a near miss: the evidence score is within [`NEAREST_MARGIN`] of the
    /// threshold and every name of the question is in the passages. A question naming what the
    /// documents lack ("the 2018 FIFA World Cup") is no near miss; one in the asker's own words
    /// ("horse muck") whose page was found often is — its answer may be there in other words.
    pub(crate) fn near_miss(&self, f: &focus::FocusCoverage) -> bool {
        let names_held = f.words.iter().all(|w| !w.named || w.held);
        // Passages without the value asked for are no near miss, however close: they describe
        // the thing, and a reader (or an LLM) could only guess the value.
        names_held && f.value_missing.is_none() && self.evidence(f) >= self.evidence_threshold - NEAREST_MARGIN
    }
}

/// "The documents do not answer this": what the passages lack, the sentence that came closest
/// and the closest passages, as pointers (not as an answer): a question in the asker's own words
/// is often refused although its page was found, and the reader can judge the sentence.
fn not_answered(input: &SynthesisInput, f: &focus::FocusCoverage, nearest: Option<&CitedSentence>) -> Answer {
    let quote = |ws: &[String]| ws.iter().take(4).map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ");
    let why = if let Some(v) = &f.value_missing {
        format!("the closest passages mention \"{}\" but give no {} for it", v.of, v.asked)
    } else if !f.absent_from_corpus.is_empty() {
        format!("no indexed document mentions {}", quote(&f.absent_from_corpus))
    } else if !f.missing.is_empty() && f.share < SPREAD_SHARE {
        format!("the closest passages do not mention {}", quote(&f.missing))
    } else if !f.passage_missing.is_empty() {
        format!("its words are spread over passages that each cover only part of it (the closest does not mention {})", quote(&f.passage_missing))
    } else {
        format!("the passages use its words, but none is close to what it asks (best similarity {:.2})", input.best_score)
    };
    let mut text = format!("The indexed documents do not seem to answer this question: {why}.\n");
    if let Some(s) = nearest.filter(|_| input.near_miss(f)) {
        text.push_str(&format!("The nearest sentence, which may not answer it: \"{}\" [{}]\n", qa_core::text::truncate(&s.text, NEAREST_CHARS), s.chunk_id));
    }
    text.push_str(&closest_passages(&input.candidates));
    Answer { found: false, synthesizer: "extractive".into(), sentences: vec![], graph_facts: vec![], chunks_used: vec![], image_paths: vec![], text: text.trim_end().to_string(), focus: Some(f.clone()) }
}

/// The closest passages (of three files at most) as pointers: "Closest passages, in case they
/// help:" and a line per passage; empty when retrieval selected none.
fn closest_passages(candidates: &[Candidate]) -> String {
    let mut files: Vec<(&str, &str)> = Vec::new();
    for c in candidates.iter().filter(|c| !c.from_graph) {
        if files.len() < 3 && !files.iter().any(|(_, f)| *f == c.chunk.source_file) {
            files.push((&c.chunk.id, &c.chunk.source_file));
        }
    }
    let mut text = String::new();
    if !files.is_empty() {
        text.push_str("Closest passages, in case they help:\n");
        for (id, file) in files {
            text.push_str(&format!("- {id} ({file})\n"));
        }
    }
    text
}

/// "The documents do not answer this", as an LLM that read the closest passages said it (its
/// sentence quoted), with the passages as pointers: the model's reading of the evidence is the
/// answer's, so no extractive quote stands in for it.
pub(crate) fn declined(candidates: &[Candidate], said: &str, focus: Option<focus::FocusCoverage>) -> Answer {
    let mut text = format!(
        "The indexed documents do not seem to answer this question: the LLM read the closest passages and found no answer in them (\"{}\").\n",
        qa_core::text::truncate(said, NEAREST_CHARS)
    );
    text.push_str(&closest_passages(candidates));
    Answer { found: false, synthesizer: "llm".into(), sentences: vec![], graph_facts: vec![], chunks_used: vec![], image_paths: vec![], text: text.trim_end().to_string(), focus }
}

/// Every sentence of the candidates that names a question term, a grounded concept or a bridge
/// entity (and does more than restate the question), scored, best first.
fn score_sentences(candidates: &[Candidate], terms: &QuestionTerms) -> Vec<CitedSentence> {
    let q_set: BTreeSet<&str> = terms.terms.iter().map(String::as_str).collect();
    let q_all: BTreeSet<&str> = terms.all_words.iter().map(String::as_str).collect();
    let concept_names = &terms.concept_names;
    let mut scored: Vec<CitedSentence> = Vec::new();
    for cand in candidates {
        for (pos, sent) in sentences(&cand.chunk.content).into_iter().enumerate() {
            if intent::is_caption(&sent) {
                continue;
            }
            let sw = words(&sent);
            let sset: BTreeSet<&str> = sw.iter().map(String::as_str).collect();
            // Longer words carry more meaning; each question word counts once.
            let overlap: f32 = q_set.iter().filter(|w| sset.contains(*w)).map(|w| (w.len() as f32).sqrt()).sum();
            let norm: f32 = q_set.iter().map(|w| (w.len() as f32).sqrt()).sum::<f32>().max(1.0);
            // Grounded concepts named in the sentence; a concept inside another matched one
            // ("dew point" in "water-based dew point") is the same mention, counted once.
            let matched: Vec<&Vec<String>> = concept_names.iter().filter(|c| !c.is_empty() && sw.windows(c.len()).any(|w| w == c.as_slice())).collect();
            let concepts_in = matched
                .iter()
                .filter(|c| !matched.iter().any(|o| o.len() > c.len() && o.windows(c.len()).any(|w| w == c.as_slice())))
                .count();
            let bridges_in = terms.bridge_words.iter().filter(|b| !b.is_empty() && sw.windows(b.len()).any(|w| w == b.as_slice())).count();
            if overlap == 0.0 && concepts_in == 0 && bridges_in == 0 {
                continue;
            }
            // A sentence that only says what the question already says answers nothing.
            if restates(&sw, &q_all) {
                continue;
            }
            // Retrieval's order counts too: the selection's first passages were chosen by every
            // lane, later ones by fewer.
            let position = 0.3 / (1.0 + cand.rank as f32);
            let mut score = overlap / norm + 0.25 * (concepts_in + bridges_in) as f32 + 0.5 * cand.score.max(0.0) + position;
            if concepts_in >= 2 {
                score += 0.3; // states how two grounded concepts relate
            }
            if terms.intent == intent::Intent::Definition && defines_a_concept(&sw, concept_names) {
                score += 0.3;
            }
            // A sentence that gives what the question asks for (a reason for "why", a number for
            // "how many") outranks one that only shares its words; one that sends the reader
            // elsewhere says less than one that says the thing.
            if intent::delivers(terms.intent, &sw) {
                score += INTENT_BONUS;
            }
            if intent::points_elsewhere(&sw) || intent::sends_to_see(&sent) {
                score -= INTENT_BONUS;
            }
            // "How does X relate to Y?": a sentence naming both sides states the relation.
            if concepts_in < 2 && terms.sides.as_ref().is_some_and(|(a, b)| names_any(&sw, a) && names_any(&sw, b)) {
                score += 0.3;
            }
            score -= 0.01 * pos as f32; // earlier sentences of a chunk tend to define things
            if sw.len() > 60 {
                score -= 0.1;
            }
            if sent.ends_with(':') {
                score -= 0.2; // introduces a list or table that the answer cannot show
            }
            scored.push(CitedSentence { text: sent, chunk_id: cand.chunk.id.clone(), source_file: cand.chunk.source_file.clone(), score });
        }
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk_id.cmp(&b.chunk_id)));
    scored
}

/// The chain of a two-hop answer: for each bridge entity, the best sentence naming it in each of
/// (at most) two passages — the one that names it in passing and its own page.
fn bridge_chain(scored: &[CitedSentence], bridge_words: &[Vec<String>]) -> Vec<CitedSentence> {
    let mut chain: Vec<CitedSentence> = Vec::new();
    for b in bridge_words.iter().filter(|b| !b.is_empty()) {
        let mut chunks_seen: Vec<&str> = Vec::new();
        for sent in scored {
            if chunks_seen.len() >= 2 || chunks_seen.contains(&sent.chunk_id.as_str()) {
                continue;
            }
            if words(&sent.text).windows(b.len()).any(|w| w == b.as_slice()) {
                chunks_seen.push(&sent.chunk_id);
                if !chain.iter().any(|c| c.text == sent.text) {
                    chain.push(sent.clone());
                }
            }
        }
    }
    chain
}

/// The best `size` sentences that are neither copies (overlapping chunks repeat sentences) nor
/// near-copies of a better one.
fn distinct_best(scored: Vec<CitedSentence>, size: usize) -> Vec<CitedSentence> {
    let mut pool: Vec<CitedSentence> = Vec::new();
    let mut seen = BTreeSet::new();
    for s in scored {
        if pool.len() >= size {
            break;
        }
        let key: String = words(&s.text).join(" ");
        if seen.insert(key) && !pool.iter().any(|p| near_duplicate(&p.text, &s.text)) {
            pool.push(s);
        }
    }
    pool
}

/// Add each sentence's similarity to the question to its score and re-sort. Word overlap finds
/// sentences on the topic; similarity picks the ones that answer it (a sentence that merely
/// repeats the question's words ranks lower). Unchanged when the similarity fails. Returns the
/// best sentence's similarity.
fn rerank(pool: &mut [CitedSentence], sim: SimilarityFn) -> Option<f32> {
    let clipped: Vec<String> = pool.iter().map(|s| s.text.split_whitespace().take(RERANK_WORDS).collect::<Vec<_>>().join(" ")).collect();
    let texts: Vec<&str> = clipped.iter().map(String::as_str).collect();
    let sims = sim(&texts).filter(|v| v.len() == pool.len())?;
    let best = sims.iter().copied().fold(None, |m: Option<f32>, v| Some(m.map_or(v, |m| m.max(v))));
    for (s, v) in pool.iter_mut().zip(sims) {
        s.score += v;
    }
    pool.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk_id.cmp(&b.chunk_id)));
    best
}

/// The found answer: the picked sentences with their citations, the graph facts (citing only
/// chunks that were retrieved or resolved), the chunks used and the images to show.
fn extractive_answer(input: &SynthesisInput, picked: Vec<CitedSentence>) -> Answer {
    let known_chunks: HashMap<&str, &Chunk> = input.candidates.iter().map(|c| (c.chunk.id.as_str(), c.chunk)).collect();
    let facts: Vec<GraphFact> = input
        .graph
        .facts
        .iter()
        .map(|f| GraphFact { chunk_ids: f.chunk_ids.iter().filter(|id| known_chunks.contains_key(id.as_str())).cloned().collect(), ..f.clone() })
        .map(|f| relating_sentence(f, &input.candidates))
        .fold(Vec::new(), |mut out: Vec<GraphFact>, f| {
            // Two facts quoting one sentence for one pair say it once.
            if !out.iter().any(|o| o.subjects == f.subjects && !f.subjects.is_empty() && o.chunk_ids == f.chunk_ids && quoted_sentence(&o.text) == quoted_sentence(&f.text)) {
                out.push(f);
            }
            out
        });
    let mut used: Vec<ChunkRef> = Vec::new();
    let mut add_used = |id: &str, file: &str| {
        if !used.iter().any(|u| u.chunk_id == id) {
            used.push(ChunkRef { chunk_id: id.into(), source_file: file.into() });
        }
    };
    for s in &picked {
        add_used(&s.chunk_id, &s.source_file);
    }
    for f in &facts {
        for id in &f.chunk_ids {
            if let Some(c) = known_chunks.get(id.as_str()) {
                add_used(&c.id, &c.source_file);
            }
        }
    }
    let quoted: BTreeSet<&str> = picked.iter().map(|s| s.chunk_id.as_str()).collect();
    let images = select_images(input.question, input.graph, &input.candidates, &quoted, input.images);
    let mut body = String::new();
    for s in &picked {
        body.push_str(&format!("{} [{}]\n", s.text, s.chunk_id));
    }
    let text = render(&body, &facts, &used, &images);
    Answer { found: true, synthesizer: "extractive".into(), sentences: picked, graph_facts: facts, chunks_used: used, image_paths: images, text, focus: None }
}

/// A relation fact between two concepts, stated by the sentence of the evidence that names both
/// (its own chunks first, then the other candidates): `"deep sleep" and "battery life": "…"`.
/// A caption ("Listing 9-13: A `Guess` type …") labels a listing rather than relating two
/// things, so it states no fact, as it gives no answer sentence. The fact is left as the graph
/// gave it when no candidate sentence names both.
pub(crate) fn relating_sentence(fact: GraphFact, candidates: &[Candidate]) -> GraphFact {
    let [a, b] = fact.subjects.as_slice() else { return fact };
    let (wa, wb) = (words(a), words(b));
    if wa.is_empty() || wb.is_empty() {
        return fact;
    }
    let own = candidates.iter().filter(|c| fact.chunk_ids.contains(&c.chunk.id));
    let others = candidates.iter().filter(|c| !fact.chunk_ids.contains(&c.chunk.id));
    for c in own.chain(others) {
        for sent in sentences(&c.chunk.content).into_iter().filter(|s| !intent::is_caption(s)) {
            let sw = words(&sent);
            if qa_core::text::contains_seq(&sw, &wa) && qa_core::text::contains_seq(&sw, &wb) && sw.len() <= 60 {
                // A typed relation ("BME280 —CONNECTS_TO→ ESP32") keeps its statement; a count of
                // co-occurrences gives way to the sentence.
                let head = match fact.text.split_once(" (stated in") {
                    Some((relation, _)) if fact.kind == "direct_edge" && !fact.text.contains("(co-occur in") => relation.to_string(),
                    _ => format!("{a} and {b}"),
                };
                return GraphFact { text: format!("{head}: \"{sent}\""), chunk_ids: vec![c.chunk.id.clone()], ..fact };
            }
        }
    }
    fact
}

/// The quoted sentence of a fact stated by [`relating_sentence`], if any.
fn quoted_sentence(text: &str) -> Option<&str> {
    text.split_once(": \"").map(|(_, q)| q)
}

/// Images to show: when the question asks for a picture, the graph's images plus figures of the
/// quoted chunks; otherwise only graph images that appear in a chunk the answer quotes.
pub(crate) fn select_images(
    question: &str,
    graph: &GraphEvidence,
    candidates: &[Candidate],
    quoted: &BTreeSet<&str>,
    all_images: &std::collections::BTreeMap<String, qa_index::corpus::ImageRef>,
) -> Vec<ImageHit> {
    let wants_image = qa_graph::evidence::asks_for_image(question);
    let quoted_images: BTreeSet<&str> = candidates
        .iter()
        .filter(|c| quoted.contains(c.chunk.id.as_str()))
        .flat_map(|c| c.chunk.metadata.image_ids.iter().map(String::as_str))
        .collect();
    let mut images: Vec<ImageHit> = graph.images.iter().filter(|i| wants_image || quoted_images.contains(i.id.as_str())).cloned().collect();
    if wants_image {
        for cand in candidates.iter().filter(|c| quoted.contains(c.chunk.id.as_str())) {
            for img in &cand.chunk.metadata.image_ids {
                if !images.iter().any(|i| &i.id == img)
                    && let Some(r) = all_images.get(img)
                {
                    let caption = if r.caption.is_empty() { r.alt.clone() } else { r.caption.clone() };
                    images.push(ImageHit { id: r.id.clone(), source_path: r.source_path.clone(), caption, via: format!("chunk:{}", cand.chunk.id) });
                }
            }
        }
    }
    images
}

/// The printable answer: the body, then the graph facts, `Chunks used` and `Image paths` blocks.
pub(crate) fn render(body: &str, facts: &[GraphFact], used: &[ChunkRef], images: &[ImageHit]) -> String {
    let mut text = body.trim_end().to_string();
    text.push('\n');
    // Rows of the generated Cypher query are shown as returned, apart from the derived facts.
    for (heading, raw) in [("From the knowledge graph:", false), ("Raw graph rows:", true)] {
        let group: Vec<&GraphFact> = facts.iter().filter(|f| (f.kind == "raw_row") == raw).collect();
        if group.is_empty() {
            continue;
        }
        text.push_str(&format!("\n{heading}\n"));
        for f in group {
            let cite = if f.chunk_ids.is_empty() { String::new() } else { format!(" [{}]", f.chunk_ids.join(", ")) };
            text.push_str(&format!("- {}{}\n", f.text, cite));
        }
    }
    text.push_str("\nChunks used:\n");
    for u in used {
        text.push_str(&format!("- {} ({})\n", u.chunk_id, u.source_file));
    }
    if !images.is_empty() {
        text.push_str("\nImage paths:\n");
        for i in images {
            let cap = if i.caption.is_empty() { String::new() } else { format!(" — {}", i.caption) };
            text.push_str(&format!("- {} ({}){cap}\n", i.source_path, i.id));
        }
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::chunk::ChunkMeta;
    use qa_core::evidence::Grounded;

    fn chunk(id: &str, text: &str) -> Chunk {
        Chunk {
            id: id.into(),
            source_file: format!("{id}.md"),
            content: text.into(),
            metadata: ChunkMeta { heading_path: vec![], image_ids: vec![], char_start: 0, char_end: 0, token_count: 0, content_sha256: String::new() },
        }
    }

    /// Synthesize from one retrieved chunk with the given similarity, lexical ranking only.
    fn synthesize_one(question: &str, chunk: &Chunk, score: f32, graph: &GraphEvidence) -> Answer {
        synthesize_focused(question, chunk, score, graph, None)
    }

    /// [`synthesize_one`] with the focus check's result (thresholds 0.6 share, 0.6 similarity).
    fn synthesize_focused(question: &str, chunk: &Chunk, score: f32, graph: &GraphEvidence, focus: Option<focus::FocusCoverage>) -> Answer {
        let images = std::collections::BTreeMap::new();
        synthesize(SynthesisInput {
            question,
            candidates: vec![Candidate { chunk, score, from_graph: false, rank: 0 }],
            graph,
            best_score: score,
            relevance_threshold: 0.25,
            focus,
            evidence_threshold: 0.7,
            max_sentences: 4,
            images: &images,
            bridge_terms: &[],
            similarity: None,
            parts: &[],
        })
    }

    #[test]
    fn a_low_focus_share_refuses_unless_a_passage_is_close_to_the_question() {
        let a = chunk("c_1", "The firmware wakes every five minutes, reads the sensor and publishes the reading over MQTT.");
        let focus = focus::FocusCoverage { share: 0.3, missing: vec!["cycle".into()], absent_from_corpus: vec![], passage_share: 0.3, passage_missing: vec!["cycle".into()], words: vec![], sentence_similarity: None, value_missing: None };
        let answer = |best: f32| synthesize_focused("What does the firmware do in each cycle?", &a, best, &GraphEvidence::default(), Some(focus.clone()));
        let weak = answer(0.45);
        assert!(!weak.found && weak.text.contains("do not seem to answer"), "{}", weak.text);
        let close = answer(0.7);
        assert!(close.found && close.text.contains("wakes every five minutes"), "{}", close.text);
    }

    #[test]
    fn focus_words_spread_over_passages_refuse_unless_a_passage_is_close_to_the_question() {
        let a = chunk("c_1", "The firmware wakes every five minutes, reads the sensor and publishes the reading over MQTT.");
        // Together the passages hold the focus; the best single passage holds a third of it.
        let focus = focus::FocusCoverage { share: 0.9, missing: vec![], absent_from_corpus: vec![], passage_share: 0.35, passage_missing: vec!["broker".into()], words: vec![], sentence_similarity: None, value_missing: None };
        let answer = |best: f32| synthesize_focused("How long does the MQTT broker keep a reading?", &a, best, &GraphEvidence::default(), Some(focus.clone()));
        let weak = answer(0.4);
        assert!(!weak.found && weak.text.contains("spread over passages") && weak.text.contains("\"broker\""), "{}", weak.text);
        assert!(answer(0.5).found, "a passage this close answers it");
        let held = focus::FocusCoverage { passage_share: 1.0, passage_missing: vec![], ..focus.clone() };
        assert!(synthesize_focused("How long does the MQTT broker keep a reading?", &a, 0.4, &GraphEvidence::default(), Some(held)).found, "one passage holds the whole focus");
    }

    #[test]
    fn a_passage_holding_every_focus_word_answers_however_short_the_question() {
        let a = chunk("c_1", "The Schottky diode in the charging circuit keeps the battery from draining into the panel at night.");
        let complete = focus::FocusCoverage { share: 1.0, passage_share: 1.0, ..Default::default() };
        let answer = synthesize_focused("What is the Schottky diode for?", &a, 0.34, &GraphEvidence::default(), Some(complete));
        assert!(answer.found && answer.text.contains("draining"), "{}", answer.text);
        // The same words spread a little (nine tenths together and alone), at that distance in
        // meaning, are no answer: the refusal says no passage is close to what is asked.
        let near = focus::FocusCoverage { share: 0.9, passage_share: 0.9, ..Default::default() };
        let refused = synthesize_focused("What is the Schottky diode for?", &a, 0.3, &GraphEvidence::default(), Some(near));
        assert!(!refused.found && refused.text.contains("none is close to what it asks"), "{}", refused.text);
    }

    #[test]
    fn passages_about_the_thing_without_the_value_asked_do_not_answer() {
        // Close in meaning and holding every word, but no phone number beside the office: a
        // quoted sentence about the office would be a confident wrong answer.
        let office = chunk("c_1", "The marina office is the single-storey building beside the main gate. The office handles bookings, keys and post.");
        let question = "What's the phone number for the marina office?";
        let focus = focus::coverage(question, &focus::TermStats::build(std::slice::from_ref(&office)), &[office.content.as_str()]);
        assert_eq!(focus.value_missing.as_ref().map(|v| (v.asked.as_str(), v.of.as_str())), Some(("phone number", "marina office")));
        let refused = synthesize_focused(question, &office, 0.9, &GraphEvidence::default(), Some(focus));
        assert!(!refused.found && refused.text.contains("mention \"marina office\" but give no phone number"), "{}", refused.text);
        // The number beside the office answers it.
        let listed = chunk("c_2", "The marina office is beside the main gate; its phone number is 01632 960 123.");
        let focus = focus::coverage(question, &focus::TermStats::build(std::slice::from_ref(&office)), &[listed.content.as_str()]);
        assert_eq!(focus.value_missing, None);
        let answer = synthesize_focused(question, &listed, 0.9, &GraphEvidence::default(), Some(focus));
        assert!(answer.found && answer.text.contains("01632 960 123"), "{}", answer.text);
        // A threshold of 0 turns the check off, this part of it too.
        let focus = focus::coverage(question, &focus::TermStats::build(std::slice::from_ref(&office)), &[office.content.as_str()]);
        let images = std::collections::BTreeMap::new();
        let off = synthesize(SynthesisInput {
            question,
            candidates: vec![Candidate { chunk: &office, score: 0.9, from_graph: false, rank: 0 }],
            graph: &GraphEvidence::default(),
            best_score: 0.9,
            relevance_threshold: 0.25,
            focus: Some(focus),
            evidence_threshold: 0.0,
            max_sentences: 4,
            images: &images,
            bridge_terms: &[],
            similarity: None,
            parts: &[],
        });
        assert!(off.found, "{}", off.text);
    }

    fn grounded(id: &str) -> Grounded {
        Grounded { id: id.into(), name: id.into(), score: 1.1, method: "exact".into() }
    }

    #[test]
    fn never_cites_a_chunk_that_was_not_retrieved() {
        let a = chunk("power_1", "Deep sleep is the state in which the ESP32 draws about 10 µA. The radio is off.");
        let graph = GraphEvidence {
            grounded: vec![grounded("deep sleep")],
            facts: vec![GraphFact { kind: "co_mention".into(), text: "deep sleep and battery".into(), chunk_ids: vec!["power_1".into(), "ghost_9".into()], subjects: vec![] }],
            ..Default::default()
        };
        let ans = synthesize_one("What is deep sleep?", &a, 0.7, &graph);
        assert!(ans.found);
        assert_eq!(ans.sentences[0].text, "Deep sleep is the state in which the ESP32 draws about 10 µA.");
        let used: Vec<&str> = ans.chunks_used.iter().map(|c| c.chunk_id.as_str()).collect();
        assert_eq!(used, vec!["power_1"]);
        assert_eq!(ans.graph_facts[0].chunk_ids, vec!["power_1"]);
        assert!(!ans.text.contains("ghost_9"));
    }

    #[test]
    fn a_definition_has_the_concept_as_its_subject() {
        let w = |t: &str| words(t);
        let c = vec![w("dew point")];
        assert!(defines_a_concept(&w("The dew point is the temperature at which air saturates."), &c));
        assert!(defines_a_concept(&w("Dew point means the same thing."), &c));
        assert!(!defines_a_concept(&w("For a dashboard the water-based dew point is the usual convention."), &c));
        assert!(!defines_a_concept(&w("We plot the dew point."), &c));
    }

    #[test]
    fn restating_table_rows_list_intros_and_near_copies_are_not_answers() {
        let a = chunk(
            "p_1",
            "Deep sleep affects battery life. In deep sleep the ESP32 draws 10 µA, so the battery lasts months. \
             The components are listed below: \n\n| ESP32 | 10 µA | deep sleep |\n\n\
             In deep sleep the ESP32 draws only 10 µA, so the battery lasts for months.",
        );
        let ans = synthesize_one("How does deep sleep affect battery life?", &a, 0.7, &GraphEvidence::default());
        let texts: Vec<&str> = ans.sentences.iter().map(|s| s.text.as_str()).collect();
        assert!(!texts.contains(&"Deep sleep affects battery life."), "restates the question: {texts:?}");
        assert!(!texts.iter().any(|t| t.contains('|') || t.ends_with(':')), "{texts:?}");
        assert_eq!(texts.iter().filter(|t| t.contains("10 µA")).count(), 1, "near-copies: {texts:?}");
    }

    #[test]
    fn a_relation_fact_quotes_the_sentence_that_names_both_concepts() {
        let a = chunk("p_1", "The ESP32 wakes every five minutes. In deep sleep the ESP32 draws 10 µA, so deep sleep decides battery life more than anything else.");
        let b = chunk("p_2", "Battery life is long.");
        let candidates = vec![Candidate { chunk: &b, score: 0.5, from_graph: false, rank: 0 }, Candidate { chunk: &a, score: 0.4, from_graph: false, rank: 1 }];
        let fact = GraphFact { kind: "co_mention".into(), text: "deep sleep and battery life are mentioned together in 1 chunk(s): p_1".into(), chunk_ids: vec!["p_1".into()], subjects: vec!["deep sleep".into(), "battery life".into()] };
        let f = relating_sentence(fact.clone(), &candidates);
        assert!(f.text.starts_with("deep sleep and battery life: \"In deep sleep the ESP32 draws 10 µA"), "{}", f.text);
        assert_eq!(f.chunk_ids, ["p_1"]);
        // No sentence names both: the fact stays as the graph gave it.
        let f = relating_sentence(fact.clone(), &candidates[..1]);
        assert_eq!(f, fact);
        // A caption naming both is no statement of their relation.
        let c = chunk("p_3", "Listing 4-2: deep sleep and battery life in one loop\n\nBattery life is long.");
        let f = relating_sentence(fact.clone(), &[Candidate { chunk: &c, score: 0.5, from_graph: false, rank: 0 }]);
        assert_eq!(f, fact);
    }

    #[test]
    fn weak_evidence_gives_a_plain_not_found() {
        let a = chunk("x_0", "Grafana draws panels from the time-series database every minute.");
        let graph = GraphEvidence::default();
        let ans = synthesize_one("How fast does an unladen swallow fly?", &a, 0.08, &graph);
        assert!(!ans.found);
        assert!(ans.chunks_used.is_empty() && ans.image_paths.is_empty());
        assert!(ans.text.starts_with("I could not find"));
    }
}
