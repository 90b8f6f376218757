//! The deterministic generator: a plan rendered as SQL in the dialect.
//!
//! Joins follow the plan's foreign-key steps. A step from a row to many rows (the key is on the
//! far table) would repeat the rows it starts from, so: a branch of such steps that is only
//! filtered on becomes a semi-join (`key IN (SELECT …)`); when the repeated rows are counted,
//! `COUNT(DISTINCT key)`; when their amounts are summed or averaged, the rows are de-duplicated
//! first (`FROM (SELECT DISTINCT key, groups, amount …)`), so that a parent's amount is counted
//! once however many child rows match.

use super::plan::{multiplies, AggFunc, Aggregate, ColRef, Filter, GroupKey, Plan, TimeUnit};
use super::schema::{singular, JoinStep, SchemaContext};
use super::Dialect;

/// A name as an identifier: bare when it is a plain lower-case word, else double-quoted.
pub fn ident(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain { name.to_string() } else { format!("\"{}\"", name.replace('"', "\"\"")) }
}

pub fn literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

pub(crate) fn col(c: &ColRef) -> String {
    format!("{}.{}", ident(&c.table), ident(&c.column))
}

pub(crate) fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

fn time_expr(c: &ColRef, unit: TimeUnit, dialect: Dialect) -> String {
    match (dialect, unit) {
        (Dialect::Sqlite, TimeUnit::Month) => format!("strftime('%Y-%m', {})", col(c)),
        (Dialect::Sqlite, TimeUnit::Year) => format!("strftime('%Y', {})", col(c)),
        (Dialect::Postgres, TimeUnit::Month) => format!("to_char({}, 'YYYY-MM')", col(c)),
        (Dialect::Postgres, TimeUnit::Year) => format!("to_char({}, 'YYYY')", col(c)),
    }
}

fn group_alias(ctx: &SchemaContext, g: &GroupKey) -> String {
    match g {
        GroupKey::Time { unit: TimeUnit::Month, .. } => "month".into(),
        GroupKey::Time { unit: TimeUnit::Year, .. } => "year".into(),
        GroupKey::Column { col } => {
            if ctx.label_column(&col.table).is_some_and(|l| l.eq_ignore_ascii_case(&col.column)) && ["name", "title", "full_name", "label"].contains(&col.column.as_str()) {
                singular(&col.table)
            } else {
                col.column.clone()
            }
        }
    }
}

fn join_sql(j: &JoinStep) -> String {
    format!(" JOIN {} ON {}.{} = {}.{}", ident(&j.to_table), ident(&j.from_table), ident(&j.from_column), ident(&j.to_table), ident(&j.to_column))
}

/// One condition as SQL.
fn filter_sql(f: &Filter, dialect: Dialect) -> String {
    match f {
        Filter::In { col: c, values, negated, .. } if values.len() == 1 => format!("{} {} {}", col(c), if *negated { "<>" } else { "=" }, literal(&values[0])),
        Filter::In { col: c, values, negated, .. } => {
            format!("{} {}IN ({})", col(c), if *negated { "NOT " } else { "" }, values.iter().map(|v| literal(v)).collect::<Vec<_>>().join(", "))
        }
        Filter::Year { col: c, year } => format!("{} >= '{year:04}-01-01' AND {} < '{:04}-01-01'", col(c), col(c), year + 1),
        Filter::Compare { col: c, op, value } => format!("{} {op} {}", col(c), number(*value)),
        Filter::Bool { col: c, value } => format!("{} = {}", col(c), if *value { "TRUE" } else { "FALSE" }),
        Filter::Null { col: c, is_null } => format!("{} IS {}NULL", col(c), if *is_null { "" } else { "NOT " }),
        Filter::DateRange { col: c, from, to } => {
            let mut parts = Vec::new();
            if let Some(f) = from {
                parts.push(format!("{} >= {}", col(c), literal(f)));
            }
            if let Some(t) = to {
                parts.push(format!("{} < {}", col(c), literal(t)));
            }
            parts.join(" AND ")
        }
        Filter::MonthOf { col: c, month } => match dialect {
            Dialect::Sqlite => format!("strftime('%m', {}) = '{month:02}'", col(c)),
            Dialect::Postgres => format!("EXTRACT(MONTH FROM {}) = {month}", col(c)),
        },
        Filter::Related { path, op, value } => {
            let Some(first) = path.first() else { return "1 = 1".into() };
            let joins: String = path[1..].iter().map(join_sql).collect();
            format!(
                "(SELECT COUNT(*) FROM {}{joins} WHERE {}.{} = {}.{}) {op} {}",
                ident(&first.to_table),
                ident(&first.to_table),
                ident(&first.to_column),
                ident(&first.from_table),
                ident(&first.from_column),
                number(*value)
            )
        }
    }
}

