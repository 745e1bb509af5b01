"""The framework cell contract for Python agent frameworks: the command line, the timeline, the report.

Each framework has a thin adapter (`NAME.py` beside this file) that knows only how its framework
starts the `slow` call through MCP with a scripted model and how each of its ways of stopping is
done; everything else is here, so every framework is driven and timed the same way
(interop/frameworks/README.md):

- `PROGRAM --describe` prints what the adapter drives (`"framework": true`, the `mcp` it pulls in).
- `PROGRAM --scenario NAME --revision REV --transport T -- SERVER [ARGS...]` runs one cell: the
  scripted model's first turn calls `slow {"steps": 15, "step_ms": 200}` (3 s when nobody stops
  it); the stop comes at 0.6 s (or a 0.7 s timeout); as soon as the caller has control back the
  program makes the next call (`echo {"text": "caller resumed"}`) through the same framework
  objects; it waits until 3.6 s and prints one JSON report. The server's side of the wire is not
  read here: the runner passed `--record FILE` to the server and reads FILE after the cell.

Standard library only, so it imports in every framework's venv.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, Awaitable, Callable

# The slow call every scenario stops: 15 steps of 200 ms, so 3 s if nobody stops it.
SLOW_ARGUMENTS = {"steps": 15, "step_ms": 200}
# When an explicit stop happens, after the agent run started.
STOP_AFTER_S = 0.6
# The framework's timeout in the `tool timeout` scenario.
TIMEOUT_S = 0.7
# The text of the `echo` call made as soon as the caller has control back.
RESUMED_MARKER = "caller resumed"
# How long after the run started the program exits: past the slow call's natural end.
SETTLE_S = 3.6
# A caller that has not returned this long after the stop is "hung".
HUNG_AFTER_S = 5.0
# The whole program's bound.
PROGRAM_BOUND_S = 20.0
# The final text the scripted model gives once it has a tool result.
FINAL_TEXT = "done"
# The prompt of the next call's run (the scripted model answers it with the `echo` marker).
NEXT_PROMPT = "echo"
# The prompt of a warm-up run (an `echo` of WARM_TEXT) before the clock starts.
WARM_PROMPT = "warm up"
WARM_TEXT = "warm-up"
# The prompt of the slow run.
SLOW_PROMPT = "run the slow tool"


def first_turn(prompt: str) -> tuple[str, dict[str, Any]]:
    """The scripted model's tool call for a run's prompt: the next call's `echo` marker, or `slow`."""
    if prompt.strip() == NEXT_PROMPT:
        return "echo", {"text": RESUMED_MARKER}
    if prompt.strip() == WARM_PROMPT:
        return "echo", {"text": WARM_TEXT}
    return "slow", dict(SLOW_ARGUMENTS)


def final_text(tool_output: Any) -> str:
    """The scripted model's answer once a tool result is in: it quotes the result, so the report
    shows whether the framework handed the model the tool's answer or an error in its place."""
    if isinstance(tool_output, list):
        # Content blocks (dicts or objects with `text`); their ids vary from run to run.
        tool_output = " ".join(str(block.get("text") if isinstance(block, dict) else getattr(block, "text", block)) for block in tool_output)
    return f"{FINAL_TEXT}: {str(tool_output)[:160]}"


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Cell:
    """What one cell's adapter gets: where the server is, and the scenario being run."""

    scenario: str
    transport: str
    server: list[str]
    # Set by the scenario when the framework's own timeout is wanted (seconds), else None.
    timeout_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.server[0]


class Adapter:
    """One framework. Subclasses set the names and implement `open`, `run_agent` and `next_call`;
    `stop` and `close` are for the ways of stopping the framework offers beyond a task cancel."""

    name = ""
    package = ""
    # The distribution whose version is the MCP SDK the framework uses.
    mcp_package = "mcp"
    transports = ("stdio", "http")
    # Scenario names this adapter runs, in book order; `unavailable`: {scenario: why not}.
    scenarios: tuple[str, ...] = ()
    unavailable: dict[str, str] = {}

    def open(self, cell: Cell) -> contextlib.AbstractAsyncContextManager[Any]:
        """The framework's MCP objects and agent, connected (an async context manager)."""
        raise NotImplementedError

    async def run_agent(self, env: Any) -> str:
        """One agent run whose first model turn calls `slow`; returns what the caller saw."""
        raise NotImplementedError

    async def next_call(self, env: Any) -> str:
        """The `echo` marker through the same framework objects; returns its text."""
        raise NotImplementedError

    async def warm_up(self, env: Any) -> None:
        """A run before the clock starts, for a framework whose first run does so much the first
        time (imports, schema conversion) that the call might not have reached the server by the
        stop on a loaded machine. Default: none."""

    async def stop(self, env: Any, task: asyncio.Task[str]) -> None:
        """The framework's own stop/cancel call (`framework stop`)."""
        raise NotImplementedError

    async def close(self, env: Any) -> None:
        """Closes the framework's MCP client/server object while the call runs (`close client`)."""
        raise NotImplementedError


