"""Strands Agents (PyPI `strands-agents`): an `Agent` with tools from an `MCPClient`, a scripted model.

From the installed source (`strands/tools/mcp/mcp_client.py`, `mcp_agent_tool.py`,
`strands/agent/agent.py`): `MCPClient` runs the official SDK's session on a background thread of
its own (`start()` / `stop()`, or `with client:`); its tools (`list_tools_sync()`) are
`MCPAgentTool`s whose `timeout` is passed to the call as `read_timeout_seconds`; an `Agent` has
`cancel()` ("stops at the next cancellation-safe point: ... during MCP tool execution"). The
model is a `Model` subclass that streams Bedrock-style events: a `toolUse` block, then a text
quoting the tool result. Ways of stopping:
- `tool timeout`: the listed tools rebuilt as `MCPAgentTool(tool.mcp_tool, client, timeout=0.7 s)`;
- `run abort`: `Task.cancel()` on the task awaiting `agent.invoke_async(...)`;
- `framework stop`: `agent.cancel()`;
- `close client`: `client.stop(None, None, None)` (what leaving `with client:` does), on a thread;
- `process exit`: the process exits (contract.py).
The next call is a second `agent.invoke_async`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from strands import Agent
from strands.models.model import Model
from strands.tools.mcp import MCPClient
from strands.tools.mcp.mcp_agent_tool import MCPAgentTool


class ScriptedModel(Model):
    """Turn 1 streams a `toolUse` for the prompt; after a `toolResult`, a text quoting it."""

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model gives no structured output")

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        result = next((block["toolResult"] for block in messages[-1]["content"] if "toolResult" in block), None)
        yield {"messageStart": {"role": "assistant"}}
        if result is not None:
            text = " ".join(str(item.get("text", item)) for item in result.get("content", []))
            yield {"contentBlockDelta": {"delta": {"text": contract.final_text(f"{result.get('status')}: {text}")}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        # The agent keeps its conversation: the prompt is the last user text.
        prompt = [block["text"] for message in messages if message["role"] == "user" for block in message["content"] if "text" in block][-1]
        name, arguments = contract.first_turn(prompt)
        yield {"contentBlockStart": {"start": {"toolUse": {"name": name, "toolUseId": f"call-{name}"}}}}
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(arguments)}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


@dataclass
class Env:
    client: MCPClient
    agent: Agent


class StrandsAgents(contract.Adapter):
    name = "strands-agents"
    package = "strands-agents"
    # Version adaptation (history.py measures older releases with this program): `Agent.cancel()`
    # is newer than 1.20.0.
    if hasattr(Agent, "cancel"):
        scenarios: tuple[str, ...] = ("tool timeout", "run abort", "framework stop", "close client", "process exit")
        unavailable: dict[str, str] = {}
    else:
        scenarios = ("tool timeout", "run abort", "close client", "process exit")
        unavailable = {"framework stop": "this release's Agent has no cancel()"}

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        if cell.transport == "stdio":
            parameters = StdioServerParameters(command=cell.server[0], args=cell.server[1:])
            client = MCPClient(lambda: stdio_client(parameters))
        elif "url" in inspect.signature(MCPClient.__init__).parameters:
            client = MCPClient(url=cell.url)
        else:
            # Version adaptation: before `url=`, a transport callable (the official SDK's client).
            try:
                from mcp.client.streamable_http import streamable_http_client as http_client
            except ImportError:
                from mcp.client.streamable_http import streamablehttp_client as http_client
            url = cell.url
            client = MCPClient(lambda: http_client(url))
        await asyncio.to_thread(client.start)
        tools: list[Any] = list(await asyncio.to_thread(client.list_tools_sync))
        if cell.timeout_s is not None:
            tools = [MCPAgentTool(tool.mcp_tool, client, timeout=timedelta(seconds=cell.timeout_s)) for tool in tools]
        agent = Agent(model=ScriptedModel(), tools=tools, callback_handler=None)
        try:
            yield Env(client, agent)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(client.stop, None, None, None)

    async def run_agent(self, env: Env) -> str:
        result = await env.agent.invoke_async(contract.SLOW_PROMPT)
        return f"{result.stop_reason}: {str(result).strip()[:160]}"

    async def stop(self, env: Env, task: asyncio.Task[str]) -> None:
        env.agent.cancel()

    async def close(self, env: Env) -> None:
        await asyncio.to_thread(env.client.stop, None, None, None)

    async def warm_up(self, env: Env) -> None:
        # One run before the clock (contract.Adapter.warm_up).
        await env.agent.invoke_async(contract.WARM_PROMPT)

    async def next_call(self, env: Env) -> str:
        return str(await env.agent.invoke_async(contract.NEXT_PROMPT))


if __name__ == "__main__":
    raise SystemExit(contract.main(StrandsAgents()))
