//! The local chat model: a GGUF file (llama or qwen2 architecture) run in-process through candle.
//!
//! Loading reads the tokenizer and chat template from the GGUF metadata and converts the weights
//! to types candle multiplies fast ([`WeightMode`]). A call renders the chat with the model's
//! template, prefills the prompt in one forward pass, then decodes greedily (or samples with a
//! fixed seed when `temperature > 0`) until an end-of-turn token, a stop string or `max_tokens`.
//! For [`OutputFormat::Json`] the answer starts with the forced prefix and every token is chosen
//! among those that keep the text a valid JSON prefix, stopping when the value is complete. When
//! the request's schema is in the subset [`schema_guide::SchemaGuide`] understands, the text must
//! also stay a prefix of a value matching the schema (allowed keys, required keys, value types,
//! item and length bounds); otherwise only the syntax is constrained. If
//! `max_tokens` runs out first the call fails with [`LlmError::Generation`] (a JSON fragment is
//! of no use to callers), so a JSON answer that is returned always parses.

pub mod chat_template;
pub mod error;
pub mod gguf_tokenizer;
pub mod json_constraint;
pub mod schema_guide;
mod transformer;
mod weights;

use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Instant;

use candle_core::{DType, Device, Tensor};

use self::chat_template::{ChatTemplate, TemplateTokens};
use self::error::{LoadError, UnknownWeightMode};
use self::gguf_tokenizer::GgufTokenizer;
use self::json_constraint::JsonPrefix;
use self::schema_guide::JsonConstraint;
use self::transformer::Transformer;
use super::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, OutputFormat, TokenUsage};

pub use self::weights::SUPPORTED_ARCHITECTURES;

/// How the GGUF's weights are converted at load time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightMode {
    /// Models under ~1B parameters: every quantized tensor but Q8_0 to F32 (fastest prefill,
    /// memory is small anyway); larger ones: Q4_0/Q4_1/Q5_0/Q5_1 to Q8_0, K-quants kept.
    #[default]
    Auto,
    /// Q4_0/Q4_1/Q5_0/Q5_1 tensors to F32.
    F32,
    /// Q4_0/Q4_1/Q5_0/Q5_1 tensors to Q8_0.
    Q8_0,
    /// No conversion.
    Keep,
}

impl FromStr for WeightMode {
    type Err = UnknownWeightMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(WeightMode::Auto),
            "f32" => Ok(WeightMode::F32),
            "q8_0" | "q8" => Ok(WeightMode::Q8_0),
            "keep" => Ok(WeightMode::Keep),
            other => Err(UnknownWeightMode(other.to_string())),
        }
    }
}

impl fmt::Display for WeightMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WeightMode::Auto => "auto",
            WeightMode::F32 => "f32",
            WeightMode::Q8_0 => "q8_0",
            WeightMode::Keep => "keep",
        })
    }
}

/// How to load and run a local GGUF model.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// The GGUF file.
    pub path: PathBuf,
    /// candle threads for the prompt's forward pass.
    pub prefill_threads: usize,
    /// candle threads for each generated token.
    pub decode_threads: usize,
    /// How the weights are held in memory (converted at load or kept as stored).
    pub weights: WeightMode,
    /// Context window to enforce instead of the model's own (never larger than candle supports).
    pub context_override: Option<usize>,
}

impl LocalOptions {
    /// Defaults: all cores for both phases, automatic weight conversion, the model's context.
    pub fn new(path: impl Into<PathBuf>) -> LocalOptions {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        LocalOptions {
            path: path.into(),
            prefill_threads: cores,
            decode_threads: cores,
            weights: WeightMode::Auto,
            context_override: None,
        }
    }
}

/// Facts about the loaded model, for logs and the speed example.
#[derive(Debug, Clone)]
pub struct LoadStats {
    /// Seconds loading took.
    pub load_secs: f64,
    /// `general.architecture` of the GGUF (`llama`, `qwen2`).
    pub architecture: String,
    /// Parameters in the file.
    pub parameters: usize,
    /// Weight bytes streamed from memory per generated token (matrices as loaded).
    pub bytes_per_token: usize,
    /// Tensor conversions done at load, e.g. `210 Q4_1→F32, 1 Q8_0→F32`.
    pub conversions: String,
    /// The weight mode it was loaded with.
    pub weight_mode: WeightMode,
}

