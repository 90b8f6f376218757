//! Property tests over the benign corpus: edits that must (or must not) change the verdict. They
//! sit inside the module because they need token positions from the lexer.

use proptest::prelude::*;

use super::lexer::{TokKind, lex};
use super::*;

const BENIGN: &str = include_str!("../../../../tests/data/cypher/benign.txt");

/// Queries of the benign corpus (records split by `---` lines, `#` description lines dropped).
fn benign() -> Vec<String> {
    let lines: Vec<&str> = BENIGN.split('\n').collect();
    lines
        .split(|l| *l == "---")
        .map(|rec| rec.iter().skip_while(|l| l.starts_with('#')).copied().collect::<Vec<_>>().join("\n").trim_end().to_string())
        .filter(|q| !q.trim().is_empty())
        .collect()
}

fn schema() -> CypherSchema {
    let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
    CypherSchema {
        labels: set(&["Document", "Concept", "Image"]),
        relationship_types: set(&["MENTIONS", "RELATED_TO", "HAS_IMAGE", "DEPICTS", "PART_OF", "USES"]),
        property_keys: set(&["id", "name", "aliases", "kind", "df", "source_id", "chunk_id", "source_file", "weight"]),
    }
}

fn accepted(q: &str) -> bool {
    check(q, Some(&schema()), &Policy { row_cap: 1000, extra_procedures: Vec::new() }).accepted
}

/// Byte offsets where a new clause may start: before MATCH / OPTIONAL MATCH / WITH (not `STARTS
/// WITH`) / UNWIND / RETURN / CALL, at any depth, and at the end of the statement.
fn clause_boundaries(q: &str) -> Vec<usize> {
    let toks = lex(q).tokens;
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| &toks[j]);
        let starts = ["MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL"].iter().any(|k| t.is_word(k));
        let continues = prev.is_some_and(|p| p.is_word("OPTIONAL") || p.is_word("STARTS") || p.is_word("ENDS") || p.is_punct("."));
        if starts && !continues {
            out.push(t.start);
        }
    }
    let last = toks.iter().rev().find(|t| !t.is_punct(";"));
    out.extend(last.map(|t| t.end));
    out
}

fn random_case(s: &str, mask: u64) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| if mask >> (i % 64) & 1 == 1 { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
        .collect()
}

const WRITES: [&str; 12] = [
    "CREATE (x:Concept {id: 'p'})",
    "MERGE (x:Concept {id: 'p'})",
    "DETACH DELETE n",
    "DELETE n",
    "SET n.name = 'p'",
    "REMOVE n.name",
    "FOREACH (i IN [1] | CREATE (y))",
    "LOAD CSV FROM 'file:///x.csv' AS row",
    "CALL { CREATE (z) } IN TRANSACTIONS",
    "INSERT (x:Concept)",
    "USING PERIODIC COMMIT",
    "CALL { WITH n RETURN n AS m } IN TRANSACTIONS",
];

