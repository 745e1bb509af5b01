#!/usr/bin/env bash
# Runs the SDK matrix: every way of stopping a call in the Python SDK, the TypeScript SDK (v1, v2) and rmcp,
# against mcp-testserver, and checks it against interop/expected.json and book/sdk-matrix.md; then runs the
# snippet helpers' examples (interop/snippets/run_examples.py: Python and TypeScript, stdio and HTTP).
#
#   interop/run.sh            install what is missing, run every cell, compare (exit 1 on a difference)
#   interop/run.sh --bless    the same, then rewrite interop/expected.json and book/sdk-matrix.md
#
# Installs are pinned and throwaway: a venv under target/interop/venv (interop/python/requirements.txt)
# and interop/typescript{,-v2}/node_modules and interop/snippets/typescript/node_modules (package-lock.json);
# each is redone only when its pin changes.
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
for tool in python3 node npm cargo sha256sum; do
    command -v "$tool" >/dev/null || fail "\`$tool\` is not on PATH"
done
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' \
    || fail "Node.js 20 or later is needed (the TypeScript SDK v2 requires it); found $(node --version)"
mkdir -p "$WORK"

# The generator's own tests (render_book.py: the grid's verdicts, the legend, the folded rows).
python3 -m unittest discover --quiet -s interop 2>"$WORK/unittest.log" || { cat "$WORK/unittest.log" >&2; fail "the tests of interop/render_book.py failed"; }

# Python SDK: a venv that matches requirements.txt, recreated when the pins change.
pins=$(sha256sum interop/python/requirements.txt | cut -d' ' -f1)
if [[ "$(cat "$WORK/venv/.pins" 2>/dev/null)" != "$pins" ]]; then
    echo "interop: installing the Python SDK into $WORK/venv"
    rm -rf "$WORK/venv"
    python3 -m venv "$WORK/venv" || fail "creating the venv"
    timeout 600 "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check -r interop/python/requirements.txt \
        || fail "pip install -r interop/python/requirements.txt"
    echo "$pins" > "$WORK/venv/.pins"
fi

# TypeScript SDK v1 and v2, and the snippet helper's (v2 client and tsx): node_modules that match each package-lock.json, reinstalled when the lock changes.
for dir in interop/typescript interop/typescript-v2 interop/snippets/typescript; do
    lock=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    if [[ "$(cat "$dir/node_modules/.lock-sha256" 2>/dev/null)" != "$lock" ]]; then
        echo "interop: installing the TypeScript SDK into $dir/node_modules"
        (cd "$dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci in $dir"
        echo "$lock" > "$dir/node_modules/.lock-sha256"
    fi
done

# The server and the rmcp scenario program (no-ops when up to date).
LOCKED=${CI:+--locked}
cargo build --quiet $LOCKED --release -p mcp-testserver || fail "building mcp-testserver"
cargo build --quiet $LOCKED -p mcp-interop-rmcp || fail "building the rmcp scenario program"

status=0
python3 interop/matrix.py --server target/release/mcp-testserver --work "$WORK" "${BLESS[@]}" || status=$?
if [[ $status -ge 2 ]]; then exit "$status"; fi
if [[ ${#BLESS[@]} -gt 0 && $status -eq 0 ]]; then
    python3 interop/render_book.py || exit 2
else
    python3 interop/render_book.py --check || status=$((status > 0 ? status : $?))
fi

# The snippet helpers: each example must print its output and leave the server's artifacts.
examples=0
python3 interop/snippets/run_examples.py --server target/release/mcp-testserver || examples=$?
if [[ $examples -ge 2 ]]; then exit "$examples"; fi
exit $((status > examples ? status : examples))
