//! The three lanes over one index generation, and the retrieval of one question through them.

use std::collections::HashMap;
use std::time::Instant;

use super::fusion::{self, fuse_lanes, FusionMode};
use super::{Bridge, FusedHit, Lane, LaneHit, LaneRanking, Retrieval, Seed};
use qa_core::chunk::Chunk;
use qa_embed::dot;
use qa_core::error::Result;
use qa_graph::evidence::ConceptIndex;
use qa_graph::walk::{EntityGraph, Node};
use qa_graph::kg::link::AliasIndex;
use qa_index::store::RetrievalStore;

/// Passages each lane ranks (the fused ranking draws from these).
pub const LANE_DEPTH: usize = 50;
/// Restart probability of the graph lane's walk: at 0.5 most of the mass stays within two hops
/// of the seeds (a passage, then the entities it names, then their passages).
pub const RESTART: f32 = 0.5;
/// A concept whose name embeds this close to the question seeds the walk even when the question
/// does not spell it.
pub const SIMILAR_CONCEPT: f32 = 0.7;
/// First-round passages that seed the second round of the walk.
pub const PASSAGE_SEEDS: usize = 3;
/// Share of the walk's restart mass given to first-round passages (the rest to the question's
/// entities).
pub const PASSAGE_SEED_SHARE: f32 = 0.5;
/// Temperature of the walk's relevance bias: a step into a passage weighs exp((cos − 1) / T).
pub const BIAS_TEMPERATURE: f32 = 0.2;
/// Passages of linked documents placed right after the top passage.
pub const BRIDGE_PASSAGES: usize = 2;
/// Passages selected for a simple question.
pub const SIMPLE_K: usize = 5;
/// Passages selected for a comparison, multi-part or multi-hop question.
pub const COMPLEX_K: usize = 8;

/// Lane weights in the fusion (see BENCHMARKS.md for the measurements behind them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneWeights {
    pub dense: f32,
    pub lexical: f32,
    pub graph: f32,
}

impl Default for LaneWeights {
    fn default() -> Self {
        LaneWeights { dense: 1.0, lexical: 1.0, graph: 1.0 }
    }
}

/// What one generation offers the lanes. The entity graph is optional (and a store may have no
/// lexical index) so that an answer degrades to fewer lanes instead of failing.
pub struct Lanes<'a> {
    /// Where the dense and lexical lanes search: the generation's files or a remote index.
    pub store: &'a dyn RetrievalStore,
    /// Every chunk's unit vector, row-major (`dim` floats a row): the walk's relevance bias.
    pub vectors: &'a [f32],
    pub dim: usize,
    pub chunks: &'a [Chunk],
    pub graph: Option<&'a EntityGraph>,
    pub concepts: &'a ConceptIndex,
    pub aliases: Option<&'a AliasIndex>,
    pub weights: LaneWeights,
}

/// How many passages to select: `Some(k)` when the user fixed it (`--k`, `top_k`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SelectOptions {
    pub fixed_k: Option<usize>,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Turn (row, score) lists, best first, into a ranking.
fn ranking(rows: Vec<(usize, f32)>, t: Instant) -> LaneRanking {
    LaneRanking { hits: rows.into_iter().enumerate().map(|(i, (row, score))| LaneHit { row, rank: i + 1, score }).collect(), skipped: None, ms: ms(t) }
}

fn skipped(reason: &str, t: Instant) -> LaneRanking {
    LaneRanking { hits: Vec::new(), skipped: Some(reason.to_string()), ms: ms(t) }
}

