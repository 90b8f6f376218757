//! Which source answers: each configured source is scored by how well the question maps onto
//! it — collection names, field names and synonyms, category values (directly or by alias), all
//! read through qa-question's linker and only where the link is sure ([`crate::reading`]), entity
//! names of the documents, and the question's form — and the best one is chosen.

use serde::{Deserialize, Serialize};

use qa_core::text;

use crate::classify::{QueryType, classify};
use crate::filters::{ExtractedFilters, of_reading};
use crate::profile::SourceProfile;
use crate::reading::{self, Matches};

/// A source kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The indexed documents (retrieval + graph evidence).
    Documents,
    /// A SQL database.
    Sql,
    /// An Elasticsearch index (embedded or remote).
    Es,
}

impl Target {
    /// The name as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Documents => "documents",
            Target::Sql => "sql",
            Target::Es => "es",
        }
    }
}

/// Each configured source's score (`None`: not configured).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// The documents' score.
    pub documents: Option<f64>,
    /// The SQL database's score.
    pub sql: Option<f64>,
    /// The ES index's score.
    pub es: Option<f64>,
}

impl Scores {
    fn set(&mut self, t: Target, s: f64) {
        match t {
            Target::Documents => self.documents = Some(s),
            Target::Sql => self.sql = Some(s),
            Target::Es => self.es = Some(s),
        }
    }
}

/// The router's decision (`qa route --json`; the `routing` block of every answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteDecision {
    /// The source to answer from.
    pub target: Target,
    /// How to answer.
    pub query_type: QueryType,
    /// Confidence of the query type, in [0, 1].
    pub confidence: f64,
    /// Filters found in the question, validated against the target.
    pub extracted_filters: ExtractedFilters,
    /// Whether the best answer needs an LLM (complex, hybrid).
    pub requires_llm: bool,
    /// Why: the matches per source, the type cues, the choice.
    pub reasons: Vec<String>,
    /// Every configured source's score.
    pub scores: Scores,
}

/// A structured source (SQL, ES) takes a question from the documents only at this score: a
/// collection or value (2) plus a field (1), as the SQL route has always required.
pub const STRUCTURED_THRESHOLD: f64 = 3.0;

/// A structured source that names a collection or a value (2) takes a question the documents
/// match nothing of.
pub const COLLECTION_ALONE: f64 = 2.0;

/// Cues of a question about records (counts, lists, aggregates): they favour structured sources
/// that the question already matches.
const RECORD_CUES: &[&str] = &["how many", "number of", "count", "list", "per", "average", "total", "sum", "top", "most", "show me"];

/// Score one source: returns the score and the matches as reasons.
pub fn score_source(question: &str, profile: &SourceProfile, filters: &ExtractedFilters) -> (f64, Vec<String>) {
    // Linking does not depend on the day (only the dates' own reading does).
    let a = qa_question::analyse(question, chrono::Utc::now().date_naive());
    score_matches(question, profile, &reading::matches(&a, profile), filters)
}

/// Score one source from what the question surely names of it: a collection 2, a field 1, a
/// field with values 2, an entity of the documents 1.5 (at most 4), and 0.5 for a question about
/// records on a structured source that matches something.
fn score_matches(question: &str, profile: &SourceProfile, matches: &Matches, filters: &ExtractedFilters) -> (f64, Vec<String>) {
    let mut score = 0.0;
    let mut reasons = Vec::new();
    let label = profile.target.as_str();
    for (words, c) in &matches.collections {
        score += 2.0;
        reasons.push(format!("{label}: \"{words}\" names {c}"));
    }
    for (words, f) in &matches.fields {
        score += 1.0;
        reasons.push(format!("{label}: \"{words}\" names field {f}"));
    }
    let mut valued: Vec<&str> = filters.values.iter().map(|v| v.field.as_str()).collect();
    valued.dedup();
    for v in &filters.values {
        reasons.push(format!("{label}: \"{}\" is {} = {:?}{}", v.phrase, v.field, v.value, if v.via_alias { " (alias)" } else { "" }));
    }
    score += 2.0 * valued.len() as f64;
    let words: Vec<String> = text::normalized_words(question);
    let mut entities = 0usize;
    for e in &profile.entities {
        let ew = text::normalized_words(e);
        if ew.iter().any(|w| !text::is_stop(w)) && text::contains_seq(&words, &ew) {
            entities += 1;
            if entities <= 5 {
                reasons.push(format!("{label}: \"{e}\" is an entity of the documents"));
            }
        }
    }
    score += 1.5 * entities.min(4) as f64;
    if profile.target != Target::Documents && score > 0.0 {
        let plain = text::words(question);
        if RECORD_CUES.iter().any(|c| text::contains_seq(&plain, &text::words(c))) {
            score += 0.5;
            reasons.push(format!("{label}: the question asks for records or aggregates"));
        }
    }
    (score, reasons)
}

