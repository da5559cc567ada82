"""JSON helpers every layer shares: RFC 6901 pointers, JSON type names, and value display.

Written once here so that validation, the runtime, lint and the command line name places,
types and values the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeAlias

import orjson

__all__ = [
    "JSON_TYPE_NAMES",
    "JsonPath",
    "a_python_type",
    "copy_json",
    "described",
    "json_type",
    "parse_pointer",
    "pointer",
    "show",
    "unescape",
    "whole_number",
]

JsonPath: TypeAlias = tuple[str | int, ...]
"""A place in a JSON document: member names and array indexes, outermost first."""

JSON_TYPE_NAMES: Final[Mapping[type, str]] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}
"""The JSON type name of each Python type that parsed JSON is made of."""


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (mappings become dicts, sequences lists) that shares nothing with ``value``.

    What the runtime hands a host (a turn's state, a save) and what it keeps from one (a pack, a
    loaded save) go through it, so that changing either side can never change the other.
    """
    if isinstance(value, Mapping):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [copy_json(item) for item in value]
    return value


def whole_number(value: Any) -> int | None:
    """``value`` as an int when JSON Schema counts it as an integer (``3``, ``3.0``, ``3e0``), else ``None``.

    The contract's integers accept a float with no fraction (``docs/contract-gaps.md``), so a
    valid pack may spell a revision or a counter ``3.0``; the runtime and the diff read it as ``3``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def pointer(path: Sequence[str | int]) -> str:
    """The RFC 6901 JSON Pointer for a path of member names and array indexes (``""``: the root)."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in path)


def unescape(token: str) -> str:
    """One reference token of a JSON Pointer with its ``~1`` and ``~0`` escapes undone."""
    return token.replace("~1", "/").replace("~0", "~")


def parse_pointer(text: str) -> tuple[str, ...] | None:
    """The reference tokens of an RFC 6901 JSON Pointer, or ``None`` if ``text`` is not one."""
    if text == "":
        return ()
    if not text.startswith("/"):
        return None
    return tuple(unescape(token) for token in text[1:].split("/"))


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value (the Python type name for anything else)."""
    name = JSON_TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def described(value: Any) -> str:
    """A value's JSON type and Python rendering for state messages: ``integer 3``, ``string 'x'``, ``object``."""
    name = JSON_TYPE_NAMES.get(type(value))
    if name is not None and name != "object":
        return f"{name} {value!r}"
    return "object" if isinstance(value, Mapping) else type(value).__name__


def a_python_type(value: object) -> str:
    """The Python type name of a value that is no JSON, with its article: ``an int``, ``a Decimal``, ``None``."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def show(value: Any, limit: int = 60) -> str:
    """A short rendering of a JSON value for messages: ``'fr'``, ``3``, ``true``, ``null``."""
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[: limit - 1] + "…")
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # nan, inf: orjson would write null, which is not what was given
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
