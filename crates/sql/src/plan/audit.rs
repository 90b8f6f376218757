//! Structural checks of the built query against the question: what the answer would show
//! and how it is grouped. Each failed check is a penalty, so the planner asks instead of
//! answering — the checks catch the shapes that held-out question sets showed to be confident
//! wrong answers (a list that only repeats the question's values, an item of the asked-for list
//! left out, a column neither grouped nor aggregated, a measure grouped by itself, a "which X"
//! answered without X).

use qa_question::cues::Op;
use qa_question::link::Target;

use super::ir::{AggFunc, ColRef, Cond, Expr};
use super::read::Reader;

impl Reader<'_> {
    pub(super) fn audit(&mut self) {
        self.show_tested_items();
        self.show_when_clauses();
        self.money_asked_is_money();
        self.when_shows_a_date();
        self.dates_said_of_their_table();
        self.measure_with_more_words_said();
        self.groups_shown_by_name();
        self.second_ask_answered();
        self.predicate_only_shown();
        self.ratio_asked();
        // "the total value of the cherries" summed over `unit_price_eur`: a price per unit (per
        // kilogram, per hour, a rate) added up over rows is no total of anything.
        let per_unit = self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)).find_map(|e| match e {
            Expr::Agg { func: AggFunc::Sum, col: Some(c) } if is_per_unit(&c.column) => Some(c.clone()),
            _ => None,
        });
        if let Some(c) = per_unit {
            self.penalties.push((format!("{c} is a price per unit; its sum over rows is no total"), 0.5));
        }
        // "Average consumption per reading for each type of meter" grouped by the reading's
        // key and the meter type: the groups another table's column asks for are split into
        // one row each, and the figure is each row's own value.
        let one_row_groups = self.q.select.iter().find_map(|e| match e {
            Expr::Agg { func: AggFunc::Sum | AggFunc::Avg, col: Some(c) }
                if self.pk(&c.table).is_some_and(|k| self.q.group_by.iter().any(|g| g.column() == Some(&k)))
                    && self.q.group_by.iter().any(|g| g.column().is_some_and(|x| !x.table.eq_ignore_ascii_case(&c.table))) =>
            {
                Some(c.clone())
            }
            _ => None,
        });
        if let Some(c) = one_row_groups {
            self.penalties.push((format!("{c} is aggregated over groups of one {} each", c.table), 0.5));
        }
        // "Which staff are called Ann Lee?" answered with Ann Lee's row, "what did batch B-1
        // cost?" with the batch's code: a list whose every column is a key or
        // one the question gave the value of tells the user nothing they did not say.
        if !self.q.aggregates() && self.q.group_by.is_empty() && !self.q.select.is_empty() {
            let given = self.fixed_columns();
            let is_key = |c: &ColRef| self.ctx.table(&c.table).is_some_and(|t| t.primary_key.iter().any(|k| k.eq_ignore_ascii_case(&c.column)) || t.foreign_keys.iter().any(|fk| fk.columns.iter().any(|k| k.eq_ignore_ascii_case(&c.column))));
            let cols: Vec<Option<&ColRef>> = self.q.select.iter().map(Expr::column).collect();
            let restated = cols.iter().any(|c| c.is_some_and(|c| given.contains(c)));
            if restated && cols.iter().all(|c| c.is_some_and(|c| given.contains(c) || is_key(c))) {
                self.penalties.push(("the answer would only repeat the values the question gives".into(), 0.5));
            }
        }
        // "Give the issue id, the day of issue and the fee": an item of the list the user asked
        // to see that nothing placed is a column missing from the answer, not an incidental word.
        // (A list of two or more items; a verb in an item is a clause about the rows, "the
        // investigators working at …", not something to show.)
        if let Some(p) = self.a.projection.clone().filter(|p| p.items.len() >= 2) {
            for it in &p.items {
                let open: Vec<usize> = (it.start..it.end)
                    .filter(|&i| self.ledger.is_content(i) && !self.ledger.is_used(i) && !self.clause_word(i, it.start))
                    .collect();
                if !open.is_empty() {
                    let words = open.iter().map(|&i| self.a.tokens[i].text.as_str()).collect::<Vec<_>>().join(" ");
                    self.penalties.push((format!("\"{words}\" is asked to be shown and the query does not show it"), 0.75));
                }
            }
        }
        // "… the most money paid out …" ordered by `amount_claimed` in a query grouped by claim
        // number: a plain column of a grouped query must be a group key or belong to a table
        // whose key is one; else it is one row's value picked at random.
        if !self.q.group_by.is_empty() {
            let grouped_tables: Vec<String> = self
                .q
                .group_by
                .iter()
                .filter_map(Expr::column)
                .filter(|c| self.pk(&c.table).is_some_and(|k| k.column.eq_ignore_ascii_case(&c.column)) || self.ctx.table(&c.table).is_some_and(|t| t.foreign_keys.iter().any(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column) && self.q.tables().iter().any(|x| x.eq_ignore_ascii_case(&fk.ref_table)))))
                .flat_map(|c| {
                    // A foreign key groups the rows it refers to, not the rows that hold it
                    // ("machines grouped by their space": each group has many machines).
                    let own_key = self.pk(&c.table).is_some_and(|k| k.column.eq_ignore_ascii_case(&c.column));
                    let mut ts = if own_key { vec![c.table.clone()] } else { Vec::new() };
                    if let Some(t) = self.ctx.table(&c.table) {
                        ts.extend(t.foreign_keys.iter().filter(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column)).map(|fk| fk.ref_table.clone()));
                    }
                    ts
                })
                .collect();
            let loose: Vec<ColRef> = self
                .q
                .select
                .iter()
                .chain(self.q.order_by.iter().map(|(e, _)| e))
                .filter_map(|e| match e {
                    Expr::Col { col } => Some(col.clone()),
                    _ => None,
                })
                .filter(|c| !self.q.group_by.iter().any(|g| g.column() == Some(c)) && !grouped_tables.iter().any(|t| t.eq_ignore_ascii_case(&c.table)))
                .collect();
            if let Some(c) = loose.first() {
                self.penalties.push((format!("{c} is neither grouped nor aggregated"), 0.5));
            }
            // "Which ingredient did we use the most of by weight": grouped by the weight it sums.
            let measured_by_itself = self.q.select.iter().any(|e| matches!(e, Expr::Agg { col: Some(c), .. } if self.q.group_by.iter().any(|g| matches!(g, Expr::Col { col } if col == c))));
            if measured_by_itself {
                self.penalties.push(("a column both grouped by and aggregated".into(), 0.5));
            }
        }
        // "Which parts went into tool T-1, and how many kilograms of each?" summing the tool's
        // own weight per part: a measure of a row the question fixes to one (a unique value
        // said) repeats that row's value in every group.
        if !self.q.group_by.is_empty() {
            let fixed = self.fixed_columns();
            let unique = |c: &ColRef| self.names_one_row(c);
            let grouped: Vec<String> = self.q.group_by.iter().filter_map(Expr::column).map(|c| c.table.clone()).collect();
            let pinned = self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)).find_map(|e| match e {
                Expr::Agg { func: AggFunc::Sum | AggFunc::Avg, col: Some(c) } if !grouped.iter().any(|g| g.eq_ignore_ascii_case(&c.table)) && fixed.iter().any(|f| f.table.eq_ignore_ascii_case(&c.table) && unique(f)) => Some(c.clone()),
                _ => None,
            });
            if let Some(c) = pinned {
                self.penalties.push((format!("{c} is a measure of one row the question names, repeated in every group"), 0.5));
            }
        }
        // "sailed from Bremerhaven and ended in Lowestoft" read as either port: values of one
        // column said in separate clauses (other words between them than a list's "and", "or",
        // commas) are two conditions on two things, not a list.
        for f in &self.q.filters {
            let Cond::In { col, values, negated: false } = f else { continue };
            if values.len() < 2 {
                continue;
            }
            let prefix = format!("{col} = ");
            let at: Vec<usize> = (0..self.n()).filter(|&i| self.ledger.role(i).is_some_and(|r| r.starts_with(&prefix))).collect();
            let separate = at.windows(2).any(|w| {
                w[1] > w[0] + 1 && self.ledger.role(w[0]) != self.ledger.role(w[1]) && (w[0] + 1..w[1]).any(|k| !matches!(self.word(k), "," | "and" | "or" | "either" | "nor" | "as" | "well" | "the" | "also" | "/" | "&"))
            });
            if separate {
                self.penalties.push((format!("values of {col} said in separate clauses, read as a list of either"), 0.5));
                break;
            }
            // "either houses or apartments with more than 1 room": a condition said after the
            // last of a list of alternatives may be of that one only.
            let either = at.first().is_some_and(|&f| f > 0 && self.word(f - 1) == "either") && at.windows(2).any(|w| (w[0] + 1..w[1]).any(|k| self.word(k) == "or"));
            let after = at.last().map(|&l| l + 1).unwrap_or(0);
            let qualified = matches!(self.word(after), "with" | "having" | "that" | "which" | "whose") && self.a.comparisons.iter().any(|c| c.start > after && c.start <= after + 3);
            if either && qualified {
                self.penalties.push((format!("the condition after \"{}\" may hold for it alone, not for every value of {col} listed", self.word(after - 1)), 0.5));
                break;
            }
        }
        // "ports that never saw a cruise depart or arrive": both of two keys to one table named
        // by their words (`departure_port_id`, `arrival_port_id`), the query following one.
        let followed = columns_read(&self.q);
        'holders: for t in &self.ctx.db.tables {
            let mut by_target: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
            for fk in t.foreign_keys.iter().filter(|fk| fk.columns.len() == 1 && !fk.ref_table.eq_ignore_ascii_case(&t.name)) {
                by_target.entry(fk.ref_table.to_ascii_lowercase()).or_default().push(fk.columns[0].clone());
            }
            for (target, keys) in by_target.iter().filter(|(_, k)| k.len() >= 2) {
                // (Nor by the referred table's own name: "adjuster" of `adjuster_id` names the
                // adjusters, as every key to them does.)
                let target_family = qa_core::text::word_family(target);
                // (By the words that tell the keys apart: "departure" and "arrival", not the
                // "port" both hold; a key with no word of its own is never named so.)
                let words_of = |c: &String| -> Vec<String> { qa_question::names::name_words(c).into_iter().filter(|w| w.len() >= 4).collect() };
                let shared: Vec<String> = words_of(&keys[0]).into_iter().filter(|w| keys.iter().all(|k| words_of(k).contains(w))).collect();
                // (Nor by the holding table's own name: "dispensings" names the rows, not
                // `dispensed_by_id` beside `checked_by_id`.)
                let holder: Vec<String> = qa_question::names::name_words(&t.name).iter().map(|w| qa_core::text::word_family(w)).collect();
                let said = |c: &String| {
                    let fams: Vec<String> = words_of(c).iter().filter(|w| !shared.contains(w)).map(|w| qa_core::text::word_family(w)).filter(|f| *f != target_family && !holder.contains(f)).collect();
                    (0..self.n()).any(|i| self.word(i).len() >= 4 && fams.contains(&qa_core::text::word_family(self.word(i))))
                };
                let used = |c: &String| followed.iter().any(|x| x.table.eq_ignore_ascii_case(&t.name) && x.column.eq_ignore_ascii_case(c));
                let named: Vec<&String> = keys.iter().filter(|c| said(c)).collect();
                if named.len() >= 2 && named.iter().filter(|c| used(c)).count() == 1 {
                    self.penalties.push((format!("{} and {} are both named; the query follows one", named[0], named[1]), 0.5));
                    break 'holders;
                }
            }
        }
        // "the most fuel in total? Show the kilograms": a sum shown next to one row's plain
        // value, with no groups, is no answer (and PostgreSQL refuses it).
        if self.q.group_by.is_empty() && self.q.aggregates() && let Some(c) = self.q.select.iter().find_map(|e| match e {
            Expr::Col { col } => Some(col.clone()),
            _ => None,
        }) {
            self.penalties.push((format!("{c} is shown next to an aggregate without groups"), 0.5));
        }
        // "the driver and the relief driver", "the names of both tenants", "the adjuster
        // handling it and the adjuster who reviewed it": rows with two keys to one table, the
        // question naming that table twice (or "both"), and the query following one key.
        for j in self.q.joins.clone() {
            let (holder, other) = if self.ctx.table(&j.from_table).is_some_and(|t| t.foreign_keys.iter().any(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&j.from_column))) {
                (j.from_table.clone(), j.to_table.clone())
            } else {
                (j.to_table.clone(), j.from_table.clone())
            };
            let keys = self.ctx.table(&holder).map_or(0, |t| t.foreign_keys.iter().filter(|fk| fk.ref_table.eq_ignore_ascii_case(&other)).count());
            let joins_to_other = self.q.joins.iter().filter(|x| x.to_table.eq_ignore_ascii_case(&other) || x.from_table.eq_ignore_ascii_case(&other)).count();
            let again = self.q.kin.iter().any(|k| k.table.as_deref().is_some_and(|t| t.eq_ignore_ascii_case(&other)));
            if keys < 2 || joins_to_other >= 2 || again {
                continue;
            }
            let named = self.ms.iter().filter(|m| matches!(&m.best().target, Target::Collection { collection } if collection.eq_ignore_ascii_case(&other))).count();
            let both = (0..self.n()).any(|i| self.word(i) == "both");
            // A role one key's name says ("relief" of `relief_driver_id`, "reviewer" of
            // `fraud_reviewer_id`): named twice and a role said, the question is about both.
            let table_words = qa_question::names::name_words(&other);
            let roles: Vec<String> = self
                .ctx
                .table(&holder)
                .map(|t| t.foreign_keys.iter().filter(|fk| fk.ref_table.eq_ignore_ascii_case(&other)).flat_map(|fk| fk.columns.iter().flat_map(|c| qa_question::names::name_words(c))).collect())
                .unwrap_or_default();
            let roles: Vec<String> = roles.into_iter().filter(|w| w.len() >= 4 && !qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str()) && !table_words.iter().any(|x| qa_core::text::same_family(x, w))).collect();
            let role_said = (0..self.n()).any(|i| roles.iter().any(|r| qa_core::text::same_family(r, self.word(i))));
            if (named >= 2 && role_said) || both {
                self.penalties.push((format!("{holder} has {keys} keys to {other}; the query follows one"), 0.5));
                break;
            }
        }
        // "Which official has worked the most matches as an assistant?" grouped by the role
        // the question fixes to 'assistant': one group, the ranking says nothing of who.
        let fixed = self.fixed_columns();
        if let Some(c) = self.q.group_by.iter().filter_map(|g| g.column()).find(|c| fixed.contains(c))
            && self.q.group_by.len() == 1
        {
            self.penalties.push((format!("grouped by {c}, which the question fixes to one value"), 0.5));
        }
        // "Which campuses have had dropped enrolments, and how many at each?" counted over the
        // campuses themselves, grouped by their name: every group is one row, every count 1.
        let counts = self.q.select.iter().any(|e| matches!(e, Expr::Agg { func: super::ir::AggFunc::Count, col: None }));
        // (Joins only filtered on, that fan out, become semi-joins: the rows stay one each.)
        if counts && super::ir::inline_joins(self.ctx, &self.q) == 0 && !self.q.group_by.is_empty() {
            let label = self.label(&self.q.table.clone());
            let pk = self.pk(&self.q.table.clone());
            let own = self.q.group_by.iter().all(|g| g.column().is_some_and(|c| c.table.eq_ignore_ascii_case(&self.q.table)));
            // (By its key, or by the name that labels each row — not by a code or category
            // of the rows, whose groups hold many.)
            let names_rows = !label.is_empty() && label.iter().all(|c| {
                let l = c.column.to_ascii_lowercase();
                (l.contains("name") || l.contains("title")) && self.q.group_by.contains(&Expr::col(c.clone()))
            });
            // (Or by a column whose every value is another row's: a licence plate.)
            // (Not any code: a country code or a fault code repeats; a plate or the row's own
            // number does not.)
            let unique = self.q.group_by.iter().filter_map(|g| g.column()).any(|c| {
                let words = qa_question::names::name_words(&c.column);
                let own_code = match words.as_slice() {
                    [w] => matches!(w.as_str(), "plate" | "serial" | "vin" | "isbn" | "sku"),
                    [noun, suffix] => matches!(suffix.as_str(), "number" | "no" | "nr") && qa_core::text::singular(&c.table.to_ascii_lowercase()).ends_with(noun.as_str()),
                    _ => false,
                };
                // (Not a column that merely happens to hold distinct values — a hometown per
                // teacher in a small table: "how many teachers in each hometown" still counts.)
                own_code
            });
            let per_row = self.q.group_by.iter().any(|g| Some(g.column()) == Some(pk.as_ref())) || names_rows || unique;
            if own && per_row {
                self.penalties.push(("counts groups of one row each".into(), 0.5));
            }
        }
        // "Which business courses have no substitute teacher?" joined on the very key it
        // requires to be empty: no row can come out.
        for f in &self.q.filters {
            if let Cond::Null { col, is_null: true } = f
                && self.q.joins.iter().any(|j| (j.from_table.eq_ignore_ascii_case(&col.table) && j.from_column.eq_ignore_ascii_case(&col.column)) || (j.to_table.eq_ignore_ascii_case(&col.table) && j.to_column.eq_ignore_ascii_case(&col.column)))
            {
                self.penalties.push((format!("joined on {col}, which the question wants empty"), 0.3));
                break;
            }
        }
        // "the average score for midterms and for finals": one figure for two values said apart
        // is not what was asked; each value is its own group.
        if self.q.aggregates() && self.q.group_by.is_empty() {
            let apart = (1..self.n()).any(|i| self.word(i) == "for" && self.word(i - 1) == "and");
            if apart && self.q.filters.iter().any(|f| matches!(f, Cond::In { values, negated: false, .. } if values.len() >= 2)) {
                self.penalties.push(("an aggregate over values said apart (\"for X and for Y\") is one figure, not one per value".into(), 0.5));
            }
        }
        // "Which beers have been brewed at more than one site, and at how many sites?" answered
        // with a count of sites alone: a question about things of one table shows them.
        let which_table = self.a.sentences.first().and_then(|&(s, _)| (matches!(self.word(s), "which" | "what")).then(|| self.mention_at(s + 1)).flatten()).filter(|&mi| matches!(self.ms[mi].best().target, Target::Collection { .. })).and_then(|mi| self.table(mi));
        if let Some(t) = which_table
            && !self.q.select.is_empty()
            && !self.q.select.iter().any(|e| match e {
                Expr::Col { col } | Expr::Time { col, .. } => col.table.eq_ignore_ascii_case(&t),
                Expr::All { table } => table.eq_ignore_ascii_case(&t),
                Expr::Agg { .. } => false,
            })
            && self.q.group_by.is_empty()
        {
            self.penalties.push((format!("the question asks which {t}, and the answer shows none"), 0.5));
        }
        // "Which three regions' apiaries hold the most hives?" grouped by apiary: the groups a
        // "which [N] X" ranking asks for are X's rows.
        let which_n_table = self.a.sentences.first().and_then(|&(s, _)| {
            let at = if self.a.tokens.get(s + 1).is_some_and(|t| t.number().is_some() || qa_question::numbers::number_word(&t.lower).is_some()) { s + 2 } else { s + 1 };
            (matches!(self.word(s), "which" | "what") && at == s + 2).then(|| self.mention_at(at)).flatten()
        }).filter(|&mi| matches!(self.ms[mi].best().target, Target::Collection { .. })).and_then(|mi| self.table(mi));
        if let Some(t) = which_n_table
            && !self.q.group_by.is_empty()
            && !self.q.group_by.iter().chain(self.q.select.iter()).any(|e| e.column().is_some_and(|c| c.table.eq_ignore_ascii_case(&t) && !e.is_agg()))
        {
            self.penalties.push((format!("the question asks which {t}, and the groups are other rows"), 0.5));
        }
    }

    /// "How much have guests from the UK spent on equipment rentals?" answered with a sum of
    /// `max_guests`: money asked for ("how much" with a verb of paying) is measured by a column
    /// that may hold money, or the plan asks.
    fn money_asked_is_money(&mut self) {
        let how_much = (1..self.n()).any(|i| self.word(i) == "much" && self.word(i - 1) == "how");
        let paying = (0..self.n()).any(|i| qa_question::cues::is_paying_verb(self.word(i)));
        // ("the total value of the honey sold" summed over `honey_kg`: a word for an amount
        // of money after "total" or "average" asks for money too.)
        let nouns: Vec<String> = (1..self.n()).filter(|&i| matches!(self.word(i), "value" | "revenue" | "turnover" | "takings" | "worth" | "earnings" | "income") && matches!(self.word(i - 1), "total" | "average" | "combined" | "overall" | "mean")).map(|i| self.a.tokens[i].norm.clone()).collect();
        let money_noun = !nouns.is_empty();
        if !(how_much && paying || money_noun) {
            return;
        }
        let measured: Vec<ColRef> = self.q.select.iter().filter_map(|e| match e {
            Expr::Agg { func: AggFunc::Sum | AggFunc::Avg, col: Some(c) } => Some(c.clone()),
            _ => None,
        }).collect();
        // (A column named by the noun itself, `Earnings`, is what was asked.)
        let named = |c: &ColRef| qa_question::names::name_words(&c.column).iter().any(|w| nouns.iter().any(|n| qa_core::text::singular(w) == qa_core::text::singular(n)));
        if let Some(c) = measured.iter().find(|c| !qa_question::names::may_be_money_name(&c.column) && !named(c)) {
            self.penalties.push((format!("money is asked for and {c} does not hold money"), 0.5));
        }
    }

    /// "How many invoices were issued in March, and what did they come to in total?" answered
    /// with the count alone, "In which region is apiary A-9, and who owns it?" with the region
    /// alone: a clause after ", and what" or ", and who" whose words only repeat
    /// what the first clause already placed asks for something the query does not show.
    fn second_ask_answered(&mut self) {
        let Some(k) = (2..self.n()).find(|&k| self.a.tokens[k - 2].is_symbol(',') && self.word(k - 1) == "and" && matches!(self.word(k), "what" | "who")) else { return };
        let roles = |r: std::ops::Range<usize>| -> Vec<String> { r.filter_map(|i| self.ledger.role(i).map(str::to_string)).filter(|x| x != "relation" && x != "negation").collect() };
        let first = roles(0..k - 2);
        let second = roles(k..self.n());
        if !second.iter().all(|r| first.contains(r)) {
            return;
        }
        let content = (k + 1..self.n()).any(|i| self.a.tokens[i].is_word() && !qa_core::text::is_stop(&self.a.tokens[i].lower));
        if content {
            let phrase = self.a.tokens[k - 1..].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
            self.penalties.push((format!("\"{phrase}\" asks for more than the query shows"), 0.5));
        }
    }

    /// "What percentage of the batches brewed in 2025 were dry-hopped?" answered with a
    /// `…_pct` column: a share of rows ("percentage / share / proportion / fraction of" the
    /// rows a table names) is a ratio of two counts, which no plan builds — ask.
    fn ratio_asked(&mut self) {
        for i in 0..self.n().saturating_sub(2) {
            // (After "what", "the" or "a": "the sugar percentage of the harvests" is a column.)
            let opens = i > 0 && matches!(self.word(i - 1), "what" | "which" | "the" | "a");
            if !opens || !matches!(self.word(i), "percentage" | "percent" | "share" | "proportion" | "fraction") || self.word(i + 1) != "of" {
                continue;
            }
            // (Not a column named so: "the share of TV series" of `Share`.)
            if self.mention_at(i).is_some_and(|mi| self.ms[mi].best().score >= 0.9 && matches!(self.ms[mi].best().target, Target::Field { .. })) {
                continue;
            }
            let at = if matches!(self.word(i + 2), "the" | "all" | "our" | "their") { i + 3 } else { i + 2 };
            let plural = self.a.tokens.get(at).is_some_and(|t| t.is_word() && t.lower != t.norm);
            if plural || self.mention_at(at).is_some_and(|mi| self.names_table(mi)) {
                self.penalties.push((format!("\"{} of\" asks for a ratio of two counts, which the query does not compute", self.a.tokens[i].text), 0.5));
                return;
            }
        }
    }

    /// "Which Belgian customers are companies?" answered with every Belgian customer and their
    /// `company_name`: the words after "are" in a "which … are …" sentence say which rows; a
    /// query that only shows them drops the condition.
    fn predicate_only_shown(&mut self) {
        for words in self.a.copula_predicates() {
            if words.len() > 2 {
                continue;
            }
            let phrase = words.iter().map(|&k| self.a.tokens[k].text.as_str()).collect::<Vec<_>>().join(" ");
            if words.iter().all(|&k| self.ledger.role(k).is_some_and(|r| r.starts_with("show "))) {
                self.penalties.push((format!("\"are {phrase}\" says which rows, and the query only shows it"), 0.5));
                return;
            }
            // "Which loans are still out?": a state said by words the coverage does not count
            // ("out", "still") is a condition nothing placed.
            if words.iter().all(|&k| self.ledger.role(k).is_none_or(|r| r == "grammar")) && words.last().is_some_and(|&k| qa_question::cues::is_state_particle(self.word(k))) {
                self.penalties.push((format!("\"are {phrase}\" says which rows, and no condition says it"), 0.5));
                return;
            }
        }
    }

    /// "Which supervisors have more than eight staff reporting to them?" answered with
    /// `supervisor_id` values: groups keyed by a reference to rows that have names, shown by the
    /// bare key and nothing of the rows referred to, answer "which" with numbers nobody asked
    /// for (unless the question asks for the id, number or code).
    fn groups_shown_by_name(&mut self) {
        let asks_key = (0..self.n()).any(|i| matches!(self.a.tokens[i].norm.as_str(), "id" | "ids" | "identifier" | "number" | "code" | "key"));
        if asks_key || self.q.group_by.is_empty() {
            return;
        }
        let shown: Vec<ColRef> = self.q.select.iter().filter_map(|e| e.column().cloned()).collect();
        for c in &shown {
            let Some(t) = self.ctx.db.table(&c.table) else { continue };
            let Some(fk) = t.foreign_keys.iter().find(|fk| fk.columns.len() == 1 && fk.columns[0].eq_ignore_ascii_case(&c.column)) else { continue };
            let grouped = self.q.group_by.iter().any(|g| g.column() == Some(c));
            let referred_shown = shown.iter().any(|x| x.table.eq_ignore_ascii_case(&fk.ref_table) && x != c);
            if grouped && !referred_shown && !self.label(&fk.ref_table).is_empty() && shown.iter().all(|x| x.table.eq_ignore_ascii_case(&c.table)) {
                self.penalties.push((format!("the groups are shown by their key {c}, not by the {} they refer to", fk.ref_table), 0.5));
                return;
            }
        }
    }

    /// "When was unit TU-4012 commissioned, and how many kilometres has it run?" answered
    /// with the kilometres alone: a question that opens with "when" shows a date or a year.
    fn when_shows_a_date(&mut self) {
        let opens_with_when = self.a.sentences.iter().any(|&(s, _)| self.word(s) == "when");
        if !opens_with_when || self.q.select.is_empty() {
            return;
        }
        let dated = self.q.select.iter().any(|e| match e {
            Expr::Time { .. } => true,
            Expr::Col { col } => {
                self.kind(col) == qa_question::FieldKind::Date || qa_question::names::name_words(&col.column).iter().any(|w| matches!(w.as_str(), "year" | "date" | "month" | "day" | "on" | "at" | "since" | "until"))
            }
            Expr::Agg { func: AggFunc::Min | AggFunc::Max, col: Some(c) } => self.kind(c) == qa_question::FieldKind::Date,
            _ => false,
        });
        if !dated {
            self.penalties.push(("\"when\" asks for a date the answer does not show".into(), 0.5));
        }
    }

    /// "Which units failed an inspection in September 2024?" dated by the units'
    /// `commissioned_on`: a date whose own words (not "date", "on", …) and whose table the
    /// question never says, while another table of the query keeps dates of its own, is a
    /// guess at which event the date belongs to.
    fn dates_said_of_their_table(&mut self) {
        let mut cols: Vec<ColRef> = self.q.filters.iter().filter_map(|f| match f {
            Cond::Dates { col, .. } | Cond::Month { col, .. } => Some(col.clone()),
            _ => None,
        }).collect();
        cols.extend(self.q.group_by.iter().filter_map(|e| match e {
            Expr::Time { col, .. } => Some(col.clone()),
            _ => None,
        }));
        let tables = self.q.tables();
        // (The rows measured or counted are dated by their own date: "the revenue of each shop
        // in 2024" of the sales' date.)
        let mut measured: Vec<String> = self.q.select.iter().filter_map(|e| match e {
            Expr::Agg { col: Some(c), .. } => Some(c.table.clone()),
            _ => None,
        }).collect();
        if self.q.select.iter().any(|e| matches!(e, Expr::Agg { func: AggFunc::Count, .. })) {
            measured.push(self.q.table.clone());
        }
        let said = |r: &Reader, w: &str| (0..r.n()).any(|i| r.word(i).len() >= 3 && qa_core::text::same_family(r.word(i), w));
        for c in cols {
            let own: Vec<String> = qa_question::names::name_words(&c.column).into_iter().filter(|w| w.len() >= 3 && !matches!(w.as_str(), "date" | "day" | "time" | "datetime" | "timestamp" | "since" | "until" | "year" | "month")).collect();
            if own.is_empty() || own.iter().any(|w| said(self, w)) || measured.iter().any(|t| t.eq_ignore_ascii_case(&c.table)) {
                continue;
            }
            let table_said = qa_question::names::name_words(&c.table).iter().any(|w| w.len() >= 3 && said(self, &qa_core::text::singular(w)));
            let elsewhere = tables.iter().filter(|t| !t.eq_ignore_ascii_case(&c.table)).any(|t| !self.date_columns(t).is_empty());
            if !table_said && elsewhere {
                self.penalties.push((format!("{c} dates the question, and neither its words nor its table are said"), 0.5));
                return;
            }
        }
    }

    /// "How many hours have we billed for Marcel Jongen?" summed over `hours_per_week`
    /// while `hours_billed` exists: another measure sharing the word that chose this one, and
    /// saying one more word of the question, is likelier what was asked — the plan asks.
    fn measure_with_more_words_said(&mut self) {
        let measured: Vec<ColRef> = self.q.select.iter().chain(self.q.order_by.iter().map(|(e, _)| e)).filter_map(|e| match e {
            Expr::Agg { col: Some(c), .. } => Some(c.clone()),
            _ => None,
        }).collect();
        let said = |r: &Reader, w: &str| w.len() >= 4 && (0..r.n()).any(|i| qa_core::text::same_family(r.word(i), w));
        let content = |c: &str| -> Vec<String> { qa_question::names::name_words(c).into_iter().filter(|w| w.len() >= 3 && !matches!(w.as_str(), "per" | "total" | "num" | "count")).collect() };
        let unit = |w: &String| qa_question::numbers::unit_of(w).is_some();
        for c in measured {
            let mine = content(&c.column);
            let Some(shared) = mine.iter().find(|w| said(self, w)).cloned() else { continue };
            let mine_extra_said = mine.iter().any(|w| *w != shared && !unit(w) && said(self, w));
            if mine_extra_said {
                continue;
            }
            let better = self.schema.collections.iter().flat_map(|t| t.fields.iter().map(move |f| (t, f))).find(|(t, f)| {
                let other = ColRef::new(&t.name, &f.name);
                if other == c || !f.kind.is_numeric() || f.key != qa_question::KeyRole::None {
                    return false;
                }
                let words = content(&f.name);
                words.contains(&shared) && words.iter().any(|w| *w != shared && !unit(w) && !mine.contains(w) && said(self, w))
            });
            if let Some((t, f)) = better {
                self.penalties.push((format!("{c} measures the question, and {}.{} shares its word and says one more", t.name, f.name), 0.5));
                return;
            }
        }
    }

    /// The columns the query's conditions fix to one value (`= v`, `IN (v)`).
    fn fixed_columns(&self) -> Vec<ColRef> {
        self.q
            .filters
            .iter()
            .filter_map(|f| match f {
                Cond::Cmp { col, op: Op::Eq, .. } => Some(col.clone()),
                Cond::In { col, values, negated: false } if values.len() == 1 => Some(col.clone()),
                // "on 12 March 2025": a range of one day gives the date as surely as `=`.
                Cond::Dates { col, from: Some(from), to: Some(to) } if one_day(from, to) => Some(col.clone()),
                _ => None,
            })
            .collect()
    }

    /// "Which tenants were born before 1955? First name, last name and year of birth": an item
    /// of the list whose words went to a condition (`birth_year`) and to nothing shown is that
    /// column, shown.
    fn show_tested_items(&mut self) {
        let Some(p) = self.a.projection.clone().filter(|p| p.items.len() >= 2) else { return };
        if self.q.aggregates() || !self.q.group_by.is_empty() {
            return;
        }
        let tested: Vec<ColRef> = self.q.filters.iter().filter_map(|f| f.col().cloned()).collect();
        for it in &p.items {
            let shown = (it.start..it.end).any(|i| self.ledger.role(i).is_some_and(|r| r.starts_with("show") || r.starts_with("group") || r.contains('(')));
            if shown {
                continue;
            }
            let named: Vec<ColRef> = (0..self.ms.len())
                .filter(|&mi| self.ms[mi].start < it.end && self.ms[mi].end > it.start)
                .flat_map(|mi| self.fields_of(mi).into_iter().map(|(c, _)| c))
                .filter(|c| tested.contains(c))
                .collect();
            if let Some(c) = named.first()
                && named.iter().all(|x| x == c)
                && !self.q.select.contains(&Expr::col(c.clone()))
            {
                self.q.select.push(Expr::col(c.clone()));
            }
        }
    }

    /// "Which depots opened before 2000? Give the name and when it opened.", "… and when did
    /// they start?": a "when" asked beside other things is the rows' date its verb names (or
    /// their only date), shown; a date it cannot place makes the plan ask.
    fn show_when_clauses(&mut self) {
        if self.q.aggregates() || !self.q.group_by.is_empty() || self.q.select.is_empty() {
            return;
        }
        let whens: Vec<usize> = (1..self.n()).filter(|&i| self.word(i) == "when" && !self.ledger.is_used(i)).collect();
        for w in whens {
            // "… that weighed more than 50 kg when they came in": a "when" that opens a clause
            // after a statement is a conjunction, not a question about a date. Asked, it follows
            // "and", a comma or a verb of showing, or comes before an auxiliary ("when did …").
            let next = if w + 1 < self.n() { self.word(w + 1) } else { "" };
            let asked = matches!(self.word(w - 1), "and" | "," | ";" | "show" | "give" | "list" | "tell" | "say" | "me" | "us" | "know" | "plus" | "also" | "or")
                || matches!(next, "did" | "was" | "were" | "does" | "do" | "is" | "are" | "has" | "have" | "had" | "will" | "?" | "");
            if !asked {
                self.mark(w..w + 1, "when: a clause's conjunction");
                continue;
            }
            let dates = self.date_columns(&self.q.table.clone());
            let verb = (w + 1..(w + 5).min(self.n())).find(|&k| self.word(k).len() > 3 && !matches!(self.word(k), "they" | "were" | "was" | "does" | "did" | "have" | "this" | "that"));
            let named: Vec<ColRef> = verb.map(|k| dates.iter().filter(|c| qa_question::names::name_words(&c.column).iter().any(|x| qa_core::text::same_family(x, self.word(k)))).cloned().collect()).unwrap_or_default();
            // ("… and when the repair started": the words after it already show the date.)
            let shown = (w + 1..(w + 5).min(self.n())).find_map(|k| self.ledger.role(k).and_then(|r| r.strip_prefix("show ")).and_then(|c| dates.iter().find(|d| d.to_string() == c)).cloned());
            let col = match (shown, named.as_slice(), dates.as_slice()) {
                (Some(c), ..) => Some(c),
                (None, [one], _) | (None, [], [one]) => Some(one.clone()),
                _ => None,
            };
            match col {
                Some(c) => {
                    if !self.q.select.contains(&Expr::col(c.clone())) {
                        self.q.select.push(Expr::col(c.clone()));
                    }
                    let end = verb.map_or(w + 1, |k| k + 1);
                    self.mark(w..end, format!("show {c}"));
                }
                None => self.penalties.push(("\"when\" asks for a date the query does not show".into(), 0.5)),
            }
        }
    }

    /// A word of a list item that says something about the rows rather than names a column:
    /// a verb or participle ("working", "based", "run"), or a verb right after the rows' plural
    /// noun ("templates correspond to …").
    fn clause_word(&self, i: usize, item_start: usize) -> bool {
        let w = self.word(i);
        let verb = qa_core::text::is_verb_form(w) || qa_core::text::is_base_verb(w) || (w.len() > 5 && w.ends_with("ing")) || (w.len() > 4 && w.ends_with("ed"));
        let after_rows = i > item_start && self.ledger.role(i - 1).is_some_and(|r| r.starts_with("table ")) && self.word(i - 1).ends_with('s');
        verb || after_rows
    }
}

