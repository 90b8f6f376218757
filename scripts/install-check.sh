#!/usr/bin/env bash
# `qa` installed and run from anywhere: `cargo install` from this clone (it reuses the release
# build of scripts/demo.sh: for a --path install cargo builds in the workspace's target/), then, in
# an empty folder with a temporary HOME and only the installed bin/ on PATH: `qa setup` fetches the
# embedding model into the user's data folder, `qa index` indexes a folder elsewhere, and
# `qa "question"` answers from it. scripts/test.sh runs this after the test suite.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$here"
cargo install --locked --quiet --path . --root "$work/root"
mkdir -p "$work/home" "$work/notes" "$work/elsewhere"
cp sample_corpus/*.md "$work/notes/"
cd "$work/elsewhere"
# Nothing of the caller's environment: the installed binary must find everything itself.
run() { env -i HOME="$work/home" PATH="$work/root/bin" "$@"; }
run qa setup --no-llm
run qa --quiet index "$work/notes"
answer="$(run qa --quiet "How is the dew point computed?" --json)"
printf '%s' "$answer" | grep -q '"chunk_id"' || { echo "install-check: the answer cites no chunk:" >&2; printf '%s\n' "$answer" >&2; exit 1; }
[ -d "$work/home/.local/share/qa/models/all-MiniLM-L6-v2" ] || { echo "install-check: qa setup did not fill the user's data folder" >&2; exit 1; }
echo "install-check: cargo install + qa setup + qa index + qa ask from an empty folder: ok"