/// Merge per-sub-question rankings of one lane into one (reciprocal rank), keeping each row's
/// best lane score.
fn merge_subquery_rankings(lists: &[LaneRanking], t: Instant) -> LaneRanking {
    if lists.len() == 1 {
        let mut r = lists[0].clone();
        r.ms = ms(t);
        return r;
    }
    let best: HashMap<usize, f32> = lists.iter().flat_map(|l| l.hits.iter()).fold(HashMap::new(), |mut m, h| {
        let e = m.entry(h.row).or_insert(f32::MIN);
        *e = e.max(h.score);
        m
    });
    let merged = fusion::rrf(fusion::SUBQUERY_RRF_K, lists.iter().enumerate().map(|(i, l)| (i, l, 1.0)));
    ranking(merged.into_iter().take(LANE_DEPTH).map(|(row, _, _)| (row, best[&row])).collect(), t)
}

impl Lanes<'_> {
    /// Retrieve for `subs` (the question first, then its sub-questions) with their embeddings.
    pub fn retrieve(&self, question: &str, subs: &[String], vecs: &[Vec<f32>], opts: SelectOptions) -> Result<Retrieval> {
        // Dense: one nearest-neighbour search per sub-question.
        let t = Instant::now();
        let dense_per: Vec<LaneRanking> = vecs.iter().map(|v| self.store.dense(v, LANE_DEPTH).map(|r| ranking(r, t))).collect::<Result<_>>()?;
        let dense = merge_subquery_rankings(&dense_per, t);
        // Lexical: one BM25 search per sub-question.
        let t = Instant::now();
        let lexical_per: Vec<LaneRanking> = match subs.iter().map(|s| self.store.lexical(s, LANE_DEPTH)).collect::<Result<Option<Vec<_>>>>()? {
            Some(lists) => lists.into_iter().map(|r| ranking(r, t)).collect(),
            None => vec![skipped("this index has no lexical index (rebuild it with `qa index --rebuild`)", t)],
        };
        let lexical = if lexical_per.len() == subs.len() { merge_subquery_rankings(&lexical_per, t) } else { lexical_per[0].clone() };
        // Graph: a walk from the question's entities, then one that also starts from the best
        // passages of the other lanes (the bridge to a second hop).
        let t = Instant::now();
        let (graph, walk, seeds) = match self.graph {
            Some(g) => self.graph_lane(g, question, vecs, &dense, &lexical, t),
            None => {
                let none = skipped("this index has no entity graph (rebuild it with `qa index --rebuild`)", t);
                (none.clone(), none, Vec::new())
            }
        };
        let lanes3 = [(Lane::Dense, &dense, self.weights.dense), (Lane::Lexical, &lexical, self.weights.lexical), (Lane::Graph, &graph, self.weights.graph)];
        // The lanes' reciprocal-rank fusion, interleaved with the fusing walk when the walk is
        // trusted (see fusion.rs).
        let lane_fusion = fuse_lanes(&lanes3);
        let file_of = |row: usize| self.chunks.get(row).map(|c| c.source_file.as_str());
        let mut lane_files: Vec<&str> = Vec::new();
        for f in &lane_fusion {
            if lane_files.len() >= fusion::WALK_AGREEMENT_FILES {
                break;
            }
            if let Some(file) = file_of(f.0)
                && !lane_files.contains(&file)
            {
                lane_files.push(file);
            }
        }
        let question_entities = seeds.iter().filter(|s| s.via == "question").count();
        let fusion_mode = if fusion::walk_trusted(question_entities, walk.hits.first().and_then(|h| file_of(h.row)), &lane_files) {
            FusionMode::WalkInterleaved
        } else {
            FusionMode::Lanes
        };
        let fused_raw = match fusion_mode {
            FusionMode::WalkInterleaved => fusion::interleave_walk(&lane_fusion, &walk),
            FusionMode::Lanes => lane_fusion,
        };
        let dense_best: HashMap<usize, (f32, usize)> = dense_per.iter().enumerate().fold(HashMap::new(), |mut m, (qi, l)| {
            for h in &l.hits {
                let e = m.entry(h.row).or_insert((f32::MIN, qi));
                if h.score > e.0 {
                    *e = (h.score, qi);
                }
            }
            m
        });
        let fused: Vec<FusedHit> = fused_raw
            .into_iter()
            .filter_map(|(row, score, lanes)| {
                let c = self.chunks.get(row)?;
                let (similarity, subquery) = dense_best.get(&row).copied().map(|(s, q)| (s.max(0.0), q)).unwrap_or((0.0, 0));
                Some(FusedHit { row, chunk_id: c.id.clone(), source_file: c.source_file.clone(), score, lanes, similarity, subquery })
            })
            .take(LANE_DEPTH)
            .collect();
        // Each sub-question's best passage (its own dense and lexical rankings fused).
        let sub_best: Vec<usize> = (1..subs.len())
            .filter_map(|i| {
                let lists: Vec<(usize, &LaneRanking, f32)> = [dense_per.get(i), lexical_per.get(i)].into_iter().flatten().enumerate().map(|(j, l)| (j, l, 1.0)).collect();
                fusion::rrf(fusion::SUBQUERY_RRF_K, lists).first().map(|f| f.0)
            })
            .collect();
        let (k, k_reason) = self.choose_k(subs, &fused, &dense, &lexical, opts);
        let mut fused = fused;
        let bridge = match self.graph {
            Some(g) => self.bridge_lane(g, &fused, &seeds, vecs),
            None => (LaneRanking::default(), Vec::new()),
        };
        // The bridge: the best passages of the documents the top passage links to come right
        // after it.
        let mut at = 1;
        let mut bridge_terms: Vec<String> = Vec::new();
        let mut bridges: Vec<Bridge> = Vec::new();
        let top_chunk = fused.first().map(|f| f.chunk_id.clone());
        for (h, via) in bridge.0.hits.iter().zip(&bridge.1).take(BRIDGE_PASSAGES) {
            if let Some(pos) = fused.iter().position(|f| f.row == h.row) {
                if pos > at {
                    let item = fused.remove(pos);
                    fused.insert(at, item);
                }
                at += 1;
                if let Some(c) = self.concepts.concepts.get(*via) {
                    if !bridge_terms.contains(&c.name) {
                        bridge_terms.push(c.name.clone());
                    }
                    if let (Some(from), Some(to)) = (&top_chunk, self.chunks.get(h.row)) {
                        bridges.push(Bridge { entity: c.name.clone(), from_chunk: from.clone(), to_chunk: to.id.clone() });
                    }
                }
            }
        }
        // When the question's own embedding and the dense lane (question and sub-questions
        // merged) put the same page first, that page keeps a place among the first two: two
        // readings of the question agree on it, and the lexical and graph lanes agreeing on
        // other pages must not push it out of the passages read first. (Also under a trusted
        // walk: exempting it gave HotpotQA back one question at k = 5 and took the rustc book's
        // and the Unstable Book's gains at k = 2 away.)
        let own_top = dense_per.first().and_then(|l| l.hits.first());
        let anchor = own_top.filter(|h| dense.hits.first().is_some_and(|d| file_of(d.row) == file_of(h.row))).map(|h| h.row);
        let selected = fusion::select(&fused, anchor, &sub_best, k);
        // A bridge is evidence only when both of its passages were selected.
        bridges.retain(|b| [&b.from_chunk, &b.to_chunk].iter().all(|id| selected.iter().any(|s| &&s.chunk_id == id)));
        Ok(Retrieval { subqueries: subs.to_vec(), question_dense: dense_per.first().cloned().unwrap_or_default(), dense, lexical, graph, walk, seeds, bridge_terms, bridges, fusion: fusion_mode, fused, selected, k, k_reason, store: self.store.describe(), store_note: None })
    }

    fn choose_k(&self, subs: &[String], fused: &[FusedHit], dense: &LaneRanking, lexical: &LaneRanking, opts: SelectOptions) -> (usize, String) {
        if let Some(k) = opts.fixed_k {
            return (k, "set by --k / top_k".into());
        }
        if subs.len() > 1 {
            return (COMPLEX_K, format!("{} sub-questions", subs.len() - 1));
        }
        // A passage near the top that only the graph reached: the question spans a second hop.
        let near = |l: &LaneRanking, row: usize| l.hits.iter().take(2 * SIMPLE_K).any(|h| h.row == row);
        let bridged = fused.iter().take(SIMPLE_K).any(|h| h.lanes.iter().any(|l| l.0 == Lane::Graph) && !near(dense, h.row) && !near(lexical, h.row));
        if bridged {
            return (COMPLEX_K, "a top passage was reached only through the graph (multi-hop)".into());
        }
        (SIMPLE_K, "simple question".into())
    }

    /// Entities named in the question (and concepts whose names mean nearly the same), weighted by
    /// how specific they are: an entity named in two passages says more than one named in two
    /// hundred.
    fn question_seeds(&self, g: &EntityGraph, question: &str, q_vec: &[f32]) -> Vec<(usize, Seed)> {
        let n = g.chunk_count().max(1) as f32;
        let specificity = |pos: usize| ((n + 1.0) / g.entity_df(pos).max(1) as f32).ln().max(0.1);
        let mut seeds: HashMap<usize, Seed> = HashMap::new();
        if let Some(aliases) = self.aliases {
            for id in aliases.scan(question).into_keys() {
                let Some(pos) = self.concepts.position(&id) else { continue };
                let name = self.concepts.concepts[pos].name.clone();
                seeds.insert(pos, Seed { id, name, weight: specificity(pos), via: "question".into() });
            }
        }
        // A concept nested in a longer one the question names ("dew point" in "dew point
        // temperature") is the same mention.
        let named: Vec<String> = seeds.values().map(|s| format!(" {} ", s.id)).collect();
        seeds.retain(|_, s| !named.iter().any(|n| n.len() > s.id.len() + 2 && n.contains(&format!(" {} ", s.id))));
        if !q_vec.is_empty() {
            for (pos, sim) in self.concepts.similar(q_vec, SIMILAR_CONCEPT) {
                if seeds.contains_key(&pos) {
                    continue;
                }
                let c = &self.concepts.concepts[pos];
                seeds.insert(pos, Seed { id: c.id.clone(), name: c.name.clone(), weight: specificity(pos) * sim, via: "similar".into() });
            }
        }
        let mut out: Vec<(usize, Seed)> = seeds.into_iter().collect();
        out.sort_by(|a, b| b.1.weight.total_cmp(&a.1.weight).then(a.0.cmp(&b.0)));
        out
    }

    fn graph_lane(&self, g: &EntityGraph, question: &str, vecs: &[Vec<f32>], dense: &LaneRanking, lexical: &LaneRanking, t: Instant) -> (LaneRanking, LaneRanking, Vec<Seed>) {
        let entity_seeds = self.question_seeds(g, question, &vecs[0]);
        let entity_mass: f32 = entity_seeds.iter().map(|s| s.1.weight).sum();
        // The walk prefers passages that match the question too (cosine to the question or a
        // sub-question, sharpened): among the passages an entity leads to, the one that also says
        // what the question asks about gets the mass.
        let tau = BIAS_TEMPERATURE;
        // Computed once per passage (the walk asks for the same passages many times).
        let memo = std::cell::RefCell::new(vec![f32::NAN; self.chunks.len()]);
        let bias = |row: usize| -> f32 {
            if let Some(&b) = memo.borrow().get(row)
                && !b.is_nan()
            {
                return b;
            }
            let Some(v) = self.vectors.get(row * self.dim..(row + 1) * self.dim) else { return 0.0 };
            let sim = vecs.iter().map(|q| dot(q, v)).fold(f32::MIN, f32::max);
            let b = ((sim - 1.0) / tau).exp();
            if let Some(slot) = memo.borrow_mut().get_mut(row) {
                *slot = b;
            }
            b
        };
        let bias_ref: &dyn Fn(usize) -> f32 = &bias;
        let bias_opt = (tau > 0.0 && !self.vectors.is_empty()).then_some(bias_ref);
        let restart = RESTART;
        let mut walk: Vec<(Node, f32)> = entity_seeds.iter().map(|(pos, s)| (Node::Entity(*pos), s.weight)).collect();
        let mut seeds: Vec<Seed> = entity_seeds.into_iter().map(|(_, s)| s).collect();
        // Round one: from the question's entities alone.
        let first = if walk.is_empty() { LaneRanking::default() } else { ranking(g.personalized_pagerank(&walk, restart, LANE_DEPTH, bias_opt), t) };
        // Round two: also from the passages all lanes put first, so the entities those passages
        // name (the bridge of a two-hop question) lead to their own passages.
        let first_round = fusion::rrf(fusion::SUBQUERY_RRF_K, [(0, dense, 1.0), (1, lexical, 1.0), (2, &first, 1.0)]);
        let passages: Vec<usize> = first_round.iter().take(PASSAGE_SEEDS).map(|f| f.0).collect();
        let share = PASSAGE_SEED_SHARE;
        let passage_mass = if entity_mass > 0.0 { entity_mass * share / (1.0 - share).max(1e-3) } else { 1.0 };
        let harmonic: f32 = (1..=passages.len()).map(|j| 1.0 / j as f32).sum();
        for (i, &row) in passages.iter().enumerate() {
            // Earlier passages weigh more (1, 1/2, 1/3 …), normalised to the passage share.
            let w = passage_mass * (1.0 / (i + 1) as f32) / harmonic;
            walk.push((Node::Chunk(row), w));
            if let Some(c) = self.chunks.get(row) {
                seeds.push(Seed { id: c.id.clone(), name: c.source_file.clone(), weight: w, via: "passage".into() });
            }
        }
        let first = if first.hits.is_empty() { skipped("no entity of the question is in the graph", t) } else { first };
        if walk.is_empty() {
            return (first, skipped("no entity of the question is in the graph and no passage was retrieved", t), seeds);
        }
        let t2 = Instant::now();
        (first, ranking(g.personalized_pagerank(&walk, restart, LANE_DEPTH, bias_opt), t2), seeds)
    }
}