def describe_error(error: BaseException) -> str:
    """What the caller saw, short and stable: the exception's type and the first line of its text."""
    if isinstance(error, asyncio.CancelledError):
        return "asyncio.CancelledError"
    text = str(error).strip().splitlines()[0][:160] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def settle(started: float, report: dict[str, Any]) -> None:
    await asyncio.sleep(max(0.0, started + SETTLE_S - time.monotonic()))


async def run_scenario(adapter: Adapter, cell: Cell) -> dict[str, Any]:
    """One cell's timeline (everything but `process exit`); returns the report."""
    report: dict[str, Any] = {"scenario": cell.scenario, "revision": "default", "transport": cell.transport, "caller_saw": None, "stopped_at_ms": None, "returned_at_ms": None, "next_call": None, "transcript": None}
    if cell.scenario == "tool timeout":
        cell.timeout_s = TIMEOUT_S
        # The stop is the timeout's end, counted by the runner from the recorded `tools/call`.
        report["timeout_ms"] = int(TIMEOUT_S * 1000)
    stack = contextlib.AsyncExitStack()
    if True:
        env = await stack.enter_async_context(adapter.open(cell))
        await adapter.warm_up(env)
        started = time.monotonic()
        started_ms = now_ms()
        task = asyncio.ensure_future(adapter.run_agent(env))
        if cell.scenario in ("tool timeout", "not stopped"):
            report["stopped_at_ms"] = started_ms + int(TIMEOUT_S * 1000) if cell.scenario == "tool timeout" else None
        else:
            await asyncio.sleep(STOP_AFTER_S)
            report["stopped_at_ms"] = now_ms()
            if cell.scenario == "run abort":
                task.cancel()
            elif cell.scenario == "framework stop":
                await adapter.stop(env, task)
            elif cell.scenario == "close client":
                # In this task: an anyio-based client must be left in the task that entered it.
                # A close that blocks (until the call ends, say) is bounded and noted.
                try:
                    async with asyncio.timeout(HUNG_AFTER_S):
                        await adapter.close(env)
                except TimeoutError:
                    report["close"] = "blocked past 5 s"
                except Exception as error:  # noqa: BLE001 - a failing close is an observation
                    report["close"] = f"raised {describe_error(error)}"
            elif cell.scenario == "callback exception":
                env_hook = getattr(env, "raise_in_callback", None)
                if env_hook is None:
                    raise SystemExit(f"error: {adapter.name} has no callback hook")
                env_hook()
            else:
                raise SystemExit(f"error: unknown scenario {cell.scenario!r}")
        bound = (SETTLE_S + 1.0) if cell.scenario == "not stopped" else (TIMEOUT_S + HUNG_AFTER_S if cell.scenario == "tool timeout" else STOP_AFTER_S + HUNG_AFTER_S)
        done, _ = await asyncio.wait({task}, timeout=max(0.0, started + bound - time.monotonic()))
        if task in done:
            report["returned_at_ms"] = now_ms()
            try:
                report["caller_saw"] = f"completed: {task.result()}"
            except BaseException as error:  # noqa: BLE001 - what the caller saw is the point
                report["caller_saw"] = describe_error(error)
            report["next_call"] = await next_call(adapter, env, cell, started)
        else:
            report["caller_saw"] = "hung"
            report["next_call"] = "not tried: the caller had not returned"
        await settle(started, report)
        # Leaving the framework's context may hang as well (a hung call holds it): bounded, and in
        # this task (anyio's cancel scopes must be left in the task that entered them).
        task.cancel()
        await asyncio.wait({task}, timeout=1.0)
        with contextlib.suppress(BaseException):
            async with asyncio.timeout(2.0):
                await stack.aclose()
    return report


async def next_call(adapter: Adapter, env: Any, cell: Cell, started: float) -> str:
    """The next call through the same framework objects, bounded to 3 s."""
    if cell.scenario == "close client":
        # The scenario closed the framework's MCP object: the next call is whether it reopens.
        pass
    try:
        text = await asyncio.wait_for(adapter.next_call(env), timeout=3.0)
    except NotImplementedError as error:
        return f"not tried: {error}"
    except asyncio.TimeoutError:
        return "failed: no answer within 3 s"
    except BaseException as error:  # noqa: BLE001
        return f"failed: {describe_error(error)}"
    return "ok" if RESUMED_MARKER in str(text) else f"failed: answered {str(text)[:80]!r}"


