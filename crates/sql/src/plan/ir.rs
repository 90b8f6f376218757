//! The plan as a small query form — select items, conditions (with sub-queries), grouping,
//! having, ordering, limit, one set operation — and its rendering as SQL in a dialect.
//!
//! Joins follow foreign-key steps from the plan's table. A branch of steps that leaves a row
//! for many rows (the key is on the far table) and is only filtered on becomes a semi-join
//! (`key IN (SELECT …)`), so the plan's rows are not repeated; a count over repeated rows counts
//! distinct keys.

use serde::{Deserialize, Serialize};

use qa_question::cues::Op;

use super::super::schema::{JoinStep, SchemaContext};
use super::super::Dialect;

/// `table.column`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct ColRef {
    pub(crate) table: String,
    pub(crate) column: String,
}

impl ColRef {
    pub(crate) fn new(table: &str, column: &str) -> ColRef {
        ColRef { table: table.into(), column: column.into() }
    }
}

impl std::fmt::Display for ColRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.table, self.column)
    }
}

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AggFunc {
    Count,
    CountDistinct,
    Sum,
    Avg,
    Min,
    Max,
}

impl AggFunc {
    pub(crate) fn sql(self) -> &'static str {
        match self {
            AggFunc::Count | AggFunc::CountDistinct => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
        }
    }
}

/// A selected or ordered expression.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Expr {
    Col { col: ColRef },
    /// `COUNT(*)` when `col` is None.
    Agg { func: AggFunc, col: Option<ColRef> },
    /// Year or month of a date column (`per month`).
    Time { col: ColRef, month: bool },
    /// Every column of a table (`table.*`).
    All { table: String },
}

impl Expr {
    pub(crate) fn col(c: ColRef) -> Expr {
        Expr::Col { col: c }
    }

    pub(crate) fn count() -> Expr {
        Expr::Agg { func: AggFunc::Count, col: None }
    }

    pub(crate) fn column(&self) -> Option<&ColRef> {
        match self {
            Expr::Col { col } | Expr::Time { col, .. } => Some(col),
            Expr::Agg { col, .. } => col.as_ref(),
            Expr::All { .. } => None,
        }
    }

    pub(crate) fn is_agg(&self) -> bool {
        matches!(self, Expr::Agg { .. })
    }
}

/// A literal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Lit {
    Num(f64),
    Text(String),
    /// TRUE / FALSE (both engines read the keywords).
    Bool(bool),
}

/// A condition (all of a query's conditions hold).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Cond {
    /// `col op value`.
    Cmp { col: ColRef, op: Op, value: Lit },
    /// `col IN (values)`, or `NOT IN`.
    In { col: ColRef, values: Vec<Lit>, negated: bool },
    /// `lo <= col <= hi` (numbers).
    Between { col: ColRef, lo: f64, hi: f64 },
    /// `from <= col < to` (ISO dates as text; either bound open).
    Dates { col: ColRef, from: Option<String>, to: Option<String> },
    /// The month of a date column, any year.
    Month { col: ColRef, month: u32 },
    /// `col IS [NOT] NULL`.
    Null { col: ColRef, is_null: bool },
    /// `col [NOT] LIKE '%text%'` (case-insensitive).
    Like { col: ColRef, text: String, negated: bool },
    /// `col op (SELECT …)`: a comparison with a one-value sub-query (an average).
    Sub { col: ColRef, op: Op, query: Box<Query> },
    /// `col [NOT] IN (SELECT …)`.
    InSub { col: ColRef, negated: bool, query: Box<Query> },
    /// Any of the conditions.
    Or { any: Vec<Cond> },
}

impl Cond {
    /// The column tested (None for `Or`).
    pub(crate) fn col(&self) -> Option<&ColRef> {
        match self {
            Cond::Cmp { col, .. }
            | Cond::In { col, .. }
            | Cond::Between { col, .. }
            | Cond::Dates { col, .. }
            | Cond::Month { col, .. }
            | Cond::Null { col, .. }
            | Cond::Like { col, .. }
            | Cond::Sub { col, .. }
            | Cond::InSub { col, .. } => Some(col),
            Cond::Or { .. } => None,
        }
    }

    /// Every table a condition reads in the outer query.
    pub(crate) fn tables(&self) -> Vec<String> {
        match self {
            Cond::Or { any } => any.iter().flat_map(Cond::tables).collect(),
            c => c.col().map(|c| vec![c.table.clone()]).unwrap_or_default(),
        }
    }
}

