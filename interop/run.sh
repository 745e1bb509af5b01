#!/usr/bin/env bash
# Runs the SDK matrix: every way of stopping a call in the Python SDK, the TypeScript SDK (v1, v2) and rmcp,
# and in the agent frameworks (interop/frameworks/*/frameworks.json: openai-agents, pydantic-ai, ...),
# against mcp-testserver, and checks it against interop/expected.json, book/sdk-matrix.md and
# book/generated/frameworks-grid.md; then runs the snippet helpers' examples
# (interop/snippets/run_examples.py: Python and TypeScript, stdio and HTTP).
#
#   interop/run.sh                      install what is missing, run every cell, compare (exit 1 on a difference)
#   interop/run.sh --bless              the same, then rewrite interop/expected.json, book/sdk-matrix.md and
#                                       book/generated/frameworks-grid.md
#   interop/run.sh --only frameworks    only the frameworks' cells (`--only sdks`: only the SDKs'; `--only NAME`:
#                                       one SDK or framework; repeatable), compared with their part of
#                                       expected.json (with --bless, merged into it); no snippet examples
#   interop/run.sh --jobs N             cells run at once (matrix.py's --jobs; default 4: the cells mostly wait)
#   interop/run.sh --install-only       only the installs below (every SDK's and framework's pin, the servers'
#                                       venvs), no build and no cell; .ci/run starts it in the background
#                                       while cargo builds, so the downloads overlap the build
#   interop/run.sh --no-build           build nothing: the release test server and the rmcp scenario program
#                                       must be built already (exit 2 naming the one that is not); .ci/run
#                                       builds them first, so the install test beside the matrix can take
#                                       target/release's lock for its builds without the matrix waiting on it
#
# Installs are pinned and throwaway (scripts/setup-languages.sh --matrix): a venv under target/interop/venv
# (interop/python/requirements.txt) and interop/typescript{,-v2}/node_modules and
# interop/snippets/typescript/node_modules (package-lock.json); each is redone only when its pin changes.
# Each framework has its own venv or node_modules, installed by matrix.py from its frameworks.json entry
# (interop/framework_cells.py), again only when its pin changes.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=target/interop
BLESS=()
ONLY=()
JOBS=()
INSTALL_ONLY=0
NO_BUILD=()
USAGE="usage: interop/run.sh [--bless] [--jobs N] [--only sdks|frameworks|NAME]... [--no-build] | interop/run.sh --install-only"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bless) BLESS=(--bless) ;;
        --only) [[ $# -ge 2 ]] || { echo "$USAGE" >&2; exit 2; }
                ONLY+=(--only "$2"); shift ;;
        --jobs) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "$USAGE" >&2; exit 2; }
                JOBS=(--jobs "$2"); shift ;;
        --install-only) INSTALL_ONLY=1 ;;
        --no-build) NO_BUILD=(--no-build) ;;
        *) echo "$USAGE" >&2; exit 2 ;;
    esac
    shift
