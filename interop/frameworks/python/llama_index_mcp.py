"""LlamaIndex MCP tools (PyPI `llama-index-tools-mcp`): the MCP tools as LlamaIndex `FunctionTool`s.

From the installed source (`llama_index/tools/mcp/client.py`, `base.py`): `BasicMCPClient(command
or URL, args=..., timeout=...)` is a `ClientSession` subclass that opens a new session for each
operation (`_run_session()`: over stdio a new server process per call) with the official SDK's
`read_timeout_seconds=float(timeout)`; `McpToolSpec(client).to_tool_list_async()` wraps each
tool as a `FunctionTool`. No agent drives it here: the call is the tool's own `acall(...)`, what a
LlamaIndex agent awaits for a tool call (a scripted LlamaIndex LLM that emits tool calls needs a
`FunctionCallingLLM` of its own; the MCP side is the same call). Ways of stopping:
- `tool timeout`: `BasicMCPClient(..., timeout=0.7)` (its HTTP timeout is the same number);
- `run abort`: `Task.cancel()` on the task awaiting `tool.acall(...)`;
- `process exit`: the process exits (contract.py).
No object holds the session while a call runs (each call owns its own), so there is no `close
client`. The next call is the `echo` tool's `acall`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

from llama_index.tools.mcp import BasicMCPClient, McpToolSpec


@dataclass
class Env:
    tools: dict[str, Any]


class LlamaIndexMCP(contract.Adapter):
    name = "llama-index-tools-mcp"
    package = "llama-index-tools-mcp"
    scenarios = ("tool timeout", "run abort", "process exit")
    unavailable = {
        "close client": "no object holds the session during a call: BasicMCPClient opens a session per operation (llama_index/tools/mcp/client.py)",
        "framework stop": "a tool call has no stop or cancel call of its own",
    }

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        timeout: Any = cell.timeout_s if cell.timeout_s is not None else 30
        if cell.transport == "stdio":
            client = BasicMCPClient(cell.server[0], args=cell.server[1:], timeout=timeout)
        else:
            client = BasicMCPClient(cell.url, timeout=timeout)
        tools = await McpToolSpec(client).to_tool_list_async()
        yield Env({tool.metadata.name: tool for tool in tools})

    async def run_agent(self, env: Env) -> str:
        output = await env.tools["slow"].acall(**contract.SLOW_ARGUMENTS)
        return contract.final_text(_text(output))

    async def next_call(self, env: Env) -> str:
        return _text(await env.tools["echo"].acall(text=contract.RESUMED_MARKER))


def _text(output: Any) -> str:
    raw = getattr(output, "raw_output", output)
    content = getattr(raw, "content", None)
    if content:
        return " ".join(str(getattr(block, "text", block)) for block in content)
    return str(getattr(output, "content", output))


if __name__ == "__main__":
    raise SystemExit(contract.main(LlamaIndexMCP()))
