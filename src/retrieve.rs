//! Dense retrieval: deterministic subqueries, top-k per subquery from the vector index,
//! de-duplicated by (source_file, chunk_id) keeping the best score.

use serde::{Deserialize, Serialize};

use crate::chunk::Chunk;
use crate::vector::VectorIndex;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RetrievedChunk {
    /// Row in the id map.
    pub row: usize,
    pub chunk_id: String,
    pub source_file: String,
    /// Cosine similarity to the best-matching subquery.
    pub score: f32,
    /// Index of that subquery.
    pub subquery: usize,
}

const LEADS: &[&str] = &[
    "what is", "what are", "what's", "explain", "describe", "tell me about", "how do", "how does", "how is", "how are",
    "why is", "why are", "where is", "show me", "show", "find", "list", "define",
];
const CLAUSE_STARTS: &[&str] = &[
    "what", "how", "why", "where", "when", "which", "who", "find", "show", "list", "explain", "describe", "tell", "give",
    "is", "are", "does", "do", "can", "should",
];

/// The question itself, then its parts when it asks several things:
/// "what is A and how does B work" → [q, "what is A", "how does B work"];
/// "explain A and B" → [q, "explain A", "explain B"]; several sentences/`;` → one subquery each.
pub fn subqueries(question: &str) -> Vec<String> {
    let q = question.trim();
    let mut out = vec![q.to_string()];
    let mut parts: Vec<String> = Vec::new();
    for sentence in q.split_inclusive(['?', ';']) {
        let sentence = sentence.trim().trim_end_matches(';').trim();
        if sentence.is_empty() {
            continue;
        }
        parts.extend(split_on_and(sentence));
    }
    if parts.len() > 1 {
        for p in parts {
            let p = p.trim().to_string();
            if p.split_whitespace().count() >= 2 && !out.iter().any(|o| o.eq_ignore_ascii_case(&p)) {
                out.push(p);
            }
        }
    }
    out.truncate(5);
    out
}

fn split_on_and(sentence: &str) -> Vec<String> {
    // ASCII lower-casing keeps byte offsets valid in `sentence` (full Unicode lower-casing can
    // change lengths, e.g. 'İ').
    let lower = sentence.to_ascii_lowercase();
    let Some(pos) = find_word(&lower, "and") else { return vec![sentence.to_string()] };
    let (left, right) = (sentence[..pos].trim().trim_end_matches(','), sentence[pos + 3..].trim());
    let right_lower = right.to_ascii_lowercase();
    let right_first = right_lower.split_whitespace().next().unwrap_or("");
    if CLAUSE_STARTS.contains(&right_first) && left.split_whitespace().count() >= 2 {
        // Two clauses: "what is A and find B".
        let mut v = vec![left.to_string()];
        v.extend(split_on_and(right));
        return v;
    }
    // "explain A and B": distribute the lead over both noun phrases when both are short.
    let left_lower = left.to_ascii_lowercase();
    // "between A and B" / "both A and B" name one relation, not two questions.
    if [" between ", " both ", "difference", " versus "].iter().any(|w| left_lower.contains(w)) {
        return vec![sentence.to_string()];
    }
    if let Some(lead) = LEADS.iter().find(|l| left_lower.starts_with(*l)) {
        let a = left[lead.len()..].trim();
        let b = right.trim_end_matches(['?', '.']);
        if !a.is_empty() && !b.is_empty() && a.split_whitespace().count() <= 4 && b.split_whitespace().count() <= 4 {
            let lead_text = &left[..lead.len()];
            let tail = if sentence.ends_with('?') { "?" } else { "" };
            return vec![format!("{lead_text} {a}{tail}"), format!("{lead_text} {b}{tail}")];
        }
    }
    vec![sentence.to_string()]
}

fn find_word(hay: &str, word: &str) -> Option<usize> {
    let mut start = 0;
    while let Some(i) = hay[start..].find(word) {
        let at = start + i;
        let before = hay[..at].chars().last().is_none_or(|c| !c.is_alphanumeric());
        let after = hay[at + word.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before && after && at > 0 {
            return Some(at);
        }
        start = at + word.len();
    }
    None
}

/// Top-k per subquery vector, merged and de-duplicated.
pub fn retrieve(index: &dyn VectorIndex, chunks: &[Chunk], query_vectors: &[Vec<f32>], k: usize) -> Vec<RetrievedChunk> {
    let mut out: Vec<RetrievedChunk> = Vec::new();
    for (qi, qv) in query_vectors.iter().enumerate() {
        for (row, score) in index.search(qv, k) {
            let Some(c) = chunks.get(row) else { continue };
            match out.iter_mut().find(|r| r.chunk_id == c.id && r.source_file == c.source_file) {
                Some(existing) if existing.score >= score => {}
                Some(existing) => {
                    existing.score = score;
                    existing.subquery = qi;
                }
                None => out.push(RetrievedChunk { row, chunk_id: c.id.clone(), source_file: c.source_file.clone(), score, subquery: qi }),
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk_id.cmp(&b.chunk_id)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_intent_question_is_kept_whole() {
        assert_eq!(subqueries("How does deep sleep relate to battery life?"), vec!["How does deep sleep relate to battery life?"]);
    }

    #[test]
    fn two_clauses_are_split() {
        let s = subqueries("What is an MQTT broker and how does deep sleep work?");
        assert_eq!(s[1..], ["What is an MQTT broker".to_string(), "how does deep sleep work?".to_string()]);
    }

    #[test]
    fn lead_is_distributed_over_two_noun_phrases() {
        let s = subqueries("Explain dew point and heat index");
        assert_eq!(s[1..], ["Explain dew point".to_string(), "Explain heat index".to_string()]);
    }

    #[test]
    fn several_sentences_become_subqueries() {
        let s = subqueries("What is the I2C address? Which pull-up resistor value is used?");
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn non_ascii_questions_are_safe() {
        let s = subqueries("What is İİİ Ölçüm and how does Größe work?");
        assert_eq!(s[1..], ["What is İİİ Ölçüm".to_string(), "how does Größe work?".to_string()]);
        let s = subqueries("Explain İstanbul and Ünye");
        assert_eq!(s[1..], ["Explain İstanbul".to_string(), "Explain Ünye".to_string()]);
    }

    #[test]
    fn and_inside_a_name_does_not_split() {
        assert_eq!(subqueries("What is the difference between wake and sleep").len(), 1);
    }
}
