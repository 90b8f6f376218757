//! `qa index`: corpus → chunks → embeddings (reusing cached vectors by content hash) → HNSW,
//! knowledge graph → embedded graph store, all written as a new index generation that replaces
//! the previous one atomically.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use qa_index::chunk::{self, ChunkParams};
use qa_core::chunk::Chunk;
use qa_index::corpus::{self, LoadReport, SourceDoc};
use qa_embed::Embedder;
use qa_core::error::{IoContext, QaError, Result};
use qa_core::progress::Progress;
use qa_graph::walk::{self, EntityGraph};
use qa_graph::{EmbeddedGraph, GraphStore};
use qa_index::lexical;
use qa_graph::kg::llm_extract::{ExtractionCache, ExtractionReport, LlmExtractor};
use qa_graph::kg::{self, DeterministicExtractor, ExtractParams, Extraction, KgCorpus, KgExtractor};
use qa_llm::LlmRun;
use qa_index::index_store::{self, CorpusDir, Manifest};
use qa_index::vector::{self, HnswIndex, HnswParams};

/// What [`run_index`] needs from the settings; the CLI fills it.
#[derive(Debug, Clone)]
pub struct IndexSettings {
    /// Where index generations live (`<data_dir>/vector_store_outputs`).
    pub vector_dir: PathBuf,
    /// Where the chunk and KG files are written (`<data_dir>/chunking_outputs`).
    pub chunk_dir: PathBuf,
    /// Chunk window in model tokens (capped at the embedder's maximum).
    pub chunk_tokens: usize,
    /// Tokens of whole sentences consecutive chunks of a section share.
    pub chunk_overlap: usize,
    /// HNSW graph parameters.
    pub hnsw: HnswParams,
    /// A phrase becomes a concept when this many chunks mention it.
    pub min_concept_df: usize,
    /// Co-mentions two concepts need for a RELATED_TO edge.
    pub min_related_weight: u32,
}

/// What to index.
pub struct IndexOptions {
    /// The corpus folder.
    pub root: PathBuf,
    /// Corpus name (default: the folder's name).
    pub name: Option<String>,
    /// Ignore cached embeddings and rebuild everything.
    pub rebuild: bool,
}

/// Name of the cache of LLM extractions inside a generation.
const EXTRACTIONS_FILE: &str = "llm_extractions.json";
/// Document titles by source file, inside a generation.
pub const DOCUMENTS_FILE: &str = "documents.json";

/// Milliseconds spent in each stage of `qa index`.
#[derive(Debug, Default, Serialize)]
pub struct Timings {
    /// Discovering and parsing files.
    pub parse_ms: f64,
    /// Chunking.
    pub chunk_ms: f64,
    /// Embedding new chunks.
    pub embed_ms: f64,
    /// Building and saving the HNSW graph.
    pub hnsw_ms: f64,
    /// Knowledge graph: extraction, concept vectors, entity graph, embedded store.
    pub graph_ms: f64,
    /// Of `graph_ms`, the embedded graph store (loaded or updated).
    pub graph_store_ms: f64,
    /// The BM25 index.
    pub lexical_ms: f64,
    /// Data files, manifest and chunk/KG contracts.
    pub write_ms: f64,
    /// The whole run.
    pub total_ms: f64,
}

/// What `qa index` did (printed, or `--json`).
#[derive(Debug, Default, Serialize)]
pub struct IndexSummary {
    /// Corpus name.
    pub corpus: String,
    /// The corpus folder as given.
    pub root: String,
    /// Files parsed.
    pub files_loaded: usize,
    /// Files skipped, with why.
    pub files_skipped: Vec<corpus::Skipped>,
    /// Chunks in the index.
    pub chunks: usize,
    /// Chunks whose content is new (embedded in this run).
    pub added: usize,
    /// Chunks whose embedding was reused.
    pub kept: usize,
    /// Chunks of the previous index that no longer exist.
    pub removed: usize,
    /// Chunks embedded in this run (equals `added`).
    pub embedded: usize,
    /// Model tokens embedded in this run.
    pub embed_tokens: usize,
    /// Concepts of the knowledge graph.
    pub concepts: usize,
    /// Document nodes of the graph.
    pub documents: usize,
    /// Image nodes of the graph.
    pub images: usize,
    /// Relationships of the graph.
    pub relationships: usize,
    /// True when the corpus was unchanged and the live index was kept as it is.
    pub up_to_date: bool,
    /// The live generation folder.
    pub generation: String,
    /// The chunk JSONL contract written under chunking_outputs.
    pub chunk_file: String,
    /// The KG JSONL contract written under chunking_outputs.
    pub kg_file: String,
    /// `deterministic` or `llm:<model>`.
    pub kg_extraction: String,
    /// What the LLM extractor did (with `--extract llm`).
    pub llm_extraction: Option<ExtractionReport>,
    /// Loading the KG into an external graph store (Neo4j), when one is configured.
    pub graph_store: Option<ExternalIngest>,
    /// What the sync to the remote retrieval store did (`--store`), when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<serde_json::Value>,
    /// True when the previous generation's HNSW graph was updated in place (a small change)
    /// instead of built from scratch.
    pub hnsw_updated: bool,
    /// True when the previous generation's graph store was updated with what changed in the
    /// knowledge graph (a small change) instead of loaded anew.
    pub graph_updated: bool,
    /// Time per stage.
    pub timings: Timings,
}

