"""mcp-use (PyPI `mcp-use`): an `MCPAgent` (a LangChain agent) over an `MCPClient`.

From the installed source (`mcp_use/agents/mcpagent.py`, `mcp_use/client/client.py`,
`client/connectors/base.py`): `MCPClient.from_dict({"mcpServers": {...}})` builds a connector per
server (stdio: `command`/`args`; HTTP: `url`), each holding one official-SDK `ClientSession`;
`MCPAgent(llm=..., client=...)` runs LangChain's `create_agent` over the client's tools; the model
is the scripted chat model of `scripted_langchain.py`. Its anonymous telemetry is switched off
(`MCP_USE_ANONYMIZED_TELEMETRY=false`), so nothing leaves the machine. Ways of stopping:
- `run abort`: `Task.cancel()` on the task awaiting `agent.run(...)`;
- `close client`: `await client.close_all_sessions()` while the call runs;
- `process exit`: the process exits (contract.py).
The connectors' `call_tool` takes a `read_timeout_seconds`, but neither the agent nor the client
config sets it, so there is no `tool timeout` a user can choose; an agent run has no stop call.
The next call is a second `agent.run`.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

os.environ["MCP_USE_ANONYMIZED_TELEMETRY"] = "false"

from mcp_use import MCPAgent, MCPClient  # noqa: E402

from scripted_langchain import ScriptedChatModel  # noqa: E402


@dataclass
class Env:
    client: MCPClient
    agent: MCPAgent


class McpUse(contract.Adapter):
    name = "mcp-use"
    package = "mcp-use"
    scenarios = ("run abort", "close client", "process exit")
    unavailable = {
        "tool timeout": "neither MCPAgent nor the client config sets the connectors' read_timeout_seconds",
        "framework stop": "an MCPAgent run has no stop or cancel call of its own",
    }

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        server: dict[str, Any] = {"command": cell.server[0], "args": cell.server[1:]} if cell.transport == "stdio" else {"url": cell.url}
        client = MCPClient.from_dict({"mcpServers": {"testserver": server}})
        agent = MCPAgent(llm=ScriptedChatModel(), client=client, max_steps=4, memory_enabled=False)
        await agent.initialize()
        try:
            yield Env(client, agent)
        finally:
            with contextlib.suppress(Exception):
                await client.close_all_sessions()

    async def warm_up(self, env: Env) -> None:
        await env.agent.run(contract.WARM_PROMPT, manage_connector=False)

    async def run_agent(self, env: Env) -> str:
        return str(await env.agent.run(contract.SLOW_PROMPT, manage_connector=False))

    async def close(self, env: Env) -> None:
        await env.client.close_all_sessions()

    async def next_call(self, env: Env) -> str:
        return str(await env.agent.run(contract.NEXT_PROMPT, manage_connector=False))


if __name__ == "__main__":
    raise SystemExit(contract.main(McpUse()))
