//! A BERT encoder for inference only, on plain f32 slices; candle reads the checkpoint.
//!
//! Why not candle-transformers' `BertModel` (or candle tensors at all): inference on two cores is
//! a handful of matrix products, and owning the forward pass lets us (a) fuse the Q/K/V
//! projections into one matmul, (b) run the dense layers in BF16 where the CPU can
//! ([`crate::matmul`]) with bias, GELU and residual applied as each tile is written, (c) pack
//! a batch's sequences without padding, so no work is spent on filler tokens, (d) run attention
//! in place on the fused projection, and (e) reuse one set of buffers per thread instead of
//! allocating (and page-faulting) fresh tensors per layer.

use std::path::Path;
use std::sync::Arc;

use candle_core::{DType, Device, Result};
use serde::Deserialize;

use crate::kernels::{GeluKind, layer_norm_rows, softmax_row};
use crate::matmul::{Dense, DenseScratch, Epilogue, Precision, sized};

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

/// A tensor of the checkpoint as f32 values, with its shape.
struct Array {
    values: Vec<f32>,
    dims: Vec<usize>,
}

struct Weights {
    st: candle_core::safetensors::MmapedSafetensors,
    prefix: String,
}

impl Weights {
    fn get(&self, name: &str) -> Result<Array> {
        let name = format!("{}{name}", self.prefix);
        // An f32 tensor is read straight from the map (one copy); others go through candle's
        // conversion (checkpoints in f16/bf16).
        let view = self.st.get(&name)?;
        if DType::try_from(view.dtype()).ok() == Some(DType::F32) {
            let values = view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            return Ok(Array { dims: view.shape().to_vec(), values });
        }
        let t = self.st.load(&name, &Device::Cpu)?.to_dtype(DType::F32)?;
        Ok(Array { dims: t.dims().to_vec(), values: t.flatten_all()?.to_vec1::<f32>()? })
    }

    /// Weight (n × k) and bias (n) of the linear layer `name`, several concatenated along n.
    /// `input`: the LayerNorm whose output the layer reads, if any (its γ and β bound the
    /// inputs' ranges, which the INT8 kernel uses to balance outlier channels).
    fn dense(&self, names: &[String], precision: Precision, input: Option<&Norm>) -> Result<Dense> {
        let (mut w, mut b, mut n, mut k) = (Vec::new(), Vec::new(), 0, None);
        for name in names {
            let wi = self.get(&format!("{name}.weight"))?;
            let bi = self.get(&format!("{name}.bias"))?;
            let [rows, cols] = wi.dims[..] else { candle_core::bail!("{name}.weight is not a matrix") };
            if *k.get_or_insert(cols) != cols || bi.values.len() != rows {
                candle_core::bail!("{name}: weight {rows}×{cols} and bias {} do not fit", bi.values.len());
            }
            w.extend(wi.values);
            b.extend(bi.values);
            n += rows;
        }
        let range: Option<Vec<f32>> = input.map(|norm| norm.gamma.iter().zip(&norm.beta).map(|(g, b)| g.abs() + b.abs()).collect());
        Ok(Dense::new(&w, b, n, k.unwrap_or(0), precision, range.as_deref()))
    }

    fn norm(&self, name: &str, eps: f64) -> Result<Norm> {
        // Old checkpoints name these gamma/beta.
        let gamma = self.get(&format!("{name}.weight")).or_else(|_| self.get(&format!("{name}.gamma")))?;
        let beta = self.get(&format!("{name}.bias")).or_else(|_| self.get(&format!("{name}.beta")))?;
        Ok(Norm { gamma: gamma.values, beta: beta.values, eps: eps as f32 })
    }
}

struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn apply(&self, src: &[f32], dst: &mut [f32]) {
        layer_norm_rows(src, dst, &self.gamma, &self.beta, self.eps);
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

/// Activation buffers of one forward pass, kept by each embedding thread and reused: fresh
/// buffers per layer cost page faults and zeroing (~12% of the time when candle allocated them).
#[derive(Default)]
pub struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    sum: Vec<f32>,
    inter: Vec<f32>,
    scores: Vec<f32>,
    dense: DenseScratch,
}

