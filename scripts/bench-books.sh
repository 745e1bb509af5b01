#!/usr/bin/env bash
# The benchmark of books shaped like public ones (issue 12, "Speed"), side by side in one run:
#
# 1. A std-only book of N snippets (default 300, 10 a chapter) in the shapes real books have:
#    short programs with and without `fn main`, `?` with a typed `Ok`, hidden lines,
#    `should_panic`, `no_run`, `compile_fail,E0308`, `ignore`, `crate::` paths and
#    `{{#include}}`d listings. Timed: `mdbook test` (rustdoc, one compile per snippet in
#    edition 2021) against `mdbook-snippets test --no-cache` cold (same verdicts: both must
#    pass), the unchanged book (warm), and one edited snippet.
# 2. A `dependencies` book (tokio + serde_json): 60 async snippets in 6 chapters, each with its
#    own `#[tokio::main] async fn main`, against `cargo test --doc` of the same snippets as 2024
#    merged doctests (same lock, same `[profile.dev]`, dependencies built before timing).
#    And the verification step alone, with the dependencies built: the same book with hidden
#    `# extern crate` lines (rustdoc finds a crate of a `-L` directory only so) under
#    `mdbook test -L` of the dependencies' directory, against `mdbook-snippets test --no-cache`,
#    in edition BENCH_L_EDITION (default 2024, merged by rustdoc per chapter; 2021 and older, as
#    most public books, compile each block on its own).
# 3. A broken book (issue 34): BENCH_BROKEN snippets (default 90, 10 a chapter, edition 2021)
#    of which two thirds do not compile (type errors, unclosed delimiters, syntax errors,
#    unknown names, mixed), against `mdbook test` (both exit non-zero, on the same blocks), cold
#    and warm (every verdict, failures included, from the cache).
#
# Each figure is the median of BENCH_RUNS runs (default 3), the two sides of each comparison
# back to back in alternating order; ratios are medians of per-run ratios. Each is given as wall
# time and as CPU time (user + system of every process the command waited for): on a machine
# other work shares, wall time depends on that work, CPU time much less.
#
# Usage: scripts/bench-books.sh [N]
#   BENCH_DIR    the work directory (default target/bench-books)
#   BENCH_BOOKS  which books: `std deps broken` (default), or any of them
#   BENCH_BROKEN the broken book's snippet count (default 90)
#   BENCH_L_EDITION  the edition of the `mdbook test -L` book (default 2024)
#   BENCH_BESIDE=1  one other build running beside the timed commands, the whole time: a loop
#                of `cargo build --offline` (default jobs) of a fixed crate (a package that
#                depends on the deps book's tokio and serde_json, this repository's lock) in a
#                target dir of its own, removed before each build, so it always compiles. It
#                starts before the first timed run and stops at the end; the load average
#                is printed with the figures.
#   BENCH_BASELINE  another mdbook-snippets executable (an older build, say) timed on the std
#                and deps books beside this one, cold, in the same runs (`std_base`,
#                `deps_base`), to compare two builds of the verifier side by side
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
count=${1:-300}
runs=${BENCH_RUNS:-3}
work=${BENCH_DIR:-$repo/target/bench-books}
books=${BENCH_BOOKS:-std deps broken}
broken_count=${BENCH_BROKEN:-90}
l_edition=${BENCH_L_EDITION:-2024}
want() { [[ " $books " == *" $1 "* ]]; }
want std || want deps || want broken \
    || { echo "error: BENCH_BOOKS names none of std, deps, broken: '$books'" >&2; exit 2; }
export CARGO_TERM_COLOR=never
export PATH="$HOME/.cargo/bin:$PATH"
command -v mdbook >/dev/null || { echo "error: mdbook not found (scripts/install-mdbook.sh)" >&2; exit 2; }

echo "building mdbook-snippets (release)" >&2
cargo build --release --quiet --bin mdbook-snippets
tool=${CARGO_TARGET_DIR:-$repo/target}/release/mdbook-snippets
baseline=${BENCH_BASELINE:-}
if [[ -n $baseline ]]; then
    baseline=$(realpath "$baseline")
    [[ -x $baseline ]] || { echo "error: BENCH_BASELINE is not an executable: $baseline" >&2; exit 2; }
