//! The router's reading of a question, through qa-question: the dates it states
//! ([`qa_question::dates`], read by [`qa_question::analyse`]) and the words that surely name a
//! source's collections, fields and values ([`qa_question::Linker`] over
//! [`SourceProfile::schema`]).
//!
//! Routing must not guess: only sure links count — a whole name, a name without its unit, key or
//! date suffix (its core), a synonym, a stored value said with its own words, a value alias, and
//! a field's name with one of its values ("country code CA"). A part of a longer name, a head
//! noun, an acronym, a misspelling, a word of the same family, words written together or a
//! demonym do not route a question (the planners may still use them once a source is chosen).

use chrono::Datelike;
use qa_question::dates::{Grain, year_of};
use qa_question::names::value_words;
use qa_question::{Analysis, How, Link, Linker, SourceSchema, Target as Named, cover};

use crate::filters::{DateRange, ValueFilter};
use crate::profile::SourceProfile;

/// Years the router reports: the contract of [`crate::filters::ExtractedFilters::years`].
const YEARS: std::ops::RangeInclusive<i32> = 2000..=2099;

/// What a question surely names of one source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matches {
    /// Collections named: the question's words and the collection, in the profile's order.
    pub collections: Vec<(String, String)>,
    /// Fields named: the question's words and the field, in the profile's order.
    pub fields: Vec<(String, String)>,
    /// Category values named, each a stored value of its field, by field then value.
    pub values: Vec<ValueFilter>,
    /// Value aliases named that stand for a value their field does not have (dropped).
    pub warnings: Vec<String>,
}

/// The years a question names (2000–2099: year numbers inside its dates, the years of its days,
/// and those implied by "last year", "this year") and its first date that is not one whole year
/// (a day, a month, a quarter, a range, a relative interval), ends in order.
pub fn dates(a: &Analysis) -> (Vec<i32>, Option<DateRange>) {
    let mut years = Vec::new();
    let mut range = None;
    for m in &a.dates {
        for t in &a.tokens[m.start..m.end] {
            years.extend(year_of(t));
            years.extend(t.date().map(|d| d.year()));
        }
        years.extend(m.year);
        if range.is_none() && m.grain != Grain::Year && (m.from.is_some() || m.to.is_some()) {
            // "between 2025-06-30 and 2025-01-01": the interval, whichever end came first.
            let (from, to) = match (m.from, m.to) {
                (Some(f), Some(t)) if f > t => (Some(t), Some(f)),
                ends => ends,
            };
            // The words in lower case, as the router has always given them ("march 2026").
            range = Some(DateRange { from, to, phrase: m.phrase.to_lowercase() });
        }
    }
    years.retain(|y| YEARS.contains(y));
    years.sort_unstable();
    years.dedup();
    (years, range)
}

/// The words of the question's tokens `start..end`, as their normal forms.
fn said(a: &Analysis, start: usize, end: usize) -> String {
    a.tokens[start..end].iter().map(|t| t.norm.as_str()).collect::<Vec<_>>().join(" ")
}

/// A value link whose words are one of its stored values' own words ("in transit" for
/// `in_transit`; not "intransit", not "Canadian" for Canada).
fn value_said(a: &Analysis, l: &Link) -> bool {
    let Named::Value { values, .. } = &l.target else { return false };
    let words = said(a, l.start, l.end);
    let quoted = (l.end == l.start + 1).then(|| a.tokens[l.start].lower.as_str());
    values.iter().any(|v| value_words(v).join(" ") == words || quoted.is_some_and(|q| q == v.to_lowercase()))
}

/// A sure link to a field inside `outer`'s span naming `outer`'s field.
fn field_inside(links: &[Link], outer: &Link) -> Option<usize> {
    links.iter().position(|l| {
        matches!(l.target, Named::Field { .. }) && matches!(l.how, How::Name | How::Core | How::Synonym) && !l.negated && l.start >= outer.start && l.end <= outer.end && l.target.field() == outer.target.field()
    })
}

