//! The query's shape: aggregates ("how many", "the average age", "total fines"), grouping
//! ("per team", "for each city", "which X has …"), rankings ("the youngest singer", "the 5 vets
//! with the most appointments", "the most common hometown"), ordering ("sorted by age",
//! "cheapest first", "alphabetically") and what is shown.

use qa_question::cues::{AggWord, Superlative};
use qa_question::link::{How, Target};
use qa_question::FieldKind;

use super::entity::Shown;
use super::ir::{AggFunc, ColRef, Expr};
use super::read::Reader;

/// An aggregate word placed: function, column, token range, the mention of the column.
type AggItem = (AggFunc, Option<ColRef>, usize, usize, Option<usize>);

/// A grouping key: a column, a table's rows (its label, grouped by its key), or a time bucket.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Key {
    Col(ColRef),
    Rows(String),
    Time(ColRef, bool),
}

fn agg_of(w: AggWord) -> AggFunc {
    match w {
        AggWord::Count => AggFunc::Count,
        AggWord::Sum => AggFunc::Sum,
        AggWord::Avg => AggFunc::Avg,
        AggWord::Max => AggFunc::Max,
        AggWord::Min => AggFunc::Min,
    }
}

/// Words of column names that hold a place ("where …" asks for one).
const PLACE_WORDS: &[&str] = &["city", "town", "country", "hometown", "location", "address", "place", "state", "region", "venue", "home", "birthplace", "origin", "nationality", "site"];

