//! Mapping lookup (F05): what the index holds (sampled through one guard-checked `size: 0`
//! search: the top values of every exact field, min/max of dates and numbers), the index as the
//! shared question reader sees it ([`source_schema`]: one collection, the index, with its fields'
//! kinds, sampled values, synonyms and value aliases), and the value lookup that asks the index
//! whether a name or code of the question is a stored value ([`IndexLookup`]). Reading the
//! question itself is [`qa_question`]'s: analysis, linking and coverage; the plan ([`crate::plan`])
//! is built from them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use qa_question::link::ValueLookup;
use qa_question::{Collection, KeyRole, SourceSchema, ValueAlias};

use crate::plan::Choices;
use crate::semantic::Semantic;
use crate::{Endpoint, EsError, EsLimits, Field, FieldKind, Mapping, SearchEngine};

/// What was sampled from the index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// Top values per exact field path, with their document counts.
    pub values: BTreeMap<String, Vec<(String, u64)>>,
    /// `[min, max]` per date or numeric field (as the engine returns them).
    pub ranges: BTreeMap<String, (Value, Value)>,
    /// How many documents hold a value, per date field (and per keyword, as room allows).
    #[serde(default)]
    pub present: BTreeMap<String, u64>,
    /// How many documents the index holds, when the engine counted them exactly.
    #[serde(default)]
    pub total: Option<u64>,
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
                // (A date some documents lack is filled when something later happens to them:
                // see `Field::nullable`.)
                if f.kind == FieldKind::Date {
                    let key = format!("n{}", names.len());
                    aggs.insert(key.clone(), json!({"value_count": {"field": f.path}}));
                    names.push((key, f.path.clone(), "value_count"));
                }
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
    // With room left, how many documents hold each keyword: one some documents lack is
    // optional ("applications without an architect" of `architectFirm`).
    for f in mapping.fields.iter().filter(|f| matches!(f.kind, FieldKind::Keyword | FieldKind::Text)) {
        if names.len() >= crate::guard::MAX_AGGS.saturating_sub(2) {
            break;
        }
        if let Some(path) = f.exact_path() {
            let key = format!("n{}", names.len());
            aggs.insert(key.clone(), json!({"value_count": {"field": path}}));
            names.push((key, f.path.clone(), "value_count"));
        }
    }
    let body = json!({"size": 0, "aggs": aggs});
    let request = crate::guard::checked(&body, Endpoint::Search, mapping, limits)?;
    let resp = engine.run(&request)?;
    let mut meta = Metadata::default();
    let aggs = resp.get("aggregations").cloned().unwrap_or(Value::Null);
    let mut mins: BTreeMap<String, Value> = BTreeMap::new();
    let total = &resp["hits"]["total"];
    meta.total = match total.get("relation").and_then(Value::as_str) {
        Some("eq") | None => total.get("value").and_then(Value::as_u64).or_else(|| total.as_u64()),
        Some(_) => None,
    };
    for (key, path, kind) in names {
        let a = &aggs[&key];
        match kind {
            "value_count" => {
                if let Some(n) = a["value"].as_u64() {
                    meta.present.insert(path, n);
                }
            }
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

/// The words of a field name: `eta_date` → eta, date; `consigneeName` → consignee, name.
pub fn name_words(path: &str) -> Vec<String> {
    qa_question::names::name_words(path)
}

/// The spellings of true and false a keyword flag may store (lower case).
const TRUE_SPELLINGS: &[&str] = &["true", "yes", "y", "t", "1"];
const FALSE_SPELLINGS: &[&str] = &["false", "no", "n", "f", "0"];

/// The sampled values of a field (at its exact path), most frequent first.
pub fn sampled<'a>(f: &Field, meta: &'a Metadata) -> &'a [(String, u64)] {
    f.exact_path().and_then(|p| meta.values.get(&p)).map(Vec::as_slice).unwrap_or(&[])
}

