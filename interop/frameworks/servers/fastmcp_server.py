"""A FastMCP (PyPI `fastmcp`) server with one tool that waits, for measure.py.

    fastmcp_server.py --events FILE [--http PORT]

`slow {"steps", "step_ms"}` sleeps `steps` times `step_ms` and writes what it sees to FILE, one
line each, `EPOCH_MS TEXT`: `started request_id=...`, `step N`, `interrupted by NAME` (an exception
reached the tool), `returned`, and `middleware finally` from a middleware's `finally` (the place
PrefectHQ/fastmcp#4354 says never runs when the client has gone). `whoami` returns
`repr(ctx.request_id)`. `slow_sync`
is `slow` as a plain `def` (FastMCP runs it in a worker thread).
"""

import time

import anyio
from fastmcp import Context, FastMCP
from fastmcp.server.middleware import Middleware
from slow_events import arguments, note


class Finally(Middleware):
    async def on_call_tool(self, context, call_next):
        try:
            return await call_next(context)
        finally:
            note("middleware finally")


server = FastMCP("slow", middleware=[Finally()])


@server.tool
async def slow(steps: int, step_ms: int, ctx: Context) -> str:
    note(f"started request_id={ctx.request_id!r}")
    try:
        for step in range(steps):
            await anyio.sleep(step_ms / 1000)
            note(f"step {step + 1}")
    except BaseException as error:
        note(f"interrupted by {type(error).__name__}")
        raise
    note("returned")
    return f"done after {steps} steps"


@server.tool
def slow_sync(steps: int, step_ms: int, ctx: Context) -> str:
    """The same work in a plain `def`: FastMCP runs it in a worker thread."""
    note(f"started request_id={ctx.request_id!r}")
    for step in range(steps):
        time.sleep(step_ms / 1000)
        note(f"step {step + 1}")
    note("returned")
    return f"done after {steps} steps"


@server.tool
async def whoami(ctx: Context) -> str:
    return repr(ctx.request_id)


def main() -> None:
    args = arguments()
    if args.http:
        server.run(transport="http", host="127.0.0.1", port=args.http, show_banner=False)
    else:
        server.run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    main()
