use super::*;
use super::resolve::{edit_distance, suggestion};
use crate::{ColumnInfo, TableInfo};

fn table(name: &str, cols: &[&str]) -> TableInfo {
    TableInfo {
        name: name.to_string(),
        columns: cols
            .iter()
            .map(|c| ColumnInfo { name: c.to_string(), data_type: "text".into(), ..ColumnInfo::default() })
            .collect(),
        ..TableInfo::default()
    }
}

fn schema() -> DbSchema {
    DbSchema {
        dialect: None,
        tables: vec![
            table("departments", &["id", "name", "region"]),
            table("audits", &["id", "title", "department_id", "status", "started_on"]),
            table("findings", &["id", "audit_id", "severity", "status", "estimated_cost", "reported_on"]),
        ],
    }
}

fn check(sql: &str, dialect: Dialect) -> Verdict {
    validate(sql, dialect, Some(&schema()), 100)
}

#[track_caller]
fn refused(sql: &str, dialect: Dialect, kind: ReasonKind) -> Verdict {
    let v = check(sql, dialect);
    assert!(!v.ok && v.sql.is_none(), "accepted: {sql}\n{v:?}");
    assert!(v.has(kind), "{sql}: expected {kind:?}, got {:?}", v.reasons);
    v
}

#[track_caller]
fn accepted(sql: &str, dialect: Dialect) -> Verdict {
    let v = check(sql, dialect);
    assert!(v.ok, "refused: {sql}\n{:?}", v.reasons);
    v
}

const BOTH: [Dialect; 2] = [Dialect::Sqlite, Dialect::Postgres];

#[test]
fn empty_and_parse_errors() {
    for d in BOTH {
        refused("", d, ReasonKind::Empty);
        refused("  \n\t ", d, ReasonKind::Empty);
        refused("-- nothing here\n/* at all */", d, ReasonKind::Empty);
        refused(";", d, ReasonKind::Empty);
        let v = refused("SELEC id FROM findings", d, ReasonKind::Parse);
        assert!(v.reasons[0].message.len() < 260, "{}", v.reasons[0].message);
        refused("SELECT 'unterminated FROM findings", d, ReasonKind::Parse);
    }
}

#[test]
fn exactly_one_statement() {
    for d in BOTH {
        accepted("SELECT id FROM findings;", d);
        accepted("SELECT id FROM findings ; ;", d);
        refused("SELECT 1; SELECT 2", d, ReasonKind::MultipleStatements);
        refused("SELECT id FROM findings; DROP TABLE findings", d, ReasonKind::MultipleStatements);
    }
    refused(
        "COMMIT; BEGIN READ WRITE; UPDATE findings SET status = 'Closed'",
        Dialect::Postgres,
        ReasonKind::MultipleStatements,
    );
}

#[test]
fn only_queries() {
    let cases = [
        ("INSERT INTO findings (id) VALUES (1)", "INSERT"),
        ("UPDATE findings SET status = 'Closed'", "UPDATE"),
        ("DELETE FROM findings", "DELETE"),
        ("DROP TABLE findings", "DROP"),
        ("CREATE TABLE x (a INT)", "CREATE TABLE"),
    ];
    for d in BOTH {
        for (sql, kind) in cases {
            let v = refused(sql, d, ReasonKind::NotQuery);
            assert!(v.reasons[0].message.starts_with(kind), "{sql}: {:?}", v.reasons);
        }
    }
    refused("EXPLAIN ANALYZE DELETE FROM findings", Dialect::Postgres, ReasonKind::NotQuery);
    refused("SET ROLE postgres", Dialect::Postgres, ReasonKind::NotQuery);
    refused("SHOW search_path", Dialect::Postgres, ReasonKind::NotQuery);
    refused("PRAGMA writable_schema = 1", Dialect::Sqlite, ReasonKind::NotQuery);
    refused("ATTACH DATABASE '/tmp/x.db' AS x", Dialect::Sqlite, ReasonKind::NotQuery);
    refused("VALUES (1), (2)", Dialect::Postgres, ReasonKind::NotQuery);
}

