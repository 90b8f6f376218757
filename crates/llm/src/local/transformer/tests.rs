//! Tests of the transformer on small random models written as in-memory GGUF files, checked
//! against a plain-loop reference of the architecture and against itself (cache versus prefill).

use std::io::Cursor;

use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};

use super::*;

/// Shape of a test model.
#[derive(Clone, Copy)]
struct Spec {
    family: Family,
    vocab: usize,
    dim: usize,
    heads: usize,
    kv_heads: usize,
    ffn: usize,
    layers: usize,
    /// Output projection shared with the token embedding (no `output.weight`).
    tied: bool,
}

const EPS: f32 = 1e-5;
const ROPE_BASE: f32 = 10_000.0;

impl Spec {
    fn llama() -> Spec {
        Spec { family: Family::Llama, vocab: 50, dim: 32, heads: 4, kv_heads: 2, ffn: 48, layers: 2, tied: true }
    }

    fn qwen2() -> Spec {
        Spec { family: Family::Qwen2, vocab: 40, dim: 24, heads: 6, kv_heads: 2, ffn: 40, layers: 2, tied: false }
    }

    fn head_dim(&self) -> usize {
        self.dim / self.heads
    }
}

/// Reproducible uniform numbers in [-scale, scale).
struct Rng(u64);

impl Rng {
    fn values(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                ((self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
            })
            .collect()
    }
}

/// A model's tensors by GGUF name, as (dims, values); matrices are (out, in).
struct Model {
    spec: Spec,
    tensors: Vec<(String, Vec<usize>, Vec<f32>)>,
}

impl Model {
    fn random(spec: Spec, seed: u64) -> Model {
        let mut rng = Rng(seed);
        let mut tensors = Vec::new();
        let mut add = |name: String, dims: Vec<usize>, scale: f32, offset: f32| {
            let values = rng.values(dims.iter().product(), scale).into_iter().map(|v| v + offset).collect();
            tensors.push((name, dims, values));
        };
        let (d, kv) = (spec.dim, spec.kv_heads * spec.head_dim());
        add("token_embd.weight".into(), vec![spec.vocab, d], 1.0, 0.0);
        add("output_norm.weight".into(), vec![d], 0.2, 1.0);
        if !spec.tied {
            add("output.weight".into(), vec![spec.vocab, d], 0.3, 0.0);
        }
        for i in 0..spec.layers {
            let p = format!("blk.{i}");
            add(format!("{p}.attn_norm.weight"), vec![d], 0.2, 1.0);
            add(format!("{p}.ffn_norm.weight"), vec![d], 0.2, 1.0);
            for (name, rows, cols) in [
                ("attn_q", d, d),
                ("attn_k", kv, d),
                ("attn_v", kv, d),
                ("attn_output", d, d),
                ("ffn_gate", spec.ffn, d),
                ("ffn_up", spec.ffn, d),
                ("ffn_down", d, spec.ffn),
            ] {
                add(format!("{p}.{name}.weight"), vec![rows, cols], 0.3, 0.0);
            }
            if spec.family == Family::Qwen2 {
                add(format!("{p}.attn_q.bias"), vec![d], 0.5, 0.0);
                add(format!("{p}.attn_k.bias"), vec![kv], 0.5, 0.0);
                add(format!("{p}.attn_v.bias"), vec![kv], 0.5, 0.0);
            }
        }
        Model { spec, tensors }
    }

    fn get(&self, name: &str) -> &[f32] {
        &self.tensors.iter().find(|(n, _, _)| n == name).unwrap_or_else(|| panic!("no tensor {name}")).2
    }

