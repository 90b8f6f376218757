//! The indexed documents as a routed [`Source`]: described to the router by their concepts, and
//! answered by the retrieval pipeline (dense, lexical and graph lanes, fusion, the writer).

use std::io::{self, Write};

use serde_json::Value;

use qa_core::error::Result;
use qa_core::trace::Status;
use qa_embed::Embedder;
use qa_route::source::{AnswerView, Ask, Presentation, Source, SourceAnswer};
use qa_route::{RouteError, SourceProfile, Target};

use crate::ask::{AskResult, Engine, EngineSettings};

/// Loads the embedding model when a question needs it (not to route one).
pub type EmbedderLoader = Box<dyn Fn() -> Result<Box<dyn Embedder>>>;

/// The latest index of a corpus.
pub struct DocumentsSource {
    settings: EngineSettings,
    load_embedder: EmbedderLoader,
    profile: SourceProfile,
}

impl DocumentsSource {
    /// Describe the corpus's index to the router; a missing index is
    /// [`qa_core::error::QaError::IndexMissing`].
    pub fn open(settings: EngineSettings, load_embedder: EmbedderLoader) -> Result<DocumentsSource> {
        let profile = crate::profile::documents_profile(&settings)?;
        Ok(DocumentsSource { settings, load_embedder, profile })
    }

    /// Answer `question` with the full pipeline.
    pub fn ask(&self, question: &str, progress: &dyn qa_core::progress::Progress) -> Result<AskResult> {
        let mut engine = Engine::open(&self.settings, || (self.load_embedder)())?;
        progress.start("loading the LLM", 0);
        engine.attach_llm();
        if let Some(label) = engine.llm_label() {
            progress.start(&format!("answering with {label}"), 0);
        }
        let result = engine.ask(question);
        progress.finish();
        result
    }
}

impl Source for DocumentsSource {
    fn target(&self) -> Target {
        Target::Documents
    }

    fn profile(&self) -> &SourceProfile {
        &self.profile
    }

    fn answer(&mut self, ask: &Ask<'_>) -> std::result::Result<SourceAnswer, RouteError> {
        let result = self.ask(ask.question, ask.progress).map_err(|e| RouteError::database(e.to_string(), ""))?; // the pipeline's errors carry their own fix
        Ok(answer_of(result))
    }
}

/// The typed answer of a documents run: the passages it rests on as records.
pub fn answer_of(result: AskResult) -> SourceAnswer {
    let records = result.trace.retrieved_chunks.iter().filter_map(|c| serde_json::to_value(c).ok()).collect();
    SourceAnswer {
        target: Target::Documents,
        status: result.trace.status.unwrap_or(Status::Answered),
        records,
        artifact: None,
        summary: qa_core::text::truncate(result.answer.text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default(), 160),
        clarification: None,
        error: None,
        pagination: None,
        trace: result.trace.clone(),
        view: Box::new(DocumentsView { result }),
    }
}

/// How a documents answer is drawn.
struct DocumentsView {
    result: AskResult,
}

impl AnswerView for DocumentsView {
    fn json(&self) -> Value {
        serde_json::to_value(&self.result).unwrap_or(Value::Null)
    }

    fn write_text(&self, p: &Presentation, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
        let r = &self.result;
        writeln!(out, "=== Final Answer ===\n{}", r.answer.text)?;
        if !p.quiet {
            let llm = match (&r.trace.models.llm, r.answer.synthesizer.as_str()) {
                (Some(m), "llm") => format!(" · answer by {m}"),
                (Some(m), _) => format!(" · extractive answer ({m} not used)"),
                (None, _) => " · extractive answer".to_string(),
            };
            writeln!(err, "\n[corpus {}{llm} · {:.0} ms · trace {} → {}]", r.corpus, r.trace.latency_ms.total, r.trace.trace_id, p.trace_file.display())?;
        }
        Ok(())
    }
}
