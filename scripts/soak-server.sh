#!/usr/bin/env bash
# Hostile input against the `mcp-testserver` binary: the attacks of issue 16 (items 9-12) and
# issue 26 (item 7: memory by bytes, gate names, cancels across clients, the bind), each
# bounded in count and time, on loopback only. Prints one line per attack,
# `NAME: ok (what was checked)` or `NAME: FAILED (why)`, and exits 1 if any failed. Beside each
# refusal an attack checks its control (the valid request is served; a timeout drops a connection
# after it, not at once), so a stand-in that refuses or closes everything, or is no server at all
# (`/bin/true`, `/bin/false`), fails every attack.
#
# usage: scripts/soak-server.sh [PATH-TO-mcp-testserver]
#   default: target/release/mcp-testserver, else target/debug/mcp-testserver (build one with
#   `cargo build --release -p mcp-testserver --bin mcp-testserver`). Needs python3 (3.11,
#   stdlib only) and `prlimit` (util-linux) for the file-descriptor attack. About 100 s.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-}"
if [[ -z "$binary" ]]; then
    for candidate in target/release/mcp-testserver target/debug/mcp-testserver; do
        if [[ -x "$candidate" ]]; then
            binary="$candidate"
            break
        fi
    done
fi
if [[ -z "$binary" || ! -x "$binary" ]]; then
    echo "soak-server: no mcp-testserver binary (build it, or pass its path)" >&2
    exit 2
fi
echo "soak-server: attacking $binary"
# The whole soak stops by itself, whatever happens.
exec timeout --kill-after=5 240 python3 - "$binary" <<'PYTHON'
import http.client, json, os, re, signal, socket, subprocess, sys, tempfile, threading, time

BINARY = sys.argv[1]
ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}}
BAD_IDS = ['{"a":1}', "[1]", "1.5", "true", "18446744073709551616", "1e30"]
failures = []


class Failed(Exception):
    pass


def check(condition, why):
    if not condition:
        raise Failed(why)


class Server:
    """One `mcp-testserver --http 127.0.0.1:0` process, stopped (and reaped) on exit."""

    def __init__(self, *args, prefix=(), artifacts=None, bind="127.0.0.1:0"):
        command = [*prefix, BINARY, "--http", bind, *args]
        if artifacts:
            command += ["--artifacts", artifacts]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        line = ""
        while "listening on" not in line:
            check(time.monotonic() < deadline, "the server did not start within 10 s")
            line = self.process.stderr.readline().decode()
            check(line or self.process.poll() is None, "the server exited at start")
        self.port = int(re.search(r":(\d+)/mcp", line).group(1))
        # Drain stderr, so the server never blocks on it.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def terminate(self, timeout=10):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def post(self, body, headers=None, timeout=5):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("POST", "/mcp", body=body, headers={**ACCEPT, **(headers or {})})
            response = connection.getresponse()
            text = response.read().decode()
            return response.status, response.getheader("mcp-session-id"), text
        except TimeoutError:
            raise Failed(f"no answer within {timeout} s to {body[:60]!r}")
        finally:
            connection.close()

    def initialize(self):
        status, session, _ = self.post(json.dumps(INITIALIZE))
        check(status == 200 and session, f"initialize answered {status}")
        self.post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                  {"mcp-session-id": session})
        return session

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


def modern_headers(method):
    return {"mcp-protocol-version": "2026-07-28", "mcp-method": method}


def error_code(text):
    return json.loads(text)["error"]["code"]


def attack(name):
    """Runs the function below it as the attack `name`, timed, and prints its one line (the same
    shape as `attack` in scripts/soak-verifier.sh): what it returns, or the `Failed` it raises."""
    def register(function):
        started = time.monotonic()
        try:
            outcome = function()
            print(f"{name}: ok ({outcome}; {time.monotonic() - started:.1f} s)", flush=True)
        except Exception as error:
            why = error if isinstance(error, Failed) else repr(error)
            failures.append(name)
            print(f"{name}: FAILED ({why})", flush=True)
        return function
    return register