/// `HAVING expr op value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Having {
    pub(crate) expr: Expr,
    pub(crate) op: Op,
    pub(crate) value: f64,
}

/// INTERSECT / EXCEPT / UNION, or the share the query's count is of the other's (in percent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SetOp {
    Intersect,
    Except,
    Union,
    /// `100.0 * (this count) / (the other count)`: "what percentage of the batches … were …".
    Percent,
}

/// The plan: one query.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Query {
    /// The table rows come from (`FROM`).
    pub(crate) table: String,
    /// Foreign-key steps joining the other tables, in order from `table`.
    pub(crate) joins: Vec<JoinStep>,
    pub(crate) select: Vec<Expr>,
    pub(crate) distinct: bool,
    pub(crate) filters: Vec<Cond>,
    pub(crate) group_by: Vec<Expr>,
    pub(crate) having: Vec<Having>,
    /// `(expression, descending)`.
    pub(crate) order_by: Vec<(Expr, bool)>,
    pub(crate) limit: Option<usize>,
    pub(crate) set_op: Option<(SetOp, Box<Query>)>,
    /// Rows of the query's own table that its rows refer to (a self-reference), joined under
    /// their role's name; their columns are `ColRef`s of that name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) kin: Vec<KinJoin>,
}

/// `JOIN table AS alias ON table.column = alias.key`: the row a self-reference names ("their
/// mentor" of `instructors.mentor_id`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KinJoin {
    pub(crate) alias: String,
    pub(crate) column: String,
    pub(crate) key: String,
    /// The table joined again when it is not the query's own: the second of two roles of one
    /// table (`trips.relief_driver_id` beside `trips.driver_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) table: Option<String>,
}

impl Query {
    /// Every table the query reads (outer query): its table and the joined ones.
    pub(crate) fn tables(&self) -> Vec<String> {
        let mut out = vec![self.table.clone()];
        for j in &self.joins {
            if !out.iter().any(|t| t.eq_ignore_ascii_case(&j.to_table)) {
                out.push(j.to_table.clone());
            }
        }
        out
    }

    /// The query aggregates (an aggregate selected).
    pub(crate) fn aggregates(&self) -> bool {
        self.select.iter().any(Expr::is_agg)
    }
}

/// A name as an identifier: bare when it is a plain lower-case word, else double-quoted.
pub fn ident(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_') && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') && !RESERVED.contains(&name);
    if plain { name.to_string() } else { format!("\"{}\"", name.replace('"', "\"\"")) }
}

/// SQL keywords that are common column names: always quoted.
const RESERVED: &[&str] = &["order", "group", "user", "select", "from", "where", "table", "limit", "offset", "desc", "asc", "by", "to", "end", "case", "when", "default", "check", "primary", "references", "time", "year", "month", "day", "values", "index", "key", "level", "position", "section", "rank", "rows", "window", "name"];

/// A string literal.
pub fn literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// A number literal (whole numbers without a fraction).
pub(crate) fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

fn lit(l: &Lit) -> String {
    match l {
        Lit::Num(n) => number(*n),
        Lit::Text(s) => literal(s),
        Lit::Bool(b) => if *b { "TRUE".into() } else { "FALSE".into() },
    }
}

pub(crate) fn col(c: &ColRef) -> String {
    format!("{}.{}", ident(&c.table), ident(&c.column))
}

fn join_sql(j: &JoinStep) -> String {
    format!(" JOIN {} ON {}.{} = {}.{}", ident(&j.to_table), ident(&j.from_table), ident(&j.from_column), ident(&j.to_table), ident(&j.to_column))
}

/// Does `step` go from a row to possibly many rows (the foreign key is on `step.to_table`)?
pub fn multiplies(ctx: &SchemaContext, step: &JoinStep) -> bool {
    let Some(t) = ctx.table(&step.to_table) else { return false };
    let declared = t.foreign_keys.iter().any(|fk| {
        fk.ref_table.eq_ignore_ascii_case(&step.from_table) && fk.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&step.to_column)) && fk.ref_columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&step.from_column))
    });
    // Inferred keys: the far side's column is not its table's whole primary key.
    declared || (ctx.inferred(step) && !t.primary_key.iter().eq(std::iter::once(&step.to_column)) && t.primary_key.len() == 1 && !t.primary_key[0].eq_ignore_ascii_case(&step.to_column))
}

