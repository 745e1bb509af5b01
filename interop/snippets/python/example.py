"""An example of a Python snippet on mcp_snippet: a `wait_gate` call that returns once the
snippet opens the gate. `run-snippet example.py [stdio|http]`; interop/snippets/run_examples.py runs it."""

import asyncio
import sys

from mcp_snippet import connect, open_gate


async def main(transport: str) -> None:
    async with connect(transport) as client:
        waiting = asyncio.ensure_future(client.call_tool("wait_gate", {"gate": "go"}))
        print(await open_gate(client, "go"))
        result = await waiting
        print(result.content[0].text)


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "stdio"))
