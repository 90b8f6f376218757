//! One question's (or one index run's) use of an LLM: every call is recorded for the trace, token
//! usage is summed, and after a failure that will not go away within the run (endpoint down,
//! timeout, bad key, missing model) later calls are skipped instead of waiting again.

use serde::Serialize;

use super::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, TokenUsage};

/// What the trace keeps of one call.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LlmCallRecord {
    /// The request's [`ChatRequest::purpose`].
    pub purpose: String,
    /// The call returned a response.
    pub ok: bool,
    /// The error message, when the call failed.
    pub error: Option<String>,
    /// Tokens used (zero for a failed call).
    pub usage: TokenUsage,
    /// Wall-clock time of the call in milliseconds, retries included.
    pub latency_ms: f64,
    /// Why generation stopped (`None` for a failed call).
    pub finish_reason: Option<FinishReason>,
    /// HTTP attempts made (remote only; 0 for a failed call).
    pub attempts: u32,
    /// Prompt-processing speed in tokens per second (local model only).
    pub prompt_tokens_per_s: Option<f64>,
    /// Generation speed in tokens per second (local model only).
    pub completion_tokens_per_s: Option<f64>,
    /// What the caller did with the output (`used`, `invalid_json`, `fallback: …`), set afterwards.
    pub outcome: String,
}

/// An LLM borrowed for one run, with the record of its calls.
pub struct LlmRun<'a> {
    llm: &'a mut dyn Llm,
    /// Every call made so far, in order (skipped calls are not recorded).
    pub calls: Vec<LlmCallRecord>,
    /// Set after a failure that makes further calls pointless in this run (the failure).
    pub down: Option<LlmError>,
}

impl<'a> LlmRun<'a> {
    /// Start a run on `llm` with no calls made.
    pub fn new(llm: &'a mut dyn Llm) -> Self {
        LlmRun { llm, calls: Vec::new(), down: None }
    }

    /// The model, for its name, provider, context length and token counts.
    pub fn llm(&self) -> &dyn Llm {
        &*self.llm
    }

    /// Make one call, or fail at once (with the same error) if an earlier call showed the LLM
    /// is unusable.
    pub fn call(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        if let Some(e) = &self.down {
            return Err(e.clone());
        }
        let t = std::time::Instant::now();
        let result = self.llm.chat(request);
        let record = match &result {
            Ok(r) => LlmCallRecord {
                purpose: request.purpose.into(),
                ok: true,
                error: None,
                usage: r.usage,
                latency_ms: r.latency_ms,
                finish_reason: Some(r.finish_reason),
                attempts: r.attempts,
                prompt_tokens_per_s: r.prompt_tokens_per_s,
                completion_tokens_per_s: r.completion_tokens_per_s,
                outcome: String::new(),
            },
            Err(e) => LlmCallRecord {
                purpose: request.purpose.into(),
                ok: false,
                error: Some(e.to_string()),
                usage: TokenUsage::default(),
                latency_ms: t.elapsed().as_secs_f64() * 1000.0,
                finish_reason: None,
                attempts: 0,
                prompt_tokens_per_s: None,
                completion_tokens_per_s: None,
                outcome: "error".into(),
            },
        };
        tracing::info!(purpose = request.purpose, ok = record.ok, latency_ms = record.latency_ms, prompt = record.usage.prompt, completion = record.usage.completion, "llm call");
        self.calls.push(record);
        if let Err(e) = &result
            && is_persistent(e)
        {
            self.down = Some(e.clone());
        }
        result
    }

    /// Record what was done with the last call's output.
    pub fn set_outcome(&mut self, outcome: impl Into<String>) {
        if let Some(last) = self.calls.last_mut() {
            last.outcome = outcome.into();
        }
    }

    /// Tokens used by all calls.
    pub fn usage(&self) -> TokenUsage {
        let mut sum = TokenUsage::default();
        for c in &self.calls {
            sum.add(c.usage);
        }
        sum
    }

    /// Total time spent in calls, in milliseconds.
    pub fn latency_ms(&self) -> f64 {
        self.calls.iter().map(|c| c.latency_ms).sum()
    }
}

/// Failures that another call in the same run would only repeat.
fn is_persistent(e: &LlmError) -> bool {
    matches!(
        e,
        LlmError::ModelMissing { .. }
            | LlmError::Load { .. }
            | LlmError::Unavailable { .. }
            | LlmError::Timeout { .. }
            | LlmError::Auth { .. }
            | LlmError::ModelNotFound { .. }
            | LlmError::GaveUp { .. }
            | LlmError::Config(_)
            | LlmError::LocalNotBuilt
    )
}
