//! Why a local model could not be loaded or set up. [`super::LocalLlm::load`] turns these into
//! [`crate::LlmError::Load`] (with the model's path), so their text is what users read.

use super::weights::SUPPORTED_ARCHITECTURES;

/// A GGUF file that cannot be loaded as a chat model.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The GGUF header does not parse.
    #[error("not a readable GGUF file: {0}")]
    NotGguf(candle_core::Error),
    /// A metadata key the model needs is absent (or of the wrong type).
    #[error("GGUF metadata lacks {0}")]
    MissingMetadata(String),
    /// `general.architecture` names a transformer this crate does not implement.
    #[error("unsupported architecture `{0}` (supported: {list})", list = SUPPORTED_ARCHITECTURES.join(", "))]
    UnsupportedArchitecture(String),
    /// Reading or converting one tensor failed.
    #[error("{step}: {cause}")]
    Tensor {
        /// What was being done, with the tensor's name (`reading tensor blk.0.attn_q.weight`).
        step: String,
        /// candle's error.
        cause: candle_core::Error,
    },
    /// Building the transformer from the tensors failed (a missing or misshapen tensor).
    #[error("{0}")]
    Model(candle_core::Error),
}

/// A tokenizer that cannot be rebuilt from the GGUF metadata or read from `tokenizer.json`.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    /// The `tokenizer.json` beside the model does not load.
    #[error("{path}: {reason}")]
    Sidecar {
        /// The `tokenizer.json` file.
        path: String,
        /// The tokenizers library's message.
        reason: String,
    },
    /// A sentencepiece (`llama`) tokenizer, which only a `tokenizer.json` can supply.
    #[error(
        "the model uses a sentencepiece (`llama`) tokenizer, which cannot be rebuilt from GGUF \
         metadata; put the model's tokenizer.json next to the GGUF file"
    )]
    SentencePiece,
    /// A `tokenizer.ggml.model` other than `gpt2` or `llama`.
    #[error(
        "unsupported tokenizer model `{0}` (supported from GGUF metadata: gpt2 byte-level BPE); \
         put the model's tokenizer.json next to the GGUF file"
    )]
    UnsupportedModel(String),
    /// No `tokenizer.ggml.model` at all.
    #[error("GGUF metadata lacks tokenizer.ggml.model; put tokenizer.json next to the GGUF file")]
    NoModel,
    /// A required metadata list (`tokenizer.ggml.tokens`, `…merges`) is absent.
    #[error("GGUF metadata lacks {0}")]
    MissingKey(String),
    /// A metadata list holds something other than strings.
    #[error("{key}: {cause}")]
    BadValue {
        /// The metadata key.
        key: String,
        /// candle's error.
        cause: candle_core::Error,
    },
    /// A merge rule that is not two symbols separated by a space.
    #[error("bad merge `{0}`")]
    BadMerge(String),
    /// The tokenizers library refused the vocabulary, merges, special tokens or split regex.
    #[error("{step}: {reason}")]
    Build {
        /// What was being built (`cannot build BPE model`, `pre-tokenizer regex`, …).
        step: &'static str,
        /// The tokenizers library's message.
        reason: String,
    },
    /// Text that does not encode.
    #[error("{0}")]
    Encode(String),
}

/// A JSON Schema outside the subset [`super::schema_guide::SchemaGuide`] follows; the output is
/// then checked for JSON syntax only.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// A keyword the guide does not implement (`anyOf`, `pattern`, …).
    #[error("unsupported keyword \"{0}\"")]
    UnsupportedKeyword(&'static str),
    /// A `type` the guide does not implement (`null`, a list of types, …).
    #[error("unsupported type \"{0}\"")]
    UnsupportedType(String),
    /// A count keyword (`minItems`, `maxLength`, …) that is not a non-negative integer.
    #[error("\"{0}\" is not a count")]
    NotACount(String),
    /// An object with more properties than the guide tracks.
    #[error("more than {0} properties")]
    TooManyProperties(usize),
    /// `required` names a property the schema does not declare.
    #[error("required \"{0}\" is not a declared property")]
    UndeclaredRequired(String),
    /// A property name that does not serialize.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// Any other shape the guide cannot follow, described in a fixed phrase.
    #[error("{0}")]
    Shape(&'static str),
}

/// A `WeightMode` name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown weight mode `{0}` (expected auto, f32, q8_0 or keep)")]
pub struct UnknownWeightMode(pub String);
