//! `qa traces show`: one trace found by an id prefix, and drawn for a terminal.

use std::path::Path;

use qa_core::trace::TraceRecord;

use crate::{TracesError, truncate};

/// The traces whose id starts with a prefix.
pub enum Found {
    /// None.
    None,
    /// Exactly one.
    One(Box<TraceRecord>),
    /// Several: the first ten, and how many more.
    Many {
        /// The first matches.
        first: Vec<TraceRecord>,
        /// Matches after them.
        more: usize,
    },
}

/// The traces in `path` whose id starts with `id`. Only the id is parsed from each line; a line
/// whose id matches is parsed in full.
pub fn find(path: &Path, id: &str) -> Result<Found, TracesError> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        #[serde(default)]
        trace_id: Option<String>,
    }
    let file = std::fs::File::open(path).map_err(|source| TracesError::Open { path: path.to_path_buf(), source })?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    let mut found: Vec<TraceRecord> = Vec::new();
    let mut more = 0usize;
    loop {
        buf.clear();
        if std::io::BufRead::read_until(&mut reader, b'\n', &mut buf).map_err(|source| TracesError::Read { path: path.to_path_buf(), source })? == 0 {
            break;
        }
        let Ok(head) = serde_json::from_slice::<IdOnly>(&buf) else { continue };
        if !head.trace_id.is_some_and(|t| t.starts_with(id)) {
            continue;
        }
        let Some(r) = parse_record(&buf) else { continue };
        if found.len() < 10 {
            found.push(r);
        } else {
            more += 1;
        }
    }
    Ok(match found.len() {
        0 => Found::None,
        1 => Found::One(Box::new(found.remove(0))),
        _ => Found::Many { first: found, more },
    })
}

/// A full record; `null` and fields of an unexpected shape read as their defaults
/// ([`qa_core::trace::lenient`]), so only a line that is not a JSON object is refused.
pub(crate) fn parse_record(line: &[u8]) -> Option<TraceRecord> {
    qa_core::trace::parse_line(line)
}

