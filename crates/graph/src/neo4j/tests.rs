use super::*;
use crate::kg::{KgNode, KgRel, Meta};
use neo4rs::{BoltInteger, BoltPath, BoltRelation, BoltUnboundedRelation};

const PASSWORD: &str = "Sw0rdf1sh-not-for-logs";

fn bmap(entries: &[(&str, BoltType)]) -> BoltMap {
    entries.iter().map(|(k, v)| (BoltString::from(*k), v.clone())).collect()
}
fn bnode(id: i64, label: &str, props: &[(&str, BoltType)]) -> BoltNode {
    BoltNode::new(BoltInteger::new(id), BoltList::from(vec![BoltType::from(label)]), bmap(props))
}
fn urel(id: i64, typ: &str) -> BoltType {
    BoltType::UnboundedRelation(BoltUnboundedRelation::new(BoltInteger::new(id), typ.into(), bmap(&[("w", 2.into())])))
}

#[test]
fn json_params_become_bolt_values() {
    let params = serde_json::json!({
        "null": null, "yes": true, "n": -42, "big": u64::MAX, "x": 0.5, "s": "deep sleep",
        "list": [1, "two", [3]], "map": {"inner": {"k": [true]}},
    });
    let bolt = params_to_bolt(params.as_object().unwrap());
    let get = |k: &str| bolt.value.get(k).unwrap().clone();
    assert_eq!(get("null"), BoltType::Null(neo4rs::BoltNull));
    assert_eq!(get("yes"), BoltType::from(true));
    assert_eq!(get("n"), BoltType::from(-42i64));
    assert_eq!(get("big"), BoltType::from(u64::MAX as f64), "beyond i64: a float");
    assert_eq!(get("x"), BoltType::from(0.5));
    assert_eq!(get("s"), BoltType::from("deep sleep"));
    let BoltType::List(list) = get("list") else { panic!("list") };
    assert_eq!(list.value, vec![BoltType::from(1i64), BoltType::from("two"), BoltType::List(BoltList::from(vec![BoltType::from(3i64)]))]);
    let BoltType::Map(map) = get("map") else { panic!("map") };
    let BoltType::Map(inner) = map.value.get("inner").unwrap() else { panic!("inner map") };
    assert_eq!(inner.value.get("k"), Some(&BoltType::List(BoltList::from(vec![BoltType::from(true)]))));
    // And back: the JSON shapes survive a round trip.
    assert_eq!(bolt_to_json(&json_to_bolt(&params), &HashMap::new())["map"], params["map"]);
}

#[test]
fn rows_with_nodes_relationships_and_paths_become_json() {
    let a = bnode(1, "Concept", &[("id", "battery life".into()), ("df", 3i64.into())]);
    let b = bnode(2, "Concept", &[("id", "deep sleep".into())]);
    let anon = bnode(9, "Thing", &[("name", "no id".into())]);
    let r = BoltRelation {
        id: BoltInteger::new(5),
        start_node_id: BoltInteger::new(1),
        end_node_id: BoltInteger::new(2),
        typ: "RELATED_TO".into(),
        properties: bmap(&[("weight", 2.5.into())]),
    };
    let dangling = BoltRelation { start_node_id: BoltInteger::new(77), end_node_id: BoltInteger::new(78), ..r.clone() };
    // a -[RELATED_TO]-> b <-[MENTIONS]- anon : second hop runs backwards (negative index).
    let p = BoltPath {
        nodes: BoltList::from(vec![BoltType::Node(a.clone()), BoltType::Node(b.clone()), BoltType::Node(anon.clone())]),
        rels: BoltList::from(vec![urel(5, "RELATED_TO"), urel(6, "MENTIONS")]),
        indices: BoltList::from(vec![BoltType::from(1i64), BoltType::from(1i64), BoltType::from(-2i64), BoltType::from(2i64)]),
    };
    let row = values_to_row(vec![
        ("a".into(), BoltType::Node(a)),
        ("b".into(), BoltType::Node(b)),
        ("anon".into(), BoltType::Node(anon)),
        ("r".into(), BoltType::Relation(r)),
        ("dangling".into(), BoltType::Relation(dangling)),
        ("u".into(), urel(6, "MENTIONS")),
        ("p".into(), BoltType::Path(p)),
        ("n".into(), BoltType::Null(neo4rs::BoltNull)),
    ]);
    assert_eq!(row["a"], json!({"id": "battery life", "labels": ["Concept"], "properties": {"id": "battery life", "df": 3}}));
    assert_eq!(row["anon"], json!({"id": "#9", "labels": ["Thing"], "properties": {"name": "no id"}}));
    assert_eq!(row["r"], json!({"source": "battery life", "type": "RELATED_TO", "target": "deep sleep", "properties": {"weight": 2.5}}));
    assert_eq!((&row["dangling"]["source"], &row["dangling"]["target"]), (&json!("#77"), &json!("#78")));
    assert_eq!(row["u"], json!({"source": null, "type": "MENTIONS", "target": null, "properties": {"w": 2}}));
    assert_eq!(row["n"], Value::Null);
    let path = &row["p"];
    let ids: Vec<&Value> = path["nodes"].as_array().unwrap().iter().map(|n| &n["id"]).collect();
    assert_eq!(ids, [&json!("battery life"), &json!("deep sleep"), &json!("#9")]);
    assert_eq!(path["edges"][0], json!({"source": "battery life", "type": "RELATED_TO", "target": "deep sleep", "properties": {"w": 2}}));
    assert_eq!((&path["edges"][1]["source"], &path["edges"][1]["target"]), (&json!("#9"), &json!("deep sleep")));
}

