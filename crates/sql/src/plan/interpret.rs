//! The interpreter's state and its first passes: qualifiers, signal words, the subject table,
//! value filters, yes/no and optional columns; and the last one (`finish`): joins, coverage,
//! confidence.

use super::super::schema::{SchemaContext, Term};
use super::super::ColumnKind;
use super::matching::{match_terms, term_table, Match, MatchOptions};
use super::question::Question;
use super::signals::{Signals, AGENTIVE};
use super::{clarifying_text, fix, matches_json, same_phrase, Aggregate, Ambiguity, AmbiguityKind, Choice, Clarification, ColRef, Filter, GroupKey, Plan, PlanOutcome, AMBIGUITY_THRESHOLD};

/// Words that negate the condition after them.
pub(super) const NEGATIONS: &[&str] = &[
    "not", "no", "never", "without", "non", "except", "excluding", "neither", "nor", "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't",
    "haven't", "hasn't", "hadn't", "cannot", "can't", "won't", "lacking", "missing",
];


pub(super) struct Interp<'a> {
    pub ctx: &'a SchemaContext,
    pub q: Question,
    pub ms: Vec<Match>,
    pub clar: &'a [Clarification],
    /// Per match: consumed by some part of the plan.
    pub used: Vec<bool>,
    pub subject: String,
    pub filters: Vec<Filter>,
    pub group_by: Vec<GroupKey>,
    pub aggregate: Option<Aggregate>,
    pub order_by: Option<(Option<ColRef>, bool)>,
    pub limit: Option<usize>,
    pub select: Vec<ColRef>,
    pub penalties: Vec<(String, f64)>,
    pub ambiguity: Option<Ambiguity>,
    pub sig: Signals,
    /// "Today", for relative dates ("last year", "in the last 30 days").
    pub today: chrono::NaiveDate,
}

