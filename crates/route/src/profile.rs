//! What a source offers the router, independent of its kind: collection names (tables, the
//! index), fields with their role, sampled values and value aliases, and — for documents —
//! entity names from the corpus's entity index.

use qa_question::{Collection, Field, FieldKind, SourceSchema, ValueAlias};
use serde::{Deserialize, Serialize};

use crate::score::Target;

/// How a field can be used in a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldRole {
    /// A closed set of values (keyword fields, low-cardinality text columns): enum filters.
    Category,
    /// Dates and timestamps: year and range filters.
    Date,
    /// Numbers.
    Number,
    /// Free text.
    Text,
    /// Anything else.
    Other,
}

/// One field (column, or index field) of a source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldProfile {
    /// As the source names it (`status`, `orders.status`, `customer.name`).
    pub name: String,
    /// How it can be filtered.
    pub role: FieldRole,
    /// Known values (sampled; for categories, ideally all of them).
    pub values: Vec<String>,
    /// User words for values: `(alias, value)` ("urgent" → "Critical").
    pub aliases: Vec<(String, String)>,
    /// Other names users give the field.
    pub synonyms: Vec<String>,
}

/// A source the router may send a question to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceProfile {
    /// Which kind of source.
    pub target: Target,
    /// How it is shown (corpus name, redacted database URL, index).
    pub name: String,
    /// Table names, the index name (what a question names when it means "these records").
    pub collections: Vec<String>,
    /// The fields.
    pub fields: Vec<FieldProfile>,
    /// Names of entities the documents mention (documents only).
    pub entities: Vec<String>,
}

/// Measure adjectives by noun ("weight" → heavy, heavier, …), for crates/es: a re-export of
/// [`qa_question::cues::MEASURE_NOUN_FORMS`], derived from the one vocabulary
/// [`qa_question::cues::MEASURES`]. The router itself reads measures through qa-question.
pub use qa_question::cues::MEASURE_NOUN_FORMS as MEASURE_ADJECTIVES;

/// The measure adjectives that point down ("lighter than" is "less than"), for crates/es: a
/// re-export of [`qa_question::cues::DOWNWARD_FORMS`].
pub use qa_question::cues::DOWNWARD_FORMS as DOWNWARD;

impl SourceProfile {
    /// An empty profile of `target` named `name`.
    pub fn new(target: Target, name: impl Into<String>) -> Self {
        SourceProfile { target, name: name.into(), collections: Vec::new(), fields: Vec::new(), entities: Vec::new() }
    }

    /// The field of that name.
    pub fn field(&self, name: &str) -> Option<&FieldProfile> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The name words without a unit, key or date suffix or a flag prefix (`weight_kg` →
    /// weight, `driver_id` → driver, `container_count` → container, `is_active` → active): the
    /// core form of [`qa_question::names::forms`]; the name's words when it has none, nothing when
    /// the name is only generic words (`id`). A thin wrapper kept for crates/es.
    pub fn core_name_words(name: &str) -> Vec<String> {
        let forms = qa_question::names::forms(name, &[]);
        if let Some(core) = forms.iter().find(|f| f.kind == qa_question::names::FormKind::Core) {
            return core.words.clone();
        }
        let words = Self::name_words(name);
        if words.iter().all(|w| qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str())) { Vec::new() } else { words }
    }

    /// The words a field name is made of (`departure_date` → departure, date; `customerName` →
    /// customer, name; `a.b` → a, b), singular, lower-case: [`qa_question::names::name_words`].
    /// A thin wrapper kept for crates/es.
    pub fn name_words(name: &str) -> Vec<String> {
        qa_question::names::name_words(name)
    }

    /// The profile as a [`SourceSchema`] for [`qa_question::Linker`]: each name of
    /// [`SourceProfile::collections`] a collection, and the fields (which the profile does not
    /// tie to a collection) in one more collection without a name, so that it is never linked
    /// itself. Roles become kinds (category → keyword with its values, date, number, text,
    /// other); the aliases of a category field become value aliases, one per stored value, and
    /// so do those that name a value the field lacks (the caller reports them).
    pub fn schema(&self) -> SourceSchema {
        let mut collections: Vec<Collection> = self.collections.iter().map(|c| Collection::new(c.clone(), Vec::new())).collect();
        let mut aliases = Vec::new();
        let fields = self
            .fields
            .iter()
            .map(|f| {
                let kind = match f.role {
                    FieldRole::Category => FieldKind::Keyword,
                    FieldRole::Date => FieldKind::Date,
                    FieldRole::Number => FieldKind::Number,
                    FieldRole::Text => FieldKind::Text,
                    FieldRole::Other => FieldKind::Other,
                };
                let mut field = Field::new(f.name.clone(), kind);
                field.synonyms = f.synonyms.clone();
                if f.role == FieldRole::Category {
                    field.values = f.values.clone();
                    for (phrase, value) in &f.aliases {
                        aliases.push(ValueAlias { phrase: phrase.clone(), collection: FIELDS.to_string(), field: f.name.clone(), values: vec![value.clone()] });
                    }
                }
                field
            })
            .collect();
        collections.push(Collection::new(FIELDS, fields));
        SourceSchema { collections, relations: Vec::new(), aliases }
    }
}

/// The name of the schema's collection that holds a profile's fields: empty, so that no
/// question word names it.
pub(crate) const FIELDS: &str = "";
