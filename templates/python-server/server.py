"""An MCP server on stdio whose tool stops as soon as its request is cancelled.

    python server.py    (an MCP client starts it and speaks on its stdin and stdout)

It logs to stderr: stdout carries the protocol.
"""

from __future__ import annotations

import sys
import time

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import MCPServer

server = MCPServer("archive")


# ANCHOR: tool
@server.tool()
async def rebuild() -> str:
    """Rebuild the index: three shards fetched in parallel, then a merge."""
    log("lease taken")
    try:
        async with anyio.create_task_group() as shards:  # a cancel reaches every child
            for shard in (1, 2, 3):
                shards.start_soon(fetch_shard, shard)
        await anyio.to_thread.run_sync(merge)
        return "rebuilt"
    finally:
        log("lease released")  # every way out, the cancel included


async def fetch_shard(shard: int) -> None:
    log(f"shard {shard}: fetching")
    try:
        await anyio.sleep(2)  # stands for the real work of fetching one shard
        log(f"shard {shard}: fetched")
    except anyio.get_cancelled_exc_class():
        log(f"shard {shard}: stopped")
        raise  # always re-raise a cancellation


def merge() -> None:
    """Blocking work, in a worker thread: nothing interrupts it, so it checks between steps."""
    for chunk in range(1, 6):
        try:
            anyio.from_thread.check_cancelled()  # raises once the call is cancelled
        except BaseException:  # the event loop's cancellation: log it, and let it through
            log(f"merge: stopped before chunk {chunk}")
            raise
        log(f"merge: chunk {chunk}")
        time.sleep(0.5)  # stands for one step of real blocking work
# ANCHOR_END: tool


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    server.run()  # stdio
