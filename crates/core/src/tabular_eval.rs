//! Scoring structured answers (`qa sql eval`, `qa es eval`) against known result rows.
//!
//! A question file is JSON Lines: `{"id", "question", "expected": {"columns", "rows"},
//! "order_matters", "difficulty"?, "class"?}`, or, for a question the source cannot answer,
//! `{"id", "question", "must_ask": true, "expected": null}`. A question is *right* when the
//! answer holds exactly the expected rows — extra columns are allowed (each expected column is
//! matched to a result column by its values), numbers compare at 2 decimals, booleans as 1/0,
//! and row order counts only where `order_matters` — or, on a `must_ask` line, when the answer
//! is a clarifying question. An answer with other rows (or any answer to a `must_ask` line) is
//! *wrong*: a confident wrong answer; a clarifying question is *asked*; a failure is *errored*.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The known result of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    /// Column names, for messages only: columns are matched by their values.
    pub columns: Vec<String>,
    /// The rows, as JSON values.
    pub rows: Vec<Vec<Value>>,
}

/// One line of a question file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalQuestion {
    /// Unique within the file.
    pub id: String,
    /// The question as the user would ask it.
    pub question: String,
    /// The rows a right answer holds; `None` on a `must_ask` line.
    #[serde(default)]
    pub expected: Option<Expected>,
    /// The source cannot answer the question: the right answer is a clarifying question.
    #[serde(default)]
    pub must_ask: bool,
    /// Row order counts (the question asks for an order).
    #[serde(default)]
    pub order_matters: bool,
    /// A free label (e.g. `easy`, `hard`) the summary counts by.
    #[serde(default)]
    pub difficulty: Option<String>,
    /// A second free label (e.g. `join`, `aggregate`, `absent`) the summary counts by.
    #[serde(default)]
    pub class: Option<String>,
}

/// How one question went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    /// Answered with exactly the expected rows (or asked, where the source cannot answer).
    Right,
    /// Answered with rows that are not the expected ones: a confident wrong answer.
    Wrong,
    /// Stopped with a clarifying question.
    Asked,
    /// Failed without an answer.
    Errored,
}

/// What a source made of a question, as the grader needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<'a> {
    /// Rows were presented as the answer.
    Rows {
        /// Column names (used for messages only).
        columns: &'a [String],
        /// The rows.
        rows: &'a [Vec<Value>],
        /// The row cap cut the result short.
        truncated: bool,
    },
    /// A clarifying question was asked.
    Asked(&'a str),
    /// The run failed.
    Failed(&'a str),
}

/// Grade `outcome` for `q`; the detail says why it is not right (or what was asked).
pub fn grade(q: &EvalQuestion, outcome: Outcome<'_>) -> (Grade, Option<String>) {
    match outcome {
        Outcome::Rows { .. } if q.must_ask => (Grade::Wrong, Some("answered, but the source cannot answer this question: it should ask".into())),
        Outcome::Rows { columns, rows, truncated } => match &q.expected {
            Some(e) => match compare(e, columns, rows, truncated, q.order_matters) {
                Ok(()) => (Grade::Right, None),
                Err(why) => (Grade::Wrong, Some(why.to_string())),
            },
            None => (Grade::Errored, Some("the question file gives no expected rows".into())),
        },
        Outcome::Asked(text) if q.must_ask => (Grade::Right, Some(text.to_string())),
        Outcome::Asked(text) => (Grade::Asked, Some(text.to_string())),
        Outcome::Failed(error) => (Grade::Errored, Some(error.to_string())),
    }
}

/// Questions per grade.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// All questions counted.
    pub total: usize,
    /// Graded [`Grade::Right`].
    pub right: usize,
    /// Graded [`Grade::Wrong`].
    pub wrong: usize,
    /// Graded [`Grade::Asked`].
    pub asked: usize,
    /// Graded [`Grade::Errored`].
    pub errored: usize,
}

impl Counts {
    /// Count one question graded `g`.
    pub fn add(&mut self, g: Grade) {
        self.total += 1;
        match g {
            Grade::Right => self.right += 1,
            Grade::Wrong => self.wrong += 1,
            Grade::Asked => self.asked += 1,
            Grade::Errored => self.errored += 1,
        }
    }

