use super::*;
use crate::embedded::EmbeddedIndex;
use crate::Mapping;
use qa_core::trace::Status;
use serde_json::{Map, json};

/// Support tickets: two date fields (so a bare date is ambiguous), a keyword team, a number.
fn tickets(dir: &Path) -> (EmbeddedIndex, Vec<Map<String, Value>>) {
    let teams = ["billing", "platform", "mobile"];
    let records: Vec<Map<String, Value>> = (0..90)
        .map(|i| {
            let r = json!({
                "id": format!("T{i:03}"),
                "team": teams[i % 3],
                "priority": if i % 10 == 0 { "urgent" } else { "normal" },
                "opened_on": format!("2025-{:02}-{:02}", 1 + i % 12, 1 + i % 28),
                "closed_on": format!("2025-{:02}-{:02}", 1 + (i + 1) % 12, 1 + i % 28),
                "hours": (i % 17) as f64 + 0.5,
                "summary": format!("printer jam on floor {}", i % 4),
                "ref": format!("ref{i}"),
            });
            r.as_object().unwrap().clone()
        })
        .collect();
    let mapping = Mapping::from_es_json(
        "tickets",
        &json!({"properties": {"id": {"type": "keyword"}, "team": {"type": "keyword"}, "priority": {"type": "keyword"},
            "opened_on": {"type": "date"}, "closed_on": {"type": "date"}, "hours": {"type": "double"}, "summary": {"type": "text"}, "ref": {"type": "keyword"}}}),
    )
    .unwrap();
    EmbeddedIndex::create(dir, "tickets", &records, &mapping, &qa_core::progress::Silent).unwrap();
    (EmbeddedIndex::open(dir, "tickets").unwrap(), records)
}

pub(super) fn ask(engine: &EmbeddedIndex, dir: &Path, q: &str, o: EsOptions) -> EsRun {
    answer(engine, None, EsQuestion { question: q, options: o, data_dir: dir, llm_skip: None }).unwrap()
}

/// Ask with the default options and require an answer (no clarifying question).
pub(super) fn answered(engine: &EmbeddedIndex, dir: &Path, q: &str) -> EsRun {
    let run = ask(engine, dir, q, opts());
    assert_eq!(run.answer.status, Status::Answered, "{q}: {:?}", run.answer.ambiguity);
    run
}

pub(super) fn opts() -> EsOptions {
    EsOptions { now: Some("2026-05-20T00:00:00Z".parse().unwrap()), ..EsOptions::default() }
}

#[test]
fn a_filtered_search_counts_what_the_records_hold() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let expected = records.iter().filter(|r| r["team"] == "billing" && r["priority"] == "urgent").count() as u64;
    let run = ask(&engine, dir.path(), "Show me the urgent billing tickets", opts());
    assert_eq!(run.answer.status, Status::Answered, "{:?}", run.answer);
    assert_eq!(run.answer.total, Some(expected));
    assert!(run.answer.hits.iter().all(|h| h["team"] == "billing" && h["priority"] == "urgent"));
    assert!(run.answer.query_summary.contains("team is \"billing\""), "{}", run.answer.query_summary);
    assert_eq!(run.trace.route, qa_core::trace::Route::Es);
    let es = run.trace.internal.es.as_ref().unwrap();
    assert!(es.nodes.get("mapping_lookup").is_some() && es.metrics.latency_ms.contains_key("execute"));
}

#[test]
fn an_aggregation_sums_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let run = ask(&engine, dir.path(), "number of tickets per team", opts());
    assert_eq!(run.answer.intent, Intent::Aggregation);
    let buckets = run.answer.aggregations.as_ref().unwrap()["group"]["buckets"].as_array().unwrap().clone();
    let sum: u64 = buckets.iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    assert_eq!(sum, records.len() as u64);
    assert_eq!(buckets.len(), 3);
}

