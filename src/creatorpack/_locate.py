"""Find the line and column of JSON Pointers in JSON text, without parsing it all in Python.

All wanted pointers are merged into a trie and the text is walked once: only containers on the
way to a target are read token by token; every other value is skipped by the C scanner of the
standard library, and the walk stops as soon as every target has been found.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable
from json import scanner
from typing import Final, TypeAlias

Token: TypeAlias = str | int
Path: TypeAlias = tuple[Token, ...]

VALUE: Final = 0
"""Target kind: the start of the value at the pointer."""
KEY: Final = 1
"""Target kind: the member name (every occurrence) that leads to the pointer."""

_WS: Final = re.compile(r"[ \t\n\r]*")
_SKIP_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_scan_once = scanner.make_scanner(json.JSONDecoder())  # type: ignore[no-untyped-call]
_scanstring = json.decoder.scanstring


class _Done(Exception):
    """Every target was found: stop walking."""


class _Node:
    __slots__ = ("children", "kinds")

    def __init__(self) -> None:
        self.children: dict[Token, _Node] = {}
        self.kinds: set[int] = set()


class _Walk:
    def __init__(self, text: str, root: _Node, remaining: int) -> None:
        self.text = text
        self.root = root
        self.remaining = remaining
        self.values: dict[Path, int] = {}
        self.keys: dict[Path, list[int]] = {}

    def ws(self, idx: int) -> int:
        match = _WS.match(self.text, idx)
        return match.end() if match else idx

    def skip(self, idx: int) -> int:
        try:
            _, end = _scan_once(self.text, idx)
        except RecursionError:
            return self._skip_deep(idx)
        return int(end)

    def _skip_deep(self, idx: int) -> int:
        depth = 0
        for match in _SKIP_TOKEN.finditer(self.text, idx):
            token = match.group()
            if token in "[{":
                depth += 1
            elif token in "]}":
                depth -= 1
                if depth == 0:
                    return match.end()
        return len(self.text)

    def found(self) -> None:
        self.remaining -= 1
        if self.remaining <= 0:
            raise _Done

    def value(self, idx: int, node: _Node, path: Path) -> int:
        if VALUE in node.kinds and path not in self.values:
            self.values[path] = idx
            self.found()
        if not node.children:
            return self.skip(idx)
        char = self.text[idx : idx + 1]
        if char == "{":
            return self._object(idx, node, path)
        if char == "[":
            return self._array(idx, node, path)
        return self.skip(idx)

    def _object(self, idx: int, node: _Node, path: Path) -> int:
        text = self.text
        idx = self.ws(idx + 1)
        if text[idx : idx + 1] == "}":
            return idx + 1
        while True:
            key_at = idx
            key, idx = _scanstring(text, idx + 1)
            idx = self.ws(idx)
            idx = self.ws(idx + 1)  # the ':'
            child = node.children.get(key)
            if child is None:
                idx = self.skip(idx)
            else:
                child_path = (*path, key)
                if KEY in child.kinds:
                    occurrences = self.keys.setdefault(child_path, [])
                    occurrences.append(key_at)
                idx = self.value(idx, child, child_path)
            idx = self.ws(idx)
            if text[idx : idx + 1] == ",":
                idx = self.ws(idx + 1)
                continue
            return idx + 1

    def _array(self, idx: int, node: _Node, path: Path) -> int:
        text = self.text
        idx = self.ws(idx + 1)
        if text[idx : idx + 1] == "]":
            return idx + 1
        index = 0
        last = max((k for k in node.children if isinstance(k, int)), default=-1)
        while True:
            child = node.children.get(index)
            if child is None:
                if index > last:
                    return self._finish_array(idx)
                idx = self.skip(idx)
            else:
                idx = self.value(idx, child, (*path, index))
            idx = self.ws(idx)
            if text[idx : idx + 1] == ",":
                idx = self.ws(idx + 1)
                index += 1
                continue
            return idx + 1

    def _finish_array(self, idx: int) -> int:
        # Past the last wanted index: skip the remaining items one by one.
        text = self.text
        while True:
            idx = self.ws(self.skip(idx))
            if text[idx : idx + 1] == ",":
                idx = self.ws(idx + 1)
                continue
            return idx + 1


class Positions:
    """Where targets start in the text, as 0-based offsets, with line/column conversion."""

    def __init__(self, text: str, values: dict[Path, int], keys: dict[Path, list[int]]) -> None:
        self._text = text
        self.values = values
        self.keys = keys
        self._line_starts: list[int] | None = None

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in code points) of an offset."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1


def locate(text: str, targets: Iterable[tuple[Path, int]]) -> Positions:
    """Find each ``(path, kind)`` target in ``text``, which must be valid JSON.

    Paths that do not exist in the text are simply absent from the result. With duplicate
    member names the value found is the last one (the one a parser keeps).
    """
    root = _Node()
    count = 0
    for path, kind in targets:
        node = root
        for token in path:
            node = node.children.setdefault(token, _Node())
        if kind not in node.kinds:
            node.kinds.add(kind)
            count += 1 if kind == VALUE else 0
    walk = _Walk(text, root, remaining=count if not _has_key_targets(root) else 1 << 62)
    start = walk.ws(0)
    try:
        walk.value(start, root, ())
    except _Done:
        pass
    except (ValueError, IndexError, RecursionError):
        pass  # best effort: whatever was found so far is still right
    return Positions(text, walk.values, walk.keys)


def _has_key_targets(root: _Node) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if KEY in node.kinds:
            return True
        stack.extend(node.children.values())
    return False
