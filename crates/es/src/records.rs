//! Loading records from JSONL, a JSON array or CSV.
