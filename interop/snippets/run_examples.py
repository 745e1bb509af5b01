"""Runs the snippet helpers' examples (python/example.py, typescript/example.mts) the way the
verifier runs a snippet: copied into a fresh working directory, through the language's
`run-snippet` launcher, stdin from /dev/null, `MDBOOK_SNIPPETS_ARTIFACTS` set, over stdio and over
Streamable HTTP. Each run must print example.out exactly and leave the server's two artifacts,
`10-wire_transcript.txt` (with the `wait_gate` call and its answer) and `11-sequence.svg`.
Then `killed.*`, started the same way in a process group of its own, gets SIGTERM on the group
once it printed `ready`: the server must still write both files (its transcript holding the
`echo` call).

    python3 interop/snippets/run_examples.py [--server target/release/mcp-testserver]

Exit 0 when every run passes, 1 when one does not, 2 when it cannot run (interop/run.sh installs
what the launchers need).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = {"python": HERE / "python" / "example.py", "typescript": HERE / "typescript" / "example.mts"}
KILLED = {"python": HERE / "python" / "killed.py", "typescript": HERE / "typescript" / "killed.mts"}
TRANSPORTS = ("stdio", "http")
ARTIFACTS = ["10-wire_transcript.txt", "11-sequence.svg"]
# The lines of the transcript the example must have caused, whatever the SDK sends besides.
REQUIRED_LINES = (
    r'→ req \S+ tools/call wait_gate \{"gate":"go"\}',
    r'→ req \S+ tools/call open_gate \{"gate":"go"\}',
    r'← resp \S+ result "gate go opened"',
)
TIMEOUT_S = 60


def problems(code: int, stdout: str, expected: str, files: list[str], transcript: str, svg: str) -> list[str]:
    """What is wrong with one run (nothing: it passed)."""
    found = []
    if code != 0:
        found.append(f"exit code {code}, expected 0")
    if stdout != expected:
        found.append(f"stdout {stdout!r}, expected {expected!r}")
    if files != ARTIFACTS:
        found.append(f"artifacts {files}, expected {ARTIFACTS}")
        return found
    for pattern in REQUIRED_LINES:
        if not any(re.fullmatch(pattern, line) for line in transcript.splitlines()):
            found.append(f"no transcript line matching {pattern!r} in:\n{transcript}")
    if not svg.startswith("<svg ") or "wait_gate" not in svg:
        found.append("the sequence diagram is not an SVG of the wait_gate call")
    return found


@contextlib.contextmanager
def scratch_snippet(example: Path, language: str, transport: str, server: Path):
    """A scratch directory set up as the verifier sets up a snippet: the example copied in, an
    empty artifacts directory named by the variable; yields the command, the directory, the
    environment and the artifacts directory."""
    with tempfile.TemporaryDirectory(prefix=f"mcp-snippet-{example.stem}-{language}-{transport}-") as scratch:
        work = Path(scratch)
        snippet = work / f"snippet{example.suffix}"
        shutil.copy(example, snippet)
        artifacts = work / "artifacts"
        artifacts.mkdir()
        environment = {**os.environ, "MDBOOK_SNIPPETS_ARTIFACTS": str(artifacts), "MCP_TESTSERVER": str(server)}
        yield [str(HERE / language / "run-snippet"), str(snippet), transport], work, environment, artifacts


def run(language: str, transport: str, server: Path, expected: str) -> list[str]:
    """Runs one example over one transport in a scratch directory; its problems."""
    with scratch_snippet(EXAMPLES[language], language, transport, server) as (command, work, environment, artifacts):
        try:
            process = subprocess.run(
                command, cwd=work, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return [f"did not finish within {TIMEOUT_S} s"]
        files = sorted(path.name for path in artifacts.iterdir())
        read = lambda name: (artifacts / name).read_text() if (artifacts / name).exists() else ""
        found = problems(process.returncode, process.stdout, expected, files, read(ARTIFACTS[0]), read(ARTIFACTS[1]))
        if found and process.stderr:
            found.append(f"stderr:\n{process.stderr}")
        return found


def run_killed(language: str, transport: str, server: Path) -> list[str]:
    """Runs `killed.*`, sends SIGTERM to its process group once it printed `ready`; its problems."""
    with scratch_snippet(KILLED[language], language, transport, server) as (command, work, environment, artifacts):
        process = subprocess.Popen(
            command, cwd=work, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, start_new_session=True,
        )
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            if first != "ready\n":
                return [f"printed {first!r} instead of 'ready'"]
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(TIMEOUT_S)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        # The server stops on its own signal or end of input; give it a moment to write.
        for _ in range(100):
            files = sorted(path.name for path in artifacts.iterdir())
            if files == ARTIFACTS and (artifacts / ARTIFACTS[1]).stat().st_size > 0:
                break
            time.sleep(0.05)
        if files != ARTIFACTS:
            return [f"artifacts {files} after SIGTERM, expected {ARTIFACTS}"]
        transcript = (artifacts / ARTIFACTS[0]).read_text()
        if 'tools/call echo {"text":"ready"}' not in transcript:
            return [f"no echo call in the transcript written after SIGTERM:\n{transcript}"]
        return []


def report(label: str, found: list[str], passed: str) -> int:
    """Prints one run's verdict line (and its problems); 1 when it failed."""
    if not found:
        print(f"snippet helpers: {label}: ok ({passed})")
        return 0
    print(f"snippet helpers: {label}: FAILED")
    for problem in found:
        print(f"  {problem}")
    return 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="target/release/mcp-testserver", help="the mcp-testserver binary")
    arguments = parser.parse_args()
    server = (ROOT / arguments.server).resolve()
    if not os.access(server, os.X_OK):
        print(f"run_examples: error: no server binary at {server} (cargo build --release -p mcp-testserver)", file=sys.stderr)
        return 2
    expected = (HERE / "example.out").read_text()
    failed = 0
    for language in EXAMPLES:
        for transport in TRANSPORTS:
            label = f"{language} over {transport}"
            failed += report(label, run(language, transport, server, expected), f"output and {', '.join(ARTIFACTS)}")
            failed += report(f"{label}, process group sent SIGTERM", run_killed(language, transport, server), "artifacts written")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
