//! Grouping cues read as keys: "per team", "by city", "for each X", "per month", a flag or a
//! stored value naming the grouped rows ("each trauma center"), a lone "each" after a "which X"
//! question.

use qa_question::link::{How, Target};
use qa_question::FieldKind;

use super::ir::ColRef;
use super::read::Reader;
use super::shape::Key;

impl Reader<'_> {
    /// Grouping cues: "per X", "by X", "for each X", "per month".
    pub(super) fn group_keys(&mut self) -> Vec<(Key, bool)> {
        let mut out: Vec<(Key, bool)> = Vec::new();
        let mut elided = None;
        for g in self.a.groupings.clone() {
            // "top 3 authors by number of books": the "by" names the ranking's measure.
            if self.word(g.end - 1) == "by" && (self.top_by(g.start).is_some() || self.ranked_by(g.start).is_some()) {
                continue;
            }
            let w = self.word(g.target).to_string();
            // (A column named so — `month` — is grouped by as it is; a word of the family of
            // another name — `monthly_premium` — leaves "each month" the time.)
            let named_so = self.ms.iter().any(|m| m.start == g.target && matches!(m.best().how, How::Name | How::Core | How::Synonym | How::Value | How::Alias));
            if matches!(w.as_str(), "month" | "months" | "year" | "years" | "monthly" | "yearly") && !named_so {
                let month = w.starts_with("month");
                // The date the question already tests ("reported in 2025"), else the first of
                // the tables in play.
                let tested = self.q.filters.iter().find_map(|f| match f {
                    super::ir::Cond::Dates { col, .. } => Some(col.clone()),
                    _ => None,
                });
                if let Some(c) = tested.or_else(|| self.context_tables().iter().find_map(|t| self.date_columns(t).into_iter().next())) {
                    self.mark(g.start..g.target + 1, "group by time");
                    out.push((Key::Time(c, month), false));
                }
                continue;
            }
            let mut target = if self.word(g.target) == "number" && self.word(g.target + 1) == "of" { g.target + 2 } else { g.target };
            // "each dental lab" in `dental_group.db`: a word of the database's name before the
            // noun is the domain, not the group.
            while target < self.n() && self.mention_at(target).is_none() && self.ctx.domain_words.contains(&self.a.tokens[target].norm) && self.a.tokens.get(target + 1).is_some_and(|t| t.is_word()) {
                self.mark(target..target + 1, "domain");
                target += 1;
            }
            let Some(first) = self.mention_at(target) else {
                // "Which ingredients went into …, and how many kilograms of each?": "each" alone
                // is each of the rows asked about.
                // So is "each" before its verb ("how many square metres does each have?").
                let verb_next = matches!(self.word(target), "have" | "has" | "had" | "one" | "hold" | "holds" | "cost" | "costs" | "take" | "takes" | "weigh" | "weighs") || qa_core::text::is_verb_form(self.word(target));
                if (target >= self.n() || !self.a.tokens[target].is_word() || verb_next) && matches!(self.word(g.end - 1), "each" | "every") {
                    elided = Some(g.clone());
                }
                continue;
            };
            // "by each senior recruiter": a flag said of the grouped rows is their condition;
            // the rows are the group.
            let flag_of_next = |r: &Self, n: usize| r.field(first).is_some_and(|c| r.kind(&c) == FieldKind::Flag && r.names_table(n) && r.table(n).is_some_and(|t| c.table.eq_ignore_ascii_case(&t)));
            let first = match self.ms.iter().position(|m| m.start == self.ms[first].end) {
                Some(n) if flag_of_next(self, n) => n,
                _ => first,
            };
            // "each trauma center" of `is_trauma_center`, "each phlebotomist" of a `role` value:
            // the rows with the flag or the value are the groups; the flag or the value is
            // their condition (placed with the other conditions).
            let flag_table = self.field(first).filter(|c| self.kind(c) == FieldKind::Flag).map(|c| c.table.clone());
            let value_table = matches!(self.ms[first].best().target, Target::Value { .. }).then(|| self.ms[first].best().target.collection().to_string());
            if let Some(t) = flag_table.or(value_table) {
                let key = Key::Rows(t.clone());
                self.mark(g.start..g.end, format!("group by {t}"));
                if !out.iter().any(|(k, _)| *k == key) {
                    out.push((key, self.word(g.end - 1) == "by"));
                }
                continue;
            }
            // "per branch city": the column of the table named before it.
            let mi = match self.head_at(target) {
                Some(h) if h != first && self.names_table(first) && !self.names_table(h) => {
                    let t = self.table(first).unwrap_or_default();
                    if self.fields_of(h).iter().any(|(c, _)| c.table.eq_ignore_ascii_case(&t)) {
                        self.focus.push(t.clone());
                        self.consume(first, format!("table {t}"));
                        h
                    } else {
                        first
                    }
                }
                _ => first,
            };
            if target != g.target {
                self.mark(g.target..target, "group by");
            }
            let by = self.word(g.end - 1) == "by";
            // "delivered to agencies in each country": the column of the table named right
            // before the cue, when the word names one of its columns.
            let mut p = g.start;
            while p > 0 && matches!(self.word(p - 1), "in" | "of" | "from" | "at" | "for" | "by" | "per") {
                p -= 1;
            }
            let own = self.ms.iter().position(|m| m.end == p).filter(|&b| b != mi && !matches!(self.ms[b].best().target, Target::Value { .. })).and_then(|b| self.table(b)).and_then(|t| {
                // (Only among equally good readings, and never a key: "a print job for each
                // press type" is no `print_jobs.press_id`.)
                let fields = self.fields_of(mi);
                let best = fields.iter().map(|(_, s)| *s).fold(0.0, f64::max);
                let cols: Vec<super::ir::ColRef> = fields
                    .into_iter()
                    .filter(|(c, s)| *s >= best - 1e-9 && c.table.eq_ignore_ascii_case(&t) && self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None))
                    .map(|(c, _)| c)
                    .collect();
                (cols.len() == 1 && self.table(mi).is_none()).then(|| cols[0].clone())
            });
            let key = if let Some(c) = own {
                self.focus.push(c.table.clone());
                Key::Col(c)
            } else if let Some(t) = self.table(mi).filter(|t| self.field(mi).is_none_or(|c| !c.table.eq_ignore_ascii_case(t) || self.readings(mi)[0].target == Target::Collection { collection: t.clone() })) {
                Key::Rows(t)
            } else if let Some(c) = self.field(mi) {
                // "per home branch" naming the key `home_branch_id`: the branches it refers to.
                match self.ctx.db.table(&c.table).and_then(|t| t.foreign_keys.iter().find(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column))) {
                    Some(fk) => Key::Rows(fk.ref_table.clone()),
                    None => Key::Col(c),
                }
            } else {
                continue;
            };
            // "for each car category", "per route category": the table's noun, then a column
            // of that table (or of the one its rows belong to) right after it.
            let key = match key {
                Key::Rows(t) => match self.column_after_table_noun(mi, &t) {
                    Some((c, next)) => {
                        let role = format!("group by {c}");
                        self.consume(next, role);
                        Key::Col(c)
                    }
                    None => Key::Rows(t),
                },
                k => k,
            };
            let role = match &key {
                Key::Col(c) => format!("group by {c}"),
                Key::Rows(t) => format!("group by {t}"),
                Key::Time(c, _) => format!("group by {c}"),
            };
            self.mark(g.start..g.end, role.clone());
            self.consume(mi, role);
            let at = out.len();
            // "by channel and status": the list goes on.
            let mut end = self.ms[mi].end;
            while matches!(self.word(end), "and" | ",") {
                let Some(next) = self.ms.iter().position(|m| m.start == end + 1) else { break };
                let Some(c) = self.field(next) else { break };
                if self.table(next).is_some() {
                    break;
                }
                self.consume(next, format!("group by {c}"));
                out.push((Key::Col(c), by));
                end = self.ms[next].end;
            }
            if !out.iter().any(|(k, _)| *k == key) {
                out.insert(at, (key, by));
            }
        }
        // "Which ingredients went into …, and how many kilograms of each?": a lone "each" is
        // each of the rows a "which X" asks about, when nothing else groups.
        if let Some(g) = elided
            && out.is_empty()
        {
            let which_table = self.a.sentences.iter().find_map(|&(s, _)| {
                (matches!(self.word(s), "which" | "what")).then(|| self.mention_at(s + 1)).flatten().filter(|&mi| self.names_table(mi)).and_then(|mi| self.table(mi))
            });
            if let Some(t) = which_table {
                self.mark(g.start..g.end, format!("group by {t}"));
                out.push((Key::Rows(t), false));
            }
        }
        out
    }

    /// The mention right after `mi` (a noun of table `t`), unused, naming a column of `t` or
    /// of a table `t` refers to: that column and the mention.
    fn column_after_table_noun(&self, mi: usize, t: &str) -> Option<(ColRef, usize)> {
        // (A noun: "each insurer cover" is a verb, never the flag `covers_orthodontics`.)
        let next = self.ms.iter().position(|m| m.start == self.ms[mi].end).filter(|&n| !self.used[n] && !self.names_table(n) && !qa_core::text::is_verb_form(self.word(self.ms[n].start)))?;
        let near: Vec<String> = std::iter::once(t.to_string()).chain(self.ctx.parent_tables(t)).collect();
        let cols: Vec<ColRef> = self.fields_of(next).into_iter().map(|(c, _)| c).filter(|c| near.iter().any(|x| x.eq_ignore_ascii_case(&c.table)) && self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None && f.kind != FieldKind::Flag)).collect();
        match cols.as_slice() {
            [one] => Some((one.clone(), next)),
            _ => None,
        }
    }
}
