"""Tests of interop/snippets/run_examples.py's verdict on one run (run by interop/run.sh)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "snippets"))

from run_examples import ARTIFACTS, problems  # noqa: E402

EXPECTED = "opened go\ngate go opened\n"
TRANSCRIPT = """\
→ req 1 server/discover 2026-07-28
→ req 2 tools/call wait_gate {"gate":"go"}
→ req 3 tools/call open_gate {"gate":"go"}
← resp 3 result "opened go"
← resp 2 result "gate go opened"
"""
SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>tools/call wait_gate</text></svg>\n'


class Verdict(unittest.TestCase):
    def test_a_good_run_has_no_problems(self):
        self.assertEqual(problems(0, EXPECTED, EXPECTED, ARTIFACTS, TRANSCRIPT, SVG), [])

    def test_each_kind_of_bad_run_is_named(self):
        cases = {
            "exit code 1": (1, EXPECTED, ARTIFACTS, TRANSCRIPT, SVG),
            "stdout 'opened go\\n'": (0, "opened go\n", ARTIFACTS, TRANSCRIPT, SVG),
            "artifacts ['10-wire_transcript.txt']": (0, EXPECTED, ARTIFACTS[:1], TRANSCRIPT, SVG),
            "tools/call wait_gate": (0, EXPECTED, ARTIFACTS, TRANSCRIPT.replace("wait_gate", "echo"), SVG),
            "gate go opened": (0, EXPECTED, ARTIFACTS, TRANSCRIPT.replace('"gate go opened"', '"cancelled"'), SVG),
            "not an SVG": (0, EXPECTED, ARTIFACTS, TRANSCRIPT, "<html></html>"),
        }
        for needle, (code, stdout, files, transcript, svg) in cases.items():
            with self.subTest(needle):
                found = problems(code, stdout, EXPECTED, files, transcript, svg)
                self.assertEqual(len(found), 1, found)
                self.assertIn(needle, found[0])


if __name__ == "__main__":
    unittest.main()
