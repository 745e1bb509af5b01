"""Tests of history.py: which measured releases a row holds for, and the chapter's history tables.

Run: python3 -m unittest discover -s interop (interop/run.sh runs them before the matrix).
"""

from __future__ import annotations

import copy
import unittest

import history
import render_book
from test_render_book import STOPPED, cell

# A cell where no cancel reached the server and the caller gave up: the grid's "abandoned".
LEAKED = cell(**{"cancel sent": False, "cancel requestId": None, "cancel reason": None, "cancel sent before the caller resumed": None, "handler": "completed (no cancel)", "server sent after cancel": None, "caller saw": "future dropped"})
SKIPPED = {"skipped": "rmcp 3.0.0 does not speak 2026-07-28"}


def row(stdio: dict, http: dict, modern: dict | None = None) -> dict:
    """One way of stopping's cells: 2025-11-25 as given, 2026-07-28 `modern` (default: as stdio)."""
    modern = modern or stdio
    return {"2025-11-25": {"stdio": stdio, "http": http}, "2026-07-28": {"stdio": modern, "http": modern}}


def expected_with(scenarios: dict) -> dict:
    return {
        "sdks": {"rmcp": {"package": "rmcp", "version": "3.11.0", "revisions": ["2025-11-25", "2026-07-28"], "scenarios": list(scenarios), "default connection": "x", "default revision": "2025-11-25"}},
        "matrix": {"rmcp": scenarios},
    }


def release(version: str, scenarios: dict, unavailable: dict | None = None) -> dict:
    sdk = {"package": "rmcp", "version": version, "revisions": ["2025-11-25", "2026-07-28"], "scenarios": list(scenarios)}
    if unavailable:
        sdk["unavailable"] = unavailable
    return {"measured": "2026-12-01", "sdk": sdk, "matrix": scenarios}


class HoldsFor(unittest.TestCase):
    def test_since(self):
        self.assertEqual(history.holds_for([("3.0.0", False), ("3.5.1", False), ("3.6.0", True), ("3.11.0", True)]), "since 3.6.0")

    def test_until(self):
        self.assertEqual(history.holds_for([("1.30.0", True), ("2.0.0", False), ("2.3.0", False)]), "until 1.30.0")

    def test_all_measured(self):
        self.assertEqual(history.holds_for([("2.0.0", True), ("2.4.0", True)]), "all measured (2.0.0 to 2.4.0)")

    def test_gaps_are_ranges(self):
        self.assertEqual(history.holds_for([("3.0.0", True), ("3.5.1", False), ("3.6.0", True), ("3.11.0", False)]), "3.0.0, 3.6.0")

    def test_releases_that_cannot_be_compared_are_left_out(self):
        self.assertEqual(history.holds_for([("3.0.0", None), ("3.5.1", False), ("3.6.0", True)]), "since 3.6.0")
        self.assertEqual(history.holds_for([("3.0.0", None)]), "not comparable")
        self.assertEqual(history.holds_for([("3.0.0", False)]), "none measured")


class Holds(unittest.TestCase):
    def test_a_different_glyph_breaks_it(self):
        pin = history.outcomes(row(STOPPED, STOPPED))
        self.assertFalse(history.holds(history.outcomes(row(LEAKED, STOPPED)), pin))
        self.assertTrue(history.holds(history.outcomes(row(STOPPED, STOPPED)), pin))

    def test_only_cells_both_ran_are_compared(self):
        pin = history.outcomes(row(STOPPED, STOPPED))
        older = history.outcomes(row(STOPPED, STOPPED, SKIPPED))
        self.assertTrue(history.holds(older, pin))
        nothing = history.outcomes(row(SKIPPED, SKIPPED, SKIPPED))
        self.assertIsNone(history.holds(nothing, pin))

    def test_releases_sort_by_number_not_text(self):
        self.assertEqual(sorted(["3.11.0", "3.5.1", "3.6.0", "3.0.0", "2.0.0-beta.1", "2.0.0"], key=history.version_key), ["2.0.0-beta.1", "2.0.0", "3.0.0", "3.5.1", "3.6.0", "3.11.0"])


