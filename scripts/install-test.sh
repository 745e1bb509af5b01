#!/usr/bin/env bash
# The verifier as an author would get it: `cargo install --path .` and
# `cargo install --git <repository> mdbook-snippets` (a local file:// repository), each
# into its own root; then the guide's first steps (guide/src/first-book.md), followed with each
# installed binary on a fresh book outside this repository, whose book.toml is the guide's
# complete example (guide/src/configuration.md), so the guide cannot drift from what works; and
# `mdbook-snippets install` then the CI chapter's steps (guide/src/ci.md) on a plain mdBook in the
# docs/ folder of a Cargo workspace.
#
#   scripts/install-test.sh
#
# Both installs build in this workspace's target/ (release), so the second reuses the first's
# dependencies and compiles only mdbook-snippets itself (the release test server shares few of
# them: a fresh clone's first install compiled serde, clap, toml, pulldown-cmark, landlock and the
# rest of the verifier's own).
# .ci/run runs it in the background at nice 10 (`background --nice 10`, which also sets its
# session's own nice: under the kernel's autogroup a plain `nice -n` counts only within a session).
# Needs mdBook 0.5 on PATH (scripts/install-mdbook.sh). Exit 1 on a failed expectation.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR=never
work=$(mktemp -d "${TMPDIR:-/tmp}/mdbook-snippets-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "install-test: FAIL $*" >&2; exit 1; }
step() { echo "install-test: $*"; }

# The repository as it is on disk (committed or not, untracked files included, ignored ones not),
# as a git repository of its own, for `cargo install --git`.
step "snapshot of the working tree as a git repository"
mkdir "$work/repo"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    [[ -e $file || -L $file ]] && printf '%s\0' "$file"
done | tar --null -T - -cf - | tar -xf - -C "$work/repo"
git -C "$work/repo" init -q -b main
git -C "$work/repo" add -A
git -C "$work/repo" -c user.name=install-test -c user.email=install-test@localhost commit -q -m snapshot

step "cargo install --path ."
cargo install --quiet --locked --offline --path . --root "$work/from-path" --target-dir "$repo/target"
# Not --offline: cargo refuses any git checkout offline, even from a file:// repository. The
# repository is local; the dependencies come from the lock file and cargo's cache (at most the
# crates.io index is asked about them).
step "cargo install --git file://$work/repo mdbook-snippets"
cargo install --quiet --locked --git "file://$work/repo" mdbook-snippets \
    --root "$work/from-git" --target-dir "$repo/target"

# The guide's complete book.toml (guide/src/configuration.md), exactly as printed there: the TOML
# block after its install-test marker.
guide_page=guide/src/configuration.md
guide_toml=$(awk '/<!-- install-test:/ { section = 1; next }
    section && /^```toml/ { block = 1; next }
    block && /^```/ { exit }
    block { print }' "$guide_page")
grep -q '^\[preprocessor.snippets\]' <<<"$guide_toml" || fail "no TOML block with [preprocessor.snippets] after the install-test marker of $guide_page"

# run EXPECTED_EXIT LOG COMMAND...: runs COMMAND with its output in LOG; fails unless it exits
# with EXPECTED_EXIT.
run() {
    local expected=$1 log=$2 status=0
    shift 2
    "$@" >"$log" 2>&1 || status=$?
    if [[ $status != "$expected" ]]; then
        cat "$log" >&2
        fail "\`$*\` exited $status, expected $expected"
    fi
}
expect_line() { grep -qxF -- "$2" "$1" || { cat "$1" >&2; fail "no line \"$2\" in the output above"; }; }
expect_text() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "no \"$2\" in $1"; }; }