@attack("invalid-id-2025")
def _():
    with Server() as server:
        session = server.initialize()
        for bad in BAD_IDS:
            body = '{"jsonrpc":"2.0","id":%s,"method":"tools/list"}' % bad
            status, _, text = server.post(body, {"mcp-session-id": session})
            check(status == 400 and error_code(text) == -32600, f"id {bad}: {status} {text}")
        # The control: the same request with a valid id is served (not everything refused).
        status, _, text = server.post('{"jsonrpc":"2.0","id":5,"method":"tools/list"}',
                                      {"mcp-session-id": session})
        check(status == 200 and '"id":5' in text.replace(" ", "") and "result" in text,
              f"id 5 (valid): {status} {text[:200]}")
    return f"{len(BAD_IDS)} ids (object, array, float, bool, 2^64, 1e30): 400 with -32600 at once; id 5 served"


@attack("invalid-id-2026")
def _():
    with Server() as server:
        valid = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "tools/list",
                            "params": {"_meta": META}})
        for bad in BAD_IDS:
            body = valid.replace('"id": 0', f'"id": {bad}')
            status, _, text = server.post(body, modern_headers("tools/list"))
            check(status == 400 and error_code(text) == -32600, f"id {bad}: {status} {text}")
        # The control: the same request with a valid id is served.
        status, _, text = server.post(valid, modern_headers("tools/list"))
        check(status == 200 and "result" in text, f"id 0 (valid): {status} {text[:200]}")
    return f"{len(BAD_IDS)} ids, stateless: 400 with -32600 at once; id 0 served"


@attack("empty-body")
def _():
    with Server() as server:
        session = server.initialize()
        for body in ["", "  \r\n\t"]:
            for headers in [{"mcp-session-id": session}, modern_headers("tools/list")]:
                status, _, text = server.post(body, headers)
                check(status == 400 and error_code(text) == -32700, f"{body!r}: {status} {text}")
        # The control: a body, with the same headers, is served.
        status, _, text = server.post('{"jsonrpc":"2.0","id":1,"method":"ping"}',
                                      {"mcp-session-id": session})
        check(status == 200 and "result" in text, f"a ping in the session: {status} {text[:200]}")
    return "empty and blank bodies, both revisions: 400 with -32700; a ping served"


@attack("id-without-method")
def _():
    with Server() as server:
        session = server.initialize()
        status, _, text = server.post('{"jsonrpc":"2.0","id":7}', {"mcp-session-id": session})
        check(status == 400 and error_code(text) == -32600 and json.loads(text)["id"] == 7,
              f"2025-11-25: {status} {text}")
        status, _, text = server.post('{"jsonrpc":"2.0","id":"x"}', modern_headers("tools/list"))
        check(status == 400 and error_code(text) == -32600, f"2026-07-28: {status} {text}")
    return "400 with -32600 echoing the id, both revisions"


@attack("delete-in-flight")
def _():
    with Server() as server:
        session = server.initialize()
        answer = {}

        def call():
            body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                               "params": {"name": "wait_gate", "arguments": {"gate": "never"}}})
            answer["reply"] = server.post(body, {"mcp-session-id": session}, timeout=10)

        caller = threading.Thread(target=call)
        caller.start()
        time.sleep(0.3)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("DELETE", "/mcp", headers={"mcp-session-id": session})
        deleted = connection.getresponse().status
        connection.close()
        caller.join(10)
        check(deleted == 200, f"DELETE answered {deleted}")
        check("reply" in answer, "the call got no answer within 10 s")
        status, _, text = answer["reply"]
        message = json.loads(text)
        check(status == 404 and message.get("id") == 9 and "error" in message,
              f"the call got {status} {text}")
        status, _, _ = server.post(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}),
                                   {"mcp-session-id": session})
        check(status == 404, f"the deleted session still answered {status}")
    return "the running call is answered 404 with a JSON-RPC error for id 9; the session is gone"


