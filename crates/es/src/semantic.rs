//! The optional semantic file of an index (TOML): what fields mean, the words people use for
//! them, phrases that stand for values, and the date field a bare date refers to.
//!
//! ```toml
//! default_date = "created_at"
//! [fields.assignee]
//! description = "Who works on the ticket"
//! synonyms = ["owner", "handler"]
//! [[value_aliases]]
//! phrase = "urgent"
//! field = "priority"
//! values = ["P1"]
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::EsError;

/// One field's description and synonyms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemanticField {
    /// What the field holds.
    pub description: Option<String>,
    /// Words users say for it.
    pub synonyms: Vec<String>,
}

/// A phrase that stands for values of a field ("late" → status delayed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ValueAlias {
    /// The user's phrase.
    pub phrase: String,
    /// The field (dotted path).
    pub field: String,
    /// The values it stands for.
    pub values: Vec<String>,
}

/// The semantic file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Semantic {
    /// The date field a date without a field word refers to.
    pub default_date: Option<String>,
    /// Per field (dotted path).
    pub fields: BTreeMap<String, SemanticField>,
    /// Value aliases.
    pub value_aliases: Vec<ValueAlias>,
}

impl Semantic {
    /// Read a semantic file (TOML).
    pub fn load(path: &Path) -> Result<Semantic, EsError> {
        let text = std::fs::read_to_string(path).map_err(|e| EsError::io("cannot read the semantic file", path, e))?;
        toml::from_str(&text).map_err(|e| EsError::Mapping(format!("semantic file {}: {}", path.display(), e.message())))
    }
}
