//! `qa eval`: retrieval evaluation built in. Each question of a JSONL file is asked in-process
//! through the whole answer pipeline; its ranking of distinct source files is scored against the
//! gold files (recall@k, all@k, MRR), each lane alone is scored the same way (what it would
//! have found by itself), the answer is checked for the gold answer string and key terms, and the
//! questions are asked a second time to check that the rankings are identical.
//!
//! Lines: `{"id", "question", "gold": ["<file>", …], "answer"?, "key_terms"?: ["…"]}`. A gold
//! entry matches a retrieved source file when it equals the file's path relative to the corpus
//! root, or its last path components. A line with `"answerable": false` (and no gold) is a
//! question the corpus cannot answer: it is right when the answer says the documents do not
//! answer it, and it is left out of the retrieval scores. Answerable questions that get "not in
//! the documents" are counted too (the false refusals).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::ask::Engine;
use qa_core::error::{IoContext, QaError, Result};
use qa_core::stats::percentile;
use crate::retrieve::{Lane, Retrieval};

/// One evaluation question.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct EvalQuestion {
    /// The question's id in reports.
    pub id: String,
    /// The question asked.
    pub question: String,
    /// The source files that hold its answer (paths relative to the corpus root, or their last
    /// components).
    pub gold: Vec<String>,
    /// The gold answer string, when known.
    #[serde(default)]
    pub answer: Option<String>,
    /// Terms a good answer contains.
    #[serde(default)]
    pub key_terms: Vec<String>,
    /// A label of the question's type (e.g. `single` or `two` gold files), kept but not scored.
    #[serde(default)]
    pub kind: Option<String>,
    /// False: the corpus cannot answer the question; the right answer says so.
    #[serde(default = "yes")]
    pub answerable: bool,
}

fn yes() -> bool {
    true
}

/// Read an evaluation file; a malformed line is an error naming its line number.
pub fn read_questions(path: &Path) -> Result<Vec<EvalQuestion>> {
    let text = std::fs::read_to_string(path).ctx("reading the evaluation questions", path)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let q: EvalQuestion = serde_json::from_str(line).map_err(|e| QaError::Data {
            path: path.to_path_buf(),
            reason: format!("line {}: {e} (expected {{\"id\", \"question\", \"gold\": [files], \"answer\"?}})", i + 1),
        })?;
        if q.question.trim().is_empty() || (q.answerable && q.gold.is_empty()) {
            return Err(QaError::Data { path: path.to_path_buf(), reason: format!("line {}: an empty question, or no gold file on an answerable question", i + 1) });
        }
        if !q.answerable && !q.gold.is_empty() {
            return Err(QaError::Data { path: path.to_path_buf(), reason: format!("line {}: \"answerable\": false with gold files", i + 1) });
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err(QaError::Data { path: path.to_path_buf(), reason: "no questions".into() });
    }
    Ok(out)
}

/// Scores of one ranking against the gold files, at each cutoff.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Scores {
    /// k → mean share of gold files in the top k distinct files.
    pub recall: BTreeMap<usize, f64>,
    /// k → share of questions with every gold file in the top k.
    pub all: BTreeMap<usize, f64>,
    /// Mean reciprocal rank of the first gold file.
    pub mrr: f64,
}

/// Per-question result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QuestionResult {
    /// The question's id.
    pub id: String,
    /// The question asked.
    pub question: String,
    /// Its gold files.
    pub gold: Vec<String>,
    /// Distinct files in ranked order (the first 10).
    pub ranked_files: Vec<String>,
    /// 1-based rank of each gold file (None: not in the ranking).
    pub gold_ranks: Vec<Option<usize>>,
    /// The same ranks in each lane's own ranking (what the lane would have found by itself).
    #[serde(default)]
    pub lane_gold_ranks: BTreeMap<String, Vec<Option<usize>>>,
    /// Each lane's first ten distinct files, for replaying a fusion offline.
    #[serde(default)]
    pub lane_files: BTreeMap<String, Vec<String>>,
    /// The question's `kind` label, when it has one.
    #[serde(default)]
    pub kind: Option<String>,
    /// Whether the answer text contains the gold answer (None: the question has none).
    pub answer_contains_gold: Option<bool>,
    /// Share of the key terms found in the answer text (None: the question has none).
    pub key_term_coverage: Option<f64>,
    /// Time to answer, in milliseconds.
    pub latency_ms: f64,
    /// Passages the retrieval selected.
    pub k_selected: usize,
    /// Who wrote the answer (`extractive` or `llm`).
    pub synthesizer: String,
    /// Whether the corpus can answer the question (the line's `answerable`).
    pub answerable: bool,
    /// Whether the answer answered (false: it said the documents do not answer the question).
    pub found: bool,
    /// Share of the question's focus the evidence held (None: not checked).
    pub focus_share: Option<f32>,
    /// Share of the focus the best single selected passage held (None: not checked).
    #[serde(default)]
    pub passage_focus_share: Option<f32>,
    /// The whole focus check: the words the evidence lacks, together and in its best passage, and
    /// those no passage of the corpus uses (None: not checked).
    #[serde(default)]
    pub focus: Option<crate::answer::focus::FocusCoverage>,
    /// The best cosine similarity of a selected passage to the question or a sub-question.
    #[serde(default)]
    pub best_similarity: f32,
    /// Cosines of the question alone to its ten nearest passages, best first: how far the best
    /// stands out from the rest.
    #[serde(default)]
    pub dense_profile: Vec<f32>,
    /// The chunks the retrieval selected, in order.
    #[serde(default)]
    pub selected_chunks: Vec<String>,
    /// The answer's text without its evidence blocks.
    #[serde(default)]
    pub answer_text: String,
}

