//! `qa es eval FILE`: every question of a set through the ES path, graded like `qa sql eval`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::config::Settings;
use qa_core::tabular_eval::{self as te, Grade};
use qa_es::run::EsQuestion;
use qa_core::trace::Status;
use qa_llm::LlmRun;

#[derive(Debug, Clone, serde::Serialize)]
struct Record {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    class: Option<String>,
    question: String,
    grade: Grade,
    es_query: Option<Value>,
    detail: Option<String>,
    ms: f64,
}

pub fn run(settings: &Settings, quiet: bool, file: &std::path::Path, json_out: bool, verbose: bool) -> Result<ExitCode> {
    let questions = te::load(file)?;
    let (engine, _mapping) = match super::open_with_mapping(settings) {
        Ok(x) => x,
        Err(f) => return f.print(json_out),
    };
    let mut opened = settings.es_llm().open();
    // One page holds every hit up to the row cap, so that a search is graded on its whole result.
    let mut options = qa_es::run::EsOptions { use_llm: opened.may(0), reiterate_llm: opened.may(1), ..settings.es_options() };
    options.page_size = options.limits.row_cap;
    let llm_skip = opened.skip.clone();
    // Clarifications save checkpoints; an evaluation keeps them out of the user's data folder.
    let scratch = Scratch::new()?;
    let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(questions.len() as u64) };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()));
    let mut summary = te::Summary::default();
    let mut records = Vec::new();
    for q in &questions {
        bar.set_message(q.id.clone());
        #[allow(clippy::redundant_closure)]
        let mut llm_run = opened.llm.as_deref_mut().map(|l| LlmRun::new(l));
        let t = std::time::Instant::now();
        let ran = qa_es::run::answer(engine.as_ref(), llm_run.as_mut(), EsQuestion { question: &q.question, options: options.clone(), data_dir: &scratch.0, llm_skip: llm_skip.as_deref() });
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let (grade, detail, es_query) = match &ran {
            Ok(run) => {
                let a = &run.answer;
                let (columns, rows, truncated) = qa_es::eval::answer_rows(a);
                let asked = a.ambiguity.as_ref().map(|x| x.message.clone()).unwrap_or_else(|| a.query_summary.clone());
                let error = a.error.clone().unwrap_or_else(|| "failed".into());
                let outcome = match a.status {
                    Status::Answered | Status::Refused => te::Outcome::Rows { columns: &columns, rows: &rows, truncated },
                    Status::NeedsClarification => te::Outcome::Asked(&asked),
                    Status::Error => te::Outcome::Failed(&error),
                };
                let (g, d) = te::grade(q, outcome);
                (g, d, a.es_query.clone())
            }
            Err(e) => {
                let msg = e.to_string();
                let (g, d) = te::grade(q, te::Outcome::Failed(&msg));
                (g, d, None)
            }
        };
        summary.add(q, grade);
        records.push(Record { id: q.id.clone(), class: q.class.clone(), question: q.question.clone(), grade, es_query, detail, ms });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let llm_name = opened.llm.as_ref().map(|l| format!("{} {}", l.provider(), l.model_id())).unwrap_or_else(|| format!("none ({})", llm_skip.unwrap_or_default()));
    let target = super::target_label(settings);
    if json_out {
        let v = json!({"file": file.display().to_string(), "index": target, "llm": llm_name, "summary": summary, "questions": records});
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    let head = format!("qa es eval: {} questions from {} on {target} (llm: {llm_name})", questions.len(), file.display());
    let listed: Vec<crate::commands::eval_report::Listed> = records
        .iter()
        .map(|r| crate::commands::eval_report::Listed { id: &r.id, question: &r.question, grade: r.grade, query: r.es_query.as_ref().map(|b| b.to_string()), detail: r.detail.as_deref() })
        .collect();
    crate::commands::eval_report::print(&mut std::io::stdout().lock(), &head, &summary, &listed, verbose)?;
    Ok(ExitCode::SUCCESS)
}

/// A folder of this process under the system's temporary folder, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let p = std::env::temp_dir().join(format!("qa-es-eval-{}", std::process::id()));
        std::fs::create_dir_all(&p).with_context(|| format!("cannot create {}", p.display()))?;
        Ok(Scratch(p))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
