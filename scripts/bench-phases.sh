#!/usr/bin/env bash
# Where a cold `mdbook-snippets test --no-cache` spends its time (issue 27, "Speed where
# dependencies dominate"), with stable tools: cargo runs every rustc through
# scripts/rustc-phases.sh (RUSTC_WRAPPER), which times the generated snippet crates.
#
# Two kinds of cold runs, BENCH_RUNS (default 3) of each, medians:
# - plain: the wall time from the start to the verifier's `building` line (planning: reading
#   the book, planning, writing the crate), to the first snippet rustc (cargo starting:
#   resolution, fingerprints), to the last snippet rustc's end (the build), and to the exit
#   (the runs of the snippets, the report);
# - split: each snippet crate also compiled, first, stopped after the front end and after
#   codegen (see rustc-phases.sh), which gives the build's front end, codegen and link, as CPU
#   seconds summed over the snippet crates.
#
# Usage: scripts/bench-phases.sh [BOOK]
#   BOOK defaults to the dependencies book scripts/bench-books.sh generates (run that first),
#   built in its target dir (target/bench-books/target, dependencies built); another book is
#   built where CARGO_TARGET_DIR says, or where the verifier would build it.
#   BENCH_TOOL  the verifier to time (default: this repository's, built in release), to compare
#               a variant with the same runs
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
runs=${BENCH_RUNS:-3}
export CARGO_TERM_COLOR=never
export PATH="$HOME/.cargo/bin:$PATH"

tool=${BENCH_TOOL:-}
if [[ -z $tool ]]; then
    echo "building mdbook-snippets (release)" >&2
    cargo build --release --quiet --bin mdbook-snippets
    tool=${CARGO_TARGET_DIR:-$repo/target}/release/mdbook-snippets
fi

book=${1:-}
if [[ -z $book ]]; then
    book=$repo/target/bench-books/deps-book
    [[ -f $book/book.toml ]] || {
        echo "error: no $book: run BENCH_BOOKS=deps scripts/bench-books.sh first" >&2
        exit 2
    }
    export CARGO_TARGET_DIR=$repo/target/bench-books/target
fi
book=$(cd "$book" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The generated crate of BOOK, its build output and its cache, gone: the next run is cold.
forget() {
    local target=${CARGO_TARGET_DIR:-}
    if [[ -z $target ]]; then
        target=$(cd "$book" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
            | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' \
            || echo "$book/target")
    fi
    rm -rf "$target/mdbook-snippets"
    rm -rf "$target"/debug/{deps,.fingerprint,incremental,build}/snippets[-_]* \
        "$target"/debug/{deps,.fingerprint}/{own,cf,th}[-_]* \
        "$target"/debug/snippets-* "$target"/debug/{own,cf,th}-*
}

declare -A seconds
record() { seconds[$1]="${seconds[$1]:-} $2"; }
median() {
    tr ' ' '\n' <<<"${seconds[$1]}" | grep . | sort -n \
        | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# one_run SPLIT: a cold run, its phases recorded.
one_run() {
    local split=$1 log=$work/rustc.log stamps=$work/stderr.log
    forget
    : >"$log"
    local start end status=0 TIMEFORMAT='%U %S'
    start=$(date +%s.%N)
    # bash's `time`: the CPU time (user + system) of the run and every process it waited for.
    { time PHASES_LOG=$log PHASES_SPLIT=$split RUSTC_WRAPPER=$repo/scripts/rustc-phases.sh \
        "$tool" test --no-cache "$book" 2> >(while IFS= read -r line; do
            printf '%s %s\n' "$(date +%s.%N)" "$line"
        done >"$stamps") >"$work/stdout.log" || status=$?; } 2>"$work/cpu"
    end=$(date +%s.%N)
    wait
    if ((status != 0 && status != 1)) || [[ ! -s $log ]]; then
        echo "error: the run exited with $status or built no snippet crate" >&2
        cat "$stamps" >&2
        exit 2
    fi
    local building first last
    building=$(awk '/ building [0-9]+ snippet/ { print $1; exit }' "$stamps")
    first=$(awk '{ print $2 }' "$log" | sort -n | head -n 1)
    last=$(awk '{ print $3 }' "$log" | sort -n | tail -n 1)
    if ((split)); then
        record front_cpu "$(awk '{ s += $7 } END { print s }' "$log")"
        record codegen_cpu "$(awk '{ s += $9 - $7 } END { print s }' "$log")"
        record link_cpu "$(awk '{ s += $5 - $9 } END { print s }' "$log")"
        record crates "$(wc -l <"$log")"
    else
        record total "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
        record total_cpu "$(awk '{ print $1 + $2 }' "$work/cpu")"
        record planning "$(awk -v a="$start" -v b="$building" 'BEGIN { print b - a }')"
        record cargo_start "$(awk -v a="$building" -v b="$first" 'BEGIN { print b - a }')"
        record build "$(awk -v a="$first" -v b="$last" 'BEGIN { print b - a }')"
        record runs "$(awk -v a="$last" -v b="$end" 'BEGIN { print b - a }')"
        record rustc_wall "$(awk '{ s += $4 } END { print s }' "$log")"
        record rustc_cpu "$(awk '{ s += $5 } END { print s }' "$log")"
    fi
}

for ((run = 1; run <= runs; run++)); do
    echo "run $run of $runs" >&2
    one_run 0
    one_run 1
done

printf '\n%s on %s; %s cores, load average %s at the end; %s; medians of %s runs\n' "$tool" "$book" \
    "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(rustc --version)" "$runs"
printf '\n| phase of a cold run (plain runs) | wall s |\n|---|---|\n'
printf '| %s | %s |\n' \
    "planning: the book read, the snippets planned, the crate written" "$(median planning)" \
    "cargo starting: until the first snippet crate's rustc" "$(median cargo_start)" \
    "the build: first snippet rustc's start to the last one's end" "$(median build)" \
    "the runs of the snippets and the report" "$(median runs)" \
    "total" "$(median total)" \
    "total CPU time (user + system of every process)" "$(median total_cpu)"
printf '\nrustc on the snippet crates, summed over crates: %s s wall, %s s CPU (plain runs)\n' \
    "$(median rustc_wall)" "$(median rustc_cpu)"
# CPU time only: a variant's wall time is not comparable with the real build's, which has the
# jobserver's tokens to itself.
printf '\n| rustc phase, summed over the %s snippet crate(s) (split runs) | CPU s |\n|---|---|\n' \
    "$(median crates)"
printf '| %s | %s |\n' \
    "front end (--emit=metadata)" "$(median front_cpu)" \
    "codegen (--emit=obj, less the front end)" "$(median codegen_cpu)" \
    "link (the full build, less --emit=obj)" "$(median link_cpu)"
