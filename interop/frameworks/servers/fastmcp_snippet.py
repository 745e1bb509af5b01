"""The book's `python-fastmcp` snippets: serve the FastMCP server a snippet defines, stop a call.

    from fastmcp_snippet import stop_call
    stop_call(server, "slow", stop="stream close", transport="http", revision="2025-11-25")

`stop_call` runs the snippet's own file again as a child process that serves `server` (over stdio
or Streamable HTTP on a free loopback port), calls `tool` with measure.py's raw JSON-RPC client,
stops the call 0.6 s after the tool started (`stop`: "cancel" sends `notifications/cancelled`,
"stream close" closes the connection carrying the call's response, "stdin close" closes the
server's stdin), watches until 3 s after the stop, and prints what the server wrote to its stderr
(each line as `server: LINE`) and what it sent for the call after the stop. In the child, the same
call serves and exits. The snippet's tools print to stderr: over stdio, stdout is the protocol.
"""

import os
import sys
import tempfile
import time

import measure

SERVE = "FASTMCP_SNIPPET_SERVE"


def stop_call(
    server,
    tool: str,
    *,
    stop: str,
    transport: str = "stdio",
    revision: str = "2025-11-25",
    arguments: dict | None = None,
) -> None:
    """Serves `server` (in the child) or calls `tool` on it and stops the call (in the parent)."""
    serving = os.environ.get(SERVE)
    if serving == "stdio":
        server.run(transport="stdio", show_banner=False)
        sys.exit(0)
    if serving:
        server.run(transport="http", host="127.0.0.1", port=int(serving), show_banner=False)
        sys.exit(0)
    arguments = arguments if arguments is not None else {"steps": 15, "step_ms": 200}
    argv = [sys.executable, os.path.abspath(sys.argv[0])]
    env = {**os.environ, "FASTMCP_LOG_LEVEL": "CRITICAL", "PYTHONUNBUFFERED": "1"}
    with tempfile.TemporaryFile() as stderr:
        if transport == "stdio":
            client = measure.Stdio(argv, revision, env={**env, SERVE: "stdio"}, stderr=stderr)
        else:
            port = measure.free_port()
            env = {**env, SERVE: str(port)}
            client = measure.Http(argv, port, revision, env=env, stderr=stderr)
        try:
            client.start()
            client.call(1, {"name": tool, "arguments": arguments})
            time.sleep(measure.STOP_AT)
            stopped = time.monotonic()
            if stop == "cancel":
                client.cancel(1)
            elif stop == "stream close":
                client.close_stream(1)
            else:
                client.close_stdin()
            time.sleep(3)
            sent = client.responses_after(1, stopped)
        finally:
            client.stop()
        stderr.seek(0)
        for line in stderr.read().decode(errors="replace").splitlines():
            if line.strip():
                print(f"server: {line}")
    if stop != "stream close":
        print(f"sent for the call after the stop: {measure.describe(sent)}")

