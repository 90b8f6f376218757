//! Retrieval: three lanes rank the corpus's passages independently — dense (embedding + HNSW),
//! lexical (BM25) and graph (personalized PageRank from the question's entities over the
//! knowledge graph) — and fusion merges them by reciprocal rank, then chooses the passages an
//! answer draws on with coverage in mind. Every lane's ranks and scores are kept for the trace.
//! The queries searched are the question and its sub-questions ([`SubqueryPrompt`] asks an LLM
//! for more).

mod decompose;
mod fusion;
pub(crate) mod lanes;
pub(crate) mod plan;
pub(crate) mod remote;

use serde::{Deserialize, Serialize};

pub use decompose::SubqueryPrompt;
pub(crate) use decompose::subqueries;
pub use fusion::FusionMode;
pub(crate) use plan::{plan_subqueries, SubqueryPlan, MIN_SUBQUERY_SIMILARITY};

/// A retrieval lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    /// Embedding similarity through the HNSW index.
    Dense,
    /// BM25 over the lexical index.
    Lexical,
    /// Personalized PageRank from the question's entities over the entity graph.
    Graph,
}

impl Lane {
    /// The lane's name in traces and reports.
    pub(crate) fn as_str(self) -> &'static str {
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
    /// The ranked passages, best first.
    pub hits: Vec<LaneHit>,
    /// Why the lane produced nothing, when it did not (no entity grounded, no lexical index, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Time the lane took, in milliseconds.
    pub ms: f64,
}

/// A passage after fusion: its fused score and where each lane ranked it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FusedHit {
    /// Row of the chunk in the index's id map.
    pub row: usize,
    /// The chunk's id.
    pub chunk_id: String,
    /// The file the chunk comes from.
    pub source_file: String,
    /// The lanes' reciprocal-rank fusion score (0 for a passage only the trusted walk reached).
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
    /// The concept id, or the chunk id for a passage seed.
    pub id: String,
    /// The concept's name, or the passage's source file.
    pub name: String,
    /// Restart weight in the walk (unnormalised): the entity's specificity (times its similarity
    /// for a `similar` seed), or the passage's part of the passage share.
    pub weight: f32,
    /// `question` (named in the question), `similar` (its name's embedding is close to the
    /// question's) or `passage` (named in a passage of the first round).
    pub via: String,
}

/// A second hop: the top passage names `entity`, the title of the document `to_chunk` comes from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Bridge {
    /// The entity's name.
    pub entity: String,
    /// The passage that names it (the top passage).
    pub from_chunk: String,
    /// The passage of the document titled by it.
    pub to_chunk: String,
}

/// Everything retrieval decided for one question.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Retrieval {
    /// The queries searched: the question, then its sub-questions.
    pub subqueries: Vec<String>,
    /// The dense lane (the sub-questions' rankings merged).
    pub dense: LaneRanking,
    /// The dense ranking of the question alone (no sub-questions): plain RAG's, scored by `qa eval`
    /// as the baseline.
    #[serde(skip)]
    pub question_dense: LaneRanking,
    /// The lexical lane (the sub-questions' rankings merged).
    pub lexical: LaneRanking,
    /// The graph lane: a walk from the question's entities alone.
    pub graph: LaneRanking,
    /// The fusing walk: from the question's entities and the lanes' best passages.
    pub walk: LaneRanking,
    /// The entities and passages the walks started from.
    pub seeds: Vec<Seed>,
    /// Names of the entities through which bridge passages were reached (the second hop).
    #[serde(default)]
    pub bridge_terms: Vec<String>,
    /// The bridges of a two-hop question: an entity the top passage names whose own document's
    /// passage was placed right after it.
    #[serde(default)]
    pub bridges: Vec<Bridge>,
    /// How the fused ranking was made (the lanes alone, or with the trusted walk).
    #[serde(default)]
    pub fusion: FusionMode,
    /// The fused ranking (longer than the selection), best first.
    pub fused: Vec<FusedHit>,
    /// The passages the answer may draw on, in order.
    pub selected: Vec<FusedHit>,
    /// How many passages were selected.
    pub k: usize,
    /// Why that many (`simple question`, `2 sub-questions`, `set by --k / top_k`, …).
    pub k_reason: String,
    /// Where the dense and lexical lanes searched: `local`, or the remote store (no credentials).
    #[serde(default)]
    pub store: String,
    /// Why the remote store did not answer and the generation's own files did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_note: Option<String>,
}

impl Retrieval {
    /// The ranking of one of the three lanes.
    pub(crate) fn lane(&self, lane: Lane) -> &LaneRanking {
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
