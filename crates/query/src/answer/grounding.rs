//! The grounding guard: every sentence of an LLM answer is scored for support in the evidence it
//! was given — semantic similarity to the closest evidence sentence plus the share of its content
//! words that occur in the evidence, and no number the evidence does not contain. Unsupported
//! sentences are removed; when too little of the answer is supported, the caller returns the
//! extractive answer instead. Tiny local models invent fluently; this keeps inventions away from
//! the user.

use std::collections::BTreeSet;

use serde::Serialize;

use qa_core::text::split_sentences;
use qa_core::text::query_terms;
use qa_core::text::singular;

/// One sentence of the model's answer with the citations it carried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DraftSentence {
    /// The sentence without citation brackets.
    pub text: String,
    /// Cited ids that are in the evidence.
    pub cited: Vec<String>,
}

/// Weight of semantic similarity in the support score (the rest is word coverage).
const SIMILARITY_WEIGHT: f32 = 0.6;

/// A piece of evidence the answer may rest on.
pub(crate) struct EvidenceText<'a> {
    /// Chunk id, or `graph` for a graph fact.
    pub source: &'a str,
    /// The passage's or the fact's text.
    pub text: &'a str,
}

/// How well the evidence supports one sentence of the answer.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SentenceSupport {
    /// The sentence, without citations.
    pub text: String,
    /// Combined support score.
    pub score: f32,
    /// Cosine similarity to the closest evidence sentence.
    pub similarity: f32,
    /// Share of the sentence's content words found in the evidence.
    pub coverage: f32,
    /// Numbers and identifiers with digits that are not in the evidence sentences closest to it.
    pub unsupported_numbers: Vec<String>,
    /// Source of the closest evidence sentence.
    pub best_source: Option<String>,
    /// Says the evidence lacks something ("the documents do not say …"): neither supported nor
    /// unsupported, kept, not counted.
    pub abstention: bool,
    /// Not an abstention, scored at least the threshold, and every number supported.
    pub supported: bool,
}

/// The grounding guard's report on an LLM answer (the trace's `answer_grounding`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Grounding {
    /// Support score from which a sentence counts as supported.
    pub threshold: f32,
    /// Share of claims that must be supported for the answer to be used.
    pub min_supported: f32,
    /// Each sentence of the answer, assessed.
    pub sentences: Vec<SentenceSupport>,
    /// Supported sentences / (sentences − abstentions).
    pub supported_fraction: f32,
    /// `kept_all`, `removed_unsupported`, `fell_back_to_extractive`.
    pub action: String,
    /// Why the action was taken, unless everything was kept.
    pub reason: Option<String>,
    /// Distinct ids the answer cited that were in the prompt, sorted.
    pub cited_chunk_ids: Vec<String>,
    /// Ids the answer cited that were not in the prompt (removed from it).
    pub invented_chunk_ids: Vec<String>,
    /// The answer cites no chunk although evidence was given.
    pub uncited: bool,
}

impl Grounding {
    /// A report before any sentence was assessed.
    pub(crate) fn empty(threshold: f32, min_supported: f32) -> Grounding {
        Grounding {
            threshold,
            min_supported,
            sentences: Vec::new(),
            supported_fraction: 0.0,
            action: String::new(),
            reason: None,
            cited_chunk_ids: Vec::new(),
            invented_chunk_ids: Vec::new(),
            uncited: false,
        }
    }
}

/// Embeds texts (unit vectors), or `None` when the embedder fails.
pub type EmbedFn<'a> = &'a dyn Fn(&[&str]) -> Option<Vec<Vec<f32>>>;

fn words(text: &str) -> BTreeSet<String> {
    query_terms(text).iter().map(|w| singular(w)).collect()
}

/// Numbers and identifiers with digits (`10`, `3.3`, `1200`, `0x76`, `bme280`), lower-cased.
fn numbers(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "()[]{}:;!?\"'`/=<>".contains(c))
        .map(|t| t.trim_matches(|c: char| c == '.' || c == ',' || c == '-'))
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .map(|t| t.replace(',', "").to_lowercase())
        .collect()
}

/// Evidence sentences this close to the best match (in cosine) count as the sentence's support.
const SUPPORT_MARGIN: f32 = 0.1;
/// At most this many evidence sentences support one answer sentence.
const SUPPORT_SENTENCES: usize = 3;

