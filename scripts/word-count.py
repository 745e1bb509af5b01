#!/usr/bin/env python3
"""Counts the words a reader sees on the book's pages, as a browser shows them.

Reads the HTML `mdbook build` wrote (`target/book/html/`, or `target/book/` for a book with the
HTML renderer only), one page per chapter that `book/SUMMARY.md` links to, and counts the words
of each page's `<main>`, leaving out what a reader does not see at first glance:

- hidden lines (mdBook's `<span class="boring">`, Rust `# ` and the other languages' `!!!` lines),
- run outputs, transcripts and diagrams (the verifier's `<div class="mdbook-snippets-output">`,
  and any `<details>`, `<img>`, `<svg>`),
- scripts and styles, and the SDK version picker's controls (`<div class="sdk-picker">`), which
  are the page's furniture, not its text.

Visible code counts: what a reader reads in a block is part of the page. A word is a run of
non-space characters with at least one letter or digit (`{`, `=>` and `|` alone are not words).
Every page SUMMARY.md links to counts, the generated ones (`sdk-matrix`, `claims`) too: readers
open them.

    mdbook build && python3 scripts/word-count.py            # a table per page, then the total
    python3 scripts/word-count.py --max 26000                # exits 1 above the limit
    python3 scripts/word-count.py --html DIR --summary PATH  # another build or book

Exit codes: 0 counted (and under `--max`), 1 over `--max`, 2 a page is missing or unreadable.
"""

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

# Elements whose whole content a reader does not see at first glance.
SKIPPED_TAGS = {"details", "script", "style", "svg", "img", "template", "noscript"}
SKIPPED_CLASSES = {"boring", "mdbook-snippets-output", "mdbook-snippets-failure", "sdk-picker"}
VOID_TAGS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
}
# Elements that end a word: their text never runs into the next element's.
BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
    "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
    "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
    "ul",
}
WORD = re.compile(r"\S+")
HAS_LETTER_OR_DIGIT = re.compile(r"[^\W_]", re.UNICODE)


class VisibleText(HTMLParser):
    """Collects the text inside `<main>` that is not inside a skipped element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, skipped) for every open element
        self.in_main = 0
        self.parts = []

    def skipping(self):
        return any(skipped for _, skipped in self.stack)

    def handle_starttag(self, tag, attrs):
        if tag in BLOCK_TAGS:
            self.parts.append(" ")
        if tag in VOID_TAGS:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES)
        self.stack.append((tag, skipped))
        if tag == "main":
            self.in_main += 1

    def handle_endtag(self, tag):
        if tag in BLOCK_TAGS:
            self.parts.append(" ")
        if tag in VOID_TAGS:
            return
        # Close up to the matching element (HTML lets some end tags be implied).
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                break
        if tag == "main":
            self.in_main -= 1

    def handle_data(self, data):
        if self.in_main > 0 and not self.skipping():
            self.parts.append(data)

    def text(self):
        return "".join(self.parts)


def words(html):
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return [w for w in WORD.findall(parser.text()) if HAS_LETTER_OR_DIGIT.search(w)]


def chapters(summary):
    """The chapter files SUMMARY.md links to, in order, each once."""
    names = []
    for name in re.findall(r"\]\(([^)#\s]+\.md)\)", summary.read_text(encoding="utf-8")):
        if name not in names:
            names.append(name)
    return names


def main():
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--html", type=Path, default=None,
                        help="the built book's HTML (default: target/book/html, where mdBook writes "
                        "it beside another renderer's output, else target/book)")
    parser.add_argument("--summary", type=Path, default=root / "book" / "SUMMARY.md",
                        help="the book's SUMMARY.md (default: book/SUMMARY.md)")
    parser.add_argument("--max", type=int, help="exit 1 when the total is above this")
    arguments = parser.parse_args()
    if arguments.html is None:
        built = root / "target" / "book"
        arguments.html = built / "html" if (built / "html").is_dir() else built

    total = 0
    rows = []
    for name in chapters(arguments.summary):
        page = arguments.html / (name[: -len(".md")] + ".html")
        try:
            html = page.read_text(encoding="utf-8")
        except OSError as error:
            print(f"word-count: error: reading {page}: {error} (run `mdbook build` first)",
                  file=sys.stderr)
            return 2
        count = len(words(html))
        rows.append((name, count))
        total += count
    width = max((len(name) for name, _ in rows), default=0)
    for name, count in rows:
        print(f"{name:<{width}}  {count:>6}")
    print(f"{'total':<{width}}  {total:>6}")
    if arguments.max is not None and total > arguments.max:
        print(f"word-count: {total} words, more than --max {arguments.max}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