@attack("dns-rebinding")
def _():
    with Server() as server:
        body = json.dumps(INITIALIZE)
        for headers in [{"Host": "[::1]evil.com"}, {"Host": "localhost:80@evil.com"},
                        {"Origin": "http://[::1]evil.com"}, {"Origin": "http://127.0.0.1.evil.com"}]:
            status, _, _ = server.post(body, headers)
            check(status == 403, f"{headers}: {status}")
        raw = body.encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as stream:
            stream.sendall(b"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n"
                           b"Accept: application/json, text/event-stream\r\n"
                           b"Content-Length: %d\r\n\r\n" % len(raw) + raw)
            head = stream.recv(64)
        check(head.startswith(b"HTTP/1.1 400"), f"no Host header: {head!r}")
        # The control: loopback Host and Origin are served (not every request refused).
        local = f"127.0.0.1:{server.port}"
        status, session, _ = server.post(body, {"Host": local, "Origin": f"http://{local}"})
        check(status == 200 and session, f"Host/Origin {local}: {status}")
    return "Host/Origin [::1]evil.com and kin: 403; no Host header: 400; loopback Host and Origin served"


@attack("fd-exhaustion")
def _():
    with Server("--read-timeout", "2", prefix=["prlimit", "--nofile=64:64"]) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(80)]
        time.sleep(0.3)
        # Still open before the read timeout (a server closing every connection at once would
        # pass the checks below).
        early = 0
        for stream in idle:
            stream.setblocking(False)
            try:
                early += stream.recv(1) == b""
            except BlockingIOError:
                pass
            stream.setblocking(True)
        check(early == 0, f"{early} of 80 idle connections closed within 0.3 s, before the read timeout")
        before, started = server.cpu_seconds(), time.monotonic()
        time.sleep(1.5)
        used, wall = server.cpu_seconds() - before, time.monotonic() - started
        check(used < 0.3 * wall, f"{used:.2f} s of CPU in {wall:.1f} s: the accept loop spins")
        deadline = time.monotonic() + 10
        while True:
            try:
                status, _, _ = server.post(json.dumps(INITIALIZE), timeout=2)
                break
            except Failed:
                check(time.monotonic() < deadline, "no request served within 10 s")
        check(status == 200, f"initialize answered {status}")
        closed = 0
        for stream in idle:
            stream.settimeout(5)
            try:
                closed += stream.recv(1) == b""
            except OSError:
                pass
            stream.close()
        check(closed == 80, f"only {closed} of 80 idle connections were closed by the server")
    return (f"RLIMIT_NOFILE 64, 80 idle connections: {used:.2f} s CPU in {wall:.1f} s; "
            "all 80 closed by the read timeout; a new request served")