/// How often the answers said "not in the documents", on each kind of question.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct NotFoundRates {
    /// Questions the corpus cannot answer.
    pub unanswerable: usize,
    /// Share of them answered with "not in the documents" (higher is better).
    pub unanswerable_not_found: Option<f64>,
    /// Questions the corpus answers.
    pub answerable: usize,
    /// Share of them answered with "not in the documents" (false refusals; lower is better).
    pub answerable_not_found: Option<f64>,
}

/// The fused and per-lane scores of one kind of question.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct KindScores {
    /// Answerable questions of this kind.
    pub questions: usize,
    /// The fused ranking.
    pub fused: Scores,
    /// Each lane alone.
    pub lanes: BTreeMap<String, Scores>,
}

/// The report of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalReport {
    /// Questions asked.
    pub questions: usize,
    /// The corpus evaluated.
    pub corpus: String,
    /// The cutoffs scored.
    pub ks: Vec<usize>,
    /// The fused ranking (what `qa ask` uses).
    pub fused: Scores,
    /// Each lane alone.
    pub lanes: BTreeMap<String, Scores>,
    /// The same scores for each `kind` of question (fused and each lane), when the set labels
    /// its questions.
    #[serde(default)]
    pub by_kind: BTreeMap<String, KindScores>,
    /// Share of questions with an `answer` whose answer text contains it (case-insensitive).
    pub answer_contains_gold: Option<f64>,
    /// Mean share of `key_terms` found in the answer text.
    pub key_term_coverage: Option<f64>,
    /// Median time to answer a question, in milliseconds.
    pub latency_p50_ms: f64,
    /// 95th-percentile time to answer a question, in milliseconds.
    pub latency_p95_ms: f64,
    /// Whether a second run gave identical rankings (None when not checked).
    pub deterministic: Option<bool>,
    /// Questions whose second ranking differed.
    pub nondeterministic: Vec<String>,
    /// Who wrote the answers (extractive, llm) and how often.
    pub synthesizers: BTreeMap<String, usize>,
    /// "Not in the documents" on unanswerable and on answerable questions.
    pub not_found: NotFoundRates,
    /// Each question's result, in file order.
    pub per_question: Vec<QuestionResult>,
}

fn gold_matches(gold: &str, file: &str) -> bool {
    let g = gold.trim_start_matches("./");
    file == g || file.ends_with(&format!("/{g}"))
}

/// Distinct source files of a ranking of rows, in order.
fn files_in_order(engine: &Engine, rows: impl IntoIterator<Item = usize>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in rows {
        if let Some(c) = engine.chunks().get(row)
            && !out.contains(&c.source_file)
        {
            out.push(c.source_file.clone());
        }
    }
    out
}

/// 1-based rank of each gold file among `files`.
fn gold_ranks(gold: &[String], files: &[String]) -> Vec<Option<usize>> {
    gold.iter().map(|g| files.iter().position(|f| gold_matches(g, f)).map(|p| p + 1)).collect()
}

/// Accumulates scores over questions.
#[derive(Default)]
struct Acc {
    recall: BTreeMap<usize, f64>,
    all: BTreeMap<usize, f64>,
    rr: f64,
    n: usize,
}

