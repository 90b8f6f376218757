//! Knowledge-graph extraction (deterministic) and the KG JSONL contract.
//!
//! Per chunk: concepts (multi-word technical terms, code identifiers, acronyms, heading terms),
//! a `Document` node, `MENTIONS` edges; per corpus: weighted `RELATED_TO` co-occurrence edges and
//! `Image` nodes with `HAS_IMAGE` (document → image) and `DEPICTS` (image → concept) edges.

mod examples;
pub mod link;
pub mod llm_extract;
mod terms;
mod usage;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use qa_core::chunk::Chunk;
use qa_core::progress::Progress;
use qa_index::corpus::ImageRef;

pub use terms::TermKind;
pub(crate) use terms::{extract_terms, normalize_concept, singular};

/// Version of the deterministic extraction and linking rules (recorded in the manifest).
pub const EXTRACTOR_VERSION: u32 = 10;

/// A `{key, value}` metadata item (the KG JSONL contract); becomes a node/edge property.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    /// The property name.
    pub key: String,
    /// The property value.
    pub value: serde_json::Value,
}

pub(crate) fn meta(key: &str, value: impl Into<serde_json::Value>) -> Meta {
    Meta { key: key.to_string(), value: value.into() }
}

/// A node of the KG JSONL contract; stores merge nodes by `id`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct KgNode {
    /// Unique across the graph: a concept id, a document id (`<chunk_file>::<chunk_id>`) or an
    /// image id.
    pub id: String,
    /// The node's label (`Document`, `Concept`, `Image`).
    #[serde(rename = "type")]
    pub node_type: String,
    /// The node's properties besides `id`.
    #[serde(default)]
    pub metadata: Vec<Meta>,
}

/// A relationship of the KG JSONL contract; stores merge relationships by (source, type, target).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct KgRel {
    /// Id of the start node.
    pub source: String,
    /// Id of the end node.
    pub target: String,
    /// The relationship type (`MENTIONS`, `RELATED_TO`, `HAS_IMAGE`, `DEPICTS`, or an LLM's typed
    /// relation).
    #[serde(rename = "type")]
    pub rel_type: String,
    /// The relationship's properties.
    #[serde(default)]
    pub metadata: Vec<Meta>,
}

/// One line of the KG JSONL: a document (chunk) with the nodes and relationships found in it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GraphDocument {
    /// The chunk's `Document` node.
    pub source: KgNode,
    /// The concepts and images of the chunk.
    pub nodes: Vec<KgNode>,
    /// Relationships written with this chunk (each edge of the graph is written once).
    pub relationships: Vec<KgRel>,
}

/// A concept of the graph, as kept in the index generation for grounding and the graph lane.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConceptInfo {
    /// The normalised name (lower case, no leading article, last word singular).
    pub id: String,
    /// The most frequent surface form.
    pub name: String,
    /// Other surface forms (at most eight).
    pub aliases: Vec<String>,
    /// How it was found.
    pub kind: TermKind,
    /// Chunks mentioning it.
    pub df: usize,
    /// Its name has a row in `concept_vectors.f32` (rows follow the order of embedded concepts).
    #[serde(default)]
    pub embedded: bool,
    /// An identifier the corpus's own listings invent for an illustration (`examples`): an entity
    /// of the graph, not a concept a reader would look up.
    #[serde(default)]
    pub example: bool,
}

impl ConceptInfo {
    /// Whether grounding by meaning needs this concept's name embedded: terms and titles do; a
    /// proper name seen in one chunk only is found by its spelling, and embedding the thousands
    /// of them in an encyclopedic corpus would cost more than the passages themselves.
    pub fn wants_vector(&self) -> bool {
        !matches!(self.kind, TermKind::Name) || self.df >= 2
    }
}

/// Thresholds of the deterministic extraction.
#[derive(Debug, Clone, Copy)]
pub struct ExtractParams {
    /// A noun phrase becomes a concept when at least this many chunks have it (other kinds always
    /// do, short of boilerplate).
    pub min_df: usize,
    /// A `RELATED_TO` edge needs the two concepts together in at least this many chunks.
    pub min_related_weight: u32,
    /// Co-occurrence pairs are formed among at most this many concepts per chunk (highest
    /// tf·idf first); MENTIONS edges cover every concept of the chunk.
    pub max_per_chunk: usize,
}

/// Everything extracted from a corpus.
#[derive(Debug, Default)]
pub struct KnowledgeGraph {
    /// One graph document per chunk, in chunk order.
    pub documents: Vec<GraphDocument>,
    /// The concepts by id.
    pub concepts: BTreeMap<String, ConceptInfo>,
    /// `RELATED_TO` edges written.
    pub related_edges: usize,
}

