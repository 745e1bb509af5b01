#!/usr/bin/env bash
# Re-measures the SDK matrix at other releases than the pins, into interop/history.json, and renders
# the chapter (book/sdk-matrix.md, its "since" table) and the version picker's releases
# (book/generated/sdk-picker.md, interop/render_picker.py) from it.
#
#   interop/history.sh                     every release in interop/history.py's MEASURED
#   interop/history.sh rmcp=3.5.1 mcp=2.0.0 only these (SDK: rmcp, mcp, @modelcontextprotocol/sdk,
#                                          @modelcontextprotocol/client, or the matrix's keys)
#
# Each release is installed beside the pins under target/interop/releases/ (interop/releases.py: a
# venv, an npm install, or a generated rmcp crate outside the workspace lock) and runs the same
# scenario programs as interop/run.sh against the same target/release/mcp-testserver.
# Exit 0: measured and rendered; 1: a release or a cell failed (the others are kept); 2: could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "interop/history.sh: error: $*" >&2; exit 2; }
scripts/setup-languages.sh --matrix || fail "scripts/setup-languages.sh --matrix"
# The pinned rmcp program (a pin is measured with the pinned install, as interop/run.sh does).
cargo build --quiet -p mcp-interop-rmcp || fail "building the rmcp scenario program"
status=0
python3 interop/history.py --server target/release/mcp-testserver "$@" || status=$?
if [[ $status -ge 2 ]]; then exit "$status"; fi
python3 interop/render_book.py || exit 2
# The frameworks' grid shows them across releases too.
python3 interop/render_frameworks.py || exit 2
# The version picker lists the measured releases.
python3 interop/render_picker.py || exit 2
exit "$status"