#[test]
fn other_value_kinds_become_json() {
    let date = chrono::NaiveDate::from_ymd_opt(2024, 5, 1).unwrap();
    let datetime = date.and_hms_opt(12, 30, 0).unwrap();
    let offset = chrono::FixedOffset::east_opt(7200).unwrap();
    let cases: Vec<(BoltType, Value)> = vec![
        (BoltType::from(date), json!("2024-05-01")),
        (BoltType::from(datetime), json!("2024-05-01T12:30:00")),
        (BoltType::from(chrono::NaiveTime::from_hms_milli_opt(12, 30, 0, 500).unwrap()), json!("12:30:00.500")),
        (BoltType::from((chrono::NaiveTime::from_hms_opt(12, 30, 0).unwrap(), offset)), json!("12:30:00+02:00")),
        (BoltType::from(datetime.and_local_timezone(offset).unwrap()), json!("2024-05-01T12:30:00+02:00")),
        (BoltType::Duration(neo4rs::BoltDuration::new(14.into(), 3.into(), 3_723.into(), 500_000_000.into())), json!("P1Y2M3DT1H2M3.5S")),
        (BoltType::Duration(neo4rs::BoltDuration::new(0.into(), 0.into(), 0.into(), 0.into())), json!("PT0S")),
        (
            BoltType::Point2D(neo4rs::BoltPoint2D { sr_id: 4326.into(), x: neo4rs::BoltFloat::new(1.5), y: neo4rs::BoltFloat::new(2.0) }),
            json!({"srid": 4326, "x": 1.5, "y": 2.0}),
        ),
        (BoltType::from(vec![1u8, 2, 255]), json!([1, 2, 255])),
        (BoltType::from(f64::NAN), json!("NaN")),
        (BoltType::from(f64::NEG_INFINITY), json!("-Infinity")),
    ];
    for (bolt, expected) in cases {
        assert_eq!(bolt_to_json(&bolt, &HashMap::new()), expected, "{bolt:?}");
    }
}

#[test]
fn identifiers_are_validated_and_quoted() {
    for ok in ["Concept", "HAS_IMAGE", "_x1", "a"] {
        assert_eq!(identifier(ok, "node label").unwrap(), format!("`{ok}`"));
    }
    for bad in ["", "1abc", "has space", "Bad`tick", "x-y", "Ünïcode", "a:b", "a)-[r]-(b"] {
        let e = identifier(bad, "node label").unwrap_err().to_string();
        assert!(e.contains("letters, digits and underscores"), "{bad}: {e}");
    }
    assert_eq!(quote_name("we`ird"), "`we``ird`");
}

