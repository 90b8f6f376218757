//! LLM synthesis: the prompt (question, retrieved passages, graph facts, fitted to a token budget
//! by evidence priority) and the deterministic clean-up of the model's answer (citations of chunks
//! that are not in the evidence are removed; evidence blocks the model wrote itself are dropped,
//! because [`super::render`] rebuilds them from the actual evidence).

use std::collections::BTreeSet;

use serde::Serialize;

pub use super::grounding::DraftSentence;
use super::grounding::{self, EmbedFn, EvidenceText, Grounding};
use super::{render, select_images, Answer, Candidate, ChunkRef, CitedSentence};
use qa_core::text::split_sentences;
use qa_core::chunk::Chunk;
use qa_graph::evidence::{GraphEvidence, GraphFact};
use qa_llm::{ChatMessage, ChatRequest, Llm, LlmRun, OutputFormat};

/// Short and plain on purpose: a 135M local model follows a few direct sentences and loses the
/// thread in long instructions (measured with `examples/llm_chat.rs`); larger models need no more.
const SYSTEM_PROMPT: &str = "You are a helpful assistant. Answer in two or three sentences using only the given text and facts: \
use the facts from the knowledge graph for how things are related and the text for explanations. If they do not answer the \
question, say that the documents do not say. After each sentence, write the id of the passage it comes from in square brackets.";

/// Graph facts put in the prompt at most (they are short and come first).
const MAX_FACTS: usize = 8;

/// What made it into the prompt.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct PromptInfo {
    pub prompt_tokens: usize,
    pub budget_tokens: usize,
    pub facts_included: usize,
    pub passages_included: Vec<String>,
    /// Passages cut at a sentence boundary to fit.
    pub passages_trimmed: Vec<String>,
    pub passages_dropped: Vec<String>,
}

pub struct PromptParts<'a> {
    pub question: &'a str,
    /// Best evidence first.
    pub passages: Vec<&'a Chunk>,
    pub facts: &'a [GraphFact],
}