/// `<chunk_file>::<chunk_id>`: how a Document node points back at its chunk.
pub(crate) fn document_id(chunk_file: &str, chunk_id: &str) -> String {
    format!("{chunk_file}::{chunk_id}")
}

/// The corpus a [`KgExtractor`] reads.
#[derive(Debug, Clone, Copy)]
pub struct KgCorpus<'a> {
    /// The chunks, in order; each becomes one graph document.
    pub chunks: &'a [Chunk],
    /// Images by id; chunks point at them through `image_ids`.
    pub images: &'a BTreeMap<String, ImageRef>,
    /// Name of the chunk file that Document ids (`<chunk_file>::<chunk_id>`) point into.
    pub chunk_file: &'a str,
    /// Source type by source file (`Document.source_type`; "text" when missing).
    pub doc_types: &'a HashMap<String, &'static str>,
    /// Document title by source file.
    pub titles: &'a HashMap<String, String>,
}

/// What a [`KgExtractor`] produced.
#[derive(Debug)]
pub struct Extraction {
    /// The graph to load and embed.
    pub graph: KnowledgeGraph,
    /// What the LLM pass did and the cache to keep for the next run, when an LLM took part.
    pub llm: Option<llm_extract::LlmExtraction>,
}

/// The seam between indexing and knowledge-graph extraction: [`DeterministicExtractor`] (rules
/// only) or [`llm_extract::LlmExtractor`] (the same graph plus an LLM's typed entities and
/// relations).
pub trait KgExtractor {
    /// Extract the knowledge graph of `corpus`, reporting long stages to `progress`.
    fn extract(&mut self, corpus: &KgCorpus, progress: &dyn Progress) -> Extraction;
}

/// Extraction by rules alone ([`extract`]).
#[derive(Debug, Clone, Copy)]
pub struct DeterministicExtractor {
    /// Thresholds of the rules.
    pub params: ExtractParams,
}

impl DeterministicExtractor {
    /// The graph of `corpus` by rules alone.
    pub fn graph(&self, corpus: &KgCorpus) -> KnowledgeGraph {
        extract(corpus.chunks, corpus.images, corpus.chunk_file, corpus.doc_types, corpus.titles, self.params)
    }
}

impl KgExtractor for DeterministicExtractor {
    fn extract(&mut self, corpus: &KgCorpus, _progress: &dyn Progress) -> Extraction {
        Extraction { graph: self.graph(corpus), llm: None }
    }
}

/// Extract the knowledge graph of a corpus without a model: concepts, `MENTIONS`, weighted
/// `RELATED_TO` co-occurrence edges, images with `HAS_IMAGE` and `DEPICTS`. `chunk_file` names
/// the chunk file the documents point back at; `doc_types` gives a source file's type and `titles`
/// its document title (a title is its document's strongest concept).
pub fn extract(
    chunks: &[Chunk],
    images: &BTreeMap<String, ImageRef>,
    chunk_file: &str,
    doc_types: &HashMap<String, &'static str>,
    titles: &HashMap<String, String>,
    params: ExtractParams,
) -> KnowledgeGraph {
    // 1. Candidate terms per chunk, plus the title of the chunk's document.
    let mut per_chunk = candidate_terms(chunks, titles);
    // A section heading the template repeats ("Summary" closing every chapter) says nothing
    // about its section, even when the same word is also an identifier (`Summary`).
    let layout = usage::Layout::of(chunks);
    for terms in &mut per_chunk {
        terms.retain(|t| t.kind != TermKind::Heading || !layout.repeated_heading(&t.id));
    }
    // 2. Document frequency, surface forms and kinds; the concepts worth keeping. A chunk that
    // repeats an earlier one (a page published twice) adds no evidence.
    let counted = first_of_its_text(chunks);
    let mut stats = TermStats::count(&per_chunk, &counted, titles);
    let n = chunks.len().max(1);
    // One-word candidates the corpus uses as ordinary words, caption labels or stock headings.
    let one_word: HashSet<String> = stats.df.keys().filter(|id| !id.contains(' ') && stats.kinds.get(*id) != Some(&TermKind::Title)).cloned().collect();
    let usage = usage::usage(chunks, &one_word);
    // A heading's term may never occur in the text itself: it is judged on its layout alone.
    let unused = usage::Usage::default();
    stats.rejected = one_word.iter().filter(|id| usage::not_a_concept(id, usage.get(*id).unwrap_or(&unused), &layout).is_some()).cloned().collect();
    // Document furniture ("the wiring page", "the next section") and fragments of a longer phrase
    // that (nearly) always goes on ("water-based dew" of "water-based dew point").
    let extended: HashMap<String, usize> = stats.df.iter().filter_map(|(id, &d)| id.rsplit_once(' ').map(|(head, _)| (head.to_string(), d))).fold(HashMap::new(), |mut m, (head, d)| {
        let e = m.entry(head).or_insert(0);
        *e = (*e).max(d);
        m
    });
    for (id, &d) in &stats.df {
        if stats.kinds.get(id) != Some(&TermKind::Phrase) || !id.contains(' ') {
            continue;
        }
        let furniture = id.rsplit(' ').next().is_some_and(usage::is_furniture);
        let fragment = extended.get(id).is_some_and(|&e| e * 10 >= d * 9);
        if furniture || fragment {
            stats.rejected.insert(id.clone());
        }
    }
    // Words of prose, not of code listings or console output ("previous error", "test result").
    let prose_kinds: HashSet<String> = stats.df.keys().filter(|id| matches!(stats.kinds.get(*id), Some(TermKind::Phrase | TermKind::Name | TermKind::Heading | TermKind::Acronym))).cloned().collect();
    for (id, counts) in usage::block_usage(chunks, &prose_kinds) {
        // A longer heading repeated across the documents' template ("Common Options") or a line
        // label ("Tracking Issue: #…").
        let layout_only = id.contains(' ') && layout.furniture(&id, counts.0 + counts.1).is_some();
        if usage::mostly_output(counts) || layout_only {
            stats.rejected.insert(id);
        }
    }
    let mut concepts = stats.concepts(n, params);
    // 3. Every mention of a kept concept in every chunk.
    let mentions = chunk_mentions(chunks, &per_chunk, &mut concepts, &stats.df, n, layout.repeated_headings());
    examples::mark_example_names(chunks, &mentions, titles, &mut concepts);
    // 4. Co-occurrence weights over chunks.
    let pairs = cooccurrence(&mentions, &counted, params);
    // 5. Images depict the concepts named in their alt text and caption.
    let depicts = depicted_concepts(images, &concepts);
    // 6. The JSONL lines.
    let documents = Documents { chunks, images, chunk_file, doc_types, concepts: &concepts, mentions: &mentions, pairs: &pairs, depicts: &depicts }.write();
    let related_edges = pairs.len();
    KnowledgeGraph { documents, concepts, related_edges }
}

