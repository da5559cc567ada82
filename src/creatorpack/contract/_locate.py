"""Find the line and column of JSON Pointers in JSON text, without parsing it all in Python.

All wanted pointers are merged into a trie and the UTF-8 bytes are walked once: only containers
on the way to a target are read token by token; every other value is skipped by orjson (which
parses it at native speed and reports where it ends), and the walk stops as soon as every target
has been found. Offsets are bytes; columns are counted in code points.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeAlias

import orjson

Token: TypeAlias = str | int
Path: TypeAlias = tuple[Token, ...]

VALUE: Final = 0
"""Target kind: the start of the value at the pointer."""
KEY: Final = 1
"""Target kind: the member name (every occurrence) that leads to the pointer."""

_WHITESPACE: Final = frozenset(b" \t\n\r")


class _AllFoundError(Exception):
    """Every target was found: stop walking."""


class _Node:
    __slots__ = ("children", "kinds")

    def __init__(self) -> None:
        self.children: dict[Token, _Node] = {}
        self.kinds: set[int] = set()


class _Walk:
    def __init__(self, data: bytes, root: _Node, remaining: int) -> None:
        self.data = data
        self.view = memoryview(data)
        self.root = root
        self.remaining = remaining
        self.values: dict[Path, int] = {}
        self.keys: dict[Path, list[int]] = {}

    def ws(self, idx: int) -> int:
        data = self.data
        size = len(data)
        while idx < size and data[idx] in _WHITESPACE:
            idx += 1
        return idx

    def skip(self, idx: int) -> int:
        """The offset just past the value at ``idx``.

        orjson parses a window that starts at the value and doubles until the value ends inside it
        (orjson then reports the trailing content and where it starts); so a skip costs a small
        multiple of the value's own size, whatever follows it.
        """
        size = len(self.data)
        window = 512
        while True:
            end = min(idx + window, size)
            try:
                orjson.loads(self.view[idx:end])
            except orjson.JSONDecodeError as exc:
                if str(exc).startswith("unexpected content after document"):
                    return idx + self._bytes(idx, exc.pos)
                if end >= size:
                    raise
                window *= 4
            else:
                return end

    def _bytes(self, idx: int, chars: int) -> int:
        # orjson reports positions in code points: convert to bytes over just the skipped stretch.
        if self.data[idx : idx + chars].isascii():
            return chars
        stretch = self.data[idx : idx + 4 * chars].decode("utf-8", errors="ignore")[:chars]
        return len(stretch.encode("utf-8"))

    def string(self, idx: int) -> tuple[str, int]:
        """The member name starting at ``idx`` (a '"') and the offset just past it."""
        data = self.data
        end = data.index(b'"', idx + 1)
        while data[end - 1] == 0x5C:  # a backslash: escaped quote unless the backslash is escaped
            run = end - 1
            while data[run] == 0x5C:
                run -= 1
            if (end - 1 - run) % 2 == 0:
                break
            end = data.index(b'"', end + 1)
        raw = data[idx : end + 1]
        key: str = orjson.loads(raw) if b"\\" in raw else raw[1:-1].decode("utf-8")
        return key, end + 1

    def found(self) -> None:
        self.remaining -= 1
        if self.remaining <= 0:
            raise _AllFoundError

    def value(self, idx: int, node: _Node, path: Path) -> int:
        if VALUE in node.kinds and path not in self.values:
            self.values[path] = idx
            self.found()
        if not node.children:
            return self.skip(idx)
        char = self.data[idx : idx + 1]
        if char == b"{":
            return self._object(idx, node, path)
        if char == b"[":
            return self._array(idx, node, path)
        return self.skip(idx)

    def _object(self, idx: int, node: _Node, path: Path) -> int:
        data = self.data
        idx = self.ws(idx + 1)
        if data[idx : idx + 1] == b"}":
            return idx + 1
        while True:
            key_at = idx
            key, idx = self.string(idx)
            idx = self.ws(idx)
            idx = self.ws(idx + 1)  # the ':'
            child = node.children.get(key)
            if child is None:
                idx = self.skip(idx)
            else:
                child_path = (*path, key)
                if KEY in child.kinds:
                    self.keys.setdefault(child_path, []).append(key_at)
                idx = self.value(idx, child, child_path)
            idx = self.ws(idx)
            if data[idx : idx + 1] == b",":
                idx = self.ws(idx + 1)
                continue
            return idx + 1

    def _array(self, idx: int, node: _Node, path: Path) -> int:
        data = self.data
        idx = self.ws(idx + 1)
        if data[idx : idx + 1] == b"]":
            return idx + 1
        index = 0
        while True:
            child = node.children.get(index)
            idx = self.skip(idx) if child is None else self.value(idx, child, (*path, index))
            idx = self.ws(idx)
            if data[idx : idx + 1] == b",":
                idx = self.ws(idx + 1)
                index += 1
                continue
            return idx + 1


class Positions:
    """Where targets start in the text, as byte offsets, with line/column conversion."""

    def __init__(self, data: bytes, values: dict[Path, int], keys: dict[Path, list[int]]) -> None:
        self._data = data
        self.values = values
        self.keys = keys

    def line_columns(self, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
        """1-based line and column (in code points) of each offset, counted in one pass."""
        data = self._data
        result: dict[int, tuple[int, int]] = {}
        line, line_start, counted_to, column = 1, 0, 0, 1
        for offset in sorted(set(offsets)):
            newline = data.rfind(b"\n", counted_to, offset)
            if newline >= 0:
                line += data.count(b"\n", counted_to, offset)
                line_start = newline + 1
                counted_to, column = line_start, 1
            # Count on from the previous offset of the same line: linear in the file, not per offset.
            column += len(data[counted_to:offset].decode("utf-8", errors="replace"))
            counted_to = offset
            result[offset] = (line, column)
        return result


def locate(data: bytes, targets: Iterable[tuple[Path, int]]) -> Positions:
    """Find each ``(path, kind)`` target in ``data``, which must be valid UTF-8 JSON.

    Paths that do not exist in the text are absent from the result. With duplicate member
    names, the value found is the last one (the one a parser keeps).
    """
    root = _Node()
    count = 0
    needs_every_key = False
    for path, kind in targets:
        node = root
        for token in path:
            node = node.children.setdefault(token, _Node())
        if kind not in node.kinds:
            node.kinds.add(kind)
            count += kind == VALUE
            needs_every_key = needs_every_key or kind == KEY
    walk = _Walk(data, root, remaining=1 << 62 if needs_every_key else count)
    try:
        walk.value(walk.ws(0), root, ())
    except _AllFoundError:
        pass
    except (ValueError, IndexError, RecursionError, orjson.JSONDecodeError):
        pass  # best effort: whatever was found so far is right
    return Positions(data, walk.values, walk.keys)
