#!/usr/bin/env bash
# The whole test suite, from a fresh clone: fetch the models the tests run, then unit,
# integration and CLI tests (real model, real HNSW index, real embedded graph database).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup-models.sh
cargo test --locked "$@"
