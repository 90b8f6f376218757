//! TEMPORARY: compares this crate's transformer with candle-transformers' on the bundled
//! SmolLM2 GGUF. Removed together with the candle-transformers dependency.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use candle_core::{Device, Tensor};
use candle_transformers::models::quantized_llama;

use super::super::chat_template::{ChatTemplate, TemplateTokens};
use super::super::gguf_tokenizer::GgufTokenizer;
use super::super::transformer::{Family, Transformer};
use super::{VirtualSource, WeightMode, read_content};
use crate::ChatMessage;

fn model_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf")
}

struct Pair {
    ours: Transformer,
    theirs: quantized_llama::ModelWeights,
    tokenizer: GgufTokenizer,
    template: ChatTemplate,
}

fn load_pair(mode: WeightMode) -> Pair {
    let path = model_path();
    let open = || {
        let mut r = BufReader::new(File::open(&path).expect("model"));
        let c = read_content(&mut r).expect("gguf");
        (c, r)
    };
    let (content, file) = open();
    let tokenizer = GgufTokenizer::load(&content, &path).expect("tokenizer");
    let source = content.metadata.get("tokenizer.chat_template").and_then(|v| v.to_string().ok()).cloned();
    let tokens = TemplateTokens {
        bos: tokenizer.bos_token().unwrap_or_default().to_string(),
        eos: tokenizer.eos_token().unwrap_or_default().to_string(),
    };
    let template = ChatTemplate::new(source.as_deref(), tokens);
    let mut src = VirtualSource::new(content, file, mode);
    let ours = Transformer::from_gguf(&src.content, &mut src.reader, Family::Llama, 4096).expect("ours");
    let (content, file) = open();
    let mut src = VirtualSource::new(content, file, mode);
    let theirs = quantized_llama::ModelWeights::from_gguf(src.content, &mut src.reader, &Device::Cpu).expect("theirs");
    Pair { ours, theirs, tokenizer, template }
}

fn run(m: &mut dyn FnMut(&Tensor, usize) -> candle_core::Result<Tensor>, ids: &[u32], pos: usize) -> Vec<f32> {
    let input = Tensor::new(ids, &Device::Cpu).unwrap().unsqueeze(0).unwrap();
    m(&input, pos).unwrap().squeeze(0).unwrap().to_vec1::<f32>().unwrap()
}

fn argmax(v: &[f32]) -> u32 {
    v.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i as u32).unwrap()
}

/// (max |a-b| / max |b|, max |a-b|).
fn diff(a: &[f32], b: &[f32]) -> (f32, f32) {
    let abs = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    let scale = b.iter().map(|y| y.abs()).fold(0f32, f32::max);
    (abs / scale, abs)
}

const PROMPTS: &[&str] = &[
    "The capital of France is",
    "Rust is a systems programming language that runs blazingly fast, prevents segfaults, and guarantees thread safety. Its ownership model",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nExplain what a hash map is, in two sentences.<|im_end|>\n<|im_start|>assistant\n",
];

fn compare_logits(mode: WeightMode, tolerance: f32) {
    let mut p = load_pair(mode);
    let mut worst = 0f32;
    let (mut agree, mut total) = (0, 0);
    let long: String = PROMPTS.iter().cycle().take(12).copied().collect::<Vec<_>>().join(" ");
    let mut prompts: Vec<String> = PROMPTS.iter().map(|s| s.to_string()).collect();
    prompts.push(long);
    for prompt in &prompts {
        let ids = p.tokenizer.encode(prompt).unwrap();
        let mut ours = |x: &Tensor, pos: usize| p.ours.forward(x, pos);
        let a = run(&mut ours, &ids, 0);
        let mut theirs = |x: &Tensor, pos: usize| p.theirs.forward(x, pos);
        let b = run(&mut theirs, &ids, 0);
        let (rel, abs) = diff(&a, &b);
        println!("{mode} prefill {:4} tokens: rel {rel:.2e} abs {abs:.2e} argmax {} / {}", ids.len(), argmax(&a), argmax(&b));
        worst = worst.max(rel);
        agree += usize::from(argmax(&a) == argmax(&b));
        total += 1;
        let mut next = argmax(&b);
        for step in 0..8 {
            let pos = ids.len() + step;
            let a = run(&mut |x, q| p.ours.forward(x, q), &[next], pos);
            let b = run(&mut |x, q| p.theirs.forward(x, q), &[next], pos);
            let (rel, abs) = diff(&a, &b);
            println!("{mode}   decode pos {pos:4}: rel {rel:.2e} abs {abs:.2e}");
            worst = worst.max(rel);
            agree += usize::from(argmax(&a) == argmax(&b));
            total += 1;
            next = argmax(&b);
        }
    }
    println!("{mode}: worst relative difference {worst:.2e}; argmax agrees {agree}/{total}");
    assert!(worst < tolerance, "worst {worst}");
}

