"""The agent frameworks' programs beside the SDKs' (issue 32): which there are, installing them,
their command lines, at the pins and at other releases. Only the Python standard library is used.

Each language folder under interop/frameworks/ has a `frameworks.json`: a list of
`{"name", "language", "command", "package", "version", "install"}` (interop/frameworks/README.md).
`command` and `install` may hold `{dir}` (the language folder, absolute) and `{venv}` (the
framework's own throwaway place, `target/interop/frameworks/NAME` for the pin,
`target/interop/releases/frameworks/NAME-VERSION` for another release). An optional
`release_install` (a shell command with `{version}` as well) installs another release into
`{venv}`; a framework without it cannot be measured at other releases.

`install` is a shell command run from the repository's root. It is rerun only when it, or a file
it names (a requirements file; a folder's `package.json` / `package-lock.json`), changed since
the last successful run (a marker under `target/interop/frameworks/.installed/`); one install at a
time (a lock beside the markers), so `interop/run.sh --install-only` in the background and a run
that starts before it ended do not install the same place together.

    python3 interop/framework_cells.py --install [--work DIR]   installs every framework's pin
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import facts

INTEROP = Path(__file__).resolve().parent
ROOT = INTEROP.parent
FRAMEWORKS = INTEROP / "frameworks"
INSTALL_TIMEOUT_S = 900
# After the slow call's own length (its steps x step_ms from the moment it was recorded), how long
# the runner still waits for its handler's end before it stops an HTTP server.
HANDLER_GRACE_MS = 1500
# The keys every entry of a frameworks.json must have.
KEYS = ("name", "language", "command", "package", "version", "install")


class InstallError(Exception):
    """A framework could not be installed (its registry, its install command, a bad entry)."""


def entries() -> dict[str, dict[str, Any]]:
    """Every framework, by name, from interop/frameworks/*/frameworks.json (folder order, then file
    order); each entry gains `dir`, its language folder."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(FRAMEWORKS.glob("*/frameworks.json")):
        for entry in json.loads(path.read_text()):
            missing = [key for key in KEYS if key not in entry]
            if missing:
                raise InstallError(f"{path.relative_to(ROOT)}: an entry lacks {', '.join(missing)}: {json.dumps(entry)[:120]}")
            if entry["name"] in found:
                raise InstallError(f"{path.relative_to(ROOT)}: `{entry['name']}` is named twice")
            found[entry["name"]] = {**entry, "dir": str(path.parent)}
    return found


def venv(work: Path, name: str, version: str | None = None) -> Path:
    """A framework's own place: the pin's, or a release's."""
    if version is None:
        return work / "frameworks" / name
    return work / "releases" / "frameworks" / f"{name}-{version}"


def fill(text: str, entry: dict[str, Any], place: Path, version: str | None = None) -> str:
    filled = text.replace("{dir}", entry["dir"]).replace("{venv}", str(place))
    return filled.replace("{version}", version) if version is not None else filled


def command(entry: dict[str, Any], work: Path, version: str | None = None) -> list[str]:
    """The framework program's command line, at the pin or at `version`."""
    place = venv(work, entry["name"], version)
    return [fill(argument, entry, place, version) for argument in entry["command"]]


def install(entry: dict[str, Any], work: Path, version: str | None = None) -> float:
    """Installs the framework (at the pin, or `version` with its `release_install`) unless its
    marker says it is there; returns the seconds it took (0 when nothing was done)."""
    place = venv(work, entry["name"], version)
    if version is None:
        script = fill(entry["install"], entry, place)
    elif "release_install" in entry:
        script = fill(entry["release_install"], entry, place, version)
    else:
        raise InstallError(f"{entry['name']}: its frameworks.json entry has no `release_install`, so no release but the pin {entry['version']} can be installed")
    marker = work / "frameworks" / ".installed" / (f"{entry['name']}" if version is None else f"{entry['name']}-{version}")
    fingerprint = _fingerprint(script)
    marker.parent.mkdir(parents=True, exist_ok=True)
    with open(marker.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and marker.read_text() == fingerprint and (version is None or place.exists()):
            return 0.0
        return _install(entry, script, place, marker, fingerprint)


def _install(entry: dict[str, Any], script: str, place: Path, marker: Path, fingerprint: str) -> float:
    place.parent.mkdir(parents=True, exist_ok=True)
    log = marker.parent / f"{marker.name}.log"
    started = time.monotonic()
    with open(log, "w") as out:
        out.write(f"$ {script}\n")
        out.flush()
        try:
            done = subprocess.run(["bash", "-c", script], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=INSTALL_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise InstallError(f"{entry['name']}: {error} (log: {log})") from None
    if done.returncode != 0:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-4:])
        raise InstallError(f"{entry['name']}: the install failed (exit {done.returncode}): {tail} (log: {log})")
    marker.write_text(fingerprint)
    return time.monotonic() - started


