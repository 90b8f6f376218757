//! Reading a field's values from tantivy's columnar (fast-field) storage, segment by segment:
//! what sorting and aggregations read.

use tantivy::columnar::{Column, StrColumn};
use tantivy::{DateTime, Searcher};

use super::schema::Slot;
use crate::{EsError, FieldKind};

/// One value of a doc as stored: strings as the segment's term ordinals (ordered like the
/// strings), dates as epoch milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Val {
    Ord(u64),
    I64(i64),
    F64(f64),
    Date(i64),
    Bool(bool),
}

impl Val {
    /// The value as a number (dates as milliseconds, booleans 0/1); `None` for strings.
    pub(crate) fn number(self) -> Option<f64> {
        match self {
            Val::Ord(_) => None,
            Val::I64(i) | Val::Date(i) => Some(i as f64),
            Val::F64(f) => Some(f),
            Val::Bool(b) => Some(f64::from(u8::from(b))),
        }
    }
}

enum Col {
    Str(StrColumn),
    I64(Column<i64>),
    F64(Column<f64>),
    Date(Column<DateTime>),
    Bool(Column<bool>),
    /// The segment has no value for the field.
    Absent,
}

/// The columns of one field across the searcher's segments.
pub(crate) struct FieldColumns {
    per_segment: Vec<Col>,
    /// How the field's values are typed.
    pub(crate) kind: FieldKind,
}

fn engine(e: impl std::fmt::Display) -> EsError {
    EsError::Engine(e.to_string())
}

impl FieldColumns {
    /// Open the columns of `slot` (a text field reads its keyword multi-field; a text field
    /// without one cannot be sorted or aggregated, as in Elasticsearch without fielddata).
    pub(crate) fn open(searcher: &Searcher, slot: &Slot, path: &str) -> Result<FieldColumns, EsError> {
        // As in Elasticsearch without fielddata: text is analysed, its keyword multi-field is
        // what sorts and aggregates.
        match (slot.kind, &slot.exact) {
            (FieldKind::Text, Some(_)) => {
                return Err(EsError::Mapping(format!("field {path:?} is text: sort or aggregate on its keyword multi-field instead")));
            }
            (FieldKind::Text, None) | (FieldKind::Other, _) => {
                return Err(EsError::Mapping(format!("field {path:?} cannot be sorted or aggregated (text without a keyword multi-field)")));
            }
            _ => {}
        }
        let mut per_segment = Vec::with_capacity(searcher.segment_readers().len());
        for seg in searcher.segment_readers() {
            let ff = seg.fast_fields();
            let name = slot.column.as_str();
            let col = match slot.kind {
                FieldKind::Keyword => ff.str(name).map_err(engine)?.map_or(Col::Absent, Col::Str),
                FieldKind::Long => ff.column_opt::<i64>(name).map_err(engine)?.map_or(Col::Absent, Col::I64),
                FieldKind::Double => ff.column_opt::<f64>(name).map_err(engine)?.map_or(Col::Absent, Col::F64),
                FieldKind::Date => ff.column_opt::<DateTime>(name).map_err(engine)?.map_or(Col::Absent, Col::Date),
                FieldKind::Boolean => ff.column_opt::<bool>(name).map_err(engine)?.map_or(Col::Absent, Col::Bool),
                FieldKind::Text | FieldKind::Other => Col::Absent,
            };
            per_segment.push(col);
        }
        Ok(FieldColumns { per_segment, kind: slot.kind })
    }

    /// The values of `doc` in segment `seg`, appended to `out`.
    pub(crate) fn values(&self, seg: u32, doc: u32, out: &mut Vec<Val>) {
        match self.per_segment.get(seg as usize) {
            Some(Col::Str(c)) => out.extend(c.term_ords(doc).map(Val::Ord)),
            Some(Col::I64(c)) => out.extend(c.values_for_doc(doc).map(Val::I64)),
            Some(Col::F64(c)) => out.extend(c.values_for_doc(doc).map(Val::F64)),
            Some(Col::Date(c)) => out.extend(c.values_for_doc(doc).map(|d| Val::Date(d.into_timestamp_millis()))),
            Some(Col::Bool(c)) => out.extend(c.values_for_doc(doc).map(Val::Bool)),
            Some(Col::Absent) | None => {}
        }
    }

    /// The string of a term ordinal of segment `seg`.
    pub(crate) fn term(&self, seg: u32, ord: u64) -> Result<String, EsError> {
        let mut s = String::new();
        if let Some(Col::Str(c)) = self.per_segment.get(seg as usize) {
            c.ord_to_str(ord, &mut s).map_err(engine)?;
        }
        Ok(s)
    }

    /// The strings of term ordinals of segment `seg`, `ords` sorted ascending, in one pass over
    /// the segment's dictionary (one [`FieldColumns::term`] per ordinal re-reads a dictionary
    /// block each time: that dominated a sampling search over high-cardinality fields).
    pub(crate) fn terms_sorted(&self, seg: u32, ords: &[u64]) -> Result<Vec<String>, EsError> {
        let mut out = Vec::with_capacity(ords.len());
        if let Some(Col::Str(c)) = self.per_segment.get(seg as usize) {
            c.dictionary().sorted_ords_to_term_cb(ords, |bytes| out.push(String::from_utf8_lossy(bytes).into_owned())).map_err(engine)?;
        }
        out.resize(ords.len(), String::new());
        Ok(out)
    }

    /// Number of distinct strings of segment `seg` (0 for other kinds).
    pub(crate) fn num_terms(&self, seg: u32) -> usize {
        match self.per_segment.get(seg as usize) {
            Some(Col::Str(c)) => c.num_terms(),
            _ => 0,
        }
    }
}
