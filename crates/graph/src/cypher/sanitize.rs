//! Rewrites of the fixable problems, as byte-range edits on the original text so that everything
//! else — comments, strings, spacing, case — stays exactly as written.

use super::analysis::{LimitFinding, analyze, limit_findings};
use super::{CypherSchema, Policy, Sanitized};

/// Replace `range` of the source with `text`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// Rewrite fixable problems only: drop unknown relationship types from relationship-type filters
/// (`[r:KNOWN|BAD]` -> `[r:KNOWN]`; if none remain, remove the type filter: `[r:BAD*1..3]` -> `[r*1..3]`), add `LIMIT row_cap`
/// at the end when the query has no top-level LIMIT (before a trailing `;`), clamp a literal LIMIT > row_cap to row_cap.
/// Everything else (text, comments, strings, spacing) is preserved byte-for-byte.
///
/// With UNION, every part lacking a LIMIT after its final RETURN gets one. A query that does not lex
/// cleanly or has unbalanced brackets is returned unchanged: edits need a trustworthy token stream.
/// Type filters using `&`, `!`, `%` or parentheses are left alone (they stay rejected).
pub fn sanitize(query: &str, schema: &CypherSchema, policy: &Policy) -> Sanitized {
    sanitize_with(query, Some(schema), policy)
}

/// [`sanitize`]; without a schema only LIMIT is fixed.
pub(super) fn sanitize_with(query: &str, schema: Option<&CypherSchema>, policy: &Policy) -> Sanitized {
    let unchanged = || Sanitized { cypher: query.to_string(), changes: Vec::new() };
    let f = analyze(query, policy);
    if !f.lex_clean || !f.balanced || f.tokens.is_empty() {
        return unchanged();
    }
    let mut edits = Vec::new();
    let mut changes = Vec::new();

    if let Some(schema) = schema {
        for e in f.label_exprs.iter().filter(|e| e.rel && e.simple && !e.names.is_empty()) {
            let Some(open) = e.filter_of else { continue };
            // `[r:A:B]` is not a filter sanitize understands (dropping A would promote B).
            if e.names.last().is_some_and(|&l| f.tokens.get(l + 1).is_some_and(|t| t.is_punct(":"))) {
                continue;
            }
            let known: Vec<bool> = e.names.iter().map(|&i| schema.relationship_types.contains(&f.tokens[i].text)).collect();
            if known.iter().all(|&k| k) {
                continue;
            }
            let bracket_end = f.close_of[open].map_or(f.tokens[open].end, |c| f.tokens[c].end);
            let mut shown: String = query[f.tokens[open].start..bracket_end].chars().take(80).collect();
            if shown.len() < bracket_end - f.tokens[open].start {
                shown.push('…');
            }
            let tok = |k: usize| &f.tokens[e.names[k]];
            match known.iter().position(|&k| k) {
                None => {
                    // Nothing left: remove the whole filter, from the `:` to the last name.
                    let last = tok(e.names.len() - 1).end;
                    edits.push(Edit { start: f.tokens[e.colon].start, end: last, text: String::new() });
                }
                Some(first_kept) => {
                    for k in (0..e.names.len()).filter(|&k| !known[k]) {
                        // Before the first kept name: remove the name and the separator after it
                        // (`BAD|:A` -> `A`); after it: the separator before and the name (`A|BAD` -> `A`).
                        let (start, end) =
                            if k < first_kept { (tok(k).start, tok(k + 1).start) } else { (tok(k - 1).end, tok(k).end) };
                        edits.push(Edit { start, end, text: String::new() });
                    }
                }
            }
            for (k, _) in known.iter().enumerate().filter(|(_, known)| !**known) {
                let rest = if known.iter().any(|&x| x) { "" } else { " (no type filter left)" };
                changes.push(format!("dropped unknown relationship type {} from {shown}{rest}", tok(k).text));
            }
        }
    }

    let parts = f.parts.len();
    let which = |p: usize| if parts > 1 { format!(" to query part {}", p + 1) } else { String::new() };
    let cap = policy.row_cap;
    let type_edits = edits.len();
    let type_changes = changes.len();
    for finding in limit_findings(&f, cap) {
        match finding {
            LimitFinding::Missing { part, after } => {
                let at = f.tokens[after].end;
                edits.push(Edit { start: at, end: at, text: format!(" LIMIT {cap}") });
                changes.push(format!("added LIMIT {cap}{}", which(part)));
            }
            LimitFinding::TooLarge { number, .. } => {
                let t = &f.tokens[number];
                edits.push(Edit { start: t.start, end: t.end, text: cap.to_string() });
                changes.push(format!("clamped LIMIT {} to {cap}", t.text));
            }
            _ => {}
        }
    }

    let cypher = apply(query, &edits);
    if edits.len() > type_edits {
        // An appended LIMIT only counts where LIMIT can be a clause; in broken queries it may not
        // (`RETURN n. LIMIT 1000` reads a property named LIMIT). Then leave LIMIT alone, so that
        // sanitizing stays idempotent and the query stays rejected.
        let after = analyze(&cypher, policy);
        let fixed = limit_findings(&after, cap)
            .iter()
            .all(|x| !matches!(x, LimitFinding::Missing { .. } | LimitFinding::TooLarge { .. }));
        if !fixed {
            edits.truncate(type_edits);
            changes.truncate(type_changes);
            return Sanitized { cypher: apply(query, &edits), changes };
        }
    }
    Sanitized { cypher, changes }
}

/// Apply non-overlapping edits (type filters lie inside brackets, LIMIT edits at top level), from
/// the end so that earlier offsets stay valid.
fn apply(query: &str, edits: &[Edit]) -> String {
    let mut order: Vec<&Edit> = edits.iter().collect();
    order.sort_by_key(|e| std::cmp::Reverse((e.start, e.end)));
    let mut cypher = query.to_string();
    for e in order {
        cypher.replace_range(e.start..e.end, &e.text);
    }
    cypher
}