def process_exit(argv: list[str], cell: Cell) -> dict[str, Any]:
    """`process exit`: a child process runs the agent and exits (os._exit) at 0.6 s; the parent
    reports. Over stdio the child's exit closes the server's stdin; over HTTP its sockets."""
    report: dict[str, Any] = {"scenario": cell.scenario, "revision": "default", "transport": cell.transport, "caller_saw": "the process exited", "stopped_at_ms": None, "returned_at_ms": None, "next_call": "not tried: the process that made the call is gone", "transcript": None}
    # The child's stdout is read up to its stop line only: the server it started may hold the
    # pipe open a while after the child is gone.
    child = subprocess.Popen([sys.executable, argv[0], "--child", *argv[1:]], stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline() if child.stdout else ""
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=HUNG_AFTER_S)
    if not line.startswith("stopped_at_ms "):
        raise SystemExit(f"error: the child printed no stop time (exit {child.poll()})")
    report["stopped_at_ms"] = int(line.split()[1])
    report["returned_at_ms"] = report["stopped_at_ms"]
    # Until the slow call would have ended, counted from the child's stop (its imports take a
    # while, so the parent's own start is no measure).
    time.sleep(max(0.0, report["stopped_at_ms"] / 1000 + SETTLE_S - STOP_AFTER_S + 0.5 - time.time()))
    return report


async def child_until_exit(adapter: Adapter, cell: Cell, out: Any) -> None:
    """The child of `process exit`: starts the run, exits the whole process at 0.6 s."""
    async with adapter.open(cell) as env:
        await adapter.warm_up(env)
        asyncio.ensure_future(adapter.run_agent(env))
        await asyncio.sleep(STOP_AFTER_S)
        print(f"stopped_at_ms {now_ms()}", file=out, flush=True)
        os._exit(0)


def describe(adapter: Adapter) -> dict[str, Any]:
    return {
        "sdk": adapter.name,
        "package": adapter.package,
        "version": version(adapter.package),
        "framework": True,
        "mcp_sdk": {"package": adapter.mcp_package, "version": version(adapter.mcp_package)},
        "revisions": ["default"],
        "transports": list(adapter.transports),
        "scenarios": list(adapter.scenarios),
        "unavailable": dict(adapter.unavailable),
    }


def _parser(name: str, add_help: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=f"{name}: one framework cell against mcp-testserver", add_help=add_help)
    parser.add_argument("--describe", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scenario")
    parser.add_argument("--revision", default="default")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("server", nargs="*")
    return parser


def process_exit_parent() -> None:
    """Called by each adapter before it imports its framework: when this process is the parent of
    `process exit`, which only starts this program again as its child and reports, it does that
    and exits here, without importing the framework (the child does, as every other cell's
    program): the framework's import, the larger part of a cell's CPU, is paid once per cell, not
    twice. Otherwise it returns and the adapter goes on."""
    arguments, _ = _parser("", add_help=False).parse_known_args()
    if arguments.scenario == "process exit" and not arguments.child and not arguments.describe and arguments.server and arguments.revision == "default":
        sys.exit(_run(None, arguments))


def main(adapter: Adapter) -> int:
    return _run(adapter, _parser(adapter.name).parse_args())


def _run(adapter: Adapter | None, arguments: argparse.Namespace) -> int:
    """One program run; `adapter` is None only for `process exit`'s parent (process_exit_parent)."""
    # The report is stdout's only line: whatever a framework prints (mcp-use logs to stdout) goes
    # to stderr instead, and the report to the saved stdout.
    report_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    if arguments.describe:
        print(json.dumps(describe(adapter)), file=report_out, flush=True)
        return 0
    if not arguments.scenario or not arguments.server:
        _parser(adapter.name).error("--scenario and `-- SERVER [ARGS...]` are needed")
    if arguments.revision != "default":
        print(f"error: {adapter.name} speaks only its SDK's default revision", file=sys.stderr)
        return 2
    cell = Cell(arguments.scenario, arguments.transport, arguments.server)
    # The whole program's bound: a framework that hangs past it is killed by its own alarm.
    import signal

    signal.signal(signal.SIGALRM, lambda *_: os._exit(3))
    # `process exit`: the parent waits for its child, a whole program run of its own: twice the bound.
    signal.alarm(int(PROGRAM_BOUND_S) * (2 if arguments.scenario == "process exit" else 1))
    if arguments.child:
        asyncio.run(child_until_exit(adapter, cell, report_out))
        return 0
    if cell.scenario == "process exit":
        report = process_exit(sys.argv, cell)
    elif adapter is None:
        raise SystemExit("error: only `process exit`'s parent runs without its framework")
    else:
        # Printed and exited from inside the loop: leaving asyncio.run() waits for the worker
        # threads a synchronous framework may have left blocked (smolagents' after `close client`).
        asyncio.run(_bounded(adapter, cell, report_out))
        return 1
    print(json.dumps(report), file=report_out, flush=True)
    # A framework may leave threads or a child behind after a hang; the report is out.
    sys.stderr.flush()
    os._exit(0)


async def _bounded(adapter: Adapter, cell: Cell, out: Any) -> None:
    try:
        report = await run_scenario(adapter, cell)
        print(json.dumps(report), file=out, flush=True)
        sys.stderr.flush()
        os._exit(0)
    except BaseException as error:  # noqa: BLE001
        if isinstance(error, SystemExit):
            raise
        import traceback

        traceback.print_exception(error, file=sys.stderr)
        print(f"error: {describe_error(error)}", file=sys.stderr)
        raise SystemExit(1) from error


Scenario = Callable[[Any], Awaitable[str]]
