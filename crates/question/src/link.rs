//! Schema linking: which spans of the question name a collection, a field or a stored value,
//! how surely, and with which words. A field is found when the question says its name the
//! way people do (see [`crate::names`]): the whole name, without its suffix or flag prefix, its
//! head noun, its acronym, joined ("firstname"), misspelt, or through a verb of the same word
//! family ("enrolled" → `enrollment_date`); a flag also by its negation ("inactive", "unpaid",
//! "non-smoker"). A value is found by its words (case-insensitively, or exactly for short
//! codes), misspelt, through an alias, or by asking the source ([`ValueLookup`]) about a
//! literal the samples do not hold. A value right after its field's name ("country code CA",
//! "status closed") is one link.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use qa_core::text;

use crate::analysis::Analysis;
use crate::countries;
use crate::coverage::is_function_word;
use crate::currencies;
use crate::edit::is_typo_of;
use crate::names::{self, FormKind, GENERIC_SUFFIXES};
use crate::schema::{FieldKind, KeyRole, SourceSchema};
use crate::tokens::{Token, TokenKind};

/// What a span names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// A collection (table, index).
    Collection {
        /// Its name.
        collection: String,
    },
    /// A field.
    Field {
        /// The collection.
        collection: String,
        /// The field.
        field: String,
    },
    /// Stored values of a field.
    Value {
        /// The collection.
        collection: String,
        /// The field.
        field: String,
        /// The stored values.
        values: Vec<String>,
    },
}

impl Target {
    /// The collection it belongs to.
    pub fn collection(&self) -> &str {
        match self {
            Target::Collection { collection } | Target::Field { collection, .. } | Target::Value { collection, .. } => collection,
        }
    }

    /// The field, for field and value targets.
    pub fn field(&self) -> Option<&str> {
        match self {
            Target::Field { field, .. } | Target::Value { field, .. } => Some(field),
            Target::Collection { .. } => None,
        }
    }

    /// A short label: `t`, `t.f`, `t.f = 'v'`.
    pub fn label(&self) -> String {
        match self {
            Target::Collection { collection } => collection.clone(),
            Target::Field { collection, field } => format!("{collection}.{field}"),
            Target::Value { collection, field, values } => format!("{collection}.{field} = '{}'", values.join("' | '")),
        }
    }
}

/// How a link was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// The name's words (or the whole name of a collection).
    Name,
    /// The name without a suffix or flag prefix.
    Core,
    /// The head noun of a longer name.
    Head,
    /// Another word of a longer name.
    Part,
    /// The initials of a long name.
    Acronym,
    /// A synonym from the semantic file.
    Synonym,
    /// The words written together ("firstname", "ebook").
    Joined,
    /// A misspelling of a name or value.
    Fuzzy,
    /// A verb or noun of the name's word family ("enrolled" → enrollment).
    Family,
    /// A stored value's words.
    Value,
    /// A value alias.
    Alias,
    /// A value the source confirmed when asked.
    Lookup,
    /// A field's name followed by one of its values ("country code CA").
    FieldValue,
}

/// One link: a span of the question and what it names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// First token.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// What it names.
    pub target: Target,
    /// How surely, 0..1.
    pub score: f64,
    /// How it was found.
    pub how: How,
    /// The question's words it used.
    pub words: Vec<String>,
    /// Found through a negation ("inactive" for `is_active`): the flag is false.
    pub negated: bool,
}

impl Link {
    /// The span length in tokens.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Never empty; here for clippy's `len` rule.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// Asks the source whether a literal is a stored value: `(collection, field, stored value)` for
/// each field that holds it (case-insensitively).
pub trait ValueLookup {
    /// Fields holding `text` as a whole value.
    fn lookup(&mut self, text: &str) -> Vec<(String, String, String)>;

    /// Prose fields whose text holds the words `phrase` (in that order), with how many records
    /// hold them. A source without prose holds none.
    fn text_hits(&mut self, _phrase: &str) -> Vec<(String, u64)> {
        Vec::new()
    }

    /// Whether one record of `collection` holds every `(field, value)` pair (case-insensitive);
    /// `None` when the source cannot say.
    fn record_holds(&mut self, _collection: &str, _pairs: &[(String, String)]) -> Option<bool> {
        None
    }
}

#[derive(Debug, Clone)]
struct Entry {
    target: Target,
    weight: f64,
    how: How,
    negated: bool,
}

/// A linker over one source's schema: its index of phrases.
#[derive(Debug, Clone)]
pub struct Linker<'a> {
    schema: &'a SourceSchema,
    /// Normalised phrase (singular words joined by spaces) → entries.
    phrases: HashMap<String, Vec<Entry>>,
    /// Phrases written together → entries.
    joined: HashMap<String, Vec<Entry>>,
    /// Word families of single-word names → entries (for verbs and nouns of the family).
    families: Vec<(String, Entry)>,
    /// The longest phrase, in words.
    longest: usize,
}

