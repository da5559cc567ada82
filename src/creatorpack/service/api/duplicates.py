"""Duplicate keys in a JSON request body, which every JSON parser here collapses silently (the last one wins).

A body whose object repeats a key means two things at once (``{"turn": 2, "turn": 3}``), and two bodies
that differ only there would parse alike, so the retry of a turn could not tell them apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

import orjson

from creatorpack._json import JsonPath, pointer, show

__all__ = ["duplicate_key", "first_duplicate", "may_repeat"]

_ESCAPED_COLON: Final = b"\\u003"  # \u003a or \u003A, which orjson writes back as a plain colon
_LONGEST: Final = 80
_SHOWN: Final = 60


class _Repeated(dict[str, Any]):
    """An object whose ``repeated`` key occurred more than once (the last value kept, as everywhere)."""

    __slots__ = ("repeated",)
    repeated: str


def may_repeat(body: bytes) -> bool:
    """Whether ``body`` may repeat a key: cheap (orjson), and False only when it certainly does not.

    orjson drops a repeated member, so its re-serialisation has fewer colons than the body exactly
    when one was dropped; an escaped colon, or a value orjson refuses (NaN, a number past a double),
    makes the count unreliable, and then the answer is True too.
    """
    try:
        again = orjson.dumps(orjson.loads(body))
    except (ValueError, TypeError):
        return True
    return _ESCAPED_COLON in body or body.count(b":") != again.count(b":")


def first_duplicate(body: bytes) -> tuple[JsonPath, str] | None:
    """Where the first object that repeats a key is (in document order), and the key; None when none does.

    Exact but slower than :func:`may_repeat` (the standard library calls back for every object): ask
    it only about the bodies that one did not clear.
    """
    try:
        value = json.loads(body, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        return None
    return _first_repeated(value)


def duplicate_key(path: JsonPath, key: str) -> str:
    """The message naming a repeated ``key`` and the object it is repeated in (long names cut short)."""
    where = pointer(path)
    if len(where) > _LONGEST:
        where = where[:_SHOWN] + "…"
    return f"duplicate key {show(key)} in {where or 'the top-level object'}"


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object as ``json`` builds it (the last of a repeated key kept), marked when a key repeats."""
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    marked = _Repeated(found)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.repeated = key
            break
        seen.add(key)
    return marked


def _first_repeated(value: Any) -> tuple[JsonPath, str] | None:
    """The first marked object in document order (depth first), with its repeated key."""
    stack: list[tuple[JsonPath, Any]] = [((), value)] if isinstance(value, dict | list) else []
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Repeated):
            return path, node.repeated
        items: Iterable[tuple[str | int, Any]] = node.items() if isinstance(node, dict) else enumerate(node)
        stack.extend(reversed([((*path, k), v) for k, v in items if isinstance(v, dict | list)]))
    return None
