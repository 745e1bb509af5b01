#!/usr/bin/env bash
# Hostile input against both binaries: scripts/soak-verifier.sh (mdbook-snippets: detached
# children, signals, huge timeouts, symlink cycles, long outputs, a full disk, secrets in the
# environment, unclosed quotes) and scripts/soak-server.sh (mcp-testserver over Streamable HTTP:
# odd ids, descriptor exhaustion, slow headers, session floods, odd Host and Origin headers). Each
# prints one line per attack with its outcome; this prints both and exits 1 if any attack got
# through. Bounded in count and time, loopback only; it stops by itself.
#
# The two parts attack different binaries and share nothing (each its own scratch folders and
# loopback ports), and each mostly waits on its attacks' timers, so they run at once: the soak
# takes as long as its longer part, not their sum (CONTRIBUTING, "The loop's time"). Each part's
# output goes to a file and is printed whole when both have ended, in the order above.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=(scripts/soak-verifier.sh scripts/soak-server.sh)
logs=$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")
pids=()
# Whatever ends this script (a signal included), neither part outlives it.
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$logs"' EXIT
for index in "${!parts[@]}"; do
    "${parts[$index]}" >"$logs/$index" 2>&1 &
    pids+=($!)
done
status=0
for index in "${!parts[@]}"; do
    part_status=0
    wait "${pids[$index]}" || part_status=$?
    echo "--- ${parts[$index]}"
    cat "$logs/$index"
    if [[ $part_status -ne 0 ]]; then
        echo "--- ${parts[$index]} exited $part_status"
        status=1
    fi
done
exit "$status"
