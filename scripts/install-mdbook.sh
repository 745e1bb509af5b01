#!/usr/bin/env bash
# Installs mdBook 0.5.4 from crates.io when no mdBook 0.5 is on PATH (or in ~/.cargo/bin).
#
#   scripts/install-mdbook.sh           # optimized, as `cargo install` builds it (scripts/serve.sh)
#   scripts/install-mdbook.sh --debug   # the same source and version, unoptimized and without
#                                       # debug info (.ci/run)
#
# `--debug` is for CI's fresh machines: compiling mdBook is the largest single build a fresh
# `.ci/run` does, and unoptimized it took 235 s of CPU against 323 s at opt-level 1 and about
# 400 s optimized (CONTRIBUTING, "The loop's time"), while a build of this repository's book costs
# it about 1.5 s more of CPU (1.9 s against 0.4 s, the book without the preprocessor). Without
# debug info (`CARGO_PROFILE_DEV_DEBUG=0`: nothing here reads mdBook's backtraces) the compile took
# 100 s and 98 s of CPU against 131 s and 116 s with it, alternating on a quiet machine, and the
# binary is 32 MB instead of 124 MB.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
profile=()
case ${1:-} in
    --debug) profile=(--debug); export CARGO_PROFILE_DEV_DEBUG=0 ;;
    "") ;;
    *) echo "usage: scripts/install-mdbook.sh [--debug]" >&2; exit 2 ;;
esac
if mdbook --version 2>/dev/null | grep -q '^mdbook v0\.5\.'; then
    mdbook --version
    exit 0
fi
cargo install mdbook --version 0.5.4 --locked --quiet "${profile[@]}"
mdbook --version
