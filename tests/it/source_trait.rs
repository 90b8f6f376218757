//! Each source — the indexed documents, a SQL database, an Elasticsearch index — answers through
//! the `Source` trait alone: a routed question, a page of the result, a pasted query, a
//! clarifying question resumed. Nothing below names the concrete type after it is opened.

use qa::config::Settings;
use qa_core::progress::Silent;
use qa_core::trace::Status;
use qa_route::source::{Ask, Presentation, Source, SourceAnswer, present};
use qa_route::{QueryType, Target};

use crate::common::{self, qa, sql_fixture};

fn ask<'a>(question: &'a str) -> Ask<'a> {
    Ask { question, query_type: QueryType::Simple, force: false, in_session: false, progress: &Silent }
}

/// What the answer prints, as text and as JSON.
fn drawn(answer: &SourceAnswer) -> (String, serde_json::Value) {
    let p = Presentation { trace: true, quiet: false, width: 100, in_session: true, trace_file: "traces.jsonl".into() };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    present(answer, false, None, &p, &mut out, &mut err).unwrap();
    let mut json = Vec::new();
    present(answer, true, Some(&serde_json::json!({"extra": 1})), &p, &mut json, &mut err).unwrap();
    (String::from_utf8(out).unwrap(), serde_json::from_slice(&json).unwrap())
}

#[test]
fn every_source_answers_pages_and_resumes_through_the_trait() {
    let dir = common::copy_of_indexed_sample();
    let db = sql_fixture::sqlite_sample(dir.path());
    qa(dir.path()).args(["es", "index"]).arg(common::repo().join("samples/es/shipments.jsonl")).args(["--name", "shipments"]).assert().success();
    let settings = Settings {
        data_dir: dir.path().to_path_buf(),
        models_dir: common::models_dir(),
        sql_url: Some(db.display().to_string()),
        es: Some("shipments".into()),
        sql_row_cap: 5,
        es_page_size: 3,
        ..Settings::default()
    };
    let sources = qa_settings::sources::Sources::open(&settings);
    assert!(sources.warnings.is_empty(), "{:?}", sources.warnings);
    let mut list: Vec<Box<dyn Source>> = sources.list;
    assert_eq!(list.iter().map(|s| s.target()).collect::<Vec<_>>(), [Target::Documents, Target::Sql, Target::Es]);
    for s in &list {
        let p = s.profile();
        assert!(!p.collections.is_empty() || !p.fields.is_empty() || !p.entities.is_empty(), "{:?} describes nothing", s.target());
    }

    let questions = ["What does the BME280 sensor measure?", "List the findings", "delayed shipments"];
    for (source, question) in list.iter_mut().zip(questions) {
        let target = source.target();
        let answer = source.answer(&ask(question)).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        assert_eq!((answer.target, answer.status), (target, Status::Answered), "{target:?}: {}", answer.summary);
        assert!(!answer.records.is_empty(), "{target:?}: no records");
        assert!(!answer.trace.trace_id.is_empty() && !answer.summary.is_empty());
        let (text, json) = drawn(&answer);
        assert!(text.contains("=== Query Trace (JSON) ==="), "{target:?}: {text}");
        assert_eq!(json["extra"], 1, "{target:?}: the caller's keys are merged");
        match target {
            Target::Documents => {
                assert!(text.starts_with("=== Final Answer ==="), "{text}");
                assert!(answer.artifact.is_none(), "documents have no pages");
                let a = answer.records[0].clone();
                assert!(a["chunk_id"].is_string(), "{a}");
            }
            Target::Sql | Target::Es => {
                // A page further, through the trait: the next rows or hits, never the same ones.
                let artifact = answer.artifact.clone().expect("a structured answer can be paged");
                assert!(artifact.next_offset().is_some(), "{target:?}: the first page is full ({artifact:?})");
                let next = source.page(&artifact, "show me more").unwrap();
                assert_eq!(next.status, Status::Answered);
                let later = next.artifact.clone().unwrap();
                assert_eq!(later.offset, artifact.offset + artifact.page_size, "{target:?}");
                assert_ne!(drawn(&next).0, text, "{target:?}: the page differs");
            }
        }
    }

    // A pasted query goes through the source's validator: a write never runs.
    let sql = list.iter_mut().find(|s| s.target() == Target::Sql).unwrap();
    let refused = sql.run_pasted("DELETE FROM findings", "DELETE FROM findings").unwrap();
    assert_eq!((refused.status, refused.exit_code()), (Status::Error, 1));
    let ran = sql.run_pasted("SELECT COUNT(*) AS n FROM findings", "SELECT COUNT(*) AS n FROM findings").unwrap();
    assert_eq!(ran.status, Status::Answered);
    let es = list.iter_mut().find(|s| s.target() == Target::Es).unwrap();
    let refused = es.run_pasted(r#"{"script": {"source": "ctx._source.x = 1"}}"#, r#"run this: {"script": {"source": "ctx._source.x = 1"}}"#).unwrap();
    assert_eq!(refused.status, Status::Error, "{}", refused.summary);

    // A clarifying question is resumed through the trait with the user's choice.
    let sql = list.iter_mut().find(|s| s.target() == Target::Sql).unwrap();
    let asked = sql.answer(&ask("How many are open?")).unwrap();
    assert_eq!((asked.status, asked.exit_code()), (Status::NeedsClarification, 3), "{}", asked.summary);
    let pending = asked.clarification.clone().expect("a clarifying question carries its checkpoint");
    assert!(pending.alternatives.iter().any(|a| a.contains("findings")), "{pending:?}");
    let resumed = sql.resume(&pending.checkpoint, "findings", &ask("")).unwrap();
    assert_eq!(resumed.status, Status::Answered, "{}", resumed.summary);
    let open: i64 = rusqlite::Connection::open(&db).unwrap().query_row("SELECT COUNT(*) FROM findings WHERE status = 'Open'", [], |r| r.get(0)).unwrap();
    assert_eq!(resumed.records[0].as_object().unwrap().values().next().and_then(|v| v.as_i64()), Some(open));
    // The documents have no pages: the trait's default says so instead of guessing.
    let docs = list.iter_mut().find(|s| s.target() == Target::Documents).unwrap();
    let artifact = qa_converse::Artifact { kind: qa_converse::ArtifactKind::Sql, query: serde_json::json!("SELECT 1"), offset: 0, page_size: 1, total: None, target: String::new(), search_after: None };
    assert!(docs.page(&artifact, "show me more").is_err());
}
