//! `qa sql eval`: score the SQL path on a question set with known results.
//!
//! A question file is JSON Lines: `{"id", "question", "expected": {"columns", "rows"},
//! "order_matters", "difficulty"?}`. A question is *right* when the answer holds exactly the
//! expected rows — extra columns are allowed (each expected column is matched to a result
//! column by its values), numbers compare at 2 decimals, booleans as 1/0, and row order counts
//! only where `order_matters`. An answer with other rows is *wrong*; a clarifying question is
//! *asked*; a failure is *errored*.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{QueryResult, SqlError};

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
    /// The rows a right answer holds.
    pub expected: Expected,
    /// Row order counts (the question asks for an order).
    #[serde(default)]
    pub order_matters: bool,
    /// A free label (e.g. `easy`, `hard`) the summary counts by.
    #[serde(default)]
    pub difficulty: Option<String>,
}

/// How one question went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    /// Answered with exactly the expected rows.
    Right,
    /// Answered with rows that are not the expected ones.
    Wrong,
    /// Stopped with a clarifying question.
    Asked,
    /// Failed without an answer.
    Errored,
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

/// Overall and per-difficulty counts (questions without one are "unrated").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Every question.
    pub overall: Counts,
    /// Per difficulty label.
    pub by_difficulty: BTreeMap<String, Counts>,
}

impl Summary {
    /// Count one question graded `g`, overall and under its difficulty.
    pub fn add(&mut self, difficulty: Option<&str>, g: Grade) {
        self.overall.add(g);
        self.by_difficulty.entry(difficulty.unwrap_or("unrated").to_string()).or_default().add(g);
    }
}

/// Read a question file; a bad line is an error naming its line number.
pub fn load(path: &Path) -> Result<Vec<EvalQuestion>, SqlError> {
    let text = std::fs::read_to_string(path).map_err(|source| SqlError::Io { action: "cannot read", path: path.to_path_buf(), source })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let q: EvalQuestion = serde_json::from_str(line).map_err(|source| SqlError::EvalLine { path: path.to_path_buf(), line: n + 1, source })?;
        out.push(q);
    }
    if out.is_empty() {
        return Err(SqlError::NoEvalQuestions(path.to_path_buf()));
    }
    Ok(out)
}

/// A value as compared: numbers (and numeric text) in hundredths, booleans as 1/0, text trimmed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Cell {
    Null,
    Num(i64),
    Text(String),
}

fn cell(v: &Value) -> Cell {
    let num = |f: f64| Cell::Num((f * 100.0).round() as i64);
    match v {
        Value::Null => Cell::Null,
        Value::Bool(b) => Cell::Num(if *b { 100 } else { 0 }),
        Value::Number(n) => n.as_f64().map(num).unwrap_or(Cell::Null),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => num(f),
            _ => Cell::Text(s.trim().to_string()),
        },
        other => Cell::Text(other.to_string()),
    }
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
pub fn compare(expected: &Expected, result: &QueryResult, order_matters: bool) -> Result<(), Mismatch> {
    let want: Vec<Vec<Cell>> = expected.rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    let got: Vec<Vec<Cell>> = result.rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    if got.len() != want.len() {
        return Err(Mismatch::RowCount { got: got.len(), expected: want.len(), truncated: result.truncated });
    }
    if want.is_empty() {
        return Ok(());
    }
    let k = want.iter().map(Vec::len).max().unwrap_or(0);
    if result.columns.len() < k {
        return Err(Mismatch::TooFewColumns { got: result.columns.len(), expected: k });
    }
    // Candidate result columns for each expected column: the same values.
    let cands: Vec<Vec<usize>> = (0..k).map(|j| (0..result.columns.len()).filter(|&c| column(&got, c, order_matters) == column(&want, j, order_matters)).collect()).collect();
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
        return projected == w;
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

    fn result(columns: &[&str], rows: Value) -> QueryResult {
        let rows: Vec<Vec<Value>> = serde_json::from_value(rows).unwrap();
        QueryResult { columns: columns.iter().map(|c| c.to_string()).collect(), rows, truncated: false, elapsed_ms: 0.0 }
    }

    fn expected(columns: &[&str], rows: Value) -> Expected {
        Expected { columns: columns.iter().map(|c| c.to_string()).collect(), rows: serde_json::from_value(rows).unwrap() }
    }

    #[test]
    fn extra_columns_numbers_at_two_decimals_and_booleans() {
        let e = expected(&["genre", "n"], json!([["crime", 91], ["poetry", 38.004]]));
        let r = result(&["id", "n", "genre"], json!([[1, 38.0, "poetry"], [2, "91", "crime"]]));
        assert_eq!(compare(&e, &r, false), Ok(()));
        // Order only counts where it matters.
        assert!(compare(&e, &r, true).is_err());
        let e = expected(&["x"], json!([[true]]));
        assert_eq!(compare(&e, &result(&["x"], json!([[1]])), false), Ok(()));
    }

    #[test]
    fn wrong_rows_columns_or_pairs_are_told_apart() {
        let e = expected(&["a", "b"], json!([["x", 1], ["y", 2]]));
        assert!(compare(&e, &result(&["a", "b"], json!([["x", 1]])), false).unwrap_err().to_string().contains("1 rows"));
        let mut cut = result(&["a", "b"], json!([["x", 1]]));
        cut.truncated = true;
        assert_eq!(compare(&e, &cut, false).unwrap_err().to_string(), "1 rows (cut at the row cap), expected 2");
        assert!(compare(&e, &result(&["a", "c"], json!([["x", 5], ["y", 6]])), false).unwrap_err().to_string().contains("'b'"));
        assert!(compare(&e, &result(&["a", "b"], json!([["x", 2], ["y", 1]])), false).unwrap_err().to_string().contains("same rows"));
        assert!(compare(&e, &result(&["a"], json!([["x"], ["y"]])), false).unwrap_err().to_string().contains("columns"));
        // A column picked twice is no match: both expected columns need their own.
        let e = expected(&["a", "b"], json!([[1, 1]]));
        assert!(compare(&e, &result(&["a"], json!([[1]])), false).is_err());
        assert_eq!(compare(&e, &result(&["a", "b"], json!([[1, 1]])), false), Ok(()));
    }

    #[test]
    fn summary_counts_per_difficulty_and_load_reports_bad_lines() {
        let mut s = Summary::default();
        s.add(Some("easy"), Grade::Right);
        s.add(Some("easy"), Grade::Asked);
        s.add(None, Grade::Wrong);
        assert_eq!(s.overall, Counts { total: 3, right: 1, wrong: 1, asked: 1, errored: 0 });
        assert_eq!(s.by_difficulty["easy"].pct(1), 50.0);
        assert_eq!(s.by_difficulty["unrated"].wrong, 1);
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("q.jsonl");
        std::fs::write(&p, "{\"id\":\"a\",\"question\":\"q\",\"expected\":{\"columns\":[\"n\"],\"rows\":[[1]]}}\n\nnot json\n").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("q.jsonl:3"));
        std::fs::write(&p, "{\"id\":\"a\",\"question\":\"q\",\"expected\":{\"columns\":[\"n\"],\"rows\":[[1]]},\"order_matters\":true,\"difficulty\":\"hard\"}\n").unwrap();
        let qs = load(&p).unwrap();
        assert!(qs[0].order_matters && qs[0].difficulty.as_deref() == Some("hard"));
    }
}
