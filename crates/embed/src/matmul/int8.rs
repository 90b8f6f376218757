//! The INT8 kernel: `vpdpbusd` (AVX-512 VNNI), four u8 × i8 multiply-adds per i32 lane.
//!
//! Both operands are quantized in blocks of 32 along the inner dimension, each block with its own
//! scale: the weights once, at load (i8, symmetric, per output column and block); the activations
//! per call (per row and block, symmetric, stored as u8 with a zero point of 128 because
//! `vpdpbusd` wants one unsigned operand). A block's integer sum is exact in i32, then scaled into
//! an f32 accumulator:
//!
//!   Σ x·w ≈ Σ_blocks s_x · (s_w · Σ q_x·q_w − 128 · s_w · Σ q_w)
//!
//! Blocks of 32 rather than one scale per row: BERT's activations have a few outlier channels, and
//! a per-row scale set by them leaves the other channels a handful of levels (sentence vectors
//! within a cosine of only 0.989 of f32's on our texts; blocks of 32: 0.999+).

use super::LANES;

/// Inputs per quantization block.
pub const BLOCK: usize = 32;
/// Vectors of 16 output columns per tile.
const GROUP: usize = 3;

/// Quantized weights laid out for the kernel: output columns in groups of up to 48 (3 vectors);
/// inside a group, for each quad of inputs, the group's columns' 4 i8 values as one word; and for
/// each block, the columns' scales and 128 · scale · Σ q (the zero-point correction).
pub struct PackedInt8 {
    /// 1 / smoothing factor per input (see [`PackedInt8::pack`]); the inputs are multiplied by
    /// it as they are quantized.
    input_factors: Vec<f32>,
    /// Input quads (padded inputs / 4) and blocks.
    quads: usize,
    blocks: usize,
    n: usize,
    groups: Vec<Group>,
    data: Vec<u32>,
    scales: Vec<f32>,
    corrections: Vec<f32>,
}

#[derive(Clone, Copy)]
struct Group {
    /// Offset of the group in `data`, and in `scales`/`corrections`.
    words: usize,
    floats: usize,
    vectors: usize,
    col0: usize,
}

/// i8 levels of `values` with a symmetric scale (0 for an all-zero block).
fn quantize_block(values: impl Iterator<Item = f32> + Clone) -> (Vec<i8>, f32) {
    let amax = values.clone().fold(0f32, |a, v| a.max(v.abs()));
    if amax == 0.0 || !amax.is_finite() {
        return (values.map(|_| 0).collect(), 0.0);
    }
    let inv = 127.0 / amax;
    (values.map(|v| (v * inv).round_ties_even().clamp(-127.0, 127.0) as i8).collect(), amax / 127.0)
}

impl PackedInt8 {
    /// `w` is (n × k) row-major. `input_range`, when known, is each input's typical magnitude
    /// (for the output of a LayerNorm: |γ| + |β|): inputs with a large range (BERT has a few
    /// outlier channels) are scaled down and their weights up by s = √(range / max|w|) before
    /// quantization (SmoothQuant's balance, α = ½), so one channel no longer sets the scale of
    /// its whole block. The product is unchanged: (x / s) · (w · s).
    pub fn pack(w: &[f32], n: usize, k: usize, input_range: Option<&[f32]>) -> PackedInt8 {
        let mut factors = vec![1f32; k];
        let mut smoothed;
        let w = match input_range {
            Some(range) if range.len() == k => {
                smoothed = w.to_vec();
                for (i, f) in factors.iter_mut().enumerate() {
                    let wmax = (0..n).fold(0f32, |a, c| a.max(w[c * k + i].abs()));
                    let s = (range[i].abs() / wmax).sqrt();
                    if s.is_finite() && s > 0.0 {
                        *f = s;
                        (0..n).for_each(|c| smoothed[c * k + i] *= s);
                    }
                }
                &smoothed[..]
            }
            _ => w,
        };
        let input_factors = factors.iter().map(|s| 1.0 / s).collect();
        let blocks = k.div_ceil(BLOCK);
        let quads = blocks * BLOCK / 4;
        let panels = n.div_ceil(LANES);
        let cols = panels * LANES;
        // Levels (cols × padded k), scales and level sums (cols × blocks); padding stays 0.
        let mut levels = vec![0i8; cols * blocks * BLOCK];
        let mut scale = vec![0f32; cols * blocks];
        let mut sum = vec![0i32; cols * blocks];
        for c in 0..n {
            for b in 0..blocks {
                let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(k));
                let (q, s) = quantize_block(w[c * k + lo..c * k + hi].iter().copied());
                levels[(c * blocks + b) * BLOCK..][..q.len()].copy_from_slice(&q);
                scale[c * blocks + b] = s;
                sum[c * blocks + b] = q.iter().map(|&v| v as i32).sum();
            }
        }
        let (mut data, mut scales, mut corrections, mut groups) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for g in 0..panels.div_ceil(GROUP) {
            let vectors = GROUP.min(panels - g * GROUP);
            let col0 = g * GROUP * LANES;
            groups.push(Group { words: data.len(), floats: scales.len(), vectors, col0 });
            for quad in 0..quads {
                for c in col0..col0 + vectors * LANES {
                    let q = &levels[c * blocks * BLOCK + quad * 4..][..4];
                    data.push(u32::from_le_bytes([q[0] as u8, q[1] as u8, q[2] as u8, q[3] as u8]));
                }
            }
            for b in 0..blocks {
                for c in col0..col0 + vectors * LANES {
                    scales.push(scale[c * blocks + b]);
                    corrections.push(128.0 * scale[c * blocks + b] * sum[c * blocks + b] as f32);
                }
            }
        }
        PackedInt8 { input_factors, quads, blocks, n, groups, data, scales, corrections }
    }

    /// Words of quantized input per row, and blocks (scales) per row.
    pub fn row_shape(&self) -> (usize, usize) {
        (self.quads, self.blocks)
    }

    /// What each input is multiplied by before it is quantized.
    pub fn input_factors(&self) -> &[f32] {
        &self.input_factors
    }
}

