"""Python's cyclic garbage collector paused while a burst of long-lived objects is made.

Compiling a pack, and generating code on first use, make hundreds of thousands of objects that
all live on; each collection they trigger walks them all again, which took more than half of the
compile time of the runtime benchmark pack. What is collected once afterwards costs little.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (when it runs) for the ``with`` block."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
