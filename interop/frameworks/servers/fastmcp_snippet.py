"""The book's `python-fastmcp` snippets: serve the FastMCP server a snippet defines, stop a call.

    from fastmcp_snippet import stop_call
    stop_call(server, "slow", stop="stream close", transport="http", revision="2025-11-25")

`stop_call` runs the snippet's own file again as a child process that serves `server` (over stdio,
or Streamable HTTP on a free loopback port: one child for all the calls over HTTP), calls `tool`
with measure.py's raw JSON-RPC client, stops the call 0.6 s after sending it (`stop`: "cancel"
sends `notifications/cancelled`, "stream close" closes the connection carrying the call's
response, "stdin close" closes the server's stdin), watches until 2.5 s after the stop, and prints
what the server wrote to its stderr (each line as `server: LINE`) and what it sent for the call
after the stop. In the child, the same call serves and exits. The snippet's tools print to
stderr: over stdio, stdout is the protocol.

`ask(server, tool, ids)` calls `tool` once per JSON-RPC id in `ids` over stdio and prints each
reply's text.
"""

import atexit
import json
import os
import sys
import tempfile
import time

import measure

SERVE = "FASTMCP_SNIPPET_SERVE"


def serve_if_child(server) -> None:
    """In the child process: serve `server` on the transport the parent chose, then exit."""
    serving = os.environ.get(SERVE)
    if serving == "stdio":
        server.run(transport="stdio", show_banner=False)
        sys.exit(0)
    if serving:
        server.run(transport="http", host="127.0.0.1", port=int(serving), show_banner=False)
        sys.exit(0)


def child_env() -> dict:
    return {**os.environ, "FASTMCP_LOG_LEVEL": "CRITICAL", "PYTHONUNBUFFERED": "1"}


def ask(server, tool: str, ids: list) -> None:
    """Calls `tool` with each id over stdio (2025-11-25) and prints the reply's text."""
    serve_if_child(server)
    argv = [sys.executable, os.path.abspath(sys.argv[0])]
    client = measure.Stdio(argv, "2025-11-25", env={**child_env(), SERVE: "stdio"})
    try:
        client.start()
        for request_id in ids:
            client.call(request_id, {"name": tool, "arguments": {}})
            reply = client.response(request_id)
            text = reply["result"]["content"][0]["text"]
            print(f"request id {json.dumps(request_id)}: {tool} returned {text}")
    finally:
        client.stop()


_http: list = []  # the one HTTP server child of this run: (port, process, its stderr file)


def http_server(argv: list[str]) -> tuple:
    """Starts the HTTP server child once per run (every call over HTTP goes to it)."""
    if not _http:
        port = measure.free_port()
        log = tempfile.NamedTemporaryFile(delete=False)
        atexit.register(os.unlink, log.name)
        env = {**child_env(), SERVE: str(port)}
        with open(log.name, "ab") as stderr:  # appending: the parent reads as the child writes
            process = measure.Http(argv, port, "2025-11-25", env=env, stderr=stderr).process
        atexit.register(process.kill)
        _http.append((port, process, log.name))
    return _http[0]


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
    serve_if_child(server)
    arguments = arguments if arguments is not None else {"steps": 10, "step_ms": 200}
    argv = [sys.executable, os.path.abspath(sys.argv[0])]
    with tempfile.TemporaryFile() as stderr:
        if transport == "stdio":
            env = {**child_env(), SERVE: "stdio"}
            client = measure.Stdio(argv, revision, env=env, stderr=stderr)
        else:
            port, process, log = http_server(argv)
            client = measure.Http(argv, port, revision, process=process)
            printed = os.path.getsize(log)
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
            time.sleep(2.5)
            sent = client.responses_after(1, stopped)
        finally:
            client.stop()
        if transport == "stdio":
            stderr.seek(0)
            text = stderr.read()
        else:
            with open(log, "rb") as written:
                written.seek(printed)
                text = written.read()
        for line in text.decode(errors="replace").splitlines():
            if line.strip():
                print(f"server: {line}")
    if stop != "stream close":
        print(f"sent for the call after the stop: {measure.describe(sent)}")

