"""Google GenAI SDK (PyPI `google-genai`): an MCP `ClientSession` passed as a tool to
`client.aio.models.generate_content`, whose automatic function calling calls it.

From the installed source (`google/genai/models.py`, `_extra_utils.py`, `_mcp_utils.py`): a
`mcp.ClientSession` in `GenerateContentConfig(tools=[session])` is listed and wrapped in a
`McpToGenAiToolAdapter`; when the model answers with a `functionCall`, the SDK awaits
`session.call_tool(...)` itself and sends the result back to the model. The model calls are
faked without any network: the client's `HttpOptions(httpx_async_client=...)` is an
`httpx.AsyncClient` over an `httpx.MockTransport` that answers `generateContent` as a scripted
Gemini would (a `functionCall`, then a text quoting the `functionResponse`). The MCP session is
the official SDK's (`mcp` as pulled in), over its `stdio_client` / `streamable_http_client`.
google-genai 3.3.0 cannot list a tool whose input schema has `"additionalProperties": false`
(see `SchemaSafeSession`): the session here drops that key from the listing, nothing else.
Ways of stopping:
- `run abort`: `Task.cancel()` on the task awaiting `generate_content(...)`;
- `close client`: leaving the `ClientSession` (and transport) context while the call runs;
- `process exit`: the process exits (contract.py).
The GenAI SDK has no MCP or tool timeout of its own (`HttpOptions.timeout` bounds the model's
HTTP requests) and no abort for a request (googleapis/js-genai#1054 is the TypeScript side).
The next call is a second `generate_content` with the same session.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any, AsyncIterator

import contract

contract.process_exit_parent()  # `process exit`'s parent ends here, before the framework's imports

import httpx2 as httpx
from google import genai
from google.genai import types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def scripted_gemini(request: httpx.Request) -> httpx.Response:
    """A `generateContent` answer: a `functionCall` for the prompt, or text quoting the tool's response."""
    contents = json.loads(request.content)["contents"]
    last = contents[-1]["parts"][-1]
    if "functionResponse" in last:
        response = last["functionResponse"].get("response", {})
        result = response.get("result", response.get("error", response))
        content = result.get("content", result) if isinstance(result, dict) else result
        part: dict[str, Any] = {"text": contract.final_text(content)}
    else:
        name, arguments = contract.first_turn(contents[-1]["parts"][0].get("text", ""))
        part = {"functionCall": {"name": name, "args": arguments}}
    return httpx.Response(200, json={"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]})


class SchemaSafeSession(ClientSession):
    """The official session, with each tool's boolean `additionalProperties` dropped from its
    listing: google-genai 3.3.0's `_mcp_utils._filter_to_supported_schema` recurses into
    `additionalProperties` as a schema object and fails on `false` (`AttributeError: 'bool' object
    has no attribute 'items'`), so a server whose tools forbid extra arguments (the test server's
    all do, as schemars and Pydantic's `extra="forbid"` write them) cannot be used as is."""

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        listed = await super().list_tools(*args, **kwargs)
        for tool in listed.tools:
            schema = tool.input_schema if hasattr(tool, "input_schema") else tool.inputSchema
            if isinstance(schema, dict) and isinstance(schema.get("additionalProperties"), bool):
                schema.pop("additionalProperties")
        return listed


@dataclass
class Env:
    client: genai.Client
    session: ClientSession
    stack: contextlib.AsyncExitStack


class GoogleGenAI(contract.Adapter):
    name = "google-genai"
    package = "google-genai"
    scenarios = ("run abort", "close client", "process exit")
    unavailable = {
        "tool timeout": "the GenAI SDK has no MCP or tool timeout of its own (HttpOptions.timeout bounds the model's HTTP requests only)",
        "framework stop": "a generate_content call has no stop or abort of its own",
    }

    @contextlib.asynccontextmanager
    async def open(self, cell: contract.Cell) -> AsyncIterator[Env]:
        stack = contextlib.AsyncExitStack()
        if cell.transport == "stdio":
            streams = await stack.enter_async_context(stdio_client(StdioServerParameters(command=cell.server[0], args=cell.server[1:])))
        else:
            streams = await stack.enter_async_context(streamable_http_client(cell.url))
        session = await stack.enter_async_context(SchemaSafeSession(streams[0], streams[1]))
        await session.initialize()
        mock = httpx.AsyncClient(transport=httpx.MockTransport(scripted_gemini))
        client = genai.Client(api_key="scripted", http_options=types.HttpOptions(httpx_async_client=mock))
        try:
            yield Env(client, session, stack)
        finally:
            with contextlib.suppress(Exception):
                await stack.aclose()

    async def _generate(self, env: Env, prompt: str) -> str:
        response = await env.client.aio.models.generate_content(model="gemini-scripted", contents=prompt, config={"tools": [env.session]})
        return str(response.text)

    async def run_agent(self, env: Env) -> str:
        return await self._generate(env, contract.SLOW_PROMPT)

    async def close(self, env: Env) -> None:
        await env.stack.aclose()

    async def warm_up(self, env: Env) -> None:
        # One run before the clock (contract.Adapter.warm_up).
        await self._generate(env, contract.WARM_PROMPT)

    async def next_call(self, env: Env) -> str:
        return await self._generate(env, contract.NEXT_PROMPT)


if __name__ == "__main__":
    raise SystemExit(contract.main(GoogleGenAI()))
