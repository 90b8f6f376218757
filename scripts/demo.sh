#!/usr/bin/env bash
# From a fresh clone: fetch the models, build qa in release mode, index the bundled sample corpus
# and answer a question with its evidence. Extra arguments replace the question.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup-models.sh
cargo build --release --locked
./target/release/qa index sample_corpus
question="${*:-How does deep sleep relate to battery life?}"
./target/release/qa ask "$question"
# The SQL path on the bundled audit-findings database (SQLite, built from samples/sql/audit.sql).
scripts/sample-db.sh >/dev/null
echo
./target/release/qa sql "How many critical findings per department?" --db samples/sql/audit.db --semantic samples/sql/audit_semantic.toml
# The Elasticsearch path on the bundled shipments: an embedded index (no server), one search with
# filters and one aggregation.
echo
./target/release/qa es index samples/es/shipments.jsonl --name shipments
echo
./target/release/qa es "delayed shipments from Port Alvera" --index shipments --semantic samples/es/shipments_semantic.toml
echo
./target/release/qa es "number of shipments per carrier" --index shipments
# Leave a qa.toml naming the sample database for the router (the embedded index above is found in
# the data folder), so that `qa chat` or `qa "…"` in this folder routes across documents, SQL and
# Elasticsearch; `qa sources` lists them. An existing qa.toml is left alone.
if [ ! -e qa.toml ]; then
  cat > qa.toml <<'TOML'
# Written by scripts/demo.sh: the sample sources the router sees besides the indexed documents.
sql_url = "samples/sql/audit.db"
sql_semantic_schema = "samples/sql/audit_semantic.toml"
es_semantic = "samples/es/shipments_semantic.toml"
TOML
fi
echo
./target/release/qa sources
