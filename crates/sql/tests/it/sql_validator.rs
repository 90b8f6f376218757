//! The SQL validator against the hostile and benign corpora in tests/data/sql, plus property
//! tests: it never panics, a write is refused however it is wrapped, its output is a fixed point
//! and always carries a LIMIT no larger than the row cap.

use proptest::prelude::*;
use qa_sql::validate::{ReasonKind, Verdict, case_insensitive, count_probe, literal_filters, validate};
use qa_sql::{ColumnInfo, DbSchema, Dialect, ForeignKey, TableInfo};
use sqlparser::ast::{Expr, LimitClause, Statement, Value};
use sqlparser::dialect::{PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;

const ROW_CAP: usize = 200;

/// The sample audit database both engines are built with.
fn schema() -> DbSchema {
    let col = |name: &str, data_type: &str, nullable: bool| ColumnInfo {
        name: name.to_string(),
        data_type: data_type.to_string(),
        nullable,
        ..ColumnInfo::default()
    };
    let fk = |column: &str, table: &str| ForeignKey {
        columns: vec![column.to_string()],
        ref_table: table.to_string(),
        ref_columns: vec!["id".to_string()],
    };
    let table = |name: &str, columns: Vec<ColumnInfo>, foreign_keys: Vec<ForeignKey>| TableInfo {
        name: name.to_string(),
        columns,
        primary_key: vec!["id".to_string()],
        foreign_keys,
        row_count: None,
    };
    DbSchema {
        dialect: None,
        tables: vec![
            table(
                "departments",
                vec![col("id", "integer", false), col("name", "text", false), col("region", "text", false)],
                vec![],
            ),
            table(
                "auditors",
                vec![
                    col("id", "integer", false),
                    col("full_name", "text", false),
                    col("department_id", "integer", false),
                    col("hired_on", "date", false),
                ],
                vec![fk("department_id", "departments")],
            ),
            table(
                "audits",
                vec![
                    col("id", "integer", false),
                    col("title", "text", false),
                    col("department_id", "integer", false),
                    col("lead_auditor_id", "integer", false),
                    col("audit_type", "text", false),
                    col("status", "text", false),
                    col("started_on", "date", false),
                    col("closed_on", "date", true),
                ],
                vec![fk("department_id", "departments"), fk("lead_auditor_id", "auditors")],
            ),
            table(
                "findings",
                vec![
                    col("id", "integer", false),
                    col("audit_id", "integer", false),
                    col("category", "text", false),
                    col("severity", "text", false),
                    col("status", "text", false),
                    col("reported_on", "date", false),
                    col("due_on", "date", false),
                    col("closed_on", "date", true),
                    col("estimated_cost", "numeric(10,2)", false),
                    col("summary", "text", false),
                ],
                vec![fk("audit_id", "audits")],
            ),
        ],
    }
}

struct Record {
    about: String,
    dialects: Vec<Dialect>,
    expect: Vec<ReasonKind>,
    sql: String,
}

/// Records of a corpus file: separated by `---` lines; leading `#` lines describe the record,
/// with `# dialect: …` and `# expect: kind, …` directives.
fn records(name: &str) -> Vec<Record> {
    let path = crate::common::repo().join("tests/data/sql").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for block in text.split('\n').collect::<Vec<_>>().split(|line| *line == "---") {
        let header: Vec<&str> =
            block.iter().take_while(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim()).collect();
        let sql = block[header.len()..].join("\n").trim().to_string();
        if sql.is_empty() {
            continue;
        }
        let mut rec = Record {
            about: String::new(),
            dialects: vec![Dialect::Sqlite, Dialect::Postgres],
            expect: Vec::new(),
            sql,
        };
        let mut about = Vec::new();
        for line in header {
            if let Some(d) = line.strip_prefix("dialect:") {
                rec.dialects = vec![Dialect::parse(d).unwrap_or_else(|| panic!("bad dialect in {name}: {line}"))];
            } else if let Some(kinds) = line.strip_prefix("expect:") {
                rec.expect = kinds
                    .split(',')
                    .map(|k| {
                        serde_json::from_value(serde_json::Value::String(k.trim().to_string()))
                            .unwrap_or_else(|e| panic!("bad reason kind in {name}: {line}: {e}"))
                    })
                    .collect();
            } else {
                about.push(line);
            }
        }
        rec.about = about.join(" ");
        out.push(rec);
    }
    out
}

fn show(about: &str, dialect: Dialect, sql: &str, v: &Verdict) -> String {
    let reasons: Vec<String> = v.reasons.iter().map(|r| format!("{:?}: {}", r.kind, r.message)).collect();
    format!("--- [{}] {about}\n{sql}\n  reasons: {reasons:?}\n  sql: {:?}", dialect.as_str(), v.sql)
}

/// The literal LIMIT of the outermost query of `sql`, parsed independently of the validator.
fn outer_limit(sql: &str, dialect: Dialect) -> Option<u64> {
    let stmts = match dialect {
        Dialect::Sqlite => Parser::parse_sql(&SQLiteDialect {}, sql),
        Dialect::Postgres => Parser::parse_sql(&PostgreSqlDialect {}, sql),
    }
    .ok()?;
    let [Statement::Query(q)] = stmts.as_slice() else { return None };
    if q.fetch.is_some() {
        return None;
    }
    let limit = match q.limit_clause.as_ref()? {
        LimitClause::LimitOffset { limit: Some(l), .. } => l,
        LimitClause::OffsetCommaLimit { limit, .. } => limit,
        LimitClause::LimitOffset { limit: None, .. } => return None,
    };
    match limit {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

#[test]
fn corpus_sizes() {
    let hostile = records("hostile.txt");
    let benign = records("benign.txt");
    let runs = |rs: &[Record]| rs.iter().map(|r| r.dialects.len()).sum::<usize>();
    eprintln!(
        "hostile: {} records, {} runs; benign: {} records, {} runs",
        hostile.len(),
        runs(&hostile),
        benign.len(),
        runs(&benign)
    );
    assert!(hostile.len() >= 80, "hostile corpus has {}", hostile.len());
    assert!(benign.len() >= 40, "benign corpus has {}", benign.len());
    for d in [Dialect::Sqlite, Dialect::Postgres] {
        assert!(hostile.iter().filter(|r| r.dialects.contains(&d)).count() >= 60, "too few hostile records for {d:?}");
        assert!(benign.iter().filter(|r| r.dialects.contains(&d)).count() >= 40, "too few benign records for {d:?}");
    }
    // Multi-line records and directives survive parsing.
    assert!(benign.iter().any(|r| r.sql.contains('\n')));
    assert!(hostile.iter().any(|r| r.sql.contains('\n')));
    assert!(hostile.iter().filter(|r| !r.expect.is_empty()).count() >= 80);
}

#[test]
fn every_hostile_statement_is_rejected() {
    let s = schema();
    let mut failures = Vec::new();
    let mut runs = 0;
    for rec in records("hostile.txt") {
        for &d in &rec.dialects {
            runs += 1;
            let v = validate(&rec.sql, d, Some(&s), ROW_CAP);
            if v.ok || v.sql.is_some() || v.reasons.is_empty() {
                failures.push(format!("ACCEPTED {}", show(&rec.about, d, &rec.sql, &v)));
            } else if !rec.expect.is_empty() && !rec.expect.iter().any(|k| v.has(*k)) {
                failures.push(format!(
                    "wrong reason (wanted one of {:?}) {}",
                    rec.expect,
                    show(&rec.about, d, &rec.sql, &v)
                ));
            }
        }
    }
    eprintln!("hostile: {}/{runs} rejected for the expected reason", runs - failures.len());
    assert!(failures.is_empty(), "{} hostile runs not rejected as expected:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn hostile_statements_are_rejected_without_a_schema_too_unless_they_need_one() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for rec in records("hostile.txt") {
        if rec.expect.iter().any(|k| matches!(k, ReasonKind::UnknownTable | ReasonKind::UnknownColumn)) {
            continue;
        }
        for &d in &rec.dialects {
            runs += 1;
            let v = validate(&rec.sql, d, None, ROW_CAP);
            if v.ok || v.sql.is_some() {
                failures.push(show(&rec.about, d, &rec.sql, &v));
            }
        }
    }
    eprintln!("hostile without schema: {}/{runs} rejected", runs - failures.len());
    assert!(failures.is_empty(), "accepted without a schema:\n{}", failures.join("\n"));
}

#[test]
fn every_benign_query_is_accepted_capped_and_stable() {
    let s = schema();
    let mut failures = Vec::new();
    let mut runs = 0;
    let (mut added, mut lowered) = (0, 0);
    for rec in records("benign.txt") {
        for &d in &rec.dialects {
            runs += 1;
            let v = validate(&rec.sql, d, Some(&s), ROW_CAP);
            let Some(out) = v.sql.clone().filter(|_| v.ok) else {
                failures.push(format!("REFUSED {}", show(&rec.about, d, &rec.sql, &v)));
                continue;
            };
            added += v.changes.iter().filter(|c| c.contains("added")).count();
            lowered += v.changes.iter().filter(|c| c.contains("lowered") || c.contains("rewritten")).count();
            match outer_limit(&out, d) {
                Some(n) if n <= ROW_CAP as u64 => {}
                other => failures.push(format!("LIMIT {other:?} {}", show(&rec.about, d, &rec.sql, &v))),
            }
            let again = validate(&out, d, Some(&s), ROW_CAP);
            if !again.ok || again.sql.as_deref() != Some(out.as_str()) || !again.changes.is_empty() {
                failures.push(format!("NOT IDEMPOTENT {}\n  again: {again:?}", show(&rec.about, d, &rec.sql, &v)));
            }
            if v.tables.is_empty() {
                failures.push(format!("NO TABLES {}", show(&rec.about, d, &rec.sql, &v)));
            }
            // The diagnose helpers work on every accepted query.
            if count_probe(&out, d).is_none_or(|p| !validate(&p, d, Some(&s), ROW_CAP).ok) {
                failures.push(format!("COUNT PROBE {}", show(&rec.about, d, &rec.sql, &v)));
            }
            if let Some(ci) = case_insensitive(&out, d) {
                let w = validate(&ci, d, Some(&s), ROW_CAP);
                if !w.ok {
                    failures.push(format!("CASE FIX {ci}: {:?} {}", w.reasons, show(&rec.about, d, &rec.sql, &v)));
                }
            }
            let _ = literal_filters(&out, d);
        }
    }
    eprintln!("benign: {}/{runs} accepted ({added} LIMITs added, {lowered} lowered)", runs - failures.len());
    assert!(added > 0 && lowered > 0, "the corpus should exercise adding and lowering LIMITs");
    assert!(failures.is_empty(), "{} benign runs failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn literal_filters_and_case_fix_on_the_sample_schema() {
    let sql = "SELECT f.id FROM findings f JOIN audits a ON a.id = f.audit_id \
               WHERE f.severity = 'critical' AND a.audit_type IN ('internal', 'external')";
    let filters = literal_filters(sql, Dialect::Postgres);
    let got: Vec<(Option<&str>, &str, &str)> =
        filters.iter().map(|f| (f.table.as_deref(), f.column.as_str(), f.value.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (Some("findings"), "severity", "critical"),
            (Some("audits"), "audit_type", "internal"),
            (Some("audits"), "audit_type", "external"),
        ]
    );
    for d in [Dialect::Sqlite, Dialect::Postgres] {
        let fixed = case_insensitive(sql, d).expect("something to fix");
        let v = validate(&fixed, d, Some(&schema()), ROW_CAP);
        assert!(v.ok, "{fixed}: {:?}", v.reasons);
        assert!(fixed.contains(if d == Dialect::Postgres { "ILIKE 'critical'" } else { "COLLATE NOCASE" }), "{fixed}");
    }
}

// ------------------------------------------------------------------------------------------
// Property tests

const WRITES: &[&str] = &[
    "DELETE FROM findings",
    "DROP TABLE findings",
    "UPDATE findings SET status = 'Closed'",
    "INSERT INTO departments VALUES (99, 'x', 'y')",
    "CREATE TABLE loot AS SELECT * FROM findings",
    "ALTER TABLE findings ADD COLUMN x INTEGER",
    "TRUNCATE findings",
    "GRANT ALL ON findings TO PUBLIC",
    "ATTACH DATABASE '/tmp/x.db' AS x",
    "PRAGMA writable_schema = 1",
    "COPY findings TO '/tmp/x.csv'",
    "VACUUM",
    "COMMIT",
    "BEGIN READ WRITE",
    "REPLACE INTO departments VALUES (1, 'a', 'b')",
];

const SELECTS: &[&str] = &[
    "SELECT id FROM findings",
    "SELECT severity, COUNT(*) AS n FROM findings GROUP BY severity",
    "SELECT a.title FROM audits a JOIN departments d ON d.id = a.department_id",
    "WITH x AS (SELECT id FROM audits) SELECT id FROM x",
    "SELECT 1",
];

/// Tokens for SQL-shaped noise.
const SHAPES: &[&str] = &[
    "SELECT", "FROM", "WHERE", "(", ")", ",", ";", "'", "\"", "--", "/*", "*/", "$$", "LIMIT", "ALL", "UNION", "WITH",
    "AS", "findings", "id", "1", "*", "=", "E'\\'", "INTO", "FOR", "UPDATE", "\n", "OFFSET", "FETCH", "FIRST", "ROWS",
];

const COMMENTS: &[&str] = &["", " ", "\n", "\t", " /* note */ ", " -- note\n", "/**/", " /* a\nb */ "];

fn pick(xs: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(xs)
}

fn dialect() -> impl Strategy<Value = Dialect> {
    prop_oneof![Just(Dialect::Sqlite), Just(Dialect::Postgres)]
}

fn commentable(w: &str) -> &str {
    if w.starts_with("BEGIN") || w.starts_with("REPLACE") { "DROP TABLE findings" } else { w }
}

/// A write statement placed inside, before or after benign SELECT text.
fn wrapped_write() -> impl Strategy<Value = String> {
    (pick(WRITES), pick(SELECTS), pick(COMMENTS), pick(COMMENTS), 0..9usize).prop_map(|(w, s, c1, c2, how)| match how {
        0 => format!("{c1}{s}{c2};{c1}{w}"),
        1 => format!("{c1}{w}{c2};{s}"),
        2 => format!("{s}{c1};{c2}{w};"),
        3 => format!("WITH x AS ({w}){c1}SELECT * FROM x"),
        4 => format!("{s} WHERE id IN ({w})"),
        5 => format!("{s}{c1} UNION {c2}{w}"),
        6 => format!("{c1}{w}{c2}"),
        // Inside a comment the write never runs (the output is re-printed without comments), but
        // a statement keyword there is refused anyway; BEGIN/REPLACE are not among those words.
        7 => format!("{s} /* {} */", commentable(w)),
        _ => format!("{s} -- {}\n", commentable(w)),
    })
}

/// Random read queries over the sample schema, with random LIMIT/OFFSET.
fn generated_select() -> impl Strategy<Value = (String, Option<u64>)> {
    let table = prop::sample::select(vec![
        ("findings", vec!["id", "severity", "status", "category", "estimated_cost", "reported_on"]),
        ("audits", vec!["id", "title", "status", "audit_type", "started_on"]),
        ("departments", vec!["id", "name", "region"]),
        ("auditors", vec!["id", "full_name", "hired_on"]),
    ]);
    let limit = prop_oneof![Just(None), (0u64..5000).prop_map(Some), any::<u64>().prop_map(Some)];
    (
        table,
        any::<prop::sample::Index>(),
        any::<bool>(),
        any::<bool>(),
        "[A-Za-z ]{0,8}",
        limit,
        prop::option::of(0u64..1000),
    )
        .prop_map(|((t, cols), ix, distinct, ordered, literal, limit, offset)| {
            let col = ix.get(&cols);
            let mut sql = format!("SELECT {}{col}, COUNT(*) AS n FROM {t} t0", if distinct { "DISTINCT " } else { "" });
            sql += &format!(" WHERE t0.{col} IS NOT NULL OR t0.id = '{}'", literal.replace('\'', "''"));
            sql += &format!(" GROUP BY {col}");
            if ordered {
                sql += " ORDER BY n DESC";
            }
            if let Some(l) = limit {
                sql += &format!(" LIMIT {l}");
                if let Some(o) = offset {
                    sql += &format!(" OFFSET {o}");
                }
            }
            (sql, limit)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_text(
        text in any::<String>(), d in dialect(), with_schema in any::<bool>(), cap in 0usize..100_000,
    ) {
        let s = schema();
        let v = validate(&text, d, with_schema.then_some(&s), cap);
        prop_assert_eq!(v.ok, v.sql.is_some());
        prop_assert!(v.ok || !v.reasons.is_empty());
        let _ = literal_filters(&text, d);
        let _ = case_insensitive(&text, d);
        let _ = count_probe(&text, d);
    }

    #[test]
    fn never_panics_on_sql_shaped_text(
        parts in prop::collection::vec(prop_oneof![
            pick(SHAPES).prop_map(str::to_string),
            "[a-z_]{1,6}",
        ], 0..40),
        d in dialect(),
    ) {
        let text = parts.join(" ");
        let v = validate(&text, d, Some(&schema()), 100);
        prop_assert_eq!(v.ok, v.sql.is_some());
        if let Some(out) = v.sql {
            let limit = outer_limit(&out, d);
            prop_assert!(limit.is_some_and(|n| n <= 100), "{} -> {}", text, out);
        }
    }

    #[test]
    fn a_write_is_refused_however_it_is_wrapped(sql in wrapped_write(), d in dialect(), with_schema in any::<bool>()) {
        let s = schema();
        let v = validate(&sql, d, with_schema.then_some(&s), ROW_CAP);
        prop_assert!(!v.ok && v.sql.is_none(), "accepted: {}\n{:?}", sql, v);
    }

    #[test]
    fn accepted_output_is_a_fixed_point_with_a_capped_limit(
        (sql, input_limit) in generated_select(), d in dialect(), cap in 0usize..3000,
    ) {
        let s = schema();
        let v = validate(&sql, d, Some(&s), cap);
        prop_assert!(v.ok, "{} refused: {:?}", sql, v.reasons);
        let out = v.sql.clone().unwrap_or_default();
        let limit = outer_limit(&out, d);
        prop_assert!(limit.is_some_and(|n| n <= cap as u64), "{} -> {} (cap {})", sql, out, cap);
        if let Some(n) = input_limit {
            prop_assert_eq!(limit, Some(n.min(cap as u64)));
        }
        let again = validate(&out, d, Some(&s), cap);
        prop_assert_eq!(again.sql.as_deref(), Some(out.as_str()));
        prop_assert!(again.changes.is_empty(), "{:?}", again.changes);
    }

    #[test]
    fn benign_corpus_is_stable_under_random_caps(ix in any::<prop::sample::Index>(), cap in 0usize..100_000) {
        let recs = records("benign.txt");
        let rec = ix.get(&recs);
        let s = schema();
        for &d in &rec.dialects {
            let v = validate(&rec.sql, d, Some(&s), cap);
            prop_assert!(v.ok, "{}: {:?}", rec.sql, v.reasons);
            let out = v.sql.unwrap_or_default();
            prop_assert!(outer_limit(&out, d).is_some_and(|n| n <= cap as u64), "{}", out);
            let again = validate(&out, d, Some(&s), cap);
            prop_assert_eq!(again.sql.as_deref(), Some(out.as_str()));
        }
    }
}
