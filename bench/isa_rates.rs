//! How many 512-bit FP32 FMAs, BF16 dot products (`vdpbf16ps`) and INT8 dot products
//! (`vpdpbusd`) one core issues per second: 12 independent accumulators, so the figures are
//! throughput, not latency. Not part of the cargo build (it would cost every test build a link):
//! `rustc -C opt-level=3 -C target-cpu=native bench/isa_rates.rs -o /tmp/isa_rates && /tmp/isa_rates`
//! (needs a CPU with AVX-512 BF16 and VNNI). BENCHMARKS.md, "Embedding arithmetic", has the figures.

use std::arch::x86_64::*;
use std::time::Instant;

const ACC: usize = 12;

#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn bf16_dot(n: usize) -> f32 {
    let mut acc = [_mm512_setzero_ps(); ACC];
    let a: __m512bh = unsafe { std::mem::transmute(_mm512_set1_epi32(0x3f80_3f80_u32 as i32)) };
    let b: __m512bh = unsafe { std::mem::transmute(_mm512_set1_epi32(0x3c00_3c00_u32 as i32)) };
    for _ in 0..n {
        for c in acc.iter_mut() {
            *c = _mm512_dpbf16_ps(*c, a, b);
        }
    }
    _mm512_reduce_add_ps(acc.iter().fold(_mm512_setzero_ps(), |s, c| _mm512_add_ps(s, *c)))
}

#[target_feature(enable = "avx512f")]
unsafe fn fp32_fma(n: usize) -> f32 {
    let mut acc = [_mm512_setzero_ps(); ACC];
    let (a, b) = (_mm512_set1_ps(1.0001), _mm512_set1_ps(0.999));
    for _ in 0..n {
        for c in acc.iter_mut() {
            *c = _mm512_fmadd_ps(*c, a, b);
        }
    }
    _mm512_reduce_add_ps(acc.iter().fold(_mm512_setzero_ps(), |s, c| _mm512_add_ps(s, *c)))
}

#[target_feature(enable = "avx512f,avx512vnni")]
unsafe fn int8_dot(n: usize) -> i32 {
    let mut acc = [_mm512_setzero_si512(); ACC];
    let (a, b) = (_mm512_set1_epi32(0x0101_0101), _mm512_set1_epi32(0x0101_0101));
    for _ in 0..n {
        for c in acc.iter_mut() {
            *c = _mm512_dpbusd_epi32(*c, a, b);
        }
    }
    _mm512_reduce_add_epi32(acc.iter().fold(_mm512_setzero_si512(), |s, c| _mm512_add_epi32(s, *c)))
}

fn rate(name: &str, macs_per_instruction: usize, run: impl FnOnce(usize) -> String) {
    let n = 100_000_000 / ACC;
    let t = Instant::now();
    let keep = run(n);
    let per_s = (n * ACC) as f64 / t.elapsed().as_secs_f64();
    println!("{name}: {:.2} G instructions/s, {:.0} G multiply-adds/s ({keep})", per_s / 1e9, per_s * macs_per_instruction as f64 / 1e9);
}

fn main() {
    // SAFETY: each kernel runs only if the CPU reports its features.
    if is_x86_feature_detected!("avx512f") {
        rate("FP32 FMA (vfmadd, 16 lanes)", 16, |n| unsafe { fp32_fma(n) }.to_string());
    }
    if is_x86_feature_detected!("avx512bf16") {
        rate("BF16 dot (vdpbf16ps, 32 products)", 32, |n| unsafe { bf16_dot(n) }.to_string());
    }
    if is_x86_feature_detected!("avx512vnni") {
        rate("INT8 dot (vpdpbusd, 64 products)", 64, |n| unsafe { int8_dot(n) }.to_string());
    }
}
