//! The reader's state: the question's analysis, its links and chosen mentions, the coverage
//! ledger, and the query being built — with the helpers every stage shares (mentions around a
//! position, the column a mention names in context, label columns, negation).

use chrono::NaiveDate;

use qa_question::link::{cover, Link, Mention, Target};
use qa_question::{analyse, Analysis, FieldKind, Ledger, Linker, SourceSchema, ValueLookup};

use super::super::schema::SchemaContext;
use super::ir::{ColRef, Query};
use super::{Ambiguity, Clarification};

/// Words skipped between a cue and what it applies to ("the number of the …").
pub(super) const FILLER: &[&str] = &["the", "a", "an", "all", "of", "their", "its", "his", "her", "that", "those", "these", "any", "each", "every", "whole", "entire", "overall", "amount", "level", "quantity"];

pub(super) struct Reader<'a> {
    pub ctx: &'a SchemaContext,
    pub schema: &'a SourceSchema,
    pub a: Analysis,
    /// Every link found (readings the chosen mentions do not show are kept for context).
    pub links: Vec<Link>,
    /// The chosen, non-overlapping mentions.
    pub ms: Vec<Mention>,
    /// Per mention: some part of the plan uses it.
    pub used: Vec<bool>,
    pub ledger: Ledger,
    pub penalties: Vec<(String, f64)>,
    pub clar: &'a [Clarification],
    pub ambiguity: Option<Ambiguity>,
    /// The table whose rows the question is about (listed, counted, ranked), if any.
    pub entity: Option<String>,
    /// Mentions that name the entity.
    pub entity_mentions: Vec<usize>,
    /// The query under construction; `q.table` is where rows come from.
    pub q: Query,
    /// Tables the plan must reach (joined), besides those of its columns.
    pub reach: Vec<String>,
    /// Notes for the trace ("date column guessed", …).
    pub notes: Vec<String>,
    /// The question asks for a count ("how many", "number of") at this token range.
    pub count_at: Option<(usize, usize)>,
    /// The aggregate words already placed.
    pub aggs_done: Vec<usize>,
    /// Columns whose values must each hold for some related row ("both A and B").
    pub both: Vec<ColRef>,
    /// Tables that come first when a word could name columns of several (a group's table).
    pub focus: Vec<String>,
    /// The table a projection list names after it ("the names … of the teachers").
    pub proj_table: Option<String>,
    /// Related tables whose condition group the question negates as a whole ("where English is
    /// not the official language": no related row is English and official).
    pub negated_groups: Vec<String>,
    /// Tables whose "name" was asked for although they have no name column (with the word).
    pub nameless: Vec<(String, String)>,
    /// Date columns no word named, taken as the date of a table in play.
    pub guessed_dates: Vec<ColRef>,
}

