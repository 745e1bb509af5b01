"""Tests of racy cells (interop/racy.py): a cell two runs measured differently accepts either
measured outcome in the comparison (matrix.compare_cells, racy.resolve), stays racy through
--bless, is shown as "either, racing" in the frameworks' grid, and agrees with history.json's
pin row measured as either. Run with `python3 -m unittest discover -s interop`."""

from __future__ import annotations

import copy
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import drift  # noqa: E402
import history  # noqa: E402
import matrix  # noqa: E402
import racy  # noqa: E402
import render_frameworks  # noqa: E402
from outcomes import framework_outcome, framework_outcomes  # noqa: E402
from test_frameworks import expected  # noqa: E402


def two_runs() -> tuple[dict, dict, dict]:
    """expected.json, and a run whose `close client` / stdio cell differs (leaked, not stopped)."""
    book = expected()
    other = copy.deepcopy(book)
    cells = other["matrix"]["demo-fw"]["close client"]["default"]
    cells["stdio"] = cells["http"]
    return book, other, {"sdks": other["sdks"], "matrix": {"demo-fw": other["matrix"]["demo-fw"]}}


class Racy(unittest.TestCase):
    def test_marking_keeps_both_measured_outcomes_and_refuses_an_agreeing_run(self) -> None:
        book, _, observed = two_runs()
        marked = racy.mark(book, observed, "demo-fw", "close client", "default", "stdio")
        cell = marked["matrix"]["demo-fw"]["close client"]["default"]["stdio"]
        self.assertEqual(cell["racy"], [book["matrix"]["demo-fw"]["close client"]["default"]["stdio"], observed["matrix"]["demo-fw"]["close client"]["default"]["stdio"]])
        with self.assertRaises(ValueError):
            racy.mark(book, observed, "demo-fw", "run abort", "default", "stdio")
        with self.assertRaises(ValueError):
            racy.mark(marked, observed, "demo-fw", "close client", "default", "stdio")

    def test_the_comparison_accepts_either_and_nothing_else(self) -> None:
        book, _, observed = two_runs()
        marked = racy.mark(book, observed, "demo-fw", "close client", "default", "stdio")
        self.assertEqual(matrix.compare_cells(marked, observed), (4, 0))
        self.assertEqual(matrix.compare_cells(marked, book), (4, 0))
        self.assertEqual(racy.resolve(marked, observed)["matrix"], observed["matrix"])
        self.assertEqual(racy.resolve(marked, book)["matrix"], book["matrix"])
        third = copy.deepcopy(observed)
        third["matrix"]["demo-fw"]["close client"]["default"]["stdio"] = {"error": "exit 1"}
        self.assertEqual(matrix.compare_cells(marked, third), (3, 1))
        self.assertIn("racy", racy.resolve(marked, third)["matrix"]["demo-fw"]["close client"]["default"]["stdio"])
        self.assertEqual(drift.cell_changes(marked, observed), [])

    def test_bless_keeps_a_racy_cell_while_the_run_is_one_of_its_outcomes(self) -> None:
        book, _, observed = two_runs()
        marked = racy.mark(book, observed, "demo-fw", "close client", "default", "stdio")
        self.assertEqual(racy.keep_racy(marked, book)["matrix"], marked["matrix"])
        third = copy.deepcopy(observed)
        third["matrix"]["demo-fw"]["close client"]["default"]["stdio"] = book["matrix"]["demo-fw"]["run abort"]["default"]["http"] | {"next call": "failed: x"}
        self.assertEqual(racy.keep_racy(marked, third)["matrix"], third["matrix"])

    def test_the_grid_history_and_drift_show_either(self) -> None:
        book, _, observed = two_runs()
        marked = racy.mark(book, observed, "demo-fw", "close client", "default", "stdio")
        cell = marked["matrix"]["demo-fw"]["close client"]["default"]["stdio"]
        self.assertEqual(framework_outcome(cell), "racy")
        self.assertEqual(framework_outcomes(cell), ["stopped", "leaked"])
        text = render_frameworks.render(marked, ["demo-fw"])
        self.assertIn("stdio: <span>\u21c4</span> either <span", text)
        self.assertIn("cancel &lt;1 s or <span", text)
        self.assertIn("either, racing</strong>", text)
        self.assertIn("\u21c4 either, racing (2 of 2): \u2717 ran to the end", text)
        self.assertIn("\u21c4 either, racing: ", drift.verdict(cell))
        # Outcomes that differ only in a detail show as that one glyph in the grid (both in the details).
        same = racy.mark(book, {"matrix": {"demo-fw": {"run abort": {"default": {"http": book["matrix"]["demo-fw"]["run abort"]["default"]["http"] | {"caller saw": "other text"}}}}}}, "demo-fw", "run abort", "default", "http")
        text = render_frameworks.render(same, ["demo-fw"])
        self.assertNotIn("either, racing</strong>", text)
        self.assertIn("\u21c4 either, racing (2 of 2): \u2713 cancel sent", text)
        pin = {"releases": {"python": {"2.3.0": {"sdk": {}, "matrix": {}}}, "demo-fw": {"1.0.0": {"sdk": {}, "matrix": copy.deepcopy(observed["matrix"]["demo-fw"])}}}}
        self.assertEqual(history.check(pin, marked), [])
        pin["releases"]["demo-fw"]["1.0.0"]["matrix"]["close client"]["default"]["stdio"] = {"racy": cell["racy"]}
        self.assertEqual(history.check(pin, marked), [])
        pin["releases"]["demo-fw"]["1.0.0"]["matrix"]["close client"]["default"]["stdio"] = {"n/a": "no"} | {"skipped": "x"}
        self.assertEqual(len(history.check(pin, marked)), 1)


if __name__ == "__main__":
    unittest.main()
