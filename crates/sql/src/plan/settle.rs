//! Readings settled once the query is built: what a word too common to link still names
//! among the tables the query reads, and which rows a guessed date belongs to.

use qa_question::cues::Op;

use super::finish::tests_column;
use super::ir::{ColRef, Cond, Expr};
use super::read::Reader;

impl Reader<'_> {
    /// "students currently boarding there" where the rows read have an `is_current` flag: a
    /// word too common to link names that flag; untested, the flag is a condition dropped.
    pub(super) fn flags_said_by_common_words(&mut self) {
        for i in 0..self.n() {
            let w = self.word(i).to_string();
            if self.ledger.is_used(i) || self.ledger.is_content(i) || w.len() < 5 || !self.a.tokens[i].is_word() {
                continue;
            }
            // The outer query's rows, else those of the one sub-query that keeps rows ("boats
            // currently assigned to a mooring": the assignments that exist).
            let outer = self.untested_flag_named(&w);
            let subs: Vec<(usize, ColRef)> = self
                .q
                .filters
                .iter()
                .enumerate()
                .filter_map(|(k, f)| match f {
                    Cond::InSub { negated: false, query, .. } => self.flag_named(&w, &query.tables()).filter(|c| !query.filters.iter().any(|f| tests_column(f, c))).map(|c| (k, c)),
                    _ => None,
                })
                .collect();
            let (col, sub) = match (outer, subs.as_slice()) {
                (Some(c), _) => (c, None),
                (None, [(k, c)]) => (c.clone(), Some(*k)),
                _ => continue,
            };
            if self.negation_before(i).is_some() {
                self.penalties.push((format!("\"{w}\" names the flag {col} that the query does not test"), 0.5));
                continue;
            }
            let lit = super::source::flag_literal(self.ctx, &col.table, &col.column, true);
            self.mark(i..i + 1, format!("{col} = true"));
            let cond = Cond::Cmp { col, op: Op::Eq, value: lit };
            match sub.and_then(|k| self.q.filters.get_mut(k)) {
                Some(Cond::InSub { query, .. }) => query.filters.push(cond),
                _ => self.q.filters.push(cond),
            }
        }
    }

    /// "the most recent donation received? Give its lot code, the date and …": a bare "date"
    /// shown beside rows ranked by a date is that date, not another table's.
    pub(super) fn the_date_is_the_ranked_date(&mut self) {
        let Some(ranked) = self.q.order_by.first().and_then(|(e, _)| match e {
            Expr::Col { col } if self.kind(col) == qa_question::FieldKind::Date => Some(col.clone()),
            _ => None,
        }) else {
            return;
        };
        for i in 0..self.n() {
            if !matches!(self.word(i), "date" | "day") || i > 0 && self.ledger.is_content(i - 1) {
                continue;
            }
            let Some(shown) = self.ledger.role(i).and_then(|r| r.strip_prefix("show ")).map(str::to_string) else { continue };
            let Some(k) = self.q.select.iter().position(|e| matches!(e, Expr::Col { col } if col.to_string() == shown && *col != ranked && self.kind(col) == qa_question::FieldKind::Date)) else { continue };
            match self.q.select.iter().position(|e| *e == Expr::col(ranked.clone())) {
                Some(r) => {
                    let x = self.q.select.remove(r);
                    let k = if r < k { k - 1 } else { k };
                    self.q.select[k] = x;
                }
                None => self.q.select[k] = Expr::col(ranked.clone()),
            }
            self.ledger.unmark(i..i + 1);
            self.mark(i..i + 1, format!("show {ranked}"));
        }
    }

    /// "Total hours worked by volunteers per role in 2025": a date no word placed, guessed as
    /// the date of another table in play (when the volunteers joined), dates the rows whose
    /// column is summed or averaged instead, when they have one date.
    pub(super) fn date_the_measured_rows(&mut self) {
        let mut measured: Vec<String> = self.q.select.iter().filter(|e| matches!(e, Expr::Agg { col: Some(_), .. })).filter_map(|e| e.column().map(|c| c.table.clone())).collect();
        measured.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        let [m] = measured.as_slice() else { return };
        let own = self.date_columns(m);
        let [own] = own.as_slice() else { return };
        for guess in self.guessed_dates.clone() {
            if guess.table.eq_ignore_ascii_case(m) {
                continue;
            }
            let mut moved = false;
            for f in self.q.filters.iter_mut() {
                if let Cond::Dates { col, .. } | Cond::Month { col, .. } = f
                    && *col == guess
                {
                    *col = own.clone();
                    moved = true;
                }
            }
            if moved {
                let prefix = format!("{guess} in ");
                for i in 0..self.n() {
                    if let Some(role) = self.ledger.role(i).filter(|r| r.starts_with(&prefix)).map(|r| r.replacen(&guess.to_string(), &own.to_string(), 1)) {
                        self.ledger.unmark(i..i + 1);
                        self.ledger.mark(i..i + 1, role);
                    }
                }
                self.notes.push(format!("the date read as {own} (the date of the rows measured), not {guess}"));
            }
        }
    }

    /// A flag of a table the outer query reads whose one word is `word` (an adverb by its
    /// adjective: "currently" → `is_current`), not yet tested.
    fn untested_flag_named(&self, word: &str) -> Option<ColRef> {
        let mut reached = self.needed();
        reached.push(self.q.table.clone());
        for t in reached.clone() {
            if let Some(p) = self.ctx.join_path(&self.q.table, &t) {
                reached.extend(p.into_iter().map(|s| s.to_table));
            }
        }
        self.flag_named(word, &reached).filter(|col| !self.q.filters.iter().any(|f| tests_column(f, col)))
    }

    /// The one flag of `tables` whose one word (without `is_`, `has_`, …) is `word` or the
    /// adjective of the adverb `word`.
    fn flag_named(&self, word: &str, tables: &[String]) -> Option<ColRef> {
        let w = word.strip_suffix("ly").filter(|a| a.len() >= 4).unwrap_or(word);
        let mut found: Vec<ColRef> = Vec::new();
        for c in tables.iter().filter_map(|t| self.schema.collection(t)) {
            for f in &c.fields {
                let col = ColRef::new(&c.name, &f.name);
                let said: Vec<String> = qa_question::names::name_words(&f.name).into_iter().filter(|x| !qa_question::names::FLAG_PREFIXES.contains(&x.as_str())).collect();
                if self.kind(&col) == qa_question::FieldKind::Flag && said.len() == 1 && said[0] == w && !found.contains(&col) {
                    found.push(col);
                }
            }
        }
        match found.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }
}