/// A trace for a terminal: the question, route, status, timings, evidence and each route's steps.
pub fn render(r: &TraceRecord) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "Trace {}  {}  route {}", r.trace_id, r.timestamp, if r.route.as_str().is_empty() { "-" } else { r.route.as_str() });
    let _ = writeln!(o, "Question: {}", r.user_question);
    if !r.rewritten_or_decomposed_queries.is_empty() {
        let _ = writeln!(o, "Queries:");
        for q in &r.rewritten_or_decomposed_queries {
            let _ = writeln!(o, "  - {q}");
        }
    }
    let l = &r.latency_ms;
    let _ = writeln!(o, "Latency: rag {:.1} ms, graph {:.1} ms, synthesis {:.1} ms, total {:.1} ms (LLM calls {:.1} ms)", l.rag, l.graph, l.synthesis, l.total, l.llm_calls);
    let _ = writeln!(o, "Models: embedding {}, LLM {}", or_dash(&r.models.embedding), r.models.llm.as_deref().unwrap_or("none"));
    if let Some(u) = &r.token_usage {
        let _ = writeln!(o, "Tokens: prompt {}, completion {}, total {}", u.prompt, u.completion, u.total);
    }
    if let Some(e) = &r.error {
        let _ = writeln!(o, "Error: {e}");
    }
    if let Some(sql) = &r.internal.sql {
        render_sql(&mut o, sql);
        let _ = writeln!(o, "\nAnswer:\n{}", r.final_answer);
        return o;
    }
    if let Some(es) = &r.internal.es {
        render_es(&mut o, es);
        let _ = writeln!(o, "\nAnswer:\n{}", r.final_answer);
        return o;
    }
    let _ = writeln!(o, "\nRetrieved chunks ({}):", r.retrieved_chunks.len());
    for (i, c) in r.retrieved_chunks.iter().enumerate() {
        let _ = writeln!(o, "  {}. [{:.3}] {}  ({})", i + 1, c.score, or_dash(&c.source_file), c.chunk_id);
        if !c.text.is_empty() {
            let _ = writeln!(o, "     {}", truncate(&c.text, 160));
        }
    }
    let g = &r.retrieved_graph_subgraph;
    let _ = writeln!(o, "\nGraph subgraph: {} node(s), {} edge(s)", g.nodes.len(), g.edges.len());
    for n in &g.nodes {
        let name = n.properties.get("name").and_then(|v| v.as_str()).map(|s| format!(" \"{s}\"")).unwrap_or_default();
        let _ = writeln!(o, "  ({}:{}){name}", n.id, n.labels.join(":"));
    }
    for e in &g.edges {
        let _ = writeln!(o, "  ({})-[:{}]->({})", e.source, e.rel_type, e.target);
    }
    let gr = &r.graph;
    if !gr.grounded_entities.is_empty() {
        let names: Vec<String> = gr.grounded_entities.iter().map(|e| format!("{} ({}, {:.2})", e.name, e.method, e.score)).collect();
        let _ = writeln!(o, "Grounded entities: {}", names.join(", "));
    }
    if let Some(c) = &gr.generated_cypher {
        let _ = writeln!(o, "Generated Cypher:\n  {}", c.replace('\n', "\n  "));
    }
    if let Some(v) = &gr.validation {
        let ok = v.get("ok").and_then(|x| x.as_bool());
        let reasons: Vec<String> = v
            .get("reasons")
            .and_then(|x| x.as_array())
            .map(|a| a.iter().map(|r| r.as_str().map(str::to_string).unwrap_or_else(|| r.to_string())).collect())
            .unwrap_or_default();
        let verdict = match ok {
            Some(true) => "ok".to_string(),
            Some(false) => "refused".to_string(),
            None => v.to_string(),
        };
        let _ = writeln!(o, "Validation: {verdict}{}", if reasons.is_empty() { String::new() } else { format!(" — {}", reasons.join("; ")) });
    }
    if let Some(c) = &gr.sanitized_cypher {
        let _ = writeln!(o, "Sanitized Cypher:\n  {}", c.replace('\n', "\n  "));
    }
    let _ = writeln!(o, "Fallbacks used: {}", if gr.fallback_used.is_empty() { "none".to_string() } else { gr.fallback_used.join(", ") });
    if let Some(rag) = &r.internal.rag {
        render_evidence_check(&mut o, rag);
    }
    if let Some(g) = &r.answer_grounding {
        render_grounding(&mut o, g);
    }
    let _ = writeln!(o, "\nAnswer:\n{}", r.final_answer);
    o
}

/// The grounding guard's verdict on an LLM answer: what it did (kept, removed, fell back,
/// declined) and why, then each sentence of the model's draft with its fate — so an answer the
/// LLM declined, or one the guard overruled, can be read after the fact.
fn render_grounding(o: &mut String, g: &serde_json::Value) {
    use std::fmt::Write as _;
    let Some(action) = g["action"].as_str().filter(|a| !a.is_empty()) else { return };
    let reason = g["reason"].as_str().map(|r| format!(" — {r}")).unwrap_or_default();
    let _ = writeln!(o, "\nLLM answer: {action}{reason}");
    for s in g["sentences"].as_array().into_iter().flatten() {
        let text = truncate(s["text"].as_str().unwrap_or(""), 160);
        let score = s["score"].as_f64().unwrap_or(0.0);
        let fate = match (s["abstention"].as_bool(), s["supported"].as_bool()) {
            (Some(true), _) => "says the passages lack it".to_string(),
            (_, Some(true)) => format!("supported ({score:.2})"),
            _ => format!("unsupported ({score:.2})"),
        };
        let _ = writeln!(o, "  - {fate}: {text}");
    }
}

