#!/usr/bin/env bash
# Builds the book (verifying every snippet) and opens it in headless Chromium: see browser/check.mjs.
# Installs what it needs: Debian's chromium, mdBook 0.5, and the pinned playwright-core.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v chromium >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
scripts/install-mdbook.sh >/dev/null
(cd scripts/browser && npm ci --no-audit --no-fund --silent)
cargo build --locked --bin mdbook-snippets
mdbook build 2>&1 | tee target/mdbook-build.log
if grep -E 'WARN|ERROR' target/mdbook-build.log; then
    echo "mdbook build printed warnings" >&2
    exit 1
fi
node scripts/browser/check.mjs target/book
# The SDK matrix chapter's grid at 1280 px (present, one cell per run, legend, no sideways scroll).
node scripts/browser/matrix-check.mjs target/book interop/expected.json
