#!/usr/bin/env bash
# Where the testsuite's CPU time goes, test by test: each test of `tests/testsuite` run alone, one
# after another, under /usr/bin/time, after removing what a run builds for itself (target/tmp, the
# verdict caches, target/templates, as scripts/bench-cargo-test.sh does). Prints each test's CPU
# seconds (user + sys, its child processes included) and wall seconds, most CPU first, then the
# totals. A failing test is marked FAILED and makes the exit status 1.
#
#   scripts/testsuite-cpu.sh [FILTER]    FILTER: as libtest's, a part of the test names
#
# `cargo test` runs four tests at a time, so its wall time is not the sum printed here; the CPU is
# about the same. The whole suite takes about 5 minutes on 2 cores (CONTRIBUTING, "The loop's
# time").
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
binary=$(cargo test --locked --test testsuite --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable") \
            and message["target"]["name"] == "testsuite":
        print(message["executable"])
')
[[ -x $binary ]] || { echo "testsuite-cpu: error: no testsuite binary was built" >&2; exit 2; }
target=$(cargo metadata --format-version 1 --no-deps --locked |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
rm -rf "$target/tmp" "$target/mdbook-snippets" "$target/templates"
mkdir -p "$target/tmp"
mapfile -t tests < <("$binary" --list --format terse ${1:+"$1"} | sed -n 's/: test$//p')
((${#tests[@]} > 0)) || { echo "testsuite-cpu: error: no test matches ${1:-}" >&2; exit 2; }
echo "testsuite-cpu: ${#tests[@]} tests one at a time, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
times=$(mktemp)
rows=$(mktemp)
trap 'rm -f "$times" "$rows"' EXIT
status=0
for test in "${tests[@]}"; do
    verdict=ok
    /usr/bin/time -f "%e %U %S" -o "$times" "$binary" --exact "$test" --test-threads 1 \
        >/dev/null 2>&1 || { verdict=FAILED; status=1; }
    # The last line: /usr/bin/time puts "Command exited with non-zero status N" before it.
    read -r wall user sys < <(tail -n 1 "$times")
    awk -v wall="$wall" -v user="$user" -v sys="$sys" -v verdict="$verdict" -v test="$test" \
        'BEGIN { printf "%.1f %.1f %s %s\n", user + sys, wall, verdict, test }' >>"$rows"
done
sort -rn "$rows" | awk '
    { cpu += $1; wall += $2; printf "%7.1f s CPU %7.1f s wall  %s%s\n", $1, $2, ($3 == "ok" ? "" : "FAILED "), $4 }
    END { printf "%7.1f s CPU %7.1f s wall  total, %d tests\n", cpu, wall, NR }'
exit "$status"
