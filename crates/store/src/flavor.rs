//! What differs between the two back ends, and the bodies built for each. Everything here
//! follows the published APIs: OpenSearch 2's k-NN plugin (`knn_vector` with an explicit
//! `method` — HNSW on the Lucene engine, `cosinesimil` — in an index with `index.knn: true`,
//! queried by a `knn` query clause) and Elasticsearch 8's `dense_vector` (`similarity: cosine`,
//! explicit HNSW `index_options`, queried by the search API's top-level `knn` section).

use serde_json::{Value, json};

use qa_index::lexical::{HEADING_BOOST, TITLE_BOOST};

/// Links per node of the server's HNSW graph (both back ends' default).
pub const HNSW_M: usize = 16;
/// Candidate list while the server builds its graph.
pub const HNSW_EF_CONSTRUCTION: usize = 100;
/// Candidates a kNN search considers per shard on Elasticsearch (at least `k`).
pub const NUM_CANDIDATES: usize = 100;
/// Version of the document layout; a change makes old indexes a mismatch.
pub const LAYOUT: u64 = 1;

/// The server's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavor {
    /// OpenSearch 2 (the k-NN plugin).
    OpenSearch,
    /// Elasticsearch 8 or 9.
    Elasticsearch,
}

impl Flavor {
    /// The kind named by a `GET /` answer: OpenSearch says `version.distribution: "opensearch"`.
    pub fn detect(info: &Value) -> Flavor {
        match info.pointer("/version/distribution").and_then(Value::as_str) {
            Some(d) if d.eq_ignore_ascii_case("opensearch") => Flavor::OpenSearch,
            _ => Flavor::Elasticsearch,
        }
    }

    /// `opensearch` or `elasticsearch`.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::OpenSearch => "opensearch",
            Flavor::Elasticsearch => "elasticsearch",
        }
    }

    /// The body of `PUT /INDEX`: one shard (a corpus of documents, not logs), English analysis on
    /// the text fields (stemming and stop words, as the local BM25 index), keyword fields for the
    /// keys, and the vector field; `_meta` records the model so a query can check it.
    pub fn create_body(self, meta: &StoreMeta) -> Value {
        let vector = match self {
            Flavor::OpenSearch => json!({
                "type": "knn_vector",
                "dimension": meta.dimension,
                "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "lucene", "parameters": {"m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION}},
            }),
            Flavor::Elasticsearch => json!({
                "type": "dense_vector",
                "dims": meta.dimension,
                "index": true,
                "similarity": "cosine",
                "index_options": {"type": "hnsw", "m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION},
            }),
        };
        let settings = match self {
            Flavor::OpenSearch => json!({"index": {"knn": true, "number_of_shards": 1}}),
            Flavor::Elasticsearch => json!({"index": {"number_of_shards": 1}}),
        };
        let text = json!({"type": "text", "analyzer": "english"});
        json!({
            "settings": settings,
            "mappings": {
                "_meta": meta.to_json(),
                "dynamic": "strict",
                "properties": {
                    "doc_key": {"type": "keyword"},
                    "chunk_id": {"type": "keyword"},
                    "source_file": {"type": "keyword"},
                    "title": text,
                    "headings": text,
                    "content": text,
                    "content_sha256": {"type": "keyword"},
                    "char_start": {"type": "integer"},
                    "char_end": {"type": "integer"},
                    "token_count": {"type": "integer"},
                    "image_ids": {"type": "keyword"},
                    "embedding": vector,
                }
            }
        })
    }

    /// The `k` nearest documents to `vector`: their keys only.
    pub fn knn_body(self, vector: &[f32], k: usize) -> Value {
        match self {
            Flavor::OpenSearch => json!({
                "size": k,
                "_source": ["doc_key"],
                "query": {"knn": {"embedding": {"vector": vector, "k": k}}},
            }),
            Flavor::Elasticsearch => json!({
                "size": k,
                "_source": ["doc_key"],
                "knn": {"field": "embedding", "query_vector": vector, "k": k, "num_candidates": NUM_CANDIDATES.max(k)},
            }),
        }
    }
}

