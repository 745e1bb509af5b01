#!/usr/bin/env python3
"""Builds any mdBook with and without mdbook-snippets and compares the HTML of every page.

    scripts/compare-html.py BOOK_DIR [--tool PATH] [--keep DIR]

Both builds run the real `mdbook build` with the book's own book.toml; the only change is the
`snippets` preprocessor: on in one build (`[preprocessor.snippets]` with `after = ["links"]` is
appended to a copy of book.toml when the book has none, and restored afterwards), off in the
other (`MDBOOK_PREPROCESSOR__SNIPPETS__RENDERERS=[]`, which mdBook reads as "run it for no
renderer"). The preprocessor is run as `--tool` (default target/release/mdbook-snippets), put
first on PATH as `mdbook-snippets`.

Every `.html` file of the two outputs is compared after the outputs the preprocessor inserts
(`<div class="mdbook-snippets-output">...</div>`) are taken out of the first: the pages must then
be identical, byte for byte, but for the search index's hashed file name. Other files (the search index holds the inserted text) are listed
when they differ, not counted as a difference. Prints, for each build, what mdBook's playground
features left in the pages: Run buttons (`<pre class="playground">`), editors (`editable` on a
runnable block), edition
classes, hidden lines (`<span class="boring">`). Exit 0 when every page is the same, 1 when one
differs, 2 when a build fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

# An inserted output, with the blank line that ends its HTML block.
INSERTED = re.compile(r'<div class="mdbook-snippets-output">.*?</div>\n\n?', re.S)
# The search index holds the inserted text, so its hashed file name differs on every page.
SEARCH_INDEX = re.compile(r"searchindex-[0-9a-f]+\.js")
FEATURES = {
    "Run buttons": re.compile(r'<pre class="playground">'),
    # An editor is only made for a runnable block.
    "editable": re.compile(r'<pre class="playground"><code class="[^"]*\beditable\b'),
    "edition classes": re.compile(r'<code class="[^"]*\bedition20\d\d\b'),
    "hidden lines": re.compile(r'<span class="boring">'),
}


def build(book: Path, out: Path, tool_dir: Path, preprocessor_on: bool) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{tool_dir}{os.pathsep}{env.get('PATH', '')}"
    env["MDBOOK_BUILD__BUILD_DIR"] = str(out)
    if not preprocessor_on:
        env["MDBOOK_PREPROCESSOR__SNIPPETS__RENDERERS"] = "[]"
    run = subprocess.run(["mdbook", "build"], cwd=book, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        state = "with" if preprocessor_on else "without"
        print(f"mdbook build {state} the preprocessor failed:\n{run.stderr[-4000:]}", file=sys.stderr)
        sys.exit(2)
    summary = [line for line in run.stderr.splitlines() if line.startswith("mdbook-snippets:")]
    if summary:
        print(summary[-1])


def html_root(out: Path) -> Path:
    """Where the html renderer wrote: `out/html` when the book has several renderers."""
    return out / "html" if (out / "html" / "index.html").exists() else out


def count(root: Path) -> dict[str, int]:
    totals = dict.fromkeys(FEATURES, 0)
    for page in root.rglob("*.html"):
        text = page.read_text(errors="replace")
        for name, pattern in FEATURES.items():
            totals[name] += len(pattern.findall(text))
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    repo = Path(__file__).resolve().parent.parent
    parser.add_argument("--tool", type=Path, default=repo / "target/release/mdbook-snippets")
    parser.add_argument("--keep", type=Path, help="write the two outputs here instead of a temp dir")
    args = parser.parse_args()
    book = args.book.resolve()
    if not args.tool.is_file():
        sys.exit(f"{args.tool} not found (cargo build --release --bin mdbook-snippets, or --tool)")
    if shutil.which("mdbook") is None:
        sys.exit("mdbook not found on PATH (scripts/install-mdbook.sh)")

    manifest = book / "book.toml"
    original = manifest.read_text()
    has_preprocessor = "snippets" in tomllib.loads(original).get("preprocessor", {})
    with tempfile.TemporaryDirectory(prefix="compare-html-") as scratch:
        scratch = Path(scratch)
        tool_dir = scratch / "bin"
        tool_dir.mkdir()
        (tool_dir / "mdbook-snippets").symlink_to(args.tool.resolve())
        outputs = args.keep.resolve() if args.keep else scratch
        with_out, without_out = outputs / "with", outputs / "without"
        for out in (with_out, without_out):
            shutil.rmtree(out, ignore_errors=True)
        try:
            if not has_preprocessor:
                manifest.write_text(original + '\n[preprocessor.snippets]\nafter = ["links"]\n')
            build(book, with_out, tool_dir, True)
            build(book, without_out, tool_dir, False)
        finally:
            manifest.write_text(original)

        with_root, without_root = html_root(with_out), html_root(without_out)
        pages = sorted(p.relative_to(without_root) for p in without_root.rglob("*.html"))
        differing, inserted = [], 0
        for page in pages:
            rendered = (with_root / page).read_text(errors="replace") if (with_root / page).exists() else None
            plain = (without_root / page).read_text(errors="replace")
            if rendered is None:
                differing.append(f"{page}: missing from the build with the preprocessor")
                continue
            inserted += len(INSERTED.findall(rendered))
            if SEARCH_INDEX.sub("searchindex.js", INSERTED.sub("", rendered)) != SEARCH_INDEX.sub("searchindex.js", plain):
                differing.append(str(page))
        others = sorted(
            p.relative_to(without_root)
            for p in without_root.rglob("*")
            if p.is_file() and p.suffix != ".html"
            and (not (with_root / p.relative_to(without_root)).exists()
                 or (with_root / p.relative_to(without_root)).read_bytes() != p.read_bytes())
        )

        print(f"{'':16} {'without':>8} {'with':>8}")
        before, after = count(without_root), count(with_root)
        for name in FEATURES:
            print(f"{name:16} {before[name]:>8} {after[name]:>8}")
        print(f"{len(pages)} pages, {inserted} inserted outputs, {len(differing)} page(s) differ otherwise")
        for page in differing:
            print(f"  differs: {page}")
        for path in others:
            print(f"  other file differs (expected for the search index): {path}")
        changed_features = [name for name in FEATURES if before[name] != after[name]]
        for name in changed_features:
            print(f"  {name}: {before[name]} without the preprocessor, {after[name]} with it")
        return 1 if differing or changed_features else 0


if __name__ == "__main__":
    sys.exit(main())
