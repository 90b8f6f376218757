//! STUB until the llm-openai branch is merged.
use std::time::Duration;
use super::*;
pub struct OpenAiOptions { pub base_url: String, pub model: String, pub api_key: Option<String>, pub timeout: Duration, pub max_retries: u32, pub context_length: Option<usize>, pub backoff: Duration }
pub struct OpenAiLlm;
impl OpenAiLlm {
    pub fn new(_o: OpenAiOptions) -> Result<OpenAiLlm, LlmError> { Err(LlmError::Config("stub".into())) }
}
impl Llm for OpenAiLlm {
    fn provider(&self) -> &'static str { "openai" }
    fn model_id(&self) -> String { String::new() }
    fn context_length(&self) -> Option<usize> { None }
    fn count_tokens(&self, text: &str) -> usize { estimate_tokens(text) }
    fn chat(&mut self, _r: &ChatRequest) -> Result<ChatResponse, LlmError> { Err(LlmError::Generation("stub".into())) }
}