#[test]
fn forbidden_constructs_in_the_tree() {
    let pg = Dialect::Postgres;
    refused("WITH d AS (DELETE FROM findings RETURNING *) SELECT * FROM d", pg, ReasonKind::Forbidden);
    refused(
        "WITH u AS (UPDATE findings SET status = 'x' RETURNING id) SELECT id FROM u",
        pg,
        ReasonKind::Forbidden,
    );
    refused("SELECT * INTO copy_of FROM findings", pg, ReasonKind::Forbidden);
    refused("SELECT id FROM findings FOR UPDATE", pg, ReasonKind::Forbidden);
    refused("SELECT id FROM findings FOR NO KEY UPDATE", pg, ReasonKind::Forbidden);
    refused("SELECT id FROM findings FOR SHARE", pg, ReasonKind::Forbidden);
    refused("SELECT id FROM (SELECT id FROM findings FOR SHARE) s", pg, ReasonKind::Forbidden);
    refused(
        "SELECT id FROM findings WHERE id IN (SELECT audit_id FROM findings FOR UPDATE)",
        pg,
        ReasonKind::Forbidden,
    );
    refused("SELECT id FROM findings UNION SELECT id FROM audits FOR UPDATE", pg, ReasonKind::Forbidden);
    refused("WITH x AS (SELECT id FROM findings) SELECT id INTO t2 FROM x", pg, ReasonKind::Forbidden);
}

#[test]
fn functions_policy() {
    let pg = Dialect::Postgres;
    for f in [
        "pg_sleep(10)",
        "pg_catalog.pg_sleep(10)",
        "PG_SLEEP_FOR('5 minutes')",
        "pg_read_file('/etc/passwd')",
        "pg_ls_dir('.')",
        "pg_terminate_backend(1)",
        "pg_advisory_lock(1)",
        "set_config('default_transaction_read_only', 'off', false)",
        "nextval('findings_id_seq')",
        "lo_import('/etc/passwd')",
        "dblink('host=x', 'DELETE FROM t')",
        "query_to_xml('DELETE FROM t', true, true, '')",
        "public.my_fn(1)",
        "\"pg_sleep\"(1)",
    ] {
        refused(&format!("SELECT {f} FROM findings"), pg, ReasonKind::Forbidden);
    }
    refused("SELECT id FROM findings WHERE id IN (SELECT pg_sleep(1))", pg, ReasonKind::Forbidden);
    refused("SELECT * FROM pg_ls_dir('.') AS f(name)", pg, ReasonKind::Forbidden);
    for f in
        ["load_extension('x.so')", "readfile('/etc/passwd')", "writefile('/tmp/x', 'y')", "fts3_tokenizer('x')"]
    {
        refused(&format!("SELECT {f} FROM findings"), Dialect::Sqlite, ReasonKind::Forbidden);
    }
    refused("SELECT name FROM fsdir('/')", Dialect::Sqlite, ReasonKind::Forbidden);
    accepted("SELECT pg_typeof(id), current_setting('TimeZone'), upper(status) FROM findings", pg);
    accepted("SELECT replace(status, 'a', 'b'), coalesce(severity, 'x') FROM findings", Dialect::Sqlite);
}

#[test]
fn catalogs_refused_even_without_schema() {
    for (sql, d) in [
        ("SELECT usename, passwd FROM pg_shadow", Dialect::Postgres),
        ("SELECT * FROM pg_catalog.pg_tables", Dialect::Postgres),
        ("SELECT table_name FROM information_schema.tables", Dialect::Postgres),
        ("SELECT sql FROM sqlite_master", Dialect::Sqlite),
        ("SELECT sql FROM main.sqlite_schema", Dialect::Sqlite),
        ("SELECT * FROM sqlite_temp_master", Dialect::Sqlite),
        ("SELECT * FROM pragma_table_info('findings')", Dialect::Sqlite),
    ] {
        let v = validate(sql, d, None, 100);
        assert!(!v.ok && v.has(ReasonKind::Forbidden), "{sql}: {v:?}");
    }
}

#[test]
fn keyword_scan() {
    let lite = Dialect::Sqlite;
    // REPLACE as a statement, not the function.
    let v = validate("REPLACE INTO findings (id) VALUES (1)", lite, None, 100);
    assert!(!v.ok);
    // Soft words: refused bare, fine as dotted names or schema names.
    let mut s = schema();
    s.tables.push(table("machines", &["load", "set"]));
    let ok = validate("SELECT m.load, load FROM machines m", lite, Some(&s), 100);
    assert!(ok.ok, "{:?}", ok.reasons);
    let v = validate("SELECT load FROM machines", lite, None, 100);
    assert!(v.has(ReasonKind::Forbidden), "{v:?}");
    // Quoted identifiers and strings are not keywords.
    accepted("SELECT id AS \"update\" FROM findings WHERE status = 'delete me; drop table x'", lite);
    // Case tricks.
    refused("SELECT id FROM findings UNION SELECT 1 dElEtE", lite, ReasonKind::Forbidden);
}

