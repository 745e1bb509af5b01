#!/usr/bin/env python3
"""Compares mdbook-snippets with rustdoc, the way `mdbook test` runs it, on any mdBook.

    scripts/compare-with-rustdoc.py BOOK_DIR [--tool PATH] [--timeout SECONDS]

1. `mdbook build` of the book with one extra preprocessor after `links` that writes every
   chapter as mdBook hands it over (directives expanded) to a scratch directory; the book's
   own book.toml is restored afterwards.
2. `rustdoc --test [--edition E] CHAPTER` on each of those files, as `mdbook test` does (no
   `--edition` when the book names none), with a time limit per chapter.
3. `mdbook-snippets test BOOK_DIR --no-cache --junit FILE` once.

A chapter mdBook hands over as written is compared block by block (the fence's line -> passed,
failed or skipped); one it changed (directives, the book's own preprocessors) by its counts,
since its lines moved, counting with it the snippets we report in the files it includes. Prints the differences and a
summary; exit 1 when anything differs. Needs `mdbook` and `rustdoc` on PATH; set
RUSTUP_TOOLCHAIN when the book pins a toolchain you do not have. Nothing here is run by CI: the
books are other people's, fetched by whoever compares.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

DUMP = """import json, os, sys
if len(sys.argv) > 1 and sys.argv[1] == "supports":
    sys.exit(0)
ctx, book = json.load(sys.stdin)
def walk(items):
    for item in items:
        chapter = item.get("Chapter") if isinstance(item, dict) else None
        if not chapter:
            continue
        if chapter.get("source_path"):
            path = os.path.join(os.environ["DUMP_DIR"], chapter["source_path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(chapter["content"])
        walk(chapter.get("sub_items", []))
walk(book.get("items", book.get("sections", [])))
json.dump(book, sys.stdout)
"""

VERDICT = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}


def expanded_chapters(book: Path, scratch: Path, src: str) -> Path:
    """Runs `mdbook build` with the dump preprocessor; returns the directory of the chapters."""
    script = scratch / "dump.py"
    script.write_text(DUMP)
    out = scratch / "chapters"
    manifest = book / "book.toml"
    original = manifest.read_text()
    extra = f'\n[preprocessor.compare-dump]\ncommand = "{sys.executable} {script}"\nafter = ["links"]\n'
    try:
        manifest.write_text(original + extra)
        env = dict(os.environ, DUMP_DIR=str(out / src))
        run = subprocess.run(["mdbook", "build", "-d", str(scratch / "html")], cwd=book, env=env, capture_output=True, text=True)
    finally:
        manifest.write_text(original)
    if not out.exists():
        sys.exit(f"mdbook build wrote no chapters:\n{run.stderr[-3000:]}")
    return out


def rustdoc_verdicts(chapter: Path, edition: str | None, timeout: int) -> dict[int, str] | None:
    command = ["rustdoc", "--test", chapter.name] + (["--edition", edition] if edition else [])
    try:
        stdout = subprocess.run(command, cwd=chapter.parent, capture_output=True, text=True, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None
    verdicts = {}
    for line in stdout.splitlines():
        found = re.search(r"\(line (\d+)\).* \.\.\. (ok|FAILED|ignored)$", line)
        if found:
            verdicts[int(found.group(1))] = VERDICT[found.group(2)]
    return verdicts


def our_verdicts(book: Path, tool: str, junit: Path) -> dict[str, dict[int, str]]:
    run = subprocess.run([tool, "test", str(book), "--quiet", "--no-cache", "--junit", str(junit)], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"mdbook-snippets could not verify the book (exit {run.returncode}):\n{run.stderr[-3000:]}")
    print("mdbook-snippets:", (run.stdout.strip().splitlines() or [""])[-1])
    verdicts: dict[str, dict[int, str]] = collections.defaultdict(dict)
    for case in junit.read_text().split("<testcase ")[1:]:
        name = case.split('"')[1]
        body = case.split("</testcase>")[0]
        verdict = "failed" if "<failure" in body else "skipped" if "<skipped" in body else "passed"
        path, line = name.rsplit(":", 1)
        if line.isdigit():
            verdicts[path][int(line)] = verdict
    return verdicts


INCLUDE = re.compile(r"\{\{\s*#(?:include|rustdoc_include|playground|playpen)\s+([^\s}:]+)")


def included_files(book: Path, chapter: Path, raw: str) -> set[str]:
    """The files a chapter's `{{#include}}`-like directives name, as our report names them
    (relative to the book root, `..` kept), followed one level into each included file."""
    found = set()
    for directive in INCLUDE.finditer(raw):
        target = chapter.parent / directive.group(1)
        if not target.is_file():
            continue
        found.add(os.path.relpath(os.path.normpath(target), book))
        text = target.read_text(errors="replace")
        for nested in INCLUDE.finditer(text):
            inner = target.parent / nested.group(1)
            if inner.is_file():
                found.add(os.path.relpath(os.path.normpath(inner), book))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--tool", default=str(Path(__file__).resolve().parent.parent / "target/release/mdbook-snippets"))
    parser.add_argument("--timeout", type=int, default=300, help="seconds rustdoc may take on one chapter")
    args = parser.parse_args()
    book = args.book.resolve()
    config = tomllib.loads((book / "book.toml").read_text())
    edition = config.get("rust", {}).get("edition")
    src = config.get("book", {}).get("src", "src")
    with tempfile.TemporaryDirectory(prefix="compare-rustdoc-") as scratch_dir:
        scratch = Path(scratch_dir)
        chapters = expanded_chapters(book, scratch, src)
        ours = our_verdicts(book, args.tool, scratch / "report.xml")
        tally = collections.Counter()
        differences = []
        for expanded in sorted(chapters.rglob("*.md")):
            relative = expanded.relative_to(chapters).as_posix()
            source = book / relative
            raw = source.read_text(errors="replace") if source.exists() else ""
            theirs = rustdoc_verdicts(expanded, edition, args.timeout)
            if theirs is None:
                tally["chapters rustdoc did not finish"] += 1
                continue
            mine = ours.get(relative, {})
            if expanded.read_text(errors="replace") != raw:
                # A snippet that an `{{#include}}` brought in is reported at the included file's
                # line (`../README.md:79`): count it with the chapter that includes it.
                counted = list(mine.values())
                for included in included_files(book, source, raw):
                    counted += ours.get(included, {}).values()
                same = collections.Counter(theirs.values()) == collections.Counter(counted)
                tally["chapters mdBook changed (directives, preprocessors), by counts, " + ("same" if same else "different")] += 1
                if not same:
                    differences.append(f"{relative}: rustdoc {dict(collections.Counter(theirs.values()))}, ours {dict(collections.Counter(counted))}")
                continue
            for line in sorted(set(theirs) | set(mine)):
                a, b = theirs.get(line), mine.get(line)
                tally[f"blocks: rustdoc {a}, ours {b}"] += 1
                if a != b:
                    differences.append(f"{relative}:{line}: rustdoc {a}, ours {b}")
    for key, count in sorted(tally.items()):
        print(f"  {key}: {count}")
    for difference in differences:
        print("  DIFF", difference)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
