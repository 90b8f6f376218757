//! Sentence embeddings. `Embedder` is the seam; `BertEmbedder` runs any BERT-family
//! sentence-transformers model (all-MiniLM-L6-v2, bge-small, e5-small, gte-small) on the CPU
//! with our own forward pass and matmul kernels (F32, INT8 or BF16: [`Precision`]), mean or CLS
//! pooling and L2 normalisation; candle reads the checkpoint.

mod bert;
mod kernels;
mod matmul;
pub mod models;

use std::cell::RefCell;
use std::path::Path;

use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use qa_core::chunk::TokenCounter;
use qa_core::error::{QaError, Result};

use bert::{BertModel, Scratch};
pub use matmul::Precision;

thread_local! {
    /// Each embedding thread's activation buffers, reused batch after batch.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Turns texts into unit-length vectors.
pub trait Embedder: Send + Sync {
    /// Identifies the model and its files; an index built with another id cannot be queried.
    fn model_id(&self) -> &str;
    /// Length of the vectors.
    fn dimension(&self) -> usize;
    /// Model window in tokens, special tokens included.
    fn max_tokens(&self) -> usize;
    /// Embed texts; output order matches input order. Texts beyond the window are truncated.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// Counts tokens the way the model's tokenizer does (for chunking to the window).
    fn token_counter(&self) -> &dyn TokenCounter;
}

/// Upper bound on (texts × padded length) per forward pass.
const MAX_BATCH_TOKENS: usize = 2048;

/// Texts shorter than this run in F32 (see `BertEmbedder::exact`).
const SHORT_TEXT_TOKENS: usize = 64;

/// Files a model folder must contain.
pub const REQUIRED_FILES: &[&str] = &["config.json", "tokenizer.json", "model.safetensors"];

/// How token states become one vector (sentence-transformers `1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean of the real tokens' states (all-MiniLM, e5, gte).
    Mean,
    /// The [CLS] token's state (bge).
    Cls,
}

impl Pooling {
    /// The pooling of the model in `dir` (mean when it has no `1_Pooling/config.json`).
    fn from_dir(dir: &Path) -> Result<Pooling> {
        let path = dir.join("1_Pooling").join("config.json");
        let Ok(text) = std::fs::read_to_string(&path) else { return Ok(Pooling::Mean) };
        let load_err = |reason: String| QaError::ModelLoad { dir: dir.to_path_buf(), reason };
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| load_err(format!("{}: {e}", path.display())))?;
        let on = |k: &str| v.get(k).and_then(|b| b.as_bool()).unwrap_or(false);
        match (on("pooling_mode_cls_token"), on("pooling_mode_mean_tokens")) {
            (true, false) => Ok(Pooling::Cls),
            (false, true) => Ok(Pooling::Mean),
            _ => Err(load_err(format!("{}: only mean or CLS pooling (one of them) is supported", path.display()))),
        }
    }
}

/// A BERT-family sentence-transformers model loaded from a folder, run on the CPU.
pub struct BertEmbedder {
    /// The model in F32: every text when `precision` is F32, else the texts under
    /// `SHORT_TEXT_TOKENS` tokens (questions, headings). Reduced precision's error averages out
    /// over many tokens but not over a few (INT8 keeps a cosine of 0.9995 to F32 from 64 tokens
    /// up, 0.998 on a short line of repeated symbols), and short texts are a small share of the
    /// work.
    exact: BertModel,
    /// The model in `precision` when it is not F32, made on the first long text: quantizing the
    /// weights takes a few hundred milliseconds a `qa ask` (short texts only) should not pay.
    fast: std::sync::OnceLock<std::result::Result<BertModel, String>>,
    /// Where the weights and config are, for `fast`.
    weights: std::path::PathBuf,
    config: bert::BertConfig,
    pooling: Pooling,
    tokenizer: Tokenizer,
    counter: TokenizerCounter,
    model_id: String,
    dimension: usize,
    max_tokens: usize,
    batch_size: usize,
    /// The dense layers' arithmetic (resolved: F32 or BF16).
    precision: Precision,
    /// Threads that embed whole batches concurrently (when more than one).
    pool: Option<rayon::ThreadPool>,
}

