"""Tests of zygote.py and matrix.run_process with it: a program forked from its zygote sees what
`python PROGRAM ARGS` would (argv, sys.path[0], `__name__`, the working directory, the
environment, stdin, stdout, stderr, its own session) and ends the same way (exit codes, an
exception, a signal, the timeout, which kills its process group); its top level runs once in the
zygote, not per cell; a program whose import leaves a thread running, a command that is not a
Python script, and INTEROP_ZYGOTE=0 start their cells as processes of their own.
Run with `python3 -m unittest discover -s interop`."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matrix  # noqa: E402
import zygote  # noqa: E402

# A program that reports what it sees as JSON; its argument picks how it ends. Its top level
# appends a line to IMPORTS (the file named by the ZYGOTE_TEST_IMPORTS variable) each time it runs
# under a name other than __main__, so a test can count the imports.
PROGRAM = textwrap.dedent("""\
    import json, os, sys, time
    import helper_module
    if __name__ != "__main__":
        with open(os.environ["ZYGOTE_TEST_IMPORTS"], "a") as imports:
            imports.write(__name__ + "\\n")
    if __name__ == "__main__":
        how = sys.argv[1]
        print("to stderr", file=sys.stderr)
        if how == "report":
            print(json.dumps({"argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd(),
                              "variable": os.environ.get("ZYGOTE_TEST_VARIABLE"),
                              "stdin": sys.stdin.read(), "session_leader": os.getsid(0) == os.getpid(),
                              "helper": helper_module.VALUE, "pid": os.getpid()}))
        elif how == "exit":
            sys.exit(int(sys.argv[2]))
        elif how == "raise":
            raise ValueError("planted")
        elif how == "kill":
            os.kill(os.getpid(), 9)
        elif how == "echo":
            for line in sys.stdin:
                print(line.strip().upper(), flush=True)
        elif how == "hang":
            with open(os.environ["ZYGOTE_TEST_IMPORTS"] + ".hang", "w") as pid:
                pid.write(str(os.getpid()))
            time.sleep(60)
""")


class ZygoteCase(unittest.TestCase):
    """A program in a folder of its own, and a pool for it."""

    def setUp(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="zygote-test-"))
        (self.directory / "helper_module.py").write_text("VALUE = 42\n")
        self.program = self.directory / "program.py"
        self.program.write_text(PROGRAM)
        self.imports = self.directory / "imports.txt"
        patcher = mock.patch.dict(os.environ, {"ZYGOTE_TEST_IMPORTS": str(self.imports), "ZYGOTE_TEST_VARIABLE": "from the runner"})
        patcher.start()
        self.addCleanup(patcher.stop)
        os.environ.pop(zygote.ENABLED_VARIABLE, None)  # on whatever the runner's switch says
        self.pool = zygote.Pool(self.directory / "logs", 30)
        self.addCleanup(self.pool.close)

    def command(self, *arguments: str) -> list[str]:
        return [sys.executable, str(self.program), *arguments]

    def run_cell(self, *arguments: str, timeout_s: float = 30) -> dict:
        return matrix.run_process(self.command(*arguments), self.directory / "logs" / "cell", timeout_s, self.pool)


class Zygote(ZygoteCase):
    """matrix.run_process with a pool: a cell forked from its program's zygote."""

    def test_a_forked_cell_sees_what_a_script_run_sees(self) -> None:
        forked = self.run_cell("report", "--flag")
        spawned = matrix.run_process(self.command("report", "--flag"), self.directory / "logs" / "spawned")
        self.assertIsNotNone(self.pool.get(self.command()), "the zygote did not start")
        for report in (forked, spawned):
            self.assertEqual(report["argv"], [str(self.program), "report", "--flag"])
            self.assertEqual(report["path0"], str(self.directory))
            self.assertEqual(report["cwd"], str(matrix.ROOT))
            self.assertEqual(report["variable"], "from the runner")
            self.assertEqual(report["stdin"], "")
            self.assertTrue(report["session_leader"])
            self.assertEqual(report["helper"], 42)
        self.assertEqual((self.directory / "logs" / "cell.stderr").read_text(), "to stderr\n")

    def test_the_program_is_imported_once_for_many_cells(self) -> None:
        pids = {self.run_cell("report")["pid"] for _ in range(5)}
        self.assertEqual(len(pids), 5)
        self.assertEqual(self.imports.read_text(), "__zygote__\n")

    def test_exit_codes_exceptions_and_signals_end_a_cell_as_they_end_a_process(self) -> None:
        for arguments, message in ((("exit", "3"), "exit 3: to stderr"), (("raise",), "ValueError: planted"), (("kill",), "exit -9: to stderr")):
            with self.subTest(arguments=arguments):
                with self.assertRaises(RuntimeError) as raised:
                    self.run_cell(*arguments)
                self.assertIn(message, str(raised.exception))
        with self.assertRaises(RuntimeError) as raised:
            self.run_cell("exit", "0")
        self.assertIn("the report is not JSON", str(raised.exception))

    def test_a_cell_past_its_bound_is_killed_with_its_process_group(self) -> None:
        started = time.monotonic()
        with self.assertRaises(RuntimeError) as raised:
            self.run_cell("hang", timeout_s=2)
        self.assertLess(time.monotonic() - started, 20)
        self.assertIn("timed out after 2 s", str(raised.exception))
        pid = (self.directory / "imports.txt.hang").read_text()
        self.assertFalse(Path(f"/proc/{pid}").exists(), "the hung cell still runs")

    def test_the_zygote_ends_when_the_runner_closes_it(self) -> None:
        forked = self.pool.get(self.command())
        self.assertIsNotNone(forked)
        self.pool.close()
        self.assertIsNotNone(forked.process.poll())
        self.assertFalse(Path(forked.directory).exists())

    def test_a_cell_of_a_zygote_that_ended_is_spawned(self) -> None:
        forked = self.pool.get(self.command())
        self.assertIsNotNone(forked)
        os.killpg(forked.process.pid, 9)
        forked.process.wait()
        with self.assertRaises(RuntimeError) as raised:
            matrix.run_process(self.command("report"), self.directory / "logs" / "dead", 30, mock.Mock(get=lambda _: forked))
        self.assertIn("did not start the cell", str(raised.exception))
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            self.assertEqual(self.run_cell("report")["helper"], 42)
        self.assertIn("ended (exit -9", output.getvalue())

    def test_a_program_whose_import_leaves_a_thread_is_spawned(self) -> None:
        self.program.write_text("import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n" + PROGRAM)
        output = io.StringIO()
        with contextlib.redirect_stdout(output), mock.patch.object(tempfile, "tempdir", str(self.directory)):
            self.assertIsNone(self.pool.get(self.command()))
        self.assertIn("leaves threads running", output.getvalue())
        self.assertIn("its cells start as processes", output.getvalue())
        self.assertEqual(list(self.directory.glob(f"{zygote.DIRECTORY_PREFIX}*")), [], "the zygote's folder was left")
        self.assertEqual(self.run_cell("report")["helper"], 42)

    def test_other_commands_and_the_switch_start_processes(self) -> None:
        self.assertIsNone(self.pool.get(["node", "scenarios.mjs"]))
        self.assertIsNone(self.pool.get([sys.executable, "-c", "pass"]))
        with mock.patch.dict(os.environ, {zygote.ENABLED_VARIABLE: "0"}):
            off = zygote.Pool(self.directory / "logs", 30)
            self.assertIsNone(off.get(self.command()))
            self.assertEqual(matrix.run_process(self.command("report"), self.directory / "logs" / "off", 30, off)["helper"], 42)
        self.assertFalse(self.imports.exists())



