//! `qa es eval`: an ES answer as result rows, so that it is graded like a SQL result
//! ([`qa_core::tabular_eval`]): a count is one row `[total]`; aggregations give one row per
//! bucket `[key, doc_count, sub-metrics…]` (nested buckets flattened, keys first) or one row of
//! metric values; hits give one row per hit holding all of its `_source` values.

use serde_json::{Map, Value};

use crate::{EsAnswer, Intent};

/// The rows an answer presents: `(columns, rows, truncated)`. `truncated` is set when the page
/// holds fewer hits than matched.
pub fn answer_rows(a: &EsAnswer) -> (Vec<String>, Vec<Vec<Value>>, bool) {
    if let Some(aggs) = a.aggregations.as_ref().and_then(Value::as_object).filter(|m| !m.is_empty()) {
        // A bucket aggregation gives the rows; metrics beside it are left out.
        if let Some((name, agg)) = aggs.iter().find(|(_, v)| buckets(v).is_some()) {
            let mut rows = Vec::new();
            bucket_rows(agg, Vec::new(), &mut rows);
            let width = rows.iter().map(Vec::len).max().unwrap_or(0);
            let columns = (0..width).map(|i| if i == 0 { name.clone() } else { format!("{name}.{i}") }).collect();
            return (columns, rows, false);
        }
        let mut columns = Vec::new();
        let mut row = Vec::new();
        if a.intent == Intent::Count {
            columns.push("total".to_string());
            row.push(a.total.map(Value::from).unwrap_or(Value::Null));
        }
        for (name, agg) in aggs {
            for (k, v) in metric_values(agg) {
                columns.push(if k.is_empty() { name.clone() } else { format!("{name}.{k}") });
                row.push(v);
            }
        }
        return (columns, vec![row], false);
    }
    if a.intent == Intent::Count {
        return (vec!["total".into()], vec![vec![a.total.map(Value::from).unwrap_or(Value::Null)]], false);
    }
    let mut columns: Vec<String> = Vec::new();
    let flat: Vec<Vec<(String, Value)>> = a
        .hits
        .iter()
        .map(|h| {
            let mut out = Vec::new();
            flatten("", h, &mut out);
            out
        })
        .collect();
    for (k, _) in flat.iter().flatten() {
        if !columns.contains(k) {
            columns.push(k.clone());
        }
    }
    let rows = flat.into_iter().map(|fields| columns.iter().map(|c| fields.iter().find(|(k, _)| k == c).map(|(_, v)| v.clone()).unwrap_or(Value::Null)).collect()).collect();
    let truncated = a.total.is_some_and(|t| t as usize > a.hits.len());
    (columns, rows, truncated)
}

fn buckets(agg: &Value) -> Option<Vec<&Value>> {
    match agg.get("buckets")? {
        Value::Array(a) => Some(a.iter().collect()),
        Value::Object(m) => Some(m.values().collect()),
        _ => None,
    }
}

/// Rows of a bucket aggregation: each bucket's key and count, its metrics, and the rows of a
/// nested bucket aggregation (one row per inner bucket).
fn bucket_rows(agg: &Value, prefix: Vec<Value>, out: &mut Vec<Vec<Value>>) {
    for b in buckets(agg).unwrap_or_default() {
        let mut row = prefix.clone();
        // A boolean's bucket is 1 or 0 (Elasticsearch's `key`), as the sets' gold rows hold it;
        // other keys as written (`key_as_string` of a date).
        let key = match (b.get("key_as_string"), b.get("key")) {
            (Some(Value::String(s)), k) if s == "true" || s == "false" => k.filter(|k| k.is_number()).cloned().unwrap_or_else(|| Value::from(i64::from(s == "true"))),
            (Some(ks), _) => ks.clone(),
            (None, Some(Value::Bool(t))) => Value::from(i64::from(*t)),
            (None, Some(k)) => k.clone(),
            (None, None) => Value::Null,
        };
        row.push(key);
        row.push(b.get("doc_count").cloned().unwrap_or(Value::Null));
        let subs: Map<String, Value> = b.as_object().map(|m| m.iter().filter(|(k, v)| !matches!(k.as_str(), "key" | "key_as_string" | "doc_count") && v.is_object()).map(|(k, v)| (k.clone(), v.clone())).collect()).unwrap_or_default();
        for (_, sub) in subs.iter().filter(|(_, v)| buckets(v).is_none()) {
            row.extend(metric_values(sub).into_iter().map(|(_, v)| v));
        }
        match subs.values().find(|v| buckets(v).is_some()) {
            Some(inner) => bucket_rows(inner, row, out),
            None => out.push(row),
        }
    }
}

/// The values of a metric aggregation (`value`, or each number of a stats-like object).
fn metric_values(agg: &Value) -> Vec<(String, Value)> {
    if let Some(v) = agg.get("value_as_string").or_else(|| agg.get("value")) {
        return vec![(String::new(), v.clone())];
    }
    agg.as_object().map(|m| m.iter().filter(|(_, v)| v.is_number()).map(|(k, v)| (k.clone(), v.clone())).collect()).unwrap_or_default()
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, x, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}