impl IndexSummary {
    /// The summary as `qa index` prints it: the figures on `out`, warnings and skipped files on
    /// `err`.
    pub fn write_text(&self, out: &mut dyn std::io::Write, err: &mut dyn std::io::Write) -> std::io::Result<()> {
        let s = self;
        let t = &s.timings;
        if s.up_to_date {
            writeln!(out, "Index for '{}' is up to date: {} chunks kept, 0 added, 0 removed ({:.0} ms).", s.corpus, s.kept, t.total_ms)?;
        } else {
            writeln!(out, "Indexed '{}' from {}", s.corpus, s.root)?;
            writeln!(out, "  files:    {} loaded, {} skipped", s.files_loaded, s.files_skipped.len())?;
            writeln!(out, "  chunks:   {} ({} added, {} kept, {} removed)", s.chunks, s.added, s.kept, s.removed)?;
            let rate = if t.embed_ms > 0.0 { s.embedded as f64 / (t.embed_ms / 1000.0) } else { 0.0 };
            writeln!(out, "  embedded: {} chunks in {:.1} s ({:.1} chunks/s)", s.embedded, t.embed_ms / 1000.0, rate)?;
            writeln!(out, "  graph:    {} concepts, {} documents, {} images, {} relationships", s.concepts, s.documents, s.images, s.relationships)?;
            writeln!(
                out,
                "  time:     parse {:.0} ms, chunk {:.0} ms, embed {:.0} ms, hnsw {:.0} ms{}, graph {:.0} ms{}, write {:.0} ms, total {:.0} ms",
                t.parse_ms,
                t.chunk_ms,
                t.embed_ms,
                t.hnsw_ms,
                if s.hnsw_updated { " (updated in place)" } else { "" },
                t.graph_ms,
                if s.graph_updated { " (store updated in place)" } else { "" },
                t.write_ms,
                t.total_ms
            )?;
            if let Some(x) = &s.llm_extraction {
                writeln!(
                out,
                    "  llm graph: {} entities, {} typed relations from {} ({} chunks: {} first try, {} repaired, {} cached, {} failed → deterministic only; {:.1} s)",
                    x.entities, x.relations, x.model, x.chunks, x.ok_first_try, x.repaired, x.cached, x.failed, x.llm_ms / 1000.0
                )?;
                for f in &x.failures {
                    writeln!(err, "  extraction failed for {f}")?;
                }
            }
            writeln!(out, "  outputs:  {}\n            {}\n            {}", s.generation, s.chunk_file, s.kg_file)?;
        }
        if let Some(g) = &s.graph_store {
            match (&g.stats, &g.error) {
                (Some(st), _) => writeln!(
                out,
                    "  {}:    {} nodes and {} relationships created, {} properties merged at {} ({:.0} ms)",
                    g.backend, st.nodes, st.relationships, st.properties_set, g.target, g.ms
                )?,
                (None, Some(e)) => writeln!(err, "warning: {}: {e}", g.backend)?,
                (None, None) => {}
            }
        }
        if let Some(st) = &s.store {
            let n = |k: &str| st.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
            writeln!(
                out,
                "  store:    {}: {} sent, {} kept, {} orphans deleted in {} requests ({:.0} ms){}",
                st.get("store").and_then(serde_json::Value::as_str).unwrap_or("?"),
                n("sent"),
                n("kept"),
                n("deleted"),
                n("requests"),
                st.get("ms").and_then(serde_json::Value::as_f64).unwrap_or(0.0),
                if st.get("created").and_then(serde_json::Value::as_bool) == Some(true) { " (index created)" } else { "" }
            )?;
        }
        for sk in &s.files_skipped {
            writeln!(err, "  skipped {}: {}", sk.path, sk.reason)?;
        }
        Ok(())
    }
}

