//! Ordering: "sorted by X [descending]", "in alphabetical order", "cheapest first", "ordered by
//! the number of X", the date a date adjective ("newest", "earliest") ranks, whether a
//! superlative ranks rows, and its direction on a column.

use qa_question::cues::{measure_of, AggWord, Superlative};
use qa_question::FieldKind;

use super::ir::{ColRef, Expr};
use super::read::Reader;

impl Reader<'_> {
    /// The date column of the tables in play that a date adjective ranks ("newest", "most
    /// recent", "earliest").
    pub(super) fn date_for(&self, adjective: &str) -> Option<ColRef> {
        let (base, _, _) = measure_of(adjective)?;
        if !matches!(base, "new" | "early" | "old" | "young") {
            return None;
        }
        // "the oldest patient": age is read off a birth date when the table keeps one.
        if matches!(base, "old" | "young")
            && let Some(c) = self.context_tables().iter().find_map(|t| self.date_columns(t).into_iter().find(is_birth_date))
        {
            return Some(c);
        }
        // "Which customer joined most recently?": the date a verb of the question names
        // (`joined_on`), not the table's first date.
        let verbs: Vec<String> = self.a.tokens.iter().filter(|t| t.is_word() && t.lower.len() > 4 && (t.lower.ends_with("ed") || qa_core::text::is_verb_form(&t.lower))).map(|t| t.lower.clone()).collect();
        let dates: Vec<ColRef> = self.context_tables().iter().flat_map(|t| self.date_columns(t)).collect();
        let said: Vec<&ColRef> = dates.iter().filter(|c| qa_question::names::name_words(&c.column).iter().any(|w| w.len() >= 4 && verbs.iter().any(|v| qa_core::text::same_family(w, v)))).collect();
        if let [one] = said.as_slice() {
            return Some((*one).clone());
        }
        dates.into_iter().next()
    }

    /// "the most recent donation received": the date of the table named right after a date
    /// adjective — its one date, or the one a participle after the name says — with the
    /// participle's position.
    pub(super) fn date_ranked_at(&self, adjective: &str, target: usize) -> Option<(ColRef, Option<usize>)> {
        let (base, _, _) = measure_of(adjective)?;
        if !matches!(base, "new" | "early" | "old" | "young") {
            return None;
        }
        let mi = self.mention_at(self.skip_filler(target)).filter(|&mi| self.names_table(mi))?;
        let t = self.table(mi)?;
        let dates = self.date_columns(&t);
        let after = self.ms[mi].end;
        let w = self.word(after);
        let said: Vec<&ColRef> = if w.len() > 4 && w.ends_with("ed") {
            dates.iter().filter(|c| qa_question::names::name_words(&c.column).iter().any(|x| qa_core::text::same_family(x, w))).collect()
        } else {
            Vec::new()
        };
        let born: Vec<&ColRef> = if matches!(base, "old" | "young") { dates.iter().filter(|c| is_birth_date(c)).collect() } else { Vec::new() };
        match (said.as_slice(), dates.as_slice()) {
            // (A person's age before the participle: "the oldest patient registered at …".)
            _ if born.len() == 1 => Some((born[0].clone(), None)),
            ([one], _) => Some(((*one).clone(), Some(after))),
            (_, [one]) => Some((one.clone(), None)),
            _ => None,
        }
    }

    /// The one measure column the statement shows, if exactly one.
    fn one_shown_measure(&self) -> Option<ColRef> {
        let shown: Vec<ColRef> = self.q.select.iter().filter_map(|e| e.column().cloned()).filter(|c| self.is_measure(c)).collect();
        match shown.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// Ordering cues: "sorted by X [descending]", "in alphabetical order", "cheapest first".
    pub(super) fn orderings(&mut self) {
        for o in self.a.orderings.clone() {
            let col = match o.target {
                Some(t) => {
                    // "ordered by the number of X": by the count (unless X is a column that is itself
                    // a number: "the number of final tables made").
                    let counted_col = self.mention_at(t + 2).and_then(|mi| self.fields_of(mi).into_iter().next()).is_some_and(|(c, _)| self.is_measure(&c) && self.kind(&c) == FieldKind::Integer);
                    let t = if counted_col && self.word(self.skip_filler(t)) == "number" { self.skip_filler(t) + 2 } else { t };
                    if !counted_col && self.a.aggregates.iter().any(|g| g.start == self.skip_filler(t) && g.func == AggWord::Count && !self.inside_name(g.start)) {
                        self.mark(o.start..o.end, "ordering");
                        self.q.order_by.push((Expr::count(), o.desc.unwrap_or(false)));
                        continue;
                    }
                    let Some(mi) = self.mention_at(t) else {
                        // "ordered descending by value": by what is shown.
                        let shown: Vec<ColRef> = self.q.select.iter().filter_map(|e| if let Expr::Col { col } = e { Some(col.clone()) } else { None }).collect();
                        if matches!(self.word(self.skip_filler(t)), "value" | "values" | "it" | "them" | "that" | "this") && shown.len() == 1 {
                            let c = shown[0].clone();
                            let k = self.skip_filler(t);
                            self.mark(o.start..o.end, format!("order by {c}"));
                            self.mark(k..k + 1, format!("order by {c}"));
                            let desc = o.desc.unwrap_or(false);
                            self.q.order_by.push((Expr::col(c), desc));
                        }
                        continue;
                    };
                    let Some(c) = self.field(mi).or_else(|| self.table(mi).and_then(|t| self.label(&t).into_iter().next())) else { continue };
                    self.consume(mi, format!("order by {c}"));
                    Some(c)
                }
                None => match &o.adjective {
                    // "List our inverters with their rated power, largest first": of one measure
                    // shown, the adjective orders that one (not `phase_count`, which only its
                    // word family — size, count — would name).
                    Some(adj) if self.one_shown_measure().is_some_and(|m| self.adjective_column(adj).is_some_and(|c| c != m) && self.date_for(adj).is_none()) => self.one_shown_measure(),
                    Some(adj) => self.adjective_column(adj).or_else(|| self.date_for(adj)).or_else(|| {
                        // "cheapest first" with a money column shown (a measure, never a key).
                        self.q.select.iter().filter_map(|e| e.column().cloned()).find(|c| self.is_measure(c))
                    }),
                    None if o.alphabetical => self.q.select.iter().filter_map(|e| e.column().cloned()).find(|c| self.kind(c).is_textual()).or_else(|| self.entity.clone().and_then(|e| self.label(&e).into_iter().next())),
                    None => None,
                },
            };
            // "Busiest trainer first", "biggest group first": an adjective no column answers,
            // beside the one figure the answer computes, orders by that figure.
            let figures: Vec<Expr> = self.q.select.iter().filter(|e| matches!(e, Expr::Agg { .. })).cloned().collect();
            let col = match (col, &o.adjective, figures.as_slice()) {
                (None, Some(_), [figure]) if !self.q.group_by.is_empty() => {
                    let desc = o.desc.unwrap_or(false);
                    // ("most frequent first": the degree word before goes with it.)
                    let start = if o.start > 0 && matches!(self.word(o.start - 1), "most" | "least") && !self.ledger.is_used(o.start - 1) { o.start - 1 } else { o.start };
                    self.mark(start..o.end, "order by the figure");
                    if !self.q.order_by.iter().any(|(e, _)| e == figure) {
                        self.q.order_by.insert(0, (figure.clone(), desc));
                    }
                    continue;
                }
                (col, ..) => col,
            };
            let Some(c) = col else { continue };
            let is_date = self.kind(&c) == FieldKind::Date;
            let desc = match (&o.adjective, o.desc) {
                (Some(adj), Some(d)) if is_date && matches!(measure_of(adj).map(|m| m.0), Some("old" | "young")) => !d,
                (_, Some(d)) => d,
                (_, None) => false,
            };
            self.mark(o.start..o.end, format!("order by {c}"));
            self.reach.push(c.table.clone());
            let x = Expr::col(c);
            if self.q.distinct && !self.q.select.contains(&x) {
                self.q.select.push(x.clone());
            }
            // "ordered by age from the oldest to the youngest": one key, the later direction.
            if let Some(k) = self.q.order_by.iter_mut().find(|(e, _)| *e == x) {
                if o.desc.is_some() {
                    k.1 = desc;
                }
                continue;
            }
            self.q.order_by.push((x, desc));
        }
    }

    /// The ranking word at `pos` picks rows ("the stadium with the highest capacity", "the name
    /// of the youngest singer", "the 3 largest") rather than asking for the value ("what is the
    /// highest capacity", "the average, minimum and maximum age", "the largest population per
    /// continent").
    pub(super) fn ranks_rows(&self, pos: usize, n: Option<usize>) -> bool {
        if n.is_some() {
            return true;
        }
        let mut p = pos;
        while p > 0 && matches!(self.word(p - 1), "the" | "a" | "an") {
            p -= 1;
        }
        let prev = if p > 0 { self.word(p - 1) } else { "" };
        if matches!(prev, "with" | "has" | "have" | "had" | "having" | "whose" | "of" | "by" | "for" | "that" | "which" | "who") {
            return true;
        }
        // "the youngest teacher": a table named right after the word.
        if self.ms.iter().enumerate().any(|(mi, m)| (m.start == pos + 1 || m.start == pos + 2 && self.word(pos + 1) == "of") && self.names_table(mi)) {
            return true;
        }
        if self.a.groupings.iter().any(|g| self.ranked_by(g.end - 1).is_none()) {
            return false;
        }
        let which = self.a.sentences.iter().any(|&(s, _)| matches!(self.word(s), "which" | "who"));
        which && self.entity_mentions.iter().any(|&mi| self.ms[mi].start < pos)
    }

    /// The ranking's direction on `col`: a speed said of a duration flips it ("the slowest
    /// response" is the most minutes).
    pub(super) fn desc_on(s: &Superlative, col: Option<&ColRef>) -> bool {
        let flip = s.adjective.as_deref().zip(col).is_some_and(|(a, c)| qa_question::cues::speed_of_a_duration(a, &c.column));
        s.desc != flip
    }

    /// The tables in play and those reached, then the tables one key away from them (a
    /// junction's quantity).
    pub(super) fn tables_in_play_and_near(&self) -> Vec<String> {
        let mut tables = self.context_tables();
        tables.extend(self.reach.iter().cloned());
        let near: Vec<String> = self.ctx.db.tables.iter().filter(|t| tables.iter().any(|x| self.ctx.join_path(x, &t.name).is_some_and(|p| p.len() == 1))).map(|t| t.name.clone()).collect();
        tables.extend(near);
        tables
    }

    /// The one measure column of the tables in play (and one key away) whose name's words the
    /// question all says, apart, one of them at `at` ("hours … billed" of `hours_billed`), with
    /// the mention at `at`; `None` unless exactly one, of two words or more.
    pub(super) fn measure_said_apart(&self, at: usize) -> Option<(ColRef, usize)> {
        let mi = self.ms.iter().position(|m| m.start == at && m.end == at + 1)?;
        let said: Vec<String> = self.a.tokens.iter().filter(|t| t.is_word() && t.lower.len() >= 3).map(|t| t.lower.clone()).collect();
        let at_word = self.word(at).to_string();
        let mut hits: Vec<ColRef> = Vec::new();
        for c in self.tables_in_play_and_near().iter().filter_map(|t| self.schema.collection(t)) {
            for f in c.fields.iter().filter(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None) {
                let words = qa_question::names::name_words(&f.name);
                let all_said = words.len() >= 2 && words.iter().all(|w| said.iter().any(|s| qa_core::text::same_family(s, w)));
                let col = ColRef::new(&c.name, &f.name);
                if all_said && words.iter().any(|w| qa_core::text::same_family(w, &at_word)) && !hits.contains(&col) {
                    hits.push(col);
                }
            }
        }
        match hits.as_slice() {
            [one] => Some((one.clone(), mi)),
            _ => None,
        }
    }
}

/// `date_of_birth`, `birth_date`, `dob`, `born_on`: the date a person's age is counted from.
fn is_birth_date(c: &ColRef) -> bool {
    let w = qa_question::names::name_words(&c.column);
    w.iter().any(|x| matches!(x.as_str(), "birth" | "born" | "dob" | "birthday"))
}
