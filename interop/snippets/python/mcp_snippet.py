"""The helper a Python snippet uses to talk to `mcp-testserver` with the official Python SDK
(PyPI `mcp`, pinned in interop/python/requirements.txt).

    from mcp_snippet import connect, open_gate

    async with connect("stdio") as client:      # or connect("http")
        print(await open_gate(client, "go"))
        await in_flight(client, "slow")          # a `slow` handler is running on the server
        await idle(client)                       # none is (or 3 s passed)
        print(await handler_log(client))         # ["slow#2 started", "slow#2 stopped by cancel after step 1"]

`connect` starts the test server binary (`$MCP_TESTSERVER`, default `target/release/mcp-testserver`
under the repository root), passes `--artifacts $MDBOOK_SNIPPETS_ARTIFACTS` and
`--mutant $MDBOOK_SNIPPETS_MUTANT` on when the verifier set those variables (the SDK's stdio client
does not pass the environment on), connects the SDK's
`Client` over stdio or Streamable HTTP, and on leaving the block closes it and waits for the
server to exit, so the server has written its wire transcript and sequence diagram by then.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Literal, Sequence

import anyio
from mcp import Client, StdioServerParameters

# Where the server binary is named; relative paths are taken from the repository root.
SERVER_VAR = "MCP_TESTSERVER"
DEFAULT_SERVER = "target/release/mcp-testserver"
# The verifier's artifact directory for this snippet.
ARTIFACTS_VAR = "MDBOOK_SNIPPETS_ARTIFACTS"
# The rule the verifier's `--mutants` mode asks the server to break (`mcp-testserver --list-mutants`).
MUTANT_VAR = "MDBOOK_SNIPPETS_MUTANT"
# interop/snippets/python/mcp_snippet.py -> the repository root.
REPOSITORY_ROOT = Path(__file__).resolve().parents[3]
# How long the server may take to print its address, and to exit once asked.
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0

Transport = Literal["stdio", "http"]


class ServerError(RuntimeError):
    """The test server could not be started or did not stop cleanly."""


def server_binary() -> str:
    """The test server binary: `$MCP_TESTSERVER` or the release build, from the repository root."""
    path = Path(os.environ.get(SERVER_VAR) or DEFAULT_SERVER)
    if not path.is_absolute():
        path = REPOSITORY_ROOT / path
    if not os.access(path, os.X_OK):
        raise ServerError(f"no test server binary at {path} (cargo build --release -p mcp-testserver, or set ${SERVER_VAR})")
    return str(path)


def server_arguments(*extra: str) -> list[str]:
    """The server's arguments: `extra`, then `--artifacts DIR` and `--mutant NAME` when the verifier
    named them."""
    arguments = list(extra)
    artifacts = os.environ.get(ARTIFACTS_VAR)
    if artifacts:
        arguments += ["--artifacts", artifacts]
    mutant = os.environ.get(MUTANT_VAR, "").strip()
    if mutant:
        arguments += ["--mutant", mutant]
    return arguments


@asynccontextmanager
async def connect(transport: Transport = "stdio", mode: str = "auto", server_flags: Sequence[str] = ()) -> AsyncIterator[Client]:
    """A fresh test server and an SDK `Client` connected to it (`mode` as the SDK takes it:
    "auto", "legacy" for 2025-11-25, or "2026-07-28"; `server_flags` go to the server, e.g.
    `["--conformance"]` for its `subscriptions/listen`, HTTP only); see the module docs."""
    if transport == "stdio":
        parameters = StdioServerParameters(command=server_binary(), args=server_arguments(*server_flags))
        # The SDK closes the server's stdin and waits for it to exit when the block ends.
        async with Client(parameters, mode=mode) as client:
            yield client
    elif transport == "http":
        with _HttpServer(server_flags) as url:
            async with Client(url, mode=mode) as client:
                yield client
    else:
        raise ValueError(f"unknown transport {transport!r} (expected 'stdio' or 'http')")


async def open_gate(client: Client, gate: str) -> str:
    """Opens `gate` with the server's `open_gate` tool (a `wait_gate` call on it returns); the
    tool's reply text, e.g. "opened go"."""
    result = await client.call_tool("open_gate", {"gate": gate})
    return result.content[0].text


