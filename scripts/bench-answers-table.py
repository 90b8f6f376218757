#!/usr/bin/env python3
"""One row per question set of a `scripts/bench-answers.sh` run (or several runs side by side):
the fused ranking's recall@k / all@k at k = 2, 5, 10 (a cell the fusion loses names the best lane
and its figure), two-part all@5 against plain dense RAG, false refusals, unanswerable questions
refused, key-term coverage and answers containing the gold phrase.

    python3 scripts/bench-answers-table.py OUT_DIR [OUT_DIR…]
"""
import json
import os
import sys

SETS = [  # (answerable set, its unanswerable set)
    ("rust_book_eval", "rust_book_unanswerable"), ("sample_corpus_eval", "sample_corpus_unanswerable"),
    ("questions", "hotpotqa_unanswerable"), ("nomicon_two_part", "nomicon_unanswerable"),
    ("cargo_two_part", "cargo_unanswerable"), ("embedded_two_part", "embedded_unanswerable"),
    ("edition_two_part", "edition_unanswerable"), ("rustc_two_part", "rustc_unanswerable"),
    ("reference_answerable", "reference_unanswerable"), ("rbe_two_part", "rbe_unanswerable"),
    ("rbe_answerable", None), ("rustdoc_answerable", "rustdoc_unanswerable"),
    ("clippy_answerable", "clippy_unanswerable"), ("errorcodes_answerable", "errorcodes_unanswerable"),
    ("unstable_two_part", "unstable_unanswerable"), ("style_answerable", "style_unanswerable"),
    ("releases_answerable", "releases_unanswerable"), ("allotment_answerable", "allotment_unanswerable"),
    ("marina_answerable", "marina_unanswerable"), ("firmware_answerable", "firmware_unanswerable"),
    ("clinic_answerable", "clinic_unanswerable"), ("tsdb_answerable", "tsdb_unanswerable"),
]
# Sets written blind and measured only for their totals (bench/README.md says since when); their
# figures are summed apart so that a rule tuned on the sets above is judged on them too.
HELD_OUT = [("waste_answerable", "waste_unanswerable"), ("scheduler_answerable", "scheduler_unanswerable")]


def load(run, name):
    path = os.path.join(run, f"{name}.json")
    if not name or not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main(runs):
    totals = {run: [0, 0, 0, 0] for run in runs}
    held = {run: [0, 0, 0, 0] for run in runs}
    print("| set | run | r@2 | all@2 | r@5 | all@5 | r@10 | all@10 | two-part all@5 vs plain dense | false refusals | unanswerable refused | key terms | gold phrase |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for answerable, unanswerable in SETS + HELD_OUT:
        for run in runs:
            d = load(run, answerable)
            if d is None:
                continue
            cells = []
            for k in ("2", "5", "10"):
                for m in ("recall", "all"):
                    fused = d["fused"][m][k]
                    best, lane = max((d["lanes"][l][m][k], l) for l in d["lanes"])
                    cells.append(f"{fused:.3f}" if fused >= best - 1e-9 else f"{fused:.3f} (<{lane} {best:.3f})")
            two = d["by_kind"].get("two")
            two_cell = f"{two['fused']['all']['5']:.3f} vs {two['lanes']['plain_dense']['all']['5']:.3f}" if two else "-"
            nf = d["not_found"]
            refused = round((nf["answerable_not_found"] or 0) * nf["answerable"])
            u = load(run, unanswerable)
            t = (held if (answerable, unanswerable) in HELD_OUT else totals)[run]
            t[0] += refused
            t[1] += nf["answerable"]
            u_cell = "-"
            if u is not None:
                un = u["not_found"]
                right = round(un["unanswerable_not_found"] * un["unanswerable"])
                t[2] += right
                t[3] += un["unanswerable"]
                u_cell = f"{right}/{un['unanswerable']}"
            kt = d["key_term_coverage"] or 0.0
            gold = d["answer_contains_gold"] or 0.0
            print(f"| {answerable} | {os.path.basename(os.path.normpath(run))} | {' | '.join(cells)} | {two_cell} | {refused}/{nf['answerable']} | {u_cell} | {kt:.3f} | {gold:.3f} |")
    for run, (fr, fa, ur, ua) in totals.items():
        print(f"\n{run}: false refusals {fr}/{fa}, unanswerable refused {ur}/{ua}")
        hr, ha, hu, hn = held[run]
        if ha or hn:
            print(f"{run} (held-out sets): false refusals {hr}/{ha}, unanswerable refused {hu}/{hn}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
