//! Matching documents, sorting them (`_score`, `_doc`, fields asc/desc, missing last), paging
//! (`from`/`size`, `search_after`) and rendering hits in Elasticsearch's format.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Query;
use tantivy::schema::Value as _;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyDocument};

use super::columns::{FieldColumns, Val};
use super::query::glob_match;
use super::schema::{Layout, SEQ};
use crate::{EsError, FieldKind};

/// One matching document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Match {
    pub(crate) seg: u32,
    pub(crate) doc: DocId,
    pub(crate) score: Score,
}

/// Collects every matching document (with its score when scoring is needed).
pub(crate) struct MatchCollector {
    pub(crate) scoring: bool,
}

/// The per-segment side of [`MatchCollector`].
pub(crate) struct SegmentMatches {
    seg: u32,
    out: Vec<Match>,
}

impl Collector for MatchCollector {
    type Fruit = Vec<Match>;
    type Child = SegmentMatches;

    fn for_segment(&self, seg: SegmentOrdinal, reader: &SegmentReader) -> tantivy::Result<SegmentMatches> {
        Ok(SegmentMatches { seg, out: Vec::with_capacity((reader.num_docs() as usize).min(1 << 16)) })
    }

    fn requires_scoring(&self) -> bool {
        self.scoring
    }

    fn merge_fruits(&self, fruits: Vec<Vec<Match>>) -> tantivy::Result<Vec<Match>> {
        Ok(fruits.concat())
    }
}

impl SegmentCollector for SegmentMatches {
    type Fruit = Vec<Match>;

    fn collect(&mut self, doc: DocId, score: Score) {
        self.out.push(Match { seg: self.seg, doc, score });
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        let seg = self.seg;
        self.out.extend(docs.iter().map(|&doc| Match { seg, doc, score: 0.0 }));
    }

    fn harvest(self) -> Vec<Match> {
        self.out
    }
}

/// Every document matching `query`.
pub(crate) fn collect(searcher: &Searcher, query: &dyn Query, scoring: bool) -> Result<Vec<Match>, EsError> {
    searcher.search(query, &MatchCollector { scoring }).map_err(|e| EsError::Engine(e.to_string()))
}

/// A sort value; strings compared as strings, numbers as numbers, missing per the key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SortVal {
    Missing,
    Int(i64),
    Float(f64),
    Str(String),
}

