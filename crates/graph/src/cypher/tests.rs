use super::lexer::{TokKind, integer_value, lex};
use super::*;

fn schema() -> CypherSchema {
    let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
    CypherSchema {
        labels: set(&["Document", "Concept", "Image"]),
        relationship_types: set(&["MENTIONS", "RELATED_TO", "HAS_IMAGE", "DEPICTS", "PART_OF", "USES"]),
        property_keys: set(&["id", "name", "weight", "count", "source_id", "caption"]),
    }
}

fn policy() -> Policy {
    Policy { row_cap: 1000, extra_procedures: Vec::new() }
}

fn kinds(q: &str) -> Vec<ReasonKind> {
    validate(q, Some(&schema()), &policy()).reasons.iter().map(|r| r.kind).collect()
}

fn has(q: &str, kind: ReasonKind) -> bool {
    kinds(q).contains(&kind)
}

fn ok(q: &str) {
    let v = validate(q, Some(&schema()), &policy());
    assert!(v.ok, "expected ok: {q}\n{:#?}", v.reasons);
}

fn texts(q: &str) -> Vec<(TokKind, String)> {
    lex(q).tokens.into_iter().map(|t| (t.kind, t.text)).collect()
}

// ---------- lexer ----------

#[test]
fn lexer_string_escapes() {
    let l = lex(r#"RETURN 'it\'s', "a\"b", 'x\\', '\n\t\b\f\r', '\u0041\U0001F600'"#);
    assert!(l.errors.is_empty(), "{:?}", l.errors);
    let strs: Vec<String> = l.tokens.iter().filter(|t| t.kind == TokKind::Str).map(|t| t.text.clone()).collect();
    assert_eq!(strs, vec!["it's", "a\"b", "x\\", "\n\t\u{8}\u{c}\r", "A\u{1F600}"]);
}

#[test]
fn lexer_escaped_backslash_ends_string_so_create_is_live() {
    // 'x\\' is a complete string; CREATE after it is code; the trailing comment hides `'`.
    let l = lex(r"MATCH (n) WHERE n.name = 'x\\' CREATE (m) //'");
    assert!(l.errors.is_empty(), "{:?}", l.errors);
    assert!(l.tokens.iter().any(|t| t.kind == TokKind::Ident && t.text == "CREATE"));
    assert!(has(r"MATCH (n) WHERE n.name = 'x\\' CREATE (m) //'", ReasonKind::WriteClause));
}

#[test]
fn lexer_escaped_quote_keeps_string_open() {
    let q = r"MATCH (n) WHERE n.name = 'x\' CREATE (m) //' RETURN n LIMIT 5";
    let l = lex(q);
    assert!(l.errors.is_empty(), "{:?}", l.errors);
    assert_eq!(l.tokens.iter().filter(|t| t.kind == TokKind::Str).count(), 1);
    assert!(!l.tokens.iter().any(|t| t.text == "CREATE"));
    ok(q);
}

#[test]
fn lexer_backticks_and_comments() {
    assert_eq!(texts("`a``b`"), vec![(TokKind::QuotedIdent, "a`b".to_string())]);
    assert_eq!(texts("/* c */ x // y\nz"), vec![(TokKind::Ident, "x".into()), (TokKind::Ident, "z".into())]);
    // Block comments do not nest: the first */ ends it.
    assert_eq!(texts("/* /* */ a */"), vec![(TokKind::Ident, "a".into()), (TokKind::Punct, "*".into()), (TokKind::Punct, "/".into())]);
    // `*/*c*/` is `*` followed by a comment.
    assert_eq!(texts("[*/*c*/..3]").len(), 5);
    // A line comment ends at a lone CR too.
    assert_eq!(texts("// a\rCREATE"), vec![(TokKind::Ident, "CREATE".into())]);
}

#[test]
fn lexer_unterminated_and_bad_input() {
    for q in ["RETURN 'abc", "RETURN \"abc\\\"", "RETURN `abc", "/* open", "RETURN 'a\\", "RETURN 1 #", "RETURN $", "RETURN 1abc"] {
        let l = lex(q);
        assert!(l.errors.iter().any(|e| e.kind == ReasonKind::Syntax), "{q}: {:?}", l.errors);
        assert!(has(q, ReasonKind::Syntax), "{q}");
    }
    assert!(lex(r"RETURN '\x'").errors.iter().any(|e| e.message.contains("invalid escape")));
    assert!(lex(r"RETURN '\u12'").errors.iter().any(|e| e.message.contains("invalid escape")));
}

#[test]
fn lexer_operators_numbers_params() {
    let t = texts("(a)<-[*1..3]-(b)-->(c) WHERE a.x =~ 'r' AND a.y <> 1 AND a.z <= 2.5e3 AND $p0 >= $`odd name` AND 0x1F > .5");
    let puncts: Vec<&str> = t.iter().filter(|(k, _)| *k == TokKind::Punct).map(|(_, s)| s.as_str()).collect();
    assert!(puncts.starts_with(&["(", ")", "<-", "[", "*"]), "{puncts:?}");
    assert!(puncts.contains(&"..") && puncts.contains(&"->") && puncts.contains(&"=~") && puncts.contains(&"<>"));
    let nums: Vec<&str> = t.iter().filter(|(k, _)| *k == TokKind::Number).map(|(_, s)| s.as_str()).collect();
    assert_eq!(nums, vec!["1", "3", "1", "2.5e3", "0x1F", ".5"]);
    let params: Vec<&str> = t.iter().filter(|(k, _)| *k == TokKind::Param).map(|(_, s)| s.as_str()).collect();
    assert_eq!(params, vec!["p0", "odd name"]);
    assert_eq!(integer_value("1_000"), Some(Some(1000)));
    assert_eq!(integer_value("0x10"), Some(Some(16)));
    assert_eq!(integer_value("1.5"), None);
    assert_eq!(integer_value("99999999999999999999999"), Some(None));
}

#[test]
fn lexer_positions() {
    let l = lex("MATCH (n)\n  RETURN n");
    let ret = l.tokens.iter().find(|t| t.text == "RETURN").unwrap();
    assert_eq!((ret.line, ret.col), (2, 3));
    let v = validate("MATCH (n:Concept) CREATE (m)", None, &policy());
    assert_eq!(v.reasons[0].message, "write clause CREATE at 1:19");
}

#[test]
fn non_ascii_outside_strings_is_rejected() {
    for q in [
        "ＣＲＥＡＴＥ (n)",
        "MATCH (n) RETURN n\u{200B} LIMIT 1",
        "MATCH\u{00A0}(n) RETURN n LIMIT 1",
        "MATCH (n:Cоncept) RETURN n LIMIT 1", // Cyrillic о
        "MATCH (n) // note\u{2028}CREATE (m)\nRETURN n LIMIT 1",
        "MATCH (n) /* café */ RETURN n LIMIT 1",
    ] {
        assert!(has(q, ReasonKind::NonAscii), "{q}");
    }
    // Inside string literals and backtick identifiers non-ASCII is data.
    ok("MATCH (c:Concept) WHERE c.name = 'café ＣＲＥＡＴＥ' RETURN c.`näme` LIMIT 1");
}

#[test]
fn control_characters_outside_strings_are_rejected() {
    assert!(has("MATCH (n)\u{b}RETURN n LIMIT 1", ReasonKind::Syntax));
    assert!(has("MATCH (n) // x\u{c}CREATE (m)\nRETURN n LIMIT 1", ReasonKind::Syntax));
    ok("MATCH (n:Concept)\tWHERE n.name = 'a\u{b}b'\r\nRETURN n LIMIT 1");
}

// ---------- rules ----------

#[test]
fn write_clauses_any_case_any_depth() {
    for q in [
        "cReAtE (n)",
        "MATCH (n) DeTaCh DeLeTe n",
        "MATCH (n) SET n.name = 'x' RETURN n LIMIT 1",
        "MATCH (n) REMOVE n:Concept RETURN n LIMIT 1",
        "MERGE (n:Concept {id: 'x'}) RETURN n LIMIT 1",
        "UNWIND [1] AS x FOREACH (i IN [1] | CREATE (n)) RETURN x LIMIT 1",
        "LOAD CSV FROM 'file:///x.csv' AS row RETURN row LIMIT 1",
        "MATCH (n) CALL { WITH n DELETE n } RETURN 1 LIMIT 1",
        "MATCH (n) CALL { WITH n RETURN n AS m } IN TRANSACTIONS RETURN m LIMIT 1",
        "USING PERIODIC COMMIT LOAD CSV FROM 'x' AS r RETURN r LIMIT 1",
        "INSERT (n:Concept)",
        "MATCH (n) RETURN [x IN [1] | x] AS l, COUNT { CREATE (m) } AS c LIMIT 1",
    ] {
        assert!(has(q, ReasonKind::WriteClause), "{q}: {:?}", kinds(q));
    }
}

#[test]
fn keywords_in_strings_comments_backticks_properties_do_not_count() {
    ok("MATCH (c:Concept) WHERE c.name = 'CREATE (n); DROP DATABASE x' RETURN c LIMIT 5");
    ok("MATCH (c:Concept) // DETACH DELETE c\nRETURN c /* SET c.x = 1 */ LIMIT 5");
    ok("MATCH (c:Concept) RETURN c.`CREATE`, c.set, c.delete AS deleted LIMIT 5");
    // Conservative: a keyword as an alias is rejected (see `variable_use`).
    assert!(has("MATCH (c:Concept) RETURN c.name AS set LIMIT 5", ReasonKind::WriteClause));
    ok("MATCH (c:Concept) RETURN c.name AS `set` LIMIT 5");
    ok("MATCH (start:Concept)-[set:RELATED_TO]->(end:Concept) RETURN start.name, end.name, set.weight LIMIT 5;");
    // An alias followed by more text may be a variable in front of a live clause.
    assert!(has("MATCH (as:Concept) WITH as CREATE (n) RETURN 1 LIMIT 1", ReasonKind::WriteClause));
    assert!(has("MATCH (as:Concept) WITH as DELETE limit RETURN 1 LIMIT 1", ReasonKind::WriteClause));
    assert!(has("CALL { CALL { MATCH (n:Concept) RETURN n } IN TRANSACTIONS } RETURN 1 LIMIT 1", ReasonKind::WriteClause));
    ok("MATCH (c:Concept) RETURN c {.id, .name, create: c.name, merge: 1, transactions: 2} LIMIT 5");
    ok("MATCH (c:Concept) USING INDEX c:Concept(id) WHERE c.id = $id RETURN c LIMIT 5");
    // After a number the word keeps its keyword meaning: some lexers read `1.` as a float.
    assert!(has("RETURN 1. CREATE (n)", ReasonKind::WriteClause));
}

#[test]
fn admin_commands() {
    for q in ["SHOW USERS", "DROP DATABASE neo4j", "GRANT ROLE admin TO bob", "EXPLAIN MATCH (n) RETURN n LIMIT 1", "profile MATCH (n) RETURN n LIMIT 1",
        "USE system MATCH (n) RETURN n LIMIT 1", "ALTER USER bob SET PASSWORD 'x'", "STOP DATABASE neo4j", "TERMINATE TRANSACTIONS 'x'"] {
        assert!(has(q, ReasonKind::AdminCommand), "{q}: {:?}", kinds(q));
    }
}

#[test]
fn procedures() {
    ok("CALL db.labels()");
    ok("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType LIMIT 10");
    ok("CALL db.index.fulltext.queryNodes('entityIndex', $q) YIELD node, score RETURN node.name, score LIMIT 10");
    let v = validate("CALL apoc.export.csv.all('x.csv', {})", None, &policy());
    assert_eq!(v.reasons[0].kind, ReasonKind::Procedure);
    assert!(v.reasons[0].message.contains("apoc.export.csv.all") && v.reasons[0].message.contains("APOC"), "{:?}", v.reasons);
    assert_eq!(v.procedures, vec!["apoc.export.csv.all"]);
    assert!(validate("CALL dbms.security.createUser('a','b',false)", None, &policy()).reasons[0].message.contains("dbms.*"));
    assert!(validate("CALL db.createLabel('X')", None, &policy()).reasons[0].message.contains("db.create*"));
    assert!(has("CALL `apoc`.`do`.when(true, 'CREATE (n)', '') YIELD value RETURN value LIMIT 1", ReasonKind::Procedure));
    // Extra procedures from the policy.
    let p = Policy { row_cap: 10, extra_procedures: vec!["gds.pagerank.stream".into()] };
    assert!(validate("CALL gds.pageRank.stream('g') YIELD nodeId RETURN nodeId LIMIT 5", None, &p).ok);
    // Subqueries are fine; their contents are checked.
    ok("MATCH (c:Concept) CALL { WITH c MATCH (c)<-[:MENTIONS]-(d:Document) RETURN count(d) AS n } RETURN c.id, n LIMIT 5");
    ok("MATCH (c:Concept) CALL (c) { MATCH (c)-[:RELATED_TO]-(o:Concept) RETURN o LIMIT 3 } RETURN c, o LIMIT 5");
}

#[test]
fn functions() {
    assert!(has("RETURN apoc.cypher.runFirstColumn('MATCH (n) DETACH DELETE n', {}) AS x LIMIT 1", ReasonKind::Function));
    assert!(has("MATCH (n) RETURN apoc.create.node(['X'], {}) LIMIT 1", ReasonKind::Function));
    assert!(has("RETURN custom . fn (1) LIMIT 1", ReasonKind::Function));
    ok("MATCH (c:Concept) RETURN toLower(c.name), coalesce(c.name, c.id), size(c.aliases) AS n LIMIT 3");
    ok("MATCH p = shortestPath((a:Concept {id: $a})-[*..4]-(b:Concept {id: $b})) RETURN p, length(p) LIMIT 1");
    ok("RETURN point.distance(point({x: 1, y: 2}), point({x: 2, y: 3})) AS d LIMIT 1");
}

#[test]
fn multiple_statements_and_empty() {
    assert!(has("MATCH (n) RETURN n LIMIT 1; MATCH (m) RETURN m LIMIT 1", ReasonKind::MultipleStatements));
    assert!(has("MATCH (n) RETURN n LIMIT 1; CREATE (m)", ReasonKind::MultipleStatements));
    ok("MATCH (n:Concept) RETURN n LIMIT 1;");
    ok("MATCH (n:Concept) RETURN n LIMIT 1 ; // done");
    for q in ["", "   \n\t", "// only a comment", "/* c */ ;"] {
        assert_eq!(kinds(q), vec![ReasonKind::Empty], "{q:?}");
    }
}

#[test]
fn labels_and_relationship_types() {
    let v = validate("MATCH (d:Document)-[m:MENTIONS|FOO]->(c:Concept:Bogus) WHERE c:Image OR c:`Weird Label` RETURN d LIMIT 1", Some(&schema()), &policy());
    assert_eq!(v.labels, vec!["Document", "Concept", "Bogus", "Image", "Weird Label"]);
    assert_eq!(v.relationship_types, vec!["MENTIONS", "FOO"]);
    let k: Vec<_> = v.reasons.iter().map(|r| r.kind).collect();
    assert_eq!(k, vec![ReasonKind::UnknownRelationshipType, ReasonKind::UnknownLabel, ReasonKind::UnknownLabel]);
    // Map keys are not labels; label expressions are.
    ok("MATCH (c:Concept {name: 'x', id: $id}) WHERE c:Concept|Image AND NOT c:!Document RETURN {a: c.name, b: 1} LIMIT 1");
    ok("MATCH (c) WHERE c:(Concept|Image)&!Document RETURN c LIMIT 1");
    ok("MATCH (a)-[:RELATED_TO|:PART_OF]->(b) RETURN a, b LIMIT 1");
    ok("MATCH (a)-[r]->(b) WHERE r:MENTIONS RETURN a LIMIT 1");
    assert!(has("MATCH (a)-[r]->(b) WHERE r:FOO RETURN a LIMIT 1", ReasonKind::UnknownRelationshipType));
    // `|` in a list comprehension separates the projection.
    ok("MATCH (c:Concept) RETURN [x IN [c] WHERE x:Concept | x.name] AS names LIMIT 1");
    // No schema: no label checks.
    assert!(validate("MATCH (x:Anything)-[:WHATEVER]->(y) RETURN x LIMIT 1", None, &policy()).ok);
}

#[test]
fn property_keys_only_warn() {
    let v = validate("MATCH (c:Concept {nam: 'x'}) RETURN c.bogus, c {.id, .other}, {free: 1} LIMIT 1", Some(&schema()), &policy());
    assert!(v.ok, "{:?}", v.reasons);
    assert_eq!(v.warnings.len(), 3, "{:?}", v.warnings);
    assert!(v.warnings.iter().any(|w| w.contains("bogus")) && v.warnings.iter().any(|w| w.contains("nam ")));
    assert!(!v.warnings.iter().any(|w| w.contains("free")));
}

#[test]
fn limit_rules() {
    let p = policy();
    assert!(has("MATCH (n:Concept) RETURN n", ReasonKind::MissingLimit));
    assert!(has("MATCH (n:Concept) RETURN n LIMIT 5000", ReasonKind::LimitTooLarge));
    assert!(has("MATCH (n:Concept) RETURN n LIMIT 99999999999999999999999", ReasonKind::LimitTooLarge));
    let v = validate("MATCH (n:Concept) RETURN n LIMIT $n", None, &p);
    assert_eq!(v.reasons[0].kind, ReasonKind::LimitTooLarge);
    assert!(v.reasons[0].message.contains("LIMIT must be a literal"), "{}", v.reasons[0].message);
    assert!(has("MATCH (n:Concept) RETURN n LIMIT 10 + 5", ReasonKind::LimitTooLarge));
    // The LIMIT must follow the final RETURN; limits in subqueries or before RETURN don't count.
    assert!(has("MATCH (n:Concept) WITH n LIMIT 10 MATCH (n)--(m) RETURN m", ReasonKind::MissingLimit));
    assert!(has("CALL { MATCH (n:Concept) RETURN n LIMIT 10 } RETURN n", ReasonKind::MissingLimit));
    assert_eq!(validate("MATCH (n) RETURN n ORDER BY n.name SKIP 5 LIMIT 0x10", None, &p).limit, Some(16));
    // UNION: every part needs its own.
    let u = validate("MATCH (c:Concept) RETURN c.id AS id LIMIT 5 UNION MATCH (d:Document) RETURN d.id AS id", None, &p);
    assert_eq!(u.reasons.len(), 1);
    assert!(u.reasons[0].message.starts_with("query part 2 of 2"), "{:?}", u.reasons);
    assert!(validate("MATCH (c:Concept) RETURN c.id AS id LIMIT 5 UNION ALL MATCH (d:Document) RETURN d.id AS id LIMIT 7", None, &p).ok);
    // Standalone schema procedures need none; other reads need RETURN.
    assert!(validate("CALL db.labels()", None, &p).ok);
    assert!(has("CALL db.index.fulltext.queryNodes('entityIndex', 'x')", ReasonKind::Syntax));
    assert!(has("MATCH (n:Concept)", ReasonKind::Syntax));
}

#[test]
fn brackets_must_balance() {
    assert!(has("MATCH (n RETURN n LIMIT 1", ReasonKind::Syntax));
    assert!(has("MATCH (n)) RETURN n LIMIT 1", ReasonKind::Syntax));
    assert!(has("MATCH (n] RETURN n LIMIT 1", ReasonKind::Syntax));
    // A stray } cannot make the final LIMIT look nested or hide a clause.
    assert!(has("MATCH (n) } CREATE (m) RETURN n LIMIT 1", ReasonKind::WriteClause));
}

#[test]
fn fixable_kinds() {
    use ReasonKind::*;
    let all = [Syntax, WriteClause, AdminCommand, Procedure, Function, MultipleStatements, UnknownLabel, UnknownRelationshipType, MissingLimit, LimitTooLarge, NonAscii, Empty];
    let fixable: Vec<_> = all.into_iter().filter(|k| k.fixable()).collect();
    assert_eq!(fixable, vec![UnknownRelationshipType, MissingLimit, LimitTooLarge]);
    assert_eq!(serde_json::to_string(&UnknownRelationshipType).unwrap(), "\"unknown_relationship_type\"");
}

// ---------- sanitize ----------

fn san(q: &str) -> Sanitized {
    sanitize(q, &schema(), &policy())
}

#[test]
fn sanitize_relationship_types() {
    assert_eq!(san("MATCH (a)-[r:MENTIONS|FOO]->(b) RETURN a LIMIT 1").cypher, "MATCH (a)-[r:MENTIONS]->(b) RETURN a LIMIT 1");
    assert_eq!(san("MATCH (a)-[r:FOO|MENTIONS]->(b) RETURN a LIMIT 1").cypher, "MATCH (a)-[r:MENTIONS]->(b) RETURN a LIMIT 1");
    assert_eq!(san("MATCH (a)-[:FOO|:MENTIONS|:BAR]->(b) RETURN a LIMIT 1").cypher, "MATCH (a)-[:MENTIONS]->(b) RETURN a LIMIT 1");
    assert_eq!(san("MATCH (a)-[r:BAD*1..3]-(b) RETURN a LIMIT 1").cypher, "MATCH (a)-[r*1..3]-(b) RETURN a LIMIT 1");
    assert_eq!(san("MATCH (a)<-[:`BAD` {w: 1}]-(b) RETURN a LIMIT 1").cypher, "MATCH (a)<-[ {w: 1}]-(b) RETURN a LIMIT 1");
    let s = san("MATCH (a)-[r:MENTIONS|FOO]->(b) RETURN a LIMIT 1");
    assert_eq!(s.changes, vec!["dropped unknown relationship type FOO from [r:MENTIONS|FOO]"]);
    // Complex filters are left alone (and stay rejected).
    let q = "MATCH (a)-[r:!FOO]->(b) RETURN a LIMIT 1";
    assert_eq!(san(q).cypher, q);
    assert!(!check(q, Some(&schema()), &policy()).accepted);
}

#[test]
fn sanitize_limits() {
    let s = san("MATCH (n:Concept) RETURN n // trailing comment\n;");
    assert_eq!(s.cypher, "MATCH (n:Concept) RETURN n LIMIT 1000 // trailing comment\n;");
    assert_eq!(s.changes, vec!["added LIMIT 1000"]);
    let s = san("MATCH (n:Concept) RETURN n ORDER BY n.name LIMIT 5000");
    assert_eq!(s.cypher, "MATCH (n:Concept) RETURN n ORDER BY n.name LIMIT 1000");
    assert_eq!(s.changes, vec!["clamped LIMIT 5000 to 1000"]);
    let s = san("MATCH (c:Concept) RETURN c.id AS id UNION MATCH (d:Document) RETURN d.id AS id LIMIT 3");
    assert_eq!(s.cypher, "MATCH (c:Concept) RETURN c.id AS id LIMIT 1000 UNION MATCH (d:Document) RETURN d.id AS id LIMIT 3");
    // `LIMIT $n` is not rewritten.
    assert!(san("MATCH (n) RETURN n LIMIT $n").changes.is_empty());
}

#[test]
fn sanitize_preserves_everything_else_and_is_idempotent() {
    let q = "/* head */ MATCH (d:Document)-[m:MENTIONS|NOPE]->(c:Concept)\n  WHERE c.name = 'a -[:NOPE]-> b' // NOPE\n  RETURN d.`source_id`,\tc.name";
    let s = san(q);
    assert_eq!(
        s.cypher,
        "/* head */ MATCH (d:Document)-[m:MENTIONS]->(c:Concept)\n  WHERE c.name = 'a -[:NOPE]-> b' // NOPE\n  RETURN d.`source_id`,\tc.name LIMIT 1000"
    );
    assert_eq!(san(&s.cypher).cypher, s.cypher);
    assert!(san(&s.cypher).changes.is_empty());
    for q in ["", "MATCH (n) RETURN n LIMIT $x", "MATCH (a)-[r:X|Y*2]->(b) RETURN b LIMIT 99999", "RETURN 'unterminated", "CREATE (n)"] {
        let once = san(q).cypher;
        assert_eq!(san(&once).cypher, once, "{q}");
    }
}

// ---------- check ----------

#[test]
fn check_gate() {
    let s = schema();
    let p = policy();
    let r = check("MATCH (c:Concept) RETURN c.name LIMIT 10", Some(&s), &p);
    assert!(r.accepted && r.sanitized.is_none() && r.revalidation.is_none());
    assert_eq!(r.cypher_to_run.as_deref(), Some("MATCH (c:Concept) RETURN c.name LIMIT 10"));

    let r = check("MATCH (a:Concept)-[:RELATED_TO|CAUSES*1..2]-(b:Concept) RETURN b.name", Some(&s), &p);
    assert!(r.accepted, "{r:#?}");
    assert!(!r.validation.ok);
    assert_eq!(r.sanitized.as_ref().unwrap().changes.len(), 2);
    assert!(r.revalidation.as_ref().unwrap().ok);
    assert_eq!(r.cypher_to_run.as_deref(), Some("MATCH (a:Concept)-[:RELATED_TO*1..2]-(b:Concept) RETURN b.name LIMIT 1000"));

    // Unfixable reasons: no sanitizing at all.
    let r = check("MATCH (a:Nope) RETURN a", Some(&s), &p);
    assert!(!r.accepted && r.sanitized.is_none() && r.cypher_to_run.is_none());
    let r = check("MATCH (a) CREATE (b) RETURN a", Some(&s), &p);
    assert!(!r.accepted && r.sanitized.is_none());

    // Without a schema only structure is checked; LIMIT is still fixed.
    let r = check("MATCH (a:Nope)-[:WHATEVER]->(b) RETURN a", None, &p);
    assert!(r.accepted);
    assert_eq!(r.cypher_to_run.as_deref(), Some("MATCH (a:Nope)-[:WHATEVER]->(b) RETURN a LIMIT 1000"));

    // Fixable but not fixed by sanitize: rejected, nothing to run.
    let r = check("MATCH (a:Concept) RETURN a LIMIT $n", Some(&s), &p);
    assert!(!r.accepted && r.sanitized.is_none() && r.cypher_to_run.is_none());
    // Sanitizing cannot fix a type tested in WHERE.
    let r = check("MATCH (a)-[r]->(b) WHERE r:FOO RETURN a LIMIT 3", Some(&s), &p);
    assert!(!r.accepted);
}

#[test]
fn reports_serialize() {
    let r = check("MATCH (c:Concept) RETURN c", Some(&schema()), &policy());
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["validation"]["reasons"][0]["kind"], "missing_limit");
    let back: CheckReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, r);
}
