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
    let corpus = match &args.corpus {
        Some(p) => p.clone(),
        None => qa_bench::rust_book_corpus(&out)?,
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
    let options = qa_bench::BenchOptions { skip_index: args.skip_index, cold_runs: args.cold_runs, with_llm: args.with_llm, llm_questions: args.llm_questions };
    let report = qa_bench::run(&settings, &corpus, &questions, &options, &progress, &say)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(r: &serde_json::Value) {
    let f = |v: &serde_json::Value| v.as_f64().map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into());
    println!("corpus: {}  ({} threads, {}, {})", r["corpus"].as_str().unwrap_or(""), r["threads"], r["cpu"].as_str().unwrap_or(""), r["date"].as_str().unwrap_or(""));
    if let Some(i) = r.get("index") {
        println!("index: {} files, {} chunks ({} tokens, {} mean/chunk), {} concepts", i["files"], i["chunks"], i["embed_tokens"], f(&i["mean_tokens_per_chunk"]), i["concepts"]);
        println!(
            "  parse {} ms | chunk {} ms | embed {} ms | hnsw build {} ms | graph {} ms | write {} ms | total {} ms",
            f(&i["parse_ms"]), f(&i["chunk_ms"]), f(&i["embed_ms"]), f(&i["hnsw_build_ms"]), f(&i["graph_ms"]), f(&i["write_ms"]), f(&i["total_ms"])
        );
        println!(
            "  embedding: {} chunks/s, {} tokens/s ({} tokens/s per core)",
            f(&i["embed_chunks_per_s"]), f(&i["embed_tokens_per_s"]), f(&i["embed_tokens_per_s_per_core"])
        );
    }
    let q = &r["retrieval"];
    println!("retrieval ({} questions): open {} ms; warm retrieve p50 {} ms, p95 {} ms (HNSW search alone p50 {} ms, p95 {} ms)",
        q["questions"], f(&q["index_open_ms"]), f(&q["warm_retrieve_p50_ms"]), f(&q["warm_retrieve_p95_ms"]), f(&q["hnsw_search_p50_ms"]), f(&q["hnsw_search_p95_ms"]));
    println!("recall@10 vs exact: {:.4} over {} queries (M={}, ef_search={})", q["recall_at_10"].as_f64().unwrap_or(0.0), q["recall_queries"], q["hnsw_m"], q["ef_search"]);
    let w = &r["warm_ask"];
    println!(
        "warm `ask` (retrieval + graph + synthesis): p50 {} ms, p95 {} ms (stage p50: rag {} ms, graph {} ms, synthesis {} ms)",
        f(&w["p50_ms"]), f(&w["p95_ms"]), f(&w["rag_p50_ms"]), f(&w["graph_p50_ms"]), f(&w["synthesis_p50_ms"])
    );
    let c = &r["cold_ask"];
    println!("cold `qa ask`: median {} ms (min {}, max {}) over {} runs; peak RSS {} MiB", f(&c["median_ms"]), f(&c["min_ms"]), f(&c["max_ms"]), c["runs"], f(&c["peak_rss_mib"]));
    println!("bench process peak RSS: {} MiB", f(&r["peak_rss_mib_bench_process"]));
    if let Some(g) = r.get("graph") {
        println!(
            "graph: schema ({} labels, {} types, {} keys) in {} ms; entity search p50 {} ms, p95 {} ms; idempotent re-ingest of {} documents {} ms ({} created)",
            g["labels"], g["relationship_types"], g["property_keys"], f(&g["schema_ms"]), f(&g["entity_search_p50_ms"]), f(&g["entity_search_p95_ms"]),
            g["reingest_documents"], f(&g["reingest_ms"]), g["reingest_created"]
        );
        println!("cypher validator: {} queries ({} accepted), {} µs per check", g["validator_queries"], g["validator_accepted"], f(&g["validator_us_per_query"]));
    }
    if let Some(l) = r.get("llm") {
        let s = &l["speed"];
        println!(
            "local LLM {} (weights {}, load {} ms): {} prompt tokens at {} tok/s ({} threads); generation {} tok/s ({} threads)",
            s["model"].as_str().unwrap_or(""), s["weights"].as_str().unwrap_or(""), f(&s["load_ms"]), s["prompt_tokens"], f(&s["prompt_tokens_per_s"]), s["prefill_threads"], f(&s["generation_tokens_per_s"]), s["decode_threads"]
        );
        let a = &l["ask"];
        println!(
            "warm `ask` with the local LLM ({} questions): p50 {} ms, p95 {} ms (LLM calls p50 {} ms); synthesizer {}; grounding {}; subqueries {}",
            a["questions"], f(&a["p50_ms"]), f(&a["p95_ms"]), f(&a["llm_calls_p50_ms"]), a["synthesizer"], a["grounding_action"], a["subquery_source"]
        );
        let c = &l["cold_ask"];
        println!("cold `qa --llm local ask`: median {} ms over {} runs; peak RSS {} MiB", f(&c["median_ms"]), c["runs"], f(&c["peak_rss_mib"]));
    }
}