/// Values that are too common a word to be told apart from the question's own words.
fn weak_value(words: &[String]) -> bool {
    words.is_empty() || (words.len() == 1 && (words[0].chars().count() < 2 || text::is_stop(&words[0]) || is_function_word(&words[0]))) || words.iter().all(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-'))
}

/// English words of opposite states, for flags named by one of them.
const FLAG_OPPOSITES: &[(&str, &str)] = &[
    ("passed", "failed"),
    ("pass", "fail"),
    ("successful", "failed"),
    ("accepted", "rejected"),
    ("accepted", "declined"),
    ("approved", "rejected"),
    ("approved", "declined"),
    ("open", "closed"),
    ("present", "absent"),
    ("won", "lost"),
    ("alive", "dead"),
    ("online", "offline"),
    ("enabled", "disabled"),
    ("visible", "hidden"),
    ("included", "excluded"),
    ("public", "private"),
];

impl<'a> Linker<'a> {
    /// Index `schema`'s names, synonyms, values and aliases.
    pub fn new(schema: &'a SourceSchema) -> Linker<'a> {
        let mut l = Linker { schema, phrases: HashMap::new(), joined: HashMap::new(), families: Vec::new(), longest: 1 };
        // Country names stored as values somewhere (a `countries.name` column): those rows are
        // how the name is reached, not a code column's alias.
        // (Only columns about countries: a sales region that happens to hold 'Germany' leaves
        // "Germany" the customers' `country_code` 'DE'.)
        let about_countries = |c: &crate::schema::Collection, f: &crate::schema::Field| {
            names::name_words(&c.name).iter().chain(names::name_words(&f.name).iter()).any(|w| matches!(text::singular(w).as_str(), "country" | "nation" | "nationality"))
        };
        let stored: std::collections::HashSet<String> = schema.collections.iter().flat_map(|c| c.fields.iter().filter(move |f| about_countries(c, f))).flat_map(|f| f.values.iter()).map(|v| v.to_lowercase()).collect();
        // A demonym stored anywhere ("English" as a language) is that value, not a country.
        let stored_anywhere: std::collections::HashSet<String> = schema.collections.iter().flat_map(|c| c.fields.iter()).flat_map(|f| f.values.iter()).map(|v| v.to_lowercase()).collect();
        let is_money = |f: &crate::schema::Field| {
            f.kind.is_numeric()
                && f.key == KeyRole::None
                && (names::name_words(&f.name).iter().any(|w| matches!(w.as_str(), "amount" | "price" | "cost" | "fee" | "paid" | "charge" | "budget" | "salary" | "revenue" | "spend" | "payment"))
                    || crate::numbers::field_unit(&f.name).is_some_and(|u| u.dimension == crate::numbers::Dimension::Money))
        };
        for c in &schema.collections {
            let target = Target::Collection { collection: c.name.clone() };
            for f in names::forms(&c.name, &c.synonyms) {
                // Collections are named by their whole name; a head noun only when longer.
                let how = match f.kind {
                    FormKind::Full => How::Name,
                    FormKind::Synonym => How::Synonym,
                    FormKind::Head => How::Head,
                    FormKind::Part => How::Part,
                    FormKind::Acronym => How::Acronym,
                    FormKind::Core => continue,
                };
                if matches!(f.kind, FormKind::Head | FormKind::Part) && matches!(f.words[0].as_str(), "list" | "info" | "detail" | "data" | "record" | "table" | "log" | "entry" | "item" | "ref" | "type" | "other" | "has" | "map" | "link") {
                    continue;
                }
                l.add(&f.words, Entry { target: target.clone(), weight: f.weight, how, negated: false });
            }
            for field in &c.fields {
                let target = Target::Field { collection: c.name.clone(), field: field.name.clone() };
                let key_only = field.key != KeyRole::None && names::name_words(&field.name).last().is_some_and(|w| matches!(w.as_str(), "id" | "key" | "ref"));
                for f in names::forms(&field.name, &field.synonyms) {
                    let how = match f.kind {
                        FormKind::Full => How::Name,
                        FormKind::Core => How::Core,
                        FormKind::Head => How::Head,
                        FormKind::Part => How::Part,
                        FormKind::Acronym => How::Acronym,
                        FormKind::Synonym => How::Synonym,
                    };
                    // A key named `owner_id` is a way to say the owner table, not a field to
                    // show; it stays linkable at a lower weight (questions ask for "ids").
                    let weight = if key_only && f.kind != FormKind::Full { f.weight * 0.6 } else { f.weight };
                    l.add(&f.words, Entry { target: target.clone(), weight, how, negated: false });
                    // A flag by its negation: "inactive", "unpaid", "non smoker", "not active".
                    if field.kind == FieldKind::Flag && f.words.len() == 1 && matches!(f.kind, FormKind::Full | FormKind::Core | FormKind::Synonym) {
                        let w = &f.words[0];
                        for neg in [format!("in{w}"), format!("un{w}"), format!("non{w}"), format!("im{w}"), format!("dis{w}")] {
                            l.add(&[neg], Entry { target: target.clone(), weight: f.weight * 0.95, how, negated: true });
                        }
                        l.add(&["non".to_string(), w.clone()], Entry { target: target.clone(), weight: f.weight * 0.95, how, negated: true });
                        // Its opposite in plain English: "failed" of `passed`, "rejected" of
                        // `is_approved`.
                        for (a, b) in FLAG_OPPOSITES.iter().flat_map(|&(a, b)| [(a, b), (b, a)]) {
                            if w == a {
                                l.add(&[b.to_string()], Entry { target: target.clone(), weight: f.weight * 0.95, how, negated: true });
                            }
                        }
                    }
                    // A flag named for a state ("in_stock", "on_duty"): its opposite is said
                    // "out of stock", "off duty".
                    if field.kind == FieldKind::Flag && matches!(f.kind, FormKind::Full | FormKind::Core) && f.words.len() >= 2 {
                        let rest = f.words[1..].to_vec();
                        let opposite: Option<Vec<String>> = match f.words[0].as_str() {
                            "in" => Some(["out".to_string(), "of".to_string()].into_iter().chain(rest).collect()),
                            "on" => Some(std::iter::once("off".to_string()).chain(rest).collect()),
                            _ => None,
                        };
                        if let Some(o) = opposite {
                            l.add(&o, Entry { target: target.clone(), weight: f.weight, how: How::Name, negated: true });
                        }
                    }
                    if f.words.len() == 1 && f.words[0].len() >= 4 && !key_only {
                        l.families.push((text::word_family(&f.words[0]), Entry { target: target.clone(), weight: f.weight * 0.7, how: How::Family, negated: false }));
                        // A date named by an irregular participle (`found_date`) is said by the
                        // verb's other forms too: "items we find each month".
                        if field.kind == FieldKind::Date
                            && let [base] = text::verb_lemmas(&f.words[0]).as_slice()
                            && *base != f.words[0]
                        {
                            l.families.push((text::word_family(base), Entry { target: target.clone(), weight: f.weight * 0.7, how: How::Family, negated: false }));
                        }
                    }
                }
                // "age" of `pets.pet_age`, "other details" of `students.other_student_details`: a
                // column whose name holds its table's name is named by the rest in that table's
                // context.
                let words = names::name_words(&field.name);
                let table_words: Vec<String> = names::name_words(&c.name).iter().map(|w| text::singular(w)).collect();
                if field.key == KeyRole::None && words.len() > table_words.len() {
                    let at = (0..=words.len() - table_words.len()).find(|&s| words[s..s + table_words.len()].iter().zip(&table_words).all(|(w, t)| text::singular(w) == *t));
                    if let Some(s) = at {
                        let rest: Vec<String> = words[..s].iter().chain(&words[s + table_words.len()..]).cloned().collect();
                        if rest.iter().any(|w| !GENERIC_SUFFIXES.contains(&w.as_str()) && !text::is_stop(w)) {
                            // Said with the table's name inside ("other_person_details") the rest
                            // is a common name of many tables ("other details"): nearly a core
                            // form. A leading table name ("pet_age") leaves a head word.
                            let entry = if s == 0 { Entry { target: target.clone(), weight: 0.8, how: How::Head, negated: false } } else { Entry { target: target.clone(), weight: 0.92, how: How::Core, negated: false } };
                            l.add(&rest, entry);
                        }
                    }
                }
                // Multi-word names: each content word's family too ("enrolled" → enrollment_date).
                if words.len() > 1 && !key_only {
                    for w in words.iter().filter(|w| w.len() >= 4 && !GENERIC_SUFFIXES.contains(&w.as_str()) && !text::is_stop(w)) {
                        l.families.push((text::word_family(w), Entry { target: target.clone(), weight: 0.55, how: How::Family, negated: false }));
                    }
                }
                // "money" ("the most money", "ticket money") names a column of money: the one
                // of the tables in play is the planner's pick.
                if is_money(field) {
                    // ("revenue", "takings", "turnover", "income", "earnings": money coming in.)
                    // A column named for money coming in is what those words mean first.
                    let incoming = names::name_words(&field.name).iter().any(|w| matches!(w.as_str(), "revenue" | "income" | "turnover" | "takings" | "earnings" | "sales" | "sale"));
                    for w in ["money", "revenue", "takings", "turnover", "income", "earnings"] {
                        let weight = if incoming && w != "money" { 0.95 } else { 0.6 };
                        l.add(&[w.to_string()], Entry { target: target.clone(), weight, how: How::Head, negated: false });
                    }
                }
                // "the kind of goods", "each type of appliance" of `goods_category`,
                // `applianceType`: a classifier named by its noun after "kind of".
                if let Some(noun) = names::classified_noun(&field.name)
                    && matches!(field.kind, FieldKind::Keyword)
                {
                    for k in ["kind", "type", "category", "sort", "class"] {
                        l.add(&[k.to_string(), "of".to_string(), noun.clone()], Entry { target: target.clone(), weight: 0.95, how: How::Name, negated: false });
                    }
                }
                // "their number of seats" of a column `seats`: a count kept per row is said with
                // "number of" before its plural noun.
                if field.kind.is_numeric() && field.key == KeyRole::None && field.name.len() >= 4 && field.name.to_ascii_lowercase().ends_with('s') {
                    let words = names::name_words(&field.name);
                    if let [noun] = words.as_slice()
                        && !text::is_stop(noun)
                    {
                        l.add(&["number".to_string(), "of".to_string(), noun.clone()], Entry { target: target.clone(), weight: 0.95, how: How::Name, negated: false });
                    }
                }
                // "how many square metres", "in minutes", "how many kilos": a measure named by
                // its unit alone (the unit is in the name: `floor_area_m2`, `duration_min`).
                if field.kind.is_numeric()
                    && field.key == KeyRole::None
                    && let Some(unit) = crate::numbers::field_unit(&field.name)
                {
                    for words in crate::numbers::spoken_forms(&unit) {
                        l.add(&words, Entry { target: target.clone(), weight: 0.6, how: How::Head, negated: false });
                    }
                    // "the total energy used" of `kwh_used`, "the distance" of `km_driven`: the
                    // noun of the unit's dimension, as weakly.
                    use crate::numbers::Dimension as D;
                    let nouns: &[&str] = match unit.dimension {
                        D::Energy => &["energy", "electricity", "consumption", "usage"],
                        D::Length => &["distance", "length"],
                        D::Mass => &["weight"],
                        D::Volume => &["volume", "consumption", "usage"],
                        D::Area => &["area", "surface"],
                        D::Power => &["power"],
                        // ("the average length of a class in minutes": a time said as a
                        // length. Not "time": "what time did it land", "reopened 3 times".)
                        D::Time => &["duration", "length"],
                        _ => &[],
                    };
                    for w in nouns {
                        l.add(&[w.to_string()], Entry { target: target.clone(), weight: 0.6, how: How::Head, negated: false });
                    }
                    // "pick time in seconds", "the running time in minutes": a time with its
                    // unit after it.
                    if unit.dimension == D::Time {
                        let mut forms = crate::numbers::spoken_forms(&unit);
                        // ("second" alone is also an ordinal; after "in" it is the unit.)
                        if unit.name == "s" {
                            forms.push(vec!["second".to_string()]);
                            l.add(&["in".to_string(), "second".to_string()], Entry { target: target.clone(), weight: 0.6, how: How::Head, negated: false });
                        }
                        for words in forms {
                            let phrase: Vec<String> = ["time".to_string(), "in".to_string()].into_iter().chain(words).collect();
                            l.add(&phrase, Entry { target: target.clone(), weight: 0.6, how: How::Head, negated: false });
                        }
                    }
                }
                if field.kind == FieldKind::Flag {
                    continue;
                }
                // A column of country codes is asked about by country name ("in the UK").
                if let Some(width) = countries::code_width(&field.name, &field.values) {
                    for entry in countries::COUNTRIES {
                        let code = countries::code_of(entry, width);
                        if !field.values.iter().any(|v| v == code) {
                            continue;
                        }
                        for name in entry.2.iter().filter(|n| !stored.contains(&n.to_lowercase())) {
                            let target = Target::Value { collection: c.name.clone(), field: field.name.clone(), values: vec![code.to_string()] };
                            l.add(&names::value_words(name), Entry { target, weight: 0.99, how: How::Alias, negated: false });
                        }
                        // (A demonym stored elsewhere — 'Japanese' as a language — stays a weaker
                        // reading: "Japanese students" of students' nationality codes.)
                        for (demonym, _) in countries::DEMONYMS.iter().filter(|(_, a2)| *a2 == entry.0) {
                            let elsewhere = stored_anywhere.contains(&demonym.to_lowercase());
                            let target = Target::Value { collection: c.name.clone(), field: field.name.clone(), values: vec![code.to_string()] };
                            l.add(&names::value_words(demonym), Entry { target, weight: if elsewhere { 0.85 } else { 0.97 }, how: How::Alias, negated: false });
                        }
                    }
                }
                // A column of currency codes is asked about by currency name ("in euros").
                if currencies::is_currency_column(&field.name, &field.values) {
                    for (code, names_of) in currencies::CURRENCIES {
                        if !field.values.iter().any(|v| v == code) {
                            continue;
                        }
                        for name in names_of.iter() {
                            let target = Target::Value { collection: c.name.clone(), field: field.name.clone(), values: vec![code.to_string()] };
                            l.add(&names::value_words(name), Entry { target, weight: 0.99, how: How::Alias, negated: false });
                        }
                    }
                }
                for v in &field.values {
                    let vw = names::value_words(v);
                    // A code in capitals ("US", "IN") is kept: it matches only written in
                    // capitals, so the pronoun "us" stays a pronoun.
                    let capital_code = (2..=3).contains(&v.len()) && v.chars().all(|c| c.is_ascii_uppercase());
                    if weak_value(&vw) && !capital_code {
                        continue;
                    }
                    l.add(&vw, Entry { target: Target::Value { collection: c.name.clone(), field: field.name.clone(), values: vec![v.clone()] }, weight: 1.0, how: How::Value, negated: false });
                }
            }
        }
        for a in &schema.aliases {
            let aw = text::normalized_words(&a.phrase);
            if aw.is_empty() {
                continue;
            }
            l.add(&aw, Entry { target: Target::Value { collection: a.collection.clone(), field: a.field.clone(), values: a.values.clone() }, weight: 1.05, how: How::Alias, negated: false });
        }
        l
    }

    fn add(&mut self, words: &[String], e: Entry) {
        if words.is_empty() {
            return;
        }
        self.longest = self.longest.max(words.len());
        let key = words.join(" ");
        push_entry(self.phrases.entry(key).or_default(), e.clone());
        if words.len() > 1 {
            let j: String = words.concat();
            push_entry(self.joined.entry(j).or_default(), Entry { weight: e.weight * 0.95, how: if e.how == How::Value { How::Value } else { How::Joined }, ..e });
        }
    }

    fn is_date_field(&self, target: &Target) -> bool {
        matches!(target, Target::Field { collection, field } if self.schema.field(collection, field).is_some_and(|f| f.kind == FieldKind::Date))
    }

    /// The schema linked against.
    pub fn schema(&self) -> &SourceSchema {
        self.schema
    }

    /// Every link the question's spans have, longest first per start; `lookup` (when given) is
    /// asked about literals no sampled value matched.
    pub fn link(&self, a: &Analysis, lookup: Option<&mut dyn ValueLookup>) -> Vec<Link> {
        let t = &a.tokens;
        let mut out: Vec<Link> = Vec::new();
        // Date words ("March" of "in March 2025") are not names; prepositions of a date stay free.
        let date_tok: Vec<bool> = (0..t.len()).map(|i| a.dates.iter().any(|d| (d.start..d.end).contains(&i) && (t[i].kind != TokenKind::Word || crate::dates::month_of(&t[i].lower).is_some()))).collect();
        for s in 0..t.len() {
            for n in (1..=self.longest.min(t.len() - s)).rev() {
                let span = &t[s..s + n];
                // A number may sit inside a name ("line 1" of `line_1`), never open one.
                let number_inside = |i: usize, x: &Token| i > 0 && matches!(x.kind, TokenKind::Number { .. }) && x.text.chars().all(|c| c.is_ascii_digit());
                if span.iter().enumerate().any(|(i, x)| !matches!(x.kind, TokenKind::Word | TokenKind::Quoted) && !number_inside(i, x)) {
                    continue;
                }
                // A span of function words only names nothing; a span may not start or end with
                // one unless it is a whole value ("in transit", "out of stock").
                let edge_fn = is_edge_word(&span[0].lower) || is_edge_word(&span[n - 1].lower);
                // A quoted literal is said in a stored value's words ("Ben Jones" → ben jone).
                let words: Vec<String> = span.iter().flat_map(|x| if x.kind == TokenKind::Quoted { names::value_words(&x.text) } else { vec![x.norm.clone()] }).collect();
                let key = words.join(" ");
                let mut found = false;
                if let Some(es) = self.phrases.get(&key) {
                    for e in es {
                        let flag_name = n > 1 && matches!(&e.target, Target::Field { collection, field } if self.schema.field(collection, field).is_some_and(|f| f.kind == FieldKind::Flag));
                        if edge_fn && !matches!(e.how, How::Value | How::Alias) && !flag_name {
                            continue;
                        }
                        if !self.case_ok(e, span) {
                            continue;
                        }
                        out.push(self.make(s, s + n, e, span));
                        found = true;
                    }
                }
                if !found && !edge_fn {
                    let joined: String = words.concat();
                    if let Some(es) = self.joined.get(&joined).or_else(|| if n == 1 { None } else { self.phrases.get(&joined) }) {
                        for e in es {
                            out.push(Link { how: if e.how == How::Value { How::Value } else { How::Joined }, score: e.weight * 0.95, ..self.make(s, s + n, e, span) });
                        }
                    }
                }
            }
            // Single words: misspellings and word families.
            let tok = &t[s];
            if tok.is_word() && !date_tok[s] && !is_function_word(&tok.lower) && !out.iter().any(|l| l.start == s && l.end == s + 1) {
                let mut fuzzy: Vec<Link> = Vec::new();
                // A word of the language's common vocabulary ("start") is no misspelling.
                // (Nor is an adverb — "directly" — a misspelt 'director'.)
                let adverb = tok.lower.ends_with("ly");
                if tok.lower.chars().count() >= 5 && !text::is_stop(&tok.lower) {
                    for (k, es) in &self.phrases {
                        // Another form of a value's word ("delivery" / 'delivered') is no
                        // misspelling of the value: a value needs its form.
                        if !k.contains(' ') && is_typo_of(&tok.norm, k) && (!adverb || k.ends_with("ly")) {
                            // Nor of a name's word: "headlined" of `headliner` is its verb (a
                            // family link below), not a spelling.
                            let other_form = family(&tok.lower) == text::word_family(k);
                            let by_family = |e: &Entry| self.families.iter().any(|(f, fe)| fe.target == e.target && *f == text::word_family(k));
                            // A proper noun stored capitalised ('Strand') is misspelt only
                            // capitalised: "stand" is no street.
                            let proper = |e: &Entry| matches!(&e.target, Target::Value { values, .. } if values.iter().all(|v| v.chars().next().is_some_and(char::is_uppercase))) && !(tok.capitalized() || tok.all_caps()) && text::singular(&tok.lower) != *k && tok.lower.strip_suffix('s').is_none_or(|x| x != k.as_str());
                            for e in es.iter().filter(|e| !(other_form && (matches!(e.target, Target::Value { .. }) || by_family(e))) && !proper(e)) {
                                fuzzy.push(Link { how: How::Fuzzy, score: e.weight * 0.8, negated: e.negated, ..self.make(s, s + 1, e, std::slice::from_ref(tok)) });
                            }
                        }
                    }
                }
                out.extend(fuzzy);
                // Short irregular forms count too ("led" → lead).
                if tok.lower.len() >= 4 || family(&tok.lower) != text::word_family(&tok.lower) {
                    let fam = family(&tok.lower);
                    // A verb the document toolkit counts as a stop word ("start") still names a
                    // date column of its family (`started_at`): "when did it start".
                    let stop = text::is_stop(&tok.lower);
                    for (f, e) in &self.families {
                        if stop && !self.is_date_field(&e.target) {
                            continue;
                        }
                        if family_match(&fam, f) && !out.iter().any(|l| l.start == s && l.end == s + 1 && l.target == e.target) {
                            out.push(self.make(s, s + 1, e, std::slice::from_ref(tok)));
                        }
                    }
                }
            }
        }
        self.plurals_of_capitalised_values(t, &mut out);
        self.of_phrases(t, &mut out);
        self.families_of_two(t, &mut out);
        self.demonyms(t, &mut out);
        if let Some(lookup) = lookup {
            self.looked_up(a, lookup, &mut out);
            self.full_names(t, lookup, &mut out);
        }
        self.values_with_their_field_word(t, &mut out);
        self.field_values(t, &mut out);
        self.trailing_suffixes(t, &mut out);
        // Cue words ("List the …", "how many", "most", "per") are grammar: only a whole name or
        // a value may claim them.
        let reserved = reserved_tokens(a);
        out.retain(|l| !(matches!(l.how, How::Part | How::Head | How::Family | How::Fuzzy | How::Acronym | How::Joined) && (l.start..l.end).any(|i| reserved[i])));
        self.references_yield_to_tables(&mut out);
        out.sort_by(|x, y| x.start.cmp(&y.start).then(y.len().cmp(&x.len())).then(y.score.partial_cmp(&x.score).unwrap_or(std::cmp::Ordering::Equal)));
        out
    }

    /// A column that refers to a table and is named like it (`car_makers.country` → `countries`)
    /// only stands for that table: where the same words name the table as surely, the table is
    /// the better reading ("the countries having a car maker" lists countries).
    fn references_yield_to_tables(&self, out: &mut [Link]) {
        let tables: Vec<(usize, usize, String, f64)> = out
            .iter()
            .filter_map(|l| match &l.target {
                Target::Collection { collection } => Some((l.start, l.end, collection.clone(), l.score)),
                _ => None,
            })
            .collect();
        for l in out.iter_mut() {
            let Target::Field { collection, field } = &l.target else { continue };
            let refers_to = |to: &str| self.schema.relations.iter().any(|r| r.from.eq_ignore_ascii_case(collection) && r.from_field.eq_ignore_ascii_case(field) && r.to.eq_ignore_ascii_case(to));
            if tables.iter().any(|(s, e, t, score)| *s == l.start && *e == l.end && *score >= l.score && refers_to(t)) {
                l.score *= 0.97;
            }
        }
    }

    fn make(&self, start: usize, end: usize, e: &Entry, span: &[Token]) -> Link {
        // A stored value said exactly as stored ("Wouters" of a last name 'Wouters') beats one
        // reached through a plural's singular (the first name 'Wouter').
        let surface = span.iter().map(|x| x.lower.as_str()).collect::<Vec<_>>().join(" ");
        let inexact = e.how == How::Value && matches!(&e.target, Target::Value { values, .. } if !values.iter().any(|v| v.to_lowercase() == surface));
        let score = e.weight * how_weight(e.how) * if inexact { 0.98 } else { 1.0 };
        Link { start, end, target: e.target.clone(), score, how: e.how, words: span.iter().map(|x| x.lower.clone()).collect(), negated: e.negated }
    }

    /// Literals (names, codes, quoted text) that no value link covers: ask the source.
    fn looked_up(&self, a: &Analysis, lookup: &mut dyn ValueLookup, out: &mut Vec<Link>) {
        let covered = |out: &Vec<Link>, s: usize, e: usize| out.iter().any(|l| matches!(l.target, Target::Value { .. }) && l.start <= s && e <= l.end);
        for lit in &a.literals {
            if covered(out, lit.start, lit.end) {
                continue;
            }
            let mut spans: Vec<(usize, usize)> = vec![(lit.start, lit.end)];
            // "Dr Santos", "Priya Raman": the words alone too (a title dropped; a first and a
            // last name stored apart).
            if lit.end - lit.start > 1 {
                spans.extend((lit.start..lit.end).map(|i| (i, i + 1)));
            }
            for (s, e) in spans {
                if covered(out, s, e) || (e - s == 1 && (text::is_stop(&a.tokens[s].lower) || matches!(a.tokens[s].lower.as_str(), "dr" | "mr" | "mrs" | "ms" | "prof"))) {
                    continue;
                }
                // The literal as written ("SHP-001751"), or one of its words.
                let text = if (s, e) == (lit.start, lit.end) { lit.text.clone() } else { a.tokens[s..e].iter().map(|x| x.text.as_str()).collect::<Vec<_>>().join(" ") };
                for (collection, field, stored) in lookup.lookup(&text) {
                    if self.schema.field(&collection, &field).is_none() {
                        continue;
                    }
                    let target = Target::Value { collection, field, values: vec![stored] };
                    if !out.iter().any(|l| l.start == s && l.end == e && l.target == target) {
                        out.push(Link { start: s, end: e, target, score: 0.95, how: How::Lookup, words: a.tokens[s..e].iter().map(|x| x.lower.clone()).collect(), negated: false });
                    }
                }
            }
        }
    }

    /// "country code CA", "status closed", "grade C", "the species cat": a field's name followed
    /// (maybe after "of", "is", "=", ":") by one of its values is one link.
    fn field_values(&self, t: &[Token], out: &mut Vec<Link>) {
        let mut extra = Vec::new();
        for f in out.iter().filter(|l| matches!(l.target, Target::Field { .. })) {
            let mut k = f.end;
            let (Some(fc), Some(ff)) = (Some(f.target.collection()), f.target.field()) else { continue };
            // A generic suffix word after the name ("country code CA"), unless it is itself a
            // stored value ("grade C": C is no unit here).
            let stored = |x: &Token| self.schema.field(fc, ff).is_some_and(|fl| fl.values.contains(&x.text));
            // ("at", "on", "no" are suffixes of names, but words of their own in a question.)
            if t.get(k).is_some_and(|x| GENERIC_SUFFIXES.contains(&x.norm.as_str()) && x.is_word() && !stored(x) && !is_edge_word(&x.lower)) {
                k += 1;
            }
            while t.get(k).is_some_and(|x| matches!(x.lower.as_str(), "of" | "is" | "=" | ":" | "was" | "equal" | "equals" | "to" | "as" | "being")) {
                k += 1;
            }
            // "Package Options" is the field `package_option`, not its value 'Option' named with
            // a word of its field.
            let own_name = |e: usize| out.iter().any(|o| o.start == f.start && o.end == e && o.target == f.target && matches!(o.how, How::Name | How::Core | How::Synonym));
            for v in out.iter().filter(|v| v.start == k && matches!(&v.target, Target::Value { collection, field, .. } if collection == fc && field == ff) && !own_name(v.end)) {
                extra.push(Link { start: f.start, end: v.end, target: v.target.clone(), score: (v.score.max(f.score) + 0.2).min(1.2), how: How::FieldValue, words: t[f.start..v.end].iter().map(|x| x.lower.clone()).collect(), negated: false });
            }
            // A short code written in capitals after its field ("grade C", "region BC") that the
            // samples hold in that case.
            if let Some(x) = t.get(k).filter(|x| x.is_word() && x.all_caps() || x.is_word() && x.text.chars().count() == 1 && x.text.chars().all(char::is_uppercase))
                && let Some(field) = self.schema.field(fc, ff)
                && let Some(v) = field.values.iter().find(|v| **v == x.text)
            {
                let target = Target::Value { collection: fc.to_string(), field: ff.to_string(), values: vec![v.clone()] };
                extra.push(Link { start: f.start, end: k + 1, target, score: 1.1, how: How::FieldValue, words: t[f.start..=k].iter().map(|x| x.lower.clone()).collect(), negated: false });
            }
        }
        for e in extra {
            if !out.iter().any(|l| l.start == e.start && l.end == e.end && l.target == e.target) {
                out.push(e);
            }
        }
    }

    /// "the codes of template types" for `template_type_code`: a name said with "of", its last
    /// word first.
    fn of_phrases(&self, t: &[Token], out: &mut Vec<Link>) {
        for s in 0..t.len() {
            if !t[s].is_word() || t.get(s + 1).is_none_or(|x| x.lower != "of") {
                continue;
            }
            // "the number of flights" counts; it is no `FlightNo`.
            if matches!(t[s].lower.as_str(), "number" | "count") {
                continue;
            }
            // "the feature type name of feature X": the word already ends a whole name.
            if out.iter().any(|l| l.end == s + 1 && l.len() >= 2 && l.how == How::Name && matches!(l.target, Target::Field { .. })) {
                continue;
            }
            for n in 1..=3usize {
                let e = s + 2 + n;
                if e > t.len() || t[s + 2..e].iter().any(|x| !x.is_word()) {
                    continue;
                }
                let mut words: Vec<String> = t[s + 2..e].iter().map(|x| x.norm.clone()).collect();
                // "the names of documents" where `documents` is a table: the table is said, and
                // its column is found in it; one link over both would hide the table.
                let trailing = words.join(" ");
                let names_table = |collection: &str| {
                    self.phrases.get(&trailing).is_some_and(|es| es.iter().any(|x| x.how == How::Name && matches!(&x.target, Target::Collection { collection: c } if c.eq_ignore_ascii_case(collection))))
                };
                words.push(t[s].norm.clone());
                let Some(es) = self.phrases.get(&words.join(" ")) else { continue };
                // Keys are not read this way: "the ids of documents" are the documents' ids.
                let plain = |en: &&Entry| matches!(&en.target, Target::Field { collection, field } if self.schema.field(collection, field).is_some_and(|f| f.key == KeyRole::None));
                for en in es.iter().filter(|en| matches!(en.how, How::Name | How::Core | How::Synonym)).filter(plain).filter(|en| !names_table(en.target.collection())) {
                    out.push(Link { score: en.weight * 0.95, ..self.make(s, e, en, &t[s..e]) });
                }
            }
        }
    }

    /// A two-word name said with other forms of its words, in order: "paperless bills" for
    /// `paperless_billing`, "enrolled participants" for `participant_enrolled`.
    fn families_of_two(&self, t: &[Token], out: &mut Vec<Link>) {
        for c in &self.schema.collections {
            for f in &c.fields {
                let words = names::name_words(&f.name);
                let content: Vec<&String> = words.iter().filter(|w| !GENERIC_SUFFIXES.contains(&w.as_str()) && !text::is_stop(w)).collect();
                if content.len() != 2 || content.iter().any(|w| w.len() < 4) {
                    continue;
                }
                let fams: Vec<String> = content.iter().map(|w| family(w)).collect();
                for s in 0..t.len().saturating_sub(1) {
                    let (a, b) = (&t[s], &t[s + 1]);
                    if !a.is_word() || !b.is_word() || out.iter().any(|l| l.start == s && l.end == s + 2) {
                        continue;
                    }
                    let same = |x: &Token, fam: &str| family_match(&family(&x.lower), fam) || x.norm == fam;
                    if same(a, &fams[0]) && same(b, &fams[1]) {
                        let target = Target::Field { collection: c.name.clone(), field: f.name.clone() };
                        out.push(Link { start: s, end: s + 2, target, score: 0.85, how: How::Family, words: vec![a.lower.clone(), b.lower.clone()], negated: false });
                    }
                }
            }
        }
    }

    /// "Asian", "European", "Canadian", "Brazilian": the adjective of a stored place name.
    fn demonyms(&self, t: &[Token], out: &mut Vec<Link>) {
        for (s, tok) in t.iter().enumerate() {
            if !tok.is_word() || tok.lower.len() < 5 || out.iter().any(|l| l.start == s && matches!(l.target, Target::Value { .. })) {
                continue;
            }
            let w = tok.lower.as_str();
            let stems: Vec<String> = [w.strip_suffix("n"), w.strip_suffix("an"), w.strip_suffix("ian")].into_iter().flatten().filter(|x| x.len() >= 4).map(str::to_string).collect();
            if stems.is_empty() || !(w.ends_with('n')) {
                continue;
            }
            for (k, es) in &self.phrases {
                if k.contains(' ') {
                    continue;
                }
                let fits = stems.iter().any(|st| k == st || (k.starts_with(st.as_str()) && k.len() <= st.len() + 1 && w.ends_with("ian")));
                if !fits {
                    continue;
                }
                for e in es.iter().filter(|e| e.how == How::Value) {
                    out.push(Link { how: How::Value, score: 0.85, ..self.make(s, s + 1, e, std::slice::from_ref(tok)) });
                }
            }
        }
    }

    /// "the code AD", "the city Port Chelsea", "the Caribbean region": a value with a word of
    /// its field's name next to it takes that word too.
    fn values_with_their_field_word(&self, t: &[Token], out: &mut Vec<Link>) {
        let mut extra = Vec::new();
        for l in out.iter().filter(|l| matches!(l.target, Target::Value { .. }) && l.how != How::FieldValue) {
            let Some(field) = l.target.field() else { continue };
            let words = names::name_words(field);
            // "Package Options" is the field `package_option`, not its value 'Option'.
            let span_is_name = |s: usize, e: usize| out.iter().any(|o| o.start == s && o.end == e && matches!(&o.target, Target::Field { .. }) && matches!(o.how, How::Name | How::Core | How::Synonym));
            if (l.start > 0 && span_is_name(l.start - 1, l.end)) || span_is_name(l.start, l.end + 1) {
                continue;
            }
            let is_name_word = |i: usize| t.get(i).is_some_and(|x| x.is_word() && words.contains(&x.norm) && !out.iter().any(|o| o.start == i && o.len() > 1));
            if l.start > 0 && is_name_word(l.start - 1) {
                extra.push(Link { start: l.start - 1, how: How::FieldValue, score: l.score + 0.1, words: t[l.start - 1..l.end].iter().map(|x| x.lower.clone()).collect(), ..l.clone() });
            } else if is_name_word(l.end) {
                extra.push(Link { end: l.end + 1, how: How::FieldValue, score: l.score + 0.1, words: t[l.start..=l.end].iter().map(|x| x.lower.clone()).collect(), ..l.clone() });
            }
        }
        for e in extra {
            if !out.iter().any(|l| l.start == e.start && l.end == e.end && l.target == e.target) {
                out.push(e);
            }
        }
    }

    /// "inspector name", "country code", "order date": a field named with a generic suffix
    /// word its name lacks takes that word too.
    fn trailing_suffixes(&self, t: &[Token], out: &mut Vec<Link>) {
        let mut extra = Vec::new();
        for l in out.iter().filter(|l| matches!(l.target, Target::Field { .. }) && matches!(l.how, How::Name | How::Core | How::Synonym)) {
            let Some(x) = t.get(l.end) else { continue };
            if x.is_word() && matches!(x.norm.as_str(), "code" | "name" | "id" | "number" | "date" | "time" | "value" | "type" | "title" | "label") && !out.iter().any(|o| o.start == l.end && o.len() > 1) {
                let mut words = l.words.clone();
                words.push(x.lower.clone());
                extra.push(Link { end: l.end + 1, words, score: l.score * 0.95, ..l.clone() });
            }
        }
        out.extend(extra);
    }
}

/// Tokens the analysis reads as grammar: the lead of a projection list, aggregate, ranking,
/// grouping, ordering and comparator cues, negations.
fn reserved_tokens(a: &Analysis) -> Vec<bool> {
    let mut r = vec![false; a.tokens.len()];
    let mut set = |s: usize, e: usize| r.iter_mut().take(e).skip(s).for_each(|x| *x = true);
    if let Some(p) = &a.projection
        && let Some(first) = p.items.first()
    {
        set(p.start, first.start);
    }
    for x in &a.aggregates {
        set(x.start, x.end);
    }
    for x in &a.superlatives {
        set(x.start, x.end);
    }
    for x in &a.groupings {
        set(x.start, x.end);
    }
    for x in &a.orderings {
        set(x.start, x.target.unwrap_or(x.end).min(x.end));
    }
    for x in &a.comparisons {
        let q = &a.quantities[x.quantity];
        set(x.start, q.start);
    }
    for &i in &a.negations {
        set(i, i + 1);
    }
    // "(the average) number of X": a count's words, never part of a name said in part
    // ("number" of `account_number`).
    for (i, w) in a.tokens.windows(2).enumerate() {
        if matches!(w[0].lower.as_str(), "number" | "count") && w[1].lower == "of" {
            set(i, i + 1);
        }
    }
    r
}

/// Closed-class words a name never starts or ends with (a value may: "in transit").
fn is_edge_word(w: &str) -> bool {
    matches!(
        w,
        "a" | "an" | "the" | "of" | "in" | "on" | "at" | "for" | "to" | "by" | "with" | "and" | "or" | "is" | "are" | "was" | "were" | "be" | "been" | "do" | "does"
            | "did" | "what" | "which" | "who" | "how" | "when" | "where" | "that" | "this" | "these" | "those" | "me" | "us" | "you" | "it" | "its" | "their"
            | "them" | "they" | "we" | "our" | "i" | "my" | "any" | "all" | "as" | "from" | "than" | "then" | "if" | "there" | "has" | "have" | "had" | "not" | "no"
    )
}

fn push_entry(list: &mut Vec<Entry>, e: Entry) {
    match list.iter_mut().find(|x| x.target == e.target && x.negated == e.negated) {
        Some(x) if x.weight < e.weight => *x = e,
        Some(_) => {}
        None => list.push(e),
    }
}

/// How much a way of linking counts, before the form's own weight.
fn how_weight(h: How) -> f64 {
    match h {
        How::Name | How::Value | How::Alias | How::FieldValue => 1.0,
        How::Synonym | How::Core | How::Lookup => 0.97,
        How::Acronym | How::Joined => 0.9,
        How::Fuzzy => 0.8,
        How::Head => 0.85,
        How::Part => 0.8,
        How::Family => 0.85,
    }
}

/// A word's family, with the irregular forms people use for dates ("born" → birth).
fn family(word: &str) -> String {
    match word {
        "born" => "birth".into(),
        "died" | "dead" => "death".into(),
        "sold" => "sale".into(),
        "bought" => "purchas".into(),
        "paid" => "pay".into(),
        "began" | "begun" => "begin".into(),
        "built" => "build".into(),
        "held" => "hold".into(),
        "made" => "make".into(),
        "sent" => "send".into(),
        "spent" => "spend".into(),
        "won" => "win".into(),
        "led" => "lead".into(),
        "left" => "leav".into(),
        "taught" => "teach".into(),
        "founded" => "found".into(),
        _ => text::word_family(word),
    }
}

/// Two families are one (see [`text::families_match`]).
fn family_match(a: &str, b: &str) -> bool {
    text::families_match(a, b)
}

/// The best non-overlapping links: a span of tokens and its candidate readings, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mention {
    /// First token.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// Its readings, best first.
    pub links: Vec<Link>,
}

impl Mention {
    /// The best reading.
    pub fn best(&self) -> &Link {
        &self.links[0]
    }
}

/// Choose non-overlapping spans that cover the most question words by the surest links
/// (a link's value is its score times its length, so "list price" beats "list" + "price"), and
/// group the readings of each chosen span.
pub fn cover(links: &[Link], n_tokens: usize) -> Vec<Mention> {
    let mut best = vec![(0.0f64, None::<(usize, usize)>); n_tokens + 1];
    for i in (0..n_tokens).rev() {
        best[i] = (best[i + 1].0, None);
        for l in links.iter().filter(|l| l.start == i && l.end <= n_tokens) {
            let v = l.score * (l.len() as f64).powf(1.1) + best[l.end].0;
            if v > best[i].0 + 1e-9 {
                best[i] = (v, Some((l.start, l.end)));
            }
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < n_tokens {
        match best[i].1 {
            Some((s, e)) => {
                let mut ls: Vec<Link> = links.iter().filter(|l| l.start == s && l.end == e).cloned().collect();
                // A word that names a table by its whole name and equals a stored value
                // elsewhere ("the first names of the policyholders", where a payee type holds
                // 'policyholder') names the table first: the rows a question is about come from
                // its nouns; the value stays a reading for the planner to weigh.
                ls.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal));
                if matches!(ls.first(), Some(l) if matches!(l.target, Target::Value { .. }))
                    && let Some(k) = ls.iter().position(|l| l.how == How::Name && matches!(l.target, Target::Collection { .. }) && l.score >= ls[0].score)
                {
                    let table = ls.remove(k);
                    ls.insert(0, table);
                }
                ls.dedup_by(|a, b| a.target == b.target && a.negated == b.negated);
                out.push(Mention { start: s, end: e, links: ls });
                i = e;
            }
            None => i += 1,
        }
    }
    out
}

mod loose;
mod people;
mod plurals;

#[cfg(test)]
mod tests;
