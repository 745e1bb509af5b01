#!/usr/bin/env bash
# Installs what the book's Python and TypeScript snippets run with, and builds the test server they
# run against. Idempotent: a second run only checks (about a second).
#
#   scripts/setup-languages.sh            the venv, the snippet helper's and the SDK v1's
#                                         node_modules, the server
#   scripts/setup-languages.sh --matrix   the same, and the SDK matrix's v2 node_modules (interop/run.sh)
#   scripts/setup-languages.sh --frameworks  only what book/frameworks.md's snippets run with:
#       target/interop/fastmcp-venv (PyPI `fastmcp`, pinned in interop/frameworks/servers/
#       requirements.txt), the node_modules of interop/frameworks/servers/typescript (npm
#       `fastmcp`) and interop/frameworks/snippets/typescript (npm `ai`, `@ai-sdk/mcp`,
#       `@google/genai`, `@modelcontextprotocol/sdk`), target/interop/agents-venv (PyPI
#       langchain-mcp-adapters and LangGraph, mcp-use, smolagents[mcp], all on mcp 1.30.0, pinned
#       in interop/frameworks/snippets/python/requirements.txt), and the server; the setup of the
#       python-fastmcp, ts-fastmcp, ts-agents and python-agents languages. About 2 minutes the
#       first time (75 s measured before the agents venv, which took 41 s more; with mcp-use and
#       smolagents in it, the agents venv alone took about 2 minutes at load average 8), 2 s after.
#
# - target/interop/venv: PyPI `mcp` pinned in interop/python/requirements.txt; recreated when the
#   pins change (their hash is kept in the venv's `.pins`). Every venv here is made by
#   interop/frameworks/python/install.sh (uv, pinned there, from PyPI), as the frameworks' are.
# - interop/snippets/typescript/node_modules and interop/typescript/node_modules (the SDK v1, which
#   a book snippet imports; with --matrix also interop/typescript-v2): `npm ci`
#   when node_modules is missing or older than package-lock.json (the lock's hash is kept in
#   node_modules/.lock-sha256).
# - target/release/mcp-testserver: `cargo build --release --locked` (a no-op when up to date); not
#   with `--no-build` (beside either mode: the installs only, for `interop/run.sh --install-only`,
#   which .ci/run starts in the background while cargo builds).
# Needs python3 (3.10 or later), Node.js 20 or later with npm, cargo; the package registries only.
# Progress goes to stderr; exit 2 with a message naming what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=target/interop
DIRS=(interop/typescript interop/snippets/typescript)
MODE=
BUILD=1
usage() { echo "usage: scripts/setup-languages.sh [--matrix | --frameworks] [--no-build]" >&2; exit 2; }
for arg in "$@"; do
    case "$arg" in
        --matrix) [[ -z $MODE ]] || usage; MODE=$arg; DIRS=(interop/typescript interop/typescript-v2 interop/snippets/typescript) ;;
        --frameworks) [[ -z $MODE ]] || usage; MODE=$arg ;;
        --no-build) BUILD=0 ;;
        *) usage ;;
    esac
done
fail() { echo "setup-languages: error: $*" >&2; exit 2; }
for tool in python3 node npm cargo sha256sum; do
    command -v "$tool" >/dev/null || fail "\`$tool\` is not on PATH"
done
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || fail "Python 3.10 or later is needed (the \`mcp\` SDK requires it); found $(python3 --version 2>&1)"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' \
    || fail "Node.js 20 or later is needed (the TypeScript SDK v2 requires it); found $(node --version)"
mkdir -p "$WORK"
# One installer at a time (the book test, scripts/serve.sh and interop/run.sh may start together).
if command -v flock >/dev/null; then
    exec 9>"$WORK/setup.lock"
    flock 9
fi


# node_modules DIR: `npm ci` in DIR when its lock changed.
node_modules() {
    local lock
    lock=$(sha256sum "$1/package-lock.json" | cut -d' ' -f1)
    if [[ "$(cat "$1/node_modules/.lock-sha256" 2>/dev/null)" != "$lock" ]]; then
        echo "setup-languages: installing $1/node_modules (npm ci)" >&2
        (cd "$1" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >&2) \
            || fail "npm ci in $1"
        echo "$lock" > "$1/node_modules/.lock-sha256"
    fi
}
# venv DIR REQUIREMENTS: DIR holds exactly REQUIREMENTS (recreated when their hash changes), installed
# by uv with its bytecode compiled (interop/frameworks/python/install.sh, as every framework's venv):
# for the agents venv 0.5 s and 9 s of CPU here, where `python3 -m venv` and pip took 6.8 s and
# 28 s (pip's resolver and ensurepip), the same packages at the same versions.
venv() {
    local pins
    pins=$(sha256sum "$2" | cut -d' ' -f1)
    if [[ "$(cat "$1/.pins" 2>/dev/null)" != "$pins" || ! -x "$1/bin/python" ]]; then
        echo "setup-languages: installing $2 into $1" >&2
        timeout 600 interop/frameworks/python/install.sh "$1" -r "$2" >&2 \
            || fail "installing $2 into $1 (interop/frameworks/python/install.sh)"
        echo "$pins" > "$1/.pins"
    fi
}
if [[ $MODE == --frameworks ]]; then
    venv "$WORK/fastmcp-venv" interop/frameworks/servers/requirements.txt
    venv "$WORK/agents-venv" interop/frameworks/snippets/python/requirements.txt
    node_modules interop/frameworks/servers/typescript
    node_modules interop/frameworks/snippets/typescript
    [[ $BUILD -eq 1 ]] || exit 0
    cargo build --quiet --release --locked -p mcp-testserver --bin mcp-testserver \
        || fail "building target/release/mcp-testserver"
    exit 0
fi

venv "$WORK/venv" interop/python/requirements.txt

for dir in "${DIRS[@]}"; do
    lock=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    if [[ "$(cat "$dir/node_modules/.lock-sha256" 2>/dev/null)" != "$lock" ]]; then
        echo "setup-languages: installing $dir/node_modules (npm ci)" >&2
        (cd "$dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >&2) \
            || fail "npm ci in $dir"
        echo "$lock" > "$dir/node_modules/.lock-sha256"
    fi
done

[[ $BUILD -eq 1 ]] || exit 0
cargo build --quiet --release --locked -p mcp-testserver --bin mcp-testserver \
    || fail "building target/release/mcp-testserver"