@attack("slow-headers")
def _():
    with Server("--read-timeout", "1") as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as stream:
            started = time.monotonic()
            stream.sendall(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
            try:
                received = stream.recv(1024)
            except TimeoutError:
                raise Failed("a half-sent head was held for 5 s")
            waited = time.monotonic() - started
        check(received == b"" or received.startswith(b"HTTP/1.1 408"), f"got {received!r}")
        check(waited < 3, f"a half-sent head was held for {waited:.1f} s")
        # Dropped by the timeout, not at once (a server closing every connection would pass).
        check(waited > 0.7, f"a half-sent head was dropped after {waited:.2f} s, before the timeout")
    return f"a half-sent head is dropped after {waited:.1f} s (read timeout 1 s)"


@attack("slow-body")
def _():
    with Server("--read-timeout", "1") as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as stream:
            started = time.monotonic()
            stream.sendall(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                           b"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"js")
            head = stream.recv(64)
            waited = time.monotonic() - started
        check(head.startswith(b"HTTP/1.1 408"), f"got {head!r}")
        check(0.7 < waited < 3, f"answered after {waited:.2f} s (read timeout 1 s)")
    return f"a body stalled after 4 of 100 bytes: 408 after {waited:.1f} s"


@attack("session-expiry")
def _():
    with Server("--session-idle-timeout", "1") as server:
        session = server.initialize()
        ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        status, _, _ = server.post(ping, {"mcp-session-id": session})
        check(status == 200, f"a fresh session answered {status}")
        time.sleep(1.6)
        status, _, text = server.post(ping.replace('"id": 1', '"id": 2'), {"mcp-session-id": session})
        check(status == 404, f"an idle session answered {status} {text}")
    return "idle 1.6 s with --session-idle-timeout 1: 404"


@attack("session-flood")
def _():
    count, cap = 3000, 100
    with Server("--max-sessions", str(cap), "--transcript-limit", "100") as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        body = json.dumps(INITIALIZE)

        def initialize():
            connection.request("POST", "/mcp", body=body, headers=ACCEPT)
            response = connection.getresponse()
            response.read()
            return response.status, response.getheader("mcp-session-id")

        _, first = initialize()
        for _ in range(cap):
            initialize()
        before = server.rss_kib()
        statuses = {}
        for _ in range(count):
            status, _ = initialize()
            statuses[status] = statuses.get(status, 0) + 1
        grown = server.rss_kib() - before
        connection.close()
        check(statuses == {200: count}, f"statuses {statuses}")
        check(grown < 4096, f"RSS grew {grown} KiB over {count} sessions with a cap of {cap}")
        status, _, _ = server.post(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                                   {"mcp-session-id": first})
        check(status == 404, f"the oldest session, evicted, answered {status}")
    return f"{count} initialize with --max-sessions {cap}: all 200, RSS +{grown} KiB, the oldest evicted (404)"


LARGE = 3_900_000
RSS_LIMIT_MIB = 200


def modern_call(id, tool, arguments, meta_extra=None):
    meta = dict(META, **({"pad": meta_extra} if meta_extra else {}))
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments, "_meta": meta}})


def call_headers(tool):
    return {**modern_headers("tools/call"), "mcp-name": tool}


@attack("large-messages")
def _():
    with Server() as server:
        text = "x" * LARGE
        for i in range(60):
            status, _, reply = server.post(modern_call(i, "echo", {"text": text}), call_headers("echo"), timeout=30)
            check(status == 200 and len(reply) > LARGE, f"echo {i}: {status}, {len(reply)} bytes back")
        rss = server.rss_kib() // 1024
        check(rss < RSS_LIMIT_MIB, f"RSS {rss} MiB after 60 calls of 3.9 MB")
        _, _, reply = server.post(modern_call(60, "transcript", {}), call_headers("transcript"), timeout=30)
        check("earlier messages dropped" in reply, "the transcript does not say it dropped messages")
    return f"60 echo calls of 3.9 MB, each echoed whole: RSS {rss} MiB; the transcript counts what it dropped"


@attack("large-waiting-calls")
def _():
    with Server() as server:
        pad, answers = "p" * LARGE, []

        def call(i):
            answers.append(server.post(modern_call(i, "wait_gate", {"gate": "g"}, pad),
                                       call_headers("wait_gate"), timeout=60)[0])

        callers = [threading.Thread(target=call, args=(i,)) for i in range(60)]
        for caller in callers:
            caller.start()
        deadline = time.monotonic() + 30
        while True:
            _, _, log = server.post(modern_call(1000, "handler_log", {}), call_headers("handler_log"))
            if log.count("started") >= 60:
                break
            check(time.monotonic() < deadline, f"only {log.count('started')} of 60 calls started")
            time.sleep(0.2)
        rss = server.rss_kib() // 1024
        server.post(modern_call(1001, "open_gate", {"gate": "g"}), call_headers("open_gate"))
        for caller in callers:
            caller.join(30)
        check(answers == [200] * 60, f"answers {answers}")
        check(rss < RSS_LIMIT_MIB, f"RSS {rss} MiB with 60 calls of 3.9 MB waiting")
    return f"60 wait_gate calls carrying 3.9 MB each, held at once: RSS {rss} MiB; all 60 answered"


