//! Constrained Cypher generation: the LLM gets the store's schema, the grounded entities, the
//! relationship types it may use and hints about the shape of the graph around them, and must
//! answer with one read-only query. Whatever it writes is only text until
//! [`super::cypher::check`] accepts it.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::cypher::{CheckReport, CypherSchema};
use super::{EntityHit, GraphSchema};
use qa_llm::{ChatMessage, ChatRequest, OutputFormat, Prompt, PromptError};

/// Rows the prompt asks for (the row cap still applies to whatever comes back).
const PROMPT_LIMIT: usize = 25;

/// Longest query accepted from the model (characters).
const MAX_CYPHER_CHARS: usize = 1200;

/// What happened to the LLM's query, for the trace and `qa graph`-style explanations.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CypherAttempt {
    /// Why no query was generated (no LLM, generation off, nothing grounded, LLM failed).
    pub skipped: Option<String>,
    /// Hints the prompt carried about the shape of the graph.
    pub hints: Vec<String>,
    /// The entity lines the prompt carried (`- name (labels)`).
    pub entities: Vec<String>,
    /// The query the model wrote, before the validator.
    pub generated: Option<String>,
    /// The validator's verdict on it.
    pub report: Option<CheckReport>,
    /// The query that ran (as generated, or sanitized).
    pub executed: Option<String>,
    /// Rows it returned.
    pub rows: usize,
    /// Why it gave no rows to use (LLM failure, invalid reply, rejected, store error).
    pub error: Option<String>,
    /// Time of the whole attempt (prompt, call, check, run), in milliseconds.
    pub ms: f64,
}

/// The store's schema as the validator's vocabulary.
pub fn to_cypher_schema(s: &GraphSchema) -> CypherSchema {
    CypherSchema {
        labels: s.labels.iter().cloned().collect(),
        relationship_types: s.relationship_types.iter().cloned().collect(),
        property_keys: s.property_keys.iter().cloned().collect(),
    }
}

/// `- <name> (<labels>)` lines for the prompt.
pub(crate) fn entity_lines(hits: &[EntityHit]) -> Vec<String> {
    hits.iter().map(|h| format!("- {} ({})", h.name, h.labels.join(", "))).collect()
}

/// The hint for two grounded concepts that share no direct edge.
pub(crate) fn no_direct_edge_hint(a: &str, b: &str) -> String {
    format!(
        "\"{a}\" and \"{b}\" have no direct relationship: connect them by co-mention, \
         MATCH (a:Concept {{id: \"{a}\"}})<-[:MENTIONS]-(d:Document)-[:MENTIONS]->(b:Concept {{id: \"{b}\"}}), \
         or by a path, MATCH p = shortestPath((a:Concept {{id: \"{a}\"}})-[*..4]-(b:Concept {{id: \"{b}\"}}))"
    )
}

/// The JSON schema of a reply: `{"cypher": "..."}`.
fn cypher_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"cypher": {"type": "string", "maxLength": MAX_CYPHER_CHARS}},
        "required": ["cypher"],
        "additionalProperties": false
    })
}

/// The Cypher-generation prompt: the store's schema, the grounded entities, hints about the
/// graph around them and the question; the reply is one read-only query (not yet checked).
#[derive(Debug, Clone, Copy)]
pub struct CypherPrompt<'a> {
    /// The user's question.
    pub question: &'a str,
    /// The vocabulary the query may use.
    pub schema: &'a GraphSchema,
    /// Entity lines (`- <name> (<labels>)`), grounded concepts first.
    pub entities: &'a [String],
    /// Hints about the shape of the graph (two grounded concepts without a direct edge).
    pub hints: &'a [String],
}

impl CypherPrompt<'_> {
    /// The user message: schema, entities, hints, instructions, question.
    fn user_message(&self) -> String {
        let mut user = String::new();
        user.push_str("Graph schema:\n");
        user.push_str(&format!("- node labels: {}\n", self.schema.labels.join(", ")));
        user.push_str(&format!("- relationship types (the only ones allowed): {}\n", self.schema.relationship_types.join(", ")));
        user.push_str(&format!("- property keys: {}\n", self.schema.property_keys.join(", ")));
        user.push_str(
            "- shape: (:Document)-[:MENTIONS]->(:Concept), (:Concept)-[:RELATED_TO {weight, evidence}]->(:Concept), \
             (:Document)-[:HAS_IMAGE]->(:Image)-[:DEPICTS]->(:Concept); Concept.id is the lower-case name\n",
        );
        if !self.entities.is_empty() {
            user.push_str("\nEntities found for the question (use these exact ids, invent no others):\n");
            for e in self.entities {
                user.push_str(e);
                user.push('\n');
            }
        }
        if !self.hints.is_empty() {
            user.push_str("\nHints:\n");
            for h in self.hints {
                user.push_str(&format!("- {h}\n"));
            }
        }
        user.push_str(&format!(
            "\nWrite one read-only Cypher query (MATCH, OPTIONAL MATCH, WITH, WHERE, RETURN; no CREATE, MERGE, SET, DELETE, \
             REMOVE, CALL) that returns the facts needed to answer the question, ending with LIMIT {PROMPT_LIMIT}. \
             Reply as {{\"cypher\": \"...\"}}.\n\nQuestion: {}",
            self.question
        ));
        user
    }
}

