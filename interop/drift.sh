#!/usr/bin/env bash
# Does a new (or any chosen) SDK release change what the book says? Runs the SDK matrix and the
# book's Rust, Python and TypeScript snippets against the chosen releases and prints a report.
#
#   interop/drift.sh                    the newest release of each SDK (asked of its registry)
#   interop/drift.sh rmcp=3.5.0 mcp=2.2.0 @modelcontextprotocol/sdk=1.20.0 @modelcontextprotocol/client=2.0.0
#                                       those releases; the SDKs not named stay at their pins
#   interop/drift.sh --matrix-only ...  the matrix alone (no book)
#
# The report (stdout): every matrix cell that differs from interop/expected.json, old and new side by
# side, with the book snippets that rely on its row (interop/reliance.json), and every book snippet
# that fails against the chosen releases. Releases are installed beside the pins
# (interop/releases.py); the committed Cargo.lock and package locks are never touched.
# Exit 0: nothing differs from what the book says; 1: something does; 2: it could not run.
set -uo pipefail
cd "$(dirname "$0")/.."
fail() { echo "interop/drift.sh: error: $*" >&2; exit 2; }
scripts/setup-languages.sh --matrix >&2 || fail "scripts/setup-languages.sh --matrix"
# Built one at a time, as interop/run.sh and the book build them (together, cargo would unify their
# dependencies' features and build them all again).
cargo build --quiet -p mcp-interop-rmcp >&2 || fail "building the rmcp scenario program"
cargo build --quiet --bin mdbook-snippets >&2 || fail "building mdbook-snippets"
python3 interop/drift.py "$@"
status=$?
[[ $status -le 2 ]] || status=2
exit "$status"
