#!/usr/bin/env python3
"""Measures what a server framework's tool sees when its client stops a call (issue 32, part 2).

    measure.py [--server NAME]... [--only TEXT]... [--check | --bless] [--verbose]

For each server in servers.json, each transport (stdio, Streamable HTTP) and revision
(2025-11-25 with `initialize`, 2026-07-28 without), a raw JSON-RPC client (this file, standard
library only) calls the server's `slow {"steps": 15, "step_ms": 200}` tool, stops it 0.6 s later
one way, and watches until 3.6 s:

- `cancel`: `notifications/cancelled {requestId, reason}` (stdio; HTTP under 2025-11-25, POSTed);
- `stream close`: over HTTP, the client closes the connection that carries the call's response
  (under 2026-07-28 this *is* the cancel; under 2025-11-25 it is not, PrefectHQ/fastmcp#4354);
- `stdin close`: over stdio, the client closes the server's stdin (a client that died).

The tool writes what it sees to an events file (`started request_id=...`, `step N`, `interrupted
by NAME`, `signal aborted`, `returned`, `middleware finally`); the facts below are judged from it
and from what the server sent. `request id` calls `whoami` with ids "7" and 7.
With `--check` (what interop/run.sh would run) the facts are compared with expected.json: exit 0
when equal, 1 when a fact differs (the differences on stderr), 2 when the servers cannot run;
`--bless` rewrites expected.json. Needs scripts/setup-languages.sh --frameworks.
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "interop"))
import zygote  # noqa: E402

# Each Python server's cells are forked from a process that ran its top level once (its imports:
# about 1.8 s of CPU a start for FastMCP), set by main(); None starts each server as a process.
ZYGOTES: zygote.Pool | None = None
CALL = {"name": "slow", "arguments": {"steps": 15, "step_ms": 200}}
STOP_AT, WATCH_UNTIL = 0.6, 3.6
SYNC = " (def tool)"  # the same scenario with the server's `sync_tool`, a plain `def` tool
REVISIONS = ["2025-11-25", "2026-07-28"]
SCENARIOS = {
    "stdio": ["cancel", "stdin close", "request id"],
    "http": ["cancel", "stream close", "request id"],
}


def stamped(revision: str, params: dict) -> dict:
    """`params` with the 2026-07-28 `_meta` stamp; unchanged under 2025-11-25."""
    if revision == "2025-11-25":
        return params
    meta = params.setdefault("_meta", {})
    meta["io.modelcontextprotocol/protocolVersion"] = revision
    meta["io.modelcontextprotocol/clientInfo"] = {"name": "measure", "version": "1.0.0"}
    meta["io.modelcontextprotocol/clientCapabilities"] = {}
    return params


INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "measure", "version": "1.0.0"},
}


class Stdio:
    """The server as a child process speaking newline-delimited JSON-RPC on stdin/stdout."""

    def __init__(self, argv: list[str], revision: str, env=None, stderr=subprocess.DEVNULL, fork: bool = True):
        """Starts `argv`, forked from its zygote (ZYGOTES) unless `fork` is false."""
        self.revision = revision
        self.process = zygote.popen(ZYGOTES if fork else None, argv, subprocess.PIPE, subprocess.PIPE, stderr, env)
        self.received: list[tuple[float, dict]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                self.received.append((time.monotonic(), json.loads(line)))
            except ValueError:
                pass

    def send(self, message: dict) -> None:
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def response(self, request_id, timeout: float = 20.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for _, message in self.received:
                if message.get("id") == request_id and type(message["id"]) is type(request_id):
                    return message
            time.sleep(0.01)
        raise TimeoutError(f"no response to {request_id!r}")

    def start(self) -> None:
        if self.revision == "2025-11-25":
            self.send({"jsonrpc": "2.0", "id": -1, "method": "initialize", "params": INITIALIZE})
            self.response(-1)
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.send_request(0, "tools/list", {})  # the server is up and serving
        self.response(0)

    def send_request(self, request_id, method: str, params: dict) -> None:
        params = stamped(self.revision, dict(params))
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})

    def call(self, request_id, params: dict) -> None:
        self.send_request(request_id, "tools/call", params)

    def cancel(self, request_id) -> None:
        params = {"requestId": request_id, "reason": "user pressed stop"}
        self.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    def close_stdin(self) -> None:
        self.process.stdin.close()
        closed = time.time()

        def wait() -> None:
            self.process.wait()
            self.exited_after = time.time() - closed

        self.exited_after: float | None = None
        threading.Thread(target=wait, daemon=True).start()

    def exit_after_stdin_close(self) -> str:
        """Whether the server exited within 3 s after the watch (its timing is the load's)."""
        deadline = time.monotonic() + 3
        while self.exited_after is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return "still running 3 s after the watch" if self.exited_after is None else "exited"

    def responses_after(self, request_id, since: float) -> list[dict]:
        return [m for t, m in self.received if t >= since and m.get("id") == request_id]

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


class Http:
    """The server at http://127.0.0.1:PORT/mcp, one connection per POST (Streamable HTTP)."""

    def __init__(self, argv: list[str], port: int, revision: str, env=None,
                 stderr=subprocess.DEVNULL, process: subprocess.Popen | None = None):
        """Starts `argv` (serving on `port`), or talks to `process`, already serving there."""
        self.revision, self.port, self.owned = revision, port, process is None
        self.process = process or zygote.popen(
            ZYGOTES, argv, subprocess.DEVNULL, subprocess.DEVNULL, stderr, env,
        )
        self.session: str | None = None
        self.received: list[tuple[float, dict]] = []
        self.sockets: dict = {}
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError(f"server on port {port} did not start")
                time.sleep(0.1)

    def post(self, message: dict, wait: bool = True):
        """POSTs one message; reads its response stream in a thread (joined when `wait`)."""
        sock = socket.create_connection(("127.0.0.1", self.port))
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        connection.sock = sock
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if self.revision != "2025-11-25" or self.session:
            headers["MCP-Protocol-Version"] = self.revision
        if self.revision != "2025-11-25" and "method" in message:
            headers["Mcp-Method"] = message["method"]
            if message["method"] == "tools/call":
                headers["Mcp-Name"] = message["params"]["name"]
        if "id" in message:
            self.sockets[message["id"]] = sock
        reader = threading.Thread(target=self._read, args=(connection, message, headers))
        reader.daemon = True
        reader.start()
        if wait:
            reader.join(20)

    def _read(self, connection, message: dict, headers: dict) -> None:
        try:
            connection.request("POST", "/mcp", json.dumps(message), headers)
            response = connection.getresponse()
            self.session = response.getheader("mcp-session-id") or self.session
            if "text/event-stream" not in (response.getheader("content-type") or ""):
                body = response.read()
                if body.strip():
                    self.received.append((time.monotonic(), json.loads(body)))
                return
            for line in response:
                if line.startswith(b"data:") and line[5:].strip():
                    self.received.append((time.monotonic(), json.loads(line[5:])))
        except (OSError, ValueError, http.client.HTTPException):
            pass

    def response(self, request_id) -> dict:
        for _, message in self.received:
            if message.get("id") == request_id and type(message["id"]) is type(request_id):
                return message
        raise TimeoutError(f"no response to {request_id!r}")

    def start(self) -> None:
        if self.revision == "2025-11-25":
            self.post({"jsonrpc": "2.0", "id": -1, "method": "initialize", "params": INITIALIZE})
            self.response(-1)
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.send_request(0, "tools/list", {})  # the server is up and serving
        self.response(0)

    def send_request(self, request_id, method: str, params: dict) -> None:
        params = stamped(self.revision, dict(params))
        self.post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})

    def call(self, request_id, params: dict) -> None:
        params = stamped(self.revision, dict(params))
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        self.post(message, wait=params["name"] == "whoami")

    def cancel(self, request_id) -> None:
        params = {"requestId": request_id, "reason": "user pressed stop"}
        self.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    def close_stream(self, request_id) -> None:
        sock = self.sockets[request_id]
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    def responses_after(self, request_id, since: float) -> list[dict]:
        return [m for t, m in self.received if t >= since and m.get("id") == request_id]

    def stop(self) -> None:
        if not self.owned:
            return
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_events(path: Path) -> list[tuple[float, str]]:
    events = []
    for line in path.read_text().splitlines():
        at, _, text = line.partition(" ")
        events.append((int(at) / 1000, text))
    return events


