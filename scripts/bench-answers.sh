#!/usr/bin/env bash
# The document-answering benchmarks of issue 26 in one run: index every corpus of bench/README.md
# with ./target/release/qa and run its question sets (`qa eval --no-repeat --json`, `--llm none`),
# then print one row per set (scripts/bench-answers-table.py). Usage:
#   scripts/bench-answers.sh OUT_DIR [CORPUS…]     (default: every corpus; names below)
# OUT_DIR/<corpus>/ holds the index, OUT_DIR/<set>.json the evaluation. Needs the toolchain docs
# (scripts/bench-corpora.sh builds their folders under OUT_DIR/books) and the models (qa setup).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:?usage: scripts/bench-answers.sh OUT_DIR [CORPUS…]}"; shift
qa="${QA_BIN:-./target/release/qa}"
[ -x "$qa" ] || { echo "bench-answers.sh: no $qa (cargo build --release, or set QA_BIN)" >&2; exit 1; }
mkdir -p "$out"
scripts/bench-corpora.sh "$out/books" >/dev/null
b=bench
hot=../shared/datasets/hotpotqa-100
# corpus name, folder, sets…
corpora=(
  "book $out/books/rustbook $b/rust_book_eval.jsonl $b/rust_book_unanswerable.jsonl"
  "sample sample_corpus $b/sample_corpus_eval.jsonl $b/sample_corpus_unanswerable.jsonl"
  "hot $hot/corpus $hot/questions.jsonl $b/hotpotqa_unanswerable.jsonl"
  "nom $out/books/nomicon $b/nomicon_two_part.jsonl $b/nomicon_unanswerable.jsonl"
  "cb $out/books/cargobook $b/cargo_two_part.jsonl $b/cargo_unanswerable.jsonl"
  "eb $out/books/embeddedbook $b/embedded_two_part.jsonl $b/embedded_unanswerable.jsonl"
  "eg $out/books/editionguide $b/edition_two_part.jsonl $b/edition_unanswerable.jsonl"
  "rc $out/books/rustcbook $b/rustc_two_part.jsonl $b/rustc_unanswerable.jsonl"
  "ref $out/books/reference $b/reference_answerable.jsonl $b/reference_unanswerable.jsonl"
  "rbe $out/books/rustbyexample $b/rbe_two_part.jsonl $b/rbe_answerable.jsonl $b/rbe_unanswerable.jsonl"
  "rd $out/books/rustdocbook $b/rustdoc_answerable.jsonl $b/rustdoc_unanswerable.jsonl"
  "cl $out/books/clippybook $b/clippy_answerable.jsonl $b/clippy_unanswerable.jsonl"
  "ec $out/books/errorcodes $b/errorcodes_answerable.jsonl $b/errorcodes_unanswerable.jsonl"
  "ub $out/books/unstablebook $b/unstable_two_part.jsonl $b/unstable_unanswerable.jsonl"
  "sg $out/books/styleguide $b/style_answerable.jsonl $b/style_unanswerable.jsonl"
  "rn $out/books/releasenotes $b/releases_answerable.jsonl $b/releases_unanswerable.jsonl"
  "al $b/corpora/allotment_handbook $b/allotment_answerable.jsonl $b/allotment_unanswerable.jsonl"
  "mh $b/corpora/marina_handbook $b/marina_answerable.jsonl $b/marina_unanswerable.jsonl"
  "fw $b/corpora/heating_firmware $b/firmware_answerable.jsonl $b/firmware_unanswerable.jsonl"
  "cg $b/corpora/clinic_guide $b/clinic_answerable.jsonl $b/clinic_unanswerable.jsonl"
  "ts $b/corpora/tsdb_manual $b/tsdb_answerable.jsonl $b/tsdb_unanswerable.jsonl"
  "wg $b/corpora/waste_guide $b/waste_answerable.jsonl $b/waste_unanswerable.jsonl"
  "bs $b/corpora/batch_scheduler $b/scheduler_answerable.jsonl $b/scheduler_unanswerable.jsonl"
)
for line in "${corpora[@]}"; do
  read -r name dir sets <<< "$line"
  if [ "$#" -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  [ -d "$dir" ] || { echo "bench-answers.sh: skipping $name: no $dir" >&2; continue; }
  echo "== $name: indexing $dir" >&2
  "$qa" --data-dir "$out/$name" index "$dir" --name "$name" > "$out/$name.index.log" 2>&1
  "$qa" --data-dir "$out/$name" graph concepts --top 100 --json > "$out/$name.concepts.json"
  for set in $sets; do
    echo "   $(basename "$set")" >&2
    "$qa" --data-dir "$out/$name" --llm none eval "$set" --corpus "$name" --no-repeat --json > "$out/$(basename "$set" .jsonl).json"
  done
done
python3 scripts/bench-answers-table.py "$out"