/// The candidate terms of every chunk, plus the title of the chunk's document.
fn candidate_terms(chunks: &[Chunk], titles: &HashMap<String, String>) -> Vec<Vec<terms::Term>> {
    use rayon::prelude::*;
    chunks
        .par_iter()
        .map(|c| {
            let mut t = extract_terms(&c.content, &c.metadata.heading_path);
            if let Some(title) = titles.get(&c.source_file) {
                let id = link::title_id(title);
                if !id.is_empty() {
                    t.push(terms::Term { id, surface: link::strip_disambiguation(title).to_string(), kind: TermKind::Title });
                }
            }
            t
        })
        .collect()
}

/// For each chunk, whether it is the first with its text (compared by words, ignoring case and
/// spacing). Only whole repeated chunks are left out: leaving out each repeated paragraph too
/// (an option described the same way in every command's manual) cost the fused ranking all@5 on
/// the Cargo and Embedded books, whose questions reach those pages through the repeated terms.
fn first_of_its_text(chunks: &[Chunk]) -> Vec<bool> {
    let mut seen: HashSet<String> = HashSet::new();
    chunks.iter().map(|c| seen.insert(c.content.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" "))).collect()
}

/// What the candidate terms of a corpus say about each term id.
struct TermStats {
    /// Chunks with the term.
    df: HashMap<String, usize>,
    /// Surface forms with their counts.
    surfaces: HashMap<String, BTreeMap<String, usize>>,
    /// The most specific kind the term was found as.
    kinds: HashMap<String, TermKind>,
    /// Terms the corpus's usage shows are not concepts ([`usage::not_a_concept`]).
    rejected: HashSet<String>,
}

impl TermStats {
    /// The statistics of the chunks marked `counted`.
    fn count(per_chunk: &[Vec<terms::Term>], counted: &[bool], titles: &HashMap<String, String>) -> TermStats {
        let mut df: HashMap<String, usize> = HashMap::new();
        let mut surfaces: HashMap<String, BTreeMap<String, usize>> = HashMap::new();
        let mut kinds: HashMap<String, TermKind> = HashMap::new();
        for terms in per_chunk.iter().zip(counted).filter(|(_, c)| **c).map(|(t, _)| t) {
            let mut seen = BTreeSet::new();
            for t in terms {
                *surfaces.entry(t.id.clone()).or_default().entry(t.surface.clone()).or_default() += 1;
                let k = kinds.entry(t.id.clone()).or_insert(t.kind);
                if t.kind.priority() > k.priority() {
                    *k = t.kind;
                }
                if seen.insert(t.id.clone()) {
                    *df.entry(t.id.clone()).or_default() += 1;
                }
            }
        }
        // Full titles ("Kiss and Tell (1945 film)") are aliases of their title concept.
        for title in titles.values() {
            let id = link::title_id(title);
            if title.trim() != link::strip_disambiguation(title) && surfaces.contains_key(&id) {
                *surfaces.entry(id).or_default().entry(title.trim().to_string()).or_default() += 0;
            }
        }
        TermStats { df, surfaces, kinds, rejected: HashSet::new() }
    }

