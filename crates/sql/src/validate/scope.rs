//! Scopes: the relations and columns a query can see, checked against the schema, and the
//! literal filters the diagnose loop probes.

use std::collections::{BTreeSet, HashSet};

use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, JoinConstraint, OrderBy, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TableAlias, TableFactor, TableWithJoins, Visit,
};

use crate::{DbSchema, Dialect};
use super::guard::name_parts;
use super::resolve::{Resolver, column_ref, implicit_column, string_literal, suggestion};
use super::{LiteralFilter, NILADIC, Reason, ReasonKind};

/// Output columns of a relation, lower-case. `open`: there may be more (unknown) columns, so
/// any name is accepted.
#[derive(Debug, Clone, Default)]
pub(super) struct Columns {
    pub(super) names: Vec<String>,
    pub(super) open: bool,
}

impl Columns {
    pub(super) fn open() -> Columns {
        Columns { names: Vec::new(), open: true }
    }

    pub(super) fn knows(&self, col: &str) -> bool {
        self.names.iter().any(|n| n == col)
    }

    pub(super) fn has(&self, col: &str) -> bool {
        self.open || self.knows(col)
    }

    /// Rename the first columns as a `AS t(a, b)` alias list does (an open source stays open:
    /// it may have more columns than the list names).
    pub(super) fn renamed(mut self, alias: Option<&TableAlias>) -> Columns {
        if let Some(a) = alias
            && !a.columns.is_empty()
        {
            let new: Vec<String> = a.columns.iter().map(|c| c.name.value.to_lowercase()).collect();
            if self.names.len() <= new.len() {
                self.names = new;
            } else {
                self.names.splice(..new.len(), new);
            }
        }
        self
    }
}

#[derive(Debug, Clone)]
pub(super) struct Rel {
    /// The name the query uses for it: alias, else table (or CTE/function) name; "" when none.
    pub(super) name: String,
    /// The base table behind it, for `table.column` reporting.
    pub(super) table: Option<String>,
    pub(super) cols: Columns,
}

pub(super) struct Scope<'p> {
    pub(super) rels: Vec<Rel>,
    /// Select-list aliases (usable in ORDER BY/GROUP BY/HAVING, and WHERE on SQLite).
    pub(super) aliases: Vec<String>,
    pub(super) parent: Option<&'p Scope<'p>>,
}

impl<'p> Scope<'p> {
    pub(super) fn new(parent: Option<&'p Scope<'p>>) -> Scope<'p> {
        Scope { rels: Vec::new(), aliases: Vec::new(), parent }
    }

    /// This scope, then its parents.
    pub(super) fn chain(&self) -> impl Iterator<Item = &Scope<'p>> {
        std::iter::successors(Some(self), |s| s.parent)
    }
}

pub(super) struct Analyzer<'s> {
    pub(super) schema: Option<&'s DbSchema>,
    pub(super) dialect: Dialect,
    /// CTEs in view, innermost last.
    pub(super) ctes: Vec<(String, Columns)>,
    pub(super) reasons: Vec<Reason>,
    pub(super) warnings: Vec<String>,
    pub(super) tables: BTreeSet<String>,
    pub(super) columns: BTreeSet<String>,
    pub(super) filters: Vec<LiteralFilter>,
}

