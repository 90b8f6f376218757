//! "Which car models have cost us more than 2,000 euros in maintenance in total?": an amount
//! compared "in total" is the sum of a measure of the related rows the question names, per row
//! of the table asked about (`GROUP BY` the rows, `HAVING SUM(…) > 2000`) — not a column of
//! those rows compared one by one, which is what the conditions first placed.

use qa_question::cues::Op;

use super::ir::{AggFunc, ColRef, Cond, Expr, Having, Lit, Query};
use super::read::Reader;

impl Reader<'_> {
    /// Rewrite a row's own measure compared with an amount "in total", where the question also
    /// names related rows holding one measure of the same kind, as that sum per row.
    pub(super) fn totals_of_related_rows(&mut self) {
        let total_at: Vec<usize> = (0..self.n()).filter(|&i| matches!(self.word(i), "total" | "altogether" | "combined") && !self.ledger.is_used(i)).collect();
        if total_at.is_empty() || self.q.aggregates() || !self.q.group_by.is_empty() || self.q.set_op.is_some() || !self.q.kin.is_empty() {
            return;
        }
        let table = self.q.table.clone();
        let Some(pk) = self.pk(&table) else { return };
        // The related rows the question names: a semi-join on the rows' key, through keys only
        // (and at most a comparison of their measure at the end).
        let related = self.q.filters.iter().enumerate().find_map(|(i, f)| match f {
            Cond::InSub { col, negated: false, query } if *col == pk => innermost(query).map(|(t, c)| (i, t, c)),
            _ => None,
        });
        // (Or a comparison placed on a measure of rows the join will reach through a key
        // that fans out: "airlines with baggage incidents costing more than …".)
        let direct = || {
            self.q.filters.iter().enumerate().find_map(|(i, f)| match f {
                Cond::Cmp { col, op, value: Lit::Num(v) }
                    if !col.table.eq_ignore_ascii_case(&table) && self.is_measure(col) && matches!(op, Op::Gt | Op::Ge | Op::Lt | Op::Le) && self.ctx.join_path(&table, &col.table).is_some_and(|p| p.iter().any(|st| super::ir::multiplies(self.ctx, st))) =>
                {
                    Some((i, col.table.clone(), Some((col.clone(), *op, *v))))
                }
                _ => None,
            })
        };
        let Some((si, rel, inner_cmp)) = related.or_else(direct) else { return };
        // Other conditions on the related rows would be dropped with the semi-join: leave it.
        if self.q.filters.iter().enumerate().any(|(i, f)| i != si && f.tables().iter().any(|t| t.eq_ignore_ascii_case(&rel))) {
            return;
        }
        // The amount compared: on the rows' own measure (placed there first), on each related
        // row's measure, or a comparison no condition took ("more than 5,000 euros").
        let own_cmp = self.q.filters.iter().enumerate().find_map(|(i, f)| match f {
            Cond::Cmp { col, op, value: Lit::Num(v) } if col.table.eq_ignore_ascii_case(&table) && self.is_measure(col) && matches!(op, Op::Gt | Op::Ge | Op::Lt | Op::Le) => Some((i, col.clone(), *op, *v)),
            _ => None,
        });
        let free_cmp = || {
            self.a.comparisons.iter().find_map(|c| {
                let q = self.a.quantities.get(c.quantity)?;
                let open = (c.start..c.end).all(|i| !self.ledger.is_used(i));
                (open && c.high.is_none() && matches!(c.op, Op::Gt | Op::Ge | Op::Lt | Op::Le) && q.unit.is_some()).then(|| (c.start..c.end, q.unit.map(|u| u.dimension), c.op, q.value))
            })
        };
        let (kind, op, amount, placed_on, own_filter, free_words) = if let Some((ci, own, op, v)) = own_cmp {
            (qa_question::numbers::field_unit(&own.column).map(|u| u.dimension), op, v, Some(own), Some(ci), None)
        } else if let Some((col, op, v)) = inner_cmp {
            (qa_question::numbers::field_unit(&col.column).map(|u| u.dimension), op, v, Some(col), None, None)
        } else if let Some((words, dim, op, v)) = free_cmp() {
            (dim, op, v, None, None, Some(words))
        } else {
            return;
        };
        // The related rows' one measure of the kind compared (money with money, mass with mass).
        let Some(info) = self.ctx.table(&rel) else { return };
        let measures: Vec<ColRef> = info
            .columns
            .iter()
            .map(|c| ColRef::new(&info.name, &c.name))
            .filter(|c| self.is_measure(c) && kind.is_some() && qa_question::numbers::field_unit(&c.column).map(|u| u.dimension) == kind)
            .collect();
        let [measure] = measures.as_slice() else { return };
        let measure = measure.clone();
        let label = self.label(&table);
        if label.iter().any(|c| !c.table.eq_ignore_ascii_case(&table)) {
            return;
        }
        // A year a guessed date of these rows took dates the related rows instead, when they
        // have one date; else the rewrite would keep a date of the wrong rows.
        let rel_dates = self.date_columns(&rel);
        let guessed_here: Vec<usize> = self.q.filters.iter().enumerate().filter(|(_, f)| matches!(f, Cond::Dates { col, .. } | Cond::Month { col, .. } if !col.table.eq_ignore_ascii_case(&rel))).map(|(i, _)| i).collect();
        if !guessed_here.is_empty() {
            let all_guessed = guessed_here.iter().all(|&i| self.q.filters[i].col().is_some_and(|c| self.guessed_dates.contains(c)));
            // (Of several, the one every row has: an invoice's issue date, not its payment's.)
            let always: Vec<&ColRef> = rel_dates.iter().filter(|c| self.schema.field(&c.table, &c.column).is_some_and(|f| !f.nullable)).collect();
            let date = match (rel_dates.as_slice(), always.as_slice()) {
                ([one], _) => one.clone(),
                (_, [one]) => (*one).clone(),
                _ => return,
            };
            if !all_guessed {
                return;
            }
            for &i in &guessed_here {
                if let Cond::Dates { col, .. } | Cond::Month { col, .. } = &mut self.q.filters[i] {
                    let old = col.clone();
                    *col = date.clone();
                    let prefix = format!("{old} ");
                    for k in 0..self.n() {
                        if let Some(role) = self.ledger.role(k).filter(|r| r.starts_with(&prefix)).map(|r| r.replacen(&old.to_string(), &date.to_string(), 1)) {
                            self.ledger.unmark(k..k + 1);
                            self.ledger.mark(k..k + 1, role);
                        }
                    }
                }
            }
        }
        let mut drop = vec![si];
        drop.extend(own_filter);
        drop.sort_unstable();
        for i in drop.into_iter().rev() {
            self.q.filters.remove(i);
        }
        let sum = Expr::Agg { func: AggFunc::Sum, col: Some(measure.clone()) };
        let mut keys: Vec<Expr> = label.iter().cloned().map(Expr::col).collect();
        if !label.contains(&pk) {
            keys.push(Expr::col(pk.clone()));
        }
        self.q.select = label.iter().cloned().map(Expr::col).chain(std::iter::once(sum.clone())).collect();
        self.q.group_by = keys;
        self.q.having.push(Having { expr: sum, op, value: amount });
        self.q.order_by.clear();
        self.reach.push(rel.clone());
        // The words: the comparison is now the sum's, "in total" is the sum.
        if let Some(placed) = &placed_on {
            let prefix = format!("{placed} ");
            for i in 0..self.n() {
                if self.ledger.role(i).is_some_and(|r| r.starts_with(&prefix)) {
                    self.ledger.unmark(i..i + 1);
                    self.ledger.mark(i..i + 1, format!("SUM({measure}) per {table}"));
                }
            }
        }
        if let Some(words) = free_words {
            self.mark(words, format!("SUM({measure}) per {table}"));
        }
        for i in total_at {
            let from = if i > 0 && self.word(i - 1) == "in" { i - 1 } else { i };
            self.mark(from..i + 1, format!("SUM({measure})"));
        }
        self.penalties.retain(|(p, _)| !(p.contains("total") && p.ends_with("names no column")));
        self.notes.push(format!("an amount compared in total read as SUM({measure}) per {table}"));
    }
}

/// A measure compared with a number.
type Compared = (ColRef, Op, f64);

/// The table a chain of key-only semi-joins (or joins inside one) ends at (`cars` →
/// `maintenance_jobs`), with the one comparison of a number at its end if there is one; None
/// when another condition sits on the way.
fn innermost(q: &Query) -> Option<(String, Option<Compared>)> {
    let end = q.joins.last().map_or_else(|| q.table.clone(), |j| j.to_table.clone());
    match q.filters.as_slice() {
        [] => Some((end, None)),
        [Cond::Cmp { col, op, value: Lit::Num(v) }] if col.table.eq_ignore_ascii_case(&end) && matches!(op, Op::Gt | Op::Ge | Op::Lt | Op::Le) => Some((end, Some((col.clone(), *op, *v)))),
        [Cond::InSub { negated: false, query, .. }] if q.joins.is_empty() => innermost(query),
        _ => None,
    }
}
