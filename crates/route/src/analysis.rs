//! Complex and hybrid answers without an LLM, and the context an LLM gets: at most
//! [`MAX_RECORDS`] records, chosen by how many of the question's filters they satisfy and then by
//! how many of its words they contain, within [`MAX_CONTEXT_TOKENS`] estimated tokens; and a
//! deterministic analysis of them — counts, breakdowns of their categorical fields, ranges of
//! their numbers and dates, and the records cited.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use qa_core::text;

use crate::filters::ExtractedFilters;

/// Records given to an analysis at most.
pub const MAX_RECORDS: usize = 20;
/// Estimated tokens of records given to an analysis at most.
pub const MAX_CONTEXT_TOKENS: usize = 10_000;

/// The records chosen for an analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// Chosen records, most relevant first.
    pub records: Vec<Value>,
    /// Their estimated tokens (compact JSON, [`qa_llm::estimate_tokens`]).
    pub tokens: usize,
    /// Records looked at.
    pub considered: usize,
    /// Relevant records left out because the token budget was spent.
    pub over_budget: usize,
}

/// Choose at most [`MAX_RECORDS`] records of `records` for `question` within
/// [`MAX_CONTEXT_TOKENS`].
pub fn select_records(records: &[Value], question: &str, filters: &ExtractedFilters) -> Selection {
    let q: Vec<String> = text::content_words(question).iter().map(|w| text::singular(w)).collect();
    let mut ranked: Vec<(usize, usize, usize)> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let filter_hits = filters.values.iter().filter(|f| field_text(r, &f.field).is_some_and(|v| v.eq_ignore_ascii_case(&f.value))).count()
                + filters.years.iter().filter(|y| record_text(r).contains(&y.to_string())).count();
            let words: Vec<String> = text::normalized_words(&record_text(r));
            let relevance = q.iter().filter(|w| words.contains(w)).count();
            (filter_hits, relevance, i)
        })
        .collect();
    // Most filters satisfied, then most question words, then the source's own order.
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let mut chosen = Vec::new();
    let mut tokens = 0;
    let mut over_budget = 0;
    for (_, _, i) in ranked {
        if chosen.len() == MAX_RECORDS {
            break;
        }
        let t = qa_llm::estimate_tokens(&records[i].to_string());
        if tokens + t > MAX_CONTEXT_TOKENS {
            over_budget += 1;
            continue;
        }
        tokens += t;
        chosen.push(records[i].clone());
    }
    Selection { records: chosen, tokens, considered: records.len(), over_budget }
}

fn field_text(r: &Value, path: &str) -> Option<String> {
    let mut cur = r;
    for part in path.split('.') {
        cur = cur.get(part)?;
    }
    match cur {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        v => Some(v.to_string()),
    }
}

fn record_text(r: &Value) -> String {
    let mut out = String::new();
    flatten_text(r, &mut out);
    out
}

fn flatten_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push(' ');
        }
        Value::Array(a) => a.iter().for_each(|x| flatten_text(x, out)),
        Value::Object(o) => o.values().for_each(|x| flatten_text(x, out)),
        Value::Null => {}
        other => {
            out.push_str(&other.to_string());
            out.push(' ');
        }
    }
}

/// How often each value of one field occurs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// The field (dotted path).
    pub field: String,
    /// `(value, count)`, most frequent first (ties by value), at most 5.
    pub top: Vec<(String, usize)>,
    /// Distinct values.
    pub distinct: usize,
}

/// Range and mean of a numeric field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumberSummary {
    /// The field.
    pub field: String,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Records with a value.
    pub count: usize,
}

/// First and last date of a date field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DateSummary {
    /// The field.
    pub field: String,
    /// Earliest (as written).
    pub first: String,
    /// Latest (as written).
    pub last: String,
}

/// The deterministic analysis of selected records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Records analysed.
    pub records: usize,
    /// Categorical fields and their most frequent values.
    pub breakdowns: Vec<Breakdown>,
    /// Numeric fields.
    pub numbers: Vec<NumberSummary>,
    /// Date fields.
    pub dates: Vec<DateSummary>,
    /// The records cited: their `id`/`_id` field, else their position (1-based).
    pub cited: Vec<String>,
}

