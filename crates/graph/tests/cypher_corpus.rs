//! The Cypher gate against the hostile and benign corpora in tests/data/cypher, plus never-panic
//! fuzzing of the public entry points. (Property tests that need token positions live next to the
//! lexer, in src/graph/cypher/proptests.rs.)

use std::path::Path;

use proptest::prelude::*;
use qa_graph::cypher::{CheckReport, CypherSchema, Policy, ReasonKind, check, corpus_records, sanitize, validate};

/// (description, query) records of a corpus file in tests/data/cypher.
fn records(name: &str) -> Vec<(String, String)> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/cypher")).join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    corpus_records(&text)
}

fn schema() -> CypherSchema {
    let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
    CypherSchema {
        labels: set(&["Document", "Concept", "Image"]),
        relationship_types: set(&["MENTIONS", "RELATED_TO", "HAS_IMAGE", "DEPICTS", "PART_OF", "USES"]),
        property_keys: set(&[
            "id", "name", "aliases", "kind", "df", "source_id", "chunk_id", "source_file", "source_type", "heading_path",
            "derived_from_chunk_file", "weight", "evidence", "count", "caption", "alt", "source_path",
        ]),
    }
}

fn policy() -> Policy {
    Policy { row_cap: 1000, extra_procedures: Vec::new() }
}

fn show(about: &str, query: &str, report: &CheckReport) -> String {
    let reasons: Vec<String> = report.validation.reasons.iter().map(|r| format!("{:?}: {}", r.kind, r.message)).collect();
    let again: Vec<String> =
        report.revalidation.iter().flat_map(|v| v.reasons.iter().map(|r| format!("{:?}: {}", r.kind, r.message))).collect();
    format!("--- {about}\n{query}\n  reasons: {reasons:?}\n  after sanitizing: {again:?}\n  to run: {:?}", report.cypher_to_run)
}

#[test]
fn corpus_sizes() {
    let hostile = records("hostile.txt");
    let benign = records("benign.txt");
    println!("hostile: {}, benign: {}", hostile.len(), benign.len());
    assert!(hostile.len() >= 60, "hostile corpus has {}", hostile.len());
    assert!(benign.len() >= 35, "benign corpus has {}", benign.len());
    // Multi-line records survive parsing.
    assert!(benign.iter().any(|(_, q)| q.contains('\n')));
}

#[test]
fn every_hostile_query_is_rejected() {
    let (s, p) = (schema(), policy());
    let mut failures = Vec::new();
    let mut fixable_only = 0;
    for (about, query) in records("hostile.txt") {
        let report = check(&query, Some(&s), &p);
        if report.accepted || report.cypher_to_run.is_some() {
            failures.push(show(&about, &query, &report));
        }
        // Rejected for a reason sanitizing cannot touch, or because the fixable problem is in a
        // form sanitize does not rewrite (then nothing was rewritten).
        if report.validation.reasons.iter().all(|r| r.kind.fixable()) {
            fixable_only += 1;
            assert!(report.sanitized.is_none(), "{about}: sanitize changed a query it could not fix");
        }
    }
    assert!(failures.is_empty(), "{} hostile queries got through:\n{}", failures.len(), failures.join("\n"));
    assert!(fixable_only <= 2, "{fixable_only} hostile queries are rejected only because sanitize could not fix them");
}

#[test]
fn every_benign_query_is_accepted() {
    let (s, p) = (schema(), policy());
    let mut failures = Vec::new();
    let mut sanitized = 0;
    for (about, query) in records("benign.txt") {
        let report = check(&query, Some(&s), &p);
        let runs_ok = report.cypher_to_run.as_deref().is_some_and(|q| validate(q, Some(&s), &p).ok);
        if !report.accepted || !runs_ok {
            failures.push(show(&about, &query, &report));
        }
        if let Some(sn) = &report.sanitized {
            sanitized += 1;
            // Only the fixable kinds were wrong, and the rewrite is stable.
            assert!(report.validation.reasons.iter().all(|r| r.kind.fixable()), "{about}");
            assert_eq!(sanitize(&sn.cypher, &s, &p).cypher, sn.cypher, "{about}");
        }
    }
    println!("benign queries needing sanitizing: {sanitized}");
    assert!(failures.is_empty(), "{} benign queries were rejected:\n{}", failures.len(), failures.join("\n"));
    assert!(sanitized >= 5, "the corpus should exercise sanitizing ({sanitized})");
}

#[test]
fn rejections_name_the_rule() {
    let (s, p) = (schema(), policy());
    let kinds = |q: &str| validate(q, Some(&s), &p).reasons.into_iter().map(|r| r.kind).collect::<Vec<_>>();
    assert_eq!(kinds("MATCH (n) DETACH DELETE n"), vec![ReasonKind::WriteClause, ReasonKind::WriteClause]);
    assert_eq!(kinds("CALL dbms.killQueries(['q'])"), vec![ReasonKind::Procedure, ReasonKind::Syntax]);
    assert_eq!(kinds("MATCH (u:User) RETURN u LIMIT 1"), vec![ReasonKind::UnknownLabel]);
    assert_eq!(kinds("ＣＲＥＡＴＥ (n)"), vec![ReasonKind::NonAscii, ReasonKind::Syntax]);
}

/// Cypher-flavoured noise: reaches the bracket, label and LIMIT logic far more often than random text.
fn cypherish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "MATCH", "RETURN", "LIMIT", "UNION", "CALL", "CREATE", "WITH", "WHERE", "EXISTS", "COUNT", "AS", "n", "r", "Concept",
        "FOO", "db", "labels", "apoc", "(", ")", "[", "]", "{", "}", ":", "::", ".", "..", ",", ";", "|", "&", "!", "%", "-",
        "->", "<-", "*", "=", "'s'", "\"d\"", "'\\'", "`b`", "$p", "1", "5000", "0x1F", "1.5", "/*", "*/", "//", "\n", " ",
        "\u{200B}", "é", "\\",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

proptest! {
    // No regression files: an integration test has no source-relative place to keep them.
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_text(q in any::<String>()) {
        let (s, p) = (schema(), policy());
        let v = validate(&q, Some(&s), &p);
        prop_assert_eq!(v.ok, v.reasons.is_empty());
        let r = check(&q, None, &p);
        prop_assert_eq!(r.accepted, r.cypher_to_run.is_some());
        let _ = sanitize(&q, &s, &p);
    }

    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let q = String::from_utf8_lossy(&bytes);
        let (s, p) = (schema(), policy());
        let _ = validate(&q, Some(&s), &p);
        let _ = check(&q, Some(&s), &p);
        let _ = sanitize(&q, &s, &p);
    }

    #[test]
    fn cypherish_noise_never_panics_and_sanitize_is_stable(q in cypherish()) {
        let (s, p) = (schema(), policy());
        let once = sanitize(&q, &s, &p);
        prop_assert_eq!(&sanitize(&once.cypher, &s, &p).cypher, &once.cypher);
        let r = check(&q, Some(&s), &p);
        if let Some(run) = &r.cypher_to_run {
            prop_assert!(r.accepted);
            prop_assert!(validate(run, Some(&s), &p).ok, "accepted but does not validate: {run}");
        }
    }
}
