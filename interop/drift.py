"""Drift: runs the SDK matrix and the book's snippets against chosen SDK releases and reports what
differs from what the book says (interop/expected.json and the chapters' expected output).

    python3 interop/drift.py [--matrix-only] [SDK=VERSION ...]     (interop/drift.sh wraps it)

SDK is `rmcp`, `mcp`, `@modelcontextprotocol/sdk` or `@modelcontextprotocol/client` (the matrix's
keys `python`, `typescript`, `typescript-v2` work too). No arguments: the newest release of each
SDK, asked of its registry (`cargo info`, `pip index versions`, `npm view`). With arguments: those
releases; the SDKs not named stay at their pins.

1. The matrix: every cell of each chosen SDK (matrix.py's runner; a release other than the pin is
   installed by releases.py), compared fact by fact with expected.json.
2. The book: a scratch copy of the repository under target/interop/drift/book (the tracked files)
   whose workspace manifest asks for the chosen rmcp (`cargo update -p rmcp` in the copy, never the
   committed Cargo.lock), whose `target/interop/venv` and `interop/snippets/typescript/node_modules`
   are links to the chosen `mcp` and `@modelcontextprotocol/client` installs, verified with
   `mdbook-snippets test --junit` (Rust, Python and TypeScript snippets, against
   target/release/mcp-testserver). A snippet that fails there no longer does what the chapter
   says (the committed book passes at the pins: CI's book test).
3. The report on stdout: each changed cell with the book's facts and the new ones side by side, the
   snippets that rely on its row (interop/reliance.json), and each failing snippet with its message.

Exit 0: nothing differs; 1: something does; 2: it could not run (a registry, an install, a build).
Only the Python standard library is used.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

INTEROP = Path(__file__).resolve().parent
ROOT = INTEROP.parent
sys.path.insert(0, str(INTEROP))

import matrix  # noqa: E402
import racy  # noqa: E402
import releases  # noqa: E402
import render_book  # noqa: E402
from outcomes import FRAMEWORK_OUTCOMES, framework_outcome  # noqa: E402

RELIANCE = INTEROP / "reliance.json"
# The language of the book's snippets each SDK's release changes (the TypeScript v1 line has none:
# the book's TypeScript snippets use v2).
SNIPPET_LANGUAGE = {"rmcp": "rust", "python": "python", "typescript-v2": "typescript"}
FENCE = re.compile(r"^(```+|~~~+)\s*([A-Za-z0-9_+-]*)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


class CannotRun(Exception):
    """Drift could not do its job (exit 2)."""


# ---------------------------------------------------------------- choosing releases


def newest(sdk: str) -> str:
    """The newest release of `sdk`, asked of its registry."""
    package, registry = releases.PACKAGES[sdk]
    try:
        if registry == "npm":
            out = _output(["npm", "view", package, "version"])
            return out.strip()
        if registry == "pypi":
            out = _output([sys.executable, "-m", "pip", "index", "versions", package, "--disable-pip-version-check"])
            found = re.search(rf"^{re.escape(package)} \(([^)]+)\)", out, re.MULTILINE)
        else:
            # Outside the workspace, so cargo does not answer with the locked version.
            out = _output(["cargo", "info", package], cwd=Path(tempfile.gettempdir()))
            found = re.search(r"^version: \S+ \(latest ([^)]+)\)", out, re.MULTILINE) or re.search(r"^version: (\S+)", out, re.MULTILINE)
    except (OSError, subprocess.SubprocessError) as error:
        raise CannotRun(f"asking the registry for the newest {package}: {error}") from None
    if not found:
        raise CannotRun(f"the registry's answer names no version of {package}: {out.strip()[:200]}")
    return found.group(1)


def _output(arguments: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise subprocess.SubprocessError(f"`{' '.join(arguments)}` exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout


def choose(arguments: list[str]) -> tuple[dict[str, str], list[str]]:
    """All four SDKs' versions for this run, and the SDKs whose release was chosen (all, without arguments)."""
    pins = releases.pinned_versions()
    if not arguments:
        return {sdk: newest(sdk) for sdk in releases.PACKAGES}, list(releases.PACKAGES)
    versions, chosen = dict(pins), []
    for argument in arguments:
        name, equals, version = argument.partition("=")
        sdk = name if name in releases.PACKAGES else releases.SDK_OF_PACKAGE.get(name)
        if not equals or not version or sdk is None:
            raise ValueError(f"`{argument}`: expected SDK=VERSION, SDK one of {', '.join(releases.SDK_OF_PACKAGE)}")
        versions[sdk] = version
        chosen.append(sdk)
    return versions, chosen