/// A GGUF chat model run in-process on the CPU through candle.
pub struct LocalLlm {
    transformer: Transformer,
    tokenizer: GgufTokenizer,
    template: ChatTemplate,
    context: usize,
    model_id: String,
    prefill_threads: usize,
    decode_threads: usize,
    stats: LoadStats,
}

/// Candidates tried per step under the JSON constraint before giving up.
const MAX_JSON_CANDIDATES: usize = 64;
/// Seed of the sampler used when `temperature > 0`, so runs are reproducible.
const SAMPLING_SEED: u64 = 0x5EED_1234_ABCD_0001;

impl LocalLlm {
    /// Load the model `opts.path` names: tokenizer and chat template from its metadata, weights
    /// converted per `opts.weights`. A missing file is [`LlmError::ModelMissing`].
    pub fn load(opts: &LocalOptions) -> Result<LocalLlm, LlmError> {
        let path_str = opts.path.display().to_string();
        if !opts.path.is_file() {
            return Err(LlmError::ModelMissing { path: path_str });
        }
        let load_err = |reason: &dyn fmt::Display| LlmError::Load { path: path_str.clone(), reason: reason.to_string() };
        let started = Instant::now();
        let file = File::open(&opts.path).map_err(|e| load_err(&e))?;
        let mut reader = BufReader::new(file);
        let content = weights::read_content(&mut reader).map_err(|e| load_err(&e))?;
        let arch = weights::architecture(&content).map_err(|e| load_err(&e))?;
        let tokenizer = GgufTokenizer::load(&content, &opts.path).map_err(|e| load_err(&e))?;
        let template_source = content.metadata.get("tokenizer.chat_template").and_then(|v| v.to_string().ok()).cloned();
        let tokens = TemplateTokens {
            bos: tokenizer.bos_token().unwrap_or_default().to_string(),
            eos: tokenizer.eos_token().unwrap_or_default().to_string(),
        };
        let template = ChatTemplate::new(template_source.as_deref(), tokens);
        let context = context_window(&content, &arch, opts.context_override).map_err(|e| load_err(&e))?;

        let loaded = weights::load(content, reader, &arch, opts.weights, context).map_err(|e| load_err(&e))?;
        let stats = LoadStats {
            load_secs: started.elapsed().as_secs_f64(),
            architecture: arch,
            parameters: loaded.parameters,
            bytes_per_token: loaded.bytes_per_token,
            conversions: loaded.conversions,
            weight_mode: opts.weights,
        };
        tracing::info!(
            model = %path_str, arch = %stats.architecture, parameters = stats.parameters, context,
            conversions = %stats.conversions, load_secs = stats.load_secs, "local LLM loaded"
        );
        let model_id = opts.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(path_str);
        Ok(LocalLlm {
            transformer: loaded.transformer,
            tokenizer,
            template,
            context,
            model_id,
            prefill_threads: opts.prefill_threads.max(1),
            decode_threads: opts.decode_threads.max(1),
            stats,
        })
    }

    /// Facts about the loaded model.
    pub fn stats(&self) -> &LoadStats {
        &self.stats
    }

    /// The model's tokenizer (from the GGUF metadata).
    pub fn tokenizer(&self) -> &GgufTokenizer {
        &self.tokenizer
    }

    /// The exact prompt text a request is turned into (chat template plus any JSON prefix).
    pub fn render_prompt(&self, request: &ChatRequest) -> String {
        let mut prompt = self.template.render(&request.messages);
        if let OutputFormat::Json { prefix, .. } = &request.format {
            prompt.push_str(prefix);
        }
        prompt
    }

    /// One forward pass over `ids` starting at `index_pos`, with `threads` candle threads;
    /// returns the last position's logits.
    fn forward(&mut self, ids: &[u32], index_pos: usize, threads: usize) -> Result<Vec<f32>, LlmError> {
        let _threads = CandleThreads::set(threads);
        let gen_err = |e: candle_core::Error| LlmError::Generation(e.to_string());
        let input = Tensor::new(ids, &Device::Cpu).and_then(|t| t.unsqueeze(0)).map_err(gen_err)?;
        let logits = self.transformer.forward(&input, index_pos).map_err(gen_err)?;
        logits.squeeze(0).and_then(|l| l.to_dtype(DType::F32)).and_then(|l| l.to_vec1::<f32>()).map_err(gen_err)
    }

