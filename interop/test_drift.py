"""Tests of drift.py: a changed cell, the snippets that rely on its row, failing snippets, the
report, and interop/reliance.json against the real book and expected.json.

Run: python3 -m unittest discover -s interop (interop/run.sh runs them before the matrix).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

import drift
from test_history import LEAKED, expected_with, row
from test_render_book import STOPPED

# A small book: the rows' selectors name a chapter, a `##` section and a language.
CHAPTER = """# Cancelling from the client

## Dropping the `call_tool` future

Prose.

```rust
let x = 1;
```

```python
print("not rust")
```

## Timeouts

```rust
let y = 2;
```
"""
RELIANCE = {
    "_about": "test",
    "rmcp": {
        "dropped call_tool future": [{"chapter": "client-cancellation.md", "section": "Dropping the `call_tool` future", "language": "rust"}],
        "timeout": [{"chapter": "client-cancellation.md", "section": "Timeouts", "language": "rust"}],
    },
}
JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="mdbook-snippets" tests="3" failures="1" errors="0">
  <testsuite name="mdbook-snippets" tests="3" failures="1">
    <testcase name="client-cancellation.md:7" classname="client-cancellation.md">
      <failure type="output differs" message="the output differs from the expected block">-cancel reason: "request abandoned by the caller"
+cancel reason: </failure>
    </testcase>
    <testcase name="client-cancellation.md:17" classname="client-cancellation.md"/>
    <testcase name="progress.md:3" classname="progress.md"><skipped/></testcase>
  </testsuite>
</testsuites>
"""


class FakeRelease(unittest.TestCase):
    """A fake "new release" whose matrix differs from expected.json in exactly one cell."""

    def setUp(self):
        self.expected = expected_with({"dropped call_tool future": row(STOPPED, STOPPED), "timeout": row(STOPPED, STOPPED)})
        self.observed = copy.deepcopy(self.expected)
        self.observed["matrix"]["rmcp"]["dropped call_tool future"]["2025-11-25"]["stdio"] = LEAKED
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        book = Path(directory.name)
        (book / "client-cancellation.md").write_text(CHAPTER)
        self.snippets = drift.book_snippets(book)

    def report(self, changes, failed=None):
        versions = {"rmcp": "3.5.0", "python": "2.3.0", "typescript": "1.32.2", "typescript-v2": "2.4.0"}
        return drift.report(versions, ["rmcp"], changes, 16, failed, RELIANCE, self.snippets, self.expected)

    def test_exactly_the_changed_cell_is_found(self):
        changes = drift.cell_changes(self.expected, self.observed)
        self.assertEqual([(c["sdk"], c["scenario"], c["revision"], c["transport"]) for c in changes], [("rmcp", "dropped call_tool future", "2025-11-25", "stdio")])
        self.assertEqual(drift.cell_changes(self.expected, copy.deepcopy(self.expected)), [])

    def test_the_report_names_the_cell_old_and_new_and_the_snippets_relying_on_it(self):
        text = self.report(drift.cell_changes(self.expected, self.observed))
        self.assertIn("## Matrix cells that differ from interop/expected.json: 1 of 16", text)
        self.assertIn("### rmcp / dropped call_tool future", text)
        self.assertIn("- `rmcp` 3.5.0 (the book: 3.11.0)", text)
        self.assertIn("- `@modelcontextprotocol/sdk` 1.32.2 ", text)
        self.assertIn("- 2025-11-25 / stdio: \u2713 stopped -> \u2717 abandoned", text)
        # The facts side by side: the book's (the pin) and the new release's.
        lines = text.splitlines()
        header = next(line for line in lines if line.strip().startswith("fact"))
        self.assertIn("book (3.11.0)", header)
        self.assertIn("new (3.5.0)", header)
        sent = next(line for line in lines if line.strip().startswith("cancel sent "))
        self.assertEqual(sent.split(), ["cancel", "sent", "true", "false"])
        self.assertIn("- book snippets that rely on this row: book/client-cancellation.md:7", text)
        # The other row's snippet (the `Timeouts` section) and the Python block are not named.
        self.assertNotIn("client-cancellation.md:17", text)
        self.assertNotIn("client-cancellation.md:11", text)
        self.assertTrue(text.rstrip().endswith("DRIFT: the book no longer says what these releases do"))

    def test_a_failing_snippet_is_reported_with_the_row_it_relies_on(self):
        failed = drift.failures(JUNIT)
        self.assertEqual(list(failed), ["book/client-cancellation.md:7"])
        text = self.report([], failed)
        self.assertIn("## Book snippets that no longer do what the chapter says: 1 of 3", text)
        self.assertIn("- book/client-cancellation.md:7 (output differs); relies on rmcp / dropped call_tool future", text)
        self.assertIn("  - new: the output differs from the expected block", text)
        self.assertIn('    +cancel reason:', text)

    def test_nothing_changed_says_so(self):
        text = self.report([], {})
        self.assertIn("differ from interop/expected.json: 0 of 16", text)
        self.assertTrue(text.rstrip().endswith("no drift: every cell and snippet run agrees with the book"))

    def test_a_cell_that_could_not_run_is_a_change(self):
        self.observed["matrix"]["rmcp"]["timeout"]["2026-07-28"]["http"] = {"error": "exit 2: no such method"}
        text = self.report(drift.cell_changes(self.expected, self.observed))
        self.assertIn("- 2026-07-28 / http: \u2713 stopped -> could not run", text)


