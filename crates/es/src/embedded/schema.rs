//! The tantivy schema of a mapping and the conversion of records into tantivy documents.
//!
//! Tantivy fields are named by position (`f3`, `f3k` for a keyword multi-field), never by the
//! mapping's paths, so any field name (dots, spaces, unicode) is safe. Besides the mapped fields:
//! `_id` (raw, indexed, stored), `_seq` (the record's ordinal: fast, the `_doc` sort and the
//! tie-breaker), `_source` (the record, stored verbatim) and `_present` (the paths a record has a
//! value for, what `exists` queries).

use std::collections::HashMap;

use serde_json::{Map, Value};
use tantivy::schema::{
    DateOptions, DateTimePrecision, Field as TField, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{DateTime, TantivyDocument};

use super::dates::parse_iso;
use crate::infer::for_each_leaf;
use crate::{EsError, FieldKind, Mapping};

/// Tokenizer of `text` fields: lower case, English stemming.
pub(crate) const TEXT_TOKENIZER: &str = "en_stem";
/// Longest value indexed into a `keyword` multi-field of a text field (Elasticsearch's
/// `ignore_above` of dynamic mappings).
const IGNORE_ABOVE: usize = 256;
/// Longest term Lucene accepts; Elasticsearch rejects a document with a longer keyword.
const MAX_KEYWORD_BYTES: usize = 32_766;

/// The tantivy field(s) behind one queryable path.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    /// How the path is queried (a keyword multi-field is `Keyword`).
    pub(crate) kind: FieldKind,
    /// The tantivy field.
    pub(crate) field: TField,
    /// The tantivy field's name (for fast-field columns).
    pub(crate) column: String,
    /// The path whose presence `exists` checks (the parent of a multi-field).
    pub(crate) present_path: String,
    /// For a text field, its keyword multi-field (exact values, sorting, aggregations).
    pub(crate) exact: Option<Box<Slot>>,
    /// Values longer than this (characters) are not indexed (multi-fields only).
    pub(crate) ignore_above: Option<usize>,
}

/// Every queryable path of an index and the special fields.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    slots: HashMap<String, Slot>,
    pub(crate) id: TField,
    pub(crate) seq: TField,
    pub(crate) source: TField,
    pub(crate) present: TField,
}

/// Column name of the sequence field.
pub(crate) const SEQ: &str = "_seq";