/// A string literal holding `text` exactly, in either quote style.
fn quote(text: &str, double: bool) -> String {
    let q = if double { '"' } else { '\'' };
    let mut out = String::from(q);
    for c in text.chars() {
        if c == '\\' || c == q {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(q);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// (2) A write clause spliced in as a live clause, in any letter case, is always rejected.
    #[test]
    fn inserted_write_clause_is_rejected(pick in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(),
                                         w in 0..WRITES.len(), mask in any::<u64>()) {
        let queries = benign();
        let q = pick.get(&queries);
        let bounds = clause_boundaries(q);
        let pos = *at.get(&bounds);
        let hostile = format!("{} {} {}", &q[..pos], random_case(WRITES[w], mask), &q[pos..]);
        prop_assert!(!accepted(&hostile), "accepted: {hostile}");
    }

    /// (3) Any text inside a properly escaped string literal is data: the verdict is the same as with
    /// a plain literal, and the literal reaches the query that runs unchanged.
    #[test]
    fn string_contents_never_matter(pick in any::<prop::sample::Index>(), which in any::<prop::sample::Index>(),
                                    text in any::<String>(), double in any::<bool>()) {
        let queries: Vec<String> = benign().into_iter().filter(|q| lex(q).tokens.iter().any(|t| t.kind == TokKind::Str)).collect();
        let q = pick.get(&queries);
        let strings: Vec<_> = lex(q).tokens.into_iter().filter(|t| t.kind == TokKind::Str).collect();
        let t = which.get(&strings);
        let literal = quote(&text, double);
        let with = |lit: &str| format!("{}{lit}{}", &q[..t.start], &q[t.end..]);
        let baseline = accepted(&with("'x'"));
        let probe = with(&literal);
        let report = check(&probe, Some(&schema()), &Policy { row_cap: 1000, extra_procedures: Vec::new() });
        prop_assert_eq!(report.accepted, baseline, "{}", probe);
        prop_assert!(report.accepted);
        prop_assert!(report.cypher_to_run.unwrap().contains(&literal));
    }

    /// (4) Comments between tokens never change the verdict.
    #[test]
    fn comments_between_tokens_never_matter(pick in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(),
                                            block in "[\t\n\r -~]{0,40}", line in "[\t -~]{0,40}", use_line in any::<bool>()) {
        prop_assume!(!block.contains("*/"));
        let queries = benign();
        let q = pick.get(&queries);
        let toks = lex(q).tokens;
        let gaps: Vec<usize> = std::iter::once(0).chain(toks.iter().map(|t| t.end)).collect();
        let pos = *at.get(&gaps);
        let comment = if use_line { format!("//{line}\n") } else { format!("/*{block}*/") };
        let probe = format!("{}{comment}{}", &q[..pos], &q[pos..]);
        prop_assert_eq!(accepted(&probe), accepted(q), "{}", probe);
    }

    /// (5) Sanitizing is idempotent, and whatever check accepts validates cleanly.
    #[test]
    fn sanitize_is_idempotent_and_accepted_output_validates(pick in any::<prop::sample::Index>(), cut in any::<prop::sample::Index>(),
                                                             extra in "(\\|BOGUS|\\|:X_Y| LIMIT 123456| LIMIT \\$n|)") {
        let (s, p) = (schema(), Policy { row_cap: 1000, extra_procedures: Vec::new() });
        let queries = benign();
        let q = pick.get(&queries);
        // Mutate: drop the text after some token (often removing the LIMIT), and splice in an
        // unknown type alternative or a LIMIT right after a relationship type when there is one.
        let toks = lex(q).tokens;
        let end = cut.get(&toks).end;
        let mut m = q[..end].to_string();
        if let Some(t) = lex(&m).tokens.iter().rev().find(|t| t.kind == TokKind::Ident && t.text.chars().all(|c| c.is_ascii_uppercase() || c == '_') && t.text.len() > 3) {
            m.insert_str(t.end, &extra);
        }
        for candidate in [q.as_str(), m.as_str()] {
            let once = sanitize(candidate, &s, &p);
            let twice = sanitize(&once.cypher, &s, &p);
            prop_assert_eq!(&twice.cypher, &once.cypher, "not idempotent for {}", candidate);
            let r = check(candidate, Some(&s), &p);
            if let Some(run) = r.cypher_to_run {
                prop_assert!(validate(&run, Some(&s), &p).ok, "accepted {} but {} does not validate", candidate, run);
            }
        }
    }
}

#[test]
fn corpus_has_queries_with_strings() {
    assert!(benign().iter().filter(|q| lex(q).tokens.iter().any(|t| t.kind == TokKind::Str)).count() >= 8);
}

#[test]
fn boundaries_are_found() {
    let b = clause_boundaries("MATCH (c:Concept) WHERE c.name STARTS WITH 'x' RETURN c LIMIT 1;");
    assert_eq!(b, vec![0, 47, 63]);
    assert!(benign().len() >= 35);
}
