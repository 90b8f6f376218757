//! Opening the configured LLM for the parts of a run that may use it. Each use has its own
//! setting (`sql_generation`, `es_generation`, `reiterate`: auto = remote LLMs only, on, off);
//! the LLM is opened once when at least one use may have it.

use crate::{Generation, Llm, LlmChoice, LlmSettings};

/// The LLM opened for some uses.
pub struct LlmFor {
    /// The LLM, when a use may have it and it opened.
    pub llm: Option<Box<dyn Llm>>,
    /// Why there is no LLM (for the trace), when there is none.
    pub skip: Option<String>,
    /// Per use, in the order asked: whether it may use the LLM.
    pub allowed: Vec<bool>,
}

impl LlmFor {
    /// Whether use `i` may use the opened LLM.
    pub fn may(&self, i: usize) -> bool {
        self.llm.is_some() && self.allowed.get(i).copied().unwrap_or(false)
    }
}

/// Open the LLM for `uses` (setting name and value each).
pub fn open_for(settings: &LlmSettings, uses: &[(&str, Generation)]) -> LlmFor {
    let none = |why: String| LlmFor { llm: None, skip: Some(why), allowed: vec![false; uses.len()] };
    if let Some(why) = uses.iter().map(|(name, g)| g.refusal(name, false)).collect::<Option<Vec<_>>>() {
        // Every use is off.
        return none(why.join("; "));
    }
    let choice = match crate::choose(settings) {
        Ok(c) => c,
        Err(e) => return none(e.to_string()),
    };
    let local = match &choice {
        LlmChoice::None { reason } => return none(reason.clone()),
        LlmChoice::Local { .. } => true,
        _ => false,
    };
    let refusals: Vec<Option<String>> = uses.iter().map(|(name, g)| g.refusal(name, local)).collect();
    if refusals.iter().all(Option::is_some) {
        return none(refusals.into_iter().flatten().collect::<Vec<_>>().join("; "));
    }
    let allowed = refusals.iter().map(Option::is_none).collect();
    match crate::open(settings, &choice) {
        Ok(llm) => LlmFor { skip: llm.is_none().then(|| "no LLM configured".to_string()), llm, allowed },
        Err(e) => LlmFor { llm: None, skip: Some(e.to_string()), allowed },
    }
}
