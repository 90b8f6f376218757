//! The database as the question reader sees it ([`qa_question::SourceSchema`]): tables and
//! columns with the kind a question can use — 0/1 integers and yes/no text as flags, ISO text
//! as dates, prose apart from names and codes — the value index, keys and foreign keys (declared
//! and inferred), synonyms and value aliases from the semantic file. And the value lookup that
//! asks the database whether a literal of the question is a stored value.

use qa_question::link::ValueLookup;
use qa_question::{Collection, Field, FieldKind, KeyRole, Relation, SourceSchema, ValueAlias};

use super::super::db::SqlDatabase;
use super::super::schema::SchemaContext;
use super::super::{ColumnInfo, ColumnKind, ExecLimits, TableInfo};
use super::ir::{ident, literal};

/// The spellings of true and false a flag column may store (lower case).
pub(crate) const TRUE_SPELLINGS: &[&str] = &["1", "t", "true", "y", "yes"];
const FALSE_SPELLINGS: &[&str] = &["0", "f", "false", "n", "no"];

/// An ISO date or timestamp as text.
pub(crate) fn is_iso_date(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() >= 10 && b[4] == b'-' && b[7] == b'-' && b[..4].iter().all(u8::is_ascii_digit) && b[5..7].iter().all(u8::is_ascii_digit) && b[8..10].iter().all(u8::is_ascii_digit)
}

/// What a column holds, for reading questions.
pub(crate) fn field_kind(t: &TableInfo, c: &ColumnInfo) -> FieldKind {
    let known: Vec<String> = if c.values.is_empty() { c.samples.iter().map(|v| v.to_lowercase()).collect() } else { c.values.iter().map(|v| v.to_lowercase()).collect() };
    let complete = c.values_complete || (!c.samples.is_empty() && c.distinct.is_some_and(|d| d as usize <= c.samples.len()));
    let key = t.primary_key.iter().any(|p| p.eq_ignore_ascii_case(&c.name));
    match c.kind() {
        ColumnKind::Boolean => FieldKind::Flag,
        ColumnKind::Integer if complete && !key && !known.is_empty() && known.iter().all(|v| v == "0" || v == "1") && !code_like(&c.name) => FieldKind::Flag,
        ColumnKind::Integer => FieldKind::Integer,
        ColumnKind::Number => FieldKind::Number,
        ColumnKind::Date => FieldKind::Date,
        ColumnKind::Text | ColumnKind::Other => {
            if complete && !known.is_empty() && known.len() <= 2 && known.iter().all(|v| TRUE_SPELLINGS.contains(&v.as_str()) || FALSE_SPELLINGS.contains(&v.as_str())) && known.iter().any(|v| TRUE_SPELLINGS.contains(&v.as_str())) {
                FieldKind::Flag
            } else if !known.is_empty() && known.iter().all(|v| is_iso_date(v)) {
                FieldKind::Date
            } else if complete && known.iter().filter(|v| !is_missing(v)).count() > 0 && known.iter().all(|v| is_missing(v) || v.trim().parse::<f64>().is_ok()) && !code_like(&c.name) {
                FieldKind::Number
            } else if known.iter().map(|v| v.split_whitespace().count()).sum::<usize>() > known.len() * 6 {
                FieldKind::Text
            } else {
                FieldKind::Keyword
            }
        }
    }
}

/// A stored spelling of "no value".
pub(crate) fn is_missing(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "" | "null" | "none" | "na" | "n/a" | "nan" | "-")
}

/// Numbers stored as text: compared and sorted as numbers only when cast.
pub(crate) fn numeric_text(ctx: &SchemaContext, c: &super::ir::ColRef) -> bool {
    ctx.table(&c.table).and_then(|t| t.column(&c.column).map(|col| (t, col))).is_some_and(|(t, col)| matches!(col.kind(), ColumnKind::Text | ColumnKind::Other) && field_kind(t, col) == FieldKind::Number)
}

/// A name of a column whose digits are an identifier, not a quantity (a zip code, a phone).
fn code_like(name: &str) -> bool {
    qa_question::names::name_words(name).iter().any(|w| matches!(w.as_str(), "code" | "zip" | "phone" | "postcode" | "postal" | "id" | "tel" | "fax" | "number" | "no" | "ssn" | "isbn" | "sku" | "year" | "yr"))
}

/// The stored spelling of true (or false) of a flag column, as a literal.
pub(crate) fn flag_literal(ctx: &SchemaContext, table: &str, column: &str, value: bool) -> super::ir::Lit {
    let c = ctx.table(table).and_then(|t| t.column(column));
    let known: Vec<String> = c.map(|c| if c.values.is_empty() { c.samples.clone() } else { c.values.clone() }).unwrap_or_default();
    let want: &[&str] = if value { TRUE_SPELLINGS } else { FALSE_SPELLINGS };
    match c.map(ColumnInfo::kind) {
        Some(ColumnKind::Boolean) => super::ir::Lit::Bool(value),
        Some(ColumnKind::Integer) | Some(ColumnKind::Number) => super::ir::Lit::Num(if value { 1.0 } else { 0.0 }),
        _ => match known.iter().find(|v| want.contains(&v.to_lowercase().as_str())) {
            Some(v) => super::ir::Lit::Text(v.clone()),
            None => super::ir::Lit::Text(if value { "1".into() } else { "0".into() }),
        },
    }
}