impl Reader<'_> {
    pub fn shape(&mut self) {
        let shown = self.projected();
        let cued = self.group_keys();
        for (k, _) in &cued {
            let t = match k {
                Key::Col(c) | Key::Time(c, _) => c.table.clone(),
                Key::Rows(t) => t.clone(),
            };
            self.reach.push(t.clone());
            self.focus.push(t);
        }
        let aggs = self.aggregate_items();
        let sups: Vec<Superlative> = self.a.superlatives.iter().filter(|s| !self.aggs_done.iter().any(|&g| s.start <= g && g < s.end) && !self.inside_name(s.end - 1)).cloned().collect();
        let will_aggregate = !aggs.is_empty() || self.count_at.is_some() || sups.iter().any(|s| s.adjective.is_none() || s.mode);
        // Without an aggregate, "by X" orders and "for each X" only names the rows.
        let mut keys: Vec<Key> = Vec::new();
        for (k, by) in cued {
            if will_aggregate || !sups.is_empty() {
                keys.push(k);
            } else if !by && let Key::Col(c) = &k
                // "the batch code and volume of every batch": a text column of the rows with
                // too many values to sample (one per row) names the rows themselves.
                && !(c.table.eq_ignore_ascii_case(&self.q.table) && self.ctx.table(&c.table).and_then(|t| t.column(&c.column)).is_some_and(|x| x.distinct.is_none() && x.kind() == crate::ColumnKind::Text))
            {
                // "the total price of the reservations in each currency": per values of a column
                // with nothing counted or summed per value is not read.
                self.penalties.push((format!("\"each {}\": nothing is counted or summed per value", c.column), 0.5));
            } else if by {
                match k {
                    Key::Col(c) => self.q.order_by.push((Expr::col(c), false)),
                    Key::Rows(t) => {
                        if let Some(c) = self.label(&t).into_iter().next() {
                            self.q.order_by.push((Expr::col(c), false));
                        }
                    }
                    Key::Time(c, _) => self.q.order_by.push((Expr::col(c), false)),
                }
            }
        }
        // "Which X …" where X is a column: with an aggregate or a ranking, X is the group.
        let which_col = self.which_column();
        if which_col.is_none()
            && let Some((mi, table)) = self.rows_numbered_after_which()
        {
            self.consume(mi, format!("rows of {table}"));
        }
        let ranked = !sups.is_empty();
        // "Which model has the largest horsepower": a ranking by a column of the same rows shows
        // the model of the top row; it groups nothing.
        let plain_rank = aggs.is_empty()
            && self.count_at.is_none()
            && sups.first().is_some_and(|s| s.adjective.is_some() && !s.mode && !self.a.aggregates.iter().any(|g| g.start == s.target))
            && which_col.as_ref().is_some_and(|(c, _)| {
                let target = sups.first().and_then(|s| self.mention_at(s.target));
                target.and_then(|mi| self.fields_of(mi).into_iter().find(|(m, _)| self.is_measure(m))).is_some_and(|(m, _)| self.connected(&m.table, &c.table))
            });
        if (ranked || self.count_at.is_some() || !aggs.is_empty() || !self.q.having.is_empty())
            && !plain_rank
            && let Some((c, mi)) = which_col.clone()
            && keys.is_empty()
        {
            self.consume(mi, format!("group by {c}"));
            keys.push(Key::Col(c));
        }
        let mut select: Vec<Expr> = Vec::new();
        let mut measure: Option<Expr> = None;
        // Rankings.
        if let Some(s) = sups.first().cloned() {
            measure = self.superlative(&s, &mut keys, &aggs, &shown, which_col.is_some());
        }
        // Aggregates and counts.
        let mut agg_exprs: Vec<Expr> = Vec::new();
        for (func, col, s, e) in &aggs {
            if let Some(m) = &measure
                && m.column() == col.as_ref()
                && m.is_agg()
            {
                continue;
            }
            let x = Expr::Agg { func: *func, col: col.clone() };
            let role = match col {
                Some(c) => format!("{}({c})", func.sql()),
                None => "aggregate COUNT".to_string(),
            };
            self.mark(*s..*e, role);
            if let Some(c) = col
                && !matches!(func, AggFunc::Count)
            {
                self.q.table = c.table.clone();
            }
            // "How much … altogether": two words for one total.
            if !agg_exprs.contains(&x) {
                agg_exprs.push(x);
            }
        }
        if self.count_at.is_some()
            && let Some(p) = self.a.projection.clone()
        {
            for it in p.items {
                if it.end - it.start == 1 && matches!(self.a.tokens[it.start].norm.as_str(), "number" | "count" | "total" | "amount") {
                    self.mark(it.start..it.end, "aggregate COUNT");
                }
            }
        }
        if let Some((s, e)) = self.count_at
            && !self.aggs_done.contains(&s)
            && measure.as_ref().is_none_or(|m| !matches!(m, Expr::Agg { func: AggFunc::Count | AggFunc::CountDistinct, .. }))
        {
            let x = self.count_expr(e);
            for g in self.a.aggregates.clone().iter().filter(|g| g.func == AggWord::Count) {
                self.mark(g.start..g.end, "aggregate COUNT");
            }
            self.mark(s..e, "aggregate COUNT");
            agg_exprs.insert(0, x);
        }
        // "the maximum horsepower and the make of the cars with 3 cylinders": one maximum next to
        // other columns of the same rows is the row with the maximum.
        if keys.is_empty()
            && measure.is_none()
            && agg_exprs.len() == 1
            && self.count_at.is_none()
            && let Expr::Agg { func: f @ (AggFunc::Max | AggFunc::Min), col: Some(c) } = agg_exprs[0].clone()
            && shown.iter().any(|(x, _, _)| matches!(x, Shown::Col(sc) if *sc != c))
        {
            agg_exprs.clear();
            self.q.order_by.push((Expr::col(c.clone()), f == AggFunc::Max));
            self.q.limit = Some(1);
            measure = Some(Expr::col(c));
        }
        let aggregated = !agg_exprs.is_empty() || measure.as_ref().is_some_and(Expr::is_agg) || !self.q.having.is_empty();
        // Columns shown next to an aggregate are its groups ("the names of the teachers and how
        // many courses they teach").
        if aggregated && keys.is_empty() {
            let measure_col = measure.as_ref().filter(|m| !m.is_agg()).and_then(|m| m.column().cloned());
            for (s, _, _) in &shown {
                match s {
                    Shown::Col(c) if Some(c) != measure_col.as_ref() && !agg_exprs.iter().any(|a| a.column() == Some(c)) && measure.as_ref().and_then(|m| m.column()) != Some(c) => keys.push(Key::Col(c.clone())),
                    Shown::Rows(t) => keys.push(Key::Rows(t.clone())),
                    _ => {}
                }
            }
        }
        // Group keys.
        for k in &keys {
            match k {
                Key::Col(c) => {
                    let c = &self.local_key(c);
                    select.push(Expr::col(c.clone()));
                    self.q.group_by.push(Expr::col(c.clone()));
                    self.reach.push(c.table.clone());
                }
                Key::Time(c, month) => {
                    select.push(Expr::Time { col: c.clone(), month: *month });
                    self.q.group_by.push(Expr::Time { col: c.clone(), month: *month });
                }
                Key::Rows(t) => {
                    // The rows as a list shows them (their name; their key too when they have
                    // no name); the key always groups, so two rows of one name stay apart.
                    let shown_cols = self.row_columns(t);
                    for c in &shown_cols {
                        let c = if Some(c) == self.pk(t).as_ref() { self.local_key(c) } else { c.clone() };
                        select.push(Expr::col(c.clone()));
                        self.q.group_by.push(Expr::col(c));
                    }
                    // A code the rows are known by ('AMS-12', 'ES-B1-24') names each group
                    // beside its name.
                    if let Some(code) = self.row_code(t).filter(|c| !shown_cols.contains(c)) {
                        select.push(Expr::col(code.clone()));
                        self.q.group_by.push(Expr::col(code));
                    }
                    if let Some(pk) = self.pk(t)
                        && !shown_cols.contains(&pk)
                        && !self.q.group_by.iter().any(|g| g.column() == Some(&pk))
                    {
                        self.q.group_by.push(Expr::col(self.local_key(&pk)));
                    }
                    self.reach.push(t.clone());
                }
            }
        }

        // What is shown.
        for (s, start, end) in &shown {
            let exprs: Vec<Expr> = match s {
                // "For each continent, list its id": the id of the grouped rows.
                Shown::Col(c)
                    if aggregated
                        && !self.q.group_by.contains(&Expr::col(c.clone()))
                        && !agg_exprs.iter().chain(measure.iter()).any(|a| a.column() == Some(c))
                        && !keys.iter().any(|k| matches!(k, Key::Rows(t) if t.eq_ignore_ascii_case(&c.table))) =>
                {
                    match self.group_rows_key(c, &keys, *start..*end) {
                    Some(k) => vec![k],
                    None => {
                        // Not a group, not an aggregate: the column cannot be shown, and the
                        // words that named it are not used.
                        self.ledger.unmark(*start..*end);
                        Vec::new()
                    }
                    }
                }
                Shown::Col(c) => vec![Expr::col(c.clone())],
                Shown::Rows(t) if aggregated => self.label(t).into_iter().map(Expr::col).collect(),
                Shown::Rows(t) => self.row_columns(t).into_iter().chain(self.place_within_tested_country(t)).map(Expr::col).collect(),
                Shown::All(t) => vec![Expr::All { table: t.clone() }],
            };
            for x in exprs {
                // A column of a grouped table's rows ("the name and theme … for each concert").
                let of_rows = aggregated && x.column().is_some_and(|c| keys.iter().any(|k| matches!(k, Key::Rows(t) if t.eq_ignore_ascii_case(&c.table))));
                if of_rows && !self.q.group_by.contains(&x) {
                    self.q.group_by.push(x.clone());
                }
                if !select.contains(&x) && (!aggregated || self.q.group_by.contains(&x)) {
                    self.reach.extend(x.column().map(|c| c.table.clone()));
                    if let Expr::All { table } = &x {
                        self.reach.push(table.clone());
                    }
                    select.push(x);
                }
            }
        }
        select.extend(agg_exprs.iter().cloned());
        if let Some(m) = &measure {
            if m.is_agg() && !select.contains(m) {
                select.push(m.clone());
            }
            if !m.is_agg() && !select.contains(m) && !select.is_empty() {
                select.push(m.clone());
            }
        }
        // "Which distinct car models …", "What countries …": the column the question names.
        if select.is_empty()
            && !aggregated
            && let Some((c, mi)) = which_col.clone()
        {
            self.consume(mi, format!("show {c}"));
            select.push(Expr::col(c));
            if let Some(m) = measure.as_ref().filter(|m| !m.is_agg() && plain_rank) {
                select.push(m.clone());
            }
        }
        self.date_asked_by_opener(&mut select);
        // "When did …": the date of the rows.
        if select.is_empty() && self.word(0) == "when"
            && let Some(e) = self.entity.clone()
        {
            let mut dates = self.date_columns(&e);
            if dates.is_empty()
                && let Some(c) = self.schema.collection(&e)
            {
                dates = c.fields.iter().filter(|f| qa_question::names::name_words(&f.name).iter().any(|w| matches!(w.as_str(), "date" | "time" | "day" | "year"))).map(|f| ColRef::new(&c.name, &f.name)).collect();
            }
            if dates.len() == 1 {
                self.mark(0..1, format!("show {}", dates[0]));
                select.push(Expr::col(dates[0].clone()));
            } else {
                // "When was batch B-1 brewed, and when was it packaged?": each "when" asks for
                // the date its verb names (`brewed_on`, `packaged_on`).
                let whens: Vec<usize> = (0..self.n()).filter(|&i| self.word(i) == "when" && (i == 0 || matches!(self.word(i - 1), "and" | ","))).collect();
                for (k, &w) in whens.iter().enumerate() {
                    let end = whens.get(k + 1).copied().unwrap_or(self.n());
                    let hit = (w + 1..end).find_map(|v| {
                        let word = self.word(v);
                        if self.ledger.is_used(v) || word.len() <= 3 {
                            return None;
                        }
                        let fam = qa_core::text::word_family(word);
                        let named: Vec<&ColRef> = dates.iter().filter(|c| qa_question::names::name_words(&c.column).iter().any(|x| qa_core::text::word_family(x) == fam)).collect();
                        if let [one] = named.as_slice() { Some((v, (*one).clone())) } else { None }
                    });
                    if let Some((v, c)) = hit {
                        self.mark(w..w + 1, format!("show {c}"));
                        self.mark(v..v + 1, format!("show {c}"));
                        select.push(Expr::col(c));
                    }
                }
            }
        }
        // "Where is the youngest teacher from?": the place of the rows.
        if select.is_empty() && self.word(0) == "where"
            && let Some(e) = self.entity.clone()
            && let Some(c) = self.schema.collection(&e)
        {
            let places: Vec<ColRef> = c
                .fields
                .iter()
                .filter(|f| f.kind.is_textual() && qa_question::names::name_words(&f.name).iter().any(|w| PLACE_WORDS.contains(&w.as_str())))
                .map(|f| ColRef::new(&c.name, &f.name))
                .collect();
            if places.len() == 1 {
                self.mark(0..1, format!("show {}", places[0]));
                select.push(Expr::col(places[0].clone()));
            } else {
                self.penalties.push(("\"where\": no single column of the rows holds a place".into(), 0.5));
            }
        }
        // "What does the code ACC stand for?", "what does 'PP' mean": the describing column of
        // the row the value picks.
        if select.is_empty()
            && let Some(k) = (0..self.n()).find(|&k| self.word(k) == "stand" && self.word(k + 1) == "for" || matches!(self.word(k), "mean" | "means") && (0..k).any(|j| matches!(self.word(j), "does" | "do")))
            && let Some((c, moved)) = self.described_by_value()
        {
            let end = if self.word(k) == "stand" { k + 2 } else { k + 1 };
            self.mark(k..end, format!("show {c}"));
            // Asked of the lookup table itself: its row, not every row that refers to it.
            if let Some((from, to)) = moved {
                for f in &mut self.q.filters {
                    match f {
                        super::ir::Cond::In { col, .. } | super::ir::Cond::Cmp { col, .. } if *col == from => *col = to.clone(),
                        _ => {}
                    }
                }
                self.q.table = to.table.clone();
                self.entity = Some(to.table.clone());
                self.reach.retain(|t| !t.eq_ignore_ascii_case(&from.table));
            }
            select.push(Expr::col(c));
        }
        if select.is_empty() {
            // A list of the entity's rows, by their label and key.
            if let Some(e) = self.entity.clone() {
                let label = self.label(&e);
                select.extend(label.into_iter().map(Expr::col));
                if let Some(place) = self.place_within_tested_country(&e) {
                    select.push(Expr::col(place));
                }
                // "Which unique cities …": distinct labels, so no key beside them. A code the
                // rows are known by ('AMS-12') says more to a reader than a surrogate key.
                if let Some(pk) = self.row_code(&e).or_else(|| self.pk(&e))
                    && !select.contains(&Expr::col(pk.clone()))
                    && !self.q.distinct
                    && (self.a.distinct.is_empty() || aggregated)
                {
                    select.push(Expr::col(pk));
                }
                if let Some(m) = &measure
                    && !select.contains(m)
                {
                    select.push(m.clone());
                }
            }
        }
        if !aggregated && !select.is_empty() {
            self.also_shown(&mut select);
        }
        if !self.a.distinct.is_empty() && !aggregated {
            self.q.distinct = true;
            for &d in &self.a.distinct.clone() {
                self.mark(d..d + 1, "distinct");
            }
        }
        // Counting the values of the column the rows are grouped by gives 1 in every group: the
        // reading went wrong somewhere, so it must not pass for an answer.
        // The same when the groups are the rows of that column's own table (grouped by its key):
        // one value per row.
        let own_rows = |c: &ColRef| self.pk(&c.table).is_some_and(|pk| self.q.group_by.contains(&Expr::col(pk)));
        if select.iter().any(|e| matches!(e, Expr::Agg { func: AggFunc::CountDistinct, col: Some(c) } if self.q.group_by.contains(&Expr::col(c.clone())) || own_rows(c))) {
            self.penalties.push(("counts the distinct values of the column it groups by".into(), 0.5));
        }
        self.q.select = select;
        self.orderings();
        // "The course with the most enrolments" read as one total ranked against nothing: an
        // aggregate without groups has a single row, so ranking it answers another question.
        if self.q.group_by.is_empty() && self.q.aggregates() && self.q.order_by.iter().any(|(e, _)| e.is_agg()) && self.q.set_op.is_none() {
            self.penalties.push(("ranks a single total: nothing is grouped to rank".into(), 0.5));
        }
        // A list shows what it is sorted by ("site names ordered by city").
        if !self.q.aggregates() && self.q.group_by.is_empty() {
            for (e, _) in self.q.order_by.clone() {
                if matches!(e, Expr::Col { .. }) && !self.q.select.contains(&e) {
                    self.q.select.push(e);
                }
            }
        }
    }

    /// `COUNT(*)`, or `COUNT(DISTINCT x)` for "how many different X".
    fn count_expr(&mut self, end: usize) -> Expr {
        let mut p = end;
        let mut distinct = false;
        while matches!(self.word(p), "different" | "distinct" | "unique" | "the" | "of" | "all") {
            distinct |= matches!(self.word(p), "different" | "distinct" | "unique");
            if distinct {
                self.mark(p..p + 1, "distinct");
            }
            p += 1;
        }
        if let Some(mi) = self.head_at(p).or_else(|| self.ms.iter().position(|m| m.start == p)) {
            // "how many continents speak Chinese": values of a column (not rows of a table) are
            // counted once each.
            let non_key = self.field(mi).is_some_and(|c| self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None && f.kind != FieldKind::Flag));
            // "how many hours did crews spend" of `hours_on_site`: a measure counted in the unit
            // that names it is summed, not its distinct values counted.
            if !distinct
                && let Some(c) = self.field(mi).filter(|_| !self.names_table(mi))
                && self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None && f.kind.is_numeric())
                && qa_question::names::name_words(&c.column).first().is_some_and(|w| *w == qa_core::text::singular(&self.a.tokens[self.ms[mi].start].lower) && qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str()))
            {
                self.consume(mi, format!("SUM({c})"));
                self.q.table = c.table.clone();
                return Expr::Agg { func: AggFunc::Sum, col: Some(c) };
            }
            // "how many seeds were distributed" of `seed_count`: a column that counts the very
            // things said holds numbers to add up.
            let said = qa_core::text::singular(&self.a.tokens[self.ms[mi].start].lower);
            if !distinct
                && let Some(c) = self.field(mi).filter(|_| !self.names_table(mi))
                && self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None && f.kind == FieldKind::Integer)
                && matches!(qa_question::names::name_words(&c.column).as_slice(), [w, n] if qa_core::text::singular(w) == said && matches!(n.as_str(), "count" | "number" | "qty" | "quantity" | "total"))
            {
                // The same column in several tables, none of them in play: which one is not said.
                let fields = self.fields_of(mi);
                let ctx = self.context_tables();
                let rivals: Vec<String> = fields.iter().filter(|(x, score)| x.column.eq_ignore_ascii_case(&c.column) && *score >= fields[0].1 - 1e-9).map(|(x, _)| x.table.clone()).collect();
                if rivals.len() > 1 && !rivals.iter().any(|t| ctx.iter().any(|x| x.eq_ignore_ascii_case(t))) {
                    self.penalties.push((format!("{} is a column of {}", c.column, rivals.join(" and ")), 0.5));
                }
                self.consume(mi, format!("SUM({c})"));
                self.q.table = c.table.clone();
                return Expr::Agg { func: AggFunc::Sum, col: Some(c) };
            }
            // "the total number of units requested" of an integer `units_requested`: the column
            // counts things itself, so its number is its sum (a count of its distinct values
            // would be a number nobody asked for).
            let total = end >= 2 && (self.word(end - 3) == "total" || self.word(end - 2) == "total");
            if !distinct
                && total
                && let Some(c) = self.field(mi).filter(|_| !self.names_table(mi) && matches!(self.ms[mi].best().how, How::Name | How::Core | How::Synonym))
                && self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None && f.kind == FieldKind::Integer)
            {
                self.consume(mi, format!("SUM({c})"));
                self.q.table = c.table.clone();
                return Expr::Agg { func: AggFunc::Sum, col: Some(c) };
            }
            if !distinct && let Some(t) = self.rows_said_by_measure(mi) {
                self.consume(mi, format!("table {t}"));
                self.q.table = t;
                return Expr::count();
            }
            if (distinct || non_key)
                && let Some(c) = self.field(mi).filter(|_| !self.names_table(mi))
            {
                self.consume(mi, format!("COUNT(DISTINCT {c})"));
                self.q.table = c.table.clone();
                return Expr::Agg { func: AggFunc::CountDistinct, col: Some(c) };
            }
            if let Some(t) = self.table_in_context(mi) {
                // (A label's value counts the rows that refer to it: its word stays the filter.)
                if let Some(rows) = self.counted_of_label_value(mi, &t) {
                    self.q.table = rows;
                    return Expr::count();
                }
                // "how many languages": the rows of the table the word names or whose column it is.
                self.consume(mi, format!("table {t}"));
                self.q.table = t;
            }
        }
        Expr::count()
    }

    /// Aggregates other than a count: their function, column and token range ("the average age",
    /// "average, minimum and maximum weight", "total fines").
    fn aggregate_items(&mut self) -> Vec<(AggFunc, Option<ColRef>, usize, usize)> {
        let mut out: Vec<AggItem> = Vec::new();
        for g in self.a.aggregates.clone() {
            if g.func == AggWord::Count || self.aggs_done.contains(&g.start) {
                continue;
            }
            if self.inside_name(g.start) {
                // "What was the average wind speed recorded in July?" over `avg_wind_speed_ms`:
                // a column of daily averages, averaged over the rows asked about.
                if let Some((c, mi)) = self.averaged_average(&g) {
                    out.push((AggFunc::Avg, Some(c), g.start, self.ms[mi].end, Some(mi)));
                }
                continue;
            }
            // Max/min words that rank rows are superlatives, not aggregates.
            if matches!(g.func, AggWord::Max | AggWord::Min) && self.a.superlatives.iter().any(|s| s.start <= g.start && g.start < s.end) && self.ranks_rows(g.start, None) {
                continue;
            }
            // "How much have guests spent": an amount of money, never a measure of another kind
            // a word happens to name (`max_guests`).
            let money_asked = g.func == AggWord::Sum
                && (0..self.n()).any(|i| self.word(i) == "how" && self.word(i + 1) == "much")
                && (0..self.n()).any(|i| self.word(i) == "money" || qa_core::text::verb_lemmas(self.word(i)).iter().any(|l| matches!(l.as_str(), "spend" | "pay" | "cost" | "earn" | "charge" | "bill" | "invoice" | "owe")));
            let ok = |c: &ColRef| if matches!(g.func, AggWord::Max | AggWord::Min) { self.is_measure(c) || self.kind(c) == FieldKind::Date } else { self.is_measure(c) && (!money_asked || qa_question::names::may_be_money_name(&c.column)) };
            // "the average invoice amount": past a table's name to the column; "the average
            // number of pages": the column that counts.
            let mut start = self.skip_filler(g.target);
            let number_of = (self.word(start) == "number" && self.word(start + 1) == "of").then_some(start);
            if number_of.is_some() {
                start += 2;
            }
            // "the total amount of unpaid fees", "the total value of the confirmed reservations":
            // a generic noun of money before what the rows are; the money is that table's.
            // (Filler may have skipped those words already.)
            let money_of = (g.func == AggWord::Sum).then(|| (g.target..(g.target + 2).min(self.n())).find(|&k| matches!(self.word(k), "amount" | "value" | "sum") && self.word(k + 1) == "of")).flatten();
            let money_of_rows = money_of.and_then(|at| {
                let mi = self.head_at(self.skip_filler(at + 2))?;
                let t = self.table(mi).or_else(|| match &self.ms[mi].best().target {
                    Target::Value { collection, .. } => Some(collection.clone()),
                    _ => None,
                })?;
                Some((self.main_money(&t)?, usize::MAX))
            });
            let money_said = money_of.filter(|_| money_of_rows.is_some());
            if let Some(at) = money_of.filter(|_| money_of_rows.is_none()) {
                start = start.max(self.skip_filler(at + 2));
            }
            // "how many hours have we billed" of `hours_billed` beside `hours_per_week`: a measure
            // whose every word the question says, one of them right after the cue.
            let col = money_of_rows.or_else(|| self.measure_said_apart(start).filter(|(c, _)| ok(c))).or_else(|| (start..(start + 4).min(self.n())).find_map(|k| {
                let mi = self.ms.iter().position(|m| m.start == k)?;
                if self.names_table(mi) && !self.fields_of(mi).iter().any(|(c, _)| ok(c)) {
                    return None;
                }
                let (c, mi) = self.fields_of(mi).into_iter().find(|(c, _)| ok(c)).map(|(c, _)| (c, mi))?;
                // "the total fuel cost": the head of a compound is its last noun, so a measure
                // named right after another measure is the one aggregated.
                let head = self.ms.iter().position(|m| m.start == self.ms[mi].end).and_then(|next| self.fields_of(next).into_iter().find(|(c2, _)| ok(c2) && c2.table.eq_ignore_ascii_case(&c.table) && *c2 != c).map(|(c2, _)| (c2, next)));
                Some(head.unwrap_or((c, mi)))
            }));
            // "What did surgery cost us in total?": the measure said before "in total".
            // (Not after a ranking or a comparison, whose measure "in total" sums.)
            let in_total = self.word(g.start) == "in" && !self.a.superlatives.iter().any(|x| x.start < g.start) && !self.a.comparisons.iter().any(|x| x.start < g.start);
            let col = col.or_else(|| in_total.then(|| (0..self.ms.len()).rev().filter(|&mi| self.ms[mi].end <= g.start && !self.used[mi]).find_map(|mi| self.fields_of(mi).into_iter().find(|(c, _)| ok(c)).map(|(c, _)| (c, mi)))).flatten());
            // "how much", "the total of all invoices": the money column of the table in play.
            let col = col.or_else(|| {
                if g.func != AggWord::Sum {
                    return None;
                }
                // (The table of a value said there too: "the total of filing fees".)
                let of_table = self.head_at(g.target).and_then(|mi| {
                    self.table(mi).or_else(|| match &self.ms[mi].best().target {
                        Target::Value { collection, .. } => Some(collection.clone()),
                        _ => None,
                    })
                });
                // ("What did the tablets cost in total?": a verb of money before "in total".)
                let paid = in_total && (0..g.start).any(|i| qa_core::text::verb_lemmas(self.word(i)).iter().any(|l| matches!(l.as_str(), "cost" | "spend" | "pay" | "earn" | "charge" | "raise" | "donate")));
                let tables = if self.word(g.start) == "how" || paid { self.context_tables() } else { of_table.into_iter().collect() };
                let money: Vec<ColRef> = tables.iter().flat_map(|t| self.money_columns(t)).collect();
                if let [one] = money.as_slice() {
                    return Some((one.clone(), usize::MAX));
                }
                // (Of one table's several, its amount.)
                match tables.as_slice() {
                    [t] => self.main_money(t).map(|c| (c, usize::MAX)),
                    _ => None,
                }
            });
            // "how many kilograms": the one column of the tables in play measured in that unit.
            let col = col.or_else(|| {
                let u = (g.func == AggWord::Sum).then(|| qa_question::numbers::unit_of(self.word(g.target))).flatten()?;
                // The tables in play and those one key away (a junction's quantity).
                let measured: Vec<ColRef> = self
                    .tables_in_play_and_near()
                    .iter()
                    .filter_map(|t| self.schema.collection(t))
                    .flat_map(|c| c.fields.iter().filter(|f| f.kind.is_numeric() && qa_question::numbers::field_unit(&f.name).is_some_and(|fu| fu.dimension == u.dimension)).map(|f| ColRef::new(&c.name, &f.name)).collect::<Vec<_>>())
                    .fold(Vec::new(), |mut v, c| {
                        if !v.contains(&c) {
                            v.push(c);
                        }
                        v
                    });
                let [one] = measured.as_slice() else { return None };
                self.mark(g.target..g.target + 1, "unit");
                Some((one.clone(), usize::MAX))
            });
            // "how much" is a total of money.
            let (c, mi) = match col {
                Some((c, mi)) => (Some(c), Some(mi)),
                None => (None, None),
            };
            // "the average number of customers affected": "number of" is said of the counting
            // column.
            if let (Some(n), Some(c)) = (number_of.or(money_said), &c) {
                self.mark(n..n + 2, format!("{}({c})", agg_of(g.func).sql()));
            }
            out.push((agg_of(g.func), c, g.start, g.end, mi));
        }
        // Elliptic lists: "average, minimum and maximum age" share the last column.
        for i in (0..out.len()).rev() {
            if out[i].1.is_none() {
                let next = out.iter().skip(i + 1).find_map(|x| x.1.clone()).or_else(|| out.iter().take(i).rev().find_map(|x| x.1.clone()));
                out[i].1 = next;
            }
        }
        let mut res = Vec::new();
        for (f, c, s, e, mi) in out {
            let Some(c) = c else {
                // "How many courses in total": with a count, a total is the count.
                if f == AggFunc::Sum && self.count_at.is_some() {
                    self.mark(s..e, "aggregate COUNT");
                    continue;
                }
                // "Which artist got the biggest fee, and how much was it?": the amount asked
                // for is the ranked measure, shown with the top row.
                if f == AggFunc::Sum && self.word(s) == "how" && !self.a.superlatives.is_empty() && matches!(self.word(e), "was" | "is" | "were" | "are" | "did" | "does") {
                    self.mark(s..e, "the ranked measure");
                    continue;
                }
                // The aggregate names no column: the question asks for something not placed.
                let words = self.a.tokens[s..e].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                self.penalties.push((format!("\"{words}\" names no column"), 0.5));
                continue;
            };
            if let Some(mi) = mi.filter(|&mi| mi != usize::MAX) {
                self.consume(mi, format!("{}({c})", f.sql()));
                // The compound's first noun says whose measure it is ("the fuel cost").
                if let Some(prev) = self.ms.iter().position(|m| m.end == self.ms[mi].start && m.start >= e)
                    && !self.used[prev]
                    && self.fields_of(prev).iter().any(|(c2, _)| c2.table.eq_ignore_ascii_case(&c.table))
                {
                    self.consume(prev, format!("{}({c})", f.sql()));
                }
            }
            self.reach.push(c.table.clone());
            self.aggs_done.push(s);
            res.push((f, Some(c), s, e));
        }
        res
    }

    /// The money columns of `table`: a currency in the name or a word of money.
    /// An average said inside the name of a column that holds averages (`avg_speed`,
    /// `mean_temp`), in a question that asks for one value over many rows: "what is/was the
    /// average X …" with no grouping, listing or ranking, and the column in no condition.
    fn averaged_average(&self, g: &qa_question::cues::Aggregate) -> Option<(ColRef, usize)> {
        if g.func != AggWord::Avg || !self.a.groupings.is_empty() || !self.a.superlatives.is_empty() || self.a.projection.as_ref().is_some_and(|p| p.items.len() > 1) || !self.a.comparisons.is_empty() {
            return None;
        }
        let asks_value = matches!(self.word(0), "what") && matches!(self.word(1), "is" | "was" | "s");
        let mi = self.ms.iter().position(|m| m.start <= g.start && g.start < m.end)?;
        let c = self.field(mi)?;
        let named_avg = qa_question::names::name_words(&c.column).first().is_some_and(|w| matches!(w.as_str(), "avg" | "average" | "mean"));
        (asks_value && named_avg && self.is_measure(&c) && self.a.sentences.len() == 1).then_some((c, mi))
    }

    /// Place a ranking: a measure column ordered (or aggregated when the value itself is
    /// asked for), a count or sum per group, or the mode of a column. Returns the measure.
    fn superlative(&mut self, s: &Superlative, keys: &mut Vec<Key>, aggs: &[(AggFunc, Option<ColRef>, usize, usize)], shown: &[(Shown, usize, usize)], which_col: bool) -> Option<Expr> {
        // "the 5 vets with the most appointments", "which two crews …": a count said earlier.
        let earlier = if s.n.is_none() {
            self.a.quantities.iter().filter(|q| q.end <= s.start && q.unit.is_none() && q.value.fract() == 0.0 && (1.0..=1000.0).contains(&q.value) && !q.year_like && !self.ledger.is_used(q.at)).find(|q| q.start > 0 && matches!(self.word(q.start - 1), "the" | "top" | "which" | "what" | "first") && s.start - q.end <= 6).cloned()
        } else {
            None
        };
        if let Some(q) = &earlier {
            self.mark(q.start..q.end, format!("limit {}", q.value));
        }
        let n = s.n.or(earlier.map(|q| q.value as usize)).unwrap_or(1);
        let target = self.mention_at(s.target);
        // "the most common hometown": the mode.
        if s.mode {
            let after = (s.target..(s.target + 4).min(self.n())).find_map(|k| self.ms.iter().position(|m| m.start == k && !matches!(m.best().target, Target::Collection { .. })));
            let mi = match after.or_else(|| self.which_column().map(|(_, mi)| mi)) {
                Some(mi) => mi,
                None => return self.rows_ranked_by_how_often(s, keys, n),
            };
            let c = self.field(mi)?;
            if keys.iter().any(|k| *k == Key::Col(c.clone())) {
                keys.retain(|k| *k != Key::Col(c.clone()));
            }
            self.consume(mi, format!("group by {c}"));
            self.mark(s.start..s.end, format!("order by COUNT desc limit {n}"));
            self.q.table = c.table.clone();
            if !keys.contains(&Key::Col(c.clone())) {
                keys.push(Key::Col(c));
            }
            self.q.order_by.push((Expr::count(), s.desc));
            self.q.limit = Some(n);
            // The count shows how common it is (and makes a near tie visible).
            return Some(Expr::count());
        }
        // "the largest number of employees": a count, ranked.
        let counts = self.a.aggregates.iter().find(|g| g.func == AggWord::Count && g.start == s.target).cloned();
        if let Some(g) = &counts {
            self.mark(g.start..g.end, "aggregate COUNT");
            self.aggs_done.push(g.start);
            if self.count_at == Some((g.start, g.end)) {
                self.count_at = None;
            }
        }
        let target = if counts.is_some() { self.mention_at(counts.as_ref().map(|g| g.end).unwrap_or(s.target)) } else { target };
        if let (Some(adj), None) = (&s.adjective, &counts) {
            // The measured column: named after the word, or by the adjective.
            let by = target.filter(|&mi| self.names_table(mi)).map(|mi| self.ms[mi].end).or_else(|| [s.end, s.target].into_iter().find(|&b| self.word(b) == "by"));
            let named = target.filter(|&mi| !self.names_table(mi)).and_then(|mi| self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c) || self.kind(c) == FieldKind::Date).map(|(c, _)| (c, mi))).or_else(|| {
                let m = by.and_then(|b| self.ranked_by(b))?;
                self.mark(by.unwrap_or(0)..by.unwrap_or(0) + 1, "by");
                Some(m)
            });
            // "the lowest average rating": an aggregate per group.
            if let Some((f, col, as_, ae)) = aggs.iter().find(|a| a.2 >= s.end && a.2 <= s.end + 1).cloned() {
                self.mark(s.start..s.end, format!("order by {} desc limit {n}", f.sql()));
                // ("average" is the ranked aggregate's word.)
                self.mark(as_..ae, format!("order by {} desc limit {n}", f.sql()));
                // The aggregated rows are the query's ("the hotel with the highest average review
                // score" averages reviews, grouped by hotel).
                if let Some(c) = &col {
                    self.q.table = c.table.clone();
                }
                let desc = Self::desc_on(s, col.as_ref());
                let x = Expr::Agg { func: f, col };
                self.q.order_by.push((x.clone(), desc));
                self.q.limit = Some(n);
                self.group_entity(keys, which_col);
                return Some(x);
            }
            let col = match named {
                Some((c, mi)) => {
                    self.consume(mi, format!("order by {c}"));
                    Some(c)
                }
                None => self.adjective_column(adj).or_else(|| {
                    let (c, participle) = self.date_ranked_at(adj, s.target)?;
                    if let Some(p) = participle {
                        self.mark(p..p + 1, format!("order by {c}"));
                    }
                    Some(c)
                }).or_else(|| self.date_for(adj)),
            };
            let col = col?;
            let is_date = self.kind(&col) == FieldKind::Date || col.column.to_ascii_lowercase().contains("year");
            // "old" on a date means early.
            let desc = if is_date && matches!(adj.as_str(), "old" | "young") { !s.desc } else { Self::desc_on(s, Some(&col)) };
            self.reach.push(col.table.clone());
            // The value itself is asked for: MAX / MIN.
            let value_asked = s.n.is_none() && !self.ranks_rows(s.end - 1, None) && shown.iter().all(|(x, _, _)| matches!(x, Shown::Col(c) if *c == col));
            if value_asked {
                let f = if desc { AggFunc::Max } else { AggFunc::Min };
                self.mark(s.start..s.end, format!("{}({col})", f.sql()));
                self.q.table = col.table.clone();
                return Some(Expr::Agg { func: f, col: Some(col) });
            }
            // "the number of concerts in the stadium with the highest capacity": the ranked row
            // of another table is a condition of the counted rows.
            if (self.count_at.is_some() || !aggs.is_empty()) && !col.table.eq_ignore_ascii_case(&self.q.table)
                && let Some(step) = self.ctx.fk_between(&self.q.table, &col.table)
            {
                let key = ColRef::new(&step.to_table, &step.to_column);
                let sub = super::ir::Query { table: col.table.clone(), select: vec![Expr::col(key)], order_by: vec![(Expr::col(col.clone()), desc)], limit: Some(n), ..Default::default() };
                self.mark(s.start..s.end, format!("order by {col} limit {n}"));
                self.q.filters.push(super::ir::Cond::InSub { col: ColRef::new(&step.from_table, &step.from_column), negated: false, query: Box::new(sub) });
                return None;
            }
            self.mark(s.start..s.end, format!("order by {col} limit {n}"));
            self.q.order_by.push((Expr::col(col.clone()), desc));
            self.q.limit = Some(n);
            return Some(Expr::col(col));
        }
        // "top 3 authors by number of books", "top 2 departments by total cost": the group is
        // named after "top N", the measure after "by".
        if let Some(by) = (s.target..(s.target + 4).min(self.n())).find(|&k| self.word(k) == "by")
            && let Some(gm) = self.head_at(s.target).filter(|&mi| self.ms[mi].end <= by)
        {
            let group = if self.names_table(gm) { self.table(gm).map(Key::Rows) } else { self.field(gm).map(Key::Col) };
            let mut k = by + 1;
            let counts = self.a.aggregates.iter().find(|g| g.start == self.skip_filler(k) && g.func == AggWord::Count).cloned();
            if let Some(g) = &counts {
                self.mark(g.start..g.end, "aggregate COUNT");
                self.aggs_done.push(g.start);
                k = g.end;
            }
            let sums = self.a.aggregates.iter().find(|g| g.start == self.skip_filler(k) && g.func == AggWord::Sum).cloned();
            if let Some(g) = &sums {
                self.aggs_done.push(g.start);
                k = g.end;
            }
            let mm = self.head_at(k);
            let measure = mm.and_then(|mi| {
                if self.names_table(mi) {
                    self.table(mi).map(|t| (Expr::count(), t, mi))
                } else {
                    self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c)).map(|(c, _)| (Expr::Agg { func: AggFunc::Sum, col: Some(c.clone()) }, c.table.clone(), mi))
                }
            });
            if let (Some(g), Some((x, table, mi))) = (group, measure) {
                self.consume(gm, match &g {
                    Key::Col(c) => format!("group by {c}"),
                    Key::Rows(t) | Key::Time(ColRef { table: t, .. }, _) => format!("group by {t}"),
                });
                self.consume(mi, match &x {
                    Expr::Agg { col: Some(c), .. } => format!("SUM({c})"),
                    _ => format!("table {table}"),
                });
                if let Some(g) = &sums {
                    self.mark(g.start..g.end, "aggregate SUM");
                }
                self.mark(s.start..s.end, format!("order by desc limit {n}"));
                self.mark(by..by + 1, "order by");
                self.q.table = table;
                keys.clear();
                keys.push(g);
                self.q.order_by.push((x.clone(), s.desc));
                self.q.limit = Some(n);
                return Some(x);
            }
        }
        // "most", "fewest", "top": a count or a sum per entity.
        let entity = self.entity.clone()?;
        // "the most open findings": past the values and flags to the noun.
        let mi = target.map(|t| {
            let mut k = t;
            while matches!(self.ms[k].best().target, Target::Value { .. }) || self.ms[k].best().target.field().is_some_and(|f| self.kind(&ColRef::new(self.ms[k].best().target.collection(), f)) == FieldKind::Flag) {
                match self.ms.iter().position(|m| m.start == self.ms[k].end) {
                    Some(next) => k = next,
                    None => return t,
                }
            }
            k
        });
        let counted_table = mi.filter(|&mi| self.names_table(mi)).and_then(|mi| self.table(mi)).or_else(|| mi.and_then(|mi| self.rows_said_by_measure(mi))).or_else(|| {
            // "Which continent speaks the most languages": rows of the table whose (non-numeric)
            // column the word names, when that table is not the entity's.
            let mi = mi?;
            let c = self.field(mi)?;
            (!self.is_measure(&c) && !c.table.eq_ignore_ascii_case(&entity) && self.connected(&entity, &c.table)).then(|| c.table.clone())
        });
        let numeric = mi.filter(|&mi| !self.names_table(mi)).and_then(|mi| self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c)).map(|(c, _)| c));
        let x = match (counted_table, numeric) {
            (Some(t), _) => {
                if let Some(mi) = mi {
                    self.consume(mi, format!("table {t}"));
                }
                self.q.table = t;
                Expr::count()
            }
            (None, Some(c)) if c.table.eq_ignore_ascii_case(&entity) && !which_col => {
                if let Some(mi) = mi {
                    self.consume(mi, format!("order by {c}"));
                }
                self.mark(s.start..s.end, format!("order by {c} limit {n}"));
                self.q.order_by.push((Expr::col(c.clone()), Self::desc_on(s, Some(&c))));
                self.q.limit = Some(n);
                return Some(Expr::col(c));
            }
            (None, Some(c)) => {
                if let Some(mi) = mi {
                    self.consume(mi, format!("SUM({c})"));
                }
                self.q.table = c.table.clone();
                Expr::Agg { func: AggFunc::Sum, col: Some(c) }
            }
            (None, None) => {
                // "Which year has the most concerts" without the counted word: rows of the entity.
                Expr::count()
            }
        };
        self.mark(s.start..s.end, format!("order by COUNT desc limit {n}"));
        self.q.order_by.push((x.clone(), Self::desc_on(s, x.column())));
        self.q.limit = Some(n);
        self.group_entity(keys, which_col);
        Some(x)
    }

    /// "the three biggest festivals by capacity": a "by" right after a ranking's table names
    /// the measure (a number or a date column), not a grouping. The measure's mention.
    pub(super) fn ranked_by(&self, by: usize) -> Option<(ColRef, usize)> {
        if self.word(by) != "by" {
            return None;
        }
        let ranked = self.a.superlatives.iter().any(|s| s.adjective.is_some() && (s.end == by || s.target == by || self.mention_at(s.target).is_some_and(|mi| self.names_table(mi) && self.ms[mi].end == by)));
        let mi = self.mention_at(by + 1).filter(|_| ranked)?;
        if self.names_table(mi) {
            return None;
        }
        self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c) || self.kind(c) == FieldKind::Date).map(|(c, _)| (c, mi))
    }

    pub(super) fn top_by(&self, by: usize) -> Option<Superlative> {
        self.a.superlatives.iter().find(|s| s.adjective.is_none() && (s.start..s.end).any(|k| matches!(self.word(k), "top" | "bottom")) && s.target < by && by <= s.target + 4).cloned()
    }

    /// Token `i` is part of a column's whole name ("best finish", "total amount"): not a cue.
    pub(super) fn inside_name(&self, i: usize) -> bool {
        self.ms.iter().any(|m| m.start <= i && i < m.end && m.end - m.start >= 2 && matches!(&m.best().target, Target::Field { .. }) && matches!(m.best().how, qa_question::How::Name | qa_question::How::Synonym))
    }

    /// The query table's own column for a key of another table it refers to (`concert.stadium_id`
    /// for `stadium.stadium_id`): grouping by it needs no join and keeps every row.
    fn local_key(&self, c: &ColRef) -> ColRef {
        if c.table.eq_ignore_ascii_case(&self.q.table) {
            return c.clone();
        }
        // Two keys to that table (`from_warehouse_id`, `to_warehouse_id`): which one the join
        // follows is decided later, so the referred key itself groups.
        let keys_to = self.ctx.db.table(&self.q.table).map_or(0, |t| t.foreign_keys.iter().filter(|fk| fk.ref_table.eq_ignore_ascii_case(&c.table)).count());
        if keys_to > 1 {
            return c.clone();
        }
        match self.ctx.fk_between(&self.q.table, &c.table) {
            Some(step) if step.to_column.eq_ignore_ascii_case(&c.column) => ColRef::new(&step.from_table, &step.from_column),
            _ => c.clone(),
        }
    }

    /// Group by the entity's rows, unless a group is already set.
    /// A generic "id" shown next to groups of another table's rows: that table's key (the
    /// column the rows are grouped by). None when the item names something else.
    fn group_rows_key(&self, c: &ColRef, keys: &[Key], words: std::ops::Range<usize>) -> Option<Expr> {
        let generic = words.len() == 1 && matches!(self.word(words.start), "id" | "identifier" | "ids");
        if !generic || self.pk(&c.table).as_ref() != Some(c) {
            return None;
        }
        let groups: Vec<&String> = keys.iter().filter_map(|k| match k {
            Key::Rows(t) if !t.eq_ignore_ascii_case(&c.table) => Some(t),
            _ => None,
        }).collect();
        let [g] = groups.as_slice() else { return None };
        let pk = self.local_key(&self.pk(g)?);
        self.q.group_by.contains(&Expr::col(pk.clone())).then(|| Expr::col(pk))
    }

    /// "Which supplier has delivered late most often?", "Which product was refunded most
    /// often?": the rows asked about, ranked by how many rows of the one other table the
    /// conditions test refer to each (`GROUP BY` the rows, `COUNT(*)` of those rows).
    fn rows_ranked_by_how_often(&mut self, s: &Superlative, keys: &mut Vec<Key>, n: usize) -> Option<Expr> {
        let entity = self.entity.clone()?;
        let mut tested: Vec<String> = self.q.filters.iter().filter_map(|f| f.col()).map(|c| c.table.clone()).filter(|t| !t.eq_ignore_ascii_case(&entity)).collect();
        tested.sort();
        tested.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        let [events] = tested.as_slice() else { return None };
        // (Rows that refer to the entity's rows, so that each counts for one of them.)
        let path = self.ctx.join_path(events, &entity)?;
        if path.iter().any(|st| super::ir::multiplies(self.ctx, st)) {
            return None;
        }
        self.q.table = events.clone();
        if !keys.contains(&Key::Rows(entity.clone())) {
            keys.push(Key::Rows(entity));
        }
        self.mark(s.start..s.end, format!("order by COUNT desc limit {n}"));
        self.q.order_by.push((Expr::count(), s.desc));
        self.q.limit = Some(n);
        Some(Expr::count())
    }

    fn group_entity(&mut self, keys: &mut Vec<Key>, which_col: bool) {
        if !keys.is_empty() || which_col {
            return;
        }
        if let Some(e) = self.entity.clone()
            && !e.eq_ignore_ascii_case(&self.q.table)
        {
            keys.push(Key::Rows(e));
        }
    }
}
