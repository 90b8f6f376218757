//! What a source offers the router, independent of its kind: collection names (tables, the
//! index), fields with their role, sampled values and value aliases, and — for documents —
//! entity names from the corpus's entity index.

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

/// Words of a field name that give its unit or a generic role rather than what it holds.
pub const NAME_SUFFIXES: &[&str] = &[
    "kg", "g", "lb", "lbs", "t", "km", "mi", "m", "cm", "mm", "usd", "eur", "gbp", "pct", "percent", "ms", "sec", "secs", "min", "mins",
    "hr", "hrs", "count", "num", "nr", "qty", "id", "code", "value", "amt", "total",
];

/// Adjectives (plain, comparative, superlative) that name a measure, by the measure's noun:
/// generic English, so a question can say "heavier than 20 t" or "the cheapest" of any schema or
/// mapping with such a field.
pub const MEASURE_ADJECTIVES: &[(&str, &[&str])] = &[
    ("weight", &["heavy", "heavier", "heaviest", "light", "lighter", "lightest"]),
    ("price", &["expensive", "pricier", "priciest", "cheap", "cheaper", "cheapest", "costly", "costlier", "costliest"]),
    ("cost", &["expensive", "cheap", "cheaper", "cheapest", "costly", "costlier", "costliest"]),
    ("length", &["long", "longer", "longest", "short", "shorter", "shortest"]),
    ("duration", &["long", "longer", "longest", "short", "shorter", "shortest"]),
    ("distance", &["far", "farther", "farthest", "further", "furthest", "near", "nearer", "nearest"]),
    ("age", &["old", "older", "oldest", "young", "younger", "youngest"]),
    ("size", &["big", "bigger", "biggest", "large", "larger", "largest", "small", "smaller", "smallest"]),
    ("height", &["tall", "taller", "tallest"]),
    ("speed", &["fast", "faster", "fastest", "slow", "slower", "slowest"]),
];

/// The adjectives of [`MEASURE_ADJECTIVES`] that point down ("lighter than" is "less than").
pub const DOWNWARD: &[&str] = &[
    "light", "lighter", "lightest", "cheap", "cheaper", "cheapest", "short", "shorter", "shortest", "near", "nearer", "nearest", "young",
    "younger", "youngest", "small", "smaller", "smallest", "slow", "slower", "slowest",
];

/// The measure nouns an adjective names ("heavier" → weight), if any.
pub fn measure_nouns(adjective: &str) -> Vec<&'static str> {
    MEASURE_ADJECTIVES.iter().filter(|(_, adjs)| adjs.contains(&adjective)).map(|(noun, _)| *noun).collect()
}

impl SourceProfile {
    /// An empty profile of `target` named `name`.
    pub fn new(target: Target, name: impl Into<String>) -> Self {
        SourceProfile { target, name: name.into(), collections: Vec::new(), fields: Vec::new(), entities: Vec::new() }
    }

    /// The field of that name.
    pub fn field(&self, name: &str) -> Option<&FieldProfile> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The name words without a unit or generic suffix (`weight_kg` → weight, `driver_id` →
    /// driver, `container_count` → container); empty when nothing else is left.
    pub fn core_name_words(name: &str) -> Vec<String> {
        let words = Self::name_words(name);
        let core: Vec<String> = words.iter().filter(|w| !NAME_SUFFIXES.contains(&w.as_str())).cloned().collect();
        if core.len() == words.len() { words } else { core }
    }

    /// The words a field name is made of (`departure_date` → departure, date; `customerName` →
    /// customer, name; `a.b` → a, b), singular, lower-case.
    pub fn name_words(name: &str) -> Vec<String> {
        let mut spaced = String::with_capacity(name.len() + 4);
        let mut prev_lower = false;
        for c in name.chars() {
            if c.is_uppercase() && prev_lower {
                spaced.push(' ');
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            spaced.push(if c == '_' || c == '.' || c == '-' { ' ' } else { c });
        }
        qa_core::text::normalized_words(&spaced)
    }
}