fn expr_sql(ctx: &SchemaContext, e: &Expr, dialect: Dialect, distinct_key: Option<&str>) -> String {
    match e {
        Expr::Col { col: c } => col(c),
        Expr::Agg { func: AggFunc::Count, col: None } => distinct_key.map(|k| format!("COUNT(DISTINCT {k})")).unwrap_or_else(|| "COUNT(*)".into()),
        Expr::Agg { func: AggFunc::CountDistinct, col: Some(c) } => format!("COUNT(DISTINCT {})", col(c)),
        Expr::Agg { func: AggFunc::Avg, col: Some(c) } => format!("AVG({})", num_of(ctx, c, dialect)),
        Expr::Agg { func, col: Some(c) } => format!("{}({})", func.sql(), num_of(ctx, c, dialect)),
        Expr::Agg { func, col: None } => format!("{}(*)", func.sql()),
        Expr::All { table } => format!("{}.*", ident(table)),
        Expr::Time { col: c, month } => match (dialect, month) {
            (Dialect::Sqlite, true) => format!("strftime('%Y-%m', {})", col(c)),
            (Dialect::Sqlite, false) => format!("strftime('%Y', {})", col(c)),
            // Dates kept as ISO text ('2025-03-05'): their leading characters are the month
            // and the year (PostgreSQL's to_char takes no text).
            (Dialect::Postgres, true) if text_date(ctx, c) => format!("substr({}, 1, 7)", col(c)),
            (Dialect::Postgres, false) if text_date(ctx, c) => format!("substr({}, 1, 4)", col(c)),
            (Dialect::Postgres, true) => format!("to_char({}, 'YYYY-MM')", col(c)),
            (Dialect::Postgres, false) => format!("to_char({}, 'YYYY')", col(c)),
        },
    }
}

fn cond_sql(ctx: &SchemaContext, c: &Cond, dialect: Dialect) -> String {
    match c {
        Cond::Cmp { col: cl, op, value } => format!("{} {} {}", num_of(ctx, cl, dialect), op.sql(), lit(value)),
        Cond::In { col: cl, values, negated } if values.len() == 1 => format!("{} {} {}", col(cl), if *negated { "<>" } else { "=" }, lit(&values[0])),
        Cond::In { col: cl, values, negated } => format!("{} {}IN ({})", col(cl), if *negated { "NOT " } else { "" }, values.iter().map(lit).collect::<Vec<_>>().join(", ")),
        Cond::Between { col: cl, lo, hi } => format!("{} BETWEEN {} AND {}", num_of(ctx, cl, dialect), number(*lo), number(*hi)),
        Cond::Dates { col: cl, from, to } => {
            let mut parts = Vec::new();
            if let Some(f) = from {
                parts.push(format!("{} >= {}", col(cl), literal(f)));
            }
            if let Some(t) = to {
                parts.push(format!("{} < {}", col(cl), literal(t)));
            }
            parts.join(" AND ")
        }
        Cond::Month { col: cl, month } => match dialect {
            Dialect::Sqlite => format!("strftime('%m', {}) = '{month:02}'", col(cl)),
            Dialect::Postgres if text_date(ctx, cl) => format!("substr({}, 6, 2) = '{month:02}'", col(cl)),
            Dialect::Postgres => format!("EXTRACT(MONTH FROM {}) = {month}", col(cl)),
        },
        Cond::Null { col: cl, is_null } => format!("{} IS {}NULL", col(cl), if *is_null { "" } else { "NOT " }),
        Cond::Like { col: cl, text, negated } => format!("LOWER({}) {}LIKE {}", col(cl), if *negated { "NOT " } else { "" }, literal(&format!("%{}%", text.to_lowercase()))),
        Cond::Sub { col: cl, op, query } => format!("{} {} ({})", num_of(ctx, cl, dialect), op.sql(), render_query(ctx, query, dialect, None)),
        Cond::InSub { col: cl, negated, query } => {
            // `x NOT IN (… NULL …)` is never true: a NOT IN list leaves out the NULLs.
            let mut q = (**query).clone();
            let nullable = |c: &ColRef| ctx.table(&c.table).and_then(|t| t.column(&c.column)).is_none_or(|x| x.nullable);
            if *negated
                && let Some(Expr::Col { col: inner }) = q.select.first().cloned()
                && nullable(&inner)
            {
                q.filters.push(Cond::Null { col: inner, is_null: false });
            }
            format!("{} {}IN ({})", col(cl), if *negated { "NOT " } else { "" }, render_query(ctx, &q, dialect, None))
        }
        Cond::Or { any } => format!("({})", any.iter().map(|c| cond_sql(ctx, c, dialect)).collect::<Vec<_>>().join(" OR ")),
    }
}