def judge(events: list[tuple[float, str]], stopped_at: float) -> dict:
    """The tool's side of a stopped call, from its events file (epoch seconds)."""
    texts = [text for _, text in events]
    seen = [t for t in texts if t.startswith(("interrupted by", "signal aborted"))]
    steps = sum(1 for t in texts if t.startswith("step "))
    late = [t for at, t in events if at > stopped_at + 0.3 and t.startswith("step ")]
    return {
        "tool saw": seen[0] if seen else "nothing",
        "tool": "ran to the end" if steps == CALL["arguments"]["steps"] else
        ("stopped at the stop" if not late else "stopped late"),
        "middleware finally": "ran" if "middleware finally" in texts else "never ran",
    }


def describe(messages: list[dict]) -> str:
    """What the server sent for the call after the stop: nothing, a result, or an error."""
    if not messages:
        return "nothing"
    first = messages[0]
    if "error" in first:
        return f"error {first['error'].get('code')} {first['error'].get('message')!r}"
    return "the result"


def run_cell(server: dict, transport: str, revision: str, scenario: str) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        events = Path(scratch) / "events"
        events.touch()
        argv = [part.replace("{root}", str(ROOT)) for part in server["command"]]
        argv += ["--events", str(events)]
        if transport == "stdio":
            # `stdin close` measures the server's own exit: a real process, not a fork, whose
            # exit would also finalize what the zygote's run of the top level made.
            client = Stdio(argv, revision, fork=not scenario.startswith("stdin close"))
        else:
            port = free_port()
            client = Http(argv + ["--http", str(port)], port, revision)
        try:
            client.start()
            if scenario == "request id":
                seen = {}
                for request_id in ["7", 7]:
                    client.call(request_id, {"name": "whoami", "arguments": {}})
                    reply = client.response(request_id)
                    seen[json.dumps(request_id)] = reply["result"]["content"][0]["text"]
                return {"request_id": seen}
            call = dict(CALL)
            if scenario.endswith(SYNC):
                scenario = scenario.removesuffix(SYNC)
                call["name"] = server["sync_tool"]
            client.call(1, call)
            started = time.monotonic()
            while "started" not in events.read_text() and time.monotonic() < started + 5:
                time.sleep(0.01)  # the clock starts when the tool does
            started = time.monotonic()
            time.sleep(STOP_AT)
            stopped_at, stopped = time.time(), time.monotonic()
            if scenario == "cancel" and not (transport == "http" and revision != "2025-11-25"):
                client.cancel(1)
            elif scenario in ("cancel", "stream close"):
                client.close_stream(1)
            else:
                client.close_stdin()
            time.sleep(max(0.0, WATCH_UNTIL - (time.monotonic() - started)))
            late = client.responses_after(1, stopped)
            facts = judge(read_events(events), stopped_at)
            if scenario == "stream close":
                facts["sent after the stop"] = "n/a (no stream)"
            else:
                facts["sent after the stop"] = describe(late)
            if scenario == "stdin close":
                facts["server exit"] = client.exit_after_stdin_close()
            if "middleware finally" not in server.get("records", []):
                del facts["middleware finally"]
            return facts
        finally:
            client.stop()