/// One graded question of `qa es eval`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GradedQuestion {
    /// The question's id in the file.
    pub id: String,
    /// Its class, when the file names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The question.
    pub question: String,
    /// Right, wrong, asked or errored.
    pub grade: qa_core::tabular_eval::Grade,
    /// The body that ran.
    pub es_query: Option<Value>,
    /// Why it is not right.
    pub detail: Option<String>,
    /// Milliseconds of the run.
    pub ms: f64,
}

/// Every question of a set through the ES path, graded. Hits are graded on their whole result
/// (one page of up to the row cap); clarifications save their checkpoints under `scratch`, kept
/// out of the user's data folder. `progress` hears each question's id.
pub fn run_set(
    engine: &dyn crate::SearchEngine,
    questions: &[qa_core::tabular_eval::EvalQuestion],
    mut options: crate::run::EsOptions,
    llm: &mut qa_llm::LlmFor,
    scratch: &std::path::Path,
    progress: &dyn Fn(&str),
) -> (qa_core::tabular_eval::Summary, Vec<GradedQuestion>) {
    use qa_core::tabular_eval::{self as te};
    use qa_core::trace::Status;
    options.page_size = options.limits.row_cap;
    let skip = llm.skip.clone();
    let mut summary = te::Summary::default();
    let mut records = Vec::new();
    for q in questions {
        progress(&q.id);
        // The closure lets the trait object's lifetime shorten (a bare `LlmRun::new` does not).
        #[allow(clippy::redundant_closure)]
        let mut llm_run = llm.llm.as_deref_mut().map(|l| qa_llm::LlmRun::new(l));
        let t = std::time::Instant::now();
        let question = crate::run::EsQuestion { question: &q.question, options: options.clone(), data_dir: scratch, llm_skip: skip.as_deref() };
        let ran = crate::run::answer(engine, llm_run.as_mut(), question);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let (grade, detail, es_query) = match &ran {
            Ok(run) => {
                let a = &run.answer;
                let (columns, rows, truncated) = answer_rows(a);
                let asked = a.ambiguity.as_ref().map(|x| x.message.clone()).unwrap_or_else(|| a.query_summary.clone());
                let error = a.error.clone().unwrap_or_else(|| "failed".into());
                let outcome = match a.status {
                    Status::Answered | Status::Refused => te::Outcome::Rows { columns: &columns, rows: &rows, truncated },
                    Status::NeedsClarification => te::Outcome::Asked(&asked),
                    Status::Error => te::Outcome::Failed(&error),
                };
                let (g, d) = te::grade(q, outcome);
                (g, d, a.es_query.clone())
            }
            Err(e) => {
                let msg = e.to_string();
                let (g, d) = te::grade(q, te::Outcome::Failed(&msg));
                (g, d, None)
            }
        };
        summary.add(q, grade);
        records.push(GradedQuestion { id: q.id.clone(), class: q.class.clone(), question: q.question.clone(), grade, es_query, detail, ms });
    }
    (summary, records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::EsMetrics;
    use qa_core::trace::Status;
    use serde_json::json;

    fn answer(intent: Intent, total: u64, hits: Vec<Value>, aggs: Option<Value>) -> EsAnswer {
        EsAnswer {
            status: Status::Answered,
            main_goal: String::new(),
            es_query: None,
            intent,
            query_summary: String::new(),
            needs_clarification: false,
            ambiguity: None,
            total: Some(total),
            hits,
            aggregations: aggs,
            page: None,
            metrics: EsMetrics::default(),
            trace_id: String::new(),
            notes: Vec::new(),
            error: None,
            failure: None,
            coverage: None,
        }
    }

    #[test]
    fn counts_buckets_metrics_and_hits_become_rows() {
        let (_, rows, _) = answer_rows(&answer(Intent::Count, 42, vec![], None));
        assert_eq!(rows, vec![vec![json!(42)]]);
        let aggs = json!({"by": {"buckets": [{"key": "a", "doc_count": 3, "m": {"value": 1.5}}, {"key": "b", "doc_count": 1, "m": {"value": 2.0}}]}});
        let (_, rows, _) = answer_rows(&answer(Intent::Aggregation, 4, vec![], Some(aggs)));
        assert_eq!(rows, vec![vec![json!("a"), json!(3), json!(1.5)], vec![json!("b"), json!(1), json!(2.0)]]);
        let nested = json!({"x": {"buckets": [{"key": "a", "doc_count": 3, "y": {"buckets": [{"key": 1, "doc_count": 2}, {"key": 2, "doc_count": 1}]}}]}});
        let (_, rows, _) = answer_rows(&answer(Intent::Aggregation, 3, vec![], Some(nested)));
        assert_eq!(rows, vec![vec![json!("a"), json!(3), json!(1), json!(2)], vec![json!("a"), json!(3), json!(2), json!(1)]]);
        let (_, rows, _) = answer_rows(&answer(Intent::Aggregation, 9, vec![], Some(json!({"avg_w": {"value": 2.5}}))));
        assert_eq!(rows, vec![vec![json!(2.5)]]);
        let hits = vec![json!({"id": "A", "w": 1, "o": {"c": "x"}}), json!({"id": "B"})];
        let (cols, rows, cut) = answer_rows(&answer(Intent::Search, 3, hits, None));
        assert_eq!(cols, ["id", "o.c", "w"]);
        assert_eq!(rows[1], vec![json!("B"), Value::Null, Value::Null]);
        assert!(cut, "3 matched, 2 shown");
    }
}