/// Every column a query reads — joined on, shown, grouped, ordered or tested — in its
/// sub-queries too.
fn columns_read(q: &super::ir::Query) -> Vec<ColRef> {
    let mut out: Vec<ColRef> = Vec::new();
    for j in &q.joins {
        out.push(ColRef::new(&j.from_table, &j.from_column));
        out.push(ColRef::new(&j.to_table, &j.to_column));
    }
    for k in &q.kin {
        out.push(ColRef::new(&q.table, &k.column));
    }
    for e in q.select.iter().chain(q.group_by.iter()).chain(q.order_by.iter().map(|(e, _)| e)).chain(q.having.iter().map(|h| &h.expr)) {
        out.extend(e.column().cloned());
    }
    for f in &q.filters {
        out.extend(f.col().cloned());
        match f {
            Cond::Sub { query, .. } | Cond::InSub { query, .. } => out.extend(columns_read(query)),
            Cond::Or { any } => out.extend(any.iter().filter_map(|c| c.col().cloned())),
            _ => {}
        }
    }
    out
}

impl Reader<'_> {
    /// Column `c` names one row: the table's key, a column whose distinct values are as many as
    /// the rows, or — where the database gave no counts — a code by its name (a plate, a serial).
    fn names_one_row(&self, c: &ColRef) -> bool {
        let rows = self.ctx.table(&c.table).and_then(|t| t.row_count);
        let distinct = self.schema.field(&c.table, &c.column).and_then(|f| f.distinct);
        let code = qa_question::names::name_words(&c.column).last().is_some_and(|w| matches!(w.as_str(), "code" | "number" | "no" | "nr" | "tag" | "serial" | "plate" | "sku" | "isbn" | "vin"));
        self.pk(&c.table).is_some_and(|k| k == *c) || rows.zip(distinct).is_some_and(|(r, d)| r > 1 && d == r) || code
    }
}

/// A `[from, to)` range that holds one calendar day.
fn one_day(from: &str, to: &str) -> bool {
    let day = |d: &str| chrono::NaiveDate::parse_from_str(d.get(..10).unwrap_or(d), "%Y-%m-%d").ok();
    matches!((day(from), day(to)), (Some(a), Some(b)) if b.signed_duration_since(a).num_days() == 1)
}

/// A price per unit: `unit_price_eur`, `price_per_kg_eur`, `hourly_rate_eur`, `daily_rate`
/// — money per something. (Not `units_sold`, a count, nor `hours_per_week`, a quantity per
/// period that adds up over rows.)
fn is_per_unit(column: &str) -> bool {
    let words = qa_question::names::name_words(column);
    let money = words.iter().any(|w| matches!(w.as_str(), "price" | "cost" | "fee" | "rate" | "tariff" | "charge")) || qa_question::names::is_money_name(column);
    money && words.iter().any(|w| matches!(w.as_str(), "per" | "unit" | "rate" | "hourly" | "daily" | "nightly"))
}
