//! LLM candidates for the ES query (F06): k-best, each judged by the guard, ranked against the
//! mapping lookup, with bounded repair using the guard's reasons.
//!
//! The deterministic plan always runs and is always a candidate. With an LLM attached, the model
//! gets the mapping's fields (types, a few sampled values), what the lookup mapped the question
//! to and the plan's body as a draft ([`EsQueryPrompt`]), and answers `{"intent", "body"}`. Each
//! body it writes is only text until the guard accepts it: a refused body never reaches the
//! engine; it is sent back with the guard's reasons at most `max_repairs` times. The valid
//! candidates are ranked ([`rank::score`]): agreement with the lookup's field/value mappings and
//! intent, exact filters grounded in the question, values a field cannot hold. The plan wins ties
//! and whenever no LLM candidate is valid. A failing LLM is a note on the answer, never an error.

pub mod rank;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use qa_llm::{ChatMessage, ChatRequest, LlmRun, OutputFormat, Prompt, PromptError};

use crate::guard::{Verdict, check_body};
use crate::lookup::Metadata;
use crate::{Endpoint, EsLimits, FieldKind, Intent, Mapping};

/// Longest body (serialized) accepted from the model.
pub const MAX_BODY_CHARS: usize = 6_000;

/// Sampled values per field shown to the model.
const PROMPT_VALUES: usize = 8;

/// A refused body sent back to the model with the guard's reasons.
#[derive(Debug, Clone, Copy)]
pub struct Repair<'a> {
    /// The body the model wrote.
    pub body: &'a Value,
    /// Why the guard refused it.
    pub reasons: &'a [String],
}

/// The prompt asking the LLM for one `_search` body: the fields with a few sampled values, what
/// the lookup mapped the question to, the plan's body as a draft, and a refused body to fix.
#[derive(Debug, Clone, Copy)]
pub struct EsQueryPrompt<'a> {
    /// The question, mapping, lookup, sample and caps.
    pub input: &'a GenerateInput<'a>,
    /// The deterministic plan's body, offered as a draft.
    pub draft: &'a Value,
    /// Candidate number, 0-based: the first is greedy, later ones sampled so the k differ.
    pub n: usize,
    /// A refused body to fix, with the reasons.
    pub repair: Option<Repair<'a>>,
}

/// A body the model wrote, not yet checked: it goes through the guard and ranking like any
/// candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedBody {
    /// The intent the model states (the body's shape decides when it is absent).
    pub intent: Option<Intent>,
    /// The request body.
    pub body: Value,
}

fn reply_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "intent": {"type": "string", "enum": ["search", "aggregation", "count"]},
            "body": {"type": "object"}
        },
        "required": ["intent", "body"],
        "additionalProperties": false
    })
}

impl EsQueryPrompt<'_> {
    /// `- path: type …` per field, with the exact path of text fields and sampled values.
    fn fields_block(&self) -> String {
        let mut out = String::new();
        let meta = self.input.meta;
        for f in &self.input.mapping.fields {
            out.push_str(&format!("- {}: {}", f.path, f.kind.es_type()));
            if let (FieldKind::Text, Some(exact)) = (f.kind, f.exact_path()) {
                out.push_str(&format!(" (exact values and aggregations: {exact})"));
            }
            if let Some(values) = f.exact_path().and_then(|p| meta.values.get(&p)).filter(|v| !v.is_empty()) {
                let shown: Vec<String> = values.iter().take(PROMPT_VALUES).map(|(v, _)| format!("{v:?}")).collect();
                let more = if values.len() > PROMPT_VALUES { ", …" } else { "" };
                out.push_str(&format!("; values: {}{more}", shown.join(", ")));
            }
            if let Some((lo, hi)) = meta.ranges.get(&f.path) {
                out.push_str(&format!("; from {} to {}", plain(lo), plain(hi)));
            }
            out.push('\n');
        }
        out
    }

    /// What the question's words became in the plan, one line each, and the words not used.
    fn lookup_block(&self) -> String {
        let plan = self.input.plan;
        let mut out = format!("- intent: {}\n", intent_name(plan.intent));
        for m in &plan.coverage.mapped {
            out.push_str(&format!("- \"{}\": {}\n", m.phrase, m.role));
        }
        if !plan.coverage.unmapped.is_empty() {
            out.push_str(&format!("- words matching nothing in the index: {}\n", plan.coverage.unmapped.join(" ")));
        }
        out
    }
}

/// A JSON scalar as plain text (strings without quotes, midnight dates as days).
fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), |s| s.strip_suffix("T00:00:00.000Z").unwrap_or(s).to_string())
}

/// `search`, `aggregation` or `count`.
pub fn intent_name(i: Intent) -> &'static str {
    match i {
        Intent::Search => "search",
        Intent::Aggregation => "aggregation",
        Intent::Count => "count",
    }
}

