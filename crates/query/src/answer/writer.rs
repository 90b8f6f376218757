//! The answer-writer seam: who turns the selected evidence into the answer. Two real writers —
//! [`ExtractiveWriter`] (quotes the best evidence sentences; the default) and [`LlmWriter`] (an
//! LLM writes from the evidence, a grounding guard keeps what the evidence supports, and the
//! extractive answer stands in when it does not; when the LLM says the passages do not answer
//! the question, the answer says so, and a near miss of the evidence check is the LLM's to read).

use qa_llm::LlmRun;

use super::grounding::{EmbedFn, Grounding};
use super::llm::{synthesize_with_llm, LlmSynthesis, PromptInfo};
use super::{synthesize, Answer, SynthesisInput};

/// What a writer produced.
pub struct Written {
    /// The answer shown to the user.
    pub answer: Answer,
    /// The prompt the LLM was sent (LLM writer only).
    pub prompt: Option<PromptInfo>,
    /// How well each sentence of the LLM's draft was supported (LLM writer only).
    pub grounding: Option<Grounding>,
    /// One line for the user when the writer's own answer was not used.
    pub note: Option<String>,
    /// The LLM failed (for the trace's `error`); a withheld answer is a `note`, not an error.
    pub error: Option<String>,
}

impl Written {
    fn plain(answer: Answer) -> Written {
        Written { answer, prompt: None, grounding: None, note: None, error: None }
    }
}

/// Writes the answer to a question from its evidence.
pub trait AnswerWriter {
    /// Write the answer for `input`.
    fn write(&mut self, input: SynthesisInput<'_>) -> Written;
}

/// Quotes the evidence sentences that best answer the question, with their citations.
pub struct ExtractiveWriter;

impl AnswerWriter for ExtractiveWriter {
    fn write(&mut self, input: SynthesisInput<'_>) -> Written {
        Written::plain(synthesize(input))
    }
}

/// Limits of the LLM writer.
#[derive(Debug, Clone, Copy)]
pub struct LlmWriterLimits {
    /// Prompt budget in model tokens (evidence is cut to fit).
    pub prompt_budget: usize,
    /// Most tokens the answer may have.
    pub max_tokens: usize,
    /// Support a sentence needs to be kept.
    pub grounding_threshold: f32,
    /// Share of the draft that must be supported, else the extractive answer is shown.
    pub grounding_min_supported: f32,
    /// The LLM's reading decides whether the passages answer (`llm_answerability`): its "not in
    /// the passages" is believed, and a question the evidence check refuses narrowly is its to read.
    pub llm_answerability: bool,
}

/// Said with an LLM answer to a question the evidence check alone would have refused.
const NEAR_MISS_NOTE: &str = "the documents do not use every word of the question; the LLM read the closest passages and answered from the ones it cites.";

/// An LLM writes from the evidence; see the module documentation.
pub struct LlmWriter<'r, 'l, 'e> {
    run: &'r mut LlmRun<'l>,
    limits: LlmWriterLimits,
    embed: EmbedFn<'e>,
}

impl<'r, 'l, 'e> LlmWriter<'r, 'l, 'e> {
    /// A writer calling `run`'s LLM; `embed` embeds sentences for the grounding guard.
    pub fn new(run: &'r mut LlmRun<'l>, limits: LlmWriterLimits, embed: EmbedFn<'e>) -> Self {
        LlmWriter { run, limits, embed }
    }
}

impl AnswerWriter for LlmWriter<'_, '_, '_> {
    fn write(&mut self, input: SynthesisInput<'_>) -> Written {
        let (question, candidates, graph, images) = (input.question, input.candidates.clone(), input.graph, input.images);
        // A near miss of the evidence check — the question's names found, its other words not all
        // the documents' — is the LLM's to read: the answer may be there in other words, and the
        // model says so or says the passages do not answer it.
        let near_miss = self.limits.llm_answerability
            && input.best_score >= input.relevance_threshold && input.focus.as_ref().is_some_and(|f| input.unanswered(f) && input.near_miss(f));
        let extractive = synthesize(input);
        // Nothing relevant was retrieved, or the evidence is far from the question: an LLM would
        // only invent, so say so plainly.
        if !extractive.found && !near_miss {
            return Written::plain(extractive);
        }
        let out = synthesize_with_llm(
            self.run,
            LlmSynthesis {
                question,
                candidates: &candidates,
                graph,
                extractive: &extractive,
                images,
                prompt_budget: self.limits.prompt_budget,
                max_tokens: self.limits.max_tokens,
                grounding_threshold: self.limits.grounding_threshold,
                grounding_min_supported: self.limits.grounding_min_supported,
                embed: self.embed,
                believe_declines: self.limits.llm_answerability,
            },
        );
        let note = match out.note {
            None if near_miss && out.answer.found => Some(NEAR_MISS_NOTE.to_string()),
            note => note,
        };
        Written { answer: out.answer, prompt: out.prompt, grounding: out.grounding, note, error: out.error }
    }
}
