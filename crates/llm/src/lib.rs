//! The `Llm` trait and its providers: a local GGUF chat model run in-process through candle
//! (`local`, built with the `local-llm` cargo feature, on by default), any OpenAI-compatible
//! `/v1/chat/completions` endpoint ([`openai`]), or none.
//!
//! Callers never depend on a provider: they build a [`ChatRequest`] (messages, token budget, and
//! whether the output must be JSON) and get text plus token usage back, or an [`LlmError`] that
//! they turn into a degraded, extractive answer.

#[cfg(feature = "local-llm")]
pub mod local;
pub mod openai;
pub mod prompt;
pub mod run;
pub mod scripted;
pub mod select;
pub mod uses;

pub use prompt::{Prompt, PromptError};
pub use run::{LlmCallRecord, LlmRun};
pub use qa_core::evidence::TokenUsage;
pub use uses::{LlmFor, open_for};
pub use select::{choose, open, Generation, LlmChoice, LlmProvider, LlmSettings, LlmWeights};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
/// Who wrote a chat message.
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The question or task put to the model.
    User,
    /// The model's own (earlier) reply.
    Assistant,
}

impl Role {
    /// The role's name in the OpenAI chat format and chat templates (`system`, `user`, `assistant`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
/// One turn of a chat.
pub struct ChatMessage {
    /// Who wrote it.
    pub role: Role,
    /// The message text.
    pub content: String,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage { role: Role::System, content: content.into() }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage { role: Role::User, content: content.into() }
    }
}

/// What shape the output must have.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputFormat {
    /// Free text.
    Text,
    /// A JSON object matching `schema`. Remote providers send it as `response_format`
    /// (`json_schema`, falling back to `json_object`, then to none when the server rejects it);
    /// the local model starts its answer with `prefix` (e.g. `{"subqueries": ["`), decodes only
    /// tokens that keep the output a valid JSON prefix, and stops when the JSON value is complete.
    Json {
        /// The schema's name (`response_format.json_schema.name`).
        name: String,
        /// The JSON Schema the reply must match.
        schema: serde_json::Value,
        /// Text the local model's reply is forced to start with (part of the returned text).
        prefix: String,
    },
}

/// One call to a chat model: the conversation and how to answer it.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// The conversation so far, oldest first.
    pub messages: Vec<ChatMessage>,
    /// Upper bound on generated tokens.
    pub max_tokens: usize,
    /// Free text or JSON.
    pub format: OutputFormat,
    /// Extra stop strings (the model's own end-of-turn tokens are always honoured).
    pub stop: Vec<String>,
    /// 0 = greedy.
    pub temperature: f32,
    /// What the call is for, for traces and logs: `subqueries`, `synthesis`, `extraction`.
    pub purpose: &'static str,
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// End-of-turn token, a stop string, or (JSON format) the JSON value closed.
    Stop,
    /// `max_tokens` reached.
    Length,
}

/// A model's reply to a [`ChatRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// For `OutputFormat::Json` with the local model: the forced prefix plus the generated
    /// continuation, i.e. the whole JSON text. Stop strings are not included.
    pub text: String,
    /// Prompt and completion tokens of the call (as the server reports them, remotely).
    pub usage: TokenUsage,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Wall-clock time of the call, retries included.
    pub latency_ms: f64,
    /// Prompt-processing speed in tokens per second (local model only).
    pub prompt_tokens_per_s: Option<f64>,
    /// Generation speed in tokens per second (local model only).
    pub completion_tokens_per_s: Option<f64>,
    /// HTTP attempts made (remote only; 1 = no retry).
    pub attempts: u32,
}

/// Why a call failed. Messages never contain API keys.
// Clone: an `LlmRun` keeps the error that made the LLM unusable and returns it for later calls.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    #[error("LLM model file not found: {path}. fetch the default local model with `qa setup` (or scripts/setup-models.sh in a clone), or set QA_LLM_MODEL to a GGUF file (or use --llm none)")]
    /// The local GGUF file does not exist.
    ModelMissing {
        /// The path looked for.
        path: String,
    },
    #[error("cannot load LLM model {path}: {reason}")]
    /// The local model file exists but could not be read or is not a supported GGUF.
    Load {
        /// The model file (or folder).
        path: String,
        /// What went wrong.
        reason: String,
    },
    #[error("LLM endpoint unreachable ({url}): {reason}")]
    /// The endpoint could not be reached or dropped the connection (refused, DNS, TLS, reset…).
    Unavailable {
        /// The endpoint, without credentials.
        url: String,
        /// The transport error.
        reason: String,
    },
    #[error("LLM call timed out after {secs} s")]
    /// The call did not finish within the configured timeout.
    Timeout {
        /// The timeout, in seconds.
        secs: f64,
    },
    #[error("LLM endpoint rejected the API key (HTTP {status}); check QA_LLM_API_KEY")]
    /// The endpoint refused the API key (HTTP 401 or 403).
    Auth {
        /// The HTTP status.
        status: u16,
    },
    #[error("LLM model '{model}' not found at the endpoint (HTTP 404); check QA_LLM_MODEL{detail}")]
    /// The endpoint answered HTTP 404: it does not serve the named model.
    ModelNotFound {
        /// The model name sent.
        model: String,
        /// The server's explanation, formatted as a message suffix (may be empty).
        detail: String,
    },
    #[error("LLM endpoint still failing after {attempts} attempts: HTTP {status} {message}")]
    /// Retryable failures (429, 5xx) persisted through every retry.
    GaveUp {
        /// Attempts made, the first included.
        attempts: u32,
        /// The last HTTP status.
        status: u16,
        /// The last error body, shortened and redacted.
        message: String,
    },
    #[error("LLM endpoint returned HTTP {status}: {message}")]
    /// Any other non-success HTTP status.
    Http {
        /// The HTTP status.
        status: u16,
        /// The error body, shortened and redacted.
        message: String,
    },
    #[error("LLM returned a malformed response: {0}")]
    /// The reply could not be read (not JSON, no choices, no content…).
    BadResponse(String),
    #[error("prompt of {prompt_tokens} tokens does not fit the model's context of {context} tokens ({max_tokens} reserved for the answer)")]
    /// The prompt plus the answer budget exceed the local model's context window.
    ContextOverflow {
        /// Tokens in the rendered prompt.
        prompt_tokens: usize,
        /// The model's context window, in tokens.
        context: usize,
        /// Tokens reserved for the answer (`max_tokens`).
        max_tokens: usize,
    },
    #[error("LLM generation failed: {0}")]
    /// The local model could not encode the prompt or failed while generating.
    Generation(String),
    #[error("LLM misconfigured: {0}")]
    /// The settings cannot work (no endpoint, no model name, ambiguous model folder, bad URL…).
    Config(String),
    #[error(
        "the local LLM provider is not in this build: qa was built without the `local-llm` cargo feature \
         (rebuild with the default features, or `cargo build --release --features local-llm`); \
         use an OpenAI-compatible endpoint (QA_LLM_BASE_URL) or --llm none"
    )]
    /// The local provider was chosen in a build without the `local-llm` feature.
    LocalNotBuilt,
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
    /// Run one request to completion.
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