impl<'a> Reader<'a> {
    pub fn new(ctx: &'a SchemaContext, schema: &'a SourceSchema, question: &str, clar: &'a [Clarification], today: NaiveDate, lookup: Option<&mut dyn ValueLookup>) -> Reader<'a> {
        let mut a = analyse(question, today);
        // "the most disputed claims": a flag's word after "most" is a condition (before
        // linking: the linker reads no field inside a superlative).
        let words: Vec<String> = a.tokens.iter().map(|t| t.lower.clone()).collect();
        qa_question::analysis::release_flag_adjectives(&mut a, |i| words.get(i).is_some_and(|w| schema.is_flag_word(w)));
        let linker = Linker::new(schema);
        let mut links = linker.link(&a, lookup);
        // A flag's name said in another order or with words between ("trained in first aid"
        // for `has_first_aid_training`). Other fields said so are left out: on the development
        // sets they cost more answers than they gave.
        let scattered: Vec<qa_question::Link> = linker.scattered_names(&a, &links).into_iter().filter(|l| matches!(&l.target, Target::Field { collection, field } if schema.field(collection, field).is_some_and(|f| f.kind == qa_question::FieldKind::Flag))).collect();
        links.extend(scattered);
        links.sort_by(|x, y| x.start.cmp(&y.start).then(y.len().cmp(&x.len())).then(y.score.total_cmp(&x.score)));
        let mut ms = cover(&links, a.tokens.len());
        if nearest_value_first(ctx, &ms, &mut links) {
            ms = cover(&links, a.tokens.len());
        }
        if std::env::var("QA_DEBUG_PLAN").is_ok() {
            for m in &ms {
                eprintln!("mention {}..{}: {:?}", m.start, m.end, m.links.iter().map(|l| (&l.target, l.score)).collect::<Vec<_>>());
            }
        }
        // "how many kilograms", "how many hectolitres": an amount in a unit is a sum — unless
        // the word names rows ("how many meters" of a `meters` table).
        for g in a.aggregates.iter_mut().filter(|g| g.func == qa_question::cues::AggWord::Count && a.tokens.get(g.start).is_some_and(|t| t.lower == "how")) {
            // ("how many square metres": the unit is two words.)
            let square = || a.tokens.get(g.target).filter(|t| t.lower == "square").and(a.tokens.get(g.target + 1)).and_then(|t| qa_question::numbers::square_of(&t.lower));
            let unit = a.tokens.get(g.target).and_then(|t| qa_question::numbers::unit_of(&t.lower)).or_else(square).is_some_and(|u| u.dimension != qa_question::numbers::Dimension::Time);
            let rows = ms.iter().any(|m| m.start == g.target && matches!(m.best().target, Target::Collection { .. }));
            // "how many gsm is it" of `weight_gsm`: the word that ends a measure's name is its
            // unit, whatever the unit.
            let word = a.tokens.get(g.target).map(|t| t.norm.clone()).unwrap_or_default();
            let measure_unit = ms.iter().filter(|m| m.start == g.target && m.end == g.target + 1).any(|m| {
                // ("how many minutes" of `duration_min`: the unit said is the name's unit.)
                let said_unit = |field: &str| qa_question::numbers::field_unit(field).zip(a.tokens.get(g.target).and_then(|t| qa_question::numbers::unit_of(&t.lower))).is_some_and(|(f, s)| f.name == s.name);
                matches!(&m.best().target, Target::Field { collection, field } if schema.field(collection, field).is_some_and(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None) && ((qa_question::names::name_words(field).len() >= 2 && (qa_question::names::name_words(field).last() == Some(&word) || said_unit(field))) || qa_question::names::name_words(field) == [word.clone()]))
            });
            if (unit || measure_unit) && !rows {
                g.func = qa_question::cues::AggWord::Sum;
            }
        }
        let ledger = Ledger::new(&a.tokens);
        let used = vec![false; ms.len()];
        Reader {
            ctx,
            schema,
            a,
            links,
            ms,
            used,
            ledger,
            penalties: Vec::new(),
            clar,
            ambiguity: None,
            entity: None,
            entity_mentions: Vec::new(),
            q: Query::default(),
            reach: Vec::new(),
            notes: Vec::new(),
            count_at: None,
            aggs_done: Vec::new(),
            both: Vec::new(),
            focus: Vec::new(),
            proj_table: None,
            negated_groups: Vec::new(),
            nameless: Vec::new(),
            guessed_dates: Vec::new(),
        }
    }

    pub fn word(&self, i: usize) -> &str {
        self.a.tokens.get(i).map(|t| t.lower.as_str()).unwrap_or("")
    }

    pub fn n(&self) -> usize {
        self.a.tokens.len()
    }

    /// Skip filler words from `pos`.
    pub fn skip_filler(&self, mut pos: usize) -> usize {
        // ("the total amount paid" of `amount_paid`: a filler word that opens a column's name
        // is that name.)
        while pos < self.n() && FILLER.contains(&self.word(pos)) && !self.ms.iter().any(|m| m.start == pos && m.end > pos + 1 && matches!(m.best().target, Target::Field { .. })) {
            pos += 1;
        }
        pos
    }

    /// The mention starting at `pos` after filler words.
    pub fn mention_at(&self, pos: usize) -> Option<usize> {
        let p = self.skip_filler(pos);
        self.ms.iter().position(|m| m.start == p)
    }

    /// The head of the noun phrase starting at `pos`: the last of the mentions written one after
    /// the other ("car models" → models, "pet type" stays one mention).
    pub fn head_at(&self, pos: usize) -> Option<usize> {
        let mut pos = pos;
        while matches!(self.word(pos), "distinct" | "different" | "unique" | "various") {
            pos += 1;
        }
        let mut mi = self.mention_at(pos)?;
        while let Some(next) = self.ms.iter().position(|m| m.start == self.ms[mi].end) {
            // A value or a verb-like word ends the phrase ("cats neutered", "members
            // borrowed"), unless it is a noun's form that names a table ("contractor visit"
            // of `work_visits`).
            let w = self.word(self.ms[next].start);
            let noun = self.names_table(next) && !w.ends_with("ed") && !w.ends_with("ing");
            if matches!(self.ms[next].best().target, Target::Value { .. }) || (qa_question::cues::is_light_verb(w) && !noun) {
                break;
            }
            mi = next;
        }
        Some(mi)
    }

    /// The mention ending right before `pos` (filler and linking verbs skipped).
    pub fn mention_before(&self, pos: usize) -> Option<usize> {
        let mut p = pos;
        while p > 0 && matches!(self.word(p - 1), "the" | "a" | "an" | "of" | "is" | "are" | "was" | "were" | "be" | "been" | "has" | "have" | "had" | "with" | "whose" | "that" | "which" | "its" | "their" | "at" | "in" | "on") {
            p -= 1;
        }
        self.ms.iter().position(|m| m.end == p)
    }

    /// Consume mention `mi` for `role`.
    pub fn consume(&mut self, mi: usize, role: impl Into<String>) {
        self.used[mi] = true;
        let (s, e) = (self.ms[mi].start, self.ms[mi].end);
        self.ledger.mark(s..e, role);
    }

    pub fn mark(&mut self, range: std::ops::Range<usize>, role: impl Into<String>) {
        self.ledger.mark(range, role);
    }

    /// The field's kind.
    pub fn kind(&self, c: &ColRef) -> FieldKind {
        self.schema.field(&c.table, &c.column).map(|f| f.kind).unwrap_or(FieldKind::Other)
    }

    /// A number that measures something: numeric and not a key.
    pub fn is_measure(&self, c: &ColRef) -> bool {
        self.schema.field(&c.table, &c.column).is_some_and(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None)
    }

    /// A mention's best reading names a table.
    pub fn names_table_idx(&self, m: &Mention) -> bool {
        matches!(m.best().target, Target::Collection { .. })
    }

    /// The mention's best reading names a table.
    pub fn names_table(&self, mi: usize) -> bool {
        matches!(self.ms[mi].best().target, Target::Collection { .. })
    }

    /// Tables in play, most central first: the focus (a group's table), the query's table, the
    /// entity, the tables reached.
    pub fn context_tables(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in self.focus.iter().chain(std::iter::once(&self.q.table)).chain(self.entity.iter()).chain(self.reach.iter()) {
            if !t.is_empty() && !out.iter().any(|x| x.eq_ignore_ascii_case(t)) {
                out.push(t.clone());
            }
        }
        out
    }

    /// Every link over exactly the span of mention `mi` (the cover keeps the best only per
    /// target; this is all of them).
    pub fn readings(&self, mi: usize) -> Vec<&Link> {
        let m = &self.ms[mi];
        self.links.iter().filter(|l| l.start == m.start && l.end == m.end).collect()
    }

    /// The columns mention `mi` can name (field links), best first; among equally good ones,
    /// those of the tables in play first.
    pub fn fields_of(&self, mi: usize) -> Vec<(ColRef, f64)> {
        let ctx = self.context_tables();
        let rank = |t: &str| ctx.iter().position(|x| x.eq_ignore_ascii_case(t)).unwrap_or(usize::MAX);
        let mut out: Vec<(ColRef, f64, usize)> = self
            .readings(mi)
            .into_iter()
            .filter_map(|l| match &l.target {
                Target::Field { collection, field } => Some((ColRef::new(collection, field), l.score, rank(collection))),
                _ => None,
            })
            .collect();
        out.sort_by(|a, b| {
            // A clearly better link wins; close ones go to the table in play.
            let close = (a.1 - b.1).abs() < 0.12;
            if close { a.2.cmp(&b.2).then(b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal)) } else { b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal) }
        });
        // A fair reading in a table the question is about beats a better one elsewhere ("the
        // average age for each type of pet" is the pets' age): the focus (a group's table) first.
        let focus = out.iter().position(|x| x.1 >= 0.5 && self.focus.iter().any(|f| f.eq_ignore_ascii_case(&x.0.table)));
        let best = out.first().map(|f| f.1).unwrap_or(0.0);
        // A column of the table in play named in part ("air date" of `original_air_date`) beats a
        // whole name in a table two joins away.
        let far = out.first().is_some_and(|f| {
            let base = self.entity.as_deref().unwrap_or(&self.q.table);
            !base.is_empty() && self.ctx.join_path(base, &f.0.table).is_none_or(|p| p.len() > 1)
        });
        let share = if far { 0.6 } else { 0.85 };
        let in_ctx = out.iter().position(|x| x.2 != usize::MAX && x.1 >= share * best).filter(|_| out.first().is_some_and(|f| f.2 == usize::MAX));
        // "a cat that is age 3", "departments with a budget over …": an attribute said right
        // after a noun (a table, or a value of one) is that table's.
        let before = self.mention_before(self.ms[mi].start).map(|b| self.ms[b].best().target.collection().to_string());
        let near = before.and_then(|t| out.iter().position(|x| x.1 >= 0.5 && x.0.table.eq_ignore_ascii_case(&t)));
        if let Some(i) = near.or(focus).or(in_ctx) {
            let x = out.remove(i);
            out.insert(0, x);
        }
        out.dedup_by(|a, b| a.0 == b.0);
        out.into_iter().map(|(c, s, _)| (c, s)).collect()
    }

    /// The column mention `mi` names, in context.
    pub fn field(&self, mi: usize) -> Option<ColRef> {
        self.fields_of(mi).into_iter().next().map(|(c, _)| c)
    }

    /// The table mention `mi` names, if it names one.
    pub fn table(&self, mi: usize) -> Option<String> {
        self.readings(mi).into_iter().find_map(|l| match &l.target {
            Target::Collection { collection } => Some(collection.clone()),
            _ => None,
        })
    }

    /// The value readings of mention `mi`.
    pub fn value_readings(&self, mi: usize) -> Vec<&Link> {
        self.readings(mi).into_iter().filter(|l| matches!(l.target, Target::Value { .. })).collect()
    }

    /// The primary key of a table (single column).
    pub fn pk(&self, table: &str) -> Option<ColRef> {
        let t = self.ctx.table(table)?;
        (t.primary_key.len() == 1).then(|| ColRef::new(&t.name, &t.primary_key[0]))
    }

    /// The columns that name a row of `table`: a label column (semantic label, name, title,
    /// full name), else first and last name, else — for a table that only refines another
    /// (`poker_player` of `people`) — the referred table's name, else the first text column that
    /// is not a key or a number, else the primary key.
    /// `manufacturer` (or `maker`, `make`, `brand`) and `model` (or `model_name`) of a table
    /// with no plain `name` column: how a product model is named.
    pub(super) fn maker_and_model(&self, table: &str) -> Option<(ColRef, ColRef)> {
        let t = self.ctx.table(table)?;
        let c = |n: &str| ColRef::new(&t.name, n);
        let words = |x: &crate::ColumnInfo| qa_question::names::name_words(&x.name);
        if t.columns.iter().any(|y| y.name.eq_ignore_ascii_case("name")) {
            return None;
        }
        let model = t.columns.iter().find(|x| matches!(words(x).as_slice(), [m] | [m, _] if m == "model") && self.kind(&c(&x.name)).is_textual())?;
        let maker = t.columns.iter().find(|x| matches!(words(x).as_slice(), [m] | [m, _] if matches!(m.as_str(), "manufacturer" | "maker" | "brand" | "make")) && self.kind(&c(&x.name)).is_textual())?;
        Some((c(&maker.name), c(&model.name)))
    }

    pub fn label(&self, table: &str) -> Vec<ColRef> {
        let Some(t) = self.ctx.table(table) else { return Vec::new() };
        let c = |n: &str| ColRef::new(&t.name, n);
        let first = t.columns.iter().find(|x| matches!(x.name.to_ascii_lowercase().as_str(), "first_name" | "firstname" | "fname" | "given_name"));
        let last = t.columns.iter().find(|x| matches!(x.name.to_ascii_lowercase().as_str(), "last_name" | "lastname" | "lname" | "surname" | "family_name"));
        let named = |n: &str| {
            let l = n.to_ascii_lowercase();
            l == "name" || l == "title" || l == "full_name" || l == "fullname" || l == "label" || l.ends_with("_name") || l.ends_with("name") && self.kind(&c(n)).is_textual()
        };
        if let Some(l) = self.ctx.semantic.as_ref().and_then(|s| s.tables.iter().find(|(k, _)| k.eq_ignore_ascii_case(table))).and_then(|(_, st)| st.label.clone()).filter(|l| t.column(l).is_some()) {
            return vec![c(&l)];
        }
        if let Some(n) = t.columns.iter().find(|x| matches!(x.name.to_ascii_lowercase().as_str(), "name" | "title" | "full_name" | "fullname" | "label")) {
            return vec![c(&n.name)];
        }
        if let (Some(f), Some(l)) = (first, last) {
            return vec![c(&f.name), c(&l.name)];
        }
        // A text column named like its table (`course.course`) names the rows.
        let singular = qa_core::text::singular(&table.to_ascii_lowercase());
        if let Some(n) = t.columns.iter().find(|x| qa_core::text::singular(&x.name.to_ascii_lowercase()) == singular && self.kind(&c(&x.name)).is_textual()) {
            return vec![c(&n.name)];
        }
        // A product model is known by its maker and its model ("Trina Solar Vertex S+").
        if let Some((mk, md)) = self.maker_and_model(table) {
            return vec![mk, md];
        }
        // A name column of the table's own ("site_name", "series_name" of its entity).
        let names: Vec<&crate::ColumnInfo> = t.columns.iter().filter(|x| named(&x.name) && self.kind(&c(&x.name)).is_textual()).collect();
        if let Some(n) = names.iter().find(|x| x.name.to_ascii_lowercase().starts_with(&singular)) {
            return vec![c(&n.name)];
        }
        // Two names and none the table's own (`common_name`, `scientific_name` of species):
        // no word says which one people know the rows by, so both.
        // (Among three or more, a whole name before the halves of a contact's name:
        // `company_name` before `contact_first_name`, `contact_last_name`.)
        let whole = |x: &&&crate::ColumnInfo| !qa_question::names::name_words(&x.name).iter().any(|w| matches!(w.as_str(), "first" | "last" | "middle" | "given" | "family"));
        match names.as_slice() {
            [one] => return vec![c(&one.name)],
            [a, b] => return vec![c(&a.name), c(&b.name)],
            [.., last] => return vec![c(&names.iter().find(whole).unwrap_or(last).name)],
            [] => {}
        }
        // A table that refines another: that one's name.
        for fk in &t.foreign_keys {
            if let Some(parent) = self.ctx.table(&fk.ref_table)
                && t.primary_key.len() == 1
                && let Some(n) = parent.columns.iter().find(|x| matches!(x.name.to_ascii_lowercase().as_str(), "name" | "title" | "full_name" | "fullname"))
                && fk.columns.len() == 1
                && t.columns.iter().filter(|x| self.kind(&c(&x.name)).is_textual()).count() == 0
            {
                return vec![ColRef::new(&parent.name, &n.name)];
            }
        }
        if let Some(x) = t.columns.iter().find(|x| self.kind(&c(&x.name)) == qa_question::FieldKind::Keyword && !t.primary_key.contains(&x.name) && !x.name.to_ascii_lowercase().ends_with("_id")) {
            return vec![c(&x.name)];
        }
        // "Which faults were escalated?": rows without a name by the reference they carry
        // (`ticket_no`), not their key.
        if let Some(x) = t.columns.iter().find(|x| !t.primary_key.contains(&x.name) && self.is_code_column(&c(&x.name))) {
            return vec![c(&x.name)];
        }
        self.pk(table).into_iter().collect()
    }

    /// A text column that holds a reference people know rows by (`ticket_no`, `case_number`,
    /// `plot_code`).
    /// (One per row, or too many to sample: `country_code` names no row.)
    pub fn is_code_column(&self, c: &ColRef) -> bool {
        self.one_value_per_row(c) && qa_question::names::name_words(&c.column).last().is_some_and(|w| matches!(w.as_str(), "no" | "nr" | "number" | "code" | "ref" | "reference"))
    }

    /// A text column whose values tell the rows apart (a plate, a code, a unique name): one
    /// per row, or too many to sample.
    pub fn one_value_per_row(&self, c: &ColRef) -> bool {
        let Some(t) = self.ctx.table(&c.table) else { return false };
        let Some(info) = t.column(&c.column) else { return false };
        let per_row = match (info.distinct, t.row_count) {
            (None, _) => true,
            (Some(d), Some(n)) => n > 0 && d as f64 >= 0.9 * n as f64,
            (Some(_), None) => false,
        };
        per_row && self.kind(c).is_textual()
    }

    /// A column people name rows by: a name or title (`name`, `full_name`, `first_name`,
    /// `title`), or a reference (`is_code_column`).
    pub fn is_name_column(&self, c: &ColRef) -> bool {
        self.kind(c).is_textual() && (self.is_code_column(c) || qa_question::names::name_words(&c.column).last().is_some_and(|w| matches!(w.as_str(), "name" | "title" | "surname" | "fname" | "lname")))
    }

    /// "List the branches we have in Spain": rows picked by their country are told apart by
    /// the place within it — the table's one city or town column, not yet tested.
    pub fn place_within_tested_country(&self, table: &str) -> Option<ColRef> {
        let t = self.ctx.table(table)?;
        let country = self.q.filters.iter().any(|f| f.col().is_some_and(|c| c.table.eq_ignore_ascii_case(table) && qa_question::names::name_words(&c.column).iter().any(|w| matches!(w.as_str(), "country" | "nation" | "nationality"))));
        if !country {
            return None;
        }
        let places: Vec<&crate::ColumnInfo> = t.columns.iter().filter(|x| matches!(x.name.to_ascii_lowercase().as_str(), "city" | "town" | "municipality" | "locality" | "city_name" | "town_name") && x.kind() == crate::ColumnKind::Text).collect();
        match places.as_slice() {
            [one] if !self.q.filters.iter().any(|f| f.col().is_some_and(|c| c.table.eq_ignore_ascii_case(table) && c.column.eq_ignore_ascii_case(&one.name))) => Some(ColRef::new(&t.name, &one.name)),
            _ => None,
        }
    }

    /// The columns a list of `table`'s rows shows: its label, after its key when the label is no
    /// name (a finding is known by its id, then its category).
    /// A text column the rows are known by besides their name: a code or number
    /// (`building_code`, `policy_number`, `code`) that is not a key to another table and holds
    /// one value per row (as many as rows, or too many to sample).
    pub fn row_code(&self, table: &str) -> Option<ColRef> {
        let t = self.ctx.table(table)?;
        let codes: Vec<&crate::ColumnInfo> = t
            .columns
            .iter()
            .filter(|x| {
                let words = qa_question::names::name_words(&x.name);
                words.last().is_some_and(|w| matches!(w.as_str(), "code" | "number" | "no" | "ref" | "reference"))
                    && x.kind() == crate::ColumnKind::Text
                    && x.distinct.is_none_or(|d| t.row_count.is_some_and(|n| d >= n))
                    && !t.primary_key.contains(&x.name)
                    && !t.foreign_keys.iter().any(|fk| fk.columns.contains(&x.name))
            })
            .collect();
        match codes.as_slice() {
            [one] => Some(ColRef::new(&t.name, &one.name)),
            _ => None,
        }
    }

    pub fn row_columns(&self, table: &str) -> Vec<ColRef> {
        let label = self.label(table);
        let semantic = self.ctx.semantic.as_ref().and_then(|s| s.tables.iter().find(|(k, _)| k.eq_ignore_ascii_case(table))).and_then(|(_, st)| st.label.clone());
        let singular = qa_core::text::singular(&table.to_ascii_lowercase());
        let is_name = label.len() > 1
            || label.iter().any(|c| {
                let l = c.column.to_ascii_lowercase();
                semantic.as_deref().is_some_and(|s| s.eq_ignore_ascii_case(&c.column)) || l.contains("name") || l.contains("title") || l == "label" || qa_core::text::singular(&l) == singular || !c.table.eq_ignore_ascii_case(table)
            });
        match self.pk(table) {
            Some(pk) if !is_name && !label.contains(&pk) => std::iter::once(pk).chain(label).collect(),
            _ => label,
        }
    }

    /// The negation a condition at `pos` sits under (`Analysis::negation_before`).
    pub fn negation_before(&self, pos: usize) -> Option<usize> {
        self.a.negation_before(&self.ledger, pos)
    }

    /// Are two tables joined by a path of foreign keys?
    pub fn connected(&self, a: &str, b: &str) -> bool {
        a.eq_ignore_ascii_case(b) || self.ctx.join_path(a, b).is_some()
    }
}

