//! Fusion and selection. Lanes are merged by weighted reciprocal rank fusion (Cormack et al.,
//! 2009): a passage scores Σ weight / (k + rank) over the lanes that rank it. Ranks, not
//! scores, because the lanes' scores live on unrelated scales (cosine, BM25, PageRank mass).
//! The lanes are fused with k = [`RRF_K`] = 10: with the customary 60, a passage that two lanes
//! rank 12th and 14th outranked one that the best lane ranks 1st and the others miss, and the fusion
//! lost to its own dense lane on technical text (BENCHMARKS.md, "Fusion against its lanes").
//!
//! The fusing walk (personalized PageRank from the question's entities and the lanes' best
//! passages) reaches the second hop of a bridge question that no text lane ranks, but on text
//! whose concepts are spread over many sections it is noisier than the text lanes. It is
//! trusted only when the question links firmly into the graph — it names at least
//! [`WALK_TRUST_ENTITIES`] entities of the graph — and the walk agrees with the text lanes — its
//! top passage's file is among the fused lanes' first [`WALK_AGREEMENT_FILES`] files. A trusted
//! walk is interleaved with the lanes' fusion (one fused passage, then two of the walk's); an
//! untrusted one only contributes through the graph lane.
//!
//! Selection then chooses the passages an answer draws on: the best passage, the best passage of
//! every sub-question (so a comparison has both sides), then the fused order — with at most
//! [`MAX_PER_FILE`] passages of one file while other files still offer candidates.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{FusedHit, Lane, LaneRanking};

/// Reciprocal-rank damping constant of the lane fusion.
pub const RRF_K: f32 = 10.0;
/// Damping constant when one lane's rankings of several sub-questions are merged (there, a
/// passage several sub-questions rank moderately is what a multi-part question needs).
pub const SUBQUERY_RRF_K: f32 = 60.0;
/// Entities of the graph the question must name before the walk is trusted.
pub const WALK_TRUST_ENTITIES: usize = 3;
/// The walk's top passage must come from one of the fused lanes' first this-many files.
pub const WALK_AGREEMENT_FILES: usize = 3;

/// How the lanes' rankings became the fused ranking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FusionMode {
    /// Reciprocal-rank fusion of the dense, lexical and graph lanes.
    #[default]
    Lanes,
    /// The lanes' fusion interleaved with the fusing walk (one lane passage, two walk passages).
    WalkInterleaved,
}
/// Passages of one source file in a selection before other files are preferred.
pub const MAX_PER_FILE: usize = 2;

/// How each lane ranked a passage: (lane, rank, lane score).
pub type LaneVotes<L> = Vec<(L, usize, f32)>;
/// A fused passage: (row, fused score, the lanes' votes).
pub type Fused<L> = (usize, f32, LaneVotes<L>);

