//! Try a prompt on a local GGUF chat model: `cargo run --release --example llm_chat -- MODEL.gguf
//! SYSTEM_FILE USER_FILE [MAX_TOKENS]` prints the answer, token usage and speed.
use qa_llm::local::{LocalLlm, LocalOptions};
use qa_llm::{ChatMessage, ChatRequest, Llm, OutputFormat};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: llm_chat MODEL.gguf SYSTEM_FILE USER_FILE [MAX_TOKENS]");
        std::process::exit(2);
    }
    let mut llm = LocalLlm::load(&LocalOptions::new(&args[1]))?;
    let system = std::fs::read_to_string(&args[2])?;
    let user = std::fs::read_to_string(&args[3])?;
    let max_tokens = args.get(4).and_then(|m| m.parse().ok()).unwrap_or(200);
    let mut messages = Vec::new();
    if !system.trim().is_empty() {
        messages.push(ChatMessage::system(system.trim()));
    }
    messages.push(ChatMessage::user(user.trim()));
    let r = llm.chat(&ChatRequest { messages, max_tokens, format: OutputFormat::Text, stop: vec![], temperature: 0.0, purpose: "try" })?;
    println!("{}\n---\n{:?} {:?} {:.0} ms pp {:?} tg {:?}", r.text, r.usage, r.finish_reason, r.latency_ms, r.prompt_tokens_per_s, r.completion_tokens_per_s);
    Ok(())
}
