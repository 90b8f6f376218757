//! Matching question phrases against the schema lexicon, longest phrase first, each token used
//! once. Beyond the exact normalised phrase (lower case, singular, `_`/`-`/space separators
//! alike) a phrase matches its joined form ("ebook" ↔ `e_book`), a small edit distance
//! ("canceled" ↔ `cancelled`), one word of a column name ("published" ↔ `published_year`,
//! "cafe" ↔ `has_cafe`), and a negative prefix of a yes/no or optional column ("inactive" ↔
//! NOT `is_active`). Everything here comes from the schema and the semantic file, never from
//! knowledge of a particular database.

use std::collections::BTreeMap;

use super::super::schema::{normalise, singular, SchemaContext, Term};
use super::super::ColumnKind;
use super::question::{is_function_word, Question};

#[derive(Debug, Clone)]
pub struct Match {
    pub start: usize,
    pub end: usize,
    pub phrase: String,
    /// Candidate readings with where each came from (`name`, `synonym`, `sample`, `alias`,
    /// `name-part`, `fuzzy`).
    pub terms: Vec<(Term, String)>,
    /// Matched through a negative prefix ("inactive").
    pub negated: bool,
    /// Matched only within an edit distance.
    pub fuzzy: bool,
}

impl Match {
    pub fn tables(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().filter_map(|(t, _)| if let Term::Table { table } = t { Some(table.as_str()) } else { None })
    }

    pub fn table(&self) -> Option<&str> {
        self.tables().next()
    }

    pub fn columns(&self) -> impl Iterator<Item = (&str, &str)> {
        self.terms.iter().filter_map(|(t, _)| if let Term::Column { table, column } = t { Some((table.as_str(), column.as_str())) } else { None })
    }

    pub fn values(&self) -> impl Iterator<Item = (&Term, &String)> {
        self.terms.iter().filter(|(t, _)| matches!(t, Term::Value { .. })).map(|(t, s)| (t, s))
    }

    pub fn is_table(&self) -> bool {
        self.table().is_some()
    }

    pub fn is_value(&self) -> bool {
        self.values().next().is_some()
    }

    pub fn is_column(&self) -> bool {
        self.columns().next().is_some()
    }
}

pub fn term_table(t: &Term) -> &str {
    match t {
        Term::Table { table } | Term::Column { table, .. } | Term::Value { table, .. } => table,
    }
}

/// Name words that say nothing about a column's meaning.
const GENERIC_PARTS: &[&str] = &["id", "on", "at", "of", "in", "is", "has", "was", "can", "the", "date", "time", "flag", "num", "no", "by", "to", "and"];

/// Prefixes of yes/no column names dropped to get the word people use ("is_active" → "active").
const BOOL_PREFIXES: &[&str] = &["is_", "has_", "was_", "can_", "allows_", "allow_"];

/// How to match.
#[derive(Debug, Clone, Copy)]
pub struct MatchOptions {
    /// Edit-distance matches and column-name parts (the planner); off for routing.
    pub loose: bool,
}

struct Index<'a> {
    exact: BTreeMap<String, Vec<(Term, String)>>,
    joined: BTreeMap<String, Vec<(Term, String)>>,
    parts: BTreeMap<String, Vec<(Term, String)>>,
    ctx: &'a SchemaContext,
}

fn is_key(name: &str) -> bool {
    name.eq_ignore_ascii_case("id") || name.to_ascii_lowercase().ends_with("_id")
}