#[test]
fn a_bare_date_asks_which_field_then_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    // Without a verb, the date each ticket began with (a closing date ends it), named in a note.
    let bare = ask(&engine, dir.path(), "How many tickets in March 2025?", opts());
    let opened = records.iter().filter(|r| r["opened_on"].as_str().unwrap().starts_with("2025-03")).count() as u64;
    assert_eq!(bare.answer.total, Some(opened));
    assert!(bare.answer.notes.iter().any(|n| n.contains("opened_on")), "{:?}", bare.answer.notes);
    // A verb that names neither date asks which.
    let run = ask(&engine, dir.path(), "How many tickets were handled in March 2025?", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification);
    let amb = run.answer.ambiguity.clone().unwrap();
    assert_eq!(amb.alternatives, ["closed_on", "opened_on"]);
    assert!(run.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap().iter().all(|e| e["purpose"] == "sampling" || e["purpose"] == "value lookup"), "nothing but sampling and lookups ran: {:?}", run.trace.internal.es.as_ref().unwrap().executed);
    let id = run.checkpoint.as_ref().unwrap().file_stem().unwrap().to_str().unwrap().to_string();
    let resumed = resume(&engine, None, dir.path(), &id[..6], "the opened date", opts()).unwrap();
    let expected = records.iter().filter(|r| r["opened_on"].as_str().unwrap().starts_with("2025-03")).count() as u64;
    assert_eq!(resumed.answer.total, Some(expected));
    assert!(checkpoint::load(dir.path(), &id).is_err(), "the checkpoint is removed after the answer");
    // Forced: the best guess runs and is named.
    let forced = ask(&engine, dir.path(), "How many tickets were handled in March 2025? just run it", opts());
    assert_eq!(forced.answer.status, Status::Answered);
    assert!(forced.answer.notes.iter().any(|n| n.contains("closed_on")), "{:?}", forced.answer.notes);
}

#[test]
fn the_date_every_ticket_holds_is_when_it_began() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut records) = tickets(dir.path());
    // A third of the tickets were never reviewed: no review date (a name that says no ending).
    for (i, r) in records.iter_mut().enumerate() {
        let closed = r.remove("closed_on").unwrap();
        if i % 3 != 0 {
            r.insert("reviewed_on".into(), closed);
        }
    }
    let mapping = Mapping::from_es_json("helpdesk", &json!({"properties": {"id": {"type": "keyword"}, "team": {"type": "keyword"}, "opened_on": {"type": "date"}, "reviewed_on": {"type": "date"}}})).unwrap();
    EmbeddedIndex::create(dir.path(), "helpdesk", &records, &mapping, &qa_core::progress::Silent).unwrap();
    let engine = EmbeddedIndex::open(dir.path(), "helpdesk").unwrap();
    let (meta, _) = crate::lookup::sample(&engine, &mapping, &crate::EsLimits::default(), 50).unwrap();
    assert_eq!((meta.present.get("opened_on"), meta.present.get("reviewed_on"), meta.total), (Some(&90), Some(&60), Some(90)));
    // "submitted" names no field here: the date every ticket holds, said in a note.
    let run = answered(&engine, dir.path(), "How many tickets were submitted in March 2025?");
    assert!(run.answer.query_summary.contains("opened_on"), "{}", run.answer.query_summary);
    let expected = records.iter().filter(|r| r["opened_on"].as_str().unwrap().starts_with("2025-03")).count() as u64;
    assert_eq!(run.answer.total, Some(expected));
    assert!(run.answer.notes.iter().any(|n| n.contains("opened_on")), "{:?}", run.answer.notes);
    // Another verb may mean either date: ask.
    let run = ask(&engine, dir.path(), "How many tickets were handled in March 2025?", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification);
}

#[test]
fn pages_are_disjoint_and_consecutive() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let p1 = ask(&engine, dir.path(), "billing tickets", EsOptions { page_size: 10, ..opts() });
    let page = p1.answer.page.clone().unwrap();
    assert_eq!((page.offset, page.size, page.next_offset), (0, 10, Some(10)));
    let p2 = ask(&engine, dir.path(), "billing tickets", EsOptions { page_size: 10, offset: 10, ..opts() });
    let ids = |r: &EsRun| r.answer.hits.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (a, b) = (ids(&p1), ids(&p2));
    assert_eq!(b.len(), 10);
    assert!(b.iter().all(|x| !a.contains(x)));
    let again = run_query(&engine, "more", p1.answer.es_query.as_ref().unwrap(), &EsOptions { page_size: 10, offset: 10, ..opts() }).unwrap();
    assert_eq!(ids(&again), b);
}

#[test]
fn a_hostile_pasted_query_is_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let run = ask(&engine, dir.path(), r#"run this: POST /tickets/_delete_by_query {"query": {"match_all": {}}}"#, opts());
    assert_eq!(run.answer.status, Status::Error);
    assert!(run.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap().is_empty());
    let ok = ask(&engine, dir.path(), r#"run this: {"query": {"term": {"team": "mobile"}}}"#, opts());
    assert_eq!(ok.answer.status, Status::Answered);
    assert_eq!(ok.answer.total, Some(30));
}

#[test]
fn an_unknown_grouping_field_is_a_clarification() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let run = ask(&engine, dir.path(), "tickets by owner", opts());
    assert_eq!(run.answer.status, Status::NeedsClarification, "{:?}", run.answer);
    let amb = run.answer.ambiguity.unwrap();
    assert_eq!(amb.field, "owner");
    assert!(!amb.alternatives.is_empty());
}