# ---------------------------------------------------------------- the matrix


def program(sdk: str, version: str, work: Path) -> list[str]:
    return releases.pinned_command(sdk, work) if releases.pinned_versions()[sdk] == version else releases.command(sdk, version, work)


def cell_changes(expected: dict[str, Any], observed: dict[str, Any]) -> list[dict[str, Any]]:
    """Every observed cell whose facts differ from expected.json's (a failed run is a difference too)."""
    changes = []
    for sdk, scenarios in observed["matrix"].items():
        book = expected["matrix"].get(sdk, {})
        for scenario in sorted(set(scenarios) | set(book)):
            # A framework's cells are at revision `default`.
            for revision in sorted(set(book.get(scenario, {})) | set(scenarios.get(scenario, {}))):
                for transport in matrix.TRANSPORTS:
                    old = book.get(scenario, {}).get(revision, {}).get(transport)
                    new = scenarios.get(scenario, {}).get(revision, {}).get(transport)
                    if not racy.accepts(old, new):
                        changes.append({"sdk": sdk, "scenario": scenario, "revision": revision, "transport": transport, "old": old, "new": new})
    return changes


def verdict(facts: dict[str, Any] | None) -> str:
    if facts is None:
        return "(no such cell)"
    if "error" in facts:
        return "could not run"
    if "racy" in facts:
        # A racy cell (interop/racy.py): each measured outcome.
        symbol, name, _ = FRAMEWORK_OUTCOMES["racy"]
        return f"{symbol} {name}: " + " or ".join(dict.fromkeys(verdict(one) for one in facts["racy"]))
    if "caller returned" in facts:
        # A framework's cell (facts.framework_facts), judged as the frameworks' grid does.
        symbol, name, _ = FRAMEWORK_OUTCOMES[framework_outcome(facts)]
        return f"{symbol} {name}"
    key = render_book.outcome(facts)
    symbol, name, _ = render_book.OUTCOMES[key]
    return f"{symbol} {name}"


# ---------------------------------------------------------------- the book's snippets


def book_snippets(book: Path) -> list[dict[str, Any]]:
    """Every fenced snippet of the book: chapter (relative to book/), line of its fence, language, section."""
    found = []
    for chapter in sorted(book.glob("*.md")):
        section, fence = "", None
        for number, line in enumerate(chapter.read_text().splitlines(), start=1):
            match = FENCE.match(line)
            if fence is None and match:
                fence = match.group(1)
                language = match.group(2)
                if language in ("rust", "python", "typescript"):
                    found.append({"chapter": chapter.name, "line": number, "language": language, "section": section})
                continue
            if fence is not None:
                if line.startswith(fence) and not line[len(fence) :].strip():
                    fence = None
                continue
            heading = HEADING.match(line)
            if heading:
                section = heading.group(2)
    return found


def relying(reliance: dict[str, Any], snippets: list[dict[str, Any]], sdk: str, scenario: str) -> list[str]:
    """The snippets (`book/CHAPTER:LINE`) that rely on the row `sdk` / `scenario`."""
    names = []
    for selector in reliance.get(sdk, {}).get(scenario, []):
        for snippet in snippets:
            if all(snippet[key] == selector[key] for key in ("chapter", "section", "language")):
                names.append(f"book/{snippet['chapter']}:{snippet['line']}")
    return sorted(set(names), key=lambda name: (name.split(":")[0], int(name.split(":")[1])))


def scratch_book(versions: dict[str, str], work: Path, log: Path) -> Path:
    """A copy of the repository's tracked files, its rmcp, venv and node_modules at the chosen releases."""
    pins = releases.pinned_versions()
    copy = work / "drift" / "book"
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    if versions["rmcp"] != pins["rmcp"]:
        manifest = copy / "Cargo.toml"
        text, count = re.subn(r'^(rmcp = \{ version = )"[^"]+"', rf'\1"={versions["rmcp"]}"', manifest.read_text(), flags=re.MULTILINE)
        if count != 1:
            raise CannotRun("the workspace manifest has no `rmcp = { version = ... }` line to point at another release")
        manifest.write_text(text)
        releases._run(["cargo", "update", "--quiet", "-p", "rmcp", "--manifest-path", str(manifest)], log)
    # The Python snippets' venv and the TypeScript snippets' node_modules, at the chosen releases.
    venv = releases.release_dir(work, "python", versions["python"]) / "venv" if versions["python"] != pins["python"] else work / "venv"
    if versions["python"] != pins["python"]:
        releases.command("python", versions["python"], work, log)
    (copy / "target" / "interop").mkdir(parents=True)
    (copy / "target" / "interop" / "venv").symlink_to(venv.resolve())
    modules = ROOT / "interop" / "snippets" / "typescript" / "node_modules"
    if versions["typescript-v2"] != pins["typescript-v2"]:
        modules = snippet_node_modules(versions["typescript-v2"], work, log)
    (copy / "interop" / "snippets" / "typescript" / "node_modules").symlink_to(modules.resolve())
    return copy


