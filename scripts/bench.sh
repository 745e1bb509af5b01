#!/usr/bin/env bash
# The speed benchmark of the issue ("Speed"): generates a book of N harness snippets (tokio +
# serde_json + the harness crate `snippets/`: package `mcp-testserver-harness`, lib
# `mcp_testserver`; N=100 by default) and times,
# side by side in one run and one target dir:
#   cold        `mdbook-snippets test --no-cache` with no generated crate and none of its build
#               output left from an earlier run (dependencies stay built)
#   doctests    `cargo test --doc` of the same snippets as 2024-edition merged doctests
#   per-snippet the same doctests marked `standalone_crate`: one compile per snippet, the model of
#               `mdbook test` and mdbook-keeper
#   warm        `mdbook-snippets test` again on the unchanged book
#   edited      `mdbook-snippets test` after editing one snippet of the warm book (what
#               `mdbook serve` does on a save)
#   one broken  `mdbook-snippets test --no-cache`, cold, on the book with one snippet broken
#   sandbox     `mdbook-snippets test --no-cache --jobs 1` on the built book (nothing to compile:
#               the runs alone), under each containment (MDBOOK_SNIPPETS_SANDBOX): `auto` (a PID
#               namespace + Landlock per snippet), `no-namespaces` (the subreaper launcher +
#               Landlock), `off` (the subreaper launcher alone); the per-snippet difference is
#               what the namespaces and Landlock cost. And the launcher itself: 200 starts of
#               /bin/true through it (PID namespace + Landlock) against 200 direct starts.
# Dependencies are built before anything is timed (a warm-up that is not measured), so every
# figure is the cost of the snippets themselves. Each figure is the median of BENCH_RUNS runs
# (default 5; the slow per-snippet row BENCH_SLOW_RUNS, default 2), the rows interleaved run by
# run (cold and doctests back to back, in alternating order) so that a change in the machine's
# load hits both sides alike; the cold/doctests and broken/cold ratios are medians of the
# per-run ratios. Prints a table of times and ratios.
#
# Usage: scripts/bench.sh [N]
#   BENCH_DIR      the work directory (default target/bench)
#   BENCH_HARNESS  the harness crate (default snippets/; its workspace's Cargo.lock is used), e.g.
#                  a copy of a committed version while snippets/ is being edited (copy the
#                  workspace, not snippets/ alone: the harness depends on ../testserver)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
count=${1:-100}
runs=${BENCH_RUNS:-5}
slow_runs=${BENCH_SLOW_RUNS:-2}
work=${BENCH_DIR:-$repo/target/bench}
harness=$(realpath "${BENCH_HARNESS:-$repo/snippets}")
harness_lock=$(dirname "$harness")/Cargo.lock
export CARGO_TERM_COLOR=never

echo "building mdbook-snippets (release)" >&2
cargo build --release --quiet --bin mdbook-snippets
tool=${CARGO_TARGET_DIR:-$repo/target}/release/mdbook-snippets

# Everything timed builds into one target dir of its own.
export CARGO_TARGET_DIR=$work/target
rm -rf "$work/book-"* "$work/doctests-"*
mkdir -p "$work"

# The body of snippet $1: a real harness round trip (server, rmcp client, a tool list), plus
# some serde_json and tokio, so each snippet instantiates the generic code a book's would.
snippet_body() {
    cat <<EOF
let server = TestServer::start();
let client = server.connect_rmcp().await?;
let tools = client.list_all_tools().await?;
let summary = json!({ "snippet": $1, "tools": tools.len(), "squares": [$1 * $1, $1 + 1] });
tokio::time::sleep(Duration::from_millis($1)).await;
println!("{}", summary["snippet"]);
client.cancel().await?;
EOF
}

