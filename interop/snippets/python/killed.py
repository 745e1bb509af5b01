"""A snippet killed mid-session: connects, makes one call, prints `ready`, then waits until its
process group gets SIGTERM. interop/snippets/run_examples.py checks the server still wrote its
artifacts. `run-snippet killed.py [stdio|http]`."""

import asyncio
import sys

from mcp_snippet import connect


async def main(transport: str) -> None:
    async with connect(transport) as client:
        result = await client.call_tool("echo", {"text": "ready"})
        print(result.content[0].text, flush=True)
        await asyncio.sleep(60)


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "stdio"))