/// Decide target and type for `question` over the configured sources. `today` anchors
/// relative dates. With no source at all the target is `documents` (whose absence the caller
/// reports).
pub fn decide(question: &str, profiles: &[SourceProfile], today: chrono::NaiveDate) -> RouteDecision {
    let type_decision = classify(question);
    let mut scores = Scores::default();
    let mut reasons = Vec::new();
    let mut scored: Vec<(Target, f64, ExtractedFilters)> = Vec::new();
    let a = qa_question::analyse(question, today);
    for p in profiles {
        let matches = reading::matches(&a, p);
        let filters = of_reading(&a, Some(&matches));
        let (s, r) = score_matches(question, p, &matches, &filters);
        scores.set(p.target, s);
        reasons.extend(r);
        scored.push((p.target, s, filters));
    }
    let has_documents = scored.iter().any(|(t, ..)| *t == Target::Documents);
    // Best structured source: highest score, then more value matches; ties keep profile order.
    let mut best_structured: Option<&(Target, f64, ExtractedFilters)> = None;
    for s in scored.iter().filter(|(t, ..)| *t != Target::Documents) {
        let better = best_structured.is_none_or(|b| s.1 > b.1 || (s.1 == b.1 && s.2.values.len() > b.2.values.len()));
        if better {
            best_structured = Some(s);
        }
    }
    let documents_score = scored.iter().find(|(t, ..)| *t == Target::Documents).map_or(0.0, |(_, s, _)| *s);
    let chosen = match best_structured {
        Some((t, s, _)) if !has_documents || *s >= STRUCTURED_THRESHOLD => {
            reasons.push(if has_documents {
                format!("→ {}: score {s} ≥ {STRUCTURED_THRESHOLD}", t.as_str())
            } else {
                format!("→ {}: the best-scoring configured source (no documents indexed)", t.as_str())
            });
            *t
        }
        // A collection or a value named, and nothing of the documents: the records answer.
        Some((t, s, _)) if *s >= COLLECTION_ALONE && documents_score == 0.0 => {
            reasons.push(format!("→ {}: score {s} and nothing of the documents named", t.as_str()));
            *t
        }
        Some((t, s, _)) => {
            reasons.push(format!("→ documents: {} scores {s} < {STRUCTURED_THRESHOLD}", t.as_str()));
            Target::Documents
        }
        None => {
            reasons.push("→ documents: the only source".to_string());
            Target::Documents
        }
    };
    let extracted_filters = scored.into_iter().find(|(t, ..)| *t == chosen).map(|(_, _, f)| f).unwrap_or_else(|| of_reading(&a, None));
    reasons.extend(type_decision.reasons.iter().cloned());
    let (mut query_type, mut confidence, mut requires_llm) = (type_decision.query_type, type_decision.confidence, type_decision.requires_llm);
    // No phrase cue, but filters on a structured source ("shipments in transit", "orders from
    // 2024"): a filter-only question, which a direct query answers.
    if type_decision.matched_nothing && chosen != Target::Documents && !extracted_filters.is_empty() {
        reasons.push("filters only: simple at 0.7".to_string());
        (query_type, confidence, requires_llm) = (QueryType::Simple, 0.7, false);
    }
    RouteDecision {
        target: chosen,
        query_type,
        confidence,
        extracted_filters,
        requires_llm,
        reasons,
        scores,
    }
}

impl RouteDecision {
    /// The decision for a terminal: target, query type, every source's score, the filters
    /// found (and dropped), the reasons.
    pub fn explain(&self) -> String {
        use std::fmt::Write as _;
        let d = self;
        let mut o = String::new();
        let _ = writeln!(o, "target:      {}", d.target.as_str());
        let _ = writeln!(o, "query type:  {} (confidence {:.2}{})", d.query_type.as_str(), d.confidence, if d.requires_llm { ", an LLM helps" } else { "" });
        let score = |s: Option<f64>| s.map(|v| format!("{v:.1}")).unwrap_or_else(|| "not configured".into());
        let _ = writeln!(o, "scores:      documents {} · sql {} · es {}", score(d.scores.documents), score(d.scores.sql), score(d.scores.es));
        let f = &d.extracted_filters;
        if !f.is_empty() {
            let _ = writeln!(o, "filters:");
            if !f.years.is_empty() {
                let _ = writeln!(o, "  years: {}", f.years.iter().map(i32::to_string).collect::<Vec<_>>().join(", "));
            }
            if let Some(r) = &f.date_range {
                let end = |d: Option<chrono::NaiveDate>| d.map(|d| d.to_string()).unwrap_or_else(|| "…".into());
                let _ = writeln!(o, "  dates: {} to {} (\"{}\")", end(r.from), end(r.to), r.phrase);
            }
            for v in &f.values {
                let _ = writeln!(o, "  {} = {:?} (\"{}\"{})", v.field, v.value, v.phrase, if v.via_alias { ", alias" } else { "" });
            }
        }
        for w in &f.warnings {
            let _ = writeln!(o, "  dropped: {w}");
        }
        let _ = writeln!(o, "reasons:");
        for r in &d.reasons {
            let _ = writeln!(o, "  {r}");
        }
        o
    }
}

#[cfg(test)]
mod tests;
