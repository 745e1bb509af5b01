"""smolagents (PyPI `smolagents[mcp]`): a `ToolCallingAgent` with the tools of
`ToolCollection.from_mcp(...)` (mcpadapt), a scripted `Model`.

From the installed source (`smolagents/tools.py`, `smolagents/agents.py`, `mcpadapt/core.py`):
smolagents is synchronous; `ToolCollection.from_mcp(params, trust_remote_code=True)` is a context
manager around `MCPAdapt`, which runs the official SDK's session on an event loop in a thread of
its own and makes each MCP tool a blocking smolagents `Tool`; `from_mcp` passes no timeout (the
`ClientSession` timeout is mcpadapt's default, 5 s). The agent runs on a worker thread here
(`asyncio.to_thread(agent.run, ...)`), the way an async program uses it. The model is a `Model`
subclass: turn 1 calls the tool, turn 2 calls `final_answer` with a text quoting the result.
Ways of stopping:
- `framework stop`: `agent.interrupt()` (sets a switch the agent reads between steps);
- `close client`: leaving the `ToolCollection` context (`MCPAdapt.__exit__`) while the call runs;
- `process exit`: the process exits (contract.py).
Cancelling the asyncio task awaiting the worker thread stops nothing in the thread, so `run abort`
is not a way to stop smolagents; there is no tool timeout a user sets through smolagents.
The next call is a second `agent.run` (`reset=True`).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from mcp import StdioServerParameters
from smolagents import ToolCallingAgent, ToolCollection
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model


class ScriptedModel(Model):
    """Turn 1 calls the tool the task asks for; after an observation, `final_answer` quoting it."""

    def generate(self, messages: list[Any], stop_sequences: Any = None, response_format: Any = None, tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        last = messages[-1]
        role = last.role if hasattr(last, "role") else last["role"]
        content = last.content if hasattr(last, "content") else last["content"]
        text = " ".join(block.get("text", "") for block in content) if isinstance(content, list) else str(content)
        if role == MessageRole.TOOL_RESPONSE:
            name, arguments = "final_answer", {"answer": contract.final_text(text.split("Observation:", 1)[-1].strip())}
        else:
            task = text.split("New task:", 1)[-1].strip()
            name, arguments = contract.first_turn(task)
        call = ChatMessageToolCall(function=ChatMessageToolCallFunction(name=name, arguments=arguments), id=f"call-{name}", type="function")
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


@dataclass
class Env:
    collection: Any
    agent: ToolCallingAgent


class Smolagents(contract.Adapter):
    name = "smolagents"
    package = "smolagents"
    scenarios = ("framework stop", "close client", "process exit")
    unavailable = {
        "tool timeout": "ToolCollection.from_mcp passes no timeout (mcpadapt's ClientSession timeout stays at its default, 5 s)",
        "run abort": "the agent runs synchronously; cancelling the asyncio task that awaits its thread stops nothing in the thread",
    }

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        params: Any = StdioServerParameters(command=cell.server[0], args=cell.server[1:]) if cell.transport == "stdio" else {"url": cell.url, "transport": "streamable-http"}
        manager = ToolCollection.from_mcp(params, trust_remote_code=True, structured_output=False)
        collection = await asyncio.to_thread(manager.__enter__)
        agent = ToolCallingAgent(tools=list(collection.tools), model=ScriptedModel(), max_steps=3, verbosity_level=0)
        try:
            yield Env(manager, agent)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(manager.__exit__, None, None, None)

    async def _run(self, env: Env, prompt: str) -> str:
        return str(await asyncio.to_thread(env.agent.run, prompt, reset=True))

    async def warm_up(self, env: Env) -> None:
        await self._run(env, contract.WARM_PROMPT)

    async def run_agent(self, env: Env) -> str:
        return await self._run(env, contract.SLOW_PROMPT)

    async def stop(self, env: Env, task: asyncio.Task[str]) -> None:
        env.agent.interrupt()

    async def close(self, env: Env) -> None:
        await asyncio.to_thread(env.collection.__exit__, None, None, None)

    async def next_call(self, env: Env) -> str:
        return await self._run(env, contract.NEXT_PROMPT)


if __name__ == "__main__":
    raise SystemExit(contract.main(Smolagents()))

