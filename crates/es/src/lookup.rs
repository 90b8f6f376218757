//! Mapping lookup (F05): what the index holds (sampled through one guard-checked `size: 0`
//! search: the top values of every exact field, min/max of dates and numbers) and how the
//! question's words map onto it — fields by their name words and synonyms, values exactly,
//! case-insensitively, fuzzily or through aliases, dates and ranges, numeric comparisons,
//! "per X" groupings and metrics.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use qa_core::text;

use crate::semantic::Semantic;
use crate::{Endpoint, EsError, EsLimits, FieldKind, Intent, Mapping, SearchEngine};

/// What was sampled from the index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// Top values per exact field path, with their document counts.
    pub values: BTreeMap<String, Vec<(String, u64)>>,
    /// `[min, max]` per date or numeric field (as the engine returns them).
    pub ranges: BTreeMap<String, (Value, Value)>,
}

/// Sample `mapping`'s fields through `engine`: one `_search` with `size: 0`.
pub fn sample(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits, per_field: usize) -> Result<(Metadata, Value), EsError> {
    let mut aggs = Map::new();
    let mut names: Vec<(String, String, &'static str)> = Vec::new();
    for f in &mapping.fields {
        match f.kind {
            FieldKind::Keyword | FieldKind::Text | FieldKind::Boolean => {
                if let Some(path) = f.exact_path() {
                    let key = format!("v{}", names.len());
                    aggs.insert(key.clone(), json!({"terms": {"field": path, "size": per_field.min(limits.max_buckets)}}));
                    names.push((key, path, "terms"));
                }
            }
            FieldKind::Date | FieldKind::Long | FieldKind::Double => {
                for m in ["min", "max"] {
                    let key = format!("{m}{}", names.len());
                    aggs.insert(key.clone(), json!({m: {"field": f.path}}));
                    names.push((key, f.path.clone(), m));
                }
            }
            FieldKind::Other => {}
        }
        if names.len() >= crate::guard::MAX_AGGS.saturating_sub(2) {
            break;
        }
    }
    let body = json!({"size": 0, "aggs": aggs});
    let request = crate::guard::checked(&body, Endpoint::Search, mapping, limits)?;
    let resp = engine.run(&request)?;
    let mut meta = Metadata::default();
    let aggs = resp.get("aggregations").cloned().unwrap_or(Value::Null);
    let mut mins: BTreeMap<String, Value> = BTreeMap::new();
    for (key, path, kind) in names {
        let a = &aggs[&key];
        match kind {
            "terms" => {
                let vals = a["buckets"].as_array().map(|b| b.iter().filter_map(|x| Some((scalar(&x["key"])?, x["doc_count"].as_u64().unwrap_or(0)))).collect()).unwrap_or_default();
                meta.values.insert(path, vals);
            }
            "min" => {
                mins.insert(path, a.get("value_as_string").or(a.get("value")).cloned().unwrap_or(Value::Null));
            }
            _ => {
                let max = a.get("value_as_string").or(a.get("value")).cloned().unwrap_or(Value::Null);
                meta.ranges.insert(path.clone(), (mins.remove(&path).unwrap_or(Value::Null), max));
            }
        }
    }
    Ok((meta, request.body().clone()))
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// How a word of the question was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// The field's name words.
    FieldName,
    /// A synonym from the semantic file.
    Synonym,
    /// A sampled value, same case.
    Exact,
    /// A sampled value, other case.
    CaseInsensitive,
    /// A sampled value within a small edit distance.
    Fuzzy,
    /// A value alias from the semantic file.
    Alias,
}

/// One mapping of question words to a field (and a value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mention {
    /// The question's words.
    pub term: String,
    /// The field (dotted path; values name the exact path to filter on).
    pub field: String,
    /// The value, for value matches.
    pub value: Option<String>,
    /// How it matched.
    pub match_kind: MatchKind,
    /// Longer and exacter matches score higher.
    pub score: f64,
    /// Position of its first word in the question.
    #[serde(skip)]
    pub at: usize,
}

/// A numeric comparison ("over 1000 kg").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The numeric field it binds to.
    pub field: String,
    /// `gt`, `gte`, `lt` or `lte`.
    pub op: String,
    /// The number.
    pub value: f64,
    /// The words.
    pub phrase: String,
}

/// A date interval the question states (inclusive days).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DateMention {
    /// First day.
    pub from: Option<NaiveDate>,
    /// Last day.
    pub to: Option<NaiveDate>,
    /// The words.
    pub phrase: String,
    /// Date fields the question names ("arrival" → `arrival_date`).
    pub named_fields: Vec<String>,
}

/// `analysis_result`: the question mapped onto the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// What the question asks for.
    pub intent_type: Intent,
    /// Field and value matches.
    pub mappings: Vec<Mention>,
    /// A date interval.
    pub date: Option<DateMention>,
    /// Numeric comparisons.
    pub comparisons: Vec<Comparison>,
    /// "per X" / "by X": the words after the grouping word.
    pub group_term: Option<String>,
    /// "average weight": the metric and its field.
    pub metric: Option<(String, String)>,
    /// "top 5": how many buckets or hits.
    pub top: Option<usize>,
    /// Words matching nothing (searched as free text).
    pub free_text: Vec<String>,
    /// The question's normalized words.
    #[serde(skip)]
    pub words: Vec<String>,
}