/// The database's self-description for the question reader.
pub(crate) fn source_schema(ctx: &SchemaContext) -> SourceSchema {
    let mut collections = Vec::new();
    let mut relations = Vec::new();
    let sem = ctx.semantic.as_ref();
    for t in &ctx.db.tables {
        let st = sem.and_then(|s| s.tables.iter().find(|(k, _)| k.eq_ignore_ascii_case(&t.name)).map(|(_, v)| v));
        let mut fields = Vec::new();
        for c in &t.columns {
            let kind = field_kind(t, c);
            let foreign = t.foreign_keys.iter().any(|fk| fk.columns.iter().any(|x| x.eq_ignore_ascii_case(&c.name))) || ctx.inferred.iter().any(|e| e.from_table.eq_ignore_ascii_case(&t.name) && e.from_column.eq_ignore_ascii_case(&c.name));
            let key = if t.primary_key.iter().any(|p| p.eq_ignore_ascii_case(&c.name)) && t.primary_key.len() == 1 {
                KeyRole::Primary
            } else if foreign {
                KeyRole::Foreign
            } else {
                KeyRole::None
            };
            let values = match kind {
                FieldKind::Keyword if c.values_complete => c.values.clone(),
                FieldKind::Keyword => c.samples.clone(),
                FieldKind::Flag => c.values.clone(),
                _ => Vec::new(),
            };
            let synonyms = st.and_then(|s| s.columns.iter().find(|(k, _)| k.eq_ignore_ascii_case(&c.name)).map(|(_, v)| v.synonyms.clone())).unwrap_or_default();
            fields.push(Field { name: c.name.clone(), kind, values, distinct: c.distinct, synonyms, nullable: c.nullable, key });
        }
        collections.push(Collection { name: t.name.clone(), fields, synonyms: st.map(|s| s.synonyms.clone()).unwrap_or_default() });
        for fk in &t.foreign_keys {
            if let (Some(c), Some(rc)) = (fk.columns.first(), fk.ref_columns.first()) {
                relations.push(Relation { from: t.name.clone(), from_field: c.clone(), to: fk.ref_table.clone(), to_field: rc.clone() });
            }
        }
    }
    // "How many people did we hire?": of a schema whose rows are people in one table only
    // (first and last names), "people" and "person" name that table.
    let person = |c: &Collection| {
        let has = |w: &str| c.fields.iter().any(|f| f.key == KeyRole::None && qa_question::names::name_words(&f.name).iter().any(|x| x == w) && qa_question::names::name_words(&f.name).iter().any(|x| x == "name"));
        has("first") && has("last")
    };
    let people: Vec<usize> = (0..collections.len()).filter(|&i| person(&collections[i])).collect();
    if let [one] = people.as_slice() {
        let c = &mut collections[*one];
        for w in ["people", "person", "persons"] {
            if !c.synonyms.iter().any(|s| s.eq_ignore_ascii_case(w)) {
                c.synonyms.push(w.to_string());
            }
        }
    }
    for e in &ctx.inferred {
        relations.push(Relation { from: e.from_table.clone(), from_field: e.from_column.clone(), to: e.to_table.clone(), to_field: e.to_column.clone() });
    }
    let aliases = sem.map(|s| s.value_aliases.iter().map(|a| ValueAlias { phrase: a.phrase.clone(), collection: a.table.clone(), field: a.column.clone(), values: a.values.clone() }).collect()).unwrap_or_default();
    SourceSchema { collections, relations, aliases }
}

/// Asks the database whether a literal is a stored value of a text column whose values are not
/// all in the value index: one capped, read-only, case-insensitive equality query per column.
pub(crate) struct DbLookup<'a> {
    pub(crate) db: &'a mut dyn SqlDatabase,
    pub(crate) ctx: &'a SchemaContext,
    pub(crate) limits: ExecLimits,
    /// Queries left: a question asks about a few literals, never the whole database.
    pub(crate) budget: usize,
}

impl ValueLookup for DbLookup<'_> {
    fn lookup(&mut self, text: &str) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        let needle = text.trim();
        if needle.chars().count() < 2 || needle.chars().count() > 80 {
            return out;
        }
        for t in &self.ctx.db.tables {
            for c in t.columns.iter().filter(|c| matches!(c.kind(), ColumnKind::Text | ColumnKind::Other) && !c.values_complete) {
                // Complete columns were indexed: the linker has matched their values already.
                if field_kind(t, c) != FieldKind::Keyword || self.budget == 0 {
                    continue;
                }
                self.budget -= 1;
                let sql = format!("SELECT {} FROM {} WHERE LOWER({}) = LOWER({}) LIMIT 1", ident(&c.name), ident(&t.name), ident(&c.name), literal(needle));
                if let Ok(r) = self.db.query(&sql, ExecLimits { row_cap: 1, ..self.limits })
                    && let Some(v) = r.rows.first().and_then(|row| row.first()).and_then(|v| v.as_str())
                {
                    out.push((t.name.clone(), c.name.clone(), v.to_string()));
                }
            }
        }
        out
    }

    fn record_holds(&mut self, collection: &str, pairs: &[(String, String)]) -> Option<bool> {
        let t = self.ctx.db.tables.iter().find(|t| t.name.eq_ignore_ascii_case(collection))?;
        if self.budget == 0 || pairs.is_empty() {
            return None;
        }
        let mut conds = Vec::new();
        for (field, value) in pairs {
            let c = t.columns.iter().find(|c| c.name.eq_ignore_ascii_case(field))?;
            conds.push(format!("LOWER({}) = LOWER({})", ident(&c.name), literal(value)));
        }
        self.budget -= 1;
        let sql = format!("SELECT 1 FROM {} WHERE {} LIMIT 1", ident(&t.name), conds.join(" AND "));
        self.db.query(&sql, ExecLimits { row_cap: 1, ..self.limits }).ok().map(|r| !r.rows.is_empty())
    }
}
