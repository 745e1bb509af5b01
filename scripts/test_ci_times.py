"""Tests of scripts/ci-times.py on a `.ci/run` log: each step's wall and CPU time, a background
step's CPU taken out of the step it ended in and shown on its own, and the test binaries.
Run with `python3 scripts/test_ci_times.py`."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import tempfile
import unittest
from pathlib import Path

spec = importlib.util.spec_from_file_location("ci_times", Path(__file__).resolve().parent / "ci-times.py")
assert spec is not None and spec.loader is not None
ci_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ci_times)

# Two steps; the background step `install` (started in the first, 30 s of CPU) ends during the
# second, whose CPU so far grows by 40 s: 10 s of it its own.
LOG = """\

=== lint (0s)
--- cpu so far (user sys): 0m0.000s 0m0.000s
--- background cpu so far (user sys): 0m0.000s 0m0.000s

=== tests (100s)
--- cpu so far (user sys): 1m0.000s 0m5.000s
--- background cpu so far (user sys): 0m0.000s 0m0.000s
     Running tests/main.rs (target/debug/deps/main-0123)
test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 42.50s
test a_long_first::the_book has been running for over 60 seconds

=== wait for install (300s)
--- cpu so far (user sys): 1m40.000s 0m5.000s
--- background cpu so far (user sys): 0m25.000s 0m5.000s
--- background install: started at 20s, ended at 250s, waited for at 300s, exit 0, cpu (user sys): 0m25.000s 0m5.000s
--- background matrix: started at 30s, ended at ?s, waited for at 300s, exit 143, cpu (user sys): ? ?
--- background contract: started at 40s, ended at 60s, waited for at 301s, exit 0, cpu (user sys): 0m1.000s 0m0.500s (not waited for: the run stopped first)

=== done (301s)
--- cpu so far (user sys): 1m40.000s 0m5.000s
--- background cpu so far (user sys): 0m25.000s 0m5.000s
"""


class CiTimes(unittest.TestCase):
    def lines(self) -> list[str]:
        return LOG.splitlines()

    def test_a_background_steps_cpu_is_taken_out_of_the_step_it_ended_in(self) -> None:
        self.assertEqual(
            ci_times.steps(self.lines()),
            [("lint", 100, False, 65.0), ("tests", 200, False, 10.0), ("wait for install", 1, False, 0.0)],
        )

    def test_background_steps_with_their_wall_and_cpu_or_unknown(self) -> None:
        self.assertEqual(
            ci_times.background_steps(self.lines()),
            [("install", 230, 30.0, 0), ("matrix", None, None, 143), ("contract", 20, 1.5, 0)],
        )

    def test_a_log_without_background_lines_keeps_the_steps_cpu(self) -> None:
        old = [line for line in self.lines() if not line.startswith("--- background")]
        self.assertEqual([cpu for *_, cpu in ci_times.steps(old)], [65.0, 40.0, 0.0])

    def test_the_report(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "ci-log.txt"
            log.write_text(LOG)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(ci_times.main(["ci-times.py", str(log)]), 0)
        report = out.getvalue()
        self.assertIn("where .ci/run's time went (301 s in finished steps, 106 s CPU with the background steps'):", report)
        self.assertIn("     200 s      10 s CPU  tests\n", report)
        self.assertIn("     230 s      30 s CPU  install\n", report)
        self.assertIn("       ? s       ? s CPU  matrix  (exit 143)\n", report)
        # A step the run stopped before waiting for (its line from .ci/run's exit trap).
        self.assertIn("      20 s       2 s CPU  contract\n", report)
        self.assertIn("      42.5 s     3 tests  tests/main.rs", report)
        self.assertIn("tests running for over 60 s: a_long_first::the_book", report)


if __name__ == "__main__":
    unittest.main()