/// A sure link to `outer`'s value inside its span: the stored value's words or an alias.
fn value_inside<'l>(a: &Analysis, links: &'l [Link], outer: &Link) -> Option<&'l Link> {
    links.iter().find(|l| l.target == outer.target && l.start >= outer.start && l.end <= outer.end && (l.how == How::Alias || (l.how == How::Value && value_said(a, l))))
}

/// Whether a link is sure enough to route by.
fn sure(a: &Analysis, links: &[Link], l: &Link) -> bool {
    if l.negated {
        return false;
    }
    match (l.how, &l.target) {
        (How::Name | How::Core | How::Synonym, Named::Collection { .. } | Named::Field { .. }) => true,
        (How::Value, Named::Value { .. }) => value_said(a, l),
        (How::Alias, Named::Value { .. }) => true,
        // "country code CA", "status closed": the value is said as stored (or by an alias), or
        // is a code written as stored right after its field's name.
        (How::FieldValue, Named::Value { values, .. }) => value_inside(a, links, l).is_some() || a.tokens.get(l.end - 1).is_some_and(|t| values.contains(&t.text)),
        _ => false,
    }
}

/// The collections, fields and category values `a` surely names of `profile`.
pub fn matches(a: &Analysis, profile: &SourceProfile) -> Matches {
    let schema: SourceSchema = profile.schema();
    let links = Linker::new(&schema).link(a, None);
    let stored = |field: &str, value: &str| profile.field(field).is_none_or(|f| f.values.is_empty() || f.values.iter().any(|v| v == value));
    let mut out = Matches::default();
    let mut sure_links: Vec<Link> = Vec::new();
    for l in links.iter().filter(|l| sure(a, &links, l)) {
        // An alias for a value its field lacks is reported, never used.
        if let Named::Value { field, values, .. } = &l.target
            && let Some(v) = values.iter().find(|v| !stored(field, v))
        {
            if l.how == How::Alias {
                let w = format!("\"{}\" → {field}: {v:?} is not a value of {field} (dropped)", l.words.join(" "));
                if !out.warnings.contains(&w) {
                    out.warnings.push(w);
                }
            }
            continue;
        }
        sure_links.push(l.clone());
    }
    let mut collections: Vec<(usize, usize, String, String)> = Vec::new();
    let mut fields: Vec<(String, String)> = Vec::new();
    for m in cover(&sure_links, a.tokens.len()) {
        for l in &m.links {
            let words = l.words.join(" ");
            match &l.target {
                Named::Collection { collection } => collections.push((l.start, l.end, words, collection.clone())),
                Named::Field { field, .. } => fields.push((words, field.clone())),
                Named::Value { field, values, .. } => {
                    let via_alias = l.how == How::Alias || (l.how == How::FieldValue && value_inside(a, &links, l).is_some_and(|v| v.how == How::Alias));
                    if l.how == How::FieldValue && field_inside(&links, l).is_some() {
                        fields.push((words.clone(), field.clone()));
                    }
                    for v in values {
                        out.values.push(ValueFilter { field: field.clone(), value: v.clone(), phrase: words.clone(), via_alias });
                    }
                }
            }
        }
    }
    // A collection counts once, and so does a span naming several that read the same (a table
    // and its synonym).
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut read: Vec<Vec<String>> = Vec::new();
    for c in &profile.collections {
        let Some((s, e, words, _)) = collections.iter().find(|x| x.3 == *c) else { continue };
        let cw = SourceProfile::name_words(c);
        if spans.contains(&(*s, *e)) || read.contains(&cw) {
            continue;
        }
        spans.push((*s, *e));
        read.push(cw);
        out.collections.push((words.clone(), c.clone()));
    }
    for f in &profile.fields {
        if let Some((words, _)) = fields.iter().find(|x| x.1 == f.name) {
            out.fields.push((words.clone(), f.name.clone()));
        }
    }
    out.values.sort_by(|x, y| (&x.field, &x.value).cmp(&(&y.field, &y.value)));
    out.values.dedup_by(|x, y| x.field == y.field && x.value == y.value);
    out
}

#[cfg(test)]
mod tests;
