"""Pydantic AI (PyPI `pydantic-ai-slim[mcp]`): an agent with an `MCPToolset`, a `FunctionModel`.

From the installed source (`pydantic_ai/mcp.py`): in 2.x the `MCPServerStdio` /
`MCPServerStreamableHTTP` classes are gone ("use `MCPToolset`"); `MCPToolset` is built on the
FastMCP `Client` (`fastmcp-slim`), which it builds from a URL or a FastMCP transport (here
`StdioTransport(command, args)` over stdio). Its timeout is `read_timeout` (passed to
`fastmcp.Client(timeout=...)`, a per-request timeout). Tool errors are handed back to the model
(`tool_error_behavior='retry'`, the default), so the scripted model sees them and answers with
their text. Ways of stopping:
- `tool timeout`: `MCPToolset(..., read_timeout=0.7)`;
- `run abort`: `Task.cancel()` on the task awaiting `agent.run(...)`;
- `close client`: `await toolset.__aexit__(None, None, None)` (what leaving `async with agent`
  or `async with toolset` does) while the call runs;
- `process exit`: the process exits (contract.py).
Pydantic AI has no cancel or stop call of its own on a run. The next call is a second `agent.run`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """One model turn: a tool call for the prompt, or the final text quoting the tool's answer."""
    last = messages[-1]
    for part in getattr(last, "parts", []):
        if isinstance(part, ToolReturnPart):
            return ModelResponse(parts=[TextPart(contract.final_text(part.model_response_str()))])
        if isinstance(part, RetryPromptPart):
            return ModelResponse(parts=[TextPart(contract.final_text(part.model_response()))])
    prompt = next(part.content for message in messages if isinstance(message, ModelRequest) for part in message.parts if isinstance(part, UserPromptPart))
    name, arguments = contract.first_turn(str(prompt))
    return ModelResponse(parts=[ToolCallPart(name, arguments)])


@dataclass
class Env:
    toolset: MCPToolset
    agent: Agent


class PydanticAI(contract.Adapter):
    name = "pydantic-ai"
    package = "pydantic-ai-slim"
    scenarios = ("tool timeout", "run abort", "close client", "process exit")
    unavailable = {"framework stop": "an agent run has no cancel or stop call of its own (pydantic_ai/run.py)"}

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        timeout = cell.timeout_s if cell.timeout_s is not None else 30
        source: Any = StdioTransport(cell.server[0], cell.server[1:]) if cell.transport == "stdio" else cell.url
        toolset = MCPToolset(source, read_timeout=timeout)
        agent = Agent(FunctionModel(respond), toolsets=[toolset])
        async with toolset:
            yield Env(toolset, agent)

    async def run_agent(self, env: Env) -> str:
        return str((await env.agent.run(contract.SLOW_PROMPT)).output)

    async def close(self, env: Env) -> None:
        await env.toolset.__aexit__(None, None, None)

    async def warm_up(self, env: Env) -> None:
        # One run before the clock (contract.Adapter.warm_up).
        await env.agent.run(contract.WARM_PROMPT)

    async def next_call(self, env: Env) -> str:
        return str((await env.agent.run(contract.NEXT_PROMPT)).output)


if __name__ == "__main__":
    raise SystemExit(contract.main(PydanticAI()))