/// Prose: a text field whose sampled values are sentences (or that has no exact form).
pub fn is_prose(f: &Field, meta: &Metadata) -> bool {
    if f.kind != FieldKind::Text {
        return false;
    }
    let vals = sampled(f, meta);
    if vals.is_empty() {
        return true;
    }
    let words: usize = vals.iter().map(|(v, _)| v.split_whitespace().count()).sum();
    words >= vals.len() * 4
}

/// A keyword field that stores only true/false spellings (`yes`/`no`, `Y`/`N`) in a complete
/// sample: a flag.
fn keyword_flag(f: &Field, meta: &Metadata, sample_size: usize) -> bool {
    let vals = sampled(f, meta);
    f.kind == FieldKind::Keyword
        && !vals.is_empty()
        && vals.len() <= 2
        && vals.len() < sample_size
        && vals.iter().all(|(v, _)| TRUE_SPELLINGS.contains(&v.to_lowercase().as_str()) || FALSE_SPELLINGS.contains(&v.to_lowercase().as_str()))
        && vals.iter().any(|(v, _)| TRUE_SPELLINGS.contains(&v.to_lowercase().as_str()))
}

/// What a mapping field holds, for reading questions: keywords and name-like text are
/// keywords, prose is text, booleans (and yes/no keywords) are flags.
pub fn field_kind(f: &Field, meta: &Metadata, sample_size: usize) -> qa_question::FieldKind {
    use qa_question::FieldKind as K;
    match f.kind {
        FieldKind::Keyword if keyword_flag(f, meta, sample_size) => K::Flag,
        FieldKind::Keyword => K::Keyword,
        FieldKind::Text if is_prose(f, meta) => K::Text,
        FieldKind::Text => K::Keyword,
        FieldKind::Long => K::Integer,
        FieldKind::Double => K::Number,
        FieldKind::Date => K::Date,
        FieldKind::Boolean => K::Flag,
        FieldKind::Other => K::Other,
    }
}

/// The stored form of true or false for a flag field: a JSON boolean, or the keyword's spelling.
pub fn flag_value(f: &Field, meta: &Metadata, value: bool) -> Value {
    if f.kind == FieldKind::Boolean {
        return Value::Bool(value);
    }
    let want = if value { TRUE_SPELLINGS } else { FALSE_SPELLINGS };
    match sampled(f, meta).iter().find(|(v, _)| want.contains(&v.to_lowercase().as_str())) {
        Some((v, _)) => Value::String(v.clone()),
        None => Value::Bool(value),
    }
}

/// A choice that binds a phrase of the question to a field (an answer to "no field matches …"):
/// the phrase and the field. Other choices (the date field, "run it without …") are not.
pub fn bound_phrases<'a>(choices: &'a Choices, mapping: &'a Mapping) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    choices.iter().filter(|(k, v)| k.as_str() != crate::plan::DATE_CHOICE && mapping.field(v).is_some()).map(|(k, v)| (k.as_str(), v.as_str()))
}

