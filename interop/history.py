"""The SDK matrix across releases: measures it (interop/history.sh) and renders the chapter's history.

interop/history.json keeps, per SDK and per measured release, what the matrix's scenario programs
observed against `mcp-testserver`: the release's `--describe` (`sdk`) and every cell's facts
(`matrix`, the same shape and the same facts.py judgement as interop/expected.json, which holds
the pins). A way of stopping that the program cannot write for a release (the API is not there)
is kept as `{"n/a": why}` (the program's `--describe` names it under `unavailable`), never guessed.

The chapter (render_book.py, placeholder `{{history}}`) shows, per SDK and way of stopping, the
grid's glyphs at each measured release, and the releases whose behaviour equals the pin's: a
release "holds" when every cell that both it and the pin ran has the pin's outcome (the grid's
verdict: stopped, cancelled late, abandoned, ...). Cells one of them could not run (a revision the
release does not speak, n/a) are not compared; a release with no comparable cell is "not
comparable". `holds_for` turns that into "since 3.6.0", "all measured (3.0.0 to 3.11.0)",
"until 2.0.0", or explicit ranges.

    python3 interop/history.py --server target/release/mcp-testserver [SDK=VERSION ...]

measures the releases named (default: every release in MEASURED) and writes them into
history.json; interop/history.sh wraps it (installs, builds, then renders the chapter). SDK is a
matrix key (`rmcp`, `python`, `typescript`, `typescript-v2`) or the package's registry name
(`mcp`, `@modelcontextprotocol/sdk`, `@modelcontextprotocol/client`). Exit 1 when a cell failed to
run (nothing is written for that release), 2 when it could not run at all. Only the Python
standard library is used.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from outcomes import OUTCOMES, cell, framework_outcome, framework_outcomes, outcome

INTEROP = Path(__file__).resolve().parent
ROOT = INTEROP.parent
HISTORY = INTEROP / "history.json"
# The releases history.sh measures by default, oldest first: the first and last of each line
# that changed something the book says, and the pins.
MEASURED = {
    "rmcp": ["3.0.0", "3.5.1", "3.6.0", "3.11.0"],
    "python": ["1.30.0", "2.0.0", "2.3.0"],
    "typescript": ["1.25.0", "1.32.2"],
    "typescript-v2": ["2.0.0", "2.4.0"],
    # The agent frameworks (interop/frameworks/): an older release where the behaviour differs.
    "fastmcp": ["2.12.0", "4.1.6"],
    "strands-agents": ["1.20.0", "1.62.0"],
}
REVISIONS = ("2025-11-25", "2026-07-28")
# A framework speaks what its SDK chooses.
FRAMEWORK_REVISIONS = ("default",)
TRANSPORTS = ("stdio", "http")
# The grid's columns, in its order.
ORDER = [(revision, transport) for revision in REVISIONS for transport in TRANSPORTS]


def version_key(version: str) -> tuple[Any, ...]:
    """Orders releases: numeric parts, then a pre-release (`2.0.0-beta.1`) before its release."""
    main, _, pre = version.partition("-")
    return tuple(int(part) for part in re.findall(r"\d+", main)) + ((0, pre) if pre else (1, ""))


def outcomes(cells: dict[str, Any], framework: bool = False) -> dict[tuple[str, str], str]:
    """A way of stopping's cells -> the grid's verdict per (revision, transport); `n/a` for cells
    the program could not write for that release. A framework's cells (revision `default`) are
    judged as the frameworks' grid judges them."""
    judge = framework_outcome if framework else outcome
    found = {}
    for revision in (FRAMEWORK_REVISIONS if framework else REVISIONS):
        for transport in TRANSPORTS:
            facts = cells.get(revision, {}).get(transport)
            if facts is None:
                continue
            found[(revision, transport)] = "n/a" if "n/a" in facts else judge(facts)
    return found