done
fail() { echo "interop/run.sh: error: $*" >&2; exit 2; }
mkdir -p "$WORK"
if [[ $INSTALL_ONLY -eq 1 ]]; then
    [[ ${#BLESS[@]} -eq 0 && ${#ONLY[@]} -eq 0 && ${#JOBS[@]} -eq 0 && ${#NO_BUILD[@]} -eq 0 ]] || { echo "$USAGE" >&2; exit 2; }
    # What a run installs (each a no-op when its pin is installed), without the test server's build.
    scripts/setup-languages.sh --matrix --no-build || fail "scripts/setup-languages.sh --matrix --no-build"
    scripts/setup-languages.sh --frameworks --no-build || fail "scripts/setup-languages.sh --frameworks --no-build"
    python3 interop/framework_cells.py --install || fail "installing the frameworks (interop/framework_cells.py --install)"
    exit 0
fi

# The rmcp scenario program is needed unless --only leaves rmcp out. With --no-build, it and the
# release test server must be there before anything is installed.
needs_rmcp=1
if [[ ${#ONLY[@]} -gt 0 ]]; then
    needs_rmcp=0
    for word in "${ONLY[@]}"; do [[ $word == sdks || $word == rmcp ]] && needs_rmcp=1; done
fi
if [[ ${#NO_BUILD[@]} -gt 0 ]]; then
    [[ -x target/release/mcp-testserver ]] \
        || fail "--no-build: no target/release/mcp-testserver (cargo build --release --locked -p mcp-testserver --bin mcp-testserver)"
    [[ $needs_rmcp -eq 0 || -x target/debug/rmcp-scenarios ]] \
        || fail "--no-build: no target/debug/rmcp-scenarios (cargo build --locked --workspace --tests --bins)"
fi

# The Python SDK venv, the TypeScript SDKs' node_modules (v1, v2, the snippet helper's) and the
# release server: scripts/setup-languages.sh, shared with the book (each redone only when its pin
# changes; it checks the tools and their versions first). With --no-build, the server as it is.
scripts/setup-languages.sh --matrix "${NO_BUILD[@]}" || fail "scripts/setup-languages.sh --matrix ${NO_BUILD[*]}"

# The generator's own tests (render_book.py: the grid's verdicts, the legend, the folded rows; history.py,
# drift.py: the "since" column, the drift report).
python3 -m unittest discover --quiet -s interop 2>"$WORK/unittest.log" || { cat "$WORK/unittest.log" >&2; fail "the tests of interop/ (render_book.py, history.py, drift.py) failed"; }

# The rmcp scenario program (a no-op when up to date; with --no-build, as checked above), built
# with the features `cargo test --workspace` resolves (every member, dev-dependencies included):
# then rmcp, tokio and the rest are the units `cargo test` built, and only the program compiles
# (4 s of CPU after `cargo test`; without it, every test target of the workspace is built first).
# Alone (`-p mcp-interop-rmcp`), its features select other units: rmcp and its dependencies
# compiled again (74 s of wall, CI's step before the matrix).
LOCKED=${CI:+--locked}
if [[ $needs_rmcp -eq 1 && ${#NO_BUILD[@]} -eq 0 ]]; then
    cargo build --quiet $LOCKED --workspace --tests --bins || fail "building the rmcp scenario program"
fi

# The server frameworks (interop/frameworks/servers/, fw-server's runner: FastMCP as a server, driven
# by raw clients) when the frameworks run (the default, or --only frameworks); not with --only sdks
# or --only NAME. Measured one cell at a time beside the matrix's cells (which mostly wait on their
# timers): about 40 cells of 4 s each; a cell that differs is measured again after the others.
frameworks=1
if [[ ${#ONLY[@]} -gt 0 ]]; then
    frameworks=0
    for word in "${ONLY[@]}"; do [[ $word == frameworks ]] && frameworks=1; done
fi
measure_pid=
if [[ $frameworks -eq 1 && -f interop/frameworks/servers/measure.py ]]; then
    scripts/setup-languages.sh --frameworks "${NO_BUILD[@]}" || fail "scripts/setup-languages.sh --frameworks ${NO_BUILD[*]}"
    python3 interop/frameworks/servers/measure.py --check >"$WORK/measure.log" 2>&1 &
    measure_pid=$!
    trap '[[ -n $measure_pid ]] && kill "$measure_pid" 2>/dev/null' EXIT
fi

status=0
python3 interop/matrix.py --server target/release/mcp-testserver --work "$WORK" "${JOBS[@]}" "${BLESS[@]}" "${ONLY[@]}" || status=$?
if [[ $status -ge 2 ]]; then exit "$status"; fi
if [[ ${#BLESS[@]} -gt 0 && $status -eq 0 ]]; then
    python3 interop/render_book.py || exit 2
    python3 interop/render_frameworks.py || exit 2
else
    python3 interop/render_book.py --check || status=$((status > 0 ? status : $?))
    python3 interop/render_frameworks.py --check || status=$((status > 0 ? status : $?))
fi

# The server frameworks' measurement, started above: its facts, then its verdict.
if [[ -n $measure_pid ]]; then
    code=0
    wait "$measure_pid" || code=$?
    measure_pid=
    cat "$WORK/measure.log"
    [[ $code -ge 2 ]] && exit 2
    status=$((status > code ? status : code))
fi

# The measured history (interop/history.json, interop/history.sh) must agree with expected.json at the
# pins: a pin that moved, or a blessed change of behaviour, needs `interop/history.sh SDK=VERSION`.
# (The chapter's history table is part of the render check above.)
python3 interop/history.py --check || status=$((status > 0 ? status : 1))
# The version picker's include (book/generated/sdk-picker.md) lists history.json's releases.
python3 interop/render_picker.py --check || status=$((status > 0 ? status : 1))

# The snippet helpers: each example must print its output and leave the server's artifacts (not with --only).
if [[ ${#ONLY[@]} -gt 0 ]]; then exit "$status"; fi
examples=0
python3 interop/snippets/run_examples.py --server target/release/mcp-testserver || examples=$?
if [[ $examples -ge 2 ]]; then exit "$examples"; fi
exit $((status > examples ? status : examples))
