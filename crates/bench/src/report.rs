//! The report of `qa bench` as text.

use serde_json::Value;

/// Print `r` (what [`crate::run`] returned) as `qa bench` shows it.
pub fn write_text(r: &Value, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let f = |v: &Value| v.as_f64().map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into());
    writeln!(out, "corpus: {}  ({} threads, {}, {})", r["corpus"].as_str().unwrap_or(""), r["threads"], r["cpu"].as_str().unwrap_or(""), r["date"].as_str().unwrap_or(""))?;
    if let Some(i) = r.get("index") {
        let mib = |v: &Value| v.as_f64().map(|b| format!("{:.1}", b / (1u64 << 20) as f64)).unwrap_or_else(|| "-".into());
        writeln!(out, "index: {} files, {} chunks ({} tokens, {} mean/chunk), {} concepts", i["files"], i["chunks"], i["embed_tokens"], f(&i["mean_tokens_per_chunk"]), i["concepts"])?;
        writeln!(
        out,
            "  parse {} ms | chunk {} ms | embed {} ms | hnsw build {} ms | graph {} ms | write {} ms | total {} ms",
            f(&i["parse_ms"]), f(&i["chunk_ms"]), f(&i["embed_ms"]), f(&i["hnsw_build_ms"]), f(&i["graph_ms"]), f(&i["write_ms"]), f(&i["total_ms"])
        )?;
        writeln!(
        out,
            "  embedding: {} chunks/s, {} tokens/s ({} tokens/s per core)",
            f(&i["embed_chunks_per_s"]), f(&i["embed_tokens_per_s"]), f(&i["embed_tokens_per_s_per_core"])
        )?;
        writeln!(out, "  peak RSS while indexing {} MiB; on disk {} MiB (generation {} MiB, chunk and KG files {} MiB)", f(&i["peak_rss_mib"]), mib(&i["bytes_on_disk"]), mib(&i["generation_bytes"]), mib(&i["contract_bytes"]))?;
    }
    if let Some(e) = r.get("edit") {
        writeln!(
            out,
            "one-file edit ({}): re-index {} ms = {}% of the full index ({} chunks embedded; parse {} ms, chunk {} ms, embed {} ms, hnsw {} ms{}, graph {} ms (store {} ms,{}), lexical {} ms, write {} ms)",
            e["file"].as_str().unwrap_or(""),
            f(&e["total_ms"]),
            f(&e["percent_of_full"]),
            e["embedded"],
            f(&e["parse_ms"]),
            f(&e["chunk_ms"]),
            f(&e["embed_ms"]),
            f(&e["hnsw_ms"]),
            if e["hnsw_updated"].as_bool() == Some(true) { " updated in place" } else { " rebuilt" },
            f(&e["graph_ms"]),
            f(&e["graph_store_ms"]),
            if e["graph_updated"].as_bool() == Some(true) { " updated in place" } else { " loaded anew" },
            f(&e["lexical_ms"]),
            f(&e["write_ms"])
        )?;
    }
    let q = &r["retrieval"];
    writeln!(out, "retrieval ({} questions): open {} ms; warm retrieve p50 {} ms, p95 {} ms (HNSW search alone p50 {} ms, p95 {} ms)",
        q["questions"], f(&q["index_open_ms"]), f(&q["warm_retrieve_p50_ms"]), f(&q["warm_retrieve_p95_ms"]), f(&q["hnsw_search_p50_ms"]), f(&q["hnsw_search_p95_ms"]))?;
    writeln!(
        out,
        "recall@10 vs exact: {:.4} by row, {:.4} with ties at the 10th place counted, over {} queries (M={}, ef_search={})",
        q["recall_at_10"].as_f64().unwrap_or(0.0),
        q["recall_at_10_ties"].as_f64().unwrap_or(0.0),
        q["recall_queries"],
        q["hnsw_m"],
        q["ef_search"]
    )?;
    let w = &r["warm_ask"];
    writeln!(
        out,
        "warm `ask` (retrieval + graph + synthesis): p50 {} ms, p95 {} ms (stage p50: rag {} ms, graph {} ms, synthesis {} ms)",
        f(&w["p50_ms"]), f(&w["p95_ms"]), f(&w["rag_p50_ms"]), f(&w["graph_p50_ms"]), f(&w["synthesis_p50_ms"])
    )?;
    let c = &r["cold_ask"];
    writeln!(out, "cold `qa ask`: median {} ms (min {}, max {}) over {} runs; peak RSS {} MiB", f(&c["median_ms"]), f(&c["min_ms"]), f(&c["max_ms"]), c["runs"], f(&c["peak_rss_mib"]))?;
    if c.get("p95_ms").is_some() {
        writeln!(out, "  cold p50 {} ms, p95 {} ms", f(&c["median_ms"]), f(&c["p95_ms"]))?;
    }
    writeln!(out, "bench process peak RSS: {} MiB", f(&r["peak_rss_mib_bench_process"]))?;
    if let Some(g) = r.get("graph") {
        writeln!(
        out,
            "graph: schema ({} labels, {} types, {} keys) in {} ms; entity search p50 {} ms, p95 {} ms; idempotent re-ingest of {} documents {} ms ({} created)",
            g["labels"], g["relationship_types"], g["property_keys"], f(&g["schema_ms"]), f(&g["entity_search_p50_ms"]), f(&g["entity_search_p95_ms"]),
            g["reingest_documents"], f(&g["reingest_ms"]), g["reingest_created"]
        )?;
        writeln!(out, "cypher validator: {} queries ({} accepted), {} µs per check", g["validator_queries"], g["validator_accepted"], f(&g["validator_us_per_query"]))?;
    }
    if let Some(l) = r.get("llm") {
        let s = &l["speed"];
        writeln!(
        out,
            "local LLM {} (weights {}, load {} ms): {} prompt tokens at {} tok/s ({} threads)?; generation {} tok/s ({} threads)",
            s["model"].as_str().unwrap_or(""), s["weights"].as_str().unwrap_or(""), f(&s["load_ms"]), s["prompt_tokens"], f(&s["prompt_tokens_per_s"]), s["prefill_threads"], f(&s["generation_tokens_per_s"]), s["decode_threads"]
        )?;
        let a = &l["ask"];
        writeln!(
        out,
            "warm `ask` with the local LLM ({} questions): p50 {} ms, p95 {} ms (LLM calls p50 {} ms)?; synthesizer {}; grounding {}; subqueries {}",
            a["questions"], f(&a["p50_ms"]), f(&a["p95_ms"]), f(&a["llm_calls_p50_ms"]), a["synthesizer"], a["grounding_action"], a["subquery_source"]
        )?;
        let c = &l["cold_ask"];
        writeln!(out, "cold `qa --llm local ask`: median {} ms over {} runs; peak RSS {} MiB", f(&c["median_ms"]), c["runs"], f(&c["peak_rss_mib"]))?;
    }
    Ok(())
}
