//! `qa bench`: the measurements are in `qa-bench`; this turns the flags into its inputs, draws
//! the progress and prints the figures.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::cli::{BenchArgs, GlobalArgs};
use crate::config::Settings;
pub use qa_bench::vm_hwm_kib;

pub fn run(base: &Settings, global: &GlobalArgs, args: &BenchArgs) -> Result<ExitCode> {
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("bench_outputs"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    // `book` and `std` name the toolchain's docs (copied, so that --edit-one may write).
    let corpus = match &args.corpus {
        Some(p) if p.exists() => p.clone(),
        Some(p) => qa_bench::toolchain_docs(&out, &p.to_string_lossy())?,
        None => qa_bench::toolchain_docs(&out, "book")?,
    };
    let questions = qa_bench::read_questions(&args.questions.clone().unwrap_or_else(|| PathBuf::from("bench/rust_book_questions.txt")))?;
    let mut settings = base.clone();
    qa_settings::flag!(settings, data_dir, Some(out.clone()));
    qa_settings::flag!(settings, corpus, Some("bench".to_string()));
    settings.validate()?;
    let say = |m: &str| {
        if !global.quiet && !args.json {
            eprintln!("{m}");
        }
    };
    let progress = crate::progress::Bars::new(!global.quiet && !args.json);
    let options = qa_bench::BenchOptions { skip_index: args.skip_index, cold_runs: args.cold_runs, with_llm: args.with_llm, llm_questions: args.llm_questions, edit_one: args.edit_one };
    let report = qa_bench::run(&settings, &corpus, &questions, &options, &progress, &say)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        qa_bench::report::write_text(&report, &mut std::io::stdout().lock())?;
    }
    Ok(ExitCode::SUCCESS)
}