    /// Whether a term of a corpus of `n` chunks is a concept.
    fn keep(&self, id: &str, n: usize, params: ExtractParams) -> bool {
        let d = self.df.get(id).copied().unwrap_or(0);
        let kind = self.kinds.get(id).copied().unwrap_or(TermKind::Phrase);
        if kind == TermKind::Title {
            return true;
        }
        if self.rejected.contains(id) {
            return false;
        }
        // Boilerplate: a term in more than half the chunks of a sizeable corpus says nothing.
        if n >= 20 && d * 2 > n {
            return false;
        }
        // An identifier in more than a tenth of a large corpus (`main`, `new`, `self`) is
        // scaffolding, not a topic.
        if kind == TermKind::Code && n >= 50 && d * 10 > n {
            return false;
        }
        match kind {
            TermKind::Phrase => d >= params.min_df,
            _ => true,
        }
    }

    /// The kept terms as concepts, named by their most frequent surface form (the next eight are
    /// aliases); `df` is left at 0 for linking to count.
    fn concepts(&self, n: usize, params: ExtractParams) -> BTreeMap<String, ConceptInfo> {
        let mut concepts: BTreeMap<String, ConceptInfo> = BTreeMap::new();
        for id in self.df.keys().filter(|id| self.keep(id, n, params)) {
            let mut by_count: Vec<(&String, &usize)> = self.surfaces[id].iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            concepts.insert(
                id.clone(),
                ConceptInfo {
                    id: id.clone(),
                    name: by_count[0].0.clone(),
                    aliases: by_count.iter().skip(1).take(8).map(|(s, _)| (*s).clone()).collect(),
                    kind: self.kinds[id],
                    df: 0,
                    embedded: false,
                    example: false,
                },
            );
        }
        concepts
    }
}

/// The kept concepts of one chunk.
struct ChunkMentions {
    /// Concept id and mention count, highest tf·idf first.
    ranked: Vec<(String, usize)>,
    /// The concept the chunk's document is titled by, when kept.
    title: Option<String>,
}

/// Every mention of a kept concept in every chunk (dictionary linking), merged with what the
/// extractor saw there. Sets each concept's `df` and drops concepts no chunk mentions.
fn chunk_mentions(
    chunks: &[Chunk],
    per_chunk: &[Vec<terms::Term>],
    concepts: &mut BTreeMap<String, ConceptInfo>,
    df: &HashMap<String, usize>,
    n: usize,
    template_headings: HashSet<String>,
) -> Vec<ChunkMentions> {
    let aliases = link::AliasIndex::build(concepts.values().map(|c| link::AliasSource {
        id: &c.id,
        kind: c.kind,
        surfaces: std::iter::once(c.name.as_str()).chain(c.aliases.iter().map(String::as_str)).collect(),
    }))
    .with_template_headings(template_headings);
    let linked: Vec<HashMap<String, u32>> = {
        use rayon::prelude::*;
        chunks.par_iter().map(|c| aliases.scan(&c.content)).collect()
    };
    let idf = |id: &str| ((n as f64 + 1.0) / (df.get(id).copied().unwrap_or(1).max(1) as f64)).ln();
    let mut mentions: Vec<ChunkMentions> = Vec::with_capacity(chunks.len());
    for (ci, terms) in per_chunk.iter().enumerate() {
        let mut tf: BTreeMap<String, usize> = BTreeMap::new();
        let mut title = None;
        for t in terms.iter().filter(|t| concepts.contains_key(&t.id)) {
            *tf.entry(t.id.clone()).or_default() += 1;
            if t.kind == TermKind::Title {
                title = Some(t.id.clone());
            }
        }
        for (id, count) in &linked[ci] {
            let e = tf.entry(id.clone()).or_default();
            *e = (*e).max(*count as usize);
        }
        let mut ranked: Vec<(String, usize)> = tf.into_iter().collect();
        ranked.sort_by(|a, b| {
            let score = |(id, c): &(String, usize)| *c as f64 * idf(id);
            score(b).total_cmp(&score(a)).then(a.0.cmp(&b.0))
        });
        mentions.push(ChunkMentions { ranked, title });
    }
    for m in &mentions {
        for (id, _) in &m.ranked {
            if let Some(c) = concepts.get_mut(id) {
                c.df += 1;
            }
        }
    }
    concepts.retain(|_, c| c.df > 0);
    mentions
}

