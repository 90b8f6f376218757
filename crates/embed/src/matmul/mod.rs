//! Dense layers of the encoder, y = x·Wᵀ + b, with the bias, a residual or GELU applied while each
//! output tile is written (no second pass over the activations).
//!
//! Three kernels, chosen once when the model loads ([`Precision`]):
//! - **F32**: gemm's AVX-512/AVX2/NEON kernels on the weights in f32. Any CPU.
//! - **INT8** ([`int8`]): weights and activations quantized in blocks of 32, multiplied with
//!   `vpdpbusd` (AVX-512 VNNI: 64 multiply-adds per instruction where an FP32 FMA does 16).
//! - **BF16** ([`bf16`]): bf16 products accumulated in f32 with `vdpbf16ps` (32 multiply-adds per
//!   instruction). Closest to F32 (cosine 0.99997 on our texts), but on the Intel Xeon we measure
//!   on `vdpbf16ps` issues at a quarter of the FMA rate, so it is slower than F32 there; it is
//!   offered for CPUs where it is fast (AMD Zen 4 is documented to run it at twice the FP32 rate;
//!   not measured here).
//!
//! `Auto` picks INT8 where the CPU has AVX-512 VNNI (Intel since Ice Lake/Cascade Lake, AMD since
//! Zen 4), else F32. Accuracy is part of the contract: `examples/embed_speed` prints the minimum
//! cosine between each path's sentence vectors and F32's over its texts.
//!
//! Why our own kernels: gemm's and candle's reduced-precision CPU paths convert bf16/f16 back to
//! f32 and multiply in f32, so they save memory, not time; no maintained crate we found runs
//! `vpdpbusd` or `vdpbf16ps` for an f32 model.

pub mod bf16;
pub mod int8;

/// Output columns per 512-bit vector register (the kernels' tiles are made of them).
pub const LANES: usize = 16;

use crate::kernels::{GeluKind, gelu_of};

qa_core::setting_enum! {
    /// Arithmetic of the embedding model's dense layers (the `embed_precision` setting).
    #[derive(Default)]
    Precision {
        /// INT8 where the CPU has AVX-512 VNNI, else F32.
        #[default]
        Auto => "auto",
        /// f32 weights and products on every CPU.
        F32 => "f32",
        /// Block-quantized 8-bit products; an error on a CPU without AVX-512 VNNI.
        Int8 => "int8",
        /// bf16 products with f32 accumulation; an error on a CPU without AVX-512 BF16.
        Bf16 => "bf16",
    }
}

impl Precision {
    /// Whether this CPU has the instructions of a kernel (F32 and Auto: always).
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            match self {
                Precision::Auto | Precision::F32 => true,
                Precision::Bf16 => has!("avx512f") && has!("avx512bf16"),
                Precision::Int8 => has!("avx512f") && has!("avx512bw") && has!("avx512vnni"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            matches!(self, Precision::Auto | Precision::F32)
        }
    }

    /// The kernel that runs: `Auto` becomes INT8 or F32 by what the CPU has.
    pub fn resolve(self) -> Result<Precision, String> {
        match self {
            Precision::Auto if Precision::Int8.supported() => Ok(Precision::Int8),
            Precision::Auto | Precision::F32 => Ok(Precision::F32),
            p if p.supported() => Ok(p),
            Precision::Bf16 => Err("embed_precision = bf16 needs a CPU with AVX-512 BF16 (AMD Zen 4 or later, Intel \
                                    Sapphire Rapids or later) and this one has none: set it to auto or f32"
                .into()),
            Precision::Int8 => Err("embed_precision = int8 needs a CPU with AVX-512 VNNI (AMD Zen 4 or later, Intel \
                                    Ice Lake or later) and this one has none: set it to auto or f32"
                .into()),
        }
    }
}

/// What is applied to x·Wᵀ + b as it is written.
#[derive(Clone, Copy)]
pub enum Epilogue<'a> {
    /// Nothing more.
    Bias,
    /// GELU of the sum.
    Gelu(GeluKind),
    /// Plus a residual matrix of the output's shape.
    Residual(&'a [f32]),
}

/// One dense layer: `n` outputs from `k` inputs.
pub struct Dense {
    k: usize,
    n: usize,
    bias: Vec<f32>,
    weights: Weights,
}

enum Weights {
    /// Wᵀ, (k × n) row-major.
    F32(Vec<f32>),
    Bf16(bf16::PackedBf16),
    Int8(int8::PackedInt8),
}

/// Per-thread buffers for the quantized copy of a layer's input.
#[derive(Default)]
pub struct DenseScratch {
    words: Vec<u32>,
    scales: Vec<f32>,
}