impl<'a> Index<'a> {
    fn new(ctx: &'a SchemaContext) -> Index<'a> {
        let mut exact: BTreeMap<String, Vec<(Term, String)>> = BTreeMap::new();
        let add = |map: &mut BTreeMap<String, Vec<(Term, String)>>, k: String, term: Term, src: &str| {
            let list = map.entry(k).or_default();
            if !list.iter().any(|(t, _)| *t == term) {
                list.push((term, src.to_string()));
            }
        };
        for e in &ctx.lexicon {
            add(&mut exact, e.phrase.clone(), e.term.clone(), &e.source);
        }
        let mut parts = BTreeMap::new();
        // A column-name word that names a table ("audit" of audit_type) is that table.
        let table_words: Vec<String> = ctx.lexicon.iter().filter(|e| matches!(e.term, Term::Table { .. })).map(|e| e.phrase.clone()).collect();
        for t in &ctx.db.tables {
            for c in t.columns.iter().filter(|c| !is_key(&c.name)) {
                let term = Term::Column { table: t.name.clone(), column: c.name.clone() };
                let lower = c.name.to_ascii_lowercase();
                if let Some(rest) = BOOL_PREFIXES.iter().find_map(|p| lower.strip_prefix(p)) {
                    add(&mut exact, normalise(rest), term.clone(), "name");
                }
                let words: Vec<String> = normalise(&split_camel(&c.name)).split(' ').map(str::to_string).collect();
                if words.len() < 2 {
                    continue;
                }
                for w in words.iter().filter(|w| w.len() >= 3 && !GENERIC_PARTS.contains(&w.as_str()) && !table_words.contains(w)) {
                    add(&mut parts, w.clone(), term.clone(), "name-part");
                }
            }
        }
        // A word of a multi-word table name ("items" of order_items) that names no other table.
        for t in &ctx.db.tables {
            let words: Vec<String> = normalise(&split_camel(&t.name)).split(' ').map(str::to_string).collect();
            if words.len() < 2 {
                continue;
            }
            for w in words.iter().filter(|w| w.len() >= 3 && !table_words.contains(w) && !exact.contains_key(*w)) {
                add(&mut parts, w.clone(), Term::Table { table: t.name.clone() }, "name-part");
            }
        }
        let mut joined = BTreeMap::new();
        for (k, v) in &exact {
            if k.contains(' ') {
                for (t, s) in v {
                    add(&mut joined, k.replace(' ', ""), t.clone(), s);
                }
            }
        }
        Index { exact, joined, parts, ctx }
    }

    fn column_kind(&self, t: &Term) -> Option<(ColumnKind, bool)> {
        if let Term::Column { table, column } = t {
            let c = self.ctx.table(table)?.column(column)?;
            return Some((c.kind(), c.nullable));
        }
        None
    }

    fn fuzzy(&self, phrase: &str) -> Vec<(Term, String)> {
        let n = phrase.chars().count();
        if n < 5 {
            return Vec::new();
        }
        let max = if n >= 8 { 2 } else { 1 };
        let first = phrase.chars().next();
        let mut best: Vec<(Term, String)> = Vec::new();
        let mut best_d = usize::MAX;
        for (k, terms) in &self.exact {
            let kn = k.chars().count();
            if kn < 5 || kn.abs_diff(n) > max || k.chars().next() != first || k.split(' ').count() != phrase.split(' ').count() {
                continue;
            }
            let d = levenshtein(phrase, k);
            if d == 0 || d > max {
                continue;
            }
            if d < best_d {
                best_d = d;
                best.clear();
            }
            if d == best_d {
                best.extend(terms.iter().map(|(t, _)| (t.clone(), "fuzzy".to_string())));
            }
        }
        best
    }
}

fn split_camel(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    out
}

pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + usize::from(ca != cb));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Find lexicon phrases in the question, longest first, each token used once.
pub fn match_terms(ctx: &SchemaContext, q: &Question, opts: MatchOptions) -> Vec<Match> {
    let idx = Index::new(ctx);
    let mut used = vec![false; q.len()];
    let mut out = Vec::new();
    for n in (1..=4).rev() {
        if n > q.len() {
            continue;
        }
        for start in 0..=q.len() - n {
            if used[start..start + n].iter().any(|u| *u) {
                continue;
            }
            let toks = &q.toks[start..start + n];
            // Phrases of function words, numbers or dates alone are not schema terms.
            if toks.iter().all(|t| is_function_word(&t.text) || t.number.is_some() || t.date.is_some()) || toks.iter().any(|t| t.date.is_some()) {
                continue;
            }
            let phrase: String = toks.iter().map(|t| t.norm.as_str()).collect::<Vec<_>>().join(" ");
            // A phrase starting or ending with a function word only as a whole value ("in store").
            if n > 1 && (is_function_word(&toks[0].text) || is_function_word(&toks[n - 1].text)) {
                let values: Vec<(Term, String)> = idx.exact.get(&phrase).into_iter().flatten().filter(|(t, _)| matches!(t, Term::Value { .. })).cloned().collect();
                if !values.is_empty() {
                    used[start..start + n].iter_mut().for_each(|u| *u = true);
                    let phrase = toks.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                    out.push(Match { start, end: start + n, phrase, terms: values, negated: false, fuzzy: false });
                }
                continue;
            }
            let mut terms = idx.exact.get(&phrase).cloned().unwrap_or_default();
            let mut fuzzy = false;
            let mut negated = false;
            if terms.is_empty() && n > 1 {
                terms = idx.joined.get(&phrase.replace(' ', "")).cloned().unwrap_or_default();
            }
            if terms.is_empty() && n == 1 {
                terms = idx.joined.get(&phrase).cloned().unwrap_or_default();
            }
            if opts.loose && n == 1 {
                // One word of a column's name: a weaker reading, kept next to exact ones so
                // the table in context can choose ("names" of members → full_name).
                for (t, s) in idx.parts.get(&phrase).cloned().unwrap_or_default() {
                    if !terms.iter().any(|(x, _)| *x == t) {
                        terms.push((t, s));
                    }
                }
            }
            if opts.loose && n == 1 && !terms.iter().any(|(t, s)| matches!(t, Term::Table { .. }) || s != "name-part") {
                // "priced" → price, "ordered" → orders (next to a name-part reading: the verb
                // that names a table, and a column named after it).
                for stem in stems(&toks[0].text) {
                    let found: Vec<(Term, String)> = idx.exact.get(&stem).or_else(|| idx.parts.get(&stem)).cloned().unwrap_or_default();
                    let found: Vec<(Term, String)> = if terms.is_empty() { found } else { found.into_iter().filter(|(t, _)| matches!(t, Term::Table { .. })).collect() };
                    if !found.is_empty() {
                        terms.extend(found.into_iter().map(|(t, _)| (t, "stem".to_string())));
                        break;
                    }
                }
            }
            if terms.is_empty() && opts.loose && n <= 2 {
                terms = idx.fuzzy(&phrase);
                fuzzy = !terms.is_empty();
            }
            if terms.is_empty()
                && opts.loose
                && n == 1
                && let Some(found) = negative_prefix(&idx, &toks[0].text)
            {
                terms = found;
                negated = true;
            }
            if terms.is_empty() {
                continue;
            }
            used[start..start + n].iter_mut().for_each(|u| *u = true);
            let phrase = toks.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
            out.push(Match { start, end: start + n, phrase, terms, negated, fuzzy });
        }
    }
    out.sort_by_key(|m| m.start);
    out
}