impl SortVal {
    fn cmp_present(&self, other: &SortVal) -> Ordering {
        match (self, other) {
            (SortVal::Int(a), SortVal::Int(b)) => a.cmp(b),
            (SortVal::Str(a), SortVal::Str(b)) => a.cmp(b),
            (SortVal::Float(a), SortVal::Float(b)) => a.total_cmp(b),
            (SortVal::Int(a), SortVal::Float(b)) => (*a as f64).total_cmp(b),
            (SortVal::Float(a), SortVal::Int(b)) => a.total_cmp(&(*b as f64)),
            _ => Ordering::Equal,
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        match self {
            SortVal::Missing => Value::Null,
            SortVal::Int(i) => json!(i),
            SortVal::Float(f) => json!(f),
            SortVal::Str(s) => json!(s),
        }
    }
}

/// What a sort key orders by.
enum KeyTarget {
    Score,
    Doc,
    Field(FieldColumns),
}

/// One entry of a `sort` list.
pub(crate) struct SortKey {
    target: KeyTarget,
    desc: bool,
    missing_first: bool,
}

/// The sort of a request: explicit keys (empty: by score), then the record order.
pub(crate) struct SortSpec {
    keys: Vec<SortKey>,
    /// Whether the request named a sort (hits then carry their `sort` values).
    pub(crate) explicit: bool,
    seq: FieldColumns,
}

impl SortSpec {
    /// Parse `sort` (a string, an object or a list of them).
    pub(crate) fn parse(searcher: &Searcher, layout: &Layout, v: Option<&Value>) -> Result<SortSpec, EsError> {
        let seq_slot = super::schema::Slot {
            kind: FieldKind::Long,
            field: layout.seq,
            column: SEQ.to_string(),
            present_path: String::new(),
            exact: None,
            ignore_above: None,
        };
        let seq = FieldColumns::open(searcher, &seq_slot, SEQ)?;
        let entries: Vec<&Value> = match v {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.iter().collect(),
            Some(one) => vec![one],
        };
        let mut keys = Vec::new();
        for e in &entries {
            let (name, opts) = match e {
                Value::String(s) => (s.clone(), Value::Null),
                Value::Object(o) if o.len() == 1 => o.iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap_or_default(),
                other => return Err(EsError::Json(format!("[sort] cannot read {other}"))),
            };
            let (order, missing) = match &opts {
                Value::String(o) => (Some(o.clone()), None),
                Value::Object(o) => {
                    if let Some(k) = o.keys().find(|k| !matches!(String::as_str(k), "order" | "missing" | "mode" | "unmapped_type" | "format" | "numeric_type"))
                    {
                        return Err(EsError::Unsupported(format!("sort.{k}")));
                    }
                    (o.get("order").and_then(Value::as_str).map(str::to_string), o.get("missing").and_then(Value::as_str).map(str::to_string))
                }
                _ => (None, None),
            };
            let target = match name.as_str() {
                "_score" => KeyTarget::Score,
                "_doc" | "_shard_doc" => KeyTarget::Doc,
                path => {
                    let slot = layout.slot(path).ok_or_else(|| EsError::Mapping(format!("no mapping found for [{path}] in order to sort on")))?;
                    KeyTarget::Field(FieldColumns::open(searcher, slot, path)?)
                }
            };
            let desc = match order.as_deref() {
                Some("desc") => true,
                Some("asc") => false,
                Some(o) => {
                    return Err(EsError::Json(format!("[sort] order {o:?}: expected asc or desc")));
                }
                None => matches!(target, KeyTarget::Score),
            };
            keys.push(SortKey { target, desc, missing_first: missing.as_deref() == Some("_first") });
        }
        Ok(SortSpec { explicit: !entries.is_empty(), keys, seq })
    }

    /// Whether any key (or the default order) needs scores.
    pub(crate) fn needs_scores(&self) -> bool {
        self.keys.is_empty() || self.keys.iter().any(|k| matches!(k.target, KeyTarget::Score))
    }

    fn seq_of(&self, m: &Match) -> i64 {
        let mut buf = Vec::new();
        self.seq.values(m.seg, m.doc, &mut buf);
        match buf.first() {
            Some(Val::I64(i)) => *i,
            _ => 0,
        }
    }

    /// The sort values of a match (explicit keys only) and its record sequence number.
    pub(crate) fn values_of(&self, m: &Match, buf: &mut Vec<Val>) -> Result<(Vec<SortVal>, i64), EsError> {
        let seq = self.seq_of(m);
        let mut out = Vec::with_capacity(self.keys.len());
        for k in &self.keys {
            out.push(match &k.target {
                KeyTarget::Score => SortVal::Float(f64::from(m.score)),
                KeyTarget::Doc => SortVal::Int(seq),
                KeyTarget::Field(cols) => {
                    buf.clear();
                    cols.values(m.seg, m.doc, buf);
                    field_sort_value(cols, m.seg, buf, k.desc)?
                }
            });
        }
        Ok((out, seq))
    }

    /// Order of two matches' sort values (explicit keys, then score-desc default, then record
    /// order).
    pub(crate) fn compare(&self, a: (&[SortVal], i64, f32), b: (&[SortVal], i64, f32)) -> Ordering {
        if self.keys.is_empty() {
            return b.2.total_cmp(&a.2).then(a.1.cmp(&b.1));
        }
        self.compare_keys(a.0, b.0).then(a.1.cmp(&b.1))
    }