/// Concept pairs (ordered ids) with the chunks where both are among the top `max_per_chunk`;
/// only pairs in at least `min_related_weight` chunks, counting a repeated text once.
fn cooccurrence(mentions: &[ChunkMentions], counted: &[bool], params: ExtractParams) -> BTreeMap<(String, String), Vec<usize>> {
    let mut pairs: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (ci, m) in mentions.iter().enumerate().filter(|(ci, _)| counted[*ci]) {
        let ids = &m.ranked[..m.ranked.len().min(params.max_per_chunk)];
        for a in 0..ids.len() {
            for b in a + 1..ids.len() {
                let (x, y) = if ids[a].0 < ids[b].0 { (&ids[a].0, &ids[b].0) } else { (&ids[b].0, &ids[a].0) };
                pairs.entry((x.clone(), y.clone())).or_default().push(ci);
            }
        }
    }
    pairs.retain(|_, v| v.len() as u32 >= params.min_related_weight);
    pairs
}

/// For each image, the concepts named in its alt text and caption.
fn depicted_concepts<'i>(images: &'i BTreeMap<String, ImageRef>, concepts: &BTreeMap<String, ConceptInfo>) -> BTreeMap<&'i str, Vec<String>> {
    let mut depicts: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (img_id, img) in images {
        let text = format!("{} {}", img.alt, img.caption);
        let mut found: BTreeSet<String> = extract_terms(&text, &[]).into_iter().map(|t| t.id).filter(|id| concepts.contains_key(id)).collect();
        let lowered = normalize_words(&text);
        for id in concepts.keys() {
            if (id.contains(' ') || id.len() >= 4) && contains_words(&lowered, &normalize_words(id)) {
                found.insert(id.clone());
            }
        }
        depicts.insert(img_id.as_str(), found.into_iter().collect());
    }
    depicts
}

/// What earlier lines already wrote: images whose `DEPICTS` edges, and concepts whose
/// properties, went with their first occurrence.
#[derive(Default)]
struct Written {
    images: BTreeSet<String>,
    concepts: HashSet<String>,
}

/// What the JSONL lines are written from.
struct Documents<'a> {
    chunks: &'a [Chunk],
    images: &'a BTreeMap<String, ImageRef>,
    chunk_file: &'a str,
    doc_types: &'a HashMap<String, &'static str>,
    concepts: &'a BTreeMap<String, ConceptInfo>,
    mentions: &'a [ChunkMentions],
    pairs: &'a BTreeMap<(String, String), Vec<usize>>,
    depicts: &'a BTreeMap<&'a str, Vec<String>>,
}

impl Documents<'_> {
    /// One graph document per chunk. Each `RELATED_TO` edge is written on the first chunk where
    /// it occurs and each image's `DEPICTS` edges on the first chunk showing it, so every edge is
    /// written once; likewise a concept's properties go with its first occurrence, and later
    /// chunks name it by id and label only. Stores merge a node's occurrences, so the graph is the
    /// same, and the documents stay small: on the std docs, repeating every concept's name,
    /// aliases, kind and frequency in each chunk made the file 280 MB instead of 208 MB and the
    /// indexer's peak memory 1,800 MiB instead of 1,661 MiB.
    fn write(&self) -> Vec<GraphDocument> {
        let mut related_by_chunk: HashMap<usize, Vec<&(String, String)>> = HashMap::new();
        for (pair, cis) in self.pairs {
            related_by_chunk.entry(cis[0]).or_default().push(pair);
        }
        let mut written = Written::default();
        let mut documents = Vec::with_capacity(self.chunks.len());
        for (ci, chunk) in self.chunks.iter().enumerate() {
            let doc_id = document_id(self.chunk_file, &chunk.id);
            let source = self.document_node(chunk, &doc_id);
            let mut nodes = Vec::new();
            let mut rels = Vec::new();
            self.mentions_of(ci, &doc_id, &mut written, &mut nodes, &mut rels);
            for (a, b) in related_by_chunk.get(&ci).into_iter().flatten() {
                let cis = &self.pairs[&(a.clone(), b.clone())];
                let evidence: Vec<String> = cis.iter().take(5).map(|&i| self.chunks[i].id.clone()).collect();
                rels.push(KgRel {
                    source: a.clone(),
                    target: b.clone(),
                    rel_type: "RELATED_TO".into(),
                    metadata: vec![meta("weight", cis.len()), meta("evidence", evidence)],
                });
            }
            self.images_of(chunk, &doc_id, &mut written, &mut nodes, &mut rels);
            documents.push(GraphDocument { source, nodes, relationships: rels });
        }
        documents
    }

    fn document_node(&self, chunk: &Chunk, doc_id: &str) -> KgNode {
        KgNode {
            id: doc_id.to_string(),
            node_type: "Document".into(),
            metadata: vec![
                meta("source_id", doc_id),
                meta("chunk_id", chunk.id.clone()),
                meta("source_file", chunk.source_file.clone()),
                meta("source_type", self.doc_types.get(&chunk.source_file).copied().unwrap_or("text")),
                meta("derived_from_chunk_file", self.chunk_file),
                meta("heading_path", chunk.metadata.heading_path.join(" > ")),
            ],
        }
    }

    /// The concepts of chunk `ci` and its `MENTIONS` edges.
    fn mentions_of(&self, ci: usize, doc_id: &str, written: &mut Written, nodes: &mut Vec<KgNode>, rels: &mut Vec<KgRel>) {
        let m = &self.mentions[ci];
        for (id, count) in &m.ranked {
            nodes.push(concept_node(&self.concepts[id], &mut written.concepts));
            let mut metadata = vec![meta("count", *count)];
            // The document is about this concept (its title), not merely mentioning it.
            if m.title.as_deref() == Some(id.as_str()) {
                metadata.push(meta("role", "title"));
            }
            rels.push(KgRel { source: doc_id.to_string(), target: id.clone(), rel_type: "MENTIONS".into(), metadata });
        }
    }

    /// The chunk's images with `HAS_IMAGE`, and the first time an image is seen its `DEPICTS`
    /// edges (with the depicted concepts' nodes).
    fn images_of(&self, chunk: &Chunk, doc_id: &str, written: &mut Written, nodes: &mut Vec<KgNode>, rels: &mut Vec<KgRel>) {
        for img_id in &chunk.metadata.image_ids {
            let Some(img) = self.images.get(img_id) else { continue };
            nodes.push(KgNode {
                id: img_id.clone(),
                node_type: "Image".into(),
                metadata: vec![meta("source_path", img.source_path.clone()), meta("caption", img.caption.clone()), meta("alt", img.alt.clone())],
            });
            rels.push(KgRel { source: doc_id.to_string(), target: img_id.clone(), rel_type: "HAS_IMAGE".into(), metadata: vec![] });
            if written.images.insert(img_id.clone()) {
                for concept in self.depicts.get(img_id.as_str()).into_iter().flatten() {
                    rels.push(KgRel { source: img_id.clone(), target: concept.clone(), rel_type: "DEPICTS".into(), metadata: vec![] });
                    if !nodes.iter().any(|n| &n.id == concept) {
                        nodes.push(concept_node(&self.concepts[concept], &mut written.concepts));
                    }
                }
            }
        }
    }
}

