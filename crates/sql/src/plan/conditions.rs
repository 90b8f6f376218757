//! Conditions: numbers compared to the column they measure ("with a capacity over 5000",
//! "older than 30", "more than 10 participants", "over 500 dollars"), comparisons with an
//! average ("older than average"), dates on the column they date ("enrolled in 2024", a table's
//! only date column, an integer year column), stored values, flags ("retired", "inactive",
//! "non-smoker") and text that must be contained. Whether events took place ("never rented",
//! "still open") is read in `events.rs`.

use qa_question::cues::{measure_of, AggWord, Op};
use qa_question::dates::DateMention;
use qa_question::link::{How, Target};
use qa_question::numbers::{convert, field_unit, Dimension};
use qa_question::{names, FieldKind};

use super::ir::{AggFunc, ColRef, Cond, Expr, Having, Lit, Query};
use super::dating::{completion_verb, deadline, own_event_date};
use super::read::Reader;
use super::source::flag_literal;

/// What a number is compared with.
enum Measured {
    /// A numeric column.
    Col(ColRef, Option<usize>),
    /// The number of related rows of a table ("more than 10 participants").
    Rows(String, Option<usize>),
    /// The number of the entity's own rows in a group ("shared by at least two teachers").
    Own(Option<usize>),
}

/// Verbs that name a measure, and the measure's nouns (generic English).
fn measure_verb(w: &str) -> Option<&'static [&'static str]> {
    Some(match w {
        "cost" | "costs" | "costing" | "priced" => &["price", "cost", "amount", "fee", "fare", "charge", "rate"],
        "weigh" | "weighs" | "weighing" | "weighed" => &["weight", "mass"],
        "last" | "lasts" | "lasted" | "lasting" | "took" | "take" | "takes" => &["duration", "length", "time", "hour", "minute", "day"],
        "earn" | "earns" | "earned" | "earning" | "make" | "makes" | "made" => &["earning", "salary", "income", "wage", "revenue"],
        "measure" | "measures" | "measured" | "measuring" => &["length", "size", "height", "width"],
        _ => return None,
    })
}

/// Words of flag names that say it is a flag, not what it flags ("sms_opt_in").
const FLAG_WORDS: &[&str] = &["opt", "in", "out", "enabled", "consent", "allowed", "flag", "yn", "ind", "indicator", "status", "required", "attached"];

/// Words of money columns.
const MONEY_WORDS: &[&str] = &["price", "cost", "amount", "fee", "fine", "total", "budget", "salary", "earning", "revenue", "paid", "charge", "balance", "due", "owed", "income", "wage", "spend", "spent", "value", "worth", "usd", "eur", "cad", "gbp", "dollar", "bill", "invoice", "payment", "rate", "fare"];
/// Stems of verbs that say a record was made ("logged", "sold", "picked", "caught"): they date
/// the row's own date, the one every row has, not a later event's.
const RECORDING_VERBS: &[&str] = &["logg", "recorded", "registered", "reported", "created", "placed", "filed", "submitted", "raised", "booked", "ordered", "sold", "sell", "bought", "buy", "picked", "pick", "harvested", "collected", "caught", "catch", "entered", "issued", "made"];


/// Words of date columns that say when a row was written down rather than when its event was.
const BOOKKEEPING_DATES: &[&str] = &["created", "updated", "modified", "inserted", "booked", "entered", "recorded", "logged", "deleted", "changed", "last", "imported", "synced"];

