#!/usr/bin/env bash
# Hostile input against both binaries: scripts/soak-verifier.sh (mdbook-snippets: detached
# children, signals, huge timeouts, symlink cycles, long outputs, a full disk, secrets in the
# environment, unclosed quotes) and scripts/soak-server.sh (mcp-testserver over Streamable HTTP:
# odd ids, descriptor exhaustion, slow headers, session floods, odd Host and Origin headers). Each
# prints one line per attack with its outcome; this prints both and exits 1 if any attack got
# through. Bounded in count and time, loopback only; it stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for part in scripts/soak-verifier.sh scripts/soak-server.sh; do
    echo "--- $part"
    "$part" || status=1
done
exit "$status"