    fn generate(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let prompt = self.render_prompt(request);
        let mut json = match &request.format {
            OutputFormat::Json { prefix, schema, .. } => Some(json_start(prefix, schema)?),
            OutputFormat::Text => None,
        };
        let prompt_ids = self.tokenizer.encode(&prompt).map_err(|e| LlmError::Generation(e.to_string()))?;
        if prompt_ids.is_empty() {
            return Err(LlmError::Generation("the prompt encodes to no tokens".into()));
        }
        if prompt_ids.len() + request.max_tokens > self.context {
            return Err(LlmError::ContextOverflow {
                prompt_tokens: prompt_ids.len(),
                context: self.context,
                max_tokens: request.max_tokens,
            });
        }

        // A new prompt starts at position 0, which also makes the transformer drop its KV
        // cache; clearing it explicitly frees the old one before the prefill allocates anew.
        self.transformer.clear_kv_cache();
        let prefill_started = Instant::now();
        let mut logits = self.forward(&prompt_ids, 0, self.prefill_threads)?;
        let prefill_secs = prefill_started.elapsed().as_secs_f64();

        let mut sampler = (request.temperature > 0.0).then(|| Sampler::new(request.temperature));
        let stops = StopStrings::new(&request.stop);
        let mut generated: Vec<u32> = Vec::new();
        let mut bytes: Vec<u8> = Vec::new();
        // Byte length of the output after each generated token, to cut a detected loop cleanly.
        let mut ends: Vec<usize> = Vec::new();
        let mut finish = FinishReason::Length;
        let mut decode_secs = 0.0;
        let mut decode_steps = 0usize;
        let already_complete = json.as_ref().is_some_and(|(v, _)| v.is_complete());
        while !already_complete && generated.len() < request.max_tokens {
            let next = match &json {
                Some((validator, _)) => self.pick_json_token(&logits, validator, request.max_tokens - generated.len())?,
                None => match sampler.as_mut() {
                    Some(s) => s.sample(&logits),
                    None => argmax(&logits),
                },
            };
            // Control tokens (`<|im_start|>`...) never belong in an answer: treat them as the end.
            if self.tokenizer.is_end_of_turn(next) || self.tokenizer.is_control(next) {
                finish = FinishReason::Stop;
                break;
            }
            generated.push(next);
            let token_bytes = self.tokenizer.token_bytes(next);
            let searched_from = bytes.len();
            bytes.extend_from_slice(token_bytes);
            ends.push(bytes.len());
            // Greedy decoding of a small model can fall into a loop, repeating a sentence until
            // max_tokens; stop at the first repeat instead of spending the budget on it.
            if json.is_none() && repeats_itself(&generated) {
                generated.truncate(generated.len() - LOOP_WINDOW);
                bytes.truncate(generated.len().checked_sub(1).map_or(0, |i| ends[i]));
                finish = FinishReason::Stop;
                break;
            }
            if let Some(cut) = stops.find(&bytes, searched_from) {
                bytes.truncate(cut);
                finish = FinishReason::Stop;
                break;
            }
            if let Some((validator, _)) = json.as_mut() {
                // The candidate was checked on a clone; advance the real validator.
                validator.push_bytes(token_bytes);
                if validator.is_complete() {
                    finish = FinishReason::Stop;
                    break;
                }
            }
            if generated.len() >= request.max_tokens {
                break;
            }
            let step_started = Instant::now();
            let position = prompt_ids.len() + generated.len() - 1;
            logits = self.forward(&[next], position, self.decode_threads)?;
            decode_secs += step_started.elapsed().as_secs_f64();
            decode_steps += 1;
        }
        if already_complete {
            finish = FinishReason::Stop;
        }

        drop_incomplete_utf8_tail(&mut bytes);
        let body = String::from_utf8_lossy(&bytes);
        let text = match &json {
            Some((_, prefix)) => format!("{prefix}{body}"),
            None => body.into_owned(),
        };
        if json.is_some() && !is_whole_json(&text) {
            // A JSON answer is only useful whole: say so rather than return a fragment.
            return Err(LlmError::Generation(format!(
                "JSON output not complete within max_tokens ({}): {}",
                request.max_tokens,
                snippet(&text, 200)
            )));
        }
        Ok(ChatResponse {
            text,
            usage: TokenUsage::new(prompt_ids.len() as u64, generated.len() as u64),
            finish_reason: finish,
            latency_ms: started.elapsed().as_secs_f64() * 1000.0,
            prompt_tokens_per_s: rate(prompt_ids.len(), prefill_secs),
            completion_tokens_per_s: rate(decode_steps, decode_secs),
            attempts: 1,
        })
    }

