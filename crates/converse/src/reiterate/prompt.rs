//! The reiterate prompt: the message and the last turns of the session (question, answer
//! summary, the route and query each ran) in, the F01 fields out as JSON.

use serde::Deserialize;
use serde_json::{Value, json};

use qa_llm::{ChatMessage, ChatRequest, OutputFormat, Prompt, PromptError};

/// Turns of history the LLM sees.
pub const HISTORY_TURNS: usize = 5;

/// Longest goal accepted from the model, in characters.
pub const MAX_GOAL_CHARS: usize = 600;

/// One earlier turn as the LLM sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextTurn {
    /// The message as typed.
    pub question: String,
    /// The goal it was turned into.
    pub main_goal: String,
    /// What the answer said, in a line.
    pub answer_summary: String,
    /// Where it ran and what the query asked for ("sql", "es search", "documents").
    pub intent: String,
}

/// The prompt: restate `message` given `history` (oldest first; the last [`HISTORY_TURNS`] are
/// sent).
#[derive(Debug, Clone, Copy)]
pub struct ReiteratePrompt<'a> {
    /// The new message.
    pub message: &'a str,
    /// The session's earlier turns.
    pub history: &'a [ContextTurn],
}

/// A validated reply.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LlmReading {
    /// The actionable goal (never empty).
    pub main_goal: String,
    /// Why the goal reads as it does.
    #[serde(default)]
    pub reasoning: String,
    /// A query pasted in the message, copied exactly (checked to occur in the message).
    #[serde(default)]
    pub user_query_text: Option<String>,
    /// The message refers to earlier results.
    #[serde(default)]
    pub references_prior_results: bool,
    /// The user asked to run without clarifying questions.
    #[serde(default)]
    pub force_execute: bool,
}

fn reply_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "main_goal": {"type": "string", "minLength": 1},
            "reasoning": {"type": "string"},
            "user_query_text": {"type": ["string", "null"]},
            "references_prior_results": {"type": "boolean"},
            "force_execute": {"type": "boolean"}
        },
        "required": ["main_goal", "reasoning", "user_query_text", "references_prior_results", "force_execute"],
        "additionalProperties": false
    })
}

impl Prompt for ReiteratePrompt<'_> {
    type Reply = LlmReading;

    fn request(&self) -> ChatRequest {
        let mut user = String::new();
        let recent = &self.history[self.history.len().saturating_sub(HISTORY_TURNS)..];
        if recent.is_empty() {
            user.push_str("There are no earlier turns.\n");
        } else {
            user.push_str("Earlier turns, oldest first:\n");
            for (n, t) in recent.iter().enumerate() {
                user.push_str(&format!("{}. user: {}\n   goal: {}\n   ran: {}\n   answer: {}\n", n + 1, t.question, t.main_goal, t.intent, t.answer_summary));
            }
        }
        user.push_str(&format!(
            "\nRestate the new message as one standalone, actionable goal. Replace pronouns and references \
             (\"it\", \"the same\", \"those\") with what they refer to in the earlier turns; keep names, values and \
             dates exactly as written; do not answer the question and do not add conditions the user did not state. \
             If the message contains an Elasticsearch request or a SQL statement, copy it exactly into \
             user_query_text, else null. Set references_prior_results when the message refers to earlier results \
             (more of them, the same query changed), and force_execute when the user asks to run without \
             clarifying questions.\n\nNew message: {}",
            self.message
        ));
        ChatRequest {
            messages: vec![ChatMessage::system("You restate a user's message in a question-answering session as an executable goal. Reply with JSON only."), ChatMessage::user(user)],
            max_tokens: 300,
            format: OutputFormat::Json { name: "reiteration".into(), schema: reply_schema(), prefix: "{\"main_goal\": \"".into() },
            stop: vec![],
            temperature: 0.0,
            purpose: "reiterate",
        }
    }

    fn parse(&self, reply: &str) -> Result<LlmReading, PromptError> {
        let object = qa_llm::openai::first_json_object(reply.trim()).ok_or_else(|| PromptError("the reply holds no JSON object".into()))?;
        let v: Value = serde_json::from_str(object).map_err(|e| PromptError(format!("the reply is not JSON: {e}")))?;
        check_schema(&v)?;
        // Nulls read as the field's default (the schema allows null for the optional ones).
        let v = match v {
            Value::Object(o) => Value::Object(o.into_iter().filter(|(_, x)| !x.is_null()).collect()),
            other => other,
        };
        let mut r: LlmReading = serde_json::from_value(v).map_err(|e| PromptError(format!("the reply does not follow the schema: {e}")))?;
        r.main_goal = r.main_goal.trim().to_string();
        if r.main_goal.is_empty() {
            return Err(PromptError("main_goal is empty".into()));
        }
        if r.main_goal.chars().count() > MAX_GOAL_CHARS {
            return Err(PromptError(format!("main_goal is longer than {MAX_GOAL_CHARS} characters")));
        }
        r.user_query_text = r.user_query_text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
        if let Some(t) = &r.user_query_text
            && !squeezed(self.message).contains(&squeezed(t))
        {
            return Err(PromptError("user_query_text is not in the message (a pasted query is copied, never written)".into()));
        }
        Ok(r)
    }
}

/// The schema's constraints the typed parse would not catch: unknown keys and wrong types
/// (serde would default or coerce them).
fn check_schema(v: &Value) -> Result<(), PromptError> {
    let Value::Object(o) = v else { return Err(PromptError("the reply is not a JSON object".into())) };
    let props = reply_schema()["properties"].as_object().cloned().unwrap_or_default();
    if let Some(k) = o.keys().find(|k| !props.contains_key(*k)) {
        return Err(PromptError(format!("unexpected key {k:?}")));
    }
    let typed = |k: &str, ok: fn(&Value) -> bool, what: &str| match o.get(k) {
        Some(x) if !ok(x) => Err(PromptError(format!("{k} is not {what}"))),
        None if k == "main_goal" => Err(PromptError("main_goal is missing".into())),
        _ => Ok(()),
    };
    typed("main_goal", Value::is_string, "a string")?;
    typed("reasoning", |x| x.is_string() || x.is_null(), "a string")?;
    typed("user_query_text", |x| x.is_string() || x.is_null(), "a string or null")?;
    typed("references_prior_results", |x| x.is_boolean() || x.is_null(), "a boolean")?;
    typed("force_execute", |x| x.is_boolean() || x.is_null(), "a boolean")
}

/// Whitespace removed, so a copy with other line breaks still matches.
fn squeezed(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}
