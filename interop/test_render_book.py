"""Tests of render_book.py: the grid's verdict per cell, the grid, the legend and the folded rows.

Run: python3 -m unittest discover -s interop (interop/run.sh runs them before the matrix).
"""

from __future__ import annotations

import copy
import re
import unittest

import render_book

# A cell's facts as facts.py gives them: the caller stopped the call, a notification reached the
# server before the caller resumed, and the handler stopped.
STOPPED = {
    "before the call": "initialize (proposes 2025-11-25), notifications/initialized",
    "caller saw": "SdkError: Request timed out",
    "cancel reason": "timed out",
    "cancel requestId": "1",
    "cancel sent": True,
    "cancel sent before the caller resumed": True,
    "handler": "stopped by the cancel",
    "other cancels": [],
    "progress token": "= request id (1)",
    "response stream closed": None,
    "revision on the wire": "2025-11-25",
    "server sent after cancel": [],
    "violations": [],
}


def cell(**changes):
    facts = copy.deepcopy(STOPPED)
    facts.update(changes)
    return facts


class Outcome(unittest.TestCase):
    def test_a_notification_that_stopped_the_handler(self):
        self.assertEqual(render_book.outcome(STOPPED), "stopped")

    def test_a_closed_stream_is_a_cancel_too(self):
        facts = cell(**{"cancel sent": False, "cancel requestId": None, "cancel reason": None, "response stream closed": "a cancel", "cancel sent before the caller resumed": None})
        self.assertEqual(render_book.outcome(facts), "stopped")

    def test_a_closed_stream_that_is_not_a_cancel_is_not_one(self):
        facts = cell(**{"cancel sent": False, "response stream closed": "not a cancel", "handler": "completed (no cancel)"})
        self.assertEqual(render_book.outcome(facts), "leaked")

    def test_a_cancel_after_the_caller_resumed_is_late(self):
        self.assertEqual(render_book.outcome(cell(**{"cancel sent before the caller resumed": False})), "late")

    def test_over_http_the_order_is_unknown_so_not_late(self):
        self.assertEqual(render_book.outcome(cell(**{"cancel sent before the caller resumed": None})), "stopped")

    def test_no_cancel_and_the_caller_gave_up_is_abandoned(self):
        facts = cell(**{"cancel sent": False, "handler": "completed (no cancel)", "caller saw": "SdkError: Maximum total timeout exceeded"})
        self.assertEqual(render_book.outcome(facts), "leaked")

    def test_no_cancel_and_a_result_is_not_stopped(self):
        facts = cell(**{"cancel sent": False, "handler": "completed (no cancel)", "caller saw": "completed: completed 15 steps"})
        self.assertEqual(render_book.outcome(facts), "ran")

    def test_a_cancel_the_server_did_not_honour(self):
        self.assertEqual(render_book.outcome(cell(handler="answered after the cancel")), "ignored")
        self.assertEqual(render_book.outcome(cell(handler="kept running after the cancel")), "ignored")

    def test_unnamed_combinations_are_other_not_a_guess(self):
        self.assertEqual(render_book.outcome(cell(handler="completed before the cancel arrived")), "other")
        self.assertEqual(render_book.outcome(cell(**{"cancel sent": False, "handler": "still running when observed (no cancel)"})), "other")
        self.assertEqual(render_book.outcome(cell(**{"caller saw": "completed: completed 15 steps"})), "other")

    def test_skipped(self):
        self.assertEqual(render_book.outcome({"skipped": "does not speak 2026-07-28"}), "skipped")


def expected():
    """Two SDKs: `a` with two ways of stopping on every revision, `b` speaking only 2025-11-25."""
    late = cell(**{"cancel sent before the caller resumed": False})
    ran = cell(**{"cancel sent": False, "handler": "completed (no cancel)", "caller saw": "completed: ok"})
    skipped = {"skipped": "b 1.0 does not speak 2026-07-28"}
    every = lambda facts: {revision: {"stdio": copy.deepcopy(facts), "http": copy.deepcopy(facts)} for revision in render_book.REVISIONS}
    return {
        "sdks": {
            "a": {"package": "pkg-a", "version": "1.2", "revisions": list(render_book.REVISIONS), "scenarios": ["plain", "late one"], "default connection": "server/discover", "default revision": "2026-07-28"},
            "b": {"package": "pkg-<b>", "version": "0.1", "revisions": ["2025-11-25"], "scenarios": ["not stopped"], "default connection": "initialize", "default revision": "2025-11-25"},
        },
        "matrix": {
            "a": {"plain": every(STOPPED), "late one": every(late)},
            "b": {"not stopped": {"2025-11-25": {"stdio": ran, "http": ran}, "2026-07-28": {"stdio": skipped, "http": skipped}}},
        },
    }


