//! Dates no word names outright: a verb of finishing ("installations completed in 2024") says
//! the date of the rows' own event (`installed_on`), and rows with no date of their own are
//! dated by the one row they belong to that has one.

use qa_question::names;

use super::ir::ColRef;
use super::read::Reader;

impl Reader<'_> {
    /// "panoramic x-rays taken in 2024": rows with no date of their own are dated by the one
    /// row they belong to that has one (the x-ray's appointment) — its default date, its only
    /// date, or the date of its own event.
    pub(super) fn parent_date(&mut self, t: &str) -> Option<ColRef> {
        let dated: Vec<ColRef> = self
            .ctx
            .parent_tables(t)
            .iter()
            .filter_map(|p| {
                let own = self.date_columns(p);
                let own: Vec<ColRef> = match self.ctx.default_date(p) {
                    Some(d) => own.into_iter().filter(|c| c.column.eq_ignore_ascii_case(&d)).collect(),
                    None if own.len() > 1 => own.into_iter().filter(|c| own_event_date(p, &c.column)).collect(),
                    None => own,
                };
                match own.as_slice() {
                    [one] => Some(one.clone()),
                    _ => None,
                }
            })
            .collect();
        let [one] = dated.as_slice() else { return None };
        self.reach.push(t.to_string());
        self.reach.push(one.table.clone());
        self.notes.push(format!("the date read as {one} (the {t} rows have no date of their own)"));
        Some(one.clone())
    }
}

/// `admitted_on` of admissions, `installed_on` of installations: the date named by the verb of
/// the table's own noun, when each row's event happened.
pub(super) fn own_event_date(table: &str, column: &str) -> bool {
    let w = names::name_words(column);
    let noun = names::name_words(table).last().cloned().unwrap_or_default();
    w.len() == 2 && matches!(w[1].as_str(), "on" | "at" | "date" | "day" | "time") && w[0].len() >= 4 && noun.len() >= 4 && qa_core::text::same_family(&noun, &w[0])
}

/// "completed", "finished", "concluded": a verb that says a process came to its end.
pub(super) fn completion_verb(w: &str) -> bool {
    ["complet", "finish", "conclud"].iter().any(|p| w.starts_with(p))
}
