use super::*;
use qa_llm::scripted::ScriptedLlm;

#[test]
fn pasted_queries_are_split_off_the_goal() {
    let r = rules(r#"run this: {"query": {"term": {"city": "Lyon"}}}"#);
    assert_eq!(r.user_query_text.as_deref(), Some(r#"{"query": {"term": {"city": "Lyon"}}}"#));
    assert_eq!((r.main_goal.as_str(), r.pasted_kind), ("run the pasted query", Some(PastedKind::Es)));
    let r = rules("please run POST /books/_delete_by_query {\"query\": {\"match_all\": {}}}");
    assert!(r.user_query_text.unwrap().starts_with("POST /books/_delete_by_query"));
    let r = rules("run this: SELECT title FROM books LIMIT 3");
    assert_eq!((r.user_query_text.as_deref(), r.pasted_kind), (Some("SELECT title FROM books LIMIT 3"), Some(PastedKind::Sql)));
    assert!(rules("How many posts were written in May?").user_query_text.is_none());
}

#[test]
fn force_phrases_are_removed_from_the_goal() {
    let r = rules("How many loans on 2025-03-14? Just run it, don't ask me anything");
    assert!(r.force_execute);
    assert_eq!(r.main_goal, "How many loans on 2025-03-14?");
    let r = rules("Show me the open tickets");
    assert!(!r.force_execute);
    assert_eq!(r.main_goal, "the open tickets");
    assert!(is_force("ok, just run it"));
    assert!(is_force("Don’t ask, use your best guess"));
    assert!(!is_force("Why do runners ask for water?"), "words inside other words do not count");
    assert!(!rules("Which pleasant runs go ahead of schedule").main_goal.is_empty());
}

fn reply(goal: &str, pasted: Option<&str>, prior: bool, force: bool) -> String {
    serde_json::json!({"main_goal": goal, "reasoning": "resolved \"it\"", "user_query_text": pasted, "references_prior_results": prior, "force_execute": force}).to_string()
}

fn history() -> Vec<ContextTurn> {
    (1..=7)
        .map(|n| ContextTurn { question: format!("question {n}"), main_goal: format!("goal {n}"), answer_summary: format!("answer {n}"), intent: "sql".into() })
        .collect()
}

#[test]
fn the_llm_reading_is_used_when_it_is_valid() {
    let mut llm = ScriptedLlm::script(&[&reply("What is the Voltra X2's battery capacity?", None, false, false)]);
    let requests = llm.requests.clone();
    let mut run = LlmRun::new(&mut llm);
    let h = history();
    let out = refine(&mut run, "and its battery?", &h, rules("and its battery?"));
    assert_eq!(out.llm_error, None);
    assert_eq!(out.reiteration.main_goal, "What is the Voltra X2's battery capacity?");
    assert_eq!(out.reiteration.by, ReiteratedBy::Llm);
    assert_eq!(run.calls[0].outcome, "used");
    // The last five turns are the context, oldest first.
    let asked = requests.lock().unwrap()[0].messages[1].content.clone();
    assert!(!asked.contains("question 2\n") && asked.contains("question 3") && asked.contains("question 7"), "{asked}");
    assert!(asked.find("question 3").unwrap() < asked.find("question 7").unwrap());
}

#[test]
fn an_unusable_reply_leaves_the_rules_standing() {
    let message = "How many loans on 2025-03-14? just run it";
    let cases: [(&str, &str); 6] = [
        ("no json here", "no JSON object"),
        (&reply("", None, false, false), "main_goal is empty"),
        (r#"{"main_goal": "loans", "reasoning": "", "user_query_text": null, "references_prior_results": "yes", "force_execute": false}"#, "references_prior_results is not a boolean"),
        (r#"{"main_goal": "loans", "extra": 1}"#, "unexpected key"),
        (&reply("loans", Some("DROP TABLE loans"), false, false), "not in the message"),
        ("", "no JSON object"),
    ];
    for (text, why) in cases {
        let mut llm = ScriptedLlm::script(&[text]);
        let mut run = LlmRun::new(&mut llm);
        let out = refine(&mut run, message, &[], rules(message));
        assert_eq!(out.reiteration, rules(message), "{text}");
        assert!(out.llm_error.as_deref().is_some_and(|e| e.contains(why)), "{text}: {:?}", out.llm_error);
        assert!(run.calls[0].outcome.starts_with("fallback"), "{:?}", run.calls[0]);
    }
    // A dead endpoint is a fallback too.
    let mut llm = ScriptedLlm::script(&[]);
    let mut run = LlmRun::new(&mut llm);
    let out = refine(&mut run, message, &[], rules(message));
    assert!(out.reiteration.force_execute && out.llm_error.unwrap().contains("connection refused"));
}

#[test]
fn what_the_rules_found_for_certain_is_kept() {
    let message = r#"just run it: {"query": {"match_all": {}}}"#;
    let mut llm = ScriptedLlm::script(&[&reply("all documents", None, false, false)]);
    let mut run = LlmRun::new(&mut llm);
    let out = refine(&mut run, message, &[], rules(message)).reiteration;
    assert_eq!(out.main_goal, "all documents");
    assert!(out.force_execute, "the force phrase stays");
    assert_eq!(out.user_query_text.as_deref(), Some(r#"{"query": {"match_all": {}}}"#));
    assert_eq!(out.pasted_kind, Some(PastedKind::Es));
    // A pasted query only the LLM saw is kept when it is in the message and is a query.
    let message = "could you run select id from t for me";
    assert_eq!(rules(message).user_query_text, None);
    let mut llm = ScriptedLlm::script(&[&reply("run the pasted SQL", Some("select id from t"), false, false)]);
    let mut run = LlmRun::new(&mut llm);
    let out = refine(&mut run, message, &[], rules(message)).reiteration;
    assert_eq!((out.user_query_text.as_deref(), out.pasted_kind), (Some("select id from t"), Some(PastedKind::Sql)));
    // A "query" that is prose is dropped.
    let mut llm = ScriptedLlm::script(&[&reply("a goal", Some("for me"), false, false)]);
    let mut run = LlmRun::new(&mut llm);
    assert_eq!(refine(&mut run, message, &[], rules(message)).reiteration.user_query_text, None);
}

#[test]
fn the_prompt_is_a_reviewed_artifact() {
    let h = history();
    let prompt = ReiteratePrompt { message: "the same but for 2024, don't ask", history: &h[4..] };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/reiterate.txt");
    qa_llm::prompt::assert_snapshot(&path, &qa_llm::prompt::render(&prompt.request()));
    assert_eq!(prompt.reply_schema().unwrap()["required"].as_array().unwrap().len(), 5);
}
