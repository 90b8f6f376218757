//! `qa bench`: index a real corpus (default: the Rust book shipped with the toolchain) and
//! measure what BENCHMARKS.md records — index time split by stage, embedding throughput, HNSW
//! build, warm retrieval latency, HNSW recall@10 against exact search, the graph store and the
//! Cypher validator, cold `qa ask` wall time and peak RSS, and the local LLM. Figures are
//! returned (the CLI prints them), never asserted: speed targets do not belong in tests.

use std::path::{Path, PathBuf};
use std::process::{Command as Proc, Stdio};
use std::time::Instant;

use serde_json::json;

use qa_core::error::QaError;
use qa_core::progress::Progress;
use qa_core::stats::percentile;
use qa_index::vector::{ExactIndex, VectorIndex};
use qa_query::ask::Engine;
use qa_query::build::{self, IndexOptions};
use qa_settings::Settings;

pub mod report;

/// Why a benchmark stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A stage of qa failed.
    #[error(transparent)]
    Qa(#[from] QaError),
    /// The LLM failed.
    #[error(transparent)]
    Llm(#[from] qa_llm::LlmError),
    /// A step of the harness failed (a file, a child process), with what it was doing.
    #[error("{0}")]
    Step(String),
}

impl BenchError {
    fn step(what: impl std::fmt::Display, e: impl std::fmt::Display) -> BenchError {
        BenchError::Step(format!("{what}: {e}"))
    }

    fn msg(m: String) -> BenchError {
        BenchError::Step(m)
    }
}

type Result<T> = std::result::Result<T, BenchError>;

/// What to measure besides the defaults.
pub struct BenchOptions {
    /// Reuse the index already in `out` instead of a full rebuild.
    pub skip_index: bool,
    /// Cold `qa ask` processes to time.
    pub cold_runs: usize,
    /// Measure the local LLM too.
    pub with_llm: bool,
    /// Questions answered with the local LLM.
    pub llm_questions: usize,
    /// Also time the re-index after one file of the corpus is edited (the corpus must be a
    /// copy the bench may write: [`toolchain_docs`] makes one).
    pub edit_one: bool,
}

/// Run every measurement on `corpus` with `questions`, indexing into `settings.data_dir` under
/// the corpus name `bench`. `say` hears each stage; `progress` the indexing.
pub fn run(settings: &Settings, corpus: &Path, questions: &[String], o: &BenchOptions, progress: &dyn Progress, say: &dyn Fn(&str)) -> Result<serde_json::Value> {
    let corpus_name = settings.corpus.as_deref().unwrap_or("bench");
    let out = settings.data_dir.clone();
    let mut report = serde_json::Map::new();
    report.insert("corpus".into(), json!(corpus.display().to_string()));
    report.insert("threads".into(), json!(settings.effective_threads()));
    report.insert("cpu".into(), json!(cpu_model()));
    report.insert("date".into(), json!(chrono::Utc::now().format("%Y-%m-%d").to_string()));
    if !o.skip_index {
        say(&format!("indexing {} (full rebuild) ...", corpus.display()));
        let mut index = bench_index(settings, corpus, corpus_name, progress)?;
        index["peak_rss_mib"] = json!(vm_hwm_kib() as f64 / 1024.0);
        report.insert("index".into(), index);
    }
    if let Some(index) = report.get_mut("index") {
        let gen_dir = qa_index::index_store::CorpusDir::new(&settings.vector_dir(), corpus_name).current().ok_or_else(|| BenchError::msg("no live generation".into()))?;
        let generation = dir_bytes(&gen_dir);
        let contracts: u64 = ["chunks.jsonl", "kg.jsonl"].iter().map(|f| std::fs::metadata(settings.chunk_dir().join(format!("{corpus_name}_{f}"))).map(|m| m.len()).unwrap_or(0)).sum();
        index["generation_bytes"] = json!(generation);
        index["contract_bytes"] = json!(contracts);
        index["bytes_on_disk"] = json!(generation + contracts);
    }
    say("loading the index and measuring warm retrieval ...");
    let t = Instant::now();
    let mut engine = Engine::open(&settings.engine_settings(), || settings.load_embedder())?;
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    let (retrieval, gen_dir) = bench_retrieval(&engine, settings, corpus_name, questions, open_ms)?;
    report.insert("retrieval".into(), retrieval);
    report.insert("warm_ask".into(), bench_warm_ask(&mut engine, questions)?);
    let warm_rss = vm_hwm_kib();
    drop(engine);
    say("measuring the graph store and the Cypher validator ...");
    report.insert("graph".into(), bench_graph(settings, &gen_dir, questions)?);
    say(&format!("timing {} cold `qa ask` runs ...", o.cold_runs));
    report.insert("cold_ask".into(), bench_cold_ask(&out, settings, corpus_name, questions, o.cold_runs)?);
    report.insert("peak_rss_mib_bench_process".into(), json!(warm_rss as f64 / 1024.0));
    if o.with_llm {
        report.insert("llm".into(), bench_llm(settings, questions, corpus_name, &out, o.llm_questions, say)?);
    }
    if o.edit_one {
        say("editing one file and re-indexing ...");
        let full_ms = report.get("index").and_then(|i| i["total_ms"].as_f64());
        report.insert("edit".into(), bench_edit(settings, corpus, corpus_name, full_ms, progress)?);
    }
    Ok(serde_json::Value::Object(report))
}

/// A corpus from the toolchain's documentation, copied under `out/corpus/NAME` (the bench may
/// edit the copy): `book` (the Rust book's `ch*.html`) or `std` (every page of the standard
/// library's API docs, about 2,500 files).
pub fn toolchain_docs(out: &Path, name: &str) -> Result<PathBuf> {
    match name {
        "book" => rust_book_corpus(out),
        "std" => {
            let std_docs = sysroot()?.join("share/doc/rust/html/std");
            if !std_docs.is_dir() {
                return Err(BenchError::msg(format!("the std docs are not installed at {} (rustup component add rust-docs)", std_docs.display())));
            }
            let dest = out.join("corpus").join("std");
            let mut n = 0;
            for e in walkdir::WalkDir::new(&std_docs).into_iter().filter_map(|e| e.ok()).filter(|e| e.file_type().is_file()) {
                if e.path().extension().is_some_and(|x| x == "html") {
                    let rel = e.path().strip_prefix(&std_docs).map_err(|e| BenchError::step("walking the std docs", e))?;
                    let target = dest.join(rel);
                    if !target.exists() {
                        if let Some(parent) = target.parent() {
                            std::fs::create_dir_all(parent).map_err(|e| BenchError::step(format!("creating {}", parent.display()), e))?;
                        }
                        std::fs::copy(e.path(), &target).map_err(|e| BenchError::step(format!("copying {}", rel.display()), e))?;
                    }
                    n += 1;
                }
            }
            if n == 0 {
                return Err(BenchError::msg(format!("no .html files in {}", std_docs.display())));
            }
            Ok(dest)
        }
        other => Err(BenchError::msg(format!("unknown corpus {other:?}: `book`, `std` or a folder"))),
    }
}

fn sysroot() -> Result<PathBuf> {
    let out = Proc::new("rustc").args(["--print", "sysroot"]).output().map_err(|e| BenchError::step("running `rustc --print sysroot`", e))?;
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Bytes of the files under `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir).into_iter().filter_map(|e| e.ok()).filter_map(|e| e.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum()
}

/// One file of the corpus edited (a paragraph appended to the middle file in name order), the
/// corpus indexed again as `qa index` would (unchanged chunks keep their embeddings), the file
/// restored. The index then holds the edit until the next run.
fn bench_edit(settings: &Settings, corpus: &Path, corpus_name: &str, full_ms: Option<f64>, progress: &dyn Progress) -> Result<serde_json::Value> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(corpus)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "html" || x == "md" || x == "txt"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let file = files.get(files.len() / 2).cloned().ok_or_else(|| BenchError::msg(format!("no document under {}", corpus.display())))?;
    let original = std::fs::read_to_string(&file).map_err(|e| BenchError::step(format!("reading {}", file.display()), e))?;
    let paragraph = "A paragraph added by `qa bench` to time the re-index of one edited file: the edit touches this document only.";
    // The paragraph must land in the indexed text (an HTML page's navigation, sidebar and footer
    // are left out): after the first closing `</p>` whose insertion the loader keeps, else at
    // the end of a text file.
    let with_paragraph = |at: usize| format!("{}<p>{paragraph}</p>{}", &original[..at], &original[at..]);
    let lands = |text: &str| {
        std::fs::write(&file, text).is_ok() && qa_index::corpus::load_file(corpus, &file, &mut Default::default()).is_some_and(|d| d.text_contains(paragraph))
    };
    let edited = original
        .match_indices("</p>")
        .map(|(i, _)| with_paragraph(i + 4))
        .find(|text| lands(text))
        .unwrap_or_else(|| format!("{original}\n\n{paragraph}\n"));
    std::fs::write(&file, edited).map_err(|e| BenchError::step(format!("editing {}", file.display()), e))?;
    let embedder = settings.load_embedder();
    let run = embedder.map_err(BenchError::from).and_then(|embedder| {
        let opts = IndexOptions { root: corpus.to_path_buf(), name: Some(corpus_name.into()), rebuild: false };
        Ok(build::run_index(&settings.index_settings(), embedder.as_ref(), &opts, None, progress)?)
    });
    std::fs::write(&file, original).map_err(|e| BenchError::step(format!("restoring {}", file.display()), e))?;
    let s = run?;
    let t = &s.timings;
    Ok(json!({
        "file": file.strip_prefix(corpus).unwrap_or(&file).display().to_string(),
        "embedded": s.embedded,
        "total_ms": t.total_ms,
        "percent_of_full": full_ms.map(|f| 100.0 * t.total_ms / f.max(1e-9)),
        "parse_ms": t.parse_ms,
        "chunk_ms": t.chunk_ms,
        "embed_ms": t.embed_ms,
        "hnsw_ms": t.hnsw_ms,
        "hnsw_updated": s.hnsw_updated,
        "graph_ms": t.graph_ms,
        "graph_store_ms": t.graph_store_ms,
        "graph_updated": s.graph_updated,
        "lexical_ms": t.lexical_ms,
        "write_ms": t.write_ms,
    }))
}

/// The Rust book's chapters (shipped with the toolchain) copied under `out/corpus/rust-book`.
pub fn rust_book_corpus(out: &Path) -> Result<PathBuf> {
    let sysroot = Proc::new("rustc").args(["--print", "sysroot"]).output().map_err(|e| BenchError::step("running `rustc --print sysroot`", e))?;
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
    let book = Path::new(&sysroot).join("share/doc/rust/html/book");
    if !book.is_dir() {
        return Err(BenchError::msg(format!("the Rust book is not installed at {} (rustup component add rust-docs), or pass --corpus", book.display())));
    }
    let dest = out.join("corpus").join("rust-book");
    std::fs::create_dir_all(&dest).map_err(|e| BenchError::step(format!("creating {}", dest.display()), e))?;
    let mut n = 0;
    for e in std::fs::read_dir(&book).map_err(|e| BenchError::step(format!("reading {}", book.display()), e))? {
        let e = e.map_err(|e| BenchError::step(format!("reading {}", book.display()), e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("ch") && name.ends_with(".html") {
            let target = dest.join(&name);
            if !target.exists() {
                std::fs::copy(e.path(), &target).map_err(|e| BenchError::step(format!("copying {name}"), e))?;
            }
            n += 1;
        }
    }
    if n == 0 {
        return Err(BenchError::msg(format!("no ch*.html files in {}", book.display())));
    }
    Ok(dest)
}

/// The process's peak resident set (KiB), from /proc (0 where there is none).
pub fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

/// Peak RSS a `qa` child reported on stderr (`QA_REPORT_PEAK_RSS`). getrusage(RUSAGE_CHILDREN)
/// is no use here: Linux carries the parent's high-water mark into a forked child.
fn reported_rss_kib(stderr: &[u8]) -> Option<u64> {
    String::from_utf8_lossy(stderr).lines().find_map(|l| l.strip_prefix("qa-peak-rss-kib ")?.trim().parse().ok())
}

/// The benchmark questions: one per line, blank lines and `#` comments skipped; at least one.
pub fn read_questions(path: &Path) -> Result<Vec<String>> {
    let questions: Vec<String> = std::fs::read_to_string(path)
        .map_err(|e| BenchError::step(format!("reading questions from {}", path.display()), e))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    if questions.is_empty() {
        return Err(BenchError::msg(format!("{} has no questions", path.display())));
    }
    Ok(questions)
}

/// A full rebuild of the corpus index: counts, model load and per-stage times, embedding
/// throughput.
fn bench_index(settings: &Settings, corpus: &Path, corpus_name: &str, progress: &dyn Progress) -> Result<serde_json::Value> {
    let threads = settings.effective_threads();
    let t = Instant::now();
    let embedder = settings.load_embedder()?;
    let model_load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let opts = IndexOptions { root: corpus.to_path_buf(), name: Some(corpus_name.into()), rebuild: true };
    let s = build::run_index(&settings.index_settings(), embedder.as_ref(), &opts, None, progress)?;
    let embed_s = s.timings.embed_ms / 1000.0;
    Ok(json!({
        "files": s.files_loaded,
        "chunks": s.chunks,
        "embed_tokens": s.embed_tokens,
        "concepts": s.concepts,
        "relationships": s.relationships,
        "model_load_ms": model_load_ms,
        "parse_ms": s.timings.parse_ms,
        "chunk_ms": s.timings.chunk_ms,
        "embed_ms": s.timings.embed_ms,
        "hnsw_build_ms": s.timings.hnsw_ms,
        "graph_ms": s.timings.graph_ms,
        "graph_store_ms": s.timings.graph_store_ms,
        "write_ms": s.timings.write_ms,
        "total_ms": s.timings.total_ms,
        "embed_chunks_per_s": s.embedded as f64 / embed_s.max(1e-9),
        "embed_tokens_per_s": s.embed_tokens as f64 / embed_s.max(1e-9),
        "embed_tokens_per_s_per_core": s.embed_tokens as f64 / embed_s.max(1e-9) / threads as f64,
        "mean_tokens_per_chunk": s.embed_tokens as f64 / s.embedded.max(1) as f64,
    }))
}

/// Warm retrieval latency (whole retrieval, and the HNSW search alone) per question, then HNSW
/// recall@10 against exact search. Returns the section and the live generation's directory.
fn bench_retrieval(engine: &Engine, settings: &Settings, corpus_name: &str, questions: &[String], open_ms: f64) -> Result<(serde_json::Value, PathBuf)> {
    let _ = engine.retrieve(&questions[0])?; // warm-up
    let mut total = Vec::new();
    let mut search_only = Vec::new();
    let mut qvecs = Vec::new();
    for q in questions {
        let t = Instant::now();
        let (_, vecs) = engine.retrieve(q)?;
        total.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let _ = engine.index().search(&vecs[0], settings.top_k);
        search_only.push(t.elapsed().as_secs_f64() * 1000.0);
        qvecs.push(vecs[0].clone());
    }
    total.sort_by(f64::total_cmp);
    search_only.sort_by(f64::total_cmp);

    let gen_dir = qa_index::index_store::CorpusDir::new(&settings.vector_dir(), corpus_name).current().ok_or_else(|| BenchError::msg("no live generation".into()))?;
    let (recall, recall_tied, recall_queries) = hnsw_recall(engine, &gen_dir, &qvecs)?;
    let section = json!({
        "questions": questions.len(),
        "index_open_ms": open_ms,
        "warm_retrieve_p50_ms": percentile(&total, 50),
        "warm_retrieve_p95_ms": percentile(&total, 95),
        "hnsw_search_p50_ms": percentile(&search_only, 50),
        "hnsw_search_p95_ms": percentile(&search_only, 95),
        "recall_at_10": recall,
        "recall_at_10_ties": recall_tied,
        "recall_queries": recall_queries,
        "ef_search": settings.hnsw_ef_search,
        "hnsw_m": settings.hnsw_m,
    });
    Ok((section, gen_dir))
}

/// Recall@10 of HNSW against exact search, with the question vectors plus up to 200 chunk
/// vectors as queries: (recall by row, recall counting a row as tied with the 10th exact
/// similarity as found, number of queries).
fn hnsw_recall(engine: &Engine, gen_dir: &Path, qvecs: &[Vec<f32>]) -> Result<(f64, f64, usize)> {
    let (vectors, _) = qa_index::vector::read_vectors(&gen_dir.join(qa_index::index_store::VECTORS_FILE))?;
    let exact = ExactIndex { vectors: &vectors };
    let step = (vectors.len() / 200).max(1);
    let queries: Vec<&Vec<f32>> = qvecs.iter().chain(vectors.iter().step_by(step).take(200)).collect();
    let (mut hits, mut tied, mut wanted) = (0usize, 0usize, 0usize);
    for q in &queries {
        let truth = exact.search(q, 10);
        let got = engine.index().search(q, 10);
        wanted += truth.len();
        hits += got.iter().filter(|g| truth.iter().any(|t| t.0 == g.0)).count();
        // A corpus with identical passages (generated API docs repeat whole sections) has ties
        // at the 10th place: any of the tied rows is a correct answer.
        let tenth = truth.last().map_or(f32::MIN, |t| t.1);
        tied += got.iter().filter(|g| g.1 >= tenth - 1e-6).count().min(truth.len());
    }
    Ok((hits as f64 / wanted.max(1) as f64, tied as f64 / wanted.max(1) as f64, queries.len()))
}

/// The whole answer path in a warm process (retrieval, graph evidence, synthesis): total and
/// per-stage latency.
fn bench_warm_ask(engine: &mut Engine, questions: &[String]) -> Result<serde_json::Value> {
    let mut asks = Vec::new();
    let mut stages = [Vec::new(), Vec::new(), Vec::new()];
    for q in questions {
        let t = Instant::now();
        let r = engine.ask(q)?;
        asks.push(t.elapsed().as_secs_f64() * 1000.0);
        stages[0].push(r.trace.latency_ms.rag);
        stages[1].push(r.trace.latency_ms.graph);
        stages[2].push(r.trace.latency_ms.synthesis);
    }
    asks.sort_by(f64::total_cmp);
    for st in stages.iter_mut() {
        st.sort_by(f64::total_cmp);
    }
    Ok(json!({
        "p50_ms": percentile(&asks, 50),
        "p95_ms": percentile(&asks, 95),
        "rag_p50_ms": percentile(&stages[0], 50),
        "graph_p50_ms": percentile(&stages[1], 50),
        "synthesis_p50_ms": percentile(&stages[2], 50),
    }))
}

/// `runs` cold `qa ask` processes without an LLM, cycling through the questions: wall time and
/// the children's peak RSS.
fn bench_cold_ask(out: &Path, settings: &Settings, corpus_name: &str, questions: &[String], runs: usize) -> Result<serde_json::Value> {
    let exe = std::env::current_exe().map_err(|e| BenchError::step("locating the qa binary", e))?;
    let mut cold = Vec::new();
    let mut cold_rss = 0u64;
    for i in 0..runs {
        let q = &questions[i % questions.len()];
        let (ms, rss) = cold_ask(&exe, out, settings, corpus_name, "none", q)?;
        cold.push(ms);
        cold_rss = cold_rss.max(rss);
    }
    cold.sort_by(f64::total_cmp);
    Ok(json!({"runs": cold.len(), "median_ms": percentile(&cold, 50), "p95_ms": percentile(&cold, 95), "min_ms": cold.first(), "max_ms": cold.last(), "peak_rss_mib": cold_rss as f64 / 1024.0}))
}

/// Graph figures on the bench generation: schema introspection, entity-index search, an
/// idempotent re-ingest of the whole KG (on a copy), and the Cypher validator over the query
/// corpora in `tests/data/cypher/` (when run from the repository).
fn bench_graph(settings: &Settings, gen_dir: &Path, questions: &[String]) -> Result<serde_json::Value> {
    use qa_graph::{EmbeddedGraph, GraphStore};
    let copy = settings.data_dir.join("graph_bench_copy.db");
    let _ = std::fs::remove_file(&copy);
    std::fs::copy(gen_dir.join("graph.db"), &copy).map_err(|e| BenchError::step(format!("copying {}", gen_dir.join("graph.db").display()), e))?;
    let mut g = EmbeddedGraph::open(&copy, settings.graph_row_cap)?;
    let t = Instant::now();
    let schema = g.schema()?;
    let schema_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut search = Vec::new();
    for q in questions {
        let t = Instant::now();
        let _ = g.search_entities(q, 12)?;
        search.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    search.sort_by(f64::total_cmp);
    let kg_file = settings.chunk_dir().join("bench_kg.jsonl");
    let (docs, _) = qa_graph::kg::read_kg_jsonl(&kg_file)?;
    let t = Instant::now();
    let again = g.ingest(&docs)?;
    let reingest_ms = t.elapsed().as_secs_f64() * 1000.0;
    drop(g);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
    }

    let mut queries = Vec::new();
    for name in ["hostile", "benign"] {
        if let Ok(text) = std::fs::read_to_string(format!("tests/data/cypher/{name}.txt")) {
            queries.extend(qa_graph::cypher::corpus_queries(&text));
        }
    }
    let cypher_schema = qa_graph::generate::to_cypher_schema(&schema);
    let policy = qa_graph::cypher::Policy { row_cap: settings.graph_row_cap as u64, extra_procedures: vec![] };
    let rounds = 20;
    let t = Instant::now();
    let mut accepted = 0;
    for _ in 0..rounds {
        accepted = queries.iter().filter(|q| qa_graph::cypher::check(q, Some(&cypher_schema), &policy).accepted).count();
    }
    let checks = (rounds * queries.len()).max(1);
    let check_us = t.elapsed().as_secs_f64() * 1e6 / checks as f64;
    Ok(json!({
        "labels": schema.labels.len(),
        "relationship_types": schema.relationship_types.len(),
        "property_keys": schema.property_keys.len(),
        "schema_ms": schema_ms,
        "entity_search_p50_ms": percentile(&search, 50),
        "entity_search_p95_ms": percentile(&search, 95),
        "reingest_documents": docs.len(),
        "reingest_ms": reingest_ms,
        "reingest_created": again.nodes + again.relationships,
        "validator_queries": queries.len(),
        "validator_accepted": accepted,
        "validator_us_per_query": check_us,
    }))
}

/// One `qa ask` in a new process: wall time (ms) and the child's peak RSS (KiB).
fn cold_ask(exe: &Path, out: &Path, settings: &Settings, corpus_name: &str, llm: &str, question: &str) -> Result<(f64, u64)> {
    let t = Instant::now();
    let output = Proc::new(exe)
        .arg("--data-dir")
        .arg(out)
        .arg("--models-dir")
        .arg(&settings.models_dir)
        .args(["--embedding-model", &settings.embedding_model, "--llm", llm, "-q", "ask", "--corpus", corpus_name, "--json", question])
        .env("QA_REPORT_PEAK_RSS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| BenchError::step("running qa ask", e))?;
    if !output.status.success() {
        return Err(BenchError::msg(format!("cold `qa ask` failed with {}: {}", output.status, String::from_utf8_lossy(&output.stderr))));
    }
    Ok((t.elapsed().as_secs_f64() * 1000.0, reported_rss_kib(&output.stderr).unwrap_or(0)))
}

/// The local LLM: prompt-processing and generation speed on an ~800-token prompt, then the whole
/// answer path with local subqueries and synthesis (warm, then cold processes with peak RSS).
fn bench_llm(settings: &Settings, questions: &[String], corpus_name: &str, out: &Path, llm_questions: usize, say: &dyn Fn(&str)) -> Result<serde_json::Value> {
    use qa_llm::{ChatMessage, ChatRequest, LlmChoice, OutputFormat};
    let mut settings = settings.clone();
    settings.llm_provider = qa_settings::LlmProvider::Local;
    let choice = qa_llm::choose(&settings.llm_settings())?;
    let LlmChoice::Local { path } = &choice else { return Err(BenchError::msg("the LLM benchmark needs a local GGUF model".into())) };
    say(&format!("loading {} ...", path.display()));
    let t = Instant::now();
    let mut llm = qa_llm::open(&settings.llm_settings(), &choice)?.ok_or_else(|| BenchError::msg("no local LLM".into()))?;
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    // ~800 prompt tokens of real prose from the indexed corpus, cut at whole chunks.
    let engine = Engine::open(&settings.engine_settings(), || settings.load_embedder())?;
    let mut passage = String::new();
    for c in engine.chunks() {
        if llm.count_tokens(&passage) >= 760 {
            break;
        }
        passage.push_str(c.content.trim());
        passage.push_str("\n\n");
    }
    drop(engine);
    let request = ChatRequest {
        messages: vec![ChatMessage::user(format!("{passage}\nSummarize the text above in detail."))],
        max_tokens: 64,
        format: OutputFormat::Text,
        stop: vec![],
        temperature: 0.0,
        purpose: "bench",
    };
    say("measuring prompt processing and generation ...");
    let _ = llm.chat(&request)?; // warm-up
    let mut runs = Vec::new();
    for _ in 0..3 {
        runs.push(llm.chat(&request)?);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let pp = median(runs.iter().filter_map(|r| r.prompt_tokens_per_s).collect());
    let tg = median(runs.iter().filter_map(|r| r.completion_tokens_per_s).collect());
    let speed = json!({
        "model": llm.model_id(),
        "load_ms": load_ms,
        "prompt_tokens": runs[0].usage.prompt,
        "completion_tokens": runs[0].usage.completion,
        "prompt_tokens_per_s": pp,
        "generation_tokens_per_s": tg,
        "prefill_threads": if settings.llm_threads == 0 { settings.effective_threads() } else { settings.llm_threads },
        "decode_threads": if settings.llm_decode_threads == 0 { settings.effective_threads() } else { settings.llm_decode_threads },
        "weights": settings.llm_weights,
    });
    drop(llm);

    let n = llm_questions.min(questions.len());
    say(&format!("answering {n} questions with the local LLM (warm) ..."));
    let mut engine = Engine::open(&settings.engine_settings(), || settings.load_embedder())?;
    engine.attach_llm();
    let (mut total, mut llm_ms) = (Vec::new(), Vec::new());
    let mut synthesizers: std::collections::BTreeMap<String, usize> = Default::default();
    let mut actions: std::collections::BTreeMap<String, usize> = Default::default();
    let mut subquery_sources: std::collections::BTreeMap<String, usize> = Default::default();
    let mut tokens = qa_core::evidence::TokenUsage::default();
    for q in &questions[..n] {
        let r = engine.ask(q)?;
        total.push(r.trace.latency_ms.total);
        llm_ms.push(r.trace.latency_ms.llm_calls);
        *synthesizers.entry(r.answer.synthesizer.clone()).or_default() += 1;
        let action = r.trace.answer_grounding.as_ref().and_then(|g| g["action"].as_str().map(String::from)).unwrap_or_else(|| "none".into());
        *actions.entry(action).or_default() += 1;
        let source = r.trace.internal.llm.as_ref().and_then(|l| l.subqueries["source"].as_str()).unwrap_or("none").to_string();
        *subquery_sources.entry(source).or_default() += 1;
        if let Some(u) = r.trace.token_usage {
            tokens.add(u);
        }
    }
    let warm_rss = vm_hwm_kib();
    drop(engine);
    total.sort_by(f64::total_cmp);
    llm_ms.sort_by(f64::total_cmp);

    say("timing 3 cold `qa --llm local ask` runs ...");
    let exe = std::env::current_exe().map_err(|e| BenchError::step("locating the qa binary", e))?;
    let mut cold = Vec::new();
    let mut cold_rss = 0u64;
    for q in questions.iter().take(3) {
        let (ms, rss) = cold_ask(&exe, out, &settings, corpus_name, "local", q)?;
        cold.push(ms);
        cold_rss = cold_rss.max(rss);
    }
    cold.sort_by(f64::total_cmp);
    Ok(json!({
        "speed": speed,
        "ask": {
            "questions": n,
            "p50_ms": percentile(&total, 50),
            "p95_ms": percentile(&total, 95),
            "llm_calls_p50_ms": percentile(&llm_ms, 50),
            "synthesizer": synthesizers,
            "grounding_action": actions,
            "subquery_source": subquery_sources,
            "tokens": tokens,
            "peak_rss_mib_bench_process": warm_rss as f64 / 1024.0,
        },
        "cold_ask": {"runs": cold.len(), "median_ms": percentile(&cold, 50), "peak_rss_mib": cold_rss as f64 / 1024.0},
    }))
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