fi

export CARGO_TARGET_DIR=$work/target
source "$repo/scripts/bench-common.sh"
rm -rf "$work/std-book" "$work/deps-book" "$work/deps-doctests" "$work/deps-l-book" \
    "$work/deps-l-mdbook" "$work/broken-book"
mkdir -p "$work"

# std_snippet I: the I-th snippet of the std book, with its fence, and an expected block when
# it prints something checkable. Ten shapes, in turn.
std_snippet() {
    local i=$1
    case $((i % 10)) in
    0) printf '```rust\nstruct Point { x: i32, y: i32 }\nimpl Point { fn sum(&self) -> i32 { self.x + self.y } }\nfn main() {\n    let p = Point { x: %d, y: 1 };\n    println!("{}", p.sum());\n}\n```\n\n```text,output\n%d\n```\n' "$i" "$((i + 1))" ;;
    1) printf '```rust\nlet v: Vec<u32> = (0..%d).collect();\nlet total: u32 = v.iter().sum();\nprintln!("total {}", total);\n```\n' "$i" ;;
    2) printf '```rust,should_panic\nlet v = vec![1, 2, 3];\nlet _ = v[%d];\n```\n' "$((i + 3))" ;;
    3) printf '```rust,no_run\nuse std::net::TcpListener;\nfn main() {\n    let listener = TcpListener::bind("127.0.0.1:%d").unwrap();\n    for stream in listener.incoming() { let _ = stream; }\n}\n```\n' "$((7000 + i))" ;;
    4) printf '```rust,compile_fail,E0308\nlet n: u32 = "snippet %d";\n```\n' "$i" ;;
    5) printf '```rust\nmod shapes {\n    pub mod circle {\n        pub(in crate::shapes) fn area(r: f64) -> f64 { 3.0 * r * r }\n        pub fn describe(r: f64) -> String { format!("{:.1}", area(r)) }\n    }\n}\nuse crate::shapes::circle::describe;\nfn main() { println!("{}", describe(%d.0)); }\n```\n' "$i" ;;
    6) printf '```rust\n{{#include ../listings/l%d.rs}}\n```\n' "$i" ;;
    7) printf '```rust\n# use std::num::ParseIntError;\nlet n: u32 = "%d".parse()?;\nassert_eq!(n, %d);\nOk::<(), ParseIntError>(())\n```\n' "$i" "$i" ;;
    8) printf '```rust\n# fn helper(n: u64) -> u64 { (1..=n).product() }\nlet f = helper(%d);\nassert!(f > 0);\n```\n' "$((i % 15 + 1))" ;;
    9) printf '```rust,ignore\nthis is not %d lines of Rust\n```\n' "$i" ;;
    esac
}

make_std_book() {
    local dir=$1 chapter=0 i
    mkdir -p "$dir/src" "$dir/listings"
    printf '[book]\ntitle = "bench"\n\n[rust]\nedition = "2021"\n' >"$dir/book.toml"
    printf '# Summary\n\n' >"$dir/src/SUMMARY.md"
    for ((i = 1; i <= count; i++)); do
        if (((i - 1) % 10 == 0)); then
            chapter=$((chapter + 1))
            printf -- '- [Chapter %d](ch%d.md)\n' "$chapter" "$chapter" >>"$dir/src/SUMMARY.md"
            printf '# Chapter %d\n' "$chapter" >"$dir/src/ch$chapter.md"
        fi
        if ((i % 10 == 6)); then
            printf 'use std::collections::HashMap;\nfn main() {\n    let mut m = HashMap::new();\n    m.insert("k", %d);\n    println!("{:?}", m.get("k"));\n}\n' "$i" >"$dir/listings/l$i.rs"
        fi
        { printf '\nSnippet %d.\n\n' "$i"; std_snippet "$i"; } >>"$dir/src/ch$chapter.md"
    done
}

# broken_snippet I: the I-th snippet of the broken book: one in three compiles and runs.
broken_snippet() {
    local i=$1
    case $((i % 6)) in
    0 | 3) printf '```rust