def _fingerprint(script: str) -> str:
    """The install command and the content of each file it names (or, for a folder it names, the
    folder's package.json and package-lock.json), hashed."""
    digest = hashlib.sha256(script.encode())
    for token in script.replace("'", " ").replace('"', " ").split():
        path = Path(token) if Path(token).is_absolute() else ROOT / token
        files = [path] if path.is_file() else [path / name for name in ("package.json", "package-lock.json")] if path.is_dir() else []
        for file in files:
            if file.is_file():
                digest.update(file.name.encode() + file.read_bytes())
    return digest.hexdigest()


def select(only: list[str]) -> tuple[bool, list[str]]:
    """`--only` words -> (whether the SDKs run, the frameworks that run). `sdks` and `frameworks`
    name the groups; any other word one SDK or framework."""
    names = list(entries())
    if not only:
        return True, names
    sdks = "sdks" in only
    chosen = names if "frameworks" in only else [name for name in names if name in only]
    return sdks, chosen


def await_handler(read: Callable[[], list[dict[str, Any]]], poll_s: float = 0.1) -> float:
    """Over Streamable HTTP the runner's server outlives the framework program: before the runner
    stops it, this waits until the server's record (`read()`, the entries in time order) shows that
    the slow call's handler ended, so that `process exit` and the other cells judge the handler's
    end, not the moment the program happened to exit (they raced: "⌀ session ended" or "✗ ran to
    the end" for one program). Ended: the call was cancelled (a `notifications/cancelled`, a
    cancelling stream close, `tasks/cancel`: the cell's facts judge what the handler did then), or
    the server answered it (a result, an error, the session's deletion). Waits at most until the
    call's length after it was recorded plus HANDLER_GRACE_MS; returns the seconds waited."""
    started = time.monotonic()
    while True:
        try:
            entries = read()
            wire = [(entry["direction"], entry["message"]) for entry in entries]
            times = [entry.get("at_ms") for entry in entries]
            call_index = facts._find_call(wire)
        except (RuntimeError, facts.ReportError, KeyError):
            return time.monotonic() - started  # no slow call recorded: nothing runs
        if _handler_ended(wire, call_index):
            return time.monotonic() - started
        arguments = wire[call_index][1].get("params", {}).get("arguments") or {}
        length_ms = int(arguments.get("steps", 15)) * int(arguments.get("step_ms", 200))
        called_ms = times[call_index] or time.time() * 1000
        if time.time() * 1000 >= called_ms + length_ms + HANDLER_GRACE_MS:
            return time.monotonic() - started
        time.sleep(poll_s)


def _handler_ended(wire: list[tuple[str, dict[str, Any]]], call_index: int) -> bool:
    """Whether the record shows the slow call cancelled or answered (see await_handler)."""
    cancel, response, closed = facts._paired(wire, call_index)
    if cancel is not None or response is not None or (closed is not None and wire[closed][1].get("cancels")):
        return True
    call_id = wire[call_index][1]["id"]
    for direction, message in wire[call_index + 1 :]:
        if not isinstance(message, dict):
            continue
        if direction == "in" and message.get("method") == "tasks/cancel":
            return True
        error = message.get("error") if direction == "out" and facts._same(message.get("id"), call_id) else None
        if isinstance(error, dict) and (error.get("data") or {}).get("sessionDeleted"):
            return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description="Installs every framework's pinned environment (what interop/run.sh --install-only does).")
    parser.add_argument("--install", action="store_true", required=True, help="install each framework whose pin changed")
    parser.add_argument("--work", type=Path, default=Path("target/interop"), help="the work directory (default target/interop, from the repository's root)")
    arguments = parser.parse_args()
    os.chdir(ROOT)  # the installs' commands, and the markers' fingerprints, name paths from the root
    try:
        for name, entry in entries().items():
            seconds = install(entry, arguments.work)
            print(f"  {name}: {f'installed in {seconds:.1f} s' if seconds else 'installed already'}", flush=True)
    except InstallError as error:
        print(f"framework_cells: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
