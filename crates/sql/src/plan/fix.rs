//! Plan fixes: join every table the plan touches along foreign keys (choosing, among the short
//! paths, the one through the tables the question mentions), complete GROUP BY, and tell
//! which join steps multiply the rows of the table they start from (one-to-many).

use super::super::schema::{JoinStep, SchemaContext};
use super::{Aggregate, GroupKey, Plan};

/// Longest join path considered.
const MAX_PATH: usize = 4;

/// Does `step` go from a row to possibly many rows (the foreign key is on `step.to_table`)?
pub fn multiplies(ctx: &SchemaContext, step: &JoinStep) -> bool {
    let Some(t) = ctx.table(&step.to_table) else { return false };
    t.foreign_keys.iter().any(|fk| {
        fk.ref_table.eq_ignore_ascii_case(&step.from_table)
            && fk.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&step.to_column))
            && fk.ref_columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&step.from_column))
    })
}

/// All foreign-key paths of at most [`MAX_PATH`] steps from `from` to `to` that visit no table
/// twice, shortest first.
fn paths(ctx: &SchemaContext, from: &str, to: &str) -> Vec<Vec<JoinStep>> {
    let edges = ctx.fk_steps();
    let mut out = Vec::new();
    let mut stack: Vec<(String, Vec<JoinStep>)> = vec![(from.to_ascii_lowercase(), Vec::new())];
    while let Some((at, path)) = stack.pop() {
        if at.eq_ignore_ascii_case(to) && !path.is_empty() {
            out.push(path);
            continue;
        }
        if path.len() >= MAX_PATH {
            continue;
        }
        for e in edges.iter().filter(|e| e.from_table.eq_ignore_ascii_case(&at)) {
            let next = e.to_table.to_ascii_lowercase();
            if next.eq_ignore_ascii_case(from) || path.iter().any(|s| s.to_table.eq_ignore_ascii_case(&next)) {
                continue;
            }
            let mut p = path.clone();
            p.push(e.clone());
            stack.push((next, p));
        }
    }
    out.sort_by_key(|p| p.len());
    out
}

/// The join path from `from` to `to`: among paths at most one step longer than the shortest,
/// the one through most of the `prefer` tables (tables the question names without a condition
/// on them: "books borrowed by members of the Riverside branch"), then the one with fewer
/// one-to-many steps, then the shortest (breadth-first order among equals).
pub fn best_path(ctx: &SchemaContext, from: &str, to: &str, prefer: &[String]) -> Option<Vec<JoinStep>> {
    if from.eq_ignore_ascii_case(to) {
        return Some(Vec::new());
    }
    let shortest = ctx.join_path(from, to)?;
    if prefer.is_empty() {
        return Some(shortest);
    }
    // More preferred tables first, then fewer one-to-many steps (a path that fans out and
    // comes back changes the meaning), then shorter.
    let key = |p: &[JoinStep]| {
        let hits = p.iter().filter(|s| prefer.iter().any(|t| t.eq_ignore_ascii_case(&s.to_table))).count();
        let fans = p.iter().filter(|s| multiplies(ctx, s)).count();
        (std::cmp::Reverse(hits), fans, p.len())
    };
    let mut best = (key(&shortest), shortest.clone());
    for p in paths(ctx, from, to).into_iter().filter(|p| p.len() <= shortest.len() + 1) {
        let k = key(&p);
        if k < best.0 {
            best = (k, p);
        }
    }
    Some(best.1)
}

/// [`fix_plan_with`] without preferred tables.
#[cfg(test)]
pub fn fix_plan(ctx: &SchemaContext, plan: &mut Plan) -> Vec<String> {
    fix_plan_with(ctx, plan, &[])
}

/// Deterministic repairs that keep a plan runnable: every table the plan touches is joined to
/// the subject along foreign keys (a missing join key), with join paths preferring the
/// `prefer` tables, and every non-aggregated column shown next to an aggregate is grouped by
/// (GROUP BY completion). Returns what was changed.
pub fn fix_plan_with(ctx: &SchemaContext, plan: &mut Plan, prefer: &[String]) -> Vec<String> {
    let mut fixes = Vec::new();
    let mut touched: Vec<String> = Vec::new();
    {
        let mut note = |t: &str| {
            if !t.eq_ignore_ascii_case(&plan.table) && !touched.iter().any(|x| x.eq_ignore_ascii_case(t)) {
                touched.push(t.to_string());
            }
        };
        for c in &plan.select {
            note(&c.table);
        }
        for c in plan.filters.iter().filter_map(|f| f.col()) {
            note(&c.table);
        }
        for g in &plan.group_by {
            note(&g.col().table);
        }
        if let Some(Aggregate { column: Some(c), .. }) = &plan.aggregate {
            note(&c.table);
        }
        if let Some((Some(c), _)) = &plan.order_by {
            note(&c.table);
        }
    }
    for t in touched {
        if plan.joins.iter().any(|j| j.to_table.eq_ignore_ascii_case(&t)) {
            continue;
        }
        // Join from the nearest table already in the plan.
        let mut best: Option<Vec<JoinStep>> = None;
        let mut starts = vec![plan.table.clone()];
        starts.extend(plan.joins.iter().map(|j| j.to_table.clone()));
        for s in &starts {
            if let Some(p) = best_path(ctx, s, &t, prefer)
                && best.as_ref().is_none_or(|b| p.len() < b.len())
            {
                best = Some(p);
            }
        }
        match best {
            Some(path) => {
                for step in path {
                    if !plan.joins.iter().any(|j| j.to_table.eq_ignore_ascii_case(&step.to_table)) && !step.to_table.eq_ignore_ascii_case(&plan.table) {
                        fixes.push(format!("joined {} on {}.{} = {}.{}", step.to_table, step.from_table, step.from_column, step.to_table, step.to_column));
                        plan.joins.push(step);
                    }
                }
            }
            None => fixes.push(format!("no foreign-key path from {} to {t}: its conditions are dropped", plan.table)),
        }
    }
    // Drop parts that reference tables we could not join.
    let reachable = |t: &str| t.eq_ignore_ascii_case(&plan.table) || plan.joins.iter().any(|j| j.to_table.eq_ignore_ascii_case(t));
    let keep: Vec<bool> = plan.filters.iter().map(|f| f.col().is_none_or(|c| reachable(&c.table))).collect();
    let mut it = keep.iter();
    plan.filters.retain(|_| *it.next().unwrap_or(&true));
    let keep: Vec<bool> = plan.group_by.iter().map(|g| reachable(&g.col().table)).collect();
    let mut it = keep.iter();
    plan.group_by.retain(|_| *it.next().unwrap_or(&true));
    // GROUP BY completion: listed columns next to an aggregate must be grouped.
    if plan.aggregate.is_some() && !plan.select.is_empty() {
        for c in plan.select.clone() {
            let grouped = plan.group_by.iter().any(|g| matches!(g, GroupKey::Column { col } if col == &c));
            if !grouped {
                fixes.push(format!("grouped by {}.{} (shown next to an aggregate)", c.table, c.column));
                plan.group_by.push(GroupKey::Column { col: c });
            }
        }
        plan.select.clear();
    }
    fixes
}
