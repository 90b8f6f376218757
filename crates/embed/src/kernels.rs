//! Element-wise kernels for the encoder written as plain loops over slices, so that with
//! `target-cpu=native` they compile to AVX2/AVX-512 code. candle's CPU GELU (erf) and softmax call
//! scalar libm `erff`/`expf` per element, which profiling showed at ~20% of embedding time.

use candle_core::{CpuStorage, CustomOp1, Layout, Result, Shape};
use rayon::prelude::*;

/// e^x for x in roughly [-87, 88], relative error < 1e-6, branch-free (vectorises).
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    // 1.5 · 2^23: adding it leaves round-to-nearest-even(y) in the low mantissa bits. Every step
    // below is plain float or integer arithmetic, so the loop vectorises (a saturating
    // `f32 as i32` cast does not).
    const SHIFT: f32 = 12_582_912.0;
    // Not `clamp`: `max`/`min` turn a NaN into a bound, which keeps the integer trick below sound.
    #[allow(clippy::manual_clamp)]
    let x = x.max(-87.0).min(88.0);
    // e^x = 2^n · e^r with n = round(x / ln 2), |r| ≤ ln2 / 2.
    let shifted = x * std::f32::consts::LOG2_E + SHIFT;
    let n = shifted - SHIFT;
    // Cody–Waite reduction: ln 2 split into a part exact in f32 and a small correction, so r
    // keeps full precision even for large |n|.
    let r = (x - n * 0.693_359_4) - n * -2.121_944_4e-4;
    // Taylor series of e^r to degree 7: truncation error < 0.35^8 / 8! ≈ 5e-9.
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2^n built from its exponent bits: (n + 127) << 23, with n read from `shifted`'s mantissa.
    let scale = f32::from_bits(shifted.to_bits().wrapping_sub(0x4B40_0000).wrapping_add(127) << 23);
    p * scale
}

/// erf(x) by Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7).
#[inline(always)]
pub fn fast_erf(x: f32) -> f32 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t * (0.254_829_6 + t * (-0.284_496_72 + t * (1.421_413_8 + t * (-1.453_152_1 + t * 1.061_405_4))));
    sign * (1.0 - poly * fast_exp(-a * a))
}

/// GELU with the exact (erf) definition BERT uses: x · Φ(x).
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + fast_erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// Numerically stable softmax of one row, in place. The reductions use 16 independent lanes:
/// a single running max/sum is a loop-carried dependency the compiler may not reorder, which
/// kept the loop scalar.
pub fn softmax_row(row: &mut [f32]) {
    const L: usize = 16;
    let mut lanes = [f32::NEG_INFINITY; L];
    let mut chunks = row.chunks_exact(L);
    for c in &mut chunks {
        for k in 0..L {
            lanes[k] = lanes[k].max(c[k]);
        }
    }
    let max = chunks.remainder().iter().copied().fold(lanes.iter().copied().fold(f32::NEG_INFINITY, f32::max), f32::max);
    for v in row.iter_mut() {
        *v = fast_exp(*v - max);
    }
    let mut sums = [0f32; L];
    let mut chunks = row.chunks_exact(L);
    for c in &mut chunks {
        for k in 0..L {
            sums[k] += c[k];
        }
    }
    let sum: f32 = sums.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>();
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

fn contiguous_f32<'a>(s: &'a CpuStorage, l: &Layout, op: &str) -> Result<&'a [f32]> {
    let CpuStorage::F32(data) = s else { candle_core::bail!("{op}: expected f32") };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&data[a..b]),
        None => candle_core::bail!("{op}: input must be contiguous"),
    }
}

/// Below this many elements the work is not worth spreading over threads.
const PAR_MIN: usize = 1 << 15;

pub struct Gelu;

impl CustomOp1 for Gelu {
    fn name(&self) -> &'static str {
        "qa-gelu-erf"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let src = contiguous_f32(s, l, "gelu")?;
        let mut out = vec![0f32; src.len()];
        let work = |(o, i): (&mut [f32], &[f32])| {
            for (o, &x) in o.iter_mut().zip(i) {
                *o = gelu(x);
            }
        };
        if src.len() >= PAR_MIN {
            out.par_chunks_mut(4096).zip(src.par_chunks(4096)).for_each(work);
        } else {
            work((&mut out, src));
        }
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
}

/// Softmax over the last dimension.
pub struct SoftmaxLastDim;

impl CustomOp1 for SoftmaxLastDim {
    fn name(&self) -> &'static str {
        "qa-softmax-last-dim"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let src = contiguous_f32(s, l, "softmax")?;
        let dim = *l.shape().dims().last().unwrap_or(&1);
        let mut out = src.to_vec();
        if out.len() >= PAR_MIN {
            out.par_chunks_mut(dim).for_each(softmax_row);
        } else {
            out.chunks_mut(dim).for_each(softmax_row);
        }
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_is_accurate() {
        let mut x = -80.0f32;
        while x < 80.0 {
            let (a, b) = (fast_exp(x), x.exp());
            assert!(((a - b) / b).abs() < 2e-6, "exp({x}): {a} vs {b}");
            x += 0.137;
        }
    }

    #[test]
    fn gelu_matches_the_erf_definition() {
        let mut x = -10.0f32;
        while x < 10.0 {
            let exact = 0.5 * x as f64 * (1.0 + libm_erf(x as f64 / std::f64::consts::SQRT_2));
            assert!((gelu(x) as f64 - exact).abs() < 2e-6, "gelu({x})");
            x += 0.01;
        }
    }

    #[test]
    fn softmax_rows_sum_to_one() {
        let mut row = vec![1.0, 2.0, 3.0, -1000.0];
        softmax_row(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((row[2] - 0.665_240_9).abs() < 1e-5);
        assert!(row[3] < 1e-30);
    }

    /// erf by its Maclaurin/continued expansion in f64, as a reference for the tests.
    fn libm_erf(x: f64) -> f64 {
        // erf(x) = 2/sqrt(pi) * sum_{n} (-1)^n x^(2n+1) / (n! (2n+1)) converges fine for |x| < 5.
        if x.abs() > 5.0 {
            return x.signum();
        }
        let mut sum = 0.0;
        let mut term = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 || n < 5.0 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
            if n > 200.0 {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }
}