# How often `in_flight` and `idle` ask the server, and for how long before they give up.
POLL_S = 0.02
WAIT_LIMIT_S = 3.0


async def handler_log(client: Client) -> list[str]:
    """The server's handler log (its `handler_log` tool): "wait_gate#2 started", "wait_gate#2
    stopped by cancel", ...; asking does not add to it."""
    result = await client.call_tool("handler_log", {})
    text = result.content[0].text
    return text.splitlines() if text else []


async def cancels_received(client: Client) -> list[dict]:
    """The `params` of every `notifications/cancelled` the server received so far (its
    `transcript` tool), in order: what the SDK put on the wire when a call was stopped."""
    result = await client.call_tool("transcript", {})
    wire = json.loads(result.content[0].text)
    return [
        entry["message"].get("params", {})
        for entry in wire
        if entry["direction"] == "in" and entry["message"].get("method") == "notifications/cancelled"
    ]


def _running(lines: list[str]) -> list[str]:
    """The labels ("slow#2") of the handlers that started and have not ended."""
    running: list[str] = []
    for line in lines:
        label, _, event = line.partition(" ")
        if event == "started":
            running.append(label)
        elif label in running and event.startswith(("completed", "stopped", "answered", "failed")):
            running.remove(label)
    return running


async def in_flight(client: Client, tool: str) -> None:
    """Waits until a `tool` handler is running on the server (so a cancel now reaches it)."""
    await _wait_until(client, lambda lines: any(label.startswith(f"{tool}#") for label in _running(lines)))


async def idle(client: Client) -> None:
    """Waits until no handler is running, or `WAIT_LIMIT_S` passed (the log then shows which one
    still is: a snippet's output tells, rather than a hang)."""
    await _wait_until(client, lambda lines: not _running(lines), give_up_quietly=True)


async def _wait_until(client: Client, done, give_up_quietly: bool = False) -> None:
    deadline = anyio.current_time() + WAIT_LIMIT_S
    while not done(await handler_log(client)):
        if anyio.current_time() > deadline:
            if give_up_quietly:
                return
            raise ServerError(f"the server's handler log did not get there within {WAIT_LIMIT_S} s")
        await anyio.sleep(POLL_S)


class _HttpServer:
    """`mcp-testserver --http 127.0.0.1:0` as a child process: its URL while it runs; stopped
    with SIGTERM (it writes its artifacts, then exits 0). Its stdin is a pipe this process holds,
    so the server also stops if this process dies first. Its stderr is passed on to ours."""

    def __init__(self, flags: Sequence[str] = ()) -> None:
        self.flags = list(flags)

    def __enter__(self) -> str:
        self.process = subprocess.Popen(
            [server_binary(), *server_arguments("--http", "127.0.0.1:0", *self.flags)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        found = threading.Event()
        self.url: str | None = None
        threading.Thread(target=self._relay_stderr, args=(found,), daemon=True).start()
        if not found.wait(START_TIMEOUT_S) or self.url is None:
            self._stop()
            raise ServerError(f"the test server printed no address within {START_TIMEOUT_S} s (exit code {self.process.poll()})")
        return self.url

    def __exit__(self, *exception: object) -> None:
        code = self._stop()
        if code != 0 and exception[0] is None:
            raise ServerError(f"the test server exited with {code} after SIGTERM")

    def _relay_stderr(self, found: threading.Event) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            prefix = "mcp-testserver: listening on "
            if not found.is_set() and line.startswith(prefix):
                self.url = line[len(prefix):].strip()
                found.set()
            sys.stderr.write(line)
        found.set()

    def _stop(self) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise ServerError(f"the test server did not exit within {STOP_TIMEOUT_S} s of SIGTERM") from None
        finally:
            if self.process.stdin is not None:
                self.process.stdin.close()


__all__ = ["connect", "open_gate", "cancels_received", "handler_log", "in_flight", "idle", "server_binary", "server_arguments", "ServerError", "SERVER_VAR", "ARTIFACTS_VAR", "MUTANT_VAR"]