/// How the plan's joins are laid out.
struct Layout {
    /// Steps joined in the main query.
    inline: Vec<JoinStep>,
    /// Filter-only branches that leave a row for many: (root step, its other steps, filters).
    semi: Vec<(JoinStep, Vec<JoinStep>, Vec<Filter>)>,
    /// Filters of the main query.
    filters: Vec<Filter>,
    /// The main query's rows repeat rows of the aggregated table.
    repeats: bool,
}

impl Layout {
    fn new(ctx: &SchemaContext, plan: &Plan) -> Layout {
        let steps = &plan.joins;
        let parent: Vec<Option<usize>> = steps.iter().map(|s| steps.iter().position(|p| p.to_table.eq_ignore_ascii_case(&s.from_table))).collect();
        let mut fan = vec![false; steps.len()];
        for i in 0..steps.len() {
            fan[i] = multiplies(ctx, &steps[i]) || parent[i].is_some_and(|p| fan[p]);
        }
        let in_subtree = |root: usize, i: usize| {
            let mut at = Some(i);
            while let Some(k) = at {
                if k == root {
                    return true;
                }
                at = parent[k];
            }
            false
        };
        let mut output: Vec<&str> = plan.select.iter().map(|c| c.table.as_str()).collect();
        output.extend(plan.group_by.iter().map(|g| g.col().table.as_str()));
        if let Some(Aggregate { column: Some(c), .. }) = &plan.aggregate {
            output.push(&c.table);
        }
        if let Some((Some(c), _)) = &plan.order_by {
            output.push(&c.table);
        }
        let mut semi_steps = vec![false; steps.len()];
        let mut semi = Vec::new();
        let mut filters: Vec<Filter> = plan.filters.clone();
        for root in 0..steps.len() {
            if !multiplies(ctx, &steps[root]) || parent[root].is_some_and(|p| fan[p]) {
                continue;
            }
            let members: Vec<usize> = (0..steps.len()).filter(|&i| in_subtree(root, i)).collect();
            let tables: Vec<&str> = members.iter().map(|&i| steps[i].to_table.as_str()).collect();
            if tables.iter().any(|t| output.iter().any(|o| o.eq_ignore_ascii_case(t))) {
                continue;
            }
            let (inner, rest): (Vec<Filter>, Vec<Filter>) = filters.into_iter().partition(|f| f.col().is_some_and(|c| tables.iter().any(|t| t.eq_ignore_ascii_case(&c.table))));
            filters = rest;
            for &i in &members {
                semi_steps[i] = true;
            }
            let others = members.iter().filter(|&&i| i != root).map(|&i| steps[i].clone()).collect();
            semi.push((steps[root].clone(), others, inner));
        }
        let inline: Vec<JoinStep> = steps.iter().enumerate().filter(|(i, _)| !semi_steps[*i]).map(|(_, s)| s.clone()).collect();
        // The aggregated table's rows repeat when an inline one-to-many step leads elsewhere.
        let measured = match &plan.aggregate {
            Some(Aggregate { func: AggFunc::Count, column: None }) => Some(plan.table.clone()),
            Some(Aggregate { func: AggFunc::Sum | AggFunc::Avg, column: Some(c) }) => Some(c.table.clone()),
            _ => None,
        };
        let repeats = measured.is_some_and(|m| {
            let m_step = steps.iter().position(|s| s.to_table.eq_ignore_ascii_case(&m));
            (0..steps.len()).any(|i| !semi_steps[i] && multiplies(ctx, &steps[i]) && !m_step.is_some_and(|ms| in_subtree(i, ms)))
        });
        Layout { inline, semi, filters, repeats }
    }

