"""From one scenario's client report to the facts the SDK matrix shows. Pure: no I/O.

A client report (interop/README.md) carries the server's wire transcript, read through the
`transcript` tool after the stop, and the server's `violations`. Everything here is judged from
the server's side of the wire, so it is the same judgement for every SDK: which call was the slow
one, whether a `notifications/cancelled` naming it arrived (with which `requestId` and `reason`),
whether that cancel was on the wire before the caller got control back (each program sends an
`echo` marker at that moment), whether the progress token was the request id, what the server
sent for that call after the cancel, and whether its handler stopped (no progress and no response
after the cancel).
"""

from __future__ import annotations

import json
from typing import Any

# The tool every scenario stops.
SLOW_TOOL = "slow"
# The tools a client calls after the stop to read the server's observations.
OBSERVER_TOOLS = ("transcript", "violations")
# The text of the `echo` call a scenario program makes as soon as the caller has control back.
RESUMED_MARKER = "caller resumed"
# The `_meta` key carrying a 2026-07-28 request's protocol version.
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


class ReportError(Exception):
    """The report does not hold what the analysis needs (a broken client or server)."""


def facts(report: dict[str, Any]) -> dict[str, Any]:
    """The matrix cell for one client report."""
    transcript = report.get("transcript")
    if not isinstance(transcript, list):
        raise ReportError("the report has no transcript (the `transcript` tool was not reachable)")
    wire = [(entry["direction"], entry["message"]) for entry in transcript]
    call_index = _find_call(wire)
    call = wire[call_index][1]
    call_id = call["id"]
    token = call.get("params", {}).get("_meta", {}).get("progressToken")
    notified_index = _find(wire, lambda d, m: d == "in" and m.get("method") == "notifications/cancelled" and _same(m.get("params", {}).get("requestId"), call_id))
    # Streamable HTTP: the server records a closed response stream as a transport event; under
    # 2026-07-28 it is the cancellation itself (`cancels: true`).
    closed_index = _find(wire, lambda d, m: d == "in" and m.get("transport") == "http" and m.get("event") == "disconnect" and _same(m.get("requestId"), call_id))
    closed = wire[closed_index][1] if closed_index is not None else None
    cancelling = [index for index in (notified_index, closed_index if closed and closed.get("cancels") else None) if index is not None]
    cancel_index = min(cancelling) if cancelling else None
    response_index = _find(wire, lambda d, m: d == "out" and _same(m.get("id"), call_id) and ("result" in m or "error" in m))
    resumed_index = _find(wire, lambda d, m: d == "in" and m.get("method") == "tools/call" and m.get("params", {}).get("arguments", {}).get("text") == RESUMED_MARKER)
    if resumed_index is None:
        raise ReportError(f"the transcript holds no `echo` of {RESUMED_MARKER!r} (the marker each program sends)")
    cancel = wire[notified_index][1]["params"] if notified_index is not None else None
    after_cancel = _sent_after(wire, cancel_index, call_id, token) if cancel_index is not None else None
    return {
        "revision on the wire": _wire_revision(wire, call),
        "before the call": _before_call(wire, call_index),
        "caller saw": report.get("caller_saw"),
        "progress token": _describe_token(token, call_id),
        "cancel sent": cancel is not None,
        "response stream closed": None if closed is None else ("a cancel" if closed.get("cancels") else "not a cancel"),
        "cancel requestId": _json(cancel.get("requestId")) if cancel else None,
        "cancel reason": cancel.get("reason") if cancel else None,
        # Over HTTP each message travels on its own request, so their order is a race: not a fact.
        "cancel sent before the caller resumed": cancel_index < resumed_index if cancel_index is not None and report.get("transport") == "stdio" else None,
        "other cancels": [_json(m["params"].get("requestId")) for d, m in wire if d == "in" and m.get("method") == "notifications/cancelled" and not _same(m.get("params", {}).get("requestId"), call_id)],
        "server sent after cancel": after_cancel,
        "handler": _handler(wire, cancel_index, response_index, token),
        "violations": sorted(v.get("rule", "?") for v in report.get("violations") or []),
    }


def _find_call(wire: list[tuple[str, dict[str, Any]]]) -> int:
    index = _find(wire, lambda d, m: d == "in" and m.get("method") == "tools/call" and m.get("params", {}).get("name") == SLOW_TOOL)
    if index is None:
        raise ReportError(f"the transcript holds no `tools/call` of `{SLOW_TOOL}`")
    return index


