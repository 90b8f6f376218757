//! The decoder-only transformer of a GGUF chat model (`llama` and `qwen2` architectures), run on
//! candle tensors.
//!
//! Each block is pre-norm: `x += attention(rms_norm(x))`, then `x += mlp(rms_norm(x))`, where the
//! attention is causal multi-head attention with rotary position embeddings and grouped-query
//! heads (several query heads share one key/value head), and the MLP is SwiGLU
//! (`down(silu(gate(x)) * up(x))`). The final norm and the output projection (the token embedding
//! itself when the file has no `output.weight`) run on the last position only, since callers
//! only sample from it.
//!
//! The two architectures differ in two details: qwen2 adds biases to the query, key and value
//! projections, and rotates the two halves of each head (`rope`), where llama files, whose query
//! and key rows llama.cpp's converter permuted, rotate adjacent pairs (`rope_i`).
//!
//! Keys and values of past positions are kept per block in a buffer that grows in chunks, so a
//! decode step writes one row instead of copying the whole cache. Grouped-query attention folds
//! the query heads that share a key/value head into the rows of one matrix product, so the keys
//! and values are never repeated per query head.

use std::io::{Read, Seek};

use candle_core::quantized::QMatMul;
use candle_core::quantized::gguf_file::{Content, Value};
use candle_core::{DType, Device, Module, Result, Tensor, bail};
use candle_nn::ops::{rms_norm, silu, softmax_last_dim};
use candle_nn::rotary_emb::{rope, rope_i};

/// Positions the key/value cache grows by (rounded up to), per block.
const CACHE_CHUNK: usize = 512;

/// The architecture families this model runs; they share everything but the details in the
/// module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `llama` (Llama 2/3, SmolLM2, Mistral-style files): no projection biases, interleaved RoPE.
    Llama,
    /// `qwen2` (Qwen2, Qwen2.5): query/key/value biases, half-split RoPE.
    Qwen2,
}

impl Family {
    /// The family of a `general.architecture` value, if supported.
    pub fn from_architecture(arch: &str) -> Option<Family> {
        match arch {
            "llama" => Some(Family::Llama),
            "qwen2" => Some(Family::Qwen2),
            _ => None,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Family::Llama => "llama",
            Family::Qwen2 => "qwen2",
        }
    }
}

/// Hyper-parameters read from the GGUF metadata (`<arch>.*` keys).
#[derive(Debug, Clone, PartialEq)]
struct Hyper {
    layers: usize,
    embedding: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    rms_eps: f32,
    rope_base: f32,
}

impl Hyper {
    fn from_metadata(content: &Content, family: Family) -> Result<Hyper> {
        let arch = family.prefix();
        let get = |key: &str| content.metadata.get(&format!("{arch}.{key}"));
        let required = |key: &str| -> Result<usize> {
            match get(key) {
                Some(v) => Ok(as_usize(v)?),
                None => bail!("GGUF metadata lacks {arch}.{key}"),
            }
        };
        let heads = required("attention.head_count")?;
        let embedding = required("embedding_length")?;
        let kv_heads = get("attention.head_count_kv").map(as_usize).transpose()?.unwrap_or(heads);
        if heads == 0 || kv_heads == 0 || heads % kv_heads != 0 || embedding % heads != 0 {
            bail!("unsupported head layout: {heads} heads, {kv_heads} key/value heads, embedding {embedding}")
        }
        let head_dim = embedding / heads;
        // Partial rotary embeddings (a dimension count below the head size) are not implemented.
        if let Some(rope_dim) = get("rope.dimension_count").map(as_usize).transpose()?
            && rope_dim != head_dim
        {
            bail!("unsupported rotary dimension {rope_dim} (head size {head_dim})")
        }
        let rms_eps = match get("attention.layer_norm_rms_epsilon") {
            Some(v) => as_f32(v)?,
            None => bail!("GGUF metadata lacks {arch}.attention.layer_norm_rms_epsilon"),
        };
        let rope_base = get("rope.freq_base").map(as_f32).transpose()?.unwrap_or(10_000.0);
        Ok(Hyper { layers: required("block_count")?, embedding, heads, kv_heads, head_dim, rms_eps, rope_base })
    }
}

fn as_usize(v: &Value) -> Result<usize> {
    match v {
        Value::I32(n) if *n >= 0 => Ok(*n as usize),
        Value::I64(n) if *n >= 0 => Ok(*n as usize),
        other => Ok(other.to_u64()? as usize),
    }
}