@attack("large-ids")
def _():
    with Server() as server:
        session = server.initialize()
        headers = {"mcp-session-id": session}
        for i in range(60):
            status, _, _ = server.post(json.dumps({"jsonrpc": "2.0", "id": f"{i}" + "i" * LARGE,
                                                   "method": "ping"}), headers, timeout=30)
            check(status == 200, f"ping {i}: {status}")
        rss = server.rss_kib() // 1024
        server.post(json.dumps({"jsonrpc": "2.0", "id": "2" + "i" * LARGE, "method": "ping"}), headers, timeout=30)
        _, _, reply = server.post(json.dumps({"jsonrpc": "2.0", "id": 9999, "method": "tools/call",
                                              "params": {"name": "violations", "arguments": {}}}), headers)
        check(reply.count("reused-id") == 1, f"the reused id is not flagged once: {reply[:300]}")
        check(rss < RSS_LIMIT_MIB, f"RSS {rss} MiB after 60 ids of 3.9 MB in one session")
    return f"60 ids of 3.9 MB in one 2025-11-25 session: RSS {rss} MiB; a reused one still flagged"


@attack("gate-names")
def _():
    with Server("--transcript-limit", "10") as server:
        for i in range(60):
            status, _, reply = server.post(modern_call(i, "open_gate", {"gate": f"{i}" + "g" * LARGE}),
                                           call_headers("open_gate"), timeout=30)
            check("-32602" in reply and "at most 256 bytes" in reply, f"a 3.9 MB gate name: {status} {reply[:200]}")
        rss = server.rss_kib() // 1024
        check(rss < RSS_LIMIT_MIB, f"RSS {rss} MiB after 60 gate names of 3.9 MB")
        session = server.initialize()
        headers = {"mcp-session-id": session}

        def open_gate(id, name):
            body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                               "params": {"name": "open_gate", "arguments": {"gate": name}}})
            return server.post(body, headers)[2]

        check("opened" in open_gate(1, "g" * 256), "a 256-byte gate name was refused")
        for i in range(2, 1001):
            open_gate(i, f"gate-{i}")
        reply = open_gate(1001, "one-too-many")
        check("-32602" in reply and "1000 gates are open" in reply, f"gate 1001: {reply[:200]}")
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("DELETE", "/mcp", headers={"mcp-session-id": session})
        check(connection.getresponse().status == 200, "DELETE refused")
        connection.close()
        status, _, reply = server.post(modern_call(2000, "open_gate", {"gate": "after"}), call_headers("open_gate"))
        check("opened after" in reply, f"the deleted session's gates were not freed: {reply[:200]}")
    return (f"60 gate names of 3.9 MB: -32602 each, RSS {rss} MiB; 256 bytes opened, gate 1001 refused, "
            "freed when the session was deleted")


