//! The same coverage accounting for SQL that did not come from the plan (an LLM candidate):
//! every content word the planner mapped must be reflected in the statement (its table,
//! column, value, operator, aggregate, ordering, limit …), and a word the planner could not map
//! counts as covered when the statement names it (a literal or an identifier holding it).

use sqlparser::dialect::{PostgreSqlDialect, SQLiteDialect};
use sqlparser::tokenizer::{Token, Tokenizer};

use qa_core::text::singular;
use super::super::Dialect;
use qa_question::coverage::{is_function_word, Coverage, Mapped};

/// What a statement contains, lower-cased.
#[derive(Debug, Default)]
struct Facts {
    idents: Vec<String>,
    literals: Vec<String>,
    numbers: Vec<f64>,
    keywords: Vec<String>,
    ops: Vec<String>,
}

impl Facts {
    fn new(sql: &str, dialect: Dialect) -> Facts {
        let tokens = match dialect {
            Dialect::Sqlite => Tokenizer::new(&SQLiteDialect {}, sql).tokenize(),
            Dialect::Postgres => Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize(),
        };
        let mut f = Facts::default();
        for t in tokens.unwrap_or_default() {
            match t {
                Token::Word(w) if w.quote_style.is_none() && w.keyword != sqlparser::keywords::Keyword::NoKeyword => {
                    f.keywords.push(w.value.to_ascii_lowercase());
                    f.idents.push(w.value.to_lowercase());
                }
                Token::Word(w) => f.idents.push(w.value.to_lowercase()),
                Token::SingleQuotedString(s) | Token::NationalStringLiteral(s) | Token::EscapedStringLiteral(s) => f.literals.push(s.to_lowercase()),
                Token::Number(n, _) => {
                    if let Ok(v) = n.parse::<f64>() {
                        f.numbers.push(v);
                    }
                }
                Token::Neq => f.ops.push("<>".into()),
                Token::Gt => f.ops.push(">".into()),
                Token::Lt => f.ops.push("<".into()),
                Token::GtEq => f.ops.push(">=".into()),
                Token::LtEq => f.ops.push("<=".into()),
                Token::Eq => f.ops.push("=".into()),
                _ => {}
            }
        }
        f
    }

    fn kw(&self, k: &str) -> bool {
        self.keywords.iter().any(|x| x == k)
    }

    fn ident(&self, name: &str) -> bool {
        let n = name.to_lowercase();
        self.idents.contains(&n)
    }

    fn literal_has(&self, v: &str) -> bool {
        let v = v.to_lowercase();
        self.literals.iter().any(|l| l.contains(&v))
    }

    /// A word the planner did not map appears in a literal or an identifier.
    fn names(&self, word: &str) -> bool {
        let w = singular(&word.to_lowercase());
        if w.len() < 2 {
            return false;
        }
        let squash = |s: &str| s.replace(['_', '-', ' '], "");
        self.literals.iter().any(|l| l.contains(&w) || squash(l).contains(&w))
            || self.idents.iter().any(|i| i.split(['_', '.']).any(|p| singular(p) == w) || squash(i).contains(&w))
            || word.parse::<f64>().is_ok_and(|n| self.numbers.contains(&n))
    }

    fn negates(&self) -> bool {
        self.kw("not") || self.ops.iter().any(|o| o == "<>") || self.kw("false") || (self.kw("is") && self.kw("null")) || self.numbers.contains(&0.0)
    }
}

/// Is the mapped phrase's role reflected in the statement?
fn reflects(f: &Facts, role: &str) -> bool {
    let column = |s: &str| s.split_whitespace().next().and_then(|c| c.split_once('.')).map(|(t, c)| (t.trim_start_matches('(').to_string(), c.trim_end_matches(')').to_string()));
    if let Some(rest) = role.strip_prefix("table ") {
        return f.ident(rest.split(' ').next().unwrap_or(""));
    }
    if let Some(rest) = role.strip_prefix("relation ") {
        return rest.split(" – ").all(|t| f.ident(t));
    }
    for (prefix, kw) in [("group by ", "group"), ("order by ", "order"), ("show ", "select")] {
        if let Some(rest) = role.strip_prefix(prefix) {
            return f.kw(kw) && column(rest).is_none_or(|(_, c)| f.ident(&c));
        }
    }
    // The key of two to one table a word picked ("currently" → `current_address_id`).
    if let Some(rest) = role.strip_prefix("join by ") {
        return column(rest).is_some_and(|(_, c)| f.ident(&c)) || f.ident(rest);
    }
    // A flag said to be either value ("refunded ones included"): nothing to find.
    if role.ends_with(": either value") {
        return true;
    }
    if let Some(rest) = role.strip_prefix("limit ") {
        return f.kw("limit") && rest.parse::<f64>().is_ok_and(|n| f.numbers.contains(&n));
    }
    if let Some(rest) = role.strip_prefix("aggregate ") {
        return f.kw(&rest.to_ascii_lowercase());
    }
    if let Some(op) = role.strip_prefix("operator ") {
        return if op == "between" { f.kw("between") || (f.ops.iter().any(|o| o == ">=") && f.ops.iter().any(|o| o == "<=")) } else { f.ops.iter().any(|o| o == op) };
    }
    match role {
        "negation" | "negation (any)" => return f.negates(),
        "ordering" => return f.kw("order"),
        "distinct" => return f.kw("distinct"),
        "group by time" => return f.kw("group"),
        "measure" | "domain" => return true,
        // A verb between two things the statement relates: it joins, or reads a sub-query.
        "relation" => return f.kw("join") || f.keywords.iter().filter(|k| *k == "select").count() > 1,
        _ => {}
    }
    // Aggregates over a column: "SUM(t.c)", "COUNT(DISTINCT t.c)".
    if let Some((func, inner)) = role.split_once('(') {
        let func = func.to_ascii_lowercase();
        let inner = inner.trim_start_matches("DISTINCT ").trim_end_matches(')');
        return f.kw(&func) && column(inner).is_none_or(|(_, c)| f.ident(&c));
    }
    // Conditions: "t.c = 'v'", "t.c <> 'v'", "t.c = true", "t.c IS NULL", "t.c > 50",
    // "t.c in 2024", "t.c in [2024-03-01, 2024-04-01)".
    let Some((_, c)) = column(role) else { return false };
    if !f.ident(&c) {
        return false;
    }
    if let Some((_, v)) = role.split_once('\'') {
        let values: Vec<&str> = v.trim_end_matches('\'').split("' | '").collect();
        let negated = role.contains(" <> ");
        return values.iter().any(|v| f.literal_has(v)) && (!negated || f.negates());
    }
    if role.contains(" IS NULL") {
        return f.kw("null");
    }
    if let Some(y) = role.split(" in ").nth(1) {
        let first = y.trim_start_matches('[').split([',', ')']).next().unwrap_or("").trim();
        let year = first.get(..4).unwrap_or(first);
        return f.literals.iter().any(|l| l.contains(year)) || f.numbers.iter().any(|n| n.to_string() == year);
    }
    true
}