#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use std::arch::x86_64::*;

    use super::{BLOCK, GROUP, LANES, PackedInt8};
    use crate::kernels::avx512::first_lanes;
    use crate::matmul::tile_out::TileOut;
    use crate::matmul::Epilogue;

    /// Rows per tile: 4 rows × 3 vectors = 12 f32 and 12 i32 accumulators, with the 3 weight
    /// vectors, their scales and the broadcast input inside AVX-512's 32 registers.
    const ROWS: usize = 4;
    const BLOCK_ROWS: usize = 96;

    /// Rows of `x` (m × k) as u8 levels (m × quads words) and their block scales (m × blocks).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn quantize_rows(x: &[f32], m: usize, k: usize, factors: &[f32], levels: &mut [u32], scales: &mut [f32], shape: (usize, usize)) {
        let (quads, blocks) = shape;
        let bias = _mm512_set1_epi32(128);
        for r in 0..m {
            let row = &x[r * k..r * k + k];
            for b in 0..blocks {
                let c0 = b * BLOCK;
                let len = k.saturating_sub(c0).min(BLOCK);
                let mask = |from: usize| first_lanes(len.saturating_sub(from));
                // SAFETY: masked loads read only the block's `len` values inside `row` and
                // `factors` (k values); the two
                // 16-byte stores write the block's 32 bytes inside row r's `quads` words.
                unsafe {
                    let (m0, m1) = (mask(0), mask(LANES));
                    let (i0, i1) = (c0.min(k), (c0 + LANES).min(k));
                    let lo = _mm512_mul_ps(_mm512_maskz_loadu_ps(m0, row.as_ptr().add(i0)), _mm512_maskz_loadu_ps(m0, factors.as_ptr().add(i0)));
                    let hi = _mm512_mul_ps(_mm512_maskz_loadu_ps(m1, row.as_ptr().add(i1)), _mm512_maskz_loadu_ps(m1, factors.as_ptr().add(i1)));
                    let amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
                    let (scale, inv) = if amax > 0.0 && amax.is_finite() { (amax / 127.0, 127.0 / amax) } else { (0.0, 0.0) };
                    let inv = _mm512_set1_ps(inv);
                    // Round to nearest even (the default rounding mode) and shift by the zero point.
                    let qlo = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(lo, inv)), bias);
                    let qhi = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(hi, inv)), bias);
                    let dst = levels.as_mut_ptr().add(r * quads + c0 / 4).cast::<__m128i>();
                    _mm_storeu_si128(dst, _mm512_cvtepi32_epi8(qlo));
                    _mm_storeu_si128(dst.add(1), _mm512_cvtepi32_epi8(qhi));
                    scales[r * blocks + b] = scale;
                }
            }
        }
    }

    /// out = epilogue(x · Wᵀ + b) from the quantized rows of x.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn gemm(levels: &[u32], scales: &[f32], m: usize, w: &PackedInt8, out: &mut [f32], bias: &[f32], epilogue: Epilogue<'_>) {
        let (quads, blocks, n) = (w.quads, w.blocks, w.n);
        for block in (0..m).step_by(BLOCK_ROWS) {
            let block_end = (block + BLOCK_ROWS).min(m);
            for g in &w.groups {
                let cols = (n - g.col0).min(g.vectors * LANES);
                let mut r0 = block;
                while r0 < block_end {
                    let rows = (block_end - r0).min(ROWS);
                    let t = Tile {
                        a: levels[r0 * quads..].as_ptr(),
                        a_scales: scales[r0 * blocks..].as_ptr(),
                        quads,
                        blocks,
                        b: w.data[g.words..].as_ptr(),
                        b_scales: w.scales[g.floats..].as_ptr(),
                        b_corrections: w.corrections[g.floats..].as_ptr(),
                        out: TileOut::new(out, n, r0, g.col0, cols, bias, epilogue),
                    };
                    // SAFETY: the tile reads `rows` rows of levels and scales, the group's packed
                    // words, scales and corrections, and writes (and reads from the residual)
                    // rows × cols values at stride n, all inside the slices.
                    unsafe { dispatch(rows, g.vectors, &t) };
                    r0 += rows;
                }
            }
        }
    }

    struct Tile {
        a: *const u32,
        a_scales: *const f32,
        quads: usize,
        blocks: usize,
        b: *const u32,
        b_scales: *const f32,
        b_corrections: *const f32,
        out: TileOut,
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn dispatch(rows: usize, vectors: usize, t: &Tile) {
        // SAFETY: forwarded from `gemm`.
        unsafe {
            match (rows, vectors) {
                (1, 1) => tile::<1, 1>(t),
                (1, 2) => tile::<1, 2>(t),
                (1, _) => tile::<1, GROUP>(t),
                (2, 1) => tile::<2, 1>(t),
                (2, 2) => tile::<2, 2>(t),
                (2, _) => tile::<2, GROUP>(t),
                (3, 1) => tile::<3, 1>(t),
                (3, 2) => tile::<3, 2>(t),
                (3, _) => tile::<3, GROUP>(t),
                (_, 1) => tile::<ROWS, 1>(t),
                (_, 2) => tile::<ROWS, 2>(t),
                _ => tile::<ROWS, GROUP>(t),
            }
        }
    }

    /// R rows × V vectors of output: each block's integer sums in i32 registers, scaled into f32
    /// accumulators at the block's end.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile<const R: usize, const V: usize>(t: &Tile) {
        const QUADS_PER_BLOCK: usize = BLOCK / 4;
        // SAFETY: see `gemm`; partial vectors are masked.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); V]; R];
            for b in 0..t.blocks {
                let mut sums = [[_mm512_setzero_si512(); V]; R];
                for quad in b * QUADS_PER_BLOCK..(b + 1) * QUADS_PER_BLOCK {
                    let bp = t.b.add(quad * V * LANES);
                    let mut wv = [_mm512_setzero_si512(); V];
                    for (v, w) in wv.iter_mut().enumerate() {
                        *w = _mm512_loadu_si512(bp.add(v * LANES).cast());
                    }
                    for (r, row) in sums.iter_mut().enumerate() {
                        let a = _mm512_set1_epi32(*t.a.add(r * t.quads + quad) as i32);
                        for (v, s) in row.iter_mut().enumerate() {
                            *s = _mm512_dpbusd_epi32(*s, a, wv[v]);
                        }
                    }
                }
                let mut scale = [_mm512_setzero_ps(); V];
                let mut correction = [_mm512_setzero_ps(); V];
                for v in 0..V {
                    scale[v] = _mm512_loadu_ps(t.b_scales.add((b * V + v) * LANES));
                    correction[v] = _mm512_loadu_ps(t.b_corrections.add((b * V + v) * LANES));
                }
                for (r, row) in acc.iter_mut().enumerate() {
                    let a_scale = _mm512_set1_ps(*t.a_scales.add(r * t.blocks + b));
                    for (v, c) in row.iter_mut().enumerate() {
                        let dot = _mm512_fmsub_ps(_mm512_cvtepi32_ps(sums[r][v]), scale[v], correction[v]);
                        *c = _mm512_fmadd_ps(dot, a_scale, *c);
                    }
                }
            }
            for (r, row) in acc.iter().enumerate() {
                for (v, c) in row.iter().enumerate() {
                    if !t.out.write(r, v, *c) {
                        break;
                    }
                }
            }
        }
    }
}
