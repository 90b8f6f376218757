//! What a "which"/"what" question asks for: the column "which X" names, the rows a reference
//! number stands for, the describing column of a value ("what does ACC stand for"), and what a
//! coordinated clause asks for beside the rows ("…, and in which city?").

use qa_question::link::How;
use qa_question::FieldKind;

use super::entity::Shown;
use super::ir::{ColRef, Expr};
use super::read::Reader;

impl Reader<'_> {
    /// The column of a "which X" / "what X" question, when X names one.
    pub(super) fn which_column(&self) -> Option<(ColRef, usize)> {
        for &(s, e) in &self.a.sentences {
            // At the sentence's start, or opening the clause after a comma ("For the cars with 4
            // cylinders, which model …").
            let starts = (s..(s + 2).min(e)).chain((s + 1..e).filter(|&i| self.word(i - 1) == ","));
            for i in starts {
                if matches!(self.word(i), "which" | "what")
                    && let Some(mi) = self.mention_at(i + 1)
                    && !self.names_table(mi)
                    // "which academic sites": a flag before the rows' noun is a condition.
                    && !self.field(mi).is_some_and(|c| self.kind(&c) == FieldKind::Flag)
                    // "Which clients …" of a `client_since` date: a date answers "which date",
                    // "which year", not a question about things.
                    && !self.field(mi).is_some_and(|c| self.kind(&c) == FieldKind::Date && !(self.ms[mi].start..self.ms[mi].end).any(|k| matches!(self.word(k), "date" | "dates" | "day" | "days" | "year" | "years" | "month" | "months" | "time" | "times" | "week" | "weeks")))
                    // "What is the most populous city": the measure of a ranking is not the
                    // column asked for.
                    && !self.a.superlatives.iter().any(|s| s.start <= self.ms[mi].start && self.ms[mi].start < s.end)
                    && let Some(c) = self.field(mi)
                    && !self.numbers_rows(mi, &c)
                    // "Which staff at MAD …" over `staff_id`: the rows' own key said by their
                    // noun is the rows, not a column.
                    && (self.pk(&c.table).is_none_or(|k| k != c) || (self.ms[mi].start..self.ms[mi].end).any(|k| matches!(self.word(k), "id" | "ids" | "number" | "code" | "key")))
                {
                    return Some((c, mi));
                }
            }
        }
        None
    }

    /// "Which staff …" of `staff_no`: a reference number (values like 'EMP-0283') said without
    /// its "no" names the rows it numbers (shown by their label), not the number; "which
    /// country" of `country_code` ('CA') stays the code.
    pub(super) fn numbers_rows(&self, mi: usize, c: &ColRef) -> bool {
        self.ms[mi].best().how == How::Core
            && qa_question::names::name_words(&c.column).last().is_some_and(|w| matches!(w.as_str(), "no" | "nr" | "num" | "number" | "code" | "ref"))
            && !self.label(&c.table).contains(c)
            && self.schema.field(&c.table, &c.column).is_some_and(|f| !f.values.is_empty() && f.values.iter().all(|v| v.chars().any(|ch| ch.is_ascii_digit()) && v.chars().any(|ch| ch.is_alphabetic())))
    }

    /// The word of "which X" that [`Self::numbers_rows`] reads as the rows themselves.
    pub(super) fn rows_numbered_after_which(&self) -> Option<(usize, String)> {
        self.a.sentences.iter().flat_map(|&(s, e)| s..(s + 2).min(e)).find_map(|i| {
            let mi = self.mention_at(i + 1).filter(|_| matches!(self.word(i), "which" | "what"))?;
            let c = self.field(mi)?;
            (!self.used[mi] && self.numbers_rows(mi, &c)).then(|| (mi, c.table.clone()))
        })
    }

    /// The ranking "top N X" whose "by" is at `by`: its superlative.
    /// The column that describes the rows a value condition picks: a text column of the value's
    /// table named description, meaning, definition, name, label or title.
    /// When the value is stored where it refers to its lookup table, also the condition's
    /// column and the lookup's key that replaces it.
    pub(super) fn described_by_value(&self) -> Option<(ColRef, Option<(ColRef, ColRef)>)> {
        self.q.filters.iter().find_map(|f| match f {
            super::ir::Cond::In { col, negated: false, .. } | super::ir::Cond::Cmp { col, .. } => {
                // A code stored where it refers to its lookup table is described there.
                let here = self.ctx.table(&col.table)?;
                let referred = here.foreign_keys.iter().find(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&col.column)).and_then(|fk| Some((self.ctx.table(&fk.ref_table)?, fk.ref_columns.first()?.clone())));
                let (t, moved) = match &referred {
                    Some((t, c)) => (*t, Some((col.clone(), ColRef::new(&t.name, c)))),
                    None => (here, None),
                };
                let col = moved.as_ref().map(|(_, to)| to.clone()).unwrap_or_else(|| col.clone());
                let c = t.columns.iter().filter(|x| !x.name.eq_ignore_ascii_case(&col.column)).find(|x| {
                    qa_question::names::name_words(&x.name).iter().any(|w| matches!(w.as_str(), "description" | "meaning" | "definition" | "desc" | "descr"))
                }).or_else(|| t.columns.iter().filter(|x| !x.name.eq_ignore_ascii_case(&col.column)).find(|x| qa_question::names::name_words(&x.name).iter().any(|w| matches!(w.as_str(), "name" | "label" | "title"))))?;
                Some((ColRef::new(&t.name, &c.name), moved))
            }
            _ => None,
        })
    }

    /// "Which hotels are five-star, and in which cities?": what a coordinated clause asks
    /// for, beside the rows (a list only: beside a total it would be a group nobody asked).
    pub(super) fn also_shown(&mut self, select: &mut Vec<Expr>) {
        if self.a.also.is_empty() {
            return;
        }
        let items = self.a.also.clone();
        let mut shown = self.shown_items(&items);
        // "founded before 1950, and in what year?", "who left in 2025, and on what date?":
        // the date or year column a condition tests.
        let placed: Vec<usize> = shown.iter().map(|(_, s, _)| *s).collect();
        for it in items.iter().filter(|it| it.end == it.start + 1 && !placed.contains(&it.start)) {
            let word = self.word(it.start).to_string();
            let tested: Vec<ColRef> = self
                .q
                .filters
                .iter()
                .filter(|f| match (f, word.as_str()) {
                    (super::ir::Cond::Dates { .. } | super::ir::Cond::Month { .. }, "date" | "day" | "year") => true,
                    (super::ir::Cond::Cmp { col, .. } | super::ir::Cond::Between { col, .. }, "year") => qa_question::names::name_words(&col.column).iter().any(|w| w == "year"),
                    _ => false,
                })
                .filter_map(|f| f.col().cloned())
                .collect();
            if let [one] = tested.as_slice() {
                self.mark(it.start..it.end, format!("show {one}"));
                shown.push((Shown::Col(one.clone()), it.start, it.end));
            }
        }
        for (s, _, _) in shown {
            let exprs: Vec<Expr> = match s {
                Shown::Col(c) => vec![Expr::col(c)],
                Shown::Rows(t) => self.row_columns(&t).into_iter().map(Expr::col).collect(),
                Shown::All(_) => Vec::new(),
            };
            for x in exprs {
                if !select.contains(&x) {
                    self.reach.extend(x.column().map(|c| c.table.clone()));
                    select.push(x);
                }
            }
        }
    }

    /// "how many doses", "the most doses" of `administrations.dose_mg`: a measure named by its
    /// noun and a unit, said in the plural by that noun, counts the rows (each row is one dose);
    /// its amount is said by the unit ("how many milligrams"). Not a column named by a plural
    /// (`beds`), which counts things itself.
    pub(super) fn rows_said_by_measure(&self, mi: usize) -> Option<String> {
        let m = &self.ms[mi];
        if m.end != m.start + 1 || self.names_table(mi) {
            return None;
        }
        let t = &self.a.tokens[m.start];
        let plural = t.lower != t.norm;
        let c = self.field(mi)?;
        let words = qa_question::names::name_words(&c.column);
        let measure = self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None && f.kind.is_numeric());
        // (A unit the reader knows, or a short one it does not: `dose_mg`, `volume_ml`.)
        let noun_and_unit = matches!(words.as_slice(), [noun, unit] if *noun == t.norm && (unit.len() <= 3 || qa_question::names::GENERIC_SUFFIXES.contains(&unit.as_str()))) || matches!(words.as_slice(), [noun, _] if *noun == t.norm) && qa_question::numbers::field_unit(&c.column).is_some();
        (plural && measure && noun_and_unit).then(|| c.table.clone())
    }
}