/// The first `len` values of `v`, grown (never shrunk) as needed.
pub(crate) fn sized<T: Copy + Default>(v: &mut Vec<T>, len: usize) -> &mut [T] {
    if v.len() < len {
        v.resize(len, T::default());
    }
    &mut v[..len]
}

impl Dense {
    /// `w` is (n × k) row-major (PyTorch's layout); `precision` must be resolved (not `Auto`).
    /// `input_range`: each input's typical magnitude when known (see [`int8::PackedInt8::pack`]).
    pub fn new(w: &[f32], bias: Vec<f32>, n: usize, k: usize, precision: Precision, input_range: Option<&[f32]>) -> Dense {
        assert_eq!(w.len(), n * k, "weight shape");
        assert_eq!(bias.len(), n, "bias shape");
        let weights = match precision {
            Precision::Bf16 => Weights::Bf16(bf16::PackedBf16::pack(w, n, k)),
            Precision::Int8 => Weights::Int8(int8::PackedInt8::pack(w, n, k, input_range)),
            _ => {
                let mut w_t = vec![0f32; k * n];
                for (row, ws) in w.chunks_exact(k).enumerate() {
                    for (col, &v) in ws.iter().enumerate() {
                        w_t[col * n + row] = v;
                    }
                }
                Weights::F32(w_t)
            }
        };
        Dense { k, n, bias, weights }
    }

    /// Outputs per row.
    pub fn outputs(&self) -> usize {
        self.n
    }

    /// Inputs per row.
    pub fn inputs(&self) -> usize {
        self.k
    }

    /// `out` (m × n) = epilogue(`x` (m × k) · Wᵀ + b).
    pub fn forward(&self, x: &[f32], m: usize, out: &mut [f32], epilogue: Epilogue<'_>, scratch: &mut DenseScratch) {
        let (k, n) = (self.k, self.n);
        assert!(x.len() >= m * k && out.len() >= m * n, "dense: buffer too small");
        if let Epilogue::Residual(r) = epilogue {
            assert!(r.len() >= m * n, "dense: residual too small");
        }
        match &self.weights {
            Weights::F32(w_t) => {
                // SAFETY: the asserts above bound every access gemm makes through these strides.
                unsafe {
                    gemm::gemm(
                        m, n, k, out.as_mut_ptr(), 1, n as isize, false, x.as_ptr(), 1, k as isize, w_t.as_ptr(), 1,
                        n as isize, 0.0, 1.0, false, false, false, gemm::Parallelism::None,
                    );
                }
                for (row, o) in out[..m * n].chunks_exact_mut(n).enumerate() {
                    match epilogue {
                        Epilogue::Bias => o.iter_mut().zip(&self.bias).for_each(|(y, b)| *y += b),
                        Epilogue::Gelu(kind) => o.iter_mut().zip(&self.bias).for_each(|(y, b)| *y = gelu_of(kind, *y + b)),
                        Epilogue::Residual(r) => {
                            let r = &r[row * n..row * n + n];
                            o.iter_mut().zip(&self.bias).zip(r).for_each(|((y, b), r)| *y += b + r);
                        }
                    }
                }
            }
            Weights::Bf16(packed) => {
                let kp = k.div_ceil(2);
                let pairs = sized(&mut scratch.words, m * kp);
                #[cfg(target_arch = "x86_64")]
                // SAFETY: a `Bf16` layer is only built after `Precision::resolve` saw AVX-512 BF16,
                // and the buffers' sizes were checked above.
                unsafe {
                    bf16::avx512::to_bf16_pairs(&x[..m * k], m, k, pairs);
                    bf16::avx512::gemm(pairs, m, packed, &mut out[..m * n], &self.bias, epilogue);
                }
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("bf16 weights are only packed on x86-64 ({packed:p}, {pairs:p})");
            }
            Weights::Int8(packed) => {
                let (quads, blocks) = packed.row_shape();
                let levels = sized(&mut scratch.words, m * quads);
                let scales = sized(&mut scratch.scales, m * blocks);
                #[cfg(target_arch = "x86_64")]
                // SAFETY: an `Int8` layer is only built after `Precision::resolve` saw AVX-512
                // VNNI, and the buffers' sizes were checked above.
                unsafe {
                    int8::avx512::quantize_rows(&x[..m * k], m, k, packed.input_factors(), levels, scales, (quads, blocks));
                    int8::avx512::gemm(levels, scales, m, packed, &mut out[..m * n], &self.bias, epilogue);
                }
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("int8 weights are only packed on x86-64 ({packed:p}, {levels:p}, {scales:p})");
            }
        }
    }
}

