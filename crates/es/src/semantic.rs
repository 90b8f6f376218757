//! The optional semantic file of an index: field descriptions, synonyms and value aliases.
