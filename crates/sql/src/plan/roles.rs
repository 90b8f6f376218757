//! The second of two roles of one table: a row that refers to another table by two keys
//! (`routes.origin_port_id`, `routes.destination_port_id`) whose plan follows one of them, while
//! an unused word of the question names the other ("Which routes depart from Bergen? Give the
//! route code and the destination port."). The other row is joined again under its role's name
//! (`JOIN ports AS destination`) and shown as the first one is (or by its label).
//!
//! Only for a list of rows of the holding table: beside totals or groups, which role a count
//! or a sum follows is still asked.

use super::ir::{ColRef, Expr, KinJoin};
use super::read::Reader;

/// Words of a key's name that say no role.
const KEY_WORDS: &[&str] = &["id", "key", "ref", "no", "nr", "by", "to", "of", "fk"];

/// A foreign key of the holding table: its column, the referred table and that table's key.
type Key = (String, String, String);

impl Reader<'_> {
    pub fn second_role(&mut self) {
        if !self.q.kin.is_empty() || self.q.aggregates() || !self.q.group_by.is_empty() || self.q.set_op.is_some() || !self.q.having.is_empty() || self.q.select.is_empty() {
            return;
        }
        let holder = self.q.table.clone();
        if self.roles_shown_raw(&holder) {
            return;
        }
        let keys = self.keys_to_other_tables(&holder);
        let joined = |c: &Key| {
            self.q.joins.iter().any(|j| {
                (j.from_table.eq_ignore_ascii_case(&holder) && j.from_column.eq_ignore_ascii_case(&c.0) && j.to_table.eq_ignore_ascii_case(&c.1))
                    || (j.to_table.eq_ignore_ascii_case(&holder) && j.to_column.eq_ignore_ascii_case(&c.0) && j.from_table.eq_ignore_ascii_case(&c.1))
            })
        };
        for (ki, first) in keys.iter().enumerate() {
            if !joined(first) {
                continue;
            }
            let target = first.1.clone();
            // (The first key shown as it is, "the plaintiff" read as `plaintiff_party_id`: its
            // row is not read, so neither is the second's the same way.)
            if self.q.select.contains(&Expr::col(ColRef::new(&holder, &first.0))) {
                continue;
            }
            let others: Vec<&Key> = keys.iter().enumerate().filter(|&(kj, k)| kj != ki && k.1.eq_ignore_ascii_case(&target)).map(|(_, k)| k).collect();
            if others.is_empty() || others.iter().any(|k| joined(k)) {
                continue;
            }
            // The words that tell the other key apart: not the first key's, not the referred
            // table's own ("driver" of `relief_driver_id` names the drivers, as both keys do).
            let first_words = qa_question::names::name_words(&first.0);
            let table_words = qa_question::names::name_words(&target);
            let role_words = |c: &str| -> Vec<String> {
                qa_question::names::name_words(c)
                    .into_iter()
                    .filter(|w| !KEY_WORDS.contains(&w.as_str()) && !qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str()) && !first_words.contains(w) && !table_words.iter().any(|x| qa_core::text::same_family(x, w)))
                    .collect()
            };
            let mut found: Vec<(&Key, usize, Vec<String>)> = Vec::new();
            for k in &others {
                let mut words = role_words(&k.0);
                // (A trip's end said in other words: "destination", "arrival" of `to_port_id`.)
                let all = qa_question::names::name_words(&k.0);
                if all.iter().any(|w| matches!(w.as_str(), "to" | "dest" | "destination" | "arrival" | "end")) {
                    words.extend(["destination", "arrival"].map(str::to_string));
                }
                if all.iter().any(|w| matches!(w.as_str(), "from" | "source" | "origin" | "departure" | "start")) {
                    words.extend(["origin", "departure"].map(str::to_string));
                }
                let at = (0..self.n()).find(|&i| {
                    let w = self.word(i);
                    self.a.tokens[i].is_word() && !self.ledger.is_used(i) && words.iter().any(|r| r == w || (r.len() >= 4 && w.len() >= 4 && qa_core::text::same_family(r, w)))
                });
                if let Some(i) = at {
                    found.push((k, i, words));
                }
            }
            // The other key shown as it is ("the destination port" read as
            // `routes.destination_port_id`): its row is what the words ask for.
            let mut raw_shown: Option<(usize, usize)> = None;
            if found.is_empty() {
                for k in &others {
                    let col = Expr::col(ColRef::new(&holder, &k.0));
                    let Some(pos) = self.q.select.iter().position(|e| *e == col) else { continue };
                    let role = format!("show {holder}.{}", k.0);
                    let toks: Vec<usize> = (0..self.n()).filter(|&i| self.ledger.role(i).is_some_and(|r| r == role)).collect();
                    if let (Some(&s), Some(&e)) = (toks.first(), toks.last()) {
                        self.q.select.remove(pos);
                        self.ledger.unmark(s..e + 1);
                        found.push((k, s, role_words(&k.0)));
                        raw_shown = Some((s, e + 1));
                    }
                    break;
                }
            }
            let [(key, at, words)] = found.as_slice() else { continue };
            // The first key must be the one the rest of the question says ("depart from Bergen"),
            // the second not: else the condition may sit on the wrong role ("arrive in
            // Hirtshals … the origin port" joined by the origin first).
            let span = raw_shown.unwrap_or((*at, *at + 1));
            // (And the second role is asked to be shown — an item of the list — not a verb
            // that may carry a condition: "arrive in Hirtshals".)
            let listed = self.a.projection.iter().flat_map(|p| p.items.iter()).chain(self.a.also.iter()).any(|it| it.start <= *at && *at < it.end);
            if !listed {
                continue;
            }
            let others_words: Vec<String> = others.iter().flat_map(|k| qa_question::names::name_words(&k.0)).collect();
            let first_own: Vec<String> = first_words.iter().filter(|w| w.len() >= 4 && !others_words.contains(w) && !table_words.iter().any(|x| qa_core::text::same_family(x, w))).cloned().collect();
            if !self.key_said_outside(&first.0, &first_own, span) || self.key_said_outside(&key.0, words, span) {
                continue;
            }
            // (Named by its own words, `relief`; a trip's end by the first word for it.)
            let own = role_words(&key.0);
            let role = if own.is_empty() { words.first().cloned().unwrap_or_default() } else { own.join("_") };
            let taken = |a: &str| self.ctx.table(a).is_some() || a.eq_ignore_ascii_case(&holder) || a.eq_ignore_ascii_case(&target);
            let alias = if taken(&role) { format!("{role}_row") } else { role };
            // Shown as the first role's row is, else by its label.
            let shown: Vec<String> = self.q.select.iter().filter_map(|e| e.column().filter(|c| c.table.eq_ignore_ascii_case(&target)).map(|c| c.column.clone())).collect();
            let cols: Vec<String> = if shown.is_empty() { self.label(&target).into_iter().filter(|c| c.table.eq_ignore_ascii_case(&target)).map(|c| c.column).collect() } else { shown };
            if cols.is_empty() {
                continue;
            }
            let role_text = format!("related row {holder}.{} as {alias}", key.0);
            self.q.kin.push(KinJoin { alias: alias.clone(), column: key.0.clone(), key: key.2.clone(), table: Some(target.clone()) });
            for c in cols {
                let x = Expr::col(ColRef::new(&alias, &c));
                if !self.q.select.contains(&x) {
                    self.q.select.push(x);
                }
            }
            self.mark(*at..*at + 1, role_text.clone());
            if let Some((s, e)) = raw_shown {
                self.mark(s..e, role_text.clone());
            }
            // Both keys are now read, each for what its words said: which one the join follows
            // is no longer a guess.
            let (a, b) = (format!("{holder} and {target} are joined by"), format!("{target} and {holder} are joined by"));
            self.penalties.retain(|(why, _)| !(why.starts_with(&a) || why.starts_with(&b)));
            // "the destination port", "the relief driver": the referred table's noun after it.
            let next = *at + 1;
            if next < self.n() && !self.ledger.is_used(next) && table_words.iter().any(|x| qa_core::text::same_family(x, self.word(next))) {
                self.mark(next..next + 1, role_text);
            }
            self.notes.push(format!("{holder}.{} refers to {target} too: joined again as {alias}", key.0));
            return;
        }
    }

    /// A word outside `span` says key `column`: one of its own words (`own`), or a word of a
    /// trip's end when the key holds one ("from", "departing" of `origin_port_id`; "to",
    /// "arriving" of `destination_port_id`).
    fn key_said_outside(&self, column: &str, own: &[String], span: (usize, usize)) -> bool {
        let words = qa_question::names::name_words(column);
        let start_key = words.iter().any(|w| matches!(w.as_str(), "from" | "source" | "origin" | "departure" | "start"));
        let end_key = words.iter().any(|w| matches!(w.as_str(), "to" | "dest" | "destination" | "arrival" | "end"));
        (0..self.n()).filter(|&i| i < span.0 || i >= span.1).any(|i| {
            let w = self.word(i);
            own.iter().any(|r| r.len() >= 4 && w.len() >= 4 && qa_core::text::same_family(r, w))
                || start_key && matches!(w, "from" | "departing" | "leaving" | "departs" | "depart" | "departed" | "origin" | "starting" | "starts" | "started")
                || end_key && matches!(w, "to" | "into" | "arriving" | "arrive" | "arrives" | "arrived" | "destination" | "reaching" | "ending" | "ends" | "ended")
        })
    }

    /// "the admitting nurse and the discharging nurse" read as `admitting_nurse_id` and
    /// `discharging_nurse_id`: a key shown as it is, whose name says a role, is the row it
    /// refers to — joined under that role and shown by its label, each by its own key (so no
    /// role can be mixed up with another). Returns whether any was.
    fn roles_shown_raw(&mut self, holder: &str) -> bool {
        let keys = self.keys_to_other_tables(holder);
        let mut done = false;
        for (column, target, key) in keys.clone() {
            let raw = Expr::col(ColRef::new(holder, &column));
            let Some(pos) = self.q.select.iter().position(|e| *e == raw) else { continue };
            // (Only two or more keys to one table have roles to tell apart.)
            let siblings = keys.iter().filter(|k| k.1.eq_ignore_ascii_case(&target)).count();
            let table_words = qa_question::names::name_words(&target);
            let role: Vec<String> = qa_question::names::name_words(&column).into_iter().filter(|w| !KEY_WORDS.contains(&w.as_str()) && !table_words.iter().any(|x| qa_core::text::same_family(x, w))).collect();
            let label: Vec<ColRef> = self.label(&target).into_iter().filter(|c| c.table.eq_ignore_ascii_case(&target)).collect();
            // (With the table joined already by one of the keys, the second-role rule below
            // decides, saying which key the join follows.)
            let joined = self.q.joins.iter().any(|j| (j.from_table.eq_ignore_ascii_case(holder) && j.to_table.eq_ignore_ascii_case(&target)) || (j.to_table.eq_ignore_ascii_case(holder) && j.from_table.eq_ignore_ascii_case(&target)));
            if siblings < 2 || role.is_empty() || label.is_empty() || joined {
                continue;
            }
            let role = role.join("_");
            let taken = |a: &str| self.ctx.table(a).is_some() || self.q.kin.iter().any(|k| k.alias == a);
            let alias = if taken(&role) { format!("{role}_row") } else { role };
            self.q.kin.push(KinJoin { alias: alias.clone(), column: column.clone(), key, table: Some(target.clone()) });
            self.q.select.remove(pos);
            for (k, c) in label.into_iter().enumerate() {
                self.q.select.insert(pos + k, Expr::col(ColRef::new(&alias, &c.column)));
            }
            let shown = format!("show {holder}.{column}");
            let at: Vec<usize> = (0..self.n()).filter(|&i| self.ledger.role(i).is_some_and(|r| r == shown)).collect();
            for i in at {
                self.ledger.unmark(i..i + 1);
                self.mark(i..i + 1, format!("related row {holder}.{column} as {alias}"));
            }
            self.notes.push(format!("{holder}.{column} shown as the {target} row it refers to ({alias})"));
            done = true;
        }
        done
    }

    /// The single-column foreign keys of `holder` to other tables: (column, referred table,
    /// referred key).
    fn keys_to_other_tables(&self, holder: &str) -> Vec<Key> {
        self.ctx.table(holder).map_or_else(Vec::new, |info| {
            info.foreign_keys
                .iter()
                .filter(|fk| fk.columns.len() == 1 && fk.ref_columns.len() == 1 && !fk.ref_table.eq_ignore_ascii_case(holder))
                .map(|fk| (fk.columns[0].clone(), fk.ref_table.clone(), fk.ref_columns[0].clone()))
                .collect()
        })
    }
}
