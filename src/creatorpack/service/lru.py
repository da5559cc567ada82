"""A small least-recently-used map, for the in-process caches that keep at most so many entries.

Not thread-safe: each cache's owner holds its own lock around it, as it did around the dict before.
Caches bounded by bytes rather than entries (compiled engines, revision bytes, reader views) keep
their own bookkeeping.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["Lru"]

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; :meth:`put` makes an entry the most recent and forgets the least recent beyond."""

    __slots__ = ("_entries", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def peek(self, key: K) -> V | None:
        """The value under ``key``, or None; its place in the order is left as it is."""
        return self._entries.get(key)

    def touch(self, key: K) -> None:
        """Make ``key`` (if present) the most recently used."""
        if key in self._entries:
            self._entries.move_to_end(key)

    def get(self, key: K) -> V | None:
        """The value under ``key``, made the most recently used; None if absent."""
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        """Store ``value`` as the most recently used; forget the least recently used while over ``size``."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
