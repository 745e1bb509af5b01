"""FastMCP's client (PyPI `fastmcp`, `fastmcp.Client`): no agent and no model, the call itself.

FastMCP is mostly used for servers, but its `Client` is what many Python tools and agents call
MCP servers with (Pydantic AI builds its `MCPToolset` on it). From the installed source
(`fastmcp/client/client.py`, `mixins/tools.py`): `call_tool(name, arguments, timeout=...,
progress_handler=...)`; `close()` disconnects (`_disconnect(force=True)`) and closes the
transport; `cancel(request_id)` sends a `notifications/cancelled` for an id the caller must know
(`call_tool` does not give it out, so it is not a way a user stops a call). Ways of stopping:
- `tool timeout`: `call_tool(..., timeout=0.7)`;
- `run abort`: `Task.cancel()` on the task awaiting `call_tool`;
- `callback exception`: the `progress_handler` raises at its first progress after 0.6 s;
- `close client`: `await client.close()` while the call runs;
- `process exit`: the process exits (contract.py).
The next call is `call_tool("echo", ...)` on the same `Client`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from fastmcp import Client
from fastmcp.client.transports import StdioTransport


class CallbackStop(Exception):
    """Raised by the progress handler in `callback exception`."""


@dataclass
class Env:
    client: Client
    timeout_s: float | None
    raising: list[bool] = field(default_factory=lambda: [False])

    def raise_in_callback(self) -> None:
        self.raising[0] = True


class FastMCPClient(contract.Adapter):
    name = "fastmcp"
    package = "fastmcp"
    scenarios = ("tool timeout", "run abort", "callback exception", "close client", "process exit")
    unavailable = {"framework stop": "`Client.cancel(request_id)` needs the call's request id, which `call_tool` does not give out"}

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        source: Any = StdioTransport(cell.server[0], cell.server[1:]) if cell.transport == "stdio" else cell.url
        async with Client(source) as client:
            yield Env(client, cell.timeout_s)

    async def run_agent(self, env: Env) -> str:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if env.raising[0]:
                raise CallbackStop("raised in the progress handler")

        result = await env.client.call_tool("slow", contract.SLOW_ARGUMENTS, timeout=env.timeout_s, progress_handler=on_progress)
        return contract.final_text(result.content)

    async def close(self, env: Env) -> None:
        await env.client.close()

    async def next_call(self, env: Env) -> str:
        result = await env.client.call_tool("echo", {"text": contract.RESUMED_MARKER})
        return contract.final_text(result.content)


if __name__ == "__main__":
    raise SystemExit(contract.main(FastMCPClient()))