/// "Does the evidence answer the question?" as the documents route decided it: the score against
/// the threshold, its parts, and each focus word with where the passages hold it — why a question
/// was refused, or answered. Nothing for records written before the check.
fn render_evidence_check(o: &mut String, rag: &qa_core::trace::RagInternal) {
    use std::fmt::Write as _;
    let f = &rag.focus;
    let (Some(score), Some(threshold)) = (f["evidence"].as_f64(), f["threshold"].as_f64()) else { return };
    let check = &f["check"];
    let share = |k: &str| check[k].as_f64().unwrap_or(0.0);
    // The check's own verdict and the answer's can differ when an LLM read the passages: a near
    // miss it answered, or passages it found no answer in.
    let value_missing = check["value_missing"]["asked"].as_str().map(|asked| (asked, check["value_missing"]["of"].as_str().unwrap_or("?")));
    let passed = value_missing.is_none() && (score >= threshold || (share("share") >= 0.95 && share("passage_share") >= 0.95));
    let verdict = match (passed, rag.found) {
        (true, true) => "answered",
        (false, false) => "refused",
        (false, true) => "below the threshold, answered from the LLM's reading",
        (true, false) => "passed, but not answered",
    };
    let _ = writeln!(
        o,
        "\nEvidence check: {verdict}; score {score:.3} (threshold {threshold:.3}) from similarity {:.3}, focus held by the passages {:.2} and by the best one {:.2}",
        rag.best_score,
        share("share"),
        share("passage_share")
    );
    let words: Vec<String> = check["words"]
        .as_array()
        .map(|ws| {
            ws.iter()
                .map(|w| {
                    let word = w["word"].as_str().unwrap_or("?");
                    let place = match (w["held"].as_bool(), w["held_as"].as_str(), w["df"].as_u64()) {
                        (_, Some(by), _) => format!("read as \"{by}\""),
                        (Some(true), _, _) if w["in_best_passage"].as_bool() == Some(true) => "in the best passage".into(),
                        (Some(true), _, _) => "in another passage".into(),
                        (_, _, Some(0)) => "in no document".into(),
                        _ => "not in the passages".into(),
                    };
                    format!("{word}{} ({:.1}): {place}", if w["named"].as_bool() == Some(true) { " [name]" } else { "" }, w["weight"].as_f64().unwrap_or(0.0))
                })
                .collect()
        })
        .unwrap_or_default();
    if !words.is_empty() {
        let _ = writeln!(o, "Focus words (weight): {}", words.join("; "));
    }
    if let Some((asked, of)) = value_missing {
        let _ = writeln!(o, "Value asked for: {asked} of \"{of}\"; no passage sentence naming it gives one");
    }
}

/// The SQL route's part of `qa traces show`: the agent's stages, candidates, validation and result.
fn render_sql(o: &mut String, sql: &qa_core::trace::SqlInternal) {
    use std::fmt::Write as _;
    let st = &sql.state;
    let _ = writeln!(o, "Database: {}  outcome: {}", or_dash(&sql.database), sql.outcome["status"].as_str().unwrap_or("-"));
    let steps: Vec<String> = sql.steps
        .as_array()
        .map(|a| a.iter().map(|s| format!("{} {:.1} ms", s["stage"].as_str().unwrap_or("?"), s["latency_ms"].as_f64().unwrap_or(0.0))).collect())
        .unwrap_or_default();
    let _ = writeln!(o, "Stages: {}", steps.join(" → "));
    if let Some(c) = st["plan_confidence"].as_f64() {
        let _ = writeln!(o, "Plan confidence: {c:.2}");
    }
    if let Some(q) = st["clarifying_question"].as_str() {
        let _ = writeln!(o, "Clarifying question: {}", q.replace('\n', "\n  "));
    }
    if let Some(cands) = st["sql_candidates"].as_array() {
        let _ = writeln!(o, "\nCandidates ({}):", cands.len());
        for c in cands {
            let _ = writeln!(
                o,
                "  [{}] {} score {:.2}: {}",
                if c["valid"].as_bool() == Some(true) { "valid" } else { "refused" },
                c["source"].as_str().unwrap_or("?"),
                c["score"].as_f64().unwrap_or(0.0),
                truncate(c["sql"].as_str().unwrap_or(""), 200)
            );
        }
    }
    if let Some(rs) = st["val_reasons"].as_array().filter(|a| !a.is_empty()) {
        let _ = writeln!(o, "Validation reasons:");
        for r in rs {
            let _ = writeln!(o, "  - {} ({}): {}", r["candidate"].as_str().unwrap_or("?"), r["kind"].as_str().unwrap_or("?"), r["message"].as_str().unwrap_or(""));
        }
    }
    let _ = writeln!(o, "Loops: {}, validation ok: {}", st["loop_count"].as_u64().unwrap_or(0), st["validation_ok"].as_bool().unwrap_or(false));
    if let (Some(q), true) = (st["sql"].as_str(), st["validation_ok"].as_bool() == Some(true)) {
        let _ = writeln!(o, "SQL: {q}");
    }
    if let Some(n) = st["exec_rows"].as_u64() {
        let _ = writeln!(o, "Rows: {n}{}", if st["result_truncated"].as_bool() == Some(true) { " (row cap reached)" } else { "" });
    }
    let executed = sql.executed.as_array().map(|a| a.len()).unwrap_or(0);
    let _ = writeln!(o, "Statements sent to the database (probes included): {executed}");
}