def holds(release: dict[tuple[str, str], str], pin: dict[tuple[str, str], str]) -> bool | None:
    """Whether a release behaves as the pin in every cell both ran; None when none is comparable."""
    compared = [key for key, verdict in pin.items() if verdict not in ("skipped", "n/a") and release.get(key) not in (None, "skipped", "n/a")]
    if not compared:
        return None
    return all(release[key] == pin[key] for key in compared)


def holds_for(verdicts: list[tuple[str, bool | None]]) -> str:
    """`[(release, holds)]`, oldest first -> "since 3.6.0", "until 2.0.0", "all measured (A to B)",
    "none measured", or the ranges ("3.0.0 to 3.5.1, 3.11.0")."""
    comparable = [(version, held) for version, held in verdicts if held is not None]
    if not comparable:
        return "not comparable"
    holding = [version for version, held in comparable if held]
    if not holding:
        return "none measured"
    if len(holding) == len(comparable):
        first, last = comparable[0][0], comparable[-1][0]
        return f"all measured ({first} to {last})" if first != last else f"all measured ({first})"
    ranges, current = [], []
    for version, held in comparable:
        if held:
            current.append(version)
        elif current:
            ranges.append(current)
            current = []
    if current:
        ranges.append(current)
    if len(ranges) == 1 and ranges[0][-1] == comparable[-1][0]:
        return f"since {ranges[0][0]}"
    if len(ranges) == 1 and ranges[0][0] == comparable[0][0]:
        return f"until {ranges[0][-1]}"
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]} to {r[-1]}" for r in ranges)


def since_rows(history: dict[str, Any], expected: dict[str, Any], sdk: str) -> list[dict[str, Any]]:
    """Per way of stopping of the pinned SDK: the glyphs per release and what `holds_for` says."""
    releases = history.get("releases", {}).get(sdk, {})
    ordered = sorted(releases, key=version_key)
    rows = []
    for scenario in expected["sdks"][sdk]["scenarios"]:
        pin = outcomes(expected["matrix"][sdk][scenario])
        per_release = []
        for version in ordered:
            entry = releases[version]
            cells = entry["matrix"].get(scenario)
            if cells is None:
                why = entry["sdk"].get("unavailable", {}).get(scenario, f"not measured (the row is newer than this release's measurement of {entry['measured']}; run interop/history.sh)")
                per_release.append((version, None, {key: "n/a" for key in pin}, why))
                continue
            verdict = outcomes(cells)
            per_release.append((version, holds(verdict, pin), verdict, None))
        rows.append({"scenario": scenario, "releases": per_release, "holds for": holds_for([(v, h) for v, h, _, _ in per_release])})
    return rows


def fact_differences(entry: dict[str, Any], pin: dict[str, Any]) -> dict[str, int]:
    """Per fact (facts.py's keys), in how many cells a release and the pin both ran it differs."""
    counts: dict[str, int] = {}
    for scenario, revisions in entry["matrix"].items():
        for revision, transports in revisions.items():
            for transport, facts in transports.items():
                book = pin.get(scenario, {}).get(revision, {}).get(transport)
                if not book or any(key in cell for cell in (facts, book) for key in ("skipped", "n/a", "error", "racy")):
                    continue
                for key in sorted(set(facts) | set(book)):
                    if facts.get(key) != book.get(key):
                        counts[key] = counts.get(key, 0) + 1
    return counts


