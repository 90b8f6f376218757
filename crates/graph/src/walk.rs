//! The graph lane's walk: personalized PageRank over the knowledge graph's passages and entities.
//!
//! The nodes are the chunks (passages) and the concepts of the KG; the edges are its `MENTIONS`
//! (passage ↔ entity, stronger when the entity is the passage's document title) and its
//! concept–concept relationships (`RELATED_TO` co-occurrence, typed relations from LLM
//! extraction). A walk restarts at the question's entities, so the mass that reaches a passage
//! says how closely it is tied to them — through a shared entity, which is how the second passage
//! of a bridge question is found even when it shares no word with the question.
//!
//! The adjacency is a snapshot of the same KG that is loaded into the graph store, written once per
//! index generation (`entity_graph.bin`): a walk needs thousands of neighbour lookups, which would
//! cost more as store round-trips than the whole question. The walk is the forward-push
//! approximation of PageRank (Andersen, Chung, Lang 2006): it only touches nodes near the seeds,
//! so its cost does not grow with the corpus.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::Path;

use qa_core::error::{IoContext, QaError, Result};
use crate::kg::GraphDocument;

/// File of the entity graph inside an index generation.
pub const FILE: &str = "entity_graph.bin";
const MAGIC: &[u8; 6] = b"QAEG2\n";

/// A passage's own title entity weighs this much more than an entity it mentions.
const TITLE_WEIGHT: f32 = 3.0;
/// A mention of another document's title (a hyperlink, in effect) weighs this much more than a
/// mention of any other entity: it says exactly which passage the walk should visit next.
const TITLE_LINK_WEIGHT: f32 = 3.0;
/// Entity–entity co-occurrence edges, relative to a mention.
const RELATED_SCALE: f32 = 0.5;
/// Typed relations (LLM extraction) relative to a mention.
const TYPED_SCALE: f32 = 1.0;

/// Compressed sparse rows: `to[off[i]..off[i+1]]` are node i's neighbours.
#[derive(Debug, Default, Clone, PartialEq)]
struct Csr {
    off: Vec<u32>,
    to: Vec<u32>,
    w: Vec<f32>,
}

impl Csr {
    fn from_lists(lists: Vec<Vec<(u32, f32)>>) -> Csr {
        let mut c = Csr { off: Vec::with_capacity(lists.len() + 1), to: Vec::new(), w: Vec::new() };
        c.off.push(0);
        for mut l in lists {
            l.sort_by_key(|x| x.0);
            // Parallel edges (a pair named by several relationships) add up.
            let mut merged: Vec<(u32, f32)> = Vec::with_capacity(l.len());
            for (t, w) in l {
                match merged.last_mut() {
                    Some(last) if last.0 == t => last.1 += w,
                    _ => merged.push((t, w)),
                }
            }
            for (t, w) in merged {
                c.to.push(t);
                c.w.push(w);
            }
            c.off.push(c.to.len() as u32);
        }
        c
    }
    fn rows(&self) -> usize {
        self.off.len().saturating_sub(1)
    }
    fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let (a, b) = (self.off[i] as usize, self.off[i + 1] as usize);
        (&self.to[a..b], &self.w[a..b])
    }
}

/// Share of the passages beyond which a document's title, named there, is no link to it.
pub const LINK_MAX_SHARE: f32 = 0.01;
/// In a small corpus a title named in this many passages still links.
pub const LINK_MIN_DF: usize = 3;

/// Passages, entities and the edges between them.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct EntityGraph {
    n_chunks: usize,
    n_entities: usize,
    /// chunk → entities it mentions (weight: mention strength × entity specificity).
    chunk_entities: Csr,
    /// entity → chunks that mention it (weight: mention strength).
    entity_chunks: Csr,
    /// entity → related entities.
    entity_entities: Csr,
    /// entity → the passages of the document it is the title of.
    entity_titles: Csr,
}

/// Weight and kind of a passage–entity link, as the KG states it.
fn mention_weight(meta: &[crate::kg::Meta]) -> f32 {
    let count = meta.iter().find(|m| m.key == "count").and_then(|m| m.value.as_f64()).unwrap_or(1.0).max(1.0) as f32;
    let title = meta.iter().any(|m| m.key == "role" && m.value.as_str() == Some("title"));
    (1.0 + count.ln()) * if title { TITLE_WEIGHT } else { 1.0 }
}