impl<'s> Analyzer<'s> {
    pub(super) fn new(schema: Option<&'s DbSchema>, dialect: Dialect) -> Analyzer<'s> {
        Analyzer {
            schema,
            dialect,
            ctes: Vec::new(),
            reasons: Vec::new(),
            warnings: Vec::new(),
            tables: BTreeSet::new(),
            columns: BTreeSet::new(),
            filters: Vec::new(),
        }
    }

    pub(super) fn warn(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    pub(super) fn cte(&self, name: &str) -> Option<&Columns> {
        self.ctes.iter().rev().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// Walk a query; returns its output columns.
    pub(super) fn walk_query(&mut self, q: &Query, parent: Option<&Scope>) -> Columns {
        let mark = self.ctes.len();
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.to_lowercase();
                if with.recursive {
                    // Visible to itself; its columns are known only from the alias list.
                    let own = if cte.alias.columns.is_empty() {
                        Columns::open()
                    } else {
                        Columns::default().renamed(Some(&cte.alias))
                    };
                    self.ctes.push((name.clone(), own));
                }
                let out = self.walk_query(&cte.query, parent).renamed(Some(&cte.alias));
                if with.recursive {
                    self.ctes.pop();
                }
                self.ctes.push((name, out));
            }
        }
        let out = self.walk_set_expr(&q.body, parent, q.order_by.as_ref());
        // LIMIT/OFFSET/FETCH expressions: only their subqueries matter.
        let bare = Scope::new(parent);
        if let Some(limit) = &q.limit_clause {
            self.resolve(limit, &bare);
        }
        if let Some(fetch) = &q.fetch {
            self.resolve(fetch, &bare);
        }
        self.ctes.truncate(mark);
        out
    }

    pub(super) fn walk_set_expr(&mut self, body: &SetExpr, parent: Option<&Scope>, order_by: Option<&OrderBy>) -> Columns {
        let out = match body {
            SetExpr::Select(s) => return self.walk_select(s, parent, order_by),
            SetExpr::Query(q) => self.walk_query(q, parent),
            SetExpr::SetOperation { left, right, .. } => {
                let out = self.walk_set_expr(left, parent, None);
                self.walk_set_expr(right, parent, None);
                out
            }
            SetExpr::Values(values) => {
                self.resolve(values, &Scope::new(parent));
                Columns::open()
            }
            // DML in a query is refused by the guard; TABLE t is not parsed for these dialects.
            _ => Columns::open(),
        };
        // ORDER BY of a set operation or parenthesized query: names of its output columns.
        if let Some(ob) = order_by {
            let scope = Scope {
                rels: vec![Rel { name: String::new(), table: None, cols: out.clone() }],
                aliases: Vec::new(),
                parent,
            };
            self.resolve(ob, &scope);
        }
        out
    }

    pub(super) fn walk_select(&mut self, s: &Select, parent: Option<&Scope>, order_by: Option<&OrderBy>) -> Columns {
        let mut scope = Scope::new(parent);
        for twj in &s.from {
            self.add_from(twj, &mut scope);
        }
        scope.aliases = s.projection.iter().filter_map(|item| self.output_name(item)).collect();

        let mut out = Columns::default();
        for item in &s.projection {
            self.project(item, &scope, &mut out);
        }
        self.resolve_clauses(s, &scope, order_by);
        out
    }

    /// One select-list item: its expressions resolved, its output column(s) added to `out`.
    fn project(&mut self, item: &SelectItem, scope: &Scope, out: &mut Columns) {
        match item {
            SelectItem::UnnamedExpr(e) => {
                self.resolve(e, scope);
                match e {
                    Expr::Identifier(i) => out.names.push(i.value.to_lowercase()),
                    Expr::CompoundIdentifier(parts) => match parts.last() {
                        Some(i) => out.names.push(i.value.to_lowercase()),
                        None => out.open = true,
                    },
                    // Engines name other expressions differently (`count` vs `count(*)`).
                    _ => {
                        out.open = true;
                        out.names.extend(self.output_name(item));
                    }
                }
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                self.resolve(expr, scope);
                out.names.push(alias.value.to_lowercase());
            }
            SelectItem::ExprWithAliases { expr, aliases } => {
                self.resolve(expr, scope);
                out.names.extend(aliases.iter().map(|a| a.value.to_lowercase()));
            }
            SelectItem::Wildcard(_) => {
                self.warn("SELECT * returns every column: name the columns the question needs".to_string());
                for rel in &scope.rels {
                    out.names.extend(rel.cols.names.iter().cloned());
                    out.open |= rel.cols.open;
                }
                if scope.rels.is_empty() {
                    out.open = true;
                }
            }
            SelectItem::QualifiedWildcard(kind, _) => match kind {
                SelectItemQualifiedWildcardKind::ObjectName(name) => {
                    let parts = name_parts(name);
                    let qual = parts.last().cloned().unwrap_or_default();
                    match scope.chain().flat_map(|s| s.rels.iter()).find(|r| r.name == qual) {
                        Some(rel) => {
                            out.names.extend(rel.cols.names.iter().cloned());
                            out.open |= rel.cols.open;
                        }
                        None => {
                            out.open = true;
                            if self.schema.is_some() {
                                self.unknown_qualifier(&qual, &format!("{qual}.*"), scope);
                            }
                        }
                    }
                }
                SelectItemQualifiedWildcardKind::Expr(e) => {
                    self.resolve(e, scope);
                    out.open = true;
                }
            },
        }
    }

    /// Every clause of a SELECT after its select list, resolved in its scope.
    fn resolve_clauses(&mut self, s: &Select, scope: &Scope, order_by: Option<&OrderBy>) {
        if let Some(distinct) = &s.distinct {
            self.resolve(distinct, scope);
        }
        if let Some(top) = &s.top {
            self.resolve(top, scope);
        }
        if let Some(e) = &s.prewhere {
            self.resolve(e, scope);
        }
        if let Some(e) = &s.selection {
            self.resolve(e, scope);
        }
        match &s.group_by {
            GroupByExpr::Expressions(exprs, _) => {
                for e in exprs {
                    self.resolve(e, scope);
                }
            }
            GroupByExpr::All(_) => {}
        }
        for e in s.cluster_by.iter().chain(&s.distribute_by) {
            self.resolve(e, scope);
        }
        for e in &s.sort_by {
            self.resolve(e, scope);
        }
        if let Some(e) = &s.having {
            self.resolve(e, scope);
        }
        for w in &s.named_window {
            self.resolve(w, scope);
        }
        if let Some(e) = &s.qualify {
            self.resolve(e, scope);
        }
        for c in &s.connect_by {
            self.resolve(c, scope);
        }
        for lv in &s.lateral_views {
            self.resolve(lv, scope);
        }
        if let Some(ob) = order_by {
            self.resolve(ob, scope);
        }
    }

    /// The name a select item can be referred to by in ORDER BY/GROUP BY/HAVING: its alias, or
    /// on Postgres the name of an unaliased function call (`count(*)` is column `count`).
    pub(super) fn output_name(&self, item: &SelectItem) -> Option<String> {
        match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_lowercase()),
            SelectItem::UnnamedExpr(Expr::Function(f)) if self.dialect == Dialect::Postgres => {
                name_parts(&f.name).pop()
            }
            _ => None,
        }
    }

    pub(super) fn add_from(&mut self, twj: &TableWithJoins, scope: &mut Scope) {
        self.add_factor(&twj.relation, scope);
        for join in &twj.joins {
            self.add_factor(&join.relation, scope);
            use sqlparser::ast::JoinOperator as J;
            let constraint = match &join.join_operator {
                J::Join(c)
                | J::Inner(c)
                | J::Left(c)
                | J::LeftOuter(c)
                | J::Right(c)
                | J::RightOuter(c)
                | J::FullOuter(c)
                | J::CrossJoin(c)
                | J::Semi(c)
                | J::LeftSemi(c)
                | J::RightSemi(c)
                | J::Anti(c)
                | J::LeftAnti(c)
                | J::RightAnti(c)
                | J::StraightJoin(c) => Some(c),
                J::AsOf { match_condition, constraint } => {
                    self.resolve(match_condition, scope);
                    Some(constraint)
                }
                _ => None,
            };
            match constraint {
                Some(JoinConstraint::On(e)) => self.resolve(e, scope),
                Some(JoinConstraint::Using(names)) => {
                    for n in names {
                        let parts = name_parts(n);
                        if let Some(col) = parts.last() {
                            self.resolve_column(None, col, None, scope);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    pub(super) fn add_factor(&mut self, tf: &TableFactor, scope: &mut Scope) {
        let alias_name = |alias: &Option<TableAlias>| alias.as_ref().map(|a| a.name.value.to_lowercase());
        match tf {
            TableFactor::Table { name, alias, args: None, .. } => {
                let parts = name_parts(name);
                let Some((base, qualifier)) = parts.split_last() else { return };
                let rel_name = alias_name(alias).unwrap_or_else(|| base.clone());
                if qualifier.is_empty()
                    && let Some(cols) = self.cte(base)
                {
                    let cols = cols.clone().renamed(alias.as_ref());
                    scope.rels.push(Rel { name: rel_name, table: None, cols });
                    return;
                }
                let default_schema =
                    matches!(qualifier, [] | [_]) && qualifier.iter().all(|q| q == "public" || q == "main");
                self.tables.insert(base.clone());
                let cols = match self.schema {
                    None => Columns::open(),
                    Some(_) if !default_schema => {
                        self.reasons.push(Reason::new(
                            ReasonKind::UnknownTable,
                            format!("table {}: only tables of the default schema are known", parts.join(".")),
                        ));
                        Columns::open()
                    }
                    Some(schema) => match schema.table(base) {
                        Some(t) => {
                            Columns { names: t.columns.iter().map(|c| c.name.to_lowercase()).collect(), open: false }
                        }
                        None => {
                            let names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
                            self.reasons.push(Reason::new(
                                ReasonKind::UnknownTable,
                                format!("unknown table {base}{}", suggestion(base, &names)),
                            ));
                            // Open, so its columns do not pile up more reasons.
                            Columns::open()
                        }
                    },
                };
                scope.rels.push(Rel { name: rel_name, table: Some(base.clone()), cols: cols.renamed(alias.as_ref()) });
            }
            TableFactor::Table { name, alias, args: Some(args), .. } => {
                self.resolve(args, scope);
                let fname = name_parts(name).last().cloned().unwrap_or_default();
                let cols = Columns::open().renamed(alias.as_ref());
                scope.rels.push(Rel { name: alias_name(alias).unwrap_or(fname), table: None, cols });
            }
            TableFactor::Derived { subquery, alias, .. } => {
                // The enclosing FROM items are in view (LATERAL); harmless otherwise.
                let out = self.walk_query(subquery, Some(&*scope)).renamed(alias.as_ref());
                scope.rels.push(Rel { name: alias_name(alias).unwrap_or_default(), table: None, cols: out });
            }
            TableFactor::Function { name, args, alias, .. } => {
                for a in args {
                    self.resolve(a, scope);
                }
                let fname = name_parts(name).last().cloned().unwrap_or_default();
                let cols = Columns::open().renamed(alias.as_ref());
                scope.rels.push(Rel { name: alias_name(alias).unwrap_or(fname), table: None, cols });
            }
            TableFactor::TableFunction { expr, alias } => {
                self.resolve(expr, scope);
                scope.rels.push(Rel {
                    name: alias_name(alias).unwrap_or_default(),
                    table: None,
                    cols: Columns::open(),
                });
            }
            TableFactor::UNNEST { alias, array_exprs, .. } => {
                for e in array_exprs {
                    self.resolve(e, scope);
                }
                scope.rels.push(Rel {
                    name: alias_name(alias).unwrap_or_default(),
                    table: None,
                    cols: Columns::open(),
                });
            }
            TableFactor::NestedJoin { table_with_joins, .. } => self.add_from(table_with_joins, scope),
            other => {
                // Dialect extensions these engines do not have; accept any column of them.
                self.resolve(other, scope);
                scope.rels.push(Rel { name: String::new(), table: None, cols: Columns::open() });
            }
        }
    }

    /// Resolve the column references of `node` (not descending into subqueries, which are
    /// walked as queries of their own with `scope` as parent).
    pub(super) fn resolve<T: Visit>(&mut self, node: &T, scope: &Scope) {
        let mut r = Resolver { an: self, scope, depth: 0, skip: HashSet::new() };
        let _ = Visit::visit(node, &mut r);
    }

    /// Note a column of a base table (`table.column`), or a bare `column` whose table cannot be
    /// told (no schema, several candidate tables). Columns of CTEs and derived tables are not
    /// database columns and are not listed.
    pub(super) fn record(&mut self, table: Option<&str>, col: &str) {
        self.columns.insert(match table {
            Some(t) => format!("{t}.{col}"),
            None => col.to_string(),
        });
    }

    /// Check a column reference, `qual.col` or bare `col`, and note it.
    pub(super) fn resolve_column(&mut self, qual: Option<&str>, col: &str, quote: Option<char>, scope: &Scope) {
        let checking = self.schema.is_some();
        let Some(q) = qual else { return self.resolve_bare(col, quote, scope) };
        match scope.chain().find_map(|s| s.rels.iter().find(|r| r.name == q)) {
            Some(rel) if rel.cols.has(col) || (rel.table.is_some() && implicit_column(self.dialect, col)) => {
                if let Some(t) = rel.table.clone() {
                    self.record(Some(&t), col);
                }
            }
            Some(rel) => {
                if checking {
                    let names: Vec<&str> = rel.cols.names.iter().map(String::as_str).collect();
                    let owner = rel.table.as_deref().unwrap_or(q);
                    let message =
                        format!("unknown column {q}.{col}: {owner} has no column {col}{}", suggestion(col, &names));
                    self.reasons.push(Reason::new(ReasonKind::UnknownColumn, message));
                }
            }
            None => {
                // `q` may be a composite-typed column (`(addr).city` style), then it is fine.
                let is_column = scope.chain().any(|s| s.rels.iter().any(|r| r.cols.knows(q)));
                if checking && !is_column {
                    self.unknown_qualifier(q, &format!("{q}.{col}"), scope);
                }
            }
        }
    }

    pub(super) fn resolve_bare(&mut self, col: &str, quote: Option<char>, scope: &Scope) {
        let checking = self.schema.is_some();
        // Innermost scope first, as SQL resolves names.
        for s in scope.chain() {
            if let Some(rel) = s.rels.iter().find(|r| r.cols.knows(col)) {
                if let Some(t) = rel.table.clone() {
                    self.record(Some(&t), col);
                }
                return;
            }
            // A select-list alias, or a whole-row reference to a FROM item (`WHERE t IS NULL`).
            if s.aliases.iter().any(|a| a == col) || s.rels.iter().any(|r| r.name == col) {
                return;
            }
            let open: Vec<&Rel> = s.rels.iter().filter(|r| r.cols.open).collect();
            let implicit = implicit_column(self.dialect, col) && s.rels.iter().any(|r| r.table.is_some());
            if !open.is_empty() || implicit {
                // It may belong to a relation whose columns are unknown: accept; name the table
                // when there is only one candidate.
                let bases: Vec<&str> =
                    s.rels.iter().filter(|r| r.cols.open || implicit).filter_map(|r| r.table.as_deref()).collect();
                match bases.as_slice() {
                    [t] if s.rels.len() == 1 => {
                        let t = t.to_string();
                        self.record(Some(&t), col);
                    }
                    [] => {}
                    _ => self.record(None, col),
                }
                return;
            }
        }
        if !checking {
            self.record(None, col);
            return;
        }
        if NILADIC.contains(&col) {
            return;
        }
        if self.dialect == Dialect::Sqlite && quote == Some('"') {
            self.warn(format!(
                "\"{col}\" is not a column: SQLite reads it as the string '{col}'; use single quotes for strings"
            ));
            return;
        }
        let mut names: Vec<&str> = Vec::new();
        let mut tables: Vec<&str> = Vec::new();
        for s in scope.chain() {
            for r in &s.rels {
                names.extend(r.cols.names.iter().map(String::as_str));
                tables.extend(r.table.as_deref());
            }
            names.extend(s.aliases.iter().map(String::as_str));
        }
        let context = if tables.is_empty() { String::new() } else { format!(" in {}", tables.join(", ")) };
        let message = format!("unknown column {col}{context}{}", suggestion(col, &names));
        self.reasons.push(Reason::new(ReasonKind::UnknownColumn, message));
    }

    pub(super) fn unknown_qualifier(&mut self, q: &str, what: &str, scope: &Scope) {
        let names: Vec<&str> =
            scope.chain().flat_map(|s| s.rels.iter()).map(|r| r.name.as_str()).filter(|n| !n.is_empty()).collect();
        self.reasons.push(Reason::new(
            ReasonKind::UnknownColumn,
            format!("{what}: no table or alias named {q} in the FROM clause{}", suggestion(q, &names)),
        ));
    }

    /// Record `col = 'x'`, `col IN ('x', …)`, `col LIKE 'x'` comparisons.
    pub(super) fn note_filter(&mut self, e: &Expr, scope: &Scope) {
        let push = |an: &mut Analyzer, col: &Expr, value: &str| {
            if let Some((qual, name)) = column_ref(col) {
                let table = an.table_of(qual.as_deref(), &name, scope);
                an.filters.push(LiteralFilter { table, column: name, value: value.to_string() });
            }
        };
        match e {
            Expr::BinaryOp { left, op: BinaryOperator::Eq | BinaryOperator::NotEq, right } => {
                if let Some(v) = string_literal(right) {
                    push(self, left, v);
                } else if let Some(v) = string_literal(left) {
                    push(self, right, v);
                }
            }
            Expr::InList { expr, list, .. } => {
                for item in list {
                    if let Some(v) = string_literal(item) {
                        push(self, expr, v);
                    }
                }
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                if let Some(v) = string_literal(pattern) {
                    push(self, expr, v);
                }
            }
            _ => {}
        }
    }

    /// The base table of a column reference, without recording or reporting anything.
    pub(super) fn table_of(&self, qual: Option<&str>, col: &str, scope: &Scope) -> Option<String> {
        match qual {
            Some(q) => scope.chain().find_map(|s| s.rels.iter().find(|r| r.name == q)).and_then(|r| r.table.clone()),
            None => {
                for s in scope.chain() {
                    if let Some(r) = s.rels.iter().find(|r| r.cols.knows(col)) {
                        return r.table.clone();
                    }
                    if !s.rels.is_empty() {
                        let bases: Vec<&Rel> = s.rels.iter().filter(|r| r.cols.open).collect();
                        return if s.rels.len() == 1 && bases.len() == 1 { bases[0].table.clone() } else { None };
                    }
                }
                None
            }
        }
    }
}
