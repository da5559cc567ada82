"""One raw finding type and one locate-and-sort, shared by validation and lint.

A check first says *where* (a path into the parsed document), *which rule* (a code) and *why*
(a message); :func:`locate_and_sort` then finds every place in the source text in one walk of
the bytes and orders the findings as a reader meets them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from creatorpack._json import JsonPath, pointer
from creatorpack.contract import _locate

__all__ = ["Located", "RawFinding", "Target", "locate_and_sort", "sort_key"]


class Target(IntEnum):
    """What a finding's line and column point at."""

    VALUE = _locate.VALUE
    """The start of the value at the path."""
    KEY = _locate.KEY
    """The member name that leads to the path."""


@dataclass(frozen=True, slots=True)
class RawFinding:
    """A finding before its line and column are known."""

    path: JsonPath
    code: str
    message: str
    target: Target = Target.VALUE
    occurrence: int = -1
    """For a :attr:`Target.KEY` finding: which occurrence of the member name (``-1``: the last,
    the one a parser keeps; ``1``: the first repeat of a duplicated name)."""


@dataclass(frozen=True, slots=True)
class Located:
    """A raw finding with its RFC 6901 pointer and, when the source was text, its place."""

    raw: RawFinding
    pointer: str
    line: int | None = None
    column: int | None = None


def sort_key(path: JsonPath) -> list[tuple[int, str | int]]:
    """Document order of paths without text: indexes numerically, before member names."""
    return [(0, token) if isinstance(token, int) else (1, token) for token in path]


def locate_and_sort(raw: Iterable[RawFinding], text: bytes | None) -> tuple[Located, ...]:
    """Locate every finding in ``text`` (UTF-8 JSON; ``None``: parsed input) and sort them.

    The order is line, then column, then path and code: the first finding is the first a reader
    meets. Findings without a place (parsed input, or a path the text does not have) come first.
    """
    items = list(raw)
    places: list[tuple[int, int] | None] = [None] * len(items)
    if text is not None and items:
        positions = _locate.locate(text, ((item.path, int(item.target)) for item in items))
        offsets = [_offset(item, positions) for item in items]
        columns = positions.line_columns(offset for offset in offsets if offset is not None)
        places = [None if offset is None else columns[offset] for offset in offsets]
    located = [
        Located(item, pointer(item.path), *(place or (None, None))) for item, place in zip(items, places, strict=True)
    ]
    located.sort(key=lambda f: (f.line or 0, f.column or 0, sort_key(f.raw.path), f.raw.code))
    return tuple(located)


def _offset(item: RawFinding, positions: _locate.Positions) -> int | None:
    if item.target == Target.VALUE:
        return positions.values.get(item.path)
    occurrences = positions.keys.get(item.path, [])
    try:
        return occurrences[item.occurrence]
    except IndexError:
        return None
