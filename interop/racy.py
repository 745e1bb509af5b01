"""Racy cells: a cell of interop/expected.json whose outcome differs between two runs of the same
program on the same machine (the stop and the framework's own teardown race inside it).

Such a cell is written `{"racy": [FACTS_A, FACTS_B, ...]}`: every alternative is a cell's facts as
measured (facts.py, judged from the server's record), never written by hand. A run agrees with a
racy cell when its cell equals any alternative (`accepts`); `--bless` keeps the racy cell while the
run is one of them (`keep_racy`); the grids show it as "either, racing" with each alternative's
glyph. A cell becomes racy only by measurement: after a comparison run (`interop/run.sh`, which
writes target/interop/observed.json) differed from expected.json in a cell nobody changed,

    python3 interop/racy.py 'llama-index-tools-mcp/run abort/default/http'

adds the observed cell to that cell's alternatives (expected.json's cell becomes the first). Only
the Python standard library is used.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any, Iterator

INTEROP = Path(__file__).resolve().parent
ROOT = INTEROP.parent
EXPECTED = INTEROP / "expected.json"
OBSERVED = ROOT / "target" / "interop" / "observed.json"


def alternatives(cell: Any) -> list[Any] | None:
    """A racy cell's measured alternatives; None for an ordinary cell."""
    return cell["racy"] if isinstance(cell, dict) and isinstance(cell.get("racy"), list) else None


def accepts(wanted: Any, cell: Any) -> bool:
    """Whether an observed cell agrees with expected.json's: equal, or one of a racy cell's alternatives."""
    options = alternatives(wanted)
    return wanted == cell or (options is not None and cell in options)


def cells(matrix: dict[str, Any]) -> Iterator[tuple[str, str, str, str, Any]]:
    """Each cell of a matrix (expected.json's or observed.json's `matrix`), with where it is."""
    for sdk, scenarios in matrix.items():
        for scenario, revisions in scenarios.items():
            for revision, transports in revisions.items():
                for transport, cell in transports.items():
                    yield sdk, scenario, revision, transport, cell


def cell_at(matrix: dict[str, Any], sdk: str, scenario: str, revision: str, transport: str) -> Any:
    """The cell at that place of a matrix, or None."""
    return matrix.get(sdk, {}).get(scenario, {}).get(revision, {}).get(transport)


def resolve(expected: dict[str, Any], observed: dict[str, Any]) -> dict[str, Any]:
    """expected.json with each racy cell that the observed run agrees with replaced by the observed
    cell, so that a textual comparison shows only real differences (a racy cell the run did not
    agree with stays racy, and shows in the diff)."""
    resolved = copy.deepcopy(expected)
    for sdk, scenario, revision, transport, cell in cells(observed.get("matrix", {})):
        wanted = cell_at(resolved.get("matrix", {}), sdk, scenario, revision, transport)
        if alternatives(wanted) is not None and accepts(wanted, cell):
            resolved["matrix"][sdk][scenario][revision][transport] = cell
    return resolved


def keep_racy(expected: dict[str, Any], observed: dict[str, Any]) -> dict[str, Any]:
    """The observed matrix to bless: where expected.json's cell is racy and the run is one of its
    alternatives, the racy cell stays (a run that is none of them replaces it)."""
    kept = copy.deepcopy(observed)
    for sdk, scenario, revision, transport, cell in cells(observed.get("matrix", {})):
        wanted = cell_at(expected.get("matrix", {}), sdk, scenario, revision, transport)
        if alternatives(wanted) is not None and accepts(wanted, cell):
            kept["matrix"][sdk][scenario][revision][transport] = wanted
    return kept


def mark(expected: dict[str, Any], observed: dict[str, Any], sdk: str, scenario: str, revision: str, transport: str) -> dict[str, Any]:
    """expected.json with this cell racy: its alternatives (or its facts) plus the observed cell.
    Refused (ValueError) when either side lacks the cell, the run failed, or nothing differs."""
    wanted = cell_at(expected.get("matrix", {}), sdk, scenario, revision, transport)
    cell = cell_at(observed.get("matrix", {}), sdk, scenario, revision, transport)
    name = f"{sdk} / {scenario} / {revision} / {transport}"
    if wanted is None or cell is None:
        raise ValueError(f"{name}: {'expected.json' if wanted is None else 'the observed run'} has no such cell")
    if any(key in cell for key in ("error", "skipped")):
        raise ValueError(f"{name}: the observed cell did not run ({cell})")
    if accepts(wanted, cell):
        raise ValueError(f"{name}: the observed cell agrees with expected.json; nothing is racing")
    marked = copy.deepcopy(expected)
    marked["matrix"][sdk][scenario][revision][transport] = {"racy": (alternatives(wanted) or [wanted]) + [cell]}
    return marked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cells", nargs="+", metavar="SDK/SCENARIO/REVISION/TRANSPORT", help="a cell that differed between two runs")
    parser.add_argument("--observed", type=Path, default=OBSERVED, help="the run that differed (default: target/interop/observed.json)")
    arguments = parser.parse_args()
    expected = json.loads(EXPECTED.read_text())
    observed = json.loads(arguments.observed.read_text())
    try:
        for name in arguments.cells:
            parts = name.split("/")
            if len(parts) != 4:
                raise ValueError(f"{name}: not SDK/SCENARIO/REVISION/TRANSPORT")
            expected = mark(expected, observed, *parts)
            print(f"racy: {name} now accepts {len(alternatives(cell_at(expected['matrix'], *parts)))} measured outcomes")
    except ValueError as error:
        print(f"racy: error: {error}", file=sys.stderr)
        return 1
    EXPECTED.write_text(json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
