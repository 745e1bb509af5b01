#!/usr/bin/env bash
# Checks every internal link and anchor of the built book, offline, with lychee (pinned, from
# PyPI: scripts/ci-tools/lychee.txt); lists the external links without fetching them. The pages,
# and the two files for coding assistants beside them (llms.txt, llms-full.txt: book.toml's
# [output.llms]), which must be there: lychee reads a `.txt` as plain text, finding only full URLs,
# so each is checked as Markdown through a `.md` copy in the staged site.
#
#   scripts/link-check.sh [BOOK_HTML_DIR [SITE_PATH]]    default: target/book/html /request-ids-book/
#
# The site is checked where it is served, under SITE_PATH (as scripts/browser-check.sh builds it),
# so the root-relative links of the 404 page resolve too. Before trusting a clean result, the same
# check runs on two copies of one page, one with a link to a missing page and one with a link to
# a missing anchor, and must fail on each, naming it; so must a copy of llms-full.txt with a link
# to a missing page. Exit 1 on a broken link or a missing llms file, 2 if the check itself could
# not run.
set -euo pipefail
cd "$(dirname "$0")/.."
book=${1:-target/book/html}
site_path=${2:-/request-ids-book/}
[[ -f $book/index.html ]] || { echo "link-check: error: no built book at $book (run mdbook build)" >&2; exit 2; }
[[ $site_path == /*/ || $site_path == / ]] || { echo "link-check: error: SITE_PATH must start and end with /" >&2; exit 2; }
llms_files=(llms.txt llms-full.txt)
for file in "${llms_files[@]}"; do
    [[ -s $book/$file ]] || { echo "link-check: error: no $file beside the pages in $book (book.toml's [output.llms])" >&2; exit 1; }
done
lychee="$(scripts/ci-tool.sh lychee)/lychee"
work=target/link-check
rm -rf "$work"
mkdir -p "$work"

# check SITE_ROOT: lychee on the site staged under SITE_ROOT$site_path; its report goes to
# $work/report.txt. Only file links are followed (--offline); fragments are checked in HTML. The
# llms files themselves are left out: as plain text lychee would take every URL in their code
# blocks (`file:///notes.txt` in a snippet) for a link; their `.md` copies are checked instead.
check() {
    "$lychee" --offline --include-fragments --no-progress --mode plain \
        --exclude-path '/llms(-full)?\.txt$' \
        --root-dir "$(realpath "$1")" --index-files index.html \
        "$1$site_path" >"$work/report.txt" 2>&1
}
# stage DIR: DIR$site_path is a copy of the book, with a Markdown copy of each llms file.
stage() {
    mkdir -p "$1$site_path"
    cp -R "$book/." "$1$site_path"
    for file in "${llms_files[@]}"; do cp "$book/$file" "$1$site_path$file.md"; done
}

# The check has teeth: one broken link, then one broken anchor, each must fail and be named.
chapters=()
for file in "$book"/*.html; do
    case ${file##*/} in 404.html | print.html | toc.html | index.html) ;; *) chapters+=("${file##*/}") ;; esac
done
((${#chapters[@]} >= 2)) || { echo "link-check: error: the book has fewer than two chapter pages" >&2; exit 2; }
page=${chapters[0]}
target=${chapters[1]}
for broken in "no-such-page.html" "$target#no-such-anchor" "no-such-chapter.html"; do
    stage "$work/planted"
    if [[ $broken == no-such-chapter.html ]]; then
        printf '\n[planted](%s)\n' "$broken" >>"$work/planted${site_path}llms-full.txt.md"
        grep -qF "]($broken)" "$work/planted${site_path}llms-full.txt.md" || { echo "link-check: error: could not plant $broken in llms-full.txt" >&2; exit 2; }
    else
        sed -i "0,/<main>/s||<main><a href=\"$broken\">planted</a>|" "$work/planted$site_path$page"
        grep -q "href=\"$broken\"" "$work/planted$site_path$page" || { echo "link-check: error: could not plant $broken in $page" >&2; exit 2; }
    fi
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

# The llms files were checked with the pages: say how many of their links lychee saw, so a file
# whose links it did not see (none at all) cannot pass unnoticed.
for file in "${llms_files[@]}"; do
    "$lychee" --dump --root-dir "$(realpath "$work/site")" "$work/site$site_path$file.md" >"$work/dump-$file.txt" 2>"$work/dump.log" \
        || { cat "$work/dump.log" >&2; echo "link-check: error: lychee --dump $file failed" >&2; exit 2; }
    links=$(grep -c . "$work/dump-$file.txt" || true)
    ((links > 0)) || { echo "link-check: error: lychee sees no link in $file" >&2; exit 1; }
    echo "link-check: $file: $links links, checked with the pages"
done

# External links: listed for a reader of the CI log, never fetched (CI has no network).
"$lychee" --dump --root-dir "$(realpath "$work/site")" "$work/site$site_path"*.html >"$work/dump.txt" 2>"$work/dump.log" \
    || { cat "$work/dump.log" >&2; echo "link-check: error: lychee --dump failed" >&2; exit 2; }
{ grep -E '^https?://' "$work/dump.txt" || true; } | sort -u >"$work/external.txt"
echo "link-check: $(wc -l <"$work/external.txt") external links, not fetched ($work/external.txt):"
sed 's/^/  /' "$work/external.txt"
