//! A remote Elasticsearch or OpenSearch server over HTTP(S).
