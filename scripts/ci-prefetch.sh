#!/usr/bin/env bash
# What `.ci/run`'s later steps would otherwise download when they reach it, fetched at the start
# of the run, in the background, while the Rust builds keep the cores busy: Debian's chromium
# (browser check) and shellcheck (actionlint), the pinned CI tools from PyPI (lychee, actionlint),
# the browser check's playwright-core (npm), and every SDK's and framework's pinned environment
# (`interop/run.sh --install-only`). Each is what the step itself installs when missing, so a step
# that runs without this script still installs it; nothing here is a check.
#
#   scripts/ci-prefetch.sh
#
# Exit 2 when an install fails (the step that needs it would fail the same way, later).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
if [[ -z ${CHROMIUM:-} ]] && ! command -v chromium >/dev/null; then missing+=(chromium); fi
command -v shellcheck >/dev/null || missing+=(shellcheck)
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "ci-prefetch: apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
for tool in lychee actionlint; do
    scripts/ci-tool.sh "$tool" >/dev/null
done
(cd scripts/browser && npm ci --no-audit --no-fund --silent)
interop/run.sh --install-only
echo "ci-prefetch: done"
