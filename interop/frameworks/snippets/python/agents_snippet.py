"""The helper the book's `python-agents` snippets use (book/frameworks.md): the test server as
stdio parameters, and a scripted LangChain chat model, so a LangGraph agent calls one MCP tool
with no network model.

    from agents_snippet import Scripted, http_test_server, test_server
    async with stdio_client(test_server()) as (read, write): ...
    with http_test_server() as url: ...   # Streamable HTTP
    agent = create_react_agent(Scripted("slow", {"steps": 10, "step_ms": 200}), tools)

`test_server()` names `$MCP_TESTSERVER` or `target/release/mcp-testserver` (relative paths from the
repository root), with `--artifacts $MDBOOK_SNIPPETS_ARTIFACTS` and `--mutant
$MDBOOK_SNIPPETS_MUTANT` when the verifier set them, as interop/snippets/ does: the SDK's stdio
client passes the server a short list of variables only.
"""

import contextlib
import os
import subprocess
import threading
import warnings
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from mcp import StdioServerParameters

# LangGraph 1.x warns that create_react_agent moved; the snippets keep the import readers know.
warnings.filterwarnings("ignore", message=".*create_react_agent has been moved.*")

ROOT = Path(__file__).resolve().parents[4]


def test_server() -> StdioServerParameters:
    named = os.environ.get("MCP_TESTSERVER") or "target/release/mcp-testserver"
    command = named if os.path.isabs(named) else str(ROOT / named)
    args = []
    if os.environ.get("MDBOOK_SNIPPETS_ARTIFACTS"):
        args += ["--artifacts", os.environ["MDBOOK_SNIPPETS_ARTIFACTS"]]
    if os.environ.get("MDBOOK_SNIPPETS_MUTANT", "").strip():
        args += ["--mutant", os.environ["MDBOOK_SNIPPETS_MUTANT"].strip()]
    return StdioServerParameters(command=command, args=args)


@contextlib.contextmanager
def http_test_server():
    """The test server over Streamable HTTP on a loopback port; yields its URL, stops it after.
    `--handler-log-all`: `print_handler_log`'s session of its own sees the framework's sessions."""
    parameters = test_server()
    command = [parameters.command, *parameters.args, "--http", "127.0.0.1:0", "--handler-log-all"]
    server = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in server.stderr:
            if "listening on " in line:
                threading.Thread(target=server.stderr.read, daemon=True).start()  # keep draining it
                yield line.split("listening on ", 1)[1].strip()
                return
        raise RuntimeError(f"the test server exited ({server.wait()}) without a URL")
    finally:
        server.terminate()
        server.wait()


class Scripted(BaseChatModel):
    """Turn 1 calls `tool` with `arguments`; after a tool message, it answers "done"."""

    tool: str
    arguments: dict

    def __init__(self, tool: str, arguments: dict):
        super().__init__(tool=tool, arguments=arguments)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if isinstance(messages[-1], ToolMessage):
            message = AIMessage(content="done")
        else:
            call = {"name": self.tool, "args": self.arguments, "id": "call-1"}
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


def print_handler_log(url: str) -> None:
    """Prints the HTTP test server's handler log (`server: slow#2 started`, ...), asked through a
    session of its own: `http_test_server` starts the server with `--handler-log-all`, so that
    session sees every session's lines (without it, a client sees its own only)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async def ask() -> str:
        async with streamablehttp_client(url) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return (await session.call_tool("handler_log", {})).content[0].text

    for line in anyio.run(ask).splitlines():
        print(f"server: {line}")