def render(history: dict[str, Any], expected: dict[str, Any]) -> str:
    """The chapter's `{{history}}` section: one table per SDK with measured releases."""
    glyph = {key: symbol for key, (symbol, _, _) in OUTCOMES.items()}
    glyph["n/a"] = "n/a"
    parts = []
    for sdk, info in expected["sdks"].items():
        releases = history.get("releases", {}).get(sdk, {})
        if not releases:
            continue
        ordered = sorted(releases, key=version_key)
        header = "| Way of stopping | " + " | ".join(ordered) + " | Behaves as the pin |"
        rows = [f"**{info['package']}** (pin {info['version']}):", "", header, "|---|" + "---|" * len(ordered) + "---|"]
        notes = []
        for row in since_rows(history, expected, sdk):
            cells = []
            for version, _, verdict, why in row["releases"]:
                if why is not None:
                    cells.append("n/a")
                    notes.append(f"`{row['scenario']}` at {version}: n/a, {why}.")
                    continue
                cells.append(" ".join(glyph[verdict[key]] for key in ORDER if key in verdict))
            rows.append(f"| {cell(row['scenario'], code=True)} | " + " | ".join(cells) + f" | {row['holds for']} |")
        for version in ordered:
            if version == info["version"]:
                continue
            differing = fact_differences(releases[version], expected["matrix"][sdk])
            if differing:
                listed = ", ".join(f"`{key}` ({count})" for key, count in sorted(differing.items(), key=lambda item: (-item[1], item[0])))
                notes.append(f"{version}: facts that differ from the pin's in cells both ran (number of cells): {listed}.")
        parts.append("\n".join(rows) + ("\n\n" + "\n".join(f"- {note}" for note in notes) if notes else ""))
    return "\n\n".join(parts)


def check(history: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Where history.json's entry for a pin disagrees with expected.json (the grid's verdict of a
    cell both hold), or lacks the pin: the history must be re-measured when a pin moves."""
    problems = []
    for sdk, info in expected["sdks"].items():
        entry = history.get("releases", {}).get(sdk, {}).get(info["version"])
        if entry is None:
            problems.append(f"{sdk}: history.json has no entry for the pin {info['version']} (interop/history.sh {sdk}={info['version']})")
            continue
        for scenario in info["scenarios"]:
            if scenario not in entry["matrix"]:
                continue
            framework = bool(info.get("framework"))
            pin, measured = outcomes(expected["matrix"][sdk][scenario], framework), outcomes(entry["matrix"][scenario], framework)
            for key, verdict in pin.items():
                # A racy pin cell (interop/racy.py) agrees with any of its measured outcomes.
                allowed = {verdict} | set(framework_outcomes(expected["matrix"][sdk][scenario][key[0]][key[1]]) if verdict == "racy" else ())
                if measured.get(key) not in allowed:
                    problems.append(f"{sdk} {info['version']} / {scenario} / {' / '.join(key)}: expected.json says {verdict}, history.json says {measured.get(key)}")
    return problems


def parse_choices(arguments: list[str]) -> dict[str, list[str]]:
    """`SDK=VERSION` arguments (SDK a matrix key or a package name) -> {sdk: [versions]}."""
    import releases

    chosen: dict[str, list[str]] = {}
    for argument in arguments:
        name, equals, version = argument.partition("=")
        sdk = name if name in releases.PACKAGES else releases.SDK_OF_PACKAGE.get(name)
        if not equals or not version or sdk is None:
            raise ValueError(f"`{argument}`: expected SDK=VERSION with SDK one of {', '.join(list(releases.PACKAGES) + list(releases.SDK_OF_PACKAGE))}")
        chosen.setdefault(sdk, []).append(version)
    return chosen


def measure(sdk: str, version: str, work: Path, server: str, jobs: int) -> dict[str, Any]:
    """Installs `sdk` at `version`, runs its matrix, and returns the release's history entry."""
    import matrix
    import releases

    # The pin runs from the pinned install (setup-languages.sh, the workspace build), as in run.sh.
    program = releases.pinned_command(sdk, work) if releases.pinned_versions()[sdk] == version else releases.command(sdk, version, work)
    observed = matrix.observe(work, server, jobs, [], commands={sdk: program}, logs_dir=work / "history-logs" / f"{sdk}-{version}")
    failed = matrix.errors(observed)
    if failed:
        raise RuntimeError("; ".join(failed))
    description = observed["sdks"][sdk]
    if description["version"] != version:
        raise RuntimeError(f"asked for {sdk} {version}, the program reports {description['version']}")
    cells = observed["matrix"].get(sdk, {})
    for scenario, why in description.get("unavailable", {}).items():
        cells[scenario] = {revision: {transport: {"n/a": why} for transport in TRANSPORTS} for revision in (FRAMEWORK_REVISIONS if description.get("framework") else REVISIONS)}
    return {"measured": datetime.date.today().isoformat(), "sdk": description, "matrix": cells}


