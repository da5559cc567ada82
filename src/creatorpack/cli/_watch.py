"""``validate --watch`` and ``lint --watch``: check again whenever a pack is saved.

Each run clears the screen (on a terminal), prints the report as without ``--watch``, and ends
with one line: the time and what is being watched. The watch ends on Ctrl-C with exit 130 (as
shells report SIGINT), whatever the last run found.

Directories are watched for ``*.json`` files; a file named on the command line is watched through
its directory (an editor that saves by writing a new file and renaming it over the old one would
otherwise end the watch on the old file), and only that file's changes count.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, TextIO

from creatorpack.cli._output import complain, is_terminal

__all__ = ["CLEAR", "INTERRUPTED", "watch"]

CLEAR: Final = "\x1b[2J\x1b[3J\x1b[H"
"""Clears the terminal and its scrollback, then moves to the top: printed before each run on a terminal."""
INTERRUPTED: Final = 130
"""The exit code of a watch ended with Ctrl-C (128 + SIGINT)."""


def watch(paths: Sequence[str], run: Callable[[], int], *, out: TextIO | None = None) -> int:
    """Run ``run`` now and after every change to ``paths``; return the exit code (130 on Ctrl-C, 2 for bad use)."""
    stream = out or sys.stdout
    if "-" in paths:
        complain("--watch watches files and directories: standard input ('-') cannot change")
        return 2
    try:
        import watchfiles  # noqa: PLC0415 - only --watch needs it
    except ImportError:  # pragma: no cover - installed with the service and dev extras
        complain("--watch needs watchfiles: pip install 'creatorpack[watch]'")
        return 2
    named = [Path(p).resolve() for p in paths]
    roots = sorted({str(p if p.is_dir() else p.parent) for p in named})
    files = {str(p) for p in named if not p.is_dir()}
    folders = [str(p) + os.sep for p in named if p.is_dir()]

    def counts(_change: object, path: str) -> bool:
        return path in files or (path.endswith(".json") and any(path.startswith(f) for f in folders))

    def once() -> None:
        if is_terminal(stream):
            stream.write(CLEAR)
            stream.flush()
        run()
        shown = ", ".join(paths) if len(paths) <= 3 else f"{len(paths)} paths"
        stream.write(f"[{time.strftime('%H:%M:%S')}] watching {shown} for changes; Ctrl-C stops\n")
        stream.flush()

    try:
        once()
        for _ in watchfiles.watch(*roots, watch_filter=counts, debounce=200, raise_interrupt=True):
            once()
    except KeyboardInterrupt:
        stream.write("stopped watching\n")
        stream.flush()
        return INTERRUPTED
    return 0  # pragma: no cover - the watch ends only on Ctrl-C (or when every path is gone)
