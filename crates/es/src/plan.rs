//! ES query generation (F06), deterministic: the typed intermediate form [`EsPlan`] built from
//! the mapping lookup, its rendering to the query DSL, its plain-language summary, and the
//! ambiguities that stop the run with a clarifying question (or, under force, are settled by
//! the best guess, which the answer names).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::lookup::{Analysis, Mention, rules::calendar_interval};
use crate::semantic::Semantic;
use crate::{Ambiguity, Endpoint, FieldKind, Intent, Mapping};

/// A filter of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Filter {
    /// The field has one of the values.
    Terms {
        /// Exact field path.
        field: String,
        /// Values.
        values: Vec<String>,
    },
    /// The field lies in a range (`gte`/`lte`/`gt`/`lt`, dates as `yyyy-MM-dd`).
    Range {
        /// Field path.
        field: String,
        /// Bounds by operator.
        bounds: BTreeMap<String, Value>,
    },
}

/// How results are grouped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Group {
    /// Buckets per value of a field.
    Terms {
        /// Exact field path.
        field: String,
        /// Buckets.
        size: usize,
        /// Fewest first ("least").
        ascending: bool,
    },
    /// Buckets per calendar interval of a date field.
    Calendar {
        /// Date field.
        field: String,
        /// `day`, `week`, `month`, `quarter` or `year`.
        interval: String,
    },
}

/// The intermediate form of a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EsPlan {
    /// What is asked for.
    pub intent: Intent,
    /// Filters, all must hold.
    pub filters: Vec<Filter>,
    /// Free text matched against the text fields.
    pub text: Option<(Vec<String>, String)>,
    /// Grouping.
    pub group: Option<Group>,
    /// `(avg|sum|min|max, field)`.
    pub metric: Option<(String, String)>,
    /// Guesses made under force, and other notes for the answer.
    pub notes: Vec<String>,
}

/// Choices made by the user for earlier ambiguities: ambiguity key → field.
pub type Choices = BTreeMap<String, String>;

struct Builder<'a> {
    mapping: &'a Mapping,
    /// The question's normalized words (for the words around a match).
    words: Vec<String>,
    choices: &'a Choices,
    force: bool,
    notes: Vec<String>,
}

impl Builder<'_> {
    /// Settle an ambiguity: the user's earlier choice, the best guess under force, or a question.
    fn choose(&mut self, key: &str, message: String, alternatives: Vec<String>) -> Result<String, Ambiguity> {
        if let Some(c) = self.choices.get(key) {
            return Ok(c.clone());
        }
        match (self.force, alternatives.first()) {
            (true, Some(best)) => {
                self.notes.push(format!("best guess: \"{key}\" taken as `{best}` (other choices: {})", alternatives[1..].join(", ")));
                Ok(best.clone())
            }
            _ => Err(Ambiguity { field: key.to_string(), message, alternatives }),
        }
    }

    fn date_field(&mut self, a: &Analysis, semantic: &Semantic, phrase: &str) -> Result<Option<String>, Ambiguity> {
        let dates: Vec<String> = self.mapping.fields.iter().filter(|f| f.kind == FieldKind::Date).map(|f| f.path.clone()).collect();
        let named = a.date.as_ref().map(|d| d.named_fields.clone()).unwrap_or_default();
        Ok(Some(match (named.as_slice(), dates.as_slice()) {
            (_, []) => return Ok(None),
            ([one], _) => one.clone(),
            (_, [only]) => only.clone(),
            _ => match semantic.default_date.clone().filter(|d| dates.contains(d)) {
                Some(d) => d,
                None => {
                    let alternatives = if named.len() > 1 { named } else { dates };
                    self.choose("date", format!("Which date does \"{phrase}\" refer to?"), alternatives)?
                }
            },
        }))
    }
}