#[test]
fn comments_rule() {
    for d in BOTH {
        accepted("-- top findings by cost\nSELECT id /* the key */ FROM findings", d);
        refused("SELECT id FROM findings /* ; DROP TABLE findings */", d, ReasonKind::Forbidden);
        refused("SELECT id FROM findings -- then drop table findings", d, ReasonKind::Forbidden);
    }
    // The output never carries comments.
    let v = accepted("SELECT id -- note\nFROM findings", Dialect::Sqlite);
    assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 100"));
}

#[test]
fn non_ascii_outside_literals() {
    for d in BOTH {
        refused("SELECT id FROM findings WHERE status = 'Open' \u{200B}", d, ReasonKind::Forbidden);
        refused("SELECT\u{00A0}id FROM findings", d, ReasonKind::Forbidden);
        // Cyrillic "е" in DELETE.
        let v = check("D\u{0435}LETE FROM findings", d);
        assert!(!v.ok && v.has(ReasonKind::Forbidden), "{v:?}");
        accepted("SELECT id FROM findings WHERE status = 'Ouvert – résolu'", d);
        accepted("SELECT id AS \"état\" FROM findings -- café", d);
    }
    // An escape that produces a non-ASCII character must not hide a raw one outside.
    refused("SELECT E'\\u00e9' AS x,\u{00A0}id FROM findings", Dialect::Postgres, ReasonKind::Forbidden);
}

#[test]
fn unknown_tables_and_columns() {
    for d in BOTH {
        let v = refused("SELECT id FROM finding", d, ReasonKind::UnknownTable);
        assert!(v.reasons[0].message.contains("did you mean findings"), "{:?}", v.reasons);
        let v = refused("SELECT severty FROM findings", d, ReasonKind::UnknownColumn);
        assert!(v.reasons[0].message.contains("did you mean severity"), "{:?}", v.reasons);
        let v = refused("SELECT f.severty FROM findings f", d, ReasonKind::UnknownColumn);
        assert!(v.reasons[0].message.contains("did you mean severity"), "{:?}", v.reasons);
        refused("SELECT a.title FROM findings f JOIN audits a ON a.id = f.audit_idx", d, ReasonKind::UnknownColumn);
        refused("SELECT x.id FROM findings f", d, ReasonKind::UnknownColumn);
        refused("SELECT id FROM findings WHERE id IN (SELECT nope FROM audits)", d, ReasonKind::UnknownColumn);
        refused(
            "SELECT id FROM findings WHERE EXISTS (SELECT 1 FROM audit a WHERE a.id = findings.audit_id)",
            d,
            ReasonKind::UnknownTable,
        );
        refused(
            "WITH c AS (SELECT audit_id AS a FROM findings) SELECT c.audit_id FROM c",
            d,
            ReasonKind::UnknownColumn,
        );
        // Without a schema nothing is checked.
        assert!(validate("SELECT nope FROM nowhere", d, None, 10).ok);
    }
    refused("SELECT id FROM other.findings", Dialect::Postgres, ReasonKind::UnknownTable);
    accepted("SELECT f.id FROM public.findings f", Dialect::Postgres);
    accepted("SELECT findings.id FROM main.findings", Dialect::Sqlite);
}

