//! A scripted [`Llm`] for unit tests: it returns its replies in order and counts tokens with
//! [`qa_llm::estimate_tokens`].

use std::collections::VecDeque;

use qa_llm::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, TokenUsage};

/// Replies in order: `Some(text)` is the model's output, `None` an unreachable endpoint.
pub(crate) struct ScriptedLlm {
    replies: VecDeque<Option<String>>,
    /// The requests received, in order.
    pub requests: Vec<ChatRequest>,
}

impl ScriptedLlm {
    /// An LLM that answers with `replies`, then fails.
    pub(crate) fn new<'a>(replies: impl IntoIterator<Item = Option<&'a str>>) -> ScriptedLlm {
        let replies = replies.into_iter().map(|r| r.map(String::from)).collect();
        ScriptedLlm { replies, requests: Vec::new() }
    }
}

impl Llm for ScriptedLlm {
    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn model_id(&self) -> String {
        "scripted".into()
    }

    fn context_length(&self) -> Option<usize> {
        None
    }

    fn count_tokens(&self, text: &str) -> usize {
        qa_llm::estimate_tokens(text)
    }

    fn chat(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.requests.push(request.clone());
        match self.replies.pop_front().flatten() {
            Some(text) => Ok(ChatResponse {
                usage: TokenUsage::new(10, 10),
                text,
                finish_reason: FinishReason::Stop,
                latency_ms: 1.0,
                prompt_tokens_per_s: None,
                completion_tokens_per_s: None,
                attempts: 1,
            }),
            None => Err(LlmError::Unavailable { url: "scripted".into(), reason: "connection refused".into() }),
        }
    }
}
