#!/usr/bin/env bash
# Installs mdBook 0.5.4 from crates.io when no mdBook 0.5 is on PATH (or in ~/.cargo/bin).
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
if mdbook --version 2>/dev/null | grep -q '^mdbook v0\.5\.'; then
    mdbook --version
    exit 0
fi
cargo install mdbook --version 0.5.4 --locked --quiet
mdbook --version
