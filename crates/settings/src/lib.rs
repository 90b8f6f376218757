//! Settings with a fixed precedence: command-line flags > `QA_*` environment variables (a `.env`
//! file in the working directory is read into the environment first) > `qa.toml` > defaults.
//! Every value remembers where it came from so `qa doctor` can explain the effective setup.
//! The settings are applied in that order and validated once, after the command's flags, so two
//! settings that are only valid together are never judged half-applied; an error names each
//! setting and where its value came from. [`sources`] opens the sources they name.

pub mod doctor;

/// Apply a typed command-line flag (`None`: not given) to the setting of the same name and mark
/// its origin, with no text round trip: `flag!(settings, chunk_tokens, args.chunk_tokens)`.
/// Validate once after the command's last flag.
#[macro_export]
macro_rules! flag {
    ($settings:expr, $field:ident, $value:expr) => {{
        if let Some(v) = $value {
            $settings.$field = v.into();
            $settings.mark_flag(stringify!($field));
        }
    }};
}
pub mod sources;
pub mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use qa_core::error::{QaError, Result};
pub use qa_core::secret::Secret;
use qa_core::setting_enum;
pub use qa_graph::store::{GraphBackend, StoreConfig};
use qa_index::vector::{HnswParams, VectorIndexKind};
pub use qa_llm::{Generation, LlmProvider, LlmSettings, LlmWeights};
use qa_query::ask::EngineSettings;
use qa_query::build::IndexSettings;

/// Where a setting's effective value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Not set anywhere.
    Default,
    /// `qa.toml`.
    File,
    /// A `QA_*` variable (or the seed project's name for it).
    Env,
    /// A command-line flag.
    Flag,
    /// Found by looking (the only embedded search index under the data folder).
    Discovered,
}

