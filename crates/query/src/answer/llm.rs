//! LLM synthesis: the prompt ([`SynthesisPrompt`]: question, retrieved passages, graph facts,
//! fitted to a token budget by evidence priority) and the deterministic clean-up of the model's
//! answer (citations of chunks that are not in the evidence are removed; evidence blocks the model
//! wrote itself are dropped, because the answer's blocks are rebuilt from the actual evidence);
//! then the grounding guard decides what of it the user sees ([`synthesize_with_llm`]).

use std::collections::BTreeSet;

use serde::Serialize;

use super::grounding::{self, DraftSentence, EmbedFn, EvidenceText, Grounding};
use super::{render, select_images, Answer, Candidate, ChunkRef, CitedSentence};
use qa_core::text::split_sentences;
use qa_core::chunk::Chunk;
use qa_graph::evidence::{GraphEvidence, GraphFact};
use qa_llm::{ChatMessage, ChatRequest, Llm, LlmRun, OutputFormat, Prompt, PromptError};

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
    /// Prompt tokens counted while fitting (instructions, question, evidence and a 16-token
    /// allowance for the chat template).
    pub prompt_tokens: usize,
    /// The prompt's token budget.
    pub budget_tokens: usize,
    /// Graph facts in the prompt (the first ones of the evidence).
    pub facts_included: usize,
    /// Ids of the passages in the prompt, whole or trimmed, in prompt order.
    pub passages_included: Vec<String>,
    /// Passages cut at a sentence boundary to fit.
    pub passages_trimmed: Vec<String>,
    /// Ids of the passages left out because not even their first sentence fitted.
    pub passages_dropped: Vec<String>,
}

/// The evidence offered to the synthesis prompt.
pub(crate) struct PromptParts<'a> {
    /// The user's question.
    pub question: &'a str,
    /// Best evidence first.
    pub passages: Vec<&'a Chunk>,
    /// The graph facts, in the evidence's order.
    pub facts: &'a [GraphFact],
}

/// Opens the evidence in the user message.
const EVIDENCE_HEAD: &str = "Text:\n";

/// Closes the user message: the question last, where small models look.
fn question_tail(question: &str) -> String {
    format!("\nQuestion: {question}\nAnswer:")
}

/// The answer-synthesis prompt: the question and the evidence that fitted its token budget
/// ([`SynthesisPrompt::fit`]). Its reply parses into a [`Draft`]: the model's sentences with the
/// citations of passages in the prompt, the other cited ids reported as invented.
pub(crate) struct SynthesisPrompt<'a> {
    question: &'a str,
    /// The passages as written into the prompt (`[id] (file)` header, then the whole or cut text).
    passages: String,
    /// The graph-fact lines under their headings.
    facts: String,
    /// Ids of the passages in the prompt: the only ones the answer may cite.
    known: BTreeSet<String>,
    max_tokens: usize,
}

impl<'a> SynthesisPrompt<'a> {
    /// Fit the evidence into `budget` prompt tokens (as `llm` counts them): the instructions and
    /// the question always, then graph facts, then passages in priority order (whole, or cut after
    /// the last sentence that fits). Text is never cut inside a sentence, so never inside a token.
    /// `max_tokens` bounds the answer.
    pub(crate) fn fit(llm: &dyn Llm, parts: &PromptParts<'a>, budget: usize, max_tokens: usize) -> (Self, PromptInfo) {
        let mut info = PromptInfo { budget_tokens: budget, ..Default::default() };
        // Chat-template overhead (role markers) is small; 16 tokens covers the templates we know.
        let mut used = llm.count_tokens(SYSTEM_PROMPT) + llm.count_tokens(EVIDENCE_HEAD) + llm.count_tokens(&question_tail(parts.question)) + 16;
        let facts = fit_facts(llm, parts.facts, budget, &mut used, &mut info);
        let passages = fit_passages(llm, &parts.passages, budget, &mut used, &mut info);
        info.prompt_tokens = used;
        let known = info.passages_included.iter().cloned().collect();
        (SynthesisPrompt { question: parts.question, passages, facts, known, max_tokens }, info)
    }
}