#[test]
fn no_false_positives_on_common_shapes() {
    let pg = Dialect::Postgres;
    let lite = Dialect::Sqlite;
    for d in BOTH {
        accepted("SELECT COUNT(*), COUNT(DISTINCT severity) AS n FROM findings", d);
        accepted("SELECT severity, COUNT(*) AS n FROM findings GROUP BY severity HAVING n > 1 ORDER BY n DESC", d);
        accepted("SELECT status AS s FROM findings ORDER BY s", d);
        accepted("SELECT CASE WHEN severity = 'High' THEN 1 ELSE 0 END AS hi, TRUE, FALSE, NULL FROM findings", d);
        accepted("SELECT CAST(estimated_cost AS INTEGER), CURRENT_DATE, CURRENT_TIMESTAMP FROM findings", d);
        accepted(
            "WITH per AS (SELECT audit_id, COUNT(*) AS n FROM findings GROUP BY audit_id) \
             SELECT a.title, per.n FROM per JOIN audits a ON a.id = per.audit_id",
            d,
        );
        accepted("SELECT t.x FROM (SELECT id AS x FROM findings) t", d);
        accepted("SELECT x FROM (SELECT id, severity FROM findings) AS t(x, y)", d);
        accepted(
            "SELECT id, ROW_NUMBER() OVER (PARTITION BY severity ORDER BY estimated_cost DESC) AS rn FROM findings",
            d,
        );
        accepted("SELECT id FROM findings f WHERE EXISTS (SELECT 1 FROM audits a WHERE a.id = f.audit_id)", d);
        accepted("SELECT status FROM findings UNION ALL SELECT status FROM audits ORDER BY status", d);
        accepted("SELECT a.*, d.name FROM audits a LEFT JOIN departments d ON d.id = a.department_id", d);
        accepted("SELECT id FROM findings JOIN audits USING (id)", d);
        accepted("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r", d);
        accepted("SELECT sub.cnt FROM (SELECT COUNT(*) AS cnt FROM findings) sub", d);
        accepted("SELECT c FROM (SELECT COUNT(*) FROM findings) AS t(c)", d);
    }
    accepted("SELECT EXTRACT(YEAR FROM reported_on) AS y, date_trunc('month', reported_on) FROM findings", pg);
    accepted("SELECT id FROM findings WHERE reported_on > CURRENT_DATE - INTERVAL '30 days'", pg);
    accepted("SELECT make_interval(days => 3), n FROM generate_series(1, 3) AS g(n)", pg);
    accepted("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY estimated_cost) FROM findings", pg);
    accepted("SELECT DISTINCT ON (severity) severity, id FROM findings ORDER BY severity, estimated_cost DESC", pg);
    accepted("SELECT severity, count(*) FROM findings GROUP BY severity ORDER BY count DESC", pg);
    refused(
        "SELECT severity, count(*) FROM findings GROUP BY severity ORDER BY count DESC",
        lite,
        ReasonKind::UnknownColumn,
    );
    accepted(
        "SELECT strftime('%Y', reported_on) AS y, date('now'), julianday(reported_on), rowid FROM findings",
        lite,
    );
    // SQLite double-quoted string: a warning, not a refusal.
    let v = accepted("SELECT id FROM findings WHERE status = \"Open\"", lite);
    assert!(v.warnings.iter().any(|w| w.contains("single quotes")), "{:?}", v.warnings);
    refused("SELECT id FROM findings WHERE status = \"Open\"", pg, ReasonKind::UnknownColumn);
}

#[test]
fn tables_columns_and_warnings() {
    let v = accepted(
        "WITH per AS (SELECT audit_id FROM findings) SELECT a.title, f.severity, per.audit_id \
         FROM audits a JOIN findings f ON f.audit_id = a.id JOIN per ON per.audit_id = a.id",
        Dialect::Postgres,
    );
    assert_eq!(v.tables, vec!["audits", "findings"]);
    for c in ["audits.title", "findings.severity", "audits.id", "findings.audit_id"] {
        assert!(v.columns.contains(&c.to_string()), "{c} missing from {:?}", v.columns);
    }
    let v = accepted("SELECT * FROM findings", Dialect::Sqlite);
    assert!(v.warnings.iter().any(|w| w.contains("SELECT *")));
}

#[test]
fn limit_rules() {
    for d in BOTH {
        let v = accepted("SELECT id FROM findings", d);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 100"));
        assert_eq!(v.changes, vec!["LIMIT 100 added"]);
        let v = accepted("SELECT id FROM findings LIMIT 5000", d);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 100"));
        assert_eq!(v.changes, vec!["LIMIT 5000 lowered to 100"]);
        let v = accepted("SELECT id FROM findings LIMIT 99999999999999999999999", d);
        assert!(v.sql.unwrap().ends_with("LIMIT 100"));
        let v = accepted("SELECT id FROM findings LIMIT 7 OFFSET 20", d);
        assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 7 OFFSET 20"));
        assert!(v.changes.is_empty());
        refused("SELECT id FROM findings LIMIT (SELECT 1000)", d, ReasonKind::Limit);
        refused("SELECT id FROM findings LIMIT -1", d, ReasonKind::Limit);
        refused("SELECT id FROM findings LIMIT 10 OFFSET 100001", d, ReasonKind::Limit);
        refused("SELECT id FROM findings LIMIT 1.5", d, ReasonKind::Limit);
        // Inner LIMITs are the query's business; the outer one gets the cap.
        let v = accepted("SELECT id FROM (SELECT id FROM findings LIMIT 5000) t", d);
        assert!(v.sql.unwrap().ends_with(") AS t LIMIT 100") || v.changes == vec!["LIMIT 100 added"]);
    }
    let pg = Dialect::Postgres;
    refused("SELECT id FROM findings LIMIT ALL", pg, ReasonKind::Limit);
    refused("SELECT id FROM findings LIMIT $1", pg, ReasonKind::Limit);
    let v = accepted("SELECT id FROM findings ORDER BY id OFFSET 5 ROWS FETCH FIRST 500 ROWS ONLY", pg);
    assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings ORDER BY id LIMIT 100 OFFSET 5 ROWS"));
    let v = accepted("SELECT id FROM findings FETCH FIRST 3 ROWS ONLY", pg);
    assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 3"));
    refused("SELECT id FROM findings FETCH FIRST 10 ROWS WITH TIES", pg, ReasonKind::Limit);
    refused("SELECT id FROM findings FETCH FIRST 10 PERCENT ROWS ONLY", pg, ReasonKind::Limit);
    let v = accepted("SELECT id FROM findings LIMIT 20, 5000", Dialect::Sqlite);
    assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 20, 100"));
    // Cap 0 still means a LIMIT.
    let v = validate("SELECT id FROM findings LIMIT 3", pg, Some(&schema()), 0);
    assert_eq!(v.sql.as_deref(), Some("SELECT id FROM findings LIMIT 0"));
}