impl Reader<'_> {
    pub fn conditions(&mut self) {
        self.averages();
        self.comparisons();
        // "13.5% protein or more": the "or more" past the column's noun is the comparison's.
        for c in self.a.comparisons.clone() {
            if let (Some(t), Some(role)) = (c.tail, self.ledger.role(c.start).map(str::to_string))
                && !self.ledger.is_used(t)
            {
                self.mark(t..t + 2, role);
            }
        }
        // Before the values: "cars that have never been rented" are cars no rental refers to,
        // not cars whose status is other than 'rented'.
        self.never_related_by_value_word();
        self.values();
        self.dates();
        self.flags();
        self.ongoing();
        self.referred_by_another();
        self.never_related();
        self.contains();
    }

    /// Whether the question says the modal word a flag's name opens with, if any
    /// (`allows_pets`: "allow", "allowed", "permitted"; `can_swim`: "can", "able"; `needs_visa`:
    /// "need", "required").
    fn says_flag_modal(&self, field: &str) -> bool {
        let words = names::name_words(field);
        let said: &[&str] = match words.first().map(String::as_str) {
            Some("allow" | "allows") => &["allow", "allows", "allowed", "allowing", "permit", "permits", "permitted", "friendly"],
            Some("can") => &["can", "able", "could", "capable"],
            Some("should") => &["should"],
            Some("need" | "needs") => &["need", "needs", "needed", "needing", "require", "requires", "required", "requiring"],
            _ => return true,
        };
        (0..self.n()).any(|i| said.contains(&self.word(i)))
    }

    /// Amounts compared in a currency (`code`, "eur"): when the amount's table has a currency
    /// column holding several codes, one of them this one, only its rows compare.
    fn currency_of_amounts(&mut self, amount: &ColRef, code: &str) {
        let Some(t) = self.ctx.table(&amount.table) else { return };
        let code = code.to_uppercase();
        let currency = t.columns.iter().find(|c| names::name_words(&c.name).iter().any(|w| w == "currency") && c.values.len() >= 2 && c.values.iter().any(|v| v.eq_ignore_ascii_case(&code)));
        if let Some(c) = currency.filter(|c| !self.q.filters.iter().any(|f| f.col().is_some_and(|x| x.table.eq_ignore_ascii_case(&t.name) && x.column.eq_ignore_ascii_case(&c.name)))) {
            let stored = c.values.iter().find(|v| v.eq_ignore_ascii_case(&code)).cloned().unwrap_or(code);
            let col = ColRef::new(&t.name, &c.name);
            self.notes.push(format!("amounts compared in {stored} only ({col} = '{stored}')"));
            // (An IN list, so that the currency said as a value too merges into it.)
            self.q.filters.push(Cond::In { col, values: vec![Lit::Text(stored)], negated: false });
        }
    }

    /// Numeric columns of the tables in play whose name words include one of `nouns`.
    fn measure_columns(&self, nouns: &[&str]) -> Vec<ColRef> {
        let mut out = Vec::new();
        for t in self.context_tables() {
            let Some(c) = self.schema.collection(&t) else { continue };
            for f in c.fields.iter().filter(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None) {
                let words = names::name_words(&f.name);
                if words.iter().any(|w| nouns.contains(&w.as_str())) {
                    out.push(ColRef::new(&c.name, &f.name));
                }
            }
        }
        out
    }

    /// The column a measure adjective names ("older" → age, "heavier" → weight), if the
    /// tables in play have exactly one such column (or one the question also names).
    pub fn adjective_column(&self, adjective: &str) -> Option<ColRef> {
        let (_, nouns, _) = measure_of(adjective)?;
        let cols = self.measure_columns(nouns);
        if cols.len() == 1 {
            return Some(cols[0].clone());
        }
        if !cols.is_empty() {
            // "the longest route? Give its code and distance": the one the question names.
            let named: Vec<&ColRef> = cols.iter().filter(|c| self.ms.iter().any(|m| m.best().target.field() == Some(c.column.as_str()) && m.best().target.collection().eq_ignore_ascii_case(&c.table))).collect();
            return (named.len() == 1).then(|| named[0].clone());
        }
        // Not in the tables in play: a table one join away ("the tallest poker player").
        let base = self.q.table.clone();
        let mut found = Vec::new();
        for c in &self.schema.collections {
            if c.name.eq_ignore_ascii_case(&base) || self.ctx.join_path(&base, &c.name).is_none_or(|p| p.len() > 1) {
                continue;
            }
            for f in c.fields.iter().filter(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None) {
                if names::name_words(&f.name).iter().any(|w| nouns.contains(&w.as_str())) {
                    found.push(ColRef::new(&c.name, &f.name));
                }
            }
        }
        (found.len() == 1).then(|| found[0].clone())
    }

    /// A numeric column named right before `pos`.
    fn numeric_before(&self, pos: usize) -> Option<(ColRef, usize)> {
        let mi = self.mention_before(pos)?;
        if self.names_table(mi) {
            return None;
        }
        self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c)).map(|(c, _)| (c, mi))
    }

    /// What the number of comparison `c` measures: the column its adjective names ("older"),
    /// what the number counts ("10 participants": related rows, "6 cylinders": a column), the
    /// column named before the cue ("capacity over 5000"), or the one its unit fits.
    fn measured(&self, start: usize, end: usize, adjective: Option<&str>, unit: Option<qa_question::numbers::Unit>) -> Option<Measured> {
        // "more than one of our sites", "at least two of the courses": the rows counted come
        // after "of" and a determiner.
        let end = if unit.is_none() && self.word(end) == "of" && matches!(self.word(end + 1), "our" | "the" | "their" | "its" | "your" | "his" | "her") { end + 2 } else { end };
        if let Some(c) = adjective.and_then(|a| self.adjective_column(a)) {
            return Some(Measured::Col(c, None));
        }
        let after = |mi: usize| -> Option<Measured> {
            let entity = self.entity.clone().unwrap_or_default();
            let child = |t: &str| !entity.is_empty() && !entity.eq_ignore_ascii_case(t) && self.ctx.join_path(&entity, t).is_some_and(|p| p.first().is_some_and(|s| super::ir::multiplies(self.ctx, s)));
            if self.names_table(mi)
                && let Some(t) = self.table(mi)
            {
                if self.entity.as_deref().is_some_and(|e| e.eq_ignore_ascii_case(&t)) {
                    // "hometowns shared by at least two teachers": rows of the entity per group.
                    return Some(Measured::Own(Some(mi)));
                }
                if self.entity.as_deref().is_some_and(|e| self.connected(e, &t)) {
                    return Some(Measured::Rows(t, Some(mi)));
                }
            }
            if let Some(m) = self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c)).map(|(c, _)| Measured::Col(c, Some(mi))) {
                return Some(m);
            }
            // "more than 3 models": rows of a related table the word also names (by a table name
            // or its own label column).
            let mut related: Vec<(usize, String)> = self.readings(mi).into_iter().map(|l| l.target.collection().to_string()).filter(|t| child(t)).map(|t| (self.ctx.join_path(&entity, &t).map(|p| p.len()).unwrap_or(9), t)).collect();
            related.sort();
            related.into_iter().next().map(|(_, t)| Measured::Rows(t, Some(mi)))
        };
        // "under age 30": the column between the cue and the number.
        if let Some(mi) = self.ms.iter().position(|m| m.start > start && m.end <= end && !self.names_table_idx(m))
            && let Some((c, _)) = self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c))
        {
            return Some(Measured::Col(c, Some(mi)));
        }
        // "more than 50 different attendees": what is counted comes after the adjective.
        let mut end = end;
        while matches!(self.word(end), "different" | "distinct" | "unique" | "separate" | "individual") {
            end += 1;
        }
        if let Some(first) = self.ms.iter().position(|m| m.start == end) {
            if let Some((c, _)) = self.fields_of(first).into_iter().find(|(c, _)| self.is_measure(c)).filter(|_| !self.names_table(first)) {
                return Some(Measured::Col(c, Some(first)));
            }
            if let Some(m) = self.head_at(end).and_then(after) {
                return Some(m);
            }
        }
        // "bookings that cost more than 400": the verb measures the rows it is said of, even
        // where another table has a column named by the verb (`maintenance_jobs.cost`).
        if start > 0
            && let Some(nouns) = measure_verb(self.word(start - 1))
            && let Some(entity) = self.entity.clone()
        {
            let own: Vec<ColRef> = self.measure_columns(nouns).into_iter().filter(|c| c.table.eq_ignore_ascii_case(&entity)).collect();
            if own.len() == 1 {
                return Some(Measured::Col(own[0].clone(), None));
            }
        }
        if let Some((c, mi)) = self.numeric_before(start) {
            return Some(Measured::Col(c, Some(mi)));
        }
        // "vehicles that cost more than 40000", "dogs that weigh over 40 kg": a verb that names
        // a measure.
        if start > 0
            && let Some(nouns) = measure_verb(self.word(start - 1))
        {
            let cols = self.measure_columns(nouns);
            if cols.len() == 1 {
                return Some(Measured::Col(cols[0].clone(), None));
            }
        }
        if let Some(m) = self.mention_at(end).and_then(after) {
            return Some(m);
        }
        // By the unit: "over 500 dollars" is a money column, "more than 1 km" a length.
        let u = unit?;
        let mut cols = Vec::new();
        for t in self.context_tables() {
            let Some(c) = self.schema.collection(&t) else { continue };
            for f in c.fields.iter().filter(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None) {
                let fu = field_unit(&f.name);
                // (keys never measure)
                let fits = match fu {
                    Some(fu) => fu.dimension == u.dimension,
                    None => u.dimension == Dimension::Money && names::name_words(&f.name).iter().any(|w| MONEY_WORDS.contains(&w.as_str())),
                };
                if fits {
                    cols.push(ColRef::new(&c.name, &f.name));
                }
            }
        }
        if std::env::var("QA_DEBUG_PLAN").is_ok() {
            eprintln!("unit columns {cols:?} in {:?}", self.context_tables());
        }
        if cols.is_empty()
            && let Some(mi) = self.ms.iter().position(|m| m.start > start && m.end == end && self.names_table_idx(m))
        {
            // "more than one meter" where `meters` is a table and no column is a length: the
            // unit word names the rows counted.
            return after(mi);
        }
        // "invoices over 1,000 euro" beside `amount_eur` and `insurer_share_eur`: the rows'
        // amount.
        if u.dimension == Dimension::Money
            && cols.len() > 1
            && cols.iter().all(|c| c.table == cols[0].table)
            && let Some(m) = self.main_money(&cols[0].table).filter(|m| cols.contains(m))
        {
            return Some(Measured::Col(m, None));
        }
        (cols.len() == 1).then(|| Measured::Col(cols[0].clone(), None))
    }

    /// "older than average", "more than the average capacity", "above the mean price".
    fn averages(&mut self) {
        let avgs: Vec<(usize, usize)> = self.a.aggregates.iter().filter(|g| g.func == AggWord::Avg).map(|g| (g.start, g.end)).collect();
        for (s, e) in avgs {
            let mut p = s;
            while p > 0 && matches!(self.word(p - 1), "the" | "an" | "a") {
                p -= 1;
            }
            let (op, adjective, cue_start) = match (p.checked_sub(1).map(|i| self.word(i)), p.checked_sub(2).map(|i| self.word(i))) {
                (Some("than"), Some(adj)) => {
                    let (base, up) = match measure_of(adj) {
                        Some((b, _, up)) => (Some(b), up),
                        None => (None, !matches!(adj, "less" | "fewer" | "lower" | "smaller" | "below")),
                    };
                    let lesser = p >= 3 && self.word(p - 3) == "less";
                    (if up != lesser { Op::Gt } else { Op::Lt }, base, p - 2 - usize::from(p >= 3 && matches!(self.word(p - 3), "more" | "less")))
                }
                (Some("above" | "over" | "exceeding"), _) => (Op::Gt, None, p - 1),
                (Some("below" | "under"), _) => (Op::Lt, None, p - 1),
                _ => continue,
            };
            // The column: named after "average", by the adjective, or before the cue.
            let after = self.mention_at(e).and_then(|mi| self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c)).map(|(c, _)| (c, Some(mi))));
            // "carry more passengers than the average vessel": the measure said between "more"
            // and "than".
            let between = (p >= 2).then(|| self.ms.iter().position(|m| m.end == p - 1 && m.start > cue_start.saturating_sub(1))).flatten().and_then(|mi| self.fields_of(mi).into_iter().find(|(c, _)| self.is_measure(c)).map(|(c, _)| (c, Some(mi))));
            let col = after.or(between).or_else(|| adjective.and_then(|a| self.adjective_column(a)).map(|c| (c, None))).or_else(|| self.numeric_before(cue_start).map(|(c, mi)| (c, Some(mi))));
            let Some((col, mi)) = col else { continue };
            // "above the average minimum salary of all euro postings": the rows averaged have
            // conditions of their own, which this average over the whole table would not
            // apply. Only their table named there ("of all postings") is the whole table.
            let tail = self.ms.iter().find(|m| m.start == e).map(|m| m.end).unwrap_or(e);
            if matches!(self.word(tail), "of" | "for" | "among" | "across" | "in") {
                let sentence_end = self.a.sentences.iter().find(|&&(a, b)| a <= tail && tail < b).map(|x| x.1).unwrap_or(self.n());
                let names_rows = |j: usize| self.readings(j).iter().any(|l| matches!(&l.target, Target::Collection { collection } if collection.eq_ignore_ascii_case(&col.table)));
                let conditioned = (0..self.ms.len()).any(|j| self.ms[j].start > tail && self.ms[j].start < sentence_end && !names_rows(j));
                if conditioned {
                    self.penalties.push(("conditions said of the rows averaged are not applied to the average".into(), 0.5));
                }
            }
            let sub = Query { table: col.table.clone(), select: vec![Expr::Agg { func: AggFunc::Avg, col: Some(col.clone()) }], ..Query::default() };
            let role = format!("{col} {} AVG({col})", op.sql());
            self.mark(cue_start..e, role.clone());
            if let Some(mi) = mi {
                self.consume(mi, role);
            }
            self.aggs_done.push(s);
            // "… than the average vessel": the rows averaged, named after.
            if let Some(ti) = self.mention_at(e).filter(|&ti| !self.used[ti] && self.table(ti).is_some_and(|t| t.eq_ignore_ascii_case(&col.table))) {
                self.consume(ti, format!("table {}", col.table));
            }
            self.reach.push(col.table.clone());
            self.q.filters.push(Cond::Sub { col, op, query: Box::new(sub) });
        }
    }

    fn comparisons(&mut self) {
        let comps = self.a.comparisons.clone();
        for c in comps {
            let qt = self.a.quantities[c.quantity].clone();
            // A bare number is a condition only next to the column it values.
            let bare = c.cue.is_empty();
            let m = self.measured(c.start, c.end, c.adjective.as_deref(), qt.unit);
            if std::env::var("QA_DEBUG_PLAN").is_ok() {
                eprintln!("comparison {c:?} unit {:?} -> {}", qt.unit, m.is_some());
            }
            let Some(m) = m else { continue };
            // "the 5 vets", "Phase 3 trial": a bare number counts no rows.
            if bare && matches!(m, Measured::Rows(..) | Measured::Own(..)) {
                continue;
            }
            match m {
                Measured::Col(col, mi) => {
                    if bare && mi.is_none() {
                        continue;
                    }
                    let fu = field_unit(&col.column);
                    let conv = |v: f64| match (qt.unit, fu) {
                        (Some(qu), Some(fu)) => convert(v, qu, fu),
                        _ => v,
                    };
                    let value = conv(qt.value);
                    // "whose average life expectancy is longer than 72": a group's aggregate.
                    if let Some(mi) = mi
                        && let Some(g) = self.a.aggregates.iter().find(|g| g.func != AggWord::Count && self.skip_filler(g.end) == self.ms[mi].start && !self.aggs_done.contains(&g.start)).cloned()
                    {
                        let func = match g.func {
                            AggWord::Sum => AggFunc::Sum,
                            AggWord::Max => AggFunc::Max,
                            AggWord::Min => AggFunc::Min,
                            _ => AggFunc::Avg,
                        };
                        let role = format!("{}({col}) {} {}", func.sql(), c.op.sql(), super::ir::number(value));
                        self.aggs_done.push(g.start);
                        self.mark(g.start..g.end, role.clone());
                        self.mark(c.start..c.end, role.clone());
                        self.consume(mi, role);
                        self.reach.push(col.table.clone());
                        self.q.having.push(Having { expr: Expr::Agg { func, col: Some(col) }, op: c.op, value });
                        continue;
                    }
                    let cond = match c.high {
                        Some(h) => Cond::Between { col: col.clone(), lo: value, hi: conv(self.a.quantities[h].value) },
                        None => Cond::Cmp { col: col.clone(), op: c.op, value: Lit::Num(value) },
                    };
                    let role = match &cond {
                        Cond::Between { lo, hi, .. } => format!("{col} BETWEEN {lo} AND {hi}"),
                        _ => format!("{col} {} {}", c.op.sql(), super::ir::number(value)),
                    };
                    self.mark(c.start..c.end, role.clone());
                    if c.start > 0 && measure_verb(self.word(c.start - 1)).is_some() {
                        self.mark(c.start - 1..c.start, role.clone());
                    }
                    // "more than 400 euros" where the rows name their currency: amounts in that
                    // currency only.
                    if let Some(u) = qt.unit.filter(|u| u.dimension == Dimension::Money) {
                        self.currency_of_amounts(&col, u.name);
                        self.rate_unit_after_amount(c.end, &col, &role);
                    }
                    if let Some(mi) = mi {
                        self.consume(mi, role);
                    }
                    self.reach.push(col.table.clone());
                    self.q.filters.push(cond);
                }
                Measured::Own(mi) => {
                    let role = format!("HAVING COUNT {} {}", c.op.sql(), qt.value);
                    self.mark(c.start..c.end, role.clone());
                    if let Some(mi) = mi {
                        self.consume(mi, role);
                    }
                    self.q.having.push(Having { expr: Expr::count(), op: c.op, value: qt.value });
                }
                Measured::Rows(table, mi) => {
                    let Some(entity) = self.entity.clone() else { continue };
                    // "languages spoken by only one country" on a table whose rows each refer to
                    // one country: the values shown are groups, counted by the rows' distinct
                    // references (a row has one related row at most, so no sub-query counts it).
                    if let Some(path) = self.path(&entity, &table, &[])
                        && let [step] = path.as_slice()
                        && !super::ir::multiplies(self.ctx, step)
                        && self.ctx.table(&entity).is_some_and(|t| t.foreign_keys.iter().any(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&step.from_column)))
                    {
                        let role = format!("table {table} (related rows {} {})", c.op.sql(), qt.value);
                        self.mark(c.start..c.end, role.clone());
                        if let Some(mi) = mi {
                            self.consume(mi, role);
                        }
                        let refs = ColRef::new(&step.from_table, &step.from_column);
                        self.q.having.push(Having { expr: Expr::Agg { func: AggFunc::CountDistinct, col: Some(refs) }, op: c.op, value: qt.value });
                        continue;
                    }
                    let Some(mut sub) = self.related_count(&entity, &table, c.op, qt.value) else { continue };
                    // "more than 3 different speakers" named by the related rows' key to them
                    // (`sessions.speaker_id`): the distinct values of that key are counted.
                    let counted_key = mi.and_then(|mi| match &self.ms[mi].best().target {
                        Target::Field { collection, field } if collection.eq_ignore_ascii_case(&table) && self.ctx.table(collection).is_some_and(|t| t.foreign_keys.iter().any(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(field))) => Some(ColRef::new(collection, field)),
                        _ => None,
                    });
                    if let (Some(k), Cond::InSub { query, .. }) = (counted_key, &mut sub)
                        && query.table.eq_ignore_ascii_case(&table)
                        && let Some(h) = query.having.first_mut()
                    {
                        h.expr = Expr::Agg { func: AggFunc::CountDistinct, col: Some(k) };
                    }
                    // "between one and two paragraphs".
                    if let (Some(h), Cond::InSub { query, .. }) = (c.high, &mut sub)
                        && let Some(first) = query.having.first().cloned()
                    {
                        query.having.push(Having { expr: first.expr, op: Op::Le, value: self.a.quantities[h].value });
                    }
                    let role = format!("table {table} (related rows {} {})", c.op.sql(), qt.value);
                    self.mark(c.start..c.end, role.clone());
                    if let Some(mi) = mi {
                        self.consume(mi, role);
                    }
                    self.q.filters.push(sub);
                }
            }
        }
    }

    /// `entity.key IN (SELECT fk FROM … GROUP BY fk HAVING COUNT(*) op n)`: entities with `op n`
    /// related rows of `table`.
    pub fn related_count(&mut self, entity: &str, table: &str, op: Op, n: f64) -> Option<Cond> {
        let path = self.path(entity, table, &[])?;
        let first = path.first()?;
        let key = ColRef::new(&first.to_table, &first.to_column);
        let counted = match self.pk(table) {
            Some(pk) if path.len() > 1 => Expr::Agg { func: AggFunc::CountDistinct, col: Some(pk) },
            _ => Expr::count(),
        };
        let sub = Query { table: first.to_table.clone(), joins: path[1..].to_vec(), select: vec![Expr::col(key.clone())], group_by: vec![Expr::col(key.clone())], having: vec![Having { expr: counted, op, value: n }], ..Query::default() };
        Some(Cond::InSub { col: ColRef::new(&first.from_table, &first.from_column), negated: false, query: Box::new(sub) })
    }

    fn dates(&mut self) {
        let dates = self.a.dates.clone();
        for d in dates {
            let Some((col, mi)) = self.date_target(&d) else { continue };
            // A month or a day is no year: a year column cannot hold "June 2025"; the one date
            // column of the rows counted can, else the date stays unused (and asks).
            let (col, mi) = if self.kind(&col) != FieldKind::Date && sub_year(&d) {
                match self.date_columns(&self.q.table).as_slice() {
                    [one] => (one.clone(), None),
                    _ => continue,
                }
            } else {
                (col, mi)
            };
            let kind = self.kind(&col);
            let cond = if kind == FieldKind::Date {
                if let Some(m) = d.month_of_year {
                    Cond::Month { col: col.clone(), month: m }
                } else {
                    Cond::Dates { col: col.clone(), from: d.from.map(|f| f.format("%Y-%m-%d").to_string()), to: d.to.map(|t| (t + chrono::Duration::days(1)).format("%Y-%m-%d").to_string()) }
                }
            } else {
                // A year column (a number, or four digits as text): compare years.
                use chrono::Datelike;
                let text = kind == FieldKind::Keyword;
                let y = |v: i32| if text { Lit::Text(v.to_string()) } else { Lit::Num(v as f64) };
                match (d.from.map(|f| f.year()), d.to.map(|t| t.year())) {
                    (Some(a), Some(b)) if a == b => Cond::Cmp { col: col.clone(), op: Op::Eq, value: y(a) },
                    (Some(a), Some(b)) if !text => Cond::Between { col: col.clone(), lo: a as f64, hi: b as f64 },
                    (Some(a), Some(b)) => Cond::Or { any: (a..=b).map(|v| Cond::Cmp { col: col.clone(), op: Op::Eq, value: y(v) }).collect() },
                    (Some(a), None) => Cond::Cmp { col: col.clone(), op: Op::Ge, value: y(a) },
                    (None, Some(b)) => Cond::Cmp { col: col.clone(), op: Op::Le, value: y(b) },
                    (None, None) => continue,
                }
            };
            let role = format!("{col} in {}", d.from.or(d.to).map(|x| x.format("%Y-%m-%d").to_string()).unwrap_or_else(|| d.phrase.clone()));
            self.mark(d.start..d.end, role.clone());
            if let Some(mi) = mi {
                self.consume(mi, role.clone());
            }
            // The verb right before the date that dates the rows ("made in 2024", "took place").
            if d.start > 0 {
                let v = d.start - 1;
                let w = self.word(v);
                let verb = w.ends_with("ed") || qa_core::text::is_verb_form(w) || matches!(w, "made" | "held" | "done" | "taken" | "place" | "seen" | "built" | "born" | "sold" | "paid");
                if verb && self.ledger.is_content(v) && !self.ledger.is_used(v) {
                    self.mark(v..v + 1, role);
                }
            }
            self.reach.push(col.table.clone());
            // "in 2014 or 2015", "either 1948 or 1949": one of them.
            let or = d.start > 0 && self.word(d.start - 1) == "or" || d.start > 1 && self.word(d.start - 2) == "or";
            let earlier = self.q.filters.iter().position(|f| f.col() == Some(&col) && matches!(f, Cond::Cmp { .. } | Cond::Dates { .. } | Cond::Between { .. } | Cond::Month { .. } | Cond::Or { .. }));
            match (earlier, or) {
                (Some(i), true) => {
                    let prev = self.q.filters.remove(i);
                    let mut any = match prev {
                        Cond::Or { any } => any,
                        other => vec![other],
                    };
                    any.push(cond);
                    self.q.filters.insert(i, Cond::Or { any });
                }
                // "animals admitted over 2024 and 2025": two whole periods joined by "and" on the
                // rows' own date, which one row has once, are both periods.
                (Some(i), false) if col.table.eq_ignore_ascii_case(&self.q.table) && d.start > 0 && self.word(d.start - 1) == "and" && matches!((&self.q.filters[i], &cond), (Cond::Dates { .. }, Cond::Dates { .. })) => {
                    let prev = self.q.filters.remove(i);
                    self.q.filters.insert(i, Cond::Or { any: vec![prev, cond] });
                    if let Some(k) = (d.start.saturating_sub(5)..d.start).find(|&k| matches!(self.word(k), "over" | "across" | "throughout") && !self.ledger.is_used(k)) {
                        self.mark(k..k + 1, format!("{col} in either period"));
                    }
                }
                (Some(_), false) => {
                    // "before 1945 and after 1955" of one row cannot both hold: the question is
                    // about groups (an intersection) this reading does not build.
                    self.penalties.push((format!("two dates on {col} joined by \"and\""), 0.5));
                    self.q.filters.push(cond);
                }
                (None, _) => self.q.filters.push(cond),
            }
        }
    }

    /// The column a date applies to, and the mention that named it.
    fn date_target(&mut self, d: &DateMention) -> Option<(ColRef, Option<usize>)> {
        let is_year_col = |r: &Reader, c: &ColRef| {
            let named = names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "year" | "yr"));
            let digits = r.schema.field(&c.table, &c.column).is_some_and(|f| f.kind == FieldKind::Keyword && !f.values.is_empty() && f.values.iter().all(|v| v.len() == 4 && v.chars().all(|ch| ch.is_ascii_digit())));
            named && (matches!(r.kind(c), FieldKind::Integer | FieldKind::Number) || digits)
        };
        // Named right before ("hired before 2015", "born in 1990", "created at …").
        let mut p = d.start;
        while p > 0 && matches!(self.word(p - 1), "in" | "on" | "during" | "of" | "was" | "were" | "is" | "are" | "the" | "year" | "since" | "before" | "after" | "from" | "between" | "until" | "by") {
            p -= 1;
        }
        if let Some(mi) = self.ms.iter().position(|m| m.end == p) {
            if let Some((c, _)) = self.fields_of(mi).into_iter().filter(|_| !self.names_table(mi)).find(|(c, _)| self.kind(c) == FieldKind::Date || is_year_col(self, c)) {
                return Some((c, Some(mi)));
            }
            // "a concert in 2014", "a regulatory audit in 2025": the date or year column of the
            // table named (or valued) right before.
            // (Not a row named by its own reference: "visits with the car GX-418-B in 2025" date
            // the visits; one car has one date of its own.)
            let one_row = |r: &Reader, l: &qa_question::Link| matches!(&l.target, Target::Value { collection, field, .. } if r.one_value_per_row(&ColRef::new(collection, field)));
            let before = self.table(mi).filter(|_| self.names_table(mi)).or_else(|| (matches!(self.ms[mi].best().target, Target::Value { .. }) && !one_row(self, self.ms[mi].best())).then(|| self.ms[mi].best().target.collection().to_string()));
            // "failed an inspection in September": a noun read as a column (`inspection_type`)
            // that also names that column's table (`safety_inspections`) dates that table's rows.
            let before = before.or_else(|| {
                let best = self.ms[mi].best();
                let Target::Field { collection, .. } = &best.target else { return None };
                // (Only a table with one date: with several, the verb's pass picks.)
                let one_date = self.date_columns(collection).len() == 1;
                (one_date && self.readings(mi).iter().any(|l| matches!(&l.target, Target::Collection { collection: t } if t.eq_ignore_ascii_case(collection)))).then(|| collection.clone())
            });
            // "members who borrowed a travel book in 2025": a column named for another verb
            // (`published_year`) is not what the clause's verb dates.
            // A verb that names the table itself ("borrowed" as a word for loans) dates it.
            let before_t = before.clone();
            let before_table_word = |i: usize| self.ms.iter().any(|m| m.start <= i && i < m.end && m.links.iter().any(|l| matches!(&l.target, Target::Collection { collection } if before_t.as_deref().is_some_and(|b| b.eq_ignore_ascii_case(collection)))));
            let clause_verbs: Vec<String> = (d.start.saturating_sub(6)..d.start)
                .map(|i| (i, self.word(i).to_string()))
                // (A flag's word — "failed" of `passed` — dates nothing.)
                .filter(|(i, _)| !self.ms.iter().position(|m| m.start <= *i && *i < m.end).is_some_and(|mi| self.readings(mi).iter().any(|l| matches!(&l.target, Target::Field { collection, field } if self.kind(&ColRef::new(collection, field)) == FieldKind::Flag))))
                .filter(|(i, w)| !self.ledger.is_used(*i) && !before_table_word(*i) && w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w)) && !["happen", "occur", "took", "held", "made", "done"].iter().any(|v| w.starts_with(v)))
                .map(|(_, w)| qa_core::text::word_family(&w))
                .collect();
            let finished = (d.start.saturating_sub(6)..d.start).any(|i| completion_verb(self.word(i)));
            let named_for_other_verb = |c: &ColRef| {
                let words = names::name_words(&c.column);
                // ("installations completed in 2024": `installed_on`, their own event's end.)
                if finished && own_event_date(&c.table, &c.column) {
                    return false;
                }
                !clause_verbs.is_empty()
                    && words.iter().any(|w| w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w)))
                    && !words.iter().any(|w| clause_verbs.contains(&qa_core::text::word_family(w)))
            };
            if let Some(t) = before {
                let mut cols = self.date_columns(&t);
                if cols.is_empty() {
                    cols = self.schema.collection(&t).map(|c| c.fields.iter().map(|f| ColRef::new(&c.name, &f.name)).filter(|c| is_year_col(self, c)).collect()).unwrap_or_default();
                }
                // The semantic file's default date stays; another verb's date goes. When that
                // leaves dates nothing names ("loaned_on, due_on" for "borrowed"), the verb did not
                // say which: the date stays unused.
                let default = self.ctx.default_date(&t);
                let n = cols.len();
                cols.retain(|c| default.as_deref().is_some_and(|d| d.eq_ignore_ascii_case(&c.column)) || !named_for_other_verb(c));
                if cols.len() < n && !cols.is_empty() && cols.iter().all(|c| default.as_deref().is_none_or(|d| !d.eq_ignore_ascii_case(&c.column))) {
                    return None;
                }
                // "members who borrowed a book in 2025": the book has no date of that verb; the
                // one dated table on the way back to the rows asked about (the loans) does.
                if cols.is_empty()
                    && let Some(path) = self.ctx.join_path(&self.q.table, &t)
                {
                    // A table's default date (semantic file) is its date.
                    let between: Vec<ColRef> = path
                        .iter()
                        .filter(|s| !s.to_table.eq_ignore_ascii_case(&t))
                        .flat_map(|s| match self.ctx.default_date(&s.to_table) {
                            Some(d) => vec![ColRef::new(&s.to_table, &d)],
                            None => self.date_columns(&s.to_table),
                        })
                        .collect();
                    match between.len() {
                        0 => {}
                        1 => {
                            self.reach.push(t.clone());
                            return Some((between[0].clone(), None));
                        }
                        // Several dates there and no word says which: the date stays unused.
                        _ => return None,
                    }
                }
                if cols.is_empty()
                    && let Some(c) = self.parent_date(&t)
                {
                    return Some((c, None));
                }
                if cols.len() == 1 {
                    self.reach.push(t.clone());
                    // "the revenue of each shop in 2024": the groups' date is a guess; the
                    // finish moves it to the date of the rows measured (`date_the_measured_rows`).
                    let s = self.ms[mi].start;
                    if s > 0 && matches!(self.word(s - 1), "each" | "per" | "every") {
                        self.guessed_dates.push(cols[0].clone());
                    }
                    return Some((cols[0].clone(), None));
                }
                if let Some(d) = self.ctx.default_date(&t).filter(|_| cols.len() > 1)
                    && let Some(c) = cols.iter().find(|c| c.column.eq_ignore_ascii_case(&d))
                {
                    self.reach.push(t.clone());
                    return Some((c.clone(), None));
                }
            }
        }
        // "in 2024" after a mention of a year column ("year 2014", "the year of 1970").
        if d.year.is_some()
            && let Some(mi) = self.ms.iter().position(|m| m.end == d.start || m.end + 1 == d.start && self.word(m.end) == "of")
            && let Some((c, _)) = self.fields_of(mi).into_iter().find(|(c, _)| is_year_col(self, c))
        {
            return Some((c, Some(mi)));
        }
        // A verb of the family of a date column anywhere ("enrolled", "registered"); first the
        // one right before the date ("the hedgehogs admitted in 2025 that were released": the
        // admission is dated, not the release).
        let right_before = |m: &qa_question::Mention| m.end == d.start || m.end + 1 == d.start && matches!(self.word(m.end), "in" | "on" | "during" | "since" | "before" | "after" | "between" | "from");
        let mut order: Vec<usize> = (0..self.ms.len()).filter(|&mi| right_before(&self.ms[mi])).collect();
        order.extend((0..self.ms.len()).filter(|&mi| !right_before(&self.ms[mi])));
        for mi in order {
            if self.used[mi] {
                continue;
            }
            let verb = {
                let w = self.word(self.ms[mi].start);
                self.ms[mi].end == self.ms[mi].start + 1 && w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w))
            };
            let fam: Vec<ColRef> = self.readings(mi).into_iter().filter(|l| l.how == How::Family || verb).filter_map(|l| match &l.target {
                Target::Field { collection, field } => Some(ColRef::new(collection, field)),
                _ => None,
            }).filter(|c| self.kind(c) == FieldKind::Date).collect();
            let ctx = self.context_tables();
            if let Some(c) = fam.iter().find(|c| ctx.iter().any(|t| t.eq_ignore_ascii_case(&c.table))).or(fam.first()) {
                return Some((c.clone(), Some(mi)));
            }
        }
        // A date column of a table in play whose name shares a word with the question ("closed
        // their accounts in 2024" → `closed_date`), even a word read as something else.
        let words: Vec<String> = self.a.tokens.iter().filter(|t| t.is_word() && t.lower.len() >= 4).map(|t| qa_core::text::word_family(&t.lower)).collect();
        for t in self.context_tables() {
            let cols = self.date_columns(&t);
            let named: Vec<&ColRef> = cols.iter().filter(|c| names::name_words(&c.column).iter().filter(|w| w.len() >= 4 && !matches!(w.as_str(), "date" | "time")).any(|w| words.contains(&qa_core::text::word_family(w)))).collect();
            if named.len() == 1 && cols.len() > 1 {
                return Some((named[0].clone(), None));
            }
        }
        // "books borrowed in 2025": a column named for another verb (`published_year`) is not
        // what the verb dates.
        // Verbs that only say something took place date nothing in particular.
        let event = |w: &str| ["happen", "occur", "took", "take", "held", "hold", "made", "done", "there", "place"].iter().any(|v| w.starts_with(v));
        // (A flag's word — "inspections failed in 2025" of `passed` — dates nothing.)
        let flag_at = |i: usize| self.ms.iter().position(|m| m.start <= i && i < m.end).is_some_and(|mi| self.readings(mi).iter().any(|l| matches!(&l.target, Target::Field { collection, field } if self.kind(&ColRef::new(collection, field)) == FieldKind::Flag)));
        let verb_at = (1..=2).filter_map(|k| d.start.checked_sub(k)).filter(|&i| !flag_at(i)).find(|&i| {
            let w = self.word(i);
            w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w) || completion_verb(w)) && !event(w)
        });
        let verb_before = verb_at.map(|i| self.word(i).to_string());
        // "invoiced in 2024" of invoices: a verb of the table's own name makes the row; it is
        // no other event's verb.
        let own_verb = |t: &str, w: &str| names::name_words(t).iter().any(|tw| tw.len() >= 4 && qa_core::text::word_family(tw) == qa_core::text::word_family(w));
        let other_verb = |c: &ColRef| {
            let Some(v) = verb_before.as_ref().filter(|v| !RECORDING_VERBS.iter().any(|r| v.starts_with(r)) && !own_verb(&c.table, v)) else { return false };
            // "installations completed in 2024": a verb of finishing says the date of the
            // rows' own event (`installed_on`), the end of what they record.
            if completion_verb(v) && own_event_date(&c.table, &c.column) {
                return false;
            }
            let vf = qa_core::text::word_family(v);
            let words = names::name_words(&c.column);
            words.iter().any(|w| w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w))) && !words.iter().any(|w| qa_core::text::word_family(w) == vf)
        };
        // The tables in play: their only date column, else the default one (a guess; the
        // finish may move it to the measured rows' date, see `Reader::guessed_dates`).
        for t in self.context_tables() {
            let mut cols: Vec<ColRef> = self.date_columns(&t).into_iter().filter(|c| !other_verb(c)).collect();
            // Bookkeeping dates (when the row was created, booked, updated) do not date what the
            // row records: "appointments in 2024" are scheduled in 2024, not booked then.
            let record = |c: &ColRef| names::name_words(&c.column).iter().any(|w| BOOKKEEPING_DATES.contains(&w.as_str()));
            if cols.len() > 1 && cols.iter().filter(|c| !record(c)).count() == 1 {
                cols.retain(|c| !record(c));
            }
            // One date every row has and others that only some rows have (a closing date, a
            // payment date): the row's own date is the one it always has.
            let always = |c: &ColRef| self.schema.field(&c.table, &c.column).is_some_and(|f| !f.nullable);
            // Only when no verb says which event is dated ("ended in 2022", "activated … in 2023").
            // (A verb of making a record — "logged", "sold", "picked" — dates the row's own date.)
            let verb_in_clause = (d.start.saturating_sub(6)..d.start).any(|i| {
                let w = self.word(i);
                !self.ledger.is_used(i) && !event(w) && w.len() > 4 && (w.ends_with("ed") || qa_core::text::is_verb_form(w) || completion_verb(w)) && !RECORDING_VERBS.iter().any(|v| w.starts_with(v)) && !own_verb(&t, w)
            });
            if cols.len() > 1 && !verb_in_clause && cols.iter().filter(|c| always(c)).count() == 1 {
                cols.retain(|c| always(c));
                self.notes.push(format!("the date read as {} (the one date every row has)", cols[0]));
            }
            // A span's two ends (`start_time` and `end_time`): what is dated is when it starts,
            // unless a word says the end (that word picked the column before this point).
            let end_words = |c: &ColRef| names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "end" | "finish" | "stop" | "until" | "to"));
            let start_words = |c: &ColRef| names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "start" | "begin" | "from"));
            let says_end = (0..self.n()).any(|i| matches!(self.word(i), "end" | "ends" | "ended" | "ending" | "finish" | "finishes" | "finished" | "stop" | "stopped" | "complete" | "completed" | "concluded" | "closed" | "until" | "till" | "last" | "lasted" | "arrived" | "arrive" | "arrives" | "returned" | "landed" | "docked"));
            if cols.len() == 2 && !says_end && cols.iter().filter(|c| start_words(c)).count() == 1 && cols.iter().filter(|c| end_words(c)).count() == 1 {
                cols.retain(|c| start_words(c));
                self.notes.push(format!("the date read as {} (when it starts)", cols[0]));
            }
            // A deadline beside the event's own date, unless a word says the end.
            if cols.len() > 1 && !says_end && cols.iter().filter(|c| !deadline(c)).count() == 1 {
                cols.retain(|c| !deadline(c));
                self.notes.push(format!("the date read as {} (the other is a deadline)", cols[0]));
            }
            // "admissions in June 2025" of `admitted_on` beside `discharged_on`: the date named
            // by the verb of the rows' own noun is when each row happened.
            let own_date = |c: &ColRef| own_event_date(&t, &c.column);
            if cols.len() > 1 && !verb_in_clause && cols.iter().filter(|c| own_date(c)).count() == 1 {
                cols.retain(own_date);
                self.notes.push(format!("the date read as {} (the date of the rows' own event)", cols[0]));
            }
            if !cols.is_empty() {
                self.guessed_dates.push(cols[0].clone());
            }
            // (The verb of finishing said that date: it is used.)
            if let (Some(i), Some(c)) = (verb_at, cols.first())
                && !self.ledger.is_used(i)
                && completion_verb(self.word(i))
                && own_event_date(&t, &c.column)
            {
                self.mark(i..i + 1, format!("{c} (its verb)"));
            }
            match cols.len() {
                0 => {}
                1 => return Some((cols[0].clone(), None)),
                _ => {
                    let chosen = cols[0].clone();
                    let default = self.ctx.default_date(&t).is_some_and(|x| x.eq_ignore_ascii_case(&chosen.column));
                    if !default {
                        self.penalties.push((format!("the date read as {chosen} (the table has {} date columns)", cols.len()), 0.75));
                    }
                    return Some((chosen, None));
                }
            }
            let years: Vec<ColRef> = self.schema.collection(&t).map(|c| c.fields.iter().map(|f| ColRef::new(&c.name, &f.name)).filter(|c| is_year_col(self, c) && !other_verb(c)).collect()).unwrap_or_default();
            if years.len() == 1 {
                return Some((years[0].clone(), None));
            }
            if self.date_columns(&t).is_empty()
                && years.is_empty()
                && let Some(c) = self.parent_date(&t)
            {
                return Some((c, None));
            }
        }
        None
    }

    /// The negation at `j` follows a value of `table` said as the subject ("English is not …"),
    /// and `table` holds many rows per row of the query's table.
    fn negates_group(&self, j: usize, table: &str) -> bool {
        let mut p = j;
        while p > 0 && matches!(self.word(p - 1), "is" | "are" | "was" | "were") {
            p -= 1;
        }
        if p == j || p == 0 {
            return false;
        }
        let value_before = self.ledger.role(p - 1).is_some_and(|r| r.to_ascii_lowercase().starts_with(&format!("{}.", table.to_ascii_lowercase())) && r.contains(" = '"));
        let fans = !table.eq_ignore_ascii_case(&self.q.table) && self.ctx.join_path(&self.q.table, table).is_some_and(|path| path.iter().any(|s| super::ir::multiplies(self.ctx, s)));
        value_before && fans
    }

    /// Flags said by their adjective ("retired", "inactive", "not archived") and optional
    /// columns said with "with" / "without" / "never".
    fn flags(&mut self) {
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            let readings: Vec<qa_question::Link> = self.readings(mi).into_iter().cloned().collect();
            let ctx = self.context_tables();
            // The particle of a phrasal verb is part of what the flag says: "sold" is not
            // `is_sold_out` ("opt" of `sms_opt_in` is no verb).
            let one_word = |l: &qa_question::Link| {
                l.target.field().is_some_and(|f| {
                    let w = names::name_words(f);
                    let said = (0..w.len()).filter(|&i| {
                        let particle = matches!(w[i].as_str(), "in" | "out" | "off" | "up") && i > 0 && !matches!(w[i - 1].as_str(), "opt" | "is" | "has" | "was");
                        particle || !qa_question::names::FLAG_PREFIXES.contains(&w[i].as_str()) && !FLAG_WORDS.contains(&w[i].as_str())
                    });
                    said.count() <= 1
                })
            };
            // A two-word family reading ("paperless bills" of `paperless_billing`) names the whole flag.
            let flag = readings.iter().filter(|l| (!matches!(l.how, How::Part | How::Head | How::Acronym | How::Joined | How::Family) || one_word(l) || l.how == How::Family && l.len() >= 2) && matches!(&l.target, Target::Field { collection, field } if self.kind(&ColRef::new(collection, field)) == FieldKind::Flag)).max_by(|a, b| {
                let ia = ctx.iter().any(|t| t.eq_ignore_ascii_case(a.target.collection()));
                let ib = ctx.iter().any(|t| t.eq_ignore_ascii_case(b.target.collection()));
                (ia, a.score).partial_cmp(&(ib, b.score)).unwrap_or(std::cmp::Ordering::Equal)
            });
            if let Some(l) = flag {
                let (Some(t), Some(f)) = (Some(l.target.collection().to_string()), l.target.field().map(str::to_string)) else { continue };
                // "Which tenants keep a pet?" is no `allows_pets`: a flag of permission, ability
                // or need is said with its modal word ("allow", "permitted", "can", "needs").
                if !self.says_flag_modal(&f) {
                    continue;
                }
                // A flag named by its adjective must be the best reading, or of a table in play.
                if self.ms[mi].best().target != l.target && !ctx.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                    continue;
                }
                let col = ColRef::new(&t, &f);
                // "refunded ones included", "including cancelled ones": the flagged rows are
                // counted too, so the flag is no condition.
                let (fs, fe) = (self.ms[mi].start, self.ms[mi].end);
                let included = (fe..(fe + 3).min(self.n())).any(|k| matches!(self.word(k), "included" | "too")) || (fs.saturating_sub(2)..fs).any(|k| matches!(self.word(k), "including" | "incl"));
                if included {
                    let marks: Vec<usize> = (fs.saturating_sub(2)..(fe + 3).min(self.n())).filter(|&k| matches!(self.word(k), "included" | "too" | "including" | "incl" | "ones" | "one")).collect();
                    for k in marks {
                        self.mark(k..k + 1, format!("{col}: either value"));
                    }
                    self.consume(mi, format!("{col}: either value"));
                    continue;
                }
                // "signed consent" for `consent_signed`: two words of one flag are one condition.
                if self.q.filters.iter().any(|x| matches!(x, Cond::Cmp { col: c, .. } if *c == col)) {
                    self.consume(mi, format!("{col} flag"));
                    continue;
                }
                let neg = self.negation_before(self.ms[mi].start);
                // "English is not the official language" on rows related to many: the value and
                // the flag hold together for no related row.
                // "stages that have never had a headliner": no related row has the flag (said of
                // existence: "never", "no", "without", "not … have/any").
                let start = self.ms[mi].start;
                let of_existence = neg.is_some_and(|j| matches!(self.word(j), "never" | "no" | "without") || (j + 1..start).any(|k| matches!(self.word(k), "have" | "has" | "had" | "any")));
                let fans = !t.eq_ignore_ascii_case(&self.q.table) && self.ctx.join_path(&self.q.table, &t).is_some_and(|p| p.iter().any(|s| super::ir::multiplies(self.ctx, s)));
                // "students who board at a stop without a shelter": "without" right after a noun
                // of the flag's own table says the flag of that row, not of a group of rows.
                let of_own_rows = neg.is_some_and(|j| self.word(j) == "without" && self.mention_before(j).is_some_and(|m| self.ms[m].end == j && self.table(m).is_some_and(|x| x.eq_ignore_ascii_case(&t))));
                let group = !of_own_rows && (neg.filter(|&j| self.negates_group(j, &t)).is_some() || of_existence && fans);
                if group {
                    self.negated_groups.push(t.clone());
                }
                let value = l.negated == (neg.is_some() && !group);
                if let Some(j) = neg {
                    self.mark(j..j + 1, "negation");
                }
                let role = format!("{col} = {value}");
                self.consume(mi, role);
                self.reach.push(t.clone());
                self.q.filters.push(Cond::Cmp { col: col.clone(), op: Op::Eq, value: flag_literal(self.ctx, &t, &f, value) });
                continue;
            }
            // Optional columns: "never calibrated", "without a discount code", "with a phone".
            // (Not through a spelling: "never been reserved" is no `referred_by_…` left empty.)
            if self.names_table(mi) || self.ms[mi].best().how == How::Fuzzy {
                continue;
            }
            let Some(col) = self.field(mi) else { continue };
            let nullable = self.schema.field(&col.table, &col.column).is_some_and(|f| f.nullable);
            if !nullable {
                continue;
            }
            let start = self.ms[mi].start;
            let neg = self.negation_before(start);
            let with = start > 0 && matches!(self.word(start - 1), "with" | "has" | "have" | "had") || start > 1 && matches!(self.word(start - 1), "a" | "an" | "any") && matches!(self.word(start - 2), "with" | "has" | "have" | "had");
            if neg.is_none() && !with {
                continue;
            }
            // ("Which nurses have never reported an incident?": "never" said of the rows asked
            // about and another table's rows is that no such row refers to them, not an empty
            // `incidents.reported_on`.)
            if neg.is_some_and(|j| self.word(j) == "never") && !col.table.eq_ignore_ascii_case(&self.q.table) && self.entity.as_deref().is_some_and(|e| !col.table.eq_ignore_ascii_case(e)) {
                continue;
            }
            if let Some(j) = neg {
                self.mark(j..j + 1, "negation");
            }
            // ("ingredients with gelatine", "no gelatine" of the 0/1 flag `contains_gelatine`:
            // its 1 or 0, never a test for NULL, which a flag always passes.)
            if self.kind(&col) == FieldKind::Flag {
                let value = neg.is_none();
                self.consume(mi, format!("{col} = {value}"));
                self.reach.push(col.table.clone());
                let lit = flag_literal(self.ctx, &col.table, &col.column, value);
                self.q.filters.push(Cond::Cmp { col, op: Op::Eq, value: lit });
                continue;
            }
            let is_null = neg.is_some();
            self.consume(mi, format!("{col} {}", if is_null { "IS NULL" } else { "IS NOT NULL" }));
            self.reach.push(col.table.clone());
            self.q.filters.push(Cond::Null { col, is_null });
        }
    }

    /// "whose names contain 'Al'", "mentioning the VPN": text that must be contained.
    fn contains(&mut self) {
        for i in 0..self.n() {
            let w = self.word(i).to_string();
            if !matches!(w.as_str(), "contain" | "contains" | "containing" | "include" | "includes" | "including" | "mention" | "mentions" | "mentioning" | "substring" | "word") {
                continue;
            }
            // The text: a quoted literal within the next three tokens.
            let Some(k) = (i + 1..(i + 4).min(self.n())).find(|&k| self.a.tokens[k].kind == qa_question::tokens::TokenKind::Quoted) else { continue };
            if self.ledger.is_used(k) {
                continue;
            }
            let text = self.a.tokens[k].text.clone();
            // The column: a text column named before the verb, else the entity's label.
            let before = self.mention_before(i).and_then(|mi| self.fields_of(mi).into_iter().find(|(c, _)| self.kind(c).is_textual()).map(|(c, _)| (c, mi)));
            let (col, mi) = match before {
                Some((c, mi)) => (c, Some(mi)),
                None => match self.entity.clone().and_then(|e| self.label(&e).into_iter().next()) {
                    Some(c) => (c, None),
                    None => continue,
                },
            };
            let neg = self.negation_before(i);
            let role = format!("{col} LIKE '%{text}%'");
            self.mark(i..k + 1, role.clone());
            if let Some(mi) = mi {
                self.consume(mi, role);
            }
            self.q.filters.push(Cond::Like { col, text, negated: neg.is_some() });
        }
    }
}

/// The date names less than whole years ("June 2025", "9 August", "every March").
fn sub_year(d: &DateMention) -> bool {
    use chrono::Datelike;
    d.month_of_year.is_some()
        || d.from.is_some_and(|f| f.month() != 1 || f.day() != 1)
        || d.to.is_some_and(|t| t.month() != 12 || t.day() != 31)
}