/// The KG loaded into the configured external graph store after indexing. A failure does not
/// fail the index (the embedded graph of the generation is complete); it is reported here.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExternalIngest {
    /// The store (`neo4j`).
    pub backend: String,
    /// Where it was loaded (the URI, without credentials).
    pub target: String,
    /// What the store did, when the load succeeded.
    pub stats: Option<qa_graph::IngestStats>,
    /// Why it failed, with the command that retries it.
    pub error: Option<String>,
    /// Time spent.
    pub ms: f64,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Previous generation's vectors keyed by chunk content hash.
struct EmbeddingCache {
    by_hash: HashMap<String, Vec<f32>>,
    concept_vectors: HashMap<String, Vec<f32>>,
    manifest: Option<Manifest>,
    /// The previous generation, when its vectors are reusable, and its chunks' content hashes
    /// in row order (to update its HNSW graph in place).
    previous: Option<(PathBuf, Vec<String>)>,
}

fn load_cache(cd: &CorpusDir, embedder: &dyn Embedder, rebuild: bool) -> EmbeddingCache {
    let mut cache = EmbeddingCache { by_hash: HashMap::new(), concept_vectors: HashMap::new(), manifest: None, previous: None };
    let Some(gen_dir) = cd.current() else { return cache };
    let manifest = match index_store::verify_generation(&gen_dir, false) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(reason = %e, "previous index is unusable; rebuilding from scratch");
            return cache;
        }
    };
    if rebuild || manifest.model_id != embedder.model_id() || manifest.dimension != embedder.dimension() {
        cache.manifest = Some(manifest);
        return cache;
    }
    if let (Ok(chunks), Ok((vectors, _))) = (qa_core::chunk::read_chunks(&gen_dir.join(qa_index::index_store::CHUNKS_FILE)), vector::read_vectors(&gen_dir.join(qa_index::index_store::VECTORS_FILE))) {
        let mut hashes = Vec::with_capacity(chunks.len());
        for (c, v) in chunks.into_iter().zip(vectors) {
            hashes.push(c.metadata.content_sha256.clone());
            cache.by_hash.insert(c.metadata.content_sha256, v);
        }
        cache.previous = Some((gen_dir.clone(), hashes));
    }
    if let (Ok(text), Ok((vectors, _))) =
        (std::fs::read_to_string(gen_dir.join("concepts.json")), vector::read_vectors(&gen_dir.join("concept_vectors.f32")))
    {
        // Keyed by concept id: two concepts may share a display name.
        if let Ok(concepts) = serde_json::from_str::<Vec<kg::ConceptInfo>>(&text) {
            for (c, v) in concepts.into_iter().filter(|c| c.embedded).zip(vectors) {
                cache.concept_vectors.insert(c.id, v);
            }
        }
    }
    cache.manifest = Some(manifest);
    cache
}

fn fingerprint(chunks: &[Chunk]) -> String {
    let mut pairs: Vec<String> = chunks.iter().map(|c| format!("{}\t{}\t{}", c.id, c.source_file, c.metadata.content_sha256)).collect();
    pairs.sort();
    qa_core::fsx::sha256_hex(pairs.join("\n").as_bytes())
}

/// Embed `texts` in groups so the progress bar moves; returns vectors in input order. Texts are
/// taken longest first across the whole set, so each group's batches pad to similar lengths.
fn embed_all(embedder: &dyn Embedder, texts: &[&str], progress: &dyn Progress) -> Result<Vec<Vec<f32>>> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
    let mut out = vec![Vec::new(); texts.len()];
    for group in order.chunks(32) {
        let batch: Vec<&str> = group.iter().map(|&i| texts[i]).collect();
        for (&i, v) in group.iter().zip(embedder.embed(&batch)?) {
            out[i] = v;
        }
        progress.advance(group.len() as u64);
    }
    Ok(out)
}

/// One run of `qa index`: its inputs and the names it derives from them.
struct Run<'a> {
    settings: &'a IndexSettings,
    embedder: &'a dyn Embedder,
    opts: &'a IndexOptions,
    progress: &'a dyn Progress,
    name: String,
    cd: CorpusDir,
    /// `deterministic` or `llm:<model>`.
    extraction_mode: String,
    params: ChunkParams,
    chunk_file: String,
    kg_file: String,
}