/// A column compared or sorted as a number: numbers stored as text are cast (as text, "150" <
/// "90").
/// A date column declared as text (ISO strings).
fn text_date(ctx: &SchemaContext, c: &ColRef) -> bool {
    ctx.table(&c.table).and_then(|t| t.column(&c.column)).is_some_and(|col| matches!(col.kind(), crate::ColumnKind::Text | crate::ColumnKind::Other))
}

fn num_of(ctx: &SchemaContext, c: &ColRef, dialect: Dialect) -> String {
    if super::source::numeric_text(ctx, c) {
        match dialect {
            Dialect::Sqlite => format!("CAST({} AS REAL)", col(c)),
            Dialect::Postgres => format!("CAST(NULLIF({}, '') AS NUMERIC)", col(c)),
        }
    } else {
        col(c)
    }
}

/// How the joins are laid out: inline steps, and filter-only branches that fan out (semi-joins).
struct Layout {
    inline: Vec<JoinStep>,
    /// (root step, its other steps, the conditions on the branch's tables).
    semi: Vec<(JoinStep, Vec<JoinStep>, Vec<Cond>)>,
    filters: Vec<Cond>,
    /// An inline step repeats the rows of the query's table.
    repeats: bool,
}

fn layout(ctx: &SchemaContext, q: &Query) -> Layout {
    let steps = &q.joins;
    let parent: Vec<Option<usize>> = steps.iter().map(|s| steps.iter().position(|p| p.to_table.eq_ignore_ascii_case(&s.from_table))).collect();
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
    let mut output: Vec<String> = Vec::new();
    for e in q.select.iter().chain(q.group_by.iter()).chain(q.order_by.iter().map(|(e, _)| e)).chain(q.having.iter().map(|h| &h.expr)) {
        if let Some(c) = e.column() {
            output.push(c.table.clone());
        }
    }
    let mut semi_steps = vec![false; steps.len()];
    let mut semi = Vec::new();
    let mut filters: Vec<Cond> = q.filters.clone();
    let fans = |i: usize| multiplies(ctx, &steps[i]);
    for root in 0..steps.len() {
        if !fans(root) || parent[root].is_some_and(|p| semi_steps[p]) {
            continue;
        }
        let members: Vec<usize> = (0..steps.len()).filter(|&i| in_subtree(root, i)).collect();
        let tables: Vec<String> = members.iter().map(|&i| steps[i].to_table.clone()).collect();
        if tables.iter().any(|t| output.iter().any(|o| o.eq_ignore_ascii_case(t))) {
            continue;
        }
        let (inner, rest): (Vec<Cond>, Vec<Cond>) = filters.into_iter().partition(|f| {
            let ts = f.tables();
            !ts.is_empty() && ts.iter().all(|t| tables.iter().any(|x| x.eq_ignore_ascii_case(t)))
        });
        filters = rest;
        for &i in &members {
            semi_steps[i] = true;
        }
        let others = members.iter().filter(|&&i| i != root).map(|&i| steps[i].clone()).collect();
        semi.push((steps[root].clone(), others, inner));
    }
    let inline: Vec<JoinStep> = steps.iter().enumerate().filter(|(i, _)| !semi_steps[*i]).map(|(_, s)| s.clone()).collect();
    let repeats = (0..steps.len()).any(|i| !semi_steps[i] && fans(i));
    Layout { inline, semi, filters, repeats }
}

/// How many of the query's joins stay inline (the others become semi-joins).
pub(crate) fn inline_joins(ctx: &SchemaContext, q: &Query) -> usize {
    layout(ctx, q).inline.len()
}

