//! Whether something took place: rows no related row points at ("Which treatments have never
//! been given?", "customers who never rented a car") and rows whose optional event date is
//! not set yet ("still open", "unpaid", "not completed") or is ("completed").

use qa_question::link::{How, Target};
use qa_question::{names, states};

use super::ir::{ColRef, Cond, Expr, Query};
use super::read::Reader;

impl Reader<'_> {
    /// "Which outages are still ongoing?": rows whose one optional end date (`restored_at`,
    /// `finished_on`) is not set yet; "unpaid", "not closed", "completed": whether the event an
    /// optional date column is named for (`paid_on`, `closed_on`) took place.
    pub(super) fn ongoing(&mut self) {
        let Some(entity) = self.entity.clone() else { return };
        let words: Vec<String> = (0..self.n()).map(|i| self.word(i).to_string()).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        for (i, word) in words.iter().enumerate() {
            // (A weak link — "open" as a word family of `opened_year` — does not hold it.)
            let held = self.ms.iter().enumerate().find(|(_, m)| m.start <= i && i < m.end).map(|(j, _)| j);
            let weak = held.is_none_or(|j| !self.used[j] && self.ms[j].end == i + 1 && self.readings(j).iter().all(|l| matches!(l.how, How::Family | How::Part | How::Head | How::Fuzzy)));
            if self.ledger.is_used(i) || held.is_some_and(|j| self.used[j]) || states::dated_after(&refs, i) {
                continue;
            }
            let optional: Vec<ColRef> = self.date_columns(&entity).into_iter().filter(|c| self.schema.field(&c.table, &c.column).is_some_and(|f| f.nullable)).collect();
            // ("did … complete": the base verb after an auxiliary; "finished" of `completed_on`.)
            let state = states::event_state(word).or_else(|| states::past_base_verb(&refs, i).map(|p| (p, true)));
            let named_by = |event: &str| states::event_date_field(event, optional.iter().map(|c| (c.column.as_str(), true))).map(str::to_string);
            let by_event = state.and_then(|(event, happened)| {
                let named = named_by(&event).or_else(|| states::same_event(&event).and_then(named_by))?;
                optional.iter().find(|c| c.column == named).map(|c| (c.clone(), happened))
            });
            let ends: Vec<ColRef> = optional.iter().filter(|c| states::names_an_end(&c.column)).cloned().collect();
            let (col, happened) = match (by_event, ends.as_slice()) {
                (Some(x), _) => x,
                (None, [one]) if states::not_ended(word) => (one.clone(), false),
                _ => continue,
            };
            // (Or a link to that very column: "closed" of `closed_on`.)
            let of_col = held.is_some_and(|j| self.readings(j).iter().any(|l| matches!(&l.target, Target::Field { collection, field } if col.table.eq_ignore_ascii_case(collection) && col.column.eq_ignore_ascii_case(field))));
            if !weak && !of_col {
                continue;
            }
            let neg = self.negation_before(i);
            let is_null = happened != neg.is_none();
            let role = format!("{col} {}", if is_null { "IS NULL" } else { "IS NOT NULL" });
            if let Some(j) = neg {
                self.mark(j..j + 1, "negation");
            }
            if let Some(j) = held {
                self.consume(j, role.clone());
            }
            self.mark(i..i + 1, role);
            self.q.filters.push(Cond::Null { col, is_null });
        }
    }

    /// "never been rented" where 'rented' is a stored value (a status) and the word's family
    /// names a table that refers to the rows asked about (`rentals`): an event that never took
    /// place is no related row, whatever state the rows are in now.
    pub(super) fn never_related_by_value_word(&mut self) {
        let Some(entity) = self.entity.clone() else { return };
        for i in 0..self.n() {
            let Some(k) = self.after_never(i) else { continue };
            let Some(vm) = self.ms.iter().position(|m| m.start == k && m.end == k + 1) else { continue };
            let w = self.word(k).to_string();
            if self.used[vm] || w.len() < 5 || !(w.ends_with("ed") || w.ends_with("en")) || !self.readings(vm).iter().any(|l| matches!(l.target, Target::Value { .. })) {
                continue;
            }
            let after = self.ms.iter().position(|m| m.start > k && m.start <= k + 3 && self.names_table_idx(m));
            let refs: Vec<super::super::schema::JoinStep> = self
                .ctx
                .fk_steps()
                .into_iter()
                .filter(|s| s.from_table.eq_ignore_ascii_case(&entity) && super::ir::multiplies(self.ctx, s))
                .filter(|s| names::name_words(&s.to_table).iter().any(|tw| qa_core::text::same_family(tw, &w)))
                .collect();
            let [step] = refs.as_slice() else { continue };
            // "customers who never rented a car": the table said after the verb is the related
            // one, reached through the verb's table; the verb is that relation, no value.
            // Only an article between: "never rented a car" is no rental at all (every rental
            // has its car); "never rented an electric car" is left to the other readings.
            if let Some(am) = after {
                let Some(t) = self.table(am) else { continue };
                let through = self.ctx.join_path(&entity, &t).is_some_and(|p| p.len() == 2 && p[0].to_table.eq_ignore_ascii_case(&step.to_table));
                let bare = (k + 1..self.ms[am].start).all(|j| matches!(self.word(j), "a" | "an" | "the" | "any"));
                if !through || !bare || self.ms[am].end < self.n() && self.ms.iter().any(|m| m.start == self.ms[am].end) {
                    continue;
                }
                self.consume(am, format!("table {t} (through {})", step.to_table));
            }
            let sub = Query { table: step.to_table.clone(), select: vec![Expr::col(ColRef::new(&step.to_table, &step.to_column))], ..Query::default() };
            self.q.filters.push(Cond::InSub { col: ColRef::new(&step.from_table, &step.from_column), negated: true, query: Box::new(sub) });
            let role = format!("table {} (no related rows, by its verb)", step.to_table);
            self.consume(vm, role.clone());
            self.mark(i..k + 1, role);
        }
    }

    /// The word a "never" at `i` negates, past the auxiliaries ("never been rented" → "rented").
    fn after_never(&self, i: usize) -> Option<usize> {
        if self.word(i) != "never" || self.ledger.is_used(i) {
            return None;
        }
        let mut k = i + 1;
        while matches!(self.word(k), "been" | "be" | "was" | "were" | "ever" | "yet" | "once") {
            k += 1;
        }
        // "never had anything dispensed": the participle after what was had.
        let participle = |w: &str| w.len() > 3 && (w.ends_with("ed") || w.ends_with("en") || qa_core::text::is_irregular_verb_form(w));
        if matches!(self.word(k), "had" | "have" | "has" | "got") && matches!(self.word(k + 1), "anything" | "any" | "something") && participle(self.word(k + 2)) {
            k += 2;
        }
        Some(k)
    }

    /// "Which treatments have never been given?": rows no row of the one table that refers to
    /// them points at (`NOT IN`). With several referring tables the verb does not say which, and
    /// the words stay unused.
    pub(super) fn never_related(&mut self) {
        let Some(entity) = self.entity.clone() else { return };
        for i in 0..self.n() {
            let Some(k) = self.after_never(i) else { continue };
            let w = self.word(k).to_string();
            let verb = qa_question::cues::is_light_verb(&w) || (w.len() > 3 && (w.ends_with("ed") || w.ends_with("en")));
            // "never been booked" where `bookings.booked_at` is named by the verb: the verb says
            // which referring table.
            let said = self.ms.iter().position(|m| m.start <= k && k < m.end);
            let said_ok = said.is_none_or(|vm| self.ms[vm].end == k + 1 && self.ms[vm].start == k && !self.used[vm] && self.readings(vm).iter().all(|l| matches!(l.target, Target::Field { .. } | Target::Collection { .. })));
            if k >= self.n() || !verb || self.ledger.is_used(k) || !said_ok {
                continue;
            }
            // "never been sent to an outage": the table said after the verb is the related one
            // (a condition on related rows, placed with the others).
            if self.ms.iter().any(|m| m.start > k && m.start <= k + 3 && self.names_table_idx(m)) {
                continue;
            }
            let mut refs: Vec<super::super::schema::JoinStep> = self.ctx.fk_steps().into_iter().filter(|s| s.from_table.eq_ignore_ascii_case(&entity) && super::ir::multiplies(self.ctx, s)).collect();
            refs.dedup_by(|a, b| a.to_table.eq_ignore_ascii_case(&b.to_table));
            let step = match said {
                Some(vm) => {
                    let named: Vec<&super::super::schema::JoinStep> = refs.iter().filter(|s| self.readings(vm).iter().any(|l| l.target.collection().eq_ignore_ascii_case(&s.to_table))).collect();
                    let [one] = named.as_slice() else { continue };
                    (*one).clone()
                }
                None => {
                    let [one] = refs.as_slice() else { continue };
                    one.clone()
                }
            };
            let sub = Query { table: step.to_table.clone(), select: vec![Expr::col(ColRef::new(&step.to_table, &step.to_column))], ..Query::default() };
            self.q.filters.push(Cond::InSub { col: ColRef::new(&step.from_table, &step.from_column), negated: true, query: Box::new(sub) });
            let role = format!("table {} (no related rows)", step.to_table);
            if let Some(vm) = said {
                self.consume(vm, role.clone());
            }
            self.mark(i..k + 1, role);
        }
    }

    /// "Which donors were referred by another donor?", "patients referred to us by another
    /// patient": the verb of a self-reference (`referred_by_donor_id`) said of the rows, with
    /// another of the same rows after "by", is whether the row holds that reference ("not
    /// referred": whether it does not).
    pub(super) fn referred_by_another(&mut self) {
        let Some(entity) = self.entity.clone() else { return };
        let Some(t) = self.ctx.db.table(&entity) else { return };
        let own: Vec<String> = t.foreign_keys.iter().filter(|fk| fk.columns.len() == 1 && fk.ref_table.eq_ignore_ascii_case(&entity)).map(|fk| fk.columns[0].clone()).collect();
        if own.is_empty() {
            return;
        }
        for i in 0..self.n() {
            let w = self.word(i).to_string();
            if self.ledger.is_used(i) || w.len() < 5 || !(w.ends_with("ed") || qa_core::text::is_verb_form(&w)) {
                continue;
            }
            let named: Vec<&String> = own.iter().filter(|c| names::name_words(c).iter().any(|x| x.len() >= 4 && qa_core::text::same_family(x, &w))).collect();
            let [col] = named.as_slice() else { continue };
            // "… (to us) by another donor" / "by someone else".
            let mut k = i + 1;
            if matches!(self.word(k), "to" | "into") && matches!(self.word(k + 1), "us" | "the") {
                k += 2;
            }
            if self.word(k) != "by" {
                continue;
            }
            let other = match (self.word(k + 1), self.word(k + 2)) {
                ("another" | "other", _) | ("a" | "an", "fellow" | "other") => {
                    let n = if self.word(k + 1) == "another" || self.word(k + 1) == "other" { k + 2 } else { k + 3 };
                    self.mention_at(n).filter(|&mi| self.names_table(mi) && self.table(mi).is_some_and(|x| x.eq_ignore_ascii_case(&entity))).map(|mi| (n, mi))
                }
                _ => None,
            };
            let Some((n, mi)) = other else { continue };
            let col = ColRef::new(&entity, col);
            let neg = self.negation_before(i);
            let is_null = neg.is_some();
            let role = format!("{col} {}", if is_null { "IS NULL" } else { "IS NOT NULL" });
            if let Some(j) = neg {
                self.mark(j..j + 1, "negation");
            }
            self.mark(i..n, role.clone());
            self.consume(mi, role);
            self.q.filters.push(Cond::Null { col, is_null });
        }
    }
}
