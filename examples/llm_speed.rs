//! Local chat model speed: load time, prompt processing and generation rates, peak memory, and
//! how far decoding is from the memory-bandwidth bound.
//!
//! `cargo run --release --example llm_speed -- [--weights auto|f32|q8_0|keep]
//!  [--prefill-threads N] [--decode-threads N] [--prompt-tokens N] [--gen N] [--model PATH]`

use std::path::PathBuf;
use std::time::Instant;

use qa_llm::local::{LocalLlm, LocalOptions, WeightMode};
use qa_llm::{ChatMessage, ChatRequest, Llm, OutputFormat};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    model: PathBuf,
    weights: WeightMode,
    prefill_threads: usize,
    decode_threads: usize,
    prompt_tokens: usize,
    generate: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf"),
        weights: WeightMode::Auto,
        prefill_threads: 2,
        decode_threads: 1,
        prompt_tokens: 800,
        generate: 64,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<usize>().map_err(|e| format!("{flag} {value}: {e}"));
        match flag.as_str() {
            "--model" => args.model = PathBuf::from(&value),
            "--weights" => args.weights = value.parse().map_err(|e: qa_llm::local::error::UnknownWeightMode| e.to_string())?,
            "--prefill-threads" => args.prefill_threads = number()?,
            "--decode-threads" => args.decode_threads = number()?,
            "--prompt-tokens" => args.prompt_tokens = number()?,
            "--gen" => args.generate = number()?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

/// Real prose from the sample corpus, cut to about `tokens` tokens.
fn corpus_text(llm: &LocalLlm, tokens: usize) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_corpus");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "md"));
    files.sort();
    let all: String = files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect::<Vec<_>>().join("\n\n");
    let words: Vec<&str> = all.split_inclusive(char::is_whitespace).collect();
    // Largest number of words whose text stays within the budget.
    let (mut lo, mut hi) = (0, words.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if llm.count_tokens(&words[..mid].concat()) <= tokens { lo = mid } else { hi = mid - 1 }
    }
    words[..lo].concat()
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Best-of-three read bandwidth in GB/s over a buffer much larger than the caches, split across
/// `threads` threads.
fn read_bandwidth(buffer: &[u64], threads: usize) -> f64 {
    let chunk = buffer.len().div_ceil(threads);
    let mut best = 0.0f64;
    for _ in 0..3 {
        let started = Instant::now();
        let total: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = buffer
                .chunks(chunk)
                .map(|part| s.spawn(move || part.iter().fold(0u64, |a, &x| a.wrapping_add(x))))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0)).fold(0u64, u64::wrapping_add)
        });
        std::hint::black_box(total);
        best = best.max(std::mem::size_of_val(buffer) as f64 / started.elapsed().as_secs_f64() / 1e9);
    }
    best
}

/// Best-of-three memcpy bandwidth in GB/s (bytes read plus bytes written), one thread.
fn copy_bandwidth(buffer: &[u64]) -> f64 {
    let mut target = vec![0u64; buffer.len()];
    let mut best = 0.0f64;
    for _ in 0..3 {
        let started = Instant::now();
        target.copy_from_slice(buffer);
        std::hint::black_box(&target);
        best = best.max(2.0 * std::mem::size_of_val(buffer) as f64 / started.elapsed().as_secs_f64() / 1e9);
    }
    best
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("llm_speed: {e}");
            std::process::exit(2);
        }
    };
    let opts = LocalOptions {
        path: args.model.clone(),
        prefill_threads: args.prefill_threads,
        decode_threads: args.decode_threads,
        weights: args.weights,
        context_override: None,
    };
    let mut llm = match LocalLlm::load(&opts) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("llm_speed: {e}");
            std::process::exit(1);
        }
    };
    let stats = llm.stats().clone();
    println!(
        "model {} ({}, {:.0} M parameters), weights {} [{}]: load {:.2} s, {:.0} MiB of weights read per token",
        llm.model_id(),
        stats.architecture,
        stats.parameters as f64 / 1e6,
        stats.weight_mode,
        stats.conversions,
        stats.load_secs,
        stats.bytes_per_token as f64 / (1024.0 * 1024.0)
    );

    let text = corpus_text(&llm, args.prompt_tokens);
    let request = |user: String, max_tokens: usize| ChatRequest {
        messages: vec![ChatMessage::system("You are a helpful assistant."), ChatMessage::user(user)],
        max_tokens,
        format: OutputFormat::Text,
        stop: Vec::new(),
        temperature: 0.0,
        purpose: "speed",
    };
    // Warm-up: first-call costs (thread pools, allocator growth) stay out of the figures.
    if let Err(e) = llm.chat(&request("Say hello.".into(), 4)) {
        eprintln!("llm_speed: warm-up failed: {e}");
        std::process::exit(1);
    }
    let long = request(format!("{text}\n\nWrite a long and detailed summary of the text above."), args.generate);
    let response = match llm.chat(&long) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("llm_speed: {e}");
            std::process::exit(1);
        }
    };
    let prefill = response.prompt_tokens_per_s.unwrap_or(0.0);
    let decode = response.completion_tokens_per_s.unwrap_or(0.0);
    println!(
        "prefill {} tokens with {} threads: {:.1} tok/s; generated {} tokens with {} threads: {:.1} tok/s; total {:.0} ms",
        response.usage.prompt,
        args.prefill_threads,
        prefill,
        response.usage.completion,
        args.decode_threads,
        decode,
        response.latency_ms
    );
    let rss = peak_rss_mib().unwrap_or(0.0);
    println!("peak RSS (VmHWM) {rss:.0} MiB");

    drop(llm);
    let buffer: Vec<u64> = (0..(512usize << 20) / 8).map(|i| i as u64).collect();
    let read1 = read_bandwidth(&buffer, 1);
    let read2 = read_bandwidth(&buffer, 2);
    let copy1 = copy_bandwidth(&buffer);
    println!(
        "memory bandwidth: read {read1:.1} GB/s (1 thread), {read2:.1} GB/s (2 threads); memcpy {copy1:.1} GB/s (1 thread)"
    );
    let bandwidth = if args.decode_threads > 1 { read2 } else { read1 };
    let bound = bandwidth * 1e9 / stats.bytes_per_token as f64;
    println!(
        "decode bound at {bandwidth:.1} GB/s: {bound:.1} tok/s; measured {decode:.1} tok/s = {:.0}% of the bound",
        100.0 * decode / bound
    );
    let _ = text;
}