/// What the knowledge-graph stage produced.
struct GraphOutput {
    graph: kg::KnowledgeGraph,
    concepts: Vec<kg::ConceptInfo>,
    concept_vectors: Vec<Vec<f32>>,
}

/// Index a corpus. With `llm`, the knowledge graph also gets the LLM's typed entities and
/// relations (`--extract llm`).
pub fn run_index(
    settings: &IndexSettings,
    embedder: &dyn Embedder,
    opts: &IndexOptions,
    llm: Option<&mut LlmRun>,
    progress: &dyn Progress,
) -> Result<IndexSummary> {
    let t_total = Instant::now();
    let name = opts.name.clone().unwrap_or_else(|| index_store::corpus_name_for(&opts.root));
    let run = Run {
        settings,
        embedder,
        opts,
        progress,
        cd: CorpusDir::new(&settings.vector_dir, &name),
        extraction_mode: match &llm {
            Some(run) => format!("llm:{}", run.llm().model_id()),
            None => "deterministic".to_string(),
        },
        params: ChunkParams { max_tokens: settings.chunk_tokens.min(embedder.max_tokens()), overlap: settings.chunk_overlap },
        chunk_file: format!("{name}_chunks.jsonl"),
        kg_file: format!("{name}_kg.jsonl"),
        name,
    };
    let _lock = run.cd.lock()?;
    let mut summary = IndexSummary {
        corpus: run.name.clone(),
        root: opts.root.display().to_string(),
        kg_extraction: run.extraction_mode.clone(),
        chunk_file: settings.chunk_dir.join(&run.chunk_file).display().to_string(),
        kg_file: settings.chunk_dir.join(&run.kg_file).display().to_string(),
        ..Default::default()
    };
    let docs = run.load_documents(&mut summary)?;
    let chunks = run.chunk_documents(&docs, &mut summary);

    // Reuse what the live generation already embedded; stop here when nothing changed.
    let cache = load_cache(&run.cd, embedder, opts.rebuild);
    let fp = fingerprint(&chunks);
    if run.is_up_to_date(&cache, &fp) {
        return Ok(run.up_to_date_summary(summary, chunks.len(), &cache, t_total));
    }
    let hashes_now: std::collections::HashSet<&str> = chunks.iter().map(|c| c.metadata.content_sha256.as_str()).collect();
    summary.removed = cache.by_hash.keys().filter(|h| !hashes_now.contains(h.as_str())).count();
    let vectors = run.embed_chunks(&chunks, &cache, &mut summary)?;

    let gen_dir = run.cd.new_generation()?;
    let result = run.write_generation(&gen_dir, &docs, &chunks, &vectors, &cache, &fp, llm, &mut summary);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&gen_dir);
        return Err(e);
    }
    let live = run.cd.publish(&gen_dir)?;
    summary.generation = live.display().to_string();
    summary.timings.total_ms = ms(t_total);
    Ok(summary)
}

