//! The model's tokenizer, built from the GGUF metadata (`tokenizer.ggml.*`) so no
//! `tokenizer.json` is needed, plus the per-token byte table that generation uses to turn ids
//! back into text exactly (and to test candidate tokens against the JSON constraint).
//!
//! A `tokenizer.json` next to the GGUF file takes precedence: it is the offline override for
//! tokenizers this module cannot rebuild (sentencepiece `llama` models) or does not know.

use std::collections::HashMap;
use std::path::Path;

use candle_core::quantized::gguf_file::{Content, Value};
use tokenizers::decoders::DecoderWrapper;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BPE, Vocab};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, SplitDelimiterBehavior, Tokenizer};

use super::error::TokenizerError;

/// GGUF `token_type` values (llama.cpp's `llama_token_type`).
const TOKEN_TYPE_CONTROL: i32 = 3;
const TOKEN_TYPE_USER_DEFINED: i32 = 4;

/// Split regex of the `llama-bpe` (Llama 3) pre-tokenizer: English contractions, letter runs with
/// one leading non-letter, numbers of up to three digits, punctuation runs, newlines, spaces.
const LLAMA3_SPLIT: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Split regex of the `qwen2` pre-tokenizer: as Llama 3 but every digit on its own.
const QWEN2_SPLIT: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// Tokenizer plus what generation needs to know about each token.
pub struct GgufTokenizer {
    tokenizer: Tokenizer,
    /// The exact bytes each id stands for in generated text.
    token_bytes: Vec<Vec<u8>>,
    /// Control tokens (`<|im_start|>`, ...): never part of an answer's text.
    control: Vec<bool>,
    /// Ids that end the assistant's turn.
    end_ids: Vec<u32>,
    bos: Option<String>,
    eos: Option<String>,
}

impl GgufTokenizer {
    /// Build from the GGUF metadata, or from `tokenizer.json` beside `model_path` when present.
    pub fn load(content: &Content, model_path: &Path) -> Result<GgufTokenizer, TokenizerError> {
        let sidecar = model_path.with_file_name("tokenizer.json");
        let tokenizer = if sidecar.is_file() {
            Tokenizer::from_file(&sidecar)
                .map_err(|e| TokenizerError::Sidecar { path: sidecar.display().to_string(), reason: e.to_string() })?
        } else {
            tokenizer_from_metadata(&content.metadata)?
        };
        let control = control_flags(&tokenizer, &content.metadata);
        let token_bytes = token_byte_table(&tokenizer);
        let eos_id = meta_u32(&content.metadata, "tokenizer.ggml.eos_token_id");
        let bos_id = meta_u32(&content.metadata, "tokenizer.ggml.bos_token_id");
        let end_ids = end_of_turn_ids(&tokenizer, &content.metadata, eos_id);
        let name = |id: Option<u32>| id.and_then(|i| tokenizer.id_to_token(i));
        let (bos, eos) = (name(bos_id), name(eos_id));
        Ok(GgufTokenizer { tokenizer, token_bytes, control, end_ids, bos, eos })
    }

    /// Token ids of `text`, special-token markers included as single ids, nothing added.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        self.tokenizer.encode_fast(text, false).map(|e| e.get_ids().to_vec()).map_err(|e| TokenizerError::Encode(e.to_string()))
    }

    /// Tokens `text` encodes to (the estimate of [`crate::estimate_tokens`] if it cannot be encoded).
    pub(crate) fn count(&self, text: &str) -> usize {
        self.encode(text).map(|ids| ids.len()).unwrap_or_else(|_| crate::estimate_tokens(text))
    }

    /// The bytes `id` contributes to generated text (empty for unknown ids).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.token_bytes.get(id as usize).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Text of `ids`, decoded from their bytes as a whole so characters split across tokens
    /// come out right.
    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids.iter().flat_map(|&id| self.token_bytes(id).iter().copied()).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// A control token (`<|im_start|>`, …), never part of an answer's text; false for unknown ids.
    pub fn is_control(&self, id: u32) -> bool {
        self.control.get(id as usize).copied().unwrap_or(false)
    }

    /// One of the ids that end the assistant's turn.
    pub fn is_end_of_turn(&self, id: u32) -> bool {
        self.end_ids.contains(&id)
    }

    /// Number of token ids.
    pub fn vocab_size(&self) -> usize {
        self.token_bytes.len()
    }

    /// The beginning-of-sequence token's text, if the model names one.
    pub(crate) fn bos_token(&self) -> Option<&str> {
        self.bos.as_deref()
    }

    /// The end-of-sequence token's text, if the model names one.
    pub(crate) fn eos_token(&self) -> Option<&str> {
        self.eos.as_deref()
    }

    /// The underlying `tokenizers` object (for tests and tools).
    pub fn inner(&self) -> &Tokenizer {
        &self.tokenizer
    }
}

