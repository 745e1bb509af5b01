"""Tests of matrix.retry_failed_runs: a cell whose run failed (`{"error": ...}`) is run once more,
one at a time; a cell that ran, whatever it measured, is not; a second failure stays a failure.
Run with `python3 -m unittest discover -s interop`."""

from __future__ import annotations

import contextlib
import io
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matrix  # noqa: E402


def observed() -> dict:
    return {"sdks": {"fw": {"framework": True}}, "matrix": {"fw": {"run abort": {"default": {
        "stdio": {"cancel sent": "yes"},
        "http": {"error": "the stop came before the call reached the server"},
    }}, "tool timeout": {"default": {"stdio": {"error": "timed out"}, "http": {"skipped": "no"}}}}}}


class RetryFailedRuns(unittest.TestCase):
    def test_only_failed_runs_are_run_again_and_their_new_result_kept(self) -> None:
        seen = []

        def rerun(sdk, scenario, revision, transport):
            seen.append((sdk, scenario, revision, transport))
            return {"cancel sent": "no"} if scenario == "run abort" else {"error": "timed out again"}

        matrix_ = observed()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rerun_cells = matrix.retry_failed_runs(matrix_, rerun)
        self.assertEqual(seen, [("fw", "run abort", "default", "http"), ("fw", "tool timeout", "default", "stdio")])
        self.assertEqual(rerun_cells, ["fw / run abort / default / http", "fw / tool timeout / default / stdio"])
        cells = matrix_["matrix"]["fw"]
        self.assertEqual(cells["run abort"]["default"]["http"], {"cancel sent": "no"})
        self.assertEqual(cells["run abort"]["default"]["stdio"], {"cancel sent": "yes"})
        self.assertEqual(cells["tool timeout"]["default"]["stdio"], {"error": "timed out again"})
        self.assertEqual(cells["tool timeout"]["default"]["http"], {"skipped": "no"})
        self.assertIn("rerun, one at a time: fw / run abort / default / http", out.getvalue())
        self.assertEqual(matrix.errors(matrix_), ["fw / tool timeout / default / stdio: timed out again"])

    def test_a_matrix_without_failed_runs_runs_nothing(self) -> None:
        matrix_ = observed()
        matrix_["matrix"]["fw"]["run abort"]["default"]["http"] = {"cancel sent": "no"}
        matrix_["matrix"]["fw"]["tool timeout"]["default"]["stdio"] = {"cancel sent": "no"}
        self.assertEqual(matrix.retry_failed_runs(matrix_, lambda *cell: self.fail(f"ran {cell}")), [])


if __name__ == "__main__":
    unittest.main()