impl Lanes<'_> {
    /// Passages of the documents that the top passage links to (names the title of), not named
    /// by the question itself, by their relevance to the question: the second hop of a bridge
    /// question.
    fn bridge_lane(&self, g: &EntityGraph, fused: &[FusedHit], seeds: &[Seed], vecs: &[Vec<f32>]) -> (LaneRanking, Vec<usize>) {
        let t = Instant::now();
        let Some(first) = fused.first() else { return (LaneRanking::default(), Vec::new()) };
        let named: Vec<&str> = seeds.iter().filter(|s| s.via == "question").map(|s| s.id.as_str()).collect();
        // Passage → (best cosine to the question or a sub-question, the entity that links it).
        let mut best: HashMap<usize, (f32, usize)> = HashMap::new();
        for (e, p) in g.linked_passages(first.row) {
            if named.contains(&self.concepts.concepts.get(e).map(|c| c.id.as_str()).unwrap_or("")) {
                continue;
            }
            let Some(v) = self.vectors.get(p * self.dim..(p + 1) * self.dim) else { continue };
            let sim = vecs.iter().map(|q| dot(q, v)).fold(f32::MIN, f32::max);
            let slot = best.entry(p).or_insert((f32::MIN, e));
            if sim > slot.0 {
                *slot = (sim, e);
            }
        }
        let mut rows: Vec<(usize, f32, usize)> = best.into_iter().map(|(p, (s, e))| (p, s, e)).collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let via = rows.iter().map(|r| r.2).collect();
        (ranking(rows.into_iter().map(|(p, s, _)| (p, s)).collect(), t), via)
    }
}
