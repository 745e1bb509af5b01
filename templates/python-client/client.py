"""An MCP client on the command line: it starts a server over stdio, then makes one tool call per
line of standard input (`TOOL {"json": "arguments"}`) and prints how each one ended.

    python client.py [--idle SECS] [--total SECS] SERVER [ARGS...]

A call gives up after `--idle` seconds without progress (default 30) or `--total` seconds in all
(default 300), and Ctrl-C stops it; each way sends the server `notifications/cancelled`. Ctrl-C
between calls, or the end of input, quits.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult


# ANCHOR: call
class Stopped(Exception):
    """The call ended without its result; the message says how."""


async def call_tool(
    client: Client,
    name: str,
    arguments: dict,
    *,
    idle: float,
    total: float,
    stop: anyio.Event,
) -> CallToolResult:
    """Calls a tool until it answers, a limit passes, or `stop` is set. Each way of stopping
    cancels the call, and the SDK then sends `notifications/cancelled`."""
    how = "stopped"  # unless a limit passes first
    async with anyio.create_task_group() as call:

        async def stop_button() -> None:
            await stop.wait()
            call.cancel_scope.cancel()

        call.start_soon(stop_button)
        with anyio.move_on_after(total) as in_all:  # progress cannot extend this one
            with anyio.CancelScope() as quiet:
                quiet.deadline = anyio.current_time() + idle

                async def on_progress(progress: float, of: float | None, message: str | None):
                    quiet.deadline = anyio.current_time() + idle  # work goes on: start again
                    show_progress(progress, of, message)

                result = await client.call_tool(name, arguments, progress_callback=on_progress)
                call.cancel_scope.cancel()  # answered: nothing left for the stop button
                return result
        limit = f"{total:g} s in all" if in_all.cancelled_caught else f"no progress for {idle:g} s"
        how = f"gave up: {limit}"
        call.cancel_scope.cancel()
    raise Stopped(how)
# ANCHOR_END: call


# ANCHOR: main
async def main() -> None:
    arguments = parse_args()
    server = StdioServerParameters(command=arguments.server[0], args=arguments.server[1:])
    async with Client(server) as client, anyio.create_task_group() as session:
        running: list[anyio.Event] = []  # the stop button of the call in progress, if any

        async def on_ctrl_c() -> None:
            with anyio.open_signal_receiver(signal.SIGINT) as interrupts:
                async for _ in interrupts:
                    if running:
                        running[0].set()  # what a Stop button in a user interface would do
                    else:
                        session.cancel_scope.cancel()  # between calls: quit

        session.start_soon(on_ctrl_c)
        while line := await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True):
            call = parse_call(line)
            if call is None:
                print('expected a call: TOOL {"json": "arguments"}', file=sys.stderr)
                continue
            name, tool_arguments = call
            running.append(anyio.Event())
            try:
                limits = {"idle": arguments.idle, "total": arguments.total}
                result = await call_tool(client, name, tool_arguments, **limits, stop=running[0])
                print(f"{name}: {text_of(result)}", flush=True)
            except Stopped as stopped:
                print(f"{name}: {stopped}", flush=True)
            finally:
                running.clear()
        session.cancel_scope.cancel()  # the end of input: stop listening for Ctrl-C
# ANCHOR_END: main


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=float, default=30.0, help="seconds without progress")
    parser.add_argument("--total", type=float, default=300.0, help="seconds in all (default 300)")
    parser.add_argument("server", nargs=argparse.REMAINDER, help="the server's command line")
    arguments = parser.parse_args()
    if not arguments.server:
        parser.error("the server's command line is missing")
    return arguments


def show_progress(progress: float, of: float | None, message: str | None) -> None:
    total = "" if of is None else f"/{of:g}"
    print(f"  progress {progress:g}{total} {message or ''}", file=sys.stderr, flush=True)


def parse_call(line: str) -> tuple[str, dict] | None:
    """`TOOL {"json": "arguments"}` (the arguments may be left out) as a call, or `None`."""
    name, _, arguments = line.strip().partition(" ")
    try:
        parsed = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return None
    return (name, parsed) if name and isinstance(parsed, dict) else None


def text_of(result: CallToolResult) -> str:
    """The text of a result, an error result marked as such."""
    text = " ".join(content.text for content in result.content if content.type == "text")
    return f"error: {text}" if result.is_error else text


if __name__ == "__main__":
    anyio.run(main)