/// The first facts (at most [`MAX_FACTS`]) that fit, each under its section heading.
fn fit_facts(llm: &dyn Llm, facts: &[GraphFact], budget: usize, used: &mut usize, info: &mut PromptInfo) -> String {
    let mut facts_text = String::new();
    let mut section = "";
    for f in facts.iter().take(MAX_FACTS) {
        // Generated-query rows are labelled as such: the model sees what the graph returned.
        let heading = if f.kind == "raw_row" { "Raw graph rows:\n" } else { "Facts from the knowledge graph:\n" };
        let line = if heading == section { format!("- {}\n", f.text) } else { format!("{heading}- {}\n", f.text) };
        let cost = llm.count_tokens(&line);
        if *used + cost > budget {
            break;
        }
        *used += cost;
        facts_text.push_str(&line);
        section = heading;
        info.facts_included += 1;
    }
    facts_text
}

/// The passages that fit, in order: whole, or cut after the last sentence that fits; a passage
/// whose first sentence does not fit is dropped.
fn fit_passages(llm: &dyn Llm, passages: &[&Chunk], budget: usize, used: &mut usize, info: &mut PromptInfo) -> String {
    let mut passages_text = String::new();
    for chunk in passages {
        let header = format!("[{}] ({})\n", chunk.id, chunk.source_file);
        let whole = format!("{header}{}\n\n", chunk.content.trim());
        let cost = llm.count_tokens(&whole);
        if *used + cost <= budget {
            *used += cost;
            passages_text.push_str(&whole);
            info.passages_included.push(chunk.id.clone());
            continue;
        }
        let content = chunk.content.trim();
        let mut fitted: Option<(String, usize)> = None;
        for (_, end) in split_sentences(content) {
            let candidate = format!("{header}{} …\n\n", content[..end].trim_end());
            let c = llm.count_tokens(&candidate);
            if *used + c > budget {
                break;
            }
            fitted = Some((candidate, c));
        }
        match fitted {
            Some((text, c)) => {
                *used += c;
                passages_text.push_str(&text);
                info.passages_included.push(chunk.id.clone());
                info.passages_trimmed.push(chunk.id.clone());
            }
            None => info.passages_dropped.push(chunk.id.clone()),
        }
    }
    passages_text
}

impl Prompt for SynthesisPrompt<'_> {
    /// The cleaned answer ([`clean_answer`]); cleaning never fails.
    type Reply = Draft;

    fn request(&self) -> ChatRequest {
        // Layout: passages, then graph facts, then the question last, where small models look.
        let mut user = EVIDENCE_HEAD.to_string();
        if self.passages.is_empty() {
            user.push_str("(none)\n\n");
        }
        user.push_str(&self.passages);
        user.push_str(&self.facts);
        user.push_str(&question_tail(self.question));
        ChatRequest {
            messages: vec![ChatMessage::system(SYSTEM_PROMPT), ChatMessage::user(user)],
            max_tokens: self.max_tokens,
            format: OutputFormat::Text,
            stop: vec![],
            temperature: 0.0,
            purpose: "synthesis",
        }
    }

    fn parse(&self, reply: &str) -> Result<Draft, PromptError> {
        Ok(clean_answer(reply, &self.known))
    }
}

/// The model's answer, cleaned: its sentences and the cited ids that are not in the prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Draft {
    /// The answer's sentences, citations stripped from the text.
    pub sentences: Vec<DraftSentence>,
    /// Cited ids of passages that were not in the prompt.
    pub invented_chunk_ids: Vec<String>,
}

/// Why a draft answer says nothing, if it does not: it repeats itself (a word 4-gram three
/// times, or fewer than 45% distinct words over 12+ words), or every sentence only restates the
/// question (no content word the question lacks).
fn degenerate(sentences: &[DraftSentence], question: &str) -> Option<String> {
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
fn clean_answer(raw: &str, known: &BTreeSet<String>) -> Draft {
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
    /// The user's question.
    pub question: &'a str,
    /// The chunks the answer may draw from (retrieved, then found through the graph).
    pub candidates: &'a [Candidate<'a>],
    /// The graph evidence: its facts go into the prompt, its images may be shown.
    pub graph: &'a GraphEvidence,
    /// The extractive answer: the fallback, and its quoted chunks lead the prompt.
    pub extractive: &'a Answer,
    /// Every image of the corpus by id (to show figures of cited chunks).
    pub images: &'a std::collections::BTreeMap<String, qa_index::corpus::ImageRef>,
    /// Prompt tokens at most (lowered to fit the model's context with `max_tokens` reserved).
    pub prompt_budget: usize,
    /// Answer tokens at most.
    pub max_tokens: usize,
    /// Support score from which an answer sentence counts as supported by the evidence.
    pub grounding_threshold: f32,
    /// Share of the answer's claims (0–1) that must be supported for the answer to be used.
    pub grounding_min_supported: f32,
    /// Embeds the answer's and the evidence's sentences for the grounding guard.
    pub embed: EmbedFn<'a>,
    /// A draft saying the passages do not answer the question is the answer ([`declined`]);
    /// otherwise it is an unsupported draft like any other.
    pub believe_declines: bool,
}