def snippet_node_modules(version: str, work: Path, log: Path) -> Path:
    """The TypeScript snippet helper's packages with `@modelcontextprotocol/client` and `/server` at `version`."""
    pinned = json.loads((INTEROP / "snippets" / "typescript" / "package.json").read_text())
    dependencies = dict(pinned.get("dependencies", {}), **pinned.get("devDependencies", {}))
    dependencies.update({"@modelcontextprotocol/client": version, "@modelcontextprotocol/server": version})
    place = work / "releases" / f"snippets-typescript-{version}"
    place.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"name": "mcp-snippet-release", "private": True, "type": "module", "dependencies": dependencies}, indent=2) + "\n"
    marker = place / "node_modules" / ".installed"
    if not (marker.is_file() and marker.read_text() == text):
        (place / "package.json").write_text(text)
        releases._run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], log, cwd=place)
        marker.write_text(text)
    return place / "node_modules"


def run_book(copy: Path, log: Path) -> dict[str, dict[str, str]]:
    """Verifies the copy's snippets; returns the failing ones: `book/CHAPTER:LINE` -> {kind, message}.
    `--no-cache`: the verifier's result cache does not know which venv or node_modules a Python or
    TypeScript snippet ran with, so a result cached against another release would be reused."""
    junit = copy / "junit.xml"
    verifier = ROOT / "target" / "debug" / "mdbook-snippets"
    env = dict(os.environ, MCP_TESTSERVER=str(ROOT / "target" / "release" / "mcp-testserver"))
    env.pop("CARGO_TARGET_DIR", None)
    arguments = [str(verifier), "test", str(copy), "--junit", str(junit), "--target-dir", str(ROOT / "target"), "--quiet", "--format", "human", "--no-cache"]
    with open(log, "a") as out:
        out.write(f"$ {' '.join(arguments)}\n")
        out.flush()
        subprocess.run(arguments, cwd=copy, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=3600)
    if not junit.is_file():
        raise CannotRun(f"mdbook-snippets wrote no report (log: {log})")
    return failures(junit.read_text())


def failures(junit: str) -> dict[str, dict[str, str]]:
    """The failing test cases of a JUnit report (`mdbook-snippets test --junit`)."""
    failed = {}
    for case in ElementTree.fromstring(junit).iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is None:
            continue
        name = case.get("name", "?")
        failed[name if name.startswith("book/") else f"book/{name}"] = {"kind": problem.get("type") or problem.tag, "message": (problem.get("message") or "") + ("\n" + problem.text if problem.text else "")}
    return failed


# ---------------------------------------------------------------- the report


def report(versions: dict[str, str], chosen: list[str], changes: list[dict[str, Any]], cells_run: int, failed: dict[str, dict[str, str]] | None, reliance: dict[str, Any], snippets: list[dict[str, Any]], expected: dict[str, Any]) -> str:
    pins = {sdk: info["version"] for sdk, info in expected["sdks"].items()}
    lines = ["# SDK drift report", ""]
    for sdk, version in versions.items():
        package = releases.PACKAGES[sdk][0]
        state = "the pin" if version == pins.get(sdk) else f"the book: {pins.get(sdk)}"
        # In backticks: an issue body would read `@modelcontextprotocol/sdk` as a team mention.
        lines.append(f"- `{package}` {version} ({state}){'' if sdk in chosen else ', not re-run (not chosen)'}")
    lines += ["", f"## Matrix cells that differ from interop/expected.json: {len(changes)} of {cells_run}", ""]
    by_row: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for change in changes:
        by_row.setdefault((change["sdk"], change["scenario"]), []).append(change)
    for (sdk, scenario), row in by_row.items():
        lines.append(f"### {sdk} / {scenario}")
        for change in row:
            lines.append(f"- {change['revision']} / {change['transport']}: {verdict(change['old'])} -> {verdict(change['new'])}")
            lines += side_by_side(change["old"], change["new"], f"book ({pins.get(sdk)})", f"new ({versions[sdk]})")
        names = relying(reliance, snippets, sdk, scenario)
        lines.append(f"- book snippets that rely on this row: {', '.join(names) if names else 'none mapped (interop/reliance.json)'}")
        lines.append("")
    if failed is None:
        lines += ["## Book snippets: not run (--matrix-only)", ""]
    else:
        total = len(snippets)
        lines += [f"## Book snippets that no longer do what the chapter says: {len(failed)} of {total}", ""]
        for name, problem in sorted(failed.items()):
            rows = [f"{sdk} / {scenario}" for sdk, scenarios in reliance.items() if not sdk.startswith("_") for scenario in scenarios if name in relying(reliance, snippets, sdk, scenario)]
            message = problem["message"].strip().splitlines()
            lines.append(f"- {name} ({problem['kind']}){'; relies on ' + ', '.join(rows) if rows else ''}")
            lines.append("  - book: passes at the pins (the chapter's expected output; CI's book test)")
            lines.append("  - new: " + (message[0] if message else "failed"))
            lines += [f"    {text}" for text in message[1:12]]
            if len(message) > 12:
                lines.append(f"    ... ({len(message) - 12} more lines)")
        lines.append("")
    drift = bool(changes) or bool(failed)
    lines.append(f"Verdict: {'DRIFT: the book no longer says what these releases do' if drift else 'no drift: every cell and snippet run agrees with the book'}")
    return "\n".join(lines) + "\n"