impl EntityGraph {
    /// Build from the KG documents. `chunk_row` maps a chunk id to its row; `entity_pos` a concept
    /// id to its position in the generation's concept list. Edges to unknown nodes are skipped.
    pub fn build(docs: &[GraphDocument], chunk_row: &HashMap<String, usize>, entity_pos: &HashMap<String, usize>, n_chunks: usize) -> EntityGraph {
        let n_entities = entity_pos.len();
        let mut ce: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n_chunks];
        let mut ec: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n_entities];
        let mut ee: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n_entities];
        for d in docs {
            let chunk_id = d.source.id.rsplit_once("::").map_or(d.source.id.as_str(), |(_, c)| c);
            let row = chunk_row.get(chunk_id).copied();
            for r in &d.relationships {
                match r.rel_type.as_str() {
                    "MENTIONS" => {
                        let (Some(c), Some(&e)) = (row, entity_pos.get(&r.target)) else { continue };
                        let w = mention_weight(&r.metadata);
                        ce[c].push((e as u32, w));
                        ec[e].push((c as u32, w));
                    }
                    "HAS_IMAGE" | "DEPICTS" => {}
                    t => {
                        let (Some(&a), Some(&b)) = (entity_pos.get(&r.source), entity_pos.get(&r.target)) else { continue };
                        if a == b {
                            continue;
                        }
                        let w = if t == "RELATED_TO" {
                            let weight = r.metadata.iter().find(|m| m.key == "weight").and_then(|m| m.value.as_f64()).unwrap_or(1.0) as f32;
                            RELATED_SCALE * (1.0 + weight.max(1.0).ln())
                        } else {
                            TYPED_SCALE
                        };
                        ee[a].push((b as u32, w));
                        ee[b].push((a as u32, w));
                    }
                }
            }
        }
        // From a passage, a walk prefers its specific entities: a hub named in half the corpus
        // says little about where to go next. Entities that are some document's title lead to
        // that document.
        let df: Vec<usize> = ec.iter().map(Vec::len).collect();
        let n = n_chunks.max(1) as f32;
        let mut is_title = vec![false; n_entities];
        let mut titled: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n_entities];
        for d in docs {
            let chunk_id = d.source.id.rsplit_once("::").map_or(d.source.id.as_str(), |(_, c)| c);
            for r in d.relationships.iter().filter(|r| r.rel_type == "MENTIONS") {
                if r.metadata.iter().any(|m| m.key == "role" && m.value.as_str() == Some("title"))
                    && let Some(&e) = entity_pos.get(&r.target)
                {
                    is_title[e] = true;
                    if let Some(&c) = chunk_row.get(chunk_id) {
                        titled[e].push((c as u32, 1.0));
                    }
                }
            }
        }
        let link = |e: usize| if is_title[e] { TITLE_LINK_WEIGHT } else { 1.0 };
        for list in &mut ce {
            for (e, w) in list.iter_mut() {
                *w *= ((n + 1.0) / (df[*e as usize].max(1) as f32)).ln().max(0.1) * link(*e as usize);
            }
        }
        EntityGraph {
            n_chunks,
            n_entities,
            chunk_entities: Csr::from_lists(ce),
            entity_chunks: Csr::from_lists(ec),
            entity_entities: Csr::from_lists(ee),
            entity_titles: Csr::from_lists(titled),
        }
    }

    /// Passages of the documents whose titles passage `c` mentions (not its own): the documents
    /// it links to, as (entity, passage). A title links like a hyperlink only while it is specific:
    /// one named by more than [`LINK_MAX_SHARE`] of the passages (at least [`LINK_MIN_DF`]) — the
    /// album "United" named inside every "United States" — links to nothing.
    pub fn linked_passages(&self, c: usize) -> Vec<(usize, usize)> {
        if c >= self.n_chunks {
            return Vec::new();
        }
        let max_df = LINK_MIN_DF.max((self.n_chunks as f32 * LINK_MAX_SHARE) as usize);
        let (ents, _) = self.chunk_entities.row(c);
        let mut out = Vec::new();
        for &e in ents {
            let (ps, _) = self.entity_titles.row(e as usize);
            if ps.contains(&(c as u32)) || self.entity_df(e as usize) > max_df {
                continue; // c's own title, or a title too common to be a link
            }
            out.extend(ps.iter().map(|&p| (e as usize, p as usize)));
        }
        out
    }

    /// Whether entity `e` is the title of some document.
    pub fn is_title(&self, e: usize) -> bool {
        e < self.n_entities && !self.entity_titles.row(e).0.is_empty()
    }

    /// Passages (chunk rows) in the graph.
    pub fn chunk_count(&self) -> usize {
        self.n_chunks
    }
    /// Entities (concept rows) in the graph.
    pub fn entity_count(&self) -> usize {
        self.n_entities
    }
    /// Number of passages that mention entity `e`.
    pub fn entity_df(&self, e: usize) -> usize {
        if e < self.n_entities { self.entity_chunks.row(e).0.len() } else { 0 }
    }
    /// Entities a passage is linked to, with their weights.
    pub fn chunk_links(&self, c: usize) -> Vec<(usize, f32)> {
        if c >= self.n_chunks {
            return Vec::new();
        }
        let (to, w) = self.chunk_entities.row(c);
        to.iter().zip(w).map(|(&e, &w)| (e as usize, w)).collect()
    }

    /// Personalized PageRank from `seeds` (node, weight): chunks are nodes `0..n_chunks`,
    /// entity `e` is node `n_chunks + e`. Returns the passages' scores, best first (ties by row),
    /// at most `k`. `restart` is the probability of jumping back to the seeds at each step.
    /// `chunk_bias`, when given, multiplies the weight of every step into a passage (a walk biased
    /// toward passages relevant to the question: from an entity, it prefers the passage that also
    /// matches what else the question asks).
    pub fn personalized_pagerank(&self, seeds: &[(Node, f32)], restart: f32, k: usize, chunk_bias: Option<&dyn Fn(usize) -> f32>) -> Vec<(usize, f32)> {
        let total_nodes = self.n_chunks + self.n_entities;
        let total: f32 = seeds.iter().map(|s| s.1.max(0.0)).sum();
        if total <= 0.0 || total_nodes == 0 {
            return Vec::new();
        }
        let mut residual = vec![0f32; total_nodes];
        let mut estimate = vec![0f32; total_nodes];
        let mut queued = vec![false; total_nodes];
        let mut queue: VecDeque<usize> = VecDeque::new();
        for (node, w) in seeds {
            let Some(i) = self.index(*node) else { continue };
            residual[i] += w.max(0.0) / total;
            if !queued[i] {
                queued[i] = true;
                queue.push_back(i);
            }
        }
        // A node is pushed while its residual is above this share of the seed mass; the error of
        // every estimate is bounded by it.
        const EPSILON: f32 = 1e-5;
        const MAX_PUSHES: usize = 500_000;
        let mut pushes = 0;
        while let Some(u) = queue.pop_front() {
            queued[u] = false;
            let r = residual[u];
            if r < EPSILON {
                continue;
            }
            pushes += 1;
            if pushes > MAX_PUSHES {
                break;
            }
            residual[u] = 0.0;
            estimate[u] += restart * r;
            let spread = (1.0 - restart) * r;
            let mut targets = self.neighbours(u);
            if let Some(bias) = chunk_bias {
                for (v, w) in targets.iter_mut() {
                    if *v < self.n_chunks {
                        *w *= bias(*v).max(0.0);
                    }
                }
            }
            let wsum: f32 = targets.iter().map(|t| t.1).sum();
            if wsum <= 0.0 {
                // A dead end returns its mass to itself: the estimate keeps it.
                estimate[u] += spread;
                continue;
            }
            for (v, w) in targets {
                residual[v] += spread * w / wsum;
                if residual[v] >= EPSILON && !queued[v] {
                    queued[v] = true;
                    queue.push_back(v);
                }
            }
        }
        let mut out: Vec<(usize, f32)> = (0..self.n_chunks).filter(|&c| estimate[c] > 0.0).map(|c| (c, estimate[c])).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }

    fn index(&self, node: Node) -> Option<usize> {
        match node {
            Node::Chunk(c) if c < self.n_chunks => Some(c),
            Node::Entity(e) if e < self.n_entities => Some(self.n_chunks + e),
            _ => None,
        }
    }

    /// Outgoing (node, weight) of unified node `u`.
    fn neighbours(&self, u: usize) -> Vec<(usize, f32)> {
        if u < self.n_chunks {
            let (to, w) = self.chunk_entities.row(u);
            to.iter().zip(w).map(|(&e, &w)| (self.n_chunks + e as usize, w)).collect()
        } else {
            let e = u - self.n_chunks;
            let (to, w) = self.entity_chunks.row(e);
            let mut out: Vec<(usize, f32)> = to.iter().zip(w).map(|(&c, &w)| (c as usize, w)).collect();
            let (to, w) = self.entity_entities.row(e);
            out.extend(to.iter().zip(w).map(|(&x, &w)| (self.n_chunks + x as usize, w)));
            out
        }
    }

    /// Write the graph (little-endian: magic, counts, then the three CSR blocks).
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut buf: Vec<u8> = Vec::new();
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&(self.n_chunks as u32).to_le_bytes());
        buf.extend_from_slice(&(self.n_entities as u32).to_le_bytes());
        for csr in [&self.chunk_entities, &self.entity_chunks, &self.entity_entities, &self.entity_titles] {
            buf.extend_from_slice(&(csr.off.len() as u32).to_le_bytes());
            csr.off.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
            buf.extend_from_slice(&(csr.to.len() as u32).to_le_bytes());
            csr.to.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
            csr.w.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
        }
        let mut f = std::fs::File::create(path).ctx("creating", path)?;
        f.write_all(&buf).ctx("writing", path)?;
        f.sync_all().ctx("syncing", path)
    }

    /// Read and check a graph written by [`EntityGraph::save`]: every offset and node index must
    /// be in range, so a damaged file is an error, never a wrong walk.
    pub fn load(path: &Path) -> Result<EntityGraph> {
        let bytes = std::fs::read(path).ctx("reading", path)?;
        let bad = |reason: &str| QaError::Data { path: path.to_path_buf(), reason: reason.to_string() };
        if !bytes.starts_with(MAGIC) {
            return Err(bad("not an entity graph file"));
        }
        let mut at = MAGIC.len();
        let u32_at = |at: &mut usize| -> Result<u32> {
            let b = bytes.get(*at..*at + 4).ok_or_else(|| bad("truncated"))?;
            *at += 4;
            Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let n_chunks = u32_at(&mut at)? as usize;
        let n_entities = u32_at(&mut at)? as usize;
        let mut blocks = Vec::new();
        for (rows, targets) in [(n_chunks, n_entities), (n_entities, n_chunks), (n_entities, n_entities), (n_entities, n_chunks)] {
            let n_off = u32_at(&mut at)? as usize;
            if n_off != rows + 1 {
                return Err(bad("row count does not match the header"));
            }
            let off: Vec<u32> = (0..n_off).map(|_| u32_at(&mut at)).collect::<Result<_>>()?;
            let nnz = u32_at(&mut at)? as usize;
            let to: Vec<u32> = (0..nnz).map(|_| u32_at(&mut at)).collect::<Result<_>>()?;
            let w: Vec<f32> = (0..nnz).map(|_| u32_at(&mut at).map(f32::from_bits)).collect::<Result<_>>()?;
            let monotone = off.windows(2).all(|p| p[0] <= p[1]) && off.first() == Some(&0) && off.last().copied() == Some(nnz as u32);
            if !monotone || to.iter().any(|&t| t as usize >= targets) || w.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Err(bad("inconsistent adjacency"));
            }
            blocks.push(Csr { off, to, w });
        }
        if at != bytes.len() {
            return Err(bad("trailing bytes"));
        }
        let entity_titles = blocks.pop().unwrap_or_default();
        let entity_entities = blocks.pop().unwrap_or_default();
        let entity_chunks = blocks.pop().unwrap_or_default();
        let chunk_entities = blocks.pop().unwrap_or_default();
        let g = EntityGraph { n_chunks, n_entities, chunk_entities, entity_chunks, entity_entities, entity_titles };
        debug_assert_eq!(g.chunk_entities.rows(), n_chunks);
        Ok(g)
    }
}