@attack("cross-client-cancel")
def _():
    with Server() as server:
        answers = {}

        def call(id, gate):
            answers[gate] = server.post(modern_call(id, "wait_gate", {"gate": gate}), call_headers("wait_gate"), timeout=30)

        victim = threading.Thread(target=call, args=(1, "victim"))
        victim.start()
        time.sleep(0.5)
        cancel = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 1, "reason": "not yours"}})
        status, _, _ = server.post(cancel, modern_headers("notifications/cancelled"))
        check(status == 202, f"the cancel POST answered {status}")
        time.sleep(0.5)
        check(victim.is_alive(), "another client's POSTed cancel stopped the call")
        # The control: closing the response stream is the cancel, and it stops the handler.
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as stream:
            body = modern_call(2, "wait_gate", {"gate": "never"}).encode()
            head = "".join(f"{k}: {v}\r\n" for k, v in {**ACCEPT, **call_headers("wait_gate")}.items())
            stream.sendall(f"POST /mcp HTTP/1.1\r\nHost: localhost\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
            time.sleep(0.5)
        time.sleep(0.5)
        _, _, log = server.post(modern_call(3, "handler_log", {}), call_headers("handler_log"))
        check("wait_gate#2 stopped by cancel" in log, f"closing the stream did not cancel: {log[:300]}")
        check("wait_gate#1 stopped" not in log, f"{log[:300]}")
        server.post(modern_call(4, "open_gate", {"gate": "victim"}), call_headers("open_gate"))
        victim.join(10)
        check("gate victim opened" in answers.get("victim", (0, 0, ""))[2], f"the call: {answers}")
    return "a POSTed cancel naming another client's id: 202 and dropped, its call ran on; a closed stream cancelled"


def in_session(server, session, id, method, params, timeout=5):
    """One 2025-11-25 request in `session`: its JSON-RPC answer (from JSON or an SSE body)."""
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    status, _, text = server.post(body, {"mcp-session-id": session}, timeout)
    data = next((line[6:] for line in text.splitlines() if line.startswith("data: ")), text)
    check(status == 200, f"{method}: {status} {text[:200]}")
    return json.loads(data)


def slow_task(ttl=60000, steps=100, step_ms=100):
    return {"name": "slow", "arguments": {"steps": steps, "step_ms": step_ms}, "task": {"ttl": ttl}}


@attack("cross-session-tasks")
def _():
    with Server() as server:
        a, b = server.initialize(), server.initialize()
        task_id = in_session(server, a, 1, "tools/call", slow_task())["result"]["task"]["taskId"]
        listed = in_session(server, b, 1, "tasks/list", {})["result"]["tasks"]
        check(listed == [], f"B lists A's task: {listed}")
        for id, method in enumerate(["tasks/get", "tasks/cancel", "tasks/result"], 2):
            answer = in_session(server, b, id, method, {"taskId": task_id})
            check(answer.get("error", {}).get("code") == -32602, f"B's {method} of A's task: {answer}")
        # The control: A sees, and cancels, its own task.
        check(in_session(server, a, 2, "tasks/get", {"taskId": task_id})["result"]["status"] == "working",
              "A lost its task")
        mine = in_session(server, a, 3, "tasks/list", {})["result"]["tasks"]
        check([task["taskId"] for task in mine] == [task_id], f"A's list: {mine}")
        check(in_session(server, a, 4, "tasks/cancel", {"taskId": task_id})["result"]["status"] == "cancelled",
              "A could not cancel its task")
    return "B's tasks/list empty, its get/cancel/result of A's task -32602 (unknown); A lists, gets, cancels it"


@attack("task-ids")
def _():
    firsts = []
    for _ in range(2):
        with Server() as server:
            session = server.initialize()
            firsts.append(in_session(server, session, 1, "tools/call", slow_task())["result"]["task"]["taskId"])
    check(all(re.fullmatch(r"tsk-[0-9a-f]{32}", id) for id in firsts), f"{firsts}")
    check(firsts[0] != firsts[1], f"two servers' first task ids are the same: {firsts}")
    return f"two servers' first task ids differ, 128 random bits each ({firsts[0]}, {firsts[1]})"


@attack("cross-session-gates")
def _():
    with Server() as server:
        a, b = server.initialize(), server.initialize()
        answers = {}
        waiter = threading.Thread(target=lambda: answers.setdefault(
            "a", in_session(server, a, 1, "tools/call", {"name": "wait_gate", "arguments": {"gate": "g"}}, 30)))
        waiter.start()
        time.sleep(0.3)
        in_session(server, b, 1, "tools/call", {"name": "open_gate", "arguments": {"gate": "g"}})
        status, _, _ = server.post(modern_call(1, "open_gate", {"gate": "g"}), call_headers("open_gate"))
        check(status == 200, f"a stateless open_gate answered {status}")
        time.sleep(0.5)
        check(waiter.is_alive(), f"B's (or a stateless) open_gate released A's wait_gate: {answers}")
        # The control: A's own open_gate releases it.
        in_session(server, a, 2, "tools/call", {"name": "open_gate", "arguments": {"gate": "g"}})
        waiter.join(10)
        check("gate g opened" in json.dumps(answers.get("a")), f"A's wait: {answers}")
    return "B's and a stateless client's open_gate g left A's wait_gate g waiting; A's own released it"


@attack("cross-session-transcript")
def _():
    with Server() as server:
        c, d = server.initialize(), server.initialize()
        in_session(server, c, 1, "tools/call", {"name": "echo", "arguments": {"text": "secret-of-c"}})
        seen_by_d = json.dumps(in_session(server, d, 1, "tools/call", {"name": "transcript", "arguments": {}}))
        check("secret-of-c" not in seen_by_d, "D's transcript shows C's messages")
        status, _, stateless = server.post(modern_call(1, "transcript", {}), call_headers("transcript"))
        check(status == 200 and "secret-of-c" not in stateless, "a stateless transcript shows C's messages")
        # The control: C's own transcript holds them.
        seen_by_c = json.dumps(in_session(server, c, 2, "tools/call", {"name": "transcript", "arguments": {}}))
        check("secret-of-c" in seen_by_c, f"C's own transcript lacks its echo: {seen_by_c[:300]}")
    return "D's and a stateless client's transcript hold none of C's messages; C's holds them"


@attack("task-ttl")
def _():
    with Server() as server:
        session = server.initialize()
        task = slow_task(ttl=300, steps=1, step_ms=1)
        task_id = in_session(server, session, 1, "tools/call", task)["result"]["task"]["taskId"]
        time.sleep(0.1)
        got = in_session(server, session, 2, "tasks/get", {"taskId": task_id})["result"]
        check(got["status"] == "completed" and got["ttl"] == 300, f"before its ttl: {got}")
        time.sleep(0.8)
        listed = in_session(server, session, 3, "tasks/list", {})["result"]["tasks"]
        check(listed == [], f"an expired task is listed: {listed}")
        answer = in_session(server, session, 4, "tasks/get", {"taskId": task_id})
        check(answer.get("error", {}).get("code") == -32602, f"an expired task: {answer}")
        asked = slow_task(ttl=10 ** 12)
        ttl = in_session(server, session, 5, "tools/call", asked)["result"]["task"]["ttl"]
        check(ttl == 86_400_000, f"a ttl of 10^12 ms granted as {ttl}")
    return "a finished task is found before its ttl (300 ms), neither listed nor found after; a ttl of 10^12 ms is cut to a day"


@attack("finished-tasks-memory")
def _():
    # --transcript-limit 10, so the RSS is the tasks' (and each request id the session keeps),
    # not the transcript's; each batch answered before the next, so no output piles up.
    process = subprocess.Popen([BINARY, "--transcript-limit", "10"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        def rss_mib():
            for line in open(f"/proc/{process.pid}/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024

        def send(lines):
            process.stdin.write(("\n".join(lines) + "\n").encode())
            process.stdin.flush()

        send([json.dumps(INITIALIZE), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})])
        process.stdout.readline()
        before, count, batch = rss_mib(), 60_000, 200
        deadline = time.monotonic() + 120
        for start in range(0, count, batch):
            send([json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                              "params": slow_task(steps=1, step_ms=0)}) for id in range(start + 1, start + batch + 1)])
            for _ in range(batch):
                check(b"taskId" in process.stdout.readline(), "a task request not answered with a task")
            check(time.monotonic() < deadline, f"only {start} tasks created in 120 s")
        time.sleep(0.5)
        after = rss_mib()
        check(after - before < 40, f"RSS {before} -> {after} MiB after {count} finished tasks")
    finally:
        process.kill()
        process.wait()
    return f"60,000 finished tasks (stdio, --transcript-limit 10): RSS {before} -> {after} MiB"


