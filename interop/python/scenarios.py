"""Scenarios that stop a call with the official Python SDK (PyPI `mcp`) and report what happened.

One run = one scenario, one revision, one transport, against a fresh `mcp-testserver`. The
program starts the server through the SDK's own stdio client, calls the `slow` tool, stops the
call the scenario's way, waits until the call would have finished on its own, and then asks the
server (on the same connection) for its `transcript` and `violations`. It prints one JSON object
on stdout (see interop/README.md, "client report"); `interop/matrix.py` turns the transcript into
facts. `--describe` prints what this SDK supports instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import sys
import time
from importlib.metadata import version
from typing import Any, AsyncIterator

import anyio
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.message import SessionMessage

# Version adaptation (interop/history.py measures older releases with this same program): 2.x has
# `Client`; 1.x has only `ClientSession` over a transport's streams and speaks handshake revisions.
try:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCResponse
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
except ImportError:
    from mcp.client.streamable_http import streamablehttp_client as streamable_http_client
    from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS as HANDSHAKE_PROTOCOL_VERSIONS

    Client = None  # type: ignore[assignment,misc]
    MODERN_PROTOCOL_VERSIONS = ()
    # The retyping relay reads 2.x's message types; under 1.x it passes everything unchanged.
    JSONRPCError = JSONRPCNotification = JSONRPCResponse = type("Unavailable", (), {})  # type: ignore[assignment,misc]

# Scenarios this program cannot write for the installed release, and why (`--describe`).
UNAVAILABLE = {} if Client is not None else {
    "response id echoed as a string": "the retyping relay reads mcp 2.x's message types (mcp_types)",
    "progress token echoed as a string": "the retyping relay reads mcp 2.x's message types (mcp_types)",
}

# The slow call every scenario stops: 15 steps of 200 ms, so 3 s if nobody stops it.
SLOW_ARGUMENTS = {"steps": 15, "step_ms": 200}
# When an explicit stop (task.cancel(), scope.cancel()) happens, after the call started.
STOP_AFTER_S = 0.6
# The timeout of the timeout-based scenarios.
TIMEOUT_S = 0.7
# The text of the `echo` call each program makes as soon as the caller has control back.
RESUMED_MARKER = "caller resumed"
# How long after the call started the transcript is read: past the slow call's natural end, so
# a handler that ignored the stop would have answered by then.
SETTLE_S = 3.6


async def by_task_cancel(client: Client, on_progress: Any) -> str:
    """`asyncio.Task.cancel()` on the task awaiting `call_tool`."""
    task = asyncio.ensure_future(client.call_tool("slow", SLOW_ARGUMENTS, progress_callback=on_progress))
    await asyncio.sleep(STOP_AFTER_S)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "asyncio.CancelledError"
    return "completed"


async def by_task_group_cancel(client: Client, on_progress: Any) -> str:
    """`tg.cancel_scope.cancel()` on the anyio task group running `call_tool`."""
    outcome = "completed"

    async def call() -> None:
        nonlocal outcome
        try:
            await client.call_tool("slow", SLOW_ARGUMENTS, progress_callback=on_progress)
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled (task group's cancel scope)"
            raise

    async with anyio.create_task_group() as task_group:
        task_group.start_soon(call)
        await anyio.sleep(STOP_AFTER_S)
        task_group.cancel_scope.cancel()
    return outcome


async def by_cancel_scope(client: Client, on_progress: Any) -> str:
    """An `anyio.CancelScope` around `call_tool`, cancelled from another task."""
    scope = anyio.CancelScope()

    async def stop_later() -> None:
        await anyio.sleep(STOP_AFTER_S)
        scope.cancel()

    async with anyio.create_task_group() as task_group:
        task_group.start_soon(stop_later)
        with scope:
            await client.call_tool("slow", SLOW_ARGUMENTS, progress_callback=on_progress)
    return "cancelled (CancelScope.cancel)" if scope.cancelled_caught else "completed"


async def by_move_on_after(client: Client, on_progress: Any) -> str:
    """`anyio.move_on_after(timeout)` around `call_tool`."""
    with anyio.move_on_after(TIMEOUT_S) as scope:
        await client.call_tool("slow", SLOW_ARGUMENTS, progress_callback=on_progress)
    return "moved on (scope.cancelled_caught)" if scope.cancelled_caught else "completed"


async def by_wait_for(client: Client, on_progress: Any) -> str:
    """`asyncio.wait_for(call_tool(...), timeout)`."""
    try:
        await asyncio.wait_for(client.call_tool("slow", SLOW_ARGUMENTS, progress_callback=on_progress), TIMEOUT_S)
    except TimeoutError:
        return "TimeoutError"
    return "completed"


async def by_read_timeout(client: Client, on_progress: Any) -> str:
    """The per-call `read_timeout_seconds`."""
    try:
        await client.call_tool("slow", SLOW_ARGUMENTS, read_timeout_seconds=TIMEOUT_S, progress_callback=on_progress)
    except Exception as error:  # the SDK's own error type is what we report
        return f"{type(error).__name__}: {error}"
    return "completed"


async def no_stop(client: Client, on_progress: Any) -> str:
    """The baseline: the call runs to its end."""
    result = await client.call_tool("slow", SLOW_ARGUMENTS, progress_callback=on_progress)
    return f"completed: {result.content[0].text}"


# What the retyping relay turns into strings while a retyping scenario's call runs: the integer id
# of each response, or the integer token of each progress notification (see `retyping`).
RETYPE: set[str] = set()
# How many messages the relay retyped during the scenario's call (reported with the outcome).
RETYPED = [0]


async def response_id_as_string(client: Client, on_progress: Any) -> str:
    """A server that echoes the request id 7 as "7": the relay retypes every response id."""
    RETYPE.add("response id")
    try:
        result = await client.call_tool("slow", SLOW_ARGUMENTS, read_timeout_seconds=5)
    except Exception as error:  # the SDK's own error type is what we report
        return f"{type(error).__name__}: {error} ({RETYPED[0]} response ids retyped)"
    finally:
        RETYPE.clear()
    return f"completed: {result.content[0].text} ({RETYPED[0]} response ids retyped)"


async def progress_token_as_string(client: Client, on_progress: Any) -> str:
    """A server that echoes the progress token 7 as "7": the relay retypes every token."""
    calls = 0

    async def count(progress: float, total: float | None, message: str | None) -> None:
        nonlocal calls
        calls += 1

    RETYPE.add("progress token")
    try:
        result = await client.call_tool("slow", SLOW_ARGUMENTS, read_timeout_seconds=5, progress_callback=count)
    finally:
        RETYPE.clear()
    # Whether, not how often: the last notification can race the response, so counts vary.
    retyped = "true" if RETYPED[0] > 0 else "false"
    called = "true" if calls > 0 else "false"
    return f"completed: {result.content[0].text}; progress tokens retyped: {retyped}, progress_callback called: {called}"


@contextlib.asynccontextmanager
async def retyping(transport: Any):
    """The SDK's own transport, with a relay between it and the client that turns an integer
    response id or progress token into its string form while `RETYPE` asks for it: what a server
    that echoes the other JSON type would send. The SDK reads the relayed messages as it would
    read them off the wire."""
    async with transport as (read_stream, write_stream, *_):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](64)

        async def relay() -> None:
            async with send:
                async for item in read_stream:
                    await send.send(_retyped(item))

        async with anyio.create_task_group() as relays:
            relays.start_soon(relay)
            try:
                yield receive, write_stream
            finally:
                relays.cancel_scope.cancel()


def _retyped(item: SessionMessage | Exception) -> SessionMessage | Exception:
    if not isinstance(item, SessionMessage):
        return item
    message = item.message
    if "response id" in RETYPE and isinstance(message, JSONRPCResponse | JSONRPCError) and type(message.id) is int:
        RETYPED[0] += 1
        return SessionMessage(message.model_copy(update={"id": str(message.id)}), item.metadata)
    if "progress token" in RETYPE and isinstance(message, JSONRPCNotification) and message.method == "notifications/progress":
        params = dict(message.params or {})
        if type(params.get("progressToken")) is int:
            params["progressToken"] = str(params["progressToken"])
            RETYPED[0] += 1
            return SessionMessage(message.model_copy(update={"params": params}), item.metadata)
    return item


SCENARIOS = {
    "not stopped": no_stop,
    "task.cancel()": by_task_cancel,
    "task group cancel": by_task_group_cancel,
    "CancelScope.cancel()": by_cancel_scope,
    "anyio.move_on_after": by_move_on_after,
    "asyncio.wait_for": by_wait_for,
    "read_timeout_seconds": by_read_timeout,
    "response id echoed as a string": response_id_as_string,
    "progress token echoed as a string": progress_token_as_string,
}

# The revisions the matrix covers (the test server's two).
REVISIONS = ("2025-11-25", "2026-07-28")
# `--revision` value -> the SDK's `mode`.
MODES = {"default": "auto", "2025-11-25": "legacy", **{revision: revision for revision in MODERN_PROTOCOL_VERSIONS}}


async def tool_json(client: Client, name: str) -> Any:
    result = await client.call_tool(name, {}, read_timeout_seconds=10)
    return json.loads(result.content[0].text)


class V1Client:
    """mcp 1.x: the calls the scenarios make, on a `ClientSession` (the timeout is a timedelta)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, read_timeout_seconds: float | None = None, progress_callback: Any = None) -> Any:
        timeout = None if read_timeout_seconds is None else datetime.timedelta(seconds=read_timeout_seconds)
        return await self.session.call_tool(name, arguments, read_timeout_seconds=timeout, progress_callback=progress_callback)