class Popen(ZygoteCase):
    """zygote.popen: a forked server driven through its pipes as a subprocess.Popen is."""

    def test_pipes_poll_wait_and_stdin_close(self) -> None:
        stderr = open(self.directory / "server.stderr", "wb")
        self.addCleanup(stderr.close)
        process = zygote.popen(self.pool, self.command("echo"), subprocess.PIPE, subprocess.PIPE, stderr)
        self.assertIsInstance(process, zygote.Process)
        process.stdin.write(b"hello\n")
        process.stdin.flush()
        self.assertEqual(process.stdout.readline(), b"HELLO\n")
        self.assertIsNone(process.poll())
        with self.assertRaises(subprocess.TimeoutExpired):
            process.wait(0.2)
        waited = []
        waiter = threading.Thread(target=lambda: waited.append(process.wait()))
        waiter.start()
        process.stdin.close()
        self.assertEqual(process.wait(10), 0)
        waiter.join(10)
        self.assertEqual(waited, [0])
        self.assertEqual(process.poll(), 0)
        self.assertEqual(process.stdout.read(), b"")
        process.stdout.close()
        self.assertEqual((self.directory / "server.stderr").read_text(), "to stderr\n")

    def test_kill_and_terminate_end_it_as_signals_end_a_process(self) -> None:
        for stop, code in (("kill", -9), ("terminate", -15)):
            with self.subTest(stop=stop):
                process = zygote.popen(self.pool, self.command("hang"), subprocess.DEVNULL, subprocess.DEVNULL, subprocess.DEVNULL)
                self.assertIsNone(process.poll())
                getattr(process, stop)()
                self.assertEqual(process.wait(10), code)
                process.kill()  # after its end: nothing, as Popen

    def test_without_a_zygote_it_is_a_popen(self) -> None:
        process = zygote.popen(None, self.command("echo"), subprocess.PIPE, subprocess.PIPE, subprocess.DEVNULL)
        self.assertIsInstance(process, subprocess.Popen)
        output, _ = process.communicate(b"x\n", timeout=30)
        self.assertEqual(output, b"X\n")


if __name__ == "__main__":
    unittest.main()