def _find(wire: list[tuple[str, dict[str, Any]]], matches: Any) -> int | None:
    return next((index for index, (direction, message) in enumerate(wire) if isinstance(message, dict) and matches(direction, message)), None)


def _same(left: Any, right: Any) -> bool:
    """JSON equality that keeps `"4"` and `4` (and `1` and `true`) apart."""
    return type(left) is type(right) and left == right


def _json(value: Any) -> str:
    return json.dumps(value)


def _wire_revision(wire: list[tuple[str, dict[str, Any]]], call: dict[str, Any]) -> str:
    stamped = call.get("params", {}).get("_meta", {}).get(VERSION_KEY)
    if stamped:
        return stamped
    answer = next((m for d, m in wire if d == "out" and isinstance(m.get("result"), dict) and "protocolVersion" in m["result"]), None)
    return answer["result"]["protocolVersion"] if answer else "unknown"


def _before_call(wire: list[tuple[str, dict[str, Any]]], call_index: int) -> str:
    """What the client sent before the slow call, e.g. `initialize (proposes 2026-07-28), notifications/initialized`."""
    parts = []
    for direction, message in wire[:call_index]:
        if direction != "in" or not isinstance(message, dict) or "jsonrpc" not in message:
            continue
        method = message.get("method", "a response")
        proposed = message.get("params", {}).get("protocolVersion") if method == "initialize" else None
        parts.append(f"{method} (proposes {proposed})" if proposed else method)
    return ", ".join(parts) or "nothing"


def _describe_token(token: Any, call_id: Any) -> str:
    if token is None:
        return "none"
    if _same(token, call_id):
        return f"= request id ({_json(token)})"
    return f"own ({_json(token)}; request id {_json(call_id)})"


def _sent_after(wire: list[tuple[str, dict[str, Any]]], cancel_index: int, call_id: Any, token: Any) -> list[str]:
    """What the server sent for the call after the cancel arrived: `progress`, `response`."""
    sent = []
    for direction, message in wire[cancel_index + 1 :]:
        if direction != "out":
            continue
        if message.get("method") == "notifications/progress" and token is not None and _same(message.get("params", {}).get("progressToken"), token):
            sent.append("progress")
        elif _same(message.get("id"), call_id):
            sent.append("response")
    return sorted(set(sent))


def _handler(wire: list[tuple[str, dict[str, Any]]], cancel_index: int | None, response_index: int | None, token: Any) -> str:
    """Whether the server's handler stopped, as the wire shows it."""
    if cancel_index is None:
        return "completed (no cancel)" if response_index is not None else "still running when observed (no cancel)"
    if response_index is not None and response_index < cancel_index:
        return "completed before the cancel arrived"
    if response_index is not None:
        return "answered after the cancel"
    if "progress" in _sent_after(wire, cancel_index, None, token):
        return "kept running after the cancel"
    return "stopped by the cancel"


# ---------------------------------------------------------------- framework cells (issue 32)
# A framework program (interop/frameworks/README.md) reads nothing from the server: the runner
# passed `--record FILE` to the server and puts the recorded lines (`at_ms`, `direction`,
# `message`) in the report's `transcript`. The next call after the stop may be impossible, so the
# `echo` marker is not required; the stop's and the return's times come from the program.

