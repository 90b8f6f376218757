//! Interpret & plan: map a question onto the schema context and build a query plan — the
//! subject table, joins along foreign keys, filters, an aggregation, grouping, ordering.
//!
//! Deterministic and explainable: every part of the plan records the words it came from
//! (`intent_json.matches`). When a phrase could mean several things (a value found in two
//! tables' columns, or no table at all), the plan is not OK and carries a clarifying question
//! with numbered options; an answer resolves it on resume.

use serde::{Deserialize, Serialize};

use super::schema::{normalise, singular, words, JoinStep, SchemaContext, Term};
use super::ColumnKind;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ColRef {
    pub table: String,
    pub column: String,
}

impl ColRef {
    pub fn new(table: &str, column: &str) -> ColRef {
        ColRef { table: table.into(), column: column.into() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Filter {
    /// `col IN (values)` (one value: `col = value`).
    In { col: ColRef, values: Vec<String>, phrase: String },
    /// The date column falls in a calendar year.
    Year { col: ColRef, year: i32 },
    /// `col op number`.
    Compare { col: ColRef, op: String, value: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AggFunc {
    Count,
    Sum,
    Avg,
    Min,
    Max,
}

impl AggFunc {
    pub fn sql(self) -> &'static str {
        match self {
            AggFunc::Count => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub func: AggFunc,
    /// None: `COUNT(*)`.
    pub column: Option<ColRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    Year,
    Month,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GroupKey {
    Column { col: ColRef },
    Time { col: ColRef, unit: TimeUnit },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The subject: the table rows are counted or listed from (`FROM`).
    pub table: String,
    pub joins: Vec<JoinStep>,
    /// Columns listed when there is no aggregate.
    pub select: Vec<ColRef>,
    pub filters: Vec<Filter>,
    pub aggregate: Option<Aggregate>,
    pub group_by: Vec<GroupKey>,
    /// Order by the aggregate (when there is one) or this column; `desc`.
    pub order_by: Option<(Option<ColRef>, bool)>,
    /// From "top 5" / "which ... most" (1); the row cap applies anyway.
    pub limit: Option<usize>,
}

/// One way to read an ambiguous phrase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub label: String,
    pub term: Term,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ambiguity {
    pub phrase: String,
    pub options: Vec<Choice>,
    /// 0..1: how unsure the plan is without an answer (1 = no basis to choose).
    pub score: f64,
}

/// A user's answer to a clarifying question: the phrase and the chosen reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clarification {
    pub phrase: String,
    pub answer: String,
    pub choice: Option<Term>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanOutcome {
    pub intent: serde_json::Value,
    pub plan: Option<Plan>,
    pub confidence: f64,
    pub fixes: Vec<String>,
    pub ambiguity: Option<Ambiguity>,
    pub clarifying_question: Option<String>,
}

/// Ambiguity at or above this stops the run with a clarifying question.
pub const AMBIGUITY_THRESHOLD: f64 = 0.5;

#[derive(Debug, Clone)]
struct Match {
    start: usize,
    end: usize,
    phrase: String,
    terms: Vec<(Term, String)>,
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "for", "to", "by", "per", "with", "and", "or", "is", "are", "was", "were", "be", "been", "what", "which",
    "who", "how", "many", "much", "do", "does", "did", "there", "that", "this", "these", "those", "me", "show", "list", "give", "get", "find",
    "all", "each", "every", "number", "count", "total", "average", "mean", "sum", "have", "has", "had", "at", "from", "it", "its", "their",
    "most", "least", "top", "than", "more", "less", "over", "under", "above", "below", "per", "we", "our", "i", "my", "have", "any", "as",
];

/// Find lexicon phrases in the question, longest first, each word used once.
fn match_terms(ctx: &SchemaContext, ws: &[String]) -> Vec<Match> {
    let norm: Vec<String> = ws.iter().map(|w| singular(w)).collect();
    let mut used = vec![false; ws.len()];
    let mut out = Vec::new();
    for n in (1..=4).rev() {
        if n > norm.len() {
            continue;
        }
        for start in 0..=norm.len() - n {
            if used[start..start + n].iter().any(|u| *u) {
                continue;
            }
            let phrase = norm[start..start + n].join(" ");
            let terms: Vec<(Term, String)> = ctx.lexicon.iter().filter(|e| e.phrase == phrase).map(|e| (e.term.clone(), e.source.clone())).collect();
            if terms.is_empty() {
                continue;
            }
            used[start..start + n].iter_mut().for_each(|u| *u = true);
            out.push(Match { start, end: start + n, phrase: ws[start..start + n].join(" "), terms });
        }
    }
    out.sort_by_key(|m| m.start);
    out
}

fn term_table(t: &Term) -> &str {
    match t {
        Term::Table { table } | Term::Column { table, .. } | Term::Value { table, .. } => table,
    }
}

fn has(ws: &[String], w: &str) -> bool {
    ws.iter().any(|x| x == w)
}

fn has_seq(ws: &[String], seq: &[&str]) -> bool {
    ws.windows(seq.len()).any(|win| win.iter().zip(seq).all(|(a, b)| a == b))
}

fn number_after(ws: &[String], i: usize) -> Option<f64> {
    ws.get(i + 1).and_then(|w| w.replace(',', "").parse::<f64>().ok())
}

/// Plan the question. `clarifications` are earlier answers (on resume).
pub fn plan(ctx: &SchemaContext, question: &str, clarifications: &[Clarification]) -> PlanOutcome {
    let ws = words(question);
    let matches = match_terms(ctx, &ws);

    // Aggregation words.
    let count = has_seq(&ws, &["how", "many"]) || has_seq(&ws, &["number", "of"]) || has(&ws, "count");
    let agg_word = |list: &[&str]| ws.iter().position(|w| list.contains(&w.as_str()));
    let avg = agg_word(&["average", "avg", "mean"]);
    let sum = agg_word(&["total", "sum"]).filter(|&i| ws.get(i + 1).map(String::as_str) != Some("number"));
    let max = agg_word(&["maximum", "max", "highest", "largest", "biggest"]);
    let min = agg_word(&["minimum", "min", "lowest", "smallest", "cheapest"]);
    let most = has(&ws, "most") || has(&ws, "top");
    let fewest = has(&ws, "fewest") || has(&ws, "least");

    // Grouping: "per X", "by X", "for each X", "which X has the most".
    let mut group_positions: Vec<usize> = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let next_is_group = matches!(w.as_str(), "per" | "by" | "each" | "every") || (w == "which" && (most || fewest));
        if next_is_group {
            group_positions.push(i + 1);
        }
    }
    let time_unit = if has(&ws, "monthly") || ws.windows(2).any(|p| matches!(p[0].as_str(), "per" | "by" | "each") && matches!(p[1].as_str(), "month" | "months")) {
        Some(TimeUnit::Month)
    } else if has(&ws, "yearly") || has(&ws, "annually") || ws.windows(2).any(|p| matches!(p[0].as_str(), "per" | "by" | "each") && matches!(p[1].as_str(), "year" | "years")) {
        Some(TimeUnit::Year)
    } else {
        None
    };

    // "top 3 categories by total cost": the term after "top N" is grouped by — when it is a
    // column, or a table and another table is the subject ("top 5 departments by findings").
    let table_count = matches.iter().filter(|m| m.terms.iter().any(|(t, _)| matches!(t, Term::Table { .. }))).count();
    if let Some(i) = ws.iter().position(|w| w == "top") {
        let at = if ws.get(i + 1).is_some_and(|w| w.parse::<usize>().is_ok()) { i + 2 } else { i + 1 };
        if let Some(m) = matches.iter().find(|m| m.start == at) {
            let column = m.terms.iter().any(|(t, _)| matches!(t, Term::Column { .. }));
            let table = m.terms.iter().any(|(t, _)| matches!(t, Term::Table { .. }));
            if column || (table && table_count > 1) {
                group_positions.push(at);
            }
        }
    }
    // Which matches are grouping targets.
    let is_group_target = |m: &Match| group_positions.iter().any(|&p| p == m.start || (p + 1 == m.start && matches!(ws.get(p).map(String::as_str), Some("the"))));

    // Subject table: the first table term that is not a grouping target; else the tables of the
    // value/column terms.
    let table_terms: Vec<(&Match, String)> = matches
        .iter()
        .filter_map(|m| m.terms.iter().find_map(|(t, _)| if let Term::Table { table } = t { Some((m, table.clone())) } else { None }))
        .collect();
    let subject_from_tables = table_terms.iter().find(|(m, _)| !is_group_target(m)).map(|(_, t)| t.clone());

    let mut ambiguity: Option<Ambiguity> = None;
    let resolved = |phrase: &str| clarifications.iter().find(|c| normalise(&c.phrase) == normalise(phrase)).and_then(|c| c.choice.clone());

    let implied = || {
        // Tables implied by value/column terms.
        let mut tables: Vec<String> = matches.iter().flat_map(|m| m.terms.iter().map(|(t, _)| term_table(t).to_string())).collect();
        tables.sort();
        tables.dedup();
        if tables.len() == 1 { tables.pop() } else { None }
    };
    let subject: Option<String> = subject_from_tables.or_else(|| resolved("").map(|t| term_table(&t).to_string())).or_else(implied);

    let subject = match subject {
        Some(s) => s,
        None => {
            // No table: ask which one, offering the tables the terms point at (or all tables).
            let mut options: Vec<Choice> = Vec::new();
            for m in &matches {
                for (t, _) in &m.terms {
                    let table = term_table(t).to_string();
                    if !options.iter().any(|o| term_table(&o.term) == table) {
                        options.push(Choice { label: table.clone(), term: Term::Table { table } });
                    }
                }
            }
            if options.is_empty() {
                options = ctx.db.tables.iter().map(|t| Choice { label: t.name.clone(), term: Term::Table { table: t.name.clone() } }).collect();
            }
            let amb = Ambiguity { phrase: String::new(), options, score: 1.0 };
            let q = clarifying_text(&amb, "Which table is the question about?");
            return PlanOutcome {
                intent: serde_json::json!({"matches": matches_json(&matches), "subject": null}),
                plan: None,
                confidence: 0.0,
                fixes: Vec::new(),
                ambiguity: Some(amb),
                clarifying_question: Some(q),
            };
        }
    };

    let mut filters: Vec<Filter> = Vec::new();
    let mut group_by: Vec<GroupKey> = Vec::new();
    let mut mentioned_cols: Vec<ColRef> = Vec::new();
    let mut explained = 0usize;

    for (mi, m) in matches.iter().enumerate() {
        explained += m.end - m.start;
        let group = is_group_target(m);
        let values: Vec<(&Term, &String)> = m.terms.iter().filter(|(t, _)| matches!(t, Term::Value { .. })).map(|(t, s)| (t, s)).collect();
        let columns: Vec<&Term> = m.terms.iter().map(|(t, _)| t).filter(|t| matches!(t, Term::Column { .. })).collect();
        let tables: Vec<&Term> = m.terms.iter().map(|(t, _)| t).filter(|t| matches!(t, Term::Table { .. })).collect();
        if group {
            // Group by a table (its label column) or a column.
            if let Some(Term::Table { table }) = tables.first() {
                if (!table.eq_ignore_ascii_case(&subject) || tables.len() == 1)
                    && let Some(label) = ctx.label_column(table)
                {
                    group_by.push(GroupKey::Column { col: ColRef::new(table, &label) });
                }
                continue;
            }
            // "by cost" names a measure to rank by, not groups: grouping by a continuous number
            // is almost never meant.
            if let Some(Term::Column { table, column }) = pick_column(&columns, &subject)
                && ctx.table(table).and_then(|t| t.column(column)).is_none_or(|c| c.kind() != ColumnKind::Number)
            {
                group_by.push(GroupKey::Column { col: ColRef::new(table, column) });
                continue;
            }
        }
        if !values.is_empty() {
            // Which column does this value belong to? A value right before a table word binds to
            // that table ("closed audits"); else to the subject; else an earlier answer; else ask.
            let next_table = matches.get(mi + 1).filter(|n| n.start == m.end).and_then(|n| n.terms.iter().find_map(|(t, _)| if let Term::Table { table } = t { Some(table.clone()) } else { None }));
            let mut candidates: Vec<&Term> = values.iter().map(|(t, _)| *t).collect();
            // Aliases win over sample values for the same phrase.
            if candidates.len() > 1 && values.iter().any(|(_, s)| s.as_str() == "alias") {
                candidates = values.iter().filter(|(_, s)| s.as_str() == "alias").map(|(t, _)| *t).collect();
            }
            let chosen = if candidates.len() == 1 {
                Some(candidates[0].clone())
            } else if let Some(t) = next_table.as_ref().and_then(|nt| candidates.iter().find(|c| term_table(c).eq_ignore_ascii_case(nt))) {
                Some((*t).clone())
            } else if let Some(t) = candidates.iter().filter(|c| term_table(c).eq_ignore_ascii_case(&subject)).collect::<Vec<_>>().first().filter(|_| candidates.iter().filter(|c| term_table(c).eq_ignore_ascii_case(&subject)).count() == 1) {
                Some((**t).clone())
            } else if let Some(choice) = resolved(&m.phrase) {
                Some(choice)
            } else {
                if ambiguity.is_none() {
                    let options = candidates
                        .iter()
                        .map(|t| match t {
                            Term::Value { table, column, values } => Choice { label: format!("{table}.{column} = '{}'", values.join("' or '")), term: (*t).clone() },
                            other => Choice { label: term_table(other).to_string(), term: (*other).clone() },
                        })
                        .collect();
                    ambiguity = Some(Ambiguity { phrase: m.phrase.clone(), options, score: 1.0 });
                }
                None
            };
            if let Some(Term::Value { table, column, values }) = chosen {
                let col = ColRef::new(&table, &column);
                if !filters.iter().any(|f| matches!(f, Filter::In { col: c, values: v, .. } if c == &col && v == &values)) {
                    filters.push(Filter::In { col, values, phrase: m.phrase.clone() });
                }
            }
            continue;
        }
        if let Some(Term::Column { table, column }) = pick_column(&columns, &subject) {
            mentioned_cols.push(ColRef::new(table, column));
        }
    }

    // Years: "in 2024" → the mentioned date column, else the subject's default date.
    let date_col = mentioned_cols
        .iter()
        .find(|c| ctx.table(&c.table).and_then(|t| t.column(&c.column)).is_some_and(|ci| ci.kind() == ColumnKind::Date))
        .cloned()
        .or_else(|| ctx.default_date(&subject).map(|d| ColRef::new(&subject, &d)));
    for (i, w) in ws.iter().enumerate() {
        if w.len() == 4
            && let Ok(year) = w.parse::<i32>()
            && (1900..=2100).contains(&year)
            && !matches!(ws.get(i.wrapping_sub(1)).map(String::as_str), Some("top" | "than" | "over" | "under" | "above" | "below"))
            && let Some(dc) = &date_col
        {
            filters.push(Filter::Year { col: dc.clone(), year });
            explained += 1;
        }
    }
    if let (Some(unit), Some(dc)) = (time_unit, &date_col) {
        group_by.push(GroupKey::Time { col: dc.clone(), unit });
    }

    // Numeric comparisons: "more than 10000", "over 5000", "under 100".
    let numeric_col = mentioned_cols
        .iter()
        .find(|c| ctx.table(&c.table).and_then(|t| t.column(&c.column)).is_some_and(|ci| matches!(ci.kind(), ColumnKind::Number | ColumnKind::Integer)))
        .cloned();
    for (i, w) in ws.iter().enumerate() {
        let op = match (w.as_str(), ws.get(i + 1).map(String::as_str)) {
            ("more" | "greater", Some("than")) | ("over" | "above" | "exceeding", _) => Some((">", if w == "more" || w == "greater" { i + 1 } else { i })),
            ("less" | "fewer", Some("than")) | ("under" | "below", _) => Some(("<", if w == "less" || w == "fewer" { i + 1 } else { i })),
            ("at", Some("least")) => Some((">=", i + 1)),
            ("at", Some("most")) => Some(("<=", i + 1)),
            _ => None,
        };
        if let Some((op, at)) = op
            && let Some(value) = number_after(&ws, at)
            && let Some(col) = &numeric_col
        {
            filters.push(Filter::Compare { col: col.clone(), op: op.into(), value });
        }
    }

    // A question that asks for rows ("list", "show", "which findings", "the 5 ...") is not an aggregate.
    let list_words = ["list", "show", "which", "what"].iter().any(|w| ws.first().is_some_and(|f| f == w))
        && !count
        && ws.iter().any(|w| w.parse::<usize>().is_ok_and(|n| n < 1000) || matches!(w.as_str(), "list" | "show"));
    // The aggregate.
    let measure = |after: usize| -> Option<ColRef> {
        mentioned_cols
            .iter()
            .filter(|c| ctx.table(&c.table).and_then(|t| t.column(&c.column)).is_some_and(|ci| matches!(ci.kind(), ColumnKind::Number | ColumnKind::Integer)))
            .min_by_key(|c| {
                matches
                    .iter()
                    .find(|m| m.terms.iter().any(|(t, _)| matches!(t, Term::Column { table, column } if table == &c.table && column == &c.column)))
                    .map(|m| (m.start as i64 - after as i64).abs())
                    .unwrap_or(i64::MAX)
            })
            .cloned()
    };
    let aggregate = if let Some(i) = avg {
        measure(i).map(|c| Aggregate { func: AggFunc::Avg, column: Some(c) })
    } else if let Some(i) = sum.filter(|_| !count) {
        measure(i).map(|c| Aggregate { func: AggFunc::Sum, column: Some(c) })
    } else if let Some(i) = max.filter(|_| group_by.is_empty() && !list_words) {
        measure(i).map(|c| Aggregate { func: AggFunc::Max, column: Some(c) })
    } else if let Some(i) = min.filter(|_| group_by.is_empty() && !list_words) {
        measure(i).map(|c| Aggregate { func: AggFunc::Min, column: Some(c) })
    } else {
        None
    };
    let aggregate = aggregate.or_else(|| (count || ((most || fewest) && !group_by.is_empty()) || !group_by.is_empty()).then_some(Aggregate { func: AggFunc::Count, column: None }));

    // "top 5", "the 5 most expensive", "first 10": a small count next to a ranking word.
    let rank_words = ["top", "first", "most", "highest", "largest", "biggest", "latest", "newest", "oldest", "costliest", "cheapest", "lowest", "smallest", "recent"];
    let top_n = ws.iter().enumerate().find_map(|(i, w)| {
        let n = w.parse::<usize>().ok().filter(|n| (1..=1000).contains(n) && w.len() < 4)?;
        let before = i.checked_sub(1).and_then(|j| ws.get(j)).map(String::as_str);
        let after = ws.get(i + 1).map(String::as_str);
        (before.is_some_and(|b| rank_words.contains(&b)) || after.is_some_and(|a| rank_words.contains(&a))).then_some(n)
    });
    // "most expensive", "costliest", "highest cost": order a list by its measure.
    let cost_words = ["expensive", "costliest", "costly", "cheapest"];
    let rank_measure = if cost_words.iter().any(|w| has(&ws, w)) || max.is_some() || min.is_some() || (top_n.is_some() && numeric_col.is_some()) {
        numeric_col.clone().or_else(|| {
            ctx.table(&subject).and_then(|t| {
                t.columns.iter().find(|c| c.kind() == ColumnKind::Number).map(|c| ColRef::new(&subject, &c.name))
            })
        })
    } else {
        None
    };
    let rank_desc = !(has(&ws, "cheapest") || min.is_some());
    let which_most = ws.first().is_some_and(|w| w == "which" || w == "what") && (most || fewest) && !group_by.is_empty();
    let order_by = if aggregate.is_some() && !group_by.is_empty() {
        if group_by.iter().all(|g| matches!(g, GroupKey::Time { .. })) { None } else { Some((None, !fewest)) }
    } else if aggregate.is_none() && rank_measure.is_some() {
        rank_measure.clone().map(|c| (Some(c), rank_desc))
    } else if aggregate.is_none() && (has(&ws, "latest") || has(&ws, "recent") || has(&ws, "newest")) {
        date_col.clone().map(|c| (Some(c), true))
    } else if aggregate.is_none() && has(&ws, "oldest") {
        date_col.clone().map(|c| (Some(c), false))
    } else {
        None
    };
    let limit = top_n.or(if which_most { Some(1) } else { None });

    // Columns to list.
    let mut select = Vec::new();
    if aggregate.is_none() {
        if let Some(t) = ctx.table(&subject) {
            for pk in &t.primary_key {
                select.push(ColRef::new(&subject, pk));
            }
        }
        if let Some(l) = ctx.label_column(&subject) {
            select.push(ColRef::new(&subject, &l));
        }
        for f in &filters {
            let c = match f {
                Filter::In { col, .. } | Filter::Year { col, .. } | Filter::Compare { col, .. } => col,
            };
            if !select.contains(c) {
                select.push(c.clone());
            }
        }
        for c in &mentioned_cols {
            if !select.contains(c) {
                select.push(c.clone());
            }
        }
        if let Some((Some(oc), _)) = &order_by
            && !select.contains(oc)
        {
            select.push(oc.clone());
        }
        if let Some(dc) = &date_col
            && !select.contains(dc)
        {
            select.push(dc.clone());
        }
    }

    let mut plan = Plan { table: subject.clone(), joins: Vec::new(), select, filters, aggregate, group_by, order_by, limit };
    let fixes = fix_plan(ctx, &mut plan);

    let content: Vec<&String> = ws.iter().filter(|w| !STOPWORDS.contains(&w.as_str()) && w.parse::<f64>().is_err()).collect();
    let confidence = if content.is_empty() { 1.0 } else { (explained as f64 / content.len() as f64).min(1.0) };
    let intent = serde_json::json!({
        "matches": matches_json(&matches),
        "subject": subject,
        "aggregate": plan.aggregate,
        "group_by": plan.group_by,
        "filters": plan.filters,
        "order_by": plan.order_by,
        "limit": plan.limit,
    });
    let ambiguity = ambiguity.filter(|a| a.score >= AMBIGUITY_THRESHOLD);
    let clarifying_question = ambiguity.as_ref().map(|a| clarifying_text(a, &format!("What does \"{}\" refer to?", a.phrase)));
    PlanOutcome { intent, plan: Some(plan), confidence, fixes, ambiguity, clarifying_question }
}

fn pick_column<'a>(columns: &[&'a Term], subject: &str) -> Option<&'a Term> {
    columns.iter().find(|t| term_table(t).eq_ignore_ascii_case(subject)).or(columns.first()).copied()
}

fn matches_json(matches: &[Match]) -> serde_json::Value {
    serde_json::Value::Array(
        matches
            .iter()
            .map(|m| serde_json::json!({"phrase": m.phrase, "terms": m.terms.iter().map(|(t, s)| serde_json::json!({"term": t, "source": s})).collect::<Vec<_>>()}))
            .collect(),
    )
}

fn clarifying_text(a: &Ambiguity, head: &str) -> String {
    let mut q = head.to_string();
    for (i, o) in a.options.iter().enumerate() {
        q.push_str(&format!("\n  {}. {}", i + 1, o.label));
    }
    q
}

/// Deterministic repairs that keep a plan runnable: every table the plan touches is joined to
/// the subject along foreign keys (a missing join key), and every non-aggregated column shown
/// next to an aggregate is grouped by (GROUP BY completion). Returns what was changed.
pub fn fix_plan(ctx: &SchemaContext, plan: &mut Plan) -> Vec<String> {
    let mut fixes = Vec::new();
    let mut touched: Vec<String> = Vec::new();
    let mut note = |t: &str| {
        if !t.eq_ignore_ascii_case(&plan.table) && !touched.iter().any(|x| x.eq_ignore_ascii_case(t)) {
            touched.push(t.to_string());
        }
    };
    for c in &plan.select {
        note(&c.table);
    }
    for f in &plan.filters {
        match f {
            Filter::In { col, .. } | Filter::Year { col, .. } | Filter::Compare { col, .. } => note(&col.table),
        }
    }
    for g in &plan.group_by {
        match g {
            GroupKey::Column { col } | GroupKey::Time { col, .. } => note(&col.table),
        }
    }
    if let Some(Aggregate { column: Some(c), .. }) = &plan.aggregate {
        note(&c.table);
    }
    for t in touched {
        let joined = plan.joins.iter().any(|j| j.to_table.eq_ignore_ascii_case(&t));
        if joined {
            continue;
        }
        // Join from the nearest table already in the plan.
        let mut best: Option<Vec<JoinStep>> = None;
        let mut starts = vec![plan.table.clone()];
        starts.extend(plan.joins.iter().map(|j| j.to_table.clone()));
        for s in &starts {
            if let Some(p) = ctx.join_path(s, &t)
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
    let tables_ok: Vec<bool> = plan.filters.iter().map(|f| match f { Filter::In { col, .. } | Filter::Year { col, .. } | Filter::Compare { col, .. } => reachable(&col.table) }).collect();
    let mut it = tables_ok.iter();
    plan.filters.retain(|_| *it.next().unwrap_or(&true));
    let gk: Vec<bool> = plan.group_by.iter().map(|g| match g { GroupKey::Column { col } | GroupKey::Time { col, .. } => reachable(&col.table) }).collect();
    let mut it = gk.iter();
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

/// Resolve an answer to a clarifying question: an option number ("2"), an option's words
/// ("findings", "the audit status"), else None (the answer is then added to the question).
pub fn resolve_answer(amb: &Ambiguity, answer: &str) -> Option<Term> {
    let a = answer.trim();
    if let Ok(n) = a.trim_end_matches('.').parse::<usize>() {
        return amb.options.get(n.checked_sub(1)?).map(|o| o.term.clone());
    }
    let aw: Vec<String> = words(a).iter().map(|w| singular(w)).collect();
    let mut best: Option<(usize, &Choice)> = None;
    for o in &amb.options {
        let ow: Vec<String> = words(&o.label.replace(['.', '_'], " ")).iter().map(|w| singular(w)).collect();
        let score = aw.iter().filter(|w| ow.contains(w)).count();
        if score > 0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, o));
        } else if best.is_some_and(|(s, _)| s == score) {
            // A tie is no answer.
            best = best.filter(|(s, _)| *s != score);
        }
    }
    best.map(|(_, o)| o.term.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::schema::tests::audit_context;

    fn p(q: &str) -> PlanOutcome {
        plan(&audit_context(), q, &[])
    }

    #[test]
    fn count_with_value_filter() {
        let o = p("How many critical findings are there?");
        let plan = o.plan.unwrap();
        assert_eq!(plan.table, "findings");
        assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Count, column: None }));
        assert!(matches!(&plan.filters[0], Filter::In { col, values, .. } if col.column == "severity" && values == &["Critical"]));
        assert!(o.ambiguity.is_none());
    }

    #[test]
    fn group_by_department_joins_along_foreign_keys() {
        let o = p("How many open findings per department?");
        let plan = o.plan.unwrap();
        assert_eq!(plan.table, "findings");
        assert_eq!(plan.joins.len(), 2, "{:?}", plan.joins);
        assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("departments", "name") }]);
        assert!(matches!(&plan.filters[0], Filter::In { col, .. } if col == &ColRef::new("findings", "status")));
        assert!(o.fixes.iter().any(|f| f.starts_with("joined audits")), "{:?}", o.fixes);
    }

    #[test]
    fn average_measure_year_and_alias() {
        let o = p("What is the average cost of urgent issues in 2024 by category?");
        let plan = o.plan.unwrap();
        assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Avg, column: Some(ColRef::new("findings", "estimated_cost")) }));
        assert!(plan.filters.contains(&Filter::Year { col: ColRef::new("findings", "reported_on"), year: 2024 }));
        assert!(plan.filters.iter().any(|f| matches!(f, Filter::In { values, .. } if values == &["Critical"])));
        assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("findings", "category") }]);
    }

    #[test]
    fn ambiguous_value_asks_and_an_answer_resolves_it() {
        let o = p("How many are open?");
        let amb = o.ambiguity.expect("open is a status of audits and of findings");
        assert_eq!(amb.options.len(), 2);
        let q = o.clarifying_question.unwrap();
        assert!(q.contains("1. ") && q.contains("2. "), "{q}");
        let choice = resolve_answer(&amb, "findings").unwrap();
        assert_eq!(term_table(&choice), "findings");
        assert_eq!(resolve_answer(&amb, "2").map(|t| term_table(&t).to_string()), Some(term_table(&amb.options[1].term).to_string()));
        assert_eq!(resolve_answer(&amb, "9"), None);
        let o2 = plan(&audit_context(), "How many are open?", &[Clarification { phrase: amb.phrase.clone(), answer: "findings".into(), choice: Some(choice) }]);
        assert!(o2.ambiguity.is_none());
        let plan2 = o2.plan.unwrap();
        assert!(matches!(&plan2.filters[0], Filter::In { col, .. } if col.table == "findings"));
    }

    #[test]
    fn value_before_a_table_word_binds_to_that_table() {
        let o = p("How many findings in closed audits?");
        assert!(o.ambiguity.is_none(), "{:?}", o.ambiguity);
        let plan = o.plan.unwrap();
        assert!(matches!(&plan.filters[0], Filter::In { col, .. } if col == &ColRef::new("audits", "status")));
    }

    #[test]
    fn no_table_at_all_asks_which_table() {
        let o = p("How is the weather?");
        assert!(o.plan.is_none());
        assert_eq!(o.ambiguity.unwrap().options.len(), 4);
    }

    #[test]
    fn which_department_has_the_most_is_top_one() {
        let plan = p("Which department has the most critical findings?").plan.unwrap();
        assert_eq!(plan.limit, Some(1));
        assert_eq!(plan.order_by, Some((None, true)));
        assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("departments", "name") }]);
    }

    #[test]
    fn per_month_groups_by_time() {
        let plan = p("Number of findings per month in 2025").plan.unwrap();
        assert_eq!(plan.group_by, vec![GroupKey::Time { col: ColRef::new("findings", "reported_on"), unit: TimeUnit::Month }]);
        assert!(plan.filters.contains(&Filter::Year { col: ColRef::new("findings", "reported_on"), year: 2025 }));
    }

    #[test]
    fn list_query_selects_label_and_filter_columns() {
        let plan = p("List critical findings in the Finance department with cost over 100000").plan.unwrap();
        assert!(plan.aggregate.is_none());
        assert!(plan.select.contains(&ColRef::new("findings", "summary")));
        assert!(plan.filters.iter().any(|f| matches!(f, Filter::Compare { op, value, .. } if op == ">" && *value == 100000.0)));
        assert!(plan.filters.iter().any(|f| matches!(f, Filter::In { col, .. } if col == &ColRef::new("departments", "name"))));
    }

    #[test]
    fn most_expensive_lists_ordered_by_cost_with_a_limit() {
        let plan = p("List the 5 most expensive critical findings").plan.unwrap();
        assert!(plan.aggregate.is_none(), "{plan:?}");
        assert_eq!(plan.limit, Some(5));
        assert_eq!(plan.order_by, Some((Some(ColRef::new("findings", "estimated_cost")), true)));
        let plan = p("What is the highest estimated cost of a critical finding?").plan.unwrap();
        assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Max, column: Some(ColRef::new("findings", "estimated_cost")) }));
    }

    #[test]
    fn top_n_groups_by_the_term_after_it() {
        let plan = p("top 3 categories by total cost").plan.unwrap();
        assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("findings", "category") }]);
        assert_eq!(plan.aggregate, Some(Aggregate { func: AggFunc::Sum, column: Some(ColRef::new("findings", "estimated_cost")) }));
        assert_eq!((plan.limit, plan.order_by.clone()), (Some(3), Some((None, true))));
        let plan = p("top 2 departments by number of findings").plan.unwrap();
        assert_eq!(plan.table, "findings");
        assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("departments", "name") }]);
        // A lone table after "top" is the subject, not a grouping.
        let plan = p("top 3 findings by cost").plan.unwrap();
        assert!(plan.group_by.is_empty() && plan.aggregate.is_none(), "{plan:?}");
        assert_eq!((plan.limit, plan.order_by.clone()), (Some(3), Some((Some(ColRef::new("findings", "estimated_cost")), true))));
    }

    #[test]
    fn group_by_completion_fix() {
        let ctx = audit_context();
        let mut plan = Plan {
            table: "findings".into(),
            joins: vec![],
            select: vec![ColRef::new("findings", "severity")],
            filters: vec![],
            aggregate: Some(Aggregate { func: AggFunc::Count, column: None }),
            group_by: vec![],
            order_by: None,
            limit: None,
        };
        let fixes = fix_plan(&ctx, &mut plan);
        assert_eq!(plan.group_by, vec![GroupKey::Column { col: ColRef::new("findings", "severity") }]);
        assert!(fixes[0].starts_with("grouped by findings.severity"));
    }
}

