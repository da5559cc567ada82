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
def collector_paused(*, kept: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector (when it runs) for the ``with`` block.

    With ``kept`` (what the block makes lives on, as a compiled pack does), the objects made
    meanwhile are moved to the collector's oldest generation when the block ends, without walking
    them (``gc.freeze`` then ``gc.unfreeze``: two list splices), instead of being walked by the
    next collection of the youngest generation and again by one of the middle generation (about
    0.1 s each after compiling the runtime benchmark pack, most of the time the collector took).
    Not done when the host froze objects itself (``gc.freeze``): unfreezing would undo that.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if kept and gc.get_freeze_count() == 0:
            gc.freeze()  # every tracked object, the block's among them, set apart...
            gc.unfreeze()  # ... and back into the oldest generation, none of them walked
        if paused:
            gc.enable()