check_book() {
    local bin_dir=$1 book=$2
    local tool=$bin_dir/mdbook-snippets
    mkdir -p "$book/src"
    printf '%s\n' "$guide_toml" >"$book/book.toml"
    printf '# Summary\n\n- [Chapter](chapter.md)\n' >"$book/src/SUMMARY.md"
    # The guide's `dependencies` table names a local crate, `packages/helper`: the book has one.
    mkdir -p "$book/packages/helper/src"
    printf '[package]\nname = "helper"\nversion = "0.1.0"\nedition = "2021"\n' \
        >"$book/packages/helper/Cargo.toml"
    printf 'pub fn greeting() -> &%sstatic str {\n    "hello from helper"\n}\n' "'" \
        >"$book/packages/helper/src/lib.rs"
    cat >"$book/src/chapter.md" <<'EOF'
# Chapter

A snippet and the output it must print:

```rust
# fn square(x: u32) -> u32 { x * x }
let answer = square(6) + 6;
println!("the answer is {answer}");
```

```text,output
the answer is 42
```

A snippet that must panic:

```rust,should_panic
let empty: Vec<u32> = Vec::new();
let _ = empty[0];
```

A snippet with its own `main`, using the guide's `dependencies` (tokio, serde_json, helper):

```rust
#[tokio::main]
async fn main() {
    let greeting = tokio::spawn(async { helper::greeting() }).await.unwrap();
    println!("{}", serde_json::json!({ "greeting": greeting }));
}
```

```text,output
{"greeting":"hello from helper"}
```
EOF

    run 0 "$book/version.log" "$tool" --version
    expect_text "$book/version.log" "mdbook-snippets"

    # `mdbook-snippets test [BOOK_DIR]`: exit 0 and the closing line.
    run 0 "$book/pass.log" "$tool" test "$book"
    expect_line "$book/pass.log" "3 passed, 0 failed"

    # A wrong expectation: exit 1, reported at the chapter's line.
    sed -i 's/^the answer is 42$/the answer is 41/' "$book/src/chapter.md"
    run 1 "$book/fail.log" "$tool" test "$book"
    expect_line "$book/fail.log" "2 passed, 1 failed"
    expect_text "$book/fail.log" "test src/chapter.md:5 ... FAILED"
    expect_text "$book/fail.log" "src/chapter.md:5 (output differs, src_chapter_md_1, error at line 11)"
    expect_text "$book/fail.log" "mdbook-snippets test --bless"

    # `--bless` rewrites the expected block (the run itself still reports the failure it fixed,
    # exit 1); the book passes again.
    run 1 "$book/bless.log" "$tool" test --bless "$book"
    expect_text "$book/bless.log" "blessed the expected output in src/chapter.md"
    grep -qx 'the answer is 42' "$book/src/chapter.md" || fail "--bless did not rewrite the expected output"
    run 0 "$book/again.log" "$tool" test "$book"
    expect_line "$book/again.log" "3 passed, 0 failed"

    # As the preprocessor (`command = "mdbook-snippets"` on PATH): the page shows the real output.
    run 0 "$book/build.log" env PATH="$bin_dir:$PATH" mdbook build "$book"
    expect_text "$book/book/chapter.html" "mdbook-snippets-stdout"
    expect_text "$book/book/chapter.html" "the answer is 42"
    expect_text "$book/book/chapter.html" "hello from helper"

    # A tool error (no book there): exit 2.
    run 2 "$book/missing.log" "$tool" test "$book/no-such-book"

    # `install` on a plain mdBook in docs/ of a Cargo workspace, then the CI chapter's steps from
    # the workspace's root (guide/src/install.md, guide/src/ci.md).
    local project=$book-project
    mkdir -p "$project/docs/src"
    printf '[workspace]\nmembers = []\n' >"$project/Cargo.toml"
    printf '[book]\ntitle = "docs"  # a comment install keeps\n' >"$project/docs/book.toml"
    printf '# Summary\n\n- [A](a.md)\n' >"$project/docs/src/SUMMARY.md"
    printf '# A\n\n```rust\nprintln!("hi");\n```\n\n```text,output\nhi\n```\n' >"$project/docs/src/a.md"
    run 0 "$project/dry-run.log" "$tool" install --dry-run "$project/docs"
    [[ ! -e $project/docs/mdbook-snippets.css ]] || fail "install --dry-run wrote the stylesheet"
    run 0 "$project/install.log" "$tool" install "$project/docs"
    expect_text "$project/docs/book.toml" 'title = "docs"  # a comment install keeps'
    expect_text "$project/docs/book.toml" 'additional-css = ["mdbook-snippets.css"]'
    cmp -s "$project/docs/mdbook-snippets.css" "$repo/book/theme/snippets.css" || fail "install wrote another stylesheet"
    run 0 "$project/again.log" "$tool" install "$project/docs"
    expect_text "$project/again.log" "already has mdbook-snippets: nothing to do"
    (cd "$project" && run 0 "$project/test.log" "$tool" test docs --junit target/snippets.xml)
    [[ -s $project/target/snippets.xml ]] || fail "--junit target/snippets.xml wrote nothing"
    (cd "$project" && run 0 "$project/mdbook.log" env PATH="$bin_dir:$PATH" mdbook build docs)
    expect_text "$project/docs/book/a.html" "mdbook-snippets-stdout"
    # mdBook 0.5 copies the stylesheet under a name with its hash, and links it from each page.
    grep -q 'href="mdbook-snippets-[0-9a-f]*\.css"' "$project/docs/book/a.html" \
        || fail "mdbook build did not link the stylesheet install added"
}

step "the guide's first steps with the binary from --path"
check_book "$work/from-path/bin" "$work/book-path"
step "the guide's first steps with the binary from --git"
# Its books build in the first book's target dir (CARGO_TARGET_DIR, which the verifier honours):
# tokio and serde_json are built once for both installs, not once each.
CARGO_TARGET_DIR="$work/book-path/target" check_book "$work/from-git/bin" "$work/book-git"
step "2 installs, each verified a fresh book as the guide describes: 0 failed"
