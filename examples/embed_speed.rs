//! Embedding throughput on 254-token inputs (the case the Python peer figure is for), and the
//! accuracy of the arithmetic that ran against F32:
//! `cargo run --release --example embed_speed -- [N] [BATCH]`.
//! `QA_EMBED_PRECISION` (auto, f32, int8, bf16) picks the arithmetic, as it does for `qa`;
//! `QA_NO_CHECK=1` skips the accuracy check (for profiling the timed part alone).

use std::time::Instant;

use qa_embed::{BertEmbedder, Embedder, Precision};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::var_os("QA_PURGE").is_none() {
        qa::alloc::keep_freed_memory();
    }
    let threads: usize = std::env::var("QA_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(2);
    if std::env::var_os("QA_INTRA_OP").is_none() {
        qa_embed::configure_threads(threads);
    }
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(64);
    let batch: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(16);
    let precision: Precision = match std::env::var("QA_EMBED_PRECISION") {
        Ok(p) => p.parse().unwrap_or_else(|e| panic!("QA_EMBED_PRECISION: {e}")),
        Err(_) => Precision::Auto,
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let load = |p| BertEmbedder::load_with_precision(&dir, 256, batch, p).expect("model (run scripts/setup-models.sh)");
    let m = load(precision);
    // Distinct texts long enough to fill the 256-token window.
    let base = "The station wakes from deep sleep, reads the BME280 over the I2C bus, publishes a JSON payload to the MQTT broker and sleeps again while the solar panel charges the LiPo battery";
    let texts: Vec<String> = (0..n).map(|i| format!("{i} {base} {base} {base} {base} {base} {base} {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokens: usize = refs.iter().map(|t| m.token_counter().count(t).min(254) + 2).sum();
    let _ = m.embed(&refs[..batch.min(n)]).unwrap(); // warm-up
    let t = Instant::now();
    let fast = m.embed(&refs).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{n} texts, {:.0} tokens/text, batch {batch}, {}: {:.2} s, {:.1} chunks/s, {:.0} tokens/s",
        tokens as f64 / n as f64,
        m.precision(),
        s,
        n as f64 / s,
        tokens as f64 / s
    );
    if m.precision() != Precision::F32 && std::env::var_os("QA_NO_CHECK").is_none() {
        // The same texts, and the paragraphs of the bundled sample corpus (varied lengths and
        // wording), through F32: the smallest cosine is the accuracy the fast path keeps.
        let f32_model = load(Precision::F32);
        let min_cos = |a: &[Vec<f32>], b: &[Vec<f32>]| a.iter().zip(b).map(|(x, y)| qa_embed::dot(x, y)).fold(f32::INFINITY, f32::min);
        let exact = f32_model.embed(&refs).unwrap();
        let mut paragraphs: Vec<String> = Vec::new();
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_corpus");
        let mut files: Vec<_> = std::fs::read_dir(&corpus).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        files.sort();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            paragraphs.extend(text.split("\n\n").filter(|p| p.trim().len() > 20).map(|p| p.chars().take(1500).collect::<String>()));
            // Short texts too (headings, list items: the length of questions).
            paragraphs.extend(text.lines().map(str::trim).filter(|l| (4..80).contains(&l.len())).map(String::from));
        }
        let prefs: Vec<&str> = paragraphs.iter().map(String::as_str).collect();
        let (pa, pb) = (m.embed(&prefs).unwrap(), f32_model.embed(&prefs).unwrap());
        println!(
            "minimum cosine to F32: {:.5} over these {n} texts, {:.5} over {} sample-corpus paragraphs and short lines",
            min_cos(&fast, &exact),
            min_cos(&pa, &pb),
            prefs.len()
        );
    }
}
