#!/usr/bin/env bash
# The contributor's loop as issue 37 measures it: `cargo test --workspace --locked` right after
# `cargo build --tests --workspace --locked`, in a checkout DIR (this one, or a `git worktree` of
# another commit with a target dir of its own), with what a test run builds for itself removed
# first (target/tmp, the verdict caches, target/templates): wall and CPU time of the whole run.
#
#   scripts/bench-cargo-test.sh [DIR] [NAME=VALUE ...]    # e.g. RUST_TEST_THREADS=2
#
# Run two checkouts back to back on the same machine to compare them (CONTRIBUTING, "The loop's
# time"). The venvs, `node_modules` and the release server under DIR's target/ are kept, so run
# `cargo test` once before the first timed run to compare like with like.
set -euo pipefail
dir=$(realpath "${1:-$(dirname "$0")/..}")
shift || true
cd "$dir"
export CARGO_TARGET_DIR=$dir/target CARGO_TERM_COLOR=never
cargo build --tests --workspace --locked --quiet
rm -rf target/tmp target/mdbook-snippets target/templates
mkdir -p target/tmp
echo "bench-cargo-test: $dir at $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
status=0
env "$@" /usr/bin/time -f "bench-cargo-test: %e s wall, %U s user, %S s sys" \
    cargo test --workspace --locked || status=$?
echo "bench-cargo-test: exit $status, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exit "$status"
