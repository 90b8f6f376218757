//! Token-level analysis shared by `validate` and `sanitize`: one pass over the tokens with a bracket
//! stack, giving every identifier a role (keyword, label, property key, map key, function or
//! procedure name) and collecting the facts the rules need.
//!
//! There is no full parser on purpose: the checks only need to know which words are live keywords
//! and what the innermost open bracket is, and a small pass is easy to keep total (it never panics and
//! always finishes) on arbitrary input. Where context is ambiguous it errs towards rejection.

use std::collections::BTreeSet;

use super::lexer::{Token, TokKind, integer_value, lex};
use super::{Policy, Reason, ReasonKind};

/// Clauses that change data, or batch/load data: always rejected.
const WRITE_KEYWORDS: [&str; 12] =
    ["CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "FOREACH", "LOAD", "INSERT", "TRANSACTIONS", "PERIODIC", "COMMIT"];

/// Administration, schema and session commands, and EXPLAIN/PROFILE (qa does not run plans).
const ADMIN_KEYWORDS: [&str; 20] = [
    "DROP", "ALTER", "GRANT", "REVOKE", "DENY", "RENAME", "SHOW", "USE", "START", "STOP", "TERMINATE", "ENABLE",
    "DISABLE", "SUSPEND", "REALLOCATE", "DEALLOCATE", "CONSTRAINT", "INDEX", "EXPLAIN", "PROFILE",
];

/// Words after which `(` opens a pattern or a parenthesised expression rather than call arguments.
const PATTERN_KEYWORDS: [&str; 11] = ["MATCH", "MERGE", "CREATE", "WHERE", "AND", "OR", "XOR", "NOT", "WITH", "RETURN", "IN"];

/// Read-only procedures `CALL` may name (lower case), besides `Policy::extra_procedures`.
pub const ALLOWED_PROCEDURES: [&str; 8] = [
    "db.labels",
    "db.relationshiptypes",
    "db.propertykeys",
    "db.index.fulltext.querynodes",
    "db.index.fulltext.queryrelationships",
    "db.schema.nodetypeproperties",
    "db.schema.reltypeproperties",
    "db.schema.visualization",
];

/// Procedures whose output is bounded by the schema: a standalone `CALL db.labels()` needs no LIMIT
/// (standalone calls cannot take one).
pub const INTROSPECTION_PROCEDURES: [&str; 6] = [
    "db.labels",
    "db.relationshiptypes",
    "db.propertykeys",
    "db.schema.nodetypeproperties",
    "db.schema.reltypeproperties",
    "db.schema.visualization",
];

/// Namespaced functions allowed outside CALL (lower case). Kept to built-in, side-effect-free Neo4j
/// functions; plugin namespaces (`apoc.*`, `gds.*`, user functions) are refused because some of them
/// run arbitrary Cypher (`apoc.cypher.runFirstColumn`) or write (`apoc.create.*`).
pub const ALLOWED_FUNCTIONS: [&str; 8] = [
    "point.distance",
    "point.withinbbox",
    "vector.similarity.cosine",
    "vector.similarity.euclidean",
    "duration.between",
    "duration.inmonths",
    "duration.indays",
    "duration.inseconds",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Not decided by context: may be a keyword, variable, function name…
    Free,
    /// After `.`: `n.set` is a property, never a clause.
    PropertyKey,
    /// A key in a map literal `{create: 1}`.
    MapKey,
    /// A label or relationship type name in a label expression.
    LabelName,
    /// `|`, `&`, `!`, `%` or an old-style `|:` colon inside a label expression.
    LabelOp,
    /// A parenthesis grouping a label expression `:(A|B)`.
    LabelParen,
    /// Part of a namespaced function name `apoc.text.join`.
    FuncName,
    /// Part of a procedure name after CALL.
    ProcName,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `(`; `call` when it follows a name (a function call's arguments, not a node pattern).
    Paren { call: bool },
    LabelParen,
    /// `CALL (x) { … }`: the variable-scope parenthesis of a subquery.
    CallScope,
    /// `[` not opening a relationship pattern: list, comprehension, index.
    List,
    /// `[` directly after `-` or `<-`: a relationship pattern.
    Rel,
    /// `{` of a map literal; `pattern` when it holds the properties of a node or relationship pattern.
    Map { pattern: bool },
    /// `{` of `CALL {}`, `EXISTS {}`, `COUNT {}`, `COLLECT {}`.
    Subquery,
}

/// One label expression: `:Concept`, `:A|B`, `:!A&B`, `[:R1|:R2]`.
#[derive(Debug, Clone)]
pub struct LabelExpr {
    /// Token index of the `:`.
    pub colon: usize,
    /// Token indices of the label / type names.
    pub names: Vec<usize>,
    /// Relationship types (inside a relationship pattern, or a predicate on a relationship variable).
    pub rel: bool,
    /// The `[` token when this is the type filter of a relationship pattern (`[r:T…`, `[:T…`).
    pub filter_of: Option<usize>,
    /// Only names separated by `|` (or `|:`): what sanitize knows how to edit.
    pub simple: bool,
}

/// A query part: the whole statement, or one side of a top-level UNION.
#[derive(Debug, Clone, Default)]
pub struct Part {
    /// Token range `[start, end)`; excludes the UNION keyword(s) and a trailing `;`.
    pub start: usize,
    pub end: usize,
    /// Top-level (bracket depth 0) RETURN and LIMIT tokens of the part.
    pub returns: Vec<usize>,
    pub limits: Vec<usize>,
    /// Procedures called at top level.
    pub procedures: Vec<String>,
    /// The UNION token before this part, if any.
    pub union: Option<usize>,
}

#[derive(Debug, Default)]
pub struct Facts {
    pub tokens: Vec<Token>,
    pub roles: Vec<Role>,
    /// Reasons found so far, with the byte offset they are about (for ordering).
    pub issues: Vec<(usize, Reason)>,
    /// The lexer reported nothing.
    pub lex_clean: bool,
    /// Brackets matched.
    pub balanced: bool,
    /// Index of the matching closer for each opening bracket token.
    pub close_of: Vec<Option<usize>>,
    pub label_exprs: Vec<LabelExpr>,
    /// Lower-case dotted names of all procedures called, in order (with repeats).
    pub procedures: Vec<String>,
    /// Tokens naming a property read: `n.key`, `{.key}` projections, keys of pattern maps.
    pub property_keys: Vec<usize>,
    pub parts: Vec<Part>,
    /// A write or admin keyword was seen (makes "no RETURN" redundant to report).
    pub has_write_or_admin: bool,
}

struct Analyzer<'p> {
    policy: &'p Policy,
    f: Facts,
    stack: Vec<(Frame, usize)>,
    rel_vars: BTreeSet<String>,
    /// `{` that must open a subquery (after CALL), `(` that opens a CALL scope.
    pending_subquery: Option<usize>,
    pending_call_scope: Option<usize>,
    /// Index of the `)` that closed the last CALL scope: a `{` right after it is a subquery.
    call_scope_closed: Option<usize>,
    /// First `;`: the statement ends there.
    statement_end: Option<usize>,
    multi_reported: bool,
    current: Part,
}

pub fn analyze(src: &str, policy: &Policy) -> Facts {
    let lexed = lex(src);
    let n = lexed.tokens.len();
    let mut f = Facts {
        lex_clean: lexed.errors.is_empty(),
        balanced: true,
        roles: vec![Role::Free; n],
        close_of: vec![None; n],
        ..Facts::default()
    };
    for e in lexed.errors {
        f.issues.push((e.offset, Reason { kind: e.kind, message: e.message }));
    }
    f.tokens = lexed.tokens;
    let mut a = Analyzer {
        policy,
        f,
        stack: Vec::new(),
        rel_vars: BTreeSet::new(),
        pending_subquery: None,
        pending_call_scope: None,
        call_scope_closed: None,
        statement_end: None,
        multi_reported: false,
        current: Part::default(),
    };
    for i in 0..n {
        a.step(i);
    }
    a.finish();
    a.f
}

impl Analyzer<'_> {
    fn t(&self, i: usize) -> Option<&Token> {
        self.f.tokens.get(i)
    }
    fn punct_at(&self, i: usize, p: &str) -> bool {
        self.t(i).is_some_and(|t| t.is_punct(p))
    }
    fn prev(&self, i: usize) -> Option<&Token> {
        i.checked_sub(1).and_then(|j| self.t(j))
    }
    fn issue(&mut self, i: usize, kind: ReasonKind, message: String) {
        let offset = self.t(i).map_or(0, |t| t.start);
        self.f.issues.push((offset, Reason { kind, message }));
    }
    fn innermost(&self) -> Option<(Frame, usize)> {
        self.stack.iter().rev().find(|(f, _)| *f != Frame::LabelParen).copied()
    }

    /// The word at `i` is used as a variable, not as a keyword: `(start:Concept)`, `start.name`,
    /// `{create: 1}`, `-[set]-`. Every clause keyword needs something after it that is none of these
    /// tokens, and no clause starts right after `(` or `[`, so this cannot hide a live clause.
    /// Aliases are *not* exempt (`RETURN x AS set LIMIT 5` is rejected): a preceding `AS` proves
    /// nothing, as in `MATCH (as) WITH as CREATE (n)` the word `as` is a variable and CREATE is live.
    fn variable_use(&self, i: usize) -> bool {
        let next = self.t(i + 1);
        let next_is = |ps: &[&str]| next.is_some_and(|t| t.kind == TokKind::Punct && ps.contains(&t.text.as_str()));
        if next_is(&[".", ":", ")", "]", "}", ",", "="]) {
            return true;
        }
        let prev = self.prev(i);
        let rel_var = prev.is_some_and(|p| p.is_punct("["))
            && i >= 2
            && (self.f.tokens[i - 2].is_punct("-") || self.f.tokens[i - 2].is_punct("<-"));
        rel_var || (prev.is_some_and(|p| p.is_punct("(") || p.is_punct("[")) && next_is(&["{"]))
    }

    /// The token at `i` is a live keyword candidate: an unquoted word with no other role.
    fn keyword_like(&self, i: usize) -> bool {
        let Some(t) = self.t(i) else { return false };
        if t.kind != TokKind::Ident || self.f.roles.get(i) != Some(&Role::Free) {
            return false;
        }
        // These can end a clause (`… IN TRANSACTIONS }`, `USING PERIODIC COMMIT`), so a closing
        // bracket or comma after them proves nothing; only `:` (map key) or `.` (variable) does.
        if ["TRANSACTIONS", "PERIODIC", "COMMIT"].iter().any(|k| t.is_word(k)) {
            return !(self.punct_at(i + 1, ":") || self.punct_at(i + 1, "."));
        }
        !self.variable_use(i)
    }

    fn step(&mut self, i: usize) {
        let tok = self.f.tokens[i].clone();
        match tok.kind {
            TokKind::Punct => self.punct(i, &tok),
            TokKind::Ident | TokKind::QuotedIdent => {
                if self.f.roles[i] == Role::Free && !self.prev(i).is_some_and(|p| p.is_punct(".")) {
                    self.function_call(i);
                }
                if self.keyword_like(i) {
                    self.keyword(i, &tok);
                }
            }
            _ => {}
        }
    }

    fn punct(&mut self, i: usize, tok: &Token) {
        match tok.text.as_str() {
            "(" => {
                let frame = if self.f.roles[i] == Role::LabelParen {
                    Frame::LabelParen
                } else if self.pending_call_scope == Some(i) {
                    Frame::CallScope
                } else {
                    let call = self.prev(i).is_some_and(|p| {
                        p.is_name() && !PATTERN_KEYWORDS.iter().any(|k| p.is_word(k))
                    });
                    Frame::Paren { call }
                };
                self.stack.push((frame, i));
            }
            "[" => {
                let rel = self.prev(i).is_some_and(|p| p.is_punct("-") || p.is_punct("<-"));
                if rel && let Some(v) = self.t(i + 1).filter(|t| t.is_name()) {
                    self.rel_vars.insert(v.text.clone());
                }
                self.stack.push((if rel { Frame::Rel } else { Frame::List }, i));
            }
            "{" => {
                let after_keyword = self.prev(i).is_some_and(|p| ["EXISTS", "COUNT", "COLLECT"].iter().any(|k| p.is_word(k)))
                    && self.keyword_like(i - 1);
                let frame = if self.pending_subquery == Some(i) || after_keyword || (i > 0 && self.call_scope_closed == Some(i - 1)) {
                    Frame::Subquery
                } else {
                    Frame::Map { pattern: self.pattern_map(i) }
                };
                self.stack.push((frame, i));
            }
            ")" | "]" | "}" => self.close(i, tok),
            ":" if self.f.roles[i] == Role::Free => {
                if self.map_key_separator(i) {
                    self.f.roles[i - 1] = Role::MapKey;
                    if matches!(self.innermost(), Some((Frame::Map { pattern: true }, _))) {
                        self.f.property_keys.push(i - 1);
                    }
                } else {
                    self.label_expression(i);
                }
            }
            "." => self.dot(i),
            ";" => {
                if self.statement_end.is_none() {
                    self.statement_end = Some(i);
                }
                if i + 1 < self.f.tokens.len() && !self.multi_reported {
                    self.multi_reported = true;
                    self.issue(i, ReasonKind::MultipleStatements, format!("more than one statement: text follows ; at {}", tok.pos()));
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, i: usize, tok: &Token) {
        let want = match tok.text.as_str() {
            ")" => "(",
            "]" => "[",
            _ => "{",
        };
        let Some((frame, open)) = self.stack.pop() else {
            self.f.balanced = false;
            self.issue(i, ReasonKind::Syntax, format!("unmatched {} at {}", tok.text, tok.pos()));
            return;
        };
        let opener = &self.f.tokens[open];
        if opener.text != want {
            self.f.balanced = false;
            let message = format!("mismatched {} at {} (closes {} from {})", tok.text, tok.pos(), opener.text, opener.pos());
            self.issue(i, ReasonKind::Syntax, message);
        }
        self.f.close_of[open] = Some(i);
        if frame == Frame::CallScope {
            self.call_scope_closed = Some(i);
        }
    }

    /// A `{` holding the properties of a node or relationship pattern: `(n {id: 1})`,
    /// `(:Concept {id: 1})`, `[r:T {w: 1}]`.
    fn pattern_map(&self, i: usize) -> bool {
        match self.innermost() {
            Some((Frame::Rel, _)) => true,
            Some((Frame::Paren { call: false }, open)) => {
                let prev = i.checked_sub(1);
                prev == Some(open)
                    || prev.is_some_and(|p| self.f.roles[p] == Role::LabelName || self.f.tokens[p].is_punct(")"))
                    || (prev == Some(open + 1) && self.f.tokens[open + 1].is_name())
            }
            _ => false,
        }
    }

    /// `key:` directly inside a map literal, right after `{` or `,`.
    fn map_key_separator(&self, i: usize) -> bool {
        matches!(self.innermost(), Some((Frame::Map { .. }, _)))
            && i >= 2
            && self.f.tokens[i - 1].is_name()
            && (self.f.tokens[i - 2].is_punct("{") || self.f.tokens[i - 2].is_punct(","))
    }

    /// After `.`: the next name is a property key when `.` follows something a property can be read
    /// from (a variable, `)`, `]`, `}`, a parameter) or starts a map projection item `{.id, .name}`.
    /// After a number or string it is not (`RETURN 1. CREATE (n)`): some lexers read `1.` as a float,
    /// which would make the CREATE live, so the word keeps its keyword meaning here.
    fn dot(&mut self, i: usize) {
        if !self.t(i + 1).is_some_and(|t| t.is_name()) || self.f.roles[i + 1] != Role::Free {
            return;
        }
        let Some(prev) = self.prev(i) else { return };
        let from_value = matches!(prev.kind, TokKind::Ident | TokKind::QuotedIdent | TokKind::Param)
            || prev.is_punct(")")
            || prev.is_punct("]")
            || prev.is_punct("}");
        let projection = (prev.is_punct("{") || prev.is_punct(",")) && matches!(self.innermost(), Some((Frame::Map { .. }, _)));
        if from_value || projection {
            self.f.roles[i + 1] = Role::PropertyKey;
            self.f.property_keys.push(i + 1);
        }
    }

    /// `ns.fn(`: a namespaced (user-defined or plugin) function call outside CALL.
    fn function_call(&mut self, i: usize) {
        let mut j = i;
        while self.punct_at(j + 1, ".") && self.t(j + 2).is_some_and(|t| t.is_name()) {
            j += 2;
        }
        if j == i || !self.punct_at(j + 1, "(") {
            return;
        }
        let name = (i..=j).step_by(2).map(|k| self.f.tokens[k].text.to_ascii_lowercase()).collect::<Vec<_>>().join(".");
        for k in (i..=j).step_by(2) {
            self.f.roles[k] = Role::FuncName;
        }
        if !ALLOWED_FUNCTIONS.contains(&name.as_str()) {
            let pos = self.f.tokens[i].pos();
            let why = if name.starts_with("apoc.") {
                "APOC functions can run arbitrary Cypher or write"
            } else {
                "only built-in read-only functions may be called"
            };
            self.issue(i, ReasonKind::Function, format!("namespaced function {name} at {pos} is not allowed ({why})"));
        }
    }

    fn keyword(&mut self, i: usize, tok: &Token) {
        let kw = tok.text.to_ascii_uppercase();
        let pos = tok.pos();
        let top_level = self.stack.is_empty() && self.statement_end.is_none();
        match kw.as_str() {
            "CALL" => self.call(i),
            "RETURN" if top_level => self.current.returns.push(i),
            "LIMIT" if top_level => self.current.limits.push(i),
            "UNION" if top_level => {
                let mut part = std::mem::take(&mut self.current);
                part.end = i;
                self.f.parts.push(part);
                let skip = self.t(i + 1).is_some_and(|t| t.is_word("ALL") || t.is_word("DISTINCT"));
                self.current = Part { start: i + 1 + usize::from(skip), union: Some(i), ..Part::default() };
            }
            k if WRITE_KEYWORDS.contains(&k) => {
                let shown = match k {
                    "LOAD" => "LOAD CSV",
                    "TRANSACTIONS" => "IN TRANSACTIONS",
                    "PERIODIC" => "USING PERIODIC COMMIT",
                    // Part of USING PERIODIC COMMIT, already reported.
                    "COMMIT" if self.prev(i).is_some_and(|p| p.is_word("PERIODIC")) => return,
                    _ => k,
                };
                self.f.has_write_or_admin = true;
                self.issue(i, ReasonKind::WriteClause, format!("write clause {shown} at {pos}"));
            }
            k if ADMIN_KEYWORDS.contains(&k) => {
                // `USING INDEX n:L(p)` is a read-only planner hint, not a command.
                if k == "INDEX" && self.prev(i).is_some_and(|p| p.is_word("USING")) {
                    return;
                }
                self.f.has_write_or_admin = true;
                let message = if k == "EXPLAIN" || k == "PROFILE" {
                    format!("{k} at {pos}: qa does not run query plans")
                } else {
                    format!("admin/schema command {k} at {pos}")
                };
                self.issue(i, ReasonKind::AdminCommand, message);
            }
            _ => {}
        }
    }

    fn call(&mut self, i: usize) {
        let Some(next) = self.t(i + 1).cloned() else {
            self.issue(i, ReasonKind::Syntax, format!("CALL at {} without a procedure", self.f.tokens[i].pos()));
            return;
        };
        if next.is_punct("{") {
            self.pending_subquery = Some(i + 1);
            return;
        }
        if next.is_punct("(") {
            self.pending_call_scope = Some(i + 1);
            return;
        }
        if !next.is_name() {
            let message = format!("CALL at {} must be followed by a procedure name or a {{ subquery }}", self.f.tokens[i].pos());
            self.issue(i, ReasonKind::Syntax, message);
            return;
        }
        let mut j = i + 1;
        self.f.roles[j] = Role::ProcName;
        while self.punct_at(j + 1, ".") && self.t(j + 2).is_some_and(|t| t.is_name()) {
            j += 2;
            self.f.roles[j] = Role::ProcName;
        }
        let name = (i + 1..=j).step_by(2).map(|k| self.f.tokens[k].text.to_ascii_lowercase()).collect::<Vec<_>>().join(".");
        if self.stack.is_empty() && self.statement_end.is_none() {
            self.current.procedures.push(name.clone());
        }
        self.f.procedures.push(name.clone());
        let allowed = ALLOWED_PROCEDURES.contains(&name.as_str())
            || self.policy.extra_procedures.iter().any(|p| p.eq_ignore_ascii_case(&name));
        if !allowed {
            let pos = self.f.tokens[i + 1].pos();
            let why = if name.starts_with("apoc.") {
                "APOC procedures can write, load files and run arbitrary Cypher"
            } else if name.starts_with("dbms.") {
                "dbms.* procedures administer the server"
            } else if name.starts_with("db.create") {
                "db.create* procedures change the schema"
            } else {
                "it is not in the read-only allow-list"
            };
            self.issue(i + 1, ReasonKind::Procedure, format!("procedure {name} at {pos} is not allowed: {why}"));
        }
    }

    /// A `:` that starts a label expression. Marks the names and operators it spans so the main
    /// pass does not read them as keywords, and records whether they are labels or relationship types.
    fn label_expression(&mut self, colon: usize) {
        let innermost = self.innermost();
        let prev_rel_var = self.prev(colon).is_some_and(|p| p.is_name() && self.rel_vars.contains(&p.text));
        let rel = matches!(innermost, Some((Frame::Rel, _))) || prev_rel_var;
        let filter_of = match innermost {
            Some((Frame::Rel, open)) if colon == open + 1 || (colon == open + 2 && self.f.tokens[open + 1].is_name()) => Some(open),
            _ => None,
        };
        // In a list or pattern comprehension a `|` at depth 0 separates the projection.
        let in_list = matches!(innermost, Some((Frame::List, _)));
        let mut expr = LabelExpr { colon, names: Vec::new(), rel, filter_of, simple: true };
        let mut j = colon + 1;
        let mut depth = 0usize;
        loop {
            while self.punct_at(j, "!") {
                self.f.roles[j] = Role::LabelOp;
                expr.simple = false;
                j += 1;
            }
            if self.punct_at(j, "(") {
                self.f.roles[j] = Role::LabelParen;
                expr.simple = false;
                depth += 1;
                j += 1;
                continue;
            }
            match self.t(j) {
                Some(t) if t.is_punct("%") => {
                    self.f.roles[j] = Role::LabelOp;
                    expr.simple = false;
                }
                Some(t) if t.is_name() => {
                    self.f.roles[j] = Role::LabelName;
                    expr.names.push(j);
                }
                Some(t) if t.kind == TokKind::Param => {
                    let message = format!("dynamic label or type at {}: only literal names can be checked", t.pos());
                    self.issue(j, ReasonKind::Syntax, message);
                    break;
                }
                _ => break,
            }
            j += 1;
            while depth > 0 && self.punct_at(j, ")") {
                self.f.roles[j] = Role::LabelParen;
                depth -= 1;
                j += 1;
            }
            let or = self.punct_at(j, "|");
            if !(or || self.punct_at(j, "&")) || (or && in_list && depth == 0) {
                break;
            }
            // What follows the operator must look like a label, not an expression (`| x.name`).
            let k = if or && self.punct_at(j + 1, ":") { j + 2 } else { j + 1 };
            let continues = match self.t(k) {
                Some(t) if t.is_punct("!") || t.is_punct("(") || t.is_punct("%") => true,
                Some(t) if t.is_name() => !(self.punct_at(k + 1, ".") || self.punct_at(k + 1, "(")),
                _ => false,
            };
            if !continues {
                break;
            }
            expr.simple &= or;
            for r in j..k {
                self.f.roles[r] = Role::LabelOp;
            }
            j = k;
        }
        self.f.label_exprs.push(expr);
    }

    fn finish(&mut self) {
        let n = self.f.tokens.len();
        let mut part = std::mem::take(&mut self.current);
        part.end = self.statement_end.unwrap_or(n).max(part.start.min(n));
        self.f.parts.push(part);
        for &(_, open) in self.stack.iter().rev().take(3) {
            let t = &self.f.tokens[open];
            let message = format!("unclosed {} opened at {}", t.text, t.pos());
            self.f.issues.push((t.start, Reason { kind: ReasonKind::Syntax, message }));
        }
        if !self.stack.is_empty() {
            self.f.balanced = false;
        }
    }
}

/// What the LIMIT rule found for one query part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitFinding {
    /// A literal LIMIT within the cap (token index of the number).
    Ok { part: usize, value: u64 },
    /// No LIMIT after the final RETURN: sanitize inserts one after token `after`.
    Missing { part: usize, after: usize },
    /// A literal larger than the cap (`None` when it overflows u64) at token `number`.
    TooLarge { part: usize, number: usize, value: Option<u64> },
    /// LIMIT with a parameter or expression (or nothing) at token `limit`.
    NotLiteral { part: usize, limit: usize },
    /// A part that returns nothing and is not a standalone schema procedure call.
    NoReturn { part: usize },
}

/// Apply the LIMIT rule to every part: the last top-level LIMIT after the part's final top-level
/// RETURN must be an integer literal ≤ `cap`. Parts without RETURN must be standalone calls of
/// schema procedures (any LIMIT they carry is still checked).
pub fn limit_findings(f: &Facts, cap: u64) -> Vec<LimitFinding> {
    let mut out = Vec::new();
    for (p, part) in f.parts.iter().enumerate() {
        let classify = |l: usize| -> LimitFinding {
            let number = l + 1;
            let literal = f.tokens.get(number).filter(|t| number < part.end && t.kind == TokKind::Number);
            let ends = number + 1 >= part.end || f.tokens.get(number + 1).is_some_and(|t| t.kind == TokKind::Ident);
            match literal.and_then(|t| integer_value(&t.text)) {
                Some(Some(v)) if ends && v <= cap => LimitFinding::Ok { part: p, value: v },
                Some(value) if ends => LimitFinding::TooLarge { part: p, number, value },
                _ => LimitFinding::NotLiteral { part: p, limit: l },
            }
        };
        match part.returns.last() {
            Some(&ret) => match part.limits.iter().rev().find(|&&l| l > ret) {
                Some(&l) => out.push(classify(l)),
                None => out.push(LimitFinding::Missing { part: p, after: part.end.saturating_sub(1) }),
            },
            None => {
                let standalone = !part.procedures.is_empty()
                    && part.procedures.iter().all(|name| INTROSPECTION_PROCEDURES.contains(&name.as_str()));
                if !standalone {
                    out.push(LimitFinding::NoReturn { part: p });
                }
                out.extend(part.limits.iter().map(|&l| classify(l)).filter(|x| !matches!(x, LimitFinding::Ok { .. })));
            }
        }
    }
    out
}
