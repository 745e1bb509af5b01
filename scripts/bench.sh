#!/usr/bin/env bash
# The speed benchmark of the issue ("Speed"): generates a book of N harness snippets (tokio +
# serde_json + the harness crate `snippets/`, lib `mcp_testserver`; N=100 by default) and times,
# side by side in one run and one target dir:
#   cold        `mdbook-snippets test --no-cache` on a fresh copy of the book
#   doctests    `cargo test --doc` of the same snippets as 2024-edition merged doctests
#   per-snippet the same doctests marked `standalone_crate`: one compile per snippet, the model of
#               `mdbook test` and mdbook-keeper
#   warm        `mdbook-snippets test` again on the unchanged book
#   one broken  `mdbook-snippets test --no-cache` on a fresh copy with one snippet broken
# Dependencies are built before anything is timed (a warm-up that is not measured), so every
# figure is the cost of the snippets themselves. Prints a table of times and ratios.
#
# Usage: scripts/bench.sh [N]        (BENCH_DIR overrides the work directory)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
count=${1:-100}
work=${BENCH_DIR:-$repo/target/bench}
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
harness = "$repo/snippets"
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
mcp-testserver = { path = "$repo/snippets" }
tokio = { version = "1", features = ["full", "test-util"] }
serde_json = "1"

[workspace]

[profile.dev]
debug = "line-tables-only"
EOF
    cp "$repo/Cargo.lock" "$dir/Cargo.lock"
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

# time_it LABEL EXPECTED_EXIT COMMAND...: runs COMMAND, records its wall time in seconds.
declare -A seconds
time_it() {
    local label=$1 expected=$2
    shift 2
    echo "timing: $label" >&2
    local start end status=0
    start=$(date +%s.%N)
    "$@" >"$work/$label.log" 2>&1 || status=$?
    end=$(date +%s.%N)
    if [[ $status != "$expected" ]]; then
        echo "error: $label exited with $status (expected $expected); see $work/$label.log" >&2
        tail -n 30 "$work/$label.log" >&2
        exit 2
    fi
    seconds[$label]=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
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

time_it cold 0 "$tool" test --quiet --no-cache "$work/book-green"
time_it warm 0 "$tool" test --quiet "$work/book-green"
time_it broken 1 "$tool" test --quiet --no-cache "$work/book-broken"
time_it doctests 0 bash -c "cd '$work/doctests-merged' && cargo test --doc --quiet"
time_it per_snippet 0 bash -c "cd '$work/doctests-standalone' && cargo test --doc --quiet"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '\n%s snippets, %s cores, %s\n\n' "$count" "$(nproc)" "$(rustc --version)"
printf '| %-48s | %8s | %-30s |\n' "run" "seconds" "ratio"
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..50})" "$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..32})"
row() { printf '| %-48s | %8s | %-30s |\n' "$1" "$2" "$3"; }
row "mdbook-snippets test, cold (no cache)" "${seconds[cold]}" "1.00"
row "cargo test --doc, 2024 merged doctests" "${seconds[doctests]}" \
    "cold / this = $(ratio "${seconds[cold]}" "${seconds[doctests]}") (target <= 1)"
row "one compile per snippet (standalone doctests)" "${seconds[per_snippet]}" \
    "this / cold = $(ratio "${seconds[per_snippet]}" "${seconds[cold]}") (target >= 5)"
row "mdbook-snippets test, unchanged book (warm)" "${seconds[warm]}" "target < 1 s"
row "mdbook-snippets test, one broken snippet" "${seconds[broken]}" \
    "this / cold = $(ratio "${seconds[broken]}" "${seconds[cold]}") (target <= 1.5)"