    /// The model as a GGUF file, loaded into a [`Transformer`] with `context` positions.
    fn load(&self, context: usize) -> Transformer {
        let arch = self.spec.family.prefix();
        let u = |n: usize| Value::U32(n as u32);
        let metadata: Vec<(String, Value)> = vec![
            ("general.architecture".into(), Value::String(arch.into())),
            (format!("{arch}.block_count"), u(self.spec.layers)),
            (format!("{arch}.embedding_length"), u(self.spec.dim)),
            (format!("{arch}.context_length"), u(context)),
            (format!("{arch}.attention.head_count"), u(self.spec.heads)),
            (format!("{arch}.attention.head_count_kv"), u(self.spec.kv_heads)),
            (format!("{arch}.attention.layer_norm_rms_epsilon"), Value::F32(EPS)),
            (format!("{arch}.rope.freq_base"), Value::F32(ROPE_BASE)),
        ];
        let qtensors: Vec<(String, QTensor)> = self
            .tensors
            .iter()
            .map(|(name, dims, values)| {
                let t = Tensor::from_vec(values.clone(), dims.as_slice(), &Device::Cpu).expect("tensor");
                (name.clone(), QTensor::quantize(&t, GgmlDType::F32).expect("F32 QTensor"))
            })
            .collect();
        let md: Vec<(&str, &Value)> = metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let ts: Vec<(&str, &QTensor)> = qtensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut file = Cursor::new(Vec::new());
        gguf_file::write(&mut file, &md, &ts).expect("write GGUF");
        file.set_position(0);
        let content = gguf_file::Content::read(&mut file).expect("read GGUF");
        Transformer::from_gguf(&content, &mut file, self.spec.family, context).expect("load")
    }

    /// Last-position logits of `tokens` computed with plain loops in f64.
    fn reference_logits(&self, tokens: &[u32]) -> Vec<f32> {
        let s = self.spec;
        let mut xs: Vec<Vec<f64>> =
            tokens.iter().map(|&t| to_f64(&self.get("token_embd.weight")[t as usize * s.dim..][..s.dim])).collect();
        for i in 0..s.layers {
            let p = format!("blk.{i}");
            let normed: Vec<Vec<f64>> = xs.iter().map(|x| norm(x, self.get(&format!("{p}.attn_norm.weight")))).collect();
            let attended = self.reference_attention(&p, &normed);
            for (x, a) in xs.iter_mut().zip(attended) {
                add_into(x, &a);
            }
            for x in xs.iter_mut() {
                let h = norm(x, self.get(&format!("{p}.ffn_norm.weight")));
                let gate = matvec(self.get(&format!("{p}.ffn_gate.weight")), &h);
                let up = matvec(self.get(&format!("{p}.ffn_up.weight")), &h);
                let hidden: Vec<f64> = gate.iter().zip(&up).map(|(g, u)| g / (1.0 + (-g).exp()) * u).collect();
                add_into(x, &matvec(self.get(&format!("{p}.ffn_down.weight")), &hidden));
            }
        }
        let last = norm(xs.last().expect("tokens"), self.get("output_norm.weight"));
        let out = if s.tied { "token_embd.weight" } else { "output.weight" };
        matvec(self.get(out), &last).into_iter().map(|v| v as f32).collect()
    }

    /// Causal attention of one block over every position (inputs already normed).
    fn reference_attention(&self, p: &str, normed: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let s = self.spec;
        let hd = s.head_dim();
        let project = |name: &str, x: &[f64]| {
            let mut y = matvec(self.get(&format!("{p}.{name}.weight")), x);
            if s.family == Family::Qwen2 {
                add_into(&mut y, &to_f64(self.get(&format!("{p}.{name}.bias"))));
            }
            y
        };
        let rotate = |v: &mut [f64], pos: usize| {
            for h in 0..v.len() / hd {
                rotate_head(&mut v[h * hd..(h + 1) * hd], pos, s.family);
            }
        };
        let mut qs = Vec::new();
        let mut ks = Vec::new();
        let mut vs = Vec::new();
        for (pos, x) in normed.iter().enumerate() {
            let (mut q, mut k) = (project("attn_q", x), project("attn_k", x));
            rotate(&mut q, pos);
            rotate(&mut k, pos);
            qs.push(q);
            ks.push(k);
            vs.push(project("attn_v", x));
        }
        let group = s.heads / s.kv_heads;
        (0..normed.len())
            .map(|t| {
                let mut heads = vec![0.0; s.dim];
                for h in 0..s.heads {
                    let kvh = h / group;
                    let q = &qs[t][h * hd..(h + 1) * hd];
                    let scores: Vec<f64> = (0..=t)
                        .map(|j| dot(q, &ks[j][kvh * hd..(kvh + 1) * hd]) / (hd as f64).sqrt())
                        .collect();
                    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let weights: Vec<f64> = scores.iter().map(|v| (v - max).exp()).collect();
                    let total: f64 = weights.iter().sum();
                    for (j, w) in weights.iter().enumerate() {
                        for c in 0..hd {
                            heads[h * hd + c] += w / total * vs[j][kvh * hd + c];
                        }
                    }
                }
                matvec(self.get(&format!("{p}.attn_output.weight")), &heads)
            })
            .collect()
    }
}

