//! `qa traces diff A B`: two runs of the same question set, matched by question text.
//!
//! Run A is held as one small entry per distinct question (total latency, chunk ids, a hash of
//! the answer); run B is streamed against it. When a question occurs several times in a run, its
//! last occurrence counts.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use serde::Serialize;

use super::{scan, Filter, ScanCounts, TracesError};

struct Entry {
    total: f64,
    chunks: HashSet<String>,
    answer: u64,
    seen_in_b: bool,
}

fn hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.trim().hash(&mut h);
    h.finish()
}

/// One question asked in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionDiff {
    /// The question text (the match key).
    pub question: String,
    /// Total latency in run A, in milliseconds.
    pub total_ms_a: f64,
    /// Total latency in run B, in milliseconds.
    pub total_ms_b: f64,
    /// B/A total latency; null when A took 0 ms.
    pub latency_ratio: Option<f64>,
    /// Jaccard index of the retrieved chunk-id sets (1 when both are empty).
    pub chunk_jaccard: f64,
    /// The answer text differs (compared after trimming surrounding whitespace).
    pub answer_changed: bool,
}

/// The totals of a [`Diff`].
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Questions asked in both runs.
    pub matched: usize,
    /// Median of the B/A latency ratios; null when no ratio exists.
    pub median_latency_ratio: Option<f64>,
    /// Mean chunk Jaccard index over the matched questions; null when none matched.
    pub mean_chunk_jaccard: Option<f64>,
    /// Matched questions whose answer changed.
    pub answers_changed: usize,
    /// Questions asked only in run A.
    pub only_in_a: usize,
    /// Questions asked only in run B.
    pub only_in_b: usize,
    /// Lines of A's file skipped as not a trace record.
    pub malformed_lines_a: usize,
    /// Lines of B's file skipped as not a trace record.
    pub malformed_lines_b: usize,
}

/// The report of `qa traces diff` (also its `--json` form).
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    /// The matched questions, sorted by question text.
    pub questions: Vec<QuestionDiff>,
    /// Questions only in run A, sorted.
    pub only_in_a: Vec<String>,
    /// Questions only in run B, sorted.
    pub only_in_b: Vec<String>,
    /// The totals.
    pub summary: Summary,
}

/// Jaccard index of two sets: |A ∩ B| / |A ∪ B|, 1 when both are empty.
fn jaccard<T: Eq + Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Median of unsorted values (the mean of the two middle values for an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Compare run `a` with run `b` (two trace files), keeping the traces that pass `filter`.
pub fn diff(a: &Path, b: &Path, filter: &Filter) -> Result<Diff, TracesError> {
    let mut runs: HashMap<String, Entry> = HashMap::new();
    let ca: ScanCounts = scan(a, filter, |t| {
        let chunks = t.retrieved_chunks.iter().map(|c| c.chunk_id.clone()).collect();
        runs.insert(t.user_question.clone(), Entry { total: t.latency_ms.total, chunks, answer: hash(&t.final_answer), seen_in_b: false });
    })?;
    // Last occurrence in B wins too: collect B's per-question results keyed by question.
    let mut in_b: HashMap<String, QuestionDiff> = HashMap::new();
    let mut only_b: BTreeSet<String> = BTreeSet::new();
    let cb = scan(b, filter, |t| match runs.get_mut(&t.user_question) {
        Some(e) => {
            e.seen_in_b = true;
            let chunks: HashSet<String> = t.retrieved_chunks.iter().map(|c| c.chunk_id.clone()).collect();
            let d = QuestionDiff {
                question: t.user_question.clone(),
                total_ms_a: e.total,
                total_ms_b: t.latency_ms.total,
                latency_ratio: (e.total > 0.0).then(|| t.latency_ms.total / e.total),
                chunk_jaccard: jaccard(&e.chunks, &chunks),
                answer_changed: e.answer != hash(&t.final_answer),
            };
            in_b.insert(t.user_question.clone(), d);
        }
        None => {
            only_b.insert(t.user_question.clone());
        }
    })?;
    let mut questions: Vec<QuestionDiff> = in_b.into_values().collect();
    questions.sort_by(|x, y| x.question.cmp(&y.question));
    let mut only_in_a: Vec<String> = runs.iter().filter(|(_, e)| !e.seen_in_b).map(|(q, _)| q.clone()).collect();
    only_in_a.sort();
    let only_in_b: Vec<String> = only_b.into_iter().collect();
    let ratios: Vec<f64> = questions.iter().filter_map(|q| q.latency_ratio).collect();
    let mean_j = (!questions.is_empty()).then(|| questions.iter().map(|q| q.chunk_jaccard).sum::<f64>() / questions.len() as f64);
    let summary = Summary {
        matched: questions.len(),
        median_latency_ratio: median(ratios),
        mean_chunk_jaccard: mean_j,
        answers_changed: questions.iter().filter(|q| q.answer_changed).count(),
        only_in_a: only_in_a.len(),
        only_in_b: only_in_b.len(),
        malformed_lines_a: ca.malformed,
        malformed_lines_b: cb.malformed,
    };
    Ok(Diff { questions, only_in_a, only_in_b, summary })
}

/// The human-readable form of `qa traces diff`: one line per matched question, the unmatched
/// questions, then the summary.
pub fn render_text(d: &Diff) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "{:>9} {:>9} {:>7} {:>7} {:<8} question", "A ms", "B ms", "B/A", "chunks", "answer");
    for q in &d.questions {
        let ratio = q.latency_ratio.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into());
        let _ = writeln!(
            o,
            "{:>9.1} {:>9.1} {:>7} {:>7.2} {:<8} {}",
            q.total_ms_a,
            q.total_ms_b,
            ratio,
            q.chunk_jaccard,
            if q.answer_changed { "changed" } else { "same" },
            super::truncate(&q.question, 70)
        );
    }
    for q in &d.only_in_a {
        let _ = writeln!(o, "only in A: {}", super::truncate(q, 90));
    }
    for q in &d.only_in_b {
        let _ = writeln!(o, "only in B: {}", super::truncate(q, 90));
    }
    let s = &d.summary;
    let f = |x: Option<f64>| x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
    let _ = writeln!(
        o,
        "\n{} matched question(s): median latency ratio B/A {}, mean chunk Jaccard {}, {} answer(s) changed; {} only in A, {} only in B",
        s.matched,
        f(s.median_latency_ratio),
        f(s.mean_chunk_jaccard),
        s.answers_changed,
        s.only_in_a,
        s.only_in_b
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_and_median() {
        let a: HashSet<&str> = ["x", "y", "z"].into();
        let b: HashSet<&str> = ["y", "z", "w"].into();
        assert_eq!(jaccard(&a, &b), 0.5);
        assert_eq!(jaccard::<&str>(&HashSet::new(), &HashSet::new()), 1.0);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
    }
}
