//! The local GGUF chat model end to end, on the real SmolLM2-135M-Instruct file.
//! The model is required: fetch it with `scripts/setup-models.sh`.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};

use qa_llm::local::{LocalLlm, LocalOptions, WeightMode};
use qa_llm::{ChatMessage, ChatRequest, FinishReason, Llm, LlmError, OutputFormat};

fn model_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf")
}

fn options() -> LocalOptions {
    let path = model_path();
    assert!(
        path.is_file(),
        "{} is missing: run `scripts/setup-models.sh` to fetch the local chat model",
        path.display()
    );
    LocalOptions { path, prefill_threads: 2, decode_threads: 1, weights: WeightMode::Auto, context_override: None }
}

/// One model shared by the tests (loading takes a second or two); tests take turns.
fn model() -> MutexGuard<'static, LocalLlm> {
    static MODEL: OnceLock<Mutex<LocalLlm>> = OnceLock::new();
    MODEL
        .get_or_init(|| Mutex::new(LocalLlm::load(&options()).unwrap_or_else(|e| panic!("loading the model: {e}"))))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn request(user: &str, max_tokens: usize) -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::system("You are a concise assistant."), ChatMessage::user(user)],
        max_tokens,
        format: OutputFormat::Text,
        stop: Vec::new(),
        temperature: 0.0,
        purpose: "test",
    }
}

const SPECIAL_MARKERS: &[&str] = &["<|im_start|>", "<|im_end|>", "<|endoftext|>"];

#[test]
fn short_answer_is_greedy_deterministic_and_counted() {
    let mut llm = model();
    assert_eq!(llm.provider(), "local");
    assert_eq!(llm.model_id(), "SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(llm.context_length().is_some_and(|c| c >= 2048));

    let req = request("What is the capital of France? Answer in one word.", 16);
    let first = llm.chat(&req).expect("first generation");
    let second = llm.chat(&req).expect("second generation");
    eprintln!("answer: {:?} ({:?})", first.text, first.finish_reason);

    assert!(!first.text.trim().is_empty(), "empty answer");
    for marker in SPECIAL_MARKERS {
        assert!(!first.text.contains(marker), "special token text in {:?}", first.text);
    }
    let usage = first.usage;
    assert!(usage.prompt > 0);
    assert!(usage.completion > 0 && usage.completion <= 16);
    assert_eq!(usage.total, usage.prompt + usage.completion);
    assert_eq!(usage.prompt as usize, llm.count_tokens(&llm.render_prompt(&req)));
    match first.finish_reason {
        FinishReason::Length => assert_eq!(usage.completion, 16),
        FinishReason::Stop => assert!(usage.completion <= 16),
    }
    assert_eq!(first.attempts, 1);
    assert!(first.latency_ms > 0.0);
    assert!(first.prompt_tokens_per_s.is_some_and(|r| r > 0.0));

    // Same prompt, same model state (the KV cache is reset per call): same answer.
    assert_eq!(first.text, second.text);
    assert_eq!(first.usage, second.usage);
    assert!(first.text.to_lowercase().contains("paris"), "unexpected answer {:?}", first.text);
}

#[test]
fn stop_string_ends_the_answer_and_is_not_returned() {
    let mut llm = model();
    let mut req = request("Count from 1 to 10, separated by commas.", 48);
    let free = llm.chat(&req).expect("unconstrained generation");
    eprintln!("free: {:?}", free.text);
    assert!(free.text.contains('4'), "expected the count to reach 4: {:?}", free.text);

    req.stop = vec!["4".to_string()];
    let stopped = llm.chat(&req).expect("generation with a stop string");
    eprintln!("stopped: {:?}", stopped.text);
    assert_eq!(stopped.finish_reason, FinishReason::Stop);
    assert!(!stopped.text.contains('4'));
    let cut = free.text.find('4').unwrap_or(free.text.len());
    assert_eq!(stopped.text, free.text[..cut]);
    assert!(stopped.usage.completion < free.usage.completion);
}

fn json_request(system: &str, max_tokens: usize) -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system(system),
            ChatMessage::user("How do I calibrate the BME280 sensor and send its readings over MQTT?"),
        ],
        max_tokens,
        format: OutputFormat::Json {
            name: "subqueries".into(),
            schema: serde_json::json!({
                "type": "object",
                "properties": {"subqueries": {"type": "array", "items": {"type": "string"}}},
                "required": ["subqueries"]
            }),
            prefix: JSON_PREFIX.into(),
        },
        stop: Vec::new(),
        temperature: 0.0,
        purpose: "subqueries",
    }
}

