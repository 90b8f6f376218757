//! `qa es eval FILE`: every question of a set through the ES path, graded like `qa sql eval`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::json;

use crate::config::Settings;
use qa_core::tabular_eval as te;

pub fn run(settings: &Settings, quiet: bool, file: &std::path::Path, json_out: bool, verbose: bool) -> Result<ExitCode> {
    let questions = te::load(file)?;
    let (engine, _mapping) = match super::open_with_mapping(settings) {
        Ok(x) => x,
        Err(f) => return f.print(json_out),
    };
    let mut opened = settings.es_llm().open();
    let options = qa_es::run::EsOptions { use_llm: opened.may(0), reiterate_llm: opened.may(1), ..settings.es_options() };
    // Clarifications save checkpoints; an evaluation keeps them out of the user's data folder.
    let scratch = Scratch::new()?;
    let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(questions.len() as u64) };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()));
    let (summary, records) = qa_es::eval::run_set(engine.as_ref(), &questions, options, &mut opened, &scratch.0, &|id| {
        bar.set_message(id.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    let llm_skip = opened.skip.clone();
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
