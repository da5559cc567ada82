"""A small least-recently-used map, for the in-process caches that keep at most so many entries.

Not thread-safe: each cache's owner holds its own lock around it (or runs on one event loop).
:class:`SizedCache` is the variant bounded by bytes, for the fast paths' cached responses.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["Lru", "SizedCache"]

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


class SizedCache(Generic[K, V]):
    """Entries whose sizes add up to at most ``max_bytes``: :meth:`put` forgets the oldest while over.

    The fast paths answer from it without reordering on a hit (an entry lives until it is forgotten,
    replaced or pushed out by newer ones), so a read costs one dict lookup.
    """

    __slots__ = ("_entries", "_size", "max_bytes")

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._size = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """The sum of the kept entries' sizes."""
        return self._size

    def get(self, key: K) -> V | None:
        """The value under ``key``, or None."""
        found = self._entries.get(key)
        return None if found is None else found[0]

    def put(self, key: K, value: V, size: int) -> None:
        """Keep ``value`` (of ``size`` bytes) as the newest entry; forget the oldest while over ``max_bytes``."""
        self.pop(key)
        self._entries[key] = (value, size)
        self._size += size
        while self._size > self.max_bytes and self._entries:
            _, (_, evicted) = self._entries.popitem(last=False)
            self._size -= evicted

    def pop(self, key: K) -> None:
        """Forget ``key`` if it is kept."""
        gone = self._entries.pop(key, None)
        if gone is not None:
            self._size -= gone[1]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()
        self._size = 0
