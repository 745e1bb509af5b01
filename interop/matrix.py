"""Runs every SDK scenario against `mcp-testserver` and checks the matrix against expected.json.

Each cell of the matrix (SDK x way of stopping x revision x transport) is one run of that SDK's
scenario program in its own process, which starts its own server. The program's report becomes
facts (facts.py); all cells together are target/interop/observed.json. Without `--bless`, any
difference from interop/expected.json is printed as a unified diff and the exit code is 1; with
`--bless`, expected.json is rewritten (refused while a cell failed to run). Exit 2: the runner
itself could not do its job. Only the Python standard library is used.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import difflib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import facts
import framework_cells
import racy
import zygote

INTEROP = Path(__file__).resolve().parent
ROOT = INTEROP.parent
EXPECTED = INTEROP / "expected.json"
# The revisions and transports the matrix covers. A program that lacks a transport in its
# `--describe` gets `skipped` cells for it.
REVISIONS = ("2025-11-25", "2026-07-28")
TRANSPORTS = ("stdio", "http")
# One cell's run: the scenarios take about 4 s; this bounds a hang.
CELL_TIMEOUT_S = 60
# A framework cell's: importing a framework took up to 21 s on this machine at load 25, and
# `process exit` imports it twice.
FRAMEWORK_CELL_TIMEOUT_S = 150
# How long an HTTP server may take to print its address.
SERVER_START_TIMEOUT_S = 10
# Node's module compile cache (Node 22.1 and later; Node 20 ignores the variable), shared by every
# cell: the TypeScript frameworks' Node 22 compiles each module once, not once per cell. A cache
# only spares the compiling; the programs run as before.
NODE_COMPILE_CACHE = ROOT / "target" / "interop" / "node-compile-cache"


def clients(work: Path) -> dict[str, list[str]]:
    """The scenario program of each SDK, as a command line."""
    return {
        "python": [str(work / "venv" / "bin" / "python"), str(INTEROP / "python" / "scenarios.py")],
        "typescript": ["node", str(INTEROP / "typescript" / "scenarios.mjs")],
        "typescript-v2": ["node", str(INTEROP / "typescript-v2" / "scenarios.mjs")],
        "rmcp": [str(ROOT / "target" / "debug" / "rmcp-scenarios")],
    }


def programs(work: Path, only: list[str]) -> dict[str, list[str]]:
    """The programs `--only` selects (all without it): the SDKs' and the frameworks'
    (interop/frameworks/*/frameworks.json), installing each framework whose install is missing."""
    with_sdks, frameworks = framework_cells.select(only)
    chosen = {sdk: command for sdk, command in clients(work).items() if with_sdks or sdk in only}
    entries = framework_cells.entries()
    for name in frameworks:
        seconds = framework_cells.install(entries[name], work)
        if seconds:
            print(f"  {name}: installed in {seconds:.1f} s", flush=True)
        chosen[name] = framework_cells.command(entries[name], work)
    return chosen


def run_process(command: list[str], log_stem: Path, timeout_s: float = CELL_TIMEOUT_S, zygotes: zygote.Pool | None = None) -> dict[str, Any]:
    """Runs one scenario program in its own process group; returns its JSON report or raises. A
    Python program is forked from its zygote when `zygotes` has one for it (zygote.py)."""
    log_stem.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{log_stem}.stderr", "wb") as stderr:
        environment = {"NODE_COMPILE_CACHE": str(NODE_COMPILE_CACHE), **os.environ}
        process = zygote.popen(zygotes, command, subprocess.DEVNULL, subprocess.PIPE, stderr, environment, cwd=ROOT, start_new_session=True)
        try:
            stdout, _ = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RuntimeError(f"timed out after {timeout_s} s (log: {log_stem}.stderr)") from None
    Path(f"{log_stem}.json").write_bytes(stdout)
    if process.returncode != 0:
        tail = Path(f"{log_stem}.stderr").read_text(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"exit {process.returncode}: {' | '.join(tail)} (log: {log_stem}.stderr)")
    try:
        return json.loads(stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(f"the report is not JSON ({error}; log: {log_stem}.json)") from None


@contextlib.contextmanager
def http_server(server: str, log_stem: Path, extra: list[str] | None = None) -> Iterator[str]:
    """Starts `server --http 127.0.0.1:0 [EXTRA...]` in its own process group; yields its URL; stops it."""
    log = open(f"{log_stem}.server.stderr", "w")
    process = subprocess.Popen([server, "--http", "127.0.0.1:0", *(extra or [])], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.PIPE, text=True, start_new_session=True)
    drain = None
    try:
        url = None
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while url is None and time.monotonic() < deadline and process.poll() is None:
            line = process.stderr.readline()
            log.write(line)
            if "listening on " in line:
                url = line.split("listening on ", 1)[1].strip()
        if url is None:
            raise RuntimeError(f"the server printed no `listening on URL` line within {SERVER_START_TIMEOUT_S} s (log: {log_stem}.server.stderr)")
        drain = threading.Thread(target=copy_lines, args=(process.stderr, log), daemon=True)
        drain.start()
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        # The server's stderr ends with its process group; the log is closed after the last line.
        if drain is not None:
            drain.join(timeout=5)
        log.close()


def copy_lines(stream: Any, log: Any) -> None:
    """Copies `stream` into `log` line by line until the stream ends or the log is closed."""
    for line in stream:
        if log.closed:
            return
        log.write(line)


def run_cell(command: list[str], server: str, scenario: str, revision: str, transport: str, logs: Path, framework: bool = False, zygotes: zygote.Pool | None = None) -> dict[str, Any]:
    """One cell: its facts, or `{"error": ...}` when the run failed. Over stdio the program starts
    the server itself; over HTTP the runner starts it and hands the program its URL. A framework
    program reads nothing from the server: the server records its wire (`--record FILE`), and the
    runner reads FILE into the report's transcript after the cell. `zygotes`: run_process's."""
    stem = logs / f"{scenario}-{revision}-{transport}".replace(" ", "_").replace("/", "_")
    arguments = ["--scenario", scenario, "--revision", revision, "--transport", transport, "--"]
    record = Path(f"{stem}.record.jsonl")
    extra = ["--record", str(record)] if framework else []
    for stale in record.parent.glob(f"{record.name}*"):
        stale.unlink()
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
        if transport == "stdio":
            # Each server process the framework starts records into a file of its own (`--record`
            # truncates its file; a framework may start one server per call): FILE.PID.
            launch = ["/bin/sh", "-c", 'exec "$0" --record "$1.$$"', server, str(record)] if framework else [server]
            report = run_process(command + arguments + launch, stem, FRAMEWORK_CELL_TIMEOUT_S if framework else CELL_TIMEOUT_S, zygotes)
        else:
            with http_server(server, stem, extra) as url:
                report = run_process(command + arguments + [url], stem, FRAMEWORK_CELL_TIMEOUT_S if framework else CELL_TIMEOUT_S, zygotes)
                if framework:  # the server outlives the program: judge the handler's end, not the exit
                    framework_cells.await_handler(lambda: read_record(record))
        if not framework:
            return facts.facts(report)
        report["transcript"] = read_record(record)
        return facts.framework_facts(report)
    except (RuntimeError, facts.ReportError) as error:
        return {"error": str(error)}


def read_record(record: Path) -> list[dict[str, Any]]:
    """The server's `--record` file(s) (`FILE`, or `FILE.PID` for each stdio server process): one
    JSON object per line (a torn last line is dropped), all of them in time order."""
    files = sorted(record.parent.glob(f"{record.name}*"))
    if not files:
        raise RuntimeError(f"the server wrote no record at {record}")
    entries = []
    for file in files:
        for line in file.read_text().splitlines():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    # Stable: within one file the order is the server's; across files, the time.
    return sorted(entries, key=lambda entry: entry.get("at_ms", 0))


def observe(work: Path, server: str, jobs: int, only: list[str], commands: dict[str, list[str]] | None = None, logs_dir: Path | None = None, expected: dict[str, Any] | None = None) -> dict[str, Any]:
    """Runs every cell and returns the observed matrix. `commands` replaces the pinned programs
    (another release of an SDK: interop/history.py, drift.py); `logs_dir` the `work/logs` directory;
    `expected` the matrix to check against, whose differing cells are run once more
    (retry_differing_cells)."""
    logs_root = logs_dir or work / "logs"
    shutil.rmtree(logs_root, ignore_errors=True)
    # Each Python program's cells are forked from a process that imported it once (zygote.py).
    with zygote.Pool(logs_root, FRAMEWORK_CELL_TIMEOUT_S) as zygotes:
        observed: dict[str, Any] = {"sdks": {}, "matrix": {}}
        pending = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for sdk, command in (commands or programs(work, only)).items():
                description = run_process(command + ["--describe"], logs_root / sdk / "describe", CELL_TIMEOUT_S, zygotes)
                missing = [key for key in ("package", "version", "revisions", "transports", "scenarios") if key not in description]
                if missing:
                    raise RuntimeError(f"`{' '.join(command)} --describe` lacks {', '.join(missing)}")
                observed["sdks"][sdk] = {key: description[key] for key in ("package", "version", "revisions", "scenarios")}
                framework = bool(description.get("framework"))
                if framework:
                    observed["sdks"][sdk].update(framework=True, mcp_sdk=description.get("mcp_sdk"), transports=description["transports"])
                if description.get("unavailable"):
                    # Ways of stopping the program cannot write for this release: {name: why}.
                    observed["sdks"][sdk]["unavailable"] = description["unavailable"]
                logs = logs_root / sdk
                pending[pool.submit(run_cell, command, server, "not stopped", "default", "stdio", logs, framework, zygotes)] = (sdk, None, "default", None)
                for scenario in description["scenarios"]:
                    # A framework speaks what its SDK chooses (`default`), unless it lists revisions.
                    for revision in (description["revisions"] if framework else REVISIONS):
                        for transport in TRANSPORTS:
                            cell = observed["matrix"].setdefault(sdk, {}).setdefault(scenario, {}).setdefault(revision, {})
                            if revision not in description["revisions"]:
                                cell[transport] = {"skipped": f"{description['package']} {description['version']} does not speak {revision}"}
                            elif transport not in description["transports"]:
                                cell[transport] = {"skipped": f"the {sdk} scenario program has no {transport} client yet"}
                            else:
                                pending[pool.submit(run_cell, command, server, scenario, revision, transport, logs, framework, zygotes)] = (sdk, scenario, revision, transport)
            for future in concurrent.futures.as_completed(pending):
                sdk, scenario, revision, transport = pending[future]
                result = future.result()
                if scenario is None:
                    defaults = {"default revision": result.get("revision on the wire"), "default connection": result.get("before the call")}
                    observed["sdks"][sdk].update(result if "error" in result else defaults)
                else:
                    observed["matrix"][sdk][scenario][revision][transport] = result
                print(f"  {sdk:<10} {scenario or 'default connection':<42} {revision:<10} {transport or 'stdio':<5} {'ERROR' if 'error' in result else 'ok'}", flush=True)
        def rerun(sdk: str, scenario: str, revision: str, transport: str) -> dict[str, Any]:
            return run_cell((commands or programs(work, only))[sdk], server, scenario, revision, transport, logs_root / sdk, bool(observed["sdks"][sdk].get("framework")), zygotes)

        retry_failed_runs(observed, rerun)
        if expected is not None:
            retry_differing_cells(observed, expected, rerun)
        return observed


# How many times a cell whose run failed is run again, one at a time, before its failure counts.
RERUNS = 3


def retry_failed_runs(observed: dict[str, Any], rerun: Any, reruns: int = RERUNS) -> list[str]:
    """Runs again, one at a time, each cell whose run failed (`{"error": ...}`: the program crashed,
    timed out, or stopped before its call reached the server, as a loaded machine can make it do),
    up to `reruns` times, until a run does not fail. A failed run measured nothing, so running it
    again changes no fact; a cell that ran and differs from expected.json is never rerun. Returns
    the cells rerun (`sdk / scenario / revision / transport`), each said on stdout with each
    failure; the last failure stays a failure."""
    rerun_cells = []
    for sdk, scenarios in observed["matrix"].items():
        for scenario, revisions in scenarios.items():
            for revision, transports in revisions.items():
                for transport, cell in transports.items():
                    if "error" not in cell:
                        continue
                    name = f"{sdk} / {scenario} / {revision} / {transport}"
                    rerun_cells.append(name)
                    for attempt in range(1, reruns + 1):
                        print(f"  rerun {attempt} of {reruns}, one at a time: {name} (its run failed: {cell['error']})", flush=True)
                        cell = rerun(sdk, scenario, revision, transport)
                        if "error" not in cell:
                            break
                    transports[transport] = cell
    return rerun_cells


def retry_differing_cells(observed: dict[str, Any], expected: dict[str, Any], rerun: Any) -> list[str]:
    """Runs once more, one at a time, each cell that ran and differs from `expected` (racy cells
    compared as interop/racy.py does), and keeps the second run. The matrix runs 8 cells at once
    beside CI's other steps, and some facts are windows of a second (`cancel after stop`: `<1 s`);
    a loaded machine can stretch one run past it, while a changed behaviour shows again when the
    cell runs alone. The first run's facts are said on stdout; a second run that differs too is
    in the diff that fails the matrix. Returns the cells run again (`sdk / scenario / revision /
    transport`)."""
    again = []
    for sdk, scenario, revision, transport, cell in racy.cells(observed["matrix"]):
        wanted = racy.cell_at(expected.get("matrix", {}), sdk, scenario, revision, transport)
        if "error" in cell or "skipped" in cell or wanted is None or racy.accepts(wanted, cell):
            continue
        name = f"{sdk} / {scenario} / {revision} / {transport}"
        again.append(name)
        print(f"  run again, one at a time: {name} (it differed from expected.json: {json.dumps(cell, sort_keys=True, ensure_ascii=False)})", flush=True)
        observed["matrix"][sdk][scenario][revision][transport] = rerun(sdk, scenario, revision, transport)
    return again


def errors(observed: dict[str, Any]) -> list[str]:
    """Every cell (and default connection) that failed to run, as `sdk / scenario / ...: error`."""
    found = [f"{sdk} / default connection: {info['error']}" for sdk, info in observed["sdks"].items() if "error" in info]
    for sdk, scenarios in observed["matrix"].items():
        for scenario, revisions in scenarios.items():
            for revision, transports in revisions.items():
                for transport, cell in transports.items():
                    if "error" in cell:
                        found.append(f"{sdk} / {scenario} / {revision} / {transport}: {cell['error']}")
    return found


def dump(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the mcp-testserver binary")
    parser.add_argument("--work", required=True, type=Path, help="the work directory (venv, logs, observed.json)")
    parser.add_argument("--jobs", type=int, default=4, help="cells run at once (default 4; the cells mostly wait)")
    parser.add_argument("--only", action="append", default=[], help="run only this SDK or framework, or `sdks` or `frameworks` (repeatable); compared with (and, with --bless, merged into) their part of expected.json")
    parser.add_argument("--bless", action="store_true", help="rewrite interop/expected.json with what was observed")
    arguments = parser.parse_args()
    if not Path(arguments.server).is_file():
        print(f"matrix: error: no server binary at {arguments.server} (cargo build --release -p mcp-testserver)", file=sys.stderr)
        return 2
    started = time.monotonic()
    whole = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {"sdks": {}, "matrix": {}}
    try:
        # Blessing records what ran; checking runs a differing cell once more before it counts.
        observed = observe(arguments.work, arguments.server, arguments.jobs, arguments.only, expected=None if arguments.bless else whole)
    except (RuntimeError, OSError, framework_cells.InstallError) as error:
        print(f"matrix: error: {error}", file=sys.stderr)
        return 2
    observed_path = arguments.work / "observed.json"
    observed_path.write_text(dump(observed))
    print(f"matrix: {sum(1 for _ in _cells(observed))} cells in {time.monotonic() - started:.0f} s -> {observed_path}")
    failed = errors(observed)
    for line in failed:
        print(f"matrix: error: {line}", file=sys.stderr)
    if arguments.bless:
        if failed:
            print("matrix: error: not blessing a matrix with failed cells", file=sys.stderr)
            return 1
        # A racy cell (interop/racy.py) stays racy while the run is one of its measured outcomes.
        blessed = racy.keep_racy(whole, observed)
        EXPECTED.write_text(dump(merge(whole, blessed) if arguments.only else blessed))
        print(f"matrix: wrote {EXPECTED.relative_to(ROOT)}")
        return 0
    # With --only, the part of expected.json that names what ran is compared; a racy cell the run
    # agrees with (one of its measured outcomes) compares as the run's.
    compared = racy.resolve(part(whole, list(observed["sdks"])) if arguments.only else whole, observed)
    expected = dump(compared) if EXPECTED.exists() else ""
    agree, differ = compare_cells(compared, observed)
    print(f"interop: {agree} passed, {differ} failed")
    if expected == dump(observed):
        return 0
    diff = difflib.unified_diff(expected.splitlines(keepends=True), dump(observed).splitlines(keepends=True), "interop/expected.json", str(observed_path))
    sys.stdout.writelines(diff)
    print("matrix: error: the SDKs' behaviour differs from interop/expected.json (above). If the change is intended, run `interop/run.sh --bless` and update the prose in interop/sdk-matrix.template.md", file=sys.stderr)
    return 1


def part(expected: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The entries of expected.json for these SDKs and frameworks."""
    return {"sdks": {name: info for name, info in expected.get("sdks", {}).items() if name in names}, "matrix": {name: cells for name, cells in expected.get("matrix", {}).items() if name in names}}


def merge(expected: dict[str, Any], observed: dict[str, Any]) -> dict[str, Any]:
    """expected.json with the entries of what ran replaced by what was observed."""
    merged = {"sdks": dict(expected.get("sdks", {})), "matrix": dict(expected.get("matrix", {}))}
    merged["sdks"].update(observed["sdks"])
    merged["matrix"].update(observed["matrix"])
    return merged


def compare_cells(expected: dict[str, Any], observed: dict[str, Any]) -> tuple[int, int]:
    """How many observed cells equal their expectation, and how many do not (or are new)."""
    agree = differ = 0
    for sdk, scenarios in observed["matrix"].items():
        for scenario, revisions in scenarios.items():
            for revision, transports in revisions.items():
                for transport, cell in transports.items():
                    wanted = expected.get("matrix", {}).get(sdk, {}).get(scenario, {}).get(revision, {}).get(transport)
                    if racy.accepts(wanted, cell):
                        agree += 1
                    else:
                        differ += 1
    return agree, differ


def _cells(observed: dict[str, Any]):
    for scenarios in observed["matrix"].values():
        for revisions in scenarios.values():
            for transports in revisions.values():
                yield from transports.values()


if __name__ == "__main__":
    sys.exit(main())