/// How compute threads are used, decided once per process (see [`configure_threads`]).
static WORKERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// Use `threads` cores for embedding by running that many batches at once, each with
/// single-threaded kernels. On the 2-core target machines this scales better (about 1.9×)
/// than splitting every GEMM across threads (1.3–1.5×), which synchronises dozens of times per
/// layer. Call once at start-up, before any other thread exists: candle (the local LLM's kernels)
/// reads its thread count from `RAYON_NUM_THREADS`, so the global rayon pool (used for chunking
/// and HNSW builds) is created with `threads` threads first and the variable is then set to 1.
pub fn configure_threads(threads: usize) {
    let threads = threads.max(1);
    let _ = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
    if threads > 1 {
        // SAFETY: called at start-up before other threads read the environment.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    }
    WORKERS.store(threads, std::sync::atomic::Ordering::Relaxed);
}

/// Counts tokens with the model's own tokenizer (without truncation).
pub struct TokenizerCounter(Tokenizer);

impl TokenCounter for TokenizerCounter {
    fn count(&self, text: &str) -> usize {
        self.0.encode_fast(text, false).map(|e| e.len()).unwrap_or_else(|_| text.split_whitespace().count() * 2)
    }

    fn is_vocabulary_word(&self, word: &str) -> bool {
        self.0.token_to_id(word).is_some()
    }
}

impl BertEmbedder {
    /// Load a model folder with the fastest arithmetic this CPU has ([`Precision::Auto`]).
    /// `max_tokens` caps the window (the model's own limit still applies).
    pub fn load(dir: &Path, max_tokens: usize, batch_size: usize) -> Result<BertEmbedder> {
        Self::load_with_precision(dir, max_tokens, batch_size, Precision::Auto)
    }

    /// Load a model folder with the given arithmetic; forcing BF16 on a CPU without AVX-512 BF16
    /// is an error. The model id does not depend on it: BF16 and F32 vectors of a text are within
    /// a cosine of 0.999 of each other, so an index built with one is queried with the other.
    pub fn load_with_precision(dir: &Path, max_tokens: usize, batch_size: usize, precision: Precision) -> Result<BertEmbedder> {
        for f in REQUIRED_FILES {
            if !dir.join(f).is_file() {
                return Err(QaError::ModelMissing { dir: dir.to_path_buf(), missing: (*f).to_string() });
            }
        }
        let load_err = |reason: String| QaError::ModelLoad { dir: dir.to_path_buf(), reason };
        let config_text = std::fs::read_to_string(dir.join("config.json")).map_err(|e| load_err(e.to_string()))?;
        let config: bert::BertConfig =
            serde_json::from_str(&config_text).map_err(|e| load_err(format!("config.json: {e}")))?;
        // sentence-transformers records the window the model was trained for (256 for MiniLM);
        // tokenizer.json of that package pads and truncates to 128, which we override below.
        let st_window = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("max_seq_length").and_then(|m| m.as_u64()))
            .map(|m| m as usize);
        let window = st_window.unwrap_or(512).min(config.max_position_embeddings).min(max_tokens.max(8));

        let mut tokenizer =
            Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| load_err(format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(None::<PaddingParams>);
        let mut counter_tok = tokenizer.clone();
        counter_tok.with_truncation(None).map_err(|e| load_err(e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: window, ..Default::default() }))
            .map_err(|e| load_err(e.to_string()))?;

        let pooling = Pooling::from_dir(dir)?;
        let weights = dir.join("model.safetensors");
        let precision = precision.resolve().map_err(load_err)?;
        let exact = BertModel::load(&weights, &config, Precision::F32, None).map_err(|e| load_err(e.to_string()))?;
        let size = std::fs::metadata(&weights).map(|m| m.len()).unwrap_or(0);
        let fingerprint = qa_core::fsx::sha256_hex(format!("{config_text}\n{size}\n{pooling:?}").as_bytes());
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
        Ok(BertEmbedder {
            exact,
            fast: std::sync::OnceLock::new(),
            weights,
            config: config.clone(),
            pooling,
            tokenizer,
            counter: TokenizerCounter(counter_tok),
            model_id: format!("{name}@{}", &fingerprint[..12]),
            dimension: config.hidden_size,
            max_tokens: window,
            batch_size: batch_size.max(1),
            precision,
            pool: match WORKERS.load(std::sync::atomic::Ordering::Relaxed) {
                n if n > 1 => rayon::ThreadPoolBuilder::new().num_threads(n).thread_name(|i| format!("qa-embed-{i}")).build().ok(),
                _ => None,
            },
        })
    }

    /// How the model pools token states (from `1_Pooling/config.json`).
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// The dense layers' arithmetic for texts of 64 tokens and more (F32, INT8 or BF16).
    pub fn precision(&self) -> Precision {
        self.precision
    }

    fn embed_batch(&self, encodings: &[&tokenizers::Encoding]) -> candle_core::Result<Vec<Vec<f32>>> {
        let seqs: Vec<&[u32]> = encodings.iter().map(|e| e.get_ids()).collect();
        let h = self.dimension;
        let longest = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        let model = if self.precision == Precision::F32 || longest < SHORT_TEXT_TOKENS {
            &self.exact
        } else {
            let fast = self.fast.get_or_init(|| {
                BertModel::load(&self.weights, &self.config, self.precision, Some(&self.exact)).map_err(|e| e.to_string())
            });
            fast.as_ref().map_err(|e| candle_core::Error::Msg(format!("loading the {} model: {e}", self.precision)))?
        };
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let states = model.forward(&seqs, &mut scratch)?;
            let mut first = 0;
            let mut out = Vec::with_capacity(seqs.len());
            for seq in &seqs {
                let rows = &states[first * h..(first + seq.len()) * h];
                let mut v = match self.pooling {
                    Pooling::Cls => rows[..h].to_vec(),
                    Pooling::Mean => {
                        let mut sum = vec![0f32; h];
                        for row in rows.chunks_exact(h) {
                            sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                        }
                        let n = seq.len() as f32;
                        sum.iter_mut().for_each(|s| *s /= n);
                        sum
                    }
                };
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                v.iter_mut().for_each(|x| *x /= norm);
                out.push(v);
                first += seq.len();
            }
            Ok(out)
        })
    }
}