/// A seed of the walk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Node {
    /// A passage, by chunk row.
    Chunk(usize),
    /// An entity, by its position among the concepts.
    Entity(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kg::{KgNode, KgRel, Meta};

    fn mention(doc: &str, concept: &str, title: bool) -> KgRel {
        let mut metadata = vec![Meta { key: "count".into(), value: 1.into() }];
        if title {
            metadata.push(Meta { key: "role".into(), value: "title".into() });
        }
        KgRel { source: doc.into(), target: concept.into(), rel_type: "MENTIONS".into(), metadata }
    }

    fn doc(chunk: &str, rels: Vec<KgRel>) -> GraphDocument {
        GraphDocument { source: KgNode { id: format!("c.jsonl::{chunk}"), node_type: "Document".into(), metadata: vec![] }, nodes: vec![], relationships: rels }
    }

    /// A bridge: the question names the orchestra; its passage names the founder; the founder's
    /// own passage is two hops away and shares nothing else with the question.
    fn bridge() -> (EntityGraph, HashMap<String, usize>) {
        let docs = vec![
            doc("orchestra_0", vec![mention("c.jsonl::orchestra_0", "orchestra", true), mention("c.jsonl::orchestra_0", "founder", false)]),
            doc("founder_0", vec![mention("c.jsonl::founder_0", "founder", true), mention("c.jsonl::founder_0", "cello", false)]),
            doc("other_0", vec![mention("c.jsonl::other_0", "cello", false), mention("c.jsonl::other_0", "city", true)]),
            doc("noise_0", vec![mention("c.jsonl::noise_0", "city", false)]),
        ];
        let rows: HashMap<String, usize> = ["orchestra_0", "founder_0", "other_0", "noise_0"].iter().enumerate().map(|(i, c)| (c.to_string(), i)).collect();
        let ents: HashMap<String, usize> = ["orchestra", "founder", "cello", "city"].iter().enumerate().map(|(i, c)| (c.to_string(), i)).collect();
        (EntityGraph::build(&docs, &rows, &ents, 4), ents)
    }

    #[test]
    fn the_second_hop_outranks_unrelated_passages() {
        let (g, ents) = bridge();
        let ranked = g.personalized_pagerank(&[(Node::Entity(ents["orchestra"]), 1.0)], 0.5, 10, None);
        let order: Vec<usize> = ranked.iter().map(|r| r.0).collect();
        assert_eq!(order[0], 0, "the seed's own passage first: {ranked:?}");
        assert_eq!(order[1], 1, "the founder's passage, two hops away, second: {ranked:?}");
        assert!(order.iter().position(|&c| c == 3).is_none_or(|p| p > 1));
    }

    #[test]
    fn a_title_links_only_while_few_passages_name_it() {
        let (g, ents) = bridge();
        assert_eq!(g.linked_passages(0), vec![(ents["founder"], 1)], "the orchestra's passage names the founder, the title of passage 1");
        // 400 passages name "city" (the title of passage 2): 4 % of them, no longer a link.
        let mut docs = vec![
            doc("orchestra_0", vec![mention("c.jsonl::orchestra_0", "orchestra", true), mention("c.jsonl::orchestra_0", "city", false), mention("c.jsonl::orchestra_0", "founder", false)]),
            doc("founder_0", vec![mention("c.jsonl::founder_0", "founder", true)]),
            doc("city_0", vec![mention("c.jsonl::city_0", "city", true)]),
        ];
        let mut rows: HashMap<String, usize> = ["orchestra_0", "founder_0", "city_0"].iter().enumerate().map(|(i, c)| (c.to_string(), i)).collect();
        for i in 0..97 {
            let id = format!("street_{i}");
            docs.push(doc(&id, vec![mention(&format!("c.jsonl::{id}"), "city", false)]));
            rows.insert(id, 3 + i);
        }
        let ents: HashMap<String, usize> = ["orchestra", "founder", "city"].iter().enumerate().map(|(i, c)| (c.to_string(), i)).collect();
        let g = EntityGraph::build(&docs, &rows, &ents, 100);
        assert_eq!(g.entity_df(ents["city"]), 99);
        assert_eq!(g.linked_passages(0), vec![(ents["founder"], 1)], "\"city\" is named in 99 of 100 passages: no link");
    }

    #[test]
    fn save_and_load_round_trip_and_damage_is_an_error() {
        let (g, _) = bridge();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        g.save(&path).unwrap();
        assert_eq!(EntityGraph::load(&path).unwrap(), g);
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n - 30] = 0xff;
        bytes[n - 29] = 0xff;
        bytes[n - 28] = 0xff;
        bytes[n - 27] = 0x7f;
        std::fs::write(&path, &bytes).unwrap();
        assert!(EntityGraph::load(&path).is_err());
        std::fs::write(&path, &bytes[..n / 2]).unwrap();
        assert!(EntityGraph::load(&path).is_err());
    }

    #[test]
    fn no_seed_no_walk() {
        let (g, _) = bridge();
        assert!(g.personalized_pagerank(&[], 0.5, 10, None).is_empty());
        assert!(g.personalized_pagerank(&[(Node::Entity(99), 1.0)], 0.5, 10, None).is_empty());
    }
}