    /// Percent of the total, one decimal.
    pub fn pct(&self, n: usize) -> f64 {
        if self.total == 0 { 0.0 } else { (n as f64 * 1000.0 / self.total as f64).round() / 10.0 }
    }
}

/// Overall, per-difficulty and per-class counts (questions without a label are "unrated").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Every question.
    pub overall: Counts,
    /// Per difficulty label.
    pub by_difficulty: BTreeMap<String, Counts>,
    /// Per class label (only questions that have one).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_class: BTreeMap<String, Counts>,
}

impl Summary {
    /// Count one question graded `g`, overall and under its labels.
    pub fn add(&mut self, q: &EvalQuestion, g: Grade) {
        self.overall.add(g);
        if q.difficulty.is_some() || q.class.is_none() {
            self.by_difficulty.entry(q.difficulty.clone().unwrap_or_else(|| "unrated".into())).or_default().add(g);
        }
        if let Some(c) = &q.class {
            self.by_class.entry(c.clone()).or_default().add(g);
        }
    }
}

/// Why a question file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EvalFileError {
    /// The file could not be read.
    #[error("cannot read the question file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a question object.
    #[error("{}:{line}: not a question line ({source}); expected {{\"id\", \"question\", \"expected\": {{\"columns\", \"rows\"}}, \"order_matters\"}}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// The cause.
        source: serde_json::Error,
    },
    /// A line has neither expected rows nor `must_ask`.
    #[error("{}:{line}: question {id:?} has no \"expected\" rows and is not \"must_ask\"", path.display())]
    NoExpected {
        /// The file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// The question's id.
        id: String,
    },
    /// No question at all.
    #[error("{} holds no questions", .0.display())]
    Empty(PathBuf),
}

/// Read a question file; a bad line is an error naming its line number.
pub fn load(path: &Path) -> Result<Vec<EvalQuestion>, EvalFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalFileError::Io { path: path.to_path_buf(), source })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let q: EvalQuestion = serde_json::from_str(line).map_err(|source| EvalFileError::Line { path: path.to_path_buf(), line: n + 1, source })?;
        if q.expected.is_none() && !q.must_ask {
            return Err(EvalFileError::NoExpected { path: path.to_path_buf(), line: n + 1, id: q.id });
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err(EvalFileError::Empty(path.to_path_buf()));
    }
    Ok(out)
}

/// A value as compared: numbers (and numeric text) in hundredths, booleans as 1/0, text trimmed
/// and compared without case (a database's 'France' is the expected 'france').
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Cell {
    Null,
    Num(i64),
    Text(String),
}

fn cell(v: &Value) -> Cell {
    // Two decimals as the exact value rounds ("84.675" is 84.674999… → 84.67), the way the
    // expected rows were rounded; `(f * 100.0).round()` would give 8467.5 → 84.68.
    let num = |f: f64| Cell::Num(format!("{f:.2}").parse::<f64>().map_or(0, |v| (v * 100.0).round() as i64));
    match v {
        Value::Null => Cell::Null,
        Value::Bool(b) => Cell::Num(if *b { 100 } else { 0 }),
        Value::Number(n) => n.as_f64().map(num).unwrap_or(Cell::Null),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => num(f),
            _ => Cell::Text(s.trim().to_lowercase()),
        },
        other => Cell::Text(other.to_string()),
    }
}

/// Equal cells; numbers within one unit of the second decimal, since engines that sum in
/// another order or precision can land on either side of a half-cent (125.655 as
/// 125.65499… or 125.65500…).
fn same(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Num(x), Cell::Num(y)) => (x - y).abs() <= 1,
        _ => a == b,
    }
}