impl Embedder for BertEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }
    fn dimension(&self) -> usize {
        self.dimension
    }
    fn max_tokens(&self) -> usize {
        self.max_tokens
    }
    fn token_counter(&self) -> &dyn TokenCounter {
        &self.counter
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), true)
            .map_err(|e| QaError::Embed(format!("tokenizing: {e}")))?;
        // Sort by length so each batch pads to a similar length (less wasted compute).
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));
        // Batches are capped by padded tokens as well as by count: many short texts (questions,
        // concept names) go in one batch; full-window chunks go a few at a time, which keeps
        // activation buffers small enough for the allocator to recycle.
        let mut groups: Vec<&[usize]> = Vec::new();
        // Never fewer batches than workers when there is enough to share (a handful of short
        // sentences would otherwise run on one core).
        let workers = self.pool.as_ref().map(|p| p.current_num_threads()).unwrap_or(1);
        let fair_share = order.len().div_ceil(workers).max(1);
        // No batch mixes texts under and over SHORT_TEXT_TOKENS, so the arithmetic a text gets
        // (see `exact`) depends on its own length only, not on its batch-mates.
        let first_short = order.iter().position(|&i| encodings[i].len() < SHORT_TEXT_TOKENS).unwrap_or(order.len());
        let mut start = 0;
        while start < order.len() {
            let longest = encodings[order[start]].len().max(1);
            let by_tokens = (MAX_BATCH_TOKENS / longest).max(1);
            let limit = if start < first_short { first_short } else { order.len() };
            let end = (start + self.batch_size.min(by_tokens).min(fair_share)).min(limit);
            groups.push(&order[start..end]);
            start = end;
        }
        let run = |group: &[usize]| -> Result<Vec<Vec<f32>>> {
            let encs: Vec<&tokenizers::Encoding> = group.iter().map(|&i| &encodings[i]).collect();
            self.embed_batch(&encs).map_err(|e| QaError::Embed(e.to_string()))
        };
        let results: Vec<Result<Vec<Vec<f32>>>> = match &self.pool {
            // Data parallelism: each worker takes whole batches (see `configure_threads`). The
            // pool's threads live as long as the embedder, so their allocator heaps stay warm.
            Some(pool) if groups.len() > 1 => {
                use rayon::prelude::*;
                pool.install(|| groups.par_iter().with_max_len(1).map(|g| run(g)).collect())
            }
            _ => groups.iter().map(|g| run(g)).collect(),
        };
        let mut out = vec![Vec::new(); texts.len()];
        for (group, vectors) in groups.iter().zip(results) {
            for (&i, v) in group.iter().zip(vectors?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Dot product of two unit vectors (= cosine similarity).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent accumulators let the compiler vectorise without reassociation flags.
    let mut acc = [0f32; 8];
    let chunks = a.len() / 8 * 8;
    for i in (0..chunks).step_by(8) {
        for k in 0..8 {
            acc[k] += a[i + k] * b[i + k];
        }
    }
    let mut s: f32 = acc.iter().sum();
    for i in chunks..a.len().min(b.len()) {
        s += a[i] * b[i];
    }
    s
}