@attack("non-loopback-bind")
def _():
    refused = subprocess.run([BINARY, "--http", "0.0.0.0:0"], stdin=subprocess.DEVNULL,
                             capture_output=True, timeout=10)
    check(refused.returncode == 2 and b"--allow-non-loopback" in refused.stderr,
          f"0.0.0.0 without the flag: exit {refused.returncode} {refused.stderr[-200:]!r}")
    with Server("--allow-non-loopback", bind="0.0.0.0:0") as server:
        body = json.dumps(INITIALIZE)
        status, _, _ = server.post(body, {"Host": "evil.com"})
        check(status == 403, f"Host evil.com: {status}")
        # The control: a loopback Host is served (so refusing is not all it does).
        status, _, _ = server.post(body, {"Host": "localhost"})
        check(status == 200, f"Host localhost: {status}")
    return "0.0.0.0 refused without --allow-non-loopback (exit 2); with it, Host evil.com 403, localhost served"


def stdio_server(artifacts, stderr=subprocess.DEVNULL):
    return subprocess.Popen([BINARY, "--artifacts", artifacts], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=stderr)


@attack("sigterm-stdio-transcript")
def _():
    with tempfile.TemporaryDirectory() as artifacts:
        server = stdio_server(artifacts)
        try:
            server.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
            server.stdin.flush()
            server.stdout.readline()
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "wait_gate", "arguments": {"gate": "never"}}}
            server.stdin.write((json.dumps(call) + "\n").encode() + b'{"jsonrpc":"2.0","id":2,"meth')
            server.stdin.flush()
            time.sleep(0.5)
            server.send_signal(signal.SIGTERM)
            code = server.wait(10)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        text = open(os.path.join(artifacts, "10-wire_transcript.txt")).read()
        check(code == 0, f"exit code {code}")
        partial = 'unparseable "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":2,\\"meth"'
        check(partial in text, f"the half-sent line is missing:\n{text}")
        check(text.rstrip().endswith("stdio shutdown (SIGTERM)"), f"no shutdown entry:\n{text}")
        check("disconnect" not in text, f"recorded as a disconnect:\n{text}")
    return "the half-sent line is recorded as unparseable, then the server's own shutdown"