class Grid(unittest.TestCase):
    def test_one_glyph_per_cell_in_row_order(self):
        grid = render_book.grid(expected())
        outcomes = re.findall(r'data-outcome="([a-z]+)"', grid)
        self.assertEqual(outcomes, ["stopped"] * 4 + ["late"] * 4 + ["ran"] * 2 + ["skipped"] * 2)
        glyphs = re.findall(r'class="sdk-grid-cell"[^>]*>([^<]+)</td>', grid)
        self.assertEqual(glyphs, [render_book.OUTCOMES[key][0] for key in outcomes])

    def test_the_legend_names_exactly_the_glyphs_used(self):
        grid = render_book.grid(expected())
        legend = grid[grid.index('<ul class="sdk-grid-legend">') :]
        named = re.findall(r"<li><strong>(?:<span[^>]*>)?([^<\s]+)(?:</span>)? ", legend)
        self.assertEqual(named, [render_book.OUTCOMES[key][0] for key in ("stopped", "late", "ran", "skipped")])

    def test_html_is_escaped_and_hover_carries_the_facts(self):
        grid = render_book.grid(expected())
        self.assertIn("<code>pkg-&lt;b&gt;</code>", grid)
        self.assertIn('title="stopped: notifications/cancelled (reason &quot;timed out&quot;); handler stopped by the cancel; caller saw SdkError: Request timed out"', grid)

    def test_a_blank_line_inside_the_grid_would_end_the_html_block(self):
        grid = render_book.grid(expected())
        html_part = grid[: grid.index("</div>")]
        self.assertNotIn("\n\n", html_part)


class Chapter(unittest.TestCase):
    def test_rows_are_folded_and_placeholders_replaced(self):
        chapter = render_book.render("# T\n\n{{grid}}\n\n{{versions}}\n\n{{matrix a}}\n\n{{matrix b}}\n", expected())
        self.assertNotIn("{{", chapter)
        self.assertEqual(chapter.count("<details>"), 2)
        self.assertIn("<summary>Every run of pkg-a 1.2, in detail (8 rows)</summary>\n\n| Way of stopping", chapter)
        self.assertIn("Not run: b 1.0 does not speak 2026-07-28 (every way of stopping).\n\n</details>", chapter)

    def test_the_grid_and_versions_follow_the_order_of_the_sections(self):
        chapter = render_book.render("{{versions}}\n\n{{grid}}\n\n{{matrix b}}\n\n{{matrix a}}\n", expected())
        grid = chapter[chapter.index('<table class="sdk-grid">') :]
        self.assertLess(grid.index("pkg-&lt;b&gt;"), grid.index("pkg-a"))
        self.assertLess(chapter.index("| b | `pkg-<b>`"), chapter.index("| a | `pkg-a`"))

    def test_an_unknown_sdk_in_the_template_is_an_error(self):
        with self.assertRaises(KeyError):
            render_book.render("{{matrix zz}}\n", expected())


class Template(unittest.TestCase):
    def test_the_chapters_template_renders_whole(self):
        self.assertEqual(render_book.template_problems(render_book.TEMPLATE.read_text()), [])

    def test_a_placeholder_folded_without_blank_lines_is_a_problem(self):
        problems = render_book.template_problems("<details>\n<summary>s</summary>\n{{history}}\n\n</details>\n")
        self.assertEqual(problems, ["line 3: {{history}} needs a blank line before and after it"])

    def test_a_fold_never_closed_is_a_problem(self):
        problems = render_book.template_problems("<details>\n<summary>s</summary>\n\n{{grid}}\n\nText.\n")
        self.assertEqual(problems, ["1 <details> opened, 0 closed"])


if __name__ == "__main__":
    unittest.main()
