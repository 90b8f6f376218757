#!/usr/bin/env bash
# The documents' remote store (`--store`) measured on the Rust book against the loopback
# OpenSearch/Elasticsearch server of the tests (examples/store_loopback.rs): indexing throughput
# to the server, `qa eval --store` recall against the local index, and the query latency the
# store adds. Prints the figures BENCHMARKS.md quotes.
#
#   scripts/bench-store.sh [opensearch|elasticsearch]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
flavor="${1:-opensearch}"
cargo build --release --locked --features loopback-servers --example store_loopback
cargo build --release --locked
qa="$PWD/target/release/qa"
work="$(mktemp -d)"
book="$(rustc --print sysroot)/share/doc/rust/html/book"
mkdir -p "$work/book"
cp "$book"/ch*.html "$work/book/"
# The server lives while its stdin (a pipe held by this script) stays open.
coproc SERVER { exec target/release/examples/store_loopback "$flavor"; }
trap 'exec {SERVER[1]}>&-; wait || true; rm -rf "$work"' EXIT
read -r base <&"${SERVER[0]}"
store="$base/book"
run() { "$qa" --data-dir "$work/d" --llm none -q "$@"; }
run index "$work/book" --json > "$work/local.json"
run index "$work/book" --store "$store" --json > "$work/store.json"
run eval bench/rust_book_eval.jsonl --corpus book --no-repeat --json > "$work/eval-local.json"
served() { echo >&"${SERVER[1]}"; read -r n ms <&"${SERVER[0]}"; echo "$ms"; }
before="$(served)"
run eval bench/rust_book_eval.jsonl --corpus book --no-repeat --json --store "$store" > "$work/eval-store.json"
after="$(served)"
python3 - "$work" "$flavor" "$before" "$after" <<'PY'
import json, sys
w, flavor = sys.argv[1], sys.argv[2]
server_ms = float(sys.argv[4]) - float(sys.argv[3])
local, store = (json.load(open(f"{w}/{n}.json")) for n in ("local", "store"))
el, es = (json.load(open(f"{w}/eval-{n}.json")) for n in ("local", "store"))
s = store["store"]
print(f"loopback {flavor}: {local['chunks']} chunks of the Rust book")
print(f"  local index:   {local['timings']['total_ms'] / 1000:.1f} s (embedding {local['timings']['embed_ms'] / 1000:.1f} s)")
print(f"  sync to store: {s['sent']} chunks in {s['ms'] / 1000:.2f} s = {s['sent'] / (s['ms'] / 1000):.0f} chunks/s, "
      f"{s['bytes'] / 1e6:.1f} MB in {s['requests']} _bulk requests")
for k in ("1", "2", "5", "10"):
    if k in el["fused"]["recall"]:
        print(f"  recall@{k:<2}  fused local {el['fused']['recall'][k]:.3f}  store {es['fused']['recall'][k]:.3f}   "
              f"dense local {el['lanes']['dense']['recall'][k]:.3f}  store {es['lanes']['dense']['recall'][k]:.3f}   "
              f"lexical local {el['lanes']['lexical']['recall'][k]:.3f}  store {es['lanes']['lexical']['recall'][k]:.3f}")
print(f"  latency per question: local p50 {el['latency_p50_ms']:.1f} ms p95 {el['latency_p95_ms']:.1f} ms; "
      f"store p50 {es['latency_p50_ms']:.1f} ms p95 {es['latency_p95_ms']:.1f} ms")
n = len(es["per_question"])
mean = lambda r: sum(q["latency_ms"] for q in r["per_question"]) / len(r["per_question"])
print(f"  mean per question: local {mean(el):.1f} ms, store {mean(es):.1f} ms, of which the loopback server's own "
      f"brute-force kNN and BM25 {server_ms / n:.1f} ms: the store path adds {mean(es) - mean(el) - server_ms / n:.1f} ms")
d = abs(el["fused"]["recall"]["5"] - es["fused"]["recall"]["5"])
print(f"  fused recall@5 difference: {d:.3f} ({'within' if d <= 0.02 else 'OVER'} 0.02)")
PY
