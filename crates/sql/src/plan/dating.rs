//! Dates no word names outright: a verb of finishing ("installations completed in 2024") says
//! the date of the rows' own event (`installed_on`), and rows with no date of their own are
//! dated by the one row they belong to that has one; "on which dates was …" asks for a date.

use qa_question::{names, FieldKind};

use super::ir::{ColRef, Expr};
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

/// A deadline (`valid_until`, `expires_on`, `due_date`), not an event's own date (`issued_on`):
/// "prescriptions written in 2024" are dated by the event.
pub(super) fn deadline(c: &ColRef) -> bool {
    names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "until" | "till" | "expiry" | "expires" | "expiring" | "expiration" | "due" | "deadline" | "valid" | "validity"))
}

/// "completed", "finished", "concluded": a verb that says a process came to its end.
pub(super) fn completion_verb(w: &str) -> bool {
    ["complet", "finish", "conclud"].iter().any(|p| w.starts_with(p))
}

impl Reader<'_> {
    /// "On which dates was the dish served?", "What date did …": the same question as "when",
    /// answered by the one date of another table the verb names (`menu_days.served_on`) when
    /// the rows asked about have no date of their own.
    pub(super) fn date_asked_by_opener(&mut self, select: &mut Vec<Expr>) {
        let date_opener = (matches!(self.word(0), "on" | "at") && matches!(self.word(1), "which" | "what") && matches!(self.word(2), "date" | "dates" | "day" | "days")).then_some(3)
            .or_else(|| (matches!(self.word(0), "which" | "what") && matches!(self.word(1), "date" | "dates" | "day")).then_some(2))
            .filter(|&k| matches!(self.word(k), "was" | "were" | "did" | "is" | "are" | "has" | "have"))
            .filter(|_| (0..self.n()).all(|i| self.word(i) != "when"));
        if select.is_empty()
            && let Some(k) = date_opener
            && let Some(e) = self.entity.clone()
            && self.date_columns(&e).is_empty()
        {
            // (A date of another table the verb names: "On which dates was the dish served?"
            // of `menu_days.served_on`.)
            let named: Vec<ColRef> = (k..self.n())
                .filter(|&v| !self.ledger.is_used(v))
                .filter_map(|v| self.mention_at(v))
                .flat_map(|mi| self.fields_of(mi).into_iter().filter(|(c, s)| *s >= 0.8 && self.kind(c) == FieldKind::Date).map(|(c, _)| c))
                .fold(Vec::new(), |mut v, c| {
                    if !v.contains(&c) {
                        v.push(c);
                    }
                    v
                });
            if let [c] = named.as_slice()
                && self.connected(&e, &c.table)
            {
                self.mark(0..k, format!("show {c}"));
                self.reach.push(c.table.clone());
                select.push(Expr::col(c.clone()));
                self.q.distinct = true;
            }
        }
    }
}