def cells(servers: list[dict], only: list[str]) -> list[tuple[dict, str, str, str]]:
    """Every (server, transport, revision, scenario) to measure, in order."""
    chosen = []
    for server in servers:
        for transport, scenarios in SCENARIOS.items():
            for revision in server.get("revisions", REVISIONS):
                extra = [f"{s}{SYNC}" for s in scenarios[:2]] if "sync_tool" in server else []
                for scenario in scenarios + extra:
                    key = f"{transport} {revision} {scenario}"
                    if only and not any(part in key for part in only):
                        continue
                    if scenario.startswith("cancel") and transport == "http" \
                            and revision != "2025-11-25":
                        continue  # under 2026-07-28 HTTP the cancel is the stream close
                    chosen.append((server, transport, revision, scenario))
    return chosen


def measure(chosen: list[tuple[dict, str, str, str]], verbose: bool) -> dict:
    results: dict = {}
    for server, transport, revision, scenario in chosen:
        key = f"{transport} {revision} {scenario}"
        try:
            facts = run_cell(server, transport, revision, scenario)
        except (OSError, RuntimeError, TimeoutError, KeyError) as error:
            facts = {"error": f"{type(error).__name__}: {error}"}
        results.setdefault(server["name"], {})[key] = facts
        if verbose:
            print(f"{server['name']}: {key}: {json.dumps(facts)}", file=sys.stderr)
    return results


