//! Readings settled once the query is built: what a word too common to link still names
//! among the tables the query reads, and which rows a guessed date belongs to.

use qa_question::cues::Op;

use super::ir::{tests_column, ColRef, Cond, Expr};
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

    /// "the policyholder's first and last name": both names of the table named before them,
    /// not a first name left over and another table's last name.
    /// "Which model has the highest daily rate?" over `make` and `model`: a model shown is
    /// shown with its maker (grouped by both when grouped), as a person with both names.
    pub(super) fn model_with_its_maker(&mut self) {
        let shown: Vec<ColRef> = self.q.select.iter().filter_map(|e| e.column().cloned()).collect();
        for c in shown {
            let Some((maker, model)) = self.maker_and_model(&c.table) else { continue };
            if c != model || self.q.select.contains(&Expr::col(maker.clone())) {
                continue;
            }
            let at = self.q.select.iter().position(|e| e.column() == Some(&model)).unwrap_or(0);
            self.q.select.insert(at, Expr::col(maker.clone()));
            if self.q.group_by.contains(&Expr::col(model.clone())) && !self.q.group_by.contains(&Expr::col(maker.clone())) {
                self.q.group_by.push(Expr::col(maker.clone()));
            }
        }
    }

    pub(super) fn first_and_last_names(&mut self) {
        for i in 1..self.n() {
            if self.word(i) != "first" || self.ledger.is_used(i) || self.word(i + 1) != "and" || !matches!(self.word(i + 2), "last" | "surname" | "family") {
                continue;
            }
            // The owner: the table named right before ("the policyholder's", "the lead's").
            let mut b = i;
            while b > 0 && matches!(self.word(b - 1), "'s" | "s" | "’s" | "their" | "the" | "his" | "her") {
                b -= 1;
            }
            let Some(owner) = self.ms.iter().position(|m| m.end == b).and_then(|mi| self.table(mi).or_else(|| self.ledger.role(self.ms[mi].start).and_then(|r| r.strip_prefix("show ").or_else(|| r.strip_prefix("table "))).filter(|t| !t.contains('.')).map(str::to_string))) else { continue };
            let Some(t) = self.ctx.table(&owner) else { continue };
            let find = |names: &[&str]| t.columns.iter().find(|c| names.contains(&c.name.to_ascii_lowercase().as_str())).map(|c| ColRef::new(&t.name, &c.name));
            let (Some(first), Some(last)) = (find(&["first_name", "firstname", "given_name"]), find(&["last_name", "lastname", "surname", "family_name"])) else { continue };
            // The words after "and" ("last name") may have picked another table's column.
            let end = if matches!(self.word(i + 3), "name" | "names") { i + 4 } else { i + 3 };
            let picked: Vec<ColRef> = (i + 2..end).filter_map(|k| self.ledger.role(k).and_then(|r| r.strip_prefix("show ")).and_then(|c| c.split_once('.')).map(|(a, b)| ColRef::new(a, b))).filter(|c| *c != last).collect();
            self.q.select.retain(|e| !matches!(e, Expr::Col { col } if picked.contains(col)));
            // A table only those words reached is no longer needed.
            for c in &picked {
                let still = self.q.select.iter().chain(self.q.group_by.iter()).chain(self.q.order_by.iter().map(|(e, _)| e)).any(|e| e.column().is_some_and(|x| x.table.eq_ignore_ascii_case(&c.table))) || self.q.filters.iter().any(|f| f.tables().iter().any(|x| x.eq_ignore_ascii_case(&c.table)));
                if !still {
                    self.reach.retain(|x| !x.eq_ignore_ascii_case(&c.table));
                }
            }
            for c in [&first, &last] {
                if !self.q.select.contains(&Expr::col(c.clone())) {
                    self.q.select.push(Expr::col(c.clone()));
                }
            }
            self.ledger.unmark(i..end);
            self.mark(i..i + 1, format!("show {first}"));
            self.mark(i + 1..end, format!("show {last}"));
        }
    }

    /// "Which warehouse opened first, and when?", "the member who joined last": "first" or
    /// "last" right after a verb whose family names a date of the rows (else their one date)
    /// ranks them by that date; one row when the rows are named in the singular.
    pub(super) fn first_or_last_by_verb(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() || self.q.limit.is_some() || self.q.order_by.iter().any(|(e, _)| e.column().is_some_and(|c| self.kind(c) != qa_question::FieldKind::Date)) {
            return;
        }
        let table = self.q.table.clone();
        for i in 1..self.n() {
            let desc = match self.word(i) {
                "first" | "earliest" => false,
                "last" | "latest" => true,
                _ => continue,
            };
            let verb = self.word(i - 1).to_string();
            if self.ledger.is_used(i) || !(verb.ends_with("ed") || qa_core::text::is_verb_form(&verb)) || !matches!(self.word(i + 1), "" | "," | "?" | "." | "and") {
                continue;
            }
            let dates = self.date_columns(&table);
            let fam = qa_core::text::word_family(&verb);
            let named = dates.iter().find(|c| qa_question::names::name_words(&c.column).iter().any(|w| qa_core::text::word_family(w) == fam)).cloned();
            let Some(date) = named.or_else(|| (dates.len() == 1).then(|| dates[0].clone())) else { continue };
            // The rows' noun in the singular ("which warehouse"): one row.
            let singular = self.entity_mentions.iter().any(|&m| self.ms[m].end <= i && self.a.tokens[self.ms[m].end - 1].lower == self.a.tokens[self.ms[m].end - 1].norm);
            self.q.order_by = vec![(Expr::col(date.clone()), desc)];
            if singular {
                self.q.limit = Some(1);
            }
            self.mark(i - 1..i + 1, format!("order by {date}{}", if desc { " descending" } else { "" }));
            return;
        }
    }

    /// "Name the five heaviest instruments, heaviest first, with their weight": a list item that
    /// names the rows themselves (here with its ranking) shows what they are called, beside
    /// the attributes asked "with their".
    pub(super) fn rows_named_in_the_list_are_shown(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() || self.q.select.is_empty() || !self.q.kin.is_empty() {
            return;
        }
        let table = self.q.table.clone();
        let label = self.label(&table);
        let pk = self.pk(&table);
        let tells_rows = |e: &Expr| e.column().is_some_and(|c| label.contains(c) || Some(c) == pk.as_ref());
        // (Only a real name: a table without one is not told apart by a guessed column.)
        let named = label.iter().all(|c| qa_question::names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "name" | "title")));
        if label.is_empty() || !named || self.q.select.iter().any(tells_rows) {
            return;
        }
        let Some(p) = self.a.projection.clone() else { return };
        let names_rows = p.items.iter().any(|it| self.ms.iter().enumerate().any(|(mi, m)| m.start >= it.start && m.end <= it.end && self.table(mi).is_some_and(|t| t.eq_ignore_ascii_case(&table))));
        if !names_rows {
            return;
        }
        self.q.select.splice(0..0, label.into_iter().map(Expr::col));
        self.notes.push(format!("the listed {table} are shown by name"));
    }

    /// "What's the wine and the list price for lot PIE-2025-0006?" rooted at the sales that
    /// refer to the lot: a list that reads nothing of its rows' table, only columns of one
    /// table those rows refer to, repeats that row once per referring row — it is that table's
    /// list.
    pub(super) fn root_nothing_reads(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() || !self.q.having.is_empty() || self.q.set_op.is_some() || !self.q.kin.is_empty() || self.q.select.is_empty() {
            return;
        }
        let root = self.q.table.clone();
        // (A root the question names — "customers who placed orders" rooted at the orders —
        // is what keeps the rows that have one.)
        let said = (0..self.n()).any(|i| self.ledger.role(i).is_some_and(|r| r.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w.eq_ignore_ascii_case(&root))));
        if said {
            return;
        }
        let mut read: Vec<String> = Vec::new();
        for e in self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)) {
            match e.column() {
                Some(c) => read.push(c.table.clone()),
                None => return,
            }
        }
        for f in &self.q.filters {
            match f {
                Cond::Or { .. } | Cond::Sub { .. } => return,
                f => read.extend(f.tables()),
            }
        }
        read.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        let [other] = read.as_slice() else { return };
        if other.eq_ignore_ascii_case(&root) {
            return;
        }
        // Only a table the rows refer to (each row one of it): its rows repeat.
        let Some(path) = self.ctx.join_path(&root, other) else { return };
        if path.iter().any(|st| super::ir::multiplies(self.ctx, st)) {
            return;
        }
        self.notes.push(format!("nothing of {root} is read: the list is of {other}"));
        self.q.table = other.clone();
    }

    /// "…, in month order", "in chronological order", "in date order": the order of the time
    /// the query groups or sorts by, earliest first (the order a time group already has).
    pub(super) fn time_order_said(&mut self) {
        for i in 2..self.n() {
            if self.word(i) != "order" || self.word(i - 2) != "in" || !matches!(self.word(i - 1), "month" | "date" | "chronological" | "time" | "year" | "calendar") || self.ledger.is_used(i) {
                continue;
            }
            let time_group = self.q.group_by.iter().any(|e| matches!(e, Expr::Time { .. }));
            let by_date = self.q.order_by.iter().all(|(e, desc)| !desc && e.column().is_some_and(|c| self.kind(c) == qa_question::FieldKind::Date || matches!(e, Expr::Time { .. })));
            if !(time_group || !self.q.order_by.is_empty() && by_date) {
                continue;
            }
            if let Some(t) = self.q.group_by.iter().find(|e| matches!(e, Expr::Time { .. })).cloned() {
                self.q.order_by = vec![(t, false)];
            }
            self.mark(i - 2..i + 1, "ascending");
        }
    }

    /// "Which airlines took on the most fuel in total? Show the total.", "…, largest first": an
    /// aggregate's word or a ranking's direction said again, once the query already sums,
    /// averages or orders so — the words are that, and a list's "the total" shows it.
    pub(super) fn aggregates_and_directions_said_again(&mut self) {
        use super::ir::AggFunc;
        let aggs: Vec<Expr> = {
            let mut v: Vec<Expr> = Vec::new();
            for e in self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)).chain(self.q.having.iter().map(|h| &h.expr)) {
                if matches!(e, Expr::Agg { col: Some(_), .. }) && !v.contains(e) {
                    v.push(e.clone());
                }
            }
            v
        };
        for i in 0..self.n() {
            if self.ledger.is_used(i) {
                continue;
            }
            let func = match self.word(i) {
                "total" | "totals" | "sum" => AggFunc::Sum,
                "average" | "averages" | "mean" => AggFunc::Avg,
                _ => continue,
            };
            // (Not the start of another aggregate: "the total and the average …" of two.)
            if self.a.aggregates.iter().any(|g| g.start == i && self.a.tokens.get(g.target).is_some_and(|t| t.is_word() && !self.ledger.is_used(g.target) && self.ledger.is_content(g.target))) {
                continue;
            }
            let same: Vec<&Expr> = aggs.iter().filter(|e| matches!(e, Expr::Agg { func: f, .. } if *f == func)).collect();
            let [e] = same.as_slice() else { continue };
            let e = (*e).clone();
            let col = e.column().map(|c| c.to_string()).unwrap_or_default();
            self.mark(i..i + 1, format!("{}({col})", func.sql()));
            // "Show the total", "with the totals", "Give … the average": shown.
            let shown = i > 0 && self.word(i - 1) == "the" && (i.saturating_sub(6)..i).any(|k| matches!(self.word(k), "show" | "give" | "with" | "list" | "and" | "display" | "return"));
            if shown && !self.q.select.contains(&e) && !self.q.group_by.is_empty() {
                self.q.select.push(e);
            }
        }
        // "largest first", "busiest first", "most frequent first", "highest first": the
        // direction of the order there is, or of the one aggregate shown per group.
        let one_agg: Vec<Expr> = self.q.select.iter().filter(|e| e.is_agg()).cloned().collect();
        let existing = self.q.order_by.first().map(|(_, d)| *d);
        for i in 1..self.n() {
            if self.word(i) != "first" || self.ledger.is_used(i) {
                continue;
            }
            let w = self.word(i - 1).to_string();
            let (start, says_desc) = if self.word(i.saturating_sub(2)) == "most" && i >= 2 {
                (i - 2, Some(true))
            } else if self.word(i.saturating_sub(2)) == "least" && i >= 2 {
                (i - 2, Some(false))
            } else if matches!(w.as_str(), "most" | "biggest" | "largest" | "highest" | "busiest" | "greatest" | "longest" | "heaviest") {
                (i - 1, Some(true))
            } else if matches!(w.as_str(), "least" | "smallest" | "lowest" | "fewest" | "shortest" | "lightest" | "cheapest") {
                (i - 1, Some(false))
            } else {
                (i, None)
            };
            let Some(d) = says_desc else { continue };
            if !(start..i).all(|k| !self.ledger.is_used(k) || self.word(k) == "most") {
                continue;
            }
            match (existing, one_agg.as_slice()) {
                (Some(desc), _) if desc == d => {}
                (None, [agg]) if !self.q.group_by.is_empty() => self.q.order_by.push((agg.clone(), d)),
                _ => continue,
            }
            self.ledger.unmark(start..i + 1);
            self.mark(start..i + 1, if d { "descending" } else { "ascending" });
        }
    }

    /// "what kind of lift is it?", "which type of equipment": the rows' kind is asked for —
    /// the column of the named table whose name says a kind (`lift_type`, `category`) is shown.
    pub(super) fn kind_asked_for(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() || self.q.select.is_empty() {
            return;
        }
        let tables = self.q.tables();
        for i in 1..self.n().saturating_sub(2) {
            let said = self.word(i).to_string();
            if !matches!(said.as_str(), "kind" | "type" | "sort" | "category" | "class") || !matches!(self.word(i - 1), "what" | "which") || self.word(i + 1) != "of" || self.ledger.is_used(i) {
                continue;
            }
            let Some(mi) = self.mention_at(i + 2) else { continue };
            let Some(t) = self.table(mi).filter(|t| tables.iter().any(|x| x.eq_ignore_ascii_case(t))) else { continue };
            let Some(info) = self.ctx.table(&t) else { continue };
            let keys: Vec<&String> = info.foreign_keys.iter().flat_map(|fk| fk.columns.iter()).chain(info.primary_key.iter()).collect();
            let kinds: Vec<ColRef> = info
                .columns
                .iter()
                .filter(|c| !keys.iter().any(|k| k.eq_ignore_ascii_case(&c.name)))
                .map(|c| ColRef::new(&info.name, &c.name))
                .filter(|c| self.kind(c).is_textual() && qa_question::names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "kind" | "type" | "sort" | "category" | "class")))
                .collect();
            // One such column, or the one said ("type" of `lift_type` among `category`).
            let pick = match kinds.as_slice() {
                [one] => Some(one.clone()),
                _ => kinds.iter().find(|c| qa_question::names::name_words(&c.column).contains(&said)).cloned(),
            };
            let Some(c) = pick else { continue };
            if !self.q.select.iter().any(|e| e.column() == Some(&c)) {
                self.q.select.push(Expr::col(c.clone()));
            }
            self.mark(i..i + 1, format!("show {c}"));
        }
    }

    /// "Give the request id and the date it was made", "the date each was issued", "the date
    /// of the test": a date asked for in a list is the rows' date the verb after it names,
    /// else the one the question already tests, else their only date.
    pub(super) fn dates_asked_for(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() {
            return;
        }
        for i in 1..self.n() {
            if self.word(i) != "date" || self.ledger.is_used(i) || !matches!(self.word(i - 1), "the" | "its" | "their") {
                continue;
            }
            // The item runs to a comma, "and" or the end.
            let end = (i + 1..self.n()).find(|&k| matches!(self.word(k), "," | "and" | "." | "?" | ";")).unwrap_or(self.n()).min(i + 7);
            // Whose date: a table named after "of (the)", else the rows listed.
            let mut k = i + 1;
            let of_table = if self.word(k) == "of" {
                k += 1;
                while matches!(self.word(k), "the" | "a" | "an" | "each" | "that" | "this") {
                    k += 1;
                }
                self.ms.iter().position(|m| m.start == k && m.end <= end).filter(|&mi| self.names_table(mi)).and_then(|mi| self.table(mi))
            } else {
                None
            };
            let table = of_table.clone().unwrap_or_else(|| self.q.table.clone());
            let dates = self.date_columns(&table);
            if dates.is_empty() {
                continue;
            }
            let verb = (i + 1..end).find(|&k| {
                let w = self.word(k);
                w.len() > 3 && (w.ends_with("ed") || qa_core::text::is_verb_form(w) || matches!(w, "made" | "sent" | "done" | "given" | "paid" | "taken" | "held" | "due" | "signed"))
            });
            let named: Vec<&ColRef> = verb.map(|v| dates.iter().filter(|c| qa_question::names::name_words(&c.column).iter().any(|x| qa_core::text::same_family(x, self.word(v)))).collect()).unwrap_or_default();
            let tested: Vec<&ColRef> = dates.iter().filter(|c| self.q.filters.iter().any(|f| tests_column(f, c))).collect();
            // A verb that names none of these dates ("the date each was issued" of units that
            // only expire) names another table's: one the query reads, or nothing.
            let elsewhere: Vec<ColRef> = match verb {
                Some(v) if named.is_empty() => {
                    let mut tables = self.needed();
                    tables.push(self.q.table.clone());
                    for f in &self.q.filters {
                        if let Cond::InSub { query, .. } = f {
                            tables.extend(query.tables());
                        }
                    }
                    let mut out: Vec<ColRef> = Vec::new();
                    for t in tables.iter().filter(|t| !t.eq_ignore_ascii_case(&table)) {
                        for c in self.date_columns(t) {
                            if qa_question::names::name_words(&c.column).iter().any(|x| qa_core::text::same_family(x, self.word(v))) && !out.contains(&c) {
                                out.push(c);
                            }
                        }
                    }
                    out
                }
                _ => Vec::new(),
            };
            let col = match (named.as_slice(), elsewhere.as_slice(), tested.as_slice(), dates.as_slice()) {
                ([one], _, _, _) => (*one).clone(),
                ([], [one], _, _) => one.clone(),
                // (The date the question already tests, whatever verb says it: "registered in
                // 2024 … the date they signed up".)
                ([], _, [one], _) => (*one).clone(),
                ([], _, [], [one]) if verb.is_none() => one.clone(),
                _ => continue,
            };
            // The words of the item that say which date: "it was made", "each was issued".
            let upto = match verb {
                Some(v) if (i + 1..v).all(|k| matches!(self.word(k), "it" | "they" | "each" | "was" | "were" | "is" | "are" | "has" | "had" | "been" | "the" | "of" | "up" | "when") || self.ms.iter().any(|m| m.start <= k && k < m.end && self.names_table_idx(m))) => v + 1,
                _ => (k + 1).max(i + 1).min(end),
            };
            if !self.q.select.contains(&Expr::col(col.clone())) {
                self.q.select.push(Expr::col(col.clone()));
            }
            for j in i..upto {
                if !self.ledger.is_used(j) {
                    self.mark(j..j + 1, format!("show {col}"));
                }
            }
        }
    }

    /// "players injured more than once", "customers who rented more than five times": rows
    /// that the one table the verb's family names, and that refers to them, refers to more
    /// often than that.
    pub(super) fn times_counted_by_verb(&mut self) {
        let Some(entity) = self.entity.clone() else { return };
        for i in 0..self.n() {
            let op = match (self.word(i), self.word(i + 1)) {
                ("more", "than") => Op::Gt,
                ("at", "least") => Op::Ge,
                ("fewer" | "less", "than") => Op::Lt,
                _ => continue,
            };
            let (n, end) = match self.word(i + 2) {
                "once" => (1.0, i + 3),
                "twice" => (2.0, i + 3),
                _ if self.word(i + 3) == "times" => match self.a.tokens.get(i + 2).and_then(|t| t.number()).or_else(|| qa_question::numbers::number_word(self.word(i + 2))) {
                    Some(v) => (v, i + 4),
                    None => continue,
                },
                _ => continue,
            };
            if (i..end).any(|k| self.ledger.is_used(k)) {
                continue;
            }
            // The verb before: its family names the referring table ("injured" → injuries).
            let refs: Vec<super::super::schema::JoinStep> = self.ctx.fk_steps().into_iter().filter(|s| s.from_table.eq_ignore_ascii_case(&entity) && super::ir::multiplies(self.ctx, s)).collect();
            let found: Vec<(usize, String)> = (i.saturating_sub(6)..i)
                .filter(|&k| self.word(k).len() > 3)
                .flat_map(|k| {
                    let w = self.word(k).to_string();
                    refs.iter().filter(move |s| qa_question::names::name_words(&s.to_table).iter().any(|tw| qa_core::text::same_family(tw, &w))).map(move |s| (k, s.to_table.clone()))
                })
                .collect();
            let mut tables: Vec<&String> = found.iter().map(|(_, t)| t).collect();
            tables.dedup();
            let [table] = tables.as_slice() else { continue };
            let table = (*table).clone();
            let Some(cond) = self.related_count(&entity, &table, op, n) else { continue };
            let role = format!("table {table} (related rows {} {n})", op.sql());
            for (k, _) in &found {
                // A stored state the verb was first read as ('hired') is that relation instead.
                if let Some((c, v)) = self.ledger.role(*k).and_then(|r| r.split_once(" = '")).map(|(c, v)| (c.to_string(), v.trim_end_matches('\'').to_string())) {
                    self.q.filters.retain(|f| !matches!(f, Cond::In { col, values, negated: false } if col.to_string() == c && values.len() == 1 && values[0] == super::ir::Lit::Text(v.clone())));
                }
                self.ledger.unmark(*k..*k + 1);
                self.mark(*k..*k + 1, role.clone());
            }
            self.mark(i..end, role);
            self.q.filters.push(cond);
        }
    }

    /// "How many cruises departed in 2025?" with the cruises' start date tested: the verb right
    /// before the date says the event the rows' date records. It is used when no word of it
    /// links elsewhere (a `departure_port_id` of the same rows is no other table) and it does
    /// not name the other end of a span ("arrived" is no start date).
    pub(super) fn verb_of_the_dated_rows(&mut self) {
        let dated: Vec<(ColRef, usize)> = self
            .a
            .dates
            .iter()
            .filter_map(|d| {
                let c = self.q.filters.iter().find_map(|f| match f {
                    Cond::Dates { col, .. } | Cond::Month { col, .. } if self.guessed_dates.contains(col) && self.ledger.role(d.start).is_some_and(|r| r.starts_with(&format!("{col} "))) => Some(col.clone()),
                    _ => None,
                })?;
                Some((c, d.start))
            })
            .collect();
        for (c, start) in dated {
            let Some(v) = (1..=2).filter_map(|k| start.checked_sub(k)).find(|&i| {
                let w = self.word(i);
                self.a.tokens[i].is_word() && !self.ledger.is_used(i) && w.len() > 3 && (w.ends_with("ed") || qa_core::text::is_verb_form(w))
            }) else {
                continue;
            };
            // (A misspelling or a word of the family of another table's plain attribute —
            // "departed" of `department` — is no link elsewhere; another date or flag is.)
            let weak = |l: &qa_question::Link| match l.how {
                qa_question::link::How::Fuzzy => true,
                qa_question::link::How::Family => matches!(&l.target, qa_question::link::Target::Field { collection, field } if !matches!(self.kind(&ColRef::new(collection, field)), qa_question::FieldKind::Date | qa_question::FieldKind::Flag)),
                _ => false,
            };
            let elsewhere = self.links.iter().any(|l| l.start <= v && v < l.end && !weak(l) && !l.target.collection().eq_ignore_ascii_case(&c.table));
            let end_verb = matches!(self.word(v), "arrived" | "returned" | "landed" | "docked" | "ended" | "finished" | "closed" | "completed");
            let end_col = qa_question::names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "end" | "finish" | "arrival" | "return" | "close" | "completion" | "to"));
            if elsewhere || end_verb != end_col && self.date_columns(&c.table).len() > 1 {
                continue;
            }
            self.mark(v..v + 1, format!("the event {c} records"));
            if let Some(mi) = self.ms.iter().position(|m| m.start == v && m.end == v + 1) {
                self.used[mi] = true;
            }
        }
    }

    /// "Total hours worked by volunteers per role in 2025": a date no word placed, guessed as
    /// the date of another table in play (when the volunteers joined), dates the rows whose
    /// column is summed or averaged instead, when they have one date.
    pub(super) fn date_the_measured_rows(&mut self) {
        let mut measured: Vec<String> = self.q.select.iter().filter(|e| matches!(e, Expr::Agg { col: Some(_), .. })).filter_map(|e| e.column().map(|c| c.table.clone())).collect();
        measured.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        // ("Which pharmacist checked the most dispensings in 2025?": rows counted per group are
        // the measured ones.)
        let counted_groups = !self.q.group_by.is_empty() && self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)).any(|e| *e == Expr::count());
        if measured.is_empty() && counted_groups {
            measured.push(self.q.table.clone());
        }
        let [m] = measured.as_slice() else { return };
        let own = self.date_columns(m);
        let [own] = own.as_slice() else { return };
        // ("the total turnover of the Zand shop in March 2025": a row fixed by its name is not
        // what the date is about — its opening date would date one row, not the sums.)
        let named_row = |t: &str| self.q.filters.iter().any(|f| matches!(f, Cond::In { col, values, negated: false } if values.len() == 1 && col.table.eq_ignore_ascii_case(t) && self.label(t).contains(col)));
        // ("the Ghent pharmacy in 2025": a row fixed by another of its values, the date said by
        // no word of its own — no "opened in 2025".)
        let fixed_row = |t: &str| self.q.filters.iter().any(|f| matches!(f, Cond::In { col, values, negated: false } if values.len() == 1 && col.table.eq_ignore_ascii_case(t)));
        let said_by_a_word = |c: &ColRef| {
            let (whole, dated) = (c.to_string(), format!("{c} in "));
            // (A verb outside the date's own words that was read as the date says it too:
            // "the hedgehogs admitted in 2025 that were released".)
            let in_date = |i: usize| self.a.dates.iter().any(|d| (d.start..d.end).contains(&i));
            (0..self.n()).any(|i| self.ledger.role(i).is_some_and(|r| r.starts_with(&whole) && (!r.starts_with(&dated) || !in_date(i) && self.a.tokens[i].is_word() && self.word(i).len() > 4)))
        };
        let dated_named: Vec<ColRef> = self.q.filters.iter().filter_map(|f| match f {
            Cond::Dates { col, .. } | Cond::Month { col, .. } if !col.table.eq_ignore_ascii_case(m) && (named_row(&col.table) || fixed_row(&col.table) && !said_by_a_word(col)) => Some(col.clone()),
            _ => None,
        }).collect();
        let mut guesses = self.guessed_dates.clone();
        guesses.extend(dated_named);
        for guess in guesses {
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
                // (The guess among the other table's dates is no longer made.)
                let guessed = format!("the date read as {guess} (");
                self.penalties.retain(|(p, _)| !p.starts_with(&guessed));
                self.notes.push(format!("the date read as {own} (the date of the rows measured), not {guess}"));
            }
        }
    }

    /// "Which centres admitted more than 100 animals in 2025?": a date on the related rows
    /// beside a count of them dates the counted rows (2025's animals are counted), not whether
    /// some row of that year exists beside a count of every year.
    pub(super) fn dates_of_counted_rows(&mut self) {
        let counted = |f: &Cond| match f {
            Cond::InSub { negated: false, query, .. } if !query.having.is_empty() && query.set_op.is_none() => Some(query.table.clone()),
            _ => None,
        };
        let Some(i) = (0..self.q.filters.len()).find(|&i| counted(&self.q.filters[i]).is_some()) else { return };
        let Some(table) = counted(&self.q.filters[i]) else { return };
        if table.eq_ignore_ascii_case(&self.q.table) || (0..self.q.filters.len()).filter(|&k| counted(&self.q.filters[k]).is_some_and(|t| t.eq_ignore_ascii_case(&table))).count() > 1 {
            return;
        }
        let of_counted = |f: &Cond| matches!(f, Cond::Dates { col, .. } | Cond::Month { col, .. } if col.table.eq_ignore_ascii_case(&table));
        if !self.q.filters.iter().any(of_counted) {
            return;
        }
        let count = self.q.filters.remove(i);
        let (moved, kept): (Vec<Cond>, Vec<Cond>) = std::mem::take(&mut self.q.filters).into_iter().partition(of_counted);
        self.q.filters = kept;
        let Cond::InSub { col, negated, mut query } = count else { return };
        query.filters.extend(moved);
        self.q.filters.insert(i.min(self.q.filters.len()), Cond::InSub { col, negated, query });
        self.notes.push(format!("the date counts only the {table} of that period"));
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
