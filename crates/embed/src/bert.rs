//! A BERT encoder written directly on candle tensors for inference only.
//!
//! Why not candle-transformers' `BertModel`: inference on two cores is dominated by a handful of
//! matrix products, and owning the forward pass lets us (a) fuse the Q/K/V projections into one
//! matmul, (b) keep activations as 2-D `(batch*tokens, hidden)` matrices so every projection is a
//! single contiguous GEMM against a pre-transposed weight, and (c) skip dropout/bookkeeping.

use std::path::Path;

use candle_core::{DType, Device, Module, Result, Tensor};
use serde::Deserialize;

use super::kernels::{Gelu, SoftmaxLastDim};

#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    /// Not used (the weights' shapes carry it), but required: a config without it is not BERT's.
    #[allow(dead_code, reason = "read only to require the key")]
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
}

fn default_eps() -> f64 {
    1e-12
}
fn default_act() -> String {
    "gelu".into()
}

/// y = x @ w_t + b with `w_t` stored as (in, out), contiguous.
struct Dense {
    w_t: Tensor,
    b: Tensor,
}

impl Dense {
    fn load(st: &Weights, name: &str) -> Result<Dense> {
        let w = st.get(&format!("{name}.weight"))?;
        Ok(Dense { w_t: w.t()?.contiguous()?, b: st.get(&format!("{name}.bias"))? })
    }
    fn concat(parts: &[Dense]) -> Result<Dense> {
        let ws: Vec<&Tensor> = parts.iter().map(|d| &d.w_t).collect();
        let bs: Vec<&Tensor> = parts.iter().map(|d| &d.b).collect();
        Ok(Dense { w_t: Tensor::cat(&ws, 1)?.contiguous()?, b: Tensor::cat(&bs, 0)? })
    }
}

impl Module for Dense {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.matmul(&self.w_t)?.broadcast_add(&self.b)
    }
}

struct Norm {
    gamma: Tensor,
    beta: Tensor,
    eps: f32,
}

impl Norm {
    fn load(st: &Weights, name: &str, eps: f64) -> Result<Norm> {
        // Old checkpoints name these gamma/beta.
        let gamma = st.get(&format!("{name}.weight")).or_else(|_| st.get(&format!("{name}.gamma")))?;
        let beta = st.get(&format!("{name}.bias")).or_else(|_| st.get(&format!("{name}.beta")))?;
        Ok(Norm { gamma, beta, eps: eps as f32 })
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        candle_nn::ops::layer_norm(x, &self.gamma, &self.beta, self.eps)
    }
}

struct Layer {
    qkv: Dense,
    attn_out: Dense,
    attn_norm: Norm,
    intermediate: Dense,
    output: Dense,
    out_norm: Norm,
}

pub struct BertModel {
    word: Tensor,
    position: Tensor,
    token_type0: Tensor,
    emb_norm: Norm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    hidden: usize,
    gelu_tanh: bool,
}

struct Weights {
    st: candle_core::safetensors::MmapedSafetensors,
    prefix: String,
    device: Device,
}

impl Weights {
    fn get(&self, name: &str) -> Result<Tensor> {
        self.st.load(&format!("{}{name}", self.prefix), &self.device)?.to_dtype(DType::F32)
    }
}

