//! Dense retrieval: deterministic subqueries, top-k per subquery from the vector index,
//! de-duplicated by (source_file, chunk_id) keeping the best score.

use serde::{Deserialize, Serialize};

use crate::chunk::Chunk;
use crate::llm::{ChatMessage, ChatRequest, LlmRun, OutputFormat};
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

/// JSON schema of the LLM's subquery answer.
pub fn subquery_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"subqueries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_LLM_SUBQUERIES}},
        "required": ["subqueries"],
        "additionalProperties": false
    })
}

const MAX_LLM_SUBQUERIES: usize = 4;
/// The question plus at most this many subqueries are searched.
const MAX_SUBQUERIES: usize = 5;

/// The chat request that asks for subqueries. The local model's answer is forced to open with
/// `{"subqueries": ["` and constrained to JSON, which a 135M model reliably completes; free
/// generation by such a model rarely parses.
pub fn subquery_request(question: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system("You turn a question into short search queries for a document search engine. Reply with JSON only."),
            ChatMessage::user(format!(
                "Question: {question}\n\nWrite 1 to {MAX_LLM_SUBQUERIES} short search queries (a few words each) that together cover what the question asks. \
                 Reply as {{\"subqueries\": [\"...\"]}}."
            )),
        ],
        // Four short queries fit in 48 tokens; a small model that loops stops here, not later.
        max_tokens: 48,
        format: OutputFormat::Json { name: "subqueries".into(), schema: subquery_schema(), prefix: "{\"subqueries\": [\"".into() },
        stop: vec![],
        temperature: 0.0,
        purpose: "subqueries",
    }
}

/// Validate the LLM's answer: a JSON object whose `subqueries` is a list of strings; keeps the
/// usable ones (3–200 characters, not repeats of the question or of each other).
pub fn parse_llm_subqueries(text: &str, question: &str) -> Result<Vec<String>, String> {
    let value: serde_json::Value = serde_json::from_str(text.trim()).map_err(|e| format!("not JSON: {e}"))?;
    let list = value.get("subqueries").and_then(|v| v.as_array()).ok_or("no \"subqueries\" list")?;
    let mut out: Vec<String> = Vec::new();
    for item in list {
        let s = item.as_str().ok_or("a subquery is not a string")?;
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        let len = s.chars().count();
        let has_word = s.split(|c: char| !c.is_alphanumeric()).any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2);
        if !(3..=200).contains(&len) || !has_word || s.eq_ignore_ascii_case(question.trim()) || out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            continue;
        }
        out.push(s);
        if out.len() == MAX_LLM_SUBQUERIES {
            break;
        }
    }
    if out.is_empty() {
        return Err("no usable subquery in the list".into());
    }
    Ok(out)
}

/// Where the searched subqueries came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SubqueryPlan {
    pub queries: Vec<String>,
    /// `llm` (LLM subqueries added to the question and its deterministic split) or `deterministic`.
    pub source: String,
    /// Why the LLM's subqueries were not used, when they were asked for.
    pub fallback_reason: Option<String>,
    /// LLM subqueries dropped because they drifted from the question.
    pub dropped: Vec<String>,
}

/// An LLM subquery must be at least this similar (cosine) to the question to be searched.
pub const MIN_SUBQUERY_SIMILARITY: f32 = 0.4;

/// The question first (graph grounding uses its vector), then the LLM's subqueries, then the
/// deterministic split; the deterministic list alone when the LLM fails or answers badly.
pub fn plan_subqueries(question: &str, llm: Option<&mut LlmRun>) -> SubqueryPlan {
    let deterministic = subqueries(question);
    let Some(run) = llm else {
        return SubqueryPlan { queries: deterministic, source: "deterministic".into(), fallback_reason: None, dropped: vec![] };
    };
    let fallback = |reason: String| SubqueryPlan { queries: subqueries(question), source: "deterministic".into(), fallback_reason: Some(reason), dropped: vec![] };
    let response = match run.call(&subquery_request(question)) {
        Ok(r) => r,
        Err(e) => return fallback(format!("LLM call failed: {e}")),
    };
    match parse_llm_subqueries(&response.text, question) {
        Ok(extra) => {
            run.set_outcome("used");
            let mut queries = vec![deterministic[0].clone()];
            for q in extra.into_iter().chain(deterministic.into_iter().skip(1)) {
                if !queries.iter().any(|o| o.eq_ignore_ascii_case(&q)) {
                    queries.push(q);
                }
            }
            queries.truncate(MAX_SUBQUERIES);
            SubqueryPlan { queries, source: "llm".into(), fallback_reason: None, dropped: vec![] }
        }
        Err(e) => {
            run.set_outcome(format!("invalid: {e}"));
            fallback(format!("invalid LLM subqueries: {e}"))
        }
    }
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
    fn llm_subqueries_are_validated() {
        let q = "How do I wire the BME280?";
        let ok = parse_llm_subqueries(r#"{"subqueries": ["BME280 wiring", "  I2C   pull-up ", "bme280 WIRING", "How do I wire the BME280?", "x", "...", "1 2 3"]}"#, q).unwrap();
        assert_eq!(ok, vec!["BME280 wiring", "I2C pull-up"]);
        assert!(parse_llm_subqueries(r#"{"subqueries": []}"#, q).is_err());
        assert!(parse_llm_subqueries(r#"{"queries": ["a b c"]}"#, q).is_err());
        assert!(parse_llm_subqueries(r#"{"subqueries": [1, 2]}"#, q).is_err());
        assert!(parse_llm_subqueries("BME280 wiring", q).is_err());
    }

    #[test]
    fn and_inside_a_name_does_not_split() {
        assert_eq!(subqueries("What is the difference between wake and sleep").len(), 1);
    }
}