def _swallow(server, body, headers):
    try:
        server.post(body, headers, timeout=10)
    except Exception:
        pass


@attack("sigterm-http-transcript")
def _():
    with tempfile.TemporaryDirectory() as artifacts:
        with Server(artifacts=artifacts) as server:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "wait_gate", "arguments": {"gate": "never"}, "_meta": META}})
            headers = {**modern_headers("tools/call"), "mcp-name": "wait_gate"}
            caller = threading.Thread(target=_swallow, args=(server, body, headers))
            caller.start()
            time.sleep(0.5)
            code = server.terminate()
            caller.join(10)
        text = open(os.path.join(artifacts, "10-wire_transcript.txt")).read()
        check(code == 0, f"exit code {code}")
        check("http shutdown (SIGTERM)" in text, f"no shutdown entry:\n{text}")
        check("disconnect" not in text, f"the server's own shutdown recorded as a disconnect:\n{text}")
    return "a call cut off by SIGTERM: the transcript shows the server's shutdown, no client disconnect"


@attack("unread-stderr")
def _():
    lines = 5000
    with tempfile.TemporaryDirectory() as artifacts:
        read_end, write_end = os.pipe()  # stderr that nobody reads
        try:
            server = stdio_server(artifacts, stderr=write_end)
            os.close(write_end)
            payload = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":5}\n' % i for i in range(lines))
            try:
                out, _ = server.communicate(payload, timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
                raise Failed(f"{lines} violations with stderr unread: still running after 15 s")
            check(server.returncode == 0, f"exit code {server.returncode}")
            answers = out.count(b"\n")
            check(answers == lines, f"{answers} answers for {lines} lines")
            written = len(os.read(read_end, 1 << 20))
        finally:
            os.close(read_end)
    return f"{lines} violations, stderr never read: exits, {written} bytes on stderr"


print(f"soak-server: {len(failures)} failed" if failures else "soak-server: all attacks held")
sys.exit(1 if failures else 0)
PYTHON