fn as_f32(v: &Value) -> Result<f32> {
    match v {
        Value::F64(x) => Ok(*x as f32),
        other => other.to_f32(),
    }
}

/// Cosine and sine tables of the rotary embedding, one row per position.
struct Rope {
    cos: Tensor,
    sin: Tensor,
    interleaved: bool,
}

impl Rope {
    /// Tables for positions `0..positions`. Frequencies, angles and their cosines and sines are
    /// computed in f32, as the reference (PyTorch) implementations these models were trained with
    /// do, rather than more precisely in f64.
    fn new(head_dim: usize, base: f32, positions: usize, interleaved: bool) -> Result<Rope> {
        let half = head_dim / 2;
        let inv_freq: Vec<f32> = (0..half).map(|i| 1.0 / base.powf((2 * i) as f32 / head_dim as f32)).collect();
        let mut cos = Vec::with_capacity(positions * half);
        let mut sin = Vec::with_capacity(positions * half);
        for pos in 0..positions {
            for f in &inv_freq {
                let angle = pos as f32 * f;
                cos.push(angle.cos());
                sin.push(angle.sin());
            }
        }
        let cos = Tensor::from_vec(cos, (positions, half), &Device::Cpu)?;
        let sin = Tensor::from_vec(sin, (positions, half), &Device::Cpu)?;
        Ok(Rope { cos, sin, interleaved })
    }

    fn positions(&self) -> usize {
        self.cos.dim(0).unwrap_or(0)
    }

    /// Rotate `x`, shaped (batch, heads, seq, head_dim), whose first row is position `start`.
    fn apply(&self, x: &Tensor, start: usize) -> Result<Tensor> {
        let seq = x.dim(2)?;
        let cos = self.cos.narrow(0, start, seq)?;
        let sin = self.sin.narrow(0, start, seq)?;
        let x = x.contiguous()?;
        if self.interleaved { rope_i(&x, &cos, &sin) } else { rope(&x, &cos, &sin) }
    }
}

/// Keys and values of the positions seen so far, (batch, kv_heads, capacity, head_dim) buffers
/// of which the first `len` positions are filled.
#[derive(Default)]
struct KvCache {
    buffers: Option<(Tensor, Tensor)>,
    len: usize,
}

impl KvCache {
    /// Append `k` and `v` (batch, kv_heads, seq, head_dim) and return every position's keys and
    /// values so far. The buffers grow to a multiple of [`CACHE_CHUNK`], at most `max_len`.
    fn append(&mut self, k: &Tensor, v: &Tensor, max_len: usize) -> Result<(Tensor, Tensor)> {
        let seq = k.dim(2)?;
        let needed = self.len + seq;
        let capacity = self.buffers.as_ref().map_or(Ok(0), |(kb, _)| kb.dim(2))?;
        if needed > capacity {
            let grown = needed.next_multiple_of(CACHE_CHUNK).min(max_len).max(needed);
            let grow = |old: Option<&Tensor>, new: &Tensor| -> Result<Tensor> {
                let (b, h, _, d) = new.dims4()?;
                let extra = Tensor::zeros((b, h, grown - capacity, d), new.dtype(), new.device())?;
                match old {
                    Some(old) => Tensor::cat(&[old, &extra], 2),
                    None => Ok(extra),
                }
            };
            let old = self.buffers.take();
            let kb = grow(old.as_ref().map(|(kb, _)| kb), k)?;
            let vb = grow(old.as_ref().map(|(_, vb)| vb), v)?;
            self.buffers = Some((kb, vb));
        }
        let Some((kb, vb)) = &self.buffers else { bail!("key/value cache not allocated") };
        kb.slice_set(&k.contiguous()?, 2, self.len)?;
        vb.slice_set(&v.contiguous()?, 2, self.len)?;
        self.len = needed;
        Ok((kb.narrow(2, 0, needed)?, vb.narrow(2, 0, needed)?))
    }

    fn clear(&mut self) {
        self.buffers = None;
        self.len = 0;
    }
}

/// A projection `x·Wᵀ (+ b)`.
struct Linear {
    weight: QMatMul,
    bias: Option<Tensor>,
}

impl Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = self.weight.forward(x)?;
        match &self.bias {
            Some(b) => y.broadcast_add(b),
            None => Ok(y),
        }
    }
}

/// What every block needs to know about the current forward pass.
struct Step<'a> {
    /// Position of the first input token.
    start: usize,
    rope: &'a Rope,
    /// Additive causal mask, (query rows, key positions), for inputs longer than one token.
    mask: Option<&'a Tensor>,
    /// Longest sequence the cache may need to hold.
    max_len: usize,
}

struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    cache: KvCache,
}

impl Attention {
    /// Split (batch, seq, heads·head_dim) into (batch, heads, seq, head_dim).
    fn split_heads(x: &Tensor, heads: usize, head_dim: usize) -> Result<Tensor> {
        let (b, seq, _) = x.dims3()?;
        x.reshape((b, seq, heads, head_dim))?.transpose(1, 2)?.contiguous()
    }

    fn forward(&mut self, x: &Tensor, step: &Step) -> Result<Tensor> {
        let (b, seq, _) = x.dims3()?;
        let group = self.heads / self.kv_heads;
        let q = Self::split_heads(&self.q.forward(x)?, self.heads, self.head_dim)?;
        let k = Self::split_heads(&self.k.forward(x)?, self.kv_heads, self.head_dim)?;
        let v = Self::split_heads(&self.v.forward(x)?, self.kv_heads, self.head_dim)?;
        let q = (step.rope.apply(&q, step.start)? * (1.0 / (self.head_dim as f64).sqrt()))?;
        let k = step.rope.apply(&k, step.start)?;
        let (k, v) = self.cache.append(&k, &v, step.max_len)?;

        // Query head h reads key/value head h / group: the `group` query heads of one key/value
        // head become consecutive row blocks of one (group·seq, head_dim) matrix.
        let q = q.reshape((b, self.kv_heads, group * seq, self.head_dim))?;
        let scores = q.matmul(&k.t()?)?;
        let scores = match step.mask {
            Some(mask) => scores.broadcast_add(mask)?,
            None => scores,
        };
        let weights = softmax_last_dim(&scores)?;
        let y = weights.matmul(&v)?;
        let y = y.reshape((b, self.heads, seq, self.head_dim))?.transpose(1, 2)?;
        let y = y.reshape((b, seq, self.heads * self.head_dim))?;
        self.out.forward(&y)
    }
}

/// SwiGLU feed-forward network.
struct Mlp {
    gate: QMatMul,
    up: QMatMul,
    down: QMatMul,
}

impl Mlp {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let hidden = (silu(&self.gate.forward(x)?)? * self.up.forward(x)?)?;
        self.down.forward(&hidden)
    }
}

struct Block {
    attn_norm: Tensor,
    attn: Attention,
    mlp_norm: Tensor,
    mlp: Mlp,
    eps: f32,
}

impl Block {
    fn forward(&mut self, x: &Tensor, step: &Step) -> Result<Tensor> {
        let attended = self.attn.forward(&rms_norm(x, &self.attn_norm, self.eps)?, step)?;
        let x = (x + attended)?;
        let mlp = self.mlp.forward(&rms_norm(&x, &self.mlp_norm, self.eps)?)?;
        x + mlp
    }
}

/// Reads tensors by name from a GGUF data section on the CPU.
struct Loader<'a, R> {
    content: &'a Content,
    reader: &'a mut R,
}

impl<R: Read + Seek> Loader<'_, R> {
    fn has(&self, name: &str) -> bool {
        self.content.tensor_infos.contains_key(name)
    }

    fn matrix(&mut self, name: &str) -> Result<QMatMul> {
        QMatMul::from_qtensor(self.content.tensor(self.reader, name, &Device::Cpu)?)
    }

    /// A tensor (norm weights, biases) as dense F32.
    fn dense(&mut self, name: &str) -> Result<Tensor> {
        self.content.tensor(self.reader, name, &Device::Cpu)?.dequantize(&Device::Cpu)?.to_dtype(DType::F32)
    }

    fn linear(&mut self, name: &str, bias: bool) -> Result<Linear> {
        let weight = self.matrix(&format!("{name}.weight"))?;
        let bias = if bias { Some(self.dense(&format!("{name}.bias"))?) } else { None };
        Ok(Linear { weight, bias })
    }

    fn block(&mut self, i: usize, hp: &Hyper, family: Family) -> Result<Block> {
        let p = format!("blk.{i}");
        let biased = family == Family::Qwen2;
        let attn = Attention {
            q: self.linear(&format!("{p}.attn_q"), biased)?,
            k: self.linear(&format!("{p}.attn_k"), biased)?,
            v: self.linear(&format!("{p}.attn_v"), biased)?,
            out: self.linear(&format!("{p}.attn_output"), false)?,
            heads: hp.heads,
            kv_heads: hp.kv_heads,
            head_dim: hp.head_dim,
            cache: KvCache::default(),
        };
        let mlp = Mlp {
            gate: self.matrix(&format!("{p}.ffn_gate.weight"))?,
            up: self.matrix(&format!("{p}.ffn_up.weight"))?,
            down: self.matrix(&format!("{p}.ffn_down.weight"))?,
        };
        Ok(Block {
            attn_norm: self.dense(&format!("{p}.attn_norm.weight"))?,
            attn,
            mlp_norm: self.dense(&format!("{p}.ffn_norm.weight"))?,
            mlp,
            eps: hp.rms_eps,
        })
    }
}

