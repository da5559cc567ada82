"""Edit JSON text in place: find an object's members and render new values in the text's own style.

Used by :mod:`creatorpack.upgrade` so that an upgraded file differs from its source only where
the upgrade changed something: every other byte (spacing, escapes, number spelling) is kept.
The text must already be known to be valid JSON; nothing here re-checks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["Member", "Style", "members", "render", "root_start", "style_of"]

_WHITESPACE: Final = " \t\r\n"
_SCALAR_END: Final = ",}] \t\r\n"


@dataclass(frozen=True, slots=True)
class Member:
    """One member of an object: its name and where its value starts and ends in the text."""

    name: str
    key_start: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class Style:
    """How a document is laid out: indent unit (``None``: on one line), separators and newline."""

    indent: str | None
    item_separator: str
    key_separator: str
    newline: str = "\n"


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _string_end(text: str, pos: int) -> int:
    """The index just after the string that starts (with its quote) at ``pos``."""
    pos += 1
    while True:
        quote = text.index('"', pos)
        backslashes = 0
        while text[quote - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return quote + 1
        pos = quote + 1


def _value_end(text: str, pos: int) -> int:
    """The index just after the JSON value that starts at ``pos``."""
    first = text[pos]
    if first == '"':
        return _string_end(text, pos)
    if first not in "{[":
        while pos < len(text) and text[pos] not in _SCALAR_END:
            pos += 1
        return pos
    depth = 0
    while True:
        char = text[pos]
        if char == '"':
            pos = _string_end(text, pos)
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1


def members(text: str, start: int) -> tuple[list[Member], int]:
    """The members of the object whose ``{`` is at ``start``, and the index of its closing ``}``."""
    found: list[Member] = []
    pos = _skip_space(text, start + 1)
    while text[pos] != "}":
        key_end = _string_end(text, pos)
        name = json.loads(text[pos:key_end])
        value_start = _skip_space(text, _skip_space(text, key_end) + 1)
        value_end = _value_end(text, value_start)
        found.append(Member(name, pos, value_start, value_end))
        pos = _skip_space(text, value_end)
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)
    return found, pos


def root_start(text: str) -> int:
    """The index of the root object's ``{``."""
    return _skip_space(text, 0)


def style_of(text: str, start: int, found: list[Member]) -> Style:
    """The layout of the object at ``start``, read from the space around its first members."""
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    first = found[0]
    lead = text[start + 1 : first.key_start]
    key_end = _string_end(text, first.key_start)
    key_separator = text[key_end : first.value_start]
    if "\n" in lead:
        return Style(lead[lead.rindex("\n") + 1 :], "," + newline, key_separator, newline)
    if len(found) > 1:
        between = text[first.value_end : found[1].key_start]
        if "\n" in between:  # `{ "first": ...,` then one member a line: the later members show the indent
            return Style(between[between.rindex("\n") + 1 :], "," + newline, key_separator, newline)
        return Style(None, between, key_separator, newline)
    return Style(None, ", " if key_separator.endswith(" ") else ",", key_separator, newline)


def render(value: Any, style: Style, depth: int) -> str:
    """``value`` as JSON text in ``style``, for a place ``depth`` levels below the root."""
    if isinstance(value, dict) and value:
        parts = [
            json.dumps(key, ensure_ascii=False) + style.key_separator + render(item, style, depth + 1)
            for key, item in value.items()
        ]
        return _wrap("{", "}", parts, style, depth)
    if isinstance(value, list) and value:
        return _wrap("[", "]", [render(item, style, depth + 1) for item in value], style, depth)
    return json.dumps(value, ensure_ascii=False)


def _wrap(opening: str, closing: str, parts: list[str], style: Style, depth: int) -> str:
    if style.indent is None:
        return opening + style.item_separator.join(parts) + closing
    inner = style.newline + style.indent * (depth + 1)
    return opening + inner + ("," + inner).join(parts) + style.newline + style.indent * depth + closing