    fn compare_keys(&self, a: &[SortVal], b: &[SortVal]) -> Ordering {
        for ((k, x), y) in self.keys.iter().zip(a).zip(b) {
            let o = match (x, y) {
                (SortVal::Missing, SortVal::Missing) => Ordering::Equal,
                (SortVal::Missing, _) => {
                    if k.missing_first {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    }
                }
                (_, SortVal::Missing) => {
                    if k.missing_first {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    }
                }
                _ if k.desc => y.cmp_present(x),
                _ => x.cmp_present(y),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// `search_after` values parsed for these keys.
    pub(crate) fn after_values(&self, v: &Value) -> Result<Vec<SortVal>, EsError> {
        let a = v.as_array().ok_or_else(|| EsError::Json("search_after must be a list".into()))?;
        if !self.explicit || a.len() != self.keys.len() {
            return Err(EsError::Json(format!("search_after has {} values for {} sort keys (search_after needs an explicit sort)", a.len(), self.keys.len())));
        }
        Ok(self
            .keys
            .iter()
            .zip(a)
            .map(|(k, v)| match (v, &k.target) {
                (Value::Null, _) => SortVal::Missing,
                (Value::String(s), KeyTarget::Field(c)) if c.kind == FieldKind::Date => {
                    super::schema::to_date_ms(v).map_or(SortVal::Str(s.clone()), SortVal::Int)
                }
                (Value::String(s), _) => SortVal::Str(s.clone()),
                (Value::Bool(b), _) => SortVal::Int(i64::from(*b)),
                (Value::Number(n), _) => n.as_i64().map_or_else(|| SortVal::Float(n.as_f64().unwrap_or(0.0)), SortVal::Int),
                _ => SortVal::Missing,
            })
            .collect())
    }

    /// Whether sort values come strictly after `after`.
    pub(crate) fn is_after(&self, vals: &[SortVal], after: &[SortVal]) -> bool {
        self.compare_keys(vals, after) == Ordering::Greater
    }
}

/// The sort value of a field: the smallest value ascending, the largest descending.
fn field_sort_value(cols: &FieldColumns, seg: u32, vals: &[Val], desc: bool) -> Result<SortVal, EsError> {
    let pick = |a: &Val, b: &Val| -> bool {
        let less = match (a, b) {
            (Val::Ord(x), Val::Ord(y)) => x < y,
            _ => a.number().unwrap_or(0.0) < b.number().unwrap_or(0.0),
        };
        if desc { !less } else { less }
    };
    let Some(best) = vals.iter().copied().reduce(|a, b| if pick(&a, &b) { a } else { b }) else {
        return Ok(SortVal::Missing);
    };
    Ok(match best {
        Val::Ord(o) => SortVal::Str(cols.term(seg, o)?),
        Val::I64(i) | Val::Date(i) => SortVal::Int(i),
        Val::F64(f) => SortVal::Float(f),
        Val::Bool(b) => SortVal::Int(i64::from(b)),
    })
}

/// The page of `matches` in sort order: those after `after`, then `from`..`from + size`, each
/// with its sort values.
pub(crate) fn page(sort: &SortSpec, matches: &[Match], after: Option<&[SortVal]>, from: usize, size: usize) -> Result<Vec<(Vec<SortVal>, Match)>, EsError> {
    if size == 0 {
        return Ok(Vec::new());
    }
    let mut ranked: Vec<(Vec<SortVal>, i64, Match)> = Vec::new();
    let mut buf = Vec::new();
    for m in matches {
        let (vals, seq) = sort.values_of(m, &mut buf)?;
        if after.is_none_or(|a| sort.is_after(&vals, a)) {
            ranked.push((vals, seq, *m));
        }
    }
    let want = from.saturating_add(size);
    let cmp = |a: &(Vec<SortVal>, i64, Match), b: &(Vec<SortVal>, i64, Match)| sort.compare((&a.0, a.1, a.2.score), (&b.0, b.1, b.2.score));
    // Only the first `from + size` need ordering.
    if ranked.len() > want {
        ranked.select_nth_unstable_by(want - 1, cmp);
        ranked.truncate(want);
    }
    ranked.sort_by(cmp);
    Ok(ranked.into_iter().skip(from).map(|(v, _, m)| (v, m)).collect())
}

/// How hits are rendered.
pub(crate) struct HitStyle<'a> {
    /// `_index` of every hit.
    pub(crate) index: &'a str,
    /// Whether `_score` carries the score (else null, as when sorting by field).
    pub(crate) scores: bool,
    /// Whether hits carry their `sort` values.
    pub(crate) sort_values: bool,
    pub(crate) source: &'a SourceFilter,
    /// `docvalue_fields`: path, its columns, the date format.
    pub(crate) docvalues: &'a [(String, FieldColumns, Option<String>)],
}

/// Hits in Elasticsearch's format.
pub(crate) fn hits_json(searcher: &Searcher, layout: &Layout, page: Vec<(Vec<SortVal>, Match)>, style: &HitStyle) -> Result<Vec<Value>, EsError> {
    let mut hits = Vec::with_capacity(page.len());
    let mut buf = Vec::new();
    for (vals, m) in page {
        let (id, source) = load(searcher, layout, &m)?;
        let mut hit = Map::new();
        hit.insert("_index".into(), json!(style.index));
        hit.insert("_id".into(), json!(id));
        hit.insert("_score".into(), if style.scores { json!(m.score) } else { Value::Null });
        if let Some(src) = style.source.apply(source) {
            hit.insert("_source".into(), src);
        }
        if !style.docvalues.is_empty() {
            let mut fields = Map::new();
            for (path, cols, format) in style.docvalues {
                buf.clear();
                cols.values(m.seg, m.doc, &mut buf);
                // Doc values come sorted, as Elasticsearch's sorted (set) doc values do.
                buf.sort_by(|a, b| match (a, b) {
                    (Val::Ord(x), Val::Ord(y)) => x.cmp(y),
                    _ => a.number().unwrap_or(0.0).total_cmp(&b.number().unwrap_or(0.0)),
                });
                let mut values = Vec::with_capacity(buf.len());
                for v in &buf {
                    values.push(match *v {
                        Val::Ord(o) => json!(cols.term(m.seg, o)?),
                        Val::I64(i) => json!(i),
                        Val::F64(f) => json!(f),
                        Val::Date(ms) => json!(super::dates::format_millis(ms, format.as_deref())),
                        Val::Bool(b) => json!(b),
                    });
                }
                if !values.is_empty() {
                    fields.insert(path.clone(), Value::Array(values));
                }
            }
            hit.insert("fields".into(), Value::Object(fields));
        }
        if style.sort_values {
            hit.insert("sort".into(), Value::Array(vals.iter().map(SortVal::to_json).collect()));
        }
        hits.push(Value::Object(hit));
    }
    Ok(hits)
}

/// `docvalue_fields`: paths (or `{"field", "format"}`) with their columns; wildcards expand.
pub(crate) fn docvalue_fields(searcher: &Searcher, layout: &Layout, v: Option<&Value>) -> Result<Vec<(String, FieldColumns, Option<String>)>, EsError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let entries = v.as_array().ok_or_else(|| EsError::Json("docvalue_fields must be a list".into()))?;
    let mut out = Vec::new();
    for e in entries {
        let (pattern, format) = match e {
            Value::String(p) => (p.clone(), None),
            Value::Object(o) => (
                o.get("field").and_then(Value::as_str).ok_or_else(|| EsError::Json("docvalue_fields entry needs a field".into()))?.to_string(),
                o.get("format").and_then(Value::as_str).map(str::to_string),
            ),
            other => return Err(EsError::Json(format!("docvalue_fields: cannot read {other}"))),
        };
        let mut paths: Vec<(&String, &super::schema::Slot)> =
            layout.paths().filter(|(p, s)| glob_match(&pattern, p) && !(pattern.contains('*') && s.kind == FieldKind::Text)).collect();
        paths.sort_by(|a, b| a.0.cmp(b.0));
        for (path, slot) in paths {
            out.push((path.clone(), FieldColumns::open(searcher, slot, path)?, format.clone()));
        }
    }
    Ok(out)
}

/// What `_source` of each hit to return.
pub(crate) enum SourceFilter {
    All,
    Nothing,
    Filter { includes: Vec<String>, excludes: Vec<String> },
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

impl SourceFilter {
    /// Parse the `_source` request key.
    pub(crate) fn parse(v: Option<&Value>) -> Result<SourceFilter, EsError> {
        Ok(match v {
            None | Some(Value::Bool(true)) | Some(Value::Null) => SourceFilter::All,
            Some(Value::Bool(false)) => SourceFilter::Nothing,
            Some(Value::String(_) | Value::Array(_)) => SourceFilter::Filter { includes: string_list(v), excludes: Vec::new() },
            Some(Value::Object(o)) => {
                if let Some(k) = o.keys().find(|k| !matches!(String::as_str(k), "includes" | "excludes" | "include" | "exclude")) {
                    return Err(EsError::Unsupported(format!("_source.{k}")));
                }
                SourceFilter::Filter {
                    includes: string_list(o.get("includes").or_else(|| o.get("include"))),
                    excludes: string_list(o.get("excludes").or_else(|| o.get("exclude"))),
                }
            }
            Some(other) => return Err(EsError::Json(format!("_source: cannot read {other}"))),
        })
    }

