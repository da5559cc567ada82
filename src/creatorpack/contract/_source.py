"""Turn what :func:`creatorpack.validate` was given into text and a parsed document.

Text (bytes, ``str``, a file) is parsed strictly; a mapping is checked to hold only what JSON
can say, so that a ``set``, a ``Decimal``, ``NaN`` or an int key is an error that names its
place instead of a wrong verdict.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TypeAlias

import orjson

from creatorpack._json import JsonPath, a_python_type, pointer
from creatorpack.contract import _parse
from creatorpack.errors import LimitError, NotJSONDataError, NotJSONError, SourceTypeError, UnreadableError

__all__ = ["Source", "read", "read_file"]

Source: TypeAlias = bytes | bytearray | memoryview | str | os.PathLike[str] | Mapping[str, Any]
"""What :func:`validate` accepts: JSON bytes or text, a file path, or an already-parsed object."""

_SCALARS: Final = frozenset([str, int, bool, type(None)])
_PATH_HINT_MAX: Final = 4096


def read(source: object, max_bytes: int) -> tuple[bytes | str | None, _parse.Parsed]:
    """The source's text (``None`` for a mapping) and the parsed document."""
    if isinstance(source, bytes | bytearray | memoryview):  # the common case first
        data = bytes(source)
        return data, _parse.parse(data, max_bytes=max_bytes)
    if isinstance(source, str):
        source = str(source)  # orjson reads only str itself, not a subclass
        try:
            return source, _parse.parse(source, max_bytes=max_bytes)
        except NotJSONError as exc:
            if _looks_like_a_path(source):
                hint = f"{exc.message}; a str is JSON text: to validate the file, pass Path({source!r})"
                raise NotJSONError(hint, line=exc.line, column=exc.column) from None
            raise
    if isinstance(source, os.PathLike):
        data = read_file(source, max_bytes)
        return data, _parse.parse(data, max_bytes=max_bytes, what="file")
    if isinstance(source, Mapping):
        document = check_json_data(source if isinstance(source, dict) else dict(source))
        return None, _parse.Parsed(document)
    raise SourceTypeError(
        f"cannot validate {a_python_type(source)}: pass bytes, str (JSON text), a pathlib.Path or a mapping"
    )


def _looks_like_a_path(text: str) -> bool:
    if "{" in text or "\n" in text or len(text) > _PATH_HINT_MAX:
        return False
    stripped = text.strip()
    if stripped.lower().endswith(".json"):
        return True
    try:
        return Path(stripped).is_file()
    except (OSError, ValueError):
        return False


def read_file(path: os.PathLike[str] | str, max_bytes: int = _parse.MAX_BYTES) -> bytes:
    """Read a file's bytes, refusing (without reading it all) one larger than ``max_bytes``."""
    target = Path(path)
    try:
        with target.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise UnreadableError(f"{target} is a directory, not a pack file") from None
    except FileNotFoundError:
        raise UnreadableError(f"{target}: no such file") from None
    except OSError as exc:
        raise UnreadableError(f"{target}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise LimitError(f"{target} is larger than the limit of {max_bytes:,} bytes")
    return data


def check_json_data(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` if it is JSON data, else raise :class:`NotJSONDataError` (or a depth :class:`LimitError`).

    JSON data is dicts with str keys, lists (or tuples), str, int, bool, None and finite floats,
    subclasses included, nested at most :data:`~creatorpack.contract.validation.MAX_DEPTH` deep.
    A document with tuples or subclasses is returned as a copy of plain dicts, lists, str, int and
    float, which is what the schema validator reads.
    """
    try:
        orjson.dumps(value)  # native speed: wrong types, non-str keys, too deep
    except TypeError:
        _find_bad(value)  # or an int beyond 64 bits, which is fine
    else:
        if _all_finite(value):  # orjson writes NaN and Infinity as null: look for them
            return value
        _find_bad(value)
    plain: dict[str, Any] = _plain(value)
    return plain


def _plain(node: Any) -> Any:
    """A copy of JSON data (already checked) in plain types: subclasses and tuples become what they extend."""
    if isinstance(node, Mapping):
        return {str(key): _plain(child) for key, child in node.items()}
    if isinstance(node, list | tuple):
        return [_plain(child) for child in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, str):
        return str(node)
    return int(node) if isinstance(node, int) else float(node)


def _all_finite(root: dict[str, Any]) -> bool:
    """Whether every float is finite (False also for a tuple or subclass: the slow walk decides)."""
    stack: list[Any] = [root]
    pop, append, scalars, isfinite = stack.pop, stack.append, _SCALARS, math.isfinite
    while stack:
        node = pop()
        for child in node.values() if type(node) is dict else node:
            kind = type(child)
            if kind in scalars:
                continue
            if kind is dict or kind is list:
                append(child)
            elif kind is not float or not isfinite(child):
                return False
    return True


def _find_bad(root: Any) -> None:
    stack: list[tuple[JsonPath, Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, Mapping | list | tuple) and len(path) >= _parse.MAX_DEPTH:
            raise _parse.too_deep()
        if isinstance(node, Mapping):
            if path and not isinstance(node, dict):
                _raise(path, node, "use a dict")
            for key, child in node.items():
                if not isinstance(key, str):
                    where = pointer(path) or "/"
                    raise NotJSONDataError(
                        f"{where}: the key {key!r} is {a_python_type(key)}; JSON member names are strings",
                        pointer=pointer(path),
                        python_type=type(key).__name__,
                    )
                if not _is_unicode(key):
                    where = pointer(path) or "/"
                    raise NotJSONDataError(
                        f"{where}: the key {key!r} has a lone surrogate, which is not Unicode text; JSON text is UTF-8",
                        pointer=pointer(path),
                        python_type=type(key).__name__,
                    )
                stack.append(((*path, key), child))
        elif isinstance(node, list | tuple):
            stack.extend(((*path, index), child) for index, child in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            _raise(path, node, "JSON has no NaN or Infinity")
        elif isinstance(node, str) and not _is_unicode(node):
            shown = repr(node) if len(repr(node)) <= 40 else repr(node)[:39] + "…"
            raise NotJSONDataError(
                f"{pointer(path) or '/'}: the string {shown} has a lone surrogate, which is not Unicode text; "
                "JSON text is UTF-8",
                pointer=pointer(path),
                python_type=type(node).__name__,
            )
        elif not isinstance(node, str | int | float) and node is not None:
            _raise(path, node, "JSON has objects, arrays, strings, numbers, booleans and null")


def _is_unicode(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (which UTF-8, and so JSON text, cannot carry)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _raise(path: JsonPath, value: object, why: str) -> None:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    raise NotJSONDataError(
        f"{pointer(path) or '/'}: {shown} is {a_python_type(value)}, not a JSON value; {why}",
        pointer=pointer(path),
        python_type=type(value).__name__,
    )
