//! The shape of the answer: grouping ("per X", "by X", "which X …"), the aggregate (count,
//! distinct count, sum, average, min, max over the measure the question names), ranking
//! ("which X has the most Y", "top 3", "the 5 books with the most pages") as ORDER BY + LIMIT,
//! and the projection of a list (the columns the question names, else the row's label).

use super::super::ColumnKind;
use super::interpret::Interp;
use super::{AggFunc, Aggregate, ColRef, Filter, GroupKey};

/// Words that rank by price when no column is named ("the 5 most expensive").
const COST_WORDS: &[&str] = &["expensive", "costliest", "costly", "cheapest", "pricey", "priciest"];
/// Name words of a money column.
const MONEY_PARTS: &[&str] = &["cost", "price", "amount", "fee", "total", "value", "revenue", "spend", "salary", "budget", "charge"];

impl Interp<'_> {
    /// Grouping, aggregate, ranking and projection.
    pub fn shape(&mut self) {
        let rank_by = self.group_keys();
        self.time_group();
        self.aggregate_and_rank(rank_by);
        self.projection();
    }

    /// Group keys from "per/by/each X" and the entity of "which X … most". Returns a number
    /// column named after "by" ("top 3 findings by cost"): a measure to rank by, not a group.
    fn group_keys(&mut self) -> Option<ColRef> {
        let mut rank_by = None;
        for mi in 0..self.ms.len() {
            if self.used[mi] || !self.is_group_target(mi) || self.ms[mi].is_value() {
                continue;
            }
            let m = &self.ms[mi];
            if let Some(t) = m.table().map(str::to_string) {
                let tables = self.ms.iter().filter(|m| m.is_table() && !m.is_value()).count();
                if (!t.eq_ignore_ascii_case(&self.subject) || tables == 1)
                    && let Some(label) = self.ctx.label_column(&t)
                {
                    let col = ColRef::new(&t, &label);
                    self.consume(mi, format!("group by {col}"));
                    self.group_by.push(GroupKey::Column { col });
                }
                continue;
            }
            let Some(col) = self.pick_column(mi) else { continue };
            if self.is_numeric(&col) {
                self.consume(mi, format!("order by {col}"));
                rank_by = Some(col);
                continue;
            }
            self.consume(mi, format!("group by {col}"));
            self.group_by.push(GroupKey::Column { col });
        }
        rank_by
    }

    /// "per month", "monthly": the date column of the question's date filter, else the subject's.
    fn time_group(&mut self) {
        let Some(unit) = self.sig.time_unit else { return };
        let from_filter = self.filters.iter().find_map(|f| match f {
            Filter::Year { col, .. } | Filter::DateRange { col, .. } | Filter::MonthOf { col, .. } => Some(col.clone()),
            _ => None,
        });
        let col = from_filter.or_else(|| self.ctx.default_date(&self.subject).map(|d| ColRef::new(&self.subject, &d)));
        if let Some(col) = col {
            self.group_by.push(GroupKey::Time { col, unit });
        }
    }

    /// The unused number column named nearest to token `at` (after it first).
    fn measure_near(&self, at: usize) -> Option<(usize, ColRef)> {
        let mut cands: Vec<(usize, usize, ColRef)> = (0..self.ms.len())
            .filter(|&k| !self.used[k] && !self.ms[k].is_value())
            .filter_map(|k| self.pick_column(k).filter(|c| self.is_numeric(c)).map(|c| (k, c)))
            .map(|(k, c)| {
                let s = self.ms[k].start;
                let d = if s > at { s - at } else { (at - s) * 2 };
                (d, k, c)
            })
            .collect();
        cands.sort_by_key(|(d, k, _)| (*d, *k));
        cands.into_iter().next().map(|(_, k, c)| (k, c))
    }

    /// A money column of the subject for "most expensive": by name, else its only decimal column.
    /// The subject's number column whose name says money (`price`, `total_cost`), if any.
    pub(super) fn named_money_column(&self) -> Option<ColRef> {
        let t = self.ctx.table(&self.subject)?;
        let c = t.columns.iter().filter(|c| matches!(c.kind(), ColumnKind::Number | ColumnKind::Integer)).find(|c| c.name.to_ascii_lowercase().split('_').any(|p| MONEY_PARTS.contains(&p)))?;
        Some(ColRef::new(&t.name, &c.name))
    }

    pub(super) fn money_column(&self) -> Option<ColRef> {
        let t = self.ctx.table(&self.subject)?;
        let by_name = t.columns.iter().filter(|c| matches!(c.kind(), ColumnKind::Number | ColumnKind::Integer)).find(|c| c.name.to_ascii_lowercase().split('_').any(|p| MONEY_PARTS.contains(&p)));
        let decimals: Vec<_> = t.columns.iter().filter(|c| c.kind() == ColumnKind::Number).collect();
        by_name.or((decimals.len() == 1).then(|| decimals[0])).map(|c| ColRef::new(&t.name, &c.name))
    }

    /// Is the question about rows of the subject ranked by a measure ("which book has the
    /// highest cost", "list the 5 books with the most pages") rather than one aggregate value?
    fn ranks_rows(&self) -> bool {
        let which_subject = self.sig.which.is_some_and(|w| self.ms[w].table().is_some_and(|t| t.eq_ignore_ascii_case(&self.subject)));
        let lists = matches!(self.q.word(0), "list" | "show" | "give" | "display" | "find");
        which_subject || self.sig.top_n.is_some() || lists
    }

    fn aggregate_and_rank(&mut self, rank_by: Option<ColRef>) {
        let grouped = !self.group_by.is_empty();
        let (rank_pos, rank_desc) = self.sig.rank.map(|(p, d)| (Some(p), d)).unwrap_or((None, true));
        let mut order_measure: Option<ColRef> = rank_by;
        match self.sig.agg {
            Some((func @ (AggFunc::Avg | AggFunc::Sum), at)) => {
                if let Some((k, col)) = self.measure_near(at) {
                    self.q.mark(at..at + 1, format!("aggregate {}", func.sql()));
                    self.consume(k, format!("{}({col})", func.sql()));
                    self.aggregate = Some(Aggregate { func, column: Some(col) });
                }
            }
            Some((func @ (AggFunc::Max | AggFunc::Min), at)) => {
                if let Some((k, col)) = self.measure_near(at) {
                    self.consume(k, format!("{}({col})", func.sql()));
                    self.q.mark(at..at + 1, format!("aggregate {}", func.sql()));
                    if grouped || !self.ranks_rows() {
                        self.aggregate = Some(Aggregate { func, column: Some(col) });
                    } else {
                        order_measure = Some(col);
                    }
                }
            }
            _ => {}
        }
        if self.aggregate.is_none() && self.sig.count {
            self.aggregate = Some(self.count_aggregate());
        }
        // Ranking by a measure without an aggregate word: "the most pages", "most expensive".
        if self.aggregate.is_none() && order_measure.is_none() {
            if let Some(r) = rank_pos
                && let Some((k, col)) = self.measure_near(r).filter(|(k, _)| self.ms[*k].start > r)
            {
                self.q.mark(r..r + 1, "ordering");
                if grouped {
                    let func = if rank_desc { AggFunc::Max } else { AggFunc::Min };
                    self.consume(k, format!("{}({col})", func.sql()));
                    self.aggregate = Some(Aggregate { func, column: Some(col) });
                } else {
                    self.consume(k, format!("order by {col}"));
                    order_measure = Some(col);
                }
            } else if let Some(i) = (0..self.q.len()).find(|&i| COST_WORDS.contains(&self.q.word(i)))
                && let Some(col) = self.money_column()
            {
                let from = if i > 0 && matches!(self.q.word(i - 1), "most" | "least") { i - 1 } else { i };
                self.q.mark(from..i + 1, format!("order by {col}"));
                order_measure = Some(col);
            }
        }
        if self.aggregate.is_none() && grouped {
            self.aggregate = Some(Aggregate { func: AggFunc::Count, column: None });
        }
        let desc = if self.q.has("cheapest") || matches!(self.sig.agg, Some((AggFunc::Min, _))) { false } else { rank_desc };
        let which_one = self.sig.which.is_some() && rank_pos.is_some();
        if self.aggregate.is_some() && grouped {
            let time_only = self.group_by.iter().all(|g| matches!(g, GroupKey::Time { .. }));
            if let Some(r) = rank_pos {
                self.q.mark(r..r + 1, "ordering");
            }
            self.order_by = if time_only && rank_pos.is_none() { None } else { Some((None, desc)) };
            self.limit = self.sig.top_n.or(which_one.then_some(1));
        } else if self.aggregate.is_none() {
            if let Some(col) = order_measure {
                self.order_by = Some((Some(col), desc));
                self.limit = self.sig.top_n.or((which_one || self.sig.which.is_some()).then_some(1)).filter(|_| rank_pos.is_some() || self.sig.top_n.is_some() || self.sig.agg.is_some());
            } else if let Some((at, d)) = self.sig.order_at {
                if let Some(mi) = self.match_at(at)
                    && let Some(col) = self.pick_column(mi)
                {
                    self.consume(mi, format!("order by {col}"));
                    self.order_by = Some((Some(col), d));
                }
            } else if let Some(i) = (0..self.q.len()).find(|&i| matches!(self.q.word(i), "latest" | "newest" | "recent" | "oldest" | "earliest"))
                && let Some(dc) = self.ctx.default_date(&self.subject)
            {
                let col = ColRef::new(&self.subject, &dc);
                let from = if i > 0 && self.q.word(i - 1) == "most" { i - 1 } else { i };
                self.q.mark(from..i + 1, format!("order by {col}"));
                self.order_by = Some((Some(col), !matches!(self.q.word(i), "oldest" | "earliest")));
            }
            if self.limit.is_none() && self.order_by.is_some() {
                self.limit = self.sig.top_n;
            }
        }
    }

    /// COUNT(*), or COUNT(DISTINCT col) for "how many different countries".
    fn count_aggregate(&mut self) -> Aggregate {
        if let Some(d) = self.sig.distinct {
            let after = (0..self.ms.len()).find(|&k| self.ms[k].start > d && !self.used[k]);
            if let Some(k) = after {
                if let Some(col) = self.pick_column(k).filter(|_| !self.ms[k].is_table()) {
                    self.q.mark(d..d + 1, "distinct");
                    self.consume(k, format!("COUNT(DISTINCT {col})"));
                    return Aggregate { func: AggFunc::CountDistinct, column: Some(col) };
                }
                if self.ms[k].table().is_some_and(|t| t.eq_ignore_ascii_case(&self.subject)) {
                    // Distinct rows of the subject: the plan never repeats them (fan-out joins
                    // become semi-joins or are de-duplicated when rendered).
                    self.q.mark(d..d + 1, "distinct");
                }
            }
        }
        Aggregate { func: AggFunc::Count, column: None }
    }

    /// Columns of a list: those the question names ("names and emails of …"); else, when
    /// ranking, the label and the measure; else the key, the label and the filtered columns.
    fn projection(&mut self) {
        if self.aggregate.is_some() {
            return;
        }
        let named: Vec<(usize, ColRef)> = (0..self.ms.len()).filter(|&k| !self.used[k] && !self.ms[k].is_value() && !self.ms[k].is_table()).filter_map(|k| self.pick_column(k).map(|c| (k, c))).collect();
        let mut select: Vec<ColRef> = Vec::new();
        if !named.is_empty() {
            for (k, c) in named {
                self.consume(k, format!("show {c}"));
                if !select.contains(&c) {
                    select.push(c);
                }
            }
            if let Some((Some(oc), _)) = &self.order_by
                && !select.contains(oc)
            {
                select.push(oc.clone());
            }
            self.select = select;
            return;
        }
        if let Some((Some(oc), _)) = self.order_by.clone().filter(|_| self.limit.is_some()) {
            // Ranked rows: the key (rows are told apart even when labels repeat), the label
            // and the measure.
            if let Some(t) = self.ctx.table(&oc.table) {
                select.extend(t.primary_key.iter().map(|k| ColRef::new(&oc.table, k)));
            }
            if let Some(l) = self.ctx.label_column(&oc.table) {
                select.push(ColRef::new(&oc.table, &l));
            }
            select.push(oc);
            self.select = select;
            return;
        }
        if let Some(t) = self.ctx.table(&self.subject) {
            for pk in &t.primary_key {
                select.push(ColRef::new(&self.subject, pk));
            }
        }
        if let Some(l) = self.ctx.label_column(&self.subject) {
            select.push(ColRef::new(&self.subject, &l));
        }
        for c in self.filters.iter().filter_map(|f| f.col()) {
            if !select.contains(c) {
                select.push(c.clone());
            }
        }
        if let Some((Some(oc), _)) = &self.order_by
            && !select.contains(oc)
        {
            select.push(oc.clone());
        }
        if let Some(dc) = self.ctx.default_date(&self.subject).map(|d| ColRef::new(&self.subject, &d))
            && !select.contains(&dc)
        {
            select.push(dc);
        }
        self.select = select;
    }
}