/// A concept's node: with its properties the first time (`written` records it), by id after.
fn concept_node(c: &ConceptInfo, written: &mut HashSet<String>) -> KgNode {
    let metadata = if written.insert(c.id.clone()) {
        let mut m = vec![meta("name", c.name.clone()), meta("aliases", c.aliases.clone()), meta("kind", c.kind.as_str()), meta("df", c.df)];
        if c.example {
            m.push(meta("role", "example"));
        }
        m
    } else {
        Vec::new()
    };
    KgNode { id: c.id.clone(), node_type: "Concept".into(), metadata }
}

pub(crate) fn normalize_words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(|w| terms::singular(&w.to_lowercase()))
        .collect()
}

pub(crate) fn contains_words(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// A concept with the links the graph gives it: what `qa graph concepts` lists, most linked
/// first — the corpus's topics as the graph sees them.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ConceptLinks {
    /// The concept's id.
    pub id: String,
    /// Its most frequent surface form.
    pub name: String,
    /// How it was found (`phrase`, `code`, `title`, …).
    pub kind: String,
    /// `MENTIONS` edges: chunks that mention it.
    pub mentions: usize,
    /// `RELATED_TO` edges at either end.
    pub related: usize,
    /// An example name of the corpus's own listings (`role: example`), not a concept to look up.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub example: bool,
}

impl ConceptLinks {
    /// Every link of the concept.
    pub fn links(&self) -> usize {
        self.mentions + self.related
    }
}

/// The concepts of KG documents with their links, most linked first (ties by id).
pub fn concept_links(docs: &[GraphDocument]) -> Vec<ConceptLinks> {
    fn entry<'m>(by_id: &'m mut HashMap<String, ConceptLinks>, id: &str) -> &'m mut ConceptLinks {
        by_id.entry(id.to_string()).or_insert_with(|| ConceptLinks { id: id.to_string(), name: id.to_string(), kind: String::new(), mentions: 0, related: 0, example: false })
    }
    let mut by_id: HashMap<String, ConceptLinks> = HashMap::new();
    for d in docs {
        for n in d.nodes.iter().filter(|n| n.node_type == "Concept" && !n.metadata.is_empty()) {
            let c = entry(&mut by_id, &n.id);
            for m in &n.metadata {
                match (m.key.as_str(), m.value.as_str()) {
                    ("name", Some(v)) => c.name = v.to_string(),
                    ("kind", Some(v)) => c.kind = v.to_string(),
                    ("role", Some("example")) => c.example = true,
                    _ => {}
                }
            }
        }
        for r in &d.relationships {
            match r.rel_type.as_str() {
                "MENTIONS" => entry(&mut by_id, &r.target).mentions += 1,
                "RELATED_TO" => {
                    entry(&mut by_id, &r.source).related += 1;
                    entry(&mut by_id, &r.target).related += 1;
                }
                _ => {}
            }
        }
    }
    let mut out: Vec<ConceptLinks> = by_id.into_values().collect();
    out.sort_by(|a, b| b.links().cmp(&a.links()).then_with(|| a.id.cmp(&b.id)));
    out
}