def measure_again(results: dict, expected: dict, chosen: list, run) -> list[tuple[str, str]]:
    """Measures once more, with `run` (a list of cells -> results), each cell of `chosen` whose
    facts in `results` differ from `expected`, and keeps the second measurement in `results`.
    Returns the (server, key) cells measured again; the first measurements go to stderr."""
    again = differing(results, expected)
    if not again:
        return []
    print(f"measure: {len(again)} cell(s) differed; measuring them again, one at a time",
          file=sys.stderr)
    for name, key in again:
        print(f"measure: first measurement of {name}: {key}: {json.dumps(results[name][key])}",
              file=sys.stderr)
    retry = [cell for cell in chosen if (cell[0]["name"], " ".join(cell[1:])) in again]
    for name, found in run(retry).items():
        results[name].update(found)
    return again


def differing(results: dict, expected: dict) -> list[tuple[str, str]]:
    """The (server, key) cells whose facts are not the expected ones."""
    return [(name, key) for name, found in results.items() for key, facts in found.items()
            if expected.get(name, {}).get(key) != facts]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", action="append", help="only this server (repeatable)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare with expected.json")
    mode.add_argument("--bless", action="store_true", help="rewrite expected.json")
    parser.add_argument("--only", action="append",
                        help="only the cells whose key (TRANSPORT REVISION SCENARIO) has this")
    parser.add_argument("--verbose", action="store_true", help="each cell on stderr as measured")
    args = parser.parse_args()
    servers = json.loads((HERE / "servers.json").read_text())
    if args.server:
        servers = [s for s in servers if s["name"] in args.server]
    for server in servers:
        for part in server["command"] + server.get("needs", []):
            path = Path(part.replace("{root}", str(ROOT)))
            if "{root}" in part and not path.exists():
                print(f"measure: error: {path} is missing: run {server['install']}",
                      file=sys.stderr)
                return 2
    chosen = cells(servers, args.only or [])
    global ZYGOTES
    with zygote.Pool(ROOT / "target" / "interop" / "logs" / "measure", 60) as ZYGOTES:
        return measure_and_report(args, chosen)


def measure_and_report(args: argparse.Namespace, chosen: list[tuple[dict, str, str, str]]) -> int:
    """main's measurement of `chosen` and its report, with --bless or --check."""
    results = measure(chosen, args.verbose)
    expected_path = HERE / "expected.json"
    if args.bless:
        expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
        for name, found in results.items():
            expected.setdefault(name, {}).update(found)
        expected_path.write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")
    if args.check:
        expected = json.loads(expected_path.read_text())
        # A cell whose facts differ is measured once more, after the others, and its second
        # measurement is the one compared: the windows are fractions of a second (a step 0.3 s
        # after the stop is late), and interop/run.sh runs this beside the matrix's cells. Both
        # measurements are printed; a difference that holds twice fails.
        measure_again(results, expected, chosen, lambda retry: measure(retry, args.verbose))
    print(json.dumps(results, indent=2, sort_keys=True))
    if not args.check:
        return 0
    differences = [
        f"{name}: {key}: expected {json.dumps(expected.get(name, {}).get(key))}, "
        f"measured {json.dumps(results[name][key])}"
        for name, key in differing(results, expected)
    ]
    for line in differences:
        print(f"measure: {line}", file=sys.stderr)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