impl Run<'_> {
    /// 1. Discover and parse the corpus's files.
    fn load_documents(&self, summary: &mut IndexSummary) -> Result<Vec<SourceDoc>> {
        let t = Instant::now();
        let mut report = LoadReport::default();
        let files = corpus::discover(&self.opts.root, &mut report)?;
        self.progress.start("parse", files.len() as u64);
        let mut docs: Vec<SourceDoc> = Vec::with_capacity(files.len());
        for f in &files {
            if let Some(d) = corpus::load_file(&self.opts.root, f, &mut report) {
                docs.push(d);
            }
            self.progress.advance(1);
        }
        self.progress.finish();
        summary.files_loaded = report.loaded;
        summary.files_skipped = report.skipped;
        if docs.is_empty() {
            return Err(QaError::EmptyCorpus(self.opts.root.clone()));
        }
        summary.timings.parse_ms = ms(t);
        Ok(docs)
    }

    /// 2. Chunk (token-aware, in parallel over documents), with ids unique across the corpus.
    fn chunk_documents(&self, docs: &[SourceDoc], summary: &mut IndexSummary) -> Vec<Chunk> {
        let t = Instant::now();
        let counter = self.embedder.token_counter();
        self.progress.start("chunk", docs.len() as u64);
        let per_doc: Vec<Vec<Chunk>> = {
            use rayon::prelude::*;
            docs.par_iter()
                .map(|d| {
                    let c = chunk::chunk_document(d, counter, self.params);
                    self.progress.advance(1);
                    c
                })
                .collect()
        };
        self.progress.finish();
        let mut chunks: Vec<Chunk> = per_doc.into_iter().flatten().collect();
        chunk::dedupe_ids(&mut chunks);
        summary.chunks = chunks.len();
        summary.timings.chunk_ms = ms(t);
        chunks
    }

    /// 3. The live generation was built from the same chunks with the same setup.
    fn is_up_to_date(&self, cache: &EmbeddingCache, fingerprint: &str) -> bool {
        let Some(m) = &cache.manifest else { return false };
        let same_setup = m.model_id == self.embedder.model_id()
            && m.chunk_tokens == self.params.max_tokens
            && m.chunk_overlap == self.params.overlap
            && m.hnsw_m == self.settings.hnsw.m
            && m.hnsw_ef_construction == self.settings.hnsw.ef_construction
            && m.corpus_root == self.opts.root.display().to_string()
            && m.kg_extraction == self.extraction_mode
            && m.kg_version == kg::EXTRACTOR_VERSION;
        !self.opts.rebuild && same_setup && m.corpus_fingerprint == fingerprint && self.settings.chunk_dir.join(&self.chunk_file).is_file()
    }

    fn up_to_date_summary(&self, mut summary: IndexSummary, chunks: usize, cache: &EmbeddingCache, t_total: Instant) -> IndexSummary {
        summary.kept = chunks;
        summary.chunks = chunks;
        summary.up_to_date = true;
        if let Some(m) = &cache.manifest {
            summary.concepts = m.concept_count;
            summary.documents = m.document_count;
            summary.images = m.image_count;
        }
        summary.generation = self.cd.current().map(|p| p.display().to_string()).unwrap_or_default();
        summary.timings.total_ms = ms(t_total);
        summary
    }

    /// 4. Embed the chunks whose content is new; reuse the other vectors.
    fn embed_chunks(&self, chunks: &[Chunk], cache: &EmbeddingCache, summary: &mut IndexSummary) -> Result<Vec<Vec<f32>>> {
        let t = Instant::now();
        let missing: Vec<usize> = chunks.iter().enumerate().filter(|(_, c)| !cache.by_hash.contains_key(&c.metadata.content_sha256)).map(|(i, _)| i).collect();
        let texts: Vec<&str> = missing.iter().map(|&i| chunks[i].content.as_str()).collect();
        self.progress.start("embed", texts.len() as u64);
        let new_vectors = embed_all(self.embedder, &texts, self.progress)?;
        self.progress.finish();
        let mut fresh: HashMap<usize, Vec<f32>> = missing.iter().copied().zip(new_vectors).collect();
        let vectors: Vec<Vec<f32>> = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| fresh.remove(&i).or_else(|| cache.by_hash.get(&c.metadata.content_sha256).cloned()).unwrap_or_default())
            .collect();
        summary.added = missing.len();
        summary.embedded = missing.len();
        summary.embed_tokens = missing.iter().map(|&i| chunks[i].metadata.token_count.min(self.embedder.max_tokens())).sum();
        summary.kept = chunks.len() - missing.len();
        summary.timings.embed_ms = ms(t);
        Ok(vectors)
    }

    /// 5–8. Everything of a new generation in `gen_dir`: HNSW, knowledge graph and its stores,
    /// lexical index, data files and manifest, and the chunk and KG contracts.
    #[allow(clippy::too_many_arguments)]
    fn write_generation(
        &self,
        gen_dir: &Path,
        docs: &[SourceDoc],
        chunks: &[Chunk],
        vectors: &[Vec<f32>],
        cache: &EmbeddingCache,
        fingerprint: &str,
        llm: Option<&mut LlmRun>,
        summary: &mut IndexSummary,
    ) -> Result<Manifest> {
        let t = Instant::now();
        let (hnsw, updated) = self.hnsw_graph(chunks, vectors, cache);
        hnsw.save(gen_dir)?;
        summary.hnsw_updated = updated;
        summary.timings.hnsw_ms = ms(t);

        let t = Instant::now();
        let images = corpus::images_by_id(docs);
        let graph = self.extract_graph(gen_dir, docs, chunks, &images, cache, llm, summary)?;
        self.write_graph_stores(gen_dir, chunks, &graph, cache, summary)?;
        summary.timings.graph_ms = ms(t);

        let t = Instant::now();
        let doc_titles = self.write_lexical(gen_dir, docs, chunks)?;
        write_json(&gen_dir.join(DOCUMENTS_FILE), &doc_titles)?;
        summary.timings.lexical_ms = ms(t);

        let t = Instant::now();
        qa_core::fsx::write_jsonl(&gen_dir.join(qa_index::index_store::CHUNKS_FILE), chunks)?;
        vector::write_vectors(&gen_dir.join(qa_index::index_store::VECTORS_FILE), vectors, self.embedder.dimension())?;
        vector::write_vectors(&gen_dir.join("concept_vectors.f32"), &graph.concept_vectors, self.embedder.dimension())?;
        write_json(&gen_dir.join("concepts.json"), &graph.concepts)?;
        write_json(&gen_dir.join("images.json"), &images)?;
        // chunking_outputs: the chunk and KG JSONL contracts (each replaced atomically). The
        // KG file's hash goes into the manifest: the next run reads the file as the graph this
        // generation's store holds only while it is unchanged.
        let chunk_dir = &self.settings.chunk_dir;
        std::fs::create_dir_all(chunk_dir).ctx("creating", chunk_dir)?;
        qa_core::fsx::write_jsonl(&chunk_dir.join(&self.chunk_file), chunks)?;
        let kg_sha256 = qa_core::fsx::write_jsonl(&chunk_dir.join(&self.kg_file), &graph.graph.documents)?;
        let manifest = self.manifest(gen_dir, chunks.len(), fingerprint, graph.concepts.len(), kg_sha256, summary)?;
        write_json(&gen_dir.join(index_store::MANIFEST), &manifest)?;
        summary.timings.write_ms = ms(t);
        Ok(manifest)
    }

    /// Stage 5: the HNSW graph — the previous generation's, updated in place, when it was built
    /// with the same parameters and the change is small (`HnswIndex::update` has the limits),
    /// else a new one. True when updated.
    fn hnsw_graph(&self, chunks: &[Chunk], vectors: &[Vec<f32>], cache: &EmbeddingCache) -> (HnswIndex, bool) {
        let params = self.settings.hnsw;
        let same_graph = cache.manifest.as_ref().is_some_and(|m| m.hnsw_m == params.m && m.hnsw_ef_construction == params.ef_construction);
        if let (Some((prev_dir, prev_hashes)), true, false) = (&cache.previous, same_graph, self.opts.rebuild) {
            // Each old row goes to the first unclaimed new row with the same content.
            let mut rows_by_hash: HashMap<&str, Vec<usize>> = HashMap::new();
            for (row, c) in chunks.iter().enumerate().rev() {
                rows_by_hash.entry(c.metadata.content_sha256.as_str()).or_default().push(row);
            }
            let old_to_new: Vec<Option<usize>> = prev_hashes.iter().map(|h| rows_by_hash.get_mut(h.as_str()).and_then(Vec::pop)).collect();
            match HnswIndex::load(prev_dir, params.ef_search) {
                Ok(old) => match old.update(&old_to_new, vectors) {
                    Some(updated) => return (updated, true),
                    None => tracing::debug!("the change is too large to update the HNSW graph in place; rebuilding it"),
                },
                Err(e) => tracing::warn!(reason = %e, "the previous HNSW graph could not be loaded; rebuilding it"),
            }
        }
        (HnswIndex::build(vectors, params), false)
    }

    /// Stage 6: the knowledge graph (deterministic, plus the LLM's entities and relations with
    /// `--extract llm`) and its concepts' vectors (reused by id when unchanged).
    #[allow(clippy::too_many_arguments)]
    fn extract_graph(
        &self,
        gen_dir: &Path,
        docs: &[SourceDoc],
        chunks: &[Chunk],
        images: &BTreeMap<String, corpus::ImageRef>,
        cache: &EmbeddingCache,
        llm: Option<&mut LlmRun>,
        summary: &mut IndexSummary,
    ) -> Result<GraphOutput> {
        let doc_types: HashMap<String, &'static str> = docs.iter().map(|d| (d.rel_path.clone(), d.kind.as_str())).collect();
        let titles: HashMap<String, String> = docs.iter().filter_map(|d| d.title.clone().map(|t| (d.rel_path.clone(), t))).collect();
        let s = self.settings;
        let base = DeterministicExtractor { params: ExtractParams { min_df: s.min_concept_df, min_related_weight: s.min_related_weight, max_per_chunk: 20 } };
        let mut extractor: Box<dyn KgExtractor + '_> = match llm {
            Some(run) => {
                let previous: ExtractionCache = self
                    .cd
                    .current()
                    .and_then(|g| std::fs::read_to_string(g.join(EXTRACTIONS_FILE)).ok())
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default();
                Box::new(LlmExtractor { base, run, previous })
            }
            None => Box::new(base),
        };
        let corpus = KgCorpus { chunks, images, chunk_file: &self.chunk_file, doc_types: &doc_types, titles: &titles };
        let Extraction { graph, llm } = extractor.extract(&corpus, self.progress);
        if let Some(done) = llm {
            write_json(&gen_dir.join(EXTRACTIONS_FILE), &done.cache)?;
            summary.llm_extraction = Some(done.report);
        }
        let mut concepts: Vec<kg::ConceptInfo> = graph.concepts.values().cloned().collect();
        for c in &mut concepts {
            c.embedded = c.wants_vector();
        }
        let concept_vectors = self.concept_vectors(&concepts, cache)?;
        Ok(GraphOutput { graph, concepts, concept_vectors })
    }

    /// Vectors of the concepts that get one, in order: reused by id, embedded when new.
    fn concept_vectors(&self, concepts: &[kg::ConceptInfo], cache: &EmbeddingCache) -> Result<Vec<Vec<f32>>> {
        let missing_names: Vec<(&str, &str)> =
            concepts.iter().filter(|c| c.embedded && !cache.concept_vectors.contains_key(&c.id)).map(|c| (c.id.as_str(), c.name.as_str())).collect();
        self.progress.start("concepts", missing_names.len() as u64);
        let names: Vec<&str> = missing_names.iter().map(|(_, n)| *n).collect();
        let name_vectors = embed_all(self.embedder, &names, self.progress)?;
        self.progress.finish();
        let mut by_id: HashMap<&str, Vec<f32>> = missing_names.iter().map(|(id, _)| *id).zip(name_vectors).collect();
        Ok(concepts
            .iter()
            .filter(|c| c.embedded)
            .map(|c| by_id.remove(c.id.as_str()).or_else(|| cache.concept_vectors.get(&c.id).cloned()).unwrap_or_else(|| vec![0.0; self.embedder.dimension()]))
            .collect())
    }

    /// The graph lane's adjacency and the embedded graph database of the generation.
    fn write_graph_stores(&self, gen_dir: &Path, chunks: &[Chunk], g: &GraphOutput, cache: &EmbeddingCache, summary: &mut IndexSummary) -> Result<()> {
        // The graph lane's adjacency: the same KG, as passage/entity rows.
        let chunk_rows: HashMap<String, usize> = chunks.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        let entity_pos: HashMap<String, usize> = g.concepts.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        EntityGraph::build(&g.graph.documents, &chunk_rows, &entity_pos, chunks.len()).save(&gen_dir.join(walk::FILE))?;
        let t = Instant::now();
        let stats = match self.update_previous_store(gen_dir, &g.graph.documents, cache) {
            Some(stats) => {
                summary.graph_updated = true;
                stats
            }
            None => {
                // Build in a scratch file, then write a compact single-file copy (no WAL
                // sidecars) into the generation.
                let scratch = gen_dir.join("graph.build.db");
                let mut store = EmbeddedGraph::open(&scratch, 10_000)?;
                let stats = store.ingest(&g.graph.documents)?;
                store.snapshot_to(&gen_dir.join("graph.db"))?;
                drop(store);
                qa_graph::load::remove_with_journals(&scratch);
                stats
            }
        };
        summary.timings.graph_store_ms = ms(t);
        summary.concepts = g.concepts.len();
        summary.documents = stats.by_label.get("Document").copied().unwrap_or(0);
        summary.images = stats.by_label.get("Image").copied().unwrap_or(0);
        summary.relationships = stats.relationships;
        Ok(())
    }

    /// The previous generation's graph store, copied into `gen_dir` and updated with what
    /// changed between the KG it was loaded from and `docs` ([`qa_graph::delta`]). `None` —
    /// load anew — when there is no such store, when the KG file is not the one that generation
    /// wrote (edited, or the write was interrupted), when `qa graph ingest` added to the store,
    /// or when the change is large: a store operation on a hub costs as much as the full load's
    /// (both rewrite the hub's adjacency list), so beyond a tenth of the graph the load is cheaper.
    fn update_previous_store(&self, gen_dir: &Path, docs: &[kg::GraphDocument], cache: &EmbeddingCache) -> Option<qa_graph::IngestStats> {
        if self.opts.rebuild {
            return None;
        }
        let (prev_dir, _) = cache.previous.as_ref()?;
        let want = cache.manifest.as_ref()?.kg_sha256.as_deref()?;
        if prev_dir.join(qa_graph::load::EXTERNAL_INGEST_MARKER).exists() {
            return None;
        }
        // Streamed line by line (the std docs' KG file is 280 MB), hashed as it is read: the delta is
        // used only if the whole file is the one the previous generation wrote.
        let old_file = self.settings.chunk_dir.join(&self.kg_file);
        let mut reader = std::io::BufReader::new(std::fs::File::open(&old_file).ok()?);
        let mut hasher = qa_core::fsx::Sha256Stream::default();
        let mut builder = qa_graph::delta::DeltaBuilder::new(docs);
        let mut line = Vec::new();
        loop {
            line.clear();
            if std::io::BufRead::read_until(&mut reader, b'\n', &mut line).ok()? == 0 {
                break;
            }
            hasher.update(&line);
            if !line.trim_ascii().is_empty() {
                builder.add_old(serde_json::from_slice(&line).ok()?);
            }
        }
        if hasher.finish_hex() != want {
            tracing::debug!(file = %old_file.display(), "the KG file changed since the previous index; loading the graph store anew");
            return None;
        }
        let delta = builder.finish()?;
        if delta.operations() > (delta.totals.nodes + delta.totals.relationships) / 10 {
            tracing::debug!(operations = delta.operations(), "the graph changed too much to update its store; loading it anew");
            return None;
        }
        let target = gen_dir.join("graph.db");
        let applied = std::fs::copy(prev_dir.join("graph.db"), &target)
            .ctx("copying the previous graph store", &target)
            .and_then(|_| EmbeddedGraph::open(&target, 10_000))
            .and_then(|mut store| store.apply_delta(&delta));
        match applied {
            Ok(()) => Some(delta.totals),
            Err(e) => {
                tracing::warn!(reason = %e, "the previous graph store could not be updated; loading it anew");
                qa_graph::load::remove_with_journals(&target);
                None
            }
        }
    }

    /// 7. The lexical index (BM25 over title, headings and text); returns the documents' titles.
    fn write_lexical<'d>(&self, gen_dir: &Path, docs: &'d [SourceDoc], chunks: &[Chunk]) -> Result<BTreeMap<&'d str, &'d str>> {
        let doc_titles: BTreeMap<&str, &str> = docs.iter().map(|d| (d.rel_path.as_str(), d.title.as_deref().unwrap_or(""))).collect();
        let heading_text: Vec<String> = chunks.iter().map(|c| c.metadata.heading_path.join(" / ")).collect();
        lexical::build(
            &gen_dir.join(lexical::DIR),
            chunks.iter().enumerate().map(|(row, c)| lexical::LexicalDoc {
                row,
                title: doc_titles.get(c.source_file.as_str()).copied().unwrap_or(""),
                headings: &heading_text[row],
                body: &c.content,
            }),
        )?;
        Ok(doc_titles)
    }

    /// 8. The generation's manifest (written last: a generation without one is incomplete).
    fn manifest(&self, gen_dir: &Path, chunk_count: usize, fingerprint: &str, concept_count: usize, kg_sha256: String, summary: &IndexSummary) -> Result<Manifest> {
        Ok(Manifest {
            format_version: index_store::FORMAT_VERSION,
            corpus: self.name.clone(),
            corpus_root: self.opts.root.display().to_string(),
            model_id: self.embedder.model_id().to_string(),
            dimension: self.embedder.dimension(),
            metric: "cosine".into(),
            chunk_count,
            corpus_fingerprint: fingerprint.to_string(),
            created_at: chrono::Utc::now().to_rfc3339(),
            chunk_tokens: self.params.max_tokens,
            chunk_overlap: self.params.overlap,
            hnsw_m: self.settings.hnsw.m,
            hnsw_ef_construction: self.settings.hnsw.ef_construction,
            files: index_store::list_files(gen_dir)?,
            concept_count,
            document_count: summary.documents,
            image_count: summary.images,
            kg_extraction: self.extraction_mode.clone(),
            kg_version: kg::EXTRACTOR_VERSION,
            kg_sha256: Some(kg_sha256),
        })
    }
}

fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_vec_pretty(value).map_err(|e| QaError::Data { path: path.into(), reason: e.to_string() })?;
    std::fs::write(path, text).ctx("writing", path)
}

