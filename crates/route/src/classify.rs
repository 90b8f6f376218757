//! Query type: `simple` (a direct query answers it), `complex` (an analysis of the records) or
//! `hybrid` (records first, then their analysis). Pattern rules: fast, explainable, no API cost.

use serde::{Deserialize, Serialize};

use qa_core::text;

/// How a question is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryType {
    /// A direct query: filters, counts, lists, "per X".
    Simple,
    /// An analysis: why, recommendations, comparisons, patterns, trends, predictions.
    Complex,
    /// Records, then their analysis ("show … and explain").
    Hybrid,
}

impl QueryType {
    /// The name as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryType::Simple => "simple",
            QueryType::Complex => "complex",
            QueryType::Hybrid => "hybrid",
        }
    }
}

/// The query type with its confidence and the cues behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeDecision {
    /// The type to use (`complex` whenever `confidence` < [`crate::MIN_CONFIDENCE`]).
    pub query_type: QueryType,
    /// What the rules said before the confidence floor was applied.
    pub rule_type: QueryType,
    /// In [0, 1].
    pub confidence: f64,
    /// Whether answering needs an LLM for its best form (complex and hybrid do; they fall back
    /// to the deterministic analysis without one).
    pub requires_llm: bool,
    /// The cues found, as `kind: "phrase"`.
    pub reasons: Vec<String>,
    /// No cue of either kind matched (the `complex` at 0.5 fallback).
    pub matched_nothing: bool,
}

/// Phrases that ask for analysis rather than retrieval.
const ANALYTICAL: &[&str] = &[
    "why", "how should", "how can we", "how could we", "how do we improve", "what should", "should we", "recommend",
    "recommendation", "recommendations", "suggest", "advise", "advice", "compare", "comparison", "versus", "vs",
    "pattern", "patterns", "trend", "trends", "trending", "predict", "prediction", "forecast", "prioritize",
    "prioritise", "priority", "priorities", "based on the data", "analyze", "analyse", "analysis", "insight",
    "insights", "correlation", "correlate", "root cause", "explain", "evaluate", "assess", "assessment", "risk",
    "risks", "anomaly", "anomalies", "unusual", "improve", "optimize", "optimise", "summarize", "summarise",
    "summary", "interpret", "implication", "implications", "what does this mean", "what do you think",
];

/// Phrases that ask for records, counts or aggregates.
const DIRECT: &[&str] = &[
    "how many", "number of", "count", "list", "show", "show me", "find", "get", "give me", "display", "which",
    "what are the", "what is the", "per", "by", "for each", "each", "total", "sum", "average", "avg", "mean",
    "maximum", "minimum", "max", "min", "top", "most", "least", "latest", "oldest", "newest", "when", "where",
    "who", "all", "than",
];

/// Connectives that join a retrieval to an analysis ("list … then summarize").
const JOINERS: &[&str] = &["and", "then", "and then", "also", "plus", "so that", "and tell me"];

fn phrase_hits(words: &[String], phrases: &[&str]) -> Vec<(usize, String)> {
    let mut hits = Vec::new();
    for p in phrases {
        let pw: Vec<String> = text::words(p);
        if pw.is_empty() {
            continue;
        }
        for (i, w) in words.windows(pw.len()).enumerate() {
            if w == pw.as_slice() {
                hits.push((i, (*p).to_string()));
            }
        }
    }
    hits.sort();
    hits.dedup_by(|a, b| a.1 == b.1);
    hits
}

