"""Tests of interop/frameworks/servers/measure.py's judging: what a tool's events file and the
server's messages after a stop become as facts (the measurement itself is `measure.py --check`)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "frameworks" / "servers"))
import measure  # noqa: E402


def events(*lines: tuple[float, str]) -> list[tuple[float, str]]:
    return list(lines)


class Judge(unittest.TestCase):
    def check(self, lines, expected: dict) -> None:
        self.assertEqual(measure.judge(lines, stopped_at=10.0), expected)

    def test_a_tool_interrupted_at_the_stop(self) -> None:
        self.check(
            events((9.4, "started request_id='1'"), (9.6, "step 1"), (9.8, "step 2"),
                   (10.0, "interrupted by CancelledError"), (10.0, "middleware finally")),
            {"tool saw": "interrupted by CancelledError", "tool": "stopped at the stop",
             "middleware finally": "ran"},
        )

    def test_a_tool_that_ran_every_step(self) -> None:
        steps = [(9.4 + 0.2 * n, f"step {n}") for n in range(1, 16)]
        self.check(
            events((9.4, "started request_id='1'"), *steps, (12.4, "returned")),
            {"tool saw": "nothing", "tool": "ran to the end", "middleware finally": "never ran"},
        )

    def test_a_signal_seen_and_steps_after_it(self) -> None:
        self.check(
            events((9.4, "started request_id=undefined"), (10.0, "signal aborted: x"),
                   (10.6, "step 4")),
            {"tool saw": "signal aborted: x", "tool": "stopped late",
             "middleware finally": "never ran"},
        )


class Describe(unittest.TestCase):
    def test_what_the_server_sent_after_the_stop(self) -> None:
        self.assertEqual(measure.describe([]), "nothing")
        error = {"id": 1, "error": {"code": -32800, "message": "Request cancelled"}}
        self.assertEqual(measure.describe([error]), "error -32800 'Request cancelled'")
        self.assertEqual(measure.describe([{"id": 1, "result": {}}]), "the result")


class Stamped(unittest.TestCase):
    def test_only_2026_07_28_requests_carry_the_stamp(self) -> None:
        self.assertEqual(measure.stamped("2025-11-25", {"name": "slow"}), {"name": "slow"})
        meta = measure.stamped("2026-07-28", {"name": "slow"})["_meta"]
        self.assertEqual(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28")


class MeasureAgain(unittest.TestCase):
    """`--check` measures a differing cell once more and compares the second measurement."""

    def setUp(self) -> None:
        server = {"name": "fastmcp", "sync_tool": "slow_sync"}
        self.chosen = measure.cells([server], ["stdio 2025-11-25"])
        self.keys = [" ".join(cell[1:]) for cell in self.chosen]
        self.stopped = {"tool": "stopped"}
        self.expected = {"fastmcp": {key: self.stopped for key in self.keys}}

    def run_again(self, results: dict, second: dict):
        asked = []

        def run(retry):
            asked.extend(" ".join(cell[1:]) for cell in retry)
            return {"fastmcp": {" ".join(cell[1:]): second for cell in retry}}

        again = measure.measure_again(results, self.expected, self.chosen, run)
        return again, asked

    def test_only_the_cells_that_differed_are_measured_again_and_the_second_is_kept(self) -> None:
        late = {"tool": "ran to the end"}
        results = {"fastmcp": {key: self.stopped for key in self.keys}}
        results["fastmcp"][self.keys[1]] = late
        again, asked = self.run_again(results, self.stopped)
        self.assertEqual(asked, [self.keys[1]])
        self.assertEqual(again, [("fastmcp", self.keys[1])])
        self.assertEqual(measure.differing(results, self.expected), [])

    def test_a_difference_that_holds_twice_is_still_a_difference(self) -> None:
        late = {"tool": "ran to the end"}
        results = {"fastmcp": {key: self.stopped for key in self.keys}}
        results["fastmcp"][self.keys[0]] = late
        self.run_again(results, late)
        self.assertEqual(measure.differing(results, self.expected), [("fastmcp", self.keys[0])])

    def test_nothing_is_measured_again_when_every_cell_is_as_expected(self) -> None:
        results = {"fastmcp": {key: self.stopped for key in self.keys}}
        again, asked = self.run_again(results, {"tool": "ran to the end"})
        self.assertEqual((again, asked), ([], []))
        self.assertEqual(self.keys[:3], ["stdio 2025-11-25 cancel", "stdio 2025-11-25 stdin close",
                                         "stdio 2025-11-25 request id"])


if __name__ == "__main__":
    unittest.main()