impl<'a> Interp<'a> {
    pub fn new(ctx: &'a SchemaContext, question: &str, clar: &'a [Clarification], today: chrono::NaiveDate) -> Interp<'a> {
        let q = Question::new(question);
        let ms = match_terms(ctx, &q, MatchOptions { loose: true });
        let used = vec![false; ms.len()];
        Interp {
            ctx,
            q,
            ms,
            clar,
            used,
            subject: String::new(),
            filters: Vec::new(),
            group_by: Vec::new(),
            aggregate: None,
            order_by: None,
            limit: None,
            select: Vec::new(),
            penalties: Vec::new(),
            ambiguity: None,
            sig: Signals::default(),
            today,
        }
    }

    pub fn column_info(&self, c: &ColRef) -> Option<&super::super::ColumnInfo> {
        self.ctx.table(&c.table)?.column(&c.column)
    }

    pub fn kind(&self, c: &ColRef) -> Option<ColumnKind> {
        self.column_info(c).map(|ci| ci.kind())
    }

    pub fn is_numeric(&self, c: &ColRef) -> bool {
        matches!(self.kind(c), Some(ColumnKind::Number | ColumnKind::Integer))
    }

    /// Consume match `mi` for `role` (its tokens become mapped).
    pub fn consume(&mut self, mi: usize, role: impl Into<String>) {
        self.used[mi] = true;
        let (s, e) = (self.ms[mi].start, self.ms[mi].end);
        self.q.mark(s..e, role);
    }

    /// The match starting at token `pos` (or one token later after "the"/"a").
    pub fn match_at(&self, pos: usize) -> Option<usize> {
        let direct = self.ms.iter().position(|m| m.start == pos);
        direct.or_else(|| matches!(self.q.word(pos), "the" | "a" | "an" | "each" | "every").then(|| self.ms.iter().position(|m| m.start == pos + 1)).flatten())
    }

    pub fn is_group_target(&self, mi: usize) -> bool {
        let m = &self.ms[mi];
        self.sig.group_at.iter().any(|&p| p == m.start || (p + 1 == m.start && matches!(self.q.word(p), "the" | "each" | "every")))
    }

    /// A column reading of match `mi`, preferring the subject, then the tables the question
    /// names, then exact names over name parts. None when the match has no column reading.
    pub fn pick_column(&self, mi: usize) -> Option<ColRef> {
        let m = &self.ms[mi];
        let cols: Vec<(&str, &str, &str)> = m.terms.iter().filter_map(|(t, s)| if let Term::Column { table, column } = t { Some((table.as_str(), column.as_str(), s.as_str())) } else { None }).collect();
        if cols.is_empty() {
            return None;
        }
        let named: Vec<String> = self.ms.iter().filter_map(|m| m.table().map(str::to_string)).collect();
        let rank = |(t, _, s): &(&str, &str, &str)| {
            let table_rank = if t.eq_ignore_ascii_case(&self.subject) { 0 } else if named.iter().any(|n| n.eq_ignore_ascii_case(t)) { 1 } else { 2 };
            (table_rank, usize::from(*s == "name-part" || *s == "fuzzy"))
        };
        let best = cols.iter().min_by_key(|c| rank(c))?;
        Some(ColRef::new(best.0, best.1))
    }

    /// A negation word just before token `start` (only function words between), unused.
    pub fn negation_before(&self, start: usize) -> Option<usize> {
        let mut j = start;
        for _ in 0..5 {
            j = j.checked_sub(1)?;
            let w = self.q.word(j);
            if super::interpret::NEGATIONS.contains(&w) && !self.q.is_mapped(j) {
                return Some(j);
            }
            if w == "than" && self.q.word(j.wrapping_sub(1)) == "other" {
                return Some(j);
            }
            if self.q.is_content(j) || self.q.is_mapped(j) {
                return None;
            }
        }
        None
    }

    fn resolved(&self, phrase: &str) -> Option<Term> {
        self.clar.iter().find(|c| same_phrase(&c.phrase, phrase)).and_then(|c| c.choice.clone())
    }

    /// "branch city" (a table word, then one of its columns) is that column; "poetry genre" /
    /// "genre poetry" (a value next to its column's name) is that value.
    pub fn merge_qualifiers(&mut self) {
        let mut i = 0;
        while i + 1 < self.ms.len() {
            let (a, b) = (&self.ms[i], &self.ms[i + 1]);
            if b.start != a.end {
                i += 1;
                continue;
            }
            let merged = if let Some(t) = a.table().filter(|_| !a.is_value()).map(str::to_string) {
                let col = b.terms.iter().find(|(x, _)| matches!(x, Term::Column { table, .. } if table.eq_ignore_ascii_case(&t))).cloned();
                col.filter(|_| !b.is_value()).map(|c| Match { start: a.start, end: b.end, phrase: format!("{} {}", a.phrase, b.phrase), terms: vec![c], negated: b.negated, fuzzy: b.fuzzy })
            } else {
                let qualifies = |v: &Match, c: &Match| {
                    v.values().any(|(t, _)| {
                        let Term::Value { table, column, .. } = t else { return false };
                        c.columns().any(|(ct, cc)| ct.eq_ignore_ascii_case(table) && cc.eq_ignore_ascii_case(column))
                    })
                };
                if a.is_value() && qualifies(a, b) {
                    Some(Match { end: b.end, phrase: format!("{} {}", a.phrase, b.phrase), ..a.clone() })
                } else if b.is_value() && qualifies(b, a) {
                    Some(Match { start: a.start, phrase: format!("{} {}", a.phrase, b.phrase), ..b.clone() })
                } else {
                    None
                }
            };
            match merged {
                Some(m) => {
                    self.ms[i] = m;
                    self.ms.remove(i + 1);
                    self.used.pop();
                }
                None => i += 1,
            }
        }
    }

    /// The subject table: the first table word that is not a grouping target; else the table
    /// of the measure; else the one table all terms belong to; else an earlier answer; else ask.
    pub fn choose_subject(&mut self) -> Result<(), Box<PlanOutcome>> {
        let from_tables = (0..self.ms.len()).find(|&i| self.ms[i].is_table() && !self.ms[i].is_value() && !self.is_group_target(i)).and_then(|i| self.ms[i].table().map(str::to_string));
        let measure = || {
            let (_, at) = self.sig.agg?;
            let mi = (0..self.ms.len()).filter(|&i| self.ms[i].start > at).find(|&i| self.pick_column(i).is_some_and(|c| self.is_numeric(&c)))?;
            self.pick_column(mi).map(|c| c.table)
        };
        let implied = || {
            let mut tables: Vec<String> = self.ms.iter().flat_map(|m| m.terms.iter().map(|(t, _)| term_table(t).to_string())).collect();
            tables.sort();
            tables.dedup();
            if tables.len() == 1 { tables.pop() } else { None }
        };
        let subject = from_tables.or_else(measure).or_else(|| self.resolved("").map(|t| term_table(&t).to_string())).or_else(implied);
        match subject {
            Some(s) => {
                self.subject = s;
                Ok(())
            }
            None => Err(Box::new(self.ask_table())),
        }
    }

    fn ask_table(&self) -> PlanOutcome {
        let mut options: Vec<Choice> = Vec::new();
        for m in &self.ms {
            for (t, _) in &m.terms {
                let table = term_table(t).to_string();
                if !options.iter().any(|o| term_table(&o.term) == table) {
                    options.push(Choice { label: table.clone(), term: Term::Table { table } });
                }
            }
        }
        if options.is_empty() {
            options = self.ctx.db.tables.iter().map(|t| Choice { label: t.name.clone(), term: Term::Table { table: t.name.clone() } }).collect();
        }
        let amb = Ambiguity { phrase: String::new(), options, score: 1.0, kind: AmbiguityKind::Reading };
        let q = clarifying_text(&amb, "Which table is the question about?");
        let (coverage, _) = self.q.coverage(Vec::new());
        PlanOutcome {
            intent: serde_json::json!({"matches": matches_json(&self.ms), "subject": null}),
            plan: None,
            confidence: 0.0,
            coverage,
            fixes: Vec::new(),
            ambiguity: Some(amb),
            clarifying_question: Some(q),
        }
    }

    /// Value filters: a value right before a table word binds to that table ("closed
    /// audits"); else to the subject; else an earlier answer; else the question is ambiguous.
    /// A negation before it ("not at the front desk") makes it `<>` / `NOT IN`.
    pub fn values(&mut self) {
        for mi in 0..self.ms.len() {
            if self.used[mi] || !self.ms[mi].is_value() {
                continue;
            }
            let m = self.ms[mi].clone();
            let next_table = self.ms.get(mi + 1).filter(|n| n.start == m.end).and_then(|n| n.table().map(str::to_string));
            let values: Vec<(&Term, &String)> = m.values().collect();
            let mut candidates: Vec<&Term> = values.iter().map(|(t, _)| *t).collect();
            // Aliases win over sample values for the same phrase.
            if candidates.len() > 1 && values.iter().any(|(_, s)| s.as_str() == "alias") {
                candidates = values.iter().filter(|(_, s)| s.as_str() == "alias").map(|(t, _)| *t).collect();
            }
            let of_subject: Vec<&&Term> = candidates.iter().filter(|c| term_table(c).eq_ignore_ascii_case(&self.subject)).collect();
            let chosen = if candidates.len() == 1 {
                Some(candidates[0].clone())
            } else if let Some(t) = next_table.as_ref().and_then(|nt| candidates.iter().find(|c| term_table(c).eq_ignore_ascii_case(nt))) {
                Some((*t).clone())
            } else if of_subject.len() == 1 {
                Some((**of_subject[0]).clone())
            } else if let Some(choice) = self.resolved(&m.phrase) {
                Some(choice)
            } else {
                if self.ambiguity.is_none() {
                    let options = candidates
                        .iter()
                        .map(|t| match t {
                            Term::Value { table, column, values } => Choice { label: format!("{table}.{column} = '{}'", values.join("' or '")), term: (*t).clone() },
                            other => Choice { label: term_table(other).to_string(), term: (*other).clone() },
                        })
                        .collect();
                    self.ambiguity = Some(Ambiguity { phrase: m.phrase.clone(), options, score: 1.0, kind: AmbiguityKind::Reading });
                }
                None
            };
            let Some(Term::Value { table, column, values }) = chosen else { continue };
            let col = ColRef::new(&table, &column);
            let neg = self.negation_before(m.start);
            // "not pending or shipped": a value listed after another of its column shares its
            // negation.
            let listed = m.start > 0 && matches!(self.q.word(m.start - 1), "or" | "and" | "nor");
            let earlier = self.filters.iter().find_map(|f| match f {
                Filter::In { col: c, negated, .. } if *c == col && listed => Some(*negated),
                _ => None,
            });
            let negated = earlier.unwrap_or(m.negated || neg.is_some());
            if let Some(j) = neg {
                self.q.mark(j..j + 1, "negation");
            }
            let op = if negated { "<>" } else { "=" };
            self.consume(mi, format!("{col} {op} '{}'", values.join("' | '")));
            if m.fuzzy {
                self.penalties.push((format!("\"{}\" read as '{}' (spelling)", m.phrase, values.join("', '")), 0.9));
            }
            // Two values of one column ("pending or shipped") are one IN list.
            let same = self.filters.iter_mut().find_map(|f| match f {
                Filter::In { col: c, values: v, negated: n, .. } if *c == col && *n == negated => Some(v),
                _ => None,
            });
            match same {
                Some(v) => v.extend(values.into_iter().filter(|x| !v.contains(x)).collect::<Vec<_>>()),
                None => self.filters.push(Filter::In { col, values, phrase: m.phrase.clone(), negated }),
            }
        }
    }

    /// Yes/no columns ("archived accounts", "not archived", "inactive") and optional columns
    /// ("with a discount code", "not returned").
    pub fn yes_no_and_optional(&mut self) {
        let asks_aggregate = self.sig.count || self.sig.agg.is_some();
        for mi in 0..self.ms.len() {
            if self.used[mi] || self.is_group_target(mi) || self.ms[mi].is_value() {
                continue;
            }
            let Some(col) = self.pick_column(mi) else { continue };
            let Some(info) = self.column_info(&col) else { continue };
            let (kind, nullable) = (info.kind(), info.nullable);
            let m = self.ms[mi].clone();
            let neg = self.negation_before(m.start);
            let negated = m.negated || neg.is_some();
            let before = |k: usize| m.start.checked_sub(k).map(|j| self.q.word(j).to_string()).unwrap_or_default();
            const WITH: &[&str] = &["with", "has", "have", "having", "had", "use", "used", "uses", "using"];
            let with = WITH.contains(&before(1).as_str()) || (matches!(before(1).as_str(), "a" | "an" | "any" | "their" | "its") && WITH.contains(&before(2).as_str()));
            // "out of stock" for a flag named `in_stock`, "off duty" for `on_duty`: the question
            // names the flag's opposite state.
            let flag_words: Vec<&str> = col.column.split(['_', '-']).filter(|w| !w.is_empty()).collect();
            let opposite = match flag_words.first().map(|w| w.to_ascii_lowercase()) {
                Some(first) if first == "in" => before(1) == "of" && before(2) == "out",
                Some(first) if first == "on" => before(1) == "off",
                _ => false,
            };
            if opposite {
                let marked = if before(1) == "off" { 1 } else { 2 };
                self.q.mark(m.start - marked..m.start, "negation");
            }
            let filter = if kind == ColumnKind::Boolean {
                Some(Filter::Bool { col: col.clone(), value: negated == opposite })
            } else if nullable && (with || neg.is_some() || m.negated || (kind == ColumnKind::Date && asks_aggregate)) {
                Some(Filter::Null { col: col.clone(), is_null: negated })
            } else {
                None
            };
            let Some(f) = filter else { continue };
            if let Some(j) = neg {
                self.q.mark(j..j + 1, "negation");
            }
            let role = match &f {
                Filter::Bool { value, .. } => format!("{col} = {value}"),
                _ => format!("{col} {}", if negated { "IS NULL" } else { "IS NOT NULL" }),
            };
            self.consume(mi, role);
            self.filters.push(f);
        }
    }

    /// Join, fix, account for coverage and build the outcome.
    pub fn finish(mut self) -> PlanOutcome {
        let mut plan = Plan {
            table: self.subject.clone(),
            joins: Vec::new(),
            select: std::mem::take(&mut self.select),
            filters: std::mem::take(&mut self.filters),
            aggregate: self.aggregate.clone(),
            group_by: std::mem::take(&mut self.group_by),
            order_by: self.order_by.clone(),
            limit: self.limit,
        };
        // Tables named without a condition of their own are hints for the join path.
        let mut conditioned: Vec<&str> = plan.filters.iter().filter_map(|f| f.col()).map(|c| c.table.as_str()).collect();
        conditioned.extend(plan.group_by.iter().map(|g| g.col().table.as_str()));
        conditioned.extend(plan.select.iter().map(|c| c.table.as_str()));
        conditioned.push(&plan.table);
        let hints: Vec<String> = self.ms.iter().filter(|m| !m.is_value()).filter_map(|m| m.table().map(str::to_string)).filter(|t| !conditioned.iter().any(|c| c.eq_ignore_ascii_case(t))).collect();
        let fixes = fix::fix_plan_with(self.ctx, &mut plan, &hints);
        self.related_tables(&mut plan);
        self.account(&plan);
        let (coverage, confidence) = self.q.coverage(std::mem::take(&mut self.penalties));
        let intent = serde_json::json!({
            "matches": matches_json(&self.ms),
            "subject": self.subject,
            "aggregate": plan.aggregate,
            "group_by": plan.group_by,
            "filters": plan.filters,
            "order_by": plan.order_by,
            "limit": plan.limit,
        });
        let ambiguity = self.ambiguity.filter(|a| a.score >= AMBIGUITY_THRESHOLD);
        let clarifying_question = ambiguity.as_ref().map(|a| clarifying_text(a, &format!("What does \"{}\" refer to?", a.phrase)));
        PlanOutcome { intent, plan: Some(plan), confidence, coverage, fixes, ambiguity, clarifying_question }
    }

    /// Table words the plan does not read yet: a table of rows related to the subject (one
    /// subject row has many of them) becomes an existence condition ("members with loans");
    /// "no loans" / "without loans" its absence.
    fn related_tables(&mut self, plan: &mut Plan) {
        for mi in 0..self.ms.len() {
            let Some(t) = self.ms[mi].table().map(str::to_string) else { continue };
            if self.used[mi] || self.ms[mi].is_value() || plan.tables().iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                continue;
            }
            // "books and members": a second subject, not a condition.
            let start = self.ms[mi].start;
            if start >= 2 && matches!(self.q.word(start - 1), "and" | "or") && self.ms.iter().any(|m| m.end == start - 1 && m.is_table()) {
                continue;
            }
            let Some(path) = fix::best_path(self.ctx, &plan.table, &t, &[]) else { continue };
            if path.is_empty() || !fix::multiplies(self.ctx, &path[0]) {
                continue;
            }
            let neg = self.negation_before(start);
            let (op, value) = if neg.is_some() { ("=", 0.0) } else { (">", 0.0) };
            if let Some(j) = neg {
                self.q.mark(j..j + 1, "negation");
            }
            self.consume(mi, format!("table {t} (related rows {op} 0)"));
            plan.filters.push(super::Filter::Related { path, op: op.into(), value });
        }
    }

    /// Mark table words of tables the plan reads; unmark roles of tables it could not reach;
    /// map a verb between two joined tables ("books written by authors") to their relation.
    fn account(&mut self, plan: &Plan) {
        let tables = plan.tables();
        let in_plan = |t: &str| tables.iter().any(|x| x.eq_ignore_ascii_case(t));
        // Roles naming a table the plan does not reach (no foreign-key path) are void.
        for i in 0..self.q.len() {
            let Some(role) = self.q.role(i) else { continue };
            if let Some(t) = role_table(role)
                && self.ctx.table(t).is_some()
                && !in_plan(t)
            {
                self.q.unmark(i..i + 1);
            }
        }
        for mi in 0..self.ms.len() {
            if let Some(t) = self.ms[mi].table().map(str::to_string)
                && !self.used[mi]
                && !self.ms[mi].is_value()
            {
                let parent = fix::best_path(self.ctx, &plan.table, &t, &[]).is_some_and(|p| !p.iter().any(|s| fix::multiplies(self.ctx, s)));
                if in_plan(&t) || parent {
                    self.consume(mi, format!("table {t}"));
                }
            }
        }
        self.relation_words(&tables);
    }

    /// One unmapped word between two mapped words of different tables the plan joins is the
    /// relation between them ("members who borrowed a book", "books written by authors").
    fn relation_words(&mut self, tables: &[String]) {
        let table_of = |q: &Question, j: usize| -> Option<String> {
            let t = role_table(q.role(j)?)?.to_string();
            tables.iter().any(|x| x.eq_ignore_ascii_case(&t)).then_some(t)
        };
        for i in 0..self.q.len() {
            if self.q.is_mapped(i) || !self.q.is_content(i) || self.q.number(i).is_some() || NEGATIONS.contains(&self.q.word(i)) {
                continue;
            }
            // A verb, by its place: after "who"/"were"/… or before "by"/"a"/… — not an
            // adjective right before its noun ("damaged books" stays unmapped).
            let after_link = i > 0 && ["who", "that", "which", "were", "was", "is", "are", "been", "have", "has", "had", "did", "do", "does"].contains(&self.q.word(i - 1));
            let before_fn = i + 1 < self.q.len() && !self.q.is_content(i + 1);
            // A verb form ("placed more than 10 orders", "orders containing …"), unless it
            // stands right before a table or value word ("damaged books" is an adjective).
            let w = self.q.word(i);
            let verb_like = w.ends_with("ing") || (w.len() > 4 && (w.ends_with("ed") || w.ends_with("en"))) || AGENTIVE.contains(&w) || ["contain", "contains", "include", "includes", "own", "owns", "hold", "holds", "belong", "belongs"].contains(&w);
            let before_term = self.ms.iter().any(|m| m.start == i + 1 && (m.is_table() || m.is_value()));
            let links = ["containing", "contain", "contains", "including", "include", "includes", "featuring", "having", "with"].contains(&w);
            if !(after_link || before_fn || links || (verb_like && !before_term)) {
                continue;
            }
            // The nearest table-bound words on each side, passing over ordering and aggregate
            // words but not over another unmapped word.
            let side = |mut at: Option<usize>, step: fn(&Question, usize) -> Option<usize>| {
                while let Some(j) = at {
                    if let Some(t) = table_of(&self.q, j) {
                        return Some(t);
                    }
                    if !self.q.is_mapped(j) {
                        return None;
                    }
                    at = step(&self.q, j);
                }
                None
            };
            let (Some(a), Some(b)) = (side(self.q.prev_content(i), Question::prev_content), side(self.q.next_content(i), Question::next_content)) else { continue };
            if !a.eq_ignore_ascii_case(&b) {
                self.q.mark(i..i + 1, format!("relation {a} – {b}"));
            }
        }
    }
}

/// The table a coverage role is about: "table loans …", "loans.genre = 'x'", "group by
/// branches.name", "SUM(loans.late_fee)", "COUNT(DISTINCT authors.country)".
pub(super) fn role_table(role: &str) -> Option<&str> {
    if let Some(rest) = role.strip_prefix("table ") {
        return rest.split(' ').next();
    }
    let token = role.split([' ', '(']).find(|t| t.contains('.') && !t.starts_with(|c: char| c.is_ascii_digit() || c == '\'' || c == '['))?;
    token.split_once('.').map(|(t, _)| t)
}