/// Coverage of the question by `sql`, from the plan's ledger of the same question.
pub fn sql_coverage(plan_coverage: &Coverage, sql: &str, dialect: Dialect) -> (Coverage, f64) {
    let f = Facts::new(sql, dialect);
    let content = |phrase: &str| phrase.split(' ').filter(|w| !is_function_word(w)).count();
    let (mut mapped, mut unmapped) = (Vec::new(), Vec::new());
    let (mut n_mapped, mut n_unmapped) = (0usize, 0usize);
    for m in &plan_coverage.mapped {
        let n = content(&m.phrase);
        if reflects(&f, &m.role) {
            n_mapped += n;
            mapped.push(m.clone());
        } else if n > 0 {
            n_unmapped += n;
            unmapped.extend(m.phrase.split(' ').filter(|w| !is_function_word(w)).map(str::to_string));
        }
    }
    for w in &plan_coverage.unmapped {
        if f.names(w) {
            n_mapped += 1;
            mapped.push(Mapped { phrase: w.clone(), role: "named in the SQL".into() });
        } else {
            n_unmapped += 1;
            unmapped.push(w.clone());
        }
    }
    let ratio = if n_mapped + n_unmapped == 0 { 1.0 } else { n_mapped as f64 / (n_mapped + n_unmapped) as f64 };
    let confidence = Coverage::confidence(n_mapped, n_unmapped, &[]);
    (Coverage { mapped, unmapped, ratio: (ratio * 1000.0).round() / 1000.0, penalties: Vec::new() }, confidence)
}

/// The table a coverage role is about: "table loans …", "loans.genre = 'x'", "group by
/// branches.name", "SUM(loans.late_fee)", "show t.c".
pub(super) fn role_table(role: &str) -> Option<&str> {
    if let Some(rest) = role.strip_prefix("table ") {
        return rest.split(' ').next();
    }
    if let Some(rest) = role.strip_prefix("show ").or_else(|| role.strip_prefix("group by ")) {
        return Some(rest.split(['.', ' ']).next().unwrap_or(rest));
    }
    let token = role.split([' ', '(']).find(|t| t.contains('.') && !t.starts_with(|c: char| c.is_ascii_digit() || c == '\'' || c == '['))?;
    token.split_once('.').map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan;
    use crate::schema::tests::audit_context;

    #[test]
    fn sql_that_drops_a_condition_covers_less() {
        let ctx = audit_context();
        let o = plan(&ctx, "How many critical findings in closed audits?", &[], None);
        assert_eq!(o.confidence, 1.0, "{:?}", o.coverage);
        let (_, full) = sql_coverage(&o.coverage, "SELECT COUNT(*) FROM findings JOIN audits ON findings.audit_id = audits.id WHERE findings.severity = 'Critical' AND audits.status = 'Closed'", Dialect::Sqlite);
        assert_eq!(full, 1.0);
        let (c, partial) = sql_coverage(&o.coverage, "SELECT COUNT(*) FROM findings WHERE severity = 'Critical'", Dialect::Sqlite);
        assert!(partial < 0.8, "{c:?}");
        assert!(c.unmapped.contains(&"closed".to_string()), "{c:?}");
        // A word the planner could not map is covered when the SQL names it.
        let o = plan(&ctx, "How many audits did maya rossi lead?", &[], None);
        assert!(o.confidence < 0.8, "{:?}", o.coverage);
        let (c, conf) = sql_coverage(&o.coverage, "SELECT COUNT(*) FROM audits JOIN auditors ON audits.lead_auditor_id = auditors.id WHERE auditors.full_name = 'maya rossi'", Dialect::Sqlite);
        assert_eq!(conf, 1.0, "{c:?}");
        // A key a word picked is reflected only by a statement that joins on it.
        let m = Coverage { mapped: vec![Mapped { phrase: "home".into(), role: "join by people.home_town_id".into() }], unmapped: Vec::new(), ratio: 1.0, penalties: Vec::new() };
        assert_eq!(sql_coverage(&m, "SELECT COUNT(*) FROM people JOIN towns ON people.home_town_id = towns.town_id", Dialect::Sqlite).1, 1.0);
        assert!(sql_coverage(&m, "SELECT COUNT(*) FROM people JOIN towns ON people.birth_town_id = towns.town_id", Dialect::Sqlite).1 < 0.8);
    }
}