impl Origin {
    /// Where a setting's value came from, for messages: "the default", "qa.toml",
    /// "QA_CHUNK_TOKENS", "--chunk-tokens".
    pub fn source(self, key: &str) -> String {
        match self {
            Origin::Default => "the default".into(),
            Origin::File => "qa.toml".into(),
            Origin::Env => format!("QA_{}", key.to_ascii_uppercase()),
            // The flags whose names are not the setting's.
            Origin::Flag if key == "sql_url" => "--db".into(),
            Origin::Flag => format!("--{}", key.replace('_', "-")),
            Origin::Discovered => "discovered in the data folder".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
/// Every setting's effective value.
pub struct Settings {
    /// Folder holding `vector_store_outputs/`, `chunking_outputs/` and `logs/`.
    pub data_dir: PathBuf,
    /// Folder with model folders (fetched by `qa setup` or `scripts/setup-models.sh`); by default
    /// `./models` or the user's data folder, whichever holds the embedding model.
    pub models_dir: PathBuf,
    /// Embedding model: a folder name under `models_dir`, or a path to a BERT-family
    /// sentence-transformers folder (config.json, tokenizer.json, model.safetensors).
    pub embedding_model: String,
    /// Corpus to query when several are indexed (default: the most recently indexed one).
    pub corpus: Option<String>,
    /// Passages an answer draws on. Left at its default, the count adapts to the question (5, or 8
    /// for comparison, multi-part and multi-hop questions); set, it is exact.
    pub top_k: usize,
    /// Maximum tokens per chunk, [CLS]/[SEP] included; capped by the model's window.
    pub chunk_tokens: usize,
    /// Tokens of overlap carried from one chunk into the next inside a section.
    pub chunk_overlap: usize,
    /// Chunks per embedding batch.
    pub batch_size: usize,
    /// Worker threads for embedding (0 = every core).
    pub threads: usize,
    /// Arithmetic of the embedding model: `auto` (INT8 where the CPU has AVX-512 VNNI, else
    /// F32), `f32`, `int8` or `bf16`. The vectors agree within a cosine of 0.999, so an index
    /// built with one is queried with another.
    pub embed_precision: qa_embed::Precision,
    /// A multi-word term must occur in at least this many chunks to become a concept.
    pub min_concept_df: usize,
    /// RELATED_TO edges need at least this many co-occurring chunks (co-mention covers the rest).
    pub min_related_weight: u32,
    /// Below this best retrieval similarity, with no graph evidence, `qa` says it found nothing.
    pub relevance_threshold: f32,
    /// Below this evidence score — the best passage's similarity to the question plus a fifth
    /// of the question's focus (content words weighted by rarity) the passages hold and 0.15 of
    /// what the best one holds — `qa` says the documents do not answer the question. 0 turns the
    /// check off.
    pub evidence_threshold: f32,
    /// HNSW: links per node.
    pub hnsw_m: usize,
    /// HNSW: candidate list size while building.
    pub hnsw_ef_construction: usize,
    /// HNSW: candidate list size while searching.
    pub hnsw_ef_search: usize,
    /// The dense index that answers: `hnsw` (approximate, fast) or `exact` (a scan of every
    /// vector: exact recall, for small corpora or to check the HNSW graph).
    pub vector_index: VectorIndexKind,
    /// LLM provider: `auto` (the endpoint if `llm_base_url` is set, else a local GGUF model if
    /// `llm_model` names one, else none), `local`, `openai` or `none`.
    pub llm_provider: LlmProvider,
    /// Local: a GGUF file (path, or file/folder name under `models_dir`); openai: the model name.
    pub llm_model: Option<String>,
    /// OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1` (Ollama).
    pub llm_base_url: Option<String>,
    /// Seconds before a remote LLM call is abandoned.
    pub llm_timeout_secs: f64,
    /// Retries of a remote call on HTTP 429/5xx or a dropped connection.
    pub llm_max_retries: u32,
    /// Tokens the LLM may generate for an answer.
    pub llm_max_tokens: usize,
    /// Prompt budget in tokens for the synthesis prompt (evidence beyond it is dropped by priority;
    /// the model's context length caps it too).
    pub llm_prompt_tokens: usize,
    /// Local model: threads for prompt processing (0 = every core).
    pub llm_threads: usize,
    /// Local model: threads for token-by-token decoding (0 = every core).
    pub llm_decode_threads: usize,
    /// Local model weights in memory: `auto`, `f32`, `q8_0` or `keep` (see docs/ARCHITECTURE.md).
    pub llm_weights: LlmWeights,
    /// Local model: context length override in tokens (0 = the model's own).
    pub llm_context: usize,
    /// Ask the LLM for retrieval subqueries (else only the deterministic split).
    pub llm_subqueries: bool,
    /// An answer sentence is supported when its support score (similarity to the best evidence
    /// sentence and coverage of its words by the evidence) reaches this.
    pub grounding_threshold: f64,
    /// Below this fraction of supported sentences, the LLM answer is replaced by the extractive one.
    pub grounding_min_supported: f64,
    /// Graph store: `auto` (Neo4j when `neo4j_uri` is set, else embedded), `embedded` or `neo4j`.
    pub graph_store: GraphStoreChoice,
    /// Neo4j Bolt URI, e.g. `bolt://localhost:7687` or `neo4j+s://host` (also read from `NEO4J_URI`).
    pub neo4j_uri: Option<String>,
    /// Neo4j user (also read from `NEO4J_USERNAME`).
    pub neo4j_username: String,
    /// Neo4j database name (default: the server's default database).
    pub neo4j_database: Option<String>,
    /// Seconds a graph query may run (Neo4j: transaction timeout; the embedded store bounds work
    /// instead) and a Neo4j connection attempt may take.
    pub graph_timeout_secs: f64,
    /// Rows a graph query may return; generated Cypher gets `LIMIT` at most this.
    pub graph_row_cap: usize,
    /// Let the LLM write a Cypher query for the question (validated, sanitized, run read-only):
    /// `auto` (remote OpenAI-compatible LLMs only: the bundled 135M local model writes no usable
    /// Cypher), `on` or `off`. Without it only the deterministic graph queries run.
    pub cypher_generation: Generation,
    /// Let the LLM's reading of the passages decide whether they answer the question: its "the
    /// documents do not say" is the answer (not an extractive quote), and a question the evidence
    /// check refuses narrowly (every name found, the evidence score within 0.15 of the threshold)
    /// is its to read. `auto` (remote OpenAI-compatible LLMs only: the bundled 135M local model
    /// answered six more unanswerable questions than it saved answerable ones, and its one
    /// "not in the passages" was wrong), `on` or `off`.
    pub llm_answerability: Generation,
    /// SQL database for `qa sql` and for routing `qa "..."`: `sqlite://file.db` or
    /// `postgres://user@host:port/db` (the password from `QA_SQL_PASSWORD`/`PGPASSWORD`, or inline;
    /// never printed).
    pub sql_url: Option<String>,
    /// Semantic schema file (TOML) with table/column descriptions, synonyms and value aliases.
    pub sql_semantic_schema: Option<PathBuf>,
    /// Rows a SQL query may return; every executed statement has `LIMIT` at most this.
    pub sql_row_cap: usize,
    /// Milliseconds a SQL statement may run (SQLite: interrupted; Postgres: `statement_timeout`).
    pub sql_timeout_ms: u64,
    /// SQL candidates asked of the LLM (the plan's deterministic candidate comes on top).
    pub sql_k: usize,
    /// Validate/diagnose iterations before `qa sql` gives up with suggestions.
    pub sql_max_loops: u64,
    /// Let the LLM write SQL candidates: `auto` (remote OpenAI-compatible LLMs only, like
    /// `cypher_generation`), `on` or `off` (deterministic generator only).
    pub sql_generation: Generation,
    /// The Elasticsearch path's index: a URL `http(s)://host:port/INDEX` is a remote
    /// Elasticsearch 8/9 or OpenSearch 2 server (credentials from `QA_ES_API_KEY` or
    /// `QA_ES_USERNAME` + `QA_ES_PASSWORD`, never from here); anything else names an embedded
    /// index under `<data_dir>/es_indexes/` (built by `qa es index`).
    pub es: Option<String>,
    /// PEM file with the CA certificate(s) a remote server's TLS certificate is checked against
    /// (in addition to the system roots).
    pub es_ca_cert: Option<PathBuf>,
    /// Milliseconds a search may take (sent as the request `timeout`, enforced by the client).
    pub es_timeout_ms: u64,
    /// Hits a request may return at most (`size` and every page are capped to it).
    pub es_row_cap: usize,
    /// Hits per page of `qa es` (`--page-size`); at most `es_row_cap`.
    pub es_page_size: usize,
    /// Buckets a terms aggregation or a histogram may produce at most.
    pub es_max_buckets: usize,
    /// Retries of a remote request on HTTP 429/5xx or a dropped connection.
    pub es_retries: u32,
    /// Semantic file (TOML) for the ES path: field descriptions, synonyms and value aliases.
    pub es_semantic: Option<PathBuf>,
    /// Let the LLM write ES query candidates: `auto` (remote OpenAI-compatible LLMs only, like
    /// `sql_generation`), `on` or `off` (deterministic generation only).
    pub es_generation: Generation,
    /// ES query candidates asked of the LLM (the plan's deterministic candidate comes on top).
    pub es_k: usize,
    /// Times a candidate the guard refused is sent back to the LLM with the reasons.
    pub es_max_repairs: usize,
    /// Let the LLM restate each message (the reiterate node of `qa es` and of sessions), with
    /// the last turns as context: `auto` (remote LLMs only), `on` or `off` (rules only).
    pub reiterate: Generation,
    /// The documents' dense and lexical lanes on a server: `http(s)://host:port/INDEX` of an
    /// OpenSearch 2 or Elasticsearch 8/9 index that `qa index` fills and `qa ask` searches
    /// (credentials from `QA_STORE_API_KEY` or `QA_STORE_USERNAME` + `QA_STORE_PASSWORD`).
    pub store: Option<String>,
    /// PEM file with the CA certificate(s) the store's TLS certificate is checked against.
    pub store_ca_cert: Option<PathBuf>,
    /// Milliseconds one request to the store may take (a `_bulk` batch included).
    pub store_timeout_ms: u64,
    /// Neo4j password: only from `QA_NEO4J_PASSWORD` / `NEO4J_PASSWORD` (environment or `.env`).
    #[serde(skip)]
    pub neo4j_password: Option<Secret>,
    /// API key for the OpenAI-compatible endpoint: only from `QA_LLM_API_KEY` (environment or
    /// `.env`), never from qa.toml or flags, never printed.
    #[serde(skip)]
    pub llm_api_key: Option<Secret>,
    /// Elasticsearch API key: only from `QA_ES_API_KEY` (environment or `.env`), never printed.
    #[serde(skip)]
    pub es_api_key: Option<Secret>,
    /// Elasticsearch basic-auth user: only from `QA_ES_USERNAME` (environment or `.env`).
    #[serde(skip)]
    pub es_username: Option<Secret>,
    /// Elasticsearch basic-auth password: only from `QA_ES_PASSWORD` (environment or `.env`).
    #[serde(skip)]
    pub es_password: Option<Secret>,
    /// The store's API key: only from `QA_STORE_API_KEY` (environment or `.env`).
    #[serde(skip)]
    pub store_api_key: Option<Secret>,
    /// The store's basic-auth user: only from `QA_STORE_USERNAME`.
    #[serde(skip)]
    pub store_username: Option<Secret>,
    /// The store's basic-auth password: only from `QA_STORE_PASSWORD`.
    #[serde(skip)]
    pub store_password: Option<Secret>,
    /// Where each set value came from (absent: the default).
    #[serde(skip)]
    pub origins: BTreeMap<&'static str, Origin>,
    /// The `qa.toml` read, if any.
    #[serde(skip)]
    pub config_file: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data_dir: PathBuf::from("."),
            models_dir: PathBuf::from("models"),
            embedding_model: "all-MiniLM-L6-v2".into(),
            corpus: None,
            top_k: 5,
            chunk_tokens: 256,
            chunk_overlap: 32,
            batch_size: 16,
            threads: 0,
            embed_precision: qa_embed::Precision::Auto,
            min_concept_df: 2,
            min_related_weight: 2,
            relevance_threshold: 0.25,
            evidence_threshold: 0.7,
            hnsw_m: 24,
            hnsw_ef_construction: 200,
            hnsw_ef_search: 96,
            vector_index: VectorIndexKind::Hnsw,
            llm_provider: LlmProvider::Auto,
            llm_model: None,
            llm_base_url: None,
            llm_timeout_secs: 60.0,
            llm_max_retries: 3,
            llm_max_tokens: 256,
            llm_prompt_tokens: 1024,
            llm_threads: 0,
            llm_decode_threads: 0,
            llm_weights: LlmWeights::Auto,
            llm_context: 0,
            llm_subqueries: true,
            grounding_threshold: 0.55,
            grounding_min_supported: 0.5,
            graph_store: GraphStoreChoice::Auto,
            neo4j_uri: None,
            neo4j_username: "neo4j".into(),
            neo4j_database: None,
            graph_timeout_secs: 10.0,
            graph_row_cap: 1000,
            cypher_generation: Generation::Auto,
            llm_answerability: Generation::Auto,
            sql_url: None,
            sql_semantic_schema: None,
            sql_row_cap: 1000,
            sql_timeout_ms: 5000,
            sql_k: 3,
            sql_max_loops: 4,
            sql_generation: Generation::Auto,
            es: None,
            es_ca_cert: None,
            es_timeout_ms: 5000,
            es_row_cap: 200,
            es_page_size: 20,
            es_max_buckets: 1000,
            es_retries: 3,
            es_semantic: None,
            es_generation: Generation::Auto,
            es_k: 3,
            es_max_repairs: 1,
            reiterate: Generation::Auto,
            store: None,
            store_ca_cert: None,
            store_timeout_ms: 30_000,
            neo4j_password: None,
            llm_api_key: None,
            es_api_key: None,
            es_username: None,
            es_password: None,
            store_api_key: None,
            store_username: None,
            store_password: None,
            origins: BTreeMap::new(),
            config_file: None,
        }
    }
}

pub use qa_es::connect::{EsTarget, valid_index_name};

/// An ES URL without its user info (`https://host:9200/idx`), for anything shown.
pub fn redact_es_url(url: &str) -> String {
    qa_es::remote::redact_url(url)
}

/// Settings of the focus check that `evidence_threshold` replaced: a qa.toml naming one gets an
/// error that says so, not a bare "unknown setting".
const RETIRED_FOCUS_KEYS: &[&str] = &["focus_threshold", "focus_similarity", "passage_focus_threshold", "passage_focus_similarity"];

/// Names of the settings, as used in qa.toml and (upper-cased, `QA_` prefix) in the environment.
pub const KEYS: &[&str] = &[
    "data_dir",
    "models_dir",
    "embedding_model",
    "corpus",
    "top_k",
    "chunk_tokens",
    "chunk_overlap",
    "batch_size",
    "threads",
    "embed_precision",
    "min_concept_df",
    "min_related_weight",
    "relevance_threshold",
    "evidence_threshold",
    "hnsw_m",
    "hnsw_ef_construction",
    "hnsw_ef_search",
    "vector_index",
    "llm_provider",
    "llm_model",
    "llm_base_url",
    "llm_timeout_secs",
    "llm_max_retries",
    "llm_max_tokens",
    "llm_prompt_tokens",
    "llm_threads",
    "llm_decode_threads",
    "llm_weights",
    "llm_context",
    "llm_subqueries",
    "grounding_threshold",
    "grounding_min_supported",
    "graph_store",
    "neo4j_uri",
    "neo4j_username",
    "neo4j_database",
    "graph_timeout_secs",
    "graph_row_cap",
    "cypher_generation",
    "llm_answerability",
    "sql_url",
    "sql_semantic_schema",
    "sql_row_cap",
    "sql_timeout_ms",
    "sql_k",
    "sql_max_loops",
    "sql_generation",
    "es",
    "es_ca_cert",
    "es_timeout_ms",
    "es_row_cap",
    "es_page_size",
    "es_max_buckets",
    "es_retries",
    "es_semantic",
    "es_generation",
    "es_k",
    "es_max_repairs",
    "reiterate",
    "store",
    "store_ca_cert",
    "store_timeout_ms",
];

/// The seed project's variable names, accepted when the `QA_` ones are not set.
const SEED_ENV: &[(&str, &str)] = &[("neo4j_uri", "NEO4J_URI"), ("neo4j_username", "NEO4J_USERNAME"), ("neo4j_database", "NEO4J_DATABASE")];

setting_enum! {
    /// `graph_store` as configured.
    GraphStoreChoice {
        /// Neo4j when `neo4j_uri` is set, else the embedded store.
        Auto => "auto",
        /// The embedded graph database.
        Embedded => "embedded",
        /// Neo4j over Bolt.
        Neo4j => "neo4j",
    }
}

impl Settings {
    /// Defaults, then `qa.toml` (explicit path, else `$QA_CONFIG`, else `./qa.toml` if present),
    /// then `QA_*` variables (after loading `./.env` if present, without overriding real env).
    pub fn load(explicit_config: Option<&Path>) -> Result<Settings> {
        let _ = dotenvy::dotenv();
        let mut s = Settings::default();
        let path = explicit_config
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("QA_CONFIG").map(PathBuf::from))
            .or_else(|| Some(PathBuf::from("qa.toml")).filter(|p| p.is_file()));
        if let Some(path) = path {
            let text = std::fs::read_to_string(&path).map_err(|e| QaError::io("reading config file", &path, e))?;
            let table: toml::Table = toml::from_str(&text)
                .map_err(|e| QaError::Config(format!("{}: {}", path.display(), e.message())))?;
            for key in table.keys() {
                if RETIRED_FOCUS_KEYS.contains(&key.as_str()) {
                    return Err(QaError::Config(format!(
                        "{}: the setting '{key}' was replaced by 'evidence_threshold' (default 0.7: one score of the passages' similarity and the question's words they hold); remove '{key}'",
                        path.display()
                    )));
                }
                if !KEYS.contains(&key.as_str()) {
                    return Err(QaError::Config(format!(
                        "{}: unknown setting '{key}' (known: {})",
                        path.display(),
                        KEYS.join(", ")
                    )));
                }
            }
            s = toml::from_str(&text).map_err(|e| QaError::Config(format!("{}: {}", path.display(), e.message())))?;
            for key in table.keys() {
                if let Some(k) = KEYS.iter().find(|k| **k == key) {
                    s.origins.insert(k, Origin::File);
                }
            }
            s.config_file = Some(path);
        }
        for key in KEYS {
            let var = format!("QA_{}", key.to_ascii_uppercase());
            if let Ok(value) = std::env::var(&var) {
                s.set(key, &value).map_err(|e| QaError::Config(format!("{var}: {e}")))?;
                s.origins.insert(key, Origin::Env);
            }
        }
        for (key, var) in SEED_ENV {
            if std::env::var_os(format!("QA_{}", key.to_ascii_uppercase())).is_none()
                && let Ok(value) = std::env::var(var)
            {
                s.set(key, &value).map_err(|e| QaError::Config(format!("{var}: {e}")))?;
                s.origins.insert(key, Origin::Env);
            }
        }
        s.neo4j_password = ["QA_NEO4J_PASSWORD", "NEO4J_PASSWORD"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|p| !p.is_empty()))
            .map(Secret::new);
        s.llm_api_key = std::env::var("QA_LLM_API_KEY").ok().filter(|k| !k.trim().is_empty()).map(|k| Secret::new(k.trim()));
        let es_secret = |var: &str| std::env::var(var).ok().filter(|v| !v.trim().is_empty()).map(|v| Secret::new(v.trim()));
        s.es_api_key = es_secret("QA_ES_API_KEY");
        s.es_username = es_secret("QA_ES_USERNAME");
        // A password is kept as given (spaces may belong to it); only an empty one is ignored.
        s.es_password = std::env::var("QA_ES_PASSWORD").ok().filter(|p| !p.is_empty()).map(Secret::new);
        s.store_api_key = es_secret("QA_STORE_API_KEY");
        s.store_username = es_secret("QA_STORE_USERNAME");
        s.store_password = std::env::var("QA_STORE_PASSWORD").ok().filter(|p| !p.is_empty()).map(Secret::new);
        // No folder named: the first of ./models (a clone) and the user's data folder (`qa setup`)
        // that holds the embedding model, so an installed `qa` works from any folder.
        if s.origin("models_dir") == Origin::Default {
            s.models_dir = qa_embed::models::find_models_dir(&s.embedding_model);
        }
        // Not validated yet: the command's flags come last, then one validation of the whole.
        Ok(s)
    }

    /// Set one setting from its string form (environment or flag) and mark its origin.
    pub fn set(&mut self, key: &str, value: &str) -> std::result::Result<(), String> {
        fn num<T: std::str::FromStr>(v: &str) -> std::result::Result<T, String> {
            v.trim().parse().map_err(|_| format!("'{v}' is not a valid number"))
        }
        fn boolean(v: &str) -> std::result::Result<bool, String> {
            match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                _ => Err(format!("'{v}' is not true or false")),
            }
        }
        match key {
            "data_dir" => self.data_dir = PathBuf::from(value),
            "models_dir" => self.models_dir = PathBuf::from(value),
            "embedding_model" => self.embedding_model = value.to_string(),
            "corpus" => self.corpus = Some(value.to_string()).filter(|v| !v.is_empty()),
            "top_k" => self.top_k = num(value)?,
            "chunk_tokens" => self.chunk_tokens = num(value)?,
            "chunk_overlap" => self.chunk_overlap = num(value)?,
            "batch_size" => self.batch_size = num(value)?,
            "threads" => self.threads = num(value)?,
            "embed_precision" => self.embed_precision = value.parse()?,
            "min_concept_df" => self.min_concept_df = num(value)?,
            "min_related_weight" => self.min_related_weight = num(value)?,
            "relevance_threshold" => self.relevance_threshold = num(value)?,
            "evidence_threshold" => self.evidence_threshold = num(value)?,
            "hnsw_m" => self.hnsw_m = num(value)?,
            "hnsw_ef_construction" => self.hnsw_ef_construction = num(value)?,
            "hnsw_ef_search" => self.hnsw_ef_search = num(value)?,
            "vector_index" => self.vector_index = value.parse()?,
            "llm_provider" => self.llm_provider = value.parse()?,
            "llm_model" => self.llm_model = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "llm_base_url" => self.llm_base_url = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "llm_timeout_secs" => self.llm_timeout_secs = num(value)?,
            "llm_max_retries" => self.llm_max_retries = num(value)?,
            "llm_max_tokens" => self.llm_max_tokens = num(value)?,
            "llm_prompt_tokens" => self.llm_prompt_tokens = num(value)?,
            "llm_threads" => self.llm_threads = num(value)?,
            "llm_decode_threads" => self.llm_decode_threads = num(value)?,
            "llm_weights" => self.llm_weights = value.parse()?,
            "llm_context" => self.llm_context = num(value)?,
            "llm_subqueries" => self.llm_subqueries = boolean(value)?,
            "grounding_threshold" => self.grounding_threshold = num(value)?,
            "grounding_min_supported" => self.grounding_min_supported = num(value)?,
            "graph_store" => self.graph_store = value.parse()?,
            "neo4j_uri" => self.neo4j_uri = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "neo4j_username" => self.neo4j_username = value.trim().to_string(),
            "neo4j_database" => self.neo4j_database = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "graph_timeout_secs" => self.graph_timeout_secs = num(value)?,
            "graph_row_cap" => self.graph_row_cap = num(value)?,
            "cypher_generation" => self.cypher_generation = value.parse::<Generation>().or_else(|e| boolean(value).map(Generation::from).map_err(|_| e))?,
            "llm_answerability" => self.llm_answerability = value.parse::<Generation>().or_else(|e| boolean(value).map(Generation::from).map_err(|_| e))?,
            "sql_url" => self.sql_url = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "sql_semantic_schema" => self.sql_semantic_schema = Some(PathBuf::from(value.trim())).filter(|v| !v.as_os_str().is_empty()),
            "sql_row_cap" => self.sql_row_cap = num(value)?,
            "sql_timeout_ms" => self.sql_timeout_ms = num(value)?,
            "sql_k" => self.sql_k = num(value)?,
            "sql_max_loops" => self.sql_max_loops = num(value)?,
            "sql_generation" => self.sql_generation = value.parse::<Generation>().or_else(|e| boolean(value).map(Generation::from).map_err(|_| e))?,
            "es" => self.es = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "es_ca_cert" => self.es_ca_cert = Some(PathBuf::from(value.trim())).filter(|v| !v.as_os_str().is_empty()),
            "es_timeout_ms" => self.es_timeout_ms = num(value)?,
            "es_row_cap" => self.es_row_cap = num(value)?,
            "es_page_size" => self.es_page_size = num(value)?,
            "es_max_buckets" => self.es_max_buckets = num(value)?,
            "es_retries" => self.es_retries = num(value)?,
            "es_semantic" => self.es_semantic = Some(PathBuf::from(value.trim())).filter(|v| !v.as_os_str().is_empty()),
            "es_k" => self.es_k = num(value)?,
            "es_max_repairs" => self.es_max_repairs = num(value)?,
            "es_generation" => self.es_generation = value.parse::<Generation>().or_else(|e| boolean(value).map(Generation::from).map_err(|_| e))?,
            "store" => self.store = Some(value.trim().to_string()).filter(|v| !v.is_empty()),
            "store_ca_cert" => self.store_ca_cert = Some(PathBuf::from(value.trim())).filter(|v| !v.as_os_str().is_empty()),
            "store_timeout_ms" => self.store_timeout_ms = num(value)?,
            "reiterate" => self.reiterate = value.parse::<Generation>().or_else(|e| boolean(value).map(Generation::from).map_err(|_| e))?,
            _ => return Err(format!("unknown setting '{key}'")),
        }
        Ok(())
    }

    /// Apply a flag whose text the settings parse (an enum's name: `--llm`, `--graph-store`),
    /// without validating. Typed flags go through [`flag!`] with no text round trip. A command
    /// applies all of its flags, then validates once ([`Settings::validate`]), so two settings
    /// that are only valid together are never judged half-applied.
    pub fn set_flag(&mut self, key: &'static str, value: &str) -> Result<()> {
        self.set(key, value).map_err(|e| QaError::Config(format!("--{}: {e}", key.replace('_', "-"))))?;
        self.origins.insert(key, Origin::Flag);
        Ok(())
    }

    /// Record that `key` was given as a flag (for [`flag!`]).
    pub fn mark_flag(&mut self, key: &'static str) {
        debug_assert!(KEYS.contains(&key), "{key} is not a setting");
        self.origins.insert(key, Origin::Flag);
    }


    /// Sources the user has but did not name: with no search index set, the only embedded index
    /// under the data folder is the router's ES source (with several, none is picked and the
    /// returned note says how to choose).
    pub fn discover_sources(&mut self) -> Option<String> {
        if self.es.is_some() {
            return None;
        }
        let indexes = qa_es::embedded::EmbeddedIndex::list(&self.data_dir).ok()?;
        match indexes.as_slice() {
            [one] => {
                self.es = Some(one.name.clone());
                self.origins.insert("es", Origin::Discovered);
                None
            }
            [] => None,
            many => Some(format!(
                "{} embedded search indexes in the data folder ({}): the router uses one named with --es NAME, QA_ES or `es` in qa.toml",
                many.len(),
                many.iter().map(|i| i.name.as_str()).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Where `key`'s value came from.
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).copied().unwrap_or(Origin::Default)
    }

    /// Check the settings together; an error names each setting involved and where its value
    /// came from.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(QaError::Config(m));
        if self.top_k == 0 || self.top_k > 100 {
            return bad(format!("top_k must be between 1 and 100 (got {})", self.top_k));
        }
        if self.chunk_tokens < 32 {
            return bad(format!("chunk_tokens must be at least 32 (got {})", self.chunk_tokens));
        }
        if self.chunk_overlap >= self.chunk_tokens / 2 {
            return bad(format!(
                "chunk_overlap ({}, {}) must be less than half of chunk_tokens ({}, {})",
                self.chunk_overlap,
                self.origin("chunk_overlap").source("chunk_overlap"),
                self.chunk_tokens,
                self.origin("chunk_tokens").source("chunk_tokens")
            ));
        }
        if self.batch_size == 0 {
            return bad("batch_size must be at least 1".into());
        }
        if !(2..=200).contains(&self.hnsw_m) {
            return bad(format!("hnsw_m must be between 2 and 200 (got {})", self.hnsw_m));
        }
        if !(-1.0..=1.0).contains(&self.relevance_threshold) {
            return bad("relevance_threshold must be between -1 and 1".into());
        }
        if !(0.0..=2.0).contains(&self.evidence_threshold) {
            return bad(format!("evidence_threshold must be between 0 (no check) and 2 (got {})", self.evidence_threshold));
        }
        if !(self.llm_timeout_secs > 0.0 && self.llm_timeout_secs <= 3600.0) {
            return bad(format!("llm_timeout_secs must be between 0 and 3600 (got {})", self.llm_timeout_secs));
        }
        if self.llm_max_tokens == 0 || self.llm_max_tokens > 8192 {
            return bad(format!("llm_max_tokens must be between 1 and 8192 (got {})", self.llm_max_tokens));
        }
        if self.llm_prompt_tokens < 256 {
            return bad(format!("llm_prompt_tokens must be at least 256 (got {})", self.llm_prompt_tokens));
        }
        if !(0.0..=1.0).contains(&self.grounding_threshold) || !(0.0..=1.0).contains(&self.grounding_min_supported) {
            return bad("grounding_threshold and grounding_min_supported must be between 0 and 1".into());
        }
        if self.sql_row_cap == 0 || self.sql_row_cap > 100_000 {
            return bad(format!("sql_row_cap must be between 1 and 100000 (got {})", self.sql_row_cap));
        }
        if self.sql_timeout_ms == 0 {
            return bad("sql_timeout_ms must be at least 1".to_string());
        }
        if self.sql_max_loops == 0 {
            return bad("sql_max_loops must be at least 1".to_string());
        }
        self.validate_es()?;
        if self.graph_store == GraphStoreChoice::Neo4j && self.neo4j_uri.is_none() {
            return bad("graph_store is neo4j but no neo4j_uri is set (QA_NEO4J_URI, e.g. bolt://localhost:7687)".into());
        }
        if !(self.graph_timeout_secs > 0.0 && self.graph_timeout_secs <= 3600.0) {
            return bad(format!("graph_timeout_secs must be between 0 and 3600 (got {})", self.graph_timeout_secs));
        }
        if self.graph_row_cap == 0 || self.graph_row_cap > 100_000 {
            return bad(format!("graph_row_cap must be between 1 and 100000 (got {})", self.graph_row_cap));
        }
        Ok(())
    }

    fn validate_es(&self) -> Result<()> {
        let bad = |m: String| Err(QaError::Config(m));
        if self.es_row_cap == 0 || self.es_row_cap > 10_000 {
            return bad(format!("es_row_cap must be between 1 and 10000 (got {})", self.es_row_cap));
        }
        if self.es_page_size == 0 || self.es_page_size > self.es_row_cap {
            return bad(format!("es_page_size must be between 1 and es_row_cap ({}) (got {})", self.es_row_cap, self.es_page_size));
        }
        if self.store_timeout_ms == 0 || self.store_timeout_ms > 3_600_000 {
            return bad(format!("store_timeout_ms must be between 1 and 3600000 (got {})", self.store_timeout_ms));
        }
        if let Some(url) = &self.store
            && let Err(e) = qa_es::remote::RemoteConfig::from_url(url)
        {
            return bad(format!("store: {e}"));
        }
        if self.es_timeout_ms == 0 || self.es_timeout_ms > 3_600_000 {
            return bad(format!("es_timeout_ms must be between 1 and 3600000 (got {})", self.es_timeout_ms));
        }
        if self.es_max_buckets == 0 || self.es_max_buckets > 65_536 {
            return bad(format!("es_max_buckets must be between 1 and 65536 (got {})", self.es_max_buckets));
        }
        if self.es_k > 10 || self.es_max_repairs > 5 {
            return bad(format!("es_k must be at most 10 and es_max_repairs at most 5 (got {} and {})", self.es_k, self.es_max_repairs));
        }
        if self.es_retries > 10 {
            return bad(format!("es_retries must be at most 10 (got {})", self.es_retries));
        }
        if let Some(EsTarget::Embedded(name)) = self.es_target()
            && !valid_index_name(&name)
        {
            return bad(format!(
                "es: {name:?} is neither a URL (http(s)://host:port/INDEX) nor an index name (letters, digits, '-', '_', '.', starting with a letter or digit)"
            ));
        }
        Ok(())
    }

    /// Where the ES path's index is, from the `es` setting; `None` when it is not set.
    pub fn es_target(&self) -> Option<EsTarget> {
        self.es.as_deref().map(EsTarget::parse)
    }

    /// How to reach the configured index; `None` when no index is set.
    pub fn es_connection(&self) -> Option<qa_es::connect::EsConnection> {
        Some(qa_es::connect::EsConnection {
            target: self.es_target()?,
            data_dir: self.data_dir.clone(),
            api_key: self.es_api_key.clone(),
            username: self.es_username.clone(),
            password: self.es_password.clone(),
            ca_cert: self.es_ca_cert.clone(),
            timeout_ms: self.es_timeout_ms,
            retries: self.es_retries,
            max_buckets: self.es_max_buckets,
        })
    }

    /// The ES run's settings (the per-question fields are set per call).
    pub fn es_options(&self) -> qa_es::run::EsOptions {
        qa_es::run::EsOptions {
            limits: self.es_limits(),
            page_size: self.es_page_size,
            k: self.es_k,
            max_repairs: self.es_max_repairs,
            semantic: self.es_semantic.clone(),
            ..qa_es::run::EsOptions::default()
        }
    }

    /// When the ES path may use the LLM.
    pub fn es_llm(&self) -> qa_es::source::EsLlm {
        qa_es::source::EsLlm { settings: self.llm_settings(), generation: self.es_generation, reiterate: self.reiterate }
    }

    /// The SQL agent's settings.
    pub fn sql_agent_options(&self) -> qa_sql::agent::AgentOptions {
        qa_sql::agent::AgentOptions {
            k: self.sql_k,
            max_loops: self.sql_max_loops,
            limits: qa_sql::ExecLimits { row_cap: self.sql_row_cap, timeout_ms: self.sql_timeout_ms },
            semantic_schema: self.sql_semantic_schema.clone(),
            sample_values: qa_sql::db::MAX_SAMPLED_DISTINCT,
            use_llm: true,
            force: false,
        }
    }

    /// When the SQL path may use the LLM.
    pub fn sql_llm(&self) -> qa_sql::source::SqlLlm {
        qa_sql::source::SqlLlm { settings: self.llm_settings(), generation: self.sql_generation }
    }

    /// The caps every ES request is checked against.
    pub fn es_limits(&self) -> qa_es::EsLimits {
        qa_es::EsLimits { row_cap: self.es_row_cap, max_buckets: self.es_max_buckets, timeout_ms: self.es_timeout_ms, ..qa_es::EsLimits::default() }
    }

    /// The graph store `auto` resolves to.
    pub fn effective_graph_store(&self) -> GraphBackend {
        match self.graph_store {
            GraphStoreChoice::Auto if self.neo4j_uri.is_some() => GraphBackend::Neo4j,
            GraphStoreChoice::Auto | GraphStoreChoice::Embedded => GraphBackend::Embedded,
            GraphStoreChoice::Neo4j => GraphBackend::Neo4j,
        }
    }

    /// Folder of the configured embedding model.
    pub fn embedding_model_dir(&self) -> PathBuf {
        let as_path = PathBuf::from(&self.embedding_model);
        if as_path.is_absolute() || self.embedding_model.contains('/') {
            as_path
        } else {
            self.models_dir.join(&self.embedding_model)
        }
    }

    /// Load the configured embedding model.
    pub fn load_embedder(&self) -> Result<Box<dyn qa_embed::Embedder>> {
        let e = qa_embed::BertEmbedder::load_with_precision(&self.embedding_model_dir(), self.chunk_tokens.max(256), self.batch_size, self.embed_precision)?;
        Ok(Box::new(e))
    }

    /// The selected corpus and its live index generation (where the embedded graph store lives).
    pub fn live_generation(&self) -> Result<(qa_index::index_store::CorpusDir, PathBuf)> {
        let cd = qa_query::ask::resolve_corpus(&self.vector_dir(), self.corpus.as_deref())?;
        let gen_dir = cd.current().ok_or_else(|| QaError::IndexMissing { corpus: cd.name.clone(), dir: self.vector_dir() })?;
        Ok((cd, gen_dir))
    }

    /// Open the configured graph store; the embedded one needs an indexed corpus.
    pub fn open_graph_store(&self) -> Result<Box<dyn qa_graph::GraphStore>> {
        let gen_dir = match self.effective_graph_store() {
            GraphBackend::Neo4j => PathBuf::new(),
            GraphBackend::Embedded => self.live_generation()?.1,
        };
        qa_graph::store::open_store(&self.graph_store_config(), &gen_dir)
    }

    /// Load a corpus's KG JSONL into the external store (idempotent MERGEs, so also when the
    /// index was up to date); a failure is reported in the result, the index stands.
    pub fn load_graph_externally(&self, kg_file: &str) -> qa_query::build::ExternalIngest {
        let t = std::time::Instant::now();
        let mut out = qa_query::build::ExternalIngest { backend: "neo4j".into(), target: self.neo4j_uri.clone().unwrap_or_default(), ..Default::default() };
        let result = qa_graph::kg::read_kg_jsonl(Path::new(kg_file))
            .and_then(|(docs, _)| qa_graph::load::load_documents(&self.graph_store_config(), None, &docs))
            .map(|loaded| loaded.stats);
        match result {
            Ok(stats) => out.stats = Some(stats),
            Err(e) => out.error = Some(format!("{e} (the index is complete; load the graph later with `qa graph ingest {kg_file}`)")),
        }
        out.ms = t.elapsed().as_secs_f64() * 1000.0;
        out
    }

    /// Where index generations live.
    pub fn vector_dir(&self) -> PathBuf {
        self.data_dir.join("vector_store_outputs")
    }
    /// Where chunk files live.
    pub fn chunk_dir(&self) -> PathBuf {
        self.data_dir.join("chunking_outputs")
    }
    /// Where logs and traces live.
    pub fn log_dir(&self) -> PathBuf {
        self.data_dir.join("logs")
    }
    /// The JSONL trace every run appends to.
    pub fn trace_file(&self) -> PathBuf {
        self.log_dir().join("query_traces.jsonl")
    }

    /// Effective threads for compute (0 = all available cores).
    pub fn effective_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        }
    }

    /// What the LLM selection needs (`qa_llm::choose`, `qa_llm::open`).
    pub fn llm_settings(&self) -> LlmSettings {
        LlmSettings {
            provider: self.llm_provider,
            model: self.llm_model.clone(),
            base_url: self.llm_base_url.clone(),
            api_key: self.llm_api_key.clone(),
            models_dir: self.models_dir.clone(),
            weights: self.llm_weights,
            cores: self.effective_threads(),
            prefill_threads: self.llm_threads,
            decode_threads: self.llm_decode_threads,
            context: self.llm_context,
            timeout_secs: self.llm_timeout_secs,
            max_retries: self.llm_max_retries,
        }
    }

    /// Which graph store to open and how.
    pub fn graph_store_config(&self) -> StoreConfig {
        StoreConfig {
            backend: self.effective_graph_store(),
            row_cap: self.graph_row_cap,
            timeout_secs: self.graph_timeout_secs,
            neo4j_uri: self.neo4j_uri.clone(),
            neo4j_username: self.neo4j_username.clone(),
            neo4j_password: self.neo4j_password.clone(),
            neo4j_database: self.neo4j_database.clone(),
        }
    }

    /// What `qa index` needs.
    pub fn index_settings(&self) -> IndexSettings {
        IndexSettings {
            vector_dir: self.vector_dir(),
            chunk_dir: self.chunk_dir(),
            chunk_tokens: self.chunk_tokens,
            chunk_overlap: self.chunk_overlap,
            hnsw: HnswParams { m: self.hnsw_m, ef_construction: self.hnsw_ef_construction, ef_search: self.hnsw_ef_search },
            min_concept_df: self.min_concept_df,
            min_related_weight: self.min_related_weight,
        }
    }

    /// What `qa ask` needs. `top_k` fixes k only when the user set it (else k is chosen per
    /// question).
    pub fn engine_settings(&self) -> EngineSettings {
        EngineSettings {
            vector_dir: self.vector_dir(),
            chunk_dir: self.chunk_dir(),
            corpus: self.corpus.clone(),
            hnsw_ef_search: self.hnsw_ef_search,
            vector_index: self.vector_index,
            graph: self.graph_store_config(),
            llm: self.llm_settings(),
            fixed_k: (self.origin("top_k") != Origin::Default).then_some(self.top_k),
            llm_subqueries: self.llm_subqueries,
            cypher_generation: self.cypher_generation,
            llm_answerability: self.llm_answerability,
            relevance_threshold: self.relevance_threshold,
            evidence_threshold: self.evidence_threshold,
            store: self.store_opener(),
            llm_prompt_tokens: self.llm_prompt_tokens,
            llm_max_tokens: self.llm_max_tokens,
            grounding_threshold: self.grounding_threshold,
            grounding_min_supported: self.grounding_min_supported,
        }
    }
}