/// The index as the question reader sees it: one collection named after the index, a field per
/// mapping field (dotted paths) with its kind, its sampled values (keywords and name-like text;
/// a flag's stored spellings), the semantic file's synonyms and value aliases, and — from earlier
/// answers — the phrases the user said name a field.
pub fn source_schema(mapping: &Mapping, meta: &Metadata, semantic: &Semantic, choices: &Choices, sample_size: usize) -> SourceSchema {
    let mut fields = Vec::new();
    for f in &mapping.fields {
        let kind = field_kind(f, meta, sample_size);
        if kind == qa_question::FieldKind::Other {
            continue;
        }
        let values: Vec<String> = match kind {
            qa_question::FieldKind::Keyword | qa_question::FieldKind::Flag => sampled(f, meta).iter().map(|(v, _)| v.clone()).collect(),
            _ => Vec::new(),
        };
        let mut synonyms = semantic.fields.get(&f.path).map(|s| s.synonyms.clone()).unwrap_or_default();
        synonyms.extend(bound_phrases(choices, mapping).filter(|(_, v)| mapping.field(v).is_some_and(|x| x.path == f.path)).map(|(k, _)| k.to_string()));
        let words = name_words(&f.path);
        let key = match words.last().map(String::as_str) {
            Some("id") if words.len() == 1 => KeyRole::Primary,
            Some("id") => KeyRole::Foreign,
            _ => KeyRole::None,
        };
        let distinct = Some(sampled(f, meta).len() as u64).filter(|n| (*n as usize) < sample_size && *n > 0);
        // A date that some documents lack (`clearedDate` of declarations still held).
        let nullable = matches!((meta.present.get(&f.path), meta.total), (Some(n), Some(t)) if *n < t);
        fields.push(qa_question::Field { name: f.path.clone(), kind, values, distinct, synonyms, nullable, key });
    }
    let aliases = semantic.value_aliases.iter().map(|a| ValueAlias { phrase: a.phrase.clone(), collection: mapping.index.clone(), field: a.field.clone(), values: a.values.clone() }).collect();
    // The records are what a classifier field classifies ("properties" of `property_type`).
    let mut collection = Collection::new(mapping.index.clone(), fields);
    collection.synonyms = collection.fields.iter().filter_map(|f| qa_question::names::classified_noun(&f.name)).filter(|n| !collection.fields.iter().any(|f| qa_question::names::name_words(&f.name) == [n.clone()])).collect();
    // The records are what their own code names ("jobs" of an index with a `job_code` held once
    // per record, "sessions" of `session_id`): a code field with more values than were sampled,
    // each of them on one record.
    let mut own_codes: Vec<String> = mapping.fields.iter().filter_map(|f| document_noun(f, meta, sample_size)).collect();
    // Several codes held once per record (a trip's `trip_id` and the `bikeId` of a bike used
    // once in the sample): the record's is the one whose noun also names a date of the record
    // (`trip_date`, `tripStartedAt`).
    if own_codes.len() > 1 {
        let dated = |noun: &String| mapping.fields.iter().any(|f| f.kind == FieldKind::Date && name_words(&f.path).first() == Some(noun));
        own_codes.retain(dated);
    }
    if let [noun] = own_codes.as_slice()
        && !collection.synonyms.contains(noun)
        && !collection.fields.iter().any(|f| qa_question::names::name_words(&f.name) == [noun.clone()])
    {
        collection.synonyms.push(noun.clone());
    }
    SourceSchema { collections: vec![collection], relations: Vec::new(), aliases }
}

/// The noun a record's own code field names (`job` of `job_code`, `session` of `sessionId`):
/// one word before `id`/`code`/`number`/`no`/`ref`, on a field whose sampled values fill the
/// sample and each sit on one record.
fn document_noun(f: &Field, meta: &Metadata, sample_size: usize) -> Option<String> {
    let words = name_words(&f.path);
    let [noun, suffix] = words.as_slice() else { return None };
    if !matches!(suffix.as_str(), "id" | "code" | "number" | "no" | "ref") || noun.len() < 3 {
        return None;
    }
    let vals = sampled(f, meta);
    (vals.len() >= sample_size && vals.iter().all(|(_, n)| *n == 1)).then(|| noun.clone())
}

/// Asks the index whether a literal of the question (a name, a code, quoted text) is a stored
/// value of a keyword or name-like text field whose sample does not list every value: one
/// guard-checked `size: 1` search per field and spelling, a few per question at most.
pub struct IndexLookup<'a> {
    /// The index.
    pub engine: &'a dyn SearchEngine,
    /// Its mapping.
    pub mapping: &'a Mapping,
    /// What was sampled.
    pub meta: &'a Metadata,
    /// Caps.
    pub limits: &'a EsLimits,
    /// Values sampled per field (a shorter list is complete).
    pub sample_size: usize,
    /// Searches left.
    pub budget: usize,
    /// The bodies sent, for the trace.
    pub executed: Vec<Value>,
}