def dump(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", help="the mcp-testserver binary (required to measure)")
    parser.add_argument("--check", action="store_true", help="measure nothing: check that history.json's pin entries agree with expected.json (exit 1 when not)")
    parser.add_argument("--work", type=Path, default=ROOT / "target" / "interop", help="the work directory (default target/interop)")
    parser.add_argument("--jobs", type=int, default=4, help="cells run at once (default 4)")
    parser.add_argument("--pins-from-expected", nargs="+", metavar="SDK", help="measure nothing: copy these SDKs' (or frameworks') pin entries from expected.json, which the same runner just measured (interop/run.sh --bless)")
    parser.add_argument("releases", nargs="*", metavar="SDK=VERSION", help="releases to measure (default: every release in MEASURED)")
    arguments = parser.parse_args()
    if arguments.pins_from_expected:
        history = json.loads(HISTORY.read_text()) if HISTORY.exists() else {"releases": {}}
        expected = json.loads((INTEROP / "expected.json").read_text())
        for sdk in arguments.pins_from_expected:
            info = expected["sdks"][sdk]
            description = {key: value for key, value in info.items() if key not in ("default connection", "default revision")}
            cells = dict(expected["matrix"][sdk])
            for scenario, why in info.get("unavailable", {}).items():
                cells[scenario] = {revision: {transport: {"n/a": why} for transport in TRANSPORTS} for revision in (FRAMEWORK_REVISIONS if info.get("framework") else REVISIONS)}
            history.setdefault("releases", {}).setdefault(sdk, {})[info["version"]] = {"measured": datetime.date.today().isoformat(), "sdk": {**description, **{k: info[k] for k in ("default connection", "default revision") if k in info}}, "matrix": cells}
        HISTORY.write_text(dump(history))
        print(f"history: wrote the pins of {', '.join(arguments.pins_from_expected)} from expected.json")
        return 0
    if arguments.check:
        problems = check(json.loads(HISTORY.read_text()) if HISTORY.exists() else {}, json.loads((INTEROP / "expected.json").read_text()))
        for problem in problems:
            print(f"history: error: {problem}", file=sys.stderr)
        print(f"history: {'the pins in history.json disagree with expected.json' if problems else 'history.json agrees with expected.json at the pins'}")
        return 1 if problems else 0
    if not arguments.server:
        parser.error("--server is required to measure")
    try:
        chosen = parse_choices(arguments.releases) if arguments.releases else MEASURED
    except ValueError as error:
        print(f"history: error: {error}", file=sys.stderr)
        return 2
    history = json.loads(HISTORY.read_text()) if HISTORY.exists() else {"releases": {}}
    status = 0
    for sdk, versions in chosen.items():
        for version in versions:
            started = time.monotonic()
            print(f"history: {sdk} {version}", flush=True)
            try:
                entry = measure(sdk, version, arguments.work, arguments.server, arguments.jobs)
            except Exception as error:  # an install, a build or a cell: report it and go on
                print(f"history: error: {sdk} {version}: {error}", file=sys.stderr)
                status = 1
                continue
            history.setdefault("releases", {}).setdefault(sdk, {})[version] = entry
            HISTORY.write_text(dump(history))
            print(f"history: {sdk} {version}: {sum(len(t) for r in entry['matrix'].values() for t in r.values())} cells in {time.monotonic() - started:.0f} s", flush=True)
    print(f"history: wrote {HISTORY.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.path.insert(0, str(INTEROP))
    sys.exit(main())