/// BM25 over the passage, its title and its headings, weighted as the local lexical index does.
pub fn lexical_body(question: &str, k: usize) -> Value {
    json!({
        "size": k,
        "_source": ["doc_key"],
        "query": {"multi_match": {"query": question, "fields": ["content", format!("title^{TITLE_BOOST}"), format!("headings^{HEADING_BOOST}")]}},
    })
}

/// What an index created by qa records in its mapping's `_meta`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreMeta {
    /// The embedding model's id.
    pub model: String,
    /// Its dimension.
    pub dimension: usize,
    /// The corpus whose chunks the index holds: one index per corpus (a sync deletes what its
    /// corpus does not have, so two corpora in one index would erase each other).
    pub corpus: String,
}

impl StoreMeta {
    /// The `_meta` object.
    pub fn to_json(&self) -> Value {
        json!({"qa_store": LAYOUT, "model": self.model, "dimension": self.dimension, "corpus": self.corpus, "written_by": concat!("qa ", env!("CARGO_PKG_VERSION"))})
    }

    /// The meta of a mapping answer (`{INDEX: {"mappings": {"_meta": …}}}`): `None` when the
    /// index was not created by qa (or by another layout).
    pub fn from_mapping(mapping: &Value) -> Option<StoreMeta> {
        let meta = mapping.as_object()?.values().next()?.pointer("/mappings/_meta")?;
        if meta.get("qa_store").and_then(Value::as_u64) != Some(LAYOUT) {
            return None;
        }
        let text = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
        Some(StoreMeta { model: text("model")?, dimension: meta.get("dimension")?.as_u64()? as usize, corpus: text("corpus")? })
    }

    /// `model (N dimensions)`.
    pub fn describe(&self) -> String {
        format!("{} ({} dimensions)", self.model, self.dimension)
    }

    /// Vectors of the same model and dimension (what a kNN query needs).
    pub fn same_vectors(&self, other: &StoreMeta) -> bool {
        self.model == other.model && self.dimension == other.dimension
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_the_flavor_from_the_cluster_info() {
        assert_eq!(Flavor::detect(&json!({"version": {"distribution": "opensearch", "number": "2.17.0"}})), Flavor::OpenSearch);
        assert_eq!(Flavor::detect(&json!({"version": {"number": "8.15.0", "build_flavor": "default"}})), Flavor::Elasticsearch);
    }

    #[test]
    fn mappings_follow_each_back_ends_vector_api() {
        let meta = StoreMeta { model: "m".into(), dimension: 384, corpus: "notes".into() };
        let os = Flavor::OpenSearch.create_body(&meta);
        assert_eq!(os.pointer("/settings/index/knn"), Some(&json!(true)));
        let v = &os["mappings"]["properties"]["embedding"];
        assert_eq!((v["type"].as_str(), v["dimension"].as_u64(), v["method"]["space_type"].as_str(), v["method"]["engine"].as_str()), (Some("knn_vector"), Some(384), Some("cosinesimil"), Some("lucene")));
        let es = Flavor::Elasticsearch.create_body(&meta);
        let v = &es["mappings"]["properties"]["embedding"];
        assert_eq!((v["type"].as_str(), v["dims"].as_u64(), v["similarity"].as_str(), v["index_options"]["type"].as_str()), (Some("dense_vector"), Some(384), Some("cosine"), Some("hnsw")));
        assert_eq!(StoreMeta::from_mapping(&json!({"idx": {"mappings": es["mappings"].clone()}})), Some(meta));
        assert_eq!(StoreMeta::from_mapping(&json!({"idx": {"mappings": {"properties": {}}}})), None, "an index qa did not create");
    }

    #[test]
    fn knn_queries_take_each_back_ends_form() {
        let os = Flavor::OpenSearch.knn_body(&[0.5, 0.5], 7);
        assert_eq!(os.pointer("/query/knn/embedding/k"), Some(&json!(7)));
        assert!(os.get("knn").is_none());
        let es = Flavor::Elasticsearch.knn_body(&[0.5, 0.5], 7);
        assert_eq!((es.pointer("/knn/k"), es.pointer("/knn/num_candidates")), (Some(&json!(7)), Some(&json!(NUM_CANDIDATES))));
        assert_eq!(lexical_body("q", 3).pointer("/query/multi_match/fields/1"), Some(&json!(format!("title^{TITLE_BOOST}"))));
    }
}