impl Acc {
    fn add(&mut self, ranks: &[Option<usize>], ks: &[usize]) {
        let g = ranks.len().max(1) as f64;
        for &k in ks {
            let found = ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
            *self.recall.entry(k).or_default() += found as f64 / g;
            *self.all.entry(k).or_default() += if found == ranks.len() { 1.0 } else { 0.0 };
        }
        self.rr += ranks.iter().flatten().min().map_or(0.0, |&r| 1.0 / r as f64);
        self.n += 1;
    }
    fn scores(&self) -> Scores {
        let n = self.n.max(1) as f64;
        Scores {
            recall: self.recall.iter().map(|(k, v)| (*k, v / n)).collect(),
            all: self.all.iter().map(|(k, v)| (*k, v / n)).collect(),
            mrr: self.rr / n,
        }
    }
}

fn contains_ci(hay: &str, needle: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    norm(hay).contains(&norm(needle))
}

/// Options of a run.
pub struct EvalOptions<'a> {
    /// The cutoffs to score recall and all@k at.
    pub ks: Vec<usize>,
    /// Ask every question a second time and compare the rankings.
    pub check_determinism: bool,
    /// Called after each question (for a progress bar).
    pub progress: &'a dyn Fn(),
}

/// The answer text without its evidence blocks (what a reader reads as the answer).
fn answer_body(text: &str) -> &str {
    text.split("\nChunks used:").next().unwrap_or(text)
}

/// Run the evaluation.
pub fn run(engine: &mut Engine, questions: &[EvalQuestion], opts: &EvalOptions) -> Result<EvalReport> {
    let ks = &opts.ks;
    let mut fused = Acc::default();
    let mut lanes: BTreeMap<Scored, Acc> = Scored::ALL.iter().map(|l| (*l, Acc::default())).collect();
    // kind → (fused, per lane).
    let mut kinds: BTreeMap<String, (Acc, BTreeMap<Scored, Acc>)> = BTreeMap::new();
    let mut latencies = Vec::new();
    let mut per_question = Vec::new();
    let mut rankings: Vec<Vec<usize>> = Vec::new();
    let (mut contains, mut with_answer, mut coverage, mut with_terms) = (0usize, 0usize, 0.0f64, 0usize);
    let mut synthesizers: BTreeMap<String, usize> = BTreeMap::new();
    let (mut answerable, mut answerable_nf, mut unanswerable, mut unanswerable_nf) = (0usize, 0usize, 0usize, 0usize);
    for q in questions {
        let t = Instant::now();
        let r = engine.ask(&q.question)?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        latencies.push(ms);
        let ranked = r.retrieval.ranked_rows();
        let files = files_in_order(engine, ranked.iter().copied());
        let ranks = gold_ranks(&q.gold, &files);
        let mut lane_ranks: BTreeMap<String, Vec<Option<usize>>> = BTreeMap::new();
        let mut lane_files: BTreeMap<String, Vec<String>> = BTreeMap::new();
        // Each lane's files for every question (an unanswerable one too: whether the lanes agree
        // on where its answer would be is part of judging the refusal).
        if !q.answerable {
            for lane in lanes.keys() {
                let lane_order = files_in_order(engine, lane_rows(&r.retrieval, *lane));
                lane_files.insert(lane.as_str().to_string(), lane_order.into_iter().take(10).collect());
            }
        }
        if q.answerable {
            fused.add(&ranks, ks);
            let mut kind_acc = q.kind.as_ref().map(|k| kinds.entry(k.clone()).or_default());
            if let Some(e) = kind_acc.as_mut() {
                e.0.add(&ranks, ks);
            }
            for (lane, acc) in lanes.iter_mut() {
                let rows = lane_rows(&r.retrieval, *lane);
                let lane_order = files_in_order(engine, rows);
                let lr = gold_ranks(&q.gold, &lane_order);
                lane_files.insert(lane.as_str().to_string(), lane_order.into_iter().take(10).collect());
                acc.add(&lr, ks);
                if let Some(e) = kind_acc.as_mut() {
                    e.1.entry(*lane).or_default().add(&lr, ks);
                }
                lane_ranks.insert(lane.as_str().to_string(), lr);
            }
            answerable += 1;
            answerable_nf += usize::from(!r.answer.found);
        } else {
            unanswerable += 1;
            unanswerable_nf += usize::from(!r.answer.found);
        }
        let body = answer_body(&r.answer.text);
        // Only an answer is scored: a refusal's pointers (its nearest sentence) are no answer.
        let scored = if r.answer.found { body } else { "" };
        let answer_contains_gold = q.answer.as_ref().filter(|a| !a.trim().is_empty()).map(|a| contains_ci(scored, a));
        if let Some(c) = answer_contains_gold {
            with_answer += 1;
            contains += usize::from(c);
        }
        let key_term_coverage = (!q.key_terms.is_empty()).then(|| q.key_terms.iter().filter(|t| contains_ci(scored, t)).count() as f64 / q.key_terms.len() as f64);
        if let Some(c) = key_term_coverage {
            with_terms += 1;
            coverage += c;
        }
        *synthesizers.entry(r.answer.synthesizer.clone()).or_default() += 1;
        per_question.push(QuestionResult {
            id: q.id.clone(),
            question: q.question.clone(),
            gold: q.gold.clone(),
            ranked_files: files.iter().take(10).cloned().collect(),
            gold_ranks: ranks,
            lane_gold_ranks: lane_ranks,
            lane_files,
            kind: q.kind.clone(),
            answer_contains_gold,
            key_term_coverage,
            latency_ms: ms,
            k_selected: r.retrieval.k,
            synthesizer: r.answer.synthesizer.clone(),
            answerable: q.answerable,
            found: r.answer.found,
            focus_share: r.answer.focus.as_ref().map(|f| f.share),
            passage_focus_share: r.answer.focus.as_ref().map(|f| f.passage_share),
            focus: r.answer.focus.clone(),
            dense_profile: r.retrieval.question_dense.hits.iter().take(10).map(|h| h.score).collect(),
            best_similarity: r.retrieval.selected.iter().map(|h| h.similarity).fold(0.0, f32::max),
            selected_chunks: r.retrieval.selected.iter().map(|h| h.chunk_id.clone()).collect(),
            answer_text: body.to_string(),
        });
        rankings.push(ranked);
        (opts.progress)();
    }
    let mut nondeterministic = Vec::new();
    if opts.check_determinism {
        for (q, first) in questions.iter().zip(&rankings) {
            let again = engine.ask(&q.question)?.retrieval.ranked_rows();
            if &again != first {
                nondeterministic.push(q.id.clone());
            }
            (opts.progress)();
        }
    }
    latencies.sort_by(f64::total_cmp);
    Ok(EvalReport {
        questions: questions.len(),
        corpus: engine.corpus.clone(),
        ks: ks.clone(),
        fused: fused.scores(),
        lanes: lanes.iter().map(|(l, a)| (l.as_str().to_string(), a.scores())).collect(),
        by_kind: kinds
            .iter()
            .map(|(k, (f, l))| (k.clone(), KindScores { questions: f.n, fused: f.scores(), lanes: l.iter().map(|(l, a)| (l.as_str().to_string(), a.scores())).collect() }))
            .collect(),
        answer_contains_gold: (with_answer > 0).then(|| contains as f64 / with_answer as f64),
        key_term_coverage: (with_terms > 0).then(|| coverage / with_terms as f64),
        latency_p50_ms: percentile(&latencies, 50),
        latency_p95_ms: percentile(&latencies, 95),
        deterministic: opts.check_determinism.then_some(nondeterministic.is_empty()),
        nondeterministic,
        synthesizers,
        not_found: NotFoundRates {
            unanswerable,
            unanswerable_not_found: (unanswerable > 0).then(|| unanswerable_nf as f64 / unanswerable as f64),
            answerable,
            answerable_not_found: (answerable > 0).then(|| answerable_nf as f64 / answerable as f64),
        },
        per_question,
    })
}

