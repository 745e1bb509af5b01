"""What both Python servers of measure.py share: their command line (`--events FILE [--http
PORT]`) and the events file their `slow` tools write, one line each, `EPOCH_MS TEXT`.

`arguments()` is called from a server's `main()`, not its top level, so that measure.py can fork
each cell's server from a process that has run the top level once (interop/zygote.py)."""

import argparse
import time

_events = None


def arguments() -> argparse.Namespace:
    """The server's arguments; opens the events file for `note`."""
    global _events
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", required=True)
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    _events = open(args.events, "a", buffering=1)
    return args


def note(text: str) -> None:
    """Writes one event, stamped with the time in milliseconds."""
    _events.write(f"{time.time() * 1000:.0f} {text}\n")