impl IndexLookup<'_> {
    fn ask(&mut self, body: Value) -> Option<Value> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let req = crate::guard::checked(&body, Endpoint::Search, self.mapping, self.limits).ok()?;
        self.executed.push(json!({"endpoint": "_search", "body": req.body(), "purpose": "value lookup"}));
        self.engine.run(&req).ok()
    }
}

impl ValueLookup for IndexLookup<'_> {
    fn text_hits(&mut self, phrase: &str) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for f in self.mapping.fields.iter().filter(|f| is_prose(f, self.meta)) {
            let mut q = Map::new();
            q.insert(f.path.clone(), json!(phrase));
            let resp = self.ask(json!({"size": 0, "track_total_hits": true, "query": {"match_phrase": q}}));
            let n = resp.as_ref().and_then(|r| r["hits"]["total"]["value"].as_u64().or_else(|| r["hits"]["total"].as_u64())).unwrap_or(0);
            if n > 0 {
                out.push((f.path.clone(), n));
            }
        }
        out
    }

    fn lookup(&mut self, text: &str) -> Vec<(String, String, String)> {
        let needle = text.trim();
        let mut out = Vec::new();
        // Month names are dates, not names to look up.
        if needle.chars().count() < 2 || needle.chars().count() > 80 || qa_question::dates::month_of(needle).is_some() {
            return out;
        }
        let title: String = needle.split(' ').map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c.flat_map(char::to_lowercase)).collect::<String>()).unwrap_or_default()
        }).collect::<Vec<_>>().join(" ");
        for f in &self.mapping.fields {
            let kind = field_kind(f, self.meta, self.sample_size);
            let Some(exact) = f.exact_path().filter(|_| kind == qa_question::FieldKind::Keyword) else { continue };
            let vals = sampled(f, self.meta);
            // A complete sample was linked already; a field of numbers or dates holds no names.
            if vals.len() < self.sample_size && !vals.is_empty() {
                continue;
            }
            if let Some((v, _)) = vals.iter().find(|(v, _)| v.eq_ignore_ascii_case(needle)) {
                out.push((self.mapping.index.clone(), f.path.clone(), v.clone()));
                continue;
            }
            let mut spellings = vec![needle.to_string()];
            if title != needle {
                spellings.push(title.clone());
            }
            for sp in spellings {
                let mut term = Map::new();
                term.insert(exact.clone(), json!(sp));
                let resp = self.ask(json!({"size": 1, "_source": [&f.path], "query": {"term": term}}));
                let hit = resp.as_ref().and_then(|r| r["hits"]["hits"].as_array()).and_then(|h| h.first().cloned());
                if let Some(h) = hit {
                    // The value as stored (a text field's source may differ in spacing).
                    let stored = h["_source"].pointer(&format!("/{}", f.path.replace('.', "/"))).and_then(Value::as_str).filter(|v| v.trim() == sp).map(str::to_string);
                    out.push((self.mapping.index.clone(), f.path.clone(), if f.kind == FieldKind::Keyword { sp } else { stored.unwrap_or(sp) }));
                    break;
                }
            }
        }
        out
    }
}

/// Values per keyword field shown by `qa es mapping`.
const DISPLAY_SAMPLED: usize = 5;