/// Where a kernel's output tile goes and what is applied on the way (the epilogue, 16 lanes at a
/// time): shared by the INT8 and BF16 kernels.
#[cfg(target_arch = "x86_64")]
pub(crate) mod tile_out {
    use std::arch::x86_64::*;

    use super::Epilogue;
    use crate::kernels::GeluKind;
    use crate::kernels::avx512::{first_lanes, gelu16};

    use super::LANES;

    pub struct TileOut {
        out: *mut f32,
        ld: usize,
        cols: usize,
        bias: *const f32,
        residual: *const f32,
        gelu: Option<GeluKind>,
    }

    impl TileOut {
        /// The tile at row `r0`, column `col0` of `out` (row stride `ld`), `cols` columns wide.
        pub fn new(out: &mut [f32], ld: usize, r0: usize, col0: usize, cols: usize, bias: &[f32], epilogue: Epilogue<'_>) -> TileOut {
            let (residual, gelu) = match epilogue {
                Epilogue::Residual(r) => (r[r0 * ld + col0..].as_ptr(), None),
                Epilogue::Gelu(kind) => (std::ptr::null(), Some(kind)),
                Epilogue::Bias => (std::ptr::null(), None),
            };
            TileOut { out: out[r0 * ld + col0..].as_mut_ptr(), ld, cols, bias: bias[col0..].as_ptr(), residual, gelu }
        }

        /// Writes vector `v` (columns 16v..16v+16, masked at `cols`) of row `r`: the
        /// accumulated products plus the bias, then the residual or GELU. False past the last
        /// column.
        ///
        /// # Safety
        /// Row `r` of the tile, its columns below `cols`, and the same places of the residual
        /// are inside the slices the tile was made from.
        #[target_feature(enable = "avx512f")]
        pub unsafe fn write(&self, r: usize, v: usize, products: __m512) -> bool {
            let c0 = v * LANES;
            if c0 >= self.cols {
                return false;
            }
            let left = self.cols - c0;
            let mask = first_lanes(left);
            // SAFETY: masked to the tile's columns; see the function's contract.
            unsafe {
                let mut y = _mm512_add_ps(products, _mm512_maskz_loadu_ps(mask, self.bias.add(c0)));
                if !self.residual.is_null() {
                    y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(mask, self.residual.add(r * self.ld + c0)));
                }
                if let Some(kind) = self.gelu {
                    y = gelu16(kind, y);
                }
                _mm512_mask_storeu_ps(self.out.add(r * self.ld + c0), mask, y);
            }
            true
        }
    }
}