const JSON_PREFIX: &str = r#"{"subqueries": [""#;

#[test]
fn json_format_yields_parseable_json() {
    let mut llm = model();
    let system = "You rewrite a question as 1 to 3 short search queries.\n\
                  Reply with JSON like {\"subqueries\": [\"first query\", \"second query\"]}.";
    // With this prompt the model closes the value well within the budget, so the call succeeds
    // and (the constraint guarantees syntax) the text parses.
    let response = llm.chat(&json_request(system, 96)).expect("constrained generation succeeds on this prompt");
    eprintln!("json: {} ({:?}, {} tokens)", response.text, response.finish_reason, response.usage.completion);
    assert!(response.text.starts_with(JSON_PREFIX));
    assert_eq!(response.finish_reason, FinishReason::Stop);
    let value: serde_json::Value = serde_json::from_str(&response.text).expect("the output is complete JSON");
    let subqueries = value.get("subqueries").and_then(|s| s.as_array()).expect("subqueries array");
    assert!(!subqueries.is_empty());
    assert!(subqueries.iter().all(|s| s.is_string()));
}

#[test]
fn json_format_that_runs_out_of_tokens_is_a_clear_error() {
    let mut llm = model();
    // With a schema outside the guided subset only the syntax is constrained, and eight tokens
    // cannot hold the value: the call fails instead of returning a JSON fragment.
    let system = "Split the user's question into short search queries. Reply with JSON only.";
    let mut req = json_request(system, 8);
    if let OutputFormat::Json { schema, .. } = &mut req.format {
        schema["additionalProperties"] = serde_json::json!(true);
    }
    match llm.chat(&req) {
        Err(LlmError::Generation(msg)) => {
            assert!(msg.contains("JSON output not complete within max_tokens (8)"), "{msg}");
            assert!(msg.contains(JSON_PREFIX), "the message shows the fragment: {msg}");
        }
        other => panic!("expected a Generation error, got {other:?}"),
    }
}

#[test]
fn schema_guided_json_closes_within_a_tight_budget() {
    let mut llm = model();
    // The same request with its (supported) schema: the guide keeps the value closable within
    // the tokens left, so eight tokens give a short but whole answer.
    let system = "Split the user's question into short search queries. Reply with JSON only.";
    let response = llm.chat(&json_request(system, 8)).expect("schema-guided generation closes in time");
    eprintln!("tight budget: {} ({} tokens)", response.text, response.usage.completion);
    assert!(response.usage.completion <= 8);
    assert_eq!(response.finish_reason, FinishReason::Stop);
    let value: serde_json::Value = serde_json::from_str(&response.text).expect("complete JSON");
    assert!(value["subqueries"].as_array().is_some_and(|l| l.iter().all(|s| s.is_string())));
}

#[test]
fn prompt_beyond_the_context_is_an_error_not_truncated() {
    let mut opts = options();
    opts.context_override = Some(64);
    let mut llm = LocalLlm::load(&opts).expect("load");
    assert_eq!(llm.context_length(), Some(64));
    let long = "The sensor reports temperature, humidity and pressure every minute. ".repeat(20);
    match llm.chat(&request(&long, 16)) {
        Err(LlmError::ContextOverflow { prompt_tokens, context, max_tokens }) => {
            assert!(prompt_tokens + max_tokens > context);
            assert_eq!(context, 64);
            assert_eq!(max_tokens, 16);
        }
        other => panic!("expected ContextOverflow, got {other:?}"),
    }
    // A prompt that fits still works with the small window.
    let ok = llm.chat(&request("Hi", 8)).expect("a short prompt fits");
    assert!(ok.usage.total <= 64);
}