/// Every table the rendered statement reads: its own, the inline joins, the semi-join branches
/// that test something, the sub-queries and the other side of a set operation. (A branch that
/// tests nothing is not rendered: it reads nothing.)
pub(crate) fn rendered_tables(ctx: &SchemaContext, q: &Query) -> Vec<String> {
    fn conds(ctx: &SchemaContext, c: &Cond, out: &mut Vec<String>) {
        match c {
            Cond::Sub { query, .. } | Cond::InSub { query, .. } => out.extend(rendered_tables(ctx, query)),
            Cond::Or { any } => any.iter().for_each(|x| conds(ctx, x, out)),
            _ => {}
        }
    }
    let l = layout(ctx, q);
    let mut out = vec![q.table.clone()];
    out.extend(l.inline.iter().map(|j| j.to_table.clone()));
    for (root, others, inner) in &l.semi {
        if !inner.is_empty() {
            out.push(root.to_table.clone());
            out.extend(others.iter().map(|j| j.to_table.clone()));
            inner.iter().for_each(|c| conds(ctx, c, &mut out));
        }
    }
    for f in &l.filters {
        conds(ctx, f, &mut out);
    }
    if let Some((_, other)) = &q.set_op {
        out.extend(rendered_tables(ctx, other));
    }
    out
}

/// The name of a selected aggregate or time bucket.
fn alias(q: &Query, e: &Expr) -> Option<String> {
    let stem = |c: &ColRef| qa_question::names::name_words(&c.column).join("_");
    Some(match e {
        Expr::Agg { func: AggFunc::Count, col: None } => format!("{}_count", qa_core::text::singular(&q.table.to_ascii_lowercase())),
        Expr::Agg { func: AggFunc::CountDistinct, col: Some(c) } => format!("{}_count", stem(c)),
        Expr::Agg { func: AggFunc::Avg, col: Some(c) } => format!("avg_{}", stem(c)),
        Expr::Agg { func: AggFunc::Sum, col: Some(c) } => format!("total_{}", stem(c)),
        Expr::Agg { func: AggFunc::Max, col: Some(c) } => format!("max_{}", stem(c)),
        Expr::Agg { func: AggFunc::Min, col: Some(c) } => format!("min_{}", stem(c)),
        Expr::Time { month: true, .. } => "month".into(),
        Expr::Time { month: false, .. } => "year".into(),
        // The related row's columns by its role ("mentor_first_name").
        Expr::Col { col } if q.kin.iter().any(|k| k.alias == col.table) => format!("{}_{}", col.table, col.column),
        _ => return None,
    })
}