fn meta_u32(md: &HashMap<String, Value>, key: &str) -> Option<u32> {
    md.get(key).and_then(|v| v.to_u32().ok().or_else(|| v.to_i32().ok().map(|i| i as u32)))
}

fn meta_str<'a>(md: &'a HashMap<String, Value>, key: &str) -> Option<&'a str> {
    md.get(key).and_then(|v| v.to_string().ok()).map(String::as_str)
}

fn meta_strings<'a>(md: &'a HashMap<String, Value>, key: &str) -> Result<Vec<&'a str>, TokenizerError> {
    let bad = |cause| TokenizerError::BadValue { key: key.to_string(), cause };
    let values = md.get(key).ok_or_else(|| TokenizerError::MissingKey(key.to_string()))?;
    let values = values.to_vec().map_err(bad)?;
    values.iter().map(|v| v.to_string().map(String::as_str).map_err(bad)).collect()
}

fn token_types(md: &HashMap<String, Value>) -> Vec<i32> {
    let Some(Ok(values)) = md.get("tokenizer.ggml.token_type").map(Value::to_vec) else { return Vec::new() };
    values.iter().map(|v| v.to_i32().or_else(|_| v.to_u32().map(|u| u as i32)).unwrap_or(1)).collect()
}

/// Rebuild a byte-level BPE tokenizer (`tokenizer.ggml.model = gpt2`) from the vocabulary,
/// merges and pre-tokenizer name stored in the GGUF.
pub fn tokenizer_from_metadata(md: &HashMap<String, Value>) -> Result<Tokenizer, TokenizerError> {
    match meta_str(md, "tokenizer.ggml.model") {
        Some("gpt2") => {}
        Some("llama") => return Err(TokenizerError::SentencePiece),
        Some(other) => return Err(TokenizerError::UnsupportedModel(other.to_string())),
        None => return Err(TokenizerError::NoModel),
    }
    let tokens = meta_strings(md, "tokenizer.ggml.tokens")?;
    let merges = meta_strings(md, "tokenizer.ggml.merges")?;
    let pre = meta_str(md, "tokenizer.ggml.pre").unwrap_or("default");

    let vocab: Vocab = tokens.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
    let merges: Vec<(String, String)> = merges
        .iter()
        .map(|m| {
            m.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())).ok_or_else(|| TokenizerError::BadMerge(m.to_string()))
        })
        .collect::<Result<_, _>>()?;
    // Llama 3's tokenizer looks whole words up in the vocabulary before applying merges.
    let ignore_merges = matches!(pre, "llama-bpe" | "llama3");
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .ignore_merges(ignore_merges)
        .build()
        .map_err(|e| TokenizerError::Build { step: "cannot build BPE model", reason: e.to_string() })?;

    let mut tokenizer = Tokenizer::new(bpe);
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer_for(pre)?));
    tokenizer.with_decoder(Some(DecoderWrapper::ByteLevel(ByteLevelDecoder::default())));
    let types = token_types(md);
    let specials: Vec<AddedToken> = tokens
        .iter()
        .zip(&types)
        .filter(|(_, t)| matches!(**t, TOKEN_TYPE_CONTROL | TOKEN_TYPE_USER_DEFINED))
        .map(|(tok, _)| AddedToken::from(tok.to_string(), true))
        .collect();
    tokenizer
        .add_special_tokens(specials)
        .map_err(|e| TokenizerError::Build { step: "cannot register special tokens", reason: e.to_string() })?;
    Ok(tokenizer)
}

/// The pre-tokenizer llama.cpp associates with `tokenizer.ggml.pre`.
fn pre_tokenizer_for(pre: &str) -> Result<PreTokenizerWrapper, TokenizerError> {
    let split = |regex: &str| -> Result<PreTokenizerWrapper, TokenizerError> {
        let split = Split::new(SplitPattern::Regex(regex.to_string()), SplitDelimiterBehavior::Isolated, false)
            .map_err(|e| TokenizerError::Build { step: "pre-tokenizer regex", reason: e.to_string() })?;
        // The regex already split the text; ByteLevel only maps bytes to symbols.
        Ok(PreTokenizerWrapper::Sequence(Sequence::new(vec![split.into(), ByteLevel::new(false, true, false).into()])))
    };
    match pre {
        // SmolLM (and StarCoder-style) tokenizers: every digit alone, then GPT-2's split.
        "smollm" | "starcoder" | "refact" => Ok(PreTokenizerWrapper::Sequence(Sequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, true, true).into(),
        ]))),
        "llama-bpe" | "llama3" | "smaug-bpe" => split(LLAMA3_SPLIT),
        "qwen2" | "deepseek-r1-qwen" => split(QWEN2_SPLIT),
        "default" | "gpt2" | "gpt-2" => Ok(ByteLevel::new(false, true, true).into()),
        other => {
            tracing::warn!("unknown pre-tokenizer `{other}`; using GPT-2's (token counts may be inexact)");
            Ok(ByteLevel::new(false, true, true).into())
        }
    }
}