impl Prompt for CypherPrompt<'_> {
    /// The query, trimmed.
    type Reply = String;

    fn request(&self) -> ChatRequest {
        ChatRequest {
            messages: vec![
                ChatMessage::system("You translate questions into Cypher queries over a knowledge graph. Use only the given labels, relationship types and entities. Reply with JSON only."),
                ChatMessage::user(self.user_message()),
            ],
            max_tokens: 160,
            format: OutputFormat::Json { name: "cypher_query".into(), schema: cypher_schema(), prefix: "{\"cypher\": \"".into() },
            stop: vec![],
            temperature: 0.0,
            purpose: "cypher",
        }
    }

    fn parse(&self, reply: &str) -> Result<String, PromptError> {
        Ok(extract_cypher(reply)?)
    }
}

/// Why a reply holds no usable query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum CypherReplyError {
    /// Nothing but whitespace where the query should be.
    #[error("the reply holds no query")]
    Empty,
    /// The query is longer than the longest accepted.
    #[error("the query is longer than {} characters", MAX_CYPHER_CHARS)]
    TooLong,
}

impl From<CypherReplyError> for PromptError {
    fn from(e: CypherReplyError) -> Self {
        PromptError(e.to_string())
    }
}

/// The query in the model's reply: the `cypher` field of a JSON object, else a fenced or bare
/// query (models without JSON mode).
fn extract_cypher(text: &str) -> Result<String, CypherReplyError> {
    let query = qa_llm::reply_field_or_code(text, "cypher", "cypher");
    let query = query.trim().to_string();
    if query.is_empty() {
        return Err(CypherReplyError::Empty);
    }
    if query.chars().count() > MAX_CYPHER_CHARS {
        return Err(CypherReplyError::TooLong);
    }
    Ok(query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cypher_is_taken_from_json_fences_or_bare_text() {
        assert_eq!(extract_cypher(r#"{"cypher": "MATCH (c:Concept) RETURN c LIMIT 5"}"#).unwrap(), "MATCH (c:Concept) RETURN c LIMIT 5");
        assert_eq!(extract_cypher("Here:\n```cypher\nMATCH (n) RETURN n LIMIT 1\n```").unwrap(), "MATCH (n) RETURN n LIMIT 1");
        assert_eq!(extract_cypher("  MATCH (n) RETURN n LIMIT 1 ").unwrap(), "MATCH (n) RETURN n LIMIT 1");
        assert!(extract_cypher(r#"{"cypher": "  "}"#).is_err());
        assert!(extract_cypher(&"x".repeat(MAX_CYPHER_CHARS + 1)).is_err());
    }

    #[test]
    fn prompt_carries_schema_entities_and_hints() {
        let schema = GraphSchema { labels: vec!["Concept".into()], relationship_types: vec!["MENTIONS".into(), "RELATED_TO".into()], property_keys: vec!["id".into()] };
        let entities = vec!["- deep sleep (Concept)".to_string()];
        let hints = vec![no_direct_edge_hint("deep sleep", "battery life")];
        let req = CypherPrompt { question: "How does deep sleep relate to battery life?", schema: &schema, entities: &entities, hints: &hints }.request();
        let user = &req.messages[1].content;
        assert!(user.contains("MENTIONS, RELATED_TO"));
        assert!(user.contains("- deep sleep (Concept)"));
        assert!(user.contains("shortestPath"));
        assert!(user.ends_with("Question: How does deep sleep relate to battery life?"));
    }

    #[test]
    fn cypher_prompt_snapshot() {
        let schema = GraphSchema {
            labels: vec!["Concept".into(), "Document".into(), "Image".into()],
            relationship_types: vec!["DEPICTS".into(), "HAS_IMAGE".into(), "MENTIONS".into(), "RELATED_TO".into()],
            property_keys: vec!["id".into(), "name".into(), "source_id".into(), "weight".into()],
        };
        let entities = vec!["- deep sleep (Concept)".to_string(), "- battery life (Concept)".to_string()];
        let hints = vec![no_direct_edge_hint("deep sleep", "battery life")];
        let prompt = CypherPrompt { question: "How does deep sleep relate to battery life?", schema: &schema, entities: &entities, hints: &hints };
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/cypher_prompt.txt");
        qa_llm::prompt::assert_snapshot(std::path::Path::new(path), &qa_llm::prompt::render(&prompt.request()));
        assert_eq!(prompt.reply_schema(), Some(cypher_schema()));
        assert_eq!(prompt.parse(r#"{"cypher": " MATCH (n) RETURN n LIMIT 1 "}"#).unwrap(), "MATCH (n) RETURN n LIMIT 1");
        assert_eq!(prompt.parse("").unwrap_err().to_string(), "the reply holds no query");
    }
}