#[test]
fn missing_file_names_the_setup_script() {
    let opts = LocalOptions::new("models/does-not-exist/nothing.gguf");
    match LocalLlm::load(&opts) {
        Err(e @ LlmError::ModelMissing { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("scripts/setup-models.sh"), "{msg}");
            assert!(msg.contains("nothing.gguf"), "{msg}");
        }
        Err(other) => panic!("expected ModelMissing, got {other:?}"),
        Ok(_) => panic!("loading a missing file succeeded"),
    }
}

#[test]
fn tokenizer_from_gguf_is_exact_on_known_ids_and_round_trips() {
    let llm = model();
    let tok = llm.tokenizer();
    assert_eq!(tok.vocab_size(), 49152);
    assert_eq!(tok.encode("<|im_start|>").expect("encodes"), vec![1]);
    assert_eq!(tok.encode("<|im_end|>").expect("encodes"), vec![2]);
    assert_eq!(tok.encode("<|endoftext|>").expect("encodes"), vec![0]);
    assert!(tok.is_end_of_turn(2) && tok.is_end_of_turn(0));
    let chat = tok.encode("<|im_start|>user\nHello<|im_end|>\n").expect("encodes");
    assert_eq!(chat.first(), Some(&1));
    assert!(chat.contains(&2));
    // SmolLM's pre-tokenizer puts every digit in its own token.
    assert_eq!(tok.encode("2024").expect("encodes").len(), 4);
    for text in [
        "The BME280 measures temperature (±1 °C), humidity and pressure.",
        "fn main() {\n    let x: Vec<u8> = vec![1, 2, 3];\n\tprintln!(\"{x:?}\");\n}\n",
        "    indented\n\n\n  runs   of    spaces\t\ttabs",
        "Unicode: café naïve 日本語 한국어 Ελληνικά emoji 🎉🚀 and math ∑∫√",
        "3.14159 1e-10 0x1F 1,000,000 2026-11-22T04:40:00Z",
        "",
    ] {
        let ids = tok.encode(text).expect("encodes");
        assert_eq!(tok.decode(&ids), text);
        assert_eq!(tok.inner().decode(&ids, false).expect("decodes"), text);
        assert_eq!(llm.count_tokens(text), ids.len());
    }
}

#[test]
fn every_weight_mode_answers_sensibly() {
    for mode in [WeightMode::Q8_0, WeightMode::F32, WeightMode::Keep] {
        let mut opts = options();
        opts.weights = mode;
        let mut llm = LocalLlm::load(&opts).unwrap_or_else(|e| panic!("loading with {mode}: {e}"));
        let expected_conversions = match mode {
            WeightMode::Q8_0 => "210 Q4_1→Q8_0",
            WeightMode::F32 => "210 Q4_1→F32",
            _ => "none",
        };
        assert_eq!(llm.stats().conversions, expected_conversions);
        let answer = llm.chat(&request("What is the capital of France? Answer in one word.", 16)).expect("generation");
        assert!(answer.text.to_lowercase().contains("paris"), "{mode}: {:?}", answer.text);
    }
}