@contextlib.asynccontextmanager
async def connect(transport: Any, revision: str) -> AsyncIterator[Any]:
    """The SDK's client over `transport` (the SDK's own, behind the retyping relay), speaking
    `revision`: 2.x's `Client`, which takes a transport; 1.x's `ClientSession` on its streams."""
    if Client is None:
        from mcp import ClientSession

        async with transport as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=datetime.timedelta(seconds=10)) as session:
                await session.initialize()
                yield V1Client(session)
        return
    async with Client(transport, mode=MODES[revision], read_timeout_seconds=10) as client:
        yield client


async def run(scenario: str, revision: str, transport: str, server: list[str]) -> dict[str, Any]:
    # stdio: the SDK starts the server command; http: the runner started it and passes its URL.
    # The same transports `Client` builds from a `StdioServerParameters` or a URL, behind the
    # retyping relay (which passes everything unchanged unless a retyping scenario is running).
    inner = stdio_client(StdioServerParameters(command=server[0], args=server[1:])) if transport == "stdio" else streamable_http_client(server[0])
    target = retyping(inner)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        """A progress callback, so the SDK asks for progress (it sends a token only with one)."""

    report: dict[str, Any] = {"scenario": scenario, "revision": revision, "transport": transport}
    with anyio.fail_after(20):
        async with connect(target, revision) as client:
            started = time.monotonic()
            report["caller_saw"] = await SCENARIOS[scenario](client, on_progress)
            # A marker in the transcript: whatever the SDK had written by now precedes it.
            await client.call_tool("echo", {"text": RESUMED_MARKER}, read_timeout_seconds=10)
            await anyio.sleep(max(0.0, SETTLE_S - (time.monotonic() - started)))
            report["transcript"] = await tool_json(client, "transcript")
            report["violations"] = await tool_json(client, "violations")
    return report


def describe() -> dict[str, Any]:
    return {
        "sdk": "python",
        "package": "mcp",
        "version": version("mcp"),
        "revisions": [r for r in REVISIONS if r in HANDSHAKE_PROTOCOL_VERSIONS or r in MODERN_PROTOCOL_VERSIONS],
        "transports": ["stdio", "http"],
        "scenarios": [scenario for scenario in SCENARIOS if scenario not in UNAVAILABLE],
        **({"unavailable": UNAVAILABLE} if UNAVAILABLE else {}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--describe", action="store_true", help="print what this SDK supports, as JSON")
    parser.add_argument("--scenario", choices=list(SCENARIOS))
    parser.add_argument("--revision", choices=list(MODES))
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("server", nargs="*", help="after --: the server command (stdio) or the server's URL (http)")
    arguments = parser.parse_args()
    if arguments.describe:
        print(json.dumps(describe()))
        return 0
    if not (arguments.scenario and arguments.revision and arguments.server):
        parser.error("--scenario, --revision and the server command are required")
    report = anyio.run(run, arguments.scenario, arguments.revision, arguments.transport, arguments.server)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