/// Fit the evidence into `budget` prompt tokens: the instructions and the question always, then
/// graph facts, then passages in priority order (whole, or cut after the last sentence that fits).
/// Text is never cut inside a sentence, so never inside a token.
pub fn build_request(llm: &dyn Llm, parts: &PromptParts, budget: usize, max_tokens: usize) -> (ChatRequest, PromptInfo) {
    let mut info = PromptInfo { budget_tokens: budget, ..Default::default() };
    let head = "Text:\n".to_string();
    let tail = format!("\nQuestion: {}\nAnswer:", parts.question);
    // Chat-template overhead (role markers) is small; 16 tokens covers the templates we know.
    let mut used = llm.count_tokens(SYSTEM_PROMPT) + llm.count_tokens(&head) + llm.count_tokens(&tail) + 16;
    let mut facts_text = String::new();
    let mut section = "";
    for f in parts.facts.iter().take(MAX_FACTS) {
        // Generated-query rows are labelled as such: the model sees what the graph returned.
        let heading = if f.kind == "raw_row" { "Raw graph rows:\n" } else { "Facts from the knowledge graph:\n" };
        let line = if heading == section { format!("- {}\n", f.text) } else { format!("{heading}- {}\n", f.text) };
        let cost = llm.count_tokens(&line);
        if used + cost > budget {
            break;
        }
        used += cost;
        facts_text.push_str(&line);
        section = heading;
        info.facts_included += 1;
    }
    let mut passages_text = String::new();
    for chunk in &parts.passages {
        let header = format!("[{}] ({})\n", chunk.id, chunk.source_file);
        let whole = format!("{header}{}\n\n", chunk.content.trim());
        let cost = llm.count_tokens(&whole);
        if used + cost <= budget {
            used += cost;
            passages_text.push_str(&whole);
            info.passages_included.push(chunk.id.clone());
            continue;
        }
        // Cut at the last sentence that fits; a passage whose first sentence does not fit is dropped.
        let content = chunk.content.trim();
        let mut fitted: Option<(String, usize)> = None;
        for (_, end) in split_sentences(content) {
            let candidate = format!("{header}{} …\n\n", content[..end].trim_end());
            let c = llm.count_tokens(&candidate);
            if used + c > budget {
                break;
            }
            fitted = Some((candidate, c));
        }
        match fitted {
            Some((text, c)) => {
                used += c;
                passages_text.push_str(&text);
                info.passages_included.push(chunk.id.clone());
                info.passages_trimmed.push(chunk.id.clone());
            }
            None => info.passages_dropped.push(chunk.id.clone()),
        }
    }
    // Layout: passages, then graph facts, then the question last, where small models look.
    let mut user = head;
    if passages_text.is_empty() {
        user.push_str("(none)\n\n");
    }
    user.push_str(&passages_text);
    if !facts_text.is_empty() {
        user.push_str(&facts_text);
    }
    user.push_str(&tail);
    info.prompt_tokens = used;
    let request = ChatRequest {
        messages: vec![ChatMessage::system(SYSTEM_PROMPT), ChatMessage::user(user)],
        max_tokens,
        format: OutputFormat::Text,
        stop: vec![],
        temperature: 0.0,
        purpose: "synthesis",
    };
    (request, info)
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Draft {
    pub sentences: Vec<DraftSentence>,
    pub invented_chunk_ids: Vec<String>,
}

/// Why a draft answer says nothing, if it does not: it repeats itself (a word 4-gram three
/// times, or fewer than 45% distinct words over 12+ words), or every sentence only restates the
/// question (no content word the question lacks).
pub fn degenerate(sentences: &[DraftSentence], question: &str) -> Option<String> {
    let words: Vec<String> = sentences.iter().flat_map(|d| qa_core::text::words(&d.text)).collect();
    if words.len() >= 12 {
        let distinct: BTreeSet<&String> = words.iter().collect();
        if distinct.len() * 100 < words.len() * 45 {
            return Some(format!("repeats itself ({} distinct words of {})", distinct.len(), words.len()));
        }
        let mut grams: std::collections::HashMap<&[String], usize> = std::collections::HashMap::new();
        for g in words.windows(4) {
            let n = grams.entry(g).or_default();
            *n += 1;
            if *n >= 3 {
                return Some(format!("repeats itself (\"{}\" three times)", g.join(" ")));
            }
        }
    }
    // Words that talk about the text instead of saying something.
    const FILLER: &[&str] = &[
        "information", "discussed", "discus", "mentioned", "mention", "related", "relate", "relation", "relationship", "topic",
        "text", "context", "provided", "passage", "document", "question", "answer", "often", "regarding", "evidence", "described",
    ];
    let asked: BTreeSet<String> = qa_core::text::normalized_words(question).into_iter().collect();
    let says_something = sentences.iter().any(|d| {
        qa_core::text::normalized_words(&d.text)
            .iter()
            .any(|w| !qa_core::text::is_stop(w) && w.chars().any(char::is_alphanumeric) && !asked.contains(w) && !FILLER.contains(&w.as_str()))
    });
    if !sentences.is_empty() && !says_something {
        return Some("only restates the question".into());
    }
    None
}

/// Split the model's answer into sentences and check its citations against `known` chunk ids.
/// Anything from a line that starts an evidence block of its own ("Chunks used", "Sources", …)
/// on is dropped: those blocks are rebuilt from the evidence.
pub fn clean_answer(raw: &str, known: &BTreeSet<String>) -> Draft {
    let mut body = String::new();
    for line in raw.lines() {
        let l = line.trim().trim_start_matches(['#', '*', ' ']).to_ascii_lowercase();
        if ["chunks used", "image paths", "sources:", "references:", "evidence:"].iter().any(|p| l.starts_with(p)) {
            break;
        }
        body.push_str(line);
        body.push('\n');
    }
    let body = body.trim().trim_start_matches("Answer:").trim();
    let mut draft = Draft::default();
    for block in body.split("\n\n") {
        let block = block.split_whitespace().collect::<Vec<_>>().join(" ");
        for (s, e) in split_sentences(&block) {
            let (text, cited, invented) = strip_citations(&block[s..e], known);
            for id in invented {
                if !draft.invented_chunk_ids.contains(&id) {
                    draft.invented_chunk_ids.push(id);
                }
            }
            let text = text.trim().to_string();
            if text.chars().any(char::is_alphanumeric) {
                draft.sentences.push(DraftSentence { text, cited });
            } else if let Some(prev) = draft.sentences.last_mut() {
                // A citation after the full stop ("… rain. [rain_0]") belongs to the sentence before.
                for id in cited {
                    if !prev.cited.contains(&id) {
                        prev.cited.push(id);
                    }
                }
            }
        }
    }
    draft
}

/// Remove `[...]` groups that look like citations (ids without spaces, comma-separated); return
/// the text, the known ids and the unknown ones.
fn strip_citations(sentence: &str, known: &BTreeSet<String>) -> (String, Vec<String>, Vec<String>) {
    let mut text = String::new();
    let mut cited = Vec::new();
    let mut invented = Vec::new();
    let mut rest = sentence;
    while let Some(open) = rest.find('[') {
        let Some(close_rel) = rest[open..].find(']') else { break };
        let inner = &rest[open + 1..open + close_rel];
        let ids: Vec<&str> = inner.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        let looks_like_citation = !ids.is_empty() && ids.iter().all(|id| !id.contains(char::is_whitespace) && id.len() <= 120);
        text.push_str(&rest[..open]);
        if looks_like_citation {
            for id in ids {
                let id = id.trim_matches(|c: char| c == '`' || c == '"' || c == '\'');
                if known.contains(id) {
                    if !cited.iter().any(|c| c == id) {
                        cited.push(id.to_string());
                    }
                } else {
                    invented.push(id.to_string());
                }
            }
        } else {
            text.push_str(&rest[open..open + close_rel + 1]);
        }
        rest = &rest[open + close_rel + 1..];
    }
    text.push_str(rest);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ").replace(" .", ".").replace(" ,", ",");
    (text, cited, invented)
}

/// Settings of one LLM synthesis.
pub struct LlmSynthesis<'a> {
    pub question: &'a str,
    pub candidates: &'a [Candidate<'a>],
    pub graph: &'a GraphEvidence,
    /// The extractive answer: the fallback, and its quoted chunks lead the prompt.
    pub extractive: &'a Answer,
    pub images: &'a std::collections::BTreeMap<String, qa_index::corpus::ImageRef>,
    pub prompt_budget: usize,
    pub max_tokens: usize,
    pub grounding_threshold: f32,
    pub grounding_min_supported: f32,
    pub embed: EmbedFn<'a>,
}

