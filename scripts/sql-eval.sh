#!/usr/bin/env bash
# `qa sql eval` on both sample databases (audit, library), with and without their semantic
# files, on SQLite and — when QA_TEST_PG_URL / QA_TEST_PG_PASSWORD are set (e.g.
# eval "$(scripts/pg-test-cluster.sh start)") — on PostgreSQL too. Deterministic planner, no LLM.
#
#   scripts/sql-eval.sh [--json]        (builds target/release/qa if missing)
#
# On PostgreSQL the library sample is loaded into a database `qa_library` of the same server
# (dropped and re-created, so it always matches samples/sql/library.sql); psql is required.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JSON=()
[ "${1:-}" = "--json" ] && JSON=(--json)
[ -x target/release/qa ] || cargo build --release --locked
QA="$PWD/target/release/qa"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
scripts/sample-db.sh "$WORK/audit.db" >/dev/null
python3 - "$WORK/library.db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.executescript(open("samples/sql/library.sql", encoding="utf-8").read())
con.commit()
PY

run() { # run NAME URL EVAL SEMANTIC
  local name="$1" url="$2" file="$3" sem="$4"
  echo "== $name"
  QA_SQL_PASSWORD="${QA_TEST_PG_PASSWORD:-}" "$QA" --data-dir "$WORK" -q --llm none sql eval "$file" --db "$url" ${sem:+--semantic "$sem"} "${JSON[@]}"
}

for engine in sqlite postgres; do
  case "$engine" in
    sqlite) audit="sqlite://$WORK/audit.db"; library="sqlite://$WORK/library.db" ;;
    postgres)
      [ -n "${QA_TEST_PG_URL:-}" ] || { echo "(postgres skipped: QA_TEST_PG_URL not set)"; continue; }
      command -v psql >/dev/null || { echo "(postgres skipped: psql not found)"; continue; }
      audit="$QA_TEST_PG_URL"
      library="${QA_TEST_PG_URL%/*}/qa_library"
      admin="${QA_TEST_PG_URL%/*}/postgres"
      PGPASSWORD="${QA_TEST_PG_PASSWORD:-}" PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 "$admin" -c 'DROP DATABASE IF EXISTS qa_library' -c 'CREATE DATABASE qa_library' >/dev/null
      PGPASSWORD="${QA_TEST_PG_PASSWORD:-}" psql -X -q -v ON_ERROR_STOP=1 "$library" --single-transaction -f samples/sql/library.sql >/dev/null
      ;;
  esac
  run "$engine · audit" "$audit" samples/sql/audit_eval.jsonl ""
  run "$engine · audit + semantic" "$audit" samples/sql/audit_eval.jsonl samples/sql/audit_semantic.toml
  run "$engine · library" "$library" samples/sql/library_eval.jsonl ""
  run "$engine · library + semantic" "$library" samples/sql/library_eval.jsonl samples/sql/library_semantic.toml
done
echo "$(nproc) CPUs; $(date -u +%Y-%m-%d)"
