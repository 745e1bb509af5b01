"""Tests of render_picker.py: the SDK version picker's markup, and that the committed include is
what interop/history.json gives.

Run: python3 -m unittest discover -s interop (interop/run.sh runs them before the matrix;
scripts/browser-check.sh runs `render_picker.py --check` before it builds the book).
"""

from __future__ import annotations

import json
import re
import unittest

import render_picker

EXPECTED = {
    "sdks": {
        "python": {"package": "mcp", "version": "2.3.0"},
        "rmcp": {"package": "rmcp", "version": "3.11.0"},
        "typescript": {"package": "@modelcontextprotocol/sdk", "version": "1.32.2"},
        "typescript-v2": {"package": "@modelcontextprotocol/client", "version": "2.4.0"},
    }
}


def history(**releases: list[str]) -> dict:
    return {"releases": {sdk.replace("_", "-"): {version: {} for version in versions} for sdk, versions in releases.items()}}


def options(markup: str, key: str) -> list[str]:
    """The option texts of the select `data-sdk-picker=key`."""
    select = re.search(rf'<select data-sdk-picker="{key}"[^>]*>(.*?)</select>', markup)
    assert select, markup
    return re.findall(r"<option value=\"[^\"]*\">([^<]*)</option>", select.group(1))


class Markup(unittest.TestCase):
    def test_releases_are_ordered_as_numbers_with_the_pin_named(self):
        markup = render_picker.render(history(rmcp=["3.6.0", "3.11.0", "3.0.0", "3.5.1"]), EXPECTED)
        self.assertEqual(options(markup, "rmcp"), ["not chosen", "3.0.0", "3.5.1", "3.6.0", "3.11.0 (the book's pin)"])

    def test_a_pin_not_yet_measured_is_listed_too(self):
        markup = render_picker.render(history(python=["1.30.0"]), EXPECTED)
        self.assertEqual(options(markup, "python"), ["not chosen", "1.30.0", "2.3.0 (the book's pin)"])

    def test_typescript_lists_both_lines_by_package(self):
        markup = render_picker.render(history(typescript=["1.25.0"], typescript_v2=["2.0.0"]), EXPECTED)
        self.assertEqual(
            options(markup, "typescript"),
            [
                "not chosen",
                "1.25.0 (@modelcontextprotocol/sdk)",
                "1.32.2 (@modelcontextprotocol/sdk, the book's pin)",
                "2.0.0 (@modelcontextprotocol/client)",
                "2.4.0 (@modelcontextprotocol/client, the book's pin)",
            ],
        )

    def test_each_select_names_its_sdk_as_the_marks_do(self):
        markup = render_picker.render(history(), EXPECTED)
        self.assertEqual(
            re.findall(r'<select data-sdk-picker="([^"]+)" data-sdk="([^"]+)">', markup),
            [("rmcp", "rmcp"), ("python", "mcp"), ("typescript", "typescript")],
        )

    def test_hidden_until_the_script_shows_it_and_one_html_block(self):
        markup = render_picker.render(history(), EXPECTED)
        self.assertIn('<div class="sdk-picker" hidden>', markup)
        # A blank line would end the HTML block and turn the rest into Markdown paragraphs.
        self.assertNotIn("\n\n", markup)

    def test_one_release_in_both_typescript_lines_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "1.32.2"):
            render_picker.render(history(typescript_v2=["1.32.2"]), EXPECTED)


def framework_release(**verdict_facts: dict) -> dict:
    """One framework release's history row: each way of stopping's stdio cell."""
    return {"matrix": {scenario: {"default": {"stdio": facts}} for scenario, facts in verdict_facts.items()}}


# Two measured cells (interop/expected.json): a cancel sent, and a call that ran to its end.
SENT = {'before the call': 'server/discover, tools/list, tools/call, tools/list, tools/list, tools/call, tools/list, tools/list', 'caller returned': 'promptly', 'caller saw': 'asyncio.CancelledError', 'cancel after stop': '<1 s', 'cancel reason': 'caller cancelled', 'cancel requestId': '9', 'cancel sent': True, 'handler': 'stopped by the cancel', 'next call': 'ok', 'response stream closed': None, 'revision on the wire': '2026-07-28', 'server sent after cancel': [], 'tasks/cancel sent': False}
RAN = {'before the call': 'initialize (proposes 2025-11-25), notifications/initialized, tools/list, tools/list, tools/call', 'caller returned': 'promptly', 'caller saw': 'asyncio.CancelledError', 'cancel after stop': None, 'cancel reason': None, 'cancel requestId': None, 'cancel sent': False, 'handler': 'completed (no cancel)', 'next call': 'ok', 'response stream closed': None, 'revision on the wire': '2025-11-25', 'server sent after cancel': None, 'tasks/cancel sent': False}
WITH_FRAMEWORKS = {
    "sdks": {
        **EXPECTED["sdks"],
        "fastmcp": {"package": "fastmcp", "version": "4.1.6", "framework": True},
        "mcp-use": {"package": "mcp-use", "version": "1.7.1", "framework": True},
        "pydantic-ai": {"package": "pydantic-ai-slim", "version": "2.68.0", "framework": True},
    }
}


class Frameworks(unittest.TestCase):
    def test_a_framework_whose_cells_changed_between_releases_is_offered_after_the_sdks(self):
        releases = {
            "fastmcp": {"2.12.0": framework_release(**{"run abort": RAN}), "4.1.6": framework_release(**{"run abort": SENT})},
            # Two releases that behave alike, and one measured at its pin only: nothing to tell apart.
            "mcp-use": {"1.6.0": framework_release(**{"run abort": RAN}), "1.7.1": framework_release(**{"run abort": RAN})},
            "pydantic-ai": {"2.68.0": framework_release(**{"run abort": SENT})},
        }
        markup = render_picker.render({"releases": releases}, WITH_FRAMEWORKS)
        self.assertEqual(
            re.findall(r'<select data-sdk-picker="([^"]+)" data-sdk="([^"]+)">', markup),
            [("rmcp", "rmcp"), ("python", "mcp"), ("typescript", "typescript"), ("fastmcp", "fastmcp")],
        )
        self.assertEqual(options(markup, "fastmcp"), ["not chosen", "2.12.0", "4.1.6 (the book's pin)"])
        self.assertIn("<span><code>fastmcp</code></span>", markup)

    def test_the_committed_history_offers_fastmcp_and_strands_agents(self):
        committed = json.loads(render_picker.HISTORY.read_text())
        expected = json.loads(render_picker.EXPECTED.read_text())
        self.assertEqual(render_picker.changing_frameworks(committed, expected), ["fastmcp", "strands-agents"])


class Committed(unittest.TestCase):
    def test_the_committed_include_is_what_history_json_gives(self):
        rendered = render_picker.render(json.loads(render_picker.HISTORY.read_text()), json.loads(render_picker.EXPECTED.read_text()))
        self.assertEqual(render_picker.INCLUDE.read_text(), rendered, "run `python3 interop/render_picker.py`")

    def test_the_chapters_that_show_the_picker_include_it(self):
        book = render_picker.ROOT / "book"
        for chapter in (book / "short-answer.md", render_picker.ROOT / "interop" / "sdk-matrix.template.md", book / "frameworks.md"):
            self.assertTrue("{{#include generated/sdk-picker.md}}" in chapter.read_text(), f"{chapter} does not include the picker")


if __name__ == "__main__":
    unittest.main()