#[test]
fn output_is_idempotent() {
    for d in BOTH {
        let v = accepted("select   f.id , 'it''s' as q from findings f where f.status='Open' order by 1", d);
        let sql = v.sql.clone().unwrap();
        let again = check(&sql, d);
        assert_eq!(again.sql.as_deref(), Some(sql.as_str()), "{:?}", again.reasons);
        assert!(again.changes.is_empty());
    }
    let v = accepted("SELECT id FROM findings WHERE status = E'it\\'s' OR status = $$a$$", Dialect::Postgres);
    let sql = v.sql.unwrap();
    assert_eq!(check(&sql, Dialect::Postgres).sql.as_deref(), Some(sql.as_str()));
}

#[test]
fn deep_nesting_is_a_parse_error_not_a_crash() {
    for d in BOTH {
        let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        refused(&sql, d, ReasonKind::Parse);
        let sql = format!("SELECT id FROM findings WHERE {}", vec!["id = 1"; 2000].join(" AND "));
        let v = check(&sql, d);
        assert!(v.ok, "{:?}", v.reasons);
        let sql = format!("SELECT 1{}", "+1".repeat(4900));
        assert!(validate(&sql, d, None, 10).ok);
        refused(&format!("SELECT 1{}", "+1".repeat(20_000)), d, ReasonKind::Parse);
        for chain in [" IS NULL", "::int", "+1", " || 'a'", "->'a'"] {
            let n = (MAX_TOKENS - 20) / (chain.split(' ').count().max(1) + 1);
            let sql = format!("SELECT id FROM findings WHERE id{} = 1 OR id = 2", chain.repeat(n));
            let v = check(&sql, d);
            assert!(
                !v.reasons.iter().any(|r| r.message.contains("internal") || r.message.contains("too complex")),
                "{chain}: {:?}",
                v.reasons
            );
        }
        refused(&"x".repeat(MAX_SQL_BYTES + 1), d, ReasonKind::Parse);
        // The helpers have the same bounds.
        let long = format!("SELECT id FROM findings WHERE status = 'x' AND id = 1{}", "+1".repeat(30_000));
        assert!(literal_filters(&long, d).is_empty());
        assert_eq!(case_insensitive(&long, d), None);
        assert_eq!(count_probe(&long, d), None);
    }
}

#[test]
fn literal_filters_resolve_aliases() {
    let sql = "SELECT f.id FROM findings f JOIN audits a ON a.id = f.audit_id \
               WHERE f.severity = 'High' AND a.status IN ('Open', 'Planned') AND title LIKE 'Q1%' AND 'x' = f.status";
    let got = literal_filters(sql, Dialect::Postgres);
    let want = |t: Option<&str>, c: &str, v: &str| LiteralFilter {
        table: t.map(str::to_string),
        column: c.into(),
        value: v.into(),
    };
    assert_eq!(
        got,
        vec![
            want(Some("findings"), "severity", "High"),
            want(Some("audits"), "status", "Open"),
            want(Some("audits"), "status", "Planned"),
            want(None, "title", "Q1%"),
            want(Some("findings"), "status", "x"),
        ]
    );
    let got = literal_filters("SELECT id FROM findings WHERE status = 'Open'", Dialect::Sqlite);
    assert_eq!(got, vec![want(Some("findings"), "status", "Open")]);
    assert!(literal_filters("not sql", Dialect::Sqlite).is_empty());
}

