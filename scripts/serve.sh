#!/usr/bin/env bash
# Builds and serves the book with every snippet verified, on a fresh machine:
# installs mdBook 0.5 if missing, the Python and TypeScript SDKs the snippets run with and the
# release test server (scripts/setup-languages.sh), builds the verifier, then `mdbook serve`.
# Extra arguments go to `mdbook serve` (e.g. `--open`, `-p 8000`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/install-mdbook.sh
scripts/setup-languages.sh
cargo build --locked --bin mdbook-snippets
exec mdbook serve "$@"