/// Weighted reciprocal-rank fusion of several rankings of the same items with damping `k`; ties
/// by row. Returns (row, fused score, [(lane index, rank, lane score)]).
pub fn rrf<'a>(k: f32, rankings: impl IntoIterator<Item = (usize, &'a LaneRanking, f32)>) -> Vec<Fused<usize>> {
    let mut acc: HashMap<usize, (f32, LaneVotes<usize>)> = HashMap::new();
    for (lane, ranking, weight) in rankings {
        if weight <= 0.0 {
            continue;
        }
        for h in &ranking.hits {
            let e = acc.entry(h.row).or_default();
            e.0 += weight / (k + h.rank as f32);
            e.1.push((lane, h.rank, h.score));
        }
    }
    let mut out: Vec<Fused<usize>> = acc.into_iter().map(|(row, (s, l))| (row, s, l)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// Fuse the three lanes with their weights.
pub fn fuse_lanes(lanes: &[(Lane, &LaneRanking, f32)]) -> Vec<Fused<Lane>> {
    rrf(RRF_K, lanes.iter().enumerate().map(|(i, (_, r, w))| (i, *r, *w)))
        .into_iter()
        .map(|(row, s, l)| (row, s, l.into_iter().map(|(i, rank, score)| (lanes[i].0, rank, score)).collect()))
        .collect()
}

/// Whether the fusing walk is trusted for this question: it names `question_entities` entities of
/// the graph, and `walk_top_file` (the file of the walk's best passage) is among the first files
/// of the lanes' fusion `lane_files`.
pub fn walk_trusted(question_entities: usize, walk_top_file: Option<&str>, lane_files: &[&str]) -> bool {
    question_entities >= WALK_TRUST_ENTITIES && walk_top_file.is_some_and(|f| lane_files.iter().take(WALK_AGREEMENT_FILES).any(|l| *l == f))
}

/// The lanes' fusion interleaved with the walk: one passage of the lanes, then two of the walk,
/// skipping passages already placed; every passage keeps the lanes' votes.
pub fn interleave_walk(lanes: &[Fused<Lane>], walk: &LaneRanking) -> Vec<Fused<Lane>> {
    let by_row: HashMap<usize, &Fused<Lane>> = lanes.iter().map(|l| (l.0, l)).collect();
    let mut out: Vec<Fused<Lane>> = Vec::with_capacity(lanes.len() + walk.hits.len());
    let mut placed: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let (mut li, mut wi) = (0, 0);
    let mut turn = 0usize;
    while li < lanes.len() || wi < walk.hits.len() {
        let from_walk = !turn.is_multiple_of(3);
        turn += 1;
        let row = if from_walk {
            while wi < walk.hits.len() && placed.contains(&walk.hits[wi].row) {
                wi += 1;
            }
            let Some(h) = walk.hits.get(wi) else { continue };
            wi += 1;
            h.row
        } else {
            while li < lanes.len() && placed.contains(&lanes[li].0) {
                li += 1;
            }
            let Some(l) = lanes.get(li) else { continue };
            li += 1;
            l.0
        };
        placed.insert(row);
        out.push(by_row.get(&row).map(|l| (*l).clone()).unwrap_or((row, 0.0, Vec::new())));
    }
    out
}

/// Choose `k` passages from the fused ranking: the best one, then the `anchor` when its file is
/// another, then each sub-question's best (`sub_best`, in sub-question order), then the fused
/// order with file diversity.
pub fn select(fused: &[FusedHit], anchor: Option<usize>, sub_best: &[usize], k: usize) -> Vec<FusedHit> {
    let mut out: Vec<FusedHit> = Vec::new();
    let by_row: HashMap<usize, &FusedHit> = fused.iter().map(|h| (h.row, h)).collect();
    let take = |row: usize, out: &mut Vec<FusedHit>| {
        if out.len() < k
            && !out.iter().any(|h| h.row == row)
            && let Some(h) = by_row.get(&row)
        {
            out.push((*h).clone());
        }
    };
    if let Some(first) = fused.first() {
        take(first.row, &mut out);
    }
    if let Some(row) = anchor
        && let Some(h) = by_row.get(&row)
        && !out.iter().any(|o| o.source_file == h.source_file)
    {
        take(row, &mut out);
    }
    for &row in sub_best {
        take(row, &mut out);
    }
    let per_file = |out: &Vec<FusedHit>, file: &str| out.iter().filter(|h| h.source_file == file).count();
    let mut deferred: Vec<usize> = Vec::new();
    for h in fused {
        if out.len() >= k {
            break;
        }
        if out.iter().any(|o| o.row == h.row) {
            continue;
        }
        if per_file(&out, &h.source_file) >= MAX_PER_FILE {
            deferred.push(h.row);
            continue;
        }
        take(h.row, &mut out);
    }
    // Only when no other file has anything left do more passages of one file come in.
    for row in deferred {
        take(row, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::LaneHit;

    fn ranking(rows: &[usize]) -> LaneRanking {
        LaneRanking { hits: rows.iter().enumerate().map(|(i, &row)| LaneHit { row, rank: i + 1, score: 1.0 }).collect(), skipped: None, ms: 0.0 }
    }

    fn hit(row: usize, file: &str, score: f32) -> FusedHit {
        FusedHit { row, chunk_id: format!("c{row}"), source_file: file.into(), score, lanes: vec![], similarity: 0.0, subquery: 0 }
    }

    #[test]
    fn agreement_between_lanes_beats_one_lane_alone() {
        let dense = ranking(&[1, 2, 3]);
        let lexical = ranking(&[2, 4, 1]);
        let graph = ranking(&[5, 2]);
        let fused = fuse_lanes(&[(Lane::Dense, &dense, 1.0), (Lane::Lexical, &lexical, 1.0), (Lane::Graph, &graph, 1.0)]);
        assert_eq!(fused[0].0, 2, "ranked by all three lanes");
        assert_eq!(fused[1].0, 1, "ranked first and third");
        assert_eq!(fused[0].2.len(), 3);
        // A zero weight removes a lane.
        let fused = fuse_lanes(&[(Lane::Dense, &dense, 1.0), (Lane::Graph, &graph, 0.0)]);
        assert!(!fused.iter().any(|f| f.0 == 5));
    }

    #[test]
    fn a_lane_s_first_passage_beats_two_weak_votes() {
        // Dense ranks 7 first; lexical and graph rank 8 twelfth and fourteenth. With k = 60 the
        // two weak votes won (1/72 + 1/74 > 1/61); with k = 10 the strong one does.
        let dense = ranking(&[7, 1, 2]);
        let lexical = ranking(&[11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 8]);
        let graph = ranking(&[31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 8]);
        let fused = fuse_lanes(&[(Lane::Dense, &dense, 1.0), (Lane::Lexical, &lexical, 1.0), (Lane::Graph, &graph, 1.0)]);
        let pos = |row: usize| fused.iter().position(|f| f.0 == row).unwrap();
        assert!(pos(7) < pos(8), "{fused:?}");
    }

    #[test]
    fn a_trusted_walk_is_interleaved_one_to_two() {
        let lanes: Vec<Fused<Lane>> = vec![(1, 0.3, vec![(Lane::Dense, 1, 0.9)]), (2, 0.2, vec![]), (3, 0.1, vec![])];
        let walk = ranking(&[1, 9, 8, 2]);
        let rows: Vec<usize> = interleave_walk(&lanes, &walk).iter().map(|f| f.0).collect();
        assert_eq!(rows, vec![1, 9, 8, 2, 3], "lane 1, walk 9 and 8 (1 already placed), lane 2, walk 2 skipped, lane 3");
        assert_eq!(interleave_walk(&lanes, &walk)[0].2.len(), 1, "votes kept");
        assert!(walk_trusted(3, Some("b"), &["a", "b", "c"]));
        assert!(!walk_trusted(2, Some("b"), &["a", "b", "c"]), "too few entities");
        assert!(!walk_trusted(4, Some("d"), &["a", "b", "c", "d"]), "the walk disagrees with the lanes");
        assert!(!walk_trusted(4, None, &["a"]));
    }

    #[test]
    fn selection_covers_sub_questions_and_spreads_over_files() {
        let fused = vec![hit(0, "a", 0.9), hit(1, "a", 0.8), hit(2, "a", 0.7), hit(3, "a", 0.6), hit(4, "b", 0.5), hit(5, "c", 0.4)];
        let picked: Vec<usize> = select(&fused, None, &[5], 4).iter().map(|h| h.row).collect();
        assert_eq!(picked, vec![0, 5, 1, 4], "best, the sub-question's best, then no third passage of file a while b has one");
        let picked: Vec<usize> = select(&fused, None, &[], 6).iter().map(|h| h.row).collect();
        assert_eq!(picked, vec![0, 1, 4, 5, 2, 3], "file a's later passages only after the others");
        assert!(select(&[], None, &[3], 5).is_empty());
        // The page both dense readings put first comes second, before the sub-question's best;
        // not when the best passage is of its file already.
        let picked: Vec<usize> = select(&fused, Some(4), &[5], 4).iter().map(|h| h.row).collect();
        assert_eq!(picked, vec![0, 4, 5, 1]);
        let picked: Vec<usize> = select(&fused, Some(2), &[5], 4).iter().map(|h| h.row).collect();
        assert_eq!(picked, vec![0, 5, 1, 4], "file a is first already");
    }
}