# make_book DIR BROKEN_INDEX (0: none broken)
make_book() {
    local dir=$1 broken=$2
    mkdir -p "$dir/src"
    cat >"$dir/book.toml" <<EOF
[book]
title = "bench"

[preprocessor.snippets]
harness = "$harness"
edition = "2024"
EOF
    printf '# Summary\n\n' >"$dir/src/SUMMARY.md"
    local chapter=0 i
    for ((i = 1; i <= count; i++)); do
        if (((i - 1) % 10 == 0)); then
            chapter=$((chapter + 1))
            printf -- '- [Chapter %d](ch%d.md)\n' "$chapter" "$chapter" >>"$dir/src/SUMMARY.md"
            printf '# Chapter %d\n' "$chapter" >"$dir/src/ch$chapter.md"
        fi
        {
            printf '\nSnippet %d.\n\n```rust\n' "$i"
            snippet_body "$i"
            if ((i == broken)); then echo 'let broken: u32 = "not a number";'; fi
            printf '```\n\n```text,output\n%d\n```\n' "$i"
        } >>"$dir/src/ch$chapter.md"
    done
}

# make_doctests DIR NAME ATTRIBUTES
make_doctests() {
    local dir=$1 name=$2 attributes=$3 i
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
mcp-testserver-harness = { path = "$harness" }
tokio = { version = "1", features = ["full", "test-util"] }
serde_json = "1"

[workspace]

[profile.dev]
debug = "line-tables-only"
EOF
    cp "$harness_lock" "$dir/Cargo.lock"
    {
        echo '//! The benchmark snippets as doctests.'
        for ((i = 1; i <= count; i++)); do
            printf '\n/// Snippet %d.\n///\n/// ```%s\n' "$i" "$attributes"
            echo '/// # use mcp_testserver::prelude::*;'
            echo '/// # fn main() { mcp_testserver::snippet_main(|| async move {'
            snippet_body "$i" | sed 's|^|/// |'
            echo '/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())'
            echo '/// # }) }'
            echo '/// ```'
            printf 'pub fn snippet_%d() {}\n' "$i"
        done
    } >"$dir/src/lib.rs"
}

# time_it, median, record_ratio, forget_generated: shared with the other benchmarks.
source "$repo/scripts/bench-common.sh"

# edit_snippet INDEX VALUE: a new edit of snippet INDEX of book-green: its code gains a line
# (`let edited = VALUE;`), its output stays the same.
edit_snippet() {
    local chapter
    chapter="$work/book-green/src/ch$((($1 + 9) / 10)).md"
    sed -i "s|^\\(let edited = [0-9]*; \\)\\?let summary = json!({ \"snippet\": $1,|let edited = $2; let summary = json!({ \"snippet\": $1,|" \
        "$chapter"
    grep -q "let edited = $2;" "$chapter" || { echo "error: the edit of snippet $1 did not apply" >&2; exit 2; }
}

echo "generating $count snippets under $work" >&2
make_book "$work/book-warmup" 0
make_book "$work/book-green" 0
make_book "$work/book-broken" $(((count + 1) / 2))
make_doctests "$work/doctests-merged" bench-doctests-merged ""
make_doctests "$work/doctests-standalone" bench-doctests-standalone ",standalone_crate"

echo "warm-up: building dependencies (not timed)" >&2
"$tool" test --quiet "$work/book-warmup" >"$work/warmup.log" 2>&1 \
    || { tail -n 30 "$work/warmup.log" >&2; exit 2; }
(cd "$work/doctests-merged" && cargo build --quiet --lib)
(cd "$work/doctests-standalone" && cargo build --quiet --lib)

