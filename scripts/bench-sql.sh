#!/usr/bin/env bash
# Times `qa sql` (deterministic generator, no LLM) on the sample audit database: per question,
# RUNS runs; prints p50/max of the agent's own total and per-stage latency (from --json metrics)
# and the wall time of the whole process. SQLite always; PostgreSQL too when QA_TEST_PG_URL and
# QA_TEST_PG_PASSWORD are set (e.g. eval "$(scripts/pg-test-cluster.sh start)").
#
#   scripts/bench-sql.sh [RUNS]        (default 20; builds target/release/qa if missing)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS="${1:-20}"
[ -x target/release/qa ] || cargo build --release --locked
QA="$PWD/target/release/qa"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
scripts/sample-db.sh "$WORK/audit.db" >/dev/null
QUESTIONS=(
  "How many critical findings per department?"
  "average cost of urgent issues by category"
  "Number of findings per month in 2025"
  "List the 5 most expensive critical findings"
  "total estimated cost of open findings by region"
)
run_engine() {
  local name="$1" url="$2"
  echo "== $name =="
  for q in "${QUESTIONS[@]}"; do
    for _ in $(seq "$RUNS"); do
      local t0 t1
      t0=$(date +%s%N)
      QA_SQL_URL="$url" QA_SQL_PASSWORD="${QA_TEST_PG_PASSWORD:-}" "$QA" --data-dir "$WORK" -q --llm none sql "$q" \
        --semantic samples/sql/audit_semantic.toml --json > "$WORK/out.json"
      t1=$(date +%s%N)
      python3 - "$WORK/out.json" "$(( (t1 - t0) / 1000 ))" >> "$WORK/$name.tsv" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
m = v["metrics"]
print("\t".join([v["question"], str(m["total_ms"]), str(int(sys.argv[2]) / 1000), json.dumps(m["latency_ms"]), str(v["row_count"])]))
PY
    done
  done
  python3 - "$WORK/$name.tsv" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    q, total, wall, stages, n = line.rstrip("\n").split("\t")
    rows[q].append((float(total), float(wall), json.loads(stages), n))
def p50(xs):
    xs = sorted(xs); return xs[(len(xs) + 1) // 2 - 1]
print(f"{'question':50} {'rows':>5} {'agent p50':>10} {'agent max':>10} {'process p50':>12}  stage p50 (ms)")
for q, rs in rows.items():
    stages = {k: p50([r[2].get(k, 0.0) for r in rs]) for k in rs[0][2]}
    st = ", ".join(f"{k} {v:.1f}" for k, v in stages.items() if k != "input")
    print(f"{q[:50]:50} {rs[0][3]:>5} {p50([r[0] for r in rs]):>8.1f}ms {max(r[0] for r in rs):>8.1f}ms {p50([r[1] for r in rs]):>10.1f}ms  {st}")
PY
}
run_engine sqlite "sqlite://$WORK/audit.db"
if [ -n "${QA_TEST_PG_URL:-}" ]; then
  run_engine postgres "$QA_TEST_PG_URL"
fi
echo "runs per question: $RUNS; $(nproc) CPUs; $(date -u +%Y-%m-%d)"