const ABSTENTION_MARKERS: &[&str] = &[
    "do not say",
    "does not say",
    "do not mention",
    "does not mention",
    "not mentioned",
    "no information",
    "not provided",
    "does not contain",
    "do not contain",
    "cannot find",
    "could not find",
    "not in the evidence",
    "evidence does not",
    "don't say",
    "doesn't say",
    "don't mention",
    "doesn't mention",
    "don't contain",
    "doesn't contain",
    "can't find",
    "couldn't find",
    "not covered",
    "do not cover",
    "does not cover",
    "don't cover",
    "doesn't cover",
    "not stated",
    "do not state",
    "does not state",
    "no mention",
];

/// What an abstention says lacks the answer: the material the model was given, or the model
/// itself ("I could not find …"). Without it "not provided" or "not covered" is a claim about the
/// world ("Towels are not provided."), checked for support like any other.
const MATERIAL_WORDS: &[&str] = &["text", "texts", "passage", "passages", "document", "documents", "documentation", "evidence", "context", "source", "sources", "excerpt", "excerpts"];

/// The sentence says the evidence lacks something ("the documents do not say …").
pub(crate) fn is_abstention(sentence: &str) -> bool {
    let l = sentence.to_lowercase().replace('\u{2019}', "'");
    let names_material = l.starts_with("i ") || l.split(|c: char| !c.is_alphanumeric()).any(|w| MATERIAL_WORDS.contains(&w));
    names_material && ABSTENTION_MARKERS.iter().any(|m| l.contains(m))
}

/// Score each draft sentence against the evidence.
pub(crate) fn assess(draft: &[DraftSentence], evidence: &[EvidenceText], threshold: f32, embed: EmbedFn) -> Vec<SentenceSupport> {
    let mut ev_sentences: Vec<(&str, String)> = Vec::new();
    let mut ev_words: BTreeSet<String> = BTreeSet::new();
    let mut ev_numbers: BTreeSet<String> = BTreeSet::new();
    for e in evidence {
        ev_words.extend(words(e.text));
        ev_numbers.extend(numbers(e.text));
        for block in e.text.split("\n\n") {
            let block = block.split_whitespace().collect::<Vec<_>>().join(" ");
            for (s, end) in split_sentences(&block) {
                let sent = block[s..end].trim();
                if sent.split_whitespace().count() >= 3 {
                    ev_sentences.push((e.source, sent.to_string()));
                }
            }
        }
    }
    // One embedding call for the answer and the evidence sentences together.
    let mut texts: Vec<&str> = draft.iter().map(|d| d.text.as_str()).collect();
    texts.extend(ev_sentences.iter().map(|(_, s)| s.as_str()));
    let vectors = if ev_sentences.is_empty() { None } else { embed(&texts).filter(|v| v.len() == texts.len()) };
    draft
        .iter()
        .enumerate()
        .map(|(i, d)| {
            // The evidence sentences closest in meaning are the sentence's support; its numbers
            // must come from them ("0xD0" elsewhere in the evidence does not make "the address
            // is 0xD0" true).
            let (similarity, best_source, support_numbers) = match &vectors {
                Some(v) => {
                    let mut sims: Vec<(f32, usize)> =
                        (0..ev_sentences.len()).map(|j| (qa_embed::dot(&v[i], &v[draft.len() + j]), j)).collect();
                    sims.sort_by(|a, b| b.0.total_cmp(&a.0));
                    let best = sims.first().map_or(0.0, |b| b.0);
                    let support: BTreeSet<String> = sims
                        .iter()
                        .take(SUPPORT_SENTENCES)
                        .filter(|(s, _)| *s >= best - SUPPORT_MARGIN)
                        .flat_map(|(_, j)| numbers(&ev_sentences[*j].1))
                        .collect();
                    (best.max(0.0), sims.first().map(|(_, j)| ev_sentences[*j].0.to_string()), support)
                }
                None => (0.0, None, ev_numbers.clone()),
            };
            let w = words(&d.text);
            let coverage = if w.is_empty() { 0.0 } else { w.iter().filter(|x| ev_words.contains(*x)).count() as f32 / w.len() as f32 };
            // Quantities (`10`, `0x76`) must come from the supporting sentences; names with digits
            // (`BME280`, `ESP32`) are often referred to as "it" there, so anywhere in the evidence will do.
            let unsupported_numbers: Vec<String> = numbers(&d.text)
                .into_iter()
                .filter(|n| {
                    let quantity = n.starts_with(|c: char| c.is_ascii_digit());
                    !(if quantity { support_numbers.contains(n) } else { ev_numbers.contains(n) })
                })
                .collect();
            let score = SIMILARITY_WEIGHT * similarity + (1.0 - SIMILARITY_WEIGHT) * coverage;
            let abstention = is_abstention(&d.text);
            let supported = !abstention && score >= threshold && unsupported_numbers.is_empty();
            SentenceSupport { text: d.text.clone(), score, similarity, coverage, unsupported_numbers, best_source, abstention, supported }
        })
        .collect()
}