def framework_facts(report: dict[str, Any]) -> dict[str, Any]:
    """The cell of a framework program's report (its transcript is the server's record)."""
    transcript = report.get("transcript")
    if not isinstance(transcript, list):
        raise ReportError("the report has no transcript (the server's --record file was not read)")
    wire = [(entry["direction"], entry["message"]) for entry in transcript]
    times = [entry.get("at_ms") for entry in transcript]
    call_index = _find_call(wire)
    call = wire[call_index][1]
    call_id = call["id"]
    token = call.get("params", {}).get("_meta", {}).get("progressToken")
    notified_index, response_index, closed_index = _paired(wire, call_index)
    closed = wire[closed_index][1] if closed_index is not None else None
    task_cancel_index = _find(wire, lambda d, m: d == "in" and m.get("method") == "tasks/cancel")
    cancelling = [index for index in (notified_index, closed_index if closed and closed.get("cancels") else None, task_cancel_index) if index is not None]
    cancel_index = min(cancelling) if cancelling else None
    cancel = wire[notified_index][1]["params"] if notified_index is not None else None
    stopped = report.get("stopped_at_ms")
    if report.get("timeout_ms") is not None and times[call_index] is not None:
        # A framework's timeout runs from the moment its client sent the call (the program cannot
        # see that moment; the record can): FRAMEWORKS-CONTRACT-CHANGES.md, fw-ts.
        stopped = times[call_index] + report["timeout_ms"]
    elif stopped is not None and times[call_index] is not None and stopped < times[call_index]:
        # The stop is due 0.6 s after the run starts; a framework slow to send its call on a
        # loaded machine (Mastra: up to 855 ms at CI's load, interop/README.md) sends it after
        # the stop, and the run stops a call the server never ran: not the scenario. A failed
        # run, so it is run again.
        raise ReportError(f"the stop came {times[call_index] - stopped} ms before the `{SLOW_TOOL}` call reached the server (a loaded machine): the run measured nothing")
    returned = report.get("returned_at_ms")
    after = times[cancel_index] - stopped if cancel_index is not None and stopped is not None and times[cancel_index] is not None else None
    return {
        "revision on the wire": _wire_revision(wire, call),
        "before the call": _before_call(wire, call_index),
        "caller saw": report.get("caller_saw"),
        "cancel sent": cancel is not None,
        "tasks/cancel sent": task_cancel_index is not None,
        "response stream closed": None if closed is None else ("a cancel" if closed.get("cancels") else "not a cancel"),
        "cancel requestId": _json(cancel.get("requestId")) if cancel else None,
        "cancel reason": cancel.get("reason") if cancel else None,
        "cancel after stop": None if after is None else bucket_ms(after),
        "caller returned": caller_returned(stopped, returned),
        "next call": report.get("next_call"),
        "server sent after cancel": _sent_after_paired(wire, cancel_index, response_index, token) if cancel_index is not None else None,
        "handler": _handler(wire, cancel_index, response_index, token),
    }


def bucket_ms(milliseconds: float) -> str:
    """A delay, bucketed so that a cell stays stable from run to run: within a second of the
    stop, or later. (A `<100 ms` bucket flipped between two runs on a loaded machine: a process
    exit's stream close reached the server 60 ms after the stop in one run, 140 ms in the next.)"""
    return "<1 s" if milliseconds < 1000 else ">1 s"


def caller_returned(stopped_at_ms: int | None, returned_at_ms: int | None) -> str:
    """`promptly` (within 1 s of the stop), `late`, `hung` (never, within the program's 5 s), or
    `not stopped` (the baseline run, which nobody stops)."""
    if returned_at_ms is None:
        return "hung"
    if stopped_at_ms is None:
        return "not stopped"
    return "promptly" if returned_at_ms - stopped_at_ms < 1000 else "late"


def _paired(wire: list[tuple[str, dict[str, Any]]], call_index: int) -> tuple[int | None, int | None, int | None]:
    """The slow call's cancel, response and HTTP stream-close entries, paired to it. A framework
    may open one session per call (langchain-mcp-adapters, llama-index-tools-mcp), so request ids
    repeat across the record's sessions: a message naming the id belongs to the most recent
    request with that id still open (a later session's request is answered before the slow call
    ends). An error the server sends because the session was deleted (the program's exit) is not
    the handler's answer."""
    call_id = wire[call_index][1]["id"]
    open_requests = [call_index]
    cancel = response = closed = None
    for index in range(call_index + 1, len(wire)):
        direction, message = wire[index]
        if not isinstance(message, dict) or not open_requests:
            continue
        if direction == "in" and "method" in message and _same(message.get("id"), call_id):
            open_requests.append(index)
        elif direction == "in" and message.get("method") == "notifications/cancelled" and _same(message.get("params", {}).get("requestId"), call_id):
            if open_requests[-1] == call_index and cancel is None:
                cancel = index
        elif direction == "in" and message.get("transport") == "http" and message.get("event") == "disconnect" and _same(message.get("requestId"), call_id):
            if open_requests[-1] == call_index and closed is None:
                closed = index
        elif direction == "out" and "method" not in message and _same(message.get("id"), call_id) and ("result" in message or "error" in message):
            if open_requests.pop() == call_index:
                deleted = isinstance(message.get("error"), dict) and (message["error"].get("data") or {}).get("sessionDeleted")
                response = None if deleted else index
    return cancel, response, closed


def _sent_after_paired(wire: list[tuple[str, dict[str, Any]]], cancel_index: int, response_index: int | None, token: Any) -> list[str]:
    """What the server sent for the slow call after the cancel: its paired response, progress for its token."""
    sent = {"response"} if response_index is not None and response_index > cancel_index else set()
    if token is not None and any(d == "out" and m.get("method") == "notifications/progress" and _same(m.get("params", {}).get("progressToken"), token) for d, m in wire[cancel_index + 1 :]):
        sent.add("progress")
    return sorted(sent)