    fn body_sql(&self, plan: &Plan, dialect: Dialect) -> String {
        let mut sql = format!(" FROM {}", ident(&plan.table));
        for j in &self.inline {
            sql.push_str(&join_sql(j));
        }
        let mut wheres: Vec<String> = self.filters.iter().map(|f| filter_sql(f, dialect)).collect();
        for (root, others, inner) in &self.semi {
            let mut sub = format!("SELECT {}.{} FROM {}", ident(&root.to_table), ident(&root.to_column), ident(&root.to_table));
            for j in others {
                sub.push_str(&join_sql(j));
            }
            if !inner.is_empty() {
                sub.push_str(&format!(" WHERE {}", inner.iter().map(|f| filter_sql(f, dialect)).collect::<Vec<_>>().join(" AND ")));
            }
            wheres.push(format!("{}.{} IN ({sub})", ident(&root.from_table), ident(&root.from_column)));
        }
        if !wheres.is_empty() {
            sql.push_str(&format!(" WHERE {}", wheres.join(" AND ")));
        }
        sql
    }
}

fn aggregate_sql(plan: &Plan, a: &Aggregate, distinct_key: Option<&str>) -> (String, String) {
    match (&a.func, &a.column) {
        (AggFunc::Count, None) => (
            distinct_key.map(|k| format!("COUNT(DISTINCT {k})")).unwrap_or_else(|| "COUNT(*)".to_string()),
            format!("{}_count", singular(&plan.table)),
        ),
        (AggFunc::CountDistinct, Some(c)) => (format!("COUNT(DISTINCT {})", col(c)), format!("{}_count", c.column)),
        (AggFunc::Avg, Some(c)) => (format!("ROUND(AVG({}), 2)", col(c)), format!("avg_{}", c.column)),
        (AggFunc::Sum, Some(c)) => (format!("SUM({})", col(c)), format!("total_{}", c.column)),
        (f, Some(c)) => (format!("{}({})", f.sql(), col(c)), format!("{}_{}", f.sql().to_ascii_lowercase(), c.column)),
        (f, None) => (format!("{}(*)", f.sql()), f.sql().to_ascii_lowercase()),
    }
}

/// Render the plan as SQL in the dialect (the deterministic generator).
pub fn render(ctx: &SchemaContext, plan: &Plan, dialect: Dialect, row_cap: usize) -> String {
    let layout = Layout::new(ctx, plan);
    let pk = |t: &str| ctx.table(t).and_then(|ti| (ti.primary_key.len() == 1).then(|| ti.primary_key[0].clone()));
    if layout.repeats
        && let Some(Aggregate { func: AggFunc::Sum | AggFunc::Avg, column: Some(m) }) = &plan.aggregate
        && let Some(key) = pk(&m.table)
    {
        return render_deduplicated(ctx, plan, &layout, m, &key, dialect, row_cap);
    }
    let mut select: Vec<String> = Vec::new();
    let mut group_exprs: Vec<String> = Vec::new();
    for g in &plan.group_by {
        let expr = match g {
            GroupKey::Column { col: c } => col(c),
            GroupKey::Time { col: c, unit } => time_expr(c, *unit, dialect),
        };
        select.push(format!("{expr} AS {}", ident(&group_alias(ctx, g))));
        group_exprs.push(expr);
    }
    let mut agg_alias = None;
    if let Some(a) = &plan.aggregate {
        let key = layout.repeats.then(|| pk(&plan.table).map(|k| format!("{}.{}", ident(&plan.table), ident(&k)))).flatten();
        let (expr, alias) = aggregate_sql(plan, a, key.as_deref());
        select.push(format!("{expr} AS {}", ident(&alias)));
        agg_alias = Some(alias);
    }
    for c in &plan.select {
        select.push(col(c));
    }
    if select.is_empty() {
        select.push(format!("{}.*", ident(&plan.table)));
    }
    let mut sql = format!("SELECT {}{}", select.join(", "), layout.body_sql(plan, dialect));
    if !group_exprs.is_empty() && plan.aggregate.is_some() {
        sql.push_str(&format!(" GROUP BY {}", group_exprs.join(", ")));
    }
    sql.push_str(&order_limit(ctx, plan, agg_alias.as_deref(), !group_exprs.is_empty(), row_cap));
    sql
}

