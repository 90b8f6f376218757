//! The typed intermediate form of an ES query and its rendering to the query DSL (F06).
