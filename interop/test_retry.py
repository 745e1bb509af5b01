"""Tests of matrix.retry_failed_runs: a cell whose run failed (`{"error": ...}`) is run again,
one at a time, until a run does not fail or RERUNS runs failed; a cell that ran, whatever it
measured, is not; the last failure stays a failure. And of matrix.retry_differing_cells: a cell
that ran and differs from expected.json (racy cells as racy.py compares them) runs once more, and
the second run is kept, agreeing or not.
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
        # The run abort's first rerun ran; the tool timeout failed every time, three reruns.
        self.assertEqual(seen, [("fw", "run abort", "default", "http")] + [("fw", "tool timeout", "default", "stdio")] * matrix.RERUNS)
        self.assertEqual(rerun_cells, ["fw / run abort / default / http", "fw / tool timeout / default / stdio"])
        cells = matrix_["matrix"]["fw"]
        self.assertEqual(cells["run abort"]["default"]["http"], {"cancel sent": "no"})
        self.assertEqual(cells["run abort"]["default"]["stdio"], {"cancel sent": "yes"})
        self.assertEqual(cells["tool timeout"]["default"]["stdio"], {"error": "timed out again"})
        self.assertEqual(cells["tool timeout"]["default"]["http"], {"skipped": "no"})
        self.assertIn("rerun 1 of 3, one at a time: fw / run abort / default / http", out.getvalue())
        self.assertIn("rerun 3 of 3, one at a time: fw / tool timeout / default / stdio (its run failed: timed out again)", out.getvalue())
        self.assertNotIn("rerun 2 of 3, one at a time: fw / run abort", out.getvalue())
        self.assertEqual(matrix.errors(matrix_), ["fw / tool timeout / default / stdio: timed out again"])

    def test_a_run_that_fails_then_runs_keeps_the_run(self) -> None:
        results = iter([{"error": "the stop came 40 ms before the `slow` call reached the server"}, {"cancel sent": "no"}])
        matrix_ = observed()
        matrix_["matrix"]["fw"]["tool timeout"]["default"]["stdio"] = {"cancel sent": "no"}
        with contextlib.redirect_stdout(io.StringIO()):
            matrix.retry_failed_runs(matrix_, lambda *cell: next(results))
        self.assertEqual(matrix_["matrix"]["fw"]["run abort"]["default"]["http"], {"cancel sent": "no"})
        self.assertEqual(matrix.errors(matrix_), [])

    def test_a_matrix_without_failed_runs_runs_nothing(self) -> None:
        matrix_ = observed()
        matrix_["matrix"]["fw"]["run abort"]["default"]["http"] = {"cancel sent": "no"}
        matrix_["matrix"]["fw"]["tool timeout"]["default"]["stdio"] = {"cancel sent": "no"}
        self.assertEqual(matrix.retry_failed_runs(matrix_, lambda *cell: self.fail(f"ran {cell}")), [])


class RetryDifferingCells(unittest.TestCase):
    def expected(self) -> dict:
        return {"matrix": {"fw": {
            "run abort": {"default": {"stdio": {"cancel after stop": "<1 s"}, "http": {"cancel after stop": "<1 s"}}},
            # A racy cell: either outcome agrees (racy.py).
            "tool timeout": {"default": {"stdio": {"racy": [{"cancel sent": "yes"}, {"cancel sent": "no"}]}, "http": {"cancel after stop": "<1 s"}}},
        }}}

    def observed(self) -> dict:
        return {"sdks": {"fw": {"framework": True}}, "matrix": {"fw": {
            "run abort": {"default": {"stdio": {"cancel after stop": ">1 s"}, "http": {"cancel after stop": "<1 s"}}},
            "tool timeout": {"default": {"stdio": {"cancel sent": "no"}, "http": {"cancel after stop": ">1 s"}}},
            "new scenario": {"default": {"stdio": {"cancel sent": "no"}, "http": {"error": "timed out"}}},
        }}}

    def test_only_differing_cells_run_again_once_and_the_second_run_is_kept(self) -> None:
        seen = []
        second = {("fw", "run abort", "default", "stdio"): {"cancel after stop": "<1 s"}, ("fw", "tool timeout", "default", "http"): {"cancel after stop": ">1 s"}}

        def rerun(*cell):
            seen.append(cell)
            return second[cell]

        matrix_ = self.observed()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            again = matrix.retry_differing_cells(matrix_, self.expected(), rerun)
        # Not the agreeing cells, not the racy cell one of whose outcomes it is, not a cell with
        # no expectation, not a failed run (retry_failed_runs has had it).
        self.assertEqual(seen, [("fw", "run abort", "default", "stdio"), ("fw", "tool timeout", "default", "http")])
        self.assertEqual(again, ["fw / run abort / default / stdio", "fw / tool timeout / default / http"])
        cells = matrix_["matrix"]["fw"]
        self.assertEqual(cells["run abort"]["default"]["stdio"], {"cancel after stop": "<1 s"})
        # A difference that holds twice stays: the comparison after it fails.
        self.assertEqual(cells["tool timeout"]["default"]["http"], {"cancel after stop": ">1 s"})
        # (and the new scenario's two cells, with no expectation, count as differing too).
        self.assertEqual(matrix.compare_cells(self.expected(), matrix_), (3, 3))
        self.assertIn('run again, one at a time: fw / run abort / default / stdio (it differed from expected.json: {"cancel after stop": ">1 s"})', out.getvalue())

    def test_a_matrix_that_agrees_runs_nothing_again(self) -> None:
        matrix_ = self.observed()
        matrix_["matrix"]["fw"]["run abort"]["default"]["stdio"] = {"cancel after stop": "<1 s"}
        matrix_["matrix"]["fw"]["tool timeout"]["default"]["http"] = {"cancel after stop": "<1 s"}
        self.assertEqual(matrix.retry_differing_cells(matrix_, self.expected(), lambda *cell: self.fail(f"ran {cell}")), [])


if __name__ == "__main__":
    unittest.main()
