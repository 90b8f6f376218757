//! OpenAI-compatible HTTP client (to be implemented).
