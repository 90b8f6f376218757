//! What the question is about and what it shows: the count's target ("how many X"), the
//! entity asked for ("which X", "the names of X", the subject of a list), and the projection
//! items ("the VIN, model and list price"), each resolved to columns in context.

use qa_question::link::Target;
use qa_question::names;
use qa_question::FieldKind;

use super::super::schema::Term;
use super::ir::ColRef;
use super::read::Reader;
use super::{clarifying_text, Ambiguity, AmbiguityKind, Choice, PlanOutcome, AMBIGUITY_THRESHOLD};

/// Words of a table's name that say nothing of what it holds.
const GENERIC_WORDS: &[&str] = &["tv", "ref", "info", "data", "list", "table"];

/// What a projection item became.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shown {
    /// A column.
    Col(ColRef),
    /// The rows of a table, named by their label columns.
    Rows(String),
    /// Every column of a table.
    All(String),
}

impl Reader<'_> {
    /// Decide the entity and the table rows come from; resolve the projection. Stops with a
    /// clarifying question when nothing in the question names a table, column or value.
    pub fn entities(&mut self) -> Result<(), Box<PlanOutcome>> {
        // "the phone number of customers" names a column: its "number of" is no count.
        let in_name = |r: &Reader, i: usize| r.ms.iter().any(|m| m.start <= i && i < m.end && m.end - m.start >= 2 && matches!(&m.best().target, Target::Field { .. }));
        let count = self.a.aggregates.iter().find(|g| g.func == qa_question::cues::AggWord::Count && !in_name(self, g.start)).map(|g| (g.start, g.end, g.target));
        let mut entity: Option<(String, Option<usize>)> = None;
        // "which X …", "what X …" (a sentence's first words, or after a leading clause: "For
        // volunteers with …, what other details …").
        for &(s, e) in &self.a.sentences {
            for i in (s..e).filter(|&i| i < s + 2 || self.word(i - 1) == ",") {
                // ("which three riders …": past a count of the rows.)
                let counted = self.a.tokens.get(i + 1).is_some_and(|t| t.number().is_some() || qa_question::numbers::number_word(&t.lower).is_some_and(|v| v >= 2.0));
                let at = if counted { i + 2 } else { i + 1 };
                if matches!(self.word(i), "which" | "what")
                    && !matches!(self.word(i + 1), "is" | "are" | "was" | "were")
                    && let Some(mi) = self.head_at(at)
                    && let Some(t) = self.table_in_context(mi)
                {
                    entity.get_or_insert((t, Some(mi)));
                }
            }
        }
        // "What are the countries having …", "What is the stadium with …": the table named right
        // after the question word and its verb.
        for &(s, e) in &self.a.sentences {
            if s + 2 < e && matches!(self.word(s), "what" | "which" | "who") && matches!(self.word(s + 1), "are" | "is" | "were" | "was")
                && let Some(mi) = self.head_at(s + 2).filter(|&mi| self.names_table(mi) && self.ms[mi].start <= s + 4)
                && let Some(t) = self.table(mi)
            {
                entity.get_or_insert((t, Some(mi)));
            }
        }
        // "how many X", "the number of X".
        if let Some((s, e, target)) = count {
            self.count_at = Some((s, e));
            let mut p = target;
            while matches!(self.word(p), "different" | "distinct" | "unique" | "the" | "of" | "all" | "total") {
                p += 1;
            }
            if let Some(mi) = self.head_at(p)
                && let Some(t) = self.table_in_context(mi)
            {
                let t = self.counted_of_label_value(mi, &t).unwrap_or(t);
                entity.get_or_insert((t, Some(mi)));
            }
        }
        // "the names of X", "… for all X": a table named right after the projection list; else
        // the table of the listed columns; else what a value after the list belongs to.
        if entity.is_none()
            && let Some(p) = self.a.projection.clone()
        {
            let mut pos = p.end;
            while pos < self.n() && matches!(self.word(pos), "of" | "for" | "from" | "in" | "about" | "the" | "all" | "every" | "each" | "any" | "those" | "these") {
                pos += 1;
            }
            // A ranking word may sit between ("the name of the youngest singer").
            let mut after = (pos..(pos + 3).min(self.n())).find_map(|k| self.ms.iter().position(|m| m.start == k));
            // "the names of the 3 most populated countries": the measure word of a ranking
            // sits before the table.
            if let Some(mi) = after.filter(|&mi| !self.names_table(mi))
                && self.a.superlatives.iter().any(|s| s.end >= pos && s.end <= self.ms[mi].start)
                && let Some(next) = self.ms.iter().position(|m| m.start == self.ms[mi].end).filter(|&n| self.names_table(n))
            {
                after = Some(next);
            }
            if let Some(mi) = after.filter(|&mi| self.names_table(mi)) {
                entity = self.table_in_context(mi).map(|t| (t, Some(mi)));
            }
            // "List the moorings we have in Germany": one item that is a table's name is that
            // table (no vote with the tables whose keys merely contain the word).
            if entity.is_none()
                && let [it] = p.items.as_slice()
                && let Some(mi) = (0..self.ms.len()).find(|&mi| self.ms[mi].start >= it.start && self.ms[mi].end <= it.end && self.names_table(mi) && !matches!(self.ms[mi].best().how, qa_question::link::How::Part | qa_question::link::How::Head | qa_question::link::How::Fuzzy))
                && (it.start..it.end).filter(|&k| self.ledger.is_content(k)).all(|k| self.ms[mi].start <= k && k < self.ms[mi].end)
            {
                entity = self.table_in_context(mi).map(|t| (t, Some(mi)));
            }
            if entity.is_none() {
                let mut votes: Vec<(String, usize)> = Vec::new();
                for it in &p.items {
                    for mi in (0..self.ms.len()).filter(|&mi| self.ms[mi].start >= it.start && self.ms[mi].end <= it.end) {
                        // Every table the item may be in gets a vote: the one all items share wins.
                        let mut tables: Vec<String> = self.readings(mi).iter().filter(|l| !matches!(l.target, Target::Value { .. })).map(|l| l.target.collection().to_string()).collect();
                        tables.dedup();
                        for t in tables {
                            match votes.iter_mut().find(|(x, _)| x.eq_ignore_ascii_case(&t)) {
                                Some(v) => v.1 += 1,
                                None => votes.push((t, 1)),
                            }
                        }
                    }
                }
                // A tie goes to the table the rest of the question names or holds a value of
                // ("VoltMobile's legal name": the sponsor's, not an artist's).
                let elsewhere = |t: &str| {
                    let outside = |m: &&qa_question::Mention| !p.items.iter().any(|it| m.start >= it.start && m.end <= it.end);
                    self.ms.iter().filter(|m| matches!(m.best().target, Target::Value { .. }) || outside(m) && matches!(m.best().target, Target::Collection { .. })).filter(|m| m.best().target.collection().eq_ignore_ascii_case(t)).count()
                };
                votes.sort_by_key(|v| (std::cmp::Reverse(v.1), std::cmp::Reverse(elsewhere(&v.0))));
                if let Some((t, _)) = votes.first() {
                    entity = Some((t.clone(), None));
                }
            }
            if entity.is_none()
                && let Some(mi) = after
            {
                entity = self.table_in_context(mi).map(|t| (t, Some(mi)));
            }
        }
        // The first table named anywhere.
        if entity.is_none() {
            for mi in 0..self.ms.len() {
                if self.readings(mi).iter().any(|l| matches!(l.target, Target::Collection { .. }))
                    && let Some(t) = self.table_in_context(mi)
                {
                    entity = Some((t, Some(mi)));
                    break;
                }
            }
        }
        // The table most of the question's columns and values belong to.
        if entity.is_none() {
            let mut votes: Vec<(String, f64)> = Vec::new();
            for m in &self.ms {
                // A reading the user chose in an earlier clarification counts instead of the best.
                let phrase = self.a.tokens[m.start..m.end].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                let chosen = self.clar.iter().find(|c| super::same_phrase(&c.phrase, &phrase)).and_then(|c| c.choice.clone()).and_then(|term| m.links.iter().find(|l| super::values::term_matches(&term, &l.target)));
                let l = chosen.unwrap_or(m.best());
                let w = if matches!(l.target, Target::Value { .. }) { 1.5 } else { 1.0 };
                match votes.iter_mut().find(|(t, _)| t.eq_ignore_ascii_case(l.target.collection())) {
                    Some(v) => v.1 += w * l.score,
                    None => votes.push((l.target.collection().to_string(), w * l.score)),
                }
            }
            votes.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
            if let Some((t, _)) = votes.first() {
                entity = Some((t.clone(), None));
            }
        }
        // The table the projection list is "of" ("the names … of the teachers and how many …").
        if let Some(p) = self.a.projection.clone() {
            let mut pos = p.end;
            while pos < self.n() && matches!(self.word(pos), "of" | "for" | "from" | "about" | "the" | "all" | "every" | "each" | "any" | "those" | "these") {
                pos += 1;
            }
            if pos > p.end
                && let Some(mi) = (pos..(pos + 4).min(self.n())).find_map(|k| self.ms.iter().position(|m| m.start == k && self.names_table_idx(m)))
            {
                self.proj_table = self.table(mi);
            }
        }
        // "Who is the captain of …", "Who was booked on …": the rows asked for are people.
        if let Some(person) = self.who_table(entity.as_ref().map(|e| e.0.as_str())) {
            entity = Some((person, None));
        }
        let Some((table, mi)) = entity else {
            return Err(Box::new(self.no_table()));
        };
        if let Some(mi) = mi {
            self.entity_mentions.push(mi);
        }
        if let Some(c) = self.clar.iter().find_map(|c| match &c.choice {
            Some(Term::Table { table }) if c.phrase == "<table>" => Some(table.clone()),
            _ => None,
        }) {
            self.entity = Some(c.clone());
            self.q.table = c;
        } else {
            self.entity = Some(table.clone());
            self.q.table = table;
        }
        Ok(())
    }

    /// "How many hedgehogs did we admit in 2025?" where 'Hedgehog' is a species' name: a count
    /// of a value of a table's label counts the rows that refer to it — those of the one table
    /// referring to it that the rest of the question names (its date's verb, a column) —
    /// not the one row the name labels.
    pub(super) fn counted_of_label_value(&self, mi: usize, table: &str) -> Option<String> {
        let Target::Value { collection, field, .. } = &self.ms[mi].best().target else { return None };
        if !collection.eq_ignore_ascii_case(table) || !self.label(table).iter().any(|c| c.column.eq_ignore_ascii_case(field)) {
            return None;
        }
        let mut children: Vec<String> = self.schema.relations.iter().filter(|r| r.to.eq_ignore_ascii_case(table) && !r.from.eq_ignore_ascii_case(table)).map(|r| r.from.clone()).collect();
        children.sort();
        children.dedup();
        let named: Vec<String> = children
            .into_iter()
            .filter(|c| {
                let (s, e) = (self.ms[mi].start, self.ms[mi].end);
                // (A verb naming its date counts: "admit" of `admitted_on`.)
                let dated = self.date_columns(c).iter().any(|d| {
                    let dw = qa_question::names::name_words(&d.column);
                    (0..self.n()).filter(|&i| (i < s || i >= e) && self.word(i).len() >= 4).any(|i| dw.iter().any(|x| x.len() >= 4 && qa_core::text::same_family(x, self.word(i))))
                });
                dated || (0..self.ms.len()).any(|j| j != mi && self.ms[j].best().target.collection().eq_ignore_ascii_case(c) && !matches!(self.ms[j].best().target, Target::Value { .. }))
            })
            .collect();
        match named.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// For a question opening with "who", a table of people (first and last names) when the
    /// entity found is not one: the one nearest (fewest joins) to what the question names
    /// first after "who" and its verb; none on a tie.
    fn who_table(&self, current: Option<&str>) -> Option<String> {
        let (s, e) = *self.a.sentences.iter().find(|&&(s, _)| self.word(s) == "who")?;
        let has = |t: &crate::TableInfo, names: &[&str]| t.columns.iter().any(|c| names.contains(&c.name.to_ascii_lowercase().as_str()));
        let people: Vec<String> = self
            .ctx
            .db
            .tables
            .iter()
            .filter(|t| has(t, &["first_name", "firstname", "fname", "given_name", "forename"]) && has(t, &["last_name", "lastname", "lname", "surname", "family_name"]))
            .map(|t| t.name.clone())
            .collect();
        if people.is_empty() {
            return None;
        }
        let first = self.ms.iter().find(|m| m.start > s && m.start < e)?;
        let anchor = first.best().target.collection().to_string();
        let distance = |p: &str| if p.eq_ignore_ascii_case(&anchor) { Some(0) } else { self.ctx.join_path(p, &anchor).map(|path| path.len()) };
        let mut near: Vec<(usize, String)> = people.iter().filter_map(|p| distance(p).map(|d| (d, p.clone()))).collect();
        near.sort();
        let best = match near.as_slice() {
            [only] => only.clone(),
            [a, b, ..] if a.0 < b.0 => a.clone(),
            _ => return None,
        };
        // A people table already found ("first and last names" fit any) yields only to a
        // nearer one.
        match current {
            Some(c) if people.iter().any(|p| p.eq_ignore_ascii_case(c)) => (distance(c).is_none_or(|d| best.0 < d) && !best.1.eq_ignore_ascii_case(c)).then_some(best.1),
            _ => Some(best.1),
        }
    }

    /// The table a mention stands for, in context: a table it names (the one owning most of
    /// the question's other columns, when several), the table of a value it names, or of a
    /// column it names.
    pub fn table_in_context(&self, mi: usize) -> Option<String> {
        let readings = self.readings(mi);
        // "Which cakes …" with 'cake' a stored category of products and "cake" only the first
        // word of `cake_orders`: the stored value says which rows, not the modifier of
        // another table's name.
        let best = self.ms[mi].best();
        let table_links: Vec<&qa_question::Link> = readings.iter().copied().filter(|l| matches!(l.target, Target::Collection { .. })).collect();
        if matches!(best.target, Target::Value { .. }) && best.how == qa_question::link::How::Value && !table_links.is_empty() && table_links.iter().all(|l| l.how == qa_question::link::How::Part) {
            return Some(best.target.collection().to_string());
        }
        let tables: Vec<(String, f64)> = readings
            .iter()
            .filter_map(|l| match &l.target {
                Target::Collection { collection } => Some((collection.clone(), l.score)),
                _ => None,
            })
            .collect();
        if !tables.is_empty() {
            // Keys say how tables relate, not which one is meant ("festival" links to every
            // `festival_id`): only the other columns and values back a table.
            let own = |l: &qa_question::Link| match &l.target {
                Target::Collection { .. } => false,
                Target::Field { collection, field } => self.schema.field(collection, field).is_none_or(|f| f.key == qa_question::KeyRole::None),
                Target::Value { .. } => true,
            };
            let support = |t: &str| self.ms.iter().enumerate().filter(|(j, m)| *j != mi && m.links.iter().any(|l| own(l) && l.target.collection().eq_ignore_ascii_case(t))).count();
            let best = tables.iter().max_by(|a, b| (a.1 + 0.1 * support(&a.0) as f64).partial_cmp(&(b.1 + 0.1 * support(&b.0) as f64)).unwrap_or(std::cmp::Ordering::Equal));
            return best.map(|(t, _)| t.clone());
        }
        // A column named in several tables ("other details"): the one of a table the question
        // names elsewhere ("… about students"), unless another reading is clearly better.
        let best = self.ms[mi].best();
        let named = |t: &str| self.ms.iter().enumerate().any(|(j, o)| j != mi && matches!(o.best().target, Target::Collection { .. }) && o.best().target.collection().eq_ignore_ascii_case(t));
        if !named(best.target.collection())
            && let Some(l) = readings.iter().filter(|l| matches!(l.target, Target::Field { .. }) && l.score >= 0.65 * best.score).find(|l| named(l.target.collection()))
        {
            return Some(l.target.collection().to_string());
        }
        Some(best.target.collection().to_string())
    }

    /// Nothing names a table: ask which one.
    fn no_table(&self) -> PlanOutcome {
        let options: Vec<Choice> = self.ctx.db.tables.iter().map(|t| Choice { label: t.name.clone(), term: Term::Table { table: t.name.clone() } }).collect();
        let amb = Ambiguity { phrase: "<table>".into(), options, score: 1.0, kind: AmbiguityKind::Reading };
        let q = clarifying_text(&amb, "Which table is the question about? Nothing in it names a table, a column or a stored value.");
        let (coverage, _) = self.ledger.coverage(Vec::new());
        PlanOutcome {
            intent: serde_json::json!({"links": self.links_json()}),
            plan: None,
            confidence: 0.0,
            coverage,
            fixes: Vec::new(),
            ambiguity: (amb.score >= AMBIGUITY_THRESHOLD).then_some(amb),
            clarifying_question: Some(q),
        }
    }

    pub fn links_json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.ms
                .iter()
                .map(|m| {
                    let words = self.a.tokens[m.start..m.end].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                    serde_json::json!({"phrase": words, "readings": m.links.iter().map(|l| serde_json::json!({"target": l.target.label(), "how": l.how, "score": (l.score * 100.0).round() / 100.0})).collect::<Vec<_>>()})
                })
                .collect(),
        )
    }

    /// The one date column the query's conditions test, if one.
    fn the_tested_date(&self) -> Option<ColRef> {
        let mut tested: Vec<ColRef> = self.q.filters.iter().filter_map(|f| match f {
            super::ir::Cond::Dates { col, .. } | super::ir::Cond::Month { col, .. } => Some(col.clone()),
            _ => None,
        }).collect();
        tested.dedup();
        match tested.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// "the date" of rows of `table`: its only date column, or the one whose name holds the verb
    /// said right after ("the date each was posted" → `posted_on`), that verb then used.
    fn date_said(&mut self, table: &str, after: usize) -> Option<ColRef> {
        let dates = self.date_columns(table);
        if let [one] = dates.as_slice() {
            return Some(one.clone());
        }
        let verb = (after..(after + 4).min(self.n())).find(|&k| {
            let w = self.word(k);
            w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w)) && !self.ledger.is_used(k)
        })?;
        let fam = qa_core::text::word_family(self.word(verb));
        let named: Vec<ColRef> = dates.into_iter().filter(|c| names::name_words(&c.column).iter().any(|w| qa_core::text::word_family(w) == fam)).collect();
        let [one] = named.as_slice() else { return None };
        self.mark(verb..verb + 1, format!("show {one}"));
        Some(one.clone())
    }

    /// The projection items, resolved: each item's column (or the rows of a table), with the
    /// token range it used. Items that are aggregates ("the number of X") are left to `shape`.
    pub fn projected(&mut self) -> Vec<(Shown, usize, usize)> {
        let Some(p) = self.a.projection.clone() else { return Vec::new() };
        let mut out = self.shown_items(&p.items);
        self.list_tail(&p, &mut out);
        out
    }

    /// Each item's column (or rows), with the token range it used.
    pub fn shown_items(&mut self, items: &[qa_question::analysis::Item]) -> Vec<(Shown, usize, usize)> {
        let entity = self.proj_table.clone().or_else(|| self.entity.clone()).unwrap_or_default();
        let mut out = Vec::new();
        for it in items {
            // "the number of …" is a count, unless a column's name holds it ("phone number of …").
            let in_name = |i: usize| self.ms.iter().any(|m| m.start <= i && i < m.end && m.end - m.start >= 2 && matches!(&m.best().target, Target::Field { .. }));
            if self.a.aggregates.iter().any(|g| g.start >= it.start && g.start < it.end && !in_name(g.start)) || self.a.superlatives.iter().any(|s| s.start < it.end && s.end > it.start && !in_name(s.end - 1)) {
                continue;
            }
            let inside: Vec<usize> = (0..self.ms.len()).filter(|&mi| self.ms[mi].start >= it.start && (self.ms[mi].end <= it.end || self.ms[mi].start < it.end && matches!(self.ms[mi].best().target, Target::Field { .. }))).collect();
            // A table named in the item ("stadium names") is where its column is.
            let item_table = inside.iter().filter(|&&mi| self.names_table(mi)).find_map(|&mi| self.table(mi));
            let prefer = item_table.clone().unwrap_or_else(|| entity.clone());
            let mut shown = None;
            let words: Vec<String> = self.a.tokens[it.start..it.end].iter().map(|t| t.norm.clone()).collect();
            // "all the information about X", "every detail": all of X's columns.
            if words.iter().any(|w| matches!(w.as_str(), "information" | "info" | "detail" | "everything" | "attribute")) && inside.iter().all(|&mi| self.names_table(mi)) && !prefer.is_empty() {
                shown = Some(Shown::All(prefer.clone()));
            }
            // A generic word ("id", "name", "code") is the preferred table's own column.
            let words: Vec<String> = words.into_iter().skip_while(|w| matches!(w.as_str(), "the" | "a" | "an" | "its" | "their")).collect();
            let generic = words.len() == 1 && matches!(words[0].as_str(), "id" | "name" | "title" | "code" | "number" | "description" | "type" | "date");
            if shown.is_none() && generic {
                shown = self.field_by_words(&words, &prefer).filter(|c| c.table.eq_ignore_ascii_case(&prefer)).map(Shown::Col).or_else(|| match words[0].as_str() {
                    "id" => self.pk(&prefer).map(Shown::Col),
                    "name" | "title" => Some(self.name_of_rows(&prefer, &words[0])),
                    // (Else the one date the question's conditions test: "what was dispensed
                    // to patient X in 2025? Show the medicine and the date".)
                    "date" => self.date_said(&prefer, it.end).or_else(|| self.the_tested_date()).map(Shown::Col),
                    _ => None,
                });
            }
            // "the delivery dates": a table's noun and "date" are that table's date.
            if shown.is_none()
                && words.len() == 2
                && matches!(words[1].as_str(), "date" | "dates")
                && let Some(t) = item_table.clone().or_else(|| self.ctx.db.tables.iter().find(|t| qa_question::names::name_words(&t.name).last().is_some_and(|w| qa_core::text::singular(w) == qa_core::text::singular(&words[0]))).map(|t| t.name.clone()))
                && let Some(c) = self.date_said(&t, it.end).or_else(|| {
                    // Else the delivery date a verb of the question tests ("delivered late in
                    // 2025" of `delivered_on`).
                    let dates = self.date_columns(&t);
                    let said: Vec<ColRef> = dates.into_iter().filter(|c| (0..self.n()).any(|i| self.ledger.role(i).is_some_and(|r| r.starts_with(&format!("{c} "))))).collect();
                    if let [one] = said.as_slice() { Some(one.clone()) } else { None }
                })
            {
                shown = Some(Shown::Col(c));
            }
            // "the patient's name", "the driver names": a table's noun and "name" are that
            // table's rows by their label.
            if shown.is_none()
                && words.len() == 2
                && matches!(words[1].as_str(), "name" | "names")
                && let Some(t) = item_table.clone()
            {
                shown = Some(self.name_of_rows(&t, "name"));
            }
            // The head noun comes last ("official language"): the last column named wins.
            for &mi in inside.iter().rev().filter(|&&mi| !self.names_table(mi) && shown.is_none()) {
                let fields = self.fields_of(mi);
                // Its own column, else one of a row it refers to (a template's type description),
                // else one of any related table.
                let to_one = |t: &str| self.ctx.join_path(&prefer, t).is_some_and(|p| !p.iter().any(|s| super::ir::multiplies(self.ctx, s)));
                let pick = fields
                    .iter()
                    .find(|(c, _)| c.table.eq_ignore_ascii_case(&prefer))
                    .or_else(|| fields.iter().find(|(c, _)| to_one(&c.table)))
                    .or_else(|| fields.iter().find(|(c, _)| self.connected(&c.table, &prefer)))
                    .or(fields.first())
                    .map(|(c, _)| c.clone());
                if let Some(c) = pick {
                    // "List the loyalty members": a flag names which rows, not a column to show.
                    if self.kind(&c) == FieldKind::Flag {
                        shown = Some(Shown::Rows(c.table.clone()));
                        break;
                    }
                    // "List the vessels" over `vessel_id`: the rows' own key said by their noun
                    // alone is the rows, shown by their label; only "id"/"number" asks for the key.
                    let asks_key = (it.start..it.end).any(|k| matches!(self.a.tokens[k].norm.as_str(), "id" | "ids" | "identifier" | "number" | "key" | "code"));
                    if !asks_key && self.pk(&c.table).is_some_and(|k| k == c) {
                        shown = Some(Shown::Rows(c.table.clone()));
                        break;
                    }
                    // "the installation code" over `service_calls.installation_id`: a reference
                    // said with the word of the referenced table's own code or number column
                    // shows that column (not the bare key).
                    if let Some(r) = self.referenced_column_said(&c, it.start, it.end) {
                        shown = Some(Shown::Col(r));
                        break;
                    }
                    // A key named like a table ("owner id") stays a key; a label word of another
                    // table is that table's rows.
                    shown = Some(Shown::Col(c));
                    break;
                }
            }
            let mut by_head = false;
            if shown.is_none() {
                // "first" of "first and last name": with the shared head.
                if let Some(h) = it.head {
                    let mut w = words.clone();
                    w.push(self.a.tokens[h].norm.clone());
                    shown = self.field_by_words(&w, &prefer).map(Shown::Col);
                    by_head = shown.is_some();
                }
            }
            if shown.is_none() {
                let last = words.last().map(String::as_str).unwrap_or("");
                shown = match last {
                    "name" | "title" | "label" => item_table.clone().or_else(|| Some(entity.clone())).filter(|t| !t.is_empty()).map(Shown::Rows),
                    "id" | "identifier" => self.pk(&prefer).map(Shown::Col),
                    // "Give the code and the capacity": the rows' one code column.
                    "code" | "reference" if words.len() == 1 => self.own_code(&prefer).map(Shown::Col),
                    _ => item_table.clone().map(Shown::Rows),
                };
            }
            // "List the painkillers with their unit price": an item that is a value the
            // conditions use ('painkiller' of `medications.category`) names those rows.
            if shown.is_none() {
                let valued = (it.start..it.end).find_map(|k| {
                    let role = self.ledger.role(k)?;
                    let (col, _) = role.split_once(" = ")?;
                    let (table, _) = col.split_once('.')?;
                    self.ctx.table(table).map(|t| t.name.clone())
                });
                if let Some(t) = valued {
                    out.push((Shown::Rows(t), it.start, it.end));
                    continue;
                }
            }
            if let Some(s) = shown {
                let role = match &s {
                    Shown::Col(c) => format!("show {c}"),
                    Shown::Rows(t) | Shown::All(t) => format!("show {t}"),
                };
                // Only what the item's column or table stands for is used: a modifier nothing links
                // ("surgical treatments") stays a word the plan does not cover.
                for &mi in &inside {
                    self.used[mi] = true;
                    let (s, e) = (self.ms[mi].start, self.ms[mi].end);
                    self.mark(s..e, role.clone());
                }
                for k in it.start..it.end {
                    if matches!(self.a.tokens[k].norm.as_str(), "name" | "id" | "title" | "code" | "number" | "detail" | "information" | "info" | "date") {
                        self.mark(k..k + 1, role.clone());
                    }
                }
                // "buyer and start date": a word that names a column alone shares no head.
                if let Some(h) = it.head.filter(|_| by_head) {
                    self.mark(h..h + 1, "show");
                }
                // "first" of "first and last name", "year" of "independence year" for
                // `IndepYear`: a word of the column the item became.
                if let Shown::Col(c) = &s {
                    let words = names::name_words(&c.column);
                    for k in it.start..it.end {
                        if words.contains(&self.a.tokens[k].norm) || words.contains(&self.a.tokens[k].lower) {
                            self.mark(k..k + 1, role.clone());
                        }
                    }
                }
                // "all lines", "both phone numbers": a plural said of numbered columns of one name
                // (`line_1`, `line_2`, `line_3`) is all of them.
                let siblings: Vec<ColRef> = match &s {
                    Shown::Col(c) if self.a.tokens[it.start..it.end].iter().any(|t| t.is_word() && t.lower != t.norm && names::name_words(&c.column).contains(&t.norm)) => {
                        let stem = |n: &str| names::name_words(n).into_iter().filter(|w| !w.chars().all(|ch| ch.is_ascii_digit())).collect::<Vec<_>>();
                        let numbered = |n: &str| names::name_words(n).last().is_some_and(|w| w.chars().all(|ch| ch.is_ascii_digit()));
                        let mine = stem(&c.column);
                        self.ctx.table(&c.table).map(|t| t.columns.iter().filter(|x| numbered(&x.name) && numbered(&c.column) && stem(&x.name) == mine && !x.name.eq_ignore_ascii_case(&c.column)).map(|x| ColRef::new(&t.name, &x.name)).collect()).unwrap_or_default()
                    }
                    _ => Vec::new(),
                };
                out.push((s, it.start, it.end));
                for c in siblings {
                    out.push((Shown::Col(c), it.start, it.end));
                }
            }
        }
        out
    }

    /// After the list's items: its lead words, and an item after the table it is of.
    fn list_tail(&mut self, p: &qa_question::analysis::Projection, out: &mut Vec<(Shown, usize, usize)>) {
        if !out.is_empty() {
            self.mark(p.start..p.items[0].start, "show");
            // "the names of the teachers and the courses they teach": the list goes on after the
            // table it is of.
            let mut k = p.end;
            while matches!(self.word(k), "of" | "for" | "the" | "all" | "every" | "each") {
                k += 1;
            }
            if let Some(ti) = self.ms.iter().position(|m| m.start == k).filter(|&mi| self.names_table(mi)) {
                let after = self.ms[ti].end;
                if self.word(after) == "and" {
                    let next = self.skip_filler(after + 1);
                    if let Some(mi) = self.ms.iter().position(|m| m.start == next)
                        && !matches!(self.ms[mi].best().target, Target::Value { .. })
                        && !self.a.aggregates.iter().any(|g| g.start == next)
                    {
                        let shown = if self.names_table(mi) { self.table(mi).map(Shown::Rows) } else { self.field(mi).map(Shown::Col) };
                        if let Some(sh) = shown {
                            let role = match &sh {
                                Shown::Col(c) => format!("show {c}"),
                                Shown::Rows(t) | Shown::All(t) => format!("show {t}"),
                            };
                            self.consume(mi, role.clone());
                            self.mark(after..after + 1, role);
                            out.push((sh, self.ms[mi].start, self.ms[mi].end));
                        }
                    }
                }
            }
        }
    }

    /// A column whose name is exactly these words (singular), in `prefer` first.
    /// "the name of the series": the rows by their label when it is a name; else a column of a
    /// table one key away named for them (`tv_channel.series_name`); else the rows, with a
    /// penalty — the table has no name, so the answer would show something else.
    fn name_of_rows(&mut self, table: &str, word: &str) -> Shown {
        let label = self.label(table);
        let named = |c: &ColRef| {
            let w = names::name_words(&c.column);
            w.iter().any(|x| matches!(x.as_str(), "name" | "title" | "label")) || !c.table.eq_ignore_ascii_case(table) || w == names::name_words(table)
        };
        if label.iter().any(named) || label.len() > 1 {
            return Shown::Rows(table.to_string());
        }
        let own: Vec<String> = names::name_words(table).into_iter().filter(|w| !GENERIC_WORDS.contains(&w.as_str())).collect();
        let near = self.ctx.fk_steps().into_iter().filter(|s| s.from_table.eq_ignore_ascii_case(table)).find_map(|s| {
            let t = self.ctx.table(&s.to_table)?;
            t.columns.iter().find(|c| {
                let w = names::name_words(&c.name);
                w.last().is_some_and(|l| l == word) && w.len() == own.len() + 1 && own.iter().zip(&w).all(|(a, b)| a == b)
            }).map(|c| ColRef::new(&t.name, &c.name))
        });
        if let Some(c) = near {
            return Shown::Col(c);
        }
        // Checked once the query is built: another table's rows may carry the name.
        self.nameless.push((table.to_string(), word.to_string()));
        Shown::Rows(table.to_string())
    }

    pub fn field_by_words(&self, words: &[String], prefer: &str) -> Option<ColRef> {
        let mut found: Vec<ColRef> = Vec::new();
        for c in &self.schema.collections {
            for f in &c.fields {
                // Its name, or its name after the table's own ("code" of `treatments.treatment_code`).
                let table_words: Vec<String> = names::name_words(&c.name).iter().map(|w| qa_core::text::singular(w)).collect();
                let own = names::name_words(&f.name);
                let after_table = own.len() > table_words.len() && own.iter().zip(&table_words).all(|(a, b)| qa_core::text::singular(a) == *b) && own[table_words.len()..] == *words;
                if after_table || names::forms(&f.name, &f.synonyms).iter().any(|form| form.words == words) {
                    found.push(ColRef::new(&c.name, &f.name));
                }
            }
        }
        found.iter().find(|c| c.table.eq_ignore_ascii_case(prefer)).or_else(|| found.iter().find(|c| self.connected(&c.table, prefer))).cloned()
    }

    /// Columns of `table` whose kind is a date, best first: the semantic default, then those
    /// named like the table's event ("appointment_date" in appointments), then the others.
    pub fn date_columns(&self, table: &str) -> Vec<ColRef> {
        let Some(c) = self.schema.collection(table) else { return Vec::new() };
        let mut out: Vec<ColRef> = c.fields.iter().filter(|f| f.kind == FieldKind::Date).map(|f| ColRef::new(&c.name, &f.name)).collect();
        if let Some(d) = self.ctx.default_date(table)
            && let Some(i) = out.iter().position(|x| x.column.eq_ignore_ascii_case(&d))
        {
            let x = out.remove(i);
            out.insert(0, x);
        }
        out
    }
}