fn same_all(a: &[Cell], b: &[Cell]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

fn column(rows: &[Vec<Cell>], j: usize, ordered: bool) -> Vec<Cell> {
    let mut c: Vec<Cell> = rows.iter().map(|r| r.get(j).cloned().unwrap_or(Cell::Null)).collect();
    if !ordered {
        c.sort();
    }
    c
}

/// Why an answer's rows are not the expected ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// Another number of rows.
    #[error("{got} rows{}, expected {expected}", cut_note(*.truncated))]
    RowCount {
        /// Rows in the result.
        got: usize,
        /// Rows expected.
        expected: usize,
        /// The row cap cut the result short.
        truncated: bool,
    },
    /// Fewer result columns than the widest expected row.
    #[error("{got} columns, expected at least {expected}")]
    TooFewColumns {
        /// Columns in the result.
        got: usize,
        /// Values in the widest expected row.
        expected: usize,
    },
    /// No result column holds the values of this expected column.
    #[error("no result column holds the expected values of '{0}'")]
    MissingColumn(String),
    /// Every expected column has a match, but no one-to-one choice gives the expected rows.
    #[error("the columns hold the expected values, but not in the same rows")]
    RowsDiffer,
}

fn cut_note(truncated: bool) -> &'static str {
    if truncated { " (cut at the row cap)" } else { "" }
}

/// Do the result's rows equal the expected ones? Err says why not.
pub fn compare(expected: &Expected, columns: &[String], rows: &[Vec<Value>], truncated: bool, order_matters: bool) -> Result<(), Mismatch> {
    let want: Vec<Vec<Cell>> = expected.rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    let got: Vec<Vec<Cell>> = rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    if got.len() != want.len() {
        return Err(Mismatch::RowCount { got: got.len(), expected: want.len(), truncated });
    }
    if want.is_empty() {
        return Ok(());
    }
    let k = want.iter().map(Vec::len).max().unwrap_or(0);
    let width = got.iter().map(Vec::len).max().unwrap_or(0).max(columns.len());
    if width < k {
        return Err(Mismatch::TooFewColumns { got: width, expected: k });
    }
    // Candidate result columns for each expected column: the same values.
    let cands: Vec<Vec<usize>> = (0..k).map(|j| (0..width).filter(|&c| same_all(&column(&got, c, order_matters), &column(&want, j, order_matters))).collect()).collect();
    if let Some(j) = cands.iter().position(Vec::is_empty) {
        let name = expected.columns.get(j).map(String::as_str).unwrap_or("?");
        return Err(Mismatch::MissingColumn(name.to_string()));
    }
    let mut pick = Vec::new();
    if assign(&cands, &mut pick, &got, &want, order_matters) { Ok(()) } else { Err(Mismatch::RowsDiffer) }
}