/// Build the plan; an ambiguity that neither `choices` nor `force` settles is returned.
pub fn build(a: &Analysis, mapping: &Mapping, semantic: &Semantic, choices: &Choices, force: bool) -> Result<EsPlan, Ambiguity> {
    let mut b = Builder { mapping, words: a.words.clone(), choices, force, notes: Vec::new() };
    let mut filters = values_filters(&mut b, &a.mappings)?;
    if let Some(d) = &a.date
        && let Some(field) = b.date_field(a, semantic, &d.phrase)?
    {
            let mut bounds = BTreeMap::new();
            if let Some(f) = d.from {
                bounds.insert("gte".to_string(), json!(f.format("%Y-%m-%d").to_string()));
            }
            if let Some(t) = d.to {
                bounds.insert("lte".to_string(), json!(t.format("%Y-%m-%d").to_string()));
            }
            filters.push(Filter::Range { field, bounds });
    }
    for c in &a.comparisons {
        let mut bounds = BTreeMap::new();
        bounds.insert(c.op.clone(), json!(c.value));
        filters.push(Filter::Range { field: c.field.clone(), bounds });
    }
    let group = match &a.group_term {
        None => None,
        Some(term) => Some(group_of(&mut b, a, semantic, term)?),
    };
    let text_fields: Vec<String> = mapping.fields.iter().filter(|f| f.kind == FieldKind::Text).map(|f| f.path.clone()).collect();
    let index_words = crate::lookup::name_words(&mapping.index);
    let free: Vec<&String> = a.free_text.iter().filter(|w| !index_words.contains(w) && a.group_term.as_deref().is_none_or(|g| !g.split(' ').any(|x| x == w.as_str()))).collect();
    let text = (!free.is_empty() && !text_fields.is_empty()).then(|| (text_fields, free.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")));
    Ok(EsPlan { intent: a.intent_type, filters, text, group, metric: a.metric.clone(), notes: b.notes })
}

/// Value filters: per question term the best match; a term whose best matches are in several
/// fields equally is ambiguous.
fn values_filters(b: &mut Builder, mentions: &[Mention]) -> Result<Vec<Filter>, Ambiguity> {
    let mut by_term: BTreeMap<(usize, String), Vec<&Mention>> = BTreeMap::new();
    for m in mentions.iter().filter(|m| m.value.is_some()) {
        by_term.entry((m.at, m.term.clone())).or_default().push(m);
    }
    let mut per_field: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((_, term), ms) in by_term {
        let best = ms.iter().map(|m| m.score).fold(f64::MIN, f64::max);
        let mut fields: Vec<&str> = ms.iter().filter(|m| m.score == best).map(|m| m.field.as_str()).collect();
        fields.dedup();
        let direction = ms.first().and_then(|m| b.words.get(m.at.wrapping_sub(1))).map(String::as_str);
        let directed = direction.and_then(|d| by_direction(d, &fields));
        // "destination port Saltmere Harbour", "status is open": the field named right before.
        let at = ms.first().map_or(0, |m| m.at);
        let named: Vec<&str> = fields
            .iter()
            .copied()
            .filter(|f| {
                mentions.iter().any(|x| {
                    let end = x.at + x.term.split(' ').count();
                    x.value.is_none() && x.field == *f && (end == at || end + 1 == at && matches!(b.words.get(end).map(String::as_str), Some("is" | "of" | "equal" | "equals")))
                })
            })
            .collect();
        let field = if let [f] = named.as_slice() {
            f.to_string()
        } else if let Some(f) = directed {
            f
        } else if fields.len() > 1 {
            let alternatives: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
            b.choose(&term, format!("\"{term}\" is a value of several fields: which one do you mean?"), alternatives)?
        } else {
            fields[0].to_string()
        };
        for m in ms.iter().filter(|m| m.field == field) {
            let values = per_field.entry(field.clone()).or_default();
            if let Some(v) = &m.value
                && !values.contains(v)
            {
                values.push(v.clone());
            }
        }
    }
    Ok(per_field.into_iter().map(|(field, values)| Filter::Terms { field, values }).collect())
}

/// "to X" / "from X" when X is a value of both an origin-like and a destination-like field:
/// the field whose name says the direction (generic English direction words).
fn by_direction(preposition: &str, fields: &[&str]) -> Option<String> {
    const TO: &[&str] = &["destination", "dest", "to", "target", "recipient", "receiver", "arrival", "inbound"];
    const FROM: &[&str] = &["origin", "from", "source", "sender", "departure", "outbound"];
    let wanted = match preposition {
        "to" | "into" | "toward" | "towards" => TO,
        "from" | "out" => FROM,
        _ => return None,
    };
    let hits: Vec<&&str> = fields.iter().filter(|f| crate::lookup::name_words(f).iter().any(|w| wanted.contains(&w.as_str()))).collect();
    (hits.len() == 1).then(|| hits[0].to_string())
}

fn group_of(b: &mut Builder, a: &Analysis, semantic: &Semantic, term: &str) -> Result<Group, Ambiguity> {
    let size = a.top.unwrap_or(10).min(1_000);
    if let Some(interval) = calendar_interval(term) {
        return match b.date_field(a, semantic, term)? {
            Some(field) => Ok(Group::Calendar { field, interval: interval.to_string() }),
            None => Err(Ambiguity { field: term.to_string(), message: format!("No date field to group \"{term}\" by."), alternatives: vec![] }),
        };
    }
    let term_words: Vec<String> = term.split(' ').map(str::to_string).collect();
    let named = a.mappings.iter().filter(|m| m.value.is_none() && term_words.iter().any(|w| m.term.split(' ').any(|t| t == w))).max_by(|x, y| x.score.total_cmp(&y.score));
    if let Some(m) = named
        && let Some(field) = b.mapping.field(&m.field).and_then(|f| f.exact_path())
    {
        return Ok(Group::Terms { field, size, ascending: a.free_text.iter().any(|w| w == "least" || w == "fewest") });
    }
    // "by owner" with no owner field: ask, offering the fields one can group by.
    let mut alternatives: Vec<(usize, String)> = b.mapping.fields.iter().filter_map(|f| f.exact_path().filter(|_| f.kind == FieldKind::Keyword || f.kind == FieldKind::Text).map(|p| (distance(term, &f.path), p))).collect();
    alternatives.sort();
    let alternatives: Vec<String> = alternatives.into_iter().map(|(_, p)| p).take(6).collect();
    let field = b.choose(term, format!("No field matches \"{term}\": which field should the results be grouped by?"), alternatives)?;
    Ok(Group::Terms { field, size, ascending: false })
}

fn distance(a: &str, b: &str) -> usize {
    let last = b.rsplit('.').next().unwrap_or(b);
    strsim(a, last)
}

fn strsim(a: &str, b: &str) -> usize {
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

impl EsPlan {
    /// The plan as a request body for `endpoint` (always `_search`): hits for searches,
    /// `size: 0` with the total for counts, aggregations for groupings and metrics.
    pub fn render(&self, offset: usize, page_size: usize) -> (Endpoint, Value) {
        let mut filter: Vec<Value> = Vec::new();
        for f in &self.filters {
            filter.push(match f {
                Filter::Terms { field, values } if values.len() == 1 => json!({"term": {field: values[0]}}),
                Filter::Terms { field, values } => json!({"terms": {field: values}}),
                Filter::Range { field, bounds } => json!({"range": {field: bounds}}),
            });
        }
        let mut bool_q = serde_json::Map::new();
        if !filter.is_empty() {
            bool_q.insert("filter".into(), Value::Array(filter));
        }
        if let Some((fields, text)) = &self.text {
            let m = if fields.len() == 1 { json!({"match": {&fields[0]: {"query": text}}}) } else { json!({"multi_match": {"query": text, "fields": fields}}) };
            // With filters, free text only ranks; alone, it selects.
            bool_q.insert(if bool_q.is_empty() { "must" } else { "should" }.into(), json!([m]));
        }
        let query = if bool_q.is_empty() { json!({"match_all": {}}) } else { json!({"bool": bool_q}) };
        let mut body = json!({"query": query});
        match (&self.group, &self.metric, self.intent) {
            (Some(g), metric, _) => {
                let mut agg = match g {
                    Group::Terms { field, size, ascending } => {
                        let mut t = json!({"field": field, "size": size});
                        if *ascending {
                            t["order"] = json!({"_count": "asc"});
                        }
                        json!({"terms": t})
                    }
                    Group::Calendar { field, interval } => json!({"date_histogram": {"field": field, "calendar_interval": interval}}),
                };
                if let Some((op, field)) = metric {
                    agg["aggs"] = json!({"metric": {op: {"field": field}}});
                }
                body["aggs"] = json!({"group": agg});
                body["size"] = json!(0);
            }
            (None, Some((op, field)), _) => {
                body["aggs"] = json!({"metric": {op: {"field": field}}});
                body["size"] = json!(0);
            }
            (None, None, Intent::Count) => body["size"] = json!(0),
            (None, None, _) => {
                body["size"] = json!(page_size);
                if offset > 0 {
                    body["from"] = json!(offset);
                }
            }
        }
        (Endpoint::Search, body)
    }

    /// The plan in plain language.
    pub fn summary(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for f in &self.filters {
            parts.push(match f {
                Filter::Terms { field, values } => format!("{field} is {}", values.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(" or ")),
                Filter::Range { field, bounds } => {
                    let b: Vec<String> = bounds.iter().map(|(op, v)| format!("{} {}", op_words(op), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))).collect();
                    format!("{field} {}", b.join(" and "))
                }
            });
        }
        if let Some((_, t)) = &self.text {
            parts.push(format!("text matches \"{t}\""));
        }
        let what = match (&self.group, &self.metric, self.intent) {
            (Some(Group::Terms { field, .. }), m, _) => format!("{} per {field}", m.as_ref().map(|(op, f)| format!("{op} of {f}")).unwrap_or_else(|| "documents".into())),
            (Some(Group::Calendar { field, interval }), m, _) => format!("{} per {interval} of {field}", m.as_ref().map(|(op, f)| format!("{op} of {f}")).unwrap_or_else(|| "documents".into())),
            (None, Some((op, f)), _) => format!("{op} of {f}"),
            (None, None, Intent::Count) => "the number of documents".to_string(),
            (None, None, _) => "documents".to_string(),
        };
        if parts.is_empty() { format!("{what}, all documents") } else { format!("{what} where {}", parts.join(", ")) }
    }
}

pub(crate) fn op_words(op: &str) -> &'static str {
    match op {
        "gte" => "from",
        "lte" => "to",
        "gt" => "over",
        "lt" => "under",
        _ => "",
    }
}
