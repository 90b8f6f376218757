//! qa-llm's own tests: the OpenAI-compatible provider against a scripted HTTP server on loopback.
//! (The local model's tests run the prompts of qa-graph and qa-query too, so they stay in the root
//! package's `tests/it/llm_local.rs`.)

mod common;

mod llm_openai;
