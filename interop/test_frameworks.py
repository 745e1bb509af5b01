"""Tests of the framework cells' judgement and grid: facts.framework_facts (from a server record),
outcomes.framework_outcome, render_frameworks (the grid, its links, its details, --check's
input), matrix.read_record (one file per stdio server process, merged) and framework_cells
(frameworks.json, --only groups, placeholders). Run with `python3 -m unittest discover -s interop`."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import facts  # noqa: E402
import framework_cells  # noqa: E402
import matrix  # noqa: E402
import render_frameworks  # noqa: E402
from outcomes import framework_outcome  # noqa: E402

CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "slow", "arguments": {"steps": 15, "step_ms": 200}, "_meta": {"progressToken": 3}}}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
INIT_OK = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}
CANCEL = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "caller cancelled"}}
RESULT = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "completed 15 steps"}]}}


def record(*entries: tuple[int, str, dict]) -> list[dict]:
    return [{"at_ms": at, "direction": direction, "message": message} for at, direction, message in entries]


def report(transcript: list[dict], stopped: int | None = 1600, returned: int | None = 1610, saw: str = "asyncio.CancelledError", **extra) -> dict:
    return {"scenario": "run abort", "revision": "default", "transport": "stdio", "caller_saw": saw, "stopped_at_ms": stopped, "returned_at_ms": returned, "next_call": "ok", "transcript": transcript, **extra}


class FrameworkFacts(unittest.TestCase):
    def check(self, transcript: list[dict], expected: dict, verdict: str, **kwargs) -> None:
        found = facts.framework_facts(report(transcript, **kwargs))
        self.assertEqual({key: found[key] for key in expected}, expected)
        self.assertEqual(framework_outcome(found), verdict)

    def test_a_cancel_soon_after_the_stop_is_stopped(self) -> None:
        wire = record((1000, "in", INIT), (1001, "out", INIT_OK), (1010, "in", CALL), (1620, "in", CANCEL))
        self.check(wire, {"cancel sent": True, "cancel requestId": "3", "cancel reason": "caller cancelled", "cancel after stop": "<1 s", "caller returned": "promptly", "handler": "stopped by the cancel"}, "stopped")

    def test_a_cancel_more_than_a_second_late_is_late(self) -> None:
        wire = record((1010, "in", CALL), (2700, "in", CANCEL))
        self.check(wire, {"cancel after stop": ">1 s"}, "late")

    def test_no_cancel_and_a_result_nobody_waited_for_ran_to_the_end(self) -> None:
        wire = record((1010, "in", CALL), (4010, "out", RESULT))
        self.check(wire, {"cancel sent": False, "cancel after stop": None, "handler": "completed (no cancel)"}, "leaked")

    def test_a_caller_that_waited_for_the_result_was_not_stopped(self) -> None:
        wire = record((1010, "in", CALL), (4010, "out", RESULT))
        self.check(wire, {"caller returned": "late"}, "ran", returned=4020, saw="completed: done: completed 15 steps")

    def test_a_caller_that_never_returned_hung(self) -> None:
        wire = record((1010, "in", CALL), (4010, "out", RESULT))
        self.check(wire, {"caller returned": "hung"}, "hung", returned=None, saw="hung")

    def test_a_session_that_ended_before_the_answer(self) -> None:
        self.check(record((1010, "in", CALL)), {"handler": "still running when observed (no cancel)"}, "gone")

    def test_progress_after_the_cancel_is_an_ignored_cancel(self) -> None:
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 3, "progress": 4}}
        wire = record((1010, "in", CALL), (1620, "in", CANCEL), (1800, "out", progress))
        self.check(wire, {"server sent after cancel": ["progress"]}, "ignored")

    def test_a_timeout_counts_from_the_recorded_call(self) -> None:
        # The program says "run start + 700 ms" (1700); the call left at 1200, so the stop is 1900.
        wire = record((1200, "in", CALL), (1950, "in", CANCEL))
        self.check(wire, {"cancel after stop": "<1 s"}, "stopped", stopped=1700, timeout_ms=700)

    def test_a_later_session_reusing_the_id_is_not_the_slow_call(self) -> None:
        # A session per call: the next call (another session) has id 3 too and is answered first.
        echo = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "caller resumed"}}}
        echoed = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "caller resumed"}]}}
        wire = record((1010, "in", CALL), (1620, "in", CANCEL), (1700, "in", echo), (1701, "out", echoed))
        self.check(wire, {"handler": "stopped by the cancel", "server sent after cancel": []}, "stopped")
        wire = record((1010, "in", CALL), (1700, "in", echo), (1701, "out", echoed), (4010, "out", RESULT))
        self.check(wire, {"handler": "completed (no cancel)"}, "leaked")

    def test_the_answer_to_a_deleted_session_is_not_the_handlers(self) -> None:
        deleted = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "Not Found", "data": {"sessionDeleted": True}}}
        wire = record((1010, "in", CALL), (1620, "in", CANCEL), (4500, "out", deleted))
        self.check(wire, {"handler": "stopped by the cancel"}, "stopped")

    def test_a_record_without_the_call_is_a_report_error(self) -> None:
        with self.assertRaises(facts.ReportError):
            facts.framework_facts(report(record((1000, "in", INIT))))

    def test_a_stop_before_the_call_reached_the_server_is_a_report_error(self) -> None:
        # Stopped at 1600, the call recorded at 1700: the run stopped a call the server never ran.
        with self.assertRaisesRegex(facts.ReportError, "the stop came 100 ms before the `slow` call reached the server"):
            facts.framework_facts(report(record((1700, "in", CALL), (1710, "in", CANCEL))))
        # At the same millisecond it counts: the call had reached the server.
        self.check(record((1600, "in", CALL), (1610, "in", CANCEL)), {"cancel sent": True}, "stopped")

    def test_buckets_and_returns(self) -> None:
        self.assertEqual([facts.bucket_ms(ms) for ms in (-5, 99, 100, 999, 1000)], ["<1 s", "<1 s", "<1 s", "<1 s", ">1 s"])
        self.assertEqual([facts.caller_returned(*pair) for pair in ((1000, 1999), (1000, 2000), (1000, None), (None, 5))], ["promptly", "late", "hung", "not stopped"])


class Records(unittest.TestCase):
    def test_one_file_per_server_process_merged_in_time_order(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            base = Path(scratch) / "cell.record.jsonl"
            Path(f"{base}.11").write_text(json.dumps({"at_ms": 5, "direction": "in", "message": {"n": 2}}) + "\n{torn")
            Path(f"{base}.12").write_text(json.dumps({"at_ms": 1, "direction": "in", "message": {"n": 1}}) + "\n")
            self.assertEqual([entry["message"]["n"] for entry in matrix.read_record(base)], [1, 2])
            with self.assertRaises(RuntimeError):
                matrix.read_record(Path(scratch) / "none.jsonl")


def expected() -> dict:
    cell = facts.framework_facts(report(record((1010, "in", CALL), (1620, "in", CANCEL))))
    leaked = facts.framework_facts(report(record((1010, "in", CALL), (4010, "out", RESULT))))
    return {
        "sdks": {
            "python": {"package": "mcp", "version": "2.3.0", "revisions": [], "scenarios": []},
            "demo-fw": {"framework": True, "package": "demo", "version": "1.0.0", "mcp_sdk": {"package": "mcp", "version": "2.3.0"}, "revisions": ["default"], "scenarios": ["run abort", "close client"], "unavailable": {"tool timeout": "it has none"}, "default connection": "initialize", "default revision": "2025-11-25"},
        },
        "matrix": {"demo-fw": {"run abort": {"default": {"stdio": cell, "http": cell}}, "close client": {"default": {"stdio": cell, "http": leaked}}}},
    }


class AwaitHandler(unittest.TestCase):
    """framework_cells.await_handler: the runner keeps an HTTP server until the handler's end."""

    def test_an_answer_or_a_cancel_ends_the_wait_at_once(self) -> None:
        now = int(framework_cells.time.time() * 1000)
        for last in (RESULT, CANCEL, {"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "deleted", "data": {"sessionDeleted": True}}}):
            direction = "in" if "method" in last else "out"
            entries = record((now, "in", CALL), (now, direction, last))
            self.assertLess(framework_cells.await_handler(lambda: entries), 0.5, last)

    def test_a_running_handler_is_awaited_until_it_answers(self) -> None:
        now = int(framework_cells.time.time() * 1000)
        reads = []

        def read() -> list[dict]:
            reads.append(1)
            return record((now, "in", CALL)) + (record((now + 300, "out", RESULT)) if len(reads) > 3 else [])

        waited = framework_cells.await_handler(read, poll_s=0.05)
        self.assertGreater(len(reads), 3)
        self.assertLess(waited, 2.0)

    def test_a_handler_that_never_answers_is_awaited_for_its_length_and_the_grace(self) -> None:
        short = {**CALL, "params": {**CALL["params"], "arguments": {"steps": 2, "step_ms": 100}}}
        called = int(framework_cells.time.time() * 1000)
        waited = framework_cells.await_handler(lambda: record((called, "in", short)), poll_s=0.05)
        self.assertGreaterEqual(waited, (200 + framework_cells.HANDLER_GRACE_MS) / 1000 - 0.1)
        self.assertLess(waited, (200 + framework_cells.HANDLER_GRACE_MS) / 1000 + 1.0)

    def test_no_call_and_no_record_wait_for_nothing(self) -> None:
        def missing() -> list[dict]:
            raise RuntimeError("the server wrote no record")

        self.assertLess(framework_cells.await_handler(missing), 0.5)
        self.assertLess(framework_cells.await_handler(lambda: record((0, "in", INIT))), 0.5)


class Grid(unittest.TestCase):
    def test_rows_are_frameworks_and_cells_link_to_their_facts(self) -> None:
        text = render_frameworks.render(expected(), ["demo-fw"])
        self.assertTrue(text.startswith(render_frameworks.NOTICE))
        self.assertNotIn(">python<", text)
        # Columns in the contract's order; a way not offered is a dash with its reason.
        self.assertLess(text.index("<code>tool timeout</code>"), text.index("<code>run abort</code>"))
        self.assertIn('title="it has none"', text)
        # Both transports agree: one glyph and the bucket; they differ: one line each.
        self.assertIn('<a href="#fw-demo-fw-run-abort"><span style="color: #2da44e; font-weight: bold">\u2713</span> cancel &lt;1 s</a>', text)
        self.assertIn("stdio: <span", text)
        self.assertIn("HTTP: <span style=\"color: #e5534b; font-weight: bold\">\u2717</span> ran to the end", text)
        # Every link has its anchor in the details.
        for target in set(__import__("re").findall(r'href="#([^"]+)"', text)):
            self.assertIn(f'<a id="{target}"></a>', text)
        self.assertIn("over `mcp` 2.3.0", text)

    def test_only_glyphs_used_are_in_the_legend(self) -> None:
        text = render_frameworks.render(expected(), [])
        self.assertIn("cancel sent</strong>", text)
        self.assertNotIn("hung</strong>", text)


class AcrossReleases(unittest.TestCase):
    def test_a_framework_measured_at_two_releases_shows_both(self) -> None:
        book = expected()
        leaked = book["matrix"]["demo-fw"]["close client"]["default"]["http"]
        old = {"run abort": {"default": {"stdio": leaked, "http": leaked}}, "tool timeout": {"default": {"stdio": {"n/a": "none"}, "http": {"n/a": "none"}}}}
        history = {"releases": {"demo-fw": {
            "0.9.0": {"sdk": {"mcp_sdk": {"version": "1.30.0"}}, "matrix": old},
            "1.0.0": {"sdk": {"mcp_sdk": {"version": "2.3.0"}}, "matrix": book["matrix"]["demo-fw"]},
        }}}
        text = render_frameworks.render(book, ["demo-fw"], history)
        self.assertIn("| Way of stopping | 0.9.0 | 1.0.0 |", text)
        self.assertIn("| `run abort` | \u2717 \u2717 | \u2713 \u2713 |", text)
        self.assertIn("| `tool timeout` | n/a n/a | not measured |", text)
        self.assertIn("0.9.0: 1.30.0, 1.0.0: 2.3.0", text)
        self.assertNotIn("Across releases", render_frameworks.render(book, ["demo-fw"], {"releases": {"demo-fw": {"1.0.0": history["releases"]["demo-fw"]["1.0.0"]}}}))


class Entries(unittest.TestCase):
    def test_placeholders_and_groups(self) -> None:
        entry = {"name": "x", "dir": "/d", "command": ["{venv}/bin/python", "{dir}/x.py"], "install": "i {venv}", "release_install": "r {venv} x=={version}"}
        work = Path("/w")
        self.assertEqual(framework_cells.command(entry, work), ["/w/frameworks/x/bin/python", "/d/x.py"])
        self.assertEqual(framework_cells.command(entry, work, "2.0"), ["/w/releases/frameworks/x-2.0/bin/python", "/d/x.py"])
        self.assertEqual(framework_cells.fill(entry["release_install"], entry, Path("/p"), "2.0"), "r /p x==2.0")
        names = list(framework_cells.entries())
        self.assertIn("openai-agents", names)
        self.assertEqual(framework_cells.select(["sdks"]), (True, []))
        self.assertEqual(framework_cells.select(["frameworks"]), (False, names))
        self.assertEqual(framework_cells.select(["openai-agents"]), (False, ["openai-agents"]))

    def test_every_python_entry_names_its_files(self) -> None:
        for name, entry in framework_cells.entries().items():
            if entry["language"] != "python":
                continue
            program = Path(entry["command"][1].replace("{dir}", entry["dir"]))
            self.assertTrue(program.is_file(), program)
            self.assertTrue((Path(entry["dir"]) / "requirements" / f"{name}.txt").is_file(), name)


if __name__ == "__main__":
    unittest.main()
