use super::*;
use crate::turn::{Artifact, ArtifactKind};
use qa_core::trace::{Route, Status};

fn new_turn(q: &str) -> NewTurn {
    NewTurn {
        question: q.into(),
        main_goal: q.into(),
        reasoning: String::new(),
        user_query_text: None,
        references_prior_results: false,
        force_execute: false,
        route: Route::Documents,
        status: Status::Answered,
        artifact: None,
        answer_summary: "a".into(),
        trace_id: "t".into(),
        clarification: None,
    }
}

#[test]
fn turns_are_numbered_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let t1 = store.append("triage", new_turn("first")).unwrap();
    let mut second = new_turn("second");
    second.artifact = Some(Artifact { kind: ArtifactKind::Sql, query: "SELECT 1".into(), offset: 0, page_size: 20, total: Some(45), target: "db".into(), search_after: None });
    let t2 = store.append("triage", second).unwrap();
    assert_eq!((t1.turn, t2.turn), (1, 2));
    let log = store.load("triage").unwrap();
    assert_eq!(log.turns.iter().map(|t| t.question.as_str()).collect::<Vec<_>>(), ["first", "second"]);
    assert_eq!(log.last_artifact().unwrap().turn, 2);
    assert_eq!(log.last_artifact().unwrap().artifact.as_ref().unwrap().next_offset(), Some(20));
    let listed = store.list().unwrap();
    assert_eq!((listed.len(), listed[0].turns, listed[0].last_question.as_deref()), (1, 2, Some("second")));
}

#[test]
fn unknown_and_invalid_names_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let e = store.load("nope").unwrap_err().to_string();
    assert!(e.contains("no session named \"nope\"") && e.contains("no sessions yet"), "{e}");
    store.append("s1", new_turn("q")).unwrap();
    let e = store.load("nope").unwrap_err().to_string();
    assert!(e.contains("sessions: s1"), "{e}");
    for bad in ["", "../x", ".hidden", "a/b", &"x".repeat(65)] {
        assert!(matches!(store.append(bad, new_turn("q")), Err(ConverseError::InvalidName(_))), "{bad}");
    }
    assert!(matches!(store.clear("nope"), Err(ConverseError::NotFound { .. })));
    assert!(store.clear("s1").unwrap());
    assert!(store.list().unwrap().is_empty());
}

#[test]
fn a_corrupted_line_is_skipped_with_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    store.append("s", new_turn("one")).unwrap();
    let path = store.dir().join("s.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"turn\": oops\n");
    std::fs::write(&path, bytes).unwrap();
    let t = store.append("s", new_turn("two")).unwrap();
    assert_eq!(t.turn, 2);
    let log = store.load("s").unwrap();
    assert_eq!(log.turns.len(), 2);
    assert_eq!(log.skipped.len(), 1);
    assert_eq!(log.skipped[0].line, 2);
}

#[test]
fn concurrent_appends_lose_no_turn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let handles: Vec<_> = (0..4)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                // A store per thread: separate file handles, as separate processes have.
                let store = SessionStore::new(&path);
                for i in 0..10 {
                    store.append("shared", new_turn(&format!("w{w}-{i}"))).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let log = SessionStore::new(&path).load("shared").unwrap();
    assert_eq!(log.turns.len(), 40);
    let mut numbers: Vec<u32> = log.turns.iter().map(|t| t.turn).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=40).collect::<Vec<_>>());
    assert!(log.skipped.is_empty());
}
