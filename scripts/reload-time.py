#!/usr/bin/env python3
"""Measures, under `mdbook serve`, the time from saving a chapter with one edited snippet to the
page being told to reload (mdBook's live-reload websocket says `reload` once the rebuilt book is
written).

    scripts/reload-time.py [--book DIR] [--chapter FILE] [--runs N] [--port PORT]

Starts `mdbook serve` on the book (this repository's by default, with `target/debug` first on
PATH), waits for the first build, then RUNS times: connects to `/__livereload`, saves the chapter
with a comment line added to its first Rust snippet (a new snippet for the verifier: compiled and
run again), and times the reload. The chapter is restored at the end. Prints each time and the
median. Standard library only.
"""

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", default=ROOT)
    parser.add_argument("--chapter", default="book/request-ids.md")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    chapter = os.path.join(args.book, args.chapter)
    with open(chapter, encoding="utf-8") as file:
        original = file.read()
    lines = original.split("\n")
    fence = next((i for i, line in enumerate(lines) if line.lstrip().startswith("```rust")), None)
    if fence is None:
        sys.exit(f"error: {chapter} has no ```rust block to edit")

    port = args.port or free_port()
    env = dict(os.environ)
    env["PATH"] = os.path.join(ROOT, "target", "debug") + os.pathsep + env.get("PATH", "")
    log = tempfile.NamedTemporaryFile(prefix="mdbook-serve-", suffix=".log", delete=False)
    server = subprocess.Popen(
        ["mdbook", "serve", "-n", "127.0.0.1", "-p", str(port)],
        cwd=args.book,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    times = []
    phases = []
    try:
        wait_for(lambda: "Serving on" in read(log.name), server, 900, log.name)
        for run in range(args.runs):
            edited = list(lines)
            indent = lines[fence][: len(lines[fence]) - len(lines[fence].lstrip())]
            edited.insert(fence + 1, f"{indent}// reload-time.py edit {run} at {time.time()}")
            reload = LiveReload(port)
            watcher = LogWatcher(log.name)
            saved = time.monotonic()
            with open(chapter, "w", encoding="utf-8") as file:
                file.write("\n".join(edited))
            reload.wait(300)
            times.append(time.monotonic() - saved)
            seen = watcher.stop()
            # When mdBook's log showed each step, from the save.
            steps = [
                seen.get(marker, float("nan")) - saved
                for marker in ("Files changed", "mdbook-snippets:", "HTML book written")
            ]
            phases.append(steps)
            print(
                f"run {run + 1}: saved -> reload {times[-1]:.2f} s (change seen {steps[0]:.2f} s, "
                f"preprocessor done {steps[1]:.2f} s, HTML written {steps[2]:.2f} s)",
                flush=True,
            )
            reload.close()
            # Let the debouncer settle so that the next save is a separate rebuild.
            time.sleep(1.5)
    finally:
        with open(chapter, "w", encoding="utf-8") as file:
            file.write(original)
        time.sleep(2)
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    medians = [statistics.median(step[i] for step in phases) for i in range(3)]
    print(
        f"median steps: change seen {medians[0]:.2f} s, preprocessor done {medians[1]:.2f} s, "
        f"HTML written {medians[2]:.2f} s"
    )
    print(
        f"median {statistics.median(times):.2f} s, min {min(times):.2f} s, "
        f"max {max(times):.2f} s over {len(times)} saves (mdbook serve log: {log.name})"
    )


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read(path):
    with open(path, encoding="utf-8", errors="replace") as file:
        return file.read()


def wait_for(condition, server, timeout, log):
    deadline = time.monotonic() + timeout
    while not condition():
        if server.poll() is not None:
            sys.exit(f"error: mdbook serve exited ({server.returncode}):\n{read(log)}")
        if time.monotonic() > deadline:
            sys.exit(f"error: mdbook serve did not serve within {timeout} s:\n{read(log)}")
        time.sleep(0.2)


class LogWatcher:
    """Notes when each new line of the mdbook serve log first appears (polled every 10 ms)."""

    def __init__(self, path):
        self.path = path
        self.offset = os.path.getsize(path)
        self.seen = {}
        self.running = True
        self.thread = threading.Thread(target=self.poll, daemon=True)
        self.thread.start()

    def poll(self):
        while self.running:
            with open(self.path, "rb") as file:
                file.seek(self.offset)
                new = file.read().decode("utf-8", "replace")
            now = time.monotonic()
            for marker in ("Files changed", "mdbook-snippets:", "HTML book written"):
                if marker in new and marker not in self.seen:
                    self.seen[marker] = now
            time.sleep(0.01)

    def stop(self):
        time.sleep(0.05)
        self.running = False
        self.thread.join()
        return self.seen


class LiveReload:
    """The page's side of mdBook's live reload: a websocket on /__livereload."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(
            (
                f"GET /__livereload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += self.exact(1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"no websocket upgrade: {head!r}")

    def exact(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise RuntimeError("the live-reload socket closed")
            data += chunk
        return data

    def wait(self, timeout):
        self.sock.settimeout(timeout)
        while True:
            first, second = self.exact(2)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(self.exact(2), "big")
            elif length == 127:
                length = int.from_bytes(self.exact(8), "big")
            payload = self.exact(length)
            if first & 0x0F == 0x1 and payload == b"reload":
                return

    def close(self):
        self.sock.close()


if __name__ == "__main__":
    main()
