//! Fusion and selection. Lanes are merged by weighted reciprocal rank fusion (Cormack et al.,
//! 2009): a passage scores Σ weight / (RRF_K + rank) over the lanes that rank it. Ranks, not
//! scores, because the lanes' scores live on unrelated scales (cosine, BM25, PageRank mass);
//! RRF_K = 60 damps the difference between neighbouring ranks so that agreement between lanes
//! outweighs one lane's enthusiasm. The lane weights were measured on the development sets (see
//! BENCHMARKS.md: every lane alone and fused).
//!
//! Selection then chooses the passages an answer draws on: the best passage, the best passage of
//! every sub-question (so a comparison has both sides), then the fused order — with at most
//! [`MAX_PER_FILE`] passages of one file while other files still offer candidates.

use std::collections::HashMap;

use super::{FusedHit, Lane, LaneRanking};

/// Reciprocal-rank damping constant.
pub const RRF_K: f32 = 60.0;
/// Passages of one source file in a selection before other files are preferred.
pub const MAX_PER_FILE: usize = 2;

/// How each lane ranked a passage: (lane, rank, lane score).
pub type LaneVotes<L> = Vec<(L, usize, f32)>;
/// A fused passage: (row, fused score, the lanes' votes).
pub type Fused<L> = (usize, f32, LaneVotes<L>);

/// Weighted reciprocal-rank fusion of several rankings of the same items; ties by row.
/// Returns (row, fused score, [(lane index, rank, lane score)]).
pub fn rrf<'a>(rankings: impl IntoIterator<Item = (usize, &'a LaneRanking, f32)>) -> Vec<Fused<usize>> {
    let mut acc: HashMap<usize, (f32, LaneVotes<usize>)> = HashMap::new();
    for (lane, ranking, weight) in rankings {
        if weight <= 0.0 {
            continue;
        }
        for h in &ranking.hits {
            let e = acc.entry(h.row).or_default();
            e.0 += weight / (RRF_K + h.rank as f32);
            e.1.push((lane, h.rank, h.score));
        }
    }
    let mut out: Vec<Fused<usize>> = acc.into_iter().map(|(row, (s, l))| (row, s, l)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// Fuse the three lanes with their weights.
pub fn fuse_lanes(lanes: &[(Lane, &LaneRanking, f32)]) -> Vec<Fused<Lane>> {
    rrf(lanes.iter().enumerate().map(|(i, (_, r, w))| (i, *r, *w)))
        .into_iter()
        .map(|(row, s, l)| (row, s, l.into_iter().map(|(i, rank, score)| (lanes[i].0, rank, score)).collect()))
        .collect()
}

/// The walk's ranking first, then the passages only the lanes ranked (in their fused order);
/// every passage keeps the lanes' ranks for the trace.
pub fn walk_first(walk: &LaneRanking, lanes: &[Fused<Lane>]) -> Vec<Fused<Lane>> {
    let by_row: HashMap<usize, &LaneVotes<Lane>> = lanes.iter().map(|l| (l.0, &l.2)).collect();
    let mut out: Vec<Fused<Lane>> =
        walk.hits.iter().map(|h| (h.row, h.score, by_row.get(&h.row).map(|v| (*v).clone()).unwrap_or_default())).collect();
    for l in lanes {
        if !walk.hits.iter().any(|h| h.row == l.0) {
            out.push((l.0, 0.0, l.2.clone()));
        }
    }
    out
}

/// Choose `k` passages from the fused ranking: the best one, then each sub-question's best
/// (`sub_best`, in sub-question order), then the fused order with file diversity.
pub fn select(fused: &[FusedHit], sub_best: &[usize], k: usize) -> Vec<FusedHit> {
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
    fn selection_covers_sub_questions_and_spreads_over_files() {
        let fused = vec![hit(0, "a", 0.9), hit(1, "a", 0.8), hit(2, "a", 0.7), hit(3, "a", 0.6), hit(4, "b", 0.5), hit(5, "c", 0.4)];
        let picked: Vec<usize> = select(&fused, &[5], 4).iter().map(|h| h.row).collect();
        assert_eq!(picked, vec![0, 5, 1, 4], "best, the sub-question's best, then no third passage of file a while b has one");
        let picked: Vec<usize> = select(&fused, &[], 6).iter().map(|h| h.row).collect();
        assert_eq!(picked, vec![0, 1, 4, 5, 2, 3], "file a's later passages only after the others");
        assert!(select(&[], &[3], 5).is_empty());
    }
}