def side_by_side(old: dict[str, Any] | None, new: dict[str, Any] | None, old_title: str, new_title: str) -> list[str]:
    """The facts that differ, as an indented two-column table."""
    old, new = old or {}, new or {}
    keys = [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
    if not keys:
        return []
    shown = [(key, json.dumps(old.get(key), ensure_ascii=False), json.dumps(new.get(key), ensure_ascii=False)) for key in keys]
    width = max(len(key) for key, _, _ in shown)
    left = max(len(old_title), *(len(value) for _, value, _ in shown))
    rows = [f"    {'fact':<{width}}  {old_title:<{left}}  {new_title}"]
    rows += [f"    {key:<{width}}  {before:<{left}}  {after}" for key, before, after in shown]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=str(ROOT / "target" / "release" / "mcp-testserver"), help="the mcp-testserver binary")
    parser.add_argument("--work", type=Path, default=ROOT / "target" / "interop", help="the work directory (default target/interop)")
    parser.add_argument("--jobs", type=int, default=4, help="matrix cells run at once (default 4)")
    parser.add_argument("--matrix-only", action="store_true", help="skip the book's snippets")
    parser.add_argument("releases", nargs="*", metavar="SDK=VERSION")
    arguments = parser.parse_args()
    started = time.monotonic()
    log = arguments.work / "drift.log"
    try:
        arguments.work.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        versions, chosen = choose(arguments.releases)
        print("drift: " + ", ".join(f"{releases.PACKAGES[sdk][0]} {versions[sdk]}" for sdk in chosen), file=sys.stderr, flush=True)
        expected = json.loads((INTEROP / "expected.json").read_text())
        commands = {sdk: program(sdk, versions[sdk], arguments.work) for sdk in chosen}
        # The runner's progress lines go to stderr: stdout is the report.
        with contextlib.redirect_stdout(sys.stderr):
            observed = matrix.observe(arguments.work, arguments.server, arguments.jobs, [], commands=commands, logs_dir=arguments.work / "drift" / "logs")
        cells_run = sum(1 for sdk in observed["matrix"].values() for s in sdk.values() for r in s.values() for _ in r.values())
        changes = cell_changes(expected, observed)
        matrix_done = time.monotonic()
        print(f"drift: matrix: {len(changes)} of {cells_run} cells differ ({matrix_done - started:.0f} s)", file=sys.stderr, flush=True)
        failed = None
        if not arguments.matrix_only:
            copy = scratch_book(versions, arguments.work, log)
            failed = run_book(copy, log)
            print(f"drift: book: {len(failed)} snippets fail ({time.monotonic() - matrix_done:.0f} s)", file=sys.stderr, flush=True)
        reliance = json.loads(RELIANCE.read_text())
        snippets = book_snippets(ROOT / "book")
    except ValueError as error:
        print(f"drift: error: {error}", file=sys.stderr)
        return 2
    except (CannotRun, releases.InstallError, RuntimeError, OSError, subprocess.SubprocessError) as error:
        print(f"drift: error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(report(versions, chosen, changes, cells_run, failed, reliance, snippets, expected))
    print(f"drift: {time.monotonic() - started:.0f} s in all", file=sys.stderr)
    return 1 if changes or failed else 0


if __name__ == "__main__":
    sys.exit(main())
