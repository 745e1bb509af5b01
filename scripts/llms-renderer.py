#!/usr/bin/env python3
"""An mdBook 0.5 renderer for the llms.txt convention (https://llmstxt.org): writes `llms.txt` (the
book's title, description and an index of its chapters) and `llms-full.txt` (every chapter's
Markdown in reading order, as the preprocessors left it: with mdbook-snippets, each snippet's real
output and wire transcript as fenced text) beside the HTML pages.

It stands in for `mdbook-llms`, the renderer made for this, which this machine's crates.io mirror
does not carry; book.toml names it with `[output.llms] command = "scripts/llms-renderer.py"`, so
removing that one line switches to `mdbook-llms` (`cargo install --locked mdbook-llms`) with the
same output name, the same place for the files, and the same `site-url` key.

mdBook runs it with the RenderContext JSON on stdin (`version`, `root`, `book.items`, `config`,
`destination`). When the book also has `[output.html]`, the files go into the HTML renderer's
directory (`DESTINATION/../html`, which mdBook renders first: renderers run in name order), so they
are published beside the pages; else into `destination`. Links: `[output.llms] site-url`, else
`[output.html] site-url`, else relative to the output root; a chapter's links to other chapters
(`x.md#anchor`, `#anchor`) become links to their pages (`SITE/x.html#anchor`), so they resolve in a
text that holds every chapter. Only the Python standard library is used.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from pathlib import Path
from typing import Any

# A fence at the start of a line (after indentation and block-quote markers), and what follows it.
FENCE = re.compile(r"^[\s>]*(`{3,}|~{3,})(.*)$")
# An inline link's target: `](target)` or `](target "title")`.
LINK = re.compile(r"\]\((?P<target>[^()\s]+)(?P<title>\s+\"[^\"]*\")?\)")


def chapters(items: list[dict[str, Any]], depth: int = 0):
    """(depth, chapter) for every chapter with a page, in reading order; part titles as (None, title)."""
    for item in items:
        if item == "Separator":
            continue
        if "PartTitle" in item:
            yield None, item["PartTitle"]
            continue
        chapter = item.get("Chapter")
        if chapter is None:
            continue
        if chapter.get("path"):
            yield depth, chapter
        yield from chapters(chapter.get("sub_items", []), depth + 1)


def page_of(path: str) -> str:
    """The HTML page mdBook writes for a chapter's source path."""
    return re.sub(r"\.md$", ".html", path.replace("\\", "/"))


def rewrite_links(content: str, chapter_path: str, base: str) -> str:
    """Links relative to the chapter -> links to the pages, outside fenced code blocks."""
    directory = posixpath.dirname(chapter_path.replace("\\", "/"))
    page = page_of(chapter_path)

    def target(match: re.Match[str]) -> str:
        link = match.group("target")
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", link) or link.startswith("/"):
            return match.group(0)
        path, hash_sign, anchor = link.partition("#")
        if path == "":
            resolved = page
        else:
            resolved = posixpath.normpath(posixpath.join(directory, path))
            resolved = page_of(resolved) if resolved.endswith(".md") else resolved
        return f"]({base}{resolved}{hash_sign}{anchor}{match.group('title') or ''})"

    out, fence = [], None
    for line in content.split("\n"):
        found = FENCE.match(line)
        # A backtick fence's info string has no backtick (CommonMark), so a line that starts with
        # inline code such as ```` ```rust ```` opens no fence.
        if found and found.group(1)[0] == "`" and "`" in found.group(2):
            found = None
        if fence is None and found:
            fence = found.group(1)
        elif fence is not None:
            if found and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence) and not found.group(2).strip():
                fence = None
        else:
            line = LINK.sub(target, line)
        out.append(line)
    return "\n".join(out)


def header(config: dict[str, Any]) -> list[str]:
    book = config.get("book", {})
    lines = [f"# {book.get('title') or 'Book'}", ""]
    if book.get("description"):
        lines += [f"> {book['description']}", ""]
    return lines


def index(ctx: dict[str, Any], base: str) -> str:
    """The llms.txt convention: title, description, then `##` sections of links (the chapters
    before the first part title under "Chapters", each part under its title), then "Optional"."""
    sections: list[tuple[str, list[str]]] = [("Chapters", [])]
    for depth, chapter in chapters(ctx["book"]["items"]):
        if depth is None:
            sections.append((chapter, []))
        else:
            sections[-1][1].append(f"{'  ' * depth}- [{chapter['name']}]({base}{page_of(chapter['path'])})")
    sections.append(("Optional", [f"- [llms-full.txt]({base}llms-full.txt): every chapter above, in order, in one file"]))
    lines = header(ctx["config"]) + [f"The whole book in one Markdown file: [llms-full.txt]({base}llms-full.txt)."]
    for title, links in sections:
        if links:
            lines += ["", f"## {title}", ""] + links
    return "\n".join(lines) + "\n"


def full(ctx: dict[str, Any], base: str) -> str:
    parts = ["\n".join(header(ctx["config"])).rstrip("\n")]
    for depth, chapter in chapters(ctx["book"]["items"]):
        if depth is None:
            continue
        parts.append(rewrite_links(chapter["content"], chapter["path"], base).strip("\n"))
    return "\n\n".join(parts) + "\n"


def main() -> int:
    try:
        ctx = json.load(sys.stdin)
        config = ctx["config"]
        output = config.get("output", {})
        base = output.get("llms", {}).get("site-url") or output.get("html", {}).get("site-url") or ""
        if base and not base.endswith("/"):
            base += "/"
        destination = Path(ctx["destination"])
        if "html" in output:
            destination = destination.parent / "html"
            if not (destination / "index.html").is_file():
                raise RuntimeError(f"no HTML pages in {destination} to publish beside (the html renderer runs first)")
        destination.mkdir(parents=True, exist_ok=True)
        (destination / "llms.txt").write_text(index(ctx, base))
        (destination / "llms-full.txt").write_text(full(ctx, base))
    except (OSError, KeyError, ValueError, RuntimeError) as error:
        print(f"llms-renderer: error: {error}", file=sys.stderr)
        return 1
    print(f"llms-renderer: wrote {destination / 'llms.txt'} and llms-full.txt", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
