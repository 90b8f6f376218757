//! Repair rewrites: comparisons made case-insensitive for the diagnose loop.

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, Value, VisitorMut,
};

use crate::Dialect;
use super::resolve::{column_ref, string_literal};

pub(super) struct CaseFix {
    pub(super) dialect: Dialect,
    pub(super) changed: usize,
}

/// A literal whose case matters (it has letters with upper/lower forms).
pub(super) fn has_cased_letters(s: &str) -> bool {
    s.chars().any(|c| c.is_lowercase() || c.is_uppercase())
}

pub(super) fn like_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(super) fn single_quoted(s: String) -> Expr {
    Expr::Value(Value::SingleQuotedString(s).into())
}

pub(super) fn call(name: &str, arg: Expr) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))],
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

pub(super) fn nocase(e: Expr) -> Expr {
    Expr::Collate { expr: Box::new(e), collation: ObjectName::from(vec![Ident::new("NOCASE")]) }
}

impl VisitorMut for CaseFix {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let replacement = match (&*e, self.dialect) {
            (Expr::BinaryOp { left, op: op @ (BinaryOperator::Eq | BinaryOperator::NotEq), right }, dialect) => {
                let (col, lit) = if column_ref(left).is_some() && string_literal(right).is_some() {
                    (left, right)
                } else if column_ref(right).is_some() && string_literal(left).is_some() {
                    (right, left)
                } else {
                    return ControlFlow::Continue(());
                };
                let value = string_literal(lit).unwrap_or_default();
                if !has_cased_letters(value) {
                    return ControlFlow::Continue(());
                }
                match dialect {
                    Dialect::Postgres => Expr::ILike {
                        negated: *op == BinaryOperator::NotEq,
                        any: false,
                        expr: col.clone(),
                        pattern: Box::new(single_quoted(like_escape(value))),
                        escape_char: None,
                    },
                    Dialect::Sqlite => Expr::BinaryOp {
                        left: col.clone(),
                        op: op.clone(),
                        right: Box::new(nocase(single_quoted(value.to_string()))),
                    },
                }
            }
            (Expr::InList { expr, list, negated }, dialect) => {
                if column_ref(expr).is_none()
                    || !list.iter().all(|x| string_literal(x).is_some())
                    || !list.iter().any(|x| string_literal(x).is_some_and(has_cased_letters))
                {
                    return ControlFlow::Continue(());
                }
                match dialect {
                    Dialect::Postgres => Expr::InList {
                        expr: Box::new(call("lower", (**expr).clone())),
                        list: list.iter().map(|x| call("lower", x.clone())).collect(),
                        negated: *negated,
                    },
                    Dialect::Sqlite => {
                        Expr::InList { expr: Box::new(nocase((**expr).clone())), list: list.clone(), negated: *negated }
                    }
                }
            }
            (Expr::Like { negated, any: false, expr, pattern, escape_char }, Dialect::Postgres) => {
                if column_ref(expr).is_none() || !string_literal(pattern).is_some_and(has_cased_letters) {
                    return ControlFlow::Continue(());
                }
                Expr::ILike {
                    negated: *negated,
                    any: false,
                    expr: expr.clone(),
                    pattern: pattern.clone(),
                    escape_char: escape_char.clone(),
                }
            }
            _ => return ControlFlow::Continue(()),
        };
        *e = replacement;
        self.changed += 1;
        ControlFlow::Continue(())
    }
}