#[test]
fn to_and_from_pick_the_directed_field() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<Map<String, Value>> = (0..20)
        .map(|i| {
            let (from, to) = (["Oslo", "Lima"][i % 2], ["Lima", "Oslo"][(i / 2) % 2]);
            json!({"source_city": from, "target_city": to, "seats": i}).as_object().unwrap().clone()
        })
        .collect();
    let mapping = crate::infer::infer_mapping("flights", &records);
    EmbeddedIndex::create(dir.path(), "flights", &records, &mapping, &qa_core::progress::Silent).unwrap();
    let engine = EmbeddedIndex::open(dir.path(), "flights").unwrap();
    let to = ask(&engine, dir.path(), "flights to Lima", opts());
    assert_eq!(to.answer.total, Some(records.iter().filter(|r| r["target_city"] == "Lima").count() as u64), "{:?}", to.answer);
    let from = ask(&engine, dir.path(), "flights from Lima", opts());
    assert_eq!(from.answer.total, Some(records.iter().filter(|r| r["source_city"] == "Lima").count() as u64));
    assert_eq!(ask(&engine, dir.path(), "flights with Lima", opts()).answer.status, Status::NeedsClarification);
    // The field named right before the value decides.
    let named = ask(&engine, dir.path(), "flights with target city Lima", opts());
    assert_eq!(named.answer.total, to.answer.total, "{:?}", named.answer);
    let named = ask(&engine, dir.path(), "flights whose source city is Lima", opts());
    assert_eq!(named.answer.total, from.answer.total, "{:?}", named.answer);
}

/// `n` records `{"id": "R00000", "group": 0..7, "rank": i % 1000}`, indexed in that order.
fn numbered(dir: &Path, n: usize) -> EmbeddedIndex {
    let records: Vec<Map<String, Value>> =
        (0..n).map(|i| json!({"id": format!("R{i:05}"), "group": format!("g{}", i % 7), "rank": (i * 7919) % 1000}).as_object().unwrap().clone()).collect();
    let mapping = Mapping::from_es_json("numbered", &json!({"properties": {"id": {"type": "keyword"}, "group": {"type": "keyword"}, "rank": {"type": "long"}}})).unwrap();
    EmbeddedIndex::create(dir, "numbered", &records, &mapping, &qa_core::progress::Silent).unwrap();
    EmbeddedIndex::open(dir, "numbered").unwrap()
}

fn ids(r: &EsRun) -> Vec<String> {
    r.answer.hits.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn pages_past_the_window_walk_with_search_after_in_one_order() {
    let dir = tempfile::tempdir().unwrap();
    let n = 10_130;
    let engine = numbered(dir.path(), n);
    let at = |offset: usize, body: &Value, after: Option<Vec<Value>>| run_query(&engine, "more", body, &EsOptions { page_size: 20, offset, after, ..opts() }).unwrap();
    let all: Vec<String> = (0..n).map(|i| format!("R{i:05}")).collect();

    // No sort: score order, equal scores in record order.
    let body = json!({"query": {"match_all": {}}});
    let before = at(9_980, &body, None);
    assert_eq!(ids(&before), all[9_980..10_000]);
    let page = before.answer.page.clone().unwrap();
    assert_eq!((page.offset, page.size, page.next_offset), (9_980, 20, Some(10_000)));
    let cursor = page.search_after.clone().expect("the page before the window carries the next page's cursor");
    let walked = at(10_000, &body, None);
    assert_eq!(walked.answer.status, Status::Answered, "{:?}", walked.answer.error);
    assert_eq!(ids(&walked), all[10_000..10_020], "the page past the window continues the same order");
    assert_eq!(walked.answer.total, Some(n as u64));
    let p = walked.answer.page.clone().unwrap();
    assert_eq!((p.offset, p.size, p.next_offset), (10_000, 20, Some(10_020)));
    let sent = walked.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap().len();
    assert!(sent <= 3, "a jump to the window's edge, then search_after: {sent} requests");
    // With the cursor: one request, the same page.
    let direct = at(10_000, &body, Some(cursor));
    assert_eq!(ids(&direct), ids(&walked));
    assert_eq!(direct.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap().len(), 1);
    // Deeper, walking row-cap steps; the last page ends the results.
    let deep = at(10_120, &body, None);
    assert_eq!(ids(&deep), all[10_120..]);
    assert_eq!(deep.answer.page.as_ref().unwrap().next_offset, None);
    let past = at(20_000, &body, None);
    assert!(past.answer.hits.is_empty());
    assert_eq!(past.answer.total, Some(n as u64));

    // A sort with ties: the tie-breaker makes the order total, and the pages on both sides of
    // the window are consecutive slices of the full order.
    let sorted = json!({"query": {"match_all": {}}, "sort": [{"rank": "desc"}]});
    let mut order: Vec<(usize, usize)> = (0..n).map(|i| ((i * 7919) % 1000, i)).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let expected: Vec<String> = order.iter().map(|(_, i)| format!("R{i:05}")).collect();
    let (a, b) = (at(9_990, &sorted, None), at(10_010, &sorted, None));
    assert_eq!(ids(&a), expected[9_990..10_010]);
    assert_eq!(ids(&b), expected[10_010..10_030]);
    let mut seen = ids(&a);
    seen.extend(ids(&b));
    let unique: std::collections::HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), 40, "no hit twice across the window boundary");
    // Every request of the walk went through the guard: none asks for from + size past the window.
    for e in b.trace.internal.es.as_ref().unwrap().executed.as_array().unwrap() {
        let from = e["body"]["from"].as_u64().unwrap_or(0);
        assert!(from + e["body"]["size"].as_u64().unwrap() <= 10_000, "{e}");
    }
}

