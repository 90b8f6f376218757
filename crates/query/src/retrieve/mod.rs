//! Retrieval: three lanes rank the corpus's passages independently — dense (embedding + HNSW),
//! lexical (BM25) and graph (personalized PageRank from the question's entities over the
//! knowledge graph) — and [`fusion`] merges them by reciprocal rank, then chooses the passages an
//! answer draws on with coverage in mind. Every lane's ranks and scores are kept for the trace.

pub mod decompose;
pub mod fusion;
pub mod lanes;

use serde::{Deserialize, Serialize};

pub use decompose::{parse_llm_subqueries, plan_subqueries, subqueries, subquery_request, subquery_schema, SubqueryPlan, MIN_SUBQUERY_SIMILARITY};

/// A retrieval lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    Dense,
    Lexical,
    Graph,
}

impl Lane {
    pub const ALL: [Lane; 3] = [Lane::Dense, Lane::Lexical, Lane::Graph];
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Dense => "dense",
            Lane::Lexical => "lexical",
            Lane::Graph => "graph",
        }
    }
}

/// One passage as ranked by one lane.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LaneHit {
    /// Row of the chunk in the index's id map.
    pub row: usize,
    /// 1-based rank in the lane.
    pub rank: usize,
    /// The lane's own score: cosine (dense), BM25 (lexical), PageRank mass (graph).
    pub score: f32,
}

/// A lane's ranking of the corpus (its best passages, best first).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct LaneRanking {
    pub hits: Vec<LaneHit>,
    /// Why the lane produced nothing, when it did not (no entity grounded, no lexical index, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    pub ms: f64,
}

/// A passage after fusion: its fused score and where each lane ranked it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FusedHit {
    pub row: usize,
    pub chunk_id: String,
    pub source_file: String,
    pub score: f32,
    /// (lane, rank, lane score) for every lane that ranked it.
    pub lanes: Vec<(Lane, usize, f32)>,
    /// Best cosine similarity to the question or one of its sub-questions (0 when the dense lane
    /// did not rank it): the answer writers' relevance signal.
    pub similarity: f32,
    /// Index of the sub-question it answers best (0 = the question itself).
    pub subquery: usize,
}

/// An entity the graph lane started from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Seed {
    pub id: String,
    pub name: String,
    pub weight: f32,
    /// `question` (named in the question), `similar` (its name's embedding is close to the
    /// question's) or `passage` (named in a passage of the first round).
    pub via: String,
}

/// Everything retrieval decided for one question.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Retrieval {
    pub subqueries: Vec<String>,
    pub dense: LaneRanking,
    pub lexical: LaneRanking,
    /// The graph lane: a walk from the question's entities alone.
    pub graph: LaneRanking,
    /// The fusing walk: from the question's entities and the lanes' best passages.
    pub walk: LaneRanking,
    pub seeds: Vec<Seed>,
    /// Names of the entities through which bridge passages were reached (the second hop).
    #[serde(default)]
    pub bridge_terms: Vec<String>,
    /// The fused ranking (longer than the selection), best first.
    pub fused: Vec<FusedHit>,
    /// The passages the answer may draw on, in order.
    pub selected: Vec<FusedHit>,
    /// How many passages were selected and why.
    pub k: usize,
    pub k_reason: String,
}

impl Retrieval {
    pub fn lane(&self, lane: Lane) -> &LaneRanking {
        match lane {
            Lane::Dense => &self.dense,
            Lane::Lexical => &self.lexical,
            Lane::Graph => &self.graph,
        }
    }

    /// The selected passages, then the rest of the fused ranking: the order `qa eval` scores.
    pub fn ranked_rows(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.selected.iter().map(|h| h.row).collect();
        for h in &self.fused {
            if !out.contains(&h.row) {
                out.push(h.row);
            }
        }
        out
    }
}
