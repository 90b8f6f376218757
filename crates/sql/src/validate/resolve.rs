//! Column references resolved in their scope, and "did you mean" suggestions.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{Expr, FunctionArg, FunctionArguments, Query, Value, ValueWithSpan, Visitor};

use crate::Dialect;
use super::scope::{Analyzer, Scope};

/// Columns every table has without declaring them.
pub(super) fn implicit_column(dialect: Dialect, col: &str) -> bool {
    match dialect {
        Dialect::Sqlite => matches!(col, "rowid" | "oid" | "_rowid_"),
        Dialect::Postgres => matches!(col, "ctid" | "xmin" | "xmax" | "cmin" | "cmax" | "tableoid"),
    }
}

/// `(qualifier, column)` of a plain column reference, lower-case.
pub(super) fn column_ref(e: &Expr) -> Option<(Option<String>, String)> {
    match e {
        Expr::Identifier(i) => Some((None, i.value.to_lowercase())),
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            let n = parts.len();
            Some((Some(parts[n - 2].value.to_lowercase()), parts[n - 1].value.to_lowercase()))
        }
        Expr::Nested(inner) => column_ref(inner),
        _ => None,
    }
}

pub(super) fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(ValueWithSpan { value, .. }) => match value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) | Value::NationalStringLiteral(s) => Some(s),
            Value::DollarQuotedString(d) => Some(&d.value),
            _ => None,
        },
        Expr::Nested(inner) => string_literal(inner),
        _ => None,
    }
}

pub(super) struct Resolver<'a, 's, 'p> {
    pub(super) an: &'a mut Analyzer<'s>,
    pub(super) scope: &'a Scope<'p>,
    /// Query nesting below the node being resolved: identifiers count only at depth 0.
    pub(super) depth: usize,
    /// Addresses of expressions that are not column references (names of named arguments).
    pub(super) skip: HashSet<usize>,
}

impl Visitor for Resolver<'_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if self.depth == 0 {
            self.an.walk_query(q, Some(self.scope));
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth = self.depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.depth > 0 || self.skip.contains(&(e as *const Expr as usize)) {
            return ControlFlow::Continue(());
        }
        match e {
            Expr::Identifier(i) => {
                self.an.resolve_column(None, &i.value.to_lowercase(), i.quote_style, self.scope);
            }
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let n = parts.len();
                let qual = parts[n - 2].value.to_lowercase();
                let col = parts[n - 1].value.to_lowercase();
                let schema_ok =
                    parts[..n - 2].iter().all(|p| matches!(p.value.to_lowercase().as_str(), "public" | "main"));
                if schema_ok {
                    self.an.resolve_column(Some(&qual), &col, parts[n - 1].quote_style, self.scope);
                }
                // db.schema.table.col and the like: not ours to judge.
            }
            Expr::Function(f) => {
                if let FunctionArguments::List(list) = &f.args {
                    for arg in &list.args {
                        if let FunctionArg::ExprNamed { name, .. } = arg {
                            self.skip.insert(name as *const Expr as usize);
                        }
                    }
                }
            }
            _ => self.an.note_filter(e, self.scope),
        }
        ControlFlow::Continue(())
    }
}

/// " (did you mean x?)" for the closest of `names` to `word`, or a short list of them.
pub(super) fn suggestion(word: &str, names: &[&str]) -> String {
    let mut unique: Vec<&str> = names.iter().copied().filter(|n| !n.is_empty()).collect();
    unique.sort_unstable();
    unique.dedup();
    if unique.is_empty() {
        return String::new();
    }
    let lower = word.to_lowercase();
    let best = unique.iter().map(|n| (edit_distance(&lower, &n.to_lowercase()), *n)).min();
    match best {
        Some((d, name)) if d <= (word.chars().count() / 2).max(2) => format!(" (did you mean {name}?)"),
        _ => {
            let shown: Vec<&str> = unique.iter().copied().take(12).collect();
            let more = if unique.len() > shown.len() { ", …" } else { "" };
            format!(" (known: {}{more})", shown.join(", "))
        }
    }
}

pub(super) use qa_question::edit::edit_distance;