impl BertModel {
    pub fn load(path: &Path, cfg: &BertConfig, device: &Device) -> Result<BertModel> {
        // SAFETY: the file is memory-mapped read-only for the duration of loading; tensors are
        // copied out of the map before it is dropped.
        let st = unsafe { candle_core::safetensors::MmapedSafetensors::new(path)? };
        let prefix = if st.get("embeddings.word_embeddings.weight").is_ok() {
            String::new()
        } else if st.get("bert.embeddings.word_embeddings.weight").is_ok() {
            "bert.".to_string()
        } else {
            candle_core::bail!("not a BERT checkpoint: no embeddings.word_embeddings.weight tensor");
        };
        let w = Weights { st, prefix, device: device.clone() };
        if !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads) {
            candle_core::bail!("hidden_size {} is not divisible by {} heads", cfg.hidden_size, cfg.num_attention_heads);
        }
        let eps = cfg.layer_norm_eps;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let q = Dense::load(&w, &format!("{p}.attention.self.query"))?;
            let k = Dense::load(&w, &format!("{p}.attention.self.key"))?;
            let v = Dense::load(&w, &format!("{p}.attention.self.value"))?;
            layers.push(Layer {
                qkv: Dense::concat(&[q, k, v])?,
                attn_out: Dense::load(&w, &format!("{p}.attention.output.dense"))?,
                attn_norm: Norm::load(&w, &format!("{p}.attention.output.LayerNorm"), eps)?,
                intermediate: Dense::load(&w, &format!("{p}.intermediate.dense"))?,
                output: Dense::load(&w, &format!("{p}.output.dense"))?,
                out_norm: Norm::load(&w, &format!("{p}.output.LayerNorm"), eps)?,
            });
        }
        let token_type = w.get("embeddings.token_type_embeddings.weight")?;
        Ok(BertModel {
            word: w.get("embeddings.word_embeddings.weight")?,
            position: w.get("embeddings.position_embeddings.weight")?,
            token_type0: token_type.get(0)?,
            emb_norm: Norm::load(&w, "embeddings.LayerNorm", eps)?,
            layers,
            heads: cfg.num_attention_heads,
            head_dim: cfg.hidden_size / cfg.num_attention_heads,
            hidden: cfg.hidden_size,
            gelu_tanh: matches!(cfg.hidden_act.as_str(), "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast"),
        })
    }

    /// `ids`: (batch, tokens) u32, right-padded; `lengths[i]`: real tokens of row i.
    /// Returns the last hidden state, (batch, tokens, hidden); rows past a sequence's length are
    /// zero-attention filler and must be ignored by the caller (mean pooling masks them).
    pub fn forward(&self, ids: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let (b, t) = ids.dims2()?;
        let h = self.hidden;
        let tokens = self.word.index_select(&ids.flatten_all()?, 0)?; // (b*t, h)
        let pos = self.position.narrow(0, 0, t)?.broadcast_add(&self.token_type0)?; // (t, h)
        let x = tokens.reshape((b, t, h))?.broadcast_add(&pos)?.reshape((b * t, h))?;
        let mut x = self.emb_norm.forward(&x)?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x)?; // (b*t, 3h)
            let qkv = qkv.reshape((b, t, 3, self.heads, self.head_dim))?.permute((2, 0, 3, 1, 4))?; // (3, b, heads, t, d)
            let q = (qkv.get(0)? * scale)?.contiguous()?;
            let k = qkv.get(1)?.contiguous()?;
            let v = qkv.get(2)?.contiguous()?;
            // Attention one sequence at a time over its real tokens only: no mask, no work on
            // padding, and the (heads, len, len) score matrix stays small enough for the cache
            // (a whole batch's scores are tens of MB, freshly paged in per layer).
            let mut ctxs = Vec::with_capacity(b);
            for (i, &len) in lengths.iter().enumerate() {
                let len = len.clamp(1, t);
                let qi = q.get(i)?.narrow(1, 0, len)?;
                let ki = k.get(i)?.narrow(1, 0, len)?;
                let vi = v.get(i)?.narrow(1, 0, len)?;
                let scores = qi.matmul(&ki.t()?)?; // (heads, len, len)
                let probs = scores.apply_op1_no_bwd(&SoftmaxLastDim)?;
                let ctx = probs.matmul(&vi)?; // (heads, len, d)
                ctxs.push(if len < t { ctx.pad_with_zeros(1, 0, t - len)? } else { ctx });
            }
            let ctx = Tensor::stack(&ctxs, 0)?; // (b, heads, t, d)
            let ctx = ctx.transpose(1, 2)?.contiguous()?.reshape((b * t, h))?;
            let attn = layer.attn_out.forward(&ctx)?;
            x = layer.attn_norm.forward(&(attn + &x)?)?;
            let inter = layer.intermediate.forward(&x)?;
            let inter = if self.gelu_tanh { inter.gelu()? } else { inter.apply_op1_no_bwd(&Gelu)? };
            let out = layer.output.forward(&inter)?;
            x = layer.out_norm.forward(&(out + &x)?)?;
        }
        x.reshape((b, t, h))
    }
}