/// Classify `question` by pattern rules. Never fails: a question that matches no rule is
/// `complex` at confidence 0.5 with the reason recorded.
pub fn classify(question: &str) -> TypeDecision {
    let words = text::words(question);
    let analytical = phrase_hits(&words, ANALYTICAL);
    let direct = phrase_hits(&words, DIRECT);
    let mut reasons: Vec<String> = Vec::new();
    reasons.extend(direct.iter().map(|(_, p)| format!("direct: \"{p}\"")));
    reasons.extend(analytical.iter().map(|(_, p)| format!("analytical: \"{p}\"")));
    let (rule_type, confidence) = match (direct.is_empty(), analytical.is_empty()) {
        (true, true) => {
            reasons.push("no pattern matched: complex at 0.5".to_string());
            (QueryType::Complex, 0.5)
        }
        (false, true) => (QueryType::Simple, (0.7 + 0.05 * direct.len() as f64).min(0.95)),
        (true, false) => (QueryType::Complex, (0.7 + 0.1 * analytical.len() as f64).min(0.95)),
        (false, false) => {
            // Records first, then analysis: a direct cue before an analytical one, joined by a
            // connective between them ("show the open tickets and explain the backlog").
            let first_direct = direct.iter().map(|(i, _)| *i).min().unwrap_or(usize::MAX);
            let first_analytical = analytical.iter().map(|(i, _)| *i).min().unwrap_or(0);
            let joined = first_direct < first_analytical && words[first_direct..first_analytical].iter().any(|w| JOINERS.iter().any(|j| j == w));
            if joined {
                reasons.push("a retrieval joined to an analysis".to_string());
                (QueryType::Hybrid, 0.8)
            } else {
                // Both kinds of cue without the record-then-analysis shape: the analysis decides,
                // with less certainty the more direct cues compete with it.
                let margin = analytical.len() as f64 - direct.len() as f64;
                (QueryType::Complex, (0.65 + 0.05 * margin).clamp(0.5, 0.85))
            }
        }
    };
    let query_type = if confidence < crate::MIN_CONFIDENCE {
        if rule_type != QueryType::Complex {
            reasons.push(format!("confidence {confidence:.2} < {}: answered as complex", crate::MIN_CONFIDENCE));
        }
        QueryType::Complex
    } else {
        rule_type
    };
    let matched_nothing = direct.is_empty() && analytical.is_empty();
    TypeDecision { query_type, rule_type, confidence, requires_llm: query_type != QueryType::Simple, reasons, matched_nothing }
}

/// The part of a complex or hybrid question a direct query can answer: for "show … and explain
/// …" the words before the connective that joins the analysis; otherwise the question without
/// its analytical phrases. The analysis itself is done on the records this part returns.
pub fn retrieval_part(question: &str) -> String {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let words: Vec<String> = tokens.iter().map(|t| bare(t)).collect();
    let analytical = phrase_hits(&words, ANALYTICAL);
    let Some(first) = analytical.iter().map(|(i, _)| *i).min() else { return question.trim().to_string() };
    // Records then analysis: cut at the last connective before the first analytical phrase.
    if let Some(cut) = (0..first).rev().find(|&i| JOINERS.contains(&words[i].as_str())).filter(|&i| i > 0) {
        return tokens[..cut].join(" ").trim_end_matches([',', ';']).to_string();
    }
    let mut drop = vec![false; tokens.len()];
    for (i, p) in &analytical {
        for d in drop.iter_mut().skip(*i).take(text::words(p).len()) {
            *d = true;
        }
    }
    let kept: Vec<&str> = tokens.iter().zip(&drop).filter(|(_, d)| !**d).map(|(t, _)| *t).collect();
    let out = kept.join(" ").trim_matches(|c: char| c == '?' || c == ',' || c.is_whitespace()).to_string();
    if out.is_empty() { question.trim().to_string() } else { out }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_retrieval_part_drops_the_analysis() {
        assert_eq!(retrieval_part("Show the urgent open findings and explain what they have in common"), "Show the urgent open findings");
        assert_eq!(retrieval_part("List the late orders, then summarize them"), "List the late orders");
        assert_eq!(retrieval_part("Why are urgent findings still open?"), "are urgent findings still open");
        assert_eq!(retrieval_part("How many books per genre?"), "How many books per genre?");
    }

    use super::*;

    #[test]
    fn direct_questions_are_simple() {
        for q in ["How many open tickets per team?", "List the books borrowed in 2024", "Show me the orders over 500 EUR", "average weight by carrier"] {
            let d = classify(q);
            assert_eq!(d.query_type, QueryType::Simple, "{q}: {d:?}");
            assert!(d.confidence >= crate::MIN_CONFIDENCE && !d.requires_llm);
        }
    }

    #[test]
    fn analytical_questions_are_complex() {
        for q in ["Why are deliveries late?", "What patterns do you see in the failures?", "Recommend which suppliers to drop", "Predict next month's demand"] {
            assert_eq!(classify(q).query_type, QueryType::Complex, "{q}");
        }
    }

    #[test]
    fn records_then_analysis_is_hybrid() {
        for q in ["Show the overdue invoices and explain what they have in common", "List the critical findings then summarize them"] {
            assert_eq!(classify(q).query_type, QueryType::Hybrid, "{q}: {:?}", classify(q));
        }
    }

    #[test]
    fn no_cue_is_complex_at_one_half_with_a_reason() {
        let d = classify("Zebra quantum banana");
        assert_eq!((d.query_type, d.confidence), (QueryType::Complex, 0.5));
        assert!(d.reasons.iter().any(|r| r.contains("no pattern matched")));
    }
}