/// Supported sentences over all sentences that make a claim (0 when none does).
pub(crate) fn supported_fraction(scores: &[SentenceSupport]) -> f32 {
    let claims = scores.iter().filter(|s| !s.abstention).count();
    if claims == 0 {
        return 0.0;
    }
    scores.iter().filter(|s| s.supported).count() as f32 / claims as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(texts: &[&str]) -> Vec<DraftSentence> {
        texts.iter().map(|t| DraftSentence { text: t.to_string(), cited: vec![] }).collect()
    }

    /// A bag-of-words "embedding" so the test checks the scoring logic, not the model.
    fn bow(texts: &[&str]) -> Option<Vec<Vec<f32>>> {
        let vocab: Vec<String> = texts.iter().flat_map(|t| words(t)).collect::<BTreeSet<_>>().into_iter().collect();
        Some(
            texts
                .iter()
                .map(|t| {
                    let w = words(t);
                    let mut v: Vec<f32> = vocab.iter().map(|x| if w.contains(x) { 1.0 } else { 0.0 }).collect();
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                    v.iter_mut().for_each(|x| *x /= n);
                    v
                })
                .collect(),
        )
    }

    #[test]
    fn supported_and_invented_sentences_are_told_apart() {
        let evidence = [EvidenceText { source: "bme_0", text: "The BME280 answers on I2C address 0x76. It measures pressure, humidity and temperature." }];
        let d = draft(&[
            "The BME280 measures pressure, humidity and temperature.",
            "Volcanic ash corrodes copper antennas within weeks.",
            "The BME280 answers on address 0x77.",
            "The documents do not say how long it lasts.",
        ]);
        let s = assess(&d, &evidence, 0.55, &bow);
        assert!(s[0].supported, "{:?}", s[0]);
        assert_eq!(s[0].best_source.as_deref(), Some("bme_0"));
        assert!(!s[1].supported && s[1].coverage < 0.3);
        assert!(!s[2].supported);
        assert_eq!(s[2].unsupported_numbers, vec!["0x77".to_string()]);
        assert!(s[3].abstention && !s[3].supported);
        assert!((supported_fraction(&s) - 1.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn abstentions_are_read_in_plain_and_contracted_forms() {
        for said in [
            "The documents do not say how long it lasts.",
            "The provided text doesn't mention a warranty.",
            "The passages don\u{2019}t cover the Wi-Fi password.",
            "That is not stated in the given excerpts.",
            "I could not find the opening hours.",
        ] {
            assert!(is_abstention(said), "{said}");
        }
        for claim in ["The station says hello on boot.", "It does not sleep while charging.", "Covered bays cost more.", "Towels are not provided.", "Theft is not covered by the policy."] {
            assert!(!is_abstention(claim), "{claim}");
        }
    }

    #[test]
    fn numbers_must_come_from_the_evidence() {
        assert_eq!(numbers("It draws 10 µA, or 1,200 µA awake, at 3.3 V (0x76)."), vec!["10", "1200", "3.3", "0x76"]);
        let evidence = [EvidenceText { source: "p_0", text: "In deep sleep the ESP32 draws about 10 µA." }];
        let s = assess(&draft(&["In deep sleep the ESP32 draws about 25 µA."]), &evidence, 0.3, &bow);
        assert_eq!(s[0].unsupported_numbers, vec!["25"]);
        assert!(!s[0].supported);
    }

    #[test]
    fn a_number_from_an_unrelated_evidence_sentence_does_not_support_a_claim() {
        let evidence = [EvidenceText {
            source: "bme_2",
            text: "On the I2C bus the BME280 responds at address 0x76 when its SDO pin is tied to ground. \
                   Weather stations log pressure every minute for trend arrows on the display. \
                   Cheap breakout boards ship with pull-up resistors already soldered on. \
                   The chip ID register at 0xD0 should return 0x60.",
        }];
        let s = assess(&draft(&["The BME280 responds at address 0xD0 when its SDO pin is tied to ground."]), &evidence, 0.3, &bow);
        assert_eq!(s[0].unsupported_numbers, vec!["0xd0".to_string()], "{:?}", s[0]);
        assert!(!s[0].supported);
    }
}
