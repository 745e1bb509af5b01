#!/usr/bin/env python3
"""Lists every normative sentence (MUST, MUST NOT, SHOULD, SHOULD NOT, MAY, ...) of the spec pages
the book covers, by location, and checks the book's ledger against the spec text.

The spec is not part of this repository: pass a checkout of modelcontextprotocol/modelcontextprotocol
(a work tree, or a bare git directory whose HEAD is read with `git show`).

    scripts/spec-coverage.py --spec DIR list            # one line per sentence: location, keywords
    scripts/spec-coverage.py --spec DIR check           # book/ledger/coverage.toml lists exactly those
                                                        # sentences (same fingerprints), and every
                                                        # `quote` in book/ledger/claims.toml is the
                                                        # spec's exact words on the page it names
    scripts/spec-coverage.py --spec DIR skeleton        # coverage.toml entries for sentences it lacks

A location is `REVISION/PAGE#SECTION:N`: the N-th normative sentence under the section heading whose
slug is SECTION. The fingerprint is the first 12 hex digits of SHA-256 over the sentence with its
Markdown emphasis removed and whitespace collapsed, so a reworded sentence is noticed without the
sentence being copied here. Exit 0 when the check holds, 1 when it does not, 2 on a usage error.
"""

import argparse
import hashlib
import pathlib
import re
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
LEDGER = ROOT / "book" / "ledger"

# What the book covers (issue 18): cancellation, progress, the id rules of the base protocol,
# tasks in 2025-11-25 and the tasks extension of 2026-07-28, and the cancellation parts of both
# transport pages. `sections` keeps only sentences under those headings (and their sub-headings);
# `mentions` keeps only sentences that mention one of those words.
SCOPE = [
    ("2025-11-25", "basic/index", {"sections": ["requests", "responses"]}),
    ("2025-11-25", "basic/utilities/cancellation", {}),
    ("2025-11-25", "basic/utilities/progress", {}),
    ("2025-11-25", "basic/utilities/tasks", {}),
    ("2025-11-25", "basic/transports", {"mentions": ["cancel", "disconnect"]}),
    ("2026-07-28", "basic/index", {"sections": ["requests", "responses"]}),
    ("2026-07-28", "basic/patterns/cancellation", {}),
    ("2026-07-28", "basic/patterns/progress", {}),
    ("2026-07-28", "basic/transports/stdio", {"sections": ["cancellation"]}),
    ("2026-07-28", "basic/transports/streamable-http",
     {"sections": ["cancellation"], "mentions": ["cancel", "disconnect"]}),
    ("2026-07-28", "seps/2663-tasks-extension", {"sections": ["specification"]}),
]

KEYWORD = re.compile(
    r"\*\*(MUST NOT|MUST|SHOULD NOT|SHOULD|MAY|REQUIRED|SHALL NOT|SHALL|RECOMMENDED|OPTIONAL)\*\*")


def page_path(revision, page):
    if page.startswith("seps/"):
        return f"docs/{page}.mdx"
    return f"docs/specification/{revision}/{page}.mdx"


