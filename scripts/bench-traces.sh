#!/usr/bin/env bash
# Benchmark `qa traces stats` on a synthetic trace file: lines/s and peak RSS.
#
#   scripts/bench-traces.sh [LINES] [FILE]
#
# LINES defaults to 1,000,000; FILE to target/bench-traces/query_traces.jsonl (kept between runs:
# it is only regenerated when missing or of another length). Set QA_BIN to time another binary
# (default: a release build of this checkout, built first).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lines="${1:-1000000}"
file="${2:-target/bench-traces/query_traces.jsonl}"
target_dir="${CARGO_TARGET_DIR:-target}"
if [[ -z "${QA_BIN:-}" ]]; then
    cargo build --release --quiet
    QA_BIN="$target_dir/release/qa"
fi
mkdir -p "$(dirname "$file")"
if [[ ! -f "$file" ]] || [[ "$(wc -l <"$file")" -ne "$lines" ]]; then
    echo "generating $lines synthetic traces in $file" >&2
    # Records shaped like real ones: 3 chunks with text, a small subgraph, fallbacks on every
    # third trace, a refused Cypher query every 50th, an LLM error every 97th; timestamps one
    # minute apart; routes rotate.
    TZ=UTC awk -v n="$lines" 'BEGIN {
        srand(42);
        split("documents graph hybrid es", routes, " ");
        for (i = 0; i < n; i++) {
            t = 1767225600 + i * 60;
            ts = strftime("%Y-%m-%dT%H:%M:%SZ", t, 1);
            rag = 5 + rand() * 40; gr = rand() * 60; syn = 1 + rand() * 300; tot = rag + gr + syn + rand() * 3;
            fb = (i % 3 == 0) ? "\"co_mention\",\"shortest_path\"" : "";
            val = (i % 50 == 0) ? "{\"ok\":false,\"reasons\":[\"write clause\"]}" : "null";
            err = (i % 97 == 0) ? "\"LLM call failed: timeout\"" : "null";
            printf "{\"trace_id\":\"%016x\",\"timestamp\":\"%s\",\"user_question\":\"Synthetic question number %d about deep sleep and battery life?\",\"route\":\"%s\",\"rewritten_or_decomposed_queries\":[\"deep sleep\",\"battery life\"],", i, ts, i % 5000, routes[i % 4 + 1];
            printf "\"retrieved_chunks\":[";
            for (c = 0; c < 3; c++) printf "%s{\"chunk_id\":\"doc%d#%d\",\"source_file\":\"docs/doc%d.md\",\"score\":0.%d,\"metadata\":{\"section\":\"Power\"},\"text\":\"Deep sleep turns off the radio and most peripherals, which cuts the current draw to a few microamps so a battery lasts months.\"}", (c ? "," : ""), i % 100, c, i % 100, 70 + c;
            printf "],\"retrieved_graph_subgraph\":{\"nodes\":[{\"id\":\"deep_sleep\",\"labels\":[\"Concept\"],\"properties\":{\"name\":\"deep sleep\"}},{\"id\":\"battery\",\"labels\":[\"Concept\"],\"properties\":{\"name\":\"battery\"}}],\"edges\":[{\"source\":\"deep_sleep\",\"type\":\"RELATED_TO\",\"target\":\"battery\",\"properties\":{}}]},";
            printf "\"graph\":{\"grounded_entities\":[],\"generated_cypher\":null,\"validation\":%s,\"sanitized_cypher\":null,\"fallback_used\":[%s]},", val, fb;
            printf "\"final_answer\":\"Deep sleep extends battery life by cutting the current draw.\",\"token_usage\":{\"prompt\":%d,\"completion\":%d,\"total\":%d},", 400 + i % 50, 60, 460 + i % 50;
            printf "\"latency_ms\":{\"rag\":%.3f,\"graph\":%.3f,\"synthesis\":%.3f,\"total\":%.3f,\"llm_calls\":%.3f},", rag, gr, syn, tot, syn;
            printf "\"models\":{\"embedding\":\"all-MiniLM-L6-v2\",\"llm\":\"SmolLM2-135M-Instruct\"},\"error\":%s,\"answer_grounding\":null,\"internal\":{\"rag\":{},\"graph\":{},\"llm\":{\"provider\":\"local\"}}}\n", err;
        }
    }' >"$file"
fi
bytes=$(stat -c %s "$file")
echo "file: $file ($lines lines, $((bytes / 1024 / 1024)) MiB)" >&2
log=$(mktemp)
start=$(date +%s.%N)
/usr/bin/time -v "$QA_BIN" --data-dir "$(dirname "$file")" -q traces stats --file "$file" >/dev/null 2>"$log" || { cat "$log"; exit 1; }
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc -l)
rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$log")
rm -f "$log"
printf 'qa traces stats: %d lines in %.2f s = %.0f lines/s (%.1f MiB/s), peak RSS %.1f MiB\n' \
    "$lines" "$secs" "$(echo "$lines / $secs" | bc -l)" "$(echo "$bytes / 1048576 / $secs" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
