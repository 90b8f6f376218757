//! The embedded engine: an Elasticsearch-style index on tantivy under the data folder.
