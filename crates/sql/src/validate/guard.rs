//! Forbidden constructs anywhere in the tree: nested statements, `SELECT … INTO`, locking
//! clauses, system catalogs and refused functions.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, ObjectName, ObjectNamePart, Query, Select, SetExpr, Statement, TableFactor, Visitor};

use super::{ALLOWED_PREFIXED_FUNCTIONS, DENY_FUNCTIONS, DENY_FUNCTION_PREFIXES, Reason, ReasonKind, statement_kind};

#[derive(Default)]
pub(super) struct Guard {
    pub(super) reasons: Vec<Reason>,
}

impl Guard {
    pub(super) fn forbid(&mut self, message: String) {
        self.reasons.push(Reason::new(ReasonKind::Forbidden, message));
    }
}

impl Visitor for Guard {
    type Break = ();

    fn pre_visit_statement(&mut self, stmt: &Statement) -> ControlFlow<()> {
        // The walk starts at the query, so any statement here is nested in it.
        self.forbid(format!("{} inside the query (data-modifying CTE or subquery)", statement_kind(stmt)));
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if !q.locks.is_empty() {
            self.forbid("locking clause FOR UPDATE/SHARE takes row locks".to_string());
        }
        if q.for_clause.is_some() || q.settings.is_some() || q.format_clause.is_some() || !q.pipe_operators.is_empty() {
            self.forbid("unsupported query clause (FOR XML/JSON, SETTINGS, FORMAT or pipe operators)".to_string());
        }
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                if matches!(
                    *cte.query.body,
                    SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
                ) {
                    self.forbid(format!("data-modifying CTE {}", cte.alias.name.value));
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<()> {
        if s.into.is_some() {
            self.forbid("SELECT … INTO creates a table".to_string());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, name: &ObjectName) -> ControlFlow<()> {
        if let Some(why) = catalog_refusal(&name_parts(name)) {
            self.forbid(why);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
        let name = match tf {
            TableFactor::Table { name, args: Some(_), .. } => Some(name),
            TableFactor::Function { name, .. } => Some(name),
            _ => None,
        };
        if let Some(why) = name.and_then(|n| function_refusal(&name_parts(n))) {
            self.forbid(why);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e
            && let Some(why) = function_refusal(&name_parts(&f.name))
        {
            self.forbid(why);
        }
        ControlFlow::Continue(())
    }
}

/// Lower-cased parts of a dotted name.
pub(super) fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => i.value.to_lowercase(),
            other => other.to_string().to_lowercase(),
        })
        .collect()
}

/// Why a function name is refused (see the module doc), or None.
pub(super) fn function_refusal(parts: &[String]) -> Option<String> {
    let (base, qualifier) = parts.split_last()?;
    let full = parts.join(".");
    if !qualifier.is_empty() && qualifier != ["pg_catalog"] {
        return Some(format!("schema-qualified function {full}: only pg_catalog functions may be qualified"));
    }
    let denied_prefix = DENY_FUNCTION_PREFIXES.iter().any(|p| base.starts_with(p))
        && !ALLOWED_PREFIXED_FUNCTIONS.contains(&base.as_str());
    if denied_prefix || DENY_FUNCTIONS.contains(&base.as_str()) {
        return Some(format!("function {full} is not allowed (server, file, session or sequence side effects)"));
    }
    None
}

/// Why a table name is refused as a system catalog, or None.
pub(super) fn catalog_refusal(parts: &[String]) -> Option<String> {
    let (base, qualifier) = parts.split_last()?;
    let system_schema = qualifier.iter().any(|q| {
        matches!(q.as_str(), "pg_catalog" | "information_schema" | "pg_toast" | "pg_temp")
            || q.starts_with("pg_temp")
            || q.starts_with("pg_toast")
    });
    let system_table = base.starts_with("pg_")
        || base.starts_with("sqlite_")
        || base.starts_with("pragma_")
        || base == "information_schema"
        || matches!(base.as_str(), "fsdir" | "zipfile" | "dbstat");
    (system_schema || system_table).then(|| format!("system catalog {} is not allowed", parts.join(".")))
}