/// Which ids are control tokens: GGUF `token_type == control`, or special added tokens of a
/// tokenizer.json.
fn control_flags(tokenizer: &Tokenizer, md: &HashMap<String, Value>) -> Vec<bool> {
    let size = tokenizer.get_vocab_size(true);
    let mut flags = vec![false; size];
    for (i, t) in token_types(md).iter().enumerate() {
        if *t == TOKEN_TYPE_CONTROL && i < size {
            flags[i] = true;
        }
    }
    for (id, tok) in tokenizer.get_added_tokens_decoder() {
        if tok.special && (id as usize) < size {
            flags[id as usize] = true;
        }
    }
    flags
}

/// EOS, the GGUF's end-of-turn id, and the usual end-of-turn markers that exist in the vocabulary.
fn end_of_turn_ids(tokenizer: &Tokenizer, md: &HashMap<String, Value>, eos: Option<u32>) -> Vec<u32> {
    let mut ids: Vec<u32> = eos.into_iter().chain(meta_u32(md, "tokenizer.ggml.eot_token_id")).collect();
    for marker in ["<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end|>", "<end_of_turn>"] {
        if let Some(id) = tokenizer.token_to_id(marker) {
            ids.push(id);
        }
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// GPT-2's reversible byte ↔ printable-character map, inverted: printable bytes stand for
/// themselves, the others were shifted to U+0100 and up in byte order.
fn byte_level_inverse() -> HashMap<char, u8> {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut map = HashMap::with_capacity(256);
    let mut shifted = 0u32;
    for b in 0..=255u8 {
        let c = if printable(b) {
            char::from(b)
        } else {
            shifted += 1;
            char::from_u32(255 + shifted).unwrap_or(char::REPLACEMENT_CHARACTER)
        };
        map.insert(c, b);
    }
    map
}

/// The bytes every id decodes to. Byte-level vocabularies map characters back to bytes;
/// sentencepiece ones (from a tokenizer.json) use `▁` for spaces and `<0xNN>` byte tokens.
/// Added tokens stand for their own text.
fn token_byte_table(tokenizer: &Tokenizer) -> Vec<Vec<u8>> {
    let byte_level = matches!(tokenizer.get_decoder(), Some(DecoderWrapper::ByteLevel(_)));
    let inverse = byte_level_inverse();
    let added = tokenizer.get_added_tokens_decoder();
    let size = tokenizer.get_vocab_size(true);
    let mut table = vec![Vec::new(); size];
    for (token, id) in tokenizer.get_vocab(true) {
        let Some(slot) = table.get_mut(id as usize) else { continue };
        *slot = if added.contains_key(&id) {
            token.into_bytes()
        } else if byte_level {
            token.chars().map(|c| inverse.get(&c).copied().unwrap_or(b'?')).collect()
        } else {
            sentencepiece_bytes(&token)
        };
    }
    table
}

fn sentencepiece_bytes(token: &str) -> Vec<u8> {
    if let Some(hex) = token.strip_prefix("<0x").and_then(|t| t.strip_suffix('>'))
        && let Ok(b) = u8::from_str_radix(hex, 16)
    {
        return vec![b];
    }
    token.replace('\u{2581}', " ").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny byte-level vocabulary: all 256 byte symbols, a few merges and ChatML markers.
    fn toy_metadata(pre: &str) -> HashMap<String, Value> {
        let inverse = byte_level_inverse();
        let mut by_byte: Vec<(u8, char)> = inverse.into_iter().map(|(c, b)| (b, c)).collect();
        by_byte.sort();
        let mut tokens: Vec<String> = vec!["<|endoftext|>".into(), "<|im_start|>".into(), "<|im_end|>".into()];
        tokens.extend(by_byte.iter().map(|(_, c)| c.to_string()));
        tokens.extend(["he", "ll", "hell", "hello", "Ġw", "Ġwor", "Ġworld"].map(String::from));
        let merges = ["h e", "l l", "he ll", "hell o", "Ġ w", "Ġw o", "Ġwo r", "Ġwor l", "Ġworl d"];
        let mut types = vec![Value::I32(TOKEN_TYPE_CONTROL); 3];
        types.extend(std::iter::repeat_n(Value::I32(1), tokens.len() - 3));
        // The merges above reference intermediate tokens; give them ids too.
        for extra in ["Ġwo", "Ġworl"] {
            tokens.push(extra.into());
            types.push(Value::I32(1));
        }
        let mut md = HashMap::new();
        md.insert("tokenizer.ggml.model".into(), Value::String("gpt2".into()));
        md.insert("tokenizer.ggml.pre".into(), Value::String(pre.into()));
        md.insert("tokenizer.ggml.tokens".into(), Value::Array(tokens.into_iter().map(Value::String).collect()));
        md.insert(
            "tokenizer.ggml.merges".into(),
            Value::Array(merges.iter().map(|m| Value::String(m.to_string())).collect()),
        );
        md.insert("tokenizer.ggml.token_type".into(), Value::Array(types));
        md.insert("tokenizer.ggml.eos_token_id".into(), Value::U32(2));
        md
    }

    fn toy(pre: &str) -> GgufTokenizer {
        let md = toy_metadata(pre);
        let tokenizer = tokenizer_from_metadata(&md).expect("toy tokenizer builds");
        let control = control_flags(&tokenizer, &md);
        let token_bytes = token_byte_table(&tokenizer);
        let end_ids = end_of_turn_ids(&tokenizer, &md, Some(2));
        GgufTokenizer { tokenizer, token_bytes, control, end_ids, bos: None, eos: None }
    }

    #[test]
    fn byte_map_is_a_bijection() {
        let inverse = byte_level_inverse();
        assert_eq!(inverse.len(), 256);
        assert_eq!(inverse[&'Ġ'], b' ');
        assert_eq!(inverse[&'Ċ'], b'\n');
        assert_eq!(inverse[&'A'], b'A');
    }

    #[test]
    fn merges_and_specials_apply() {
        for pre in ["smollm", "llama-bpe", "qwen2", "gpt2"] {
            let t = toy(pre);
            let ids = t.encode("<|im_start|>hello world<|im_end|>").expect("encodes");
            assert_eq!(ids.first(), Some(&1), "{pre}");
            assert_eq!(ids.last(), Some(&2), "{pre}");
            let hello = t.inner().token_to_id("hello");
            let world = t.inner().token_to_id("Ġworld");
            assert_eq!(&ids[1..ids.len() - 1], &[hello.unwrap_or(0), world.unwrap_or(0)], "{pre}");
            assert!(t.is_control(1) && t.is_control(2) && !t.is_control(hello.unwrap_or(0)));
            assert!(t.is_end_of_turn(2) && t.is_end_of_turn(0) && !t.is_end_of_turn(1));
        }
    }

    #[test]
    fn round_trips_arbitrary_text_through_bytes() {
        let texts = [
            "plain words and 12345 digits",
            "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n",
            "tabs\tand   runs    of spaces\n\n\nnewlines",
            "unicode: café, naïve, 日本語, emoji 🎉🚀, Ελληνικά",
            "   leading and trailing   ",
            "<|im_start|>user\nhi<|im_end|>",
        ];
        for pre in ["smollm", "llama-bpe", "qwen2"] {
            let t = toy(pre);
            for text in texts {
                let ids = t.encode(text).expect("encodes");
                assert_eq!(t.decode(&ids), text, "{pre}: {text:?}");
                assert_eq!(t.inner().decode(&ids, false).expect("decodes"), text, "{pre}: tokenizers' own decoder");
            }
        }
    }

    #[test]
    fn smollm_splits_digits_individually() {
        let t = toy("smollm");
        let ids = t.encode("2024").expect("encodes");
        assert_eq!(ids.len(), 4);
        let t = toy("llama-bpe");
        let pieces = t.inner().encode("2024", false).expect("encodes");
        // Llama 3 groups up to three digits before BPE; the toy vocabulary has no digit merges,
        // so the groups still come out one byte per token, but the offsets show the 3+1 split.
        assert_eq!(pieces.get_ids().len(), 4);
    }

    #[test]
    fn sentencepiece_without_tokenizer_json_is_a_clear_error() {
        let mut md = toy_metadata("default");
        md.insert("tokenizer.ggml.model".into(), Value::String("llama".into()));
        let err = tokenizer_from_metadata(&md).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("tokenizer.json next to the GGUF"), "{err}");
    }

    #[test]
    fn sentencepiece_byte_tokens() {
        assert_eq!(sentencepiece_bytes("<0x0A>"), b"\n");
        assert_eq!(sentencepiece_bytes("\u{2581}Hello"), b" Hello");
    }
}