#[test]
fn case_insensitive_rewrites_and_revalidates() {
    let sql = "SELECT id FROM findings WHERE status = 'open' AND severity IN ('high', 'critical') \
               AND reported_on = '2024-01-01' LIMIT 10";
    let pg = case_insensitive(sql, Dialect::Postgres).unwrap();
    assert_eq!(
        pg,
        "SELECT id FROM findings WHERE status ILIKE 'open' AND lower(severity) IN (lower('high'), lower('critical')) \
         AND reported_on = '2024-01-01' LIMIT 10"
    );
    let lite = case_insensitive(sql, Dialect::Sqlite).unwrap();
    assert_eq!(
        lite,
        "SELECT id FROM findings WHERE status = 'open' COLLATE NOCASE AND severity COLLATE NOCASE IN ('high', 'critical') \
         AND reported_on = '2024-01-01' LIMIT 10"
    );
    for (s, d) in [(pg, Dialect::Postgres), (lite, Dialect::Sqlite)] {
        let v = check(&s, d);
        assert!(v.ok, "{s}: {:?}", v.reasons);
        assert_eq!(v.sql.as_deref(), Some(s.as_str()));
    }
    // Wildcards in the literal are escaped for ILIKE.
    let s = case_insensitive("SELECT id FROM findings WHERE status <> '50%_off\\x'", Dialect::Postgres).unwrap();
    assert_eq!(s, "SELECT id FROM findings WHERE status NOT ILIKE '50\\%\\_off\\\\x'");
    let s = case_insensitive("SELECT id FROM findings WHERE status LIKE 'Op%'", Dialect::Postgres).unwrap();
    assert_eq!(s, "SELECT id FROM findings WHERE status ILIKE 'Op%'");
    assert_eq!(case_insensitive("SELECT id FROM findings WHERE id = 3", Dialect::Postgres), None);
    assert_eq!(case_insensitive("DELETE FROM findings WHERE status = 'x'", Dialect::Postgres), None);
    assert_eq!(case_insensitive("SELEC", Dialect::Sqlite), None);
}

#[test]
fn count_probe_wraps_without_limit_and_order() {
    let p =
        count_probe("SELECT id FROM findings WHERE status = 'Open' ORDER BY id LIMIT 10", Dialect::Sqlite).unwrap();
    assert_eq!(p, "SELECT COUNT(*) FROM (SELECT id FROM findings WHERE status = 'Open') AS qa_probe LIMIT 1");
    let v = check(&p, Dialect::Sqlite);
    assert!(v.ok && v.changes.is_empty(), "{v:?}");
    let p = count_probe(
        "WITH x AS (SELECT id FROM findings) SELECT id FROM x FETCH FIRST 5 ROWS ONLY",
        Dialect::Postgres,
    )
    .unwrap();
    assert_eq!(
        p,
        "SELECT COUNT(*) FROM (WITH x AS (SELECT id FROM findings) SELECT id FROM x) AS qa_probe LIMIT 1"
    );
    assert!(check(&p, Dialect::Postgres).ok);
    assert_eq!(count_probe("DROP TABLE findings", Dialect::Sqlite), None);
    assert_eq!(count_probe("SELECT (", Dialect::Sqlite), None);
}

#[test]
fn suggestions_and_distance() {
    assert_eq!(edit_distance("severty", "severity"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(suggestion("finding", &["audits", "findings"]), " (did you mean findings?)");
    assert_eq!(suggestion("zzzzzzzz", &["audits", "findings"]), " (known: audits, findings)");
}

#[test]
fn paged_sets_the_outer_limit_and_offset() {
    let sql = "SELECT a.id FROM audits a WHERE a.id IN (SELECT audit_id FROM findings LIMIT 5) ORDER BY a.id LIMIT 200";
    let p = paged(sql, Dialect::Sqlite, 40, 20).unwrap();
    assert!(p.ends_with("ORDER BY a.id LIMIT 20 OFFSET 40"), "{p}");
    assert!(p.contains("LIMIT 5)"), "inner LIMIT kept: {p}");
    assert_eq!(paged(sql, Dialect::Sqlite, 0, 20).unwrap().matches("OFFSET").count(), 0);
    assert!(paged("DELETE FROM audits", Dialect::Sqlite, 0, 20).is_none());
}
