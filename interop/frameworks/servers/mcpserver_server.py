"""The same server written with the official Python SDK's `MCPServer` (PyPI `mcp` 2.3.0; it was
`mcp.server.fastmcp.FastMCP` before 2.0, a module that now only raises), for measure.py.

    mcpserver_server.py --events FILE [--http PORT]

`slow`, `slow_sync` and `whoami` as in fastmcp_server.py; `MCPServer` has no middleware.
"""

import time

import anyio
from mcp.server.mcpserver import Context, MCPServer
from slow_events import arguments, note


server = MCPServer("slow")


@server.tool()
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


@server.tool()
def slow_sync(steps: int, step_ms: int, ctx: Context) -> str:
    note(f"started request_id={ctx.request_id!r}")
    for step in range(steps):
        time.sleep(step_ms / 1000)
        note(f"step {step + 1}")
    note("returned")
    return f"done after {steps} steps"


@server.tool()
async def whoami(ctx: Context) -> str:
    return repr(ctx.request_id)


def main() -> None:
    args = arguments()
    if args.http:
        server.run(transport="streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run(transport="stdio")


if __name__ == "__main__":
    main()