def read_page(spec, revision, page):
    rel = page_path(revision, page)
    if (spec / rel).is_file():
        return (spec / rel).read_text(encoding="utf-8")
    result = subprocess.run(["git", "-C", str(spec), "show", f"HEAD:{rel}"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"spec-coverage: error: cannot read {rel} in {spec}: {result.stderr.strip()}")
    return result.stdout


def slug(heading):
    """mdBook's and the spec site's heading id: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return re.sub(r"\s", "-", text)


def normalize(sentence):
    text = re.sub(r"[*_`]", "", sentence)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def fingerprint(sentence):
    return hashlib.sha256(normalize(sentence).encode()).hexdigest()[:12]


def statements(text):
    """Yields (heading path, statement) for every paragraph or top-level list item outside code."""
    headings = []
    block = []
    in_code = False

    def flush():
        if block:
            joined = " ".join(line.strip() for line in block)
            block.clear()
            if joined:
                yield list(headings), joined

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            yield from flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        match = re.match(r"^(#+)\s+(.*)$", line)
        if match:
            yield from flush()
            level = len(match.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, slug(match.group(2)))]
            continue
        if not line.strip() or line.startswith("<") or line.startswith("---"):
            yield from flush()
            continue
        # A new top-level list item starts a new statement; nested items stay with their parent.
        if re.match(r"^(\d+\.|[-*])\s", line):
            yield from flush()
        block.append(line)
    yield from flush()


def sentences(statement):
    """Splits a statement into sentences, keeping a list item whole (its sub-items complete it)."""
    if re.match(r"^(\d+\.|[-*])\s", statement) or re.search(r"\s[-*]\s", statement):
        return [statement]
    return [part for part in re.split(r"(?<=[.!?])\s+(?=[A-Z`*])", statement) if part]


def normative(spec):
    """Every in-scope normative sentence: (location, keywords, fingerprint, text)."""
    found = []
    for revision, page, scope in SCOPE:
        text = read_page(spec, revision, page)
        # A heading that recurs on the page (the tasks extension's several `Response` sections)
        # is named with its parent's slug: `task-cancellation/response`.
        heading_slugs = [slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)]
        counters = {}
        for heading_path, statement in statements(text):
            slugs = [s for _, s in heading_path]
            if "sections" in scope and not any(s in scope["sections"] for s in slugs):
                in_sections = False
            else:
                in_sections = "sections" in scope
            for sentence in sentences(statement):
                words = KEYWORD.findall(sentence)
                if not words:
                    continue
                mentions = scope.get("mentions")
                mentioned = bool(mentions) and any(w in sentence.lower() for w in mentions)
                if "sections" in scope:
                    if not (in_sections or mentioned):
                        continue
                elif mentions and not mentioned:
                    continue
                section = slugs[-1] if slugs else "top"
                if len(slugs) > 1 and heading_slugs.count(section) > 1:
                    section = f"{slugs[-2]}/{section}"
                key = (revision, page, section)
                counters[key] = counters.get(key, 0) + 1
                location = f"{revision}/{page}#{section}:{counters[key]}"
                keywords = sorted(set(words), key=words.index)
                found.append((location, keywords, fingerprint(sentence), sentence))
    return found


def quote_found(spec, revision, page, quote):
    text = normalize(read_page(spec, revision, page))
    return normalize(quote) in text


def load_toml(path):
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def check(spec):
    problems = []
    found = {location: (keywords, digest) for location, keywords, digest, _ in normative(spec)}
    coverage = load_toml(LEDGER / "coverage.toml").get("sentence", [])
    listed = {}
    for entry in coverage:
        at = entry.get("at", "?")
        if at in listed:
            problems.append(f"coverage.toml: {at} is listed twice")
        listed[at] = entry
        if at not in found:
            problems.append(f"coverage.toml: {at} is no normative sentence of the spec now")
        elif entry.get("fingerprint") != found[at][1]:
            problems.append(f"coverage.toml: {at}: the spec's sentence changed "
                            f"(fingerprint {found[at][1]}, listed {entry.get('fingerprint')})")
    for at in found:
        if at not in listed:
            problems.append(f"coverage.toml: {at} ({', '.join(found[at][0])}) is not listed")
    claims = load_toml(LEDGER / "claims.toml").get("claim", [])
    quotes = 0
    for claim in claims:
        source = claim.get("source", {})
        if "quote" in source:
            quotes += 1
            if not quote_found(spec, source["revision"], source["page"], source["quote"]):
                problems.append(f"claims.toml: {claim['id']}: the quote is not the words of "
                                f"{source['revision']} {source['page']}: {source['quote']!r}")
    for problem in problems:
        print(problem)
    print(f"{len(found)} normative sentences in scope, {len(listed)} listed, "
          f"{quotes} quotes checked, {len(problems)} problems")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, type=pathlib.Path,
                        help="a checkout (or git directory) of modelcontextprotocol/modelcontextprotocol")
    parser.add_argument("command", choices=["list", "check", "skeleton"])
    args = parser.parse_args()
    if args.command == "list":
        for location, keywords, digest, sentence in normative(args.spec):
            print(f"{location}\t{'/'.join(keywords)}\t{digest}\t{normalize(sentence)[:100]}")
        return 0
    if args.command == "skeleton":
        listed = set()
        path = LEDGER / "coverage.toml"
        if path.exists():
            listed = {entry["at"] for entry in load_toml(path).get("sentence", [])}
        for location, keywords, digest, _ in normative(args.spec):
            if location not in listed:
                print(f'[[sentence]]\nat = "{location}"\nkeywords = {keywords!r}\n'
                      f'fingerprint = "{digest}"\nstatus = "TODO"\n'.replace("'", '"'))
        return 0
    return check(args.spec)


if __name__ == "__main__":
    sys.exit(main())