    /// The most likely token that keeps the output a JSON prefix (end-of-turn only once the
    /// value is complete). With a schema-guided constraint the token must also leave the value
    /// closable within the `remaining` tokens (one byte per token at worst), so a model that
    /// rambles is steered to close its answer in time instead of running out of tokens. When the
    /// model's top candidates all fail, the whole vocabulary is searched in logit order.
    fn pick_json_token(&self, logits: &[f32], validator: &JsonConstraint, remaining: usize) -> Result<u32, LlmError> {
        let fits = |id: u32, budgeted: bool| -> bool {
            if self.tokenizer.is_end_of_turn(id) {
                return validator.could_end_here();
            }
            let bytes = self.tokenizer.token_bytes(id);
            if self.tokenizer.is_control(id) || bytes.is_empty() {
                return false;
            }
            match validator.advanced(bytes) {
                Some(next) => !budgeted || next.min_completion() < remaining,
                None => false,
            }
        };
        // Budgeting needs the value to be closable at all within the budget.
        let budgeted = validator.min_completion() <= remaining;
        if let Some(id) = top_k(logits, MAX_JSON_CANDIDATES).into_iter().find(|&id| fits(id, budgeted)) {
            return Ok(id);
        }
        if validator.is_schema_guided() {
            // The schema may rule out everything the model wants; search on down the ranking.
            let ranked = top_k(logits, logits.len());
            for budget in [budgeted, false] {
                if let Some(id) = ranked.iter().copied().find(|&id| fits(id, budget)) {
                    return Ok(id);
                }
            }
        }
        Err(LlmError::Generation(format!(
            "none of the {MAX_JSON_CANDIDATES} most likely tokens continues the JSON output"
        )))
    }
}

/// Tokens in the window whose earlier occurrence in the output counts as a loop.
const LOOP_WINDOW: usize = 16;

/// The last `LOOP_WINDOW` tokens already occurred, contiguously, earlier in the output.
fn repeats_itself(generated: &[u32]) -> bool {
    let n = generated.len();
    if n < 2 * LOOP_WINDOW {
        return false;
    }
    let tail = &generated[n - LOOP_WINDOW..];
    generated[..n - LOOP_WINDOW].windows(LOOP_WINDOW).any(|w| w == tail)
}

impl Llm for LocalLlm {
    fn provider(&self) -> &'static str {
        "local"
    }

    fn model_id(&self) -> String {
        self.model_id.clone()
    }

    fn context_length(&self) -> Option<usize> {
        Some(self.context)
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.tokenizer.count(text)
    }

    fn chat(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.generate(request)
    }
}

/// Context cap of llama-architecture files, whatever their `llama.context_length`: the limit of
/// the candle-transformers model this crate used before its own transformer, kept so a llama
/// model's prompt budget (and its attention cost on two cores) stays where it was.
const LLAMA_CONTEXT_CAP: usize = 4096;

/// The context window: the override or `<arch>.context_length`, capped for llama at
/// [`LLAMA_CONTEXT_CAP`].
fn context_window(
    content: &candle_core::quantized::gguf_file::Content,
    arch: &str,
    context_override: Option<usize>,
) -> Result<usize, LoadError> {
    let key = format!("{arch}.context_length");
    let trained = content.metadata.get(&key).and_then(|v| v.to_u32().ok()).map(|v| v as usize);
    let supported = match arch {
        "llama" => trained.unwrap_or(LLAMA_CONTEXT_CAP).min(LLAMA_CONTEXT_CAP),
        _ => trained.ok_or(LoadError::MissingMetadata(key))?,
    };
    match context_override {
        Some(n) if n > supported => {
            tracing::warn!(
                "context override {n} exceeds what the model supports here ({supported}); using {supported}"
            );
            Ok(supported)
        }
        Some(n) => Ok(n),
        None => Ok(supported),
    }
}

/// A validator primed with the forced prefix, and the prefix: guided by `schema` when it is in
/// the supported subset (and admits the prefix), else checking JSON syntax only.
fn json_start(prefix: &str, schema: &serde_json::Value) -> Result<(JsonConstraint, String), LlmError> {
    let validator = JsonConstraint::start(schema, prefix).ok_or_else(|| {
        LlmError::Config(format!("JSON output prefix {prefix:?} is not the start of a JSON value"))
    })?;
    Ok((validator, prefix.to_string()))
}