#[test]
fn a_question_asked_past_the_window_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let engine = numbered(dir.path(), 10_050);
    let run = ask(&engine, dir.path(), "g3 records", EsOptions { page_size: 10, offset: 1_440, ..opts() });
    assert_eq!(run.answer.total, Some(1_436), "{:?}", run.answer);
    assert!(run.answer.hits.is_empty() && run.answer.page.as_ref().unwrap().next_offset.is_none());
    let all = ask(&engine, dir.path(), "records", EsOptions { page_size: 10, offset: 10_040, ..opts() });
    assert_eq!(all.answer.status, Status::Answered, "{:?}", all.answer.error);
    assert_eq!(ids(&all), (10_040..10_050).map(|i| format!("R{i:05}")).collect::<Vec<_>>());
}

fn ask_llm(engine: &EmbeddedIndex, dir: &Path, q: &str, llm: &mut qa_llm::scripted::ScriptedLlm, o: EsOptions) -> EsRun {
    let mut run = LlmRun::new(llm);
    answer(engine, Some(&mut run), EsQuestion { question: q, options: o, data_dir: dir, llm_skip: None }).unwrap()
}

fn reply(body: Value) -> String {
    json!({"intent": "search", "body": body}).to_string()
}

fn candidates(r: &EsRun) -> Vec<Value> {
    r.trace.internal.es.as_ref().unwrap().nodes["generate"]["candidates"].as_array().unwrap().clone()
}

#[test]
fn a_better_llm_candidate_is_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    // The refs are stored in lower case: the index has no "REF75" (nor "Ref75"), so the plan
    // cannot place it; forced, it runs without it and says so first.
    let q = "show ticket REF75";
    let forced = EsOptions { force: true, ..opts() };
    let plain = ask(&engine, dir.path(), q, forced.clone());
    assert_eq!(plain.answer.total, Some(90), "{:?}", plain.answer);
    assert!(plain.answer.notes[0].contains("\"REF75\""), "{:?}", plain.answer.notes);
    let mut llm = qa_llm::scripted::ScriptedLlm::script(&[&reply(json!({"query": {"term": {"ref": "ref75"}}}))]);
    let run = ask_llm(&engine, dir.path(), q, &mut llm, EsOptions { k: 1, ..forced });
    assert_eq!(run.answer.total, Some(1), "{:?}", run.answer);
    assert_eq!(run.answer.hits[0]["ref"], "ref75");
    assert_eq!(run.answer.query_summary, "documents where ref is \"ref75\"");
    let cands = candidates(&run);
    assert_eq!(cands.len(), 2);
    assert!(cands[0]["source"] == "llm#1" && cands[0]["chosen"] == true && cands[0]["valid"] == true, "{cands:?}");
    assert!(cands[1]["source"] == "deterministic" && cands[1]["chosen"] == false);
    let llm_trace = run.trace.internal.llm.as_ref().unwrap();
    assert_eq!(llm_trace.model.as_deref(), Some("scripted"));
    assert_eq!(llm_trace.calls.as_array().unwrap().len(), 1);
    assert_eq!(run.answer.metrics.tokens.map(|t| t.total), Some(120));
    // The prompt carried the fields, what the question's words became and the plan's draft.
    let user = llm.user_message(0);
    assert!(user.contains("- id: keyword") && user.contains("opened_on: date; from 2025-01-01 to") && user.contains("\"REF75\": ignored") && user.contains("\"match_all\""), "{user}");
}