/// f32 → bf16 bits, rounded to nearest even (as `vcvtne2ps2bf16` does).
pub fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return 0x7fc0;
    }
    (b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic spread of values with a few large ones (BERT activations have outliers).
    fn values(count: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).max(1);
        (0..count)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                let u = (s % 20_000) as f32 / 10_000.0 - 1.0;
                if i % 97 == 0 { u * 20.0 } else { u }
            })
            .collect()
    }

    fn bf16_value(x: f32) -> f32 {
        f32::from_bits((bf16_bits(x) as u32) << 16)
    }

    /// Rows of `rows × k` values as the kernel of `precision` sees them.
    fn as_seen(values: &[f32], k: usize, precision: Precision) -> Vec<f32> {
        match precision {
            Precision::Bf16 => values.iter().map(|&v| bf16_value(v)).collect(),
            Precision::Int8 => values
                .chunks_exact(k)
                .flat_map(|row| {
                    row.chunks(int8::BLOCK).flat_map(|block| {
                        let amax = block.iter().fold(0f32, |a, v| a.max(v.abs()));
                        let s = amax / 127.0;
                        block.iter().map(move |&v| if amax > 0.0 { (v * (127.0 / amax)).round_ties_even() * s } else { 0.0 })
                    })
                })
                .collect(),
            _ => values.to_vec(),
        }
    }

    /// Reference: products of the operands as the kernel sees them, summed in f64.
    fn reference(x: &[f32], w: &[f32], b: &[f32], m: usize, n: usize, k: usize, precision: Precision) -> Vec<f32> {
        let (x, w) = (as_seen(x, k, precision), as_seen(w, k, precision));
        let mut out = vec![0f32; m * n];
        for r in 0..m {
            for c in 0..n {
                let s: f64 = (0..k).map(|i| x[r * k + i] as f64 * w[c * k + i] as f64).sum();
                out[r * n + c] = (s + b[c] as f64) as f32;
            }
        }
        out
    }

    fn run(precision: Precision, m: usize, n: usize, k: usize, epilogue_kind: u8) -> (Vec<f32>, Vec<f32>) {
        let (x, w, b, res) = (values(m * k, 1), values(n * k, 2), values(n, 3), values(m * n, 4));
        let layer = Dense::new(&w, b.clone(), n, k, precision, None);
        let mut out = vec![f32::NAN; m * n];
        let epilogue = match epilogue_kind {
            0 => Epilogue::Bias,
            1 => Epilogue::Gelu(GeluKind::Erf),
            _ => Epilogue::Residual(&res),
        };
        layer.forward(&x, m, &mut out, epilogue, &mut DenseScratch::default());
        let mut want = reference(&x, &w, &b, m, n, k, precision);
        for (i, y) in want.iter_mut().enumerate() {
            match epilogue_kind {
                0 => {}
                1 => *y = gelu_of(GeluKind::Erf, *y),
                _ => *y += res[i],
            }
        }
        (out, want)
    }

    fn assert_close(got: &[f32], want: &[f32], what: &str) {
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= 2e-3 * (1.0 + w.abs()), "{what}: element {i}: {g} vs {w}");
        }
    }

    #[test]
    fn f32_layers_match_the_reference_with_every_epilogue() {
        for (m, n, k) in [(1, 1, 1), (7, 50, 37), (13, 384, 384)] {
            for e in 0..3 {
                let (got, want) = run(Precision::F32, m, n, k, e);
                assert_close(&got, &want, &format!("f32 {m}×{n}×{k} epilogue {e}"));
            }
        }
    }

    /// Shapes that exercise every path of the reduced-precision kernels: odd k (a padded pair, a
    /// partial block), n not a multiple of 16 (masked stores), every tile height and group
    /// width, more rows than one block, and the FFN's long inner dimension.
    const SHAPES: [(usize, usize, usize); 9] = [(1, 1, 1), (5, 17, 3), (7, 50, 37), (6, 64, 64), (11, 130, 96), (203, 100, 70), (9, 49, 65), (102, 113, 1100), (5, 40, 513)];

    fn check_reduced(precision: Precision) {
        if !precision.supported() {
            assert!(precision.resolve().is_err(), "forcing {precision} without its instructions must be an error");
            return;
        }
        assert_eq!(precision.resolve(), Ok(precision));
        for (m, n, k) in SHAPES {
            for e in 0..3 {
                let (got, want) = run(precision, m, n, k, e);
                assert_close(&got, &want, &format!("{precision} {m}×{n}×{k} epilogue {e}"));
            }
        }
    }

    #[test]
    fn bf16_layers_match_the_rounded_reference_or_are_refused() {
        check_reduced(Precision::Bf16);
    }

    #[test]
    fn int8_layers_match_the_quantized_reference_or_are_refused() {
        check_reduced(Precision::Int8);
    }

    /// The quantization itself stays close to f32: blocks of 32 keep the relative error of a
    /// 384-long dot product small even with outliers in the input.
    #[test]
    fn int8_layers_stay_close_to_f32() {
        if !Precision::Int8.supported() {
            return assert_eq!(Precision::Auto.resolve(), Ok(Precision::F32));
        }
        assert_eq!(Precision::Auto.resolve(), Ok(Precision::Int8));
        let (got, _) = run(Precision::Int8, 13, 384, 384, 0);
        let (exact, _) = run(Precision::F32, 13, 384, 384, 0);
        let (num, den): (f64, f64) = got.iter().zip(&exact).fold((0.0, 0.0), |(a, b), (g, e)| (a + ((g - e) as f64).powi(2), b + (*e as f64).powi(2)));
        assert!((num / den).sqrt() < 0.02, "relative error {}", (num / den).sqrt());
    }

    #[test]
    fn bf16_rounding_is_to_nearest_even() {
        assert_eq!(bf16_bits(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between two bf16 values: ties go to the even mantissa (1.0).
        assert_eq!(bf16_bits(1.0 + 1.0 / 256.0), 0x3f80);
        assert_eq!(bf16_bits(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(bf16_bits(-2.5), 0xc020);
        assert!(bf16_value(f32::NAN).is_nan());
    }

    #[test]
    fn precision_parses_and_prints() {
        for p in [Precision::Auto, Precision::F32, Precision::Bf16, Precision::Int8] {
            assert_eq!(p.to_string().parse::<Precision>(), Ok(p));
        }
        assert!("fp8".parse::<Precision>().unwrap_err().to_string().contains("auto, f32, int8, bf16"));
    }
}
