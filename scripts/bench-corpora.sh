#!/usr/bin/env bash
# Build the flat folders of the technical books used by the evaluation sets in bench/ (see
# bench/README.md): the Rust book, the Rustonomicon, the Cargo book, the Embedded Rust book, the Edition Guide, the rustc book, the Reference, Rust by Example, the rustdoc and Clippy books, the error-code index, the Style Guide and the Unstable Book, as
# shipped with the toolchain. Usage: scripts/bench-corpora.sh [OUT_DIR]   (default /tmp)
set -euo pipefail
out="${1:-/tmp}"
D="$(rustc --print sysroot)/share/doc/rust/html"
[ -d "$D/book" ] || { echo "bench-corpora.sh: no toolchain docs at $D (rustup component add rust-docs)" >&2; exit 1; }
# mkflat SRC DST [find predicates…]: every non-stub page of SRC linked flat into DST; a base name
# used twice gets its parent folder as a prefix.
mkflat() {
  local src=$1 dst=$2; shift 2
  rm -rf "$dst" && mkdir -p "$dst"
  local list; list="$(cd "$src" && find . -name '*.html' ! -name print.html ! -name toc.html ! -name 404.html ! -name CHANGELOG.html "$@" -print0 \
      | { xargs -0 grep -L 'Redirecting\.\.\.' || true; } | sed 's|^\./||' | sort)"
  local dups; dups="$(printf '%s\n' "$list" | awk -F/ '{print $NF}' | sort | uniq -d)"
  while read -r f; do
    [ -n "$f" ] || continue
    local b p n
    b="$(basename "$f")"; p="$(basename "$(dirname "$src/$f")")"
    if printf '%s\n' "$dups" | grep -qxF "$b"; then n="$p-$b"; else n="$b"; fi
    ln -s "$src/$f" "$dst/$n"
  done <<< "$list"
}
rm -rf "$out/rustbook" && mkdir -p "$out/rustbook" && ln -s "$D"/book/ch*.html "$out/rustbook/"
mkdir -p "$out/nomicon" && rm -f "$out"/nomicon/*.html
for f in "$D"/nomicon/*.html "$D"/nomicon/vec/*.html "$D"/nomicon/arc-mutex/*.html; do
  b="$(basename "$f")"
  case "$b" in print.html|toc.html|index.html) continue ;; esac
  grep -q 'Redirecting\.\.\.' "$f" || ln -s "$f" "$out/nomicon/$b"
done
mkflat "$D/cargo" "$out/cargobook" ! -regex './commands/cargo-\(clippy\|fmt\|miri\|version\|help\)\.html'
mkflat "$D/embedded-book" "$out/embeddedbook"
mkflat "$D/edition-guide" "$out/editionguide"
mkflat "$D/rustc" "$out/rustcbook"
mkflat "$D/reference" "$out/reference"
# The rustdoc and Clippy books: concept lists only (no question sets).
mkflat "$D/rustdoc" "$out/rustdocbook"
mkflat "$D/clippy" "$out/clippybook"
# The compiler's error-code explanations (E0001 … E0800), one page each.
mkflat "$D/error_codes" "$out/errorcodes"
# The Style Guide and the Unstable Book: concept lists only (held out in session 22).
mkflat "$D/style-guide" "$out/styleguide"
mkflat "$D/unstable-book" "$out/unstablebook"
# Rust by Example in English only (its es/, ja/, ko/, zh/ folders are translations).
rm -rf "$out/releasenotes" && mkdir -p "$out/releasenotes" && ln -s "$D/releases.md" "$out/releasenotes/releases.md"
mkflat "$D/rust-by-example" "$out/rustbyexample" -not -path "./es/*" -not -path "./ja/*" -not -path "./ko/*" -not -path "./zh/*"
for d in rustbook nomicon cargobook embeddedbook editionguide rustcbook reference rustbyexample rustdocbook clippybook errorcodes styleguide unstablebook releasenotes; do echo "$out/$d: $(ls "$out/$d" | wc -l) pages"; done