/// Cut a multi-byte character that `max_tokens` or a stop string left unfinished, so the answer
/// does not end in U+FFFD.
fn drop_incomplete_utf8_tail(bytes: &mut Vec<u8>) {
    if let Err(e) = std::str::from_utf8(bytes)
        && e.error_len().is_none()
    {
        bytes.truncate(e.valid_up_to());
    }
}

/// Whether `text` is one complete JSON value (checked afresh: a stop string may have cut it).
fn is_whole_json(text: &str) -> bool {
    let mut validator = JsonPrefix::new();
    validator.push_bytes(text.as_bytes()) && validator.could_end_here()
}

/// The first `max_chars` characters of `text`, marked when cut.
fn snippet(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

fn rate(tokens: usize, secs: f64) -> Option<f64> {
    (tokens > 0 && secs > 0.0).then(|| tokens as f64 / secs)
}

fn argmax(logits: &[f32]) -> u32 {
    logits.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i as u32).unwrap_or(0)
}

/// Ids of the `k` largest logits, largest first.
fn top_k(logits: &[f32], k: usize) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..logits.len() as u32).collect();
    let k = k.min(ids.len());
    if k == 0 {
        return ids;
    }
    let desc = |a: &u32, b: &u32| logits[*b as usize].total_cmp(&logits[*a as usize]);
    ids.select_nth_unstable_by(k - 1, desc);
    ids.truncate(k);
    ids.sort_unstable_by(desc);
    ids
}

/// Stop strings, matched on the generated bytes.
struct StopStrings {
    stops: Vec<Vec<u8>>,
    longest: usize,
}

impl StopStrings {
    fn new(stops: &[String]) -> StopStrings {
        let stops: Vec<Vec<u8>> = stops.iter().filter(|s| !s.is_empty()).map(|s| s.as_bytes().to_vec()).collect();
        let longest = stops.iter().map(Vec::len).max().unwrap_or(0);
        StopStrings { stops, longest }
    }

    /// Start of the earliest stop string that ends after `new_from` (only the newly added
    /// bytes, and the tail before them a stop string could straddle, are searched).
    fn find(&self, bytes: &[u8], new_from: usize) -> Option<usize> {
        let from = new_from.saturating_sub(self.longest.saturating_sub(1));
        self.stops
            .iter()
            .filter_map(|stop| bytes[from..].windows(stop.len()).position(|w| w == stop.as_slice()).map(|p| from + p))
            .min()
    }
}

/// Temperature sampling with a fixed-seed xorshift generator, so a call is reproducible.
struct Sampler {
    temperature: f32,
    state: u64,
}

impl Sampler {
    fn new(temperature: f32) -> Sampler {
        Sampler { temperature, state: SAMPLING_SEED }
    }

    fn next_unit(&mut self) -> f64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 11) as f64 / (1u64 << 53) as f64
    }

    fn sample(&mut self, logits: &[f32]) -> u32 {
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let weights: Vec<f64> = logits.iter().map(|&l| (((l - max) / self.temperature) as f64).exp()).collect();
        let total: f64 = weights.iter().sum();
        if !(total.is_finite() && total > 0.0) {
            return argmax(logits);
        }
        let mut target = self.next_unit() * total;
        for (i, w) in weights.iter().enumerate() {
            target -= w;
            if target <= 0.0 {
                return i as u32;
            }
        }
        argmax(logits)
    }
}

/// Sets `RAYON_NUM_THREADS`, which candle reads on every matmul, for as long as it lives, and
/// restores the previous value after. (Candle's quantized kernels size their worker pool once,
/// at first use, so this steers the F32 gemm path and rayon-parallel ops.)
struct CandleThreads {
    previous: Option<std::ffi::OsString>,
}

impl CandleThreads {
    fn set(threads: usize) -> CandleThreads {
        let previous = std::env::var_os("RAYON_NUM_THREADS");
        // SAFETY: edition 2024 marks set_var unsafe because another thread reading the
        // environment at the same time is undefined behaviour on some platforms. The model is used
        // from one thread at a time and the project sets this variable the same way (see
        // `embed::configure_threads`).
        unsafe { std::env::set_var("RAYON_NUM_THREADS", threads.to_string()) };
        CandleThreads { previous }
    }
}

