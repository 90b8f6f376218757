//! The BF16 kernel: `vdpbf16ps`, two bf16 multiply-adds per f32 lane, accumulated in f32.

use super::{LANES, bf16_bits};

/// Vectors of 16 output columns per tile.
const GROUP: usize = 4;

/// Weights packed for the BF16 kernel: the outputs in groups of up to 64 columns (4 vectors of
/// 16); inside a group, for each pair of inputs p, the group's columns' (w[2p], w[2p+1]) pairs,
/// so the kernel reads one sequential stream per group. Columns past `n` are zero.
pub struct PackedBf16 {
    kp: usize,
    n: usize,
    /// (offset in `data`, vectors in the group, first column).
    groups: Vec<(usize, usize, usize)>,
    data: Vec<u32>,
}

impl PackedBf16 {
    pub fn pack(w: &[f32], n: usize, k: usize) -> PackedBf16 {
        let kp = k.div_ceil(2);
        let panels = n.div_ceil(LANES);
        let mut data = Vec::with_capacity(panels * LANES * kp);
        let mut groups = Vec::new();
        let at = |col: usize, i: usize| if col < n && i < k { bf16_bits(w[col * k + i]) as u32 } else { 0 };
        for g in 0..panels.div_ceil(GROUP) {
            let vectors = GROUP.min(panels - g * GROUP);
            let col0 = g * GROUP * LANES;
            groups.push((data.len(), vectors, col0));
            for p in 0..kp {
                for col in col0..col0 + vectors * LANES {
                    data.push(at(col, 2 * p) | (at(col, 2 * p + 1) << 16));
                }
            }
        }
        PackedBf16 { kp, n, groups, data }
    }
}

#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use std::arch::x86_64::*;

    use super::{GROUP, LANES, PackedBf16};
    use crate::matmul::{Epilogue, bf16_bits};
    use crate::matmul::tile_out::TileOut;

    /// Rows of x per tile: 6 rows × 4 vectors = 24 accumulators, leaving registers for the 4
    /// weight vectors and the broadcast input of the 32 AVX-512 has.
    const ROWS: usize = 6;
    /// Rows per block: a block's bf16 inputs (96 × k/2 words) and one weight group stay in L2
    /// while the group is swept down the block.
    const BLOCK_ROWS: usize = 96;

    /// Rows of `x` (m × k) as bf16 pairs (m × ⌈k/2⌉ words; an odd k's last pair is padded with 0).
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn to_bf16_pairs(x: &[f32], m: usize, k: usize, out: &mut [u32]) {
        let kp = k.div_ceil(2);
        for r in 0..m {
            let row = &x[r * k..r * k + k];
            let dst = &mut out[r * kp..r * kp + kp];
            let mut c = 0;
            while c + 2 * LANES <= k {
                // SAFETY: c + 32 ≤ k floats are read from `row` and 16 words written at c / 2 < kp.
                unsafe {
                    let lo = _mm512_loadu_ps(row.as_ptr().add(c));
                    let hi = _mm512_loadu_ps(row.as_ptr().add(c + LANES));
                    let pairs: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                    _mm512_storeu_si512(dst.as_mut_ptr().add(c / 2).cast(), pairs);
                }
                c += 2 * LANES;
            }
            while c < k {
                let hi = if c + 1 < k { bf16_bits(row[c + 1]) } else { 0 };
                dst[c / 2] = bf16_bits(row[c]) as u32 | (hi as u32) << 16;
                c += 2;
            }
        }
    }

    /// out = epilogue(x · Wᵀ + b) with x as bf16 pairs (m × kp) and W packed.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn gemm(pairs: &[u32], m: usize, w: &PackedBf16, out: &mut [f32], bias: &[f32], epilogue: Epilogue<'_>) {
        let (kp, n) = (w.kp, w.n);
        for block in (0..m).step_by(BLOCK_ROWS) {
            let block_end = (block + BLOCK_ROWS).min(m);
            for &(offset, vectors, col0) in &w.groups {
                let cols = (n - col0).min(vectors * LANES);
                let mut r0 = block;
                while r0 < block_end {
                    let rows = (block_end - r0).min(ROWS);
                    let t = Tile {
                        a: pairs[r0 * kp..].as_ptr(),
                        kp,
                        b: w.data[offset..].as_ptr(),
                        out: TileOut::new(out, n, r0, col0, cols, bias, epilogue),
                    };
                    // SAFETY: the tile reads rows r0..r0+rows of `pairs` (kp words each), the
                    // group's kp × vectors × 16 packed words, and writes (and reads from the
                    // residual) rows × cols values at stride n, all inside the slices.
                    unsafe { dispatch(rows, vectors, &t) };
                    r0 += rows;
                }
            }
        }
    }

    struct Tile {
        a: *const u32,
        kp: usize,
        b: *const u32,
        out: TileOut,
    }

    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn dispatch(rows: usize, vectors: usize, t: &Tile) {
        // SAFETY: forwarded from `gemm`.
        unsafe {
            match rows {
                1 => by_vectors::<1>(vectors, t),
                2 => by_vectors::<2>(vectors, t),
                3 => by_vectors::<3>(vectors, t),
                4 => by_vectors::<4>(vectors, t),
                5 => by_vectors::<5>(vectors, t),
                _ => by_vectors::<ROWS>(vectors, t),
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn by_vectors<const R: usize>(vectors: usize, t: &Tile) {
        // SAFETY: forwarded from `gemm`.
        unsafe {
            match vectors {
                1 => tile::<R, 1>(t),
                2 => tile::<R, 2>(t),
                3 => tile::<R, 3>(t),
                _ => tile::<R, GROUP>(t),
            }
        }
    }

    /// R rows × V vectors of output, accumulated over all kp input pairs in registers.
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile<const R: usize, const V: usize>(t: &Tile) {
        // SAFETY: see `gemm`; every pointer below stays inside the tile's rows and columns
        // (partial vectors are masked).
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); V]; R];
            for p in 0..t.kp {
                let bp = t.b.add(p * V * LANES);
                let mut bv: [__m512bh; V] = [std::mem::transmute::<__m512i, __m512bh>(_mm512_setzero_si512()); V];
                for (v, b) in bv.iter_mut().enumerate() {
                    *b = std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(bp.add(v * LANES).cast()));
                }
                for (r, row) in acc.iter_mut().enumerate() {
                    let a = std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(*t.a.add(r * t.kp + p) as i32));
                    for (v, c) in row.iter_mut().enumerate() {
                        *c = _mm512_dpbf16_ps(*c, a, bv[v]);
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