#[test]
fn logits_match_candle_transformers_auto() {
    compare_logits(WeightMode::Auto, 1e-3);
}

#[test]
fn logits_match_candle_transformers_keep() {
    compare_logits(WeightMode::Keep, 1.0);
}

fn greedy(m: &mut dyn FnMut(&Tensor, usize) -> candle_core::Result<Tensor>, prompt: &[u32], n: usize) -> Vec<u32> {
    let mut logits = run(m, prompt, 0);
    let mut out = Vec::new();
    for i in 0..n {
        let next = argmax(&logits);
        out.push(next);
        logits = run(m, &[next], prompt.len() + i);
    }
    out
}

#[test]
fn greedy_decoding_matches_candle_transformers() {
    greedy_pair(WeightMode::Auto, true);
}

#[test]
fn greedy_decoding_keep_mode() {
    greedy_pair(WeightMode::Keep, false);
}

fn greedy_pair(mode: WeightMode, strict: bool) {
    let mut p = load_pair(mode);
    let chats = [
        "What is the boiling point of water at sea level?",
        "Write a haiku about the ocean.",
        "List three uses of a Raspberry Pi.",
    ];
    for chat in chats {
        let prompt = p.template.render(&[ChatMessage::user(chat)]);
        let ids = p.tokenizer.encode(&prompt).unwrap();
        let a = greedy(&mut |x, q| p.ours.forward(x, q), &ids, 40);
        let b = greedy(&mut |x, q| p.theirs.forward(x, q), &ids, 40);
        let same = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        println!("{mode} {chat:?} ({} prompt tokens): ours == theirs: {} (first {same} of 40 equal)", ids.len(), a == b);
        println!("  ours:   {:?}\n  theirs: {:?}", p.tokenizer.decode(&a), p.tokenizer.decode(&b));
        if strict {
            assert_eq!(a, b);
        }
    }
}

/// The noise floor of Keep mode: candle-transformers against itself with the rope base moved
/// from 100 000 to 100 001 (angles change by about 1e-6 relative).
#[test]
fn keep_mode_noise_floor_of_candle_transformers() {
    let path = model_path();
    let mut outs = Vec::new();
    let ids = load_pair(WeightMode::Auto).tokenizer.encode(PROMPTS[1]).unwrap();
    for mode in [WeightMode::Keep, WeightMode::Auto] {
        for base in [100_000f32, 100_001f32] {
            let mut r = BufReader::new(File::open(&path).unwrap());
            let mut c = read_content(&mut r).unwrap();
            c.metadata.insert("llama.rope.freq_base".into(), candle_core::quantized::gguf_file::Value::F32(base));
            let mut src = VirtualSource::new(c, r, mode);
            let mut m = quantized_llama::ModelWeights::from_gguf(src.content, &mut src.reader, &Device::Cpu).unwrap();
            outs.push(run(&mut |x, q| m.forward(x, q), &ids, 0));
        }
    }
    println!("theirs keep, base 100000 vs 100001: {:?}", diff(&outs[0], &outs[1]));
    println!("theirs auto, base 100000 vs 100001: {:?}", diff(&outs[2], &outs[3]));
    println!("theirs keep vs theirs auto (quantization error): {:?}", diff(&outs[0], &outs[2]));
}
