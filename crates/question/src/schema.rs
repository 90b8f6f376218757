//! A source's self-description, the same for a SQL database and a search index: collections
//! (tables; the index) with their fields (columns; mapping fields) — kind, sampled values, key
//! role, synonyms — the relations between collections (foreign keys) and value aliases.

use serde::{Deserialize, Serialize};

/// What a field holds, as far as reading a question goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// Prose: searched, not compared.
    Text,
    /// Short strings: names, codes, categories (compared for equality).
    Keyword,
    /// Whole numbers.
    Integer,
    /// Numbers with a fraction.
    Number,
    /// True/false, or a 0/1 or yes/no column: a predicate named by its adjective.
    Flag,
    /// Dates and timestamps (also when stored as ISO text).
    Date,
    /// Anything else.
    Other,
}

impl FieldKind {
    /// Holds numbers that can be compared and summed.
    pub fn is_numeric(self) -> bool {
        matches!(self, FieldKind::Integer | FieldKind::Number)
    }

    /// Holds strings that name things.
    pub fn is_textual(self) -> bool {
        matches!(self, FieldKind::Text | FieldKind::Keyword)
    }
}

/// A field's part in keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyRole {
    /// Not a key.
    #[default]
    None,
    /// (Part of) the collection's primary key.
    Primary,
    /// Refers to another collection's key.
    Foreign,
}

/// One field (a column, a mapping field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// As the source names it (a dotted path for nested index fields).
    pub name: String,
    /// What it holds.
    pub kind: FieldKind,
    /// Sampled values (most frequent first); for flags the stored true/false spellings.
    #[serde(default)]
    pub values: Vec<String>,
    /// Distinct values, when known.
    #[serde(default)]
    pub distinct: Option<u64>,
    /// Other names users give it (semantic file).
    #[serde(default)]
    pub synonyms: Vec<String>,
    /// May be empty (NULL / absent).
    #[serde(default)]
    pub nullable: bool,
    /// Its part in keys.
    #[serde(default)]
    pub key: KeyRole,
}

impl Field {
    /// A field of `kind` named `name`, with nothing else known.
    pub fn new(name: impl Into<String>, kind: FieldKind) -> Field {
        Field { name: name.into(), kind, values: Vec::new(), distinct: None, synonyms: Vec::new(), nullable: false, key: KeyRole::None }
    }

    /// With sampled values.
    pub fn with_values(mut self, values: &[&str]) -> Field {
        self.values = values.iter().map(|v| v.to_string()).collect();
        self
    }

    /// With a key role.
    pub fn with_key(mut self, key: KeyRole) -> Field {
        self.key = key;
        self
    }
}

/// A collection: a table, or the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collection {
    /// As the source names it.
    pub name: String,
    /// Its fields.
    pub fields: Vec<Field>,
    /// Other names users give it (semantic file).
    #[serde(default)]
    pub synonyms: Vec<String>,
}

impl Collection {
    /// A collection of `fields`.
    pub fn new(name: impl Into<String>, fields: Vec<Field>) -> Collection {
        Collection { name: name.into(), fields, synonyms: Vec::new() }
    }

    /// The field of that name (any case).
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name.eq_ignore_ascii_case(name))
    }
}

/// A reference from one collection's field to another's (a foreign key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relation {
    /// The referring collection.
    pub from: String,
    /// Its field.
    pub from_field: String,
    /// The referred collection.
    pub to: String,
    /// Its field.
    pub to_field: String,
}

/// A phrase that stands for values of a field ("urgent" → severity = 'Critical').
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueAlias {
    /// The user's words.
    pub phrase: String,
    /// The collection.
    pub collection: String,
    /// The field.
    pub field: String,
    /// The stored values it stands for.
    pub values: Vec<String>,
}

/// Everything a source says about itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceSchema {
    /// Tables, or the one index.
    pub collections: Vec<Collection>,
    /// Foreign keys.
    #[serde(default)]
    pub relations: Vec<Relation>,
    /// Value aliases.
    #[serde(default)]
    pub aliases: Vec<ValueAlias>,
}

impl SourceSchema {
    /// `w` says a flag by itself: the flag's whole name without its prefix (`is_seasonal`), or
    /// the state word after a participle (`delivered_late`).
    pub fn is_flag_word(&self, w: &str) -> bool {
        self.collections.iter().flat_map(|c| c.fields.iter()).any(|f| {
            f.kind == crate::FieldKind::Flag
                && match crate::names::name_words(&f.name).iter().skip_while(|x| crate::names::FLAG_PREFIXES.contains(&x.as_str())).cloned().collect::<Vec<_>>().as_slice() {
                    [one] => one == w,
                    // "late" of `delivered_late`, "short" of `wasShortPicked`.
                    [v, s] => v.ends_with("ed") && s == w || s.ends_with("ed") && v == w,
                    _ => false,
                }
        })
    }

    /// The collection of that name (any case).
    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// The field `collection.field`.
    pub fn field(&self, collection: &str, field: &str) -> Option<&Field> {
        self.collection(collection)?.field(field)
    }
}
