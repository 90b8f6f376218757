#!/bin/sh
# Cargo's compiler wrapper for this workspace's own crates (`rustc-workspace-wrapper` in
# .cargo/config.toml; dependencies never pass through it). It lints the code the test command
# compiles, so no second build is needed to run clippy:
#
# - test targets (each library's unit-test harness, which compiles the library's whole source,
#   and the integration tests) and examples are compiled by clippy-driver, the compiler `cargo
#   clippy` runs, with warnings denied: `cargo test` fails on a lint like `cargo clippy -- -D
#   warnings` would;
# - everything else (the libraries and the `qa` binary that scripts/demo.sh builds) is plain
#   rustc, so `cargo test --release` reuses the run command's release build as it is.
#
# Without clippy (`rustup component add clippy`) everything is plain rustc; scripts/test.sh says
# that lints were not checked. `cargo clippy` still works as usual (it sets its own wrapper).
lint=""
for arg in "$@"; do
  case "$arg" in
    --test | *examples/*.rs) lint=1 ;;
  esac
done
if [ -n "$lint" ] && clippy-driver --version >/dev/null 2>&1; then
  exec clippy-driver "$@" -D warnings
fi
exec "$@"
