use super::*;
use crate::turn::{Artifact, ArtifactKind, PendingClarification};
use qa_core::trace::{Route, Status};

fn turn(n: u32, goal: &str) -> Turn {
    Turn {
        turn: n,
        timestamp: String::new(),
        question: goal.into(),
        main_goal: goal.into(),
        reasoning: String::new(),
        user_query_text: None,
        references_prior_results: false,
        force_execute: false,
        route: Route::Documents,
        status: Status::Answered,
        artifact: None,
        answer_summary: String::new(),
        trace_id: String::new(),
        clarification: None,
    }
}

fn with_artifact(mut t: Turn) -> Turn {
    t.route = Route::Es;
    t.artifact = Some(Artifact { kind: ArtifactKind::EsQuery, query: serde_json::json!({"query": {"match_all": {}}}), offset: 0, page_size: 20, total: Some(100), target: "idx".into(), search_after: None });
    t
}

#[test]
fn a_first_message_stands_alone() {
    assert_eq!(read("show me more", &[]), Reading::Standalone);
    assert_eq!(read("and what about its battery?", &[]), Reading::Standalone);
}

#[test]
fn show_more_needs_an_earlier_result() {
    let h = [with_artifact(turn(1, "List the delayed orders"))];
    for m in ["show me more", "Show me more!", "next page", "more", "please show more", "next"] {
        assert_eq!(read(m, &h), Reading::NextPage, "{m}");
    }
    assert_eq!(read("show me more", &[turn(1, "What is a crate?")]), Reading::Standalone, "no pageable result before");
    assert_eq!(read("more details about the release process of the compiler please", &h), Reading::Standalone);
    assert!(is_bare_next_page("Show me more!") && is_bare_next_page("next page please"));
    assert!(!is_bare_next_page("show me more about deep sleep") && !is_bare_next_page("What comes next in the pipeline?"));
}

#[test]
fn the_same_but_for_another_year_replaces_the_year() {
    let h = [with_artifact(turn(1, "Tickets opened per month in 2025"))];
    match read("the same but for 2024", &h) {
        Reading::Rewritten { goal, prior_results, .. } => {
            assert_eq!(goal, "Tickets opened per month in 2024");
            assert!(prior_results);
        }
        other => panic!("{other:?}"),
    }
    match read("same for Lisbon?", &[turn(1, "How many books were borrowed in 2023?")]) {
        Reading::Rewritten { goal, .. } => assert_eq!(goal, "How many books were borrowed in 2023 for Lisbon"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_follow_up_takes_the_earlier_subject() {
    let h = [turn(1, "What is the range of the Voltra X2 scooter?")];
    match read("and what about its battery?", &h) {
        Reading::Rewritten { goal, reason, prior_results } => {
            assert_eq!(goal, "What about Voltra X2's battery?");
            assert!(reason.contains("Voltra X2") && !prior_results, "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let h = [turn(1, "Who maintains the borrow checker?")];
    match read("how old is it?", &h) {
        Reading::Rewritten { goal, .. } => assert_eq!(goal, "How old is the borrow checker?"),
        other => panic!("{other:?}"),
    }
    assert_eq!(read("What is the capital of Peru?", &h), Reading::Standalone);
}

#[test]
fn replies_to_a_clarifying_question() {
    let mut t = turn(1, "How many shipments on 2025-03-14?");
    t.clarification = Some(PendingClarification {
        checkpoint: "abc".into(),
        message: "Which date?".into(),
        alternatives: vec!["departure_date".into(), "created_date".into(), "eta_date".into()],
    });
    let h = [t];
    assert_eq!(read("2", &h), Reading::ClarificationReply { reply: "created_date".into(), force: false });
    assert_eq!(read("the created date", &h), Reading::ClarificationReply { reply: "created_date".into(), force: false });
    assert!(matches!(read("just run it, don't ask me anything", &h), Reading::ClarificationReply { force: true, .. }));
    assert_eq!(read("What is the tallest building in Europe by height?", &h), Reading::Standalone);
}

#[test]
fn force_phrases() {
    assert!(is_force("Just run it"));
    assert!(is_force("list them, don't ask"));
    assert!(!is_force("how do I run it on Windows"));
}

#[test]
fn subjects() {
    assert_eq!(subject_of("What is the range of the Voltra X2 scooter?").as_deref(), Some("Voltra X2"));
    assert_eq!(subject_of("Who maintains the borrow checker?").as_deref(), Some("the borrow checker"));
    assert_eq!(subject_of("What is the price of the blue kettle?").as_deref(), Some("the blue kettle"));
}
