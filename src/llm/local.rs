//! STUB until the llm-local branch is merged.
use std::path::PathBuf;
use super::*;
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightMode { Auto, F32, Q8_0, Keep }
impl std::str::FromStr for WeightMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s { "auto" => Ok(Self::Auto), "f32" => Ok(Self::F32), "q8_0" => Ok(Self::Q8_0), "keep" => Ok(Self::Keep), _ => Err(s.into()) }
    }
}
pub struct LocalOptions { pub path: PathBuf, pub prefill_threads: usize, pub decode_threads: usize, pub weights: WeightMode, pub context_override: Option<usize> }
pub struct LocalLlm;
impl LocalLlm {
    pub fn load(opts: &LocalOptions) -> Result<LocalLlm, LlmError> { Err(LlmError::ModelMissing { path: opts.path.display().to_string() }) }
}
impl Llm for LocalLlm {
    fn provider(&self) -> &'static str { "local" }
    fn model_id(&self) -> String { String::new() }
    fn context_length(&self) -> Option<usize> { None }
    fn count_tokens(&self, text: &str) -> usize { estimate_tokens(text) }
    fn chat(&mut self, _r: &ChatRequest) -> Result<ChatResponse, LlmError> { Err(LlmError::Generation("stub".into())) }
}
