use super::*;
use crate::lookup::Metadata;
use crate::plan::{Choices, PlanInput, build};
use crate::semantic::Semantic;

/// A repair-shop index (not the sample's domain): a keyword, a text field with a keyword
/// multi-field, a date and a number.
fn repairs() -> (Mapping, Metadata) {
    let mapping = Mapping::from_es_json(
        "repairs",
        &json!({"properties": {"workshop": {"type": "keyword"}, "fault": {"type": "text", "fields": {"keyword": {"type": "keyword"}}},
            "opened": {"type": "date"}, "cost": {"type": "double"}, "ticket": {"type": "keyword"}}}),
    )
    .unwrap();
    let mut meta = Metadata::default();
    meta.values.insert("workshop".into(), vec![("Northside".into(), 40), ("Harbour Road".into(), 31), ("Eastgate".into(), 12)]);
    meta.values.insert("fault.keyword".into(), vec![("brake pads worn".into(), 3), ("flat tyre".into(), 2)]);
    meta.values.insert("ticket".into(), (0..4).map(|i| (format!("RP-{i:03}"), 1)).collect());
    meta.ranges.insert("opened".into(), (json!("2025-01-02"), json!("2026-04-30")));
    meta.ranges.insert("cost".into(), (json!(12.5), json!(980.0)));
    (mapping, meta)
}

struct Case {
    mapping: Mapping,
    meta: Metadata,
    plan: crate::plan::EsPlan,
    draft: Value,
}

fn case(question: &str) -> Case {
    let (mapping, meta) = repairs();
    let today = chrono::NaiveDate::from_ymd_opt(2026, 5, 20).unwrap();
    let semantic = Semantic::default();
    let choices = Choices::new();
    // Force: a word the plan cannot place is ignored (and noted), as the tests' candidates need a plan.
    let input = PlanInput { mapping: &mapping, meta: &meta, semantic: &semantic, choices: &choices, force: true, today, sample_size: 4, max_buckets: 1000 };
    let plan = build(question, &input, None).map_err(|e| e.0).unwrap().plan;
    let draft = plan.render(0, 20).1;
    Case { mapping, meta, plan, draft }
}

const LIMITS: EsLimits = EsLimits { row_cap: 200, max_window: 10_000, max_buckets: 1_000, timeout_ms: 5_000 };

fn input<'a>(c: &'a Case, question: &'a str) -> GenerateInput<'a> {
    // Sampled 4 values per field: the ticket list (4 values) is full, hence not complete.
    GenerateInput { question, mapping: &c.mapping, meta: &c.meta, sample_size: 4, plan: &c.plan, limits: &LIMITS, page_size: 20, k: 2, max_repairs: 1 }
}

#[test]
fn es_prompt_snapshot() {
    let q = "average cost per workshop at Northside in March 2026";
    let c = case(q);
    let i = input(&c, q);
    let prompt = EsQueryPrompt { input: &i, draft: &c.draft, n: 0, repair: None };
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/es_generate.txt"));
    qa_llm::prompt::assert_snapshot(path, &qa_llm::prompt::render(&prompt.request()));
    assert_eq!(prompt.reply_schema(), Some(reply_schema()));
    assert_eq!(prompt.request().temperature, 0.0);
    // A repair carries the refused body and the guard's reasons, and samples.
    let bad = json!({"query": {"term": {"shop": "Northside"}}});
    let reasons = vec!["query.term.shop: unknown field".to_string()];
    let repair = EsQueryPrompt { repair: Some(Repair { body: &bad, reasons: &reasons }), ..prompt };
    let user = repair.request().messages[1].content.clone();
    assert!(user.contains("was refused") && user.contains("query.term.shop: unknown field") && user.contains("\"shop\""), "{user}");
    assert!(repair.request().temperature > 0.0);
}