/// Files that had malformed lines, each with how many were skipped.
pub type SkippedLines = Vec<(std::path::PathBuf, usize)>;

/// Several KG JSONL files read into one list of documents, with the files that had malformed
/// lines.
pub fn read_kg_files(paths: &[std::path::PathBuf]) -> qa_core::error::Result<(Vec<GraphDocument>, SkippedLines)> {
    let mut docs = Vec::new();
    let mut skipped = Vec::new();
    for p in paths {
        let (d, bad) = read_kg_jsonl(p)?;
        if bad > 0 {
            skipped.push((p.clone(), bad));
        }
        docs.extend(d);
    }
    Ok((docs, skipped))
}

/// Read a KG JSONL file, skipping (and counting) malformed lines.
pub fn read_kg_jsonl(path: &Path) -> qa_core::error::Result<(Vec<GraphDocument>, usize)> {
    use qa_core::error::IoContext;
    use std::io::BufRead;
    let f = std::fs::File::open(path).ctx("opening KG file", path)?;
    let mut docs = Vec::new();
    let mut bad = 0;
    for line in std::io::BufReader::new(f).lines() {
        let line = line.ctx("reading KG file", path)?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(d) => docs.push(d),
            Err(_) => bad += 1,
        }
    }
    Ok((docs, bad))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::chunk::ChunkMeta;

    fn chunk(id: &str, text: &str, images: &[&str]) -> Chunk {
        Chunk {
            id: id.into(),
            source_file: format!("{id}.md"),
            content: text.into(),
            metadata: ChunkMeta {
                heading_path: vec!["Power".into()],
                image_ids: images.iter().map(|s| s.to_string()).collect(),
                char_start: 0,
                char_end: text.len(),
                token_count: 10,
                content_sha256: String::new(),
            },
        }
    }

    #[test]
    fn furniture_fragments_and_console_output_are_not_concepts() {
        let chunks = vec![
            chunk("a_0", "The water-based dew point is lower than the frost point. See the wiring page for the pins.", &[]),
            chunk("b_0", "A water-based dew point above 20 feels muggy; the wiring page shows the frost point too.", &[]),
            chunk("c_0", "Next, the frost point.\n\n$ run\nbuild failed: previous error\nwarning: previous error\n\nThe frost point again.", &[]),
            chunk("d_0", "A build log.\n\n$ run\nprevious error here\nprevious error there", &[]),
            // A grammar listing's tokens are acronyms of no prose; an acronym of the prose stays.
            chunk("e_0", "The grammar of a name.\n\nident = ALPHA DIGIT\nsep = COLON DIGIT\n\nAn MQTT broker relays each message.", &[]),
            chunk("f_0", "More of the grammar.\n\npath = ALPHA COLON ALPHA\nnum = DIGIT DIGIT\n\nEvery MQTT topic has a name.", &[]),
        ];
        let kg = extract(&chunks, &BTreeMap::new(), "c_chunks.jsonl", &HashMap::new(), &HashMap::new(), ExtractParams { min_df: 2, min_related_weight: 2, max_per_chunk: 20 });
        let ids: Vec<&String> = kg.concepts.keys().collect();
        assert!(kg.concepts.contains_key("water-based dew point") && kg.concepts.contains_key("frost point"), "{ids:?}");
        assert!(!kg.concepts.contains_key("water-based dew"), "a fragment of a longer term: {ids:?}");
        assert!(!kg.concepts.contains_key("wiring page"), "document furniture: {ids:?}");
        assert!(!kg.concepts.contains_key("previous error"), "console output: {ids:?}");
        assert!(!kg.concepts.contains_key("next"), "an adverb: {ids:?}");
        assert!(kg.concepts.contains_key("mqtt"), "an acronym of the prose: {ids:?}");
        assert!(["alpha", "digit", "colon"].iter().all(|t| !kg.concepts.contains_key(*t)), "grammar tokens: {ids:?}");
        // A page published twice is one piece of evidence: its phrases need a second chunk.
        let page = "The frost point and the radiation shield.";
        let chunks = vec![chunk("a_0", page, &[]), chunk("b_0", page, &[]), chunk("c_0", "The frost point again.", &[])];
        let kg = extract(&chunks, &BTreeMap::new(), "c_chunks.jsonl", &HashMap::new(), &HashMap::new(), ExtractParams { min_df: 2, min_related_weight: 2, max_per_chunk: 20 });
        assert!(kg.concepts.contains_key("frost point") && !kg.concepts.contains_key("radiation shield"), "{:?}", kg.concepts.keys());
        assert_eq!(kg.related_edges, 0, "one text is not two co-occurrences");
    }

    #[test]
    fn a_heading_the_template_repeats_is_no_mention_of_the_identifier_spelled_like_it() {
        let mut chunks: Vec<Chunk> = ["a", "b", "c"]
            .iter()
            .map(|d| {
                let mut c = chunk(&format!("{d}_1"), "Summary\n\nThis chapter covered the frost point.", &[]);
                c.metadata.heading_path = vec!["Summary".into()];
                c.source_file = format!("{d}.md");
                c
            })
            .collect();
        chunks.push(chunk("d_0", "The `Summary` trait has a `summarize` method; implement `Summary` for the frost point report.", &[]));
        chunks.push(chunk("e_0", "A type that implements `Summary` can be printed.", &[]));
        let kg = extract(&chunks, &BTreeMap::new(), "c_chunks.jsonl", &HashMap::new(), &HashMap::new(), ExtractParams { min_df: 2, min_related_weight: 2, max_per_chunk: 20 });
        let summary = kg.concepts.get("summary").expect("the trait is a concept");
        assert_eq!(summary.df, 2, "mentioned where the trait is, not under every closing heading");
    }

    #[test]
    fn extracts_concepts_cooccurrence_and_images() {
        let chunks = vec![
            chunk("a_0", "Deep sleep extends battery life. The ESP32 calls `esp_deep_sleep_start()`.", &["img_panel"]),
            chunk("b_0", "In deep sleep the battery life of the ESP32 is measured in months.", &[]),
            chunk("c_0", "The solar panel charges the battery life budget; deep sleep helps.", &[]),
        ];
        let mut images = BTreeMap::new();
        images.insert(
            "img_panel".to_string(),
            ImageRef { id: "img_panel".into(), source_path: "c/panel.svg".into(), alt: "Solar panel feeding the ESP32".into(), caption: String::new() },
        );
        let kg = extract(&chunks, &images, "c_chunks.jsonl", &HashMap::new(), &HashMap::new(), ExtractParams { min_df: 2, min_related_weight: 2, max_per_chunk: 20 });
        assert!(kg.concepts.contains_key("deep sleep"), "{:?}", kg.concepts.keys());
        assert!(kg.concepts.contains_key("battery life"));
        assert!(kg.concepts.contains_key("esp32"));
        assert!(kg.concepts.contains_key("esp_deep_sleep_start"));
        assert_eq!(kg.concepts["esp32"].name, "ESP32");
        let rels: Vec<&KgRel> = kg.documents.iter().flat_map(|d| &d.relationships).collect();
        let related = rels.iter().find(|r| r.rel_type == "RELATED_TO" && r.source == "battery life" && r.target == "deep sleep").unwrap();
        assert_eq!(related.metadata[0].value, serde_json::json!(3));
        assert!(rels.iter().any(|r| r.rel_type == "HAS_IMAGE" && r.target == "img_panel"));
        assert!(rels.iter().any(|r| r.rel_type == "DEPICTS" && r.source == "img_panel" && r.target == "esp32"));
        assert_eq!(kg.documents[0].source.id, "c_chunks.jsonl::a_0");
        // A concept's properties are written once, with its first occurrence; later chunks name
        // it by id and label.
        let occurrences: Vec<&KgNode> = kg.documents.iter().flat_map(|d| &d.nodes).filter(|n| n.id == "deep sleep").collect();
        assert_eq!(occurrences.len(), 3);
        assert!(occurrences[0].metadata.iter().any(|m| m.key == "name" && m.value == "deep sleep"), "{:?}", occurrences[0]);
        assert!(occurrences[1..].iter().all(|n| n.metadata.is_empty() && n.node_type == "Concept"));
        // Most linked first: deep sleep and battery life are in all three chunks and related.
        let linked = concept_links(&kg.documents);
        let deep = linked.iter().find(|c| c.id == "deep sleep").unwrap();
        assert_eq!((deep.mentions, deep.name.as_str(), deep.kind.as_str()), (3, "deep sleep", "phrase"));
        assert!(deep.related >= 1 && linked[0].links() >= deep.links() && linked.windows(2).all(|w| w[0].links() >= w[1].links()));
        // the contract round-trips through JSON
        let line = serde_json::to_string(&kg.documents[0]).unwrap();
        let back: GraphDocument = serde_json::from_str(&line).unwrap();
        assert_eq!(back, kg.documents[0]);
    }
}