#[test]
fn lucene_special_characters_and_operators_are_escaped() {
    assert_eq!(escape_lucene("deep sleep"), "deep sleep");
    assert_eq!(escape_lucene("a+b -c && d || e!"), r"a\+b \-c \&\& d \|\| e\!");
    assert_eq!(escape_lucene(r#"(x) {y} [z] ^2 "q" ~f *w? k:v \ a/b"#), r#"\(x\) \{y\} \[z\] \^2 \"q\" \~f \*w\? k\:v \\ a\/b"#);
    assert_eq!(escape_lucene("sleep AND  battery OR NOT\tpower"), "sleep and battery or not power");
    assert_eq!(escape_lucene("ANDROID ORACLE NOTE and"), "ANDROID ORACLE NOTE and", "only whole operator words change");
    assert_eq!(escape_lucene("   "), "");
}

fn kg_node(id: &str, t: &str, meta: &[(&str, Value)]) -> KgNode {
    KgNode { id: id.into(), node_type: t.into(), metadata: meta.iter().map(|(k, v)| Meta { key: k.to_string(), value: v.clone() }).collect() }
}
fn kg_rel(s: &str, t: &str, ty: &str) -> KgRel {
    KgRel { source: s.into(), target: t.into(), rel_type: ty.into(), metadata: vec![] }
}

#[test]
fn ingest_plan_groups_dedupes_and_converts_properties() {
    let docs = vec![
        GraphDocument {
            source: kg_node("f::a_0", "Document", &[("heading_path", json!(["A", "B"]))]),
            nodes: vec![
                kg_node("deep sleep", "Concept", &[("aliases", json!(["nap"])), ("id", json!("ignored"))]),
                kg_node("fig.png", "Image", &[("box", json!({"w": 1})), ("mixed", json!([1, "a"])), ("nums", json!([1, 2.5]))]),
            ],
            relationships: vec![
                kg_rel("f::a_0", "deep sleep", "MENTIONS"),
                kg_rel("f::a_0", "fig.png", "HAS_IMAGE"),
                kg_rel("f::a_0", "ghost", "MENTIONS"),
            ],
        },
        GraphDocument {
            source: kg_node("f::a_1", "Document", &[]),
            nodes: vec![kg_node("deep sleep", "Concept", &[("kind", json!("phrase"))])],
            relationships: vec![kg_rel("f::a_1", "deep sleep", "MENTIONS"), kg_rel("f::a_0", "deep sleep", "MENTIONS")],
        },
    ];
    let plan = IngestPlan::build(&docs).unwrap();
    assert_eq!(plan.labels.iter().collect::<Vec<_>>(), ["Concept", "Document", "Image"]);
    assert_eq!(plan.nodes["Document"].len(), 2);
    let concept = &plan.nodes["Concept"];
    assert_eq!(concept.len(), 1, "deduplicated by id");
    assert_eq!(Value::Object(concept[0].props.clone()), json!({"aliases": ["nap"], "kind": "phrase"}), "merged; `id` is the key");
    let image = &plan.nodes["Image"][0].props;
    assert_eq!(image["box"], json!(r#"{"w":1}"#));
    assert_eq!(image["mixed"], json!(r#"[1,"a"]"#));
    assert_eq!(image["nums"], json!([1.0, 2.5]));
    let mentions = &plan.relationships[&("MENTIONS".to_string(), "Document".to_string(), "Concept".to_string())];
    assert_eq!(mentions.len(), 2, "deduplicated by (source, type, target)");
    assert_eq!(plan.skipped_relationships, 1);

    let mut bad = docs.clone();
    bad[0].relationships.push(kg_rel("f::a_0", "deep sleep", "MENTIONS}]->(x) DETACH DELETE x //"));
    assert!(IngestPlan::build(&bad).unwrap_err().to_string().contains("relationship type"));
    bad[0].nodes.push(kg_node("x", "Bad Label", &[]));
    assert!(IngestPlan::build(&bad).unwrap_err().to_string().contains("node label \"Bad Label\""));
}

#[test]
fn statements_quote_identifiers() {
    assert_eq!(constraint_statement("Concept"), "CREATE CONSTRAINT Concept_id IF NOT EXISTS FOR (n:`Concept`) REQUIRE n.id IS UNIQUE");
    assert_eq!(node_merge_statement("Concept"), "UNWIND $rows AS row MERGE (n:`Concept` {id: row.id}) SET n += row.props");
    assert_eq!(
        rel_merge_statement("MENTIONS", "Document", "Concept"),
        "UNWIND $rows AS row MATCH (a:`Document` {id: row.source}) MATCH (b:`Concept` {id: row.target}) MERGE (a)-[r:`MENTIONS`]->(b) SET r += row.props"
    );
    let old = json!({"id": "x", "a": 1, "b": "same"});
    let new = json!({"a": 2, "b": "same", "c": null, "d": true});
    assert_eq!(changed_properties(&old, new.as_object().unwrap()), 2, "a changed, d added; null for a missing key is no change");
}

fn options(uri: &str) -> Neo4jOptions {
    Neo4jOptions {
        uri: uri.into(),
        username: "neo4j".into(),
        password: Some(Secret::new(PASSWORD)),
        database: None,
        timeout: Duration::from_secs(2),
        row_cap: 10,
    }
}

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn debug_output_and_connect_errors_never_show_the_password() {
    let port = closed_port();
    let with_userinfo = format!("bolt://neo4j:{PASSWORD}@127.0.0.1:{port}");
    for opts in [options(&format!("bolt://127.0.0.1:{port}")), options(&with_userinfo), options("http://localhost:7474"), options("not a uri")] {
        let debug = format!("{opts:?}");
        assert!(!debug.contains(PASSWORD), "{debug}");
        let e = Neo4jGraph::connect(&opts).unwrap_err().to_string();
        assert!(!e.contains(PASSWORD), "{e}");
        assert!(e.contains("QA_NEO4J_URI"), "{e}");
    }
    assert_eq!(redact_uri(&with_userinfo), format!("bolt://neo4j:<redacted>@127.0.0.1:{port}"));

    // A store value (built without connecting) does not show it either.
    let opts = options(&format!("bolt://127.0.0.1:{port}"));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let config = ConfigBuilder::default().uri(opts.uri.as_str()).user("neo4j").password(PASSWORD).build().unwrap();
    let graph = {
        let _rt = rt.enter();
        Graph::connect(config).unwrap()
    };
    let store = Neo4jGraph {
        graph,
        rt,
        uri: opts.uri.clone(),
        username: "neo4j".into(),
        database: None,
        password: opts.password.clone(),
        timeout: opts.timeout,
        row_cap: 10,
    };
    assert!(!format!("{store:?}").contains(PASSWORD));
    // Driver text that happens to echo the password is scrubbed.
    let e = store.query_error("query", Fail::Driver(neo4rs::Error::UnexpectedMessage(format!("bad {PASSWORD}"))));
    assert!(!e.to_string().contains(PASSWORD), "{e}");
}