impl Prompt for EsQueryPrompt<'_> {
    type Reply = GeneratedBody;

    fn request(&self) -> ChatRequest {
        let mut user = format!("Index: {}\nFields (path: type):\n{}", self.input.mapping.index, self.fields_block());
        user.push_str(&format!("\nWhat the question was mapped to:\n{}", self.lookup_block()));
        user.push_str(&format!("\nA draft body (deterministic; keep what is right, fix what misses the question):\n{}\n", self.draft));
        if let Some(r) = self.repair {
            user.push_str(&format!("\nYour previous body was refused by the validator:\n{}\nReasons:\n", r.body));
            for reason in r.reasons {
                user.push_str(&format!("- {reason}\n"));
            }
            user.push_str("Write a corrected body.\n");
        }
        user.push_str(&format!(
            "\nWrite one Elasticsearch _search request body that answers the question. Use only the fields above. \
             Filter exact values with term or terms on keyword fields (or the exact path of a text field), free text with \
             match on text fields, dates and numbers with range (dates as yyyy-MM-dd). Group with a terms or date_histogram \
             (calendar_interval) aggregation, compute avg, sum, min or max with metric aggregations, and set size to 0 when \
             only aggregations or the count are wanted; otherwise size at most {row_cap}. No scripts, no query_string. \
             Reply as {{\"intent\": \"search|aggregation|count\", \"body\": {{...}}}}.\n\nQuestion: {question}",
            row_cap = self.input.limits.row_cap,
            question = self.input.question,
        ));
        ChatRequest {
            messages: vec![ChatMessage::system("You translate questions into Elasticsearch Query DSL. Reply with JSON only."), ChatMessage::user(user)],
            max_tokens: 400,
            format: OutputFormat::Json { name: "es_query".into(), schema: reply_schema(), prefix: "{\"intent\": \"".into() },
            stop: vec![],
            temperature: if self.n == 0 && self.repair.is_none() { 0.0 } else { 0.7 },
            purpose: "es",
        }
    }

    fn parse(&self, reply: &str) -> Result<GeneratedBody, PromptError> {
        parse_reply(reply)
    }
}

/// The body in a model's reply: `{"intent", "body"}`, or a bare body (models without JSON mode
/// answer with the body itself, possibly fenced).
fn parse_reply(reply: &str) -> Result<GeneratedBody, PromptError> {
    let text = reply.trim();
    let unfenced = text.find("```").map_or(text, |i| {
        let rest = &text[i + 3..];
        let rest = rest.strip_prefix("json").unwrap_or(rest);
        rest.split("```").next().unwrap_or(rest)
    });
    let object = qa_llm::openai::first_json_object(unfenced).ok_or_else(|| PromptError("the reply holds no JSON object".into()))?;
    let v: Value = serde_json::from_str(object).map_err(|e| PromptError(format!("the reply is not JSON: {e}")))?;
    let (intent, body) = match v.get("body") {
        Some(b @ Value::Object(_)) => (v.get("intent").and_then(Value::as_str).and_then(intent_of_name), b.clone()),
        Some(_) => return Err(PromptError("\"body\" is not an object".into())),
        None if v.get("query").is_some() || v.get("aggs").is_some() || v.get("aggregations").is_some() => (None, v),
        None => return Err(PromptError("the reply has no \"body\"".into())),
    };
    if body.to_string().chars().count() > MAX_BODY_CHARS {
        return Err(PromptError(format!("the body is longer than {MAX_BODY_CHARS} characters")));
    }
    Ok(GeneratedBody { intent, body })
}

fn intent_of_name(s: &str) -> Option<Intent> {
    match s {
        "search" => Some(Intent::Search),
        "aggregation" => Some(Intent::Aggregation),
        "count" => Some(Intent::Count),
        _ => None,
    }
}

/// One candidate body, as judged and ranked (recorded in `internal.es.nodes.generate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// `deterministic`, `llm#N`, or `llm#N/repair#M`.
    pub source: String,
    /// The body as proposed (paging set by the run).
    pub body: Value,
    /// What it asks for, from its shape.
    pub intent: Intent,
    /// Whether the guard accepted it.
    pub valid: bool,
    /// The guard's reasons when refused.
    pub reasons: Vec<String>,
    /// Rank score (higher is better; refused candidates are far below).
    pub score: f64,
    /// Whether it is the one that ran.
    pub chosen: bool,
}

/// What generation produced: the candidates, best first, and the chosen one's verdict.
#[derive(Debug)]
pub struct Generated {
    /// Every candidate, ranked (the chosen one first when any is valid).
    pub candidates: Vec<Candidate>,
    /// The guard's verdict on the chosen candidate (the first one when none is valid).
    pub verdict: Verdict,
    /// Notes for the answer (LLM failures, an LLM candidate chosen).
    pub notes: Vec<String>,
    /// Time spent in the guard, in milliseconds.
    pub guard_ms: f64,
}

impl Generated {
    /// The candidate that runs (or, when none is valid, the best refused one).
    pub fn best(&self) -> &Candidate {
        &self.candidates[0]
    }
}