fn leaves(prefix: &str, v: &Map<String, Value>, out: &mut Vec<(String, Value)>) {
    for (k, x) in v {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match x {
            Value::Object(o) => leaves(&path, o, out),
            Value::Array(a) => out.extend(a.iter().filter(|e| !e.is_object() && !e.is_array()).map(|e| (path.clone(), e.clone()))),
            other => out.push((path, other.clone())),
        }
    }
}

fn is_identifier(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    let l = last.to_ascii_lowercase();
    l == "id" || l.ends_with("_id") || l.ends_with("-id") || (last.ends_with("Id") && last.len() > 2)
}

fn looks_like_date(s: &str) -> bool {
    s.len() >= 10 && chrono::NaiveDate::parse_from_str(&s[..10], "%Y-%m-%d").is_ok()
}

/// Analyse `records`: breakdowns of fields with repeated short values, summaries of numbers and
/// dates, and the records cited.
pub fn analyse(records: &[Value]) -> Analysis {
    let mut strings: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut numbers: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut dates: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cited = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let Some(obj) = r.as_object() else { continue };
        let id = ["id", "_id", "ID", "Id"].iter().find_map(|k| obj.get(*k)).map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()));
        cited.push(id.unwrap_or_else(|| format!("#{}", i + 1)));
        let mut flat = Vec::new();
        leaves("", obj, &mut flat);
        for (path, v) in flat {
            match v {
                // Identifiers are numbers without a meaningful mean.
                Value::Number(_) if is_identifier(&path) => {}
                Value::Number(n) => numbers.entry(path).or_default().extend(n.as_f64()),
                Value::String(s) if looks_like_date(&s) => dates.entry(path).or_default().push(s),
                Value::String(s) if s.chars().count() <= 60 => *strings.entry(path).or_default().entry(s).or_default() += 1,
                Value::Bool(b) => *strings.entry(path).or_default().entry(b.to_string()).or_default() += 1,
                _ => {}
            }
        }
    }
    let n = records.len();
    let breakdowns = strings
        .into_iter()
        // A category repeats: identifiers and prose (nearly one value per record) are not broken down.
        .filter(|(_, counts)| n <= 1 || counts.len() <= (n / 2).max(1))
        .map(|(field, counts)| {
            let distinct = counts.len();
            let mut top: Vec<(String, usize)> = counts.into_iter().collect();
            top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            top.truncate(5);
            Breakdown { field, top, distinct }
        })
        .collect();
    let numbers = numbers
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(field, v)| {
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            NumberSummary { field, min, max, mean: v.iter().sum::<f64>() / v.len() as f64, count: v.len() }
        })
        .collect();
    let dates = dates
        .into_iter()
        .filter_map(|(field, mut v)| {
            v.sort();
            Some(DateSummary { field, first: v.first()?.clone(), last: v.last()?.clone() })
        })
        .collect();
    Analysis { records: n, breakdowns, numbers, dates, cited }
}

impl Analysis {
    /// The analysis as plain text, one finding per line.
    pub fn render(&self) -> String {
        let mut out = format!("{} record{} analysed.\n", self.records, if self.records == 1 { "" } else { "s" });
        for b in &self.breakdowns {
            let top: Vec<String> = b.top.iter().map(|(v, c)| format!("{v} ({c})")).collect();
            out.push_str(&format!("- {}: {}{}\n", b.field, top.join(", "), if b.distinct > b.top.len() { format!(", … {} values", b.distinct) } else { String::new() }));
        }
        for s in &self.numbers {
            out.push_str(&format!("- {}: {} to {}, mean {:.2} ({} values)\n", s.field, fmt_num(s.min), fmt_num(s.max), s.mean, s.count));
        }
        for d in &self.dates {
            out.push_str(&format!("- {}: {} to {}\n", d.field, d.first, d.last));
        }
        if !self.cited.is_empty() {
            out.push_str(&format!("Records: {}\n", self.cited.join(", ")));
        }
        out
    }
}

fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x:.2}") }
}

#[cfg(test)]
mod tests;
