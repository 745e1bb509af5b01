"""Python scenario programs started by forking a process that has already imported them.

Each Python cell of the matrix is one run of a program such as `VENV/bin/python
interop/frameworks/python/openai_agents.py --scenario ... -- SERVER`. Most of such a run's CPU
is the import of its SDK or framework (1.2 to 3.2 s of CPU a cell on a 2-core machine, about 200
s over the matrix's Python cells), the same every cell. So the runner starts one zygote per
program instead: `VENV/bin/python interop/zygote.py SOCKET PROGRAM` runs the program's top level
once under the name `__zygote__` (its imports and definitions; its `if __name__ == "__main__"`
block does not run), then forks a child for each cell. The child is what `python PROGRAM ARGS`
would be from there on: its own session (as `start_new_session=True`), the cell's stdin, stdout
and stderr as fds 0, 1 and 2, the cell's working directory and environment, `sys.argv` and
`sys.path[0]` as Python sets them for a script, and then the program's top level again as
`__main__` (its imports now found in `sys.modules`), ending as the interpreter ends.

A program whose import leaves a thread running is not forked (a fork copies only the forking
thread, and a lock another thread held would never be released in the child): its zygote
answers `unavailable` and the runner starts that program's cells as processes of their own, as
it does for any program that is not a Python script, and with `INTEROP_ZYGOTE=0`.

Protocol, over a Unix stream socket, one connection per cell: the runner sends one JSON line
`{"argv": [...], "cwd": ..., "env": {...}}` with three fds (stdin, stdout, stderr) attached; the
zygote answers `pid N` once the child runs, then `exit CODE` when it ends (CODE as
`subprocess.Popen.returncode`: negative for a signal). The zygote ends when its stdin closes, so
it never outlives the runner. Only the standard library is used, on both sides.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# What a zygote prints on its stdout once it has imported its program: `ready`, or
# `unavailable: WHY`.
READY = "ready"
UNAVAILABLE = "unavailable"
# Set to 0 to start every cell as a process of its own.
ENABLED_VARIABLE = "INTEROP_ZYGOTE"
# A zygote's socket is in a temporary folder of this prefix, removed when it is closed.
DIRECTORY_PREFIX = "interop-zygote-"


# --- the runner's side ---------------------------------------------------------------------------


def program_of(command: list[str]) -> tuple[str, str] | None:
    """(interpreter, script) when `command` runs a Python script (`.../python PROGRAM.py ...`):
    the commands a zygote can start. None for any other command."""
    if len(command) < 2 or not Path(command[0]).name.startswith("python") or not command[1].endswith(".py"):
        return None
    return command[0], command[1]


class Zygote:
    """One started zygote: `run` forks a child of it for one command line."""

    def __init__(self, interpreter: str, program: str, log: Path, start_timeout_s: float) -> None:
        self.directory = tempfile.mkdtemp(prefix=DIRECTORY_PREFIX)
        self.socket_path = os.path.join(self.directory, "socket")
        log.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(log, "wb") as stderr:
                self.process = subprocess.Popen(
                    [interpreter, str(Path(__file__).resolve()), self.socket_path, program],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True, text=True,
                )
        except OSError:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        self.start_timeout_s = start_timeout_s
        self.log = log
        line = read_line(self.process.stdout, start_timeout_s)
        self.unavailable = None if line == READY else (line or f"no answer within {start_timeout_s} s (log: {log})")

    def run(self, command: list[str], stdin: int, stdout: int, stderr: int, cwd: str, env: dict[str, str]) -> "Child":
        """Forks a child running `command` (whose first two items are this zygote's interpreter and
        program) with these fds; returns it, running."""
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(self.socket_path)
            request = json.dumps({"argv": command[1:], "cwd": cwd, "env": env}).encode() + b"\n"
            socket.send_fds(connection, [request], [stdin, stdout, stderr])
        except OSError:
            connection.close()
            raise
        child = Child(connection)
        try:
            first = child.answer(self.start_timeout_s).split()
        except OSError:
            connection.close()
            raise
        if len(first) != 2 or first[0] != "pid":
            connection.close()
            raise RuntimeError(f"the zygote of {command[1]} did not start the cell: {' '.join(first) or 'no answer'}")
        child.pid = int(first[1])
        return child

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process.stdout.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class Child:
    """A cell forked by a zygote: its pid (its process group's too) and its exit."""

    def __init__(self, connection: socket.socket) -> None:
        self.pid = 0
        self._connection = connection
        self._received = b""

    def answer(self, timeout_s: float | None) -> str:
        """The zygote's next line ("" when it closed the connection); TimeoutError past `timeout_s`."""
        self._connection.settimeout(timeout_s)
        while b"\n" not in self._received:
            data = self._connection.recv(4096)
            if not data:
                return ""
            self._received += data
        line, self._received = self._received.split(b"\n", 1)
        return line.decode()

    def wait(self, timeout_s: float | None) -> int:
        """Its return code, as `subprocess.Popen.returncode` gives it, once it has ended;
        TimeoutError when it has not within `timeout_s` (None: no bound)."""
        line = self.answer(timeout_s).split()
        self._connection.close()
        if len(line) != 2 or line[0] != "exit":
            raise RuntimeError(f"the zygote gave no exit status for pid {self.pid} (did it end?)")
        return int(line[1])


class Process:
    """A child forked by a zygote behind `subprocess.Popen`'s interface, as far as matrix.py and
    measure.py (which drives a server through its pipes) use it: `pid`, `stdin` and `stdout`
    (binary files, or None), `poll`, `wait` and `communicate` (with `subprocess.TimeoutExpired`),
    `send_signal`, `terminate`, `kill`, `returncode`. Any thread may wait; the exit status is read
    once."""

    def __init__(self, args: list[str], child: Child, stdin: Any, stdout: Any) -> None:
        self.args = args
        self.pid = child.pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None
        self._child = child
        self._lock = threading.Lock()
        self._output = bytearray()

    def poll(self) -> int | None:
        if self.returncode is None and self._lock.acquire(blocking=False):
            try:
                if self.returncode is None:
                    self.returncode = self._child.wait(0.001)
            except TimeoutError:
                pass
            finally:
                self._lock.release()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        try:
            if self.returncode is None:
                remaining = None if deadline is None else max(0.001, deadline - time.monotonic())
                try:
                    self.returncode = self._child.wait(remaining)
                except TimeoutError:
                    raise subprocess.TimeoutExpired(self.args, timeout) from None
        finally:
            self._lock.release()
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[bytes | None, None]:
        """Reads stdout (when a pipe) to its end, then waits, as `Popen.communicate` without input
        or a stderr pipe does: `subprocess.TimeoutExpired` past `timeout`, and a later call goes on
        where this one stopped."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if self.stdout is not None and not self.stdout.closed:
            with selectors.DefaultSelector() as selector:
                selector.register(self.stdout, selectors.EVENT_READ)
                while True:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and (remaining <= 0 or not selector.select(remaining)):
                        raise subprocess.TimeoutExpired(self.args, timeout)
                    chunk = os.read(self.stdout.fileno(), 1 << 16)
                    if not chunk:
                        break
                    self._output += chunk
            self.stdout.close()
        self.wait(None if deadline is None else max(0.001, deadline - time.monotonic()))
        return (bytes(self._output) if self.stdout is not None else None), None

    def send_signal(self, signal_number: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal_number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def popen(pool: "Pool | None", args: list[str], stdin: int, stdout: int, stderr: Any, env: dict[str, str] | None = None, cwd: str | Path | None = None, start_new_session: bool = False) -> Any:
    """`subprocess.Popen(args, stdin=, stdout=, stderr=, env=, cwd=, start_new_session=)` for
    `stdin` and `stdout` each `subprocess.PIPE` or `subprocess.DEVNULL` and `stderr`
    `subprocess.DEVNULL` or a file: a `Process` forked from the pool's zygote of `args`'s program
    when it has one (always in a session of its own), else the Popen. RuntimeError when the zygote
    cannot start it (it ended)."""
    forked = pool.get(args) if pool is not None else None
    if forked is None:
        return subprocess.Popen(args, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd, start_new_session=start_new_session)
    ours: list[int] = []
    theirs: list[int] = []
    with open(os.devnull, "r+b") as devnull:
        for wanted, child_reads in ((stdin, True), (stdout, False)):
            if wanted == subprocess.PIPE:
                read_end, write_end = os.pipe()
                ours.append(write_end if child_reads else read_end)
                theirs.append(read_end if child_reads else write_end)
            else:
                ours.append(-1)
                theirs.append(os.dup(devnull.fileno()))
        theirs.append(os.dup(devnull.fileno() if stderr == subprocess.DEVNULL else stderr.fileno()))
    try:
        child = forked.run(args, *theirs, str(cwd or os.getcwd()), dict(os.environ if env is None else env))
    except BaseException as error:
        for fd in ours:
            if fd >= 0:
                os.close(fd)
        if isinstance(error, OSError):
            raise RuntimeError(f"the zygote of {args[1]} did not start the cell: {error} (log: {forked.log})") from None
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    return Process(args, child, open(ours[0], "wb") if ours[0] >= 0 else None, open(ours[1], "rb") if ours[1] >= 0 else None)


class Pool:
    """The zygotes of one matrix run, one per Python program, each started at its first cell.
    `get` answers None where a command is to be started as a process of its own."""

    def __init__(self, logs: Path, start_timeout_s: float) -> None:
        self.logs = logs
        self.start_timeout_s = start_timeout_s
        self.enabled = os.environ.get(ENABLED_VARIABLE, "1") != "0"
        self._zygotes: dict[tuple[str, str], Zygote | None] = {}
        self._lock = threading.Lock()
        self._starting: dict[tuple[str, str], threading.Lock] = {}

    def get(self, command: list[str]) -> Zygote | None:
        key = program_of(command) if self.enabled else None
        if key is None:
            return None
        with self._lock:
            starting = self._starting.setdefault(key, threading.Lock())
        with starting:
            if key not in self._zygotes:
                log = self.logs / "zygotes" / f"{Path(key[1]).stem}.stderr"
                try:
                    zygote: Zygote | None = Zygote(*key, log, self.start_timeout_s)
                except OSError as error:
                    print(f"  zygote of {key[1]}: not started ({error}); its cells start as processes", flush=True)
                    zygote = None
                if zygote is not None and zygote.unavailable:
                    print(f"  zygote of {key[1]}: {zygote.unavailable}; its cells start as processes", flush=True)
                    zygote.close()
                    zygote = None
                self._zygotes[key] = zygote
            zygote = self._zygotes[key]
            if zygote is not None and zygote.process.poll() is not None:
                print(f"  zygote of {key[1]}: ended (exit {zygote.process.returncode}; log: {zygote.log}); its cells start as processes", flush=True)
                zygote.close()
                zygote = self._zygotes[key] = None
            return zygote

    def close(self) -> None:
        for zygote in self._zygotes.values():
            if zygote is not None:
                zygote.close()
        self._zygotes.clear()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def read_line(stream: Any, timeout_s: float) -> str | None:
    """The first line of a text `stream` (stripped), or None when none came within `timeout_s`."""
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return result[0].strip() if result and result[0] else None


# --- the zygote's side ---------------------------------------------------------------------------


def serve(listener: socket.socket) -> dict[str, Any] | None:
    """Forks a child for each request until stdin closes. Returns in the parent (None) when done,
    and in each child (its request, its fds in place) to run the program."""
    wakeup_read, wakeup_write = os.pipe()
    os.set_blocking(wakeup_write, False)
    signal.set_wakeup_fd(wakeup_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin, selectors.EVENT_READ, "stdin")
    selector.register(listener, selectors.EVENT_READ, "listener")
    selector.register(wakeup_read, selectors.EVENT_READ, "child")
    waiting: dict[int, socket.socket] = {}
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not sys.stdin.readline():
                    return None
            elif key.data == "listener":
                connection, _ = listener.accept()
                request, fds = receive(connection)
                if request is None:
                    connection.close()
                    continue
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    for other in [listener, connection, *waiting.values()]:
                        other.close()
                    selector.close()
                    os.close(wakeup_read)
                    os.close(wakeup_write)
                    os.setsid()
                    for target, fd in enumerate(fds):
                        os.dup2(fd, target)
                        os.close(fd)
                    return request
                for fd in fds:
                    os.close(fd)
                connection.sendall(f"pid {pid}\n".encode())
                waiting[pid] = connection
            else:
                with contextlib.suppress(BlockingIOError):
                    os.read(wakeup_read, 4096)
                reap(waiting)


def receive(connection: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    """One request: its JSON line and its three fds (None and no fds for a malformed one)."""
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    while data and not data.endswith(b"\n"):
        more = connection.recv(1 << 16)
        if not more:
            break
        data += more
    try:
        request = json.loads(data)
    except ValueError:
        request = None
    if request is None or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None, []
    return request, fds


def reap(waiting: dict[int, socket.socket]) -> None:
    """Sends `exit CODE` for each child that has ended."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = waiting.pop(pid, None)
        if connection is not None:
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            with contextlib.suppress(OSError):
                connection.sendall(f"exit {code}\n".encode())
            connection.close()


def zygote_main(socket_path: str, program: str) -> None:
    program = str(Path(program).resolve())
    script_directory = os.path.dirname(program)
    sys.argv = [program]
    sys.path[0] = script_directory
    started = time.monotonic()
    runpy.run_path(program, run_name="__zygote__")
    print(f"zygote: {program} imported in {time.monotonic() - started:.2f} s", file=sys.stderr, flush=True)
    if threading.active_count() > 1:
        names = ", ".join(thread.name for thread in threading.enumerate() if thread is not threading.main_thread())
        print(f"{UNAVAILABLE}: importing it leaves threads running ({names}), and a fork copies only one", flush=True)
        return
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    print(READY, flush=True)
    request = serve(listener)
    if request is None:
        return
    # The child: from here on, `python PROGRAM ARGS` in the cell's directory and environment.
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = request["argv"]
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    zygote_main(sys.argv[1], sys.argv[2])