/// What generation works from.
#[derive(Debug, Clone, Copy)]
pub struct GenerateInput<'a> {
    /// The question's goal.
    pub question: &'a str,
    /// The index's fields.
    pub mapping: &'a Mapping,
    /// Sampled values, and how many were asked per field (fewer means the list is complete).
    pub meta: &'a Metadata,
    /// Values sampled per field.
    pub sample_size: usize,
    /// The deterministic plan's typed form.
    pub plan: &'a crate::plan::EsPlan,
    /// Caps.
    pub limits: &'a EsLimits,
    /// Hits per page.
    pub page_size: usize,
    /// LLM candidates to ask for.
    pub k: usize,
    /// Repairs per refused LLM candidate.
    pub max_repairs: usize,
}

/// Candidates for `input`: the plan's `draft` body, and with `llm` up to `k` more (each refused
/// one repaired at most `max_repairs` times), judged and ranked.
pub fn generate(llm: Option<&mut LlmRun>, input: &GenerateInput, draft: &Value) -> Generated {
    let mut raw: Vec<(String, Value)> = vec![("deterministic".into(), draft.clone())];
    let mut notes = Vec::new();
    if let Some(llm) = llm.filter(|_| input.k > 0) {
        llm_candidates(llm, input, draft, &mut raw, &mut notes);
    }
    let ctx = rank::Context::new(input);
    let started = std::time::Instant::now();
    let mut judged: Vec<(Candidate, Verdict)> = raw
        .into_iter()
        .map(|(source, body)| {
            let body = with_page_size(body, input.page_size);
            let verdict = check_body(&body, Endpoint::Search, input.mapping, input.limits);
            let score = ctx.score(&body, &verdict);
            let c = Candidate { source, intent: rank::intent_of(&body), valid: verdict.accepted, reasons: verdict.reasons.clone(), score, chosen: false, body };
            (c, verdict)
        })
        .collect();
    let guard_ms = started.elapsed().as_secs_f64() * 1000.0;
    // Stable: the plan (first) wins ties.
    judged.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
    if judged[0].0.valid {
        judged[0].0.chosen = true;
        if judged[0].0.source != "deterministic" {
            let plan_score = judged.iter().find(|(c, _)| c.source == "deterministic").map_or(f64::NAN, |(c, _)| c.score);
            notes.push(format!("the LLM's query ({}) ranked above the deterministic one ({:.1} vs {plan_score:.1}) and ran", judged[0].0.source, judged[0].0.score));
        }
    }
    let verdict = judged[0].1.clone();
    Generated { candidates: judged.into_iter().map(|(c, _)| c).collect(), verdict, notes, guard_ms }
}

/// Ask for `k` bodies; each one the guard refuses is sent back with its reasons, at most
/// `max_repairs` times. Failures become notes; a persistent one stops the asking.
fn llm_candidates(llm: &mut LlmRun, input: &GenerateInput, draft: &Value, raw: &mut Vec<(String, Value)>, notes: &mut Vec<String>) {
    let mut failure: Option<String> = None;
    'candidates: for n in 0..input.k {
        let mut refused: Option<(Value, Vec<String>)> = None;
        for attempt in 0..=input.max_repairs {
            let prompt = EsQueryPrompt { input, draft, n, repair: refused.as_ref().map(|(body, reasons)| Repair { body, reasons }) };
            let source = if attempt == 0 { format!("llm#{}", n + 1) } else { format!("llm#{}/repair#{attempt}", n + 1) };
            let body = match llm.call(&prompt.request()) {
                Ok(resp) => match prompt.parse(&resp.text) {
                    Ok(g) => g.body,
                    Err(e) => {
                        llm.set_outcome(format!("no body: {e}"));
                        failure.get_or_insert_with(|| format!("{source} gave no usable body ({e})"));
                        break;
                    }
                },
                Err(e) => {
                    failure = Some(e.to_string());
                    if llm.down.is_some() {
                        break 'candidates;
                    }
                    break;
                }
            };
            let verdict = check_body(&with_page_size(body.clone(), input.page_size), Endpoint::Search, input.mapping, input.limits);
            llm.set_outcome(if verdict.accepted { "candidate" } else { "refused by the guard" });
            let accepted = verdict.accepted;
            if !raw.iter().any(|(_, b)| *b == body) {
                raw.push((source, body.clone()));
            }
            if accepted {
                break;
            }
            refused = Some((body, verdict.reasons));
        }
    }
    if let Some(f) = failure {
        let ran = if raw.len() > 1 { "ranked with the other candidates" } else { "the deterministic query ran" };
        notes.push(format!("LLM query generation degraded: {f}; {ran}"));
    }
}

/// `body` with the page size of a search (aggregations and counts keep `size: 0`) and without
/// paging keys: the run places the page.
fn with_page_size(mut body: Value, page_size: usize) -> Value {
    if let Some(o) = body.as_object_mut() {
        o.remove("from");
        o.remove("search_after");
        let aggregating = o.contains_key("aggs") || o.contains_key("aggregations");
        let sorted = o.contains_key("sort");
        match o.get("size").and_then(Value::as_u64) {
            Some(0) => {}
            // "the 5 deepest": a sorted top-N keeps its size.
            Some(n) if sorted && (n as usize) <= page_size => {}
            None if aggregating => {
                o.insert("size".into(), json!(0));
            }
            _ => {
                o.insert("size".into(), json!(page_size));
            }
        }
    }
    body
}

#[cfg(test)]
mod tests;