let kept: Vec<u32> = (0..%d).collect();
assert_eq!(kept.len(), %d);
```
' "$i" "$i" ;;
    1) printf '```rust
let wrong: u32 = "snippet %d";
```
' "$i" ;;
    2) printf '```rust
fn f() {
    let pair = (1, %d;
}
```
' "$i" ;;
    4) printf '```rust
let missing = ;
println!("%d");
```
' "$i" ;;
    5) printf '```rust
println!("{}", not_defined_%d);
```
' "$i" ;;
    esac
}

make_broken_book() {
    local dir=$1 chapter=0 i
    mkdir -p "$dir/src"
    printf '[book]\ntitle = "bench"\n\n[rust]\nedition = "2021"\n' >"$dir/book.toml"
    printf '# Summary\n\n' >"$dir/src/SUMMARY.md"
    for ((i = 1; i <= broken_count; i++)); do
        if (((i - 1) % 10 == 0)); then
            chapter=$((chapter + 1))
            printf -- '- [Chapter %d](ch%d.md)\n' "$chapter" "$chapter" >>"$dir/src/SUMMARY.md"
            printf '# Chapter %d\n' "$chapter" >"$dir/src/ch$chapter.md"
        fi
        { printf '\nSnippet %d.\n\n' "$i"; broken_snippet "$i"; } >>"$dir/src/ch$chapter.md"
    done
}

# The async snippet I, with its own runtime.
async_body() {
    cat <<EOF
#[tokio::main]
async fn main() {
    let (tx, mut rx) = tokio::sync::mpsc::channel(8);
    tokio::spawn(async move {
        for n in 0..$(($1 % 5 + 2)) { tx.send(n).await.unwrap(); }
    });
    let mut seen = Vec::new();
    while let Some(n) = rx.recv().await { seen.push(n); }
    let value = serde_json::json!({ "snippet": $1, "seen": seen });
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    println!("{}", serde_json::to_string(&value).unwrap());
}
EOF
}

make_deps_book() {
    local dir=$1 chapter=0 i
    mkdir -p "$dir/src"
    cat >"$dir/book.toml" <<EOF
[book]
title = "bench"

[rust]
edition = "2024"

[preprocessor.snippets.dependencies]
tokio = { version = "1", features = ["full"] }
serde_json = "1"
EOF
    printf '# Summary\n\n' >"$dir/src/SUMMARY.md"
    for ((i = 1; i <= 60; i++)); do
        if (((i - 1) % 10 == 0)); then
            chapter=$((chapter + 1))
            printf -- '- [Chapter %d](ch%d.md)\n' "$chapter" "$chapter" >>"$dir/src/SUMMARY.md"
            printf '# Chapter %d\n' "$chapter" >"$dir/src/ch$chapter.md"
        fi
        { printf '\nSnippet %d.\n\n```rust\n' "$i"; async_body "$i"; printf '```\n'; } >>"$dir/src/ch$chapter.md"
    done
}

# The dependencies book with `# extern crate` lines (DIR), and DIR's chapters under a book.toml
# without the preprocessor (MDBOOK_DIR), for `mdbook test -L`.
make_deps_l_book() {
    local dir=$1 mdbook_dir=$2
    make_deps_book "$dir"
    sed -i 's|^#\[tokio::main\]$|# extern crate tokio;\n# extern crate serde_json;\n#[tokio::main]|' \
        "$dir"/src/ch*.md
    mkdir -p "$mdbook_dir"
    ln -s "$dir/src" "$mdbook_dir/src"
    sed -i "s/^edition = \"2024\"$/edition = \"$l_edition\"/" "$dir/book.toml"
    printf '[book]\ntitle = "bench"\n\n[rust]\nedition = "%s"\n' "$l_edition" \
        >"$mdbook_dir/book.toml"
}

make_deps_doctests() {
    local dir=$1 i
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "bench-deps-doctests"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tokio = { version = "1", features = ["full"] }
serde_json = "1"

[workspace]

# As this repository's (the workspace the bench book lives in, whose profiles the generated
# crate copies).
[profile.dev]
debug = "line-tables-only"
EOF
    {
        echo '//! The async benchmark snippets as doctests.'
        for ((i = 1; i <= 60; i++)); do
            printf '\n/// Snippet %d.\n///\n/// ```\n' "$i"
            async_body "$i" | sed 's|^|/// |'
            echo '/// ```'
            printf 'pub fn snippet_%d() {}\n' "$i"
        done
    } >"$dir/src/lib.rs"
}

echo "generating the books under $work" >&2
make_std_book "$work/std-book"
make_deps_book "$work/deps-book"
make_deps_doctests "$work/deps-doctests"
make_deps_l_book "$work/deps-l-book" "$work/deps-l-mdbook"
make_broken_book "$work/broken-book"

if want deps; then
    echo "warm-up: building dependencies, and the doctests' first run (not timed)" >&2
    "$tool" test --quiet "$work/deps-book" >"$work/warmup.log" 2>&1 \
        || { tail -n 30 "$work/warmup.log" >&2; exit 2; }
    # The bench books live in this repository's workspace, so the generated crate starts from its
    # lock; the doctests do too, so both sides use the same versions and dependency artifacts.
    cp "$repo/Cargo.lock" "$work/deps-doctests/Cargo.lock"
    (cd "$work/deps-doctests" && cargo build --quiet --lib && cargo test --doc --quiet >/dev/null)
    # `mdbook test -L DIR` refuses a crate with two candidates in DIR (E0464), and the shared
    # target dir keeps every build of tokio it ever made (other feature sets, older verifiers):
    # DIR holds just the doctests' own dependencies, linked from cargo's list of them.
    deps_dir=$work/l-deps
    rm -rf "$deps_dir"
    mkdir -p "$deps_dir"
    (cd "$work/deps-doctests" && cargo build --quiet --lib --message-format=json) \
        | python3 -c 'import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact":
        for name in message["filenames"]:
            if name.endswith((".rlib", ".rmeta", ".so")):
                print(name)' \
        | xargs -r ln -sf -t "$deps_dir"
    (cd "$work/deps-l-mdbook" && mdbook test -L "$deps_dir" >"$work/warmup-l.log" 2>&1) \
        || { tail -n 30 "$work/warmup-l.log" >&2; exit 2; }
fi

# The build beside (BENCH_BESIDE=1): a package of its own, its own target dir, in a session of
# its own so that the whole loop (cargo, its rustc processes) stops with it.
beside_pid=
stop_beside() {
    if [[ -n $beside_pid ]]; then
        kill -TERM -- "-$beside_pid" 2>/dev/null || true
        wait "$beside_pid" 2>/dev/null || true
        beside_pid=
    fi
}
trap stop_beside EXIT
if [[ ${BENCH_BESIDE:-0} == 1 ]]; then
    beside=$work/beside
    rm -rf "$beside"
    mkdir -p "$beside/src"
    printf '[package]\nname = "bench-beside"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\ntokio = { version = "1", features = ["full"] }\nserde_json = "1"\n\n[workspace]\n' \
        >"$beside/Cargo.toml"
    printf 'fn main() {\n    println!("{}", serde_json::json!({ "beside": true }));\n}\n' \
        >"$beside/src/main.rs"
    cp "$repo/Cargo.lock" "$beside/Cargo.lock"
    echo "starting the build beside (a loop of cargo build in $beside)" >&2
    setsid bash -c "cd '$beside' && while :; do rm -rf target; CARGO_TARGET_DIR=target cargo build --offline --quiet >>'$work/beside.log' 2>&1 || sleep 1; echo built >>'$work/beside.log'; done" &
    beside_pid=$!
    # Until it compiles steadily.
    sleep 10
fi

edit_std_snippet() {
    sed -i "s|^let v: Vec<u32> = (0..11)\\(\\.collect();.*\\)\\?$|let v: Vec<u32> = (0..11).collect(); // edit $1|" "$work/std-book/src/ch2.md"
    grep -q "// edit $1" "$work/std-book/src/ch2.md" || { echo "error: the edit did not apply" >&2; exit 2; }
}

for ((run = 1; run <= runs; run++)); do
    echo "run $run of $runs" >&2
    if want std; then
        # The baseline first: its cache (keyed by its executable) is not this build's, so the
        # warm and edited runs below must follow this build's cold run.
        if [[ -n $baseline ]]; then
            forget_generated
            time_it std_base 0 "$baseline" test --quiet --no-cache "$work/std-book"
        fi
        if ((run % 2)); then
            time_it mdbook_test 0 bash -c "cd '$work/std-book' && mdbook test"
            forget_generated
            time_it std_cold 0 "$tool" test --quiet --no-cache "$work/std-book"
        else
            forget_generated
            time_it std_cold 0 "$tool" test --quiet --no-cache "$work/std-book"
            time_it mdbook_test 0 bash -c "cd '$work/std-book' && mdbook test"
        fi
        record_ratio std_ratio std_cold mdbook_test
        record_ratio std_ratio_cpu std_cold_cpu mdbook_test_cpu
        if [[ -n $baseline ]]; then
            record_ratio std_base_ratio std_base mdbook_test
            record_ratio std_base_ratio_cpu std_base_cpu mdbook_test_cpu
        fi
        time_it std_warm 0 "$tool" test --quiet "$work/std-book"
        edit_std_snippet "$run"
        time_it std_edited 0 "$tool" test --quiet "$work/std-book"
        edit_std_snippet "$((run + 1000))"
        time_it std_edited_again 0 "$tool" test --quiet "$work/std-book"
    fi

    if want deps; then
        deps_ours() {
            forget_generated
            time_it deps_cold 0 "$tool" test --quiet --no-cache "$work/deps-book"
        }
        deps_base() {
            if [[ -n $baseline ]]; then
                forget_generated
                time_it deps_base 0 "$baseline" test --quiet --no-cache "$work/deps-book"
            fi
        }
        deps_doctests() {
            time_it deps_doctests 0 bash -c "cd '$work/deps-doctests' && cargo test --doc --quiet"
        }
        # The doctests between the two builds of the verifier, which swap places each run.
        if ((run % 2)); then
            deps_ours
            deps_doctests
            deps_base
        else
            deps_base
            deps_doctests
            deps_ours
        fi
        record_ratio deps_ratio deps_cold deps_doctests
        record_ratio deps_ratio_cpu deps_cold_cpu deps_doctests_cpu
        if [[ -n $baseline ]]; then
            record_ratio deps_base_ratio deps_base deps_doctests
            record_ratio deps_base_ratio_cpu deps_base_cpu deps_doctests_cpu
        fi
        mdbook_l() {
            time_it deps_mdbook_l 0 bash -c "cd '$work/deps-l-mdbook' && mdbook test -L '$deps_dir'"
        }
        if ((run % 2)); then
            mdbook_l
            forget_generated
            time_it deps_l_cold 0 "$tool" test --quiet --no-cache "$work/deps-l-book"
        else
            forget_generated
            time_it deps_l_cold 0 "$tool" test --quiet --no-cache "$work/deps-l-book"
            mdbook_l
        fi
        record_ratio deps_l_ratio deps_l_cold deps_mdbook_l
        record_ratio deps_l_ratio_cpu deps_l_cold_cpu deps_mdbook_l_cpu
    fi

    if want broken; then
        # `mdbook test` exits 101 when a block fails, mdbook-snippets 1.
        if ((run % 2)); then
            time_it broken_mdbook 101 bash -c "cd '$work/broken-book' && mdbook test"
            forget_generated
            time_it broken_cold 1 "$tool" test --quiet --no-cache "$work/broken-book"
        else
            forget_generated
            time_it broken_cold 1 "$tool" test --quiet --no-cache "$work/broken-book"
            time_it broken_mdbook 101 bash -c "cd '$work/broken-book' && mdbook test"
        fi
        record_ratio broken_ratio broken_cold broken_mdbook
        record_ratio broken_ratio_cpu broken_cold_cpu broken_mdbook_cpu
        time_it broken_warm 1 "$tool" test --quiet "$work/broken-book"
    fi
done

load_at_end=$(cut -d' ' -f1-3 /proc/loadavg)
builds_beside=
if [[ -n $beside_pid ]]; then
    builds_beside=$(grep -c '^built$' "$work/beside.log" || true)
    stop_beside
fi
printf '\n%s; %s cores, load average %s at the end; %s; medians of %s runs\n' "$books" \
    "$(nproc)" "$load_at_end" "$(rustc --version)" "$runs"
if [[ -n $builds_beside ]]; then
    printf 'with one other build beside (BENCH_BESIDE=1): %s builds of the fixed crate finished\n' \
        "$builds_beside"
fi
if [[ -n $baseline ]]; then
    printf 'baseline (BENCH_BASELINE): %s\n' "$baseline"
fi
row() { printf '| %-52s | %7s | %7s | %-44s |\n' "$1" "$2" "$3" "$4"; }
both() { printf '%s wall, %s CPU' "$(median "$1")" "$(median "$1_cpu")"; }
header() {
    printf '\n'
    row "run" "wall s" "CPU s" "ratio (wall, CPU)"
    printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..54})" "$(printf -- '-%.0s' {1..9})" \
        "$(printf -- '-%.0s' {1..9})" "$(printf -- '-%.0s' {1..46})"
}
header
if want std; then
    passed=$(grep -o '[0-9]* passed, [0-9]* failed.*' "$work/std_cold.log" | tail -n 1)
    row "std book ($count snippets): mdbook test (rustdoc)" "$(median mdbook_test)" \
        "$(median mdbook_test_cpu)" ""
    row "std book: mdbook-snippets test, cold (no cache)" "$(median std_cold)" \
        "$(median std_cold_cpu)" "/ mdbook test: $(both std_ratio) (<= 0.25)"
    if [[ -n $baseline ]]; then
        row "std book: the baseline, cold (no cache)" "$(median std_base)" \
            "$(median std_base_cpu)" "/ mdbook test: $(both std_base_ratio)"
    fi
    row "std book: unchanged (warm)" "$(median std_warm)" "$(median std_warm_cpu)" "target < 1 s"
    row "std book: one snippet edited, first edit after cold" "$(median std_edited)" \
        "$(median std_edited_cpu)" "target < 1 s"
    row "std book: the same snippet edited again" "$(median std_edited_again)" \
        "$(median std_edited_again_cpu)" "target < 1 s"
    printf '\nstd book, cold: %s\n' "$passed"
