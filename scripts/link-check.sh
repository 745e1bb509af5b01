#!/usr/bin/env bash
# Checks every internal link and anchor of the built book, offline, with lychee (pinned, from
# PyPI: scripts/ci-tools/lychee.txt); lists the external links without fetching them.
#
#   scripts/link-check.sh [BOOK_HTML_DIR [SITE_PATH]]    default: target/book /request-ids-book/
#
# The site is checked where it is served, under SITE_PATH (as scripts/browser-check.sh builds it),
# so the root-relative links of the 404 page resolve too. Before trusting a clean result, the same
# check runs on two copies of one page, one with a link to a missing page and one with a link to
# a missing anchor, and must fail on each, naming it. Exit 1 on a broken link, 2 if the check
# itself could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
book=${1:-target/book}
site_path=${2:-/request-ids-book/}
[[ -f $book/index.html ]] || { echo "link-check: error: no built book at $book (run mdbook build)" >&2; exit 2; }
[[ $site_path == /*/ || $site_path == / ]] || { echo "link-check: error: SITE_PATH must start and end with /" >&2; exit 2; }
lychee="$(scripts/ci-tool.sh lychee)/lychee"
work=target/link-check
rm -rf "$work"
mkdir -p "$work"

# check SITE_ROOT: lychee on the site staged under SITE_ROOT$site_path; its report goes to
# $work/report.txt. Only file links are followed (--offline); fragments are checked in HTML.
check() {
    "$lychee" --offline --include-fragments --no-progress --mode plain \
        --root-dir "$(realpath "$1")" --index-files index.html \
        "$1$site_path" >"$work/report.txt" 2>&1
}
# stage DIR: DIR$site_path is a copy of the book.
stage() {
    mkdir -p "$1$site_path"
    cp -R "$book/." "$1$site_path"
}

# The check has teeth: one broken link, then one broken anchor, each must fail and be named.
chapters=()
for file in "$book"/*.html; do
    case ${file##*/} in 404.html | print.html | toc.html | index.html) ;; *) chapters+=("${file##*/}") ;; esac
done
((${#chapters[@]} >= 2)) || { echo "link-check: error: the book has fewer than two chapter pages" >&2; exit 2; }
page=${chapters[0]}
target=${chapters[1]}
for broken in "no-such-page.html" "$target#no-such-anchor"; do
    stage "$work/planted"
    sed -i "0,/<main>/s||<main><a href=\"$broken\">planted</a>|" "$work/planted$site_path$page"
    grep -q "href=\"$broken\"" "$work/planted$site_path$page" || { echo "link-check: error: could not plant $broken in $page" >&2; exit 2; }
    if check "$work/planted"; then
        cat "$work/report.txt" >&2
        echo "link-check: error: lychee passed a book with a link to $broken" >&2
        exit 2
    fi
    grep -qF "$broken" "$work/report.txt" || { cat "$work/report.txt" >&2; echo "link-check: error: lychee failed without naming $broken" >&2; exit 2; }
    echo "link-check: a planted link to $broken fails, as it must"
    rm -rf "$work/planted"
done

stage "$work/site"
status=0
check "$work/site" || status=$?
cat "$work/report.txt"
if [[ $status -ne 0 ]]; then
    echo "link-check: broken internal links or anchors in $book (see above)" >&2
    exit 1
fi

# External links: listed for a reader of the CI log, never fetched (CI has no network).
"$lychee" --dump --root-dir "$(realpath "$work/site")" "$work/site$site_path"*.html >"$work/dump.txt" 2>"$work/dump.log" \
    || { cat "$work/dump.log" >&2; echo "link-check: error: lychee --dump failed" >&2; exit 2; }
{ grep -E '^https?://' "$work/dump.txt" || true; } | sort -u >"$work/external.txt"
echo "link-check: $(wc -l <"$work/external.txt") external links, not fetched ($work/external.txt):"
sed 's/^/  /' "$work/external.txt"