class Render(unittest.TestCase):
    def setUp(self):
        dropped = row(STOPPED, STOPPED)
        self.expected = expected_with({"dropped call_tool future": dropped, "timeout": copy.deepcopy(dropped)})
        leaked = row(LEAKED, LEAKED)
        self.history = {
            "releases": {
                "rmcp": {
                    "3.11.0": release("3.11.0", {"dropped call_tool future": dropped, "timeout": dropped}),
                    "3.5.1": release("3.5.1", {"dropped call_tool future": leaked, "timeout": dropped}),
                    "3.6.0": release("3.6.0", {"dropped call_tool future": dropped, "timeout": dropped}),
                    "3.0.0": release("3.0.0", {"dropped call_tool future": leaked}, {"timeout": "PeerRequestOptions has no timeout in 3.0.0"}),
                }
            }
        }

    def test_the_row_says_since_the_first_release_that_behaves_as_the_pin(self):
        text = history.render(self.history, self.expected)
        line = next(line for line in text.splitlines() if line.startswith("| `dropped call_tool future`"))
        self.assertEqual(line, "| `dropped call_tool future` | \u2717 \u2717 \u2717 \u2717 | \u2717 \u2717 \u2717 \u2717 | \u2713 \u2713 \u2713 \u2713 | \u2713 \u2713 \u2713 \u2713 | since 3.6.0 |")

    def test_releases_are_columns_in_version_order(self):
        text = history.render(self.history, self.expected)
        self.assertIn("| Way of stopping | 3.0.0 | 3.5.1 | 3.6.0 | 3.11.0 | Behaves as the pin |", text)

    def test_a_scenario_that_cannot_be_written_is_na_with_its_reason(self):
        text = history.render(self.history, self.expected)
        line = next(line for line in text.splitlines() if line.startswith("| `timeout`"))
        self.assertEqual(line, "| `timeout` | n/a | \u2713 \u2713 \u2713 \u2713 | \u2713 \u2713 \u2713 \u2713 | \u2713 \u2713 \u2713 \u2713 | all measured (3.5.1 to 3.11.0) |")
        self.assertIn("- `timeout` at 3.0.0: n/a, PeerRequestOptions has no timeout in 3.0.0.", text)

    def test_the_chapter_placeholder_renders_it(self):
        chapter = render_book.render("before\n\n{{history}}\n\nafter\n", self.expected, self.history)
        self.assertIn("since 3.6.0", chapter)
        self.assertNotIn("{{history}}", chapter)

    def test_an_sdk_without_measured_releases_is_left_out(self):
        self.assertEqual(history.render({"releases": {}}, self.expected), "")


class Check(unittest.TestCase):
    """history.json's entry for a pin must agree with expected.json (CI: interop/run.sh)."""

    def setUp(self):
        self.expected = expected_with({"dropped call_tool future": row(STOPPED, STOPPED)})

    def test_agreeing(self):
        history_data = {"releases": {"rmcp": {"3.11.0": release("3.11.0", {"dropped call_tool future": row(STOPPED, STOPPED)})}}}
        self.assertEqual(history.check(history_data, self.expected), [])

    def test_a_pin_that_behaves_otherwise_in_the_history(self):
        history_data = {"releases": {"rmcp": {"3.11.0": release("3.11.0", {"dropped call_tool future": row(LEAKED, STOPPED, STOPPED)})}}}
        self.assertEqual(history.check(history_data, self.expected), ["rmcp 3.11.0 / dropped call_tool future / 2025-11-25 / stdio: expected.json says stopped, history.json says leaked"])

    def test_a_moved_pin_needs_a_measurement(self):
        history_data = {"releases": {"rmcp": {"3.6.0": release("3.6.0", {"dropped call_tool future": row(STOPPED, STOPPED)})}}}
        self.assertEqual(history.check(history_data, self.expected), ["rmcp: history.json has no entry for the pin 3.11.0 (interop/history.sh rmcp=3.11.0)"])

    def test_a_row_newer_than_the_measurement_is_not_an_error_but_shows_as_not_measured(self):
        self.expected = expected_with({"dropped call_tool future": row(STOPPED, STOPPED), "timeout": row(STOPPED, STOPPED)})
        history_data = {"releases": {"rmcp": {"3.11.0": release("3.11.0", {"dropped call_tool future": row(STOPPED, STOPPED)})}}}
        self.assertEqual(history.check(history_data, self.expected), [])
        self.assertIn("`timeout` at 3.11.0: n/a, not measured", history.render(history_data, self.expected))


class Choices(unittest.TestCase):
    def test_package_names_and_matrix_keys(self):
        self.assertEqual(history.parse_choices(["mcp=2.0.0", "rmcp=3.6.0", "@modelcontextprotocol/client=2.0.0", "rmcp=3.5.1"]), {"python": ["2.0.0"], "rmcp": ["3.6.0", "3.5.1"], "typescript-v2": ["2.0.0"]})

    def test_a_bad_argument_is_an_error(self):
        for argument in ("rmcp", "rmcp=", "pydantic=2.0.0"):
            with self.assertRaises(ValueError):
                history.parse_choices([argument])


if __name__ == "__main__":
    unittest.main()
