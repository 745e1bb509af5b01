"""LangChain MCP adapters (PyPI `langchain-mcp-adapters`) with a LangGraph ReAct agent.

From the installed source (`langchain_mcp_adapters/client.py`, `tools.py`, `sessions.py`): the
documented way is `MultiServerMCPClient({...}).get_tools()`; a tool loaded that way opens a new
MCP session for each call (`create_session(connection)` inside the tool's coroutine; over stdio a
new server process per call) and closes it when the call ends or is cancelled. The session's
timeout is the connection's `session_kwargs` (passed to the official SDK's `ClientSession`:
`read_timeout_seconds`). The agent is LangGraph's `create_react_agent` with a fake chat model
whose `bind_tools` keeps the tools (LangChain's fake chat models cannot bind tools). Ways of
stopping:
- `tool timeout`: `session_kwargs={"read_timeout_seconds": timedelta(seconds=0.7)}`;
- `run abort`: `Task.cancel()` on the task awaiting `agent.ainvoke(...)`;
- `process exit`: the process exits (contract.py).
There is no client object that holds the session while a call runs (each call owns its own), so
there is no `close client`; a LangGraph run has no stop call of its own.
The next call is a second `agent.ainvoke`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from langchain_core.messages import HumanMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.prebuilt import create_react_agent

from scripted_langchain import ScriptedChatModel


@dataclass
class Env:
    client: MultiServerMCPClient
    agent: Any


class LangChainMCP(contract.Adapter):
    name = "langchain-mcp-adapters"
    package = "langchain-mcp-adapters"
    scenarios = ("tool timeout", "run abort", "process exit")
    unavailable = {
        "close client": "no client object holds the session during a call: each tool call opens and closes its own session (langchain_mcp_adapters/tools.py)",
        "framework stop": "a LangGraph run has no stop or cancel call of its own",
    }

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        session_kwargs = {"read_timeout_seconds": timedelta(seconds=cell.timeout_s)} if cell.timeout_s is not None else {}
        if cell.transport == "stdio":
            connection: dict[str, Any] = {"transport": "stdio", "command": cell.server[0], "args": cell.server[1:], "session_kwargs": session_kwargs}
        else:
            connection = {"transport": "streamable_http", "url": cell.url, "session_kwargs": session_kwargs}
        client = MultiServerMCPClient({"testserver": connection})
        tools = await client.get_tools()
        yield Env(client, create_react_agent(ScriptedChatModel(), tools))

    async def run_agent(self, env: Env) -> str:
        state = await env.agent.ainvoke({"messages": [HumanMessage(contract.SLOW_PROMPT)]})
        return str(state["messages"][-1].content)

    async def warm_up(self, env: Env) -> None:
        # One run before the clock (contract.Adapter.warm_up).
        await env.agent.ainvoke({"messages": [HumanMessage(contract.WARM_PROMPT)]})

    async def next_call(self, env: Env) -> str:
        state = await env.agent.ainvoke({"messages": [HumanMessage(contract.NEXT_PROMPT)]})
        return str(state["messages"][-1].content)


if __name__ == "__main__":
    raise SystemExit(contract.main(LangChainMCP()))