/// Rotate one head's vector for position `pos`: llama files pair adjacent elements, qwen2 the
/// two halves.
fn rotate_head(v: &mut [f64], pos: usize, family: Family) {
    let half = v.len() / 2;
    for i in 0..half {
        let angle = pos as f64 * (ROPE_BASE as f64).powf(-2.0 * i as f64 / v.len() as f64);
        let (a, b) = match family {
            Family::Llama => (2 * i, 2 * i + 1),
            Family::Qwen2 => (i, i + half),
        };
        let (x, y) = (v[a], v[b]);
        v[a] = x * angle.cos() - y * angle.sin();
        v[b] = x * angle.sin() + y * angle.cos();
    }
}

fn to_f64(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn add_into(x: &mut [f64], y: &[f64]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

/// `W·x` for a row-major (rows, x.len()) matrix.
fn matvec(w: &[f32], x: &[f64]) -> Vec<f64> {
    w.chunks_exact(x.len()).map(|row| dot(&to_f64(row), x)).collect()
}

fn norm(x: &[f64], weight: &[f32]) -> Vec<f64> {
    let rms = (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64 + EPS as f64).sqrt();
    x.iter().zip(weight).map(|(v, w)| v / rms * *w as f64).collect()
}

fn logits(model: &mut Transformer, tokens: &[u32], start: usize) -> Vec<f32> {
    let input = Tensor::new(tokens, &Device::Cpu).and_then(|t| t.unsqueeze(0)).expect("input");
    let out = model.forward(&input, start).expect("forward");
    assert_eq!(out.dims().len(), 2, "(batch, vocabulary)");
    out.squeeze(0).and_then(|l| l.to_vec1::<f32>()).expect("logits")
}

/// Largest difference relative to the largest magnitude of `expected`.
fn relative_difference(actual: &[f32], expected: &[f32]) -> f32 {
    assert_eq!(actual.len(), expected.len());
    let diff = actual.iter().zip(expected).map(|(a, e)| (a - e).abs()).fold(0.0, f32::max);
    diff / expected.iter().map(|e| e.abs()).fold(f32::MIN_POSITIVE, f32::max)
}

fn tokens(n: usize, vocab: usize) -> Vec<u32> {
    (0..n).map(|i| ((i * 7 + 3) % vocab) as u32).collect()
}

fn check_against_reference(spec: Spec) {
    let model = Model::random(spec, 0x1234_5678);
    let mut transformer = model.load(64);
    let ids = tokens(9, spec.vocab);
    let got = logits(&mut transformer, &ids[..6], 0);
    let rel = relative_difference(&got, &model.reference_logits(&ids[..6]));
    assert!(rel < 1e-4, "prefill differs from the reference by {rel:e}");
    for n in 6..ids.len() {
        let got = logits(&mut transformer, &ids[n..n + 1], n);
        let rel = relative_difference(&got, &model.reference_logits(&ids[..=n]));
        assert!(rel < 1e-4, "decode step at {n} differs from the reference by {rel:e}");
    }
}

#[test]
fn llama_matches_the_plain_reference() {
    check_against_reference(Spec::llama());
}

#[test]
fn qwen2_matches_the_plain_reference() {
    check_against_reference(Spec::qwen2());
}

/// Prefill of the whole sequence, prefill in chunks (a rectangular mask over cached keys) and
/// one token at a time must give the same last logits, also past the cache's first growth.
#[test]
fn cached_decoding_matches_one_prefill() {
    for spec in [Spec::llama(), Spec::qwen2()] {
        let mut transformer = Model::random(spec, 42).load(1024);
        let n = CACHE_CHUNK + 20;
        let ids = tokens(n, spec.vocab);
        let whole = logits(&mut transformer, &ids, 0);
        let split = n - 12;
        logits(&mut transformer, &ids[..300], 0);
        logits(&mut transformer, &ids[300..split], 300);
        let mut last = Vec::new();
        for pos in split..n {
            last = logits(&mut transformer, &ids[pos..=pos], pos);
        }
        let rel = relative_difference(&last, &whole);
        assert!(rel < 1e-4, "{:?}: cached decoding differs from prefill by {rel:e}", spec.family);
    }
}

#[test]
fn positions_must_continue_the_cache_and_fit_the_context() {
    let mut transformer = Model::random(Spec::llama(), 7).load(16);
    let ids = tokens(16, 50);
    let first = logits(&mut transformer, &ids[..4], 0);
    let input = |range: std::ops::Range<usize>| Tensor::new(&ids[range], &Device::Cpu).and_then(|t| t.unsqueeze(0));
    let gap = transformer.forward(&input(4..5).expect("input"), 6);
    assert!(gap.is_err_and(|e| e.to_string().contains("does not continue")));
    let beyond = transformer.forward(&input(4..16).expect("input").repeat((1, 2)).expect("input"), 4);
    assert!(beyond.is_err_and(|e| e.to_string().contains("context window of 16")));
    // Position 0 starts over: the same prompt gives the same logits.
    assert_eq!(logits(&mut transformer, &ids[..4], 0), first);
}

#[test]
fn the_mask_hides_only_future_keys() -> Result<()> {
    let mask = causal_mask(2, 3, 2)?.to_vec2::<f32>()?;
    let inf = f32::NEG_INFINITY;
    let rows = [[0.0, 0.0, 0.0, 0.0, inf], [0.0, 0.0, 0.0, 0.0, 0.0]];
    assert_eq!(mask, [rows[0], rows[1], rows[0], rows[1]]);
    Ok(())
}

#[test]
fn rope_rotates_pairs_by_position_times_frequency() -> Result<()> {
    // head_dim 4: frequencies 1 and base^(-1/2) = 0.01 for base 10 000.
    let rope = Rope::new(4, 10_000.0, 8, true)?;
    let x = Tensor::new(&[1.0f32, 0.0, 1.0, 0.0], &Device::Cpu)?.reshape((1, 1, 1, 4))?;
    let y = rope.apply(&x, 3)?.flatten_all()?.to_vec1::<f32>()?;
    let expected = [3f32.cos(), 3f32.sin(), 0.03f32.cos(), 0.03f32.sin()];
    for (a, e) in y.iter().zip(expected) {
        assert!((a - e).abs() < 1e-6, "{y:?} vs {expected:?}");
    }
    // Half-split: pairs are (0, 2) and (1, 3).
    let halves = Rope::new(4, 10_000.0, 8, false)?;
    let x = Tensor::new(&[1.0f32, 1.0, 0.0, 0.0], &Device::Cpu)?.reshape((1, 1, 1, 4))?;
    let y = halves.apply(&x, 3)?.flatten_all()?.to_vec1::<f32>()?;
    let expected = [3f32.cos(), 0.03f32.cos(), 3f32.sin(), 0.03f32.sin()];
    for (a, e) in y.iter().zip(expected) {
        assert!((a - e).abs() < 1e-6, "{y:?} vs {expected:?}");
    }
    Ok(())
}

#[test]
fn the_cache_grows_and_keeps_earlier_positions() -> Result<()> {
    let mut cache = KvCache::default();
    let row = |p: usize| Tensor::full(p as f32, (1, 2, 1, 3), &Device::Cpu);
    let first = Tensor::cat(&[row(0)?, row(1)?], 2)?;
    cache.append(&first, &first, 10_000)?;
    for p in 2..CACHE_CHUNK + 5 {
        let (k, v) = cache.append(&row(p)?, &row(p)?, 10_000)?;
        assert_eq!(k.dims(), [1, 2, p + 1, 3]);
        assert_eq!(v.dims(), [1, 2, p + 1, 3]);
    }
    let (k, _) = cache.append(&row(9)?, &row(9)?, 10_000)?;
    let column: Vec<f32> = k.narrow(1, 1, 1)?.narrow(3, 2, 1)?.flatten_all()?.to_vec1()?;
    let expected: Vec<f32> = (0..CACHE_CHUNK + 5).map(|p| p as f32).chain([9.0]).collect();
    assert_eq!(column, expected);
    cache.clear();
    assert_eq!(cache.len, 0);
    Ok(())
}
