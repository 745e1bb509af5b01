#!/usr/bin/env bash
# Builds the book (verifying every snippet) and opens it in headless Chromium: see browser/check.mjs,
# and browser/sdk-picker.mjs for the SDK version picker; then the language-tabs fixture book
# (tests/browser-fixtures/tabs): see browser/tabs.mjs; then the guide (guide/), served under
# SITE_PATH/guide/ as the Pages workflow publishes it: browser/guide.mjs.
# Installs what it needs: Debian's chromium, mdBook 0.5, and the pinned playwright-core.
# The site is built and served under a project sub-path, as GitHub Pages serves it
# (https://OWNER.github.io/REPO/), with `site-url` set the way the Pages workflow sets it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# CHROMIUM names a browser already there (CI runners ship Google Chrome); else Debian's chromium.
if [[ -z ${CHROMIUM:-} ]] && ! command -v chromium >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
scripts/install-mdbook.sh >/dev/null
(cd scripts/browser && npm ci --no-audit --no-fund --silent)
# BROWSER_CHECK_VERIFIER: a verifier binary to build the books with, in place of the `cargo run
# --bin mdbook-snippets` their book.toml files name (mdBook's MDBOOK_* overrides of book.toml).
# .ci/run gives it a copy of the one `cargo test` verified the books with, so that the package
# check, whose dry run rebuilds target/debug's verifier, can run beside this check. The llms
# override goes only to the two books that have that output: mdBook adds a renderer for an
# override of an output a book does not name, and the tabs fixture has none.
llms=()
if [[ -n ${BROWSER_CHECK_VERIFIER:-} ]]; then
    verifier=$BROWSER_CHECK_VERIFIER
    [[ -x $verifier ]] || { echo "browser-check: BROWSER_CHECK_VERIFIER=$verifier is no executable" >&2; exit 2; }
    export MDBOOK_PREPROCESSOR__SNIPPETS__COMMAND=$verifier
    llms=(env "MDBOOK_OUTPUT__LLMS__COMMAND=$verifier llms")
else
    cargo build --locked --bin mdbook-snippets
    verifier=$PWD/target/debug/mdbook-snippets
fi
site_path=${SITE_PATH:-/request-ids-book/}
# The picker's markup is generated from interop/history.json: the committed file must be current.
python3 interop/render_picker.py --check
MDBOOK_OUTPUT__HTML__SITE_URL=$site_path "${llms[@]}" mdbook build 2>&1 | tee target/mdbook-build.log
if grep -E 'WARN|ERROR' target/mdbook-build.log; then
    echo "mdbook build printed warnings" >&2
    exit 1
fi
# Two outputs (html, and llms for llms.txt): mdBook builds each into a directory of its own.
node scripts/browser/check.mjs target/book/html "$site_path"
# The SDK matrix chapter's grid at 1280 px (present, one cell per run, legend, no sideways scroll).
node scripts/browser/matrix-check.mjs target/book/html interop/expected.json
# The SDK version picker at 390 and 1280 px, then against broken copies of its script.
node scripts/browser/sdk-picker.mjs target/book/html "$site_path"
# Language tabs (book/theme/tabs.js) on a fixture book with Rust, Python and TypeScript groups:
# the real book has none yet. mdBook serves theme files only from inside a book, so the fixture is
# copied to the same depth under target/ with book/theme beside it, and built with the verifier.
fixture=target/browser-fixtures/tabs
rm -rf "$fixture"
mkdir -p "$(dirname "$fixture")"
cp -r tests/browser-fixtures/tabs "$fixture"
cp -r book/theme "$fixture/theme-files"
(cd "$fixture" && mdbook build) 2>&1 | tee target/mdbook-build-tabs.log
if grep -E 'WARN|ERROR' target/mdbook-build-tabs.log; then
    echo "mdbook build of the tabs fixture printed warnings" >&2
    exit 1
fi
node scripts/browser/tabs.mjs "$fixture/book"
# The guide: built with the verifier, its shell snippets running the binary built above (the one
# `cargo test` verified it with, so every result comes from the cache that run left).
guide_path=${site_path}guide/
GUIDE_MDBOOK_SNIPPETS=$verifier MDBOOK_OUTPUT__HTML__SITE_URL=$guide_path \
    "${llms[@]}" mdbook build guide 2>&1 | tee target/mdbook-build-guide.log
if grep -E 'WARN|ERROR' target/mdbook-build-guide.log; then
    echo "mdbook build of the guide printed warnings" >&2
    exit 1
fi
node scripts/browser/guide.mjs target/guide/html "$guide_path"