pub struct BertModel {
    /// Shared by the models of one embedder that differ in arithmetic only.
    word: Arc<Array>,
    position: Arc<Array>,
    token_type0: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    hidden: usize,
    gelu: GeluKind,
}

impl BertModel {
    /// `precision` must be resolved (BF16 or F32).
    /// `tables_of`: a model of the same checkpoint whose embedding tables to share.
    pub fn load(path: &Path, cfg: &BertConfig, precision: Precision, tables_of: Option<&BertModel>) -> Result<BertModel> {
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
        let w = Weights { st, prefix };
        if !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads) {
            candle_core::bail!("hidden_size {} is not divisible by {} heads", cfg.hidden_size, cfg.num_attention_heads);
        }
        let h = cfg.hidden_size;
        let eps = cfg.layer_norm_eps;
        let emb_norm = w.norm("embeddings.LayerNorm", eps)?;
        let mut layers: Vec<Layer> = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let qkv = ["query", "key", "value"].map(|q| format!("{p}.attention.self.{q}"));
            // The layer's input is the previous layer's output norm (the embeddings' for the first).
            let input_norm = layers.last().map_or(&emb_norm, |l| &l.out_norm);
            let qkv = w.dense(&qkv, precision, Some(input_norm))?;
            let attn_norm = w.norm(&format!("{p}.attention.output.LayerNorm"), eps)?;
            let layer = Layer {
                qkv,
                attn_out: w.dense(&[format!("{p}.attention.output.dense")], precision, None)?,
                intermediate: w.dense(&[format!("{p}.intermediate.dense")], precision, Some(&attn_norm))?,
                attn_norm,
                output: w.dense(&[format!("{p}.output.dense")], precision, None)?,
                out_norm: w.norm(&format!("{p}.output.LayerNorm"), eps)?,
            };
            let width = layers.first().map_or(layer.intermediate.outputs(), |l| l.intermediate.outputs());
            let fits = layer.qkv.inputs() == h
                && layer.qkv.outputs() == 3 * h
                && (layer.attn_out.inputs(), layer.attn_out.outputs()) == (h, h)
                && (layer.intermediate.inputs(), layer.intermediate.outputs()) == (h, width)
                && (layer.output.inputs(), layer.output.outputs()) == (width, h);
            if !fits {
                candle_core::bail!("layer {i}: projection sizes do not match hidden_size {h} and one intermediate size");
            }
            layers.push(layer);
        }
        let (word, position) = match tables_of {
            Some(m) => (m.word.clone(), m.position.clone()),
            None => (Arc::new(w.get("embeddings.word_embeddings.weight")?), Arc::new(w.get("embeddings.position_embeddings.weight")?)),
        };
        let token_type = w.get("embeddings.token_type_embeddings.weight")?;
        if word.dims.get(1) != Some(&h) || position.dims.get(1) != Some(&h) || token_type.values.len() < h {
            candle_core::bail!("embedding tables do not have hidden_size {h} columns");
        }
        Ok(BertModel {
            word,
            position,
            token_type0: token_type.values[..h].to_vec(),
            emb_norm,
            layers,
            heads: cfg.num_attention_heads,
            head_dim: h / cfg.num_attention_heads,
            hidden: h,
            gelu: match cfg.hidden_act.as_str() {
                "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => GeluKind::Tanh,
                _ => GeluKind::Erf,
            },
        })
    }

    /// The last hidden state of each sequence of token ids, one row of `hidden` values per token,
    /// the sequences one after another (no padding: every row is a real token).
    pub fn forward<'s>(&self, seqs: &[&[u32]], s: &'s mut Scratch) -> Result<&'s [f32]> {
        let h = self.hidden;
        let m: usize = seqs.iter().map(|q| q.len()).sum();
        let max_pos = self.position.values.len() / h;
        let vocab = self.word.values.len() / h;
        let x = sized(&mut s.x, m * h);
        let sum = sized(&mut s.sum, m * h);
        let mut row = 0;
        for seq in seqs {
            if seq.is_empty() || seq.len() > max_pos {
                candle_core::bail!("a sequence of {} tokens (the model takes 1 to {max_pos})", seq.len());
            }
            for (pos, &id) in seq.iter().enumerate() {
                let id = id as usize;
                if id >= vocab {
                    candle_core::bail!("token id {id} is outside the vocabulary of {vocab}");
                }
                let word = &self.word.values[id * h..id * h + h];
                let position = &self.position.values[pos * h..pos * h + h];
                let out = &mut sum[row * h..row * h + h];
                for (((o, w), p), t) in out.iter_mut().zip(word).zip(position).zip(&self.token_type0) {
                    *o = w + p + t;
                }
                row += 1;
            }
        }
        self.emb_norm.apply(sum, x);
        let qkv = sized(&mut s.qkv, m * 3 * h);
        let ctx = sized(&mut s.ctx, m * h);
        let inter_width = self.layers.first().map_or(0, |l| l.intermediate.outputs());
        let inter = sized(&mut s.inter, m * inter_width);
        for layer in &self.layers {
            layer.qkv.forward(x, m, qkv, Epilogue::Bias, &mut s.dense);
            self.attention(seqs, qkv, ctx, &mut s.scores);
            layer.attn_out.forward(ctx, m, sum, Epilogue::Residual(x), &mut s.dense);
            layer.attn_norm.apply(sum, x);
            layer.intermediate.forward(x, m, inter, Epilogue::Gelu(self.gelu), &mut s.dense);
            layer.output.forward(inter, m, sum, Epilogue::Residual(x), &mut s.dense);
            layer.out_norm.apply(sum, x);
        }
        Ok(&s.x[..m * h])
    }

    /// Self-attention of each sequence over its own tokens, head by head, reading Q, K and V in
    /// place from the fused projection (row stride 3h) and writing each head's context into its
    /// columns of `ctx`: no permuted copies.
    fn attention(&self, seqs: &[&[u32]], qkv: &[f32], ctx: &mut [f32], scores: &mut Vec<f32>) {
        let (h, d) = (self.hidden, self.head_dim);
        let scale = 1.0 / (d as f32).sqrt();
        let mut first = 0;
        for seq in seqs {
            let len = seq.len();
            let scores = sized(scores, len * len);
            for head in 0..self.heads {
                let q = qkv[first * 3 * h + head * d..].as_ptr();
                let k = qkv[first * 3 * h + h + head * d..].as_ptr();
                let v = qkv[first * 3 * h + 2 * h + head * d..].as_ptr();
                let out = ctx[first * h + head * d..].as_mut_ptr();
                // SAFETY: Q, K and V of this head are len rows × d columns at stride 3h starting
                // inside `qkv` (m × 3h); the scores are len × len; the context is len rows × d
                // columns at stride h inside `ctx` (m × h). Each pointer was derived from a
                // slice whose remaining length covers those strided reads and writes.
                unsafe {
                    // scores = scale · Q Kᵀ
                    gemm::gemm(
                        len, len, d, scores.as_mut_ptr(), 1, len as isize, false, q, 1, (3 * h) as isize, k,
                        (3 * h) as isize, 1, 0.0, scale, false, false, false, gemm::Parallelism::None,
                    );
                }
                scores.chunks_exact_mut(len).for_each(softmax_row);
                // SAFETY: as above.
                unsafe {
                    // context = softmax(scores) V
                    gemm::gemm(
                        len, d, len, out, 1, h as isize, false, scores.as_ptr(), 1, len as isize, v, 1,
                        (3 * h) as isize, 0.0, 1.0, false, false, false, gemm::Parallelism::None,
                    );
                }
            }
            first += len;
        }
    }
}