class ExitCodes(unittest.TestCase):
    """drift.py's interface: 0 nothing differs, 1 something does, 2 it could not run (the runner faked)."""

    def run_main(self, observed=None, error=None):
        expected = json.loads((drift.INTEROP / "expected.json").read_text())
        observed = observed if observed is not None else {"sdks": {}, "matrix": {"rmcp": copy.deepcopy(expected["matrix"]["rmcp"])}}

        def fake_program(sdk, version, work):
            if error:
                raise error
            return ["true"]

        saved = (drift.program, drift.matrix.observe, sys.argv)
        drift.program = fake_program
        drift.matrix.observe = lambda *args, **kwargs: observed
        with tempfile.TemporaryDirectory() as work:
            sys.argv = ["drift.py", "--matrix-only", "--work", work, "rmcp=3.5.0"]
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                    status = drift.main()
            finally:
                drift.program, drift.matrix.observe, sys.argv = saved
        return status, out.getvalue()

    def test_nothing_differs(self):
        status, report = self.run_main()
        self.assertEqual(status, 0)
        self.assertIn("no drift", report)

    def test_one_cell_differs(self):
        expected = json.loads((drift.INTEROP / "expected.json").read_text())
        matrix = copy.deepcopy(expected["matrix"]["rmcp"])
        matrix["dropped call_tool future"]["2025-11-25"]["stdio"] = LEAKED
        status, report = self.run_main({"sdks": {}, "matrix": {"rmcp": matrix}})
        self.assertEqual(status, 1)
        self.assertIn("### rmcp / dropped call_tool future", report)
        self.assertIn("book/client-cancellation.md:", report)

    def test_an_install_that_fails(self):
        status, report = self.run_main(error=drift.releases.InstallError("npm install failed"))
        self.assertEqual((status, report), (2, ""))


class Snippets(unittest.TestCase):
    def test_sections_languages_and_fence_lines(self):
        with tempfile.TemporaryDirectory() as directory:
            (Path(directory) / "a.md").write_text(CHAPTER + "\n````rust\n```python\n````\n")
            found = drift.book_snippets(Path(directory))
        self.assertEqual([(s["line"], s["language"], s["section"]) for s in found], [(7, "rust", "Dropping the `call_tool` future"), (11, "python", "Dropping the `call_tool` future"), (17, "rust", "Timeouts"), (21, "rust", "Timeouts")])


class Reliance(unittest.TestCase):
    """interop/reliance.json against the real book and expected.json: a renamed section or row fails here."""

    def test_every_selector_finds_a_snippet_and_every_row_exists(self):
        reliance = json.loads(drift.RELIANCE.read_text())
        expected = json.loads((drift.INTEROP / "expected.json").read_text())
        snippets = drift.book_snippets(drift.ROOT / "book")
        for sdk, rows in reliance.items():
            if sdk.startswith("_"):
                continue
            for scenario, selectors in rows.items():
                self.assertIn(scenario, expected["sdks"][sdk]["scenarios"], f"{sdk} / {scenario}")
                for selector in selectors:
                    matched = [s for s in snippets if all(s[key] == selector[key] for key in ("chapter", "section", "language"))]
                    self.assertTrue(matched, f"{sdk} / {scenario}: {selector} matches no snippet of the book")


class Choose(unittest.TestCase):
    def test_named_releases_and_pins_for_the_rest(self):
        versions, chosen = drift.choose(["rmcp=3.5.0", "@modelcontextprotocol/client=2.0.0"])
        pins = drift.releases.pinned_versions()
        self.assertEqual(chosen, ["rmcp", "typescript-v2"])
        self.assertEqual(versions, dict(pins, rmcp="3.5.0", **{"typescript-v2": "2.0.0"}))

    def test_bad_arguments(self):
        for argument in ("rmcp", "left-pad=1.0.0", "=1.0"):
            with self.assertRaises(ValueError):
                drift.choose([argument])


if __name__ == "__main__":
    unittest.main()
