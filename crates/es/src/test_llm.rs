//! A fake [`Llm`] for unit tests: a function of the request decides each reply (`None` is an
//! unreachable endpoint), and every request is kept so tests can read what was asked.

use std::sync::{Arc, Mutex};

use qa_llm::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, TokenUsage};

type Reply = Box<dyn FnMut(usize, &ChatRequest) -> Option<String> + Send>;

/// Replies computed by a function of the call number (0-based) and the request.
pub(crate) struct FakeLlm {
    reply: Reply,
    /// The requests received, in order (shared, so a test can read them after the run).
    pub(crate) requests: Arc<Mutex<Vec<ChatRequest>>>,
}

impl FakeLlm {
    pub(crate) fn new(reply: impl FnMut(usize, &ChatRequest) -> Option<String> + Send + 'static) -> FakeLlm {
        FakeLlm { reply: Box::new(reply), requests: Arc::default() }
    }

    /// Replies `replies` in order, then fails as unreachable.
    pub(crate) fn script(replies: &[&str]) -> FakeLlm {
        let replies: Vec<String> = replies.iter().map(|s| s.to_string()).collect();
        FakeLlm::new(move |n, _| replies.get(n).cloned())
    }

    /// The user message of request `n`.
    pub(crate) fn user_message(&self, n: usize) -> String {
        self.requests.lock().unwrap().get(n).and_then(|r| r.messages.last()).map(|m| m.content.clone()).unwrap_or_default()
    }
}

impl Llm for FakeLlm {
    fn provider(&self) -> &'static str {
        "fake"
    }

    fn model_id(&self) -> String {
        "fake-model".into()
    }

    fn context_length(&self) -> Option<usize> {
        None
    }

    fn count_tokens(&self, text: &str) -> usize {
        qa_llm::estimate_tokens(text)
    }

    fn chat(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let n = {
            let mut r = self.requests.lock().unwrap();
            r.push(request.clone());
            r.len() - 1
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
            None => Err(LlmError::Unavailable { url: "fake".into(), reason: "connection refused".into() }),
        }
    }
}
