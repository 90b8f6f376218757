//! Local GGUF chat model (to be implemented).
