#!/usr/bin/env bash
# Runs the SDK matrix: every way of stopping a call in the Python SDK, the TypeScript SDK (v1, v2) and rmcp,
# against mcp-testserver, and checks it against interop/expected.json and book/sdk-matrix.md; then runs the
# snippet helpers' examples (interop/snippets/run_examples.py: Python and TypeScript, stdio and HTTP).
#
#   interop/run.sh            install what is missing, run every cell, compare (exit 1 on a difference)
#   interop/run.sh --bless    the same, then rewrite interop/expected.json and book/sdk-matrix.md
#
# Installs are pinned and throwaway (scripts/setup-languages.sh --matrix): a venv under target/interop/venv
# (interop/python/requirements.txt) and interop/typescript{,-v2}/node_modules and
# interop/snippets/typescript/node_modules (package-lock.json); each is redone only when its pin changes.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=target/interop
BLESS=()
case "${1:-}" in
    "") ;;
    --bless) BLESS=(--bless) ;;
    *) echo "usage: interop/run.sh [--bless]" >&2; exit 2 ;;
esac
fail() { echo "interop/run.sh: error: $*" >&2; exit 2; }
mkdir -p "$WORK"

# The Python SDK venv, the TypeScript SDKs' node_modules (v1, v2, the snippet helper's) and the
# release server: scripts/setup-languages.sh, shared with the book (each redone only when its pin
# changes; it checks the tools and their versions first).
scripts/setup-languages.sh --matrix || fail "scripts/setup-languages.sh --matrix"

# The generator's own tests (render_book.py: the grid's verdicts, the legend, the folded rows; history.py,
# drift.py: the "since" column, the drift report).
python3 -m unittest discover --quiet -s interop 2>"$WORK/unittest.log" || { cat "$WORK/unittest.log" >&2; fail "the tests of interop/ (render_book.py, history.py, drift.py) failed"; }

# The rmcp scenario program (a no-op when up to date).
LOCKED=${CI:+--locked}
cargo build --quiet $LOCKED -p mcp-interop-rmcp || fail "building the rmcp scenario program"

status=0
python3 interop/matrix.py --server target/release/mcp-testserver --work "$WORK" "${BLESS[@]}" || status=$?
if [[ $status -ge 2 ]]; then exit "$status"; fi
if [[ ${#BLESS[@]} -gt 0 && $status -eq 0 ]]; then
    python3 interop/render_book.py || exit 2
else
    python3 interop/render_book.py --check || status=$((status > 0 ? status : $?))
fi

# The measured history (interop/history.json, interop/history.sh) must agree with expected.json at the
# pins: a pin that moved, or a blessed change of behaviour, needs `interop/history.sh SDK=VERSION`.
# (The chapter's history table is part of the render check above.)
python3 interop/history.py --check || status=$((status > 0 ? status : 1))
# The version picker's include (book/generated/sdk-picker.md) lists history.json's releases.
python3 interop/render_picker.py --check || status=$((status > 0 ? status : 1))

# The snippet helpers: each example must print its output and leave the server's artifacts.
examples=0
python3 interop/snippets/run_examples.py --server target/release/mcp-testserver || examples=$?
if [[ $examples -ge 2 ]]; then exit "$examples"; fi
exit $((status > examples ? status : examples))