/// A loaded decoder-only transformer with its key/value cache.
pub struct Transformer {
    /// Token embedding, looked up row by row (dequantized on the fly when quantized).
    embedding: QMatMul,
    blocks: Vec<Block>,
    out_norm: Tensor,
    /// Output projection; shares the embedding's weights when the file ties them.
    output: QMatMul,
    rope: Rope,
    eps: f32,
    embedding_len: usize,
    kv_heads: usize,
    heads: usize,
}

impl Transformer {
    /// Build the model of `family` from the tensors of `content`, read through `reader`, with
    /// rotary tables for `max_positions` positions (the context window).
    pub fn from_gguf<R: Read + Seek>(
        content: &Content,
        reader: &mut R,
        family: Family,
        max_positions: usize,
    ) -> Result<Transformer> {
        let hp = Hyper::from_metadata(content, family)?;
        let rope = Rope::new(hp.head_dim, hp.rope_base, max_positions.max(1), family == Family::Llama)?;
        let mut loader = Loader { content, reader };
        let embedding = loader.matrix("token_embd.weight")?;
        let output = if loader.has("output.weight") { loader.matrix("output.weight")? } else { embedding.clone() };
        let out_norm = loader.dense("output_norm.weight")?;
        let blocks = (0..hp.layers).map(|i| loader.block(i, &hp, family)).collect::<Result<Vec<_>>>()?;
        Ok(Transformer {
            embedding,
            blocks,
            out_norm,
            output,
            rope,
            eps: hp.rms_eps,
            embedding_len: hp.embedding,
            kv_heads: hp.kv_heads,
            heads: hp.heads,
        })
    }

    /// Run `input` (batch, seq) token ids at positions `index_pos..index_pos + seq` and return the
    /// logits of the last position, (batch, vocabulary). Position 0 starts a new sequence (the
    /// cache is cleared); any other `index_pos` must continue the cached one.
    pub fn forward(&mut self, input: &Tensor, index_pos: usize) -> Result<Tensor> {
        let (_, seq) = input.dims2()?;
        if seq == 0 {
            bail!("forward pass over no tokens")
        }
        if index_pos == 0 {
            self.clear_kv_cache();
        }
        let cached = self.blocks.first().map_or(0, |b| b.attn.cache.len);
        if index_pos != cached {
            bail!("position {index_pos} does not continue the cached sequence of {cached} tokens")
        }
        let max_len = self.rope.positions();
        if index_pos + seq > max_len {
            bail!("positions up to {} exceed the context window of {max_len}", index_pos + seq)
        }
        let mask = if seq > 1 { Some(causal_mask(seq, index_pos, self.heads / self.kv_heads)?) } else { None };
        let step = Step { start: index_pos, rope: &self.rope, mask: mask.as_ref(), max_len };
        let mut x = self.embedding.embedding(input)?;
        for block in &mut self.blocks {
            x = block.forward(&x, &step)?;
        }
        let last = x.narrow(1, seq - 1, 1)?.reshape(((), self.embedding_len))?;
        let last = rms_norm(&last, &self.out_norm, self.eps)?;
        self.output.forward(&last)
    }

    /// Forget the cached keys and values (and free their memory).
    pub fn clear_kv_cache(&mut self) {
        for block in &mut self.blocks {
            block.attn.cache.clear();
        }
    }
}

/// The additive causal mask for `seq` queries at positions `start..start + seq` over keys
/// `0..start + seq`, repeated `group` times down the rows (one copy per query head sharing a
/// key/value head): 0 where a query may attend, −∞ where the key is in its future.
fn causal_mask(seq: usize, start: usize, group: usize) -> Result<Tensor> {
    let keys = start + seq;
    let mut mask = Vec::with_capacity(group * seq * keys);
    for _ in 0..group {
        for i in 0..seq {
            let visible = start + i + 1;
            mask.extend((0..keys).map(|j| if j < visible { 0.0f32 } else { f32::NEG_INFINITY }));
        }
    }
    Tensor::from_vec(mask, (group * seq, keys), &Device::Cpu)
}

#[cfg(test)]
mod tests;