impl Reader<'_> {
    /// The one text column of `table` named a code (`install_code`, `code`), not a key.
    fn own_code(&self, table: &str) -> Option<ColRef> {
        let t = self.ctx.table(table)?;
        let codes: Vec<ColRef> = t
            .columns
            .iter()
            .filter(|c| qa_question::names::name_words(&c.name).iter().any(|w| w == "code") && self.kind(&ColRef::new(&t.name, &c.name)).is_textual() && !t.foreign_keys.iter().any(|fk| fk.columns.iter().any(|x| x.eq_ignore_ascii_case(&c.name))))
            .map(|c| ColRef::new(&t.name, &c.name))
            .collect();
        match codes.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// `c` is a foreign key and the words `s..e` say "code", "number" or "name" (not "id"): the
    /// one column of the referenced table whose name holds that word.
    fn referenced_column_said(&self, c: &ColRef, s: usize, e: usize) -> Option<ColRef> {
        let said: Vec<&str> = (s..e).map(|k| self.a.tokens[k].norm.as_str()).collect();
        if said.iter().any(|w| matches!(*w, "id" | "ids" | "identifier" | "key")) {
            return None;
        }
        let word = said.iter().rev().find(|w| matches!(**w, "code" | "number" | "name" | "title" | "reference"))?;
        let own = qa_question::names::name_words(&c.column);
        if own.iter().any(|w| w == word) {
            return None;
        }
        let t = self.ctx.table(&c.table)?;
        let fk = t.foreign_keys.iter().find(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column))?;
        let parent = self.ctx.table(&fk.ref_table)?;
        let same = |w: &String| w == word || (*word == "number" && matches!(w.as_str(), "no" | "num" | "nr"));
        let cols: Vec<ColRef> = parent.columns.iter().filter(|x| qa_question::names::name_words(&x.name).iter().any(same) && !parent.primary_key.contains(&x.name)).map(|x| ColRef::new(&parent.name, &x.name)).collect();
        // ("the accession code" of `accession_code` beside `origin_country_code`: the one
        // that carries another word said too.)
        let also_said: Vec<&ColRef> = cols.iter().filter(|x| qa_question::names::name_words(&x.column).iter().any(|w| w != *word && said.iter().any(|s| qa_core::text::singular(s) == qa_core::text::singular(w)))).collect();
        match (cols.as_slice(), also_said.as_slice()) {
            ([one], _) => Some(one.clone()),
            (_, [one]) => Some((*one).clone()),
            _ => None,
        }
    }
}
