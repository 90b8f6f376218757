//! Embedding throughput on 254-token inputs (the case the Python peer figure is for):
//! `cargo run --release --example embed_speed -- [N] [BATCH]`.

use std::time::Instant;

use qa_embed::{BertEmbedder, Embedder};

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
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let m = BertEmbedder::load(&dir, 256, batch).expect("model (run scripts/setup-models.sh)");
    // Distinct texts long enough to fill the 256-token window.
    let base = "The station wakes from deep sleep, reads the BME280 over the I2C bus, publishes a JSON payload to the MQTT broker and sleeps again while the solar panel charges the LiPo battery";
    let texts: Vec<String> = (0..n).map(|i| format!("{i} {base} {base} {base} {base} {base} {base} {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokens: usize = refs.iter().map(|t| m.token_counter().count(t).min(254) + 2).sum();
    let _ = m.embed(&refs[..batch.min(n)]).unwrap(); // warm-up
    let t = Instant::now();
    let _ = m.embed(&refs).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!("{n} texts, {:.0} tokens/text, batch {batch}: {:.2} s, {:.1} chunks/s, {:.0} tokens/s", tokens as f64 / n as f64, s, n as f64 / s, tokens as f64 / s);
}
