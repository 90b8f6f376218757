//! LLM candidates for the ES query (k-best, validated, ranked, bounded repair).
