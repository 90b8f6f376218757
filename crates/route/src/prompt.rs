//! The prompt of a complex or hybrid answer: the question, the deterministic analysis and the
//! selected records (within the context budget), answered in prose that cites record ids.

use qa_llm::prompt::{Prompt, PromptError};
use qa_llm::{ChatMessage, ChatRequest, OutputFormat};
use serde_json::Value;

use crate::analysis::Analysis;

/// Input of the analysis prompt.
pub struct AnalysisPrompt<'a> {
    /// The question.
    pub question: &'a str,
    /// The deterministic analysis of the records.
    pub analysis: &'a Analysis,
    /// The selected records (at most [`crate::analysis::MAX_RECORDS`], within the token budget).
    pub records: &'a [Value],
}

impl Prompt for AnalysisPrompt<'_> {
    type Reply = String;

    fn request(&self) -> ChatRequest {
        let mut records = String::new();
        for (id, r) in self.analysis.cited.iter().zip(self.records) {
            records.push_str(&format!("[{id}] {r}\n"));
        }
        let user = format!(
            "Question: {q}\n\nSummary of the {n} records:\n{summary}\nRecords:\n{records}\n\
             Answer the question from these records only. Cite the records you rely on by their id in \
             brackets, e.g. [{first}]. If the records do not answer it, say so.",
            q = self.question,
            n = self.analysis.records,
            summary = self.analysis.render(),
            first = self.analysis.cited.first().map(String::as_str).unwrap_or("1"),
        );
        ChatRequest {
            messages: vec![ChatMessage::system("You analyse database records for a user. Be concise and factual."), ChatMessage::user(user)],
            max_tokens: 400,
            format: OutputFormat::Text,
            stop: vec![],
            temperature: 0.0,
            purpose: "analysis",
        }
    }

    fn parse(&self, reply: &str) -> Result<String, PromptError> {
        let text = reply.trim();
        if text.is_empty() {
            return Err(PromptError("empty analysis".into()));
        }
        Ok(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyse;
    use serde_json::json;

    #[test]
    fn snapshot() {
        let records = vec![json!({"id": "R1", "kind": "leak", "cost": 120}), json!({"id": "R2", "kind": "leak", "cost": 80})];
        let analysis = analyse(&records);
        let p = AnalysisPrompt { question: "Why are repairs expensive?", analysis: &analysis, records: &records };
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/analysis.txt"));
        qa_llm::prompt::assert_snapshot(path, &qa_llm::prompt::render(&p.request()));
        assert!(p.parse("  ").is_err());
        assert_eq!(p.parse(" ok [R1] ").unwrap(), "ok [R1]");
    }
}
