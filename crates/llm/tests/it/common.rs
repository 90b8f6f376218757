//! The loopback servers these tests share with the root package's tests, included from
//! `tests/it/common/`.

#![allow(dead_code)]

#[path = "../../../../tests/it/common/http_server.rs"]
pub mod http_server;
#[path = "../../../../tests/it/common/llm_server.rs"]
pub mod llm_server;
