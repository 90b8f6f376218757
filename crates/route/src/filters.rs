//! Filters a question states: years (2000–2099, "last year", "this year"), date ranges (a day, a
//! month, a quarter, "since", "before", "after", "between … and …", "last month", "last N
//! days/weeks/months"), and values of the target's category fields, directly or through aliases.
//! The question is read by qa-question (see [`crate::reading`]). Every value filter is checked
//! against the profile: a value the field does not have is dropped with a warning.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::profile::SourceProfile;
use crate::reading::{self, Matches};

/// A date interval, both ends inclusive; an open end is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DateRange {
    /// First day, if bounded below.
    pub from: Option<NaiveDate>,
    /// Last day, if bounded above.
    pub to: Option<NaiveDate>,
    /// The words it came from.
    pub phrase: String,
}

/// A value of a category field the question names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueFilter {
    /// The field.
    pub field: String,
    /// The field's value (as the source stores it).
    pub value: String,
    /// The words it came from.
    pub phrase: String,
    /// Whether it came through an alias.
    pub via_alias: bool,
}

/// Everything extracted, validated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExtractedFilters {
    /// Years named (or implied by "last year" / "this year").
    pub years: Vec<i32>,
    /// A date interval, when one is stated.
    pub date_range: Option<DateRange>,
    /// Category values named.
    pub values: Vec<ValueFilter>,
    /// Filters dropped, and why.
    pub warnings: Vec<String>,
}

impl ExtractedFilters {
    /// Whether nothing was extracted.
    pub fn is_empty(&self) -> bool {
        self.years.is_empty() && self.date_range.is_none() && self.values.is_empty()
    }
}

/// Extract the filters of `question`; value filters only when a profile is given. `today`
/// anchors relative dates.
pub fn extract(question: &str, profile: Option<&SourceProfile>, today: NaiveDate) -> ExtractedFilters {
    let a = qa_question::analyse(question, today);
    let matches = profile.map(|p| reading::matches(&a, p));
    of_reading(&a, matches.as_ref())
}

/// The filters of an analysed question and, when a source was linked, of its matches.
pub(crate) fn of_reading(a: &qa_question::Analysis, matches: Option<&Matches>) -> ExtractedFilters {
    let (years, date_range) = reading::dates(a);
    let (values, warnings) = matches.map(|m| (m.values.clone(), m.warnings.clone())).unwrap_or_default();
    ExtractedFilters { years, date_range, values, warnings }
}

#[cfg(test)]
mod tests;