#[test]
fn replies_parse_into_bodies() {
    let g = parse_reply(r#"{"intent": "count", "body": {"query": {"match_all": {}}, "size": 0}}"#).unwrap();
    assert_eq!((g.intent, g.body["size"].as_u64()), (Some(Intent::Count), Some(0)));
    // A bare body, fenced, from a model without JSON mode.
    let g = parse_reply("Here you go:\n```json\n{\"query\": {\"term\": {\"workshop\": \"Eastgate\"}}}\n```").unwrap();
    assert_eq!(g.intent, None);
    assert_eq!(g.body["query"]["term"]["workshop"], "Eastgate");
    assert!(parse_reply("I cannot help with that").is_err());
    assert!(parse_reply(r#"{"intent": "search", "body": "match_all"}"#).is_err());
    assert!(parse_reply(r#"{"answer": 42}"#).is_err());
    let long = format!(r#"{{"body": {{"query": {{"terms": {{"ticket": [{}]}}}}}}}}"#, vec!["\"RP-000\""; 800].join(","));
    assert!(parse_reply(&long).unwrap_err().0.contains("longer than"));
}

#[test]
fn ranking_prefers_agreement_and_grounded_exact_values() {
    // The lookup maps "Northside" to workshop; "RP-777" is no sampled value, so the plan can only
    // search it as free text.
    let q = "repairs at Northside for ticket RP-777";
    let c = case(q);
    let i = input(&c, q);
    let exact = json!({"query": {"bool": {"filter": [{"term": {"workshop": "Northside"}}, {"term": {"ticket": "RP-777"}}]}}});
    let dropped = json!({"query": {"term": {"ticket": "RP-777"}}});
    let invented = json!({"query": {"bool": {"filter": [{"term": {"workshop": "Northside"}}, {"term": {"fault.keyword": "engine fire"}}]}}});
    let wrong_case = json!({"query": {"bool": {"filter": [{"term": {"workshop": "northside"}}, {"term": {"ticket": "RP-777"}}]}}});
    let mut llm_replies = [exact.clone(), dropped, invented, wrong_case].into_iter().map(|b| json!({"intent": "search", "body": b}).to_string()).collect::<Vec<_>>();
    llm_replies.reverse();
    let mut fake = qa_llm::scripted::ScriptedLlm::new(move |_, _| llm_replies.pop());
    let mut run = LlmRun::new(&mut fake);
    let g = generate(Some(&mut run), &GenerateInput { k: 4, ..i }, &c.draft);
    let by = |s: &str| g.candidates.iter().find(|c| c.source == s).unwrap().score;
    assert_eq!(g.best().source, "llm#1", "{:#?}", g.candidates);
    assert!(g.best().chosen && g.best().body["query"] == exact["query"]);
    assert!(by("llm#1") > by("deterministic"), "an exact grounded filter beats the same words as free text");
    assert!(by("llm#2") < by("deterministic"), "dropping the lookup's workshop value loses");
    assert!(by("llm#3") < by("deterministic"), "a value the fault field's complete sample lacks loses");
    assert!(by("llm#4") < by("llm#1"), "a value in the wrong case matches nothing");
    assert!(g.notes.iter().any(|n| n.contains("llm#1")), "{:?}", g.notes);
}

#[test]
fn the_plan_wins_ties_and_when_nothing_else_is_valid() {
    let q = "repairs at Eastgate";
    let c = case(q);
    let same = json!({"intent": "search", "body": c.draft}).to_string();
    let hostile = json!({"intent": "search", "body": {"query": {"script": {"script": "ctx._source"}}}}).to_string();
    let replies = [same, hostile.clone(), hostile];
    let mut fake = qa_llm::scripted::ScriptedLlm::new(move |n, _| replies.get(n).cloned());
    let mut run = LlmRun::new(&mut fake);
    let g = generate(Some(&mut run), &input(&c, q), &c.draft);
    assert_eq!(g.best().source, "deterministic");
    assert_eq!(g.candidates.len(), 2, "the copy of the draft is not a second candidate; the hostile body once: {:#?}", g.candidates);
    let refused = g.candidates.iter().find(|c| c.source.starts_with("llm")).unwrap();
    assert!(!refused.valid && refused.reasons.iter().any(|r| r.contains("script")), "{refused:?}");
    assert!(g.verdict.accepted);
}

#[test]
fn describe_reads_a_body() {
    let body = json!({"size": 0, "query": {"bool": {"filter": [{"term": {"workshop": "Eastgate"}}, {"range": {"opened": {"gte": "2026-03-01", "lte": "2026-03-31"}}}]}},
        "aggs": {"g": {"terms": {"field": "fault.keyword"}, "aggs": {"m": {"avg": {"field": "cost"}}}}}});
    assert_eq!(rank::describe(&body), "avg of cost per fault.keyword where workshop is \"Eastgate\", opened from 2026-03-01 and to 2026-03-31");
    assert_eq!(rank::intent_of(&body), Intent::Aggregation);
    assert_eq!(rank::describe(&json!({"size": 0, "query": {"match_all": {}}})), "the number of documents, all documents");
}
