"""The app factory of ``creatorpack serve``'s server processes, which end when the serve process does.

With ``--workers N`` uvicorn starts N server processes that share the listening socket. If the serve
process is killed outright (``kill -9``, the OOM killer), nothing tells them: they would go on holding
the port, and a new ``serve`` could not listen. So each one asks, before it builds the app, to be sent
``SIGTERM`` when its parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``; the signal comes when the thread
that started the process ends, and uvicorn starts and restarts workers from its main thread), and then
checks that its parent is still the serve process, since one that died before the request sends no
signal. Elsewhere a daemon thread polls ``os.getppid()`` each second. ``SIGTERM`` is uvicorn's graceful
shutdown: requests in flight are answered, then the process exits and lets go of the port.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Final, Literal

from creatorpack.service import app as _app
from creatorpack.service.logs import configure_logging

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["PARENT_ENV", "create_app", "die_with_parent"]

PARENT_ENV: Final = "CREATORPACK_SERVE_PID"
"""The serve process's pid, which it sets for its server processes (a worker's parent)."""
_PR_SET_PDEATHSIG: Final = 1
_POLL_SECONDS: Final = 1.0


def create_app() -> FastAPI:
    """The app of the settings in the environment, in a server process that ends with the serve process."""
    die_with_parent()
    configure_logging()  # as serve resolved it (CREATORPACK_LOG_FORMAT, CREATORPACK_LOG_LEVEL)
    return _app.create_app()


def die_with_parent(parent: int | None = None) -> Literal["prctl", "watchdog"] | None:
    """Arrange for ``SIGTERM`` when ``parent`` (default: :data:`PARENT_ENV`) dies; how, or None if not a worker.

    The serve process itself (one server process, no workers) has no parent to outlive: nothing is done.
    """
    expected = parent if parent is not None else int(os.environ.get(PARENT_ENV) or 0)
    if expected <= 0 or expected == os.getpid():
        return None
    how: Literal["prctl", "watchdog"] = "prctl" if _death_signal() else "watchdog"
    if how == "watchdog":
        threading.Thread(target=_watch, args=(expected,), name="creatorpack-parent-watchdog", daemon=True).start()
    if os.getppid() != expected:  # it died before we asked: no signal will come
        os.kill(os.getpid(), signal.SIGTERM)
    return how


def _death_signal() -> bool:
    """Ask Linux for ``SIGTERM`` when the parent (thread) ends; False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    """Poll the parent's pid; ``SIGTERM`` this process once it is another (the parent died, we were adopted)."""
    while os.getppid() == parent:
        time.sleep(_POLL_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)