    /// The filtered source (`None`: no `_source` in the hit).
    pub(crate) fn apply(&self, source: Map<String, Value>) -> Option<Value> {
        match self {
            SourceFilter::All => Some(Value::Object(source)),
            SourceFilter::Nothing => None,
            SourceFilter::Filter { includes, excludes } => Some(Value::Object(filter_object(source, "", includes, excludes))),
        }
    }
}

fn filter_object(obj: Map<String, Value>, prefix: &str, includes: &[String], excludes: &[String]) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in obj {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        if excludes.iter().any(|p| glob_match(p, &path)) {
            continue;
        }
        let whole = includes.is_empty() || includes.iter().any(|p| glob_match(p, &path) || glob_match(p, &format!("{path}.*")) && p.ends_with(".*"));
        let kept = match v {
            Value::Object(o) if whole && excludes.is_empty() => Some(Value::Object(o)),
            Value::Object(o) => {
                let inner_includes: &[String] = if whole { &[] } else { includes };
                let f = filter_object(o, &path, inner_includes, excludes);
                (!f.is_empty() || whole).then_some(Value::Object(f))
            }
            Value::Array(items) if items.iter().any(Value::is_object) && !(whole && excludes.is_empty()) => {
                let inner_includes: &[String] = if whole { &[] } else { includes };
                let kept: Vec<Value> = items
                    .into_iter()
                    .filter_map(|item| match item {
                        Value::Object(o) => {
                            let f = filter_object(o, &path, inner_includes, excludes);
                            (!f.is_empty()).then_some(Value::Object(f))
                        }
                        other => whole.then_some(other),
                    })
                    .collect();
                (!kept.is_empty()).then_some(Value::Array(kept))
            }
            other => whole.then_some(other),
        };
        if let Some(v) = kept {
            out.insert(k, v);
        }
    }
    out
}

/// The stored `_id` and `_source` of a document.
pub(crate) fn load(searcher: &Searcher, layout: &Layout, m: &Match) -> Result<(String, Map<String, Value>), EsError> {
    let doc: TantivyDocument = searcher.doc(DocAddress::new(m.seg, m.doc)).map_err(|e| EsError::Engine(e.to_string()))?;
    let id = doc.get_first(layout.id).and_then(|v| v.as_str()).unwrap_or_default().to_string();
    let source = doc.get_first(layout.source).and_then(|v| v.as_str()).unwrap_or("{}");
    let source: Map<String, Value> = serde_json::from_str(source)?;
    Ok((id, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_filter_includes_excludes_and_objects() {
        let src: Map<String, Value> = serde_json::from_value(json!({"a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}], "h": "x"})).unwrap();
        let f = SourceFilter::parse(Some(&json!({"includes": ["b.c", "e*", "h"], "excludes": ["e.g"]}))).unwrap();
        assert_eq!(f.apply(src.clone()), Some(json!({"b": {"c": 2}, "e": [{"f": 1}], "h": "x"})));
        let f = SourceFilter::parse(Some(&json!(["b"]))).unwrap();
        assert_eq!(f.apply(src.clone()), Some(json!({"b": {"c": 2, "d": 3}})));
        assert_eq!(SourceFilter::parse(Some(&json!(false))).unwrap().apply(src), None);
        assert!(SourceFilter::parse(Some(&json!({"fields": ["a"]}))).is_err());
    }
}
