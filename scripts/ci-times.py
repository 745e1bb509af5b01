#!/usr/bin/env python3
"""Where a `.ci/run` log's time went: each step's wall and CPU time, and each `cargo test` binary's.

    python3 scripts/ci-times.py LOG        # LOG: what `.ci/run` printed (it keeps target/ci-log.txt)

Steps come from the `=== NAME (Ns)` headers `.ci/run` prints (N: seconds since the run began),
so a step's time is the next header's N minus its own; the last step runs to the `done` header,
or to the end of the log when the run stopped early (then marked "(stopped here)"). A step's CPU
time (user + sys of the commands it ran) is the difference of the `--- cpu so far (user sys): U S`
lines under its header and the next one (bash's `times`; a log without them shows wall only),
less the CPU of the background steps that ended in it (the `--- background cpu so far` lines:
a background step's CPU counts where it ends, so it is shown on its own, from its
`--- background NAME: started at ..., ended at ..., cpu (user sys): U S` line). Test binaries
come from cargo's `Running SOURCE (BINARY)` lines and libtest's `test result: ... finished in
Ts` line that closes each one; the slowest tests from libtest's `has been running for over 60
seconds` warnings. Both lists are sorted slowest first. Standard library only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

STEP = re.compile(r"^=== (?P<name>.*) \((?P<seconds>\d+)s\)$")
CPU = re.compile(r"^--- cpu so far \(user sys\): (?P<user>\d+m[\d.]+s) (?P<sys>\d+m[\d.]+s)$")
BACKGROUND_CPU = re.compile(r"^--- background cpu so far \(user sys\): (?P<user>\d+m[\d.]+s) (?P<sys>\d+m[\d.]+s)$")
BACKGROUND = re.compile(
    r"^--- background (?P<name>\S+): started at (?P<start>\d+)s, ended at (?P<end>\d+|\?)s, waited for at \d+s, "
    r"exit (?P<status>\d+), cpu \(user sys\): (?P<user>\d+m[\d.]+s|\?) (?P<sys>\d+m[\d.]+s|\?)"
    r"(?P<stopped> \(not waited for: the run stopped first\))?$"
)
RUNNING = re.compile(r"^\s*Running (?P<source>.+?)(?: \((?P<binary>[^)]*)\))?$")
DOC_TESTS = re.compile(r"^\s*Doc-tests (?P<name>\S+)")
RESULT = re.compile(r"^test result: \w+\. (?P<passed>\d+) passed; (?P<failed>\d+) failed.*finished in (?P<seconds>[\d.]+)s")
SLOW = re.compile(r"^test (?P<name>\S+) has been running for over 60 seconds")


def seconds_of(times: str) -> float:
    """`1m2.500s` (bash's `times`) in seconds."""
    minutes, seconds = times.rstrip("s").split("m")
    return int(minutes) * 60 + float(seconds)


def steps(lines: list[str]) -> list[tuple[str, int, bool, float | None]]:
    """Each step's (name, seconds, stopped, cpu seconds or None): a step the log ends in is `stopped`."""
    headers: list[tuple[str, int, float | None]] = []
    for index, line in enumerate(lines):
        if m := STEP.match(line):
            cpu = CPU.match(lines[index + 1]) if index + 1 < len(lines) else None
            background = BACKGROUND_CPU.match(lines[index + 2]) if cpu and index + 2 < len(lines) else None
            used = seconds_of(cpu["user"]) + seconds_of(cpu["sys"]) if cpu else None
            if used is not None and background:
                used -= seconds_of(background["user"]) + seconds_of(background["sys"])
            headers.append((m["name"], int(m["seconds"]), used))
    result = []
    for (name, start, cpu), following in zip(headers, headers[1:] + [None]):
        if name == "done":
            continue
        if following is None:
            result.append((name, 0, True, None))
        else:
            used = following[2] - cpu if cpu is not None and following[2] is not None else None
            result.append((name, following[1] - start, False, used))
    return result


def background_steps(lines: list[str]) -> list[tuple[str, int | None, float | None, int]]:
    """Each background step waited for: (name, wall seconds from its start to its end, CPU
    seconds, exit status); None where the step wrote no end (it was killed)."""
    result = []
    for m in map(BACKGROUND.match, lines):
        if m:
            wall = int(m["end"]) - int(m["start"]) if m["end"] != "?" else None
            cpu = seconds_of(m["user"]) + seconds_of(m["sys"]) if m["user"] != "?" else None
            result.append((m["name"], wall, cpu, int(m["status"])))
    return result


def test_binaries(lines: list[str]) -> list[tuple[str, float, int]]:
    """Each test binary's (source, seconds, tests run), in the order cargo ran them."""
    result, current = [], None
    for line in lines:
        if m := RUNNING.match(line):
            current = m["source"]
        elif m := DOC_TESTS.match(line):
            current = f"doc-tests {m['name']}"
        elif (m := RESULT.match(line)) and current is not None:
            result.append((current, float(m["seconds"]), int(m["passed"]) + int(m["failed"])))
            current = None
    return result


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    lines = Path(argv[1]).read_text(errors="replace").splitlines()
    found = steps(lines)
    if not found:
        print(f"ci-times: no `=== STEP (Ns)` header in {argv[1]}", file=sys.stderr)
        return 2
    total = sum(seconds for _, seconds, _, _ in found)
    with_cpu = any(cpu is not None for _, _, _, cpu in found)
    background = background_steps(lines)
    cpu_total = sum(cpu or 0 for _, _, _, cpu in found) + sum(cpu or 0 for _, _, cpu, _ in background)
    print(f"where .ci/run's time went ({total} s in finished steps" + (f", {cpu_total:.0f} s CPU with the background steps'" if with_cpu else "") + "):")
    for name, seconds, stopped, cpu in sorted(found, key=lambda step: -step[1]):
        used = f"  {cpu:>6.0f} s CPU" if cpu is not None else ("  " + " " * 10 if with_cpu else "")
        print(f"  {seconds:>6} s{used}  {name}" + ("  (stopped here)" if stopped else ""))
    if background:
        print("background steps (each beside the steps above, from its start to its end):")
        for name, wall, cpu, status in sorted(background, key=lambda step: -(step[1] or 0)):
            shown_wall = f"{wall:>6} s" if wall is not None else "     ? s"
            shown_cpu = f"  {cpu:>6.0f} s CPU" if cpu is not None else "       ? s CPU"
            print(f"  {shown_wall}{shown_cpu}  {name}" + (f"  (exit {status})" if status else ""))
    binaries = test_binaries(lines)
    if binaries:
        print(f"cargo test, per test binary ({sum(s for _, s, _ in binaries):.0f} s in tests, builds not counted):")
        for source, seconds, count in sorted(binaries, key=lambda binary: -binary[1]):
            print(f"  {seconds:>8.1f} s  {count:>4} tests  {source}")
    slow = [m["name"] for m in map(SLOW.match, lines) if m]
    if slow:
        print("tests running for over 60 s: " + ", ".join(slow))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