/// A ranking scored beside the fusion: each lane, and plain dense retrieval (the question's own
/// embedding, no sub-questions: what plain RAG would rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Scored {
    Lane(Lane),
    PlainDense,
}

impl Scored {
    const ALL: [Scored; 4] = [Scored::Lane(Lane::Dense), Scored::Lane(Lane::Lexical), Scored::Lane(Lane::Graph), Scored::PlainDense];

    fn as_str(self) -> &'static str {
        match self {
            Scored::Lane(l) => l.as_str(),
            Scored::PlainDense => "plain_dense",
        }
    }
}

/// A scored ranking's rows.
fn lane_rows(r: &Retrieval, lane: Scored) -> Vec<usize> {
    match lane {
        Scored::Lane(l) => r.lane(l).hits.iter().map(|h| h.row).collect(),
        Scored::PlainDense => r.question_dense.hits.iter().map(|h| h.row).collect(),
    }
}

impl EvalReport {
    /// The report as `qa eval` prints it.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let r = self;
        let pct = |v: f64| format!("{:.3}", v);
        writeln!(out, "qa eval: {} questions on corpus '{}'", r.questions, r.corpus)?;
        let header: Vec<String> = r.ks.iter().flat_map(|k| [format!("recall@{k}"), format!("all@{k}")]).collect();
        writeln!(out, "  {:<8} {}  {:>6}", "ranking", header.iter().map(|h| format!("{h:>10}")).collect::<String>(), "MRR")?;
        let row = |out: &mut dyn std::io::Write, name: &str, s: &Scores| {
            let cells: String = r.ks.iter().flat_map(|k| [s.recall.get(k).copied().unwrap_or(0.0), s.all.get(k).copied().unwrap_or(0.0)]).map(|v| format!("{:>10}", pct(v))).collect();
            writeln!(out, "  {name:<8} {cells}  {:>6}", pct(s.mrr))
        };
        if r.not_found.answerable > 0 {
            row(out, "fused", &r.fused)?;
            for (lane, s) in &r.lanes {
                row(out, lane, s)?;
            }
            // Per kind only when the set has more than one kind (else it repeats the table).
            if r.by_kind.len() > 1 {
                for (kind, ks) in &r.by_kind {
                    writeln!(out, "  kind '{kind}' ({} questions):", ks.questions)?;
                    row(out, "fused", &ks.fused)?;
                    for (lane, s) in &ks.lanes {
                        row(out, lane, s)?;
                    }
                }
            }
        } else {
            writeln!(out, "  (no answerable questions: retrieval not scored)")?;
        }
        if let Some(v) = r.answer_contains_gold {
            writeln!(out, "  answers containing the gold answer: {}", pct(v))?;
        }
        if let Some(v) = r.key_term_coverage {
            writeln!(out, "  key terms in the answers: {}", pct(v))?;
        }
        let nf = &r.not_found;
        if let Some(v) = nf.unanswerable_not_found {
            writeln!(out, "  \"not in the documents\" on {} unanswerable questions: {} (higher is better)", nf.unanswerable, pct(v))?;
        }
        if let Some(v) = nf.answerable_not_found {
            writeln!(out, "  \"not in the documents\" on {} answerable questions: {} (lower is better)", nf.answerable, pct(v))?;
        }
        let writers: Vec<String> = r.synthesizers.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(out, "  answers written by: {}", writers.join(", "))?;
        writeln!(out, "  latency per question: p50 {:.1} ms, p95 {:.1} ms", r.latency_p50_ms, r.latency_p95_ms)?;
        match r.deterministic {
            Some(true) => writeln!(out, "  deterministic: yes (a second run gave identical rankings)"),
            Some(false) => writeln!(out, "  deterministic: NO — rankings differed for {}", r.nondeterministic.join(", ")),
            None => writeln!(out, "  deterministic: not checked (--no-repeat)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_count_gold_files_at_each_cutoff() {
        let mut acc = Acc::default();
        acc.add(&[Some(1), Some(4)], &[2, 5]);
        acc.add(&[Some(3), None], &[2, 5]);
        let s = acc.scores();
        assert_eq!(s.recall[&2], (0.5 + 0.0) / 2.0);
        assert_eq!(s.recall[&5], (1.0 + 0.5) / 2.0);
        assert_eq!(s.all[&5], 0.5);
        assert!((s.mrr - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn gold_matches_whole_paths_and_suffixes_only() {
        assert!(gold_matches("a.txt", "a.txt"));
        assert!(gold_matches("a.txt", "sub/a.txt"));
        assert!(!gold_matches("a.txt", "sub/ba.txt"));
        assert!(gold_matches("./sub/a.txt", "sub/a.txt"));
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("q.jsonl");
        std::fs::write(&p, "{\"id\":\"1\",\"question\":\"q?\",\"gold\":[\"a\"]}\n\nnot json\n").unwrap();
        let e = read_questions(&p).unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        std::fs::write(&p, "{\"id\":\"1\",\"question\":\"q?\",\"gold\":[]}\n").unwrap();
        assert!(read_questions(&p).unwrap_err().to_string().contains("no gold"));
        std::fs::write(&p, "{\"id\":\"1\",\"question\":\"q?\",\"gold\":[],\"answerable\":false}\n").unwrap();
        assert!(!read_questions(&p).unwrap()[0].answerable);
        std::fs::write(&p, "{\"id\":\"1\",\"question\":\"q?\",\"gold\":[\"a\"],\"answerable\":false}\n").unwrap();
        assert!(read_questions(&p).unwrap_err().to_string().contains("with gold files"));
    }

    #[test]
    fn contains_ignores_case_and_spacing() {
        assert!(contains_ci("The answer is  Shirley\nTemple.", "shirley temple"));
        assert!(!contains_ci("Temple", "shirley temple"));
    }
}