/// A value several tables hold equally well ('chestnut' of `harvests.honey_type` and of
/// `sales.honey_type`, "buyers … bought chestnut honey"), or a column several tables have
/// ("beekeepers in each country" of `regions.country_code` and `buyers.country_code`): the
/// reading in the table fewest joins
/// away from the tables the question's other words surely name comes first, so the condition does
/// not reach the rows through five other tables. True when an order changed.
fn nearest_value_first(ctx: &SchemaContext, ms: &[Mention], links: &mut [Link]) -> bool {
    let mut changed = false;
    for (mi, m) in ms.iter().enumerate() {
        // (The tables other words name surely: a table's noun, a column.)
        let named: Vec<String> = ms.iter().enumerate().filter(|(k, o)| *k != mi && o.best().score >= 0.9).filter_map(|(_, o)| match &o.best().target {
            Target::Collection { collection } | Target::Field { collection, .. } => Some(collection.clone()),
            _ => None,
        }).collect();
        if named.is_empty() {
            continue;
        }
        let distance = |l: &Link| joins_from(ctx, &named, l.target.collection());
        let top = m.links[0].score;
        let tied: Vec<&Link> = m.links.iter().take_while(|l| (l.score - top).abs() < 1e-9).collect();
        let same_kind = tied.iter().all(|l| matches!(l.target, Target::Value { .. })) || tied.iter().all(|l| matches!(l.target, Target::Field { .. }));
        if tied.len() < 2 || !same_kind {
            continue;
        }
        let best = tied.iter().map(|l| distance(l)).min().unwrap_or(usize::MAX);
        if distance(tied[0]) == best {
            continue;
        }
        // Move the nearest tied reading of this span to the front of the span's links.
        let span: Vec<usize> = (0..links.len()).filter(|&i| links[i].start == m.start && links[i].end == m.end).collect();
        if let Some(&near) = span.iter().find(|&&i| (links[i].score - top).abs() < 1e-9 && std::mem::discriminant(&links[i].target) == std::mem::discriminant(&tied[0].target) && distance(&links[i]) == best) {
            links[span[0]..=near].rotate_right(1);
            changed = true;
        }
    }
    changed
}

/// The fewest foreign-key joins from any of `named` to `table` (`usize::MAX` when none reaches it).
pub(super) fn joins_from(ctx: &SchemaContext, named: &[String], table: &str) -> usize {
    named.iter().filter_map(|t| ctx.join_path(t, table).map(|p| p.len())).min().unwrap_or(usize::MAX)
}
