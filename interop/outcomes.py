"""One cell of the SDK matrix as the reader sees it: the grid's verdict from a cell's facts
(`outcome`, a key of `OUTCOMES`: its glyph, name and meaning) and a table cell's text (`cell`).
Pure, standard library only.

The renderer (render_book.py) and the history (history.py) both judge cells this way; both import
this module, and render_book.py imports history.py, never the reverse, so the helpers import one
way.
"""

from __future__ import annotations

from typing import Any

# The glyph of each outcome and what it means, in legend order: the cancel, the server's handler,
# what the caller saw. `outcome` picks one per cell from the cell's facts.
OUTCOMES = {
    "stopped": ("\u2713", "stopped", "a cancel reached the server (a `notifications/cancelled` naming the call, or, over HTTP at 2026-07-28, the closed response stream); the handler stopped; the caller got an error or a cancellation"),
    "late": ("\u25d0", "cancelled late", "as \u2713, but the cancel left the client only after the caller had control back (seen over stdio only: over HTTP the order of two requests is a race, so such a cell shows \u2713)"),
    "leaked": ("\u2717", "abandoned", "no cancel reached the server; the caller stopped waiting; the handler ran to its end and answered no one"),
    "ran": ("\u25cb", "not stopped", "no cancel; the handler ran to its end; the caller got the result"),
    "ignored": ("!", "cancel ignored", "a cancel reached the server, but progress or a response for the call still followed it"),
    "other": ("?", "other", "a combination the legend does not name: read the detailed rows"),
    "skipped": ("\u2013", "not run", "the SDK does not speak that revision"),
}

def outcome(facts: dict[str, Any]) -> str:
    """The grid's verdict on one cell (a key of OUTCOMES), from its facts alone."""
    if "skipped" in facts:
        return "skipped"
    got_result = str(facts["caller saw"]).startswith("completed")
    reached = facts["cancel sent"] or facts.get("response stream closed") == "a cancel"
    handler = facts["handler"]
    if not reached:
        if handler == "completed (no cancel)":
            return "ran" if got_result else "leaked"
        return "other"
    if handler in ("answered after the cancel", "kept running after the cancel"):
        return "ignored"
    if handler == "stopped by the cancel" and not got_result:
        return "late" if facts["cancel sent before the caller resumed"] is False else "stopped"
    return "other"


def cell(text: Any, code: bool = False) -> str:
    """Table-cell text: `|` escaped, optionally as a code span."""
    text = str(text).replace("|", "\\|")
    return f"`{text}`" if code else text


# The framework grid's verdicts (render_frameworks.py): what reached the server when a framework's
# call was stopped, in legend order.
FRAMEWORK_OUTCOMES = {
    "stopped": ("\u2713", "cancel sent", "a cancel reached the server within 1 s of the stop (a `notifications/cancelled` naming the call, a closed 2026-07-28 response stream, or `tasks/cancel`) and the handler stopped"),
    "late": ("\u25d0", "cancel sent late", "as \u2713, but the cancel reached the server more than 1 s after the stop"),
    "ignored": ("!", "cancel ignored", "a cancel reached the server, but progress or a response for the call still followed it"),
    "leaked": ("\u2717", "ran to the end", "no cancel reached the server; the caller had control back, and the handler ran to its end for no one"),
    "ran": ("\u25cb", "not stopped", "no cancel; the caller waited for the call's end and got its result: the stop did not stop the call"),
    "gone": ("\u2300", "session ended", "no cancel; the server's session ended (its stdin closed, its connection dropped) before the handler answered"),
    "hung": ("\u29d6", "hung", "the caller did not get control back within 5 s of the stop"),
    "racy": ("\u21c4", "either, racing", "two runs of the same cell measured different outcomes (the glyphs after it, each measured): the stop races the framework's own teardown, and either may win; interop/racy.py"),
    "other": ("?", "other", "a combination the legend does not name: read the cell's facts"),
    "skipped": ("\u2013", "not run", "the framework does not offer this way of stopping (the reason is in the details)"),
}

# The tool result's text when the slow call ran to its end (the test server's `slow` tool).
SLOW_RESULT = "completed 15 steps"


def framework_outcome(facts: dict[str, Any]) -> str:
    """The framework grid's verdict on one cell (a key of FRAMEWORK_OUTCOMES), from its facts alone."""
    if "skipped" in facts or "n/a" in facts:
        return "skipped"
    if "racy" in facts:
        # Several measured outcomes (interop/racy.py); `framework_outcomes` names each.
        return "racy"
    if "error" in facts:
        return "other"
    if facts["caller returned"] == "hung":
        return "hung"
    handler = facts["handler"]
    reached = facts["cancel sent"] or facts.get("tasks/cancel sent") or facts.get("response stream closed") == "a cancel"
    if reached:
        if handler in ("answered after the cancel", "kept running after the cancel"):
            return "ignored"
        if handler == "stopped by the cancel":
            return "late" if facts["cancel after stop"] == ">1 s" else "stopped"
        return "other"
    if handler == "completed (no cancel)":
        return "ran" if SLOW_RESULT in str(facts["caller saw"]) and facts["caller returned"] != "promptly" else "leaked"
    if handler == "still running when observed (no cancel)":
        return "gone"
    return "other"


def framework_outcomes(facts: dict[str, Any]) -> list[str]:
    """Each measured outcome of a cell: one verdict, or a racy cell's alternatives' (in order, once each)."""
    if "racy" not in facts:
        return [framework_outcome(facts)]
    found: list[str] = []
    for alternative in facts["racy"]:
        verdict = framework_outcome(alternative)
        if verdict not in found:
            found.append(verdict)
    return found
