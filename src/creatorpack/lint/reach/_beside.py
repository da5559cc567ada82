"""Work run beside the caller, in one worker thread that lives only within a ``with`` block.

Lint's inductive box phase spends most of its time in z3's C code, which releases the GIL, so on
a big pack :func:`~creatorpack.lint.reach._decide.decide` runs it while the guided search plays
on. The work is given everything it reads when it starts, so that its result does not depend on
when the thread runs; the block's end tells unfinished work to stop and joins the thread, also
when the block is left by an exception.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

__all__ = ["Beside", "Stopped"]

T = TypeVar("T")


class Stopped(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Work told to stop (by its ``stop`` callable) because its result is no longer wanted."""


class Beside(Generic[T]):
    """At most one piece of work in a worker thread (``max_workers=1``); :meth:`result` waits for it.

    The work is a function of ``stop``: a callable that says, once the result is no longer wanted,
    that it should raise :class:`Stopped` at its next convenient point.
    """

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[T] | None = None

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Tell work still running to stop, and join the thread (an unwanted result and its exception are dropped)."""
        self._stop.set()
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    @property
    def started(self) -> bool:
        """Whether work was started."""
        return self._future is not None

    def start(self, work: Callable[[Callable[[], bool]], T]) -> None:
        """Start ``work(stop)`` in the worker thread (once)."""
        if self._pool is not None:
            raise RuntimeError("work was started already")
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="creatorpack-beside")
        self._future = self._pool.submit(work, self._stop.is_set)

    def result(self) -> T:
        """The work's result, waited for; an exception it raised is raised here."""
        if self._future is None:
            raise RuntimeError("no work was started")
        return self._future.result()
