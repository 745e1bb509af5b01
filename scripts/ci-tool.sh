#!/usr/bin/env bash
# Installs a pinned CI tool from PyPI into a throwaway venv and prints the venv's bin directory:
#   bin=$(scripts/ci-tool.sh lychee)   # scripts/ci-tools/lychee.txt -> target/ci-tools/lychee
# The pins (with hashes) are scripts/ci-tools/NAME.txt; the venv is redone only when they change.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/ci-tool.sh NAME (a file scripts/ci-tools/NAME.txt)}
pins=scripts/ci-tools/$name.txt
[[ -f $pins ]] || { echo "scripts/ci-tool.sh: error: no pin file $pins" >&2; exit 2; }
venv=target/ci-tools/$name
sum=$(sha256sum "$pins" | cut -d' ' -f1)
if [[ "$(cat "$venv/.pins" 2>/dev/null)" != "$sum" ]]; then
    echo "installing $name into $venv ($pins)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    timeout 600 "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$pins" >&2 \
        || { echo "scripts/ci-tool.sh: error: pip install -r $pins failed" >&2; exit 2; }
    echo "$sum" >"$venv/.pins"
fi
echo "$(pwd)/$venv/bin"