fi
if want deps; then
    row "deps book: cargo test --doc, 2024 merged doctests" "$(median deps_doctests)" \
        "$(median deps_doctests_cpu)" ""
    row "deps book: mdbook-snippets test, cold (no cache)" "$(median deps_cold)" \
        "$(median deps_cold_cpu)" "/ doctests: $(both deps_ratio) (<= 1.0)"
    if [[ -n $baseline ]]; then
        row "deps book: the baseline, cold (no cache)" "$(median deps_base)" \
            "$(median deps_base_cpu)" "/ doctests: $(both deps_base_ratio)"
    fi
    row "deps book, extern crate, $l_edition: mdbook test -L" "$(median deps_mdbook_l)" \
        "$(median deps_mdbook_l_cpu)" ""
    row "the same: mdbook-snippets test, cold (no cache)" "$(median deps_l_cold)" \
        "$(median deps_l_cold_cpu)" "/ mdbook test -L: $(both deps_l_ratio) (<= 0.5)"
fi
if want broken; then
    row "broken book ($broken_count, 2/3 fail): mdbook test" "$(median broken_mdbook)" \
        "$(median broken_mdbook_cpu)" ""
    row "broken book: mdbook-snippets test, cold (no cache)" "$(median broken_cold)" \
        "$(median broken_cold_cpu)" "/ mdbook test: $(both broken_ratio) (<= 1.0)"
    row "broken book: unchanged (warm)" "$(median broken_warm)" "$(median broken_warm_cpu)" \
        "target < 1 s"
    printf '\nbroken book: %s; mdbook test: %s\n' \
        "$(grep -o '[0-9]* passed, [0-9]* failed.*' "$work/broken_cold.log" | tail -n 1)" \
        "$(grep -o 'test result: .*' "$work/broken_mdbook.log" | awk '{ p += $4; f += $6 } END { print p " passed, " f " failed" }')"
fi