pub struct LlmSynthesisOutcome {
    /// The LLM's answer when it passed the grounding guard, else the extractive one.
    pub answer: Answer,
    pub prompt: Option<PromptInfo>,
    pub grounding: Option<Grounding>,
    /// One line for the user when the LLM's answer was not used.
    pub note: Option<String>,
    /// Set when the LLM itself failed (for the trace's `error`).
    pub error: Option<String>,
}

/// Ask the LLM to answer from the evidence, then keep only what the evidence supports.
pub fn synthesize_with_llm(run: &mut LlmRun, s: LlmSynthesis) -> LlmSynthesisOutcome {
    let fallback = |note: Option<String>, error: Option<String>, prompt: Option<PromptInfo>, grounding: Option<Grounding>| LlmSynthesisOutcome {
        answer: s.extractive.clone(),
        prompt,
        grounding,
        note,
        error,
    };
    // Passages: the extractive answer's chunks first (they hold the best-matching sentences),
    // then the rest by retrieval score, graph-found chunks last.
    let quoted: Vec<&str> = s.extractive.chunks_used.iter().map(|c| c.chunk_id.as_str()).collect();
    let mut ordered: Vec<&Candidate> = s.candidates.iter().collect();
    ordered.sort_by(|a, b| {
        let qa = quoted.iter().position(|q| *q == a.chunk.id).unwrap_or(usize::MAX);
        let qb = quoted.iter().position(|q| *q == b.chunk.id).unwrap_or(usize::MAX);
        qa.cmp(&qb).then(a.from_graph.cmp(&b.from_graph)).then(b.score.total_cmp(&a.score))
    });
    let parts = PromptParts { question: s.question, passages: ordered.iter().map(|c| c.chunk).collect(), facts: &s.graph.facts };
    let context = run.llm().context_length().unwrap_or(usize::MAX);
    let budget = s.prompt_budget.min(context.saturating_sub(s.max_tokens));
    let (request, info) = build_request(run.llm(), &parts, budget, s.max_tokens);
    let response = match run.call(&request) {
        Ok(r) => r,
        Err(e) => {
            return fallback(Some(format!("LLM unavailable: {e}; showing the extractive answer.")), Some(format!("LLM unavailable: {e}")), Some(info), None)
        }
    };
    let known: BTreeSet<String> = info.passages_included.iter().cloned().collect();
    let draft = clean_answer(&response.text, &known);
    // Fluent text can still say nothing: a loop, or the question turned into a statement. Every
    // word of it may be in the evidence, so the grounding guard alone would pass it.
    if let Some(reason) = degenerate(&draft.sentences, s.question) {
        run.set_outcome(format!("rejected: {reason}"));
        let g = Grounding { action: "fell_back_to_extractive".into(), reason: Some(reason.clone()), ..Grounding::empty(s.grounding_threshold, s.grounding_min_supported) };
        return fallback(Some(format!("LLM answer withheld: it {reason}; showing the extractive answer.")), None, Some(info), Some(g));
    }
    let included: Vec<&Chunk> = parts.passages.iter().copied().filter(|c| known.contains(&c.id)).collect();
    let facts: Vec<GraphFact> = s.graph.facts.iter().take(info.facts_included).cloned().collect();
    let mut evidence: Vec<EvidenceText> = included.iter().map(|c| EvidenceText { source: &c.id, text: &c.content }).collect();
    evidence.extend(facts.iter().map(|f| EvidenceText { source: "graph", text: &f.text }));
    let scores = grounding::assess(&draft.sentences, &evidence, s.grounding_threshold, s.embed);
    let fraction = grounding::supported_fraction(&scores);
    let cited: Vec<String> = draft.sentences.iter().flat_map(|d| d.cited.iter().cloned()).collect::<BTreeSet<_>>().into_iter().collect();
    let mut g = Grounding {
        threshold: s.grounding_threshold,
        min_supported: s.grounding_min_supported,
        sentences: scores.clone(),
        supported_fraction: fraction,
        action: "kept_all".into(),
        reason: None,
        uncited: cited.is_empty() && !included.is_empty(),
        cited_chunk_ids: cited,
        invented_chunk_ids: draft.invented_chunk_ids.clone(),
    };
    let supported = scores.iter().filter(|x| x.supported).count();
    if draft.sentences.is_empty() || supported == 0 || fraction < s.grounding_min_supported {
        let claims = scores.iter().filter(|x| !x.abstention).count();
        let reason = if draft.sentences.is_empty() {
            "the LLM returned no answer text".to_string()
        } else {
            format!("{supported} of {claims} sentences of the LLM answer were supported by the evidence (minimum {:.0}%)", s.grounding_min_supported * 100.0)
        };
        run.set_outcome("rejected by the grounding guard");
        g.action = "fell_back_to_extractive".into();
        g.reason = Some(reason.clone());
        return fallback(Some(format!("LLM answer withheld: {reason}; showing the extractive answer.")), None, Some(info), Some(g));
    }
    if supported + scores.iter().filter(|x| x.abstention).count() < scores.len() {
        g.action = "removed_unsupported".into();
        g.reason = Some(format!("removed {} unsupported sentence(s)", scores.len() - supported - scores.iter().filter(|x| x.abstention).count()));
    }
    run.set_outcome("used");
    // Each kept sentence cites what the model cited, or else the evidence that supports it.
    let mut body = String::new();
    let mut sentences: Vec<CitedSentence> = Vec::new();
    let mut used: Vec<ChunkRef> = Vec::new();
    let file_of = |id: &str| included.iter().find(|c| c.id == id).map(|c| c.source_file.clone()).unwrap_or_default();
    let mut add_used = |id: &str| {
        if !used.iter().any(|u| u.chunk_id == id) && known.contains(id) {
            used.push(ChunkRef { chunk_id: id.to_string(), source_file: file_of(id) });
        }
    };
    for (d, sc) in draft.sentences.iter().zip(&scores) {
        if !(sc.supported || sc.abstention) {
            continue;
        }
        let mut ids = d.cited.clone();
        if ids.is_empty() && sc.supported {
            ids.extend(sc.best_source.iter().filter(|src| known.contains(*src)).cloned());
        }
        for id in &ids {
            add_used(id);
        }
        let cite = if ids.is_empty() { String::new() } else { format!(" [{}]", ids.join(", ")) };
        body.push_str(&format!("{}{cite}\n", d.text));
        sentences.push(CitedSentence { text: d.text.clone(), chunk_id: ids.first().cloned().unwrap_or_default(), source_file: ids.first().map(|i| file_of(i)).unwrap_or_default(), score: sc.score });
    }
    let facts: Vec<GraphFact> = facts
        .into_iter()
        .map(|f| GraphFact { chunk_ids: f.chunk_ids.iter().filter(|id| known.contains(*id)).cloned().collect(), ..f })
        .collect();
    for f in &facts {
        for id in &f.chunk_ids {
            add_used(id);
        }
    }
    let quoted_set: BTreeSet<&str> = used.iter().map(|u| u.chunk_id.as_str()).collect();
    let images = select_images(s.question, s.graph, s.candidates, &quoted_set, s.images);
    let text = render(&body, &facts, &used, &images);
    let answer = Answer { found: true, synthesizer: "llm".into(), sentences, graph_facts: facts, chunks_used: used, image_paths: images, text };
    LlmSynthesisOutcome { answer, prompt: Some(info), grounding: Some(g), note: None, error: None }
}