impl Drop for CandleThreads {
    fn drop(&mut self) {
        // SAFETY: as in `CandleThreads::set`.
        unsafe {
            match &self.previous {
                Some(v) => std::env::set_var("RAYON_NUM_THREADS", v),
                None => std::env::remove_var("RAYON_NUM_THREADS"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_window_is_a_loop() {
        let once: Vec<u32> = (0..40).collect();
        assert!(!repeats_itself(&once));
        let mut looped: Vec<u32> = (0..20).collect();
        looped.extend(4..20);
        assert!(repeats_itself(&looped));
        let short: Vec<u32> = [1, 2, 1, 2, 1, 2].to_vec();
        assert!(!repeats_itself(&short), "needs a whole window");
    }

    #[test]
    fn weight_mode_parses_and_displays() {
        for (text, mode) in [
            ("auto", WeightMode::Auto),
            ("f32", WeightMode::F32),
            ("q8_0", WeightMode::Q8_0),
            ("keep", WeightMode::Keep),
        ] {
            assert_eq!(text.parse::<WeightMode>(), Ok(mode));
            assert_eq!(mode.to_string(), text);
        }
        assert_eq!(" F32 ".parse::<WeightMode>(), Ok(WeightMode::F32));
        assert!("q4".parse::<WeightMode>().is_err_and(|e| e.to_string().contains("auto, f32, q8_0 or keep")));
        assert_eq!(WeightMode::default(), WeightMode::Auto);
    }

    #[test]
    fn stop_strings_match_across_token_boundaries() {
        let stops = StopStrings::new(&["\n\n".to_string(), "END".to_string()]);
        let text = b"one\ntwo\n\nthree";
        assert_eq!(stops.find(text, 8), Some(7));
        assert_eq!(stops.find(b"abcEN", 3), None);
        assert_eq!(stops.find(b"abcEND", 5), Some(3));
        assert_eq!(StopStrings::new(&[String::new()]).find(b"abc", 0), None);
    }

    #[test]
    fn unfinished_characters_are_cut_from_the_end_only() {
        let euro = "€".as_bytes();
        let mut bytes = [b"ok ".as_slice(), &euro[..2]].concat();
        drop_incomplete_utf8_tail(&mut bytes);
        assert_eq!(bytes, b"ok ");
        let mut whole = "a€b".as_bytes().to_vec();
        drop_incomplete_utf8_tail(&mut whole);
        assert_eq!(whole, "a€b".as_bytes());
    }

    #[test]
    fn top_k_orders_by_logit() {
        let logits = [0.1, 3.0, -1.0, 2.0, 2.5];
        assert_eq!(top_k(&logits, 3), vec![1, 4, 3]);
        assert_eq!(top_k(&logits, 10).len(), 5);
        assert_eq!(argmax(&logits), 1);
    }

    #[test]
    fn sampler_is_reproducible_and_follows_temperature() {
        let logits = [0.0, 5.0, 0.0, 0.0];
        let a: Vec<u32> = (0..20).scan(Sampler::new(0.5), |s, _| Some(s.sample(&logits))).collect();
        let b: Vec<u32> = (0..20).scan(Sampler::new(0.5), |s, _| Some(s.sample(&logits))).collect();
        assert_eq!(a, b);
        assert!(a.iter().filter(|&&i| i == 1).count() >= 18);
    }

    #[test]
    fn json_prefix_must_be_valid() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"subqueries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4}},
            "required": ["subqueries"],
            "additionalProperties": false
        });
        let (validator, _) = json_start("{\"subqueries\": [\"", &schema).expect("valid prefix");
        assert!(validator.is_schema_guided());
        assert!(matches!(json_start("{]", &schema), Err(LlmError::Config(_))));
        let (validator, _) = json_start("[", &schema).expect("valid JSON, off the schema");
        assert!(!validator.is_schema_guided());
        let (validator, _) = json_start("{", &serde_json::json!({"type": "string", "enum": ["a"]})).expect("valid prefix");
        assert!(!validator.is_schema_guided(), "unsupported schema: syntax only");
    }

    #[test]
    fn missing_model_is_reported_with_the_setup_script() {
        let err = LocalLlm::load(&LocalOptions::new("/nonexistent/model.gguf")).err();
        let Some(err @ LlmError::ModelMissing { .. }) = err else { panic!("expected ModelMissing, got {err:?}") };
        assert!(err.to_string().contains("scripts/setup-models.sh"));
    }
}