#[test]
fn tokenizer_json_beside_the_gguf_takes_precedence() {
    let dir = tempfile::tempdir().expect("temp dir");
    let linked = dir.path().join("model.gguf");
    std::os::unix::fs::symlink(model_path(), &linked).expect("symlink the model");
    let built = model();
    let tok = built.tokenizer();
    // Save the tokenizer rebuilt from the GGUF and check the sidecar path reproduces it exactly.
    tok.inner().save(dir.path().join("tokenizer.json"), false).expect("save tokenizer.json");
    let opts = LocalOptions { path: linked, weights: WeightMode::Keep, ..options() };
    let sidecar = LocalLlm::load(&opts).expect("load with tokenizer.json");
    let text = "<|im_start|>user\nDew point 12.5 °C — café 🎉\n\n  fn f() {}<|im_end|>";
    let ids = tok.encode(text).expect("encodes");
    assert_eq!(sidecar.tokenizer().encode(text).expect("encodes"), ids);
    assert_eq!(sidecar.tokenizer().decode(&ids), text);
    assert!(sidecar.tokenizer().is_control(1) && sidecar.tokenizer().is_end_of_turn(2));
}

fn chunk(text: &str) -> qa_core::chunk::Chunk {
    qa_core::chunk::Chunk {
        id: "sensor_0".into(),
        source_file: "sensor.md".into(),
        content: text.into(),
        metadata: qa_core::chunk::ChunkMeta {
            heading_path: vec![],
            image_ids: vec![],
            char_start: 0,
            char_end: text.chars().count(),
            token_count: 0,
            content_sha256: "h".into(),
        },
    }
}

#[test]
fn graph_extraction_follows_the_schema() {
    let mut llm = model();
    let chunk = chunk("The BME280 sensor connects to the ESP32 board over the I2C bus. The solar panel charges the LiPo battery.");
    let req = qa_graph::kg::llm_extract::request(&chunk);
    let response = llm.chat(&req).expect("schema-guided extraction completes within max_tokens");
    eprintln!(
        "extraction ({:?}, {} tokens, {:.0} ms): {}",
        response.finish_reason, response.usage.completion, response.latency_ms, response.text
    );
    let value: serde_json::Value = serde_json::from_str(&response.text).expect("the output is complete JSON");
    let keys: Vec<&String> = value.as_object().expect("an object").keys().collect();
    assert!(keys.iter().all(|k| *k == "entities" || *k == "relations"), "keys {keys:?}");
    let extraction = qa_graph::kg::llm_extract::validate(&response.text, &chunk).expect("structurally valid extraction");
    eprintln!("validated entities: {:?}", extraction.entities);
    eprintln!("validated relations: {:?}", extraction.relations);
    eprintln!("dropped items: {}", extraction.dropped);
}

#[test]
fn subqueries_follow_the_schema() {
    let mut llm = model();
    let question = "How do I calibrate the BME280 sensor and send its readings over MQTT?";
    let prompt = qa_query::retrieve::SubqueryPrompt { question };
    let req = qa_llm::Prompt::request(&prompt);
    let response = llm.chat(&req).expect("schema-guided subqueries complete within max_tokens");
    eprintln!("subqueries ({:?}, {} tokens): {}", response.finish_reason, response.usage.completion, response.text);
    let value: serde_json::Value = serde_json::from_str(&response.text).expect("the output is complete JSON");
    let list = value.get("subqueries").and_then(|s| s.as_array()).expect("a subqueries list");
    assert!((1..=4).contains(&list.len()), "{list:?}");
    assert!(list.iter().all(|s| s.is_string()));
    let distinct: std::collections::BTreeSet<&str> = list.iter().filter_map(|s| s.as_str()).collect();
    assert_eq!(distinct.len(), list.len(), "repeated items: {list:?}");
    match qa_llm::Prompt::parse(&prompt, &response.text) {
        Ok(subqueries) => eprintln!("SubqueryPrompt::parse: usable {subqueries:?}"),
        Err(reason) => {
            // The structure is guaranteed; only the content (too short, no words, the question
            // itself) may be refused.
            assert_eq!(reason.to_string(), "no usable subquery in the list", "a structural failure");
            eprintln!("SubqueryPrompt::parse: refused for content: {reason}");
        }
    }
}
