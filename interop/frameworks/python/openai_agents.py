"""OpenAI Agents SDK for Python (PyPI `openai-agents`): an agent with an MCP server, a scripted model.

The model is the SDK's own test double (`agents.testing.ScriptedModel`, each step a responder
that reads the run's input): turn 1 calls the MCP tool, turn 2 quotes the tool's output. The MCP
server object is `MCPServerStdio` / `MCPServerStreamableHttp`; its timeout is
`client_session_timeout_seconds` (the `ClientSession` read timeout; default 5 s). Ways of stopping
(from the installed source: `agents/result.py`, `agents/mcp/server.py`):
- `run abort`: `Task.cancel()` on the task awaiting `Runner.run(...)`;
- `framework stop`: `RunResultStreaming.cancel()` (mode "immediate", the default) on a
  `Runner.run_streamed(...)` run whose events the caller is consuming;
- `close client`: `await server.cleanup()` while the call runs;
- `tool timeout`: `client_session_timeout_seconds=0.7`;
- `process exit`: the process exits (contract.py).
The next call is a second `Runner.run` with the same agent and MCP server object.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from agents import Agent, Runner
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call


def respond(call: Any) -> list[Any]:
    """One model turn, from the run's input: a tool call, or the final text quoting its output."""
    items = call.input if isinstance(call.input, list) else [{"role": "user", "content": call.input}]
    last = items[-1]
    if isinstance(last, dict) and last.get("type") == "function_call_output":
        return [assistant_message(contract.final_text(last.get("output")))]
    prompt = next(item.get("content") for item in items if isinstance(item, dict) and item.get("role") == "user")
    name, arguments = contract.first_turn(str(prompt))
    return [function_call(name, arguments, call_id=f"call-{name}")]


@dataclass
class Env:
    server: Any
    agent: Agent
    streamed: Any = None


class OpenAIAgents(contract.Adapter):
    name = "openai-agents"
    package = "openai-agents"
    scenarios = ("tool timeout", "run abort", "framework stop", "close client", "process exit")

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        timeout = cell.timeout_s if cell.timeout_s is not None else 30
        if cell.transport == "stdio":
            server: Any = MCPServerStdio({"command": cell.server[0], "args": cell.server[1:]}, client_session_timeout_seconds=timeout)
        else:
            server = MCPServerStreamableHttp({"url": cell.url}, client_session_timeout_seconds=timeout)
        model = ScriptedModel([ModelStep(responder=respond) for _ in range(8)])
        agent = Agent(name="stopper", instructions="Call the tool.", model=model, mcp_servers=[server])
        await server.connect()
        env = Env(server, agent)
        if cell.scenario == "framework stop":
            env.streamed = asyncio.get_running_loop().create_future()
        try:
            yield env
        finally:
            with contextlib.suppress(Exception):
                await server.cleanup()

    async def run_agent(self, env: Env) -> str:
        if env.streamed is not None:
            return await self._run_streamed(env)
        result = await Runner.run(env.agent, contract.SLOW_PROMPT)
        return str(result.final_output)

    async def _run_streamed(self, env: Env) -> str:
        result = Runner.run_streamed(env.agent, contract.SLOW_PROMPT)
        env.streamed.set_result(result)
        async for _ in result.stream_events():
            pass
        return str(result.final_output)

    async def warm_up(self, env: Env) -> None:
        # The first run (and the first streamed run) of a process takes over 0.6 s on a loaded
        # machine, so the stop came before the call: one `echo` run each way first.
        await Runner.run(env.agent, contract.WARM_PROMPT)
        async for _ in Runner.run_streamed(env.agent, contract.WARM_PROMPT).stream_events():
            pass

    async def stop(self, env: Env, task: asyncio.Task[str]) -> None:
        (await env.streamed).cancel()

    async def close(self, env: Env) -> None:
        await env.server.cleanup()

    async def next_call(self, env: Env) -> str:
        result = await Runner.run(env.agent, contract.NEXT_PROMPT)
        return str(result.final_output)


if __name__ == "__main__":
    raise SystemExit(contract.main(OpenAIAgents()))