/// What an LLM synthesis produced, and what the trace records of it.
pub struct LlmSynthesisOutcome {
    /// The LLM's answer when it passed the grounding guard, else the extractive one.
    pub answer: Answer,
    /// What made it into the prompt (`None` when no prompt was built).
    pub prompt: Option<PromptInfo>,
    /// The grounding guard's report (`None` when the LLM call failed).
    pub grounding: Option<Grounding>,
    /// One line for the user when the LLM's answer was not used.
    pub note: Option<String>,
    /// Set when the LLM itself failed (for the trace's `error`).
    pub error: Option<String>,
}

/// The LLM found no answer in the passages (`said` is its sentence saying so): the answer says
/// the documents do not answer the question, with the closest passages as pointers.
fn declined(run: &mut LlmRun, s: &LlmSynthesis, said: String, prompt: PromptInfo, mut g: Grounding) -> LlmSynthesisOutcome {
    run.set_outcome("declined: no answer in the passages");
    g.action = "declined".into();
    g.reason = Some("the LLM said the passages do not answer the question".into());
    let answer = super::declined(s.candidates, &said, s.extractive.focus.clone());
    LlmSynthesisOutcome { answer, prompt: Some(prompt), grounding: Some(g), note: None, error: None }
}

/// Ask the LLM to answer from the evidence, then keep only what the evidence supports.
pub fn synthesize_with_llm(run: &mut LlmRun, s: LlmSynthesis) -> LlmSynthesisOutcome {
    // How a withheld or failed answer's note ends: what the user sees instead — the extractive
    // answer, or, for a near miss of the evidence check, its refusal.
    let instead = if s.extractive.found { "showing the extractive answer." } else { "the evidence check's refusal stands." };
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
    let (prompt, info) = SynthesisPrompt::fit(run.llm(), &parts, budget, s.max_tokens);
    let response = match run.call(&prompt.request()) {
        Ok(r) => r,
        Err(e) => {
            return fallback(Some(format!("LLM unavailable: {e}; {instead}")), Some(format!("LLM unavailable: {e}")), Some(info), None)
        }
    };
    let known: BTreeSet<String> = info.passages_included.iter().cloned().collect();
    // Cleaning never fails; an empty draft would be rejected below as no answer text.
    let draft = prompt.parse(&response.text).unwrap_or_default();
    // The model read the passages and found no answer in them: every sentence it wrote says the
    // evidence lacks something. That reading is the answer; the extractive quote the guard would
    // otherwise fall back to may merely share the question's words.
    if let Some(said) = draft.sentences.first().filter(|_| s.believe_declines && draft.sentences.iter().all(|d| grounding::is_abstention(&d.text))) {
        return declined(run, &s, said.text.clone(), info, Grounding::empty(s.grounding_threshold, s.grounding_min_supported));
    }
    // Fluent text can still say nothing: a loop, or the question turned into a statement. Every
    // word of it may be in the evidence, so the grounding guard alone would pass it.
    if let Some(reason) = degenerate(&draft.sentences, s.question) {
        run.set_outcome(format!("rejected: {reason}"));
        let g = Grounding { action: "fell_back_to_extractive".into(), reason: Some(reason.clone()), ..Grounding::empty(s.grounding_threshold, s.grounding_min_supported) };
        return fallback(Some(format!("LLM answer withheld: it {reason}; {instead}")), None, Some(info), Some(g));
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
    // Nothing it claimed is supported and it says the evidence lacks the answer: declined too.
    if let Some(said) = scores.iter().find(|x| x.abstention).filter(|_| s.believe_declines && supported == 0) {
        let said = said.text.clone();
        return declined(run, &s, said, info, g);
    }
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
        return fallback(Some(format!("LLM answer withheld: {reason}; {instead}")), None, Some(info), Some(g));
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
        .map(|f| super::relating_sentence(f, s.candidates))
        .collect();
    for f in &facts {
        for id in &f.chunk_ids {
            add_used(id);
        }
    }
    let quoted_set: BTreeSet<&str> = used.iter().map(|u| u.chunk_id.as_str()).collect();
    let images = select_images(s.question, s.graph, s.candidates, &quoted_set, s.images);
    let text = render(&body, &facts, &used, &images);
    let answer = Answer { found: true, synthesizer: "llm".into(), sentences, graph_facts: facts, chunks_used: used, image_paths: images, text, focus: None };
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

    fn chunk(id: &str, file: &str, content: &str) -> Chunk {
        let metadata = qa_core::chunk::ChunkMeta { heading_path: vec![], image_ids: vec![], char_start: 0, char_end: 0, token_count: 0, content_sha256: String::new() };
        Chunk { id: id.into(), source_file: file.into(), content: content.into(), metadata }
    }

    /// Three passages (whole, cut, dropped) and both kinds of graph fact, fitted to 280 tokens.
    fn fitted_prompt<'a>(passages: &'a [Chunk], facts: &'a [GraphFact]) -> (SynthesisPrompt<'a>, PromptInfo) {
        let parts = PromptParts { question: "How long does a battery last when the ESP32 uses deep sleep?", passages: passages.iter().collect(), facts };
        SynthesisPrompt::fit(&qa_llm::scripted::ScriptedLlm::script(&[]), &parts, 280, 200)
    }

    fn evidence() -> (Vec<Chunk>, Vec<GraphFact>) {
        let passages = vec![
            chunk("power_0", "power.md", "In deep sleep the ESP32 draws about 10 µA. A 2000 mAh battery then lasts for months."),
            chunk("wifi_1", "wifi.md", "Wi-Fi transmissions draw about 200 mA. Each wake-up that connects costs most of the energy budget. Short wake-ups keep the average current low."),
            chunk("misc_2", "misc.md", "The enclosure is printed in PETG because it tolerates the summer heat on a balcony better than PLA does."),
        ];
        let facts = vec![
            GraphFact { kind: "co_mention".into(), text: "deep sleep and battery life are named together in power.md".into(), chunk_ids: vec!["power_0".into()], subjects: vec![] },
            GraphFact { kind: "raw_row".into(), text: "{battery: LiPo, capacity: 2000 mAh}".into(), chunk_ids: vec![], subjects: vec![] },
        ];
        (passages, facts)
    }

    #[test]
    fn synthesis_prompt_snapshot() {
        let (passages, facts) = evidence();
        let (prompt, info) = fitted_prompt(&passages, &facts);
        assert_eq!(info.facts_included, 2);
        assert_eq!(info.passages_included, ["power_0", "wifi_1"]);
        assert_eq!(info.passages_trimmed, ["wifi_1"]);
        assert_eq!(info.passages_dropped, ["misc_2"]);
        assert!(info.prompt_tokens <= info.budget_tokens);
        assert_eq!(prompt.reply_schema(), None);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/synthesis_prompt.txt");
        qa_llm::prompt::assert_snapshot(std::path::Path::new(path), &qa_llm::prompt::render(&prompt.request()));
    }

    #[test]
    fn synthesis_reply_may_cite_only_passages_in_the_prompt() {
        let (passages, facts) = evidence();
        let (prompt, _) = fitted_prompt(&passages, &facts);
        let d = prompt.parse("It lasts for months [power_0]. The case is PETG [misc_2].").unwrap();
        assert_eq!(d.sentences[0].cited, vec!["power_0"]);
        assert!(d.sentences[1].cited.is_empty());
        assert_eq!(d.invented_chunk_ids, vec!["misc_2"]);
    }

    #[test]
    fn no_passage_that_fits_is_said() {
        let (passages, facts) = evidence();
        let parts = PromptParts { question: "Why?", passages: passages.iter().collect(), facts: &facts };
        let (prompt, info) = SynthesisPrompt::fit(&qa_llm::scripted::ScriptedLlm::script(&[]), &parts, 0, 50);
        assert!(info.passages_included.is_empty() && info.facts_included == 0);
        assert!(prompt.request().messages[1].content.starts_with("Text:\n(none)\n\n\nQuestion: Why?"));
    }

    #[test]
    fn brackets_that_are_not_citations_stay() {
        let d = clean_answer("Use the range [0 to 5 V] for the input.", &known(&[]));
        assert_eq!(d.sentences[0].text, "Use the range [0 to 5 V] for the input.");
    }
}