/// The ES route's part of `qa traces show`: target, outcome, each node's output and the
/// requests sent to the engine.
fn render_es(o: &mut String, es: &qa_core::trace::EsInternal) {
    use std::fmt::Write as _;
    let _ = writeln!(o, "Target: {}  outcome: {}", or_dash(&es.target), es.outcome["status"].as_str().unwrap_or("-"));
    let latency: Vec<String> = es.metrics.latency_ms.iter().map(|(node, ms)| format!("{node} {ms:.1} ms")).collect();
    if !latency.is_empty() {
        let _ = writeln!(o, "Node latency: {}", latency.join(", "));
    }
    if let Some(nodes) = es.nodes.as_object() {
        for (name, v) in nodes {
            let _ = writeln!(o, "  {name}: {}", truncate(&v.to_string(), 300));
        }
    }
    let executed = es.executed.as_array().map(Vec::as_slice).unwrap_or_default();
    let _ = writeln!(o, "Requests sent to the engine: {}", executed.len());
    for e in executed {
        let _ = writeln!(o, "  {}", truncate(&e.to_string(), 300));
    }
}

fn or_dash(s: &str) -> &str {
    if s.is_empty() { "-" } else { s }
}


#[cfg(test)]
mod tests {
    use super::*;

    /// The check's verdict against the answer's: a near miss the LLM answered, and passages it
    /// found no answer in, are said as such.
    #[test]
    fn the_evidence_check_says_when_the_llm_decided() {
        let rag = |found: bool, evidence: f64| qa_core::trace::RagInternal {
            best_score: 0.5,
            found,
            focus: serde_json::json!({"evidence": evidence, "threshold": 0.7, "check": {"share": 0.6, "passage_share": 0.5, "words": []}}),
            ..Default::default()
        };
        let verdict = |found, evidence| {
            let mut o = String::new();
            render_evidence_check(&mut o, &rag(found, evidence));
            o
        };
        assert!(verdict(true, 0.8).contains("Evidence check: answered;"));
        assert!(verdict(false, 0.6).contains("Evidence check: refused;"));
        assert!(verdict(true, 0.6).contains("Evidence check: below the threshold, answered from the LLM's reading;"));
        assert!(verdict(false, 0.8).contains("Evidence check: passed, but not answered;"));
        // A score above the threshold with the value asked for missing is a refusal of the check.
        let missing = qa_core::trace::RagInternal {
            best_score: 0.8,
            found: false,
            focus: serde_json::json!({"evidence": 1.1, "threshold": 0.7, "check": {"share": 1.0, "passage_share": 1.0, "words": [], "value_missing": {"asked": "phone number", "of": "marina office"}}}),
            ..Default::default()
        };
        let mut o = String::new();
        render_evidence_check(&mut o, &missing);
        assert!(o.contains("Evidence check: refused;") && o.contains("Value asked for: phone number of \"marina office\"; no passage sentence naming it gives one"), "{o}");
    }
}