/// A few values per field in one guarded `_search`: top terms of exact fields, min/max of
/// numbers and dates. `None` when the request fails (the mapping is still shown).
fn display_samples(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits) -> Option<Value> {
    let mut aggs = Map::new();
    for (i, f) in mapping.fields.iter().enumerate() {
        match (f.kind, f.exact_path()) {
            // Text is prose: its values say little in a list.
            (FieldKind::Keyword | FieldKind::Boolean, Some(p)) => {
                aggs.insert(format!("f{i}"), json!({"terms": {"field": p, "size": DISPLAY_SAMPLED}}));
            }
            (k, Some(p)) if k.is_numeric_or_date() => {
                aggs.insert(format!("f{i}_min"), json!({"min": {"field": p}}));
                aggs.insert(format!("f{i}_max"), json!({"max": {"field": p}}));
            }
            _ => {}
        }
    }
    if aggs.is_empty() {
        return None;
    }
    let body = json!({"size": 0, "aggs": aggs});
    let request = crate::guard::checked(&body, Endpoint::Search, mapping, limits).map_err(|e| tracing::info!("no sampled values: {e}")).ok()?;
    engine.run(&request).map_err(|e| tracing::info!("no sampled values: {e}")).ok()?.get("aggregations").cloned()
}

/// The sampled values of field `i` as display strings.
fn field_samples(aggs: Option<&Value>, i: usize) -> Vec<String> {
    let Some(aggs) = aggs else { return Vec::new() };
    let show = |v: &Value| {
        let date = v.get("value_as_string").and_then(Value::as_str).map(|s| s.strip_suffix("T00:00:00.000Z").unwrap_or(s).to_string());
        date.or_else(|| {
            let n = v.get("value")?.as_f64()?;
            Some(if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { format!("{n}") })
        })
    };
    if let Some(buckets) = aggs.get(format!("f{i}")).and_then(|a| a["buckets"].as_array()) {
        return buckets.iter().map(|b| b.get("key_as_string").unwrap_or(&b["key"])).map(|k| k.as_str().map_or_else(|| k.to_string(), str::to_string)).collect();
    }
    match (aggs.get(format!("f{i}_min")).and_then(show), aggs.get(format!("f{i}_max")).and_then(show)) {
        (Some(lo), Some(hi)) => vec![format!("{lo} … {hi}")],
        _ => Vec::new(),
    }
}


/// The number of documents in the index: a guarded `_count` of `match_all`.
pub fn count_all(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits) -> Result<u64, EsError> {
    let request = crate::guard::checked(&json!({"query": {"match_all": {}}}), Endpoint::Count, mapping, limits)?;
    let v = engine.run(&request)?;
    v.get("count").and_then(Value::as_u64).ok_or_else(|| EsError::Json(format!("no count in the _count response: {v}")))
}

/// A mapping with a few sampled values per field, as `qa es mapping` shows it.
pub struct MappingView {
    aggs: Option<Value>,
}

impl MappingView {
    /// Sample the fields of `mapping` (one guarded `_search`; none when it fails).
    pub fn read(engine: &dyn SearchEngine, mapping: &Mapping, limits: &EsLimits) -> MappingView {
        MappingView { aggs: display_samples(engine, mapping, limits) }
    }

    /// The `--json` object: each field with its kind and samples, and the mapping itself.
    pub fn json(&self, mapping: &Mapping, target: &str) -> Value {
        let fields: Vec<Value> = mapping
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| json!({"path": f.path, "kind": f.kind, "es_type": f.es_type, "keyword_subfield": f.keyword_subfield, "format": f.format, "samples": field_samples(self.aggs.as_ref(), i)}))
            .collect();
        json!({"index": mapping.index, "target": target, "fields": fields, "mapping": mapping.to_es_json()})
    }

    /// One line per field: path, type (and the kind it is read as), keyword subfield, samples.
    pub fn lines(&self, mapping: &Mapping) -> Vec<String> {
        mapping
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let kind = if f.es_type == f.kind.es_type() { f.es_type.clone() } else { format!("{} ({})", f.kind.es_type(), f.es_type) };
                let sub = f.keyword_subfield.as_ref().map(|s| format!(" + .{s}")).unwrap_or_default();
                let samples = field_samples(self.aggs.as_ref(), i);
                let samples = if samples.is_empty() { String::new() } else { format!("  e.g. {}", samples.join(", ")) };
                format!("{:<28} {kind}{sub}{samples}", f.path)
            })
            .collect()
    }
}