/// Why `qa "question"` would go to the SQL path: the schema terms the question mentions and a
/// score (a table or value counts 2, a column 1). Routed when the score reaches
/// [`ROUTE_THRESHOLD`] — a first, explainable heuristic (schema-term overlap).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteDecision {
    pub score: f64,
    pub matched: Vec<String>,
    pub to_sql: bool,
}

pub const ROUTE_THRESHOLD: f64 = 3.0;

pub fn route_score(ctx: &SchemaContext, question: &str) -> RouteDecision {
    let ws = words(question);
    let mut score = 0.0;
    let mut matched = Vec::new();
    for m in match_terms(ctx, &ws) {
        let (t, source) = &m.terms[0];
        let (weight, what) = match t {
            Term::Table { table } => (2.0, format!("table {table}")),
            Term::Value { table, column, values } => (2.0, format!("value {table}.{column} = '{}'", values.join("'|'"))),
            Term::Column { table, column } => (1.0, format!("column {table}.{column}")),
        };
        score += weight;
        matched.push(format!("\"{}\" → {what} ({source})", m.phrase));
    }
    RouteDecision { score, to_sql: score >= ROUTE_THRESHOLD, matched }
}

#[cfg(test)]
mod route_tests {
    use super::*;
    use crate::sql::schema::tests::audit_context;

    #[test]
    fn routes_by_schema_term_overlap() {
        let ctx = audit_context();
        let d = route_score(&ctx, "How many critical findings per department?");
        assert!(d.to_sql, "{d:?}");
        assert!(d.matched.iter().any(|m| m.contains("table findings")), "{d:?}");
        let d = route_score(&ctx, "How does deep sleep relate to battery life?");
        assert!(!d.to_sql, "{d:?}");
        assert_eq!(d.score, 0.0);
        // One column word alone is not enough.
        assert!(!route_score(&ctx, "What is the region of the sensor?").to_sql);
    }
}
