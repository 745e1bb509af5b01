#!/usr/bin/env bash
# Builds and serves the book with every snippet verified, on a fresh machine:
# installs mdBook 0.5 if missing, builds the verifier, then `mdbook serve`.
# Extra arguments go to `mdbook serve` (e.g. `--open`, `-p 8000`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/install-mdbook.sh
cargo build --locked --bin mdbook-snippets
exec mdbook serve "$@"
