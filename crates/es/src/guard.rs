//! The guard: every request body is checked against the mapping, allowed clauses and caps before it reaches an engine.
