//! Rows that refer to rows of their own table (a self-reference: `instructors.mentor_id` →
//! `instructors`). The related row is joined under its role's name (`JOIN instructors AS mentor`)
//! when a word the plan left unused names the reference:
//!
//! - "every instructor with the name of their mentor": the related row's label is shown too;
//! - "who is Ann Lee's mentor", "the mentor of Ann Lee": the rows picked by name are the ones
//!   whose related row is shown, instead of them;
//! - "staff managed by Ann Lee", "who reports to Ann Lee": the name picks the related row, and the
//!   rows that refer to it are shown.
//!
//! - "how many volunteers does each team lead have?", "for each head of department, how many
//!   scientists report to them?": a count over the table grouped by its own rows (groups of
//!   one) is the count of the rows that refer to each, grouped by the referred row.
//!
//! Anything else (a name said without one of those forms) is left to the coverage rule: the
//! word stays unused and the plan asks.

use qa_question::link::Target;

use super::ir::{AggFunc, ColRef, Cond, Expr, KinJoin};
use super::read::Reader;

impl Reader<'_> {
    /// The columns by which `table` refers to its own rows (keyed by `pk`).
    pub(super) fn own_references(&self, table: &str, pk: &ColRef) -> Vec<String> {
        self.ctx.table(table).map_or_else(Vec::new, |info| {
            info.foreign_keys
                .iter()
                .filter(|fk| fk.ref_table.eq_ignore_ascii_case(table) && fk.columns.len() == 1 && fk.ref_columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&pk.column)))
                .map(|fk| fk.columns[0].clone())
                .collect()
        })
    }

    /// Join the row a self-reference names, when an unused word names it (see the module).
    pub fn kin(&mut self) {
        if !self.q.kin.is_empty() || self.q.aggregates() || !self.q.group_by.is_empty() || self.q.set_op.is_some() || !self.q.having.is_empty() {
            return;
        }
        let table = self.q.table.clone();
        let Some(pk) = self.pk(&table) else { return };
        let own = self.own_references(&table, &pk);
        if own.is_empty() || !self.q.select.iter().all(|e| matches!(e, Expr::Col { .. })) {
            return;
        }
        // The word that names the reference: an unused mention linked to it, else an unused
        // word of its family ("mentored" of `mentor_id`; keys get no family links), else the
        // key itself shown ("the mentor of Ann Lee" read as `mentor_id`).
        // (Not a word that names a table: "drivers" is no `mentor_driver_id`.)
        let table_word = |i: usize| self.ms.iter().enumerate().any(|(j, m)| m.start <= i && i < m.end && self.readings(j).iter().any(|l| matches!(l.target, Target::Collection { .. })));
        let linked = (0..self.ms.len()).filter(|&i| !self.used[i] && !table_word(self.ms[i].start)).find_map(|i| {
            self.readings(i).iter().find_map(|l| match &l.target {
                Target::Field { collection, field } if collection.eq_ignore_ascii_case(&table) && own.iter().any(|c| c.eq_ignore_ascii_case(field)) => Some((self.ms[i].start, self.ms[i].end, field.clone())),
                _ => None,
            })
        });
        // The words of the role: the key's name without key words and the table's own name
        // ("referred" of `referred_by_donor_id` in `donors`).
        let table_family = qa_core::text::word_family(&table);
        let role_words = |c: &str| qa_question::names::name_words(c).into_iter().filter(|w| !matches!(w.as_str(), "id" | "key" | "ref" | "no" | "nr" | "by" | "to" | "of") && qa_core::text::word_family(w) != table_family).collect::<Vec<_>>();
        let family = || {
            (0..self.n()).filter(|&i| self.a.tokens[i].is_word() && !self.ledger.is_used(i) && !table_word(i) && self.word(i).len() >= 4).find_map(|i| {
                let f = qa_core::text::word_family(self.word(i));
                own.iter().find(|c| role_words(c).iter().any(|w| w.len() >= 4 && qa_core::text::word_family(w) == f)).map(|c| (i, i + 1, c.clone()))
            })
        };
        // "reports to Ann Lee", "works under Ann Lee": the verbs of a line of command say the
        // one reference whose role is a superior's (`supervisor_id`, `manager_id`).
        let superior = || {
            let superiors: Vec<&String> = own.iter().filter(|c| role_words(c).iter().any(|w| matches!(w.as_str(), "supervisor" | "manager" | "mgr" | "boss" | "lead" | "leader" | "head" | "superior" | "chief"))).collect();
            let [column] = superiors.as_slice() else { return None };
            (0..self.n()).filter(|&i| !self.ledger.is_used(i)).find_map(|i| {
                let lemmas = qa_core::text::verb_lemmas(self.word(i));
                let is = |v: &str| lemmas.iter().any(|l| l == v) || self.word(i) == v;
                let adverb = usize::from(matches!(self.word(i + 1), "directly" | "immediately"));
                let prep = self.word(i + 1 + adverb);
                ((is("report") || is("answer")) && prep == "to" || is("work") && matches!(prep, "for" | "under")).then(|| (i, i + 1 + adverb, (*column).clone()))
            })
        };
        let shown_key = self.q.select.iter().position(|e| matches!(e, Expr::Col { col } if col.table.eq_ignore_ascii_case(&table) && own.iter().any(|c| c.eq_ignore_ascii_case(&col.column))));
        let (start, end, column, word_free) = match linked.or_else(family).or_else(superior) {
            Some((s, e, c)) => (s, e, c, true),
            None => match shown_key {
                Some(k) => {
                    let Some(c) = self.q.select[k].column().map(|c| c.column.clone()) else { return };
                    let Some(m) = (0..self.ms.len()).find(|&i| self.readings(i).iter().any(|l| matches!(&l.target, Target::Field { collection, field } if collection.eq_ignore_ascii_case(&table) && field.eq_ignore_ascii_case(&c)))) else { return };
                    (self.ms[m].start, self.ms[m].end, c, false)
                }
                None => return,
            },
        };
        let label = self.label(&table);
        if label.is_empty() || label.iter().any(|c| !c.table.eq_ignore_ascii_case(&table)) {
            return;
        }
        let role = role_words(&column).join("_");
        let taken = |a: &str| self.ctx.table(a).is_some() || a.eq_ignore_ascii_case(&table);
        let alias = if role.is_empty() || taken(&role) { format!("{role}_row") } else { role };
        // The rows picked by one of their names ("Ann Lee").
        let is_label = |c: &ColRef| label.iter().any(|l| l == c);
        let named: Vec<usize> = self.q.filters.iter().enumerate().filter(|(_, f)| matches!(f, Cond::Cmp { col, .. } | Cond::In { col, .. } if is_label(col))).map(|(i, _)| i).collect();
        let mut at = start;
        while at > 0 && matches!(self.word(at - 1), "the" | "their" | "his" | "her" | "its" | "whose" | "direct" | "immediate") {
            at -= 1;
        }
        // "Ann Lee's mentor": the word before is a possessive name; "the mentor of Ann Lee".
        let possessive = at > 0 && self.a.tokens[at - 1].possessive;
        let of_name = self.word(end) == "of";
        // "managed by Ann Lee", "reports to Ann Lee", "whose mentor is Ann Lee".
        // (Only with the name after it: "who does Ann Lee report to?" asks for Ann Lee's.)
        let filter_at = |pos: usize| {
            let p = self.skip_filler(pos);
            self.ms.iter().position(|m| m.start == p).is_some_and(|m| self.readings(m).iter().any(|l| matches!(&l.target, Target::Value { collection, field, .. } if is_label(&ColRef::new(collection, field)))))
        };
        // The role said as a verb ("supervise" of `supervisor_id`, "mentors" of `mentor_id`):
        // "who does Astrid Ortega supervise?" — the name is its subject, the role's row;
        // "who mentors Pauline Perrin?" — the name is its object, the row whose role is asked.
        let name_ends_at = |pos: usize| self.ms.iter().enumerate().any(|(m, x)| x.end == pos && !self.a.tokens[pos - 1].possessive && self.readings(m).iter().any(|l| matches!(&l.target, Target::Value { collection, field, .. } if is_label(&ColRef::new(collection, field)))));
        let as_verb = at == start && end == start + 1 && !matches!(self.word(start.wrapping_sub(1)), "a" | "an" | "the" | "their" | "his" | "her" | "its" | "whose" | "with" | "and" | "of");
        let subject_named = as_verb && start > 0 && name_ends_at(start);
        let object_named = as_verb && !subject_named && filter_at(end) && !matches!(self.word(end), "by" | "to" | "of");
        let by_name = (matches!(self.word(end), "by" | "to" | "for" | "under") && filter_at(end + 1)) || (self.word(at) == "whose" && matches!(self.word(end), "is" | "was") && filter_at(end + 1)) || subject_named;
        let possessive = possessive || (matches!(self.word(end), "to" | "by") && (end + 1 >= self.n() || !self.a.tokens[end + 1].is_word())) || object_named;
        let kin = |c: &ColRef| ColRef::new(&alias, &c.column);
        if named.is_empty() {
            // "every instructor with (the name of) their mentor": shown next to each row.
            // (Said of each row: "their mentor", "with a mentor", "and mentor"; a word of the
            // family elsewhere — "through referrals" — says something else.)
            let each_rows = (at..start).any(|k| matches!(self.word(k), "their" | "his" | "her" | "its")) || (at > 0 && matches!(self.word(at - 1), "with" | "and"));
            if possessive || of_name || by_name || !each_rows {
                return;
            }
            let related: Vec<Expr> = label.iter().map(|c| Expr::col(kin(c))).collect();
            match shown_key {
                Some(k) => {
                    self.q.select.splice(k..k + 1, related);
                }
                None => self.q.select.extend(related),
            }
            // Each row is told by its own label too.
            if !self.q.select.iter().any(|e| matches!(e, Expr::Col { col } if is_label(col))) {
                self.q.select.splice(0..0, label.iter().cloned().map(Expr::col));
            }
        } else if possessive || of_name {
            // The named rows' related row is what is asked for.
            self.q.select = label.iter().map(|c| Expr::col(kin(c))).collect();
            self.q.order_by.clear();
        } else if by_name {
            // The name picks the related row.
            if let Some(k) = shown_key {
                self.q.select.remove(k);
            }
            if self.q.select.is_empty() {
                self.q.select = label.iter().cloned().map(Expr::col).collect();
            }
            for &i in &named {
                let f = &mut self.q.filters[i];
                match f {
                    Cond::Cmp { col, .. } | Cond::In { col, .. } => *col = kin(col),
                    _ => {}
                }
            }
        } else {
            return;
        }
        self.q.kin.push(KinJoin { alias: alias.clone(), column: column.clone(), key: pk.column.clone(), table: None });
        if word_free {
            self.mark(start..end, format!("related row {table}.{column} as {alias}"));
            if let Some(mi) = self.ms.iter().position(|m| m.start == start && m.end == end) {
                self.used[mi] = true;
            }
        }
        if by_name && !subject_named {
            self.mark(end..end + 1, "related row");
        }
        // "her direct boss", "report directly to": how near the related row is says nothing more.
        for k in [start.wrapping_sub(1), at.wrapping_sub(1), end] {
            if matches!(self.word(k), "direct" | "directly" | "immediate" | "immediately") && !self.ledger.is_used(k) {
                self.mark(k..k + 1, "related row");
            }
        }
        self.notes.push(format!("{table}.{column} refers to {table}: joined again as {alias}"));
    }

    /// A count over the table grouped by its own rows (every group one row) where the table
    /// refers to its own rows by one key (or by the one a word names): the rows that refer to
    /// each row are counted ("how many volunteers does each team lead have?").
    pub fn kin_groups(&mut self) {
        let table = self.q.table.clone();
        let Some(pk) = self.pk(&table) else { return };
        let counts = self.q.select.iter().any(|e| matches!(e, Expr::Agg { func: AggFunc::Count, col: None }));
        let other_aggs = self.q.select.iter().any(|e| matches!(e, Expr::Agg { .. }) && !matches!(e, Expr::Agg { func: AggFunc::Count, col: None }));
        if !counts || other_aggs || !self.q.joins.is_empty() || !self.q.kin.is_empty() || self.q.set_op.is_some() || !self.q.group_by.contains(&Expr::col(pk.clone())) {
            return;
        }
        let own = self.own_references(&table, &pk);
        // The one self-reference, or the one a word names.
        let named: Vec<&String> = own.iter().filter(|c| self.links.iter().any(|l| matches!(&l.target, Target::Field { collection, field } if collection.eq_ignore_ascii_case(&table) && field.eq_ignore_ascii_case(c)))).collect();
        let column = match (own.as_slice(), named.as_slice()) {
            ([one], _) => one.clone(),
            (_, [one]) => (*one).clone(),
            _ => return,
        };
        let label = self.label(&table);
        if label.is_empty() || label.iter().any(|c| !c.table.eq_ignore_ascii_case(&table)) {
            return;
        }
        // Conditions: on the referred rows when said with the groups ("each head of
        // department"), else the plan is left as it was.
        let group_words: Vec<usize> = self.a.groupings.iter().flat_map(|g| g.start..(g.target + 4).min(self.n())).collect();
        let mut moved: Vec<usize> = Vec::new();
        for (i, f) in self.q.filters.iter().enumerate() {
            let Some(c) = f.col() else { return };
            let said_with_groups = (0..self.n()).any(|k| group_words.contains(&k) && self.ledger.role(k).is_some_and(|r| r.starts_with(&format!("{c} "))));
            if !said_with_groups || !c.table.eq_ignore_ascii_case(&table) {
                return;
            }
            moved.push(i);
        }
        let role = qa_question::names::name_words(&column).into_iter().filter(|w| !matches!(w.as_str(), "id" | "key" | "ref" | "no" | "nr" | "by" | "to" | "of")).collect::<Vec<_>>().join("_");
        let taken = |a: &str| self.ctx.table(a).is_some() || a.eq_ignore_ascii_case(&table) || a.is_empty();
        let alias = if taken(&role) { format!("{role}_row") } else { role };
        let kin = |c: &ColRef| if c.table.eq_ignore_ascii_case(&table) { ColRef::new(&alias, &c.column) } else { c.clone() };
        let own_col = ColRef::new(&table, &column);
        for &i in &moved {
            if let Cond::Cmp { col, .. } | Cond::In { col, .. } | Cond::Null { col, .. } | Cond::Like { col, .. } = &mut self.q.filters[i] {
                *col = kin(col);
            }
        }
        let related: Vec<Expr> = label.iter().map(|c| Expr::col(kin(c))).collect();
        let mut select: Vec<Expr> = related.clone();
        select.extend(self.q.select.iter().filter(|e| e.is_agg()).cloned());
        self.q.select = select;
        let mut group = related;
        group.push(Expr::col(kin(&pk)));
        self.q.group_by = group;
        self.q.order_by = self.q.order_by.iter().filter(|(e, _)| e.column() != Some(&own_col)).map(|(e, d)| match e {
            Expr::Col { col } => (Expr::col(kin(col)), *d),
            other => (other.clone(), *d),
        }).collect();
        self.q.kin.push(KinJoin { alias: alias.clone(), column: column.clone(), key: pk.column.clone(), table: None });
        self.penalties.retain(|(p, _)| !p.starts_with("counts groups of one row"));
        // The words of the role ("coach", "coached", "referrals" of `coach_id`, `referred_by`).
        let role_families: Vec<String> = qa_question::names::name_words(&column).iter().filter(|w| w.len() >= 4 && qa_core::text::word_family(w) != qa_core::text::word_family(&table)).map(|w| qa_core::text::word_family(w)).collect();
        for i in 0..self.n() {
            if self.a.tokens[i].is_word() && !self.ledger.is_used(i) && role_families.contains(&qa_core::text::word_family(self.word(i))) {
                self.mark(i..i + 1, format!("per {alias}"));
                if let Some(mi) = self.ms.iter().position(|m| m.start == i && m.end == i + 1) {
                    self.used[mi] = true;
                }
            }
        }
        // The referred row's names said in a list ("the lead's first and last name").
        for i in 0..self.n() {
            if matches!(self.word(i), "first" | "last") && !self.ledger.is_used(i) && (i + 1..(i + 4).min(self.n())).any(|k| self.word(k) == "name" || self.word(k) == "names") {
                self.mark(i..i + 1, format!("show {alias} names"));
            }
        }
        // "report directly to each supervisor": how near the related row is says nothing more.
        for i in 0..self.n() {
            if matches!(self.word(i), "directly" | "immediately") && !self.ledger.is_used(i) && matches!(self.word(i + 1), "to" | "under" | "for") {
                self.mark(i..i + 1, format!("per {alias}"));
            }
        }
        self.notes.push(format!("rows of {table} counted per the row their {column} refers to (joined again as {alias})"));
    }
}
