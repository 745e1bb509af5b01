#!/usr/bin/env bash
# What the containment costs per snippet: `scripts/bench-sandbox.sh [SNIPPETS] [RUNS]` writes a
# book of SNIPPETS (default 200) `sh` snippets that run `true`, and times
# `mdbook-snippets test --no-cache --jobs 1` on it (the release binary) under each containment:
# the sandbox (`auto`: PID namespace + Landlock where the kernel allows them), the fallback
# (`no-namespaces`: subreaper + Landlock) and none (`off`), alternating, RUNS times (default 3).
# Prints the median of each and the cost per snippet against `off`. The run's containment line
# is printed too: on a machine that refuses user namespaces, `auto` is the fallback.
set -euo pipefail
snippets=${1:-200}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-common.sh
source "$root/scripts/bench-common.sh"
bench_setup release

new_book "sandbox cost" sh sh sh
echo "- [A](a.md)" >"$book/src/SUMMARY.md"
{
    echo "# A"
    for _ in $(seq "$snippets"); do printf '\n```sh\ntrue\n```\n'; done
} >"$book/src/a.md"

modes=(auto no-namespaces off)
for mode in "${modes[@]}"; do
    MDBOOK_SNIPPETS_SANDBOX=$mode "$bin" test --quiet --no-cache --jobs 1 \
        --target-dir "$work/target" "$book" 2>&1 | grep 'containment:' | sed "s/^/$mode: /"
done
for _ in $(seq "$runs"); do
    for mode in "${modes[@]}"; do
        time_it "$mode" 0 env MDBOOK_SNIPPETS_SANDBOX="$mode" "$bin" test --quiet --no-cache \
            --jobs 1 --target-dir "$work/target" "$book"
    done
done
off=$(median off)
echo
echo "$snippets sh snippets, --no-cache --jobs 1, release binary, median of $runs (wall s):"
for mode in "${modes[@]}"; do
    m=$(median "$mode")
    awk -v mode="$mode" -v m="$m" -v off="$off" -v n="$snippets" \
        'BEGIN { printf "  %-14s %6.2f s   %+6.1f ms per snippet against off\n", mode, m, (m - off) * 1000 / n }'
done
