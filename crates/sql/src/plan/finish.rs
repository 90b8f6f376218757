//! The last pass: related tables named without a condition ("members with loans", "people that
//! are not poker players"), joins along foreign keys to every table the plan reads, the words
//! that relate two joined tables ("singers who performed in …"), a stable order for lists, and
//! the outcome with its coverage and confidence.

use qa_question::cues::Op;
use qa_question::link::{How, Target};

use super::super::schema::JoinStep;
use super::ir::{multiplies, tests_column, AggFunc, ColRef, Cond, Expr, Lit, Query};
use super::sql_coverage::role_table;
use super::read::Reader;
use super::{clarifying_text, PlanOutcome, AMBIGUITY_THRESHOLD};

impl Reader<'_> {
    /// "cars with 8 cylinders or made before 1980": two different conditions joined by "or".
    /// The query requires every condition, so it would answer another question: ask instead.
    /// (Values of one column joined by "or" are one `IN` list and read fine.)
    fn alternatives(&mut self) {
        let condition = |r: &str| {
            r.contains("(related rows")
                || !(r.starts_with("show") || r.starts_with("table ") || r.starts_with("group by") || r.starts_with("order by") || r.starts_with("limit ") || r.starts_with("aggregate") || matches!(r, "negation" | "distinct" | "relation"))
        };
        // What a condition is on: its column ("pets.type = 'cat'" and "pets.type = 'dog'" are
        // one list), or the related rows it counts.
        let subject = |r: &str| if r.starts_with("table ") { r.to_string() } else { r.split(' ').next().unwrap_or(r).to_string() };
        for i in 1..self.n() {
            if self.word(i) != "or" || self.a.comparisons.iter().any(|c| c.start <= i && i < c.end) {
                continue;
            }
            let role_at = |k: usize| self.ledger.role(k).filter(|r| condition(r)).map(str::to_string);
            let before = (0..i).rev().take(8).find_map(role_at);
            let after = (i + 1..self.n()).take(8).find_map(role_at);
            if let (Some(b), Some(a)) = (before, after)
                && condition(&b)
                && condition(&a)
                && subject(&a) != subject(&b)
            {
                self.penalties.push((format!("either {b} or {a} (the query would require both)"), 0.4));
                return;
            }
        }
    }

    pub fn finish(mut self) -> PlanOutcome {
        self.related_tables();
        self.related_values();
        self.totals_of_related_rows();
        // A group condition needs groups: the shown columns, else it cannot be asked.
        if !self.q.having.is_empty() && self.q.group_by.is_empty() {
            // The groups are what is shown, without the key a list adds.
            let pk = self.pk(&self.q.table).map(Expr::col);
            let n = self.q.select.len();
            self.q.select.retain(|e| Some(e) != pk.as_ref() || n == 1);
            self.q.group_by = self.q.select.iter().filter(|e| !e.is_agg()).cloned().collect();
            if self.q.group_by.is_empty() {
                self.penalties.push(("a condition on a number of rows without the rows it groups".into(), 0.5));
            }
        }
        self.times_counted_by_verb();
        self.dates_of_counted_rows();
        self.date_the_measured_rows();
        self.verb_of_the_dated_rows();
        self.the_date_is_the_ranked_date();
        self.first_and_last_names();
        self.model_with_its_maker();
        self.dates_asked_for();
        self.kind_asked_for();
        self.aggregates_and_directions_said_again();
        self.time_order_said();
        self.first_or_last_by_verb();
        self.rows_named_in_the_list_are_shown();
        self.amount_of_a_named_row();
        self.what_chose_the_rows_is_shown();
        self.root_nothing_reads();
        let mut fixes = Vec::new();
        self.join(&mut fixes);
        self.kin();
        self.second_role();
        self.kin_groups();
        self.who_shows_a_name();
        self.account();
        self.audit();
        // A list without an order gets its key's order, so that pages are stable.
        let fans = self.q.joins.iter().any(|j| multiplies(self.ctx, j));
        if self.q.order_by.is_empty() && !self.q.aggregates() && self.q.group_by.is_empty() && !self.q.distinct && !fans && self.q.set_op.is_none()
            && let Some(pk) = self.pk(&self.q.table)
        {
            self.q.order_by.push((Expr::col(pk), false));
        }
        // "Which booking channels have passengers used?": a question for one column's values
        // (the question word right before it, a column whose values repeat, not the rows'
        // label) asks for the set of values, not one per row.
        if self.q.select.len() == 1
            && !self.q.aggregates()
            && self.q.group_by.is_empty()
            && self.q.limit.is_none()
            && let Some(Expr::Col { col }) = self.q.select.first()
            && self.a.sentences.iter().any(|&(s, _)| matches!(self.word(s), "which" | "what") && self.ledger.role(s + 1).is_some_and(|r| r == format!("show {col}")))
            // (Not "what details … about students": an attribute of rows the question names.)
            && !self.ms.iter().any(|m| matches!(&m.best().target, Target::Collection { collection } if collection.eq_ignore_ascii_case(&col.table)))
            && self.schema.field(&col.table, &col.column).is_some_and(|f| f.kind.is_textual() && f.key == qa_question::KeyRole::None)
            && !self.label(&col.table).contains(col)
            && self.ctx.table(&col.table).is_some_and(|t| t.row_count.is_some_and(|n| t.column(&col.column).and_then(|c| c.distinct).is_some_and(|d| d < n)))
        {
            self.q.distinct = true;
            self.q.order_by.retain(|(e, _)| matches!(e, Expr::Col { col: c } if c == col));
        }
        // "the regions that use English": one attribute of rows chosen through related rows is a
        // set of values.
        // Only when the attribute is what the question is about: "the package options of the
        // tv channels that …" lists channels.
        let table_named = self.ms.iter().any(|m| matches!(&m.best().target, Target::Collection { collection } if collection.eq_ignore_ascii_case(&self.q.table)));
        if self.q.select.len() == 1
            && !table_named
            && !self.q.aggregates()
            && self.q.group_by.is_empty()
            && let Some(Expr::Col { col }) = self.q.select.first()
            && col.table.eq_ignore_ascii_case(&self.q.table)
            && self.schema.field(&col.table, &col.column).is_some_and(|f| f.kind.is_textual() && f.key == qa_question::KeyRole::None)
            && !self.label(&col.table).contains(col)
            && self.q.filters.iter().any(|f| {
                matches!(f, Cond::InSub { .. })
                    || f.tables().iter().any(|t| !t.eq_ignore_ascii_case(&self.q.table) && self.ctx.join_path(&self.q.table, t).is_some_and(|p| p.iter().any(|s| multiplies(self.ctx, s))))
            })
        {
            self.q.distinct = true;
            self.q.order_by.retain(|(e, _)| matches!(e, Expr::Col { col: c } if c == col));
            // "the countries that are not playing cartoons by X": no row of the country is
            // related — the attribute's values minus those of related rows.
            let attr = col.clone();
            let table = self.q.table.clone();
            for f in self.q.filters.iter_mut() {
                if let Cond::InSub { col: key, negated: true, query } = f {
                    let related = Query { table: table.clone(), select: vec![Expr::col(attr.clone())], filters: vec![Cond::InSub { col: key.clone(), negated: false, query: query.clone() }], ..Query::default() };
                    *f = Cond::InSub { col: attr.clone(), negated: true, query: Box::new(related) };
                }
            }
        }
        self.tables_said_are_read();
        self.domain_of_the_database();
        self.alternatives();
        let (coverage, confidence) = self.ledger.coverage(std::mem::take(&mut self.penalties));
        let intent = serde_json::json!({
            "links": self.links_json(),
            "entity": self.entity,
            "table": self.q.table,
            "select": self.q.select,
            "filters": self.q.filters,
            "group_by": self.q.group_by,
            "order_by": self.q.order_by,
            "limit": self.q.limit,
            "notes": self.notes,
        });
        let ambiguity = self.ambiguity.take().filter(|a| a.score >= AMBIGUITY_THRESHOLD);
        let clarifying_question = ambiguity.as_ref().map(|a| clarifying_text(a, &format!("What does \"{}\" refer to?", a.phrase)));
        PlanOutcome { intent, plan: Some(self.q), confidence, coverage, fixes, ambiguity, clarifying_question }
    }

    /// "Which parking meters are out of order?" in a database `parking_enforcement`: a word of
    /// the database's own name that names nothing in it is the domain every question is in.
    fn domain_of_the_database(&mut self) {
        // ("turned down", "signed off", "handed down": the particle of a phrasal verb goes with
        // its verb's reading.)
        for i in 1..self.n() {
            if self.ledger.is_used(i) || !matches!(self.word(i), "off" | "down" | "up" | "out" | "back" | "over") {
                continue;
            }
            let verb = self.word(i - 1).to_string();
            // (Not a verb read only as relating two tables: "turned down" says how, a status the
            // plan would miss.)
            if let Some(role) = self.ledger.role(i - 1).map(str::to_string).filter(|r| r != "relation")
                && (qa_question::cues::is_light_verb(&verb) || verb.ends_with("ed"))
            {
                self.mark(i..i + 1, role);
            }
        }
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !self.ledger.is_content(i) || !self.a.tokens[i].is_word() {
                continue;
            }
            let named = self.ms.iter().any(|m| m.start <= i && i < m.end);
            if !named && self.ctx.domain_words.contains(&self.a.tokens[i].norm) {
                self.mark(i..i + 1, "domain");
            }
        }
    }

    /// A word the ledger reads as a table the statement never reads ("our biggest customers"
    /// answered from another table): the plan lost what the question is about, so it asks.
    fn tables_said_are_read(&mut self) {
        let read = super::ir::rendered_tables(self.ctx, &self.q);
        // (A table one key away is read through that key: "never booked a sailing" tests
        // `bookings.sailing_id`.)
        let steps = self.ctx.fk_steps();
        let near = |t: &str| read.iter().any(|x| x.eq_ignore_ascii_case(t) || steps.iter().any(|s| s.from_table.eq_ignore_ascii_case(x) && s.to_table.eq_ignore_ascii_case(t) || s.to_table.eq_ignore_ascii_case(x) && s.from_table.eq_ignore_ascii_case(t)));
        let mut missed: Vec<String> = Vec::new();
        for i in 0..self.n() {
            let Some(t) = self.ledger.role(i).filter(|r| r.starts_with("table ")).and_then(role_table) else { continue };
            // (Nor a word that also names a column the statement reads: "fees" of
            // `match_officials.fee_eur` beside a table `fees`.)
            let field_read = self.ms.iter().enumerate().any(|(mi, m)| m.start <= i && i < m.end && self.readings(mi).iter().any(|l| matches!(&l.target, Target::Field { collection, .. } if read.iter().any(|x| x.eq_ignore_ascii_case(collection)))));
            if !near(t) && !field_read && !missed.iter().any(|x| x.eq_ignore_ascii_case(t)) {
                missed.push(t.to_string());
            }
        }
        for t in missed {
            self.penalties.push((format!("table {t}, which the question names, is not read by the query nor one key away"), 0.5));
        }
    }

    /// "How much does a Black Forest cake cost?": "how much" of one row named by its label is
    /// that row's amount, shown with its name — not a sum over the rows that share the name.
    fn amount_of_a_named_row(&mut self) {
        let [Expr::Agg { func: AggFunc::Sum, col: Some(measure) }] = self.q.select.as_slice() else { return };
        // (Not when a total is asked for: "how much … in total".)
        let total = (0..self.n()).any(|i| matches!(self.word(i), "total" | "altogether" | "combined" | "overall" | "sum"));
        if total || !self.q.group_by.is_empty() || !self.q.having.is_empty() || !self.a.aggregates.iter().any(|g| self.word(g.start) == "how" && self.word(g.start + 1) == "much") {
            return;
        }
        let label = self.label(&measure.table);
        let named = !self.q.filters.is_empty()
            && self.q.filters.iter().all(|f| matches!(f, Cond::In { col, values, negated: false } if values.len() == 1 && label.contains(col) && self.is_name_column(col)));
        if !named {
            return;
        }
        let measure = measure.clone();
        self.q.select = label.into_iter().map(Expr::col).chain(std::iter::once(Expr::col(measure.clone()))).collect();
        self.notes.push(format!("\"how much\" of one named row: its {measure}, not a sum"));
    }

    /// "Which artists have other details on file?", "customers with a phone number": rows
    /// listed because an optional text column is filled show what it holds; rows chosen by a
    /// comparison or a date show the measure compared or the date.
    fn what_chose_the_rows_is_shown(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() || self.q.distinct || self.q.select.is_empty() {
            return;
        }
        // (Likewise the measure a comparison chose them by: "Which ingredients cost more than
        // 10 euros a kilo?" shows the price per kilo.)
        let filled: Vec<ColRef> = self
            .q
            .filters
            .iter()
            .filter_map(|f| match f {
                Cond::Null { col, is_null: false } => Some(col.clone()).filter(|c| self.schema.field(&c.table, &c.column).is_some_and(|f| f.kind.is_textual())),
                Cond::Cmp { col, value: Lit::Num(_), .. } | Cond::Between { col, .. } => Some(col.clone()).filter(|c| self.kind(c).is_numeric()),
                // "Which instruments were commissioned in 2024?": the date that chose each row.
                // (Not past a list of what to show: "the tool code and length of every tool
                // bought in 2024" shows those.)
                Cond::Dates { col, .. } | Cond::Month { col, .. } if self.a.projection.is_none() => Some(col.clone()),
                // "What is Tine Verbeke's hourly wage?": the row is shown with the name or code
                // it was looked up by.
                Cond::In { col, values, negated: false } if values.len() == 1 && self.is_name_column(col) && (self.label(&col.table).contains(col) || self.is_code_column(col)) => Some(col.clone()),
                _ => None,
            })
            .filter(|c| c.table.eq_ignore_ascii_case(&self.q.table) && self.schema.field(&c.table, &c.column).is_some_and(|f| f.key == qa_question::KeyRole::None))
            .collect();
        for col in filled {
            let e = Expr::col(col);
            if !self.q.select.contains(&e) {
                self.q.select.push(e);
            }
        }
    }

    /// Tables named without a condition: rows related to the entity become an existence test
    /// ("with loans" / "without loans", "that are not poker players", "never had an
    /// appointment"); a table the plan already reads, or a parent of it, is a join hint.
    fn related_tables(&mut self) {
        let Some(entity) = self.entity.clone() else { return };
        let reached = self.tables_reached();
        for mi in 0..self.ms.len() {
            if self.used[mi] || self.entity_mentions.contains(&mi) {
                continue;
            }
            // Of the tables the word can name ("ticket" of three tables), one the plan reads.
            let tables_named: Vec<String> = self
                .readings(mi)
                .iter()
                .filter_map(|l| match &l.target {
                    Target::Collection { collection } => Some(collection.clone()),
                    _ => None,
                })
                .collect();
            // (A word of most tables' names says nothing of which: the first stays.)
            let in_play = |t: &String| t.eq_ignore_ascii_case(&entity) || t.eq_ignore_ascii_case(&self.q.table);
            let domain = self.ms[mi].end == self.ms[mi].start + 1 && self.domain_word(self.ms[mi].start);
            let preferred = if domain { None } else { tables_named.iter().find(|t| in_play(t)).or_else(|| tables_named.iter().find(|t| reached.iter().any(|x| x.eq_ignore_ascii_case(t)))) };
            let Some(t) = preferred.or(tables_named.first()).cloned() else {
                continue;
            };
            if t.eq_ignore_ascii_case(&entity) || t.eq_ignore_ascii_case(&self.q.table) || reached.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                if reached.iter().any(|x| x.eq_ignore_ascii_case(&t)) && !self.negated_conditions_of(mi, &t) {
                    self.consume(mi, format!("table {t}"));
                }
                continue;
            }
            let Some(path) = self.ctx.join_path(&entity, &t) else { continue };
            let Some(first) = path.first() else { continue };
            if !multiplies(self.ctx, first) || self.q.aggregates() && self.q.table.eq_ignore_ascii_case(&t) {
                self.reach.push(t.clone());
                continue;
            }
            let neg = self.negation_before(self.ms[mi].start);
            if let Some(j) = neg {
                self.mark(j..j + 1, "negation");
            }
            let key = ColRef::new(&first.to_table, &first.to_column);
            // "students without any pet": a row of the link table is a related pet.
            let joins = if path.len() == 2 && !multiplies(self.ctx, &path[1]) { Vec::new() } else { path[1..].to_vec() };
            let sub = Query { table: first.to_table.clone(), joins, select: vec![Expr::col(key)], ..Query::default() };
            self.consume(mi, format!("table {t} (related rows {} 0)", if neg.is_some() { "=" } else { ">" }));
            self.q.filters.push(Cond::InSub { col: ColRef::new(&first.from_table, &first.from_column), negated: neg.is_some(), query: Box::new(sub) });
        }
    }

    /// "stadiums that did not have a concert in 2014": a negated table whose rows the conditions
    /// choose, related one-to-many and not shown, is `NOT IN` the related rows meeting them all.
    fn negated_conditions_of(&mut self, mi: usize, t: &str) -> bool {
        let Some(j) = self.negation_before(self.ms[mi].start) else { return false };
        let base = self.q.table.clone();
        let Some(path) = self.ctx.join_path(&base, t) else { return false };
        let shown = self.q.select.iter().chain(self.q.group_by.iter()).chain(self.q.order_by.iter().map(|(e, _)| e)).any(|e| e.column().is_some_and(|c| c.table.eq_ignore_ascii_case(t)));
        if shown || !path.iter().any(|s| multiplies(self.ctx, s)) {
            return false;
        }
        let on_t = |f: &Cond| {
            let ts = f.tables();
            !ts.is_empty() && ts.iter().all(|x| x.eq_ignore_ascii_case(t))
        };
        let conds: Vec<Cond> = self.q.filters.iter().filter(|f| on_t(f)).cloned().collect();
        if conds.is_empty() {
            return false;
        }
        self.q.filters.retain(|f| !on_t(f));
        let first = &path[0];
        let sub = Query { table: first.to_table.clone(), joins: path[1..].to_vec(), select: vec![Expr::col(ColRef::new(&first.to_table, &first.to_column))], filters: conds, ..Query::default() };
        self.q.filters.push(Cond::InSub { col: ColRef::new(&first.from_table, &first.from_column), negated: true, query: Box::new(sub) });
        self.reach.retain(|x| !path.iter().any(|s| s.to_table.eq_ignore_ascii_case(x)));
        self.mark(j..j + 1, "negation");
        self.consume(mi, format!("table {t} (no related rows)"));
        true
    }

    /// A value of rows related many-to-one to the query's rows: "students who do not own cats"
    /// are those with no related cat (`NOT IN`), not those with a pet that is no cat; "who have
    /// both cats and dogs" need a related row of each.
    fn related_values(&mut self) {
        let base = self.q.table.clone();
        let output: Vec<String> = self.q.select.iter().chain(self.q.group_by.iter()).chain(self.q.order_by.iter().map(|(e, _)| e)).filter_map(|e| e.column().map(|c| c.table.clone())).collect();
        let output_cols: Vec<ColRef> = self.q.select.iter().chain(self.q.group_by.iter()).chain(self.q.order_by.iter().map(|(e, _)| e)).filter_map(|e| e.column().cloned()).collect();
        let filters = std::mem::take(&mut self.q.filters);
        // Conditions on a related table that travel with its values ("English and French as
        // official languages": each language official).
        let fellow = |t: &str, me: &Cond| -> Vec<Cond> {
            filters.iter().filter(|g| *g != me && !matches!(g, Cond::In { .. }) && g.col().is_some_and(|c| c.table.eq_ignore_ascii_case(t))).cloned().collect()
        };
        let mut moved: Vec<Cond> = Vec::new();
        for f in filters.iter().cloned() {
            if moved.contains(&f) {
                continue;
            }
            let Cond::In { col, values, negated } = &f else {
                self.q.filters.push(f);
                continue;
            };
            let both = self.both.contains(col) && values.len() > 1 && !negated;
            let group_negated = !negated && self.negated_groups.iter().any(|t| t.eq_ignore_ascii_case(&col.table));
            let path = (!col.table.eq_ignore_ascii_case(&base)).then(|| self.ctx.join_path(&base, &col.table)).flatten();
            let fans = path.as_ref().is_some_and(|p| p.iter().any(|s| multiplies(self.ctx, s)));
            let shown = output.iter().any(|t| t.eq_ignore_ascii_case(&col.table));
            // "the country codes of countries that do not speak English", the codes shown from
            // the related rows' own key column: keys none of whose rows has the value, not
            // every row without it.
            let key_shown = path.as_ref().filter(|p| p.len() == 1).map(|p| ColRef::new(&p[0].to_table, &p[0].to_column)).filter(|k| {
                let cols: Vec<&ColRef> = output_cols.iter().filter(|c| c.table.eq_ignore_ascii_case(&col.table)).collect();
                !cols.is_empty() && cols.iter().all(|c| *c == k)
            });
            // "the document ids with paragraph text 'Brazil' and 'Ireland'", listed from the rows
            // that refer to documents: ids with a row of each value.
            let refers_out = |c: &ColRef| self.ctx.db.table(&c.table).is_some_and(|t| t.foreign_keys.iter().any(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column)));
            let base_out: Vec<&ColRef> = output_cols.iter().filter(|c| c.table.eq_ignore_ascii_case(&base)).collect();
            if self.both.contains(col) && values.len() > 1 && !negated && col.table.eq_ignore_ascii_case(&base) && base_out.len() == 1 && output_cols.len() == 1 && refers_out(base_out[0]) {
                let k = base_out[0].clone();
                for v in values {
                    let sub = Query { table: base.clone(), select: vec![Expr::col(k.clone())], filters: vec![Cond::In { col: col.clone(), values: vec![v.clone()], negated: false }], ..Query::default() };
                    self.q.filters.push(Cond::InSub { col: k.clone(), negated: false, query: Box::new(sub) });
                }
                self.q.distinct = true;
                continue;
            }
            if let (Some(k), true) = (&key_shown, *negated && fans && shown) {
                let sub = Query { table: col.table.clone(), select: vec![Expr::col(k.clone())], filters: vec![Cond::In { col: col.clone(), values: values.clone(), negated: false }], ..Query::default() };
                self.q.filters.push(Cond::InSub { col: k.clone(), negated: true, query: Box::new(sub) });
                continue;
            }
            let (Some(path), true) = (path, fans && !shown && (*negated || both || group_negated)) else {
                self.q.filters.push(f);
                continue;
            };
            let first = &path[0];
            let others = fellow(&col.table, &f);
            moved.extend(others.iter().cloned());
            let sub = |vals: Vec<super::ir::Lit>| Query {
                table: first.to_table.clone(),
                joins: path[1..].to_vec(),
                select: vec![Expr::col(ColRef::new(&first.to_table, &first.to_column))],
                filters: std::iter::once(Cond::In { col: col.clone(), values: vals, negated: false }).chain(others.iter().cloned()).collect(),
                ..Query::default()
            };
            let key = ColRef::new(&first.from_table, &first.from_column);
            // The related table is read in the sub-query only.
            self.reach.retain(|t| !path.iter().any(|s| s.to_table.eq_ignore_ascii_case(t)));
            if both {
                for v in values {
                    self.q.filters.push(Cond::InSub { col: key.clone(), negated: false, query: Box::new(sub(vec![v.clone()])) });
                }
            } else {
                self.q.filters.push(Cond::InSub { col: key, negated: true, query: Box::new(sub(values.clone())) });
            }
        }
        // A fellow condition moved into a sub-query is not tested again outside.
        self.q.filters.retain(|g| !moved.contains(g));
        // A flag of related rows negated as a whole with no value beside it ("stages that have
        // never had a headliner"): no related row has it.
        for t in self.negated_groups.clone() {
            let on_t = |f: &Cond| matches!(f, Cond::Cmp { col, .. } if col.table.eq_ignore_ascii_case(&t));
            let conds: Vec<Cond> = self.q.filters.iter().filter(|f| on_t(f)).cloned().collect();
            let shown = output.iter().any(|x| x.eq_ignore_ascii_case(&t));
            let Some(path) = (!t.eq_ignore_ascii_case(&base)).then(|| self.ctx.join_path(&base, &t)).flatten() else { continue };
            if conds.is_empty() || shown || !path.iter().any(|s| multiplies(self.ctx, s)) {
                continue;
            }
            self.q.filters.retain(|f| !on_t(f));
            let first = &path[0];
            let sub = Query { table: first.to_table.clone(), joins: path[1..].to_vec(), select: vec![Expr::col(ColRef::new(&first.to_table, &first.to_column))], filters: conds, ..Query::default() };
            self.reach.retain(|x| !path.iter().any(|s| s.to_table.eq_ignore_ascii_case(x)));
            self.q.filters.push(Cond::InSub { col: ColRef::new(&first.from_table, &first.from_column), negated: true, query: Box::new(sub) });
        }
    }

    /// Verb `w` is of the family of a column of a table the query reads that the query does not
    /// use ("donors who were referred by someone" and `referred_by_donor_id`): a condition the
    /// plan did not place, not a word relating two tables.
    fn names_unused_column(&self, w: &str) -> bool {
        if w.len() < 5 {
            return false;
        }
        let fam = qa_core::text::word_family(w);
        let used: Vec<ColRef> = self.q.select.iter().chain(self.q.group_by.iter()).filter_map(|e| e.column().cloned()).collect();
        let in_filters = |c: &ColRef| self.q.filters.iter().any(|f| tests_column(f, c));
        self.needed().iter().any(|t| {
            self.schema.collection(t).is_some_and(|c| {
                c.fields.iter().any(|f| {
                    let col = ColRef::new(&c.name, &f.name);
                    // A key or a flag the verb names; a date a verb names ("enrolled" of
                    // `enrolled_on`) only dates what the verb relates.
                    let key_or_flag = f.kind == qa_question::FieldKind::Flag || f.key == qa_question::KeyRole::Foreign;
                    key_or_flag && qa_question::names::name_words(&f.name).iter().any(|x| x.len() >= 5 && qa_core::text::word_family(x) == fam) && !used.contains(&col) && !in_filters(&col)
                })
            })
        })
    }

    /// A column of a table the query reads that stores `word` as a whole value and that no
    /// condition of the query tests.
    fn untested_value_column(&self, word: &str) -> Option<ColRef> {
        self.tables_reached().iter().find_map(|t| {
            let c = self.schema.collection(t)?;
            c.fields.iter().find(|f| f.values.iter().any(|v| v.eq_ignore_ascii_case(word))).map(|f| ColRef::new(&c.name, &f.name)).filter(|col| !self.q.filters.iter().any(|f| tests_column(f, col)))
        })
    }

    /// The tables the query reads: the outer query's, those on the join paths to them, and
    /// those of its sub-queries.
    fn tables_reached(&self) -> Vec<String> {
        let mut reached = self.needed();
        for t in reached.clone() {
            if let Some(p) = self.ctx.join_path(&self.q.table, &t) {
                reached.extend(p.into_iter().map(|s| s.to_table));
            }
        }
        for f in &self.q.filters {
            if let Cond::InSub { query, .. } | Cond::Sub { query, .. } = f {
                reached.extend(query.tables());
            }
        }
        reached
    }

    /// Every table the outer query reads.
    pub(super) fn needed(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |t: &str| {
            if !t.is_empty() && !out.iter().any(|x| x.eq_ignore_ascii_case(t)) {
                out.push(t.to_string());
            }
        };
        for e in self.q.select.iter().chain(self.q.group_by.iter()).chain(self.q.order_by.iter().map(|(e, _)| e)).chain(self.q.having.iter().map(|h| &h.expr)) {
            if let Some(c) = e.column() {
                add(&c.table);
            }
        }
        for f in &self.q.filters {
            for t in f.tables() {
                add(&t);
            }
        }
        for t in &self.reach {
            add(t);
        }
        out
    }

    /// Join every needed table to the plan's table along the shortest foreign-key path from the
    /// tree built so far (among equally short ones, through tables the question names).
    fn join(&mut self, fixes: &mut Vec<String>) {
        let named: Vec<String> = self.ms.iter().flat_map(|m| m.links.iter()).filter_map(|l| match &l.target {
            Target::Collection { collection } => Some(collection.clone()),
            _ => None,
        }).collect();
        let mut tree = vec![self.q.table.clone()];
        let mut steps: Vec<JoinStep> = Vec::new();
        for t in self.needed() {
            if tree.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                continue;
            }
            let froms = tree.clone();
            // A named table already joined is no reason to go through it again ("rentals of
            // automatic cars returned at Dutch branches": the cars of the rentals, not the cars
            // based at those branches).
            let named_rest: Vec<String> = named.iter().filter(|n| !tree.iter().any(|x| x.eq_ignore_ascii_case(n))).cloned().collect();
            let best = froms.iter().filter_map(|from| self.path(from, &t, &named_rest)).min_by_key(|p| p.len());
            match best {
                Some(p) => {
                    for s in p {
                        if !tree.iter().any(|x| x.eq_ignore_ascii_case(&s.to_table)) {
                            tree.push(s.to_table.clone());
                            steps.push(s);
                        }
                    }
                }
                None => {
                    fixes.push(format!("no foreign-key path from {} to {t}", self.q.table));
                    self.penalties.push((format!("table {t} cannot be joined to {}", self.q.table), 0.5));
                }
            }
        }
        self.q.joins = steps;
        // Rows of one table grouped by its own key are groups of one: a count over them is 1.
        let counts = self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)).chain(self.q.having.iter().map(|h| &h.expr)).any(|e| matches!(e, Expr::Agg { func: super::ir::AggFunc::Count | super::ir::AggFunc::CountDistinct, .. }));
        if counts && self.q.joins.is_empty() && self.q.set_op.is_none() && self.pk(&self.q.table).is_some_and(|pk| self.q.group_by.contains(&Expr::col(pk))) {
            self.penalties.push(("counts groups of one row (grouped by the key of its only table)".into(), 0.5));
        }
        // "Norwegian-flagged vessels … not Norwegian themselves" read on one column: a value
        // required and excluded at once returns nothing, whatever the data — another question.
        let required: Vec<(ColRef, Lit)> = self.q.filters.iter().flat_map(|f| match f {
            Cond::Cmp { col, op: Op::Eq, value } => vec![(col.clone(), value.clone())],
            Cond::In { col, values, negated: false } if values.len() == 1 => vec![(col.clone(), values[0].clone())],
            _ => Vec::new(),
        }).collect();
        let contradicted = self.q.filters.iter().any(|f| match f {
            Cond::Cmp { col, op: Op::Ne, value } => required.iter().any(|(c, v)| c == col && v == value),
            Cond::In { col, values, negated: true } => required.iter().any(|(c, v)| c == col && values.contains(v)),
            _ => false,
        });
        if contradicted {
            self.penalties.push(("a value both required and excluded on one column".into(), 0.4));
        }
        // "more than the average job of the same type", "in the same city as …": a comparison
        // within groups or between rows, which no rule builds: the plan would drop it.
        if let Some(i) = (0..self.n()).find(|&i| self.word(i) == "same" && !self.ledger.is_used(i)) {
            let phrase = self.a.tokens[i..(i + 2).min(self.n())].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
            self.penalties.push((format!("\"the {phrase}\" (rows compared with others of a group) is not read"), 0.5));
        }
        // "from a different country than the resort", "at a different space from the person
        // who referred them": a comparison between two rows' values, which no rule builds.
        // ("Different" may already be read as distinct rows; "members from Spain" is no
        // comparison: "from" counts before a row said again.)
        let compared_with = |k: usize| self.word(k) == "than" || (self.word(k) == "from" && (matches!(self.word(k + 1), "their" | "his" | "her" | "its" | "that" | "those") || (self.word(k + 1) == "the" && matches!(self.word(k + 2), "one" | "ones" | "person" | "people" | "row"))));
        if let Some(i) = (0..self.n()).find(|&i| (self.word(i) == "different" || (matches!(self.word(i), "another" | "other") && !self.ledger.is_used(i))) && (i + 2..(i + 6).min(self.n())).any(compared_with)) {
            let phrase = self.a.tokens[i..(i + 2).min(self.n())].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
            self.penalties.push((format!("\"{phrase} … than\" (two rows' values compared) is not read"), 0.5));
        }
    }

    /// "Who" asks for people: a query that shows no name answers something else.
    fn who_shows_a_name(&mut self) {
        // "… who was the guest and who referred them?": "who" asks for people (or someone's
        // name); a query that shows no name answers something else.
        let who = (0..self.n()).any(|i| self.word(i) == "who" && (self.a.sentences.iter().any(|&(s, _)| s == i) || i > 0 && matches!(self.word(i - 1), "," | "and")));
        let named = |c: &ColRef| qa_question::names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "name" | "fname" | "lname" | "surname" | "forename" | "title"));
        let shown: Vec<ColRef> = self.q.select.iter().filter_map(|e| match e {
            Expr::Col { col } => Some(col.clone()),
            _ => None,
        }).collect();
        if who && !shown.is_empty() && !shown.iter().any(named) {
            self.penalties.push(("\"who\" asks for someone, and the query shows no name".into(), 0.6));
        }
    }

    /// Coverage of table words and relation words: a table the plan reads counts as used; one
    /// word between two joined tables' words is their relation ("singers who performed in
    /// concerts").
    fn account(&mut self) {
        // "vessels that have Bergen as their home port": a word of the key a join follows
        // (`home_port_id`) is what the join reads, even where it is the only key.
        for step in self.q.joins.clone() {
            let key_words = crate::schema::step_key_families(&step);
            for i in 0..self.n() {
                if self.a.tokens[i].is_word() && !self.ledger.is_used(i) && self.word(i).len() >= 4 && key_words.contains(&crate::schema::key_family(self.word(i))) {
                    self.mark(i..i + 1, format!("join by {}.{}", step.from_table, step.from_column));
                    if let Some(mi) = self.ms.iter().position(|m| m.start == i && m.end == i + 1) {
                        self.used[mi] = true;
                    }
                }
            }
        }
        let tables = self.q.tables();
        let in_plan = |t: &str| tables.iter().any(|x| x.eq_ignore_ascii_case(t));
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            let t = self.readings(mi).iter().find_map(|l| match &l.target {
                Target::Collection { collection } if in_plan(collection) => Some(collection.clone()),
                _ => None,
            });
            if let Some(t) = t {
                self.consume(mi, format!("table {t}"));
            }
        }
        // A column the plan uses, named again ("languages other than English", "the code AD").
        let used_cols = self.used_columns();
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            let hit = self.readings(mi).into_iter().find_map(|l| match &l.target {
                Target::Field { collection, field } => used_cols.iter().find(|c| c.table.eq_ignore_ascii_case(collection) && c.column.eq_ignore_ascii_case(field)).cloned(),
                _ => None,
            });
            if let Some(c) = hit {
                self.consume(mi, format!("show {c}"));
            }
        }
        // A unit that a used column's name carries ("usage in m3", "weight in kg").
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !self.ledger.is_content(i) {
                continue;
            }
            let Some(u) = qa_question::numbers::unit_of(self.word(i)) else { continue };
            // ("the most expensive per kilogram" of `price_per_kg_eur`: a unit inside the name.)
            let inside = |c: &ColRef| qa_question::names::name_words(&c.column).iter().any(|w| qa_question::numbers::unit_of(w).is_some_and(|x| x.name == u.name));
            if used_cols.iter().any(|c| qa_question::numbers::field_unit(&c.column).is_some_and(|fu| fu.name == u.name) || inside(c)) {
                self.mark(i..i + 1, "unit");
            }
        }
        // "How many hives does the cooperative have?": the organisation whose data this is,
        // when nothing of the schema is named by it.
        for r in qa_question::coverage::owner_phrases(&self.a.tokens) {
            if r.clone().all(|k| self.ledger.is_content(k) && !self.ledger.is_used(k) && self.mention_at(k).is_none()) {
                self.mark(r, "the data's owner");
            }
        }
        // "every piece of electric equipment": a counting noun before "of" that names nothing.
        // "with their hive counts": the count the query computes.
        let counted = self.q.select.iter().any(|e| matches!(e, Expr::Agg { func: AggFunc::Count | AggFunc::CountDistinct, .. }));
        for i in 0..self.n() {
            if !self.ledger.is_content(i) || self.ledger.is_used(i) || self.mention_at(i).is_some() {
                continue;
            }
            let w = self.word(i);
            // (Not "which pieces of equipment": what is shown of them is asked.)
            if matches!(w, "piece" | "pieces") && self.word(i + 1) == "of" && i > 0 && matches!(self.word(i - 1), "every" | "each" | "a" | "any" | "all" | "per") {
                self.mark(i..i + 1, "a piece of the rows");
            } else if counted && matches!(w, "count" | "counts" | "tally" | "tallies") {
                self.mark(i..i + 1, "aggregate count");
            }
        }
        // "Canada (country code CA)": the words a parenthesis restates are its condition's.
        for i in 0..self.n() {
            if !self.a.tokens[i].is_symbol('(') || i == 0 {
                continue;
            }
            let close = (i + 1..self.n()).find(|&k| self.a.tokens[k].is_symbol(')')).unwrap_or(self.n());
            let inside_used = (i + 1..close).filter(|&k| self.ledger.is_content(k)).all(|k| self.ledger.is_used(k)) && (i + 1..close).any(|k| self.ledger.is_used(k));
            if inside_used {
                let role = (i + 1..close).find_map(|k| self.ledger.role(k).map(str::to_string)).unwrap_or_default();
                let mut k = i;
                while k > 0 && i - k < 2 && self.ledger.is_content(k - 1) && !self.ledger.is_used(k - 1) {
                    k -= 1;
                }
                self.mark(k..i, role);
            }
        }
        // "the name of X" for rows without a name: unless the query shows a name after all (of
        // the rows it groups), it would answer with something else.
        let shows_name = self.q.select.iter().filter_map(Expr::column).any(|c| qa_question::names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "name" | "title" | "label")));
        if !shows_name {
            for (t, w) in self.nameless.clone() {
                self.penalties.push((format!("{t} has no {w} column"), 0.5));
            }
        }
        // "Which artists were formed before 2000? Name and year.": a listed generic word ("year",
        // "date", "time") of the one column a condition already reads is that column, shown.
        if let Some(p) = self.a.projection.clone()
            && !self.q.aggregates()
            && self.q.group_by.is_empty()
        {
            let tested: Vec<ColRef> = self.q.filters.iter().filter_map(|f| f.col().cloned()).collect();
            for it in &p.items {
                for i in it.start..it.end {
                    if self.ledger.is_used(i) || !self.ledger.is_content(i) || !matches!(self.a.tokens[i].norm.as_str(), "year" | "date" | "time" | "day" | "month") {
                        continue;
                    }
                    let w = self.a.tokens[i].norm.clone();
                    let hits: Vec<&ColRef> = tested.iter().filter(|c| qa_question::names::name_words(&c.column).contains(&w)).collect();
                    if let [c] = hits.as_slice() {
                        let e = Expr::col((*c).clone());
                        if !self.q.select.contains(&e) {
                            self.q.select.push(e);
                        }
                        self.mark(i..i + 1, format!("show {c}"));
                    }
                }
            }
        }
        // "… for each car maker, along with its id": an "id" nothing placed, said of groups of
        // rows, is the key they are grouped by.
        let group_keys: Vec<Expr> = self
            .q
            .group_by
            .iter()
            .filter(|e| {
                e.column().is_some_and(|c| {
                    self.ctx.table(&c.table).is_some_and(|t| t.primary_key.len() == 1 && t.primary_key[0].eq_ignore_ascii_case(&c.column) || t.foreign_keys.iter().any(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column)))
                })
            })
            .cloned()
            .collect();
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !matches!(self.word(i), "id" | "ids" | "identifier" | "identifiers") {
                continue;
            }
            if let [key] = group_keys.as_slice() {
                // "ordered by id": the groups in their key's order.
                if i >= 2 && self.word(i - 1) == "by" && matches!(self.word(i - 2), "ordered" | "sorted" | "order" | "sort" | "arranged" | "ranked" | "listed") {
                    let desc = matches!(self.word(i + 1), "desc" | "descending" | "decreasing");
                    self.q.order_by = vec![(key.clone(), desc)];
                    self.mark(i - 2..i, format!("order by {}", key.column().map(|c| c.to_string()).unwrap_or_default()));
                } else if i >= 1 && self.word(i - 1) == "by" {
                    continue;
                }
                if !self.q.select.contains(key) {
                    let at = self.q.select.iter().position(Expr::is_agg).unwrap_or(self.q.select.len());
                    self.q.select.insert(at, key.clone());
                }
                let role = format!("show {}", key.column().map(|c| c.to_string()).unwrap_or_default());
                // "student id": the table word before it is the same key.
                if i > 0 && !self.ledger.is_used(i - 1) && self.ms.iter().any(|m| m.end == i && m.start + 1 == i && self.names_table_idx(m)) {
                    self.mark(i - 1..i, role.clone());
                }
                self.mark(i..i + 1, role);
            }
        }
        // A word that picked one of two keys to the same table ("at the moment" for
        // `current_city_id`, wherever the join was placed) is used by that join.
        fn join_columns(q: &Query, out: &mut Vec<String>) {
            for j in &q.joins {
                out.push(j.from_column.clone());
                out.push(j.to_column.clone());
            }
            for f in &q.filters {
                if let Cond::InSub { col, query, .. } = f {
                    out.push(col.column.clone());
                    join_columns(query, out);
                }
            }
        }
        let mut cols = Vec::new();
        join_columns(&self.q, &mut cols);
        let fams: Vec<(String, String)> = cols.iter().flat_map(|c| qa_question::names::name_words(c).into_iter().filter(|w| w.len() >= 4 && !qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str())).map(move |w| (crate::schema::key_family(&w), c.clone()))).collect();
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !self.ledger.is_content(i) {
                continue;
            }
            let f = crate::schema::key_family(self.word(i));
            let several = |c: &str| self.ctx.db.tables.iter().any(|t| t.columns.iter().any(|x| x.name.eq_ignore_ascii_case(c)) && t.foreign_keys.len() >= 2);
            if let Some((_, c)) = fams.iter().find(|(k, c)| *k == f && several(c)) {
                self.mark(i..i + 1, format!("join by {c}"));
            }
        }
        // "never did a single shift", "don't have a single sponsor": "single" stresses the
        // negation ("any") when the negation was placed.
        for i in 1..self.n() {
            if self.word(i) == "single" && !self.ledger.is_used(i) && matches!(self.word(i - 1), "a" | "one")
                && let Some(j) = (i.saturating_sub(6)..i).rev().find(|&j| self.a.negations.contains(&j))
                && self.ledger.is_used(j)
            {
                self.mark(i..i + 1, "negation (any)");
            }
        }
        // A column named by words that alone count for nothing ("what other details …", "the
        // names"): left out of the query, it is part of the question nobody answered.
        for mi in 0..self.ms.len() {
            let m = &self.ms[mi];
            let silent = (m.start..m.end).all(|i| !self.ledger.is_content(i) && !self.ledger.is_used(i));
            if !self.used[mi] && silent && m.end - m.start >= 2 && matches!(m.best().target, Target::Field { .. }) && m.best().score >= 0.6 {
                let words = self.a.tokens[m.start..m.end].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                self.penalties.push((format!("\"{words}\" names a column the query does not show"), 0.5));
            }
        }
        self.flags_said_by_common_words();
        // "the available units" where `status` holds 'available': a word too common to link is
        // still a stored value of a table the query reads; untested, it is a condition dropped.
        for i in 0..self.n() {
            let w = self.word(i).to_string();
            if self.ledger.is_used(i) || self.ledger.is_content(i) || w.len() < 4 || !self.a.tokens[i].is_word() {
                continue;
            }
            if let Some(col) = self.untested_value_column(&w) {
                self.penalties.push((format!("\"{w}\" is a stored value of {col} that the query does not test"), 0.5));
            }
        }
        // A verb next to a used word relates what the plan joins or tests ("singers who
        // performed in …", "cartoons written by …", "languages spoken in …").
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !self.ledger.is_content(i) || self.a.tokens[i].number().is_some() || self.a.negations.contains(&i) {
                continue;
            }
            let w = self.word(i).to_string();
            // After an article or a preposition a word is a noun ("on call", "the results").
            let noun = i > 0 && matches!(self.word(i - 1), "a" | "an" | "the" | "on" | "in" | "of" | "for" | "at" | "to" | "with" | "their" | "its");
            // A participle right before the rows' name describes them ("operating turbines",
            // "cancelled interviews"): a condition nothing placed, not a relation.
            let attributive = (w.ends_with("ing") || w.ends_with("ed")) && self.ledger.role(i + 1).is_some_and(|r| r.starts_with("table ") && !r.contains(" ("));
            // ("What did the Aachen pharmacy earn in March?": "earn" says money coming in, an
            // amount the plan did not compute, never a mere relation. Not "spent" or "charge":
            // "spent hours on site", "the rate they charge" relate.)
            let money = matches!(w.as_str(), "earn" | "earns" | "earned");
            if !qa_question::cues::is_light_verb(&w) || noun || attributive || money || self.names_unused_column(&w) {
                continue;
            }
            // Between two used words of one sentence: "languages spoken in Aruba", "cartoons
            // written by Joseph Kuhr". A verb that ends the question ("which bookings were
            // refunded?") is a condition nothing placed.
            let near = |j: usize| self.ledger.is_used(j);
            let sentence = self.a.sentences.iter().find(|&&(s, e)| s <= i && i < e).copied().unwrap_or((0, self.n()));
            let left = (sentence.0..i).rev().find(|&j| self.ledger.is_content(j) || near(j)).is_some_and(near);
            let right = (i + 1..sentence.1).find(|&j| self.ledger.is_content(j) || near(j)).is_some_and(near);
            // A participle after "is/are/were" that ends the clause states a condition
            // ("which bookings were refunded?"); other verbs relate ("the courses they teach",
            // "the continent Anguilla belongs to").
            let mut b = i;
            while b > 0 && matches!(self.word(b - 1), "still" | "currently" | "now" | "already" | "yet" | "also" | "ever") {
                b -= 1;
            }
            let be = b > 0 && matches!(self.word(b - 1), "is" | "are" | "was" | "were" | "be" | "been" | "being" | "get" | "got" | "gets");
            let ends = (i + 1..sentence.1).all(|j| !self.ledger.is_content(j) && !near(j));
            let condition = be && ends;
            if left && (right || !condition) {
                self.mark(i..i + 1, "relation");
            }
        }
        // "staff members", "crew member": a member of the rows a collective table's name
        // names is one of its rows.
        for i in 1..self.n() {
            if matches!(self.word(i), "member" | "members") && !self.ledger.is_used(i)
                && let Some(role) = self.ledger.role(i - 1).filter(|r| r.starts_with("table ")).map(str::to_string)
            {
                self.mark(i..i + 1, role);
                if let Some(mi) = self.ms.iter().position(|m| m.start == i && m.end == i + 1) {
                    self.used[mi] = true;
                }
            }
        }
        // A word of most tables' names ("car" of `car_makers`, `car_names`, `cars_data`)
        // modifying the next noun ("car models", "bike riders") names the database's domain.
        for mi in 0..self.ms.len() {
            let (ms, me) = (self.ms[mi].start, self.ms[mi].end);
            if !self.used[mi] && me == ms + 1 && !self.ledger.is_used(ms) && self.domain_word(ms) && self.ms.iter().enumerate().any(|(j, m)| m.start == me && self.used[j]) {
                self.used[mi] = true;
                self.mark(ms..me, "domain");
            }
        }
        // A guess through a weak link (a word of a longer name, a spelling, a word family) to a
        // table the question is not about costs confidence.
        let main: Vec<String> = [Some(self.q.table.clone()), self.entity.clone()].into_iter().flatten().collect();
        for mi in 0..self.ms.len() {
            if !self.used[mi] {
                continue;
            }
            let Some(t) = self.ledger.role(self.ms[mi].start).and_then(role_table).map(str::to_string) else { continue };
            // (The one table referring to the rows whose word family the verb is: no guess.)
            if main.iter().any(|m| m.eq_ignore_ascii_case(&t)) || self.ledger.role(self.ms[mi].start).is_some_and(|r| r.ends_with("(no related rows, by its verb)")) {
                continue;
            }
            // Said right after a noun of that table ("a cat that is age 3"): not a guess.
            if self.mention_before(self.ms[mi].start).is_some_and(|b| self.ms[b].best().target.collection().eq_ignore_ascii_case(&t)) {
                continue;
            }
            // A verb of a date, flag or key column's own word ("checked in" of `check_in_date`,
            // "referred" of `referred_by_guest_id`) says that column.
            let own_verb = |l: &qa_question::Link| {
                matches!(l.how, How::Family | How::Part)
                    && l.words.len() == 1
                    && l.target.field().is_some_and(|f| {
                        let c = ColRef::new(l.target.collection(), f);
                        let keyish = self.schema.field(&c.table, &c.column).is_some_and(|x| x.key != qa_question::KeyRole::None);
                        (keyish || matches!(self.kind(&c), qa_question::FieldKind::Date | qa_question::FieldKind::Flag))
                            && qa_question::names::name_words(f).first().is_some_and(|w| w.len() >= 5 && qa_core::text::word_family(w) == qa_core::text::word_family(&l.words[0]))
                    })
            };
            // A verb of a one-word table's own family ("invoiced" of `invoices`, "rented" of
            // `rentals`) names those rows.
            let own_rows = |l: &qa_question::Link| {
                matches!(l.how, How::Family | How::Fuzzy) && l.words.len() == 1 && (l.words[0].ends_with("ed") || qa_core::text::is_verb_form(&l.words[0])) && matches!(&l.target, Target::Collection { collection } if qa_question::names::name_words(collection).len() == 1 && qa_core::text::word_family(collection) == qa_core::text::word_family(&l.words[0]))
            };
            let weak = |l: &qa_question::Link| matches!(l.how, How::Head | How::Part | How::Family | How::Fuzzy | How::Acronym) && !own_verb(l) && !own_rows(l);
            let refers = |l: &qa_question::Link| l.target.field().is_some_and(|f| self.ctx.db.table(l.target.collection()).is_some_and(|tb| tb.foreign_keys.iter().any(|fk| fk.ref_table.eq_ignore_ascii_case(&t) && fk.columns.iter().any(|c| c.eq_ignore_ascii_case(f)))));
            let strong = self.readings(mi).iter().any(|l| (l.target.collection().eq_ignore_ascii_case(&t) || refers(l)) && !weak(l));
            // A word of most tables' names ("car" of `car_makers`, `car_names`, `cars_data`)
            // modifying the next noun ("car models") names the database's domain, not a table.
            let (ms, me) = (self.ms[mi].start, self.ms[mi].end);
            let domain = me == ms + 1 && self.domain_word(ms) && self.ms.iter().enumerate().any(|(j, m)| m.start == me && self.used[j]);
            if !strong && !domain {
                let words = self.a.tokens[self.ms[mi].start..self.ms[mi].end].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                self.penalties.push((format!("\"{words}\" read as part of a name in {t}"), 0.78));
            }
        }
        // A table the plan is built on that a word names only in part, as it names others
        // ("tickets" of `ticket_types`, `ticket_purchases`, `ref_ticket_types`): a guess.
        for mi in 0..self.ms.len() {
            if !self.used[mi] {
                continue;
            }
            let Some(table) = self.ledger.role(self.ms[mi].start).filter(|r| r.starts_with("table ")).and_then(role_table).map(str::to_string) else { continue };
            let readings = self.readings(mi);
            let Some(best) = readings.iter().find(|l| matches!(&l.target, Target::Collection { collection } if collection.eq_ignore_ascii_case(&table))) else { continue };
            let collection = &table;
            if !matches!(best.how, How::Part | How::Head | How::Family | How::Fuzzy) || !main.iter().any(|m| m.eq_ignore_ascii_case(collection)) {
                continue;
            }
            let mut rivals: Vec<String> = readings.iter().filter(|l| matches!(l.target, Target::Collection { .. }) && l.score >= best.score - 0.02).map(|l| l.target.collection().to_string()).collect();
            rivals.dedup();
            // Another word of the question placed on the same table ("cars … in 1980" on the
            // cars' year) backs the guess.
            let (ms, me) = (self.ms[mi].start, self.ms[mi].end);
            let also_named = self.ms.iter().enumerate().any(|(j, m)| j != mi && self.used[j] && m.best().target.collection().eq_ignore_ascii_case(collection))
                || (0..self.n()).filter(|&i| i < ms || i >= me).any(|i| self.ledger.role(i).and_then(role_table).is_some_and(|t| t.eq_ignore_ascii_case(collection)))
                // A verb of the table's own column ("tickets bought" of `purchased_at`).
                || self.ms.iter().enumerate().any(|(j, m)| j != mi && m.end - m.start == 1 && m.links.iter().any(|l| l.how == How::Family && l.target.collection().eq_ignore_ascii_case(collection) && self.kind(&ColRef::new(collection, l.target.field().unwrap_or_default())) == qa_question::FieldKind::Date));
            if rivals.len() >= 2 && !also_named {
                let words = self.a.tokens[self.ms[mi].start..self.ms[mi].end].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                self.penalties.push((format!("\"{words}\" names no table alone: {}", rivals.join(", ")), 0.5));
            }
        }
    }

    /// Token `i` is a word of three or more tables' names and of at least half of them.
    fn domain_word(&self, i: usize) -> bool {
        let w = &self.a.tokens[i].norm;
        let tables = self.ctx.db.tables.iter().filter(|tb| qa_question::names::name_words(&tb.name).contains(w)).count();
        tables >= 3 && tables * 2 >= self.ctx.db.tables.len()
    }

    /// Every column the outer query and its sub-queries use.
    fn used_columns(&self) -> Vec<ColRef> {
        fn walk(q: &Query, out: &mut Vec<ColRef>) {
            for e in q.select.iter().chain(q.group_by.iter()).chain(q.order_by.iter().map(|(e, _)| e)).chain(q.having.iter().map(|h| &h.expr)) {
                out.extend(e.column().cloned());
            }
            for f in &q.filters {
                out.extend(f.col().cloned());
                match f {
                    Cond::Sub { query, .. } | Cond::InSub { query, .. } => walk(query, out),
                    Cond::Or { any } => out.extend(any.iter().filter_map(|c| c.col().cloned())),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.q, &mut out);
        out
    }
}