#[test]
fn hostile_llm_candidates_never_reach_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let hostile = [
        json!({"query": {"script": {"script": {"source": "Math.random() > 0.5"}}}}),
        json!({"query": {"term": {"secret_field": "x"}}}),
        json!({"query": {"match_all": {}}, "script_fields": {"x": {"script": "params._source"}}}),
        json!({"query": {"more_like_this": {"fields": ["summary"], "like": [{"_index": "other", "_id": "1"}]}}}),
    ];
    let replies: Vec<String> = hostile.iter().cloned().map(reply).collect();
    let mut llm = qa_llm::scripted::ScriptedLlm::new(move |n, _| replies.get(n % 4).cloned());
    let run = ask_llm(&engine, dir.path(), "urgent billing tickets", &mut llm, EsOptions { k: 4, max_repairs: 1, ..opts() });
    assert_eq!(run.answer.status, Status::Answered);
    let expected = records.iter().filter(|r| r["team"] == "billing" && r["priority"] == "urgent").count() as u64;
    assert_eq!(run.answer.total, Some(expected), "the deterministic query ran");
    let cands = candidates(&run);
    assert_eq!(cands[0]["source"], "deterministic");
    assert!(cands.iter().filter(|c| c["source"] != "deterministic").all(|c| c["valid"] == false && !c["reasons"].as_array().unwrap().is_empty()), "{cands:?}");
    let executed = serde_json::to_string(&run.trace.internal.es.as_ref().unwrap().executed).unwrap();
    for word in ["script", "secret_field", "more_like_this"] {
        assert!(!executed.contains(word), "{word} reached the engine: {executed}");
    }
    // Four candidates, each repaired once: eight calls, no more.
    assert_eq!(llm.requests.lock().unwrap().len(), 8);
}

#[test]
fn a_repair_round_fixes_an_unknown_field_with_the_guards_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = tickets(dir.path());
    let mut llm = qa_llm::scripted::ScriptedLlm::new(|_, req| {
        let user = &req.messages.last().unwrap().content;
        // Fixed only once the guard's reason is in the prompt.
        Some(if user.contains("was refused") && user.contains("ticket_id") { reply(json!({"query": {"term": {"id": "T075"}}})) } else { reply(json!({"query": {"term": {"ticket_id": "T075"}}})) })
    });
    let run = ask_llm(&engine, dir.path(), "show ticket T075", &mut llm, EsOptions { k: 1, max_repairs: 2, ..opts() });
    assert_eq!(run.answer.total, Some(1), "{:?}", run.answer);
    let cands = candidates(&run);
    let chosen = cands.iter().find(|c| c["chosen"] == true).unwrap();
    assert_eq!(chosen["source"], "llm#1/repair#1");
    let first = cands.iter().find(|c| c["source"] == "llm#1").unwrap();
    assert_eq!(first["valid"], false);
    let reason = first["reasons"][0].as_str().unwrap().to_string();
    assert!(llm.user_message(1).contains(&reason), "the repair prompt carries the guard's reason {reason:?}");
    assert_eq!(llm.requests.lock().unwrap().len(), 2, "no repair after a valid body");
}

#[test]
fn with_the_llm_down_the_deterministic_query_answers_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, records) = tickets(dir.path());
    let mut llm = qa_llm::scripted::ScriptedLlm::new(|_, _| None);
    let run = ask_llm(&engine, dir.path(), "urgent billing tickets", &mut llm, EsOptions { k: 3, ..opts() });
    assert_eq!(run.answer.status, Status::Answered);
    let expected = records.iter().filter(|r| r["team"] == "billing" && r["priority"] == "urgent").count() as u64;
    assert_eq!(run.answer.total, Some(expected));
    assert!(run.answer.notes.iter().any(|n| n.contains("LLM query generation degraded") && n.contains("deterministic")), "{:?}", run.answer.notes);
    assert_eq!(llm.requests.lock().unwrap().len(), 1, "an unreachable LLM is not asked again");
    let calls = run.trace.internal.llm.as_ref().unwrap().calls.as_array().unwrap().clone();
    assert_eq!(calls[0]["ok"], false);
    // Without an LLM at all, the trace says why.
    let none = answer(&engine, None, EsQuestion { question: "urgent billing tickets", options: opts(), data_dir: dir.path(), llm_skip: Some("no LLM configured") }).unwrap();
    assert_eq!(none.trace.internal.llm.as_ref().unwrap().skipped.as_deref(), Some("no LLM configured"));
}
