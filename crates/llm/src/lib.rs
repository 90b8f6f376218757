//! The `Llm` trait and its providers: a local GGUF chat model run in-process through candle
//! ([`local`]), any OpenAI-compatible `/v1/chat/completions` endpoint ([`openai`]), or none.
//!
//! Callers never depend on a provider: they build a [`ChatRequest`] (messages, token budget, and
//! whether the output must be JSON) and get text plus token usage back, or an [`LlmError`] that
//! they turn into a degraded, extractive answer.

// Not every public item of this crate is documented yet; the other library crates are.
#![allow(missing_docs)]

pub mod local;
pub mod openai;
pub mod prompt;
pub mod run;
pub mod select;

pub use prompt::{Prompt, PromptError};
pub use run::{LlmCallRecord, LlmRun};
pub use qa_core::evidence::TokenUsage;
pub use select::{choose, open, Generation, LlmChoice, LlmProvider, LlmSettings, LlmWeights};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage { role: Role::User, content: content.into() }
    }
}

/// What shape the output must have.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputFormat {
    Text,
    /// A JSON object matching `schema`. Remote providers send it as `response_format`
    /// (`json_schema`, falling back to `json_object`, then to none when the server rejects it);
    /// the local model starts its answer with `prefix` (e.g. `{"subqueries": ["`), decodes only
    /// tokens that keep the output a valid JSON prefix, and stops when the JSON value is complete.
    Json { name: String, schema: serde_json::Value, prefix: String },
}

#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    /// Upper bound on generated tokens.
    pub max_tokens: usize,
    pub format: OutputFormat,
    /// Extra stop strings (the model's own end-of-turn tokens are always honoured).
    pub stop: Vec<String>,
    /// 0 = greedy.
    pub temperature: f32,
    /// What the call is for, for traces and logs: `subqueries`, `synthesis`, `extraction`.
    pub purpose: &'static str,
}


#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// End-of-turn token, a stop string, or (JSON format) the JSON value closed.
    Stop,
    /// `max_tokens` reached.
    Length,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// For `OutputFormat::Json` with the local model: the forced prefix plus the generated
    /// continuation, i.e. the whole JSON text. Stop strings are not included.
    pub text: String,
    pub usage: TokenUsage,
    pub finish_reason: FinishReason,
    /// Wall-clock time of the call, retries included.
    pub latency_ms: f64,
    /// Prompt-processing and generation speed (local model only).
    pub prompt_tokens_per_s: Option<f64>,
    pub completion_tokens_per_s: Option<f64>,
    /// HTTP attempts made (remote only; 1 = no retry).
    pub attempts: u32,
}

/// Why a call failed. Messages never contain API keys.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("LLM model file not found: {path}. fetch the default local model with `scripts/setup-models.sh`, or set QA_LLM_MODEL to a GGUF file (or use --llm none)")]
    ModelMissing { path: String },
    #[error("cannot load LLM model {path}: {reason}")]
    Load { path: String, reason: String },
    #[error("LLM endpoint unreachable ({url}): {reason}")]
    Unavailable { url: String, reason: String },
    #[error("LLM call timed out after {secs} s")]
    Timeout { secs: f64 },
    #[error("LLM endpoint rejected the API key (HTTP {status}); check QA_LLM_API_KEY")]
    Auth { status: u16 },
    #[error("LLM model '{model}' not found at the endpoint (HTTP 404); check QA_LLM_MODEL{detail}")]
    ModelNotFound { model: String, detail: String },
    #[error("LLM endpoint still failing after {attempts} attempts: HTTP {status} {message}")]
    GaveUp { attempts: u32, status: u16, message: String },
    #[error("LLM endpoint returned HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("LLM returned a malformed response: {0}")]
    BadResponse(String),
    #[error("prompt of {prompt_tokens} tokens does not fit the model's context of {context} tokens ({max_tokens} reserved for the answer)")]
    ContextOverflow { prompt_tokens: usize, context: usize, max_tokens: usize },
    #[error("LLM generation failed: {0}")]
    Generation(String),
    #[error("LLM misconfigured: {0}")]
    Config(String),
}

/// A chat model. Implementations are used from one thread at a time.
pub trait Llm: Send {
    /// `local` or `openai`.
    fn provider(&self) -> &'static str;
    /// The model's name as traced (`models.llm`): the GGUF file name, or the remote model name.
    fn model_id(&self) -> String;
    /// Context window in tokens, when known.
    fn context_length(&self) -> Option<usize>;
    /// Tokens `text` would take in a prompt (exact for the local model; an estimate remotely).
    fn count_tokens(&self, text: &str) -> usize;
    fn chat(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// A query a model wrote: the string field `field` of the first JSON object in `text`, else the
/// body of the first fenced block (its `lang` tag dropped, any case), else the whole text; trimmed.
/// Used for generated Cypher and SQL (models without JSON mode answer in fences or bare text).
pub fn reply_field_or_code(text: &str, field: &str, lang: &str) -> String {
    let from_json = openai::first_json_object(text)
        .and_then(|o| serde_json::from_str::<serde_json::Value>(o).ok())
        .and_then(|v| v.get(field).and_then(|c| c.as_str()).map(String::from));
    if let Some(q) = from_json {
        return q.trim().to_string();
    }
    let t = text.trim();
    let body = match t.find("```") {
        Some(start) => {
            let body = &t[start + 3..];
            let body = match body.get(..lang.len()) {
                Some(tag) if tag.eq_ignore_ascii_case(lang) => &body[lang.len()..],
                _ => body,
            };
            body.split("```").next().unwrap_or(body)
        }
        None => t,
    };
    body.trim().to_string()
}

/// Rough token estimate for models whose tokenizer we do not have: one token per 3 characters,
/// rounded up. English prose averages about 4 characters a token; counting 3 over-estimates on
/// purpose, so a prompt trimmed to a budget by this estimate fits the real one.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(3)
}
