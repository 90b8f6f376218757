//! An [`Llm`] whose replies are computed by a function of the call number and the request, with
//! every request kept: for the tests of the prompts' callers (the real endpoints are tested over
//! loopback in the binary's integration tests).

use std::sync::{Arc, Mutex};

use crate::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, TokenUsage};

type Reply = Box<dyn FnMut(usize, &ChatRequest) -> Option<String> + Send>;

/// Replies computed by a function of the call number (0-based) and the request; `None` is an
/// unreachable endpoint.
pub struct ScriptedLlm {
    reply: Reply,
    /// The requests received, in order (shared, so a test can read them after the run).
    pub requests: Arc<Mutex<Vec<ChatRequest>>>,
}

impl ScriptedLlm {
    /// Replies computed by `reply`.
    pub fn new(reply: impl FnMut(usize, &ChatRequest) -> Option<String> + Send + 'static) -> ScriptedLlm {
        ScriptedLlm { reply: Box::new(reply), requests: Arc::default() }
    }

    /// Replies `replies` in order, then fails as unreachable.
    pub fn script(replies: &[&str]) -> ScriptedLlm {
        let replies: Vec<String> = replies.iter().map(|s| s.to_string()).collect();
        ScriptedLlm::new(move |n, _| replies.get(n).cloned())
    }

    /// Replies in order, `None` standing for an unreachable endpoint; unreachable after the last.
    pub fn replies(replies: Vec<Option<&str>>) -> ScriptedLlm {
        let replies: Vec<Option<String>> = replies.into_iter().map(|r| r.map(String::from)).collect();
        ScriptedLlm::new(move |n, _| replies.get(n).cloned().flatten())
    }

    /// The user message of request `n` (empty when there was none).
    pub fn user_message(&self, n: usize) -> String {
        self.requests.lock().map(|r| r.get(n).and_then(|r| r.messages.last()).map(|m| m.content.clone()).unwrap_or_default()).unwrap_or_default()
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
        crate::estimate_tokens(text)
    }

    fn chat(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let n = match self.requests.lock() {
            Ok(mut r) => {
                r.push(request.clone());
                r.len() - 1
            }
            Err(_) => 0,
        };
        match (self.reply)(n, request) {
            Some(text) => Ok(ChatResponse {
                usage: TokenUsage::new(100, 20),
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