edited=$(((count + 2) / 3))
for ((run = 1; run <= runs; run++)); do
    echo "run $run of $runs" >&2
    # The two sides of the main comparison run back to back, in alternating order.
    if ((run % 2)); then
        forget_generated
        time_it cold 0 "$tool" test --quiet --no-cache "$work/book-green"
        time_it doctests 0 bash -c "cd '$work/doctests-merged' && cargo test --doc --quiet"
    else
        time_it doctests 0 bash -c "cd '$work/doctests-merged' && cargo test --doc --quiet"
        forget_generated
        time_it cold 0 "$tool" test --quiet --no-cache "$work/book-green"
    fi
    record_ratio cold_vs_doctests cold doctests
    time_it warm 0 "$tool" test --quiet "$work/book-green"
    edit_snippet "$edited" "$run"
    time_it edited 0 "$tool" test --quiet "$work/book-green"
    edit_snippet "$edited" "$((run + 1000))"
    time_it edited_again 0 "$tool" test --quiet "$work/book-green"
    forget_generated
    time_it broken 1 "$tool" test --quiet --no-cache "$work/book-broken"
    record_ratio broken_vs_cold broken cold
    # The runs alone (book-green is built: cargo has nothing to do), each containment in turn,
    # the order rotating run by run.
    # Untimed: the first run after an edit builds again.
    "$tool" test --quiet --no-cache "$work/book-green" >/dev/null 2>&1
    modes=(auto no-namespaces off)
    for ((m = 0; m < 3; m++)); do
        mode=${modes[$(((m + run) % 3))]}
        time_it "runs_$mode" 0 env MDBOOK_SNIPPETS_SANDBOX="$mode" \
            "$tool" test --quiet --no-cache --jobs 1 "$work/book-green"
    done
    time_it launcher_200 0 bash -c "for i in \$(seq 200); do '$tool' __sandbox --namespaces --landlock --writable /tmp -- /bin/true; done"
    # shellcheck disable=SC2016 # the inner shell's loop.
    time_it direct_200 0 bash -c 'for i in $(seq 200); do /bin/true; done'
done
for ((run = 1; run <= slow_runs; run++)); do
    time_it per_snippet 0 bash -c "cd '$work/doctests-standalone' && cargo test --doc --quiet"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
cold=$(median cold)
printf '\n%s snippets, %s cores, %s; medians of %s runs (per-snippet: %s)\n\n' \
    "$count" "$(nproc)" "$(rustc --version)" "$runs" "$slow_runs"
printf '| %-52s | %8s | %-36s |\n' "run" "seconds" "ratio"
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..54})" "$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..38})"
row() { printf '| %-52s | %8s | %-36s |\n' "$1" "$2" "$3"; }
row "mdbook-snippets test, cold (no cache)" "$cold" "1.00"
row "cargo test --doc, 2024 merged doctests" "$(median doctests)" \
    "cold / this = $(median cold_vs_doctests) (target <= 1)"
if ((slow_runs > 0)); then
    row "one compile per snippet (standalone doctests)" "$(median per_snippet)" \
        "this / cold = $(ratio "$(median per_snippet)" "$cold") (target >= 5)"
else
    row "one compile per snippet (standalone doctests)" "-" "not measured (BENCH_SLOW_RUNS=0)"
fi
row "mdbook-snippets test, unchanged book (warm)" "$(median warm)" "target < 1 s"
row "mdbook-snippets test, one snippet edited" "$(median edited)" "first edit after the cold run"
row "mdbook-snippets test, the same snippet edited again" "$(median edited_again)" \
    "incremental from then on"
row "mdbook-snippets test, one broken snippet" "$(median broken)" \
    "this / cold = $(median broken_vs_cold) (target <= 1.5)"
per_snippet() { awk -v a="$1" -v b="$2" -v n="$count" 'BEGIN { printf "%+.1f ms per snippet", (a - b) * 1000 / n }'; }
off=$(median runs_off)
row "runs only (--jobs 1), pid namespace + landlock" "$(median runs_auto)" "$(per_snippet "$(median runs_auto)" "$off") against subreaper"
row "runs only (--jobs 1), subreaper + landlock" "$(median runs_no-namespaces)" "$(per_snippet "$(median runs_no-namespaces)" "$off") against subreaper"
row "runs only (--jobs 1), subreaper launcher alone" "$off" "1.00"
row "200 x /bin/true through the launcher (namespaces + landlock)" "$(median launcher_200)" \
    "$(awk -v a="$(median launcher_200)" -v b="$(median direct_200)" 'BEGIN { printf "%+.1f ms per start", (a - b) * 1000 / 200 }') against direct"
row "200 x /bin/true started directly" "$(median direct_200)" "1.00"