/// Render `q` as SQL; `row_cap` caps the outer query (None for a sub-query).
pub(crate) fn render_query(ctx: &SchemaContext, q: &Query, dialect: Dialect, row_cap: Option<usize>) -> String {
    if let Some((SetOp::Percent, whole)) = &q.set_op {
        let part = Query { set_op: None, ..q.clone() };
        let sql = format!("SELECT 100.0 * ({}) / NULLIF(({}), 0) AS percentage", render_query(ctx, &part, dialect, None), render_query(ctx, whole, dialect, None));
        return if row_cap.is_some() { format!("{sql} LIMIT 1") } else { sql };
    }
    let l = layout(ctx, q);
    let pk = ctx.table(&q.table).and_then(|t| (t.primary_key.len() == 1).then(|| format!("{}.{}", ident(&q.table), ident(&t.primary_key[0]))));
    let count_key = if l.repeats { pk.as_deref() } else { None };
    // Aggregates are named for the reader ("finding_count", "avg_cost"); the planner's other
    // columns keep their names.
    let mut select: Vec<String> = q
        .select
        .iter()
        .map(|e| {
            let x = expr_sql(ctx, e, dialect, count_key);
            match alias(q, e) {
                Some(a) if row_cap.is_some() => format!("{x} AS {}", ident(&a)),
                _ => x,
            }
        })
        .collect();
    if select.is_empty() {
        select.push(format!("{}.*", ident(&q.table)));
    }
    // Listing rows that an inline one-to-many join repeats: each row once.
    let distinct = q.distinct || (l.repeats && !q.aggregates() && q.group_by.is_empty());
    let mut sql = format!("SELECT {}{} FROM {}", if distinct { "DISTINCT " } else { "" }, select.join(", "), ident(&q.table));
    for j in &l.inline {
        sql.push_str(&join_sql(j));
    }
    for k in &q.kin {
        // (A role of another table may be empty — an admission not discharged yet — and the
        // row is still listed.)
        let join = if k.table.is_some() { " LEFT JOIN" } else { " JOIN" };
        sql.push_str(&format!("{join} {} AS {} ON {}.{} = {}.{}", ident(k.table.as_deref().unwrap_or(&q.table)), ident(&k.alias), ident(&q.table), ident(&k.column), ident(&k.alias), ident(&k.key)));
    }
    let mut wheres: Vec<String> = l.filters.iter().map(|f| cond_sql(ctx, f, dialect)).collect();
    for (root, others, inner) in &l.semi {
        // A branch nothing reads or tests says nothing: no existence test is implied. Inside a
        // sub-query the branch is what the sub-query was built for ("template types not used by
        // any document": the templates that have documents), so it stays.
        if inner.is_empty() && row_cap.is_some() {
            continue;
        }
        let mut sub = format!("SELECT {}.{} FROM {}", ident(&root.to_table), ident(&root.to_column), ident(&root.to_table));
        for j in others {
            sub.push_str(&join_sql(j));
        }
        if !inner.is_empty() {
            sub.push_str(&format!(" WHERE {}", inner.iter().map(|f| cond_sql(ctx, f, dialect)).collect::<Vec<_>>().join(" AND ")));
        }
        wheres.push(format!("{}.{} IN ({sub})", ident(&root.from_table), ident(&root.from_column)));
    }
    if !wheres.is_empty() {
        sql.push_str(&format!(" WHERE {}", wheres.join(" AND ")));
    }
    if !q.group_by.is_empty() {
        sql.push_str(&format!(" GROUP BY {}", q.group_by.iter().map(|e| expr_sql(ctx, e, dialect, None)).collect::<Vec<_>>().join(", ")));
    }
    if !q.having.is_empty() {
        let hs: Vec<String> = q.having.iter().map(|h| format!("{} {} {}", expr_sql(ctx, &h.expr, dialect, count_key), h.op.sql(), number(h.value))).collect();
        sql.push_str(&format!(" HAVING {}", hs.join(" AND ")));
    }
    if let Some((op, other)) = &q.set_op {
        let word = match op {
            SetOp::Intersect => "INTERSECT",
            SetOp::Except => "EXCEPT",
            // (Rendered at the top.)
            SetOp::Union | SetOp::Percent => "UNION",
        };
        sql = format!("{sql} {word} {}", render_query(ctx, other, dialect, None));
        if let Some(cap) = row_cap {
            sql.push_str(&format!(" LIMIT {}", q.limit.unwrap_or(cap).min(cap)));
        }
        return sql;
    }
    // Groups without an asked order: the biggest first, then by their keys (a stable order).
    let mut order = q.order_by.clone();
    if order.is_empty() && !q.group_by.is_empty() && row_cap.is_some() {
        // Time buckets read in time order.
        let by_time = q.group_by.iter().any(|g| matches!(g, Expr::Time { .. }));
        if let Some(a) = q.select.iter().find(|e| e.is_agg()).filter(|_| !by_time) {
            order.push((a.clone(), true));
        }
        order.extend(q.group_by.iter().map(|g| (g.clone(), false)));
    }
    let q = &Query { order_by: order, ..q.clone() };
    if !q.order_by.is_empty() {
        let keys: Vec<String> = q
            .order_by
            .iter()
            .map(|(e, desc)| {
                // Numbers stored as text sort as numbers (unless the list is DISTINCT: the
                // sort key must then be a selected expression).
                let x = match e {
                    Expr::Col { col: c } if !distinct => num_of(ctx, c, dialect),
                    other => expr_sql(ctx, other, dialect, count_key),
                };
                // Rows without a value come last in both engines (PostgreSQL puts NULLs first
                // in a descending order: "the heaviest" would be one with no weight).
                match (dialect, *desc) {
                    (Dialect::Postgres, true) => format!("{x} DESC NULLS LAST"),
                    (_, true) => format!("{x} DESC"),
                    (_, false) => format!("{x} ASC"),
                }
            })
            .collect();
        sql.push_str(&format!(" ORDER BY {}", keys.join(", ")));
    }
    match (q.limit, row_cap) {
        (Some(n), Some(cap)) => sql.push_str(&format!(" LIMIT {}", n.min(cap))),
        (Some(n), None) => sql.push_str(&format!(" LIMIT {n}")),
        (None, Some(cap)) => sql.push_str(&format!(" LIMIT {cap}")),
        (None, None) => {}
    }
    sql
}

/// Condition `f` tests column `c`: itself, in an `OR`, or inside its sub-query.
pub(super) fn tests_column(f: &Cond, c: &ColRef) -> bool {
    match f {
        Cond::Or { any } => any.iter().any(|x| tests_column(x, c)),
        Cond::InSub { query, .. } | Cond::Sub { query, .. } if query.filters.iter().any(|x| tests_column(x, c)) => true,
        other => other.col() == Some(c),
    }
}