/// Stems of an inflected word ("priced" → "price", "shipped" → "ship", "ordering" → "order").
fn stems(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    if word.len() < 5 {
        return out;
    }
    for suffix in ["ed", "ing"] {
        if let Some(stem) = word.strip_suffix(suffix) {
            out.push(stem.to_string());
            out.push(format!("{stem}e"));
            let b = stem.as_bytes();
            if b.len() > 2 && b[b.len() - 1] == b[b.len() - 2] {
                out.push(stem[..stem.len() - 1].to_string());
            }
        }
    }
    if let Some(stem) = word.strip_suffix('d') {
        out.push(stem.to_string());
    }
    out.retain(|s| s.len() >= 3);
    out
}

/// "inactive", "unreturned", "nonfiction": a negative prefix before a yes/no column or an
/// optional (nullable) column's name.
fn negative_prefix(idx: &Index, word: &str) -> Option<Vec<(Term, String)>> {
    for p in ["non", "un", "in"] {
        let Some(rest) = word.strip_prefix(p) else { continue };
        let rest = rest.trim_start_matches('-');
        if rest.len() < 4 {
            continue;
        }
        let key = singular(rest);
        let found: Vec<(Term, String)> = idx
            .exact
            .get(&key)
            .into_iter()
            .chain(idx.parts.get(&key))
            .flatten()
            .filter(|(t, _)| idx.column_kind(t).is_some_and(|(k, nullable)| k == ColumnKind::Boolean || nullable))
            .cloned()
            .collect();
        if !found.is_empty() {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tests::audit_context;

    fn phrases(q: &str) -> Vec<String> {
        let ctx = audit_context();
        match_terms(&ctx, &Question::new(q), MatchOptions { loose: true }).into_iter().map(|m| m.phrase).collect()
    }

    #[test]
    fn longest_phrase_wins_and_fuzzy_values_match() {
        assert_eq!(phrases("critical findings in Human Resources"), ["critical", "findings", "human resources"]);
        let ctx = audit_context();
        let ms = match_terms(&ctx, &Question::new("how many critcal findings"), MatchOptions { loose: true });
        assert!(ms[0].fuzzy && ms[0].is_value(), "{ms:?}");
        assert_eq!(levenshtein("canceled", "cancelled"), 1);
    }

    #[test]
    fn column_name_parts_and_negative_prefixes() {
        let ctx = audit_context();
        let ms = match_terms(&ctx, &Question::new("findings reported in 2024"), MatchOptions { loose: true });
        assert!(ms.iter().any(|m| m.columns().any(|(_, c)| c == "reported_on")), "{ms:?}");
        // A column-name word that names a table is the table only ("audit" of audit_type).
        let ms = match_terms(&ctx, &Question::new("open audits"), MatchOptions { loose: true });
        assert!(ms[1].is_table() && !ms[1].is_column(), "{ms:?}");
        // Routing uses exact phrases only.
        assert!(match_terms(&ctx, &Question::new("critcal"), MatchOptions { loose: false }).is_empty());
    }
}
