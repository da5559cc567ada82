"""Duplicate keys in a JSON request body, which every JSON parser here collapses silently (the last one wins).

A body whose object repeats a key means two things at once (``{"turn": 2, "turn": 3}``), and two bodies
that differ only there would parse alike, so the retry of a turn could not tell them apart. Finding
them is the contract's (:func:`creatorpack.contract.may_repeat_keys`, :func:`creatorpack.contract.duplicate_keys`,
which packs use too); this module says where, for a problem's ``detail``.
"""

from __future__ import annotations

from typing import Final

from creatorpack._json import JsonPath, pointer, show
from creatorpack.contract import duplicate_keys

__all__ = ["duplicate_key", "first_duplicate"]

_LONGEST: Final = 80
_SHOWN: Final = 60


def first_duplicate(body: bytes) -> tuple[JsonPath, str] | None:
    """The shallowest object that repeats a key, and the key; None when none does.

    For a worker thread, and only for a body :func:`~creatorpack.contract.may_repeat_keys` did not clear.
    """
    found = duplicate_keys(body)
    return found[0] if found else None


def duplicate_key(path: JsonPath, key: str) -> str:
    """The message naming a repeated ``key`` and the object it is repeated in (long names cut short)."""
    where = pointer(path)
    if len(where) > _LONGEST:
        where = where[:_SHOWN] + "…"
    return f"duplicate key {show(key)} in {where or 'the top-level object'}"