#[cfg(test)]
mod degenerate_tests {
    use super::*;

    fn draft(text: &str) -> Vec<DraftSentence> {
        qa_core::text::split_sentences(text).into_iter().map(|(a, b)| DraftSentence { text: text[a..b].to_string(), cited: vec![] }).collect()
    }

    #[test]
    fn loops_and_restated_questions_are_degenerate() {
        let q = "How does deep sleep relate to battery life?";
        let seen = "The information about deep sleep and battery life is related to the battery life and deep sleep. The battery life is most often discussed with battery life and deep sleep.";
        assert!(degenerate(&draft(seen), q).is_some(), "the answer the issue quotes");
        assert!(degenerate(&draft("Deep sleep relates to battery life."), q).unwrap().contains("restates"));
        let looping = "The sensor reads the value. The sensor reads the value. The sensor reads the value.";
        assert!(degenerate(&draft(looping), q).unwrap().contains("repeats"));
        let good = "In deep sleep the ESP32 draws about 10 µA, so a charged battery lasts for months; Wi-Fi time dominates the budget.";
        assert_eq!(degenerate(&draft(good), q), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn invented_ids_are_removed_and_reported() {
        let d = clean_answer("The sensor sits at 0x76 [bme280_0, ghost_9]. It measures humidity [made_up_3].", &known(&["bme280_0"]));
        assert_eq!(d.sentences.len(), 2);
        assert_eq!(d.sentences[0].text, "The sensor sits at 0x76.");
        assert_eq!(d.sentences[0].cited, vec!["bme280_0"]);
        assert!(d.sentences[1].cited.is_empty());
        assert_eq!(d.invented_chunk_ids, vec!["ghost_9", "made_up_3"]);
    }

    #[test]
    fn model_written_evidence_blocks_are_dropped() {
        let d = clean_answer("Answer: Pull-ups are 4.7 kΩ. [i2c_1]\n\nChunks used:\n- i2c_1\n- fake_2", &known(&["i2c_1"]));
        assert_eq!(d.sentences.len(), 1);
        assert_eq!(d.sentences[0].text, "Pull-ups are 4.7 kΩ.");
        assert_eq!(d.sentences[0].cited, vec!["i2c_1"]);
        assert!(d.invented_chunk_ids.is_empty());
    }

    #[test]
    fn brackets_that_are_not_citations_stay() {
        let d = clean_answer("Use the range [0 to 5 V] for the input.", &known(&[]));
        assert_eq!(d.sentences[0].text, "Use the range [0 to 5 V] for the input.");
    }
}