fn order_limit(ctx: &SchemaContext, plan: &Plan, agg_alias: Option<&str>, grouped: bool, row_cap: usize) -> String {
    let mut sql = String::new();
    match (&plan.order_by, agg_alias) {
        // The group keys break ties, so every engine returns the same order.
        (Some((None, desc)), Some(alias)) => {
            sql.push_str(&format!(" ORDER BY {} {}", ident(alias), if *desc { "DESC" } else { "ASC" }));
            if grouped {
                for k in 1..=plan.group_by.len() {
                    sql.push_str(&format!(", {k}"));
                }
            }
        }
        (Some((Some(c), desc)), _) => sql.push_str(&format!(" ORDER BY {} {}", col(c), if *desc { "DESC" } else { "ASC" })),
        _ if grouped => sql.push_str(" ORDER BY 1"),
        _ if plan.aggregate.is_none() => {
            if let Some(pk) = ctx.table(&plan.table).and_then(|t| t.primary_key.first()) {
                sql.push_str(&format!(" ORDER BY {}.{}", ident(&plan.table), ident(pk)));
            }
        }
        _ => {}
    }
    sql.push_str(&format!(" LIMIT {}", plan.limit.unwrap_or(row_cap).min(row_cap)));
    sql
}

/// SUM/AVG of an amount whose rows the joins repeat: de-duplicate (row key, groups, amount)
/// first, then aggregate.
fn render_deduplicated(ctx: &SchemaContext, plan: &Plan, layout: &Layout, m: &ColRef, key: &str, dialect: Dialect, row_cap: usize) -> String {
    let mut inner = vec![format!("{}.{} AS qa_key", ident(&m.table), ident(key))];
    let mut outer = Vec::new();
    let mut groups = Vec::new();
    for g in &plan.group_by {
        let expr = match g {
            GroupKey::Column { col: c } => col(c),
            GroupKey::Time { col: c, unit } => time_expr(c, *unit, dialect),
        };
        let alias = ident(&group_alias(ctx, g));
        inner.push(format!("{expr} AS {alias}"));
        outer.push(format!("qa_rows.{alias} AS {alias}"));
        groups.push(format!("qa_rows.{alias}"));
    }
    inner.push(format!("{} AS qa_amount", col(m)));
    let Some(a) = &plan.aggregate else { return String::new() };
    let (expr, alias) = match a.func {
        AggFunc::Avg => ("ROUND(AVG(qa_rows.qa_amount), 2)".to_string(), format!("avg_{}", m.column)),
        _ => ("SUM(qa_rows.qa_amount)".to_string(), format!("total_{}", m.column)),
    };
    outer.push(format!("{expr} AS {}", ident(&alias)));
    let mut sql = format!("SELECT {} FROM (SELECT DISTINCT {}{}) AS qa_rows", outer.join(", "), inner.join(", "), layout.body_sql(plan, dialect));
    if !groups.is_empty() {
        sql.push_str(&format!(" GROUP BY {}", groups.join(", ")));
    }
    let no_column_order = Plan { order_by: plan.order_by.clone().filter(|(c, _)| c.is_none()), ..plan.clone() };
    sql.push_str(&order_limit(ctx, &no_column_order, Some(&alias), !groups.is_empty(), row_cap));
    sql
}