/// Backtracking over one-to-one maps of expected columns onto result columns.
fn assign(cands: &[Vec<usize>], pick: &mut Vec<usize>, got: &[Vec<Cell>], want: &[Vec<Cell>], ordered: bool) -> bool {
    if pick.len() == cands.len() {
        let mut projected: Vec<Vec<Cell>> = got.iter().map(|r| pick.iter().map(|&c| r.get(c).cloned().unwrap_or(Cell::Null)).collect()).collect();
        let mut w: Vec<Vec<Cell>> = want.to_vec();
        if !ordered {
            projected.sort();
            w.sort();
        }
        return projected.len() == w.len() && projected.iter().zip(&w).all(|(a, b)| same_all(a, b));
    }
    for &c in &cands[pick.len()] {
        if pick.contains(&c) {
            continue;
        }
        pick.push(c);
        if assign(cands, pick, got, want, ordered) {
            return true;
        }
        pick.pop();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(v: Value) -> Vec<Vec<Value>> {
        serde_json::from_value(v).unwrap()
    }

    fn cols(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| s.to_string()).collect()
    }

    fn expected(columns: &[&str], r: Value) -> Expected {
        Expected { columns: cols(columns), rows: rows(r) }
    }

    #[test]
    fn extra_columns_numbers_at_two_decimals_booleans_and_case() {
        let e = expected(&["genre", "n"], json!([["crime", 91], ["poetry", 38.004]]));
        let r = rows(json!([[1, 38.0, "Poetry"], [2, "91", "crime"]]));
        let c = cols(&["id", "n", "genre"]);
        assert_eq!(compare(&e, &c, &r, false, false), Ok(()));
        // Order only counts where it matters.
        assert!(compare(&e, &c, &r, false, true).is_err());
        let e = expected(&["x"], json!([[true]]));
        assert_eq!(compare(&e, &cols(&["x"]), &rows(json!([[1]])), false, false), Ok(()));
        // Rounded as the exact binary value rounds: 84.675 is below the half.
        let e = expected(&["avg"], json!([[84.67]]));
        assert_eq!(compare(&e, &cols(&["avg"]), &rows(json!([[84.675]])), false, false), Ok(()));
        // A half-cent summed in another order lands on either side; a cent more does not.
        let e = expected(&["avg"], json!([[125.66]]));
        assert_eq!(compare(&e, &cols(&["avg"]), &rows(json!([[125.65499999999997]])), false, false), Ok(()));
        assert!(compare(&e, &cols(&["avg"]), &rows(json!([[125.64]])), false, false).is_err());
    }

    #[test]
    fn wrong_rows_columns_or_pairs_are_told_apart() {
        let e = expected(&["a", "b"], json!([["x", 1], ["y", 2]]));
        let ab = cols(&["a", "b"]);
        assert!(compare(&e, &ab, &rows(json!([["x", 1]])), false, false).unwrap_err().to_string().contains("1 rows"));
        assert_eq!(compare(&e, &ab, &rows(json!([["x", 1]])), true, false).unwrap_err().to_string(), "1 rows (cut at the row cap), expected 2");
        assert!(compare(&e, &ab, &rows(json!([["x", 5], ["y", 6]])), false, false).unwrap_err().to_string().contains("'b'"));
        assert!(compare(&e, &ab, &rows(json!([["x", 2], ["y", 1]])), false, false).unwrap_err().to_string().contains("same rows"));
        assert!(compare(&e, &cols(&["a"]), &rows(json!([["x"], ["y"]])), false, false).unwrap_err().to_string().contains("columns"));
        // A column picked twice is no match: both expected columns need their own.
        let e = expected(&["a", "b"], json!([[1, 1]]));
        assert!(compare(&e, &cols(&["a"]), &rows(json!([[1]])), false, false).is_err());
        assert_eq!(compare(&e, &ab, &rows(json!([[1, 1]])), false, false), Ok(()));
    }

    #[test]
    fn must_ask_lines_grade_asking_right_and_answering_wrong() {
        let q = EvalQuestion { id: "a".into(), question: "q".into(), expected: None, must_ask: true, order_matters: false, difficulty: None, class: Some("absent".into()) };
        let r = rows(json!([[1]]));
        let c = cols(&["n"]);
        assert_eq!(grade(&q, Outcome::Rows { columns: &c, rows: &r, truncated: false }).0, Grade::Wrong);
        assert_eq!(grade(&q, Outcome::Asked("which field?")).0, Grade::Right);
        let mut s = Summary::default();
        s.add(&q, Grade::Right);
        assert_eq!(s.by_class["absent"].right, 1);
        assert!(s.by_difficulty.is_empty());
    }

    #[test]
    fn summary_counts_per_difficulty_and_load_reports_bad_lines() {
        let q = |d: Option<&str>| EvalQuestion { id: "a".into(), question: "q".into(), expected: None, must_ask: false, order_matters: false, difficulty: d.map(str::to_string), class: None };
        let mut s = Summary::default();
        s.add(&q(Some("easy")), Grade::Right);
        s.add(&q(Some("easy")), Grade::Asked);
        s.add(&q(None), Grade::Wrong);
        assert_eq!(s.overall, Counts { total: 3, right: 1, wrong: 1, asked: 1, errored: 0 });
        assert_eq!(s.by_difficulty["easy"].pct(1), 50.0);
        assert_eq!(s.by_difficulty["unrated"].wrong, 1);
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("q.jsonl");
        std::fs::write(&p, "{\"id\":\"a\",\"question\":\"q\",\"expected\":{\"columns\":[\"n\"],\"rows\":[[1]]}}\n\nnot json\n").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("q.jsonl:3"));
        std::fs::write(&p, "{\"id\":\"a\",\"question\":\"q\"}\n").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("must_ask"));
        std::fs::write(&p, "{\"id\":\"a\",\"question\":\"q\",\"expected\":{\"columns\":[\"n\"],\"rows\":[[1]]},\"order_matters\":true,\"difficulty\":\"hard\"}\n").unwrap();
        let qs = load(&p).unwrap();
        assert!(qs[0].order_matters && qs[0].difficulty.as_deref() == Some("hard"));
    }
}