impl Layout {
    /// The schema for `mapping`, and its layout.
    pub(crate) fn build(mapping: &Mapping) -> (Schema, Layout) {
        let mut b = Schema::builder();
        let raw = TextOptions::default().set_indexing_options(TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::Basic));
        let keyword = raw.clone().set_fast("raw");
        let text = TextOptions::default()
            .set_indexing_options(TextFieldIndexing::default().set_tokenizer(TEXT_TOKENIZER).set_index_option(IndexRecordOption::WithFreqsAndPositions));
        let numeric = NumericOptions::default().set_indexed().set_fast();
        let date = DateOptions::default().set_indexed().set_fast().set_precision(DateTimePrecision::Milliseconds);
        let mut slots = HashMap::new();
        for (i, f) in mapping.fields.iter().enumerate() {
            let column = format!("f{i}");
            let field = match f.kind {
                FieldKind::Keyword => b.add_text_field(&column, keyword.clone()),
                FieldKind::Text => b.add_text_field(&column, text.clone()),
                FieldKind::Date => b.add_date_field(&column, date.clone()),
                FieldKind::Long => b.add_i64_field(&column, numeric.clone()),
                FieldKind::Double => b.add_f64_field(&column, numeric.clone()),
                FieldKind::Boolean => b.add_bool_field(&column, numeric.clone()),
                FieldKind::Other => continue,
            };
            let exact = match (f.kind, &f.keyword_subfield) {
                (FieldKind::Text, Some(sub)) => {
                    let kcol = format!("f{i}k");
                    let kfield = b.add_text_field(&kcol, keyword.clone());
                    let slot = Slot {
                        kind: FieldKind::Keyword,
                        field: kfield,
                        column: kcol,
                        present_path: f.path.clone(),
                        exact: None,
                        ignore_above: Some(IGNORE_ABOVE),
                    };
                    slots.insert(format!("{}.{sub}", f.path), slot.clone());
                    Some(Box::new(slot))
                }
                _ => None,
            };
            slots.insert(f.path.clone(), Slot { kind: f.kind, field, column, present_path: f.path.clone(), exact, ignore_above: None });
        }
        let id = b.add_text_field("_id", STRING | STORED);
        let seq = b.add_i64_field(SEQ, NumericOptions::default().set_indexed().set_fast());
        let source = b.add_text_field("_source", STORED);
        let present = b.add_text_field("_present", raw);
        (b.build(), Layout { slots, id, seq, source, present })
    }

    /// The slot of a path (`name.keyword` multi-fields included).
    pub(crate) fn slot(&self, path: &str) -> Option<&Slot> {
        self.slots.get(path)
    }

    /// Every path and its slot.
    pub(crate) fn paths(&self) -> impl Iterator<Item = (&String, &Slot)> {
        self.slots.iter()
    }

    /// The tantivy document of record number `seq` (0-based; messages say `seq + 1`).
    pub(crate) fn document(&self, record: &Map<String, Value>, seq: u64) -> Result<TantivyDocument, EsError> {
        let mut doc = TantivyDocument::default();
        let mut failure: Option<EsError> = None;
        let mut present: Vec<String> = Vec::new();
        for_each_leaf(record, &mut |path, v| {
            if failure.is_some() {
                return;
            }
            let Some(slot) = self.slots.get(path) else {
                return;
            };
            if slot.ignore_above.is_some() {
                return;
            }
            if let Err(reason) = add_value(&mut doc, slot, v) {
                failure = Some(EsError::Records(format!("record {}: field {path:?}: {reason}", seq + 1)));
                return;
            }
            if !present.iter().any(|p| p == path) {
                present.push(path.to_string());
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        for p in &present {
            doc.add_text(self.present, p);
        }
        let id = match record.get("_id").or_else(|| record.get("id")) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => seq.to_string(),
        };
        doc.add_text(self.id, &id);
        doc.add_i64(self.seq, seq as i64);
        doc.add_text(self.source, serde_json::to_string(record)?);
        Ok(doc)
    }
}

/// Add one leaf value to its field(s); the error says why it does not fit.
fn add_value(doc: &mut TantivyDocument, slot: &Slot, v: &Value) -> Result<(), String> {
    match slot.kind {
        FieldKind::Keyword | FieldKind::Text => {
            let s = scalar_string(v).ok_or("expected a string")?;
            if slot.kind == FieldKind::Keyword && s.len() > MAX_KEYWORD_BYTES {
                return Err(format!("keyword value of {} bytes is longer than {MAX_KEYWORD_BYTES}", s.len()));
            }
            doc.add_text(slot.field, &s);
            if let Some(exact) = &slot.exact
                && exact.ignore_above.is_none_or(|max| s.chars().count() <= max)
            {
                doc.add_text(exact.field, &s);
            }
        }
        FieldKind::Long => doc.add_i64(slot.field, to_i64(v).ok_or_else(|| format!("{v} is not an integer"))?),
        FieldKind::Double => doc.add_f64(slot.field, to_f64(v).ok_or_else(|| format!("{v} is not a number"))?),
        FieldKind::Boolean => doc.add_bool(slot.field, to_bool(v).ok_or_else(|| format!("{v} is not a boolean"))?),
        FieldKind::Date => doc.add_date(slot.field, DateTime::from_timestamp_millis(to_date_ms(v).ok_or_else(|| format!("{v} is not a date"))?)),
        FieldKind::Other => {}
    }
    Ok(())
}

/// The string form of a scalar (numbers and booleans as JSON writes them).
pub(crate) fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// An integer as Elasticsearch coerces it: numbers (fractions truncated) and numeric strings.
pub(crate) fn to_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.is_finite() && f.abs() < 9.2e18).map(|f| f.trunc() as i64)),
        Value::String(s) => {
            s.trim().parse::<i64>().ok().or_else(|| s.trim().parse::<f64>().ok().filter(|f| f.is_finite() && f.abs() < 9.2e18).map(|f| f.trunc() as i64))
        }
        _ => None,
    }
}

/// A float from a number or a numeric string.
pub(crate) fn to_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// A boolean from `true`/`false` or their strings.
pub(crate) fn to_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        _ => None,
    }
}

/// A date as epoch milliseconds: an ISO-8601 string or a number of milliseconds.
pub(crate) fn to_date_ms(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => parse_iso(s).map(|p| p.millis).or_else(|| s.trim().parse::<i64>().ok()),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}