/// The words of a field name: `eta_date` → eta, date; `consigneeName` → consignee, name.
pub fn name_words(path: &str) -> Vec<String> {
    qa_route::SourceProfile::name_words(path)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}


/// Field-name and synonym matches: the longest name phrase found in the question per field.
fn field_mentions(words: &[String], mapping: &Mapping, semantic: &Semantic) -> Vec<Mention> {
    let mut out = Vec::new();
    for f in &mapping.fields {
        let mut candidates: Vec<(Vec<String>, MatchKind)> = vec![(name_words(&f.path), MatchKind::FieldName)];
        // The last part of a dotted path alone ("city" of "consignee.city").
        if let Some((_, last)) = f.path.rsplit_once('.') {
            candidates.push((name_words(last), MatchKind::FieldName));
        }
        // A field named `x_date` or `x_at` is also found by its first words ("arrival").
        let nw = name_words(&f.path);
        if f.kind == FieldKind::Date && nw.len() > 1 {
            candidates.push((nw[..nw.len() - 1].to_vec(), MatchKind::FieldName));
        }
        // Units and generic suffixes dropped ("weight" for `weight_kg`, "container" for
        // `container_count`), unless another field is named exactly that.
        let core = qa_route::SourceProfile::core_name_words(&f.path);
        if !core.is_empty() && core.len() < nw.len() && !mapping.fields.iter().any(|o| o.path != f.path && name_words(&o.path) == core) {
            candidates.push((core, MatchKind::FieldName));
        }
        // A measure named by its adjective: "heavier", "heaviest" for a weight field.
        if matches!(f.kind, FieldKind::Long | FieldKind::Double) {
            for (noun, adjectives) in qa_route::profile::MEASURE_ADJECTIVES {
                if nw.iter().any(|w| w == noun) {
                    candidates.extend(adjectives.iter().map(|a| (vec![a.to_string()], MatchKind::FieldName)));
                }
            }
        }
        if let Some(sf) = semantic.fields.get(&f.path) {
            candidates.extend(sf.synonyms.iter().map(|s| (text::normalized_words(s), MatchKind::Synonym)));
        }
        let best = candidates
            .into_iter()
            .filter(|(w, _)| !w.is_empty() && w.iter().any(|x| !text::is_stop(x)))
            .filter_map(|(w, k)| words.windows(w.len()).position(|win| win == w.as_slice()).map(|at| (w, k, at)))
            .max_by_key(|(w, _, _)| w.len());
        if let Some((w, kind, at)) = best {
            out.push(Mention { term: w.join(" "), field: f.path.clone(), value: None, match_kind: kind, score: w.len() as f64, at });
        }
    }
    out
}

/// Value matches against the sampled values and the aliases.
fn value_mentions(words: &[String], raw: &str, meta: &Metadata, semantic: &Semantic) -> Vec<Mention> {
    let mut out = Vec::new();
    for (path, values) in &meta.values {
        for (v, _) in values {
            // `customs_hold` is said "customs hold".
            let vw = text::normalized_words(&v.replace('_', " "));
            if vw.is_empty() || (vw.len() == 1 && (vw[0].chars().count() < 2 || text::is_stop(&vw[0]))) {
                continue;
            }
            if let Some(at) = words.windows(vw.len()).position(|w| w == vw.as_slice()) {
                let kind = if raw.contains(v.as_str()) { MatchKind::Exact } else { MatchKind::CaseInsensitive };
                out.push(Mention { term: vw.join(" "), field: path.clone(), value: Some(v.clone()), match_kind: kind, score: 2.0 + vw.len() as f64, at });
            } else if vw.len() == 1 && vw[0].chars().count() >= 5 {
                let max = if vw[0].chars().count() >= 9 { 2 } else { 1 };
                if let Some(at) = words.iter().position(|w| w.chars().count() >= 4 && edit_distance(w, &vw[0]) <= max) {
                    out.push(Mention { term: words[at].clone(), field: path.clone(), value: Some(v.clone()), match_kind: MatchKind::Fuzzy, score: 1.5, at });
                }
            }
        }
    }
    for a in &semantic.value_aliases {
        let aw = text::normalized_words(&a.phrase);
        if aw.is_empty() {
            continue;
        }
        if let Some(at) = words.windows(aw.len()).position(|w| w == aw.as_slice()) {
            for v in &a.values {
                out.push(Mention { term: aw.join(" "), field: a.field.clone(), value: Some(v.clone()), match_kind: MatchKind::Alias, score: 2.5 + aw.len() as f64, at });
            }
        }
    }
    out
}

pub(crate) mod rules;
pub use rules::analyse;

#[cfg(test)]
mod tests;
